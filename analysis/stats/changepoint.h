/*
 * Change points in a series of measurements (hitchbench regress: a
 * metric's runs in kernel version order). E-divisive (Matteson and James
 * 2014, "A nonparametric approach for multiple change point analysis of
 * multivariate data", JASA 109(505)), the method of R's ecp package
 * (e.divisive) and of MongoDB's performance CI:
 *
 *   - For a segment Z[s, e) and a split tau with an end kappa, X = Z[s, tau)
 *     and Y = Z[tau, kappa) are compared by the energy statistic
 *       Q = mn/(m+n) * ( 2/(mn) sum|X_i - Y_j|^a
 *                        - 1/C(m,2) sum_{i<k}|X_i - X_k|^a
 *                        - 1/C(n,2) sum_{j<k}|Y_j - Y_k|^a )
 *     with m = |X|, n = |Y| (both at least min_size) and exponent a in (0, 2).
 *   - The split with the largest Q over every current segment is a
 *     candidate. Its significance is a permutation test: the values are
 *     shuffled within each current segment `permutations` times and the
 *     largest Q found again; p = (#{Q_perm >= Q} + 1) / (permutations + 1).
 *   - A candidate with p <= sig_level becomes a change point and splits its
 *     segment; the search goes on until a candidate is not significant.
 *
 * Defaults as ecp's e.divisive: a = 1, sig_level 0.05, 199 permutations;
 * min_size is ecp's 30 there, 2 here (a regression series has few runs per
 * kernel; 2 is the least the statistic is defined for). Splits may be
 * limited to given positions (the first run of each kernel), and so are
 * the ends kappa. The shuffles come from a seeded generator: the same
 * input and seed give the same answer.
 */
#ifndef HB_CHANGEPOINT_H
#define HB_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct changepoint_opts {
	double exponent;          /* a, in (0, 2); 1 */
	double sig_level;         /* 0.05 */
	unsigned permutations;    /* 199 */
	size_t min_size;          /* >= 2 */
	uint64_t seed;
};
#define CHANGEPOINT_OPTS_DEFAULT { 1.0, 0.05, 199, 2, 0x65646976ULL }

/* At most this many values (the statistic keeps an (n+1)^2 table). */
#define CHANGEPOINT_MAX_VALUES 2000

struct changepoint {
	size_t index;             /* the first value of the new segment */
	double statistic;         /* Q when it was found */
	double p;                 /* its permutation p-value */
	/* the medians of the final segments either side, and after - before */
	double median_before, median_after, magnitude;
};

/* Finds the change points of x[0, n). may_split NULL allows a split
 * before any value; else only before x[i] where may_split[i] is true
 * (may_split[0] is ignored). *out (free()) is sorted by index, written
 * with *nout only on success; none found gives *out NULL, *nout 0.
 * 0, or -EINVAL for bad options, a non-finite value or n over
 * CHANGEPOINT_MAX_VALUES. */
int changepoint_edivisive(const double *x, size_t n, const bool *may_split,
			  const struct changepoint_opts *opts, struct changepoint **out,
			  size_t *nout);

#endif
