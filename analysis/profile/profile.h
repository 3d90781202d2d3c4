/*
 * A run's CPU profile ready to read: its profile record (profile.rec.zst,
 * common/formats/profilerecord.h) with every stack named once
 * (symbolize.h) and given a category (profrules.h), its samples in time
 * order, and its window's frames, so that a frame's samples are a range.
 * `hitchbench profile` and the stall table read runs through this.
 */
#ifndef HB_PROFILE_H
#define HB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/profilerecord.h"
#include "profile/profrules.h"
#include "profile/proftree.h"

struct run;
struct strbuf;

/* A stack named: root first. */
struct prof_path {
	uint32_t n;
	const char **name;              /* "LIB`FUNCTION", "LIB+0xOFF", "kernel`FN", "[jit]" */
	uint8_t *cat;                   /* each frame's category */
	uint8_t category;               /* the sample's (profrules.h's prof_rules_stack) */
};

struct profile {
	struct profrec rec;
	const struct prof_rules *rules;
	struct prof_path *path;         /* [n_stack]: stack id k is path[k - 1] */
	struct prof_sample *by_time;    /* the samples sorted by time */
	size_t n;
	struct prof_tree names;         /* the names' pool (its nodes unused) */
	struct strbuf *notes;           /* what could not be named, one line each */
	double sample_s;                /* CPU seconds a sample stands for (meta period_ns) */
};

/* Loads DIR/profile.rec.zst and names its stacks. 0, -ENOENT (no record,
 * nothing said), or -errno with err. rules must outlive p. */
int profile_load(const char *dir, const struct prof_rules *rules, struct profile *p, struct strbuf *err);
void profile_release(struct profile *p);

/* The first sample at or after ns (by_time index; n when none). */
size_t profile_first(const struct profile *p, uint64_t ns);
/* Adds the samples in (start_ns, end_ns] to per_stack[id - 1]; returns how many. */
uint64_t profile_count(const struct profile *p, uint64_t start_ns, uint64_t end_ns, uint64_t *per_stack);
/* Per-category sums of per_stack (per_cat has rules->n slots, zeroed by the caller). */
void profile_categories(const struct profile *p, const uint64_t *per_stack, uint64_t *per_cat);
/* Adds per_stack's samples to side of t (its names interned there). */
void profile_tree_add(const struct profile *p, const uint64_t *per_stack, struct prof_tree *t, int side);
/* A function of a selection: the samples that ended in it (self) and
 * those it was on the stack of (total). */
struct prof_fn {
	const char *name;
	uint64_t self, total;
};
/* Every function of the stacks counted in per_stack, most self first
 * (then by name); *n of them. The caller frees the array. */
struct prof_fn *profile_functions(const struct profile *p, const uint64_t *per_stack, size_t *n);
/* "shader compile 62%, game 30%": the categories of per_cat (n samples)
 * of at least min_pct each, largest first, at most max of them. */
void profile_categories_describe(const struct profile *p, const uint64_t *per_cat, uint64_t n, double min_pct,
				 size_t max, struct strbuf *out);

/* A run's window (or, whole, every frame from its first present: the
 * load's and the warm-up's too) as frames: frame i is (start_ns[i],
 * end_ns[i]], the present index[i] of the frame file ending it; stall:
 * longer than the stall threshold. */
struct prof_frames {
	size_t n;
	uint64_t *start_ns, *end_ns;
	uint64_t *index;
	bool *stall;
	size_t n_stall;
};
/* The window's frames of run (whole: all its frames). 0, or -ENODATA (no
 * frames, or no window). */
int prof_frames_of(const struct run *run, double stall_ms, bool whole, struct prof_frames *out);
void prof_frames_release(struct prof_frames *f);

/* A run's profile (DIR/profile.rec.zst) and the rules it is read by (the
 * first of gamedb_dirs that has them), when both are there. 0 (release
 * both), -ENOENT (no record: nothing said; no rules: said in err), or
 * -errno with err. */
int profile_load_run(const char *dir, const char *const *gamedb_dirs, struct prof_rules *rules,
		     struct profile *p, struct strbuf *err);
/* What the CPU did in the window's stall frames, for the report's
 * stall_cpu_what: "shader compile 62%, game 30%" (categories of at least
 * 5% of the stall frames' samples of all the game's threads, largest
 * first, at most three), "" when the run has a profile but no stall frame
 * or no sample in one, NULL without a profile record or rules (gamedb
 * dirs of opts). The caller frees it. */
struct metric_opts;
char *profile_stall_cpu_what(const struct run *run, const struct metric_opts *opts);
/* The same as profile_stall_cpu_what for one interval (a stall) of a
 * loaded profile, and the function most of its largest category's samples
 * ended in (its share of all the interval's samples):
 * "shader compile 88% (most: libLLVM-15.so.1`... 4%)". */
void profile_what_in(const struct profile *p, uint64_t start_ns, uint64_t end_ns, struct strbuf *out);

#endif
