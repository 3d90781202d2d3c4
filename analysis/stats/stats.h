/*
 * Two-sample statistics for deciding whether two sets of runs differ
 * (hitchbench compare) and the pieces change-point detection shares
 * (changepoint.h). Pure functions: no I/O, no globals; every random
 * number comes from a seeded generator the caller owns, so a result is
 * reproducible from its inputs and seed. docs/metrics.md ("Comparing runs")
 * says the same for users.
 *
 * Inputs are arrays of finite doubles; they are not modified (functions
 * that sort work on a copy).
 */
#ifndef HB_STATS_H
#define HB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* splitmix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom
 * number generators"): one 64-bit word of state, any seed is good. */
struct stats_rng {
	uint64_t state;
};
void stats_rng_init(struct stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *rng);
/* Uniform in [0, n), without modulo bias; n > 0. */
size_t stats_rng_below(struct stats_rng *rng, size_t n);
/* Standard normal (Box-Muller). */
double stats_rng_normal(struct stats_rng *rng);

/* The median: the middle value, or the mean of the two middle ones.
 * NAN for n == 0. */
double stats_median(const double *v, size_t n);
/* The q-quantile (0 <= q <= 1) of n sorted values, interpolated linearly
 * between neighbours at rank (n-1)q (R's type 7, numpy's default). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* Standard normal upper tail, P(Z > z). */
double stats_normal_sf(double z);
/* Its inverse: the z with P(Z > z) = p, 0 < p < 1 (Acklam's rational
 * approximation, relative error below 1.2e-9). */
double stats_normal_isf(double p);

/* Percentile bootstrap of median(b) - median(a): `resamples` times, both
 * samples are resampled with replacement (each on its own, of its own
 * size) and the difference of the medians taken; the interval is the
 * (1-confidence)/2 and (1+confidence)/2 quantiles (stats_quantile_sorted)
 * of those differences. Efron and Tibshirani 1993, "An Introduction to the
 * Bootstrap", ch. 13. */
struct stats_bootstrap {
	unsigned resamples;     /* e.g. 10000 */
	double confidence;      /* e.g. 0.95 */
	uint64_t seed;
};
#define STATS_BOOTSTRAP_DEFAULT { 10000, 0.95, 0x68697463686265ULL }
/* 0, or -EINVAL for an empty sample, resamples 0 or a confidence outside
 * (0, 1). *lo and *hi written only on success. */
int stats_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
				const struct stats_bootstrap *opts, double *lo, double *hi);

enum stats_pmethod {
	STATS_EXACT,            /* from the exact null distribution */
	STATS_ASYMPTOTIC,       /* from a large-sample approximation */
};
const char *stats_pmethod_name(enum stats_pmethod m);

/* Mann-Whitney U (Wilcoxon rank-sum), two-sided. u is U of the first
 * sample: the number of pairs (a_i, b_j) with a_i > b_j, ties counting
 * one half (scipy.stats.mannwhitneyu's statistic). The p-value is exact
 * (the null distribution of U counted by recursion, Mann and Whitney 1947)
 * when there are no ties and both samples have at most
 * STATS_MWU_EXACT_MAX values; otherwise the normal approximation with the
 * tie correction of the variance and a continuity correction of 0.5. Both
 * are scipy.stats.mannwhitneyu's (method="exact" / "asymptotic",
 * use_continuity=True), which the unit tests check against. */
#define STATS_MWU_EXACT_MAX 50
struct stats_test {
	double statistic;
	double p;               /* two-sided, at most 1 */
	enum stats_pmethod method;
};
/* 0, or -EINVAL for an empty sample. */
int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out);

/* Two-sample Kolmogorov-Smirnov, two-sided: the statistic is the largest
 * distance between the two empirical distribution functions. The p-value
 * is exact, P(D >= d) over all equally likely orderings of the pooled
 * sample (the lattice-path count of Hodges 1957, as probabilities so it
 * cannot overflow), when na * nb <= STATS_KS_EXACT_MAX_CELLS, else
 * Kolmogorov's limiting distribution at sqrt(na nb / (na + nb)) d. With
 * ties the exact p-value is that of the untied case (scipy's ks_2samp
 * does the same: method="exact"). */
#define STATS_KS_EXACT_MAX_CELLS 1000000
int stats_kolmogorov_smirnov(const double *a, size_t na, const double *b, size_t nb,
			     struct stats_test *out);

/*
 * The verdict, as Chromium's Pinpoint decides it (catapult,
 * dashboard/dashboard/pinpoint/models/compare/compare.py and
 * thresholds.py): the p-value is the smaller of Mann-Whitney's and
 * Kolmogorov-Smirnov's (MWU misses changes of spread, KS is weak on
 * discrete values). At or under the low threshold (0.01) the samples are
 * DIFFERENT. Over the high threshold they are SAME: the high threshold is
 * the p-value that 99% of comparisons of two normal samples `magnitude`
 * interquartile ranges apart stay under, at this sample size, so a p-value
 * over it says a difference that large is unlikely. In between, or with
 * an empty sample, UNKNOWN. Pinpoint takes its high thresholds from a
 * table it simulated once (thresholds_performance.py); here they are
 * simulated the same way when asked (stats_high_threshold), seeded.
 */
enum stats_verdict {
	VERDICT_SAME,
	VERDICT_DIFFERENT,
	VERDICT_UNKNOWN,
};
const char *stats_verdict_name(enum stats_verdict v);   /* "SAME", ... */

#define STATS_LOW_THRESHOLD 0.01
/* The 99th percentile of Mann-Whitney p-values (stats_mann_whitney) over
 * `simulations` pairs of samples of n values each, one N(0,1), the other
 * N(magnitude * IQR, 1), where IQR is the normal's interquartile range
 * (1.349 standard deviations). n == 0 gives 1. Deterministic for a seed. */
double stats_high_threshold(size_t n, double magnitude, unsigned simulations, uint64_t seed);

struct stats_compare_opts {
	double magnitude;       /* in interquartile ranges; Pinpoint's default is 1.0 */
	unsigned simulations;   /* for the high threshold; 2000 */
	size_t max_rounds;      /* how far rounds_needed looks; 200 */
	uint64_t seed;
	struct stats_bootstrap bootstrap;
};
#define STATS_COMPARE_DEFAULT { 1.0, 2000, 200, 0x68697463686265ULL, STATS_BOOTSTRAP_DEFAULT }

struct stats_comparison {
	size_t na, nb;
	double median_a, median_b;
	double ratio;                   /* median_b / median_a; NAN when median_a is 0 */
	double ci_lo, ci_hi;            /* bootstrap interval of median_b - median_a */
	struct stats_test mwu, ks;
	double p;                       /* min(mwu.p, ks.p) */
	double low_threshold, high_threshold;
	size_t n;                       /* min(na, nb): the rounds the thresholds are for */
	enum stats_verdict verdict;
	/* For UNKNOWN: an estimate of the further rounds (runs of each side)
	 * after which a verdict is likely; 0 otherwise, SIZE_MAX when it is
	 * beyond max_rounds. The smaller of (1) the rounds after which the
	 * observed effect would be significant at the low threshold with 80%
	 * power, by Noether's (1987) sample size formula for the Mann-Whitney
	 * test from the observed P(b > a) = 1 - u / (na nb); and (2) the rounds
	 * at which the high threshold falls to the low one, where Pinpoint's
	 * procedure must end in DIFFERENT or SAME. */
	size_t rounds_needed;
	size_t rounds_noether, rounds_crossing;   /* the two estimates (SIZE_MAX: beyond) */
};
/* 0, or -EINVAL for an empty sample or bad options. An empty sample is not
 * an error in Pinpoint (UNKNOWN); the command refuses it before. */
int stats_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct stats_compare_opts *opts, struct stats_comparison *out);

/* Kernel release order: numeric parts compared as numbers ("6.1.10" after
 * "6.1.9"), "-rc" pre-releases before their release ("6.2-rc1" < "6.2"),
 * the rest as strverscmp does. strcmp-like. */
int stats_version_cmp(const char *a, const char *b);

#endif
