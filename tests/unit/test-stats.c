/*
 * The statistics of hitchbench compare and regress (analysis/stats/stats.c,
 * analysis/stats/changepoint.c) against reference values computed once, outside
 * the product, with SciPy 1.10.1 and NumPy 1.24.2 (Debian 12's
 * python3-scipy) -- each value says which call gave it -- and, for the
 * E-divisive statistic, a direct transcription of Matteson and James's
 * formula in Python (double loops over the pairs; no change-point package
 * was at hand, so the change-point tests are that and hand-made series with
 * one obvious shift or none).
 */
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const double sa[] = { 57.2, 60.1, 58.4, 61.0, 59.3 };
static const double sb[] = { 62.5, 63.1, 61.8, 64.0, 62.9 };
static const double tie1[] = { 1, 2, 2, 3, 3, 3, 4, 5 };
static const double tie2[] = { 3, 4, 4, 5, 5, 6, 7, 7, 8 };
static const double un1[] = { 12.1, 14.3, 11.8, 13.0, 15.2, 12.7, 13.9, 14.8, 11.2, 12.9, 13.3, 14.1 };
static const double un2[] = { 13.5, 15.9, 16.2, 14.4, 15.1, 17.0, 16.6 };
/* numpy.random.default_rng(1).normal(100, 5, 60), then normal(102, 5, 60), rounded to 3 places */
static const double large1[] = { 101.728, 104.108, 101.652, 93.484, 104.527, 102.232, 97.315, 102.906,
	101.823, 101.471, 100.142, 102.734, 96.318, 99.185, 97.589, 102.994, 100.199, 98.538, 96.09,
	98.714, 100.041, 98.622, 106.47, 105.034, 86.444, 90.555, 99.126, 97.889, 101.068, 101.087,
	110.589, 94.44, 98.112, 110.214, 103.234, 103.315, 97.43, 91.76, 100.837, 100.545, 93.863,
	96.584, 99.64, 95.276, 99.509, 100.477, 100.178, 97.469, 102.969, 104.456, 101.604, 95.909,
	103.658, 97.493, 104.396, 94.641, 104.572, 99.9, 93.756, 98.431 };
static const double large2[] = { 102.271, 103.364, 97.089, 96.463, 102.998, 99.666, 103.178, 105.798,
	93.756, 103.272, 108.123, 100.512, 97.946, 105.761, 103.267, 106.479, 100.274, 94.591, 101.45,
	99.771, 105.877, 102.968, 93.846, 96.024, 106.419, 105.399, 98.799, 101.995, 104.228, 104.342,
	106.381, 103.282, 101.526, 100.706, 107.279, 90.746, 101.307, 102.165, 94.873, 103.664, 98.744,
	106.312, 101.372, 105.346, 108.094, 103.915, 97.621, 94.428, 110.767, 101.444, 98.557, 102.721,
	101.043, 106.261, 102.17, 102.069, 98.427, 104.348, 96.831, 105.329 };

static void sort_small(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

START_TEST(test_median_quantile)
{
	double s[N(un1)];

	/* numpy.median(un1) = 13.15, numpy.median(un2) = 15.9 */
	ck_assert_double_eq_tol(stats_median(un1, N(un1)), 13.15, 1e-12);
	ck_assert_double_eq_tol(stats_median(un2, N(un2)), 15.9, 1e-12);
	ck_assert(isnan(stats_median(un1, 0)));
	/* numpy.percentile(un1, [2.5, 50, 97.5, 99]) = 11.365, 13.15, 15.09, 15.156 */
	for (size_t i = 0; i < N(un1); i++)
		s[i] = un1[i];
	sort_small(s, N(s));
	ck_assert_double_eq_tol(stats_quantile_sorted(s, N(s), 0.025), 11.365, 1e-9);
	ck_assert_double_eq_tol(stats_quantile_sorted(s, N(s), 0.5), 13.15, 1e-9);
	ck_assert_double_eq_tol(stats_quantile_sorted(s, N(s), 0.975), 15.09, 1e-9);
	ck_assert_double_eq_tol(stats_quantile_sorted(s, N(s), 0.99), 15.156, 1e-9);
	ck_assert_double_eq(stats_quantile_sorted(s, N(s), 1.0), 15.2);
}
END_TEST

START_TEST(test_normal)
{
	/* scipy.stats.norm.isf(p) */
	ck_assert_double_eq_tol(stats_normal_isf(0.5), 0.0, 1e-9);
	ck_assert_double_eq_tol(stats_normal_isf(0.025), 1.9599639845400545, 1e-8);
	ck_assert_double_eq_tol(stats_normal_isf(0.005), 2.575829303548901, 1e-8);
	ck_assert_double_eq_tol(stats_normal_isf(0.2), 0.8416212335729142, 1e-8);
	ck_assert_double_eq_tol(stats_normal_isf(1e-6), 4.753424308822899, 1e-7);
	ck_assert_double_eq_tol(stats_normal_isf(0.99), -2.3263478740408408, 1e-8);
	ck_assert_double_eq_tol(stats_normal_sf(1.9599639845400545), 0.025, 1e-12);
}
END_TEST

/* scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=M):
 * statistic and p-value for the method our rule picks */
START_TEST(test_mann_whitney)
{
	struct stats_test t;

	/* no ties, 5 and 5: exact; method="exact" gives 0.0, 0.007936507936507936 */
	ck_assert_int_eq(stats_mann_whitney(sa, N(sa), sb, N(sb), &t), 0);
	ck_assert_double_eq(t.statistic, 0.0);
	ck_assert_double_eq_tol(t.p, 0.007936507936507936, 1e-12);
	ck_assert_int_eq(t.method, STATS_EXACT);
	/* the mirror: U = 25, same p */
	ck_assert_int_eq(stats_mann_whitney(sb, N(sb), sa, N(sa), &t), 0);
	ck_assert_double_eq(t.statistic, 25.0);
	ck_assert_double_eq_tol(t.p, 0.007936507936507936, 1e-12);
	/* no ties, 12 and 7: method="exact" gives 8.0, 0.002619671350321505 */
	ck_assert_int_eq(stats_mann_whitney(un1, N(un1), un2, N(un2), &t), 0);
	ck_assert_double_eq(t.statistic, 8.0);
	ck_assert_double_eq_tol(t.p, 0.002619671350321505, 1e-12);
	ck_assert_int_eq(t.method, STATS_EXACT);
	/* ties: method="asymptotic" gives 7.5, 0.006373133838085873 */
	ck_assert_int_eq(stats_mann_whitney(tie1, N(tie1), tie2, N(tie2), &t), 0);
	ck_assert_double_eq(t.statistic, 7.5);
	ck_assert_double_eq_tol(t.p, 0.006373133838085873, 1e-12);
	ck_assert_int_eq(t.method, STATS_ASYMPTOTIC);
	/* 60 and 60 with one tie: method="asymptotic" gives 1288.5, 0.007317053433948383 */
	ck_assert_int_eq(stats_mann_whitney(large1, N(large1), large2, N(large2), &t), 0);
	ck_assert_double_eq(t.statistic, 1288.5);
	ck_assert_double_eq_tol(t.p, 0.007317053433948383, 1e-12);
	ck_assert_int_eq(t.method, STATS_ASYMPTOTIC);
	/* Pinpoint's examples (compare.py): [0]*20 against [0]*15+[1]*5,
	 * method="asymptotic": 150.0, 0.019450444016954928 */
	{
		double z1[20] = { 0 }, z2[20] = { 0 }, r1[20], r2[20];

		for (int i = 15; i < 20; i++)
			z2[i] = 1;
		ck_assert_int_eq(stats_mann_whitney(z1, 20, z2, 20, &t), 0);
		ck_assert_double_eq(t.statistic, 150.0);
		ck_assert_double_eq_tol(t.p, 0.019450444016954928, 1e-12);
		/* range(10, 30) against range(10) + range(30, 40): 200.0, 1.0 */
		for (int i = 0; i < 20; i++) {
			r1[i] = 10 + i;
			r2[i] = i < 10 ? i : 20 + i;
		}
		ck_assert_int_eq(stats_mann_whitney(r1, 20, r2, 20, &t), 0);
		ck_assert_double_eq(t.statistic, 200.0);
		ck_assert_double_eq_tol(t.p, 1.0, 1e-12);
		/* ... where KS sees it: ks_2samp(method="exact") 0.5, 0.012298612583953778 */
		ck_assert_int_eq(stats_kolmogorov_smirnov(r1, 20, r2, 20, &t), 0);
		ck_assert_double_eq_tol(t.statistic, 0.5, 1e-12);
		ck_assert_double_eq_tol(t.p, 0.012298612583953778, 1e-10);
		/* and for the zeros: 0.25, 0.571336004933722 */
		ck_assert_int_eq(stats_kolmogorov_smirnov(z1, 20, z2, 20, &t), 0);
		ck_assert_double_eq_tol(t.statistic, 0.25, 1e-12);
		ck_assert_double_eq_tol(t.p, 0.571336004933722, 1e-10);
	}
	ck_assert_int_eq(stats_mann_whitney(sa, 0, sb, N(sb), &t), -EINVAL);
}
END_TEST

/* scipy.stats.ks_2samp(x, y, alternative="two-sided", method="exact") */
START_TEST(test_kolmogorov_smirnov)
{
	struct stats_test t;

	/* 1.0, 0.007936507936507936 */
	ck_assert_int_eq(stats_kolmogorov_smirnov(sa, N(sa), sb, N(sb), &t), 0);
	ck_assert_double_eq_tol(t.statistic, 1.0, 1e-12);
	ck_assert_double_eq_tol(t.p, 0.007936507936507936, 1e-10);
	ck_assert_int_eq(t.method, STATS_EXACT);
	/* unequal sizes: 0.6904761904761905, 0.016908787806620626 */
	ck_assert_int_eq(stats_kolmogorov_smirnov(un1, N(un1), un2, N(un2), &t), 0);
	ck_assert_double_eq_tol(t.statistic, 0.6904761904761905, 1e-12);
	ck_assert_double_eq_tol(t.p, 0.016908787806620626, 1e-10);
	/* ties: 0.6388888888888888, 0.04689428218839984 */
	ck_assert_int_eq(stats_kolmogorov_smirnov(tie1, N(tie1), tie2, N(tie2), &t), 0);
	ck_assert_double_eq_tol(t.statistic, 0.6388888888888888, 1e-12);
	ck_assert_double_eq_tol(t.p, 0.04689428218839984, 1e-10);
	/* 60 and 60: 0.26666666666666666, 0.027628318680706847 */
	ck_assert_int_eq(stats_kolmogorov_smirnov(large1, N(large1), large2, N(large2), &t), 0);
	ck_assert_double_eq_tol(t.statistic, 0.26666666666666666, 1e-12);
	ck_assert_double_eq_tol(t.p, 0.027628318680706847, 1e-10);
	/* identical samples: D = 0, p = 1 */
	ck_assert_int_eq(stats_kolmogorov_smirnov(sa, N(sa), sa, N(sa), &t), 0);
	ck_assert_double_eq(t.statistic, 0.0);
	ck_assert_double_eq_tol(t.p, 1.0, 1e-12);
}
END_TEST

/* scipy.stats.bootstrap((x, y), lambda x, y: median(y) - median(x),
 * paired=False, n_resamples=10000, method="percentile",
 * confidence_level=0.95) gave the same interval for random_state 1, 2 and
 * 3: (1.7, 5.7) for sa/sb and (0.5, 3.8) for un1/un2. The resamples differ
 * from ours (another generator), but with 10000 of them the percentile ends
 * land on the same order statistics of these small discrete
 * distributions. */
START_TEST(test_bootstrap)
{
	struct stats_bootstrap o = STATS_BOOTSTRAP_DEFAULT;
	double lo, hi, lo2, hi2;

	ck_assert_int_eq(stats_bootstrap_median_diff(sa, N(sa), sb, N(sb), &o, &lo, &hi), 0);
	ck_assert_double_eq_tol(lo, 1.7, 1e-9);
	ck_assert_double_eq_tol(hi, 5.7, 1e-9);
	ck_assert_int_eq(stats_bootstrap_median_diff(un1, N(un1), un2, N(un2), &o, &lo, &hi), 0);
	ck_assert_double_eq_tol(lo, 0.5, 1e-9);
	ck_assert_double_eq_tol(hi, 3.8, 1e-9);
	/* seeded: the same again */
	ck_assert_int_eq(stats_bootstrap_median_diff(un1, N(un1), un2, N(un2), &o, &lo2, &hi2), 0);
	ck_assert_double_eq(lo, lo2);
	ck_assert_double_eq(hi, hi2);
	/* a constant difference has a point interval */
	ck_assert_int_eq(stats_bootstrap_median_diff(tie1, 1, tie2, 1, &o, &lo, &hi), 0);
	ck_assert_double_eq(lo, 2.0);
	ck_assert_double_eq(hi, 2.0);
	o.confidence = 1.0;
	ck_assert_int_eq(stats_bootstrap_median_diff(sa, N(sa), sb, N(sb), &o, &lo, &hi), -EINVAL);
}
END_TEST

/* The bootstrap takes each resample's median by selection, not by
 * sorting: against the same resamples (the same generator, drawn in the
 * same order) each sorted, the interval is the same to the bit, for sizes
 * odd and even, with many ties and with none. */
static double ref_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

START_TEST(test_bootstrap_selection)
{
	struct stats_bootstrap o = { 500, 0.9, 77 };
	struct stats_rng gen, rng;

	stats_rng_init(&gen, 5);
	for (size_t na = 1; na <= 24; na += 1 + na / 6) {
		for (int ties = 0; ties < 2; ties++) {
			size_t nb = na + 3;
			double *a = zalloc(sizeof(*a) * na), *b = zalloc(sizeof(*b) * nb);
			double *ra = zalloc(sizeof(*ra) * na), *rb = zalloc(sizeof(*rb) * nb);
			double *d = zalloc(sizeof(*d) * o.resamples), lo, hi;

			for (size_t i = 0; i < na; i++)
				a[i] = ties ? (double)stats_rng_below(&gen, 3) : stats_rng_normal(&gen);
			for (size_t i = 0; i < nb; i++)
				b[i] = ties ? (double)stats_rng_below(&gen, 3) : stats_rng_normal(&gen) + 0.5;
			ck_assert_int_eq(stats_bootstrap_median_diff(a, na, b, nb, &o, &lo, &hi), 0);
			stats_rng_init(&rng, o.seed);
			for (unsigned r = 0; r < o.resamples; r++) {
				for (size_t i = 0; i < na; i++)
					ra[i] = a[stats_rng_below(&rng, na)];
				for (size_t i = 0; i < nb; i++)
					rb[i] = b[stats_rng_below(&rng, nb)];
				d[r] = ref_median(rb, nb) - ref_median(ra, na);
			}
			qsort(d, o.resamples, sizeof(*d), cmp_double);
			ck_assert_double_eq(lo, stats_quantile_sorted(d, o.resamples, (1.0 - o.confidence) / 2.0));
			ck_assert_double_eq(hi, stats_quantile_sorted(d, o.resamples, (1.0 + o.confidence) / 2.0));
			free(a), free(b), free(ra), free(rb), free(d);
		}
	}
}
END_TEST

/* Our simulated high thresholds against Pinpoint's table
 * (catapult thresholds.py, _HIGH_THRESHOLDS_PERFORMANCE, magnitude 1.0 IQR:
 * n=10 .5708, n=20 .0859, n=30 .0095), which came from 1e6 simulations
 * with scipy's asymptotic p-values of 2018; ours use 2000 and exact
 * p-values, so only roughly. */
START_TEST(test_high_threshold)
{
	ck_assert_double_eq_tol(stats_high_threshold(10, 1.0, 2000, 1), 0.5708, 0.08);
	ck_assert_double_eq_tol(stats_high_threshold(20, 1.0, 2000, 1), 0.0859, 0.03);
	ck_assert_double_eq_tol(stats_high_threshold(30, 1.0, 2000, 1), 0.0095, 0.006);
	ck_assert_double_eq(stats_high_threshold(0, 1.0, 2000, 1), 1.0);
	ck_assert_double_eq(stats_high_threshold(12, 1.0, 500, 7), stats_high_threshold(12, 1.0, 500, 7));
}
END_TEST

START_TEST(test_compare_verdicts)
{
	struct stats_compare_opts o = STATS_COMPARE_DEFAULT;
	struct stats_comparison c;
	double same1[30], same2[30];

	/* clearly apart: DIFFERENT */
	ck_assert_int_eq(stats_compare(un1, N(un1), un2, N(un2), &o, &c), 0);
	ck_assert_int_eq(c.verdict, VERDICT_DIFFERENT);
	ck_assert_double_eq_tol(c.p, 0.002619671350321505, 1e-12);   /* MWU's, the smaller */
	ck_assert_double_eq_tol(c.ratio, 15.9 / 13.15, 1e-12);
	ck_assert_uint_eq(c.rounds_needed, 0);
	/* five rounds each, p = 0.0079 <= 0.01: DIFFERENT */
	ck_assert_int_eq(stats_compare(sa, N(sa), sb, N(sb), &o, &c), 0);
	ck_assert_int_eq(c.verdict, VERDICT_DIFFERENT);
	/* three rounds each can never reach 0.01, nor SAME: UNKNOWN, with an estimate */
	ck_assert_int_eq(stats_compare(sa, 3, sb, 3, &o, &c), 0);
	ck_assert_int_eq(c.verdict, VERDICT_UNKNOWN);
	ck_assert_double_eq_tol(c.high_threshold, 1.0, 1e-12);
	ck_assert_uint_gt(c.rounds_needed, 0);
	ck_assert_uint_lt(c.rounds_needed, 10);
	/* interleaved samples of 30: SAME */
	for (int i = 0; i < 30; i++) {
		same1[i] = 100.0 + (i * 7 % 30) / 10.0;
		same2[i] = 100.05 + (i * 11 % 30) / 10.0;
	}
	ck_assert_int_eq(stats_compare(same1, 30, same2, 30, &o, &c), 0);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	ck_assert_uint_eq(c.rounds_needed, 0);
	ck_assert_int_eq(stats_compare(sa, 0, sb, 3, &o, &c), -EINVAL);
}
END_TEST

START_TEST(test_version_order)
{
	ck_assert_int_lt(stats_version_cmp("6.1.9", "6.1.10"), 0);
	ck_assert_int_lt(stats_version_cmp("5.10.0", "6.1.0"), 0);
	ck_assert_int_lt(stats_version_cmp("6.2-rc1", "6.2"), 0);
	ck_assert_int_lt(stats_version_cmp("6.2-rc2", "6.2-rc10"), 0);
	ck_assert_int_lt(stats_version_cmp("6.1.0-13-amd64", "6.1.0-17-amd64"), 0);
	ck_assert_int_lt(stats_version_cmp("6.1.0-17-amd64", "6.1.10-1-amd64"), 0);
	ck_assert_int_gt(stats_version_cmp("6.2", "6.2-rc7"), 0);
	ck_assert_int_eq(stats_version_cmp("6.1.0-13-amd64", "6.1.0-13-amd64"), 0);
}
END_TEST

START_TEST(test_edivisive_one_shift)
{
	/* The Python transcription of the paper's Q-hat (min size 2) finds its
	 * largest value, 43.0, at tau = 5, kappa = 10 for this series, and
	 * 28.6 at tau = 6, kappa = 12 for the second. */
	static const double z[] = { 10, 11, 9, 10, 12, 20, 21, 19, 22, 20 };
	static const double z2[] = { 60.1, 59.8, 60.4, 60.0, 59.9, 60.2, 54.9, 55.3, 55.1, 54.8, 55.0, 55.2 };
	struct changepoint_opts o = CHANGEPOINT_OPTS_DEFAULT;
	struct changepoint *cp = NULL;
	size_t n = 99;

	ck_assert_int_eq(changepoint_edivisive(z, N(z), NULL, &o, &cp, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(cp[0].index, 5);
	ck_assert_double_eq_tol(cp[0].statistic, 43.0, 1e-9);
	/* a shuffle rarely splits 10 values as well (1 in 126 puts the same
	 * five first or last): p is small, and at least 1/200 */
	ck_assert_double_le(cp[0].p, 0.05);
	ck_assert_double_ge(cp[0].p, 1.0 / 200.0);
	ck_assert_double_eq(cp[0].median_before, 10.0);
	ck_assert_double_eq(cp[0].median_after, 20.0);
	ck_assert_double_eq(cp[0].magnitude, 10.0);
	free(cp);
	ck_assert_int_eq(changepoint_edivisive(z2, N(z2), NULL, &o, &cp, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(cp[0].index, 6);
	ck_assert_double_eq_tol(cp[0].statistic, 28.6, 1e-9);
	ck_assert_double_eq_tol(cp[0].magnitude, 55.05 - 60.05, 1e-9);
	free(cp);
}
END_TEST

START_TEST(test_edivisive_none_and_limits)
{
	/* no shift: the same values in a scrambled order */
	static const double flat[] = { 60.1, 59.8, 60.4, 60.0, 59.9, 60.2, 60.3, 59.7, 60.0, 60.1, 59.9, 60.2 };
	static const double z[] = { 10, 11, 9, 10, 12, 20, 21, 19, 22, 20 };
	/* splits only before index 4 and 8 (as if runs came in kernels of 4, 4 and 2) */
	bool may[N(z)] = { false, false, false, false, true, false, false, false, true, false };
	struct changepoint_opts o = CHANGEPOINT_OPTS_DEFAULT;
	struct changepoint *cp = NULL;
	size_t n = 99;

	ck_assert_int_eq(changepoint_edivisive(flat, N(flat), NULL, &o, &cp, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(cp);
	/* the shift between allowed places: found at the nearest allowed one */
	ck_assert_int_eq(changepoint_edivisive(z, N(z), may, &o, &cp, &n), 0);
	ck_assert_uint_ge(n, 1);
	ck_assert(cp[0].index == 4 || cp[0].index == 8);
	free(cp);
	/* too short to split */
	ck_assert_int_eq(changepoint_edivisive(z, 3, NULL, &o, &cp, &n), 0);
	ck_assert_uint_eq(n, 0);
	o.min_size = 1;
	ck_assert_int_eq(changepoint_edivisive(z, N(z), NULL, &o, &cp, &n), -EINVAL);
}
END_TEST

TEST_SUITE(stats_suite)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_median_quantile);
	tcase_add_test(tc, test_normal);
	tcase_add_test(tc, test_mann_whitney);
	tcase_add_test(tc, test_kolmogorov_smirnov);
	tcase_add_test(tc, test_bootstrap);
	tcase_add_test(tc, test_bootstrap_selection);
	tcase_add_test(tc, test_high_threshold);
	tcase_add_test(tc, test_compare_verdicts);
	tcase_add_test(tc, test_version_order);
	tcase_add_test(tc, test_edivisive_one_shift);
	tcase_add_test(tc, test_edivisive_none_and_limits);
	suite_add_tcase(s, tc);
	return s;
}
