/*
 * The stall recorder's parts (harness/stallrec*.c): what it samples and
 * the state it keeps. stallrec-main.c has the main loop and the end,
 * stallrec-setup.c what it finds on the machine once, stallrec-sample.c
 * one sample. Private to the recorder.
 */
#ifndef HB_STALLREC_INTERNAL_H
#define HB_STALLREC_INTERNAL_H

#include "formats/frames.h"
#include "system/procparse.h"
#include "formats/stallrecord.h"
#include "system/taskstats.h"
#include "base/util.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define MAX_DISKS 32
#define MAX_KSWAPD 16
#define MAX_COLS (SR_COUNT + MAX_DISKS * SR_DISK_FIELDS)
#define STACK_AFTER_US 50000     /* a blocked episode's first stack after 50 ms */
#define STACK_EVERY_US 250000    /* then every 250 ms of it */
#define STACK_MAX 1000
#define CLOCK_PAIR_EVERY_US 10000000
#define PART_EVERY 16            /* parts are timed on one full sample in 16 */
#define WORK_EVERY 8             /* a sample's own CPU is measured on one in 8 */
#define FULL_EVERY 10            /* a full row at least every 10th sample */
#define OVERDUE_NS (25 * NSEC_PER_MSEC) /* no present for 25 ms: every row full */

struct disk {
	char name[32];
	const char *kind;
	int fd;                 /* sys/block/NAME/stat */
	int col;                /* its first column */
};

struct game {
	pid_t pid;
	bool alive;
	int stat_fd, task_stat_fd, wchan_fd, syscall_fd, schedstat_fd, stack_fd;
	int fd_dir;             /* proc/PID/fd, for what a call's fd points at */
	clockid_t cpu_clock;
	bool have_clock;
	/* the fd target of the previous sample, kept while the call's fd is the same */
	long last_fd;
	uint32_t last_fd_id;
	/* the GPU's memory: the game's DRM fds, found once a second */
	int drm_fdinfo[8];
	int n_drm, drm_scans;
	uint64_t gpu_kib;
	uint64_t opened_ns;         /* when the recorder took this pid on */
	uint64_t last_majflt;
	/* the current blocked episode, for kernel stacks */
	int64_t blocked_since_us, last_stack_us;
};

struct recorder {
	uint64_t period_ns;
	bool nowrite;
	const char *out_path, *live_path, *frames_path;
	const char *cgroup_dir;     /* --cgroup: the game's own cgroup, for its PSI */
	struct stallrec_live live;
	int64_t scratch[MAX_COLS];  /* the row when nothing is written */
	int64_t prev[MAX_COLS];     /* the previous row: a light row starts as its copy */
	uint64_t clk_tck;
	size_t n_cols;
	int col[SR_COUNT];          /* the column of each well-known name, -1 if not recorded */
	struct game g;
	struct hb_frames_view frames; /* the game's file: checked copies only (frames.h) */
	bool have_frames;
	bool frames_said;           /* the tampered frame file was reported */
	/* the machine */
	int vmstat_fd;
	struct vmstat_index vmix;
	int psi_fd[3];              /* cpu, io, memory */
	bool psi_cgroup;
	struct disk disks[MAX_DISKS];
	size_t n_disks;
	pid_t x_pid;
	int x_stat_fd, x_wchan_fd;
	int kswapd_fd[MAX_KSWAPD];
	size_t n_kswapd;
	/* delay accounting */
	struct taskstats_client ts;
	bool use_taskstats, use_schedstat, stack_ok;
	/* bookkeeping */
	uint64_t samples, full_samples, late, missed, stacks;
	uint64_t work_ns[2];        /* CPU time inside light [0] and full [1] samples measured */
	uint64_t work_n[2];         /* how many of each were measured */
	uint64_t part_ns[16], part_samples;
	int64_t last_pair_us;
	uint32_t syscall_id[1024];  /* interned names by system call number */
	struct stallbpf *bpf;       /* --bpf: the kernel's events (NULL: sampling alone) */
	pid_t bpf_pid;              /* the pid last followed there */
};

/* The vmstat counters read, in this order; several may add up to one column. */
struct vm_field {
	const char *name;
	enum sr_col col;
};
extern const struct vm_field vm_fields[];
extern const size_t n_vm_fields;

/* Parts of a sample, timed on one sample in PART_EVERY. */
enum part { P_MAIN, P_PROC, P_DELAY, P_PSI, P_VMSTAT, P_DISKS, P_X, P_KSWAPD, P_GPU, P_STACK,
	    P_COUNT };

/* Where every file is read into (NUL-terminated). */
extern char rec_buf[65536];
/* pread of a whole small file into rec_buf; bytes or -1. */
ssize_t reread(int fd);
/* Opens a file under the root (fsroot.h) by a printf pattern; fd or -errno. */
int open_rel(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void close_fd(int *fd);

/* stallrec-setup.c: what this machine offers, found once, said in meta */
bool delayacct_on(void);
/* /proc/vmstat opened and indexed for vm_fields */
void open_vmstat(struct recorder *rc);
void choose_delay_source(struct recorder *rc, struct strbuf *meta);
void choose_schedstat(struct recorder *rc, struct strbuf *meta);
void find_disks(struct recorder *rc);
void describe_swaps(struct strbuf *meta);
void find_processes(struct recorder *rc);
void open_psi(struct recorder *rc, pid_t pid, struct strbuf *meta);
int set_up_record(struct recorder *rc, struct strbuf *meta, struct strbuf *err);

/* stallrec-bpf.c: the BPF path (STALLS=bpf) */
struct stallbpf;
/* A thread's faults: its own counters read at each switch (every fault,
 * no program of their own: the default), x86's page_fault_user
 * tracepoint (every user fault, with its address), or the major-fault
 * software perf event (major faults only). */
enum stallbpf_faults { STALLBPF_FAULTS_COUNTERS, STALLBPF_FAULTS_TRACEPOINT, STALLBPF_FAULTS_PERF };

struct stallbpf_opts {
	uint64_t min_off_ns;            /* off-CPU intervals recorded from this long */
	uint64_t stack_min_ns;          /* stacks of sleeps from this long */
	enum stallbpf_faults faults;    /* how a thread's faults are counted */
	bool all_threads;               /* a record for every thread's waits, not the main threads' alone */
	const char *live_path, *out_path;       /* waits.live, waits.rec.zst */
};
/* Loads, attaches and opens the live record; NULL with the reason the
 * recorder falls back to sampling in err. */
struct stallbpf *stallbpf_start(const struct stallbpf_opts *o, struct strbuf *err);
/* Follows a process (and, in the kernel, every process it forks). */
void stallbpf_follow(struct stallbpf *b, pid_t pid);
/* Drains the ring buffer until deadline_ns (CLOCK_MONOTONIC): 0 at the
 * deadline, 1 on *stop, 2 woken early by a signal (a pid). */
int stallbpf_wait(struct stallbpf *b, uint64_t deadline_ns, const volatile sig_atomic_t *stop);
/* The CPU time of its drains so far (the user side's cost). */
uint64_t stallbpf_user_ns(const struct stallbpf *b);
/* Detaches every program (a pause line in the record); resume attaches
 * them again (a resume line). 0, or -errno with why. */
void stallbpf_pause(struct stallbpf *b);
int stallbpf_resume(struct stallbpf *b, struct strbuf *err);
/* Drains, says its cost (stderr "stallbpf: ..."), packs the record, frees b. */
int stallbpf_finish(struct stallbpf *b, const char *stop, struct strbuf *err);

/* stallrec-sample.c */
void game_open(struct recorder *rc, pid_t pid);
void follow_presenter(struct recorder *rc);
void sample(struct recorder *rc);

#endif
