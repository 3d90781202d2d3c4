/*
 * analysis/run/swapchain.c and what the metrics and the report make of a
 * Vulkan run's swapchains: a run directory whose frames.bin (version 2)
 * is written by hand as the layer writes one (events in their slots,
 * then the records, then trimmed), through run_load() and run_metrics().
 * A frame that spans a swapchain recreation is not a stall (in the
 * window, the play window laid end to end, and the stall causes' list),
 * while a long frame without one still is; a destroy and a create on the
 * same surface is a recreation, so is a create with an oldSwapchain; a
 * first creation is not, nor another process's first on a surface of the
 * same value. The report's note says the API, the swapchain and each
 * recreation (GL runs get none), its CSV the API, its JSON every event.
 * The frame-time picture (hitchbench plot, the HTML report) draws the
 * frames that span a recreation with a mark of their own, not as stalls:
 * its stall marks are the report's stalls.
 */
#include "formats/frames.h"
#include "text/kvfile.h"
#include "metrics/metrics.h"
#include "plot/plot-runs.h"
#include "report/report.h"
#include "run/run.h"
#include "run/swapchain.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull

static char *tmp;
static char *dir;

static struct hb_frame_event ev(uint64_t t_ms, uint32_t pid, uint16_t kind, uint64_t object,
				uint64_t old, uint32_t w, uint32_t h, uint32_t mode)
{
	struct hb_frame_event e = { .t_ns = t_ms * MS, .pid = pid, .kind = kind, .api = HB_API_VULKAN,
				    .object = object, .old_object = old, .surface = 0x55 };

	if (kind == HB_EV_SWAPCHAIN_CREATE) {
		e.width = w;
		e.height = h;
		e.present_mode = mode;
		e.min_image_count = 2;
		e.image_count = 3;
		e.format = 44;
	}
	return e;
}

/* Presents every 10 ms from 1000 ms to 4000 ms but for three long
 * frames: 2000 -> 2300 ms, 2600 -> 2850 ms, 3200 -> 3400 ms. */
static size_t make_presents(uint64_t *t)
{
	size_t n = 0;

	for (uint64_t ms = 1000; ms <= 4000; ms += 10) {
		if ((ms > 2000 && ms < 2300) || (ms > 2600 && ms < 2850) || (ms > 3200 && ms < 3400))
			continue;
		t[n++] = ms * MS;
	}
	return n;
}

/* The frame file; with events, the first long frame holds a destroy and
 * a create on the same surface (a resize to 816x616), the second
 * nothing (a stall), the third a create with an oldSwapchain (fifo ->
 * mailbox), and another process makes its first swapchain at 3505 ms. */
static void write_frames(uint16_t source, bool with_events)
{
	struct hb_frame_event e[] = {
		ev(990, 7, HB_EV_SWAPCHAIN_CREATE, 0xa, 0, 800, 600, 2),
		ev(2050, 7, HB_EV_SWAPCHAIN_DESTROY, 0xa, 0, 0, 0, 0),
		ev(2100, 7, HB_EV_SWAPCHAIN_CREATE, 0xb, 0, 816, 616, 2),
		ev(3300, 7, HB_EV_SWAPCHAIN_CREATE, 0xc, 0xb, 816, 616, 1),
		ev(3505, 8, HB_EV_SWAPCHAIN_CREATE, 0xd, 0, 640, 480, 2),
	};
	char *path = xasprintf("%s/frames.bin", dir);
	uint64_t t[400];
	size_t n = make_presents(t);
	struct hb_frames_header h;
	int fd;

	ck_assert_int_eq(hb_frames_create(path, 1000, 0644), 0);
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.count = n;
	h.hooked_procs = 2;
	h.event_count = with_events ? ARRAY_SIZE(e) : 0;
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	/* slots in another order than time: the reader sorts them */
	for (size_t i = 0; with_events && i < ARRAY_SIZE(e); i++)
		ck_assert_int_eq(pwrite(fd, &e[ARRAY_SIZE(e) - 1 - i], sizeof(e[0]),
					(off_t)(sizeof(h) + i * sizeof(e[0]))), sizeof(e[0]));
	for (size_t i = 0; i < n; i++) {
		struct hb_frame_record r = { t[i], 7, source, 300 };

		ck_assert_int_eq(pwrite(fd, &r, sizeof(r), (off_t)(h.records_offset + i * sizeof(r))),
				 sizeof(r));
	}
	close(fd);
	ck_assert_int_eq(hb_frames_trim(path), 0);
	free(path);
}

/* The window is (1500 ms, 4000 ms]; with reload, pass 2 starts at
 * 2590 ms and its fixed 50 ms segment stretches over the 2600 -> 2850 ms
 * frame, so that stall is reload, not play. */
static void write_bench(bool reload)
{
	struct kvfile kf;
	char *path = xasprintf("%s/bench.txt", dir);

	kvfile_init(&kf);
	kvfile_add(&kf, "format", "1");
	kvfile_add(&kf, "run_id", "5a0c1e2d3f4b5a6978897a6b5c4d3e2f");
	kvfile_add(&kf, "game", "vkgame");
	kvfile_add(&kf, "variant", "lavapipe");
	kvfile_add(&kf, "status", "ok");
	kvfile_add(&kf, "reload.format", "1");
	kvfile_add(&kf, "reload.source", "recipe vkgame.ini:9");
	if (reload) {
		kvfile_add(&kf, "reload.after_pass_start", "0.05");
		kvfile_addf(&kf, "pass.1.start_ns", "%llu", 900 * MS);
		kvfile_addf(&kf, "pass.2.start_ns", "%llu", 2590 * MS);
	} else {
		kvfile_add(&kf, "reload.none", "yes");
	}
	kvfile_add(&kf, "reload.why", "a test");
	kvfile_addf(&kf, "first_frame_ns", "%llu", 1000 * MS);
	kvfile_addf(&kf, "window_start_ns", "%llu", 1500 * MS);
	kvfile_addf(&kf, "window_end_ns", "%llu", 4000 * MS);
	ck_assert_int_eq(kvfile_write(&kf, path), 0);
	kvfile_release(&kf);
	free(path);
}

/* The run directory written and loaded. */
static void make_run(bool reload, uint16_t source, bool with_events, struct run *run)
{
	struct strbuf err = STRBUF_INIT;

	write_bench(reload);
	write_frames(source, with_events);
	ck_assert_msg(run_load(dir, run, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
}

static void setup(void)
{
	tmp = test_tmpdir();
	dir = xasprintf("%s/20261201T120000Z-vkgame-lavapipe", tmp);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
	free(dir);
}

static void assert_near(double got, double want)
{
	ck_assert_msg(fabs(got - want) < 1e-9, "got %.9f, want %.9f", got, want);
}

START_TEST(log_finds_recreations)
{
	struct run run;
	uint64_t *t;

	make_run(false, HB_SRC_VK_QUEUE_PRESENT, true, &run);
	ck_assert_uint_eq(run.swapchains.n, 5);
	/* in time order, whatever the slots' order */
	ck_assert_uint_eq(run.swapchains.ev[0].ev.object, 0xa);
	ck_assert(!run.swapchains.ev[0].recreation);        /* the first creation */
	ck_assert(!run.swapchains.ev[1].recreation);        /* a destroy */
	ck_assert(run.swapchains.ev[2].recreation);         /* destroy + create, same surface */
	ck_assert_int_eq(run.swapchains.ev[2].from, 0);
	ck_assert(run.swapchains.ev[3].recreation);         /* oldSwapchain */
	ck_assert_int_eq(run.swapchains.ev[3].from, 2);
	ck_assert(!run.swapchains.ev[4].recreation);        /* another process's first */
	ck_assert_uint_eq(run.swapchains.n_recreations, 2);
	ck_assert_uint_eq(swapchain_recreation_times(&run.swapchains, &t), 2);
	ck_assert_uint_eq(t[0], 2100 * MS);
	ck_assert_uint_eq(t[1], 3300 * MS);
	free(t);
	run_release(&run);
}
END_TEST

START_TEST(recreation_frames_not_stalls)
{
	struct run run;
	struct metrics m;

	make_run(false, HB_SRC_VK_QUEUE_PRESENT, true, &run);
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	/* 2500 ms of 10 ms steps less the three gaps' missing presents */
	ck_assert_double_eq(m.v[M_FRAMES], 250 - 29 - 24 - 19);
	/* the 250 ms frame only: the 300 and 200 ms ones span recreations */
	ck_assert_double_eq(m.v[M_STALLS], 1);
	assert_near(m.v[M_STALL_S], 0.25);
	ck_assert(m.have[M_RECREATIONS]);
	ck_assert_double_eq(m.v[M_RECREATIONS], 2);
	assert_near(m.v[M_RECREATION_S], 0.5);
	/* they are still frames: the longest is the resize's */
	assert_near(m.v[M_LONGEST_MS], 300);
	/* no reload segment: play is the window */
	ck_assert_double_eq(m.v[M_STALLS_PLAY], 1);
	assert_near(m.v[M_STALL_PLAY_S], 0.25);
	run_release(&run);
}
END_TEST

START_TEST(recreation_frames_not_play_stalls)
{
	struct run run;
	struct metrics m;

	make_run(true, HB_SRC_VK_QUEUE_PRESENT, true, &run);
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 1);
	ck_assert_double_eq(m.v[M_RELOAD_N], 1);
	/* the real stall is reload; the play frames laid end to end still
	 * span their recreations */
	ck_assert(m.have[M_STALLS_PLAY]);
	ck_assert_double_eq(m.v[M_STALLS_PLAY], 0);
	assert_near(m.v[M_STALL_PLAY_S], 0);
	assert_near(m.v[M_LONGEST_PLAY], 300);
	run_release(&run);
}
END_TEST

START_TEST(without_events_every_long_frame_stalls)
{
	struct run run;
	struct metrics m;

	make_run(false, HB_SRC_GLX_SWAP_BUFFERS, false, &run);
	ck_assert_uint_eq(run.swapchains.n, 0);
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 3);
	assert_near(m.v[M_STALL_S], 0.75);
	/* not known, never 0 */
	ck_assert(!m.have[M_RECREATIONS]);
	ck_assert(!m.have[M_RECREATION_S]);
	run_release(&run);
}
END_TEST

START_TEST(spanning_edges)
{
	/* frames (0, 10], (10, 200], (200, 400], (400, 410] ms */
	static const uint64_t t[] = { 0, 10 * MS, 200 * MS, 400 * MS, 410 * MS };
	/* at a frame's end: that frame's; at its start: the one before */
	static const uint64_t at_end[] = { 200 * MS }, at_start[] = { 10 * MS };
	struct metric_recreations none = { NULL, 0 }, end = { at_end, 1 }, start = { at_start, 1 };
	struct metrics m;

	ck_assert_int_eq(metrics_compute_recreated(t, 5, 0, 410 * MS, &none, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 2);
	ck_assert_double_eq(m.v[M_RECREATIONS], 0);
	ck_assert(m.have[M_RECREATION_S]);
	ck_assert_int_eq(metrics_compute_recreated(t, 5, 0, 410 * MS, &end, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 1);
	assert_near(m.v[M_STALL_S], 0.2);
	assert_near(m.v[M_RECREATION_S], 0.19);
	/* a recreation frame over the threshold is not smooth either */
	assert_near(m.v[M_SMOOTH_FPS], 2 / 0.02);
	ck_assert_int_eq(metrics_compute_recreated(t, 5, 0, 410 * MS, &start, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_STALLS], 2);
	assert_near(m.v[M_RECREATION_S], 0.01);
	/* one in the warm-up is not the window's */
	ck_assert_int_eq(metrics_compute_recreated(t, 5, 300 * MS, 410 * MS, &end, NULL, &m), 0);
	ck_assert_double_eq(m.v[M_RECREATIONS], 0);
	/* the times must ascend */
	{
		static const uint64_t back[] = { 300 * MS, 100 * MS };
		struct metric_recreations bad = { back, 2 };

		ck_assert_int_eq(metrics_compute_recreated(t, 5, 0, 410 * MS, &bad, NULL, &m), -EINVAL);
	}
}
END_TEST

START_TEST(report_note)
{
	struct report_row row;
	struct run run;

	make_run(false, HB_SRC_VK_QUEUE_PRESENT, true, &run);
	ck_assert(run_report_row(&run, NULL, &row));
	ck_assert_str_eq(row.api, "vulkan");
	ck_assert_str_eq(row.frames_note,
			 "vulkan (window: vkQueuePresentKHR 178), swapchain 800x600 fifo 3 images (asked 2); "
			 "2 recreations in the window at 1.10 s (800x600 -> 816x616), "
			 "2.30 s (fifo -> mailbox), their frames not counted as stalls");
	run_release(&run);
}
END_TEST

/* What report_print() makes of rows in a format. */
static char *render(const struct report_row *rows, size_t n, enum report_format format)
{
	struct report_opts opts = { .format = format, .metric = METRIC_OPTS_DEFAULT };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_print(f, rows, n, &opts), 0);
	fclose(f);
	return buf;
}

START_TEST(report_outputs)
{
	struct report_row row;
	struct run run;
	char *out;

	make_run(false, HB_SRC_VK_QUEUE_PRESENT, true, &run);
	ck_assert(run_report_row(&run, NULL, &row));
	/* the table: the note under the others, after one saying what it is */
	out = render(&row, 1, REPORT_TABLE);
	ck_assert_msg(strstr(out, "\n# RUN: API (presents), swapchain ...; recreations = where each run's "
			      "frames came from"), "%s", out);
	ck_assert_msg(strstr(out, "\n# 20261201T120000Z-vkgame-lavapipe: vulkan (window: vkQueuePresentKHR "
			      "178), swapchain 800x600"), "%s", out);
	free(out);
	/* CSV: the API after stall_why */
	out = render(&row, 1, REPORT_CSV);
	ck_assert_msg(strstr(out, ",stall_why,api,excluded\n"), "%s", out);
	ck_assert_msg(strstr(out, ",vulkan,\n"), "%s", out);
	free(out);
	/* JSON: the API and every event, handles as strings */
	out = render(&row, 1, REPORT_JSON);
	ck_assert_msg(strstr(out, "\"format\": 4,"), "%s", out);
	ck_assert_msg(strstr(out, "\"api\": \"vulkan\", \"swapchain_events\": [{\"t_s\": -0.01, "
			      "\"in_window\": false, \"pid\": 7, \"kind\": \"create\", \"swapchain\": \"0xa\""),
		      "%s", out);
	ck_assert_msg(strstr(out, "{\"t_s\": 2.3, \"in_window\": true, \"pid\": 7, \"kind\": \"create\", "
			      "\"swapchain\": \"0xc\", \"surface\": \"0x55\", \"old_swapchain\": \"0xb\", "
			      "\"width\": 816, \"height\": 616, \"present_mode\": \"mailbox\", \"min_images\": 2, "
			      "\"images\": 3, \"format\": 44, \"recreation\": true, \"replaces\": \"0xb\"}"),
		      "%s", out);
	ck_assert_msg(strstr(out, "\"pid\": 8, \"kind\": \"create\", \"swapchain\": \"0xd\""), "%s", out);
	ck_assert_msg(strstr(out, "\"recreation\": false, \"replaces\": null}], \"swapchain_events_dropped\": 0, \"flip\": null}"),
		      "%s", out);
	free(out);
	run_release(&run);
}
END_TEST

START_TEST(report_note_gl_none)
{
	struct report_row row;
	struct run run;

	make_run(false, HB_SRC_GLX_SWAP_BUFFERS, false, &run);
	ck_assert(run_report_row(&run, NULL, &row));
	ck_assert_str_eq(row.api, "opengl");
	ck_assert_ptr_null(row.frames_note);
	run_release(&run);
}
END_TEST

/* The picture's marks of the run: one filled stall (the report's stalls),
 * two recreation marks (the 300 and 200 ms frames), and the legend says
 * what they are; without the events, all three long frames are stalls. */
START_TEST(plot_marks_recreations_apart)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { "/out", "vk", NULL };
	struct plot_frames f;
	struct plot_runs pr;
	const struct run *ptr;
	struct run run;
	char *gp = xasprintf("%s/vk.gp", tmp), *buf = NULL;
	size_t len;

	for (int events = 1; events >= 0; events--) {
		make_run(false, HB_SRC_VK_QUEUE_PRESENT, events, &run);
		ptr = &run;
		ck_assert_msg(plot_runs_fill(&pr, &ptr, 1, NULL, &err) == 0, "%s", err.buf);
		f = (struct plot_frames){ "vk", pr.frames, 1, 100 };
		ck_assert_int_eq(plot_frames_write(&out, tmp, &f), 0);
		ck_assert_double_eq(pr.metrics[0].v[M_STALLS], events ? 1 : 3);
		ck_assert_int_eq(test_data_lines(tmp, "vk-0-stalls.dat"), (int)pr.metrics[0].v[M_STALLS]);
		ck_assert_int_eq(test_data_lines(tmp, "vk-0-recreations.dat"), events ? 2 : 0);
		ck_assert_int_eq(test_data_lines(tmp, "vk-0-outside.dat"), 0);
		ck_assert_int_eq(read_file(gp, &buf, &len), 0);
		ck_assert_int_eq(!!strstr(buf, "'vk-0-recreations.dat'"), events);
		ck_assert_int_eq(!!strstr(buf, "swapchain recreation (a resize, a present mode change): no stall"),
				 events);
		free(buf);
		plot_runs_release(&pr);
		run_release(&run);
		remove_tree(dir);
		ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	}
	free(gp);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(swapchain_suite)
{
	Suite *s = suite_create("swapchain");
	TCase *tc = tcase_create("swapchain");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, log_finds_recreations);
	tcase_add_test(tc, recreation_frames_not_stalls);
	tcase_add_test(tc, recreation_frames_not_play_stalls);
	tcase_add_test(tc, without_events_every_long_frame_stalls);
	tcase_add_test(tc, spanning_edges);
	tcase_add_test(tc, report_note);
	tcase_add_test(tc, report_outputs);
	tcase_add_test(tc, report_note_gl_none);
	tcase_add_test(tc, plot_marks_recreations_apart);
	suite_add_tcase(s, tc);
	return s;
}
