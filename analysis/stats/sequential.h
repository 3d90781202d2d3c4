/*
 * A paired A/B test that stops when it knows (hitchbench ab, compare
 * --paired, calibrate). The input is one number per counterbalanced pair
 * of runs (A then B, or B then A): the log-ratio d = ln(B/A) of a metric.
 * After each pair the test says DIFFERENT (with the sign), SAME, or "go
 * on"; at the cap it says UNKNOWN.
 *
 * The test is a generalized sequential probability ratio test in the
 * manner of fishtest (Stockfish's testing framework): the log-likelihood
 * ratio of a normal model with the variance estimated from the pairs so
 * far, against Wald's bounds ln(beta/(1-alpha)) and ln((1-beta)/alpha).
 * H0: the mean log-ratio is 0; H1: it is +ln(1+effect) or -ln(1+effect).
 * The two-sided test is two one-sided tests at alpha/2 each (Sobel and
 * Wald 1949); the LLR reported is the larger of the two,
 *   LLR = (delta |sum w| - k delta^2 / 2) / v   after k pairs,
 * its sign the side it is on. DIFFERENT at LLR >= ln((1-beta)/(alpha/2)),
 * SAME at LLR <= ln(beta/(1-alpha/2)), not before min_pairs; UNKNOWN at
 * max_pairs. Against heavy tails and few pairs:
 *   - w: the pairs winsorised by SEQ_WINSOR_FRACTION at each end, their
 *     variance over (1 - 2g/k)^2 (Tukey-McLaughlin);
 *   - v: their sample variance as an upper confidence bound,
 *     s^2 (k-1) / chi2_{k-1} at the SEQ_VAR_QUANTILE quantile, plus the
 *     floor squared (SEQ_SD_FLOOR_OF_EFFECT x delta unless sd_floor).
 * The estimate is exp(mean w); its interval is Robbins' normal-mixture
 * confidence sequence at level 1 - alpha (valid at any stopping time).
 * docs/metrics.md ("A paired A/B that stops when it knows") has it for
 * users, with the error rates the unit tests measure by simulation.
 *
 * Pure: no I/O, no globals; the inputs are not modified.
 */
#ifndef HB_SEQUENTIAL_H
#define HB_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/stats.h"

struct seq_opts {
	double effect;          /* the smallest change worth finding, a fraction: 0.03 = 3% */
	double alpha, beta;     /* false-positive rate, and 1 - power at `effect` */
	size_t min_pairs;       /* no verdict before this many pairs */
	size_t max_pairs;       /* UNKNOWN at this many pairs (the cap) */
	double sd_floor;        /* the least standard deviation of a log-ratio the test
				 * believes; 0: SEQ_SD_FLOOR_OF_EFFECT x ln(1 + effect) */
};
/* Chosen by simulation (docs/metrics.md); the contract's defaults plus sd_floor. */
#define SEQ_OPTS_DEFAULT { 0.03, 0.05, 0.05, 6, 30, 0 }
#define SEQ_MIN_PAIRS_LEAST 2
/* The constants of the procedure (docs/metrics.md says how each was chosen). */
#define SEQ_SD_FLOOR_OF_EFFECT 0.25
#define SEQ_WINSOR_FRACTION 0.1
#define SEQ_VAR_QUANTILE 0.05
#define SEQ_CS_PAIRS 10.0

struct seq_result {
	enum stats_verdict verdict;
	int sign;               /* DIFFERENT: +1 when B > A, -1 when B < A; else the sign of the estimate */
	size_t pairs;           /* the pairs the test used: where it stopped */
	double llr;             /* the log-likelihood ratio at the stop */
	double lower, upper;    /* the bounds: SAME at or under lower, DIFFERENT at or over upper */
	bool done;              /* a verdict, or the cap reached: the test is over */
	double sd;              /* the scale the LLR used (robust, floored), of the log-ratio */
	/* The same in log-ratio units: ln(B/A). */
	double log_estimate, log_ci_lo, log_ci_hi;
	/* As ratios B/A (exp of the log-ratio figures): the estimate of the
	 * change and an interval for it that allows for having stopped. */
	double estimate, ci_lo, ci_hi;
};

/* 0, or -EINVAL when an option is out of range (effect <= 0, alpha or
 * beta outside (0, 0.5), min_pairs < 2, max_pairs < min_pairs). */
int seq_opts_check(const struct seq_opts *o);

/* delta = ln(1 + effect): H1's log-ratio; and the floor of the scale. */
double seq_delta(const struct seq_opts *o);
double seq_sd_floor(const struct seq_opts *o);

/* Wald's bounds for the options (the two one-sided tests at alpha/2). */
void seq_bounds(const struct seq_opts *o, double *lower, double *upper);

/* Runs the test over d[0..n-1] (paired log-ratios ln(B/A), in the order
 * they came) and stops where the test stops (at a bound, or at max_pairs,
 * or at n with UNKNOWN). 0 or -EINVAL (bad options, a value not finite). */
int seq_run(const double *d, size_t n, const struct seq_opts *o, struct seq_result *out);

/*
 * Simulated sequences, for the unit tests that measure the error rates,
 * for bench-self's figures and for calibrate: `sequences` runs of the
 * test, each on its own stream of pairs d = mu + noise, with noise of one
 * of these kinds (the scale `sd` is the standard deviation of d):
 *   NORMAL    sd Z
 *   T3        Student's t with 3 degrees of freedom scaled to sd (heavy
 *             tails: its fourth moment is infinite)
 *   OUTLIERS  a contaminated normal: sd Z, and each of the pair's two runs
 *             on its own, with probability outlier_p, 30% slower (its
 *             metric x 0.7: d moves by ln 0.7 or -ln 0.7); here sd is the
 *             normal part only
 * Deterministic for a seed (stats_rng).
 */
enum seq_noise {
	SEQ_NOISE_NORMAL,
	SEQ_NOISE_T3,
	SEQ_NOISE_OUTLIERS,
	SEQ_NOISE_BIMODAL,      /* +-sd as often, plus a tenth of sd of normal noise */
};
struct seq_sim {
	enum seq_noise noise;
	double sd;
	double mu;              /* the true mean log-ratio */
	double outlier_p;       /* OUTLIERS: each run's chance */
	unsigned sequences;
	uint64_t seed;
};
struct seq_sim_result {
	unsigned sequences;
	unsigned same, faster, slower, unknown;   /* faster: DIFFERENT with sign +1 */
	unsigned covered;       /* the interval held mu at the stop */
	double mean_pairs, median_pairs;
	double p90_pairs;       /* 90th percentile of the pairs to the stop */
};
/* The test's error rates by simulation (tests/unit/test-sequential.c, and
 * tests/tools/seqsim.c for bench-self). 0, or -EINVAL (bad options,
 * sequences 0, sd < 0). */
int seq_simulate(const struct seq_opts *o, const struct seq_sim *s, struct seq_sim_result *out);

#endif
