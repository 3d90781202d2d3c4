/*
 * The statistics of a flip run (one game run in which a setting is turned
 * between A and B in segments while the game plays; docs/metrics.md "Flip:
 * the A/B inside one game run"). Pure: no I/O, no globals.
 *
 * From segments to pairs:
 *   - passes order (a looping demo, segments counted in the pass's own
 *     frames, so segment k of every pass is the same stretch of the demo;
 *     odd passes start with A, even ones with B): within a pass, each two
 *     adjacent counted segments give w = ln(fps of the B one / fps of the A
 *     one), which holds the effect plus the content step between them;
 *     in the next pass the same two segments have the other order, so the
 *     content step enters with the other sign: the pair's value is
 *     d_k = (w_p(k) + w_q(k)) / 2 (the 2x2 crossover of two passes: the
 *     content and a linear drift cancel). Passes are paired in turn (1 with
 *     2, 3 with 4, ...); a pass left without a partner gives no pairs.
 *   - pairs order (segments counted in time, AB or BA in a seeded random
 *     order): pair j is segments 2j and 2j+1, d_j = ln(fps B / fps A); the
 *     random order makes drift and content a noise of mean zero.
 * From pairs to blocks: adjacent pairs are averaged in blocks of 1, 2, 4,
 * ... pairs, the first size at which the blocks' lag-one autocorrelation
 * is within FLIP_BLOCK_R1 (measured on the run, not assumed), keeping at
 * least FLIP_BLOCKS_LEAST blocks. The block means are what the sequential
 * test (stats/sequential.h) takes, as it takes the runs design's pairs.
 */
#ifndef HB_FLIP_STATS_H
#define HB_FLIP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/sequential.h"

#define FLIP_BLOCK_R1 0.1
#define FLIP_BLOCKS_LEAST 8

/* A segment as the analysis measured it from the frames. */
struct flip_seg {
	int pass;               /* passes order: the game's pass; pairs order: 1 */
	int seg;                /* its index in the pass (passes) or the window (pairs) */
	char side;              /* 'A' or 'B' */
	bool counted;           /* its frames count (whole, switched in time, enough frames) */
	double log_ft;          /* ln of its mean frame time (ms) over its counted frames */
	unsigned frames;        /* frame intervals counted */
	unsigned stalls;        /* of those, intervals over the stall threshold */
	uint64_t from_ns, to_ns; /* the stretch its frames were counted in */
};

/* A pair of adjacent segments' log-ratio, for one side each. */
struct flip_pair {
	int pass, pass2;        /* pass2: passes order, the pass of the other order; else 0 */
	int seg;                /* the pair's first segment */
	double d;               /* ln(B/A) of fps: negative when B is slower */
};

/* Pairs of segs[0..n-1] (in the order the runner wrote them) into out
 * (room for n), in the order they were completed; how many. passes: true
 * for the passes order. */
size_t flip_pairs(const struct flip_seg *segs, size_t n, bool passes, struct flip_pair *out);
/* Whether segs[i] is one of a pair's segments (pairs from flip_pairs()). */
bool flip_seg_paired(const struct flip_seg *g, const struct flip_pair *pairs, size_t n_pairs);

/* The lag-one autocorrelation of x[0..n-1] (0 when n < 3 or no spread). */
double flip_lag1(const double *x, size_t n);

/* The block size for d[0..n-1] (as above), and its blocks' lag-one
 * autocorrelation in *r1 (may be NULL). */
size_t flip_block_size(const double *d, size_t n, double *r1);
/* The mean of x[0..n-1] and its standard error (sd / sqrt(n); NAN under
 * two values; the mean NAN with none). */
void flip_mean_se(const double *x, size_t n, double *mean, double *se);
/* The means of blocks of size pairs (the last partial block left out)
 * into out (room for n / size); how many. */
size_t flip_block_means(const double *d, size_t n, size_t size, double *out);

/*
 * Simulated flip runs, for the unit tests that measure the error rates:
 * each simulated A/B is flip runs of `passes` passes of `segments`
 * segments of a looping demo, in passes order, until the sequential test
 * (o) stops or `max_runs` runs are done. A segment's ln frame time is
 *   drift (a random walk, `drift_sd` a segment: the machine's speed)
 *   + content[seg] (the demo's, sd `content_sd`, the same every pass)
 *   + fast noise (AR(1), coefficient `ar`, marginal sd `noise_sd`)
 *   - mu on B segments, of which a fraction `lag` acts only in the next
 *     segment (a switch slower than the settle time: the carry-over).
 * mu is the true ln(B/A) of fps. Deterministic for a seed.
 */
struct flip_sim {
	int passes, segments, max_runs;
	double drift_sd, content_sd, noise_sd, ar, lag;
	double mu;
	unsigned sequences;
	uint64_t seed;
};
/* For the tests (tests/unit/test-flip.c): 0, or -EINVAL (bad options or
 * simulation). out as seq_simulate's (mean_pairs: blocks to the stop). */
int flip_simulate(const struct seq_opts *o, const struct flip_sim *s, struct seq_sim_result *out);

#endif
