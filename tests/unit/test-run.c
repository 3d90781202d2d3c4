/*
 * analysis/run.c: a run directory written the way the runner writes one
 * (bench.txt through kvfile_write, frames.bin created, filled as the hook
 * fills it, then trimmed) loads back with its fields, window and frames;
 * directories that are not runs, or are runs of a newer format, are
 * refused with a message that names the file.
 */
#include "frames.h"
#include "kvfile.h"
#include "metrics.h"
#include "run.h"
#include "test.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull
#define RUN_ID "3f1e2d4c5b6a47988a9b0c1d2e3f4a5b" /* 32 hex digits, as docs/formats.md says */

static char *tmp;
static char *dir;

/* Keys to leave out of, or change in, bench.txt. */
struct bench_opts {
	const char *format;   /* NULL: "1" */
	bool no_run_id;
	bool no_window;
};

static void write_bench(const struct bench_opts *o)
{
	struct kvfile kf;
	char *path = xasprintf("%s/bench.txt", dir);

	kvfile_init(&kf);
	kvfile_add(&kf, "format", o->format ? o->format : "1");
	if (!o->no_run_id)
		kvfile_add(&kf, "run_id", RUN_ID);
	kvfile_add(&kf, "game", "doom");
	kvfile_add(&kf, "variant", "freedoom2-demo2");
	kvfile_add(&kf, "status", "ok");
	kvfile_add(&kf, "command", "dsda-doom -iwad 'freedoom2.wad'\n-timedemo demo2");
	if (!o->no_window) {
		kvfile_addf(&kf, "window_start_ns", "%llu", 1000 * MS);
		kvfile_addf(&kf, "window_end_ns", "%llu", 1030 * MS);
	}
	ck_assert_int_eq(kvfile_write(&kf, path), 0);
	kvfile_release(&kf);
	free(path);
}

/* Presents at 1000, 1010, 1020, 1030 ms, and one unfinished slot. */
static void write_frames(void)
{
	static const uint64_t t[] = { 1010 * MS, 1000 * MS, 0, 1030 * MS, 1020 * MS };
	char *path = xasprintf("%s/frames.bin", dir);
	struct hb_frames_header h;
	int fd;

	ck_assert_int_eq(hb_frames_create(path, 1000, 0644), 0);
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	h.count = ARRAY_SIZE(t);
	h.hooked_procs = 1;
	ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct hb_frame_record r = { t[i], 4242, HB_SRC_SDL_GL_SWAP_WINDOW, 250 };

		ck_assert_int_eq(pwrite(fd, &r, sizeof(r), (off_t)(sizeof(h) + i * sizeof(r))),
				 sizeof(r));
	}
	close(fd);
	ck_assert_int_eq(hb_frames_trim(path), 0);
	free(path);
}

static void setup(void)
{
	tmp = test_tmpdir();
	dir = xasprintf("%s/2026-11-30T113546-doom-1", tmp);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
	free(dir);
}

START_TEST(load_complete)
{
	struct bench_opts o = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct run run;
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct metrics m;

	write_bench(&o);
	write_frames();
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(err.len, 0);
	ck_assert_str_eq(run.dir, dir);
	ck_assert_str_eq(run.name, "2026-11-30T113546-doom-1");
	ck_assert_str_eq(run.id, RUN_ID);
	ck_assert_str_eq(run.game, "doom");
	ck_assert_str_eq(run.variant, "freedoom2-demo2");
	ck_assert_str_eq(run.status, "ok");
	ck_assert_str_eq(kvfile_get(&run.bench, "command"),
			 "dsda-doom -iwad 'freedoom2.wad'\n-timedemo demo2");
	ck_assert_str_eq(run.bench.items[0].key, "format"); /* order kept */
	ck_assert(run.have_window);
	ck_assert_uint_eq(run.window_start_ns, 1000 * MS);
	ck_assert_uint_eq(run.window_end_ns, 1030 * MS);
	ck_assert(run.have_frames);
	ck_assert_uint_eq(run.frames.n, 4);
	ck_assert_uint_eq(run.frames.unfinished, 1);
	ck_assert_uint_eq(run.frames.t_ns[0], 1000 * MS);
	ck_assert_uint_eq(run.frames.t_ns[3], 1030 * MS);
	ck_assert_uint_eq(run.frames.per_source[HB_SRC_SDL_GL_SWAP_WINDOW], 4);
	ck_assert_uint_eq(run.frames.hooked_procs, 1);

	/* three 10 ms frames end in (1000 ms, 1030 ms] */
	ck_assert_int_eq(run_metrics(&run, &mo, &m), 0);
	ck_assert(m.have[M_FRAMES]);
	ck_assert_double_eq(m.v[M_FRAMES], 3);
	ck_assert_double_eq(m.v[M_P50_MS], 10);
	run_release(&run);
	ck_assert_ptr_null(run.dir);
	run_release(&run);
	run_release(NULL);
	strbuf_release(&err);
}
END_TEST

START_TEST(load_trailing_slash)
{
	struct bench_opts o = { 0 };
	struct strbuf err = STRBUF_INIT;
	char *slashed = xasprintf("%s//", dir);
	struct run run;

	write_bench(&o);
	ck_assert_msg(run_load(slashed, &run, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(run.dir, dir);
	ck_assert_str_eq(run.name, "2026-11-30T113546-doom-1");
	run_release(&run);
	free(slashed);
	strbuf_release(&err);
}
END_TEST

START_TEST(load_without_frames_or_window)
{
	struct bench_opts o = { .no_window = true };
	struct strbuf err = STRBUF_INIT;
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct metrics m;
	struct run run;
	char *frames = xasprintf("%s/frames.bin", dir);

	/* a failed run: neither frames nor window */
	write_bench(&o);
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert(!run.have_window);
	ck_assert(!run.have_frames);
	ck_assert_int_eq(run_metrics(&run, &mo, &m), -ENODATA);
	run_release(&run);

	/* frames but no window */
	write_frames();
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert(run.have_frames);
	ck_assert(!run.have_window);
	ck_assert_int_eq(run_metrics(&run, &mo, &m), -ENODATA);
	run_release(&run);

	/* a window but no frames */
	o.no_window = false;
	write_bench(&o);
	ck_assert_int_eq(unlink(frames), 0);
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert(run.have_window);
	ck_assert(!run.have_frames);
	ck_assert_int_eq(run_metrics(&run, &mo, &m), -ENODATA);
	run_release(&run);
	free(frames);
	strbuf_release(&err);
}
END_TEST

/* run_load fails with r and an error message containing each of want. */
static void expect_refused(int want_r, const char *want1, const char *want2)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;

	memset(&run, 0x5a, sizeof(run));
	ck_assert_int_eq(run_load(dir, &run, &err), want_r);
	ck_assert_msg(err.len > 0, "no message");
	ck_assert_msg(strstr(err.buf, want1), "message [%s] lacks [%s]", err.buf, want1);
	if (want2)
		ck_assert_msg(strstr(err.buf, want2), "message [%s] lacks [%s]", err.buf, want2);
	ck_assert_msg(((unsigned char *)&run)[0] == 0x5a, "output written on failure");
	strbuf_release(&err);
}

START_TEST(refuse_missing_bench)
{
	char *path = xasprintf("%s/bench.txt", dir);

	expect_refused(-ENOENT, path, NULL);
	free(path);
}
END_TEST

START_TEST(refuse_newer_format)
{
	struct bench_opts o = { .format = "2" };
	char *path = xasprintf("%s/bench.txt", dir);

	write_bench(&o);
	expect_refused(-EINVAL, path, "format 2");
	free(path);
}
END_TEST

START_TEST(refuse_bad_format)
{
	struct bench_opts o = { .format = "one" };
	char *path = xasprintf("%s/bench.txt", dir);

	write_bench(&o);
	expect_refused(-EINVAL, path, "format");
	ck_assert_int_eq(write_file_atomic(path, "game=doom\n", 10, 0644), 0);
	expect_refused(-EINVAL, path, "format");
	free(path);
}
END_TEST

START_TEST(refuse_missing_run_id)
{
	struct bench_opts o = { .no_run_id = true };
	char *path = xasprintf("%s/bench.txt", dir);

	write_bench(&o);
	expect_refused(-EINVAL, path, "run_id");
	free(path);
}
END_TEST

START_TEST(refuse_bad_line)
{
	char *path = xasprintf("%s/bench.txt", dir);
	char *where = xasprintf("%s:3:", path);
	const char *text = "format=1\nrun_id=x\nthis line has no equals sign\n";

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
	expect_refused(-EINVAL, where, NULL);
	free(path);
	free(where);
}
END_TEST

START_TEST(refuse_bad_frames)
{
	struct bench_opts o = { 0 };
	char *path = xasprintf("%s/frames.bin", dir);

	write_bench(&o);
	ck_assert_int_eq(write_file_atomic(path, "not frames", 10, 0644), 0);
	expect_refused(-EINVAL, path, "header");
	free(path);
}
END_TEST

TEST_SUITE(run_suite)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("run_load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_complete);
	tcase_add_test(tc, load_trailing_slash);
	tcase_add_test(tc, load_without_frames_or_window);
	tcase_add_test(tc, refuse_missing_bench);
	tcase_add_test(tc, refuse_newer_format);
	tcase_add_test(tc, refuse_bad_format);
	tcase_add_test(tc, refuse_missing_run_id);
	tcase_add_test(tc, refuse_bad_line);
	tcase_add_test(tc, refuse_bad_frames);
	suite_add_tcase(s, tc);
	return s;
}
