/*
 * Two-sample statistics for hitchbench compare (see stats.h for what each
 * function computes and whose definition it follows). Written from the
 * published definitions; the unit tests hold reference values computed
 * once with scipy.
 */
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void stats_rng_init(struct stats_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t stats_rng_next(struct stats_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

size_t stats_rng_below(struct stats_rng *rng, size_t n)
{
	/* reject the top partial copy of [0, n) so every value is as likely */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = stats_rng_next(rng);
	while (x >= limit);
	return (size_t)(x % n);
}

static double rng_unit_open(struct stats_rng *rng)
{
	/* 53 random bits, shifted off zero: (0, 1) */
	return ((double)(stats_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

double stats_rng_normal(struct stats_rng *rng)
{
	double u1 = rng_unit_open(rng), u2 = rng_unit_open(rng);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = zalloc(sizeof(*s) * (n ? n : 1));

	memcpy(s, v, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

/* Reorders v[0..n) so that v[k] is what it would be sorted, with none
 * greater before it and none smaller after (Hoare's FIND, the pivot the
 * median of three). Linear on average. */
static void select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (hi > lo) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi], t;
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i > j)
				break;
			t = v[i], v[i] = v[j], v[j] = t;
			i++;
			if (j == 0)
				break;
			j--;
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;         /* between: equal to the pivot */
	}
}

/* median_sorted() of v[0..n) sorted, without sorting it (v is
 * reordered): the bootstrap takes the median of every resample. */
static double median_select(double *v, size_t n)
{
	size_t k = n / 2;
	double below;

	select_kth(v, n, k);
	if (n % 2)
		return v[k];
	below = v[0];
	for (size_t i = 1; i < k; i++)
		if (v[i] > below)
			below = v[i];
	return (below + v[k]) / 2.0;
}

double stats_median(const double *v, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	s = sorted_copy(v, n);
	m = median_sorted(s, n);
	free(s);
	return m;
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (n == 0)
		return NAN;
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

double stats_normal_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* Acklam's algorithm for the normal quantile (P. J. Acklam, "An algorithm
 * for computing the inverse normal cumulative distribution function",
 * 2003): rational approximations in a central and two tail regions. */
double stats_normal_isf(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00 };
	double q = 1.0 - p, x, r;   /* the lower-tail probability */

	if (q <= 0.0)
		return -INFINITY;
	if (q >= 1.0)
		return INFINITY;
	if (q < 0.02425) {
		r = sqrt(-2.0 * log(q));
		x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0);
	} else if (q <= 1.0 - 0.02425) {
		double s = q - 0.5;

		r = s * s;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * s /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
	} else {
		r = sqrt(-2.0 * log(1.0 - q));
		x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0);
	}
	return x;
}

int stats_bootstrap_median_diff(const double *a, size_t na, const double *b, size_t nb,
				const struct stats_bootstrap *opts, double *lo, double *hi)
{
	struct stats_rng rng;
	double *diffs, *ra, *rb;

	if (na == 0 || nb == 0 || opts->resamples == 0 || !(opts->confidence > 0.0) ||
	    !(opts->confidence < 1.0))
		return -EINVAL;
	stats_rng_init(&rng, opts->seed);
	diffs = zalloc(sizeof(*diffs) * opts->resamples);
	ra = zalloc(sizeof(*ra) * na);
	rb = zalloc(sizeof(*rb) * nb);
	for (unsigned r = 0; r < opts->resamples; r++) {
		for (size_t i = 0; i < na; i++)
			ra[i] = a[stats_rng_below(&rng, na)];
		for (size_t i = 0; i < nb; i++)
			rb[i] = b[stats_rng_below(&rng, nb)];
		diffs[r] = median_select(rb, nb) - median_select(ra, na);
	}
	qsort(diffs, opts->resamples, sizeof(*diffs), cmp_double);
	*lo = stats_quantile_sorted(diffs, opts->resamples, (1.0 - opts->confidence) / 2.0);
	*hi = stats_quantile_sorted(diffs, opts->resamples, (1.0 + opts->confidence) / 2.0);
	free(diffs);
	free(ra);
	free(rb);
	return 0;
}

const char *stats_pmethod_name(enum stats_pmethod m)
{
	return m == STATS_EXACT ? "exact" : "asymptotic";
}

/*
 * The null distribution of U for samples of m and n untied values, as
 * probabilities: P(U = u), u = 0..mn. Mann and Whitney's recursion, with
 * the largest of the m + n values either from the first sample (then it
 * beats all n of the other: U - n remains for the rest) or from the
 * second:
 *   P(m, n, u) = m/(m+n) P(m-1, n, u-n) + n/(m+n) P(m, n-1, u)
 * rolled over n so only m + 1 distributions are kept. Caller frees.
 */
static double *mwu_null(size_t m, size_t n)
{
	size_t width = m * n + 1;
	double *t = zalloc(sizeof(*t) * (m + 1) * width);   /* t[i]: P(i, j, .) */
	double *out;

	/* j = 0: U is 0 whatever i is */
	for (size_t i = 0; i <= m; i++)
		t[i * width] = 1.0;
	for (size_t j = 1; j <= n; j++) {
		/* i = 0: still U = 0. Going up in i uses the new row i-1
		 * (same j) and the old row i (j-1), so update in place
		 * from i = 1 upwards. */
		for (size_t i = 1; i <= m; i++) {
			double *row = t + i * width, *prev = t + (i - 1) * width;
			double wa = (double)i / (double)(i + j), wb = (double)j / (double)(i + j);

			for (size_t u = i * j + 1; u-- > 0;) {
				double v = wb * row[u];

				if (u >= j)
					v += wa * prev[u - j];
				row[u] = v;
			}
		}
	}
	out = zalloc(sizeof(*out) * width);
	memcpy(out, t + m * width, sizeof(*out) * width);
	free(t);
	return out;
}

/* U of a (pairs a > b, ties one half) and the tie term sum(t^3 - t) of the
 * pooled ranks; 0 when there are no ties. */
static void mwu_u(const double *a, size_t na, const double *b, size_t nb, double *u,
		  double *tie_term)
{
	size_t n = na + nb;
	struct tagged { double v; int from_a; } *p = zalloc(sizeof(*p) * n);
	double rank_sum_a = 0.0, ties = 0.0;

	for (size_t i = 0; i < na; i++)
		p[i] = (struct tagged){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		p[na + i] = (struct tagged){ b[i], 0 };
	qsort(p, n, sizeof(*p), cmp_double);   /* v is the first member */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double mid;

		while (j < n && p[j].v == p[i].v)
			j++;
		mid = (double)(i + 1 + j) / 2.0;   /* the mean of ranks i+1..j */
		for (size_t k = i; k < j; k++)
			if (p[k].from_a)
				rank_sum_a += mid;
		ties += (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
		i = j;
	}
	free(p);
	*u = rank_sum_a - (double)na * (double)(na + 1) / 2.0;
	*tie_term = ties;
}

/* The exact two-sided p-value from a null distribution: twice the upper
 * tail at the larger of U and its mirror. */
static double mwu_exact_p(const double *null, size_t na, size_t nb, double u)
{
	double big = fmax(u, (double)na * (double)nb - u), tail = 0.0;

	for (size_t k = (size_t)ceil(big); k <= na * nb; k++)
		tail += null[k];
	return fmin(1.0, 2.0 * tail);
}

static double mwu_asymptotic_p(size_t na, size_t nb, double u, double tie_term)
{
	double n = (double)(na + nb), mu = (double)na * (double)nb / 2.0;
	double var = (double)na * (double)nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
	double big = fmax(u, (double)na * (double)nb - u), z;

	if (!(var > 0.0))
		return 1.0;   /* every value the same */
	z = (big - mu - 0.5) / sqrt(var);
	return fmin(1.0, 2.0 * stats_normal_sf(z));
}

/* null: the exact distribution for (na, nb) when the caller has it. */
static void mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			 const double *null, struct stats_test *out)
{
	double u, tie_term;

	mwu_u(a, na, b, nb, &u, &tie_term);
	out->statistic = u;
	if (tie_term == 0.0 && na <= STATS_MWU_EXACT_MAX && nb <= STATS_MWU_EXACT_MAX) {
		double *own = null ? NULL : mwu_null(na, nb);

		out->p = mwu_exact_p(null ? null : own, na, nb, u);
		out->method = STATS_EXACT;
		free(own);
	} else {
		out->p = mwu_asymptotic_p(na, nb, u, tie_term);
		out->method = STATS_ASYMPTOTIC;
	}
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_test *out)
{
	if (na == 0 || nb == 0)
		return -EINVAL;
	mann_whitney(a, na, b, nb, NULL, out);
	return 0;
}

/* Kolmogorov's limiting distribution, P(K > x) = 2 sum (-1)^(k-1) exp(-2 k^2 x^2). */
static double kolmogorov_sf(double x)
{
	double sum = 0.0;

	if (x < 0.2)
		return 1.0;
	for (int k = 1; k <= 100; k++) {
		double term = exp(-2.0 * k * k * x * x);

		sum += (k % 2 ? 1.0 : -1.0) * term;
		if (term < 1e-17)
			break;
	}
	return fmin(1.0, fmax(0.0, 2.0 * sum));
}

/*
 * P(D >= d) for samples of na and nb with every ordering of the pooled
 * values equally likely. A path from (0, 0) to (na, nb) takes one step in
 * i for each value of a and in j for each of b; D * na * nb is the largest
 * |i nb - j na| on it. The probability of each step is the chance that the
 * next value comes from that sample; mass that reaches a point at distance
 * >= dn (= d na nb, an integer) leaves and is what is returned.
 */
static double ks_exact_p(size_t na, size_t nb, long long dn)
{
	/* cur[j]: the mass at (i - 1, j) still inside, replaced in place by
	 * the mass at (i, j) as j goes up */
	double *cur = zalloc(sizeof(*cur) * (nb + 1)), out = 0.0;

	for (size_t i = 0; i <= na; i++) {
		for (size_t j = 0; j <= nb; j++) {
			long long dist = llabs((long long)i * (long long)nb - (long long)j * (long long)na);
			double m = 0.0;

			if (i == 0 && j == 0) {
				cur[0] = 1.0;
				continue;
			}
			if (i > 0)   /* from (i-1, j): the next value is a's */
				m += cur[j] * (double)(na - (i - 1)) / (double)(na + nb - (i - 1) - j);
			if (j > 0)   /* from (i, j-1): the next value is b's */
				m += cur[j - 1] * (double)(nb - (j - 1)) / (double)(na + nb - i - (j - 1));
			if (dist >= dn) {
				out += m;
				m = 0.0;
			}
			cur[j] = m;
		}
	}
	free(cur);
	return fmin(1.0, out);
}

int stats_kolmogorov_smirnov(const double *a, size_t na, const double *b, size_t nb,
			     struct stats_test *out)
{
	double *sa, *sb;
	long long dn = 0;
	size_t i = 0, j = 0;

	if (na == 0 || nb == 0)
		return -EINVAL;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	/* walk the pooled values in order; the distance counts after each
	 * group of equal values */
	while (i < na || j < nb) {
		double v = i < na && (j >= nb || sa[i] <= sb[j]) ? sa[i] : sb[j];
		long long d;

		while (i < na && sa[i] == v)
			i++;
		while (j < nb && sb[j] == v)
			j++;
		d = llabs((long long)i * (long long)nb - (long long)j * (long long)na);
		if (d > dn)
			dn = d;
	}
	free(sa);
	free(sb);
	out->statistic = (double)dn / ((double)na * (double)nb);
	if ((double)na * (double)nb <= STATS_KS_EXACT_MAX_CELLS) {
		out->p = ks_exact_p(na, nb, dn);
		out->method = STATS_EXACT;
	} else {
		double en = (double)na * (double)nb / (double)(na + nb);

		out->p = kolmogorov_sf(sqrt(en) * out->statistic);
		out->method = STATS_ASYMPTOTIC;
	}
	return 0;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return "SAME";
	case VERDICT_DIFFERENT:
		return "DIFFERENT";
	default:
		return "UNKNOWN";
	}
}

/* The normal's interquartile range in standard deviations: 2 z(0.75). */
#define NORMAL_IQR 1.3489795003921634

/* The thresholds simulated so far in this thread: a deterministic
 * function of its arguments, asked again and again with the same ones (a
 * comparison's crossing search; the lab's site draws a report per batch,
 * and batches have the same few sizes), so each is simulated once. */
#define HIGH_MEMO 64
struct high_memo {
	size_t n;
	double magnitude;
	unsigned simulations;
	uint64_t seed;
	double t;
};
static __thread struct high_memo high_memo[HIGH_MEMO];
static __thread size_t high_memo_n, high_memo_next;

double stats_high_threshold(size_t n, double magnitude, unsigned simulations, uint64_t seed)
{
	struct stats_rng rng;
	double *a, *b, *p, *null = NULL, shift = magnitude * NORMAL_IQR, t;

	if (n == 0 || simulations == 0)
		return 1.0;
	for (size_t i = 0; i < high_memo_n; i++)
		if (high_memo[i].n == n && high_memo[i].magnitude == magnitude &&
		    high_memo[i].simulations == simulations && high_memo[i].seed == seed)
			return high_memo[i].t;
	stats_rng_init(&rng, seed ^ (uint64_t)n);
	a = zalloc(sizeof(*a) * n);
	b = zalloc(sizeof(*b) * n);
	p = zalloc(sizeof(*p) * simulations);
	/* continuous samples have no ties: the exact distribution, once */
	if (n <= STATS_MWU_EXACT_MAX)
		null = mwu_null(n, n);
	for (unsigned s = 0; s < simulations; s++) {
		struct stats_test r;

		for (size_t i = 0; i < n; i++) {
			a[i] = stats_rng_normal(&rng);
			b[i] = stats_rng_normal(&rng) + shift;
		}
		mann_whitney(a, n, b, n, null, &r);
		p[s] = r.p;
	}
	qsort(p, simulations, sizeof(*p), cmp_double);
	t = stats_quantile_sorted(p, simulations, 0.99);
	free(null);
	free(a);
	free(b);
	free(p);
	high_memo[high_memo_next] = (struct high_memo){ n, magnitude, simulations, seed, t };
	high_memo_next = (high_memo_next + 1) % HIGH_MEMO;
	if (high_memo_n < HIGH_MEMO)
		high_memo_n++;
	return t;
}

/* The rounds at which the high threshold first reaches the low one: the
 * threshold falls with n (not strictly: exact p-values move in steps), so
 * a doubling search then a bisection; SIZE_MAX beyond max. */
static size_t crossing_rounds(size_t from, const struct stats_compare_opts *o)
{
	size_t lo = from, hi = from ? from : 1;

	while (stats_high_threshold(hi, o->magnitude, o->simulations, o->seed) > STATS_LOW_THRESHOLD) {
		if (hi >= o->max_rounds)
			return SIZE_MAX;
		lo = hi;
		hi = hi * 2 > o->max_rounds ? o->max_rounds : hi * 2;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (stats_high_threshold(mid, o->magnitude, o->simulations, o->seed) > STATS_LOW_THRESHOLD)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

/* Noether (1987), "Sample size determination for some common
 * nonparametric tests", JASA 82: the total N for the Wilcoxon-Mann-Whitney
 * test at two-sided level alpha and power 1 - beta, equal groups, is
 * (z(alpha/2) + z(beta))^2 / (3 (p - 1/2)^2); each side gets half. */
static size_t noether_rounds(double p_b_over_a, size_t max)
{
	double za = stats_normal_isf(STATS_LOW_THRESHOLD / 2.0), zb = stats_normal_isf(0.2);
	double e = p_b_over_a - 0.5, per_side;

	if (fabs(e) < 1e-12)
		return SIZE_MAX;
	per_side = ceil((za + zb) * (za + zb) / (3.0 * e * e) / 2.0);
	return per_side > (double)max ? SIZE_MAX : (size_t)per_side;
}

int stats_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct stats_compare_opts *opts, struct stats_comparison *out)
{
	struct stats_comparison c;
	int ret;

	if (na == 0 || nb == 0 || !(opts->magnitude > 0.0) || opts->simulations == 0)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.na = na;
	c.nb = nb;
	c.median_a = stats_median(a, na);
	c.median_b = stats_median(b, nb);
	c.ratio = c.median_a != 0.0 ? c.median_b / c.median_a : NAN;
	ret = stats_bootstrap_median_diff(a, na, b, nb, &opts->bootstrap, &c.ci_lo, &c.ci_hi);
	if (ret < 0)
		return ret;
	stats_mann_whitney(a, na, b, nb, &c.mwu);
	stats_kolmogorov_smirnov(a, na, b, nb, &c.ks);
	c.p = fmin(c.mwu.p, c.ks.p);
	c.n = na < nb ? na : nb;
	c.low_threshold = STATS_LOW_THRESHOLD;
	c.high_threshold = stats_high_threshold(c.n, opts->magnitude, opts->simulations, opts->seed);
	if (c.p <= c.low_threshold)
		c.verdict = VERDICT_DIFFERENT;
	else if (c.p > c.high_threshold)
		c.verdict = VERDICT_SAME;
	else
		c.verdict = VERDICT_UNKNOWN;
	if (c.verdict == VERDICT_UNKNOWN) {
		double p_b_over_a = 1.0 - c.mwu.statistic / ((double)na * (double)nb);
		size_t noether = noether_rounds(p_b_over_a, opts->max_rounds);
		size_t cross = crossing_rounds(c.n, opts);

		c.rounds_noether = noether == SIZE_MAX ? SIZE_MAX : noether > c.n ? noether - c.n : 1;
		c.rounds_crossing = cross == SIZE_MAX ? SIZE_MAX : cross > c.n ? cross - c.n : 1;
		c.rounds_needed = c.rounds_noether < c.rounds_crossing ? c.rounds_noether : c.rounds_crossing;
	}
	*out = c;
	return 0;
}

/* A pre-release suffix ("-rc1") after the release's numbers. */
static const char *rc_suffix(const char *v)
{
	const char *dash = strchr(v, '-');

	return dash && !strncmp(dash, "-rc", 3) ? dash : NULL;
}

int stats_version_cmp(const char *a, const char *b)
{
	const char *ra = rc_suffix(a), *rb = rc_suffix(b);
	size_t la = ra ? (size_t)(ra - a) : strcspn(a, "-"), lb = rb ? (size_t)(rb - b) : strcspn(b, "-");

	/* same release numbers, one a release candidate: it comes first */
	if (la == lb && !strncmp(a, b, la) && (!ra) != (!rb))
		return ra ? -1 : 1;
	return strverscmp(a, b);
}
