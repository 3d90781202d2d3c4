/*
 * E-divisive change points (changepoint.h), written from Matteson and
 * James (2014), section 2 (the statistic and the hierarchical bisection)
 * and section 3 (the permutation test).
 */
#include "stats/changepoint.h"
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Prefix sums of the distance matrix |x_i - x_j|^a: s[i][j] is the sum
 * over rows < i and columns < j, so any block sum is four lookups. */
struct energy {
	size_t n;
	double *s;                /* (n + 1)^2 */
};

static void energy_fill(struct energy *e, const double *x, double exponent)
{
	size_t w = e->n + 1;

	for (size_t i = 0; i <= e->n; i++)
		e->s[i * w] = e->s[i] = 0.0;
	for (size_t i = 1; i <= e->n; i++)
		for (size_t j = 1; j <= e->n; j++) {
			double d = fabs(x[i - 1] - x[j - 1]);

			if (exponent != 1.0)
				d = pow(d, exponent);
			e->s[i * w + j] = d + e->s[(i - 1) * w + j] + e->s[i * w + j - 1] -
					  e->s[(i - 1) * w + j - 1];
		}
}

static double block(const struct energy *e, size_t r0, size_t r1, size_t c0, size_t c1)
{
	size_t w = e->n + 1;

	return e->s[r1 * w + c1] - e->s[r0 * w + c1] - e->s[r1 * w + c0] + e->s[r0 * w + c0];
}

struct split {
	size_t tau, kappa;
	double q;
	bool found;
};

static bool allowed(const bool *may_split, size_t i, size_t end)
{
	return i == end || !may_split || may_split[i];
}

/* The best split of segment [s, e). */
static struct split best_split(const struct energy *en, size_t s, size_t e, const bool *may_split,
			       size_t min_size)
{
	struct split best = { 0, 0, -INFINITY, false };

	for (size_t tau = s + min_size; tau + min_size <= e; tau++) {
		double m = (double)(tau - s), wx;

		if (!allowed(may_split, tau, e))
			continue;
		/* each unordered pair twice in the block */
		wx = block(en, s, tau, s, tau) / 2.0;
		for (size_t kappa = tau + min_size; kappa <= e; kappa++) {
			double n = (double)(kappa - tau), b, wy, q;

			if (!allowed(may_split, kappa, e))
				continue;
			b = block(en, s, tau, tau, kappa);
			wy = block(en, tau, kappa, tau, kappa) / 2.0;
			q = m * n / (m + n) *
			    (2.0 * b / (m * n) - 2.0 * wx / (m * (m - 1.0)) - 2.0 * wy / (n * (n - 1.0)));
			if (q > best.q) {
				best = (struct split){ tau, kappa, q, true };
			}
		}
	}
	return best;
}

/* The best split over all segments (bounds[0..nb), ascending, 0 and n
 * included). */
static struct split best_of_all(const struct energy *en, const size_t *bounds, size_t nb,
				const bool *may_split, size_t min_size)
{
	struct split best = { 0, 0, -INFINITY, false };

	for (size_t k = 0; k + 1 < nb; k++) {
		struct split sp = best_split(en, bounds[k], bounds[k + 1], may_split, min_size);

		if (sp.found && sp.q > best.q)
			best = sp;
	}
	return best;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

int changepoint_edivisive(const double *x, size_t n, const bool *may_split,
			  const struct changepoint_opts *opts, struct changepoint **out,
			  size_t *nout)
{
	struct energy en = { n, NULL }, perm_en = { n, NULL };
	struct stats_rng rng;
	struct changepoint *cps = NULL;
	size_t *bounds, nbounds = 2, ncps = 0;
	double *shuffled;

	if (!(opts->exponent > 0.0 && opts->exponent < 2.0) || opts->min_size < 2 ||
	    opts->permutations == 0 || !(opts->sig_level > 0.0 && opts->sig_level < 1.0) ||
	    n > CHANGEPOINT_MAX_VALUES)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	stats_rng_init(&rng, opts->seed);
	en.s = zalloc(sizeof(double) * (n + 1) * (n + 1));
	perm_en.s = zalloc(sizeof(double) * (n + 1) * (n + 1));
	shuffled = zalloc(sizeof(double) * (n ? n : 1));
	bounds = zalloc(sizeof(size_t) * (n + 2));
	bounds[0] = 0;
	bounds[1] = n;
	energy_fill(&en, x, opts->exponent);
	for (;;) {
		struct split cand = best_of_all(&en, bounds, nbounds, may_split, opts->min_size);
		unsigned over = 0;
		double p;

		if (!cand.found)
			break;
		for (unsigned r = 0; r < opts->permutations; r++) {
			struct split ps;

			memcpy(shuffled, x, sizeof(double) * n);
			/* Fisher-Yates within each segment */
			for (size_t k = 0; k + 1 < nbounds; k++)
				for (size_t i = bounds[k + 1] - 1; i > bounds[k]; i--) {
					size_t j = bounds[k] + stats_rng_below(&rng, i - bounds[k] + 1);
					double t = shuffled[i];

					shuffled[i] = shuffled[j];
					shuffled[j] = t;
				}
			energy_fill(&perm_en, shuffled, opts->exponent);
			ps = best_of_all(&perm_en, bounds, nbounds, may_split, opts->min_size);
			if (ps.found && ps.q >= cand.q)
				over++;
		}
		p = (double)(over + 1) / (double)(opts->permutations + 1);
		if (p > opts->sig_level)
			break;
		cps = xrealloc(cps, sizeof(*cps) * (ncps + 1));
		cps[ncps++] = (struct changepoint){ .index = cand.tau, .statistic = cand.q, .p = p };
		bounds[nbounds++] = cand.tau;
		qsort(bounds, nbounds, sizeof(*bounds), cmp_size);
	}
	/* in series order, with the medians of the final segments either side */
	for (size_t i = 1; i < ncps; i++)
		for (size_t j = i; j > 0 && cps[j - 1].index > cps[j].index; j--) {
			struct changepoint t = cps[j];

			cps[j] = cps[j - 1];
			cps[j - 1] = t;
		}
	for (size_t i = 0; i < ncps; i++) {
		size_t from = i ? cps[i - 1].index : 0, at = cps[i].index;
		size_t to = i + 1 < ncps ? cps[i + 1].index : n;

		cps[i].median_before = stats_median(x + from, at - from);
		cps[i].median_after = stats_median(x + at, to - at);
		cps[i].magnitude = cps[i].median_after - cps[i].median_before;
	}
	free(en.s);
	free(perm_en.s);
	free(shuffled);
	free(bounds);
	*out = cps;
	*nout = ncps;
	return 0;
}
