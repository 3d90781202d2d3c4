/*
 * Parsers for the /proc and /sys files the stall recorder samples every
 * few milliseconds. Each takes a buffer (the file as read with pread) and
 * fills a struct, allocating nothing, so the recorder calls them in its
 * loop and the tests call them on the real /proc trees under
 * tests/fixtures/testdata/procfs. Numbers are as the kernel prints them; units
 * are said per field.
 */
#ifndef HB_PROCPARSE_H
#define HB_PROCPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* /proc/PID/stat and /proc/PID/task/TID/stat: the fields the recorder
 * uses. The comm may hold spaces and parentheses: it runs from the first
 * '(' to the last ')'. */
struct pstat {
	int pid;
	char comm[64];          /* cut to 63 bytes */
	char state;
	int ppid;
	int pgrp, session;      /* fields 5, 6: process group and session ids */
	unsigned flags;         /* field 9: PF_* (PF_KTHREAD 0x00200000: a kernel thread) */
	uint64_t minflt, majflt;
	uint64_t utime, stime;  /* clock ticks */
	int64_t cutime, cstime; /* fields 16, 17: reaped children's, clock ticks */
	int64_t num_threads;
	uint64_t starttime;     /* clock ticks after boot */
	int processor;          /* field 39: the CPU it last ran on; -1 if absent */
	uint64_t blkio_ticks;   /* field 42: delayacct_blkio_ticks; 0 if absent */
	bool have_blkio;
};
/* 0 or -EINVAL (no "(...)", fewer than 22 fields, a malformed number
 * or one its field cannot hold, e.g. a CPU number past INT_MAX). */
int pstat_parse(const char *buf, struct pstat *out);

/* /proc/PID/task/TID/schedstat: "run_ns wait_ns timeslices". */
struct pschedstat {
	uint64_t run_ns;        /* time on a CPU */
	uint64_t runq_ns;       /* time runnable, waiting for a CPU */
	uint64_t slices;
};
int pschedstat_parse(const char *buf, struct pschedstat *out);

/* /proc/PID/task/TID/syscall: "running", "-1 SP PC" (blocked outside a
 * system call) or "NR ARG1 .. ARG6 SP PC" (hex arguments). */
struct psyscall {
	enum { PSYSCALL_RUNNING, PSYSCALL_NONE, PSYSCALL_IN } kind;
	long nr;                /* PSYSCALL_IN */
	uint64_t args[6];
};
int psyscall_parse(const char *buf, struct psyscall *out);

/* /proc/vmstat: "name value" lines. A vmstat_index finds the counters the
 * caller wants once; vmstat_index_read() then reads every wanted value of
 * a new buffer by looking where each line was in the last one (moved by as
 * much as the numbers before it grew or shrank), checking the name there,
 * and searches the whole buffer again only when a name is not found there:
 * when the kernel's order changed. */
#define VMSTAT_MAX_WANT 64
struct vmstat_index {
	size_t n;
	const char *name[VMSTAT_MAX_WANT];   /* wanted names (not copied) */
	int line[VMSTAT_MAX_WANT];           /* their line at the last search, -1: absent */
	unsigned off[VMSTAT_MAX_WANT];       /* where that line began in the last buffer read */
	unsigned char len[VMSTAT_MAX_WANT];  /* strlen(name[i]) */
	unsigned char order[VMSTAT_MAX_WANT]; /* indexes of name[] by line: one pass a read */
	unsigned searches;                   /* whole-buffer searches so far, init's included */
};
/* Sets the wanted names and finds them in buf. Returns how many of the
 * names the buffer has; -E2BIG for more than VMSTAT_MAX_WANT names,
 * -EINVAL for an empty name or one of 256 bytes or more. */
int vmstat_index_init(struct vmstat_index *ix, const char *const *names, size_t n,
		      const char *buf);
/* values[i] = the value of name[i] in buf (0 when absent or malformed);
 * have[i] (may be NULL) says whether it was there. A name absent when the
 * index was last searched is not looked for again until another name is
 * found off its remembered line. */
void vmstat_index_read(struct vmstat_index *ix, const char *buf, uint64_t *values, bool *have);
/* The value of one name in buf, as the tests check vmstat_index_read()
 * against. 0, -ENOENT, or -EINVAL (a malformed value). */
int vmstat_get(const char *buf, const char *name, uint64_t *value);

/* Block device counters: a line of /proc/diskstats ("MAJ MIN NAME" then 11,
 * 15 or 17 numbers: 14, 18 or 20 fields in all) or /sys/block/NAME/stat
 * (the numbers alone). */
struct blkstat {
	unsigned major, minor;  /* diskstats only */
	char name[32];          /* diskstats only */
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ms;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ms;
	uint64_t in_flight, io_ms, weighted_ms;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ms;  /* discards (15+ numbers) */
	uint64_t fl_ios, fl_ms;                         /* flushes (17 numbers) */
	int fields;             /* numbers on the line: 11, 15 or 17 */
};
/* One /proc/diskstats line (no newline needed). 0 or -EINVAL (another
 * count of numbers, a bad number). */
int diskstats_line_parse(const char *line, struct blkstat *out);
/* /sys/block/NAME/stat. 0 or -EINVAL. */
int blkstat_parse(const char *buf, struct blkstat *out);

/* A pressure file (/proc/pressure/{cpu,io,memory,irq}, a cgroup's
 * *.pressure): "some avg10=.. avg60=.. avg300=.. total=US" and, on most,
 * a "full" line. */
struct psi_line {
	bool have;
	double avg10, avg60, avg300;
	uint64_t total_us;
};
struct psi {
	struct psi_line some, full;
};
/* 0, or -EINVAL when neither line is there, or a line is malformed or
 * neither "some" nor "full". */
int psi_parse(const char *buf, struct psi *out);

/* /proc/swaps: "Filename Type Size Used Priority" after a heading line. */
struct swap_entry {
	char path[128];
	char type[16];          /* "partition" or "file" */
	uint64_t size_kib, used_kib;
	int priority;
};
/* Fills up to max entries; returns how many the file lists (may exceed
 * max), or -EINVAL. The kernel's octal escapes in the path (\040 for a
 * space) are undone; a longer path is cut to 127 bytes. */
int swaps_parse(const char *buf, struct swap_entry *out, size_t max);

/* /proc/PID/cgroup: the cgroup v2 path (the "0::PATH" line) into path.
 * 0, -ENOENT when the process has no v2 line, -EINVAL for an empty path,
 * -ERANGE when it does not fit in size. */
int cgroup2_path_parse(const char *buf, char *path, size_t size);

/* /proc/PID/fdinfo/N of a DRM fd: the sum of its "drm-total-*" (or, on
 * kernels without them, "drm-memory-*") sizes, KiB (summed in bytes, then
 * rounded down). Sizes are "N" bytes, "N KiB" or "N MiB". 0, -ENOENT when
 * the file has none, -EINVAL for a malformed size. */
int drm_fdinfo_mem_kib(const char *buf, uint64_t *kib);

#endif
