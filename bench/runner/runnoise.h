/*
 * Host noise for one run (issue 17): the runner takes a snapshot of the
 * machine (common/system/hostnoise.h) at its window's start and end, of its own
 * processes (itself and every descendant) and the game's (the game's
 * session, as proctree.h finds it), and writes the noise.* keys of
 * docs/formats.md ("Host noise (noise.*)") into bench.txt, with what the
 * snapshots cost it. A quiet profile's [noise] limits mark a run over them
 * invalid. Beside them, what named daemons that are not the run's nor its
 * ancestors did over the window (daemoncost.h: slurmd, other jobs'
 * slurmstepd, munged on a lab node): the noise.daemon.* keys. Nothing
 * here prints.
 */
#ifndef HB_RUNNOISE_H
#define HB_RUNNOISE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "system/daemoncost.h"
#include "system/hostnoise.h"
#include "text/kvfile.h"
#include "runner/proctree.h"
#include "base/util.h"

struct run_noise {
	struct noise_reader rd;
	bool ready;                 /* the reader is open */
	int open_err;               /* why it could not open (-errno), or 0 */
	struct noise_snapshot s[2]; /* window start, end */
	bool asked[2];              /* the runner came to take it */
	bool have[2];
	int take_err;               /* the first snapshot that failed, -errno */
	pid_t *run_pids;
	size_t run_max;
	uint64_t reaped_game_ns;    /* CPU time of the game's processes the runner reaped */
	uint64_t cost_ns;           /* the runner's thread CPU time for the snapshots */
	struct noise_figures fig;
	bool have_fig;
	/* the daemons' cost (daemoncost.h) */
	struct daemon_names daemons;
	char daemons_source[160];   /* where the list came from, for bench.txt */
	struct daemon_snapshot *ds; /* [2]: window start, end */
	pid_t *exempt;              /* the runner's ancestors, then its tree */
	size_t exempt_max, nancestors;
	pid_t known[DAEMON_PROCS_MAX]; /* the daemons a scan before the window found */
	size_t nknown;
	uint64_t daemon_cost_ns[2];    /* the runner's thread CPU time for each daemon snapshot */
	int daemon_err;             /* the first daemon snapshot that failed, -errno */
	pid_t root;                 /* whose descendants are the run's own: 0, the runner's; a
				     * relay's parent for a run of a relay (both sides') */
};

/* Opens the reader (a failure is recorded, not fatal). A zeroed struct
 * may be released without it. */
void run_noise_init(struct run_noise *n);
void run_noise_release(struct run_noise *n);
/* The daemons to watch: list (names, as a quiet profile's [noise]
 * daemons), or NULL for DAEMON_NAMES_DEFAULT; profile (may be NULL) is the
 * profile's path, for bench.txt. A list that does not parse (profiles are
 * checked when read) watches none. It scans proc/ for them now, before the
 * window: the start snapshot reads only what it found (the scan costs
 * milliseconds, which the window would pay); the end snapshot, after the
 * window, scans again and counts all of a daemon that came meanwhile. */
void run_noise_daemons(struct run_noise *n, const char *list, const char *profile);
/* What a reaped process of the game's used (wait4's rusage). */
void run_noise_reaped(struct run_noise *n, const struct rusage *ru);
/* Takes snapshot which (0: start, 1: end; once each, the end only after
 * the start) of the runner's tree and of game[] (the game's processes). */
void run_noise_take(struct run_noise *n, int which, const struct pid_list *game);
/* After the end snapshot: the noise.* keys into bench, and whether the
 * figures are over limits (NULL: no quiet profile, profile its path for
 * noise.limits): the reason into err, true. */
bool run_noise_finish(struct run_noise *n, const struct noise_limits *limits, const char *profile,
		      struct kvfile *bench, struct strbuf *err);

#endif
