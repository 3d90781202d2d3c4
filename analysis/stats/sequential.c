/*
 * The paired sequential test (see sequential.h for what it decides and
 * docs/metrics.md, "A paired A/B that stops when it knows", for why each
 * choice). Written from Wald's SPRT (1945), Sobel and Wald's two one-sided
 * tests (1949) and the normal-mixture confidence sequence of Robbins
 * (1970) as Howard, Ramdas, McAuliffe and Sekhon (2021) state it.
 */
#include "stats/sequential.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int seq_opts_check(const struct seq_opts *o)
{
	if (!(o->effect > 0 && o->effect < 1) || !(o->alpha > 0 && o->alpha < 0.5) ||
	    !(o->beta > 0 && o->beta < 0.5) || o->min_pairs < SEQ_MIN_PAIRS_LEAST ||
	    o->max_pairs < o->min_pairs || !(o->sd_floor >= 0 && o->sd_floor < 1))
		return -EINVAL;
	return 0;
}

void seq_bounds(const struct seq_opts *o, double *lower, double *upper)
{
	/* each one-sided test at alpha/2 (Wald's approximations) */
	*lower = log(o->beta / (1.0 - o->alpha / 2.0));
	*upper = log((1.0 - o->beta) / (o->alpha / 2.0));
}

double seq_delta(const struct seq_opts *o)
{
	return log1p(o->effect);
}

double seq_sd_floor(const struct seq_opts *o)
{
	return o->sd_floor > 0 ? o->sd_floor : SEQ_SD_FLOOR_OF_EFFECT * seq_delta(o);
}

/* Inserts x into the sorted s[0..n-1] (room for one more). */
static void sorted_insert(double *s, size_t n, double x)
{
	size_t i = n;

	while (i > 0 && s[i - 1] > x) {
		s[i] = s[i - 1];
		i--;
	}
	s[i] = x;
}

static double median_of_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

/*
 * A variance from few pairs is often much too small by chance (from three
 * pairs, under a tenth of the true one one time in ten), and a plug-in LLR
 * over-trusts it: the test would stop early and wrongly. So the variance
 * the test believes is an upper confidence bound: s^2 (k-1) / chi2_{k-1}
 * at its SEQ_VAR_QUANTILE quantile (Wilson and Hilferty's approximation of
 * the chi-square quantile, 1931), which fades to s^2 as pairs come.
 */
static double var_inflation(size_t k)
{
	double nu = (double)(k > 1 ? k - 1 : 1), z = stats_normal_isf(1.0 - SEQ_VAR_QUANTILE),
	       c = 1.0 - 2.0 / (9.0 * nu) + z * sqrt(2.0 / (9.0 * nu));

	if (c < 0.05)
		c = 0.05;
	return nu / (nu * c * c * c);
}

/*
 * The location and scale of d[0..k-1] that the test uses: the values
 * winsorised by SEQ_WINSOR_FRACTION at each end (the g = floor(fk)
 * lowest become the next lowest, the g highest the next highest), their
 * mean, and their sample variance over (1 - 2g/k)^2, which is Tukey and
 * McLaughlin's (1963) standard error of a trimmed mean put back on one
 * pair's scale. A fixed fraction, not a cut at so many robust standard
 * deviations: a scale from the MAD or the IQR collapses when most pairs
 * sit in one group (a machine with two states), and cutting at it pulls
 * the other group in and makes a difference of nothing (a simulated A/A
 * of +-10% pairs said DIFFERENT 44% of the time that way). Under H0 the
 * pairs are symmetric about 0 (counterbalanced), so a symmetric cut biases
 * nothing. Then the variance is inflated for few pairs and floored.
 * scratch has room for k values; sorted holds d[0..k-1] in order.
 */
static void robust_moments(const double *d, const double *sorted, size_t k, double floor_sd,
			   double *scratch, double *mean, double *var)
{
	size_t g = (size_t)(SEQ_WINSOR_FRACTION * (double)k);
	double lo = sorted[g], hi = sorted[k - 1 - g], kept = 1.0 - 2.0 * (double)g / (double)k;
	double sum = 0, ss = 0;

	for (size_t i = 0; i < k; i++)
		sum += scratch[i] = d[i] < lo ? lo : d[i] > hi ? hi : d[i];
	*mean = sum / (double)k;
	for (size_t i = 0; i < k; i++)
		ss += (scratch[i] - *mean) * (scratch[i] - *mean);
	*var = k > 1 ? ss / (double)(k - 1) / (kept * kept) : 0;
	*var = *var * var_inflation(k) + floor_sd * floor_sd;
}

/* Robbins' normal-mixture boundary for a mean after k pairs with the
 * scale sd, two-sided at level alpha, tightest near k = SEQ_CS_PAIRS:
 * |mean - mu| < half. Howard et al. 2021, eq. (14), with rho = sd^2 m. */
static double cs_half_width(double sd, size_t k, double alpha)
{
	double n = (double)k, m = SEQ_CS_PAIRS;

	return sd * sqrt((n + m) * log((n + m) / (m * alpha * alpha))) / n;
}

int seq_run(const double *d, size_t n, const struct seq_opts *o, struct seq_result *out)
{
	double delta, floor_sd, lower, upper, mean = 0, var = 0, llr = 0, *sorted, *scratch;
	struct seq_result r = { .verdict = VERDICT_UNKNOWN, .sign = 0 };
	size_t k;

	if (seq_opts_check(o) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	delta = seq_delta(o);
	floor_sd = seq_sd_floor(o);
	seq_bounds(o, &lower, &upper);
	if (n > o->max_pairs)
		n = o->max_pairs;
	sorted = zalloc(sizeof(*sorted) * (n + 1));
	scratch = zalloc(sizeof(*scratch) * (n + 1));
	for (k = 1; k <= n; k++) {
		sorted_insert(sorted, k - 1, d[k - 1]);
		robust_moments(d, sorted, k, floor_sd, scratch, &mean, &var);
		/* the larger of the two one-sided LLRs: +delta and -delta against 0 */
		llr = (delta * fabs(mean) - delta * delta / 2.0) * (double)k / var;
		if (k < o->min_pairs)
			continue;
		if (llr >= upper) {
			r.verdict = VERDICT_DIFFERENT;
			break;
		}
		if (llr <= lower) {
			r.verdict = VERDICT_SAME;
			break;
		}
	}
	if (k > n)
		k = n;
	r.pairs = k;
	r.done = r.verdict != VERDICT_UNKNOWN || k == o->max_pairs;
	r.llr = k ? llr : 0;
	r.lower = lower;
	r.upper = upper;
	r.sd = k ? sqrt(var) : NAN;
	r.log_estimate = k ? mean : NAN;
	r.sign = mean > 0 ? 1 : mean < 0 ? -1 : 0;
	if (k > 0) {
		double h = cs_half_width(r.sd, k, o->alpha);

		r.log_ci_lo = mean - h;
		r.log_ci_hi = mean + h;
	} else {
		r.log_ci_lo = r.log_ci_hi = NAN;
	}
	r.estimate = exp(r.log_estimate);
	r.ci_lo = exp(r.log_ci_lo);
	r.ci_hi = exp(r.log_ci_hi);
	free(sorted);
	free(scratch);
	*out = r;
	return 0;
}

/* One pair's log-ratio from the noise model. */
static double seq_sim_draw(const struct seq_sim *s, struct stats_rng *rng)
{
	double z = stats_rng_normal(rng), chi2 = 0, d;

	switch (s->noise) {
	case SEQ_NOISE_T3:
		for (int i = 0; i < 3; i++) {
			double u = stats_rng_normal(rng);

			chi2 += u * u;
		}
		/* t3 = Z / sqrt(chi2_3 / 3) has variance 3 */
		return s->mu + s->sd / sqrt(3.0) * z / sqrt(chi2 / 3.0);
	case SEQ_NOISE_OUTLIERS:
		d = s->mu + s->sd * z;
		/* a slow B lowers B/A, a slow A raises it */
		if ((double)(stats_rng_next(rng) >> 11) / 9007199254740992.0 < s->outlier_p)
			d += log(0.7);
		if ((double)(stats_rng_next(rng) >> 11) / 9007199254740992.0 < s->outlier_p)
			d -= log(0.7);
		return d;
	case SEQ_NOISE_BIMODAL:
		/* a machine in one of two states per pair: B/A is up or down
		 * by sd (as often), blurred by a tenth of that */
		d = (stats_rng_next(rng) >> 63) ? s->sd : -s->sd;
		return s->mu + d + 0.1 * s->sd * z;
	case SEQ_NOISE_NORMAL:
	default:
		return s->mu + s->sd * z;
	}
}

int seq_simulate(const struct seq_opts *o, const struct seq_sim *s, struct seq_sim_result *out)
{
	struct seq_sim_result r = { .sequences = s->sequences };
	struct stats_rng rng;
	double *d, *pairs, sum = 0;

	if (seq_opts_check(o) < 0 || s->sequences == 0 || !(s->sd >= 0))
		return -EINVAL;
	stats_rng_init(&rng, s->seed);
	d = zalloc(sizeof(*d) * o->max_pairs);
	pairs = zalloc(sizeof(*pairs) * s->sequences);
	for (unsigned q = 0; q < s->sequences; q++) {
		struct seq_result res;

		for (size_t i = 0; i < o->max_pairs; i++)
			d[i] = seq_sim_draw(s, &rng);
		seq_run(d, o->max_pairs, o, &res);
		if (res.verdict == VERDICT_SAME)
			r.same++;
		else if (res.verdict == VERDICT_UNKNOWN)
			r.unknown++;
		else if (res.sign > 0)
			r.faster++;
		else
			r.slower++;
		if (res.log_ci_lo <= s->mu && s->mu <= res.log_ci_hi)
			r.covered++;
		pairs[q] = (double)res.pairs;
		sum += pairs[q];
	}
	r.mean_pairs = sum / s->sequences;
	qsort(pairs, s->sequences, sizeof(*pairs), cmp_double);
	r.median_pairs = median_of_sorted(pairs, s->sequences);
	r.p90_pairs = stats_quantile_sorted(pairs, s->sequences, 0.9);
	free(d);
	free(pairs);
	*out = r;
	return 0;
}
