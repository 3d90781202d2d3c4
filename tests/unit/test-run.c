/*
 * analysis/run/run.c: a run directory written the way the runner writes one
 * (bench.txt through kvfile_write, frames.bin created, filled as the hook
 * fills it, then trimmed) loads back with its fields, window and frames;
 * directories that are not runs, or are runs of a newer format, are
 * refused with a message that names the file. Run integrity
 * (analysis/run/run-check.c) on copies of a real recorded run: each way its
 * data can be broken is refused with its reason, and a whole copy passes.
 * The host's noise (bench.txt noise.*) on such copies: cpu_ms_per_frame
 * counts the frames of (noise.t0_ns, noise.t1_ns] right at both edges,
 * the figures are bench.txt's, absent keys and steal "-" leave them unset,
 * and a noise number that does not parse makes the run invalid with its
 * line.
 */
#include "formats/frames.h"
#include "text/kvfile.h"
#include "metrics/metrics.h"
#include "run/run.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
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

		ck_assert_int_eq(pwrite(fd, &r, sizeof(r), (off_t)(h.records_offset + i * sizeof(r))),
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

/* ---- run integrity (analysis/run/run-check.c), on copies of a real run ---- */

/* The gl run of tests/fixtures/runs: 362 records, a 6 s window of 335
 * frames at about 56 fps, bench.txt's window_start_ns on line 43. */
#define REAL_RUN "runs/20261130T120715Z-dsda-doom-gl"

/* Copies the real run's bench.txt and frames.bin into dir. */
static void copy_real_run(void)
{
	static const char *const files[] = { "bench.txt", "frames.bin" };
	char rel[128];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *to = xasprintf("%s/%s", dir, files[i]);

		snprintf(rel, sizeof(rel), REAL_RUN "/%s", files[i]);
		ck_assert_int_eq(copy_file(fixture_path(rel), to, 0644), 0);
		free(to);
	}
}

/* Sets KEY=VALUE in the copy's bench.txt (in place, keeping its line). */
static void bench_set(const char *key, const char *value)
{
	char *path = xasprintf("%s/bench.txt", dir);
	struct kvfile kf;
	int line = 0;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_read(&kf, path, &line), 0);
	kvfile_set(&kf, key, value);
	ck_assert_int_eq(kvfile_write(&kf, path), 0);
	kvfile_release(&kf);
	free(path);
}

static uint64_t bench_u64(const struct run *run, const char *key)
{
	uint64_t v = 0;

	ck_assert_int_eq(safe_atou64(kvfile_get(&run->bench, key), &v), 0);
	return v;
}

/* Loads the copy; run_check() with opts gives want (0 or -EINVAL) and, on
 * failure, a reason containing each of the NULL-terminated strings. */
static void expect_check(struct run *run, const struct metric_opts *opts, int want, ...)
{
	struct strbuf why = STRBUF_INIT, err = STRBUF_INIT;
	const char *s;
	va_list ap;

	ck_assert_msg(run_load(dir, run, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(run_check(run, opts, &why), want);
	va_start(ap, want);
	while ((s = va_arg(ap, const char *)))
		ck_assert_msg(strstr(why.buf, s), "reason '%s' lacks '%s'", why.buf, s);
	va_end(ap);
	strbuf_release(&why);
	strbuf_release(&err);
}

START_TEST(check_real_run_whole)
{
	struct run run;

	copy_real_run();
	expect_check(&run, NULL, 0, NULL);
	ck_assert_uint_eq(run.frames.header_records, 362);
	ck_assert_uint_eq(run.frames.file_records, 362);
	ck_assert(!hb_frames_cut(&run.frames));
	ck_assert_int_eq(run_validate(&run, NULL), 0);
	ck_assert_str_eq(run.status, "ok");
	ck_assert_ptr_null(run.invalid);
	run_release(&run);
}
END_TEST

START_TEST(check_cut_frames)
{
	char *path = xasprintf("%s/frames.bin", dir);
	struct run run;

	copy_real_run();
	ck_assert_int_eq(truncate(path, 1001), 0);
	expect_check(&run, NULL, -EINVAL, "frames.bin: 362 records in the header, 54 in the file",
		     NULL);
	/* what is there was read, and the reader was told */
	ck_assert(hb_frames_cut(&run.frames));
	ck_assert_uint_eq(run.frames.n, 54);
	ck_assert_int_eq(run_validate(&run, NULL), -EINVAL);
	ck_assert_str_eq(run.status, "invalid");
	ck_assert_str_eq(run.recorded_status, "ok");
	ck_assert_str_eq(run.invalid, "frames.bin: 362 records in the header, 54 in the file");
	run_release(&run);
	free(path);
}
END_TEST

START_TEST(check_untrimmed_frames_whole)
{
	/* the runner's file before the trim is sized to its capacity: whole */
	char *path = xasprintf("%s/frames.bin", dir);
	struct run run;

	copy_real_run();
	ck_assert_int_eq(truncate(path, 128 + 1000 * 16), 0);
	expect_check(&run, NULL, 0, NULL);
	ck_assert_uint_eq(run.frames.file_records, 1000);
	ck_assert_uint_eq(run.frames.n, 362);
	run_release(&run);
	free(path);
}
END_TEST

START_TEST(check_numbers_parse)
{
	static const char *const cases[][3] = {
		{ "window_start_ns", "abc", "bench.txt:43: window_start_ns=abc is not a number" },
		{ "window_end_ns", "12e", "window_end_ns=12e is not a number" },
		{ "first_frame_ns", "-1", "first_frame_ns=-1 is not a number" },
		{ "pass.1.start_ns", "soon", "pass.1.start_ns=soon is not a number" },
		{ "warmup_s", "two", "warmup_s=two is not a number" },
		{ "window_s", "nan", "window_s=nan is not a number" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct run run;

		copy_real_run();
		bench_set(cases[i][0], cases[i][1]);
		expect_check(&run, NULL, -EINVAL, cases[i][2], NULL);
		run_release(&run);
	}
}
END_TEST

START_TEST(check_window_outside_frames)
{
	struct run run;
	uint64_t first, last;
	char v[32];

	copy_real_run();
	expect_check(&run, NULL, 0, NULL);
	first = run.frames.t_ns[0];
	last = run.frames.t_ns[run.frames.n - 1];
	run_release(&run);

	/* after the last frame: a warm-up longer than the recording */
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(last + 1000 * MS));
	bench_set("window_start_ns", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(last + 2000 * MS));
	bench_set("window_end_ns", v);
	expect_check(&run, NULL, -EINVAL, "the window starts at", "after the last frame", NULL);
	run_release(&run);

	/* before the first present */
	bench_set("window_start_ns", "1");
	snprintf(v, sizeof(v), "%llu", (unsigned long long)first);
	bench_set("window_end_ns", v);
	expect_check(&run, NULL, -EINVAL, "before the first present", NULL);
	run_release(&run);

	/* reversed */
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(first + 3000 * MS));
	bench_set("window_start_ns", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(first + 2000 * MS));
	bench_set("window_end_ns", v);
	expect_check(&run, NULL, -EINVAL, "before it starts", NULL);
	run_release(&run);
}
END_TEST

START_TEST(check_min_frames)
{
	struct metric_opts none = METRIC_OPTS_DEFAULT, many = METRIC_OPTS_DEFAULT;
	struct run run;
	char v[32];

	copy_real_run();
	expect_check(&run, NULL, 0, NULL);
	/* the first half second of its window: 17 frames */
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(bench_u64(&run, "window_start_ns") + 500 * MS));
	run_release(&run);
	bench_set("window_end_ns", v);
	expect_check(&run, NULL, -EINVAL, "the window holds 17 frames, fewer than the minimum of 50",
		     NULL);
	run_release(&run);
	none.min_frames = 0;
	expect_check(&run, &none, 0, NULL);
	/* run_validate() decides again with other options */
	ck_assert_int_eq(run_validate(&run, NULL), -EINVAL);
	ck_assert_str_eq(run.status, "invalid");
	ck_assert_int_eq(run_validate(&run, &none), 0);
	ck_assert_str_eq(run.status, "ok");
	ck_assert_ptr_null(run.invalid);
	run_release(&run);
	/* the whole window, against a minimum above its 335 frames */
	copy_real_run();
	many.min_frames = 336;
	expect_check(&run, &many, -EINVAL, "the window holds 335 frames, fewer than the minimum of 336",
		     NULL);
	run_release(&run);
}
END_TEST

START_TEST(check_leaves_failed_runs)
{
	char *path = xasprintf("%s/frames.bin", dir);
	struct strbuf err = STRBUF_INIT;
	struct run run;

	copy_real_run();
	bench_set("status", "failed");
	ck_assert_int_eq(truncate(path, 1001), 0);
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(run_validate(&run, NULL), 0);
	ck_assert_str_eq(run.status, "failed");
	ck_assert_ptr_null(run.invalid);
	run_release(&run);
	strbuf_release(&err);
	free(path);
}
END_TEST

START_TEST(interval_run_no_per_frame_metrics)
{
	struct strbuf err = STRBUF_INIT;
	struct metrics m;
	struct run run;

	copy_real_run();
	bench_set("frame_source_kind", "interval");
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert(run_is_interval(&run));
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	for (int i = 0; i < M_COUNT; i++)
		if (metric_is_per_frame((enum metric_id)i))
			ck_assert_msg(!m.have[i], "%s is set for an interval run", metric_defs[i].name);
	ck_assert(m.have[M_FPS]);
	ck_assert(m.have[M_WINDOW_S]);
	ck_assert(metric_is_per_frame(M_P99_MS) && metric_is_per_frame(M_STALLS) &&
		  metric_is_per_frame(M_LONGEST_MS) && metric_is_per_frame(M_LOW1));
	run_release(&run);
	strbuf_release(&err);
}
END_TEST

START_TEST(result_says_invalid)
{
	struct metric_opts o = METRIC_OPTS_DEFAULT;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/frames.bin", dir), *res = xasprintf("%s/result.txt", dir);
	struct kvfile kf;
	int line = 0;

	copy_real_run();
	ck_assert_int_eq(truncate(path, 1001), 0);
	ck_assert_msg(run_write_result(dir, "ok", &o, &err) == 0, "%s", err.buf);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_read(&kf, res, &line), 0);
	ck_assert_str_eq(kvfile_get(&kf, "status"), "invalid");
	ck_assert_str_eq(kvfile_get(&kf, "check_failed"),
			 "frames.bin: 362 records in the header, 54 in the file");
	kvfile_release(&kf);
	/* a whole copy says ok and no check_failed */
	copy_real_run();
	ck_assert_msg(run_write_result(dir, "ok", &o, &err) == 0, "%s", err.buf);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_read(&kf, res, &line), 0);
	ck_assert_str_eq(kvfile_get(&kf, "status"), "ok");
	ck_assert_ptr_null(kvfile_get(&kf, "check_failed"));
	kvfile_release(&kf);
	strbuf_release(&err);
	free(path);
	free(res);
}
END_TEST

/* ---- the host's noise (bench.txt noise.*) as metrics, on copies of a real run ---- */

/* The line of KEY= in the copy's bench.txt, counted here from the file
 * (1-based), 0 when it is not there. */
static int bench_line_of(const char *key)
{
	char *path = xasprintf("%s/bench.txt", dir), *buf = NULL, *p;
	size_t len, klen = strlen(key);
	int line = 1, found = 0;

	ck_assert_int_eq(read_file(path, &buf, &len), 0);
	for (p = buf; p && *p; line++) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			found = line;
			break;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	free(buf);
	free(path);
	return found;
}

/* The noise keys a run made with them has (docs/formats.md "Host noise"),
 * over (t0, t1], but for the key WITHOUT (NULL: all of them). */
static void bench_set_noise_without(uint64_t t0, uint64_t t1, const char *without)
{
	static const char *const kv[][2] = {
		{ "noise.cpus", "2" },
		{ "noise.steal_pct", "0.41" },
		{ "noise.steal", "proc/stat steal; worst cpu1 0.60%" },
		{ "noise.irq_pct", "0.85" },
		{ "noise.softirq_pct", "0.30" },
		{ "noise.foreign_cpu_pct", "2.13" },
		{ "noise.run_cpu_ms", "6400.000" },
		{ "noise.game_cpu_ms", "1234.500" },
		{ "noise.game_runq_ms", "55.020" },
		{ "noise.game_runq_ms_per_s", "9.17" },
		{ "noise.cost_us", "118" },
	};
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t0);
	bench_set("noise.t0_ns", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t1);
	bench_set("noise.t1_ns", buf);
	for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
		if (!without || strcmp(kv[i][0], without) != 0)
			bench_set(kv[i][0], kv[i][1]);
}

static void bench_set_noise(uint64_t t0, uint64_t t1)
{
	bench_set_noise_without(t0, t1, NULL);
}

/* The copy's present times, loaded once without the noise keys. */
static struct run load_plain(void)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;

	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
	ck_assert_uint_ge(run.frames.n, 200);
	return run;
}

static void load_metrics(struct run *run, struct metrics *m)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(run_load(dir, run, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(run_validate(run, NULL), 0);
	ck_assert_int_eq(run_metrics(run, NULL, m), 0);
	strbuf_release(&err);
}

/* A fresh copy of the real run (no noise keys); its window's start. */
static uint64_t copy_window_start(void)
{
	struct run run;
	uint64_t ws;

	copy_real_run();
	run = load_plain();
	ws = run.window_start_ns;
	run_release(&run);
	return ws;
}

START_TEST(noise_cpu_ms_per_frame_edges)
{
	struct run plain, run;
	struct metrics m;
	uint64_t t10, t110;

	copy_real_run();
	plain = load_plain();
	t10 = plain.frames.t_ns[10];
	t110 = plain.frames.t_ns[110];
	ck_assert(plain.frames.t_ns[9] < t10 && t10 < plain.frames.t_ns[11]);
	ck_assert(plain.frames.t_ns[109] < t110 && t110 < plain.frames.t_ns[111]);
	run_release(&plain);

	/* (t10, t110]: presents 11 to 110 end a frame in it, 100 frames; the
	 * one at t0 does not (it ends the frame before), the one at t1 does */
	bench_set_noise(t10, t110);
	load_metrics(&run, &m);
	ck_assert(m.have[M_CPU_MS_PER_FRAME]);
	ck_assert_double_eq_tol(m.v[M_CPU_MS_PER_FRAME], 1234.5 / 100, 1e-12);
	run_release(&run);
	/* a nanosecond earlier, present 10 is in: 101 frames */
	bench_set_noise(t10 - 1, t110);
	load_metrics(&run, &m);
	ck_assert_double_eq_tol(m.v[M_CPU_MS_PER_FRAME], 1234.5 / 101, 1e-12);
	run_release(&run);
	/* an end a nanosecond before present 110 leaves it out: 99 */
	bench_set_noise(t10, t110 - 1);
	load_metrics(&run, &m);
	ck_assert_double_eq_tol(m.v[M_CPU_MS_PER_FRAME], 1234.5 / 99, 1e-12);
	/* the figures as bench.txt has them */
	ck_assert(m.have[M_STEAL_PCT] && m.have[M_FOREIGN_CPU_PCT] && m.have[M_IRQ_PCT] &&
		  m.have[M_GAME_RUNQ_MS_PER_S]);
	ck_assert_double_eq(m.v[M_STEAL_PCT], 0.41);
	ck_assert_double_eq(m.v[M_FOREIGN_CPU_PCT], 2.13);
	ck_assert_double_eq(m.v[M_IRQ_PCT], 0.85);
	ck_assert_double_eq(m.v[M_GAME_RUNQ_MS_PER_S], 9.17);
	run_release(&run);
}
END_TEST

START_TEST(noise_absent_undefined)
{
	static const enum metric_id noise[] = {
		M_CPU_MS_PER_FRAME, M_STEAL_PCT, M_FOREIGN_CPU_PCT, M_IRQ_PCT, M_GAME_RUNQ_MS_PER_S,
	};
	struct run run;
	struct metrics m, with;
	uint64_t ws;
	char buf[16];

	/* the real run as recorded has no noise keys: none of the five, and
	 * the rest as before */
	copy_real_run();
	load_metrics(&run, &m);
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		ck_assert_msg(!m.have[noise[i]], "%s set without noise keys", metric_defs[noise[i]].name);
	ck_assert_double_eq(m.v[M_FRAMES], 335);
	ws = run.window_start_ns;
	run_release(&run);
	bench_set_noise(ws, ws + 6000000000ull);
	load_metrics(&run, &with);
	ck_assert_double_eq(with.v[M_FRAMES], m.v[M_FRAMES]);
	ck_assert_double_eq(with.v[M_FPS], m.v[M_FPS]);
	run_release(&run);
	metrics_noise_summary(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
}
END_TEST

START_TEST(noise_partial_undefined)
{
	struct run run;
	struct metrics m;
	char buf[32];
	uint64_t ws;

	ws = copy_window_start();
	/* no steal clock: steal unset, the run still whole and the rest set */
	bench_set_noise(ws, ws + 6000000000ull);
	bench_set("noise.steal_pct", "-");
	bench_set("noise.steal", "no steal clock: no hypervisor flag in /proc/cpuinfo");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_STEAL_PCT]);
	ck_assert(m.have[M_FOREIGN_CPU_PCT] && m.have[M_CPU_MS_PER_FRAME]);
	ck_assert_double_eq_tol(m.v[M_CPU_MS_PER_FRAME], 1234.5 / 335, 1e-12);
	metrics_noise_summary(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "st- fg2.1 rq9");
	m.have[M_STEAL_PCT] = true;
	m.v[M_STEAL_PCT] = 0.41;
	metrics_noise_summary(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "st0.4 fg2.1 rq9");
	/* a buffer too small is cut, never overrun */
	metrics_noise_summary(&m, buf, 8);
	ck_assert_str_eq(buf, "st0.4 f");
	run_release(&run);

	/* an interval that ends before it starts, or holds no frame: no
	 * CPU time a frame, the figures stay */
	bench_set("noise.t1_ns", "1");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_CPU_MS_PER_FRAME]);
	ck_assert(m.have[M_IRQ_PCT]);
	run_release(&run);
	bench_set("noise.t0_ns", "0");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_CPU_MS_PER_FRAME]);
	run_release(&run);
	/* no game CPU time: unset, the figures stay */
	copy_real_run();
	bench_set_noise_without(ws, ws + 6000000000ull, "noise.game_cpu_ms");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_CPU_MS_PER_FRAME]);
	ck_assert(m.have[M_STEAL_PCT]);
	run_release(&run);
	/* no run-queue figure (no schedstat): rq- */
	copy_real_run();
	bench_set_noise_without(ws, ws + 6000000000ull, "noise.game_runq_ms_per_s");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_GAME_RUNQ_MS_PER_S]);
	metrics_noise_summary(&m, buf, sizeof(buf));
	ck_assert_str_eq(buf, "st0.4 fg2.1 rq-");
	run_release(&run);
}
END_TEST

START_TEST(noise_bad_number_refused)
{
	static const char *const keys[] = {
		"noise.t0_ns", "noise.t1_ns", "noise.game_cpu_ms", "noise.steal_pct",
		"noise.foreign_cpu_pct", "noise.irq_pct", "noise.game_runq_ms_per_s",
	};
	static const char *const bad[] = { "abc", "-1", "0x10", "inf", "1.5e" };
	struct run run;
	uint64_t ws;

	ws = copy_window_start();
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		for (size_t b = 0; b < ARRAY_SIZE(bad); b++) {
			char *want;

			bench_set_noise(ws, ws + 6000000000ull);
			bench_set(keys[k], bad[b]);
			want = xasprintf("bench.txt:%d: %s=%s is not a number", bench_line_of(keys[k]),
					 keys[k], bad[b]);
			ck_assert_int_gt(bench_line_of(keys[k]), 43);
			expect_check(&run, NULL, -EINVAL, want, NULL);
			ck_assert_int_eq(run_validate(&run, NULL), -EINVAL);
			ck_assert_str_eq(run.status, "invalid");
			ck_assert_str_eq(run.invalid, want);
			run_release(&run);
			free(want);
		}
	}
	/* "-" is steal's word for no steal clock, no other figure's */
	bench_set_noise(ws, ws + 6000000000ull);
	bench_set("noise.steal_pct", "-");
	expect_check(&run, NULL, 0, NULL);
	run_release(&run);
	bench_set("noise.irq_pct", "-");
	expect_check(&run, NULL, -EINVAL, "noise.irq_pct=- is not a number", NULL);
	run_release(&run);
	/* keys the analysis does not read are the runner's to word */
	bench_set_noise(ws, ws + 6000000000ull);
	bench_set("noise.steal", "no steal clock: guest whose steal counter is 0");
	bench_set("noise.cost_us", "n/a");
	expect_check(&run, NULL, 0, NULL);
	run_release(&run);
}
END_TEST

START_TEST(noise_interval_run)
{
	struct run run;
	struct metrics m;
	uint64_t ws;

	ws = copy_window_start();
	/* samples are not frames: no CPU time a frame, the host's figures stay */
	bench_set_noise(ws, ws + 6000000000ull);
	bench_set("frame_source_kind", "interval");
	load_metrics(&run, &m);
	ck_assert(!m.have[M_CPU_MS_PER_FRAME]);
	ck_assert(m.have[M_STEAL_PCT]);
	run_release(&run);
}
END_TEST

/* pass.N.start_ns: N in digits, 1 to INT_MAX; a key past an int is no
 * pass key (it wrapped with sscanf's %d) */
START_TEST(pass_keys)
{
	int pass = 0;

	ck_assert(run_pass_start_key("pass.1.start_ns", &pass));
	ck_assert_int_eq(pass, 1);
	ck_assert(run_pass_start_key("pass.2147483647.start_ns", &pass));
	ck_assert_int_eq(pass, 2147483647);
	for (const char *const *bad = (const char *const[]){ "pass.0.start_ns", "pass.4294967297.start_ns",
				"pass.-1.start_ns", "pass.+1.start_ns", "pass. 1.start_ns", "pass.1x.start_ns",
				"pass..start_ns", "pass.1.start_nsx", "pass.1.start", "xpass.1.start_ns",
				"pass.99999999999999999999.start_ns", NULL }; *bad; bad++)
		ck_assert_msg(!run_pass_start_key(*bad, &pass), "%s taken", *bad);
}
END_TEST

TEST_SUITE(run_suite)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("run_load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_complete);
	tcase_add_test(tc, pass_keys);
	tcase_add_test(tc, load_trailing_slash);
	tcase_add_test(tc, load_without_frames_or_window);
	tcase_add_test(tc, refuse_missing_bench);
	tcase_add_test(tc, refuse_newer_format);
	tcase_add_test(tc, refuse_bad_format);
	tcase_add_test(tc, refuse_missing_run_id);
	tcase_add_test(tc, refuse_bad_line);
	tcase_add_test(tc, refuse_bad_frames);
	suite_add_tcase(s, tc);
	tc = tcase_create("run_check");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, check_real_run_whole);
	tcase_add_test(tc, check_cut_frames);
	tcase_add_test(tc, check_untrimmed_frames_whole);
	tcase_add_test(tc, check_numbers_parse);
	tcase_add_test(tc, check_window_outside_frames);
	tcase_add_test(tc, check_min_frames);
	tcase_add_test(tc, check_leaves_failed_runs);
	tcase_add_test(tc, interval_run_no_per_frame_metrics);
	tcase_add_test(tc, result_says_invalid);
	suite_add_tcase(s, tc);
	tc = tcase_create("noise");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, noise_cpu_ms_per_frame_edges);
	tcase_add_test(tc, noise_absent_undefined);
	tcase_add_test(tc, noise_partial_undefined);
	tcase_add_test(tc, noise_bad_number_refused);
	tcase_add_test(tc, noise_interval_run);
	suite_add_tcase(s, tc);
	return s;
}
