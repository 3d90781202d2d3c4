/*
 * A flip run's statistics (flip.h; docs/metrics.md "Flip").
 */
#include "stats/flip.h"
#include "stats/stats.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* w of segments a and b (adjacent, one of each side): ln(fps B / fps A). */
static double seg_w(const struct flip_seg *x, const struct flip_seg *y)
{
	const struct flip_seg *a = x->side == 'A' ? x : y, *b = x->side == 'A' ? y : x;

	return a->log_ft - b->log_ft;
}

static bool adjacent(const struct flip_seg *x, const struct flip_seg *y)
{
	return x->counted && y->counted && x->pass == y->pass && y->seg == x->seg + 1 &&
	       x->side != y->side;
}

/* The within-pass w of pass p at segment k, from segs[lo..hi) (one pass's
 * segments in order): true and *w when both segments are counted. */
static bool pass_w(const struct flip_seg *segs, size_t lo, size_t hi, int k, double *w)
{
	for (size_t i = lo; i + 1 < hi; i++)
		if (segs[i].seg == k) {
			if (!adjacent(&segs[i], &segs[i + 1]))
				return false;
			*w = seg_w(&segs[i], &segs[i + 1]);
			return true;
		}
	return false;
}

size_t flip_pairs(const struct flip_seg *segs, size_t n, bool passes, struct flip_pair *out)
{
	size_t m = 0, i = 0;

	if (!passes) {
		for (size_t j = 0; j + 1 < n; j++)
			if (segs[j].seg % 2 == 0 && adjacent(&segs[j], &segs[j + 1]))
				out[m++] = (struct flip_pair){ .pass = segs[j].pass, .seg = segs[j].seg,
							       .d = seg_w(&segs[j], &segs[j + 1]) };
		return m;
	}
	/* passes in turn: [i, j) one pass, [j, k) the next */
	while (i < n) {
		size_t j = i, k;
		int p = segs[i].pass, q;
		char first_p, first_q;

		while (j < n && segs[j].pass == p)
			j++;
		if (j == n)
			break;
		q = segs[j].pass;
		for (k = j; k < n && segs[k].pass == q;)
			k++;
		/* the orders must differ: the side of the same segment index */
		first_p = (segs[i].side == 'A') == (segs[i].seg % 2 == 0) ? 'A' : 'B';
		first_q = (segs[j].side == 'A') == (segs[j].seg % 2 == 0) ? 'A' : 'B';
		if (first_p == first_q) {
			i = j; /* not a crossover: the later pass may pair with the next */
			continue;
		}
		for (size_t x = j; x + 1 < k; x++) {
			double wp, wq;
			int kk = segs[x].seg;

			if (!adjacent(&segs[x], &segs[x + 1]) || !pass_w(segs, i, j, kk, &wp))
				continue;
			wq = seg_w(&segs[x], &segs[x + 1]);
			out[m++] = (struct flip_pair){ .pass = p, .pass2 = q, .seg = kk, .d = (wp + wq) / 2 };
		}
		i = k;
	}
	return m;
}

bool flip_seg_paired(const struct flip_seg *g, const struct flip_pair *pairs, size_t n_pairs)
{
	for (size_t i = 0; i < n_pairs; i++)
		if ((g->pass == pairs[i].pass || g->pass == pairs[i].pass2) &&
		    (g->seg == pairs[i].seg || g->seg == pairs[i].seg + 1))
			return true;
	return false;
}

void flip_mean_se(const double *x, size_t n, double *mean, double *se)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*se = n > 1 ? sqrt(ss / (double)(n - 1) / (double)n) : NAN;
}

double flip_lag1(const double *x, size_t n)
{
	double mean = 0, num = 0, den = 0;

	if (n < 3)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		den += (x[i] - mean) * (x[i] - mean);
		if (i + 1 < n)
			num += (x[i] - mean) * (x[i + 1] - mean);
	}
	return den > 0 ? num / den : 0;
}

size_t flip_block_means(const double *d, size_t n, size_t size, double *out)
{
	size_t m = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i + size <= n; i += size) {
		double s = 0;

		for (size_t j = 0; j < size; j++)
			s += d[i + j];
		out[m++] = s / (double)size;
	}
	return m;
}

size_t flip_block_size(const double *d, size_t n, double *r1)
{
	double *b = zalloc(sizeof(*b) * (n ? n : 1)), r = flip_lag1(d, n);
	size_t size = 1;

	for (size_t s = 2; fabs(r) > FLIP_BLOCK_R1 && n / s >= FLIP_BLOCKS_LEAST; s *= 2) {
		size_t m = flip_block_means(d, n, s, b);

		size = s;
		r = flip_lag1(b, m);
	}
	free(b);
	if (r1)
		*r1 = r;
	return size;
}

/* One simulated flip run's block means appended to *blocks. */
static void sim_run(const struct flip_sim *s, struct stats_rng *rng, double *drift, double *ar,
		    const double *content, double **blocks, size_t *nb, size_t *alloc)
{
	size_t n = (size_t)s->passes * (size_t)s->segments, np, bs, m;
	struct flip_seg *segs = zalloc(sizeof(*segs) * n);
	struct flip_pair *pairs = zalloc(sizeof(*pairs) * n);
	double *d = zalloc(sizeof(*d) * n), carry = 0;
	double innov = s->noise_sd * sqrt(1 - s->ar * s->ar);

	for (int p = 0; p < s->passes; p++)
		for (int k = 0; k < s->segments; k++) {
			struct flip_seg *g = &segs[(size_t)p * (size_t)s->segments + (size_t)k];
			bool b_side;
			double x;

			g->pass = p + 1;
			g->seg = k;
			g->side = ((p + 1 + k) % 2 == 1) ? 'A' : 'B';
			b_side = g->side == 'B';
			*drift += s->drift_sd * stats_rng_normal(rng);
			*ar = s->ar * *ar + innov * stats_rng_normal(rng);
			/* a slower B: a longer frame time; lag of it acts a segment late */
			x = *drift + content[k] + *ar + carry;
			carry = 0;
			if (b_side) {
				x += -s->mu * (1 - s->lag);
				carry = -s->mu * s->lag;
			}
			g->log_ft = x;
			g->counted = true;
			g->frames = 100;
		}
	np = flip_pairs(segs, n, true, pairs);
	for (size_t i = 0; i < np; i++)
		d[i] = pairs[i].d;
	bs = flip_block_size(d, np, NULL);
	if (*nb + np >= *alloc) {
		*alloc = (*nb + np) * 2;
		*blocks = xrealloc(*blocks, sizeof(**blocks) * *alloc);
	}
	m = flip_block_means(d, np, bs, *blocks + *nb);
	*nb += m;
	free(segs);
	free(pairs);
	free(d);
}

int flip_simulate(const struct seq_opts *o, const struct flip_sim *s, struct seq_sim_result *out)
{
	struct seq_sim_result r = { .sequences = s->sequences };
	struct stats_rng rng;
	double *content, *used, sum = 0;

	if (seq_opts_check(o) < 0 || s->sequences == 0 || s->passes < 2 || s->segments < 2 ||
	    s->max_runs < 1 || !(s->ar > -1 && s->ar < 1) || !(s->lag >= 0 && s->lag <= 1) ||
	    !(s->drift_sd >= 0 && s->content_sd >= 0 && s->noise_sd >= 0))
		return -EINVAL;
	stats_rng_init(&rng, s->seed);
	content = zalloc(sizeof(*content) * (size_t)s->segments);
	used = zalloc(sizeof(*used) * s->sequences);
	for (unsigned q = 0; q < s->sequences; q++) {
		struct seq_result res = { 0 };
		double *blocks = NULL, drift = 0, ar = 0;
		size_t nb = 0, alloc = 0;

		for (int k = 0; k < s->segments; k++)
			content[k] = s->content_sd * stats_rng_normal(&rng);
		for (int run = 0; run < s->max_runs; run++) {
			sim_run(s, &rng, &drift, &ar, content, &blocks, &nb, &alloc);
			if (nb >= 2 && seq_run(blocks, nb, o, &res) == 0 && res.done)
				break;
		}
		if (res.verdict == VERDICT_SAME)
			r.same++;
		else if (res.verdict == VERDICT_DIFFERENT && res.sign > 0)
			r.faster++;
		else if (res.verdict == VERDICT_DIFFERENT)
			r.slower++;
		else
			r.unknown++;
		if (res.log_ci_lo <= s->mu && s->mu <= res.log_ci_hi)
			r.covered++;
		used[q] = (double)res.pairs;
		sum += used[q];
		free(blocks);
	}
	r.mean_pairs = sum / s->sequences;
	qsort(used, s->sequences, sizeof(*used), cmp_double);
	r.median_pairs = stats_quantile_sorted(used, s->sequences, 0.5);
	r.p90_pairs = stats_quantile_sorted(used, s->sequences, 0.9);
	free(content);
	free(used);
	*out = r;
	return 0;
}
