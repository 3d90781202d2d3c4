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
 * Wald 1949); the LLR reported is the larger of the two, its sign the
 * side it is on. docs/metrics.md ("A paired A/B that stops when it knows")
 * has the whole procedure for users, with the error rates the unit tests
 * measure by simulation.
 *
 * Pure: no I/O, no globals; the inputs are not modified.
 */
#ifndef HB_SEQUENTIAL_H
#define HB_SEQUENTIAL_H

#include <stddef.h>

#include "stats.h"

struct seq_opts {
	double effect;          /* the smallest change worth finding, a fraction: 0.03 = 3% */
	double alpha, beta;     /* false-positive rate, and 1 - power at `effect` */
	size_t min_pairs;       /* no verdict before this many pairs */
	size_t max_pairs;       /* UNKNOWN at this many pairs (the cap) */
};
/* The values may still be tuned by simulation before the test is final. */
#define SEQ_OPTS_DEFAULT { 0.03, 0.05, 0.05, 3, 30 }

struct seq_result {
	enum stats_verdict verdict;
	int sign;               /* DIFFERENT: +1 when B > A, -1 when B < A; else the sign of the estimate */
	size_t pairs;           /* the pairs the test used: where it stopped */
	double llr;             /* the log-likelihood ratio at the stop */
	double lower, upper;    /* the bounds: SAME at or under lower, DIFFERENT at or over upper */
	/* As ratios B/A (exp of the log-ratio figures): the estimate of the
	 * change and an interval for it that allows for having stopped. */
	double estimate, ci_lo, ci_hi;
};

/* 0, or -EINVAL when an option is out of range (effect <= 0, alpha or
 * beta outside (0, 0.5), min_pairs < 2, max_pairs < min_pairs). */
int seq_opts_check(const struct seq_opts *o);

/* Wald's bounds for the options (the two one-sided tests at alpha/2). */
void seq_bounds(const struct seq_opts *o, double *lower, double *upper);

/* Runs the test over d[0..n-1] (paired log-ratios ln(B/A), in the order
 * they came) and stops where the test stops (at a bound, or at max_pairs,
 * or at n with UNKNOWN). 0 or -EINVAL (bad options, a value not finite). */
int seq_run(const double *d, size_t n, const struct seq_opts *o, struct seq_result *out);

#endif
