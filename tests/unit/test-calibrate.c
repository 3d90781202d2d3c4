/*
 * analysis/stats/calibrate.c: the figures of hitchbench calibrate on synthetic
 * batches of known noise (seeded), where each figure has a value it must
 * come near: the spread that was put in, false-positive rates within
 * their tests' error rates, the minimum detectable effect by its formula,
 * and a known effect found.
 */
#include "stats/calibrate.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define ROUNDS 20

/* One synthetic batch: per round a shared level (the machine then), and
 * for each cell lognormal noise of sd `noise`; B is A's setting times
 * `effect`; A' is A's times `shift`. */
static void synth(uint64_t seed, double noise, double effect, double shift, double *a, double *a2,
		  double *b, size_t n)
{
	struct stats_rng rng;

	stats_rng_init(&rng, seed);
	for (size_t r = 0; r < n; r++) {
		double level = 100.0 * exp(0.10 * stats_rng_normal(&rng));

		a[r] = level * exp(noise * stats_rng_normal(&rng));
		a2[r] = level * shift * exp(noise * stats_rng_normal(&rng));
		b[r] = level * effect * exp(noise * stats_rng_normal(&rng));
	}
}

START_TEST(known_noise_and_effect)
{
	struct calib_opts o = CALIB_OPTS_DEFAULT;
	double a[ROUNDS], a2[ROUNDS], b[ROUNDS];
	struct calib_result c;
	double z = 2.5758293035489 + 0.8416212335729;

	o.compare.bootstrap.resamples = 2000;
	synth(7, 0.03, 1.25, 1.0, a, a2, b, ROUNDS);
	ck_assert_int_eq(calib_compute(a, a2, b, ROUNDS, &o, &c), 0);
	ck_assert_uint_eq(c.rounds, ROUNDS);
	ck_assert_uint_eq(c.log_rounds, ROUNDS);
	ck_assert_uint_eq(c.ab_rounds, ROUNDS);
	/* per-run spread: the round level (10%) and the noise (3%) */
	ck_assert_double_gt(c.cv_a, 0.06);
	ck_assert_double_lt(c.cv_a, 0.16);
	/* the paired spread is the noise of two runs, sqrt(2) x 3% */
	ck_assert_double_gt(c.sd_log, 0.030);
	ck_assert_double_lt(c.sd_log, 0.060);
	/* the formula, exactly */
	ck_assert_double_eq_tol(c.z_sum, z, 1e-6);
	ck_assert_double_eq_tol(c.mde_paired_pct, 100.0 * c.z_sum * c.sd_log / sqrt(ROUNDS), 1e-9);
	ck_assert_double_eq_tol(c.mde_unpaired_pct,
				100.0 * c.z_sum * sqrt(c.cv_a * c.cv_a + c.cv_a2 * c.cv_a2) / sqrt(ROUNDS), 1e-9);
	/* pairing helps when the machine moves between rounds */
	ck_assert_double_lt(c.mde_paired_pct, c.mde_unpaired_pct);
	/* A and A' are the same setting: rarely DIFFERENT (compare's low
	 * threshold is 0.01, the sequential test's alpha 0.05) */
	ck_assert_double_le(c.fpr_compare, 0.03);
	ck_assert_double_le(c.fpr_seq, 0.10);
	ck_assert(c.have_aa && c.have_aa_seq);
	ck_assert_int_ne(c.aa.verdict, VERDICT_DIFFERENT);
	ck_assert_int_ne(c.aa_seq.verdict, VERDICT_DIFFERENT);
	/* a 25% effect is found by both, upward */
	ck_assert(c.have_ab && c.have_ab_seq);
	ck_assert_int_eq(c.ab.verdict, VERDICT_DIFFERENT);
	ck_assert_double_gt(c.ab.ratio, 1.15);
	ck_assert_double_lt(c.ab.ratio, 1.35);
	ck_assert_int_eq(c.ab_seq.verdict, VERDICT_DIFFERENT);
	ck_assert_int_eq(c.ab_seq.sign, 1);
}
END_TEST

/* The same inputs and seed give the same figures; another seed other
 * resamples (the rates move, the spread does not). */
START_TEST(seeded)
{
	struct calib_opts o = CALIB_OPTS_DEFAULT;
	double a[ROUNDS], a2[ROUNDS], b[ROUNDS];
	struct calib_result c1, c2;

	o.resamples = 300;
	o.compare.bootstrap.resamples = 500;
	synth(11, 0.15, 1.0, 1.0, a, a2, b, ROUNDS);
	ck_assert_int_eq(calib_compute(a, a2, b, ROUNDS, &o, &c1), 0);
	ck_assert_int_eq(calib_compute(a, a2, b, ROUNDS, &o, &c2), 0);
	ck_assert(c1.fpr_compare == c2.fpr_compare && c1.fpr_seq == c2.fpr_seq);
	o.seed++;
	ck_assert_int_eq(calib_compute(a, a2, b, ROUNDS, &o, &c2), 0);
	ck_assert(c1.sd_log == c2.sd_log && c1.cv_a == c2.cv_a);
}
END_TEST

/* The resamples' shortcut gives stats_compare's verdict. */
START_TEST(verdict_as_compare)
{
	struct stats_compare_opts so = STATS_COMPARE_DEFAULT;
	struct stats_rng rng;
	double x[10], y[10];
	double high;
	int seen[3] = { 0, 0, 0 };

	so.bootstrap.resamples = 200;
	high = stats_high_threshold(10, so.magnitude, so.simulations, so.seed);
	stats_rng_init(&rng, 3);
	for (int t = 0; t < 60; t++) {
		struct stats_comparison c;

		for (int i = 0; i < 10; i++) {
			x[i] = stats_rng_normal(&rng);
			y[i] = stats_rng_normal(&rng) + (t % 3) * 0.8;
		}
		ck_assert_int_eq(stats_compare(x, 10, y, 10, &so, &c), 0);
		ck_assert_int_eq(calib_compare_verdict(x, y, 10, high), c.verdict);
		seen[c.verdict]++;
	}
	/* the cases covered every verdict */
	ck_assert(seen[VERDICT_SAME] && seen[VERDICT_DIFFERENT] && seen[VERDICT_UNKNOWN]);
}
END_TEST

/* A' systematically 10% above A: the resamples (the difference taken out
 * before A and A' are exchanged) say nothing of it, the verdicts on the
 * batch as it is do. */
START_TEST(systematic_aa_difference)
{
	struct calib_opts o = CALIB_OPTS_DEFAULT;
	double a[ROUNDS], a2[ROUNDS], b[ROUNDS];
	struct calib_result c;

	o.resamples = 300;
	o.compare.bootstrap.resamples = 500;
	synth(5, 0.01, 1.0, 1.10, a, a2, b, ROUNDS);
	ck_assert_int_eq(calib_compute(a, a2, b, ROUNDS, &o, &c), 0);
	ck_assert_int_eq(c.aa_seq.verdict, VERDICT_DIFFERENT);
	ck_assert_int_eq(c.aa_seq.sign, 1);
	ck_assert_int_eq(c.aa.verdict, VERDICT_DIFFERENT);
	ck_assert_double_le(c.fpr_seq, 0.10);
	ck_assert_double_le(c.fpr_compare, 0.03);
}
END_TEST

/* Missing runs and values of 0 (stall_s of a smooth game): what cannot be
 * computed is NAN, not a number made up. */
START_TEST(missing_and_zero)
{
	struct calib_opts o = CALIB_OPTS_DEFAULT;
	double a[4] = { 0, 0, NAN, 0 }, a2[4] = { 0, 0, 0, NAN }, b[4] = { 0, 0.2, 0, 0 };
	double one[1] = { 5 }, none[1] = { NAN };
	struct calib_result c;

	o.resamples = 50;
	o.compare.bootstrap.resamples = 100;
	ck_assert_int_eq(calib_compute(a, a2, b, 4, &o, &c), 0);
	ck_assert_uint_eq(c.rounds, 2);
	ck_assert_uint_eq(c.log_rounds, 0);
	ck_assert_uint_eq(c.ab_rounds, 3);
	ck_assert(isnan(c.cv_a) && isnan(c.sd_log) && isnan(c.mde_paired_pct) && isnan(c.fpr_seq));
	ck_assert(!c.have_aa_seq && !c.have_ab_seq);
	/* all ties: never DIFFERENT */
	ck_assert_double_eq(c.fpr_compare, 0);
	/* one round: no spread, no rate */
	ck_assert_int_eq(calib_compute(one, one, one, 1, &o, &c), 0);
	ck_assert(isnan(c.cv_a) && isnan(c.fpr_compare) && isnan(c.fpr_seq));
	ck_assert_int_eq(calib_compute(none, none, none, 1, &o, &c), 0);
	ck_assert_uint_eq(c.rounds, 0);
	ck_assert(!c.have_aa && !c.have_ab);
	/* no rounds at all */
	ck_assert_int_eq(calib_compute(NULL, NULL, NULL, 0, &o, &c), 0);
	ck_assert_uint_eq(c.rounds, 0);
	o.alpha = 0;
	ck_assert_int_eq(calib_compute(a, a2, b, 4, &o, &c), -EINVAL);
	o.alpha = 0.01;
	o.resamples = 0;
	ck_assert_int_eq(calib_compute(a, a2, b, 4, &o, &c), -EINVAL);
}
END_TEST

/* A design's MDE within a time budget, and a flip calibration's figures on
 * blocks made to order: a known effect of 1/1.03 with a 2% alternating
 * spread, 0.5 s of runs a block. */
START_TEST(flip_and_time_budget)
{
	struct calib_opts o = CALIB_OPTS_DEFAULT;
	struct calib_flip_result c;
	double blocks[40], truth = 1 / 1.03, sd;

	/* (z_0.995 + z_0.8) x 0.02 / sqrt(10 x 60 / 10) x 100 */
	ck_assert_double_eq_tol(calib_mde_within(0.02, 10, 10, &o), 3.4174 * 0.02 / sqrt(60) * 100, 1e-3);
	/* no spread: nothing to detect against, as mde_pair says (0, not missing) */
	ck_assert_double_eq(calib_mde_within(0, 10, 10, &o), 0);
	ck_assert(isnan(calib_mde_within(-0.01, 10, 10, &o)));
	ck_assert(isnan(calib_mde_within(0.02, NAN, 10, &o)));
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++)
		blocks[i] = log(truth) + (i % 2 ? 0.02 : -0.02);
	sd = 0.02 * sqrt(40.0 / 39);
	ck_assert_int_eq(calib_flip_compute(blocks, 40, 20, truth, 30, &o, &c), 0);
	ck_assert_uint_eq(c.blocks, 40);
	ck_assert_double_eq_tol(c.seconds_per_block, 0.5, 1e-12);
	ck_assert_double_eq_tol(c.sd_block, sd, 1e-12);
	ck_assert_double_eq_tol(c.mde_pct, calib_mde_within(sd, 0.5, 30, &o), 1e-12);
	ck_assert_double_eq_tol(c.estimate, truth, 1e-12);
	ck_assert(c.ci_lo < truth && truth < c.ci_hi && c.covers);
	ck_assert(c.have_seq && c.seq.verdict == VERDICT_DIFFERENT && c.seq.sign < 0);
	/* a truth outside the interval is not covered; bad arguments refused */
	ck_assert_int_eq(calib_flip_compute(blocks, 40, 20, 1.0, 30, &o, &c), 0);
	ck_assert(!c.covers);
	ck_assert_int_eq(calib_flip_compute(blocks, 40, 20, 0, 30, &o, &c), -EINVAL);
	ck_assert_int_eq(calib_flip_compute(blocks, 40, 20, truth, 0, &o, &c), -EINVAL);
	ck_assert_int_eq(calib_flip_compute(NULL, 0, 0, truth, 30, &o, &c), 0);
	ck_assert(isnan(c.estimate) && !c.have_seq);
}
END_TEST

TEST_SUITE(calibrate_suite)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("calibrate");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, known_noise_and_effect);
	tcase_add_test(tc, seeded);
	tcase_add_test(tc, verdict_as_compare);
	tcase_add_test(tc, systematic_aa_difference);
	tcase_add_test(tc, missing_and_zero);
	tcase_add_test(tc, flip_and_time_budget);
	suite_add_tcase(s, tc);
	return s;
}
