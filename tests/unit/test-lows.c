/*
 * Tests for analysis/metrics/lows.c and analysis/metrics/mangohud-summary.c.
 *
 * The CapFrameX-style lows are checked against values computed once by an
 * independent implementation (a one-off Python 3 script, written from the
 * definitions in docs/metrics.md, not from this code; the script is quoted
 * in the comment above each table). MangoHud's summary is checked against
 * what real MangoHud 0.6.8 wrote: every log in
 * $HB_TESTDATA/mangohud-0.6.8-here (see its MANIFEST.md) and its
 * _summary.csv, to the printed digit.
 */
#include "test.h"
#include "metrics/lows.h"
#include "metrics/mangohud-summary.h"
#include "metrics/metrics.h"
#include "base/util.h"
#include "../tools/mhlog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

/* The first four fields of the values line of a _summary.csv. */
static void mangohud_printed(const char *path, char fields[4][32])
{
	ck_assert_msg(mhlog_summary(path, fields) == 0, "cannot read '%s'", path);
}

static const char *const logs_068[] = {
	"chocolate-doom_2026-11-30_10-58-25",
	"chocolate-doom_2026-11-30_11-07-09",
	"dsda-doom_2026-11-30_10-02-37",
	"ioquake3_2026-11-30_11-14-42",
};

START_TEST(mangohud_068_real_logs)
{
	char path[512], want[4][32], got[4][32];
	struct mangohud_summary s;
	uint64_t *ns;
	size_t n;
	int columns;

	snprintf(path, sizeof(path), "mangohud-0.6.8-here/%s.csv", logs_068[_i]);
	ns = mhlog_frametimes(testdata_path(path), 1000, &n, &columns);  /* 0.6.8: whole us */
	ck_assert_msg(ns != NULL, "cannot read %s", path);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(columns, 12);
	snprintf(path, sizeof(path), "mangohud-0.6.8-here/%s_summary.csv", logs_068[_i]);
	mangohud_printed(testdata_path(path), want);

	ck_assert_int_eq(mangohud_summary_compute(ns, n, MH_068, &s), 0);
	/* MangoHud prints float with fixed, precision 1 */
	snprintf(got[0], sizeof(got[0]), "%.1f", s.low01);
	snprintf(got[1], sizeof(got[1]), "%.1f", s.low1);
	snprintf(got[2], sizeof(got[2]), "%.1f", s.p97);
	snprintf(got[3], sizeof(got[3]), "%.1f", s.avg);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(strcmp(got[i], want[i]) == 0, "%s field %d: got %s, MangoHud wrote %s",
			      logs_068[_i], i, got[i], want[i]);
	free(ns);
}
END_TEST

/* ---- CapFrameX-style lows: reference values ---- */

/*
 * The fixed sample: 1000 frames of 10 + ((i * 7) % 13) * 0.5 ms, with
 * frames 100, 400, 401, 777, 900 replaced by 80, 45, 120, 33, 26 ms.
 * Reference values from this one-off Python 3 script (run 2026-11-30),
 * written from the definitions, not from lows.c:
 *
 *   def q8(xs, p):                      # Hyndman & Fan type 8
 *       x = sorted(xs); n = len(x); h = (n + 1/3) * p + 1/3
 *       if h <= 1: return x[0]
 *       if h >= n: return x[-1]
 *       lo = math.floor(h); return x[lo-1] + (h - lo) * (x[lo] - x[lo-1])
 *   def low_avg(xs, low):
 *       q = q8(xs, 1 - low); sel = [v for v in xs if v >= q]
 *       return 1000 / (sum(sel) / len(sel))
 *   def low_integral(xs, low):
 *       s = sorted(xs, reverse=True); target = sum(xs) * low; run = 0
 *       for v in s:
 *           run += v
 *           if run >= target: return 1000 / v
 *   def stutter(xs, window=500.0, factor=2.5):   # CapFrameX's loop, O(n * w)
 *       st = 0
 *       for i, v in enumerate(xs):
 *           acc = 0; cnt = 0; j = i
 *           while j >= 0:
 *               acc += xs[j]; cnt += 1
 *               if acc >= window: break
 *               j -= 1
 *           if v > factor * acc / cnt: st += v
 *       return 100 * st / sum(xs)
 *
 * printed: q99 16, q999 106.6533333333382, low1_avg 53.28947368421052,
 * low01_avg 8.3333333333333339, low1_integral 12.5,
 * stutter_pct 1.8513620735255223
 */
static uint64_t *sample_frames(size_t *n)
{
	static const struct { size_t i; uint64_t ms; } hitch[] = {
		{ 100, 80 }, { 400, 45 }, { 401, 120 }, { 777, 33 }, { 900, 26 },
	};
	uint64_t *ns = zalloc(1000 * sizeof(*ns));

	for (size_t i = 0; i < 1000; i++)
		ns[i] = 10 * MS + (uint64_t)((i * 7) % 13) * (MS / 2);
	for (size_t k = 0; k < sizeof(hitch) / sizeof(hitch[0]); k++)
		ns[hitch[k].i] = hitch[k].ms * MS;
	*n = 1000;
	return ns;
}

static double *sorted_ms(const uint64_t *ns, size_t n)
{
	double *ms = zalloc(n * sizeof(*ms));

	for (size_t i = 0; i < n; i++)
		ms[i] = (double)ns[i] / 1e6;
	qsort(ms, n, sizeof(*ms), cmp_double);
	return ms;
}

START_TEST(capframex_reference)
{
	size_t n;
	uint64_t *ns = sample_frames(&n);
	double *ms = sorted_ms(ns, n);

	ck_assert_double_eq_tol(quantile_r8_sorted(ms, n, 0.99), 16, 1e-12);
	ck_assert_double_eq_tol(quantile_r8_sorted(ms, n, 0.999), 106.6533333333382, 1e-9);
	ck_assert_double_eq_tol(low_average_fps(ms, n, 0.01), 53.28947368421052, 1e-9);
	ck_assert_double_eq_tol(low_average_fps(ms, n, 0.001), 8.3333333333333339, 1e-9);
	ck_assert_double_eq_tol(low_integral_fps(ms, n, 0.01), 12.5, 1e-12);
	ck_assert_double_eq_tol(stutter_time_pct(ns, n, STUTTER_WINDOW_NS, STUTTER_FACTOR),
				1.8513620735255223, 1e-9);
	free(ms);
	free(ns);
}
END_TEST

/* By hand: frames 10, 10, 10, 10, 60 ms (total 100). Integral: 1% of 100
 * ms is reached by the 60 ms frame at once -> 1000/60. R-8 at 0.99 with
 * n=5: h = 5.33/0.99 -> h >= n, the largest: 60 ms -> low1_avg 1000/60.
 * Stutter: frame 5's trailing average is 100/5 = 20 ms (the window never
 * fills), 60 > 2.5 x 20 -> 60% of the time. Frame 1 alone: average 10, not
 * over. */
START_TEST(by_hand)
{
	uint64_t ns[5] = { 10 * MS, 10 * MS, 10 * MS, 10 * MS, 60 * MS };
	double *ms = sorted_ms(ns, 5);

	ck_assert_double_eq_tol(low_integral_fps(ms, 5, 0.01), 1000.0 / 60, 1e-12);
	ck_assert_double_eq_tol(low_average_fps(ms, 5, 0.01), 1000.0 / 60, 1e-12);
	ck_assert_double_eq_tol(stutter_time_pct(ns, 5, STUTTER_WINDOW_NS, STUTTER_FACTOR), 60, 1e-12);
	/* a 30 ms window: frame 5 averages with itself alone -> never over */
	ck_assert_double_eq_tol(stutter_time_pct(ns, 5, 30 * MS, STUTTER_FACTOR), 0, 1e-12);
	ck_assert(isnan(low_average_fps(ms, 0, 0.01)));
	ck_assert(isnan(low_integral_fps(ms, 0, 0.01)));
	ck_assert(isnan(stutter_time_pct(ns, 0, STUTTER_WINDOW_NS, STUTTER_FACTOR)));
	free(ms);
}
END_TEST

/* MangoHud 0.8 by hand: 200 frames, 198 of 10 ms, one 50 and one 100 ms.
 * Longest first: 100, 50, 10, ... 0.1%: 0.001*200-1 < 0 -> index 0 ->
 * 1000/100 = 10. 1%: 2-1 = 1 -> 1000/50 = 20. 97%: 194-1 = 193 -> 10 ms ->
 * 100. Average: 1000 / (2130/200) = 93.896... 0.6.8 on the same frames:
 * 0.1%: mean of ceil(0.2) = 1 lowest fps = 10; 1%: mean of the 2 lowest,
 * (10 + 20) / 2 = 15; 97%: index floor(0.97*199) = 193 ascending = 100;
 * Average: mean fps = (198*100 + 20 + 10) / 200 = 99.15. */
START_TEST(mangohud_by_hand)
{
	uint64_t ns[200];
	struct mangohud_summary s;

	for (int i = 0; i < 200; i++)
		ns[i] = 10 * MS;
	ns[50] = 50 * MS;
	ns[150] = 100 * MS;
	ck_assert_int_eq(mangohud_summary_compute(ns, 200, MH_08, &s), 0);
	ck_assert_double_eq_tol(s.low01, 10, 1e-4);
	ck_assert_double_eq_tol(s.low1, 20, 1e-4);
	ck_assert_double_eq_tol(s.p97, 100, 1e-4);
	ck_assert_double_eq_tol(s.avg, 1000.0 / (2130.0 / 200), 1e-3);
	ck_assert_int_eq(mangohud_summary_compute(ns, 200, MH_068, &s), 0);
	ck_assert_double_eq_tol(s.low01, 10, 1e-4);
	ck_assert_double_eq_tol(s.low1, 15, 1e-4);
	ck_assert_double_eq_tol(s.p97, 100, 1e-4);
	ck_assert_double_eq_tol(s.avg, 99.15, 1e-3);
	ck_assert_int_eq(mangohud_summary_compute(ns, 0, MH_068, &s), -EINVAL);
	ck_assert_int_eq(mangohud_summary_compute(ns, 200, (enum mangohud_formula)7, &s), -EINVAL);
}
END_TEST

START_TEST(mangohud_versions)
{
	ck_assert_int_eq(mangohud_formula_for_version("0.6.8"), MH_068);
	ck_assert_int_eq(mangohud_formula_for_version("0.6.8-2"), MH_068);
	ck_assert_int_eq(mangohud_formula_for_version("v0.6.9"), MH_068);
	ck_assert_int_eq(mangohud_formula_for_version("0.7.2"), MH_07);
	ck_assert_int_eq(mangohud_formula_for_version("0.8.0-0.8.1 (inferred from the columns)"), MH_08);
	ck_assert_int_eq(mangohud_formula_for_version("v0.8.1"), MH_08);
	ck_assert_int_eq(mangohud_formula_for_version("1.0"), MH_08);
	ck_assert_int_eq(mangohud_formula_for_version(NULL), MH_068);
	ck_assert_int_eq(mangohud_formula_for_version(""), MH_068);
	ck_assert_int_eq(mangohud_formula_for_version("git"), MH_068);
	ck_assert_str_eq(mangohud_formula_name(MH_068), "0.6.8");
	ck_assert_str_eq(mangohud_formula_name(MH_08), "0.8");
}
END_TEST

/* metrics_compute() fills the block from the window's frames. */
START_TEST(through_metrics_compute)
{
	size_t n;
	uint64_t *ns = sample_frames(&n);
	uint64_t *t = zalloc((n + 1) * sizeof(*t));
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct mangohud_summary mh;
	struct metrics m;

	t[0] = 5000 * MS;
	for (size_t i = 0; i < n; i++)
		t[i + 1] = t[i] + ns[i];
	ck_assert_int_eq(metrics_compute(t, n + 1, t[0], t[n], &opts, &m), 0);
	ck_assert_double_eq_tol(m.v[M_LOW1_AVG], 53.28947368421052, 1e-9);
	ck_assert_double_eq_tol(m.v[M_LOW01_AVG], 8.3333333333333339, 1e-9);
	ck_assert_double_eq_tol(m.v[M_LOW1_INTEGRAL], 12.5, 1e-12);
	ck_assert_double_eq_tol(m.v[M_STUTTER_PCT], 1.8513620735255223, 1e-9);
	ck_assert_int_eq(mangohud_summary_compute(ns, n, MH_068, &mh), 0);
	ck_assert_double_eq(m.v[M_MANGOHUD_LOW1], mh.low1);
	ck_assert_double_eq(m.v[M_MANGOHUD_AVG], mh.avg);
	opts.mangohud = MH_08;
	ck_assert_int_eq(metrics_compute(t, n + 1, t[0], t[n], &opts, &m), 0);
	ck_assert_int_eq(mangohud_summary_compute(ns, n, MH_08, &mh), 0);
	ck_assert_double_eq(m.v[M_MANGOHUD_LOW1], mh.low1);
	ck_assert_double_eq_tol(m.v[M_MANGOHUD_LOW01], 1000.0 / 120, 1e-4);
	for (int id = M_LOW1_AVG; id <= M_MANGOHUD_AVG; id++)
		ck_assert_msg(m.have[id], "%s unset", metric_defs[id].name);
	free(t);
	free(ns);
}
END_TEST

TEST_SUITE(lows_suite)
{
	Suite *s = suite_create("lows");
	TCase *tc = tcase_create("lows");

	tcase_add_test(tc, capframex_reference);
	tcase_add_test(tc, by_hand);
	tcase_add_test(tc, mangohud_by_hand);
	tcase_add_test(tc, mangohud_versions);
	tcase_add_test(tc, through_metrics_compute);
	tcase_add_loop_test(tc, mangohud_068_real_logs, 0, sizeof(logs_068) / sizeof(logs_068[0]));
	suite_add_tcase(s, tc);
	return s;
}
