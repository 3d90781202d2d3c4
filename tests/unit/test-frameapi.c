/*
 * Which API a run's frames came from (analysis/run/run-check-api.c), on frame
 * files made as the runner makes them (version 2, event slots before the
 * records) and as version 1 wrote them: the window's frames counted by
 * source with the window's edges as metrics count them, frames_api's
 * words, and `frames = vulkan` (bench.txt frame_source=vulkan) as a rule
 * of run integrity, its reason naming what the game presented through.
 */
#include "test.h"

#include "formats/frames.h"
#include "text/kvfile.h"
#include "run/run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull

struct rec {
	uint64_t t_ns;
	uint16_t source;
};

/* A frame file of these records at path, as the hook fills it and the
 * runner trims it. */
static void write_frames(const char *path, const struct rec *recs, size_t n)
{
	struct hb_frames_header *h;
	char *data = NULL;
	size_t len = 0;

	ck_assert_int_eq(hb_frames_create(path, 1000, 0644), 0);
	ck_assert_int_eq(read_file(path, &data, &len), 0);
	h = (struct hb_frames_header *)data;
	ck_assert_uint_gt(h->records_offset, sizeof(*h)); /* the events lie between */
	h->count = n;
	for (size_t i = 0; i < n; i++) {
		struct hb_frame_record r = { recs[i].t_ns, 77, recs[i].source, 100 };

		memcpy(data + h->records_offset + i * sizeof(r), &r, sizeof(r));
	}
	ck_assert_int_eq(write_file_atomic(path, data, len, 0644), 0);
	free(data);
	ck_assert_int_eq(hb_frames_trim(path), 0);
}

/* Presents every 10 ms from 1000 ms: n of them, source src from index
 * `from` on (the earlier ones glXSwapBuffers). */
static struct rec *presents(size_t n, size_t from, uint16_t src)
{
	struct rec *r = zalloc(n * sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		r[i].t_ns = (1000 + 10 * i) * MS;
		r[i].source = i >= from ? src : HB_SRC_GLX_SWAP_BUFFERS;
	}
	return r;
}

START_TEST(window_counts_by_source)
{
	char *tmp = test_tmpdir(), *path = xasprintf("%s/frames.bin", tmp);
	static const struct rec recs[] = {
		{ 1000 * MS, HB_SRC_GLX_SWAP_BUFFERS },   /* the window's start: no frame of it */
		{ 1010 * MS, HB_SRC_VK_QUEUE_PRESENT },
		{ 0, HB_SRC_VK_QUEUE_PRESENT },           /* unfinished slot */
		{ 1020 * MS, HB_SRC_SDL_RENDER_PRESENT },
		{ 1030 * MS, HB_SRC_VK_QUEUE_PRESENT },   /* the window's end: counted */
		{ 1040 * MS, HB_SRC_EGL_SWAP_BUFFERS },   /* after it */
		{ 1025 * MS, 300 },                       /* a source no build names */
	};
	struct run_window_sources ws;
	struct strbuf sb = STRBUF_INIT;
	const char *why = NULL;

	write_frames(path, recs, ARRAY_SIZE(recs));
	ck_assert_int_eq(run_window_sources(path, 1000 * MS, 1030 * MS, &ws, &why), 0);
	ck_assert_uint_eq(ws.n, 4);
	ck_assert_uint_eq(ws.per_source[HB_SRC_VK_QUEUE_PRESENT], 2);
	ck_assert_uint_eq(ws.per_source[HB_SRC_SDL_RENDER_PRESENT], 1);
	ck_assert_uint_eq(ws.per_source[HB_SRC_UNKNOWN], 1);
	ck_assert_uint_eq(ws.per_source[HB_SRC_GLX_SWAP_BUFFERS], 0);
	run_window_sources_describe(&ws, false, &sb);
	ck_assert_str_eq(sb.buf, "unknown 1, SDL_RenderPresent 1, vkQueuePresentKHR 2");
	strbuf_reset(&sb);
	run_window_sources_describe(&ws, true, &sb);
	ck_assert_str_eq(sb.buf, "unknown 1, SDL_RenderPresent 1");
	strbuf_release(&sb);

	ck_assert_int_eq(run_window_sources("/nonexistent/frames.bin", 0, 1, &ws, &why), -ENOENT);
	ck_assert_int_eq(write_file_atomic(path, "HBFRAMEZ", 8, 0644), 0);
	ck_assert_int_eq(run_window_sources(path, 0, 1, &ws, &why), -EINVAL);
	ck_assert_str_eq(why, "shorter than the frame file header");
	free(path);
	remove_tree(tmp);
	free(tmp);
}
END_TEST

/* A version 1 file: records right after the header, no events. */
START_TEST(window_of_version1_file)
{
	char *tmp = test_tmpdir(), *path = xasprintf("%s/frames.bin", tmp);
	struct hb_frames_header h = { .magic = HB_FRAMES_MAGIC, .version = 1, .header_size = 128,
				      .record_size = 16, .clock_id = 1, .capacity = 3, .count = 3 };
	struct hb_frame_record r[3] = { { 10, 1, HB_SRC_SDL_GL_SWAP_WINDOW, 0 },
					{ 20, 1, HB_SRC_SDL_GL_SWAP_WINDOW, 0 },
					{ 30, 1, HB_SRC_SDL_GL_SWAP_WINDOW, 0 } };
	char buf[sizeof(h) + sizeof(r)];
	struct run_window_sources ws;
	const char *why = NULL;
	char *api;

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), r, sizeof(r));
	ck_assert_int_eq(write_file_atomic(path, buf, sizeof(buf), 0644), 0);
	ck_assert_int_eq(run_window_sources(path, 10, 30, &ws, &why), 0);
	ck_assert_uint_eq(ws.n, 2);
	ck_assert_uint_eq(ws.per_source[HB_SRC_SDL_GL_SWAP_WINDOW], 2);
	api = run_frames_api(&ws);
	ck_assert_str_eq(api, "opengl");
	free(api);
	/* cut short: the records the file holds, no more */
	ck_assert_int_eq(write_file_atomic(path, buf, sizeof(h) + 24, 0644), 0);
	ck_assert_int_eq(run_window_sources(path, 0, 30, &ws, &why), 0);
	ck_assert_uint_eq(ws.n, 1);
	free(path);
	remove_tree(tmp);
	free(tmp);
}
END_TEST

START_TEST(frames_api_words)
{
	static const struct {
		uint64_t counts[RUN_SOURCES];
		const char *want;
	} cases[] = {
		{ { 0 }, "none" },
		{ { [HB_SRC_GLX_SWAP_BUFFERS] = 5, [HB_SRC_EGL_SWAP_BUFFERS] = 2 }, "opengl" },
		{ { [HB_SRC_VK_QUEUE_PRESENT] = 3120 }, "vulkan" },
		{ { [HB_SRC_SDL_RENDER_PRESENT] = 9 }, "sdl-renderer" },
		{ { [HB_SRC_MANGOHUD] = 9 }, "log" },
		{ { [HB_SRC_UNKNOWN] = 1 }, "unknown" },
		{ { [HB_SRC_GLX_SWAP_BUFFERS] = 12, [HB_SRC_VK_QUEUE_PRESENT] = 3000 },
		  "mixed(vulkan 3000, opengl 12)" },
		{ { [HB_SRC_SDL_GL_SWAP_WINDOW] = 4, [HB_SRC_SDL_RENDER_PRESENT] = 4,
		    [HB_SRC_VK_QUEUE_PRESENT] = 1 },
		  "mixed(opengl 4, sdl-renderer 4, vulkan 1)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct run_window_sources ws = { 0 };
		char *api;

		for (unsigned s = 0; s < RUN_SOURCES; s++) {
			ws.per_source[s] = cases[i].counts[s];
			ws.n += cases[i].counts[s];
		}
		api = run_frames_api(&ws);
		ck_assert_str_eq(api, cases[i].want);
		free(api);
	}
}
END_TEST

/* A run directory with this frame_source and these presents (window
 * 1000-1600 ms: 60 frames); run_check()'s answer into why. */
static int check_run(const char *frame_source, const struct rec *recs, size_t n,
		     struct strbuf *why)
{
	char *tmp = test_tmpdir(), *path = xasprintf("%s/frames.bin", tmp);
	char *bench = xasprintf("%s/bench.txt", tmp);
	struct strbuf err = STRBUF_INIT;
	struct kvfile kf;
	struct run run;
	int r;

	write_frames(path, recs, n);
	kvfile_init(&kf);
	kvfile_add(&kf, "format", "1");
	kvfile_add(&kf, "run_id", "3f1e2d4c5b6a47988a9b0c1d2e3f4a5b");
	kvfile_add(&kf, "game", "vkcube");
	kvfile_add(&kf, "variant", "base");
	if (frame_source)
		kvfile_add(&kf, "frame_source", frame_source);
	kvfile_addf(&kf, "window_start_ns", "%llu", 1000 * MS);
	kvfile_addf(&kf, "window_end_ns", "%llu", 1600 * MS);
	kvfile_add(&kf, "status", "ok");
	ck_assert_int_eq(kvfile_write(&kf, bench), 0);
	kvfile_release(&kf);
	ck_assert_msg(run_load(tmp, &run, &err) == 0, "%s", err.buf);
	r = run_check(&run, NULL, why);
	run_release(&run);
	strbuf_release(&err);
	free(bench);
	free(path);
	remove_tree(tmp);
	free(tmp);
	return r;
}

START_TEST(vulkan_run_from_vulkan)
{
	struct rec *r = presents(61, 0, HB_SRC_VK_QUEUE_PRESENT);
	struct strbuf why = STRBUF_INIT;

	ck_assert_msg(check_run("vulkan", r, 61, &why) == 0, "%s", why.buf);
	ck_assert_uint_eq(why.len, 0);
	free(r);
	strbuf_release(&why);
}
END_TEST

/* All GL: invalid, and the reason says what the game presented through. */
START_TEST(vulkan_run_from_gl)
{
	struct rec *r = presents(61, 61, HB_SRC_VK_QUEUE_PRESENT);
	struct strbuf why = STRBUF_INIT;

	ck_assert_int_eq(check_run("vulkan", r, 61, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "frames = vulkan, but the window's 60 presents came from "
			 "glXSwapBuffers: the game did not render through Vulkan");
	/* the same frames with frames = hook, or in a run from before
	 * frame_source, are fine */
	strbuf_reset(&why);
	ck_assert_int_eq(check_run("hook", r, 61, &why), 0);
	ck_assert_int_eq(check_run(NULL, r, 61, &why), 0);
	free(r);
	strbuf_release(&why);
}
END_TEST

/* Vulkan from frame 21 on: 20 of the window's frames are GL's. The
 * present at the window's start (frame 0's) is no frame of it. */
START_TEST(vulkan_run_mixed)
{
	struct rec *r = presents(61, 21, HB_SRC_VK_QUEUE_PRESENT);
	struct strbuf why = STRBUF_INIT;

	r[5].source = HB_SRC_SDL_RENDER_PRESENT;
	ck_assert_int_eq(check_run("vulkan", r, 61, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "frames = vulkan, but 20 of the window's 60 presents came from "
			 "glXSwapBuffers 19, SDL_RenderPresent 1, not vkQueuePresentKHR");
	/* only the first present is GL's: before the window, fine */
	free(r);
	r = presents(61, 1, HB_SRC_VK_QUEUE_PRESENT);
	strbuf_reset(&why);
	ck_assert_msg(check_run("vulkan", r, 61, &why) == 0, "%s", why.buf);
	free(r);
	strbuf_release(&why);
}
END_TEST

/* The rule is the last: a run that fails an earlier one says that. */
START_TEST(vulkan_rule_after_min_frames)
{
	struct rec *r = presents(11, 11, HB_SRC_VK_QUEUE_PRESENT);
	struct strbuf why = STRBUF_INIT;

	ck_assert_int_eq(check_run("vulkan", r, 11, &why), -EINVAL);
	ck_assert(str_startswith(why.buf, "the window holds 10 frames, fewer than the minimum"));
	free(r);
	strbuf_release(&why);
}
END_TEST

TEST_SUITE(frameapi_suite)
{
	Suite *s = suite_create("frameapi");
	TCase *tc = tcase_create("sources");

	tcase_add_test(tc, window_counts_by_source);
	tcase_add_test(tc, window_of_version1_file);
	tcase_add_test(tc, frames_api_words);
	suite_add_tcase(s, tc);
	tc = tcase_create("frames_vulkan");
	tcase_add_test(tc, vulkan_run_from_vulkan);
	tcase_add_test(tc, vulkan_run_from_gl);
	tcase_add_test(tc, vulkan_run_mixed);
	tcase_add_test(tc, vulkan_rule_after_min_frames);
	suite_add_tcase(s, tc);
	return s;
}
