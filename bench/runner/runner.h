/*
 * One run of a game, start to finish: a fresh X server, a fresh HOME, the
 * game as the unprivileged user with the frame hook, the warm-up and the
 * measured window, the game's whole process tree stopped and checked, and
 * a complete run directory (written under a temporary name, renamed when
 * done). Format of what it writes: docs/formats.md.
 */
#ifndef HB_RUNNER_H
#define HB_RUNNER_H

#include <stdbool.h>

#include "runner/gameuser.h"
#include "system/hostnoise.h"
#include "metrics/metrics.h"
#include "text/kvfile.h"
#include "recipe/recipe.h"
#include "switch/switch.h"
#include "formats/relayfile.h"
#include "base/util.h"

/* A run of a relay or a duet (docs/metrics.md "Relay"): two runners, one
 * for A and one for B, forked by the batch, meet at a barrier before their
 * games start (each writes a byte to ready_fd, then reads the shared
 * epoch, 8 bytes in host order, from go_fd) and from then on follow one
 * grid of turns (a relay: each stops its game outside its own turns) or
 * play at once on their own CPUs (a duet). */
struct relay_plan {
	enum relay_mode mode;
	const char *id;                  /* the relay's id (HITCHBENCH_RELAY, relay.txt) */
	char role, first;                /* this run's side; the side of turn 0 */
	double turn_s, settle_s;         /* relay: a turn; after a resume, frames not counted */
	const char *cpus;                /* duet: the game's CPUs (a CPU list); NULL otherwise */
	const char *partner;             /* the other side's run name, for bench.txt */
	int ready_fd, go_fd;             /* the barrier */
	pid_t root;                      /* the relay's parent: its descendants (both runners,
					  * both games) are the run's own to the noise figures */
};

struct run_request {
	const struct recipe *recipe;
	const struct recipe_variant *variant; /* NULL: the recipe alone */
	const char *variant_name;
	const struct switch_set *switches; /* NULL: none (not even the default observers) */
	const char *run_name;            /* "variant@label"; NULL: the variant's name */
	const struct kvfile *extra;      /* more bench.txt pairs (batch, quieting); may be NULL */
	double warmup_s, window_s;
	const char *out_dir;             /* run directories go here */
	const char *display;             /* NULL: start our own Xvfb */
	const char *hook_path;           /* hitchbench-hook.so */
	const char *helper_dir;          /* where hitchbench-wadlump and friends are */
	const char *harness_command;     /* how hitchbench was invoked, for bench.txt */
	const struct game_user *user;
	struct metric_opts metric;
	const struct noise_limits *noise_limits; /* the quiet profile's [noise]; NULL: no profile */
	const char *noise_profile;       /* that profile's path, for bench.txt */
	const char *noise_daemons;       /* its [noise] daemons; NULL: the default list */
	int signal_fd;                   /* signalfd for SIGCHLD, SIGINT, SIGTERM, SIGHUP */
	const struct flip_plan *flip;    /* NULL: not a flip run */
	const struct relay_plan *relay;  /* NULL: not a run of a relay or a duet */
	struct thaw_journal *journal;    /* the batch's thaw journal; NULL: none held */
	bool verbose;                    /* also report each pass */
	void (*progress)(const char *line); /* how the run goes, a line at a time; may be NULL */
};

struct run_outcome {
	char *dir;          /* the finished run directory (NULL if none was kept) */
	char *status;       /* "ok" or what went wrong */
	bool interrupted;   /* SIGINT/SIGTERM/SIGHUP: nothing of the run was kept */
	char *invalid;      /* why an observer marked the run invalid, or NULL */
	char *interfered;   /* what the interference watcher counted (someone used the
	                     * machine: the run is invalid too), or NULL */
	char *noise;        /* the window's host noise in brief ("steal 0.10% foreign 2.30%
	                     * irq 0.00% runq 1.2 ms/s"), or NULL */
};

/* 0 when a run directory was completed (its status may still say the run
 * failed), -EINTR when interrupted, other -errno when no run directory is
 * kept (message in err): it could not be written, or the run's reload
 * rule could not be resolved (a bad analysis.ini: "PATH:LINE: ..."),
 * which stops the run before the game starts. */
int runner_run(const struct run_request *req, struct run_outcome *out, struct strbuf *err);
void run_outcome_release(struct run_outcome *o);

#endif
