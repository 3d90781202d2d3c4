/*
 * The wait record: every off-CPU interval of the game's threads over a
 * threshold and every block request they issued, from the kernel's own
 * events (the stall recorder's BPF path, harness/stallrec-bpf.c), read by
 * the stall analysis (analysis/stalls/stallcause-waits.c). Format version 1,
 * documented in docs/formats.md ("Wait record").
 *
 * One item a line, tab-separated text: the recorder appends lines to a
 * live file as it drains the kernel's ring buffer, so a recorder that
 * dies loses nothing already drained, and packing is compressing that
 * text with the trailer appended. Lines are written here (waitrec_put_*)
 * and read here (waitrec_parse), so the two cannot disagree.
 */
#ifndef HB_WAITRECORD_H
#define HB_WAITRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/tabrecord.h"
#include "text/kvfile.h"

struct strbuf;

#define HB_WAITREC_FILE "waits.rec.zst"
/* 2 adds the pause and resume lines (a recorder a flip run turns off and
 * on); a reader takes 1 and 2 */
#define HB_WAITREC_VERSION 2
#define HB_WAITREC_MAX (512u << 20)     /* decompressed bytes a reader takes */
#define HB_WAITREC_MAX_FRAMES 32         /* functions a stack keeps */

/* A thread seen: a game thread, or one that woke a game thread. */
struct wr_thread {
	int32_t tid, tgid;
	char comm[16];
};

/* An off-CPU interval of a game thread (an "off" line; field meanings in
 * docs/formats.md). Times are CLOCK_MONOTONIC ns. */
struct wr_off {
	int32_t tid;
	char state;                     /* R S D I T X ? */
	uint64_t off_ns, on_ns;
	uint64_t wake_ns;               /* 0: not woken (preempted) or not seen */
	uint32_t stack;                 /* its kernel stack while asleep: 1.. ; 0 none */
	int32_t waker_tid;              /* 0 idle or interrupt, -1 none seen */
	uint32_t waker_stack;           /* 0 none */
	uint64_t run_ns, runq_ns, sleep_ns;     /* the thread's totals up to off_ns */
	uint64_t faults, fault_addr;
	int64_t blkio_ns, swapin_ns, reclaim_ns, thrash_ns, compact_ns; /* -1: not kept */
	char syscall[24];               /* the system call it slept in; "-" none (a fault,
					 * a preemption), "?" not known */
};

/* A block request a game thread issued ("bio" line). */
struct wr_bio {
	int32_t tid;
	uint64_t start_ns, done_ns;
	uint32_t major, minor;
	char op;                        /* R W F D ? */
	uint64_t bytes;
	int32_t error;
};

/* A kernel stack: its functions, innermost first. */
struct wr_stack {
	char **fn;
	size_t n;
};

struct waitrec {
	struct kvfile meta, trailer;
	struct wr_thread *thread;
	size_t n_thread;
	struct wr_stack *stack;         /* stack id k is stack[k - 1] */
	size_t n_stack;
	struct wr_off *off;             /* in the order written: by on_ns per CPU, not sorted */
	size_t n_off;
	struct wr_bio *bio;
	size_t n_bio;
	uint64_t lost;                  /* the lost lines' sum */
	/* When the recorder was paused (a flip run's side without it): from
	 * a pause line to the next resume line (UINT64_MAX: to the end) */
	struct rec_pause *pause;
	size_t n_pause;
	bool cut;                       /* the last line had no newline and was left out */
	int version;                    /* the first line's: 1 or 2 */
};

void waitrec_init(struct waitrec *w);
void waitrec_release(struct waitrec *w);

/* Parses text (the live file, or a packed file's content) into w; name is
 * for errors. 0, or -EINVAL with "name:line: what" in err. */
int waitrec_parse(const char *text, size_t len, const char *name, struct waitrec *w,
		  struct strbuf *err);

/* Reads PATH: zstd-compressed (packed) or plain text (live). 0, -ENOENT,
 * or -errno with why in err. */
int waitrec_load(const char *path, struct waitrec *w, struct strbuf *err);

/* Whether the recorder was paused at some time in [s, e) (nothing was
 * recorded then). */
bool waitrec_paused_in(const struct waitrec *w, uint64_t s, uint64_t e);

/* The thread named tid, or NULL. Linear; call it per stall, not per line. */
const struct wr_thread *waitrec_thread(const struct waitrec *w, int32_t tid);
/* Stack id's functions, or NULL for 0 and ids out of range. */
const struct wr_stack *waitrec_stack(const struct waitrec *w, uint32_t id);
/* meta dev.MAJ.MIN's name, or NULL. */
const char *waitrec_dev_name(const struct waitrec *w, uint32_t major, uint32_t minor);

/* Writers of one line each, newline included, appended to sb. */
void waitrec_put_header(struct strbuf *sb);
void waitrec_put_meta(struct strbuf *sb, const char *key, const char *value);
void waitrec_put_thread(struct strbuf *sb, const struct wr_thread *t);
void waitrec_put_stack(struct strbuf *sb, uint32_t id, const char *const *fn, size_t n);
void waitrec_put_off(struct strbuf *sb, const struct wr_off *o);
void waitrec_put_bio(struct strbuf *sb, const struct wr_bio *b);
void waitrec_put_lost(struct strbuf *sb, uint64_t n);

/* Packs the live text at live_path into out_path (one zstd frame), the
 * trailer's lines appended. 0 or -errno with why in err. */
int waitrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer,
		 struct strbuf *err);

#endif
