/*
 * Reload segments and the warm-up/play windows (analysis/run/reload.c,
 * analysis/run/run-windows.c) on synthetic looped runs: a run of three passes at
 * 10 ms a frame, each pass starting with a load (no presents for a while),
 * split by a fixed rule, by a line and margin, with a frame straddling the
 * segment's end, with a pass missing its line (no play numbers), with the
 * rule the runner recorded in bench.txt (a recipe's [reload] winning over
 * gamedb) used after the recipe is gone; the warm-up's numbers; and every
 * kind of bad analysis.ini and bad reload.* key refused with its line.
 */
#include "text/kvfile.h"
#include "metrics/metrics.h"
#include "recipe/recipe.h"
#include "run/reload.h"
#include "run/run.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000ull
#define S (1000 * MS)

/*
 * The synthetic run, in ms from 0 (the clock is CLOCK_MONOTONIC in ns):
 *   pass 1 starts at 0; first present 500; presents every 10 ms to 10000;
 *   pass 2 starts at 10005; first present 10800 (the relaunch frame is
 *   10000 -> 10800); a 400 ms frame 10800 -> 11200 (the level starting),
 *   then every 10 ms to 20000, with one 150 ms stall mid-play (15000 ->
 *   15150); pass 3 starts at 20005, first present 20600, then every 10 ms
 *   to 24000. Warm-up 1 s: window (1500, 23500].
 * game.log has "Loading level" at 300, 10500 and 20400 ms (pass 3's line
 * left out when asked).
 */
struct synth {
	char *tmp;
	struct run run;
	uint64_t *t;
	size_t n;
};

static void add_present(struct synth *s, uint64_t ms)
{
	s->t = xrealloc(s->t, (s->n + 1) * sizeof(*s->t));
	s->t[s->n++] = ms * MS;
}

static void add_steady(struct synth *s, uint64_t from_ms, uint64_t to_ms)
{
	for (uint64_t ms = from_ms; ms <= to_ms; ms += 10)
		add_present(s, ms);
}

static void synth_init(struct synth *s, bool pass3_line, const char *recipe)
{
	struct strbuf log = STRBUF_INIT;
	char *path;

	memset(s, 0, sizeof(*s));
	s->tmp = test_tmpdir();
	add_steady(s, 500, 10000);
	add_present(s, 10800);
	add_steady(s, 11200, 15000);
	add_steady(s, 15150, 20000);
	add_steady(s, 20600, 24000);

	s->run.dir = xstrdup(s->tmp);
	s->run.name = xstrdup("synth");
	kvfile_init(&s->run.bench);
	kvfile_add(&s->run.bench, "game", "loopgame");
	if (recipe)
		kvfile_add(&s->run.bench, "recipe", recipe);
	kvfile_addf(&s->run.bench, "pass.1.start_ns", "%llu", 0ull);
	kvfile_addf(&s->run.bench, "first_frame_ns", "%llu", 500 * MS);
	kvfile_addf(&s->run.bench, "pass.2.start_ns", "%llu", 10005 * MS);
	kvfile_addf(&s->run.bench, "pass.3.start_ns", "%llu", 20005 * MS);
	s->run.game = "loopgame";
	s->run.have_window = true;
	s->run.window_start_ns = 1500 * MS;
	s->run.window_end_ns = 23500 * MS;
	s->run.have_frames = true;
	s->run.frames.t_ns = s->t;
	s->run.frames.n = s->n;

	strbuf_addstr(&log, "0.100000\tloopgame 1.0\n0.300000\tLoading level MAP01\n"
		      "10.500000\tLoading level MAP01\n20.100000\tstarting again\n");
	if (pass3_line)
		strbuf_addstr(&log, "20.400000\tLoading level MAP01\n");
	path = xasprintf("%s/game.log", s->tmp);
	ck_assert_int_eq(write_file_atomic(path, log.buf, log.len, 0644), 0);
	free(path);
	strbuf_release(&log);
}

static void synth_release(struct synth *s)
{
	kvfile_release(&s->run.bench);
	free(s->run.dir);
	free(s->run.name);
	free(s->t);
	remove_tree(s->tmp);
	free(s->tmp);
}

/* Writes TMP/REL (parents made); returns the path. */
static char *put(const char *tmp, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, rel);
	char *parent = xstrdup(path);

	*strrchr(parent, '/') = '\0';
	ck_assert_int_eq(mkdir_p(parent, 0755), 0);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
	free(parent);
	return path;
}

static void gamedb(struct synth *s, const char *ini)
{
	char *rel = xasprintf("gamedb/loopgame/analysis.ini");

	free(put(s->tmp, rel, ini));
	free(rel);
}

/* The split of the synthetic run with gamedb under TMP/gamedb. */
static void split(struct synth *s, struct run_reload *rr)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = xasprintf("%s/gamedb", s->tmp);
	const char *dirs[] = { dir, NULL };

	ck_assert_msg(run_reload_find(&s->run, dirs, rr, &err) == 0, "%s", err.buf);
	free(dir);
	strbuf_release(&err);
}

static void metrics_of(struct synth *s, struct metrics *m)
{
	char *dir = xasprintf("%s/gamedb", s->tmp);
	const char *dirs[] = { dir, NULL };
	struct metric_opts mo = METRIC_OPTS_DEFAULT;

	mo.gamedb_dirs = dirs;
	ck_assert_int_eq(run_metrics(&s->run, &mo, m), 0);
	free(dir);
}

static void assert_seg(const struct reload_segment *seg, int pass, uint64_t start_ms, uint64_t end_ms)
{
	ck_assert_int_eq(seg->pass, pass);
	ck_assert_uint_eq(seg->start_ns, start_ms * MS);
	ck_assert_uint_eq(seg->end_ns, end_ms * MS);
}

#define assert_near(got, want) ck_assert_msg(fabs((got) - (want)) < 1e-9, "%s = %.9f, want %.9f", #got, (got), (double)(want))

/* Fixed rule, 0.5 s: pass 2's segment [10005, 10505] holds the relaunch
 * frame (10000, 10800], so it widens to 10000 .. 10800; the 400 ms frame
 * after it starts at 10800, outside: play (a stall). Pass 1's segment
 * stays [0, 500] (the first present ends no frame) in the warm-up. */
START_TEST(fixed_rule)
{
	struct synth s;
	struct run_reload rr;
	struct metrics m;

	synth_init(&s, true, NULL);
	gamedb(&s, "[reload]\n; why: a test\nafter_pass_start = 0.5\nwhy = a test\n");
	split(&s, &rr);
	ck_assert(rr.split);
	ck_assert_int_eq(rr.rule.kind, RELOAD_FIXED);
	ck_assert_ptr_nonnull(strstr(rr.note, "gamedb/loopgame/analysis.ini:1"));
	ck_assert_uint_eq(rr.n_segments, 3);
	assert_seg(&rr.segments[0], 1, 0, 500);
	assert_seg(&rr.segments[1], 2, 10000, 10800);
	assert_seg(&rr.segments[2], 3, 20000, 20600);
	run_reload_release(&rr);

	metrics_of(&s, &m);
	/* whole window: 10000->10800 (800), 10800->11200 (400), 15000->15150,
	 * 20000->20600 (600) */
	ck_assert_int_eq((int)m.v[M_STALLS], 4);
	ck_assert(m.have[M_STALLS_PLAY]);
	ck_assert_int_eq((int)m.v[M_STALLS_PLAY], 2);
	assert_near(m.v[M_STALL_PLAY_S], 0.55);
	assert_near(m.v[M_LONGEST_PLAY], 400.0);
	assert_near(m.v[M_RELOAD_S], 1.4);
	assert_near(m.v[M_RELOAD_N], 2);
	assert_near(m.v[M_WIN_PLAY], 22.0 - 1.4);
	ck_assert(m.have[M_LOW1_PLAY]);
	assert_near(m.v[M_LOW1_PLAY], 100.0); /* p99 of ~2100 play frames of 10 ms */
	synth_release(&s);
}
END_TEST

/* Line rule: pass 2's line at 10500 + 0.5 s margin gives [10005, 11000]:
 * the relaunch frame and the 400 ms frame (10800, 11200] that straddles the
 * segment's end both belong, and the segment ends with it at 11200. */
START_TEST(line_rule_and_straddling_frame)
{
	struct synth s;
	struct run_reload rr;
	struct metrics m;

	synth_init(&s, true, NULL);
	gamedb(&s, "# loopgame\n[reload]\nline = ^Loading level\nmargin = 0.5\nwhy = a test\n");
	split(&s, &rr);
	ck_assert(rr.split);
	ck_assert_int_eq(rr.rule.kind, RELOAD_LINE);
	ck_assert_uint_eq(rr.n_segments, 3);
	assert_seg(&rr.segments[0], 1, 0, 800);
	assert_seg(&rr.segments[1], 2, 10000, 11200);
	assert_seg(&rr.segments[2], 3, 20000, 20900);
	run_reload_release(&rr);

	metrics_of(&s, &m);
	ck_assert_int_eq((int)m.v[M_STALLS_PLAY], 1);
	assert_near(m.v[M_STALL_PLAY_S], 0.15);
	assert_near(m.v[M_LONGEST_PLAY], 150.0);
	assert_near(m.v[M_RELOAD_S], 1.2 + 0.9);
	assert_near(m.v[M_RELOAD_N], 2);
	assert_near(m.v[M_WIN_PLAY], 22.0 - 2.1);
	synth_release(&s);
}
END_TEST

/* Pass 3 presented frames in the window but game.log has no line for it:
 * no play numbers at all, never numbers computed without its segment. */
START_TEST(missing_line)
{
	struct synth s;
	struct run_reload rr;
	struct metrics m;

	synth_init(&s, false, NULL);
	gamedb(&s, "[reload]\nline = ^Loading level\nmargin = 0.5\nwhy = a test\n");
	split(&s, &rr);
	ck_assert(!rr.split);
	ck_assert_uint_eq(rr.n_segments, 0);
	ck_assert_ptr_nonnull(strstr(rr.note, "no play numbers"));
	run_reload_release(&rr);

	metrics_of(&s, &m);
	ck_assert(m.have[M_STALLS]);
	for (int id = M_STALLS_PLAY; id <= M_RELOAD_N; id++)
		ck_assert_msg(!m.have[id], "%s is set", metric_defs[id].name);
	/* the warm-up does not need the split */
	ck_assert(m.have[M_STALLS_WARM]);
	synth_release(&s);
}
END_TEST

/* A pass stopped while loading (no present after its start, no line yet)
 * is all reload up to the window's end; the run keeps its play numbers. */
START_TEST(pass_stopped_while_loading)
{
	static const struct reload_pass passes[] = { { 1, 0 }, { 2, 1000 * MS } };
	static const uint64_t t[] = { 100 * MS, 110 * MS, 120 * MS, 900 * MS };
	static const uint64_t lines[] = { 50 * MS };
	struct reload_rule rule = { .kind = RELOAD_LINE, .margin_s = 0.055 };
	struct reload_segment *seg;
	size_t n;

	ck_assert_int_eq(reload_segments(&rule, passes, 2, lines, 1, t, 4, 0, 1500 * MS, &seg, &n), 0);
	ck_assert_uint_eq(n, 2);
	assert_seg(&seg[0], 1, 0, 110);
	assert_seg(&seg[1], 2, 1000, 1500);
	free(seg);
	/* RELOAD_NONE: no segments; an unset rule is refused */
	rule.kind = RELOAD_NONE;
	ck_assert_int_eq(reload_segments(&rule, passes, 2, NULL, 0, t, 4, 0, 1500 * MS, &seg, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(seg);
	rule.kind = RELOAD_UNSET;
	ck_assert_int_eq(reload_segments(&rule, passes, 2, NULL, 0, t, 4, 0, 1500 * MS, &seg, &n), -EINVAL);
}
END_TEST

/* What the runner does before a run: the rule resolved (recipe, gamedb,
 * none) and recorded in bench.txt as reload.*. */
static void record(struct synth *s, const struct reload_rule *recipe_rule, const char *recipe_path)
{
	struct strbuf origin = STRBUF_INIT, err = STRBUF_INIT;
	char *dir = xasprintf("%s/gamedb", s->tmp);
	const char *dirs[] = { dir, NULL };
	struct reload_rule rule;

	ck_assert_msg(run_reload_resolve(recipe_rule, recipe_path, "loopgame", dirs, &rule, &origin,
					 &err) == 0, "%s", err.buf);
	run_reload_record(&s->run.bench, &rule, origin.buf);
	reload_rule_release(&rule);
	strbuf_release(&origin);
	strbuf_release(&err);
	free(dir);
}

/* The recipe's [reload] wins over gamedb when the run is made; the run
 * keeps it in bench.txt, so deleting the recipe afterwards changes
 * nothing. A run from before the keys whose recipe is gone gets the
 * gamedb rule, and the note says why; no rule anywhere is recorded too. */
START_TEST(recorded_rule)
{
	struct synth s;
	struct run_reload rr;
	struct recipe r;
	struct strbuf err = STRBUF_INIT;
	char *tmp = test_tmpdir();
	char *recipe = put(tmp, "recipes/loopgame.ini",
			   "[recipe]\ncommand = true\n\n[reload]\nafter_pass_start = 0.2\n"
			   "why = the recipe's own\n");

	recipe_init(&r);
	ck_assert_msg(recipe_load(recipe, &r, &err) == 0, "%s", err.buf);
	synth_init(&s, true, recipe);
	gamedb(&s, "[reload]\nline = ^Loading level\nmargin = 0.5\nwhy = a test\n");
	record(&s, &r.reload, recipe);
	ck_assert_str_eq(kvfile_get(&s.run.bench, "reload.format"), "1");
	ck_assert_str_eq(kvfile_get(&s.run.bench, "reload.after_pass_start"), "0.2");
	ck_assert_ptr_null(kvfile_get(&s.run.bench, "reload.line"));
	ck_assert_int_eq(unlink(recipe), 0);
	split(&s, &rr);
	ck_assert_int_eq(rr.rule.kind, RELOAD_FIXED);
	ck_assert_ptr_nonnull(strstr(rr.note, "recipe "));
	ck_assert_ptr_nonnull(strstr(rr.note, "loopgame.ini:4"));
	ck_assert_str_eq(rr.rule.why, "the recipe's own");
	assert_seg(&rr.segments[1], 2, 10000, 10800);
	run_reload_release(&rr);
	synth_release(&s);

	/* without a [reload] in the recipe the gamedb's is recorded, and a
	 * gamedb edited after the run does not change it */
	synth_init(&s, true, recipe);
	gamedb(&s, "[reload]\nline = ^Loading level\nmargin = 0.055\nwhy = a test\nwhy = of two lines\n");
	record(&s, NULL, recipe);
	gamedb(&s, "[reload]\nafter_pass_start = 3\nwhy = edited since\n");
	split(&s, &rr);
	ck_assert_int_eq(rr.rule.kind, RELOAD_LINE);
	ck_assert_str_eq(rr.rule.line, "^Loading level");
	ck_assert(rr.rule.margin_s == 0.055);
	ck_assert_str_eq(rr.rule.why, "a test of two lines");
	ck_assert_ptr_nonnull(strstr(rr.note, "gamedb "));
	ck_assert_ptr_nonnull(strstr(rr.rule.source, "gamedb/loopgame/analysis.ini:1"));
	run_reload_release(&rr);
	synth_release(&s);

	/* a run from before reload.*: its recipe (gone) is not read */
	synth_init(&s, true, recipe);
	gamedb(&s, "[reload]\nline = ^Loading level\nmargin = 0.5\nwhy = a test\n");
	split(&s, &rr);
	ck_assert_int_eq(rr.rule.kind, RELOAD_LINE);
	ck_assert_ptr_nonnull(strstr(rr.note, "records no reload rule"));
	run_reload_release(&rr);
	synth_release(&s);

	/* no rule anywhere: recorded as none; no segments, play = the window */
	synth_init(&s, true, NULL);
	record(&s, NULL, NULL);
	ck_assert_str_eq(kvfile_get(&s.run.bench, "reload.none"), "yes");
	ck_assert_str_eq(kvfile_get(&s.run.bench, "reload.source"),
			 "none: no [reload] in the recipe, no gamedb/loopgame/analysis.ini");
	gamedb(&s, "[reload]\nafter_pass_start = 3\nwhy = found after the run\n");
	split(&s, &rr);
	ck_assert_int_eq(rr.rule.kind, RELOAD_NONE);
	ck_assert(rr.split);
	ck_assert_uint_eq(rr.n_segments, 0);
	run_reload_release(&rr);
	synth_release(&s);

	recipe_release(&r);
	strbuf_release(&err);
	remove_tree(tmp);
	free(tmp);
	free(recipe);
}
END_TEST

/* A fixture bench.txt of a run whose recipe was deleted after the run:
 * the recipe's rule (not the gamedb's) splits it. */
START_TEST(recorded_rule_fixture)
{
	struct synth s;
	struct run_reload rr;
	struct metrics m;
	struct strbuf err = STRBUF_INIT;

	synth_init(&s, true, NULL);
	gamedb(&s, "[reload]\nline = ^Loading level\nmargin = 0.5\nwhy = a test\n");
	kvfile_release(&s.run.bench);
	kvfile_init(&s.run.bench);
	ck_assert_msg(kvfile_load(&s.run.bench, fixture_path("reload-recorded/bench.txt"), &err) == 0,
		      "%s", err.buf);
	ck_assert_int_ne(access(kvfile_get(&s.run.bench, "recipe"), F_OK), 0);
	split(&s, &rr);
	ck_assert_int_eq(rr.rule.kind, RELOAD_FIXED);
	ck_assert_str_eq(rr.rule.source, "/nonexistent/recipes/loopgame.ini:4");
	ck_assert_uint_eq(rr.n_segments, 3);
	assert_seg(&rr.segments[1], 2, 10000, 10800);
	run_reload_release(&rr);
	metrics_of(&s, &m);
	ck_assert_int_eq((int)m.v[M_RELOAD_N], 2);
	synth_release(&s);
	strbuf_release(&err);
}
END_TEST

/* Bad reload.* keys are refused with bench.txt's line, as a bad
 * analysis.ini is with its own. */
START_TEST(recorded_rule_errors)
{
	static const struct {
		const char *keys, *msg;
	} bad[] = {
		{ "reload.format=2\nreload.source=none\nreload.none=yes\nreload.why=x\n",
		  "bench.txt: reload.format is not 1" },
		{ "reload.format=1\nreload.none=yes\nreload.why=x\n",
		  "bench.txt: reload.format without reload.source" },
		{ "reload.format=1\nreload.source=none\nreload.after_pass_start=soon\nreload.why=x\n",
		  "bench.txt:3: bad after_pass_start 'soon' (seconds, 0 to 3600)" },
		{ "reload.format=1\nreload.source=none\nreload.none=yes\nreload.window=1\nreload.why=x\n",
		  "bench.txt:4: reload.window is not a reload key" },
		{ "reload.format=1\nreload.source=none\nreload.line=a\nreload.why=x\n",
		  "bench.txt: reload.*: 'line' needs 'margin'" },
		{ "reload.format=1\nreload.source=none\nreload.none=yes\n",
		  "bench.txt: reload.*: [reload] needs 'why'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf err = STRBUF_INIT;
		struct run_reload rr;
		struct synth s;
		int line;

		synth_init(&s, true, NULL);
		kvfile_release(&s.run.bench);
		kvfile_init(&s.run.bench);
		ck_assert_int_eq(kvfile_parse(&s.run.bench, bad[i].keys, &line), 0);
		ck_assert_int_eq(run_reload_find(&s.run, NULL, &rr, &err), -EINVAL);
		ck_assert_msg(strstr(err.buf, bad[i].msg), "%zu: %s", i, err.buf);
		synth_release(&s);
		strbuf_release(&err);
	}
	/* a key given twice is refused when bench.txt is read, before any
	 * reload reader sees it */
	{
		struct kvfile kf;
		int line = 0;

		kvfile_init_repeats(&kf, kvfile_bench_repeats);
		ck_assert_int_eq(kvfile_parse(&kf, "reload.format=1\nreload.source=none\n"
					      "reload.none=yes\nreload.none=yes\nreload.why=x\n", &line),
				 -EINVAL);
		ck_assert_int_eq(line, 4);
		kvfile_release(&kf);
	}
}
END_TEST

/* Warm-up (500, 1500]: 100 frames of 10 ms, nothing over 100 ms; then a
 * run whose warm-up holds a 300 ms frame; and a run without warm-up. */
START_TEST(warmup_metrics)
{
	struct synth s;
	struct metrics m;

	synth_init(&s, true, NULL);
	metrics_of(&s, &m);
	ck_assert_int_eq((int)m.v[M_STALLS_WARM], 0);
	assert_near(m.v[M_STALL_WARM_S], 0.0);
	assert_near(m.v[M_LONGEST_WARM], 10.0);
	/* the presents from 710 to 990 ms move back to 700: frames of 0 ms,
	 * then one of 300 ms ending at 1000 */
	for (size_t i = 21; i < 50; i++)
		s.t[i] = s.t[20];
	metrics_of(&s, &m);
	ck_assert_int_eq((int)m.v[M_STALLS_WARM], 1);
	ck_assert(m.v[M_LONGEST_WARM] > 290);
	s.run.window_start_ns = 500 * MS;
	metrics_of(&s, &m);
	ck_assert(!m.have[M_STALLS_WARM]);
	ck_assert(!m.have[M_LONGEST_WARM]);
	synth_release(&s);
}
END_TEST

/* 200 characters */
#define LONG_WHY_20 "twenty characters.. "
#define LONG_WHY LONG_WHY_20 LONG_WHY_20 LONG_WHY_20 LONG_WHY_20 LONG_WHY_20 \
	LONG_WHY_20 LONG_WHY_20 LONG_WHY_20 LONG_WHY_20 LONG_WHY_20

/* analysis.ini: good files parse, bad ones are refused with PATH:LINE. */
START_TEST(ini_errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "after_pass_start = 1\n", "x.ini:1: key 'after_pass_start' outside [reload]" },
		{ "[reload]\nafter_pass_start = soon\nwhy = x\n", "x.ini:2: bad after_pass_start 'soon'" },
		{ "[reload]\nafter_pass_start = -1\nwhy = x\n", "x.ini:2: bad after_pass_start '-1'" },
		{ "[reload]\nwhy = x\nline = (\nmargin = 1\n", "x.ini:3: bad line pattern '('" },
		{ "[reload]\nwhy = x\nafter_pass_start = 1\nline = a\nmargin = 1\n",
		  "x.ini:4: 'after_pass_start' and 'line' exclude each other" },
		{ "[reload]\nwhy = x\nline = a\n", "x.ini:1: 'line' needs 'margin'" },
		{ "[reload]\nwhy = x\nafter_pass_start = 1\nmargin = 1\n", "x.ini:1: 'margin' goes with 'line' only" },
		{ "[reload]\nafter_pass_start = 1\n", "x.ini:1: [reload] needs 'why'" },
		{ "[reload]\nwhy = x\n", "x.ini:1: [reload] needs one of" },
		{ "[reload]\nwhy = x\nafter_pass_start = 1\nafter_pass_start = 2\n",
		  "x.ini:4: duplicate key 'after_pass_start'" },
		{ "[reload]\nwhy = x\nafter = 1\n", "x.ini:3: unknown key 'after'" },
		{ "[reload]\nwhy = x\nnone = no\n", "x.ini:3: 'none' takes 'yes'" },
		{ "[reloads]\n", "x.ini:1: unknown section '[reloads]'" },
		{ "\n[reload]\nwhy = x\nnone = yes\n[reload]\n", "x.ini:5: duplicate section '[reload]' (first on line 2)" },
		{ "[reload]\nwhy = x\njust words\n", "x.ini:3: expected 'key = value' or '[reload]'" },
		{ "[reload] extra\n", "x.ini:1: unexpected text after section header" },
		{ "# nothing\n", "x.ini: no [reload] section" },
		/* a long 'why' is written over several lines */
		{ "[reload]\nwhy = " LONG_WHY "\n", "x.ini:2: line too long (at most 198 characters; a "
		  "long 'why' takes several 'why =' lines)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf err = STRBUF_INIT;
		struct reload_rule r;

		reload_rule_init(&r);
		ck_assert_int_eq(reload_rule_parse_string(cases[i].text, "x.ini", &r, &err), -EINVAL);
		ck_assert_msg(str_startswith(err.buf, cases[i].want), "case %zu: got '%s', want '%s...'",
			      i, err.buf, cases[i].want);
		ck_assert_int_eq(r.kind, RELOAD_UNSET);
		strbuf_release(&err);
	}
}
END_TEST

START_TEST(ini_good)
{
	struct strbuf err = STRBUF_INIT;
	struct reload_rule r;
	char *d;

	reload_rule_init(&r);
	ck_assert_int_eq(reload_rule_parse_string("; c\n[reload] ; the rule\n  line = ^CL_InitCGame: ; measured\n"
						  "margin = 1.0\nwhy = one\nwhy = two\n", "x.ini", &r, &err), 0);
	ck_assert_int_eq(r.kind, RELOAD_LINE);
	ck_assert_str_eq(r.line, "^CL_InitCGame:");
	ck_assert_str_eq(r.why, "one two");
	ck_assert_str_eq(r.source, "x.ini:2");
	d = reload_rule_describe(&r);
	ck_assert_str_eq(d, "pass start to 1 s after the first line matching '^CL_InitCGame:'");
	free(d);
	reload_rule_release(&r);
	/* a BOM (once taken for text before the section), CRLF */
	ck_assert_msg(reload_rule_parse_string("\xef\xbb\xbf[reload]\r\nnone = yes\r\nwhy = x\r\n", "x.ini",
					       &r, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(r.kind, RELOAD_NONE);
	ck_assert_str_eq(r.source, "x.ini:1");

	/* the rules shipped in gamedb/ parse */
	ck_assert_msg(reload_rule_load(srcdir_path("gamedb/dsda-doom/analysis.ini"), &r, &err) == 0,
		      "%s", err.buf);
	ck_assert_int_eq(r.kind, RELOAD_FIXED);
	assert_near(r.after_s, 1.0);
	reload_rule_release(&r);
	strbuf_release(&err);
}
END_TEST

/* A recipe's [reload] goes through the same keys, errors at its line. */
START_TEST(recipe_reload_section)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = true\n[reload]\nnone = yes\nwhy = x\n",
					     "/r/a.ini", &r, &err), 0);
	ck_assert_int_eq(r.reload.kind, RELOAD_NONE);
	ck_assert_str_eq(r.reload.source, "/r/a.ini:3");
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = true\n[reload]\nmargin = x\n",
					     "/r/a.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "/r/a.ini:4: bad margin 'x' (seconds, 0 to 3600)");
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = true\n[reload]\nline = a\nwhy = x\n",
					     "/r/a.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "/r/a.ini:3: 'line' needs 'margin' (seconds after the line)");
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = true\n[reload]\nwindow = 1\n",
					     "/r/a.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "/r/a.ini:4: unknown key 'window' in [reload]");
	/* the good recipe is untouched by the failures */
	ck_assert_int_eq(r.reload.kind, RELOAD_NONE);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

/* game.log lines: stamps of the matching lines; a line without a stamp
 * is refused with its line number. */
START_TEST(game_log_lines)
{
	char *tmp = test_tmpdir();
	char *good = put(tmp, "good.log", "1.000001\ta\tb\n2.500000\tLoading level\n3.000000\t\n");
	char *bad = put(tmp, "bad.log", "1.000001\tLoading\nno stamp here\n");
	struct strbuf err = STRBUF_INIT;
	uint64_t *v = NULL;
	size_t n = 0;

	ck_assert_int_eq(reload_match_log(good, "^Loading|^a\tb$", &v, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0], 1000001000ull);
	ck_assert_uint_eq(v[1], 2500000000ull);
	free(v);
	ck_assert_int_eq(reload_match_log(bad, "Loading", &v, &n, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "bad.log:2: expected 'SECONDS.MICROSECONDS<TAB>LINE'"));
	remove_tree(tmp);
	free(tmp);
	free(good);
	free(bad);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(reload_suite)
{
	Suite *s = suite_create("reload");
	TCase *tc = tcase_create("reload");

	tcase_add_test(tc, fixed_rule);
	tcase_add_test(tc, line_rule_and_straddling_frame);
	tcase_add_test(tc, missing_line);
	tcase_add_test(tc, pass_stopped_while_loading);
	tcase_add_test(tc, recorded_rule);
	tcase_add_test(tc, recorded_rule_fixture);
	tcase_add_test(tc, recorded_rule_errors);
	tcase_add_test(tc, warmup_metrics);
	tcase_add_test(tc, ini_errors);
	tcase_add_test(tc, ini_good);
	tcase_add_test(tc, recipe_reload_section);
	tcase_add_test(tc, game_log_lines);
	suite_add_tcase(s, tc);
	return s;
}
