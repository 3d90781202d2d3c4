/*
 * What named daemons did over a run's measured window (issue 21): on a lab
 * node slurmd, the slurmstepd of other jobs and munged stay up while a
 * batch measures, and their CPU time and wakeups land on the game's CPUs.
 * Two snapshots, at the window's start and end, of every process whose
 * name (comm) is on a list and that is not exempt (the runner's ancestors:
 * the job's own slurmstepd; the runner's own tree); their difference gives
 * the noise.daemon.* keys of bench.txt (docs/formats.md, "Host noise",
 * "Daemons' cost (noise.daemon.*, format 2)").
 *
 * Per daemon name, summed over its processes:
 *   cpu       utime + stime of proc/PID/stat: every thread of the process,
 *             living or exited, as the kernel sums them
 *   switches  voluntary + nonvoluntary context switches of
 *             proc/PID/task/TID/status, over its threads: each voluntary
 *             switch is a sleep, so the next run is a wakeup
 *   wakeups   nr_wakeups of proc/PID/task/TID/sched, where the kernel shows
 *             it (schedstats on)
 * A thread or process there at both snapshots counts its difference, one
 * that came during the window all it has; one that left during the window
 * is lost (its switches; a process's CPU time too): a lower bound, and the
 * processes that left are counted.
 *
 * Read under the swappable root through the host noise reader
 * (hostnoise.h); the snapshots allocate nothing. Nothing here prints.
 */
#ifndef HB_DAEMONCOST_H
#define HB_DAEMONCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "system/hostnoise.h"
#include "text/kvfile.h"
#include "base/util.h"

#define DAEMON_COST_FORMAT 2
#define DAEMON_NAMES_MAX 8
/* the daemons of a Slurm node (slurmctld too: a one-machine lab runs it
 * beside the batches), when a quiet profile names none */
#define DAEMON_NAMES_DEFAULT "slurmd slurmstepd munged slurmctld"
/* processes and threads a snapshot keeps; past them it says so */
#define DAEMON_PROCS_MAX 256
#define DAEMON_THREADS_MAX 2048

struct daemon_names {
	char name[DAEMON_NAMES_MAX][16]; /* comm: at most 15 bytes */
	size_t n;
};

/* "slurmd slurmstepd, munged" (blanks or commas) into names. 0, or
 * -EINVAL with err ("'x...' is longer than a process name (15)", "more
 * than 8 names", a repeated name, a control byte). An empty list is no
 * daemon. Any other byte is a name's (kworker/0:1, (sd-pam), a=b): a comm
 * may hold it; daemon_key_name() makes it a key's. */
int daemon_names_parse(const char *list, struct daemon_names *names, struct strbuf *err);

/* ---- the parse layer ---- */

/* voluntary_ctxt_switches + nonvoluntary_ctxt_switches of a
 * proc/PID/status. 0, -ENOENT (neither line), -EINVAL (a number that is
 * not one, or one of the two lines without the other: unknown, not 0). */
int daemon_status_switches(const char *buf, uint64_t *switches);
/* The nr_wakeups line of a proc/PID/sched ("nr_wakeups   :   12"). 0,
 * -ENOENT (no such line: schedstats off), -EINVAL. */
int daemon_sched_wakeups(const char *buf, uint64_t *wakeups);

/* ---- snapshots ---- */

struct daemon_proc {
	pid_t pid;
	uint64_t starttime;   /* with the pid, who it is */
	uint64_t ticks;       /* utime + stime */
	int name;             /* index into the names */
};

struct daemon_thread {
	pid_t tid;
	uint64_t starttime;   /* 0: not read (the tid says who it is) */
	uint64_t switches, wakeups;
	bool have_wakeups;
	int name;
};

struct daemon_snapshot {
	struct daemon_proc proc[DAEMON_PROCS_MAX];
	size_t nproc;
	struct daemon_thread thr[DAEMON_THREADS_MAX];
	size_t nthr;
	bool truncated;       /* more processes or threads than room */
	bool skip_sched;      /* set by the caller: do not read proc/PID/task/TID/sched
			       * (an earlier snapshot found no nr_wakeups there) */
};

/* The processes of names[] under the root's proc/, but those in
 * exempt[], into s. 0 or -errno (proc/ unreadable). */
int daemon_snapshot_take(struct noise_reader *r, const struct daemon_names *names, const pid_t *exempt,
			 size_t nexempt, struct daemon_snapshot *s);
/* The same, reading only the processes pids[] (a list an earlier full
 * snapshot found: cheaper where the cost counts, at the window's start).
 * A pid gone, reused by another program or exempt is left out. 0. */
int daemon_snapshot_take_pids(struct noise_reader *r, const struct daemon_names *names, const pid_t *pids,
			      size_t npids, const pid_t *exempt, size_t nexempt, struct daemon_snapshot *s);
/* pid and its ancestors up to (not with) pid 1, through proc/PID/stat,
 * into out (up to max). The count. */
size_t daemon_ancestors(struct noise_reader *r, pid_t pid, pid_t *out, size_t max);

/* ---- the figures ---- */

struct daemon_figure {
	double cpu_ms;
	uint64_t switches;
	uint64_t wakeups;
	bool have_wakeups;    /* every thread counted showed nr_wakeups */
	size_t procs;         /* at the window's end */
	size_t gone;          /* there at the start, not at the end */
	char pids[128];       /* "812 4410", "none", cut with "..." */
};

struct daemon_cost {
	struct daemon_names names;
	struct daemon_figure d[DAEMON_NAMES_MAX];
	bool truncated;
};

/* The figures from a (window start) and b (end); hz: clock ticks a
 * second. */
void daemon_cost_diff(const struct daemon_names *names, const struct daemon_snapshot *a,
		      const struct daemon_snapshot *b, long hz, struct daemon_cost *out);
/* A name as it is written inside a bench.txt key (docs/formats.md,
 * "Daemons' cost"): A-Z a-z 0-9 and '-' as they are, every other byte
 * (the '_' and the '.' too) as '_' and two lower-case hex digits:
 * "kworker/0:1" is "kworker_2f0_3a1", "rcu_sched" "rcu_5fsched". One
 * name, one key part, and no key part is two names'. Cut to size (room
 * for DAEMON_KEY_NAME_MAX holds any name of 15 bytes). Exported for the
 * tests (test-daemoncost.c) and the fuzz target (fuzz-hostnoise.c). */
#define DAEMON_KEY_NAME_MAX (15 * 3 + 1)
void daemon_key_name(const char *name, char *out, size_t size);
/* The noise.daemon.* keys into kf (each name through daemon_key_name());
 * source says where the list came from. */
void daemon_cost_write(const struct daemon_cost *c, const char *source, struct kvfile *kf);

#endif
