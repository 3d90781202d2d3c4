/*
 * The profile record (common/formats/profilerecord.c), the CPU categories
 * (analysis/profile/profrules.c against gamedb/cpu-categories.ini) and a
 * recorded run's profile read as `hitchbench profile` reads it
 * (analysis/profile/profile.c): tests/fixtures/profile/glgame-run is a
 * real run of tests/tools/glgame with PROFILE=1 (its README says how it
 * was made), whose frame 90 compiled a GLSL program and frame 150 spun in
 * glgame_busy_named_loop.
 */
#include "test.h"
#include "formats/profilerecord.h"
#include "metrics/metrics.h"
#include "profile/profile.h"
#include "profile/profrules.h"
#include "run/run.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void parse_ok(const char *text, struct profrec *p)
{
	struct strbuf err = STRBUF_INIT;
	int r = profrec_parse(text, strlen(text), "rec", p, &err);

	ck_assert_msg(r == 0, "%s", err.buf);
	strbuf_release(&err);
}

static void parse_bad(const char *text, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct profrec p;
	int r = profrec_parse(text, strlen(text), "rec", &p, &err);

	ck_assert_int_eq(r, -EINVAL);
	ck_assert_msg(strstr(err.buf, want), "'%s' lacks '%s'", err.buf, want);
	strbuf_release(&err);
}

START_TEST(record_round_trip)
{
	struct strbuf sb = STRBUF_INIT;
	struct prof_thread t = { .tid = 11, .pid = 10, .comm = "game" };
	struct prof_map m = { .pid = 10, .start = 0x1000, .end = 0x3000, .pgoff = 0x800,
			      .build_id = { 0xab, 0x01 }, .build_id_len = 2, .path = "/usr/lib/libx.so" };
	struct prof_map jit = { .pid = 10, .start = 0x9000, .end = 0xa000, .path = "//anon" };
	const char *kfn[] = { "do_syscall_64", "0xffffffff81000000" };
	uint64_t ip[] = { 0x1234, 0x2fff };
	struct prof_sample s = { .ns = 5000, .tid = 11, .stack = 1 };
	struct profrec p;

	profrec_put_header(&sb);
	profrec_put_meta(&sb, "hz", "999");
	profrec_put_meta(&sb, "period_ns", "1001001");
	profrec_put_thread(&sb, &t);
	profrec_put_map(&sb, &m);
	profrec_put_map(&sb, &jit);
	profrec_put_follow(&sb, 10, 4000, 1);
	profrec_put_stack(&sb, 1, kfn, 2, ip, 2);
	profrec_put_sample(&sb, &s);
	profrec_put_pause(&sb, true, 6000);
	profrec_put_pause(&sb, false, 7000);
	profrec_put_lost(&sb, 3);
	profrec_put_fork(&sb, 12, 10);
	parse_ok(sb.buf, &p);
	ck_assert_uint_eq(p.period_ns, 1001001);
	ck_assert_uint_eq(p.n_sample, 1);
	ck_assert_uint_eq(p.sample[0].ns, 5000);
	ck_assert_uint_eq(p.n_stack, 1);
	ck_assert_uint_eq(p.stack[0].nk, 2);
	ck_assert_uint_eq(p.stack[0].n, 4);
	ck_assert_str_eq(p.stack[0].kfn[0], "do_syscall_64");
	ck_assert_uint_eq(p.stack[0].ip[1], 0x2fff);
	ck_assert_uint_eq(p.map[0].build_id_len, 2);
	ck_assert_uint_eq(p.map[0].build_id[0], 0xab);
	ck_assert_str_eq(p.map[0].path, "/usr/lib/libx.so");
	ck_assert_uint_eq(p.lost, 3);
	ck_assert_uint_eq(p.n_pause, 1);
	ck_assert_uint_eq(p.pause[0].to_ns, 7000);
	ck_assert_str_eq(profrec_thread(&p, 11)->comm, "game");
	/* the map of an address; a forked child sees its parent's maps */
	ck_assert_ptr_eq(profrec_map(&p, 10, 0x2fff), &p.map[0]);
	ck_assert_ptr_null(profrec_map(&p, 10, 0x3000));
	ck_assert_ptr_eq(profrec_map(&p, 12, 0x9001), &p.map[1]);
	ck_assert_ptr_null(profrec_map(&p, 13, 0x2000));
	profrec_release(&p);
	/* an exec drops the maps before it */
	strbuf_addstr(&sb, "exec\t10\n");
	parse_ok(sb.buf, &p);
	ck_assert_ptr_null(profrec_map(&p, 10, 0x2000));
	profrec_release(&p);
	strbuf_release(&sb);
}
END_TEST

START_TEST(record_refused)
{
	/* each after the header and its period: the line 3 on */
	static const struct { const char *body, *want; } bad[] = {
		{ "s\t1\t5\t1\n", "rec:3: field 4 '1' is not a number in 1..0" },
		{ "stack\t1\t0\t0x10\ns\t1\t5\t1\n", "rec:4: a sample of a thread no thread line named" },
		{ "stack\t2\t0\t0x10\n", "rec:3: stack ids count from 1" },
		{ "stack\t1\t3\tf\n", "rec:3: field 3 '3' is not a number in 0..1" },
		{ "map\t1\t0x20\t0x10\t0x0\t-\t/x\n", "rec:3: a map's END is after its START" },
		{ "map\t1\t0x10\t0x20\t0x0\tABC\t/x\n", "rec:3: BUILD_ID is '-' or up to 20 bytes" },
		{ "resume\t5\n", "rec:3: a resume without a pause" },
		{ "trailer\tx=1\nthread\t1\t1\tg\n", "rec:4: a data line after the trailer" },
		{ "meta\tperiod_ns=2\n", "rec:3: a key given twice" },
		{ "thread\t1\t1\tg\nmeta\thz=1\n", "rec:4: a meta line after the data began" },
	};
	char buf[512];

	parse_bad("hbwaits\t2\n", "rec:1: not a profile record of version 1");
	parse_bad("hbprofile\t1\n", "no meta period_ns");
	parse_bad("hbprofile\t1\nnope\n", "rec:2: not a line the format has");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "hbprofile\t1\nmeta\tperiod_ns=1000000\n%s", bad[i].body);
		parse_bad(buf, bad[i].want);
	}
}
END_TEST

START_TEST(record_cut_line)
{
	static const char text[] = "hbprofile\t1\nmeta\tperiod_ns=1000000\nthread\t1\t1\tg\ns\t5\t1";
	struct profrec p;

	parse_ok(text, &p);
	ck_assert(p.cut);
	ck_assert_uint_eq(p.n_sample, 0);
	profrec_release(&p);
}
END_TEST

static void rules_of_gamedb(struct prof_rules *r)
{
	const char *dirs[] = { srcdir_path("gamedb"), NULL };
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(prof_rules_find(dirs, r, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
}

static const char *cat_of(const struct prof_rules *r, const char *lib, const char *fn, bool kernel, bool jit)
{
	struct prof_frame_desc d = { .library = lib, .function = fn, .kernel = kernel, .jit = jit };

	return r->names[prof_rules_frame(r, &d)];
}

START_TEST(rules_gamedb)
{
	struct prof_rules r;
	uint8_t cats[3];

	rules_of_gamedb(&r);
	ck_assert_str_eq(r.names[r.n - 1], "other");
	ck_assert_str_eq(cat_of(&r, "libLLVM-15.so.1", "llvm::SelectionDAGISel::runOnMachineFunction", false,
				false), "shader compile");
	ck_assert_str_eq(cat_of(&r, "swrast_dri.so", "nir_opt_algebraic", false, false), "shader compile");
	ck_assert_str_eq(cat_of(&r, "swrast_dri.so", "lp_rast_shade_tile", false, false), "rasterizer");
	ck_assert_str_eq(cat_of(&r, "swrast_dri.so", NULL, false, false), "driver");
	ck_assert_str_eq(cat_of(&r, "[jit]", NULL, false, true), "rasterizer");
	ck_assert_str_eq(cat_of(&r, "kernel", "do_syscall_64", true, false), "kernel");
	ck_assert_str_eq(cat_of(&r, "libc.so.6", "memcpy", false, false), "system libraries");
	ck_assert_str_eq(cat_of(&r, "libSDL2-2.0.so.0", NULL, false, false), "other libraries");
	ck_assert_str_eq(cat_of(&r, "dsda-doom", "R_RenderPlayerView", false, false), "game");
	ck_assert_str_eq(cat_of(&r, NULL, NULL, false, false), "other");
	/* a C library frame gives way to its caller: memcpy under LLVM is
	 * the compiler's; a stack of passing frames alone keeps the first */
	cats[0] = prof_rules_frame(&r, &(struct prof_frame_desc){ .library = "libc.so.6" });
	cats[1] = prof_rules_frame(&r, &(struct prof_frame_desc){ .library = "libLLVM-15.so.1" });
	cats[2] = prof_rules_frame(&r, &(struct prof_frame_desc){ .library = "dsda-doom" });
	ck_assert_str_eq(r.names[prof_rules_stack(&r, cats, 3)], "shader compile");
	ck_assert_str_eq(r.names[prof_rules_stack(&r, cats, 1)], "system libraries");
	prof_rules_release(&r);
}
END_TEST

START_TEST(rules_refused)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "function = x\n", "r:1: 'function' before the first [category]" },
		{ "[a]\njit = maybe\n", "r:2: jit wants yes or no, not 'maybe'" },
		{ "[a]\n[a]\n", "r:2: category 'a' given twice" },
		{ "[other]\n", "r:1: a category needs a name other than 'other'" },
		{ "[a]\ncolour = red\n", "r:2: unknown key 'colour'" },
		{ "; nothing\n", "r: no category" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf err = STRBUF_INIT;
		struct prof_rules r;

		ck_assert_int_eq(prof_rules_parse(bad[i].text, strlen(bad[i].text), "r", &r, &err), -EINVAL);
		ck_assert_msg(strstr(err.buf, bad[i].want), "'%s' lacks '%s'", err.buf, bad[i].want);
		strbuf_release(&err);
	}
}
END_TEST

/* The share of category name among a frame's samples. */
static double share_in(const struct profile *p, const struct prof_frames *fr, uint64_t present, const char *name)
{
	uint64_t *per = zalloc((p->rec.n_stack + 1) * sizeof(*per)), cat[PROF_MAX_CATEGORIES] = { 0 }, n = 0;
	double share = -1;

	for (size_t i = 0; i < fr->n; i++)
		if (fr->index[i] == present)
			n = profile_count(p, fr->start_ns[i], fr->end_ns[i], per);
	profile_categories(p, per, cat);
	for (size_t c = 0; c < p->rules->n; c++)
		if (strcmp(p->rules->names[c], name) == 0 && n)
			share = (double)cat[c] / (double)n;
	free(per);
	return share;
}

START_TEST(recorded_run)
{
	struct strbuf err = STRBUF_INIT, what = STRBUF_INIT;
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	const char *dirs[] = { srcdir_path("gamedb"), NULL };
	struct prof_rules r;
	struct prof_frames fr;
	struct profile p;
	struct run run;
	char *cpu_what;

	rules_of_gamedb(&r);
	ck_assert_msg(run_load(fixture_path("profile/glgame-run"), &run, &err) == 0, "%s", err.buf);
	ck_assert_msg(profile_load(run.dir, &r, &p, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(p.n, 802);
	ck_assert_int_eq(prof_frames_of(&run, 100, false, &fr), 0);
	ck_assert_uint_eq(fr.n_stall, 2);
	/* the compile's frame is LLVM's (named by its library wherever the
	 * file is not this machine's), the busy frame the game's own */
	ck_assert_msg(share_in(&p, &fr, 90, "shader compile") > 0.8, "%f", share_in(&p, &fr, 90, "shader compile"));
	ck_assert_msg(share_in(&p, &fr, 150, "game") > 0.95, "%f", share_in(&p, &fr, 150, "game"));
	/* the report's words for both */
	mo.gamedb_dirs = dirs;
	cpu_what = profile_stall_cpu_what(&run, &mo);
	ck_assert_str_eq(cpu_what, "game 52%, shader compile 40%");
	free(cpu_what);
	profile_what_in(&p, fr.start_ns[0], fr.end_ns[fr.n - 1], &what);
	ck_assert_msg(strstr(what.buf, "game") && strstr(what.buf, "(most: "), "%s", what.buf);
	prof_frames_release(&fr);
	profile_release(&p);
	run_release(&run);
	prof_rules_release(&r);
	strbuf_release(&what);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(profile_suite)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, record_round_trip);
	tcase_add_test(tc, record_refused);
	tcase_add_test(tc, record_cut_line);
	tcase_add_test(tc, rules_gamedb);
	tcase_add_test(tc, rules_refused);
	tcase_add_test(tc, recorded_run);
	/* recorded_run names the real libraries' functions (libLLVM's symbol
	 * table among them) twice: 0.6 s alone, past Check's 4 s default
	 * beside make check's heavy lane on a shared VM (CI saw it time out) */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
