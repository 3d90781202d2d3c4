/*
 * A two-cell batch read as pairs (hitchbench ab while it runs, compare
 * --paired afterwards): each round's two runs reduced to the log-ratio of
 * a metric, the sequential test of analysis/stats/sequential.h run over the
 * rounds in order, its state kept in the batch's ab.txt, and the lines
 * both commands print (one per pair, then the verdict). Command-layer
 * code: it loads run directories and prints.
 */
#ifndef HB_ABTEST_H
#define HB_ABTEST_H

#include <stdbool.h>
#include <stdio.h>

#include "batch/batch.h"
#include "metrics/metrics.h"
#include "stats/sequential.h"

#define HB_AB_FORMAT 1

/* One round of the batch: cell A's run and cell B's; or, in a flip batch,
 * the round's one flip run. */
struct ab_pair {
	int round;
	bool counted;           /* both runs valid with the metric: d is the pair's log-ratio */
	double a, b, d;         /* flip: a and b the sides' mean fps, d the run's estimate of ln(B/A) */
	char *why;              /* not counted: why (the caller frees through ab_pairs_release) */
	/* flip: the run's segment pairs, its blocks (each one value of the
	 * test) and their size, the blocks' lag-one autocorrelation, and the
	 * run's own standard error of d */
	size_t flip_pairs, flip_blocks, block_size;
	double r1, se;
	double wall_s;          /* flip, relay: the round's own time (a relay's: its longer run's), s */
};

struct ab_test {
	bool flip;              /* a flip batch (batch.txt flip=), or a relay's or a duet's (relay
				 * set): d holds every round's blocks */
	const char *relay;      /* a relay or duet batch (batch.txt relay=): "relay", "duet"; else NULL */
	struct seq_opts opts;
	int metric;             /* index into metric_defs */
	struct metric_opts mo;  /* how each run's metrics are computed: the batch's */
	struct ab_pair *pairs;  /* the rounds ended so far, in order */
	size_t n_pairs;
	double *d;              /* the counted log-ratios, in order */
	size_t n_d;
	size_t n_d_test;        /* of them, those the test takes: a duet's odd round waits for
				 * the even one that swaps its CPUs (both count, or neither) */
	struct seq_result result;  /* the test over d */
};

void ab_test_init(struct ab_test *t);
void ab_test_release(struct ab_test *t);

/* The batch's two cells (A: the first in its plan, B: the second); -EINVAL
 * with the message in err when it has not exactly two. */
int ab_batch_cells(const struct batch *b, struct strbuf *err);
/* Rounds from t->n_pairs + 1 on whose runs have all ended: read, added
 * and the test run again. *added is how many rounds were read. */
void ab_test_update(struct ab_test *t, const struct batch *b, size_t *added);

/* The lines: a heading, one for pair i (0-based, into t->pairs), and the
 * verdict's lines (with a_name and b_name, the cells). */
void ab_print_heading(FILE *out, const struct ab_test *t, const char *a_name, const char *b_name);
void ab_print_pair(FILE *out, const struct ab_test *t, size_t i);
void ab_print_verdict(FILE *out, const struct ab_test *t);
/* The heading, the pairs up to where the test stopped, and the verdict. */
void ab_print_all(FILE *out, const struct ab_test *t, const char *a_name, const char *b_name);
/* The same as one JSON document (docs/formats.md "ab and compare --paired
 * JSON", format HB_AB_JSON_FORMAT): the options, every pair with the test
 * as it stood after it, and the verdict. */
#define HB_AB_JSON_FORMAT 1
void ab_print_json(FILE *out, const struct ab_test *t, const char *batch_id, const char *a_name,
		   const char *b_name);
/* compare's exit codes: 0 SAME, 3 DIFFERENT, 4 UNKNOWN. */
int ab_exit_code(const struct ab_test *t);

/* ab.txt in the batch directory (docs/formats.md): the options, the cells,
 * every pair and the verdict so far. Written atomically. 0 or -errno. */
int ab_state_write(const struct ab_test *t, const struct batch *b, const char *a_name,
		   const char *b_name);
/* Its options read back (metric, effect, alpha, beta, pairs, floor): 0,
 * -ENOENT when there is no ab.txt, -EINVAL (message in err) when bad. */
int ab_state_read_opts(struct ab_test *t, const struct batch *b, struct strbuf *err);

/* A finished or running two-cell batch as compare --paired reads it: the
 * batch (arg: a directory, or an id under parent, as batch_open takes it)
 * opened into b, its two cells checked, its metric options and ab.txt's
 * test options (where it has one) read into t. 0, or -errno with the
 * message in err: -EDOM when the batch is not two cells, -EINVAL for a
 * bad file. b and t
 * must have been initialised; the caller releases them either way. */
int ab_test_open(struct ab_test *t, struct batch *b, const char *arg, const char *parent,
		 struct strbuf *err);

/* The cell's run name, "variant@label" or the variant (caller frees).
 * A flip batch's cell 1 is its one variant with the flip token. */
char *ab_cell_name(const struct batch *b, size_t cell);

/* The slot's last run directory (runs.txt names it inside the batch
 * directory, or whole); the slot must have one. Caller frees. */
char *ab_slot_dir(const struct batch *b, size_t slot);

/* A flip batch (bench/batch/abtest-flip.c): round's flip run read into p, false
 * while it has not ended; one line for it. */
bool ab_flip_read_round(const struct ab_test *t, const struct batch *b, int round, struct ab_pair *p,
			double **blocks, size_t *n_blocks);
void ab_flip_print_round(FILE *out, const struct ab_test *t, size_t i);
/* A relay or duet batch (bench/batch/abtest-flip.c): the round's two runs
 * compared (analysis/run/runrelay.h) into p, its blocks appended; false
 * while they have not both ended. */
bool ab_relay_read_round(const struct ab_test *t, const struct batch *b, int round, struct ab_pair *p,
			 double **blocks, size_t *n_blocks);
/* The test's values through round i (0-based into t->pairs): its counted
 * pairs, or in a flip batch its runs' blocks. */
size_t ab_values_through(const struct ab_test *t, size_t i);
/* The cap on blocks that stands for "no cap": a flip batch stops at its rounds. */
#define AB_FLIP_MAX_BLOCKS 1000000

#endif
