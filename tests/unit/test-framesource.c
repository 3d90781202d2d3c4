/*
 * Frame sources other than the hook (bench/runner/framesource.c): the game's
 * environment for them, the placement of a log on the hook's clock, and
 * collecting a real MangoHud 0.6.8 log and a Gallium HUD dump into a run
 * directory beside a hook frame file made to match.
 */
#include "test.h"

#include "runner/framesource.h"
#include "formats/frames.h"
#include "import/import.h"
#include "runner/stage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MANGOHUD_LOG "mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37"

static const char *env_get(const struct argv_list *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

START_TEST(env_per_source)
{
	struct argv_list env;

	argv_init(&env);
	framesource_env(&env, FRAMES_MANGOHUD, "/s/home", 6.2);
	ck_assert_str_eq(env_get(&env, "MANGOHUD"), "1");
	/* logging from 1 s after load, for warm-up + window rounded up + 1 s,
	 * and 8 s of a first frame's delay */
	ck_assert_str_eq(env_get(&env, "MANGOHUD_CONFIG"),
			 "output_folder=/s/home/.hitchbench-mangohud,autostart_log=1,log_interval=0,"
			 "log_duration=16,no_display");
	ck_assert_ptr_nonnull(strstr(framesource_preload(FRAMES_MANGOHUD), "libMangoHud_dlsym.so"));
	argv_release(&env);

	argv_init(&env);
	framesource_env(&env, FRAMES_GALLIUM_HUD, "/s/home", 6.2);
	ck_assert_str_eq(env_get(&env, "GALLIUM_HUD"), "frametime");
	ck_assert_str_eq(env_get(&env, "GALLIUM_HUD_PERIOD"), "0");
	ck_assert_str_eq(env_get(&env, "GALLIUM_HUD_VISIBLE"), "false");
	ck_assert_str_eq(env_get(&env, "GALLIUM_HUD_DUMP_DIR"), "/s/home/.hitchbench-hud");
	ck_assert_ptr_null(framesource_preload(FRAMES_GALLIUM_HUD));
	argv_release(&env);

	argv_init(&env);
	framesource_env(&env, FRAMES_HOOK, "/s/home", 6.2);
	ck_assert_uint_eq(env.n, 0);
	ck_assert_ptr_null(framesource_preload(FRAMES_HOOK));
	argv_release(&env);
}
END_TEST

/* The game's environment: MangoHud preloaded before the hook, and the
 * source's variables over a recipe's (a recipe cannot redirect the log). */
START_TEST(env_in_game_env)
{
	struct stage st = { .dir = "/dev/shm/hb-x", .home = "/dev/shm/hb-x/home",
			    .frames = "/dev/shm/hb-x/frames.bin", .hook = "/dev/shm/hb-x/hitchbench-hook.so" };
	struct game_user user = { .name = "player" };
	struct recipe r;
	struct argv_list env;
	struct game_env_opts o = { .stage = &st, .user = &user, .display = ":7", .run_dir = "/r",
				   .recipe = &r, .with_hook = true, .run_s = 3 };

	recipe_init(&r);
	r.frames = FRAMES_MANGOHUD;
	argv_push(&r.set.env, "MANGOHUD_CONFIG=fps_limit=30");
	argv_init(&env);
	game_env_build(&env, &o);
	ck_assert_str_eq(env_get(&env, "LD_PRELOAD"),
			 "/usr/$LIB/mangohud/libMangoHud_dlsym.so:/usr/$LIB/mangohud/libMangoHud.so:"
			 "/dev/shm/hb-x/hitchbench-hook.so");
	ck_assert(str_startswith(env_get(&env, "MANGOHUD_CONFIG"),
				 "output_folder=/dev/shm/hb-x/home/.hitchbench-mangohud,"));
	o.with_hook = false; /* prepare: neither the hook nor the source */
	game_env_build(&env, &o);
	ck_assert_ptr_null(env_get(&env, "LD_PRELOAD"));
	ck_assert_str_eq(env_get(&env, "MANGOHUD_CONFIG"), "fps_limit=30");
	argv_release(&env);
	recipe_release(&r);
}
END_TEST

/* A frame-time pattern that repeats nowhere: 10-30 ms. */
static uint64_t pattern_ft(size_t i)
{
	return 10000000 + (uint64_t)((i * 7919u + (i * i) % 13u * 1000003u) % 20000000u);
}

START_TEST(align_finds_the_placement)
{
	enum { LEAD = 40, N_LOG = 500, TAIL = 20 };
	uint64_t hook[LEAD + N_LOG + TAIL], log[N_LOG];
	struct framesource_align a;

	hook[0] = 5000000000000ull;
	for (size_t i = 1; i < ARRAY_SIZE(hook); i++)
		hook[i] = hook[i - 1] + pattern_ft(i);
	/* the log times the same presents from 1 s, each stamp off by a
	 * few microseconds (stamped elsewhere in the same present) */
	for (size_t j = 0; j < N_LOG; j++)
		log[j] = IMPORT_T0_NS + (hook[LEAD + j] - hook[LEAD]) + (j % 3) * 4000;
	ck_assert_int_eq(framesource_align(hook, ARRAY_SIZE(hook), log, N_LOG, &a), 0);
	ck_assert_uint_eq(a.hook_index, LEAD);
	ck_assert_uint_eq(a.compared, 256);
	ck_assert_uint_eq(a.ties, 0);
	ck_assert(a.residual_ns < 10000);
	/* placed within the stamps' own 0-8 us spread */
	ck_assert(llabs((long long)(log[0] + (uint64_t)a.offset_ns) - (long long)hook[LEAD]) <= 8000);
	ck_assert(a.end_matched);
	ck_assert(llabs(a.end_error_ns) <= 8000);
}
END_TEST

START_TEST(align_periodic_and_foreign)
{
	uint64_t hook[300], log[100];
	struct framesource_align a;

	/* a game locked to 60 Hz matches anywhere: said, not hidden */
	for (size_t i = 0; i < ARRAY_SIZE(hook); i++)
		hook[i] = 1000000000000ull + i * 16666667ull;
	for (size_t j = 0; j < ARRAY_SIZE(log); j++)
		log[j] = IMPORT_T0_NS + j * 16666667ull;
	ck_assert_int_eq(framesource_align(hook, ARRAY_SIZE(hook), log, ARRAY_SIZE(log), &a), 0);
	ck_assert_uint_eq(a.hook_index, 0);
	ck_assert_uint_eq(a.ties, ARRAY_SIZE(hook) - ARRAY_SIZE(log));

	/* presents of some other run, a millisecond a frame slower: placed,
	 * they drift from these frame by frame: refused */
	for (size_t j = 0; j < ARRAY_SIZE(log); j++)
		log[j] = IMPORT_T0_NS + j * 17666667ull;
	ck_assert_int_eq(framesource_align(hook, ARRAY_SIZE(hook), log, ARRAY_SIZE(log), &a), -ERANGE);
	ck_assert(a.placed_ns > 8000000);

	/* too few presents on either side */
	ck_assert_int_eq(framesource_align(hook, 1, log, 100, &a), -EINVAL);
	ck_assert_int_eq(framesource_align(hook, 300, log, 1, &a), -EINVAL);
}
END_TEST

/*
 * A loaded machine: each tool stamps at its own point of the present, and
 * the time between them varies by up to a millisecond a frame and by most
 * of a frame when the game is preempted in between: here one frame in
 * five, so two frame times in five are off (t9030's dsda-doom under
 * llvmpipe beside a CPU hog, 12 runs: 15-25% of the first 256 frame times
 * off by over a quarter of a frame, a median difference of 0.8-2.0 ms, a
 * mean of 1.6-3.1 ms, frames of 8-15 ms). The mean difference is then over
 * a quarter of a frame, the median is not. The log has a last present the
 * hook did not see, and is placed too when it is longer than the hook's
 * whole record.
 */
START_TEST(align_under_load)
{
	enum { LEAD = 7, N_HOOK = 400 };
	uint64_t hook[N_HOOK], log[N_HOOK - LEAD + 1], x = 1;
	struct framesource_align a;

	/* frame times of 8-30 ms that vary as a game's do, not periodically */
	hook[0] = 5000000000000ull;
	for (size_t i = 1; i < N_HOOK; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		hook[i] = hook[i - 1] + 8000000u + (x >> 33) % 22000000u;
	}
	for (size_t j = 0; j < ARRAY_SIZE(log); j++) {
		size_t i = LEAD + j;
		uint64_t late = (j * 389u) % 1000u * 1000u;

		if (i + 1 < N_HOOK && j % 5 == 4) /* preempted: late by most of the next frame */
			late += (hook[i + 1] - hook[i]) * 7 / 10;
		log[j] = IMPORT_T0_NS + late +
			 (i < N_HOOK ? hook[i] - hook[LEAD] : hook[N_HOOK - 1] - hook[LEAD] + 20000000u);
	}
	ck_assert_int_eq(framesource_align(hook, N_HOOK, log, ARRAY_SIZE(log), &a), 0);
	ck_assert_uint_eq(a.hook_index, LEAD);
	ck_assert_uint_eq(a.compared, 256);
	ck_assert(a.residual_ns > 19000000.0 / 4); /* the mean is over a quarter of a frame */
	ck_assert(a.median_ns <= 1000000);
	ck_assert(!a.end_matched);
	/* the hook's record from the log's first present: the log is longer */
	ck_assert_uint_gt(ARRAY_SIZE(log), N_HOOK - LEAD);
	ck_assert_int_eq(framesource_align(hook + LEAD, N_HOOK - LEAD, log, ARRAY_SIZE(log), &a), 0);
	ck_assert_uint_eq(a.hook_index, 0);
	ck_assert(a.median_ns <= 1000000);
	ck_assert(!a.end_matched);
}
END_TEST

/* Real runs (tests/fixtures/framesource): each Gallium HUD log is placed
 * on its own run's presents, idle or beside a busy loop on each CPU, and
 * refused on every other run's presents of the same game. */
static size_t read_presents(const char *run, uint64_t *t, size_t max)
{
	char *path = xasprintf("framesource/%s/hook-presents.txt", run), *text, *p, *end;
	size_t n = 0, len;

	ck_assert_int_eq(read_file(fixture_path(path), &text, &len), 0);
	for (p = text; *p && n < max; p = end) {
		t[n++] = strtoull(p, &end, 10);
		ck_assert_ptr_ne(end, p);
		end += strspn(end, "\n");
	}
	free(text);
	free(path);
	return n;
}

START_TEST(align_real_runs)
{
	static const char *const runs[] = { "idle1", "idle2", "hog2", "hog3" };
	struct import_series s[ARRAY_SIZE(runs)];
	uint64_t hook[ARRAY_SIZE(runs)][400];
	size_t n_hook[ARRAY_SIZE(runs)];

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		char *path = xasprintf("framesource/%s/frametime_(ms)", runs[i]);
		struct strbuf err = STRBUF_INIT;

		memset(&s[i], 0, sizeof(s[i]));
		ck_assert_msg(import_read(IMPORT_GALLIUM_HUD, fixture_path(path), NULL, &s[i], NULL, &err) == 0, "%s",
			      err.buf);
		n_hook[i] = read_presents(runs[i], hook[i], 400);
		ck_assert_uint_eq(n_hook[i], 400);
		strbuf_release(&err);
		free(path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		for (size_t j = 0; j < ARRAY_SIZE(runs); j++) {
			struct framesource_align a;
			int r = framesource_align(hook[i], n_hook[i], s[j].t_ns, s[j].n_presents, &a);

			ck_assert_msg(r == (i == j ? 0 : -ERANGE), "%s's log on %s's presents: %d (placed %.2f ms, "
				      "frame %.2f ms)", runs[j], runs[i], r, a.placed_ns / 1e6, a.frame_ns / 1e6);
			if (i == j)
				ck_assert_uint_le(a.placed_ns, a.frame_ns / 4);
			else
				ck_assert_uint_ge(a.placed_ns, a.frame_ns);
		}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		import_series_release(&s[i]);
}
END_TEST

/* A run directory as the runner leaves it before collecting: the hook's
 * frames.bin (lead presents, the log's presents moved to the hook's
 * clock, tail presents) and the game's HOME with the log. */
struct fake_run {
	char *top, *home, *run_dir;
	uint64_t *hook;
	size_t n_hook, lead;
};

static void fake_run_make(struct fake_run *fr, const struct import_series *s, size_t lead, size_t tail)
{
	fr->top = test_tmpdir();
	fr->home = xasprintf("%s/stage-home", fr->top);
	fr->run_dir = xasprintf("%s/run", fr->top);
	ck_assert_int_eq(mkdir_p(fr->home, 0755), 0);
	ck_assert_int_eq(mkdir_p(fr->run_dir, 0755), 0);
	fr->lead = lead;
	fr->n_hook = lead + s->n_presents + tail;
	fr->hook = zalloc(fr->n_hook * sizeof(*fr->hook));
	/* 30 ms frames before and after; the log's presents stamped a few
	 * microseconds off each (the two tools stamp the same present at
	 * different points of it) */
	fr->hook[0] = 7000000000000ull;
	for (size_t i = 1; i < fr->n_hook; i++) {
		size_t j = i - lead;

		if (i > lead && j < s->n_presents)
			fr->hook[i] = fr->hook[lead] + (s->t_ns[j] - s->t_ns[0]) + (j % 2) * 3000;
		else
			fr->hook[i] = fr->hook[i - 1] + 30000000;
	}
	{
		char *p = xasprintf("%s/frames.bin", fr->run_dir);

		ck_assert_int_eq(hb_frames_write(p, fr->hook, fr->n_hook, HB_SRC_GLX_SWAP_BUFFERS, 0644), 0);
		free(p);
	}
}

static void fake_run_release(struct fake_run *fr)
{
	remove_tree(fr->top);
	free(fr->top);
	free(fr->home);
	free(fr->run_dir);
	free(fr->hook);
}

static void copy_in(const char *from, const char *dir, const char *name)
{
	char *to = xasprintf("%s/%s", dir, name);

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	ck_assert_int_eq(copy_file(from, to, 0644), 0);
	free(to);
}

static uint16_t first_source(const char *path)
{
	struct hb_frames f;
	const char *why = NULL;
	uint16_t src = 0;

	ck_assert_int_eq(hb_frames_load(path, &f, &why), 0);
	for (unsigned i = 0; i < HB_SRC_MAX; i++)
		if (f.per_source[i])
			src = (uint16_t)i;
	hb_frames_release(&f);
	return src;
}

START_TEST(collect_real_mangohud)
{
	struct import_series s;
	struct fake_run fr;
	struct kvfile bench;
	struct strbuf err = STRBUF_INIT;
	char *src = NULL, *dir, *p;

	import_series_init(&s);
	ck_assert_int_eq(import_read(IMPORT_MANGOHUD, testdata_path(MANGOHUD_LOG ".csv"), NULL, &s, &src, &err), 0);
	fake_run_make(&fr, &s, 25, 10);
	kvfile_init(&bench);
	kvfile_add(&bench, "frame_source", "hook");

	/* no log yet: MangoHud was stopped before log_duration ended */
	ck_assert_int_eq(framesource_collect(FRAMES_MANGOHUD, fr.home, fr.run_dir, fr.hook[30],
					     fr.hook[fr.n_hook - 20], &bench, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.buf, "no MangoHud log"));
	ck_assert(!framesource_log_ready(FRAMES_MANGOHUD, fr.home, 0, 0));

	dir = xasprintf("%s/%s", fr.home, FRAMESOURCE_MANGOHUD_DIR);
	copy_in(testdata_path(MANGOHUD_LOG ".csv"), dir, "dsda-doom_2026-11-30_10-02-37.csv");
	copy_in(testdata_path(MANGOHUD_LOG "_summary.csv"), dir, "dsda-doom_2026-11-30_10-02-37_summary.csv");

	/* a window that begins before the log: refused, nothing changed */
	strbuf_reset(&err);
	ck_assert_int_eq(framesource_collect(FRAMES_MANGOHUD, fr.home, fr.run_dir, fr.hook[10],
					     fr.hook[fr.n_hook - 20], &bench, &err), -ERANGE);
	ck_assert_ptr_nonnull(strstr(err.buf, "starts too late"));
	p = xasprintf("%s/hook-frames.bin", fr.run_dir);
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);

	strbuf_reset(&err);
	ck_assert_msg(framesource_collect(FRAMES_MANGOHUD, fr.home, fr.run_dir, fr.hook[30],
					  fr.hook[fr.n_hook - 20], &bench, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&bench, "frame_source"), "mangohud");
	ck_assert_str_eq(kvfile_get(&bench, "frame_source_kind"), "frames");
	ck_assert_str_eq(kvfile_get(&bench, "source_file"),
			 "home/.hitchbench-mangohud/dsda-doom_2026-11-30_10-02-37.csv");
	ck_assert_str_eq(kvfile_get(&bench, "log_rows"), "1212");
	ck_assert_str_eq(kvfile_get(&bench, "log_files"), "1");
	ck_assert_str_eq(kvfile_get(&bench, "align.hook_index"), "25");
	ck_assert_str_eq(kvfile_get(&bench, "align.ties"), "0");
	ck_assert_str_eq(kvfile_get(&bench, "log.driver"), "4.5 Mesa 22.3.6");
	p = xasprintf("%s/hook-frames.bin", fr.run_dir);
	ck_assert_uint_eq(first_source(p), HB_SRC_GLX_SWAP_BUFFERS);
	free(p);
	p = xasprintf("%s/frames.bin", fr.run_dir);
	ck_assert_uint_eq(first_source(p), HB_SRC_MANGOHUD);
	free(p);
	/* the log kept in the run directory (the runner's HOME copy may skip it) */
	p = xasprintf("%s/home/.hitchbench-mangohud/dsda-doom_2026-11-30_10-02-37.csv", fr.run_dir);
	ck_assert_int_eq(access(p, F_OK), 0);
	free(p);

	free(dir);
	free(src);
	kvfile_release(&bench);
	strbuf_release(&err);
	import_series_release(&s);
	fake_run_release(&fr);
}
END_TEST

START_TEST(collect_gallium_dump)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	struct import_series s;
	struct fake_run fr;
	struct kvfile bench;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	char *dir, *p;
	uint64_t placed0;

	/* Mesa's dump: one frame time in ms a line, integers without a point */
	for (size_t i = 0; i < 400; i++)
		strbuf_addf(&text, i % 5 ? "%.3f\n" : "%.0f\n",
			    i % 5 ? (double)pattern_ft(i) / 1e6 : (double)(pattern_ft(i) / 1000000));
	o.gallium_period_s = 0;
	import_series_init(&s);
	ck_assert_int_eq(import_gallium_parse(text.buf, text.len, "t", &o, &s, &err), 0);
	fake_run_make(&fr, &s, 1, 30);
	dir = xasprintf("%s/%s", fr.home, FRAMESOURCE_HUD_DIR);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	p = xasprintf("%s/frametime_(ms)", dir);
	ck_assert_int_eq(write_file_atomic(p, text.buf, text.len, 0644), 0);
	free(p);

	kvfile_init(&bench);
	ck_assert(!framesource_log_ready(FRAMES_GALLIUM_HUD, fr.home, 500000000, 100));
	ck_assert(framesource_log_ready(FRAMES_GALLIUM_HUD, fr.home, 1000000000, 3));
	/* a game stalled since the window's end: its last frames not written */
	ck_assert(!framesource_log_ready(FRAMES_GALLIUM_HUD, fr.home, 2000000000, 2));
	/* a window past the log's end */
	ck_assert_int_eq(framesource_collect(FRAMES_GALLIUM_HUD, fr.home, fr.run_dir, fr.hook[3],
					     fr.hook[fr.n_hook - 1], &bench, &err), -ERANGE);
	ck_assert_ptr_nonnull(strstr(err.buf, "ends too early"));

	strbuf_reset(&err);
	ck_assert_msg(framesource_collect(FRAMES_GALLIUM_HUD, fr.home, fr.run_dir, fr.hook[3],
					  fr.hook[300], &bench, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&bench, "frame_source"), "gallium-hud");
	ck_assert_str_eq(kvfile_get(&bench, "align.hook_index"), "1");
	ck_assert_str_eq(kvfile_get(&bench, "source_file"), "home/.hitchbench-hud/frametime_(ms)");
	ck_assert_ptr_null(kvfile_get(&bench, "log_files"));
	placed0 = s.t_ns[0] + (uint64_t)strtoll(kvfile_get(&bench, "align.offset_ns"), NULL, 10);
	ck_assert(llabs((long long)(placed0 - fr.hook[1])) < 5000);

	free(dir);
	kvfile_release(&bench);
	strbuf_release(&err);
	strbuf_release(&text);
	import_series_release(&s);
	fake_run_release(&fr);
}
END_TEST

TEST_SUITE(framesource_suite)
{
	Suite *s = suite_create("framesource");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, env_per_source);
	tcase_add_test(tc, env_in_game_env);
	tcase_add_test(tc, align_finds_the_placement);
	tcase_add_test(tc, align_periodic_and_foreign);
	tcase_add_test(tc, align_under_load);
	tcase_add_test(tc, align_real_runs);
	tcase_add_test(tc, collect_real_mangohud);
	tcase_add_test(tc, collect_gallium_dump);
	suite_add_tcase(s, tc);
	return s;
}
