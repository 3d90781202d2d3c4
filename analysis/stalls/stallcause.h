/*
 * Why the game stalled: every sample of a stall record (common/formats/stallrecord.h)
 * gets one cause from the main thread's state and the counters' deltas
 * since the previous sample, and every stall frame gets its seconds split
 * over the samples that cover it, with the kernel's exact counters (delay
 * accounting, schedstat, a cgroup's PSI) deciding over the sampled guess
 * where they are recorded, and the wait record (stallwaits.h) over both
 * where it covers a stall. The rules, in order, and their reasons:
 * docs/stalls.md. Used by run_metrics() (the stall_*_s metrics, through
 * stallcause-run.c) and by the stall table (stalltable.h) that
 * `hitchbench stalls` and the HTML report show.
 */
#ifndef HB_STALLCAUSE_H
#define HB_STALLCAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metrics.h"
#include "formats/stallrecord.h"
#include "formats/waitrecord.h"

struct run;
struct stall_waits;
struct strbuf;

enum stall_cause {
	SC_UNKNOWN,     /* no sample, or a state no rule names */
	SC_DISK,        /* a page fault served from a non-swap block device */
	SC_SWAP,        /* a swap-in, the device not known */
	SC_SWAP_ZRAM,
	SC_SWAP_VRAM,
	SC_SWAP_DISK,
	SC_FAULT,       /* a page fault without reads anywhere */
	SC_GART,        /* GPU memory growing (CMA allocations, DRM fdinfo) */
	SC_RECLAIM,     /* direct reclaim or compaction */
	SC_GPU,         /* asleep in a DRM ioctl or a fence wait */
	SC_IO,          /* blocked in a system call (read, fsync, ...) */
	SC_CPU,         /* running its own code */
	SC_RUNQ,        /* runnable but not running */
	SC_WAIT,        /* asleep: another thread, X, a socket, a frame limiter */
	SC_COUNT
};

/* The report's columns: stall_<group>_s. */
enum stall_group {
	SG_DISK, SG_SWAP, SG_RECLAIM, SG_GPU, SG_CPU, SG_IO, SG_WAIT, SG_OTHER, SG_COUNT
};

/* What decided a stall's shares. */
enum stall_decider {
	SD_SAMPLED,     /* the samples' states and deltas alone */
	SD_DELAY,       /* the main thread's delay accounting */
	SD_SCHEDSTAT,   /* its schedstat run-queue time */
	SD_PSI,         /* the game's cgroup's pressure stall information */
	SD_BPF,         /* the kernel's own events: the wait record (stallwaits.h) */
};

enum stall_section { SS_LOAD, SS_WARM, SS_WINDOW, SS_COUNT };

const char *stall_cause_name(enum stall_cause c);
/* What a sleep in system call sc waited for: futex, socket, sleep or other
 * (docs/stalls.md, rule 7). */
const char *stall_wait_detail(const char *sc);
enum stall_group stall_cause_group(enum stall_cause c);
const char *stall_decider_name(enum stall_decider d);
const char *stall_section_name(enum stall_section s);
/* The kind (SC_SWAP_ZRAM/VRAM/DISK) of the swap device called name (len
 * bytes) in a record's meta "swaps=NAME:KIND ...", SC_DISK when the list
 * does not hold it; name NULL: the first listed. *n (may be NULL) gets
 * how many devices the list holds. */
enum stall_cause stall_swaps_kind(const char *swaps, const char *name, size_t len, size_t *n);

/* A block device of the record (columns disk.NAME.*). */
struct stall_disk {
	char *name;
	int rd_ios, in_flight;          /* columns, -1 when absent */
	enum stall_cause swap;          /* SC_SWAP_* when it is a swap device, else SC_DISK */
};

/* A record prepared for attribution: every sample classified. */
struct stall_analysis {
	const struct stallrec *rec;
	int64_t period_us;              /* meta period_us, else the median step */
	struct stall_disk *disk;
	size_t n_disk, n_swap;
	bool psi_cgroup;                /* meta sources.psi starts with "cgroup" */
	uint8_t *cause;                 /* [n_rows] enum stall_cause; row 0 SC_UNKNOWN */
	const char **detail;            /* [n_rows] what a wait waited for, or NULL */
};

/* Classifies every sample of rec, which must outlive a. 0 or -EINVAL (a
 * record without t_us). */
int stall_analysis_init(struct stall_analysis *a, const struct stallrec *rec);
void stall_analysis_release(struct stall_analysis *a);

/* Samples i >= 1 cover (t[i-1], t[i]]; a sample after a gap of over three
 * periods speaks only for its last period. The first sample i covering t
 * (t[i] >= t), n_rows when none. */
size_t stall_first_sample(const struct stall_analysis *a, int64_t t_us);

/* One stall: an interval split over causes. */
struct stall {
	enum stall_section section;
	uint64_t start_ns, end_ns;      /* (start, end]: a frame, or a pass's load */
	size_t frame;                   /* the present that ends it (frames index); loads: pass */
	double sampled_s[SC_COUNT];     /* the samples' split, unknown for time no sample covers */
	double exact_s[SC_COUNT];       /* the exact counters' seconds of the deciding source */
	double share_s[SC_COUNT];       /* the split reported: sampled, or exact deciding */
	enum stall_cause cause;         /* the largest share */
	enum stall_decider decided;
	int32_t main_tid;               /* the thread the wait record was read for; 0 none */
	char **waits;                   /* SD_BPF: its waits for people (stall_waits_attribute()),
					 * NULL-terminated; owned by the stall_run */
	size_t n_waits;
};

/* Splits (start_ns, end_ns] (CLOCK_MONOTONIC, the record's clock) over
 * causes into s. */
void stall_attribute(const struct stall_analysis *a, uint64_t start_ns, uint64_t end_ns,
		     struct stall *s);

/* The evidence for people, one line ("D in pread64 on /x; +812 majflt;
 * vda +790 reads; delay blkio 280 ms; stack: ...; Xorg D"). */
void stall_evidence(const struct stall_analysis *a, const struct stall *s, struct strbuf *out);

/* The stall's largest shares for people, "disk 80% wait 15% cpu 5%": up
 * to three causes of at least 0.5% of its time each, largest first, as a
 * share of its length (the split of s->share_s). */
void stall_shares_describe(const struct stall *s, struct strbuf *out);

/* Sum over samples of a column's delta times each sample's overlap with
 * (start, end] (as a fraction of its interval): the column's movement
 * inside the interval. 0 without the column. */
double stall_delta_in(const struct stall_analysis *a, int col, uint64_t start_ns, uint64_t end_ns);

/* Seconds of (start, end] whose samples are classified c. */
double stall_sampled_in(const struct stall_analysis *a, enum stall_cause c, uint64_t start_ns,
			uint64_t end_ns);

/* A run's stalls by section: each pass's load (launch to its first
 * present), the warm-up's and the window's stall frames. */
struct stall_run {
	struct stallrec rec;            /* without a stall record: empty (a t_us column, no rows) */
	struct stall_analysis an;
	bool have_stallrec, have_waitrec;
	struct waitrec waits;           /* have_waitrec: the run's waits.rec.zst */
	struct stall_waits *bpf;          /* have_waitrec: its index */
	struct stall *stall;
	size_t n_stall;
	uint64_t first_present_ns;      /* 0 without frames */
	double load_disk_s;             /* < 0 when the run has no load interval */
	bool load_disk_delay;           /* from delay.blkio_us (else from disk samples) */
};

/* Loads DIR/stalls.rec.zst and DIR/waits.rec.zst of run (either may be
 * missing) and attributes its stalls (frames over opts->stall_ms, as
 * metrics.h defines them): the wait record decides where it covers a
 * stall (docs/stalls.md). 0, -ENOENT (neither record), -ENODATA (no
 * frames or window), or -errno with why in err. */
int stall_run_load(const struct run *run, const struct metric_opts *opts, struct stall_run *out,
		   struct strbuf *err);
void stall_run_release(struct stall_run *sr);

/* Fills the stall_*_s, load_disk_s, warm_disk_s, stallrec_* and stallbpf_* metrics
 * (analysis/stalls/stallcause-run.c; called by run_metrics()). Nothing without a
 * record. */
void stall_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m);

#endif
