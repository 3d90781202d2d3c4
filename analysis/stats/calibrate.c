/*
 * The figures of hitchbench calibrate (calibrate.h): spread, false-positive
 * rates by resampling the A/A rounds, the minimum detectable effect, and
 * the verdicts on the known effect.
 */
#include "stats/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static bool usable(double v)
{
	return isfinite(v);
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

/* Mean and sample standard deviation (n - 1) of v[0..n). */
static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;

	*mean = NAN;
	*sd = NAN;
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(ss / (double)(n - 1));
}

static double cv(const double *v, size_t n, double *mean)
{
	double sd;

	mean_sd(v, n, mean, &sd);
	return isfinite(sd) && *mean != 0 ? sd / fabs(*mean) : NAN;
}

enum stats_verdict calib_compare_verdict(const double *x, const double *y, size_t n,
					 double high_threshold)
{
	struct stats_test mwu, ks;
	double p;

	if (n == 0 || stats_mann_whitney(x, n, y, n, &mwu) < 0 ||
	    stats_kolmogorov_smirnov(x, n, y, n, &ks) < 0)
		return VERDICT_UNKNOWN;
	p = fmin(mwu.p, ks.p);
	if (p <= STATS_LOW_THRESHOLD)
		return VERDICT_DIFFERENT;
	return p > high_threshold ? VERDICT_SAME : VERDICT_UNKNOWN;
}

/* The false-positive rates: see calib_result. idx[0..n) are the rounds
 * with A and A'; A' is divided by scale. */
static void false_positives(const double *a, const double *a2, double scale, const size_t *idx,
			    size_t n, size_t log_n, const struct calib_opts *o, struct calib_result *out)
{
	double *x = zalloc(sizeof(double) * n), *y = zalloc(sizeof(double) * n);
	double *d = zalloc(sizeof(double) * n);
	size_t *order = zalloc(sizeof(size_t) * n);
	bool do_compare = n >= 2, do_seq = log_n >= o->seq.min_pairs;
	double high = do_compare ? stats_high_threshold(n, o->compare.magnitude, o->compare.simulations,
							 o->compare.seed) : NAN;
	unsigned diff_compare = 0, diff_seq = 0;
	struct stats_rng rng;

	stats_rng_init(&rng, o->seed);
	for (unsigned r = 0; r < o->resamples && (do_compare || do_seq); r++) {
		size_t nd = 0;

		memcpy(order, idx, sizeof(size_t) * n);
		for (size_t i = n; i > 1; i--) {
			size_t j = stats_rng_below(&rng, i), t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < n; i++) {
			size_t k = order[i];
			bool swap = stats_rng_next(&rng) >> 63;

			x[i] = swap ? a2[k] / scale : a[k];
			y[i] = swap ? a[k] : a2[k] / scale;
			if (positive(x[i]) && positive(y[i]))
				d[nd++] = log(y[i] / x[i]);
		}
		if (do_compare && calib_compare_verdict(x, y, n, high) == VERDICT_DIFFERENT)
			diff_compare++;
		if (do_seq) {
			struct seq_result s;

			if (seq_run(d, nd, &o->seq, &s) == 0 && s.verdict == VERDICT_DIFFERENT)
				diff_seq++;
		}
	}
	out->fpr_compare = do_compare ? (double)diff_compare / o->resamples : NAN;
	out->fpr_seq = do_seq ? (double)diff_seq / o->resamples : NAN;
	free(x);
	free(y);
	free(d);
	free(order);
}

/* compare and the sequential test of first against second over the rounds
 * where both have a value (the log-ratios where both are over 0). */
static void verdicts(const double *first, const double *second, size_t rounds,
		     const struct calib_opts *o, size_t *n_out, bool *have, struct stats_comparison *cmp,
		     bool *have_seq, struct seq_result *seq)
{
	double *x = zalloc(sizeof(double) * (rounds + 1)), *y = zalloc(sizeof(double) * (rounds + 1));
	double *d = zalloc(sizeof(double) * (rounds + 1));
	size_t n = 0, nd = 0;

	for (size_t r = 0; r < rounds; r++) {
		if (!usable(first[r]) || !usable(second[r]))
			continue;
		x[n] = first[r];
		y[n++] = second[r];
		if (positive(first[r]) && positive(second[r]))
			d[nd++] = log(second[r] / first[r]);
	}
	*n_out = n;
	*have = n > 0 && stats_compare(x, n, y, n, &o->compare, cmp) == 0;
	*have_seq = nd > 0 && seq_run(d, nd, &o->seq, seq) == 0;
	free(x);
	free(y);
	free(d);
}

int calib_compute(const double *a, const double *a2, const double *b, size_t rounds,
		  const struct calib_opts *o, struct calib_result *out)
{
	struct calib_result c;
	double *va, *va2, *dl, mean_d;
	size_t *idx, n = 0, nl = 0;

	if (o->resamples == 0 || !(o->alpha > 0 && o->alpha < 1) || !(o->power > 0 && o->power < 1) ||
	    seq_opts_check(&o->seq) < 0 || !(o->compare.magnitude > 0) || o->compare.simulations == 0)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	va = zalloc(sizeof(double) * (rounds + 1));
	va2 = zalloc(sizeof(double) * (rounds + 1));
	dl = zalloc(sizeof(double) * (rounds + 1));
	idx = zalloc(sizeof(size_t) * (rounds + 1));
	for (size_t r = 0; r < rounds; r++) {
		if (!usable(a[r]) || !usable(a2[r]))
			continue;
		va[n] = a[r];
		va2[n] = a2[r];
		idx[n++] = r;
		if (positive(a[r]) && positive(a2[r]))
			dl[nl++] = log(a2[r] / a[r]);
	}
	c.rounds = n;
	c.log_rounds = nl;
	c.cv_a = cv(va, n, &c.mean_a);
	c.cv_a2 = cv(va2, n, &c.mean_a2);
	mean_sd(dl, nl, &mean_d, &c.sd_log);
	c.z_sum = stats_normal_isf(o->alpha / 2) + stats_normal_isf(1 - o->power);
	c.mde_paired_pct = nl >= 2 ? 100.0 * c.z_sum * c.sd_log / sqrt((double)nl) : NAN;
	c.mde_unpaired_pct = n >= 2 && isfinite(c.cv_a) && isfinite(c.cv_a2) ?
		100.0 * c.z_sum * sqrt(c.cv_a * c.cv_a + c.cv_a2 * c.cv_a2) / sqrt((double)n) : NAN;
	false_positives(a, a2, nl ? exp(mean_d) : 1.0, idx, n, nl, o, &c);
	verdicts(a, a2, rounds, o, &n, &c.have_aa, &c.aa, &c.have_aa_seq, &c.aa_seq);
	verdicts(a, b, rounds, o, &c.ab_rounds, &c.have_ab, &c.ab, &c.have_ab_seq, &c.ab_seq);
	free(va);
	free(va2);
	free(dl);
	free(idx);
	*out = c;
	return 0;
}

double calib_mde_within(double sd, double seconds_per_value, double minutes, const struct calib_opts *o)
{
	double n, z = stats_normal_isf(o->alpha / 2) + stats_normal_isf(1 - o->power);

	if (!(sd >= 0) || !isfinite(sd) || !(seconds_per_value > 0) || !isfinite(seconds_per_value) ||
	    !(minutes > 0))
		return NAN;
	n = minutes * 60.0 / seconds_per_value;
	return 100.0 * z * sd / sqrt(n);
}

int calib_flip_compute(const double *blocks, size_t n, double run_s, double true_ratio, double minutes,
		       const struct calib_opts *o, struct calib_flip_result *out)
{
	struct calib_flip_result c = { .blocks = n, .run_s = run_s };
	double mean = NAN, z = stats_normal_isf(0.025);

	if ((n && !blocks) || !(true_ratio > 0) || !(minutes > 0) || !(run_s >= 0))
		return -EINVAL;
	mean_sd(blocks, n, &mean, &c.sd_block);
	c.seconds_per_block = n ? run_s / (double)n : NAN;
	c.mde_pct = calib_mde_within(c.sd_block, c.seconds_per_block, minutes, o);
	c.estimate = n ? exp(mean) : NAN;
	if (n >= 2) {
		double se = c.sd_block / sqrt((double)n);

		c.ci_lo = exp(mean - z * se);
		c.ci_hi = exp(mean + z * se);
		c.covers = c.ci_lo <= true_ratio && true_ratio <= c.ci_hi;
	} else {
		c.ci_lo = c.ci_hi = NAN;
	}
	c.have_seq = n > 0 && seq_run(blocks, n, &o->seq, &c.seq) == 0;
	*out = c;
	return 0;
}
