/*
 * The flip record: a flip run's schedule and what the runner did to it
 * (flip.txt in the run directory; docs/formats.md "flip.txt"). A flip run
 * turns one setting between two values, A and B, while the game plays, in
 * segments; the runner writes the schedule before the game starts and a
 * line for each switch as it applies it (the monotonic time it was due,
 * and the time the write that applied it returned), so that the analysis
 * recomputes from the frames which segment each frame belongs to. The
 * record never holds a verdict.
 *
 * Text, one key=value a line, '#' comment lines; every key once but
 * `flip`, which repeats (one a switch) and `segment_frames`, written once
 * when the runner chose it (at the window's start). Format 1.
 */
#ifndef HB_FLIPFILE_H
#define HB_FLIPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define HB_FLIP_FORMAT 1
#define HB_FLIP_FILE "flip.txt"
#define HB_FLIP_PLAN_MAX 100000u /* segments a pairs plan names at most */

/* How sides follow each other. */
enum flip_order {
	FLIP_ORDER_PASSES,  /* a looping demo: pass 1 starts with A, pass 2 with B, ... */
	FLIP_ORDER_PAIRS,   /* AB or BA pairs in a seeded random order (the plan) */
};
/* What a segment is counted in. */
enum flip_unit {
	FLIP_UNIT_FRAMES,   /* the pass's own presents: segment k of every pass is the same stretch */
	FLIP_UNIT_SECONDS,  /* time from the window's start */
};

/* One switch the runner applied (or tried to). */
struct flip_event {
	int pass;               /* the game's pass (1, 2, ...) */
	int seg;                /* the segment it begins: in its pass (passes), in the window (pairs) */
	char side;              /* 'A' or 'B' */
	uint64_t due_ns;        /* CLOCK_MONOTONIC: when the segment began (its first present, or its time) */
	uint64_t applied_ns;    /* when the write that applied it returned; 0: it failed */
	char *failed;           /* why it failed (applied_ns 0), else NULL */
};

struct flip_record {
	unsigned format;
	char *switch_name;      /* the switch that flips ("SLOWDOWN") */
	char *a, *b;            /* the two settings as terms ("SLOWDOWN=0"; "-": the switch off) */
	enum flip_order order;
	enum flip_unit unit;
	double segment_s;       /* the segment's length asked for, seconds */
	unsigned segment_frames;/* frames unit: the segment in presents (0 until chosen) */
	double settle_ms;       /* after each switch, frames this long count for neither side */
	double act_ms;          /* how long the switch takes to act (the switch's own figure) */
	double late_ms;         /* a switch applied later than this after it was due spoils its pair */
	uint64_t seed;          /* pairs: the plan's seed */
	char *plan;             /* pairs: the sides of segments 0.. ("ABBA..."); NULL for passes */
	struct flip_event *ev;
	size_t n_ev, alloc_ev;
};

void flip_record_init(struct flip_record *r);
void flip_record_release(struct flip_record *r);

/* The side of segment seg of pass (passes order) or of the window (pairs
 * order, from the plan; 0 past its end). */
char flip_side(const struct flip_record *r, int pass, int seg);

/* A pairs plan of n segments (n even) from seed: each pair AB or BA with
 * even odds, deterministic for the seed on every machine. Caller frees. */
char *flip_plan_pairs(uint64_t seed, size_t n);

/* The header lines (every key but flip and segment_frames), and one
 * event's line, appended to out, each ending in '\n'. */
void flip_record_header(const struct flip_record *r, struct strbuf *out);
void flip_event_line(const struct flip_event *e, struct strbuf *out);

/* Parses text into r (initialised by the caller); name is for errors.
 * 0, or -EINVAL with "name:line: what" in err. A last line without its
 * newline (a runner killed mid-write) is left out, and said in *cut. */
int flip_record_parse(const char *text, size_t len, const char *name, struct flip_record *r,
		      bool *cut, struct strbuf *err);
/* Reads PATH. 0, -ENOENT (no such file), or -errno / -EINVAL with err. */
int flip_record_load(const char *path, struct flip_record *r, struct strbuf *err);

#endif
