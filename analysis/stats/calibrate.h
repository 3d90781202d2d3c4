/*
 * Calibrating a verdict on this machine (hitchbench calibrate): from one
 * batch of three cells interleaved round by round, two identical ones (A
 * and A': SLOWDOWN=0 and no switch) and one with a known effect (B:
 * SLOWDOWN=PCT), the figures that say what a verdict here is worth, per
 * metric: the spread of the runs, how often the verdicts call two
 * identical settings DIFFERENT, the smallest effect N rounds can find, and
 * whether the known one was found. docs/metrics.md ("Calibrating") says
 * the same for users.
 *
 * Pure: no I/O, no globals; every random number comes from the seed in
 * the options.
 */
#ifndef HB_CALIBRATE_H
#define HB_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/sequential.h"
#include "stats/stats.h"

struct calib_opts {
	unsigned resamples;     /* of the A/A rounds, for the false-positive rates */
	uint64_t seed;
	double alpha;           /* of the minimum detectable effect (two-sided) */
	double power;
	struct stats_compare_opts compare;
	struct seq_opts seq;
};
#define CALIB_OPTS_DEFAULT { 1000, 0x63616c6962ULL, 0.01, 0.8, STATS_COMPARE_DEFAULT, SEQ_OPTS_DEFAULT }

struct calib_result {
	size_t rounds;          /* rounds with a value of A and of A' */
	size_t log_rounds;      /* of those, rounds with both over 0 (a log-ratio) */
	size_t ab_rounds;       /* rounds with a value of A and of B */
	double mean_a, mean_a2;
	/* Per-run coefficient of variation: the sample standard deviation
	 * (n - 1) over the mean, of A's runs and of A''s; NAN under two runs
	 * or at a mean of 0. */
	double cv_a, cv_a2;
	/* The paired spread: the sample standard deviation of ln(A'/A) over
	 * the rounds; NAN under two log-ratios. */
	double sd_log;
	/* The false-positive rates, as fractions of opts.resamples: how often
	 * compare's verdict (stats_compare's thresholds) and the sequential
	 * test (seq_run) said DIFFERENT of A against A' in a resample. A' is
	 * first divided by exp(mean ln(A'/A)), so that the resamples have the
	 * batch's noise and no difference of A and A' (one the batch has
	 * shows in the verdicts on it, aa and aa_seq). A resample takes the
	 * rounds in a random order and, in each, swaps A and A' or not by a
	 * fair coin: what "A and A' are the same setting" allows, with each
	 * round's pair kept together as the machine was then. NAN when there
	 * are too few rounds (compare: 2; the sequential test: its min_pairs
	 * log-ratios). */
	double fpr_compare, fpr_seq;
	/* The minimum detectable effect at opts.alpha (two-sided) and
	 * opts.power, in percent: (z_{1-alpha/2} + z_{power}) x sd / sqrt(N)
	 * x 100, with N the rounds and sd the paired sd_log (a paired test),
	 * or sqrt(cv_a^2 + cv_a2^2) (two independent samples of N). */
	double mde_paired_pct, mde_unpaired_pct;
	double z_sum;           /* z_{1-alpha/2} + z_{power} */
	/* The verdicts on the batch as it is: A against A' (both ought to say
	 * it is the same) and A against B (both ought to find the effect). */
	bool have_aa, have_ab, have_aa_seq, have_ab_seq;
	struct stats_comparison aa, ab;
	struct seq_result aa_seq, ab_seq;
};

/*
 * a, a2 and b hold one value per round (NAN where the round has no valid
 * run of that cell). 0, or -EINVAL for bad options. Figures that cannot be
 * computed are NAN or have_* false.
 */
int calib_compute(const double *a, const double *a2, const double *b, size_t rounds,
		  const struct calib_opts *o, struct calib_result *out);

/*
 * A design's minimum detectable effect within a time budget, so that a
 * user can tell which design to use (calibrate --design runs|flip): the
 * same formula as mde_paired_pct, (z_{1-alpha/2} + z_{power}) x sd /
 * sqrt(N) x 100 %, with N the paired values that `minutes` of the
 * machine's time give at `seconds_per_value` each (runs: two runs a pair;
 * flip: the runs' time over their blocks). NAN when sd is negative or not
 * finite, or the time is not a positive finite number; 0 for an sd of 0
 * (as mde_paired_pct).
 */
double calib_mde_within(double sd, double seconds_per_value, double minutes, const struct calib_opts *o);

/* A flip calibration (calibrate --design flip): flip runs of SLOWDOWN=0
 * against SLOWDOWN=PCT, their blocks of segment pairs (ln(B/A) of fps,
 * docs/metrics.md "Flip") pooled. */
struct calib_flip_result {
	size_t blocks;
	double run_s;           /* the runs' own time in all (started to ended), s */
	double seconds_per_block;
	double sd_block;        /* the blocks' sample sd (n - 1), of ln(B/A); NAN under two */
	double mde_pct;         /* calib_mde_within() at the minutes asked */
	/* The blocks' mean as B/A with a 95% normal interval (mean +- z_0.975
	 * x sd / sqrt(blocks)), and whether it covers the true B/A */
	double estimate, ci_lo, ci_hi;
	bool covers;
	/* The sequential test on the blocks in order (the known effect
	 * found when DIFFERENT, slower) */
	bool have_seq;
	struct seq_result seq;
};

/* blocks[0..n-1] in the runs' order; true_ratio the known B/A (SLOWDOWN's
 * 1 / (1 + PCT/100)). 0, or -EINVAL for bad arguments. */
int calib_flip_compute(const double *blocks, size_t n, double run_s, double true_ratio, double minutes,
		       const struct calib_opts *o, struct calib_flip_result *out);

/* The verdict of stats_compare() for samples of n values each, given the
 * high threshold of that n (stats_high_threshold()), without its bootstrap
 * interval: what the resamples need, a thousand times over. */
enum stats_verdict calib_compare_verdict(const double *x, const double *y, size_t n,
					 double high_threshold);

#endif
