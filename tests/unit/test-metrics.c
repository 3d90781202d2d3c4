/*
 * Tests for analysis/metrics/metrics.c: every expected value is computed by hand
 * from the definitions in metrics.h, so a change of definition shows here
 * first.
 */
#include "test.h"
#include "metrics/metrics.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull  /* ns */
#define EPS 1e-9

/* Present times for frames of the given lengths (ns): the first present at
 * base, then one at the end of every frame. Returns n + 1 times. */
static uint64_t *presents(uint64_t base, const uint64_t *frame_ns, size_t n)
{
	uint64_t *t = zalloc((n + 1) * sizeof(*t));

	t[0] = base;
	for (size_t i = 0; i < n; i++)
		t[i + 1] = t[i] + frame_ns[i];
	return t;
}

/* n frames of 8 ms with `slow` frames of 200 ms spread among them. */
static uint64_t *hitchy(size_t n, size_t slow)
{
	uint64_t *f = zalloc(n * sizeof(*f));
	uint64_t *t;

	for (size_t i = 0; i < n; i++)
		f[i] = 8 * MS;
	for (size_t k = 0; k < slow; k++)
		f[100 + 300 * k] = 200 * MS;
	t = presents(1000 * MS, f, n);
	free(f);
	return t;
}

START_TEST(one_hitch_nearest_rank)
{
	uint64_t *t = hitchy(1000, 1);
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 1001, t[0], t[1000], &opts, &m), 0);
	/* every metric of the window (the warm-up and play ones are
	 * run_window_metrics()'s, tested in test-reload.c) */
	for (int id = 0; id < M_STALLS_WARM; id++)
		ck_assert_msg(m.have[id], "%s unset", metric_defs[id].name);
	ck_assert_double_eq(m.v[M_FRAMES], 1000);
	ck_assert_double_eq_tol(m.v[M_WINDOW_S], 8.192, EPS);
	ck_assert_double_eq_tol(m.v[M_FPS], 1000 / 8.192, EPS);
	ck_assert_double_eq(m.v[M_P50_MS], 8);
	ck_assert_double_eq(m.v[M_P99_MS], 8);
	ck_assert_double_eq(m.v[M_P999_MS], 8);     /* rank 999 of 1000 */
	ck_assert_double_eq(m.v[M_STEADY_FPS], 125);
	ck_assert_double_eq(m.v[M_LOW1], 125);
	ck_assert_double_eq(m.v[M_LOW01], 125);
	ck_assert_double_eq(m.v[M_LONGEST_MS], 200);
	ck_assert_double_eq(m.v[M_STALLS], 1);
	ck_assert_double_eq_tol(m.v[M_STALL_S], 0.2, EPS);
	ck_assert_double_eq_tol(m.v[M_SMOOTH_FPS], 999 / (999 * 0.008), EPS);
	free(t);
}
END_TEST

START_TEST(one_hitch_linear)
{
	uint64_t *t = hitchy(1000, 1);
	struct metric_opts opts = { .stall_ms = 100.0, .pct = PCT_LINEAR, .mangohud = MH_068 };
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 1001, t[0], t[1000], &opts, &m), 0);
	/* position 999 * 0.999 = 998.001: 8 + 0.001 * (200 - 8) */
	ck_assert_double_eq_tol(m.v[M_P999_MS], 8.192, EPS);
	ck_assert_double_eq_tol(m.v[M_LOW01], 1000 / 8.192, EPS);
	/* position 999 * 0.99 = 989.01, between two 8 ms frames */
	ck_assert_double_eq(m.v[M_P99_MS], 8);
	ck_assert_double_eq(m.v[M_P50_MS], 8);
	free(t);
}
END_TEST

START_TEST(two_hitches)
{
	uint64_t *t = hitchy(1000, 2);
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 1001, t[0], t[1000], NULL, &m), 0);
	ck_assert_double_eq(m.v[M_P99_MS], 8);
	ck_assert_double_eq(m.v[M_P999_MS], 200);   /* rank 999: the first 200 */
	ck_assert_double_eq(m.v[M_LOW01], 5);
	ck_assert_double_eq(m.v[M_STALLS], 2);
	ck_assert_double_eq_tol(m.v[M_STALL_S], 0.4, EPS);
	ck_assert_double_eq_tol(m.v[M_SMOOTH_FPS], 125, EPS);
	ck_assert_double_eq_tol(m.v[M_WINDOW_S], 8.384, EPS);
	free(t);
}
END_TEST

START_TEST(window_boundaries)
{
	const uint64_t t[] = { 0, 10 * MS, 20 * MS, 30 * MS };
	struct metrics m;

	/* the frame ending at the window's start is out, the one ending at
	 * its end is in */
	ck_assert_int_eq(metrics_compute(t, 4, 10 * MS, 30 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 2);
	ck_assert_double_eq_tol(m.v[M_FPS], 100, EPS);

	ck_assert_int_eq(metrics_compute(t, 4, 10 * MS, 20 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 1);

	/* a frame that starts before the window and ends inside belongs to
	 * it, whole */
	ck_assert_int_eq(metrics_compute(t, 4, 15 * MS, 20 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 1);
	ck_assert_double_eq(m.v[M_LONGEST_MS], 10);
	ck_assert_double_eq_tol(m.v[M_FPS], 200, EPS);

	/* one nanosecond later and it is out */
	ck_assert_int_eq(metrics_compute(t, 4, 20 * MS, 30 * MS - 1, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 0);
}
END_TEST

START_TEST(first_present_has_no_frame)
{
	const uint64_t t[] = { 5 * MS };
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 1, 0, 10 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 0);
	ck_assert_int_eq(metrics_compute(NULL, 0, 0, 10 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 0);
}
END_TEST

START_TEST(empty_window)
{
	const uint64_t t[] = { 0, 10 * MS };
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 2, 20 * MS, 30 * MS, NULL, &m), 0);
	ck_assert(m.have[M_FRAMES]);
	ck_assert_double_eq(m.v[M_FRAMES], 0);
	ck_assert(m.have[M_WINDOW_S]);
	ck_assert_double_eq_tol(m.v[M_WINDOW_S], 0.01, EPS);
	ck_assert(m.have[M_FPS]);
	ck_assert_double_eq(m.v[M_FPS], 0);
	for (int id = 0; id < M_COUNT; id++) {
		if (id == M_FRAMES || id == M_WINDOW_S || id == M_FPS)
			continue;
		ck_assert_msg(!m.have[id], "%s set in an empty window", metric_defs[id].name);
	}
}
END_TEST

START_TEST(bad_input)
{
	const uint64_t t[] = { 0, 10 * MS, 20 * MS };
	const uint64_t backwards[] = { 0, 20 * MS, 10 * MS };
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct metrics m;

	memset(&m, 0x5a, sizeof(m));
	ck_assert_int_eq(metrics_compute(t, 3, 20 * MS, 10 * MS, NULL, &m), -EINVAL);
	ck_assert_int_eq(metrics_compute(t, 3, 10 * MS, 10 * MS, NULL, &m), -EINVAL);
	ck_assert_int_eq(metrics_compute(backwards, 3, 0, 30 * MS, NULL, &m), -EINVAL);
	ck_assert_int_eq(metrics_compute(NULL, 3, 0, 30 * MS, NULL, &m), -EINVAL);
	ck_assert_int_eq(metrics_compute(t, 3, 0, 30 * MS, NULL, NULL), -EINVAL);
	opts.stall_ms = -1;
	ck_assert_int_eq(metrics_compute(t, 3, 0, 30 * MS, &opts, &m), -EINVAL);
	opts.stall_ms = NAN;
	ck_assert_int_eq(metrics_compute(t, 3, 0, 30 * MS, &opts, &m), -EINVAL);
	/* out is written only on success */
	ck_assert_int_eq(((unsigned char *)&m)[0], 0x5a);
}
END_TEST

START_TEST(stall_threshold)
{
	const uint64_t exact[] = { 10 * MS, 100 * MS };
	const uint64_t over[] = { 10 * MS, 100001000 };
	uint64_t *t;
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct metrics m;

	t = presents(0, exact, 2);
	ck_assert_int_eq(metrics_compute(t, 3, 0, t[2], NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 0);
	ck_assert_double_eq(m.v[M_STALL_S], 0);
	ck_assert_double_eq_tol(m.v[M_SMOOTH_FPS], 2 / 0.110, EPS);
	free(t);

	t = presents(0, over, 2);
	ck_assert_int_eq(metrics_compute(t, 3, 0, t[2], NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 1);
	ck_assert_double_eq_tol(m.v[M_STALL_S], 0.100001, EPS);
	ck_assert_double_eq_tol(m.v[M_SMOOTH_FPS], 100, EPS);

	/* a threshold of the caller's: 10 ms frames are not over 10 ms */
	opts.stall_ms = 10;
	ck_assert_int_eq(metrics_compute(t, 3, 0, t[2], &opts, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 1);
	opts.stall_ms = 9.999;
	ck_assert_int_eq(metrics_compute(t, 3, 0, t[2], &opts, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 2);
	/* every frame a stall: no smooth frames to rate */
	ck_assert(!m.have[M_SMOOTH_FPS]);
	free(t);
}
END_TEST

START_TEST(zero_length_frames)
{
	/* two presents in the same nanosecond: a 0 ms frame; rates of a
	 * 0 ms percentile are undefined, not infinite */
	const uint64_t t[] = { 10 * MS, 10 * MS, 10 * MS };
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 3, 0, 20 * MS, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_FRAMES], 2);
	ck_assert_double_eq(m.v[M_P50_MS], 0);
	ck_assert(!m.have[M_STEADY_FPS]);
	ck_assert(!m.have[M_LOW1]);
	ck_assert(!m.have[M_LOW01]);
	ck_assert(!m.have[M_SMOOTH_FPS]);
}
END_TEST

START_TEST(percentile_ranks)
{
	const double one[] = { 7 };
	const double two[] = { 1, 3 };
	double hundred[100];
	double thousand[1000];

	for (int i = 0; i < 100; i++)
		hundred[i] = i + 1;
	for (int i = 0; i < 1000; i++)
		thousand[i] = i + 1;

	/* N = 1: every percentile is the one value */
	ck_assert_double_eq(percentile_sorted(one, 1, 0, PCT_NEAREST_RANK), 7);
	ck_assert_double_eq(percentile_sorted(one, 1, 500000, PCT_NEAREST_RANK), 7);
	ck_assert_double_eq(percentile_sorted(one, 1, 1000000, PCT_NEAREST_RANK), 7);
	ck_assert_double_eq(percentile_sorted(one, 1, 999000, PCT_LINEAR), 7);
	/* N = 2, p50: rank ceil(1) = 1; linear halfway */
	ck_assert_double_eq(percentile_sorted(two, 2, 500000, PCT_NEAREST_RANK), 1);
	ck_assert_double_eq(percentile_sorted(two, 2, 500001, PCT_NEAREST_RANK), 3);
	ck_assert_double_eq(percentile_sorted(two, 2, 500000, PCT_LINEAR), 2);
	/* p100 is the largest, p0 the smallest; past 100 is 100 */
	ck_assert_double_eq(percentile_sorted(two, 2, 1000000, PCT_NEAREST_RANK), 3);
	ck_assert_double_eq(percentile_sorted(two, 2, 1000000, PCT_LINEAR), 3);
	ck_assert_double_eq(percentile_sorted(two, 2, 2000000, PCT_NEAREST_RANK), 3);
	ck_assert_double_eq(percentile_sorted(two, 2, 2000000, PCT_LINEAR), 3);
	ck_assert_double_eq(percentile_sorted(two, 2, 0, PCT_NEAREST_RANK), 1);
	ck_assert_double_eq(percentile_sorted(two, 2, 0, PCT_LINEAR), 1);
	/* 0.07 * 100 is 7.000000000000001 in doubles: a ceil() of it would
	 * give rank 8; integer ranks give 7 */
	ck_assert_double_eq(percentile_sorted(hundred, 100, 70000, PCT_NEAREST_RANK), 7);
	ck_assert_double_eq_tol(percentile_sorted(hundred, 100, 70000, PCT_LINEAR), 7.93, EPS);
	ck_assert_double_eq(percentile_sorted(thousand, 1000, 990000, PCT_NEAREST_RANK), 990);
	ck_assert_double_eq(percentile_sorted(thousand, 1000, 999000, PCT_NEAREST_RANK), 999);
	ck_assert_double_eq(percentile_sorted(thousand, 1000, 999001, PCT_NEAREST_RANK), 1000);
	ck_assert_double_eq_tol(percentile_sorted(thousand, 1000, 990000, PCT_LINEAR), 990.01, EPS);
	ck_assert(isnan(percentile_sorted(one, 0, 500000, PCT_NEAREST_RANK)));
}
END_TEST

START_TEST(percentile_names)
{
	enum percentile_def def = PCT_LINEAR;

	ck_assert_int_eq(percentile_def_parse("nearest-rank", &def), 0);
	ck_assert_int_eq(def, PCT_NEAREST_RANK);
	ck_assert_int_eq(percentile_def_parse("linear", &def), 0);
	ck_assert_int_eq(def, PCT_LINEAR);
	ck_assert_int_eq(percentile_def_parse("Linear", &def), -EINVAL);
	ck_assert_int_eq(percentile_def_parse("", &def), -EINVAL);
	ck_assert_int_eq(percentile_def_parse(NULL, &def), -EINVAL);
	ck_assert_int_eq(def, PCT_LINEAR);
	ck_assert_str_eq(percentile_def_name(PCT_NEAREST_RANK), "nearest-rank");
	ck_assert_str_eq(percentile_def_name(PCT_LINEAR), "linear");
	ck_assert_ptr_nonnull(percentile_def_formula(PCT_LINEAR));
}
END_TEST

static struct metrics fps_run(bool have, double fps)
{
	struct metrics m;

	memset(&m, 0, sizeof(m));
	m.have[M_FPS] = have;
	m.v[M_FPS] = fps;
	return m;
}

START_TEST(median)
{
	struct metrics runs[5], out;

	runs[0] = fps_run(true, 3);
	runs[1] = fps_run(true, 1);
	runs[2] = fps_run(true, 2);
	metrics_median(runs, 3, &out);
	ck_assert(out.have[M_FPS]);
	ck_assert_double_eq(out.v[M_FPS], 2);
	ck_assert(!out.have[M_FRAMES]);

	runs[3] = fps_run(true, 10);
	metrics_median(runs, 4, &out);
	ck_assert_double_eq(out.v[M_FPS], 2.5);

	/* a run without the value does not count */
	runs[4] = fps_run(false, 1000);
	metrics_median(runs, 5, &out);
	ck_assert_double_eq(out.v[M_FPS], 2.5);
	runs[3] = fps_run(false, 10);
	metrics_median(runs, 5, &out);
	ck_assert_double_eq(out.v[M_FPS], 2);

	runs[0] = fps_run(false, 3);
	runs[1] = fps_run(false, 1);
	runs[2] = fps_run(false, 2);
	metrics_median(runs, 5, &out);
	ck_assert(!out.have[M_FPS]);
	metrics_median(NULL, 0, &out);
	for (int id = 0; id < M_COUNT; id++)
		ck_assert(!out.have[id]);
}
END_TEST

START_TEST(lookup)
{
	static const char *const names[M_COUNT] = {
		"frames", "window_s", "fps", "steady_fps", "smooth_fps", "stalls", "stall_s",
		"longest_ms", "p50_ms", "p99_ms", "p999_ms", "low1", "low01",
		"low1_avg", "low01_avg", "low1_integral", "stutter_pct",
		"mangohud_low01", "mangohud_low1", "mangohud_p97", "mangohud_avg",
		"frameview_low1", "frameview_low01",
		"capframex_p5", "capframex_p1", "capframex_p01",
		"presentmon_min", "presentmon_p1", "presentmon_p5", "presentmon_max",
		"stalls_warm", "stall_warm_s", "longest_warm", "stalls_play", "stall_play_s",
		"longest_play", "low1_play", "win_play", "reload_s", "reload_n",
		"recreations", "recreation_s",
		"stall_disk_s", "stall_swap_s", "stall_reclaim_s", "stall_gpu_s", "stall_cpu_s",
		"stall_io_s", "stall_wait_s", "stall_other_s", "load_disk_s", "warm_disk_s",
		"stallrec_samples", "stallrec_cpu_s", "stallrec_cpu_pct", "stallrec_us_per_sample",
		"stallrec_work_us", "stallbpf_ns_per_event", "stallbpf_cpu_pct", "stallbpf_events",
		"probe_worst_us", "probe_p999_us",
		"cpu_ms_per_frame", "steal_pct", "foreign_cpu_pct", "irq_pct", "game_runq_ms_per_s",
	};

	for (int id = 0; id < M_COUNT; id++) {
		ck_assert_str_eq(metric_defs[id].name, names[id]);
		ck_assert_int_eq(metric_lookup(names[id]), id);
		ck_assert_ptr_nonnull(metric_defs[id].column);
		ck_assert_ptr_nonnull(metric_defs[id].definition);
	}
	ck_assert_int_eq(metric_lookup("p99"), -1);
	ck_assert_int_eq(metric_lookup(""), -1);
	ck_assert_int_eq(metric_lookup(NULL), -1);
}
END_TEST

TEST_SUITE(metrics_suite)
{
	Suite *suite = suite_create("metrics");
	TCase *tc = tcase_create("metrics");

	tcase_add_test(tc, one_hitch_nearest_rank);
	tcase_add_test(tc, one_hitch_linear);
	tcase_add_test(tc, two_hitches);
	tcase_add_test(tc, window_boundaries);
	tcase_add_test(tc, first_present_has_no_frame);
	tcase_add_test(tc, empty_window);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, stall_threshold);
	tcase_add_test(tc, zero_length_frames);
	tcase_add_test(tc, percentile_ranks);
	tcase_add_test(tc, percentile_names);
	tcase_add_test(tc, median);
	tcase_add_test(tc, lookup);
	suite_add_tcase(suite, tc);
	return suite;
}
