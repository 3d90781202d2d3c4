/*
 * What the parts of the process watcher share (procwatch.h is its API):
 * the state, one table of the processes alive now sorted by pid, and the
 * functions one part calls in another. The parts:
 *   procwatch.c           the start and the end, the API's small functions
 *   procwatch-table.c     the table, and what proc/PID says of one process
 *   procwatch-verdict.c   whose a new process is, and the busy-session check
 *   procwatch-scan.c      finding new processes by listing proc/
 *   procwatch-connector.c finding them by the kernel's proc connector
 * Nothing here is for use outside these files.
 */
#ifndef HB_PROCWATCH_INTERNAL_H
#define HB_PROCWATCH_INTERNAL_H

#include "procwatch/procwatch.h"
#include "system/procparse.h"

#include <linux/netlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PF_KTHREAD 0x00200000u

enum owner {
	OWN_UNDECIDED,   /* new, no verdict yet */
	OWN_OTHER,       /* existed at the start, nobody's in particular */
	OWN_OUTSIDE,     /* new and outside the run */
	OWN_RUN,
	OWN_HARNESS,
	OWN_KERNEL,
};

struct proc_ent {
	int pid, ppid;
	unsigned char owner;
	bool pending;          /* new: its verdict waits for exec, exit or a timeout */
	bool execd;            /* the connector saw it exec */
	bool marked;           /* the harness's by its marker (what it forks without exec is too) */
	bool env_read;         /* its environment was read for the marker (once: not judged new, or listed) */
	bool candidate;        /* a busy-session candidate: base_ticks is its CPU at the start */
	bool seen;             /* listed by the scan in progress */
	unsigned sessionid;
	uint64_t base_ticks;
	uint64_t born_ns;      /* CLOCK_MONOTONIC when first seen (fork event or scan) */
};

struct procwatch {
	struct procwatch_config cfg;
	enum procwatch_source source;
	char why[160];
	int sock;              /* the connector, or -1 */
	int procfd;            /* proc/ under the root, reopened by every scan */
	int loadavg_fd;        /* proc/loadavg, opened at the first scan */
	uint64_t start_ns, next_scan_ns, scan_ns;
	uint64_t busy_ticks;
	long hz;
	long last_pid;         /* proc/loadavg's at the last listing */
	bool finished;

	struct proc_ent *ent, *ent2;   /* the table and the merge's buffer */
	size_t n, alloc;
	int *listed;                   /* a scan's pids */
	size_t n_listed, alloc_listed;
	size_t n_pending;

	pid_t *harness;
	size_t n_harness;
	int run_pgrp[16], run_sid[16];
	size_t n_run_ids;
	unsigned run_sessions[16];     /* login sessions that are the run's */
	size_t n_run_sessions;

	struct procwatch_stats st;
	char buf[4096];                /* stat, sessionid, cgroup reads */
	char dents[32768];             /* getdents64 */
	char envbuf[65536];            /* environ */
	char whybuf[128];
	union {                        /* connector messages */
		struct nlmsghdr nl;
		char raw[8192];
	} msg __attribute__((aligned(8)));
};

static inline bool pw_pid_in(const pid_t *v, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

static inline bool pw_int_in(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* the table (procwatch-table.c) */
struct proc_ent *pw_ent_find(struct procwatch *w, int pid);
struct proc_ent *pw_ent_insert(struct procwatch *w, int pid);
void pw_ent_remove(struct procwatch *w, int pid);
/* Room for n entries in the table and the merge's buffer. */
void pw_ent_reserve(struct procwatch *w, size_t n);
/* proc/PID/NAME into buf, NUL-terminated. Bytes or -errno. */
ssize_t pw_read_pid_file(struct procwatch *w, int pid, const char *name, char *buf, size_t size);
/* proc/PID/stat parsed into st (read into w->buf). 0 or -errno. */
int pw_read_stat(struct procwatch *w, int pid, struct pstat *st);
/* proc/PID/sessionid, or PROCWATCH_NO_SESSION. */
unsigned pw_read_sessionid(struct procwatch *w, int pid);
/* utime+stime+cutime+cstime. */
uint64_t pw_cpu_ticks(const struct pstat *st);

/* verdicts (procwatch-verdict.c) */
/* Gives a new process its verdict (once); may move table entries. */
void pw_decide(struct procwatch *w, struct proc_ent *e, uint64_t at_ns, int depth);
/* The markers of a process there at the start that no rule judged, read once. */
void pw_read_markers(struct procwatch *w, struct proc_ent *p);
/* A busy-session candidate's verdict: did it burn a second? */
void pw_busy_check(struct procwatch *w, struct proc_ent *e, uint64_t at_ns);

/* scanning (procwatch-scan.c) */
/* Reopens proc/ under the root as w->procfd. 0 or -errno. */
int pw_open_proc(struct procwatch *w);
/* The pids under proc/ into w->listed, ascending. 0 or -errno. */
int pw_list_pids(struct procwatch *w);
/* The last pid the kernel handed out, or -1. */
long pw_last_pid(struct procwatch *w);
/* Lists proc/ and merges the listing into the table. 0 or -errno. */
int pw_scan_list(struct procwatch *w);

/* the connector (procwatch-connector.c) */
/* A connector socket listening for proc events, or -errno. */
int pw_cn_open(void);
/* 0 when an event for a forked child arrives within 500 ms, or -errno. */
int pw_cn_selftest(struct procwatch *w);
/* Every event waiting on w->sock through the table. 0 or -errno. */
int pw_cn_read(struct procwatch *w);
void pw_cn_close(struct procwatch *w);

#endif
