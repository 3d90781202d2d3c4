/*
 * Host noise over a run's measured window (issue 17): what the machine did
 * besides the game. Two snapshots, at the window's start and end, each the
 * /proc/stat ticks of every CPU, the CPU time of two lists of processes
 * (the run's own, and the game's) and the run-queue delay of the game's
 * threads; their difference gives the noise.* figures of bench.txt
 * (docs/formats.md, "Host noise (noise.*)").
 *
 * Everything is read under the swappable root (fsroot.h). The parse layer
 * takes buffers; the reader opens the root and /proc/stat once and then
 * takes snapshots without allocating (openat on the root, pread, a fixed
 * getdents buffer), so that what it costs is small and the same each time.
 * Nothing here prints.
 */
#ifndef HB_HOSTNOISE_H
#define HB_HOSTNOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "text/kvfile.h"
#include "base/util.h"

/* The fields of a cpu line of /proc/stat, in the kernel's order (clock
 * ticks). user and nice include guest and guest_nice. */
enum noise_field {
	NF_USER, NF_NICE, NF_SYSTEM, NF_IDLE, NF_IOWAIT, NF_IRQ, NF_SOFTIRQ, NF_STEAL,
	NF_GUEST, NF_GUEST_NICE,
	NOISE_NFIELDS
};

struct noise_ticks {
	uint64_t f[NOISE_NFIELDS];
};

/* All the time a CPU line accounts for: user .. steal (guest time is in
 * user and nice already). */
uint64_t noise_ticks_total(const struct noise_ticks *t);
/* Busy: user + nice + system + irq + softirq. */
uint64_t noise_ticks_busy(const struct noise_ticks *t);

/* ---- the parse layer ---- */

/* The cpu lines at the top of /proc/stat: the aggregate "cpu" line into
 * all, and up to max "cpuN" lines into cpu[] with their N into id[]
 * (fields the kernel does not print, on old kernels, are 0). *ncpu is how
 * many cpuN lines there are (may exceed max). Stops at the first line that
 * is not a cpu line; a buffer cut inside the cpu lines is -EOVERFLOW. 0,
 * -ENOENT (no "cpu" line first), -EINVAL (a malformed line). */
int noise_stat_parse(const char *buf, struct noise_ticks *all, struct noise_ticks *cpu, int *id,
		     size_t max, size_t *ncpu);
/* From /proc/cpuinfo: 1 when a "flags" line lists "hypervisor", 0 when
 * flags lines do not, -ENOENT when there is no flags line (not x86). */
int noise_cpuinfo_hypervisor(const char *buf);
/* utime + stime + cutime + cstime of a /proc/PID/stat, clock ticks.
 * 0 or -EINVAL. */
int noise_pid_ticks(const char *buf, uint64_t *ticks);
/* The pids in a /proc/PID/task/TID/children file ("12 34 "): up to max
 * into out, the count (may exceed max), or -EINVAL. */
int noise_children_parse(const char *buf, pid_t *out, size_t max);

/* ---- snapshots ---- */

/* A cpu line of /proc/stat is at most 10 numbers of 20 digits and a
 * name; the cpu lines of the most CPUs a kernel has (CONFIG_NR_CPUS is at
 * most 8192) and the aggregate line are what a read of proc/stat needs at
 * most (2 MiB) */
#define NOISE_CPU_LINE_MAX 256
#define NOISE_CPUS_MAX 8192
#define NOISE_STAT_MAX ((size_t)(NOISE_CPUS_MAX + 1) * NOISE_CPU_LINE_MAX)

struct noise_reader {
	int root_fd;        /* the root directory */
	int stat_fd;        /* proc/stat, re-read with pread */
	int hypervisor;     /* noise_cpuinfo_hypervisor() of proc/cpuinfo, or -errno */
	long hz;            /* clock ticks per second */
	size_t cpu_max;     /* cpuN lines a snapshot has room for */
	char *buf;          /* what files are read into */
	size_t size;
};

struct noise_snapshot {
	uint64_t t_ns;                  /* CLOCK_MONOTONIC when it was taken */
	struct noise_ticks all;         /* the aggregate cpu line */
	struct noise_ticks *cpu;        /* the cpuN lines, cpu_max of room */
	int *cpu_id;
	size_t ncpu;                    /* cpuN lines kept */
	uint64_t run_cpu_ns;            /* CPU time of the run's processes, since they began */
	uint64_t game_cpu_ns;           /* of the game's; the caller may add what it reaped */
	uint64_t game_runq_ns;          /* run-queue delay of the game's threads */
	size_t run_procs, game_procs;   /* processes read */
	size_t game_threads;            /* threads whose schedstat was read */
	bool have_schedstat;            /* some game thread had one (or no thread was asked) */
};

/* Opens the root and proc/stat, reads proc/cpuinfo. 0 or -errno: no
 * proc/stat (-ENOENT ...), -EINVAL (its cpu lines do not parse: one cut
 * by the file's end too), -EFBIG (cpu lines past NOISE_STAT_MAX bytes, more
 * than a kernel's most CPUs: the read is bounded, not grown further). */
int noise_reader_open(struct noise_reader *r);
void noise_reader_close(struct noise_reader *r);
/* Reads rel (under r's root) into r->buf, NUL-terminated, with one
 * pread (what did not fit is cut). Bytes read or -errno. */
ssize_t noise_read_rel(struct noise_reader *r, const char *rel);
/* Calls fn for each entry of the directory rel (under r's root) whose
 * name is a number > 0 (proc/'s pids, proc/PID/task's tids), until fn
 * returns non-zero. 0, fn's value, or -errno (rel cannot be read).
 * Allocates nothing. */
int noise_each_entry(struct noise_reader *r, const char *rel, int (*fn)(struct noise_reader *r, int id, void *arg),
		     void *arg);
/* Room for a snapshot of r's machine. */
void noise_snapshot_init(struct noise_snapshot *s, const struct noise_reader *r);
void noise_snapshot_release(struct noise_snapshot *s);
/* Takes a snapshot: proc/stat, then proc/PID/stat of every pid of run[]
 * and game[] (a process gone meanwhile counts nothing), then
 * proc/PID/task/ * /schedstat of every game pid. Allocates nothing.
 * 0 or -errno (proc/stat unreadable or malformed). */
int noise_snapshot_take(struct noise_reader *r, const pid_t *run, size_t nrun, const pid_t *game,
			size_t ngame, struct noise_snapshot *s);
/* The pid and every descendant of it, walked through
 * proc/PID/task/TID/children (CONFIG_PROC_CHILDREN), into out (up to max).
 * The count (may exceed max), or -ENOENT when the kernel has no children
 * files. Allocates nothing. */
int noise_descendants(struct noise_reader *r, pid_t pid, pid_t *out, size_t max);

/* ---- the figures ---- */

struct noise_figures {
	uint64_t t0_ns, t1_ns;
	size_t cpus;
	bool steal_known;
	char steal[160];                /* noise.steal: where it came from, or why not */
	double steal_pct;               /* when steal_known */
	double irq_pct, softirq_pct, foreign_cpu_pct;
	double run_cpu_ms, game_cpu_ms;
	bool have_runq;
	char runq_why[96];              /* when not */
	double game_runq_ms, game_runq_ms_per_s;
};

/* The figures of docs/formats.md "Host noise" from a (window start) and b
 * (end), with hypervisor as noise_reader.hypervisor and hz its clock
 * ticks. 0, or -EINVAL when b is not after a or no CPU time passed. */
int noise_diff(const struct noise_snapshot *a, const struct noise_snapshot *b, int hypervisor,
	       long hz, struct noise_figures *out);
/* The noise.* keys (all but noise.cost_us and noise.limits) into kf. */
void noise_figures_write(const struct noise_figures *f, struct kvfile *kf);
/* "steal 1.20% foreign 3.40% irq 0.10% runq 12.0 ms/s" for progress lines;
 * "steal -" without a steal clock, no runq without schedstat. */
void noise_figures_brief(const struct noise_figures *f, struct strbuf *sb);

/* Limits a quiet profile sets ([noise], recipes/README.md); < 0: none. */
struct noise_limits {
	double steal_pct_max, foreign_cpu_pct_max, irq_pct_max, game_runq_ms_per_s_max;
};
#define NOISE_LIMITS_NONE { -1, -1, -1, -1 }
/* True when some limit is set (the tests' check of a profile's limits). */
bool noise_limits_any(const struct noise_limits *l);
/* "steal_pct_max=2 foreign_cpu_pct_max=10" (the set ones), or "none". */
void noise_limits_describe(const struct noise_limits *l, struct strbuf *sb);
/* The first figure over its limit, as "noise: steal 4.20% over the
 * profile's 2%" into err: true; false when all are within. A figure
 * that is not known (no steal clock, no schedstat) is not checked. */
bool noise_over_limits(const struct noise_figures *f, const struct noise_limits *l,
		       struct strbuf *err);

#endif
