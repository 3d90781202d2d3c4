/*
 * The warm-up and play windows of a run (run.h, docs/metrics.md).
 *
 * The measured window leaves out the warm-up, where late loads and
 * first-use shader compiles happen: stalls_warm, stall_warm_s and
 * longest_warm cover it. A looping demo reloads its map at every pass, and
 * those frames are not play: the play metrics are the window's again with
 * the reload segments (reload.h) left out, while the whole-window metrics
 * stay as they are. Called from run_metrics(), so result.txt, reports and
 * the database all get them.
 */
#include "recipe.h"
#include "run.h"

#include "hash.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* bench.txt's pass.N.start_ns, in start order. */
size_t run_passes(const struct run *run, struct reload_pass **out)
{
	struct reload_pass *v = zalloc((run->bench.n ? run->bench.n : 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < run->bench.n; i++) {
		const struct kv *kv = &run->bench.items[i];
		int pass, len = 0;
		uint64_t ns;

		if (sscanf(kv->key, "pass.%d.start_ns%n", &pass, &len) != 1 ||
		    (size_t)len != strlen(kv->key) || safe_atou64(kv->value, &ns) < 0)
			continue;
		v[n].pass = pass;
		v[n].start_ns = ns;
		/* insertion keeps them ordered by start (bench.txt already is) */
		for (size_t j = n++; j > 0 && v[j].start_ns < v[j - 1].start_ns; j--) {
			struct reload_pass t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	*out = v;
	return n;
}

/* The recipe's own [reload], when the recipe is still there and has one.
 * 1 when it gave the rule, 0 when not (note says why, if anything is odd;
 * what the user should be told goes to rr->recipe_note too). */
static int rule_from_recipe(const struct run *run, struct run_reload *rr, struct strbuf *note)
{
	const char *path = kvfile_get(&run->bench, "recipe");
	const char *sha = kvfile_get(&run->bench, "recipe_sha256");
	char now[HB_SHA256_HEX_LEN + 1];
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	bool changed;
	int got = 0;

	if (!path)
		return 0;
	recipe_init(&r);
	if (access(path, F_OK) < 0) {
		strbuf_addf(note, "the recipe %s is gone: its [reload], if any, is not known; ", path);
		goto out;
	}
	if (recipe_load(path, &r, &err) < 0) {
		strbuf_addf(note, "the recipe no longer loads (%s); ", err.buf);
		rr->recipe_note = xasprintf("the recipe no longer loads (%s): its reload rule is not "
					    "known", err.buf);
		goto out;
	}
	/* a recipe changed since the run may have gained or lost its [reload] */
	changed = sha && (sha256_file_hex(path, now) < 0 || strcmp(now, sha));
	if (changed)
		rr->recipe_note = xasprintf("the recipe %s changed since the run: %s", path,
					    r.reload.kind == RELOAD_UNSET ? "it has no [reload] now"
									  : "its [reload] as it is now is used");
	if (r.reload.kind == RELOAD_UNSET)
		goto out;
	rr->rule = r.reload;
	memset(&r.reload, 0, sizeof(r.reload));
	strbuf_addf(note, "recipe %s", rr->rule.source);
	if (changed)
		strbuf_addstr(note, " (the recipe changed since the run)");
	got = 1;
out:
	recipe_release(&r);
	strbuf_release(&err);
	return got;
}

/* gamedb/<game>/analysis.ini: 1 found (rule set), 0 none, -errno. */
static int rule_from_gamedb(const char *dir, const struct run *run, struct run_reload *rr,
			    struct strbuf *note, struct strbuf *err)
{
	char *path = xasprintf("%s/%s/analysis.ini", dir, run->game);
	struct stat st;
	int e = 0;

	if (stat(path, &st) == 0) {
		e = reload_rule_load(path, &rr->rule, err);
		if (e == 0) {
			strbuf_addf(note, "gamedb %s", rr->rule.source);
			e = 1;
		}
	}
	free(path);
	return e;
}

static int find_rule(const struct run *run, const char *const *gamedb_dirs, struct run_reload *rr,
		     struct strbuf *note, struct strbuf *err)
{
	const char *recipe = kvfile_get(&run->bench, "recipe");
	int e;

	if (rule_from_recipe(run, rr, note))
		return 0;
	for (size_t i = 0; gamedb_dirs && gamedb_dirs[i]; i++) {
		e = rule_from_gamedb(gamedb_dirs[i], run, rr, note, err);
		if (e)
			return e < 0 ? e : 0;
	}
	if (recipe && strrchr(recipe, '/')) {
		char *dir = xasprintf("%.*s/../gamedb", (int)(strrchr(recipe, '/') - recipe), recipe);

		e = rule_from_gamedb(dir, run, rr, note, err);
		free(dir);
		if (e)
			return e < 0 ? e : 0;
	}
	rr->rule.kind = RELOAD_NONE;
	strbuf_addf(note, "no reload rule for %s (no [reload] in its recipe, no "
		    "gamedb/%s/analysis.ini)", run->game, run->game);
	return 0;
}

int run_reload_find(const struct run *run, const char *const *gamedb_dirs, struct run_reload *out,
		    struct strbuf *err)
{
	struct run_reload rr;
	struct strbuf note = STRBUF_INIT;
	struct reload_pass *passes = NULL;
	uint64_t *lines = NULL;
	size_t n_pass, n_lines = 0;
	char *log = NULL;
	int e;

	if (!run->have_window || !run->have_frames)
		return -ENODATA;
	memset(&rr, 0, sizeof(rr));
	e = find_rule(run, gamedb_dirs, &rr, &note, err);
	if (e < 0)
		goto out;
	if (rr.rule.kind == RELOAD_LINE) {
		log = xasprintf("%s/game.log", run->dir);
		e = reload_match_log(log, rr.rule.line, &lines, &n_lines, err);
		if (e == -ENOENT) {
			/* no game.log: every pass lacks its line */
			strbuf_reset(err);
			e = 0;
		}
		if (e < 0)
			goto out;
	}
	n_pass = run_passes(run, &passes);
	e = reload_segments(&rr.rule, passes, n_pass, lines, n_lines, run->frames.t_ns, run->frames.n,
			    run->window_start_ns, run->window_end_ns, &rr.segments, &rr.n_segments);
	rr.split = e == 0;
	if (e == -ENODATA) {
		strbuf_addstr(&note, "; a pass has no line matching the rule: no play numbers");
		e = 0;
	}
	if (e < 0)
		goto out;
	rr.note = strbuf_detach(&note);
	*out = rr;
	memset(&rr, 0, sizeof(rr));
out:
	run_reload_release(&rr);
	strbuf_release(&note);
	free(passes);
	free(lines);
	free(log);
	return e;
}

void run_reload_release(struct run_reload *rr)
{
	if (!rr)
		return;
	reload_rule_release(&rr->rule);
	free(rr->note);
	free(rr->recipe_note);
	free(rr->segments);
	memset(rr, 0, sizeof(*rr));
}

static void set(struct metrics *m, enum metric_id id, double v)
{
	m->v[id] = v;
	m->have[id] = true;
}

/* The warm-up: (first present, window start], frames ending there. */
static void warm_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m)
{
	const char *v = kvfile_get(&run->bench, "first_frame_ns");
	uint64_t first = run->frames.n ? run->frames.t_ns[0] : 0;
	struct metrics w;

	if (v && safe_atou64(v, &first) < 0)
		return;
	if (!run->frames.n || first >= run->window_start_ns)
		return;
	if (metrics_compute(run->frames.t_ns, run->frames.n, first, run->window_start_ns, opts, &w) < 0)
		return;
	/* a warm-up without frames has no stall numbers (have[] false) */
	if (w.have[M_STALLS])
		set(m, M_STALLS_WARM, w.v[M_STALLS]);
	if (w.have[M_STALL_S])
		set(m, M_STALL_WARM_S, w.v[M_STALL_S]);
	if (w.have[M_LONGEST_MS])
		set(m, M_LONGEST_WARM, w.v[M_LONGEST_MS]);
}

/* Whether frame (a, b] overlaps a segment (segments widened to whole
 * frames, so overlap means the frame is one of them). */
static bool in_reload(const struct run_reload *rr, uint64_t a, uint64_t b)
{
	for (size_t k = 0; k < rr->n_segments; k++)
		if (a < rr->segments[k].end_ns && b > rr->segments[k].start_ns)
			return true;
	return false;
}

/* The play window: the window's frames less those of reload segments. */
static void play_metrics(const struct run *run, const struct run_reload *rr,
			 const struct metric_opts *opts, struct metrics *m)
{
	const uint64_t *t = run->frames.t_ns;
	uint64_t ws = run->window_start_ns, we = run->window_end_ns;
	uint64_t reload_ns = 0, covered = ws, *p;
	size_t n = 0, segs = 0;
	struct metrics play;
	bool same;

	/* the window's time inside segments, each second counted once */
	for (size_t k = 0; k < rr->n_segments; k++) {
		uint64_t s = rr->segments[k].start_ns, e = rr->segments[k].end_ns;

		if (e <= ws || s >= we)
			continue;
		segs++;
		if (s < covered)
			s = covered;
		if (e > we)
			e = we;
		if (e > s) {
			reload_ns += e - s;
			covered = e;
		}
	}
	set(m, M_RELOAD_N, (double)segs);
	set(m, M_RELOAD_S, (double)reload_ns / 1e9);
	set(m, M_WIN_PLAY, (double)(we - ws - reload_ns) / 1e9);

	/* no frame of the window in a segment: play is the window, whose
	 * numbers m has (a second sort of every frame saved) */
	for (size_t i = 1; i < run->frames.n; i++)
		if (t[i] > ws && t[i] <= we && !in_reload(rr, t[i - 1], t[i]))
			n++;
	same = n > 0 && m->have[M_FRAMES] && (double)n == m->v[M_FRAMES];
	if (same)
		play = *m;
	/* else the play frames laid end to end: metrics_compute() over them
	 * gives the window's definitions (threshold, percentile) unchanged */
	p = zalloc((same ? 1 : n + 1) * sizeof(*p));
	for (size_t i = 1, k = 0; !same && i < run->frames.n; i++) {
		if (t[i] <= ws || t[i] > we || in_reload(rr, t[i - 1], t[i]))
			continue;
		p[k + 1] = p[k] + (t[i] - t[i - 1]);
		k++;
	}
	if (n > 0 && (same || (p[n] > 0 && metrics_compute(p, n + 1, 0, p[n], opts, &play) == 0))) {
		static const enum metric_id from[][2] = {
			{ M_STALLS, M_STALLS_PLAY }, { M_STALL_S, M_STALL_PLAY_S },
			{ M_LONGEST_MS, M_LONGEST_PLAY }, { M_LOW1, M_LOW1_PLAY },
		};

		for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++)
			if (play.have[from[k][0]])
				set(m, from[k][1], play.v[from[k][0]]);
	}
	free(p);
}

void run_window_metrics(const struct run *run, const struct metric_opts *opts, struct metrics *m)
{
	struct strbuf err = STRBUF_INIT;
	struct run_reload rr;

	warm_metrics(run, opts, m);
	/* a bad analysis.ini cannot be reported from here: commands check
	 * it with run_reload_find() and say so */
	if (run_reload_find(run, opts ? opts->gamedb_dirs : NULL, &rr, &err) == 0) {
		if (rr.split)
			play_metrics(run, &rr, opts, m);
		run_reload_release(&rr);
	}
	strbuf_release(&err);
}
