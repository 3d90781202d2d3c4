/*
 * analysis/plot/plot-runs.c on the recorded real runs (tests/fixtures/runs:
 * dsda-doom software twice, gl once): the legend lines carry the numbers
 * the report prints for them (tests/fixtures/expected/runs-report.csv),
 * warm-up stalls are named but not counted, the frame picture's filled
 * stall marks are exactly the report's stalls and its hollow ones the
 * warm-up's, and the groups (game and run name) share a hue.
 */
#include "plot/plot-runs.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SW1 "runs/20261130T120707Z-dsda-doom-software"
#define GL "runs/20261130T120715Z-dsda-doom-gl"
#define SW2 "runs/20261130T120724Z-dsda-doom-software"

static struct run runs[3];
static const struct run *ptrs[3];
static char *tmp;

static void setup(void)
{
	const char *dirs[] = { SW1, GL, SW2 };
	struct strbuf err = STRBUF_INIT;

	tmp = test_tmpdir();
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(run_load(fixture_path(dirs[i]), &runs[i], &err) == 0, "%s", err.buf);
		ptrs[i] = &runs[i];
	}
	strbuf_release(&err);
}

static void teardown(void)
{
	for (int i = 0; i < 3; i++)
		run_release(&runs[i]);
	remove_tree(tmp);
	free(tmp);
}

START_TEST(labels_are_the_reports_numbers)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_runs pr;

	ck_assert_int_eq(plot_runs_fill(&pr, ptrs, 3, NULL, &err), 0);
	ck_assert_uint_eq(pr.n_runs, 3);
	/* runs-report.csv: gl 335 frames, p50 15.96, p99 58.94, low1 17.0,
	 * stalls 0, stall_s 0.00, stalls_warm 2 */
	ck_assert_str_eq(pr.frames[1].label,
			 "dsda-doom gl 2026-11-30 12:07:15: 335 frames, median 15.96 ms, p99 58.94 ms, "
			 "1% low 17.0 fps, stalls 0 (0.00 s); warm-up stalls 2 (not counted)");
	ck_assert_str_eq(pr.runs[1].label, pr.frames[1].label);
	ck_assert_str_eq(pr.frames[0].label,
			 "dsda-doom software 2026-11-30 12:07:07: 731 frames, median 7.18 ms, p99 25.28 ms, "
			 "1% low 39.6 fps, stalls 0 (0.00 s); warm-up stalls 1 (not counted)");
	/* the percentile series holds the window's frames, as many as the report's */
	ck_assert_uint_eq(pr.runs[0].n, 731);
	ck_assert_uint_eq(pr.runs[1].n, 335);
	ck_assert_uint_eq(pr.runs[2].n, 709);
	ck_assert(pr.have_metrics[1] && pr.metrics[1].v[M_STALLS] == 0 && pr.metrics[1].v[M_STALLS_WARM] == 2);
	/* every frame for the frame picture, the 6 s window in its seconds */
	ck_assert_uint_eq(pr.frames[1].n, 361);
	ck_assert_double_eq_tol(pr.frames[1].window_t1_s - pr.frames[1].window_t0_s, 6.0, 1e-9);
	ck_assert_uint_ge(pr.frames[1].n_segments, 1);
	ck_assert_str_eq(pr.frames[1].segments[0].kind, "warm-up");
	plot_runs_release(&pr);
	plot_runs_release(NULL);
	strbuf_release(&err);
}
END_TEST

START_TEST(groups_share_a_hue)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_runs pr;

	ck_assert_int_eq(plot_runs_fill(&pr, ptrs, 3, NULL, &err), 0);
	ck_assert_uint_eq(pr.n_groups, 2);
	ck_assert_uint_eq(pr.frames[0].style.group, 0);
	ck_assert_uint_eq(pr.frames[0].style.member, 0);
	ck_assert_uint_eq(pr.frames[2].style.group, 0);
	ck_assert_uint_eq(pr.frames[2].style.member, 1);
	ck_assert_uint_eq(pr.frames[1].style.group, 1);
	ck_assert_uint_eq(pr.runs[2].style.member, 1);
	ck_assert_str_eq(pr.groups[0].label,
			 "dsda-doom software: 2 runs, 1440 frames in the windows, stalls 0 (0.00 s)");
	ck_assert_uint_eq(pr.groups[0].n, 731 + 709);
	ck_assert_uint_eq(pr.groups[1].n, 335);
	ck_assert_uint_eq(pr.groups[1].style.group, 1);
	plot_runs_release(&pr);
	strbuf_release(&err);
}
END_TEST

/* The picture's stall marks of the gl run: none filled (the report's
 * stalls = 0), two hollow (its stalls_warm = 2), from the same frames. */
START_TEST(stall_marks_match_the_report)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { "/out", "gl", NULL };
	struct plot_frames f;
	struct plot_runs pr;

	ck_assert_int_eq(plot_runs_fill(&pr, ptrs + 1, 1, NULL, &err), 0);
	f = (struct plot_frames){ "gl", pr.frames, 1, 100 };
	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), 0);
	ck_assert_int_eq(test_data_lines(tmp, "gl-0-stalls.dat"), (int)pr.metrics[0].v[M_STALLS]);
	ck_assert_int_eq(test_data_lines(tmp, "gl-0-outside.dat"), (int)pr.metrics[0].v[M_STALLS_WARM]);
	ck_assert_int_eq(test_data_lines(tmp, "gl-0-outside.dat"), 2);
	plot_runs_release(&pr);
	strbuf_release(&err);
}
END_TEST

/* The two halves of a legend line, for callers that write their own
 * (the HTML report): a run without started_utc is named by its directory;
 * a metric a run lacks prints as "-". */
START_TEST(name_and_headline)
{
	struct strbuf sb = STRBUF_INIT;
	struct metrics m = { 0 };

	plot_run_name(&runs[1], &sb);
	ck_assert_str_eq(sb.buf, "dsda-doom gl 2026-11-30 12:07:15");
	strbuf_reset(&sb);
	kvfile_set(&runs[1].bench, "started_utc", "yesterday");
	plot_run_name(&runs[1], &sb);
	ck_assert_str_eq(sb.buf, "dsda-doom gl 20261130T120715Z-dsda-doom-gl");
	strbuf_reset(&sb);
	m.have[M_FRAMES] = m.have[M_STALLS] = m.have[M_STALL_S] = true;
	m.v[M_FRAMES] = 12;
	m.v[M_STALLS] = 3;
	m.v[M_STALL_S] = 0.456;
	plot_run_headline(&m, &sb);
	ck_assert_str_eq(sb.buf, "12 frames, median -, p99 -, 1% low -, stalls 3 (0.46 s)");
	strbuf_release(&sb);
}
END_TEST

START_TEST(titles_and_no_frames)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_runs pr;
	char *t;

	t = plot_runs_title(ptrs, 1, "frame times");
	ck_assert_str_eq(t, "frame times: dsda-doom software 2026-11-30 12:07:07");
	free(t);
	t = plot_runs_title(ptrs, 3, "frame times");
	ck_assert_str_eq(t, "frame times: 3 runs of dsda-doom");
	free(t);
	hb_frames_release(&runs[2].frames);
	runs[2].have_frames = false;
	ck_assert_int_eq(plot_runs_fill(&pr, ptrs, 3, NULL, &err), -ENODATA);
	ck_assert_ptr_nonnull(strstr(err.buf, "20261130T120724Z-dsda-doom-software' has no frames"));
	plot_runs_release(&pr);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(plot_runs_suite)
{
	Suite *s = suite_create("plot-runs");
	TCase *tc = tcase_create("plot-runs");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, labels_are_the_reports_numbers);
	tcase_add_test(tc, groups_share_a_hue);
	tcase_add_test(tc, stall_marks_match_the_report);
	tcase_add_test(tc, name_and_headline);
	tcase_add_test(tc, titles_and_no_frames);
	suite_add_tcase(s, tc);
	return s;
}
