/*
 * The stall record: what the game's main thread and the machine were doing
 * every period of a run, written by the stall recorder (harness/stallrec-main.c,
 * the STALLS switch) and read by the stall analysis (analysis/stalls/stallcause.c).
 * Format version 1, documented in docs/formats.md ("Stall record").
 *
 * A record is a table of int64 values: a row per sample, a column per
 * counter. Columns are named in the record ("main.majflt", "vm.pswpin",
 * "disk.vda.rd_ios"), so a reader finds the columns it knows and ignores
 * the others, and a column this kernel could not give is simply absent;
 * the well-known names are enum sr_col. Strings (wait channels, system
 * call names, what an fd points at) are interned: a column holds the
 * string's number, 0 for none. Kernel stacks are a list of their own.
 *
 * Two layouts of the same table:
 *   live    while the game runs, a file in /dev/shm that the recorder maps
 *           and fills in place: a header, rows of n_cols int64, a string
 *           table and a stack area, all sized when it starts, so that
 *           sampling allocates nothing and makes no write() call. In
 *           the machine's byte order: it never leaves the machine (the
 *           recorder packs it when it ends, the runner when it was killed;
 *           a live file of the other order is refused, by name).
 *   packed  the run directory's stalls.rec.zst, little-endian on every
 *           machine (bytes put one by one, never a memory image): what
 *           travels from a target to the host. One zstd frame holding the
 *           header text, then each column delta-encoded as zigzag varints,
 *           column after column (a counter that did not move costs a zero
 *           byte, which zstd then all but removes), the strings, the stacks
 *           and the recorder's own numbers.
 * stallrec_load() reads either.
 */
#ifndef HB_STALLRECORD_H
#define HB_STALLRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/kvfile.h"

struct strbuf;

#define HB_STALLREC_VERSION 1
#define HB_STALLREC_FILE "stalls.rec.zst"

/*
 * The well-known columns. Counters are cumulative (the analysis takes
 * deltas between rows); states and string ids are values at the sample.
 * A row's deltas cover the time since the previous row.
 */
enum sr_col {
	/* time */
	SR_T_US,            /* CLOCK_MONOTONIC, us, when the sample was taken */
	SR_RT_US,           /* CLOCK_REALTIME, us, read right after t: the clock pair,
			     * at the first sample and every 10 s; 0 in other rows */
	/* the game */
	SR_PID,             /* the game's process (its main thread's tid); 0: none running */
	SR_FRAMES,          /* presents recorded so far in the run's frame file */
	SR_STATE,           /* the main thread's state letter ('R', 'S', 'D', ...) as a
			     * number; 0 when it could not be read */
	SR_WCHAN,           /* string: its wait channel when not running; 0 when running */
	SR_SYSCALL,         /* string: the system call it is in ("futex", "pread64",
			     * "syscall_N" for one the recorder has no name for),
			     * "-" blocked outside a system call (a page fault);
			     * 0 when running or unknown */
	SR_FD,              /* string: what the call's fd points at ("/dev/dri/card0",
			     * "socket:[123]", a path); 0 when the call has no fd */
	SR_MAIN_MINFLT,     /* the main thread's minor faults */
	SR_MAIN_MAJFLT,     /* its major faults */
	SR_MAIN_UTIME,      /* its user time, clock ticks (tick-sampled) */
	SR_MAIN_STIME,      /* its system time, clock ticks */
	SR_MAIN_RUN_US,     /* its CPU time, exact (schedstat), us; absent without schedstat */
	SR_MAIN_RUNQ_US,    /* its time runnable but waiting for a CPU (schedstat), us */
	SR_MAIN_CPU,        /* the CPU it last ran on */
	SR_PROC_MINFLT,     /* the whole process's minor faults */
	SR_PROC_MAJFLT,     /* its major faults */
	SR_PROC_CPU_US,     /* its CPU time, exact (the process CPU clock), us */
	SR_PROC_THREADS,    /* its threads */
	/* the main thread's delay accounting (taskstats; blkio also from
	 * /proc/PID/stat), us; absent where the kernel gives none */
	SR_DLY_CPU_US,      /* waiting for a CPU */
	SR_DLY_BLKIO_US,    /* waiting for block I/O */
	SR_DLY_SWAPIN_US,   /* waiting for swap-ins */
	SR_DLY_RECLAIM_US,  /* in direct reclaim (freepages) */
	SR_DLY_THRASH_US,   /* waiting for refaults of thrashed pages */
	SR_DLY_COMPACT_US,  /* in direct compaction */
	/* pressure stall information: the game's cgroup (v2) or the system's,
	 * totals, us (meta sources.psi says which) */
	SR_PSI_CPU_SOME,
	SR_PSI_IO_SOME,
	SR_PSI_IO_FULL,
	SR_PSI_MEM_SOME,
	SR_PSI_MEM_FULL,
	/* /proc/vmstat (sums where the kernel splits a counter by zone or by
	 * anon/file: allocstall_*, workingset_*_anon/file) */
	SR_VM_PSWPIN,
	SR_VM_PSWPOUT,
	SR_VM_PGMAJFAULT,
	SR_VM_ALLOCSTALL,
	SR_VM_PGSCAN_KSWAPD,
	SR_VM_PGSCAN_DIRECT,
	SR_VM_PGSCAN_KHUGEPAGED,
	SR_VM_PGSCAN_ANON,  /* every scan, memory-cgroup reclaim included */
	SR_VM_PGSCAN_FILE,
	SR_VM_PGSTEAL_KSWAPD,
	SR_VM_PGSTEAL_DIRECT,
	SR_VM_COMPACT_STALL,
	SR_VM_COMPACT_FAIL,
	SR_VM_COMPACT_SUCCESS,
	SR_VM_PGMIGRATE_SUCCESS,
	SR_VM_WORKINGSET_REFAULT,
	SR_VM_WORKINGSET_ACTIVATE,
	SR_VM_WORKINGSET_RESTORE,
	SR_VM_CMA_ALLOC_SUCCESS,
	SR_VM_CMA_ALLOC_FAIL,
	SR_VM_THP_FAULT_ALLOC,
	SR_VM_NR_FREE_PAGES, /* a level, not a counter */
	SR_VM_NR_DIRTY,      /* a level */
	SR_VM_NR_WRITEBACK,  /* a level */
	/* the X server and kswapd */
	SR_X_PID,
	SR_X_STATE,
	SR_X_MAJFLT,
	SR_X_CPU_TICKS,     /* user + system */
	SR_X_WCHAN,         /* string, when it is in D */
	SR_KSWAPD_STATE,    /* kswapd0's state; 'R' if any kswapd runs */
	SR_KSWAPD_CPU_TICKS, /* every kswapd's, summed */
	/* the GPU memory the game holds (DRM fdinfo drm-total-*), KiB; sampled
	 * every 10th row, the last value kept in between */
	SR_GPU_MEM_KIB,
	/* 1 when the row read everything; 0 when it read only the main
	 * thread and the process (a row between frames that are on time):
	 * the machine-wide columns then repeat the previous row's values, and
	 * the next full row's deltas cover both (docs/formats.md) */
	SR_FULL,
	SR_COUNT
};

/* Per block device, columns "disk.<name>.<field>" in this order; the
 * device's kind is meta "disk.<name>.kind" (disk, zram, vram: see
 * docs/formats.md) and swap devices are listed in meta "swaps". */
enum sr_disk_field {
	SR_DISK_RD_IOS,
	SR_DISK_RD_SECTORS,
	SR_DISK_WR_IOS,
	SR_DISK_WR_SECTORS,
	SR_DISK_IN_FLIGHT,  /* a level */
	SR_DISK_IO_MS,      /* time the device was busy, ms */
	SR_DISK_FIELDS
};

/* How a column is packed. */
enum sr_encoding {
	SR_ENC_DELTA = 0,       /* difference from the previous row (from 0 for the first) */
	SR_ENC_DELTA2 = 1,      /* difference of differences (steady clocks) */
};

extern const char *const sr_col_names[SR_COUNT];
extern const char *const sr_disk_field_names[SR_DISK_FIELDS];

struct stallrec_stack {
	int64_t t_us;           /* CLOCK_MONOTONIC, us */
	uint32_t tid;
	char *text;             /* /proc/PID/task/TID/stack as read */
};

/* A record in memory, column-major. */
struct stallrec {
	uint32_t version;
	struct kvfile meta;     /* the header's key=value pairs (period_us, sources.*, ...) */
	struct kvfile trailer;  /* the recorder's own numbers when it ended (samples, cpu_us, ...) */
	size_t n_rows, n_cols;
	char **col_name;        /* [n_cols] */
	uint8_t *col_enc;       /* [n_cols] enum sr_encoding */
	int64_t *v;             /* [c * rows_alloc + i] */
	size_t rows_alloc;
	int known[SR_COUNT];    /* the column of each well-known name, -1 when absent */
	char **str;             /* [n_str]; str[0] is "" (n_str 0: no strings yet) */
	size_t n_str;
	struct stallrec_stack *stack;
	size_t n_stack;
};

/* An empty record; allocates nothing, so a record that stallrec_load()
 * then fills needs no release in between. */
void stallrec_init(struct stallrec *r);
void stallrec_release(struct stallrec *r);

/* Building a record in memory (a test's hand-made one, or the live file
 * loaded). Columns are set once, before any row. 0 or -EINVAL (a name
 * twice, an empty name). */
int stallrec_set_columns(struct stallrec *r, const char *const *names, const uint8_t *enc,
			 size_t n);
/* Appends a row of n_cols values. */
void stallrec_add_row(struct stallrec *r, const int64_t *values);
/* The string's number, adding it if new ("" and NULL are 0). */
uint32_t stallrec_intern(struct stallrec *r, const char *s);
void stallrec_add_stack(struct stallrec *r, int64_t t_us, uint32_t tid, const char *text);

/* The column called name, or -1 (the tests look a column up by name). */
int stallrec_find(const struct stallrec *r, const char *name);
/* Column c (an index from stallrec_find or known[]); NULL for -1. */
const int64_t *stallrec_col(const struct stallrec *r, int c);
/* Row i of well-known column c; 0 when the record lacks the column. */
int64_t stallrec_at(const struct stallrec *r, enum sr_col c, size_t i);
/* String number id ("" for 0 or one out of range). */
const char *stallrec_str(const struct stallrec *r, int64_t id);

/* Writes the packed layout to path (through a temporary file and a rename).
 * 0, or -errno with a message in err. */
int stallrec_write(const struct stallrec *r, const char *path, struct strbuf *err);
/* The most a packed record may decompress to: 256 MiB, some 30 hours of a
 * recorder sampling every 10 ms (a record of hundreds of MB in memory).
 * A file past it is refused, and decompression never allocates more. */
#define HB_STALLREC_MAX_PACKED ((size_t)256 << 20)
/* Reads a packed (zstd) or live record, from a regular file only. 0,
 * -ENOENT, or -EINVAL/-errno with "PATH: what is wrong" in err. */
int stallrec_load(const char *path, struct stallrec *out, struct strbuf *err);
/* The same from a file's bytes (path names it in messages): the fuzzer's
 * and the tests' way in. */
int stallrec_parse_bytes(const void *data, size_t len, const char *path, struct stallrec *out,
			 struct strbuf *err);
/* Parses a packed record's bytes (after zstd). 0 or -EINVAL (why in err). */
int stallrec_parse_packed(const void *data, size_t len, struct stallrec *out, struct strbuf *err);

/*
 * The live file. Its header is HB_STALLREC_LIVE_HDR bytes: the magic
 * "HBSTLIVE", version, the sizes and counts below, and the meta text (the
 * column names are its "columns" line). Rows follow, then the string
 * table (str_cap slots of HB_STALLREC_STR_LEN bytes, NUL-terminated), then
 * the stacks (stack_cap slots of 16 bytes of t_us and tid, then
 * HB_STALLREC_STACK_LEN bytes of text). A row counts once count says so:
 * the recorder fills it, then publishes it with a release store, so a
 * reader of a live run (or of what a killed recorder left) sees only
 * whole rows.
 */
#define HB_STALLREC_LIVE_MAGIC "HBSTLIVE"
#define HB_STALLREC_LIVE_HDR 16384
#define HB_STALLREC_STR_LEN 128
#define HB_STALLREC_STACK_LEN 2032

struct stallrec_live_header {
	char magic[8];
	uint32_t version;
	uint32_t n_cols;
	uint64_t capacity;      /* rows the file has room for */
	uint64_t count;         /* rows written (release-stored after each row) */
	uint32_t str_cap, n_str;
	uint32_t stack_cap, n_stack;
	uint64_t rows_off, str_off, stack_off;
	uint32_t meta_len;      /* the meta text follows the header struct */
	uint32_t reserved;
};

struct stallrec_live {
	int fd;
	void *map;
	size_t map_len;
	struct stallrec_live_header *h;
	int64_t *rows;
	char *str;
	unsigned char *stack;
	uint32_t str_hash[4096]; /* open-addressed index of str (hash << 12 | slot) */
};

/* Creates the live file at path (mode 0600): n_cols columns named in
 * names[] packed as enc[], room for capacity rows, up to str_cap strings
 * (at most 4095) and stack_cap stacks; meta is key=value text (without a
 * "columns" line: that is added). Everything is sized and mapped here.
 * 0 or -errno with a message in err. */
int stallrec_live_create(struct stallrec_live *l, const char *path, const char *const *names,
			 const uint8_t *enc, size_t n_cols, uint64_t capacity, uint32_t str_cap,
			 uint32_t stack_cap, const char *meta, struct strbuf *err);
/* The next row to fill (n_cols values, zeroed), or NULL when the file is full. */
int64_t *stallrec_live_row(struct stallrec_live *l);
/* Publishes the row stallrec_live_row() gave. */
void stallrec_live_commit(struct stallrec_live *l);
/* The number of s[0..len) in the string table, adding it if new; 0 for an
 * empty string or a full table. No allocation, no system call. */
uint32_t stallrec_live_intern(struct stallrec_live *l, const char *s, size_t len);
/* Stores a kernel stack; false when the area is full. */
bool stallrec_live_stack(struct stallrec_live *l, int64_t t_us, uint32_t tid, const char *text,
			 size_t len);
void stallrec_live_close(struct stallrec_live *l);

#endif
