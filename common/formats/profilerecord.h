/*
 * The profile record: where the game's threads spent their CPU time,
 * sampled on-CPU by the kernel (the PROFILE switch's recorder,
 * harness/profrec-*.c), read by `hitchbench profile` and the stall
 * analysis (analysis/profile/). Format version 1, documented in
 * docs/formats.md ("Profile record").
 *
 * Tab-separated text, one item a line (common/formats/tabrecord.h): the
 * recorder appends to a live file as it drains the kernel's buffers, so a
 * recorder that dies loses nothing already drained; packing compresses it
 * with the trailer appended. Addresses are kept as they were (user code is
 * named after the run, off the measured window, from the maps and their
 * build ids); kernel functions are named by the recorder, which alone can
 * read the running kernel's symbols.
 */
#ifndef HB_PROFILERECORD_H
#define HB_PROFILERECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/tabrecord.h"
#include "text/kvfile.h"

struct strbuf;

#define HB_PROFREC_FILE "profile.rec.zst"
#define HB_PROFREC_VERSION 1
#define HB_PROFREC_MAX (1024u << 20)    /* decompressed bytes a reader takes */
#define HB_PROFREC_MAX_FRAMES 128       /* frames a stack keeps (kernel and user) */
#define HB_PROFREC_MAX_BUILD_ID 20      /* bytes */

struct prof_thread {
	int32_t tid, pid;
	char comm[16];
};

/* An executable mapping of a process: a file's pages, or anonymous memory
 * made executable (JIT code: path "//anon"). The last map line covering an
 * address is the one that holds. */
struct prof_map {
	int32_t pid;
	uint64_t start, end, pgoff;
	uint8_t build_id[HB_PROFREC_MAX_BUILD_ID];
	uint8_t build_id_len;           /* 0: not known */
	bool gone;                      /* its process exec'd another program after it */
	char *path;
};

/* A process forked from another: it holds its parent's maps from before. */
struct prof_fork {
	int32_t pid, ppid;
};

/* A call stack, innermost first: nk kernel functions by name (an address
 * the kernel's symbols do not hold is "0x..."), then n - nk user
 * addresses. */
struct prof_stack {
	uint32_t nk, n;
	char **kfn;                     /* nk names */
	uint64_t *ip;                   /* n - nk user addresses */
};

/* One sample: a thread was on a CPU at ns (CLOCK_MONOTONIC, the frames'
 * clock) and had run meta period_ns of CPU time since its last one. */
struct prof_sample {
	uint64_t ns;
	int32_t tid;
	uint32_t stack;                 /* 1..n_stack */
};

struct profrec {
	struct kvfile meta, trailer;
	struct prof_thread *thread;
	size_t n_thread;
	struct prof_map *map;
	size_t n_map;
	struct prof_fork *fork;
	size_t n_fork;
	struct prof_stack *stack;       /* id k is stack[k - 1] */
	size_t n_stack;
	struct prof_sample *sample;     /* in the order written: by time per buffer, not sorted */
	size_t n_sample;
	uint64_t lost;                  /* the lost lines' sum */
	uint64_t period_ns;             /* meta period_ns */
	struct rec_pause *pause;        /* when it was paused (a flip run) */
	size_t n_pause;
	bool cut;                       /* the last line had no newline and was left out */
};

void profrec_release(struct profrec *p);

/* for the tests: parses text (a live file, or a packed file's content); name is for
 * errors. 0, or -EINVAL with "name:line: what" in err. */
int profrec_parse(const char *text, size_t len, const char *name, struct profrec *p, struct strbuf *err);
/* Reads PATH, zstd-compressed or plain. 0, -ENOENT (nothing said), or
 * -errno with why in err. */
int profrec_load(const char *path, struct profrec *p, struct strbuf *err);

/* The thread called tid (its newest name), or NULL. */
const struct prof_thread *profrec_thread(const struct profrec *p, int32_t tid);
/* The map of process pid holding addr (the last written; its parent's
 * from before the fork when it has none), or NULL. */
const struct prof_map *profrec_map(const struct profrec *p, int32_t pid, uint64_t addr);

/* Writers of one line each, newline included, appended to sb. */
void profrec_put_header(struct strbuf *sb);
void profrec_put_meta(struct strbuf *sb, const char *key, const char *value);
void profrec_put_thread(struct strbuf *sb, const struct prof_thread *t);
void profrec_put_map(struct strbuf *sb, const struct prof_map *m);
void profrec_put_stack(struct strbuf *sb, uint32_t id, const char *const *kfn, uint32_t nk, const uint64_t *ip,
		       uint32_t nu);
void profrec_put_sample(struct strbuf *sb, const struct prof_sample *s);
void profrec_put_follow(struct strbuf *sb, int32_t pid, uint64_t ns, uint64_t threads);
void profrec_put_fork(struct strbuf *sb, int32_t pid, int32_t ppid);
void profrec_put_exec(struct strbuf *sb, int32_t pid);
void profrec_put_lost(struct strbuf *sb, uint64_t n);
void profrec_put_pause(struct strbuf *sb, bool pause, uint64_t ns);

/* Packs the live text into out_path (tabrecord.h's tabrec_pack). */
int profrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer, struct strbuf *err);

#endif
