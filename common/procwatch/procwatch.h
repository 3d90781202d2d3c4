/*
 * The process half of the interference watcher (issue 6, "logins and
 * commands"): every process that starts during a watched run gets a
 * verdict, counted or not, and at the end the processes of other login
 * sessions that already existed are checked for a second of CPU or more.
 *
 * Where new processes come from, in order of preference:
 *  - the kernel's proc connector (NETLINK_CONNECTOR, CN_IDX_PROC): a
 *    fork, exec and exit event for every process, as it happens, so no
 *    process is too short-lived to be seen. Needs CAP_NET_ADMIN (root)
 *    and a kernel with CONFIG_PROC_EVENTS; procwatch_start() checks that
 *    events really arrive by forking a child that exits at once.
 *  - scanning proc/ under the swappable root (fsroot) every 250 ms:
 *    proc/loadavg first, whose last field is the last pid handed out:
 *    when it has not moved, nothing can be new and proc/ is not listed
 *    (a listing of 500 pids costs ~200 us of CPU on the 2-core VM, the
 *    loadavg read a few). Otherwise only the directory is read; a pid
 *    not seen before has its stat read
 *    once (sessionid, loginuid, cgroup and environ only when a verdict
 *    needs them). A process that lives less than one interval is missed,
 *    and so is a pid reused within one interval.
 * procwatch_source() and procwatch_why() say which is in use and why
 * the other is not.
 *
 * Whose a new process is, first rule that matches:
 *  1. a kernel thread (PF_KTHREAD in its stat's flags): exempt;
 *  2. a pid the caller listed as the harness's own: exempt;
 *  3. the run's own: a descendant of a run root (its parent is the
 *     run's), in the process group or session a run root leads (one it
 *     inherited from whoever started it is not the run's), or carrying
 *     HITCHBENCH_RUN=<run id> in its environment (read only when the
 *     rules before it did not decide);
 *  4. the harness's own by its marker: HITCHBENCH_HARNESS (any value)
 *     in its environment. `hitchbench run` sets it for itself, so its
 *     helpers and its X server carry it (the game's environment is built
 *     afresh and does not); a script that drives hitchbench exports it
 *     so that its own commands are not taken for someone else's;
 *     a child that never exec'd (the connector knows), or that exec'd
 *     and was gone before it was read, takes its parent's marker (a
 *     parent there before the watch has its environment read when it
 *     forks or a child is judged, and the harness's children there at
 *     the start at the start: they can fork and be gone before the
 *     fork is read, as a sanitizer build's leak check at exit);
 *  5. anything else is outside the run: counted. The harness's own
 *     processes (the caller's list and the watcher's ancestors) are
 *     exempt themselves, but what they start is judged by these rules.
 *
 * A busy session process: one that existed when the watch started, is
 * in a login session (proc/PID/sessionid is not 4294967295) that is not
 * the run's (the run roots' and the watcher's sessions), is neither the
 * run's nor the harness's, and whose utime+stime+cutime+cstime grew by
 * one second or more between the start and procwatch_finish(). cutime
 * and cstime hold what its children used once they exited and were
 * reaped, so a shell's finished commands count; a child not yet reaped,
 * or one whose parent is not a pre-existing session process, is not
 * seen this way, and neither is a pre-existing process that exited
 * before the end (its CPU at exit is not readable).
 *
 * The library allocates when it starts and when the process table
 * grows; dispatching events and scans otherwise allocates nothing.
 * Functions return 0 or -errno and never print.
 */
#ifndef HB_PROCWATCH_H
#define HB_PROCWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCWATCH_MARKER_ENV "HITCHBENCH_RUN"
#define PROCWATCH_HARNESS_ENV "HITCHBENCH_HARNESS"
#define PROCWATCH_RELAY_ENV "HITCHBENCH_RELAY"
/* Which marker an environment (NUL-separated) carries: the run's
 * (PROCWATCH_MARKER_ENV) or the relay's (PROCWATCH_RELAY_ENV), as cfg's
 * run_id and relay_id (either may be NULL or empty) name them; NULL: none. */
const char *procwatch_environ_marked(const char *buf, size_t len, const char *run_id, const char *relay_id);
#define PROCWATCH_SCAN_MS 250
#define PROCWATCH_NO_SESSION 4294967295u  /* sessionid of a process outside any login */

enum procwatch_source {
	PROCWATCH_AUTO,       /* config only: the connector where it works, else the scan */
	PROCWATCH_CONNECTOR,
	PROCWATCH_SCAN,
};

enum procwatch_what {
	PROCWATCH_OUTSIDE,    /* a new process outside the run: counted */
	PROCWATCH_BUSY,       /* a pre-existing process of another login session; counted at 1 s */
	PROCWATCH_HARNESS,    /* the harness's own: exempt */
	PROCWATCH_RUN,        /* the run's own: exempt */
	PROCWATCH_KERNEL,     /* a kernel thread: exempt */
};

/* One line of the verdict stream. Valid only during the callback. */
struct procwatch_verdict {
	bool counted;                /* '!' in the log; '-' otherwise */
	enum procwatch_what what;
	int pid, ppid;
	char comm[64];
	double t;                    /* seconds after the watch started */
	const char *why;             /* the rule that decided: "parent 1234 is the run's", ... */
	/* where known (0 / PROCWATCH_NO_SESSION / "" otherwise), for the summary */
	unsigned sessionid;
	unsigned loginuid;
	char scope[96];              /* the cgroup's last element: "session-12.scope", "cron.service" */
	/* PROCWATCH_BUSY: CPU used during the watch, clock ticks; -1 if it exited */
	int64_t cpu_ticks;
};

typedef void (*procwatch_fn)(void *ctx, const struct procwatch_verdict *v);

struct procwatch_config {
	enum procwatch_source source;   /* PROCWATCH_AUTO unless a test forces one */
	const pid_t *run_roots;         /* the run's processes: their descendants, process */
	size_t n_run_roots;             /* groups and sessions are the run's */
	const char *run_id;             /* HITCHBENCH_RUN=<run_id> marks the run's own; NULL: none */
	const char *relay_id;           /* HITCHBENCH_RELAY=<relay_id> too (a relay's partner game,
					 * docs/metrics.md "Relay"); NULL: none */
	const pid_t *harness;           /* the harness's own processes (exempt themselves) */
	size_t n_harness;
	pid_t self;                     /* the watcher; 0: getpid(). Its ancestors are the harness's */
	unsigned scan_ms;               /* 0: PROCWATCH_SCAN_MS */
	unsigned busy_ms;               /* 0: 1000 (a second of CPU) */
	procwatch_fn fn;
	void *ctx;
};

struct procwatch_stats {
	unsigned long events;           /* connector messages read */
	unsigned long scans;            /* scans due (each reads proc/loadavg) */
	unsigned long listings;         /* proc/ listings: scans after a new pid was handed out */
	unsigned long stat_reads;       /* stat files read after the start */
	unsigned long lost;             /* times the connector lost events (a scan made up) */
	size_t procs;                   /* processes in the table now */
};

struct procwatch;

/* Reads proc/ once (the processes that exist now, and the CPU time of
 * the busy-session candidates) and starts listening. 0 or -errno (proc/
 * unreadable; -EPERM / -EPROTONOSUPPORT / -ETIMEDOUT when the connector
 * was forced and does not work). */
int procwatch_start(struct procwatch **out, const struct procwatch_config *cfg);
/* The source in use, and a sentence saying why the other one is not. */
enum procwatch_source procwatch_source(const struct procwatch *w);
const char *procwatch_why(const struct procwatch *w);
/* A descriptor to poll for input (the connector's socket; -1 when
 * scanning), and how long the caller may wait before calling
 * procwatch_dispatch() even without input: ms, -1 for no limit. */
int procwatch_fd(const struct procwatch *w);
int procwatch_timeout_ms(const struct procwatch *w);
/* Reads what the connector has, scans when a scan is due, gives every
 * decided process its verdict. Never blocks. 0 or -errno. */
int procwatch_dispatch(struct procwatch *w);
/* One scan of proc/ now, whatever the source (tests; the connector's
 * make-up after lost events). 0 or -errno. */
int procwatch_scan(struct procwatch *w);
/* Adds a run root started after procwatch_start() (the game, when the
 * watch starts just before it): it and what it starts from now on are
 * the run's; no verdict is given for it. */
void procwatch_add_run_root(struct procwatch *w, pid_t pid);
/* Ends the watch: verdicts for processes still undecided, then the
 * busy-session pass. Call once; dispatch does nothing afterwards. */
int procwatch_finish(struct procwatch *w);
/* What the watch cost and saw, for the test tool that measures it on the
 * live machine (tests/tools/procwatch.c, t1100). */
void procwatch_stats(const struct procwatch *w, struct procwatch_stats *out);
/* procwatch_free(NULL) is safe. */
void procwatch_free(struct procwatch *w);

const char *procwatch_what_name(enum procwatch_what what);
const char *procwatch_source_name(enum procwatch_source source);

/* NAME=VALUE (value NULL: NAME with any value) among the NUL-separated
 * entries of an environ buffer of len bytes. */
bool procwatch_environ_has(const char *buf, size_t len, const char *name, const char *value);
/* The last element of a cgroup v2 path ("session-12.scope") into out. */
void procwatch_scope(const char *cgroup_path, char *out, size_t size);

#endif
