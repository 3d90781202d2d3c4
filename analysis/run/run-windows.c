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
 *
 * The rule comes from the run's own bench.txt (reload.*), which the runner
 * fills before the game starts by run_reload_resolve() here: the analysis
 * never reads a recipe, so a moved, copied or imported run is analysed
 * from its files alone.
 */
#include "run/run.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool run_pass_start_key(const char *key, int *pass)
{
	static const char head[] = "pass.", tail[] = ".start_ns";
	size_t len = strlen(key), hl = sizeof(head) - 1, tl = sizeof(tail) - 1;
	char num[16];

	if (len <= hl + tl || len - hl - tl >= sizeof(num) || strncmp(key, head, hl) != 0 ||
	    strcmp(key + len - tl, tail) != 0)
		return false;
	memcpy(num, key + hl, len - hl - tl);
	num[len - hl - tl] = '\0';
	for (const char *c = num; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return safe_atoi(num, pass) == 0 && *pass >= 1;
}

/* bench.txt's pass.N.start_ns, in start order. */
size_t run_passes(const struct run *run, struct reload_pass **out)
{
	struct reload_pass *v = zalloc((run->bench.n ? run->bench.n : 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < run->bench.n; i++) {
		const struct kv *kv = &run->bench.items[i];
		int pass;
		uint64_t ns;

		if (!run_pass_start_key(kv->key, &pass) || safe_atou64(kv->value, &ns) < 0)
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

/* gamedb/<game>/analysis.ini: 1 found (rule set), 0 none, -errno. */
static int rule_from_gamedb(const char *dir, const char *game, struct reload_rule *rule,
			    struct strbuf *origin, struct strbuf *err)
{
	char *path = xasprintf("%s/%s/analysis.ini", dir, game);
	struct stat st;
	int e = 0;

	if (stat(path, &st) == 0) {
		e = reload_rule_load(path, rule, err);
		if (e == 0) {
			strbuf_addf(origin, "gamedb %s", rule->source);
			e = 1;
		}
	}
	free(path);
	return e;
}

/* The game's own rule, without its recipe: gamedb_dirs, then the gamedb
 * beside the recipe's directory; else none (origin says so). */
static int rule_from_gamedbs(const char *game, const char *recipe_path,
			     const char *const *gamedb_dirs, struct reload_rule *rule,
			     struct strbuf *origin, struct strbuf *err)
{
	int e;

	for (size_t i = 0; gamedb_dirs && gamedb_dirs[i]; i++) {
		e = rule_from_gamedb(gamedb_dirs[i], game, rule, origin, err);
		if (e)
			return e < 0 ? e : 0;
	}
	if (recipe_path && strrchr(recipe_path, '/')) {
		char *dir = xasprintf("%.*s/../gamedb", (int)(strrchr(recipe_path, '/') - recipe_path),
				      recipe_path);

		e = rule_from_gamedb(dir, game, rule, origin, err);
		free(dir);
		if (e)
			return e < 0 ? e : 0;
	}
	rule->kind = RELOAD_NONE;
	strbuf_addf(origin, "none: no [reload] in the recipe, no gamedb/%s/analysis.ini", game);
	return 0;
}

int run_reload_resolve(const struct reload_rule *recipe_rule, const char *recipe_path,
		       const char *game, const char *const *gamedb_dirs, struct reload_rule *out,
		       struct strbuf *origin, struct strbuf *err)
{
	reload_rule_init(out);
	if (recipe_rule && recipe_rule->kind != RELOAD_UNSET) {
		out->kind = recipe_rule->kind;
		out->after_s = recipe_rule->after_s;
		out->line = recipe_rule->line ? xstrdup(recipe_rule->line) : NULL;
		out->margin_s = recipe_rule->margin_s;
		out->have_margin = recipe_rule->have_margin;
		out->why = recipe_rule->why ? xstrdup(recipe_rule->why) : NULL;
		out->source = recipe_rule->source ? xstrdup(recipe_rule->source) : NULL;
		strbuf_addf(origin, "recipe %s", out->source ? out->source : recipe_path);
		return 0;
	}
	return rule_from_gamedbs(game, recipe_path, gamedb_dirs, out, origin, err);
}

/* Seconds as the shortest text that reads back as the same double. */
static void add_seconds(struct kvfile *bench, const char *key, double v)
{
	char buf[40];

	format_double_exact(buf, sizeof(buf), v);
	kvfile_add(bench, key, buf);
}

void run_reload_record(struct kvfile *bench, const struct reload_rule *rule, const char *origin)
{
	kvfile_addf(bench, "reload.format", "%d", RUN_RELOAD_FORMAT);
	kvfile_add(bench, "reload.source", origin);
	switch (rule->kind) {
	case RELOAD_FIXED:
		add_seconds(bench, "reload.after_pass_start", rule->after_s);
		break;
	case RELOAD_LINE:
		kvfile_add(bench, "reload.line", rule->line);
		add_seconds(bench, "reload.margin", rule->margin_s);
		break;
	case RELOAD_NONE:
	case RELOAD_UNSET:
		kvfile_add(bench, "reload.none", "yes");
		break;
	}
	/* a rule found nowhere has no why of its own: where it was looked for */
	kvfile_add(bench, "reload.why", rule->why && *rule->why ? rule->why : origin);
}

/* One reload.* key of bench.txt into rule; 0, or -EINVAL with the line. */
static int record_key(const struct run *run, const struct kv *kv, struct reload_rule *rule,
		      struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	int e = reload_rule_set(rule, kv->key + strlen("reload."), kv->value, &msg);

	if (e == -ENOENT)
		strbuf_addf(&msg, "%s is not a reload key", kv->key);
	else if (e == -EEXIST)
		strbuf_addf(&msg, "%s given twice", kv->key);
	if (e < 0)
		strbuf_addf(err, "%s/bench.txt:%d: %s", run->dir, kv->line, msg.buf);
	strbuf_release(&msg);
	return e < 0 ? -EINVAL : 0;
}

/* The rule the runner recorded (bench.txt reload.*, docs/formats.md): 1
 * when there is one (rule and note set), 0 for a run from before the
 * keys, -EINVAL with "DIR/bench.txt:LINE: ..." in err for a bad one. */
static int rule_from_bench(const struct run *run, struct reload_rule *rule, struct strbuf *note,
			   struct strbuf *err)
{
	const char *format = kvfile_get(&run->bench, "reload.format");
	const char *origin = kvfile_get(&run->bench, "reload.source");
	struct strbuf msg = STRBUF_INIT;
	char version[16];
	int e = 0;

	if (!format)
		return 0;
	if (!origin || !*origin) {
		strbuf_addf(err, "%s/bench.txt: reload.format without reload.source", run->dir);
		return -EINVAL;
	}
	/* the version run_reload_record() writes, as it writes it */
	snprintf(version, sizeof(version), "%d", RUN_RELOAD_FORMAT);
	if (strcmp(format, version)) {
		strbuf_addf(err, "%s/bench.txt: reload.format is not %d (the one this hitchbench reads)",
			    run->dir, RUN_RELOAD_FORMAT);
		return -EINVAL;
	}
	for (size_t i = 0; i < run->bench.n && e == 0; i++) {
		const struct kv *kv = &run->bench.items[i];

		if (str_startswith(kv->key, "reload.") && strcmp(kv->key, "reload.format") &&
		    strcmp(kv->key, "reload.source"))
			e = record_key(run, kv, rule, err);
	}
	if (e == 0 && reload_rule_check(rule, &msg) < 0) {
		strbuf_addf(err, "%s/bench.txt: reload.*: %s", run->dir, msg.buf);
		e = -EINVAL;
	}
	strbuf_release(&msg);
	if (e < 0)
		return e;
	/* "recipe PATH:LINE" and "gamedb PATH:LINE" keep their PATH:LINE */
	if (str_startswith(origin, "recipe ") || str_startswith(origin, "gamedb "))
		rule->source = xstrdup(strchr(origin, ' ') + 1);
	strbuf_addf(note, "%s (as bench.txt records it)", origin);
	return 1;
}

static int find_rule(const struct run *run, const char *const *gamedb_dirs, struct run_reload *rr,
		     struct strbuf *note, struct strbuf *err)
{
	int e = rule_from_bench(run, &rr->rule, note, err);

	if (e)
		return e < 0 ? e : 0;
	/* a run from before reload.*: its recipe is not read (the analysis
	 * takes a run's own files), so a [reload] it may have had is not known */
	strbuf_addstr(note, "the run records no reload rule (bench.txt before reload.format): "
		      "a [reload] of its recipe, if any, is not known; ");
	return rule_from_gamedbs(run->game, kvfile_get(&run->bench, "recipe"), gamedb_dirs,
				 &rr->rule, note, err);
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
	uint64_t first = run->frames.n ? run->frames.t_ns[0] : 0, *rec_ns;
	struct metric_recreations rec;
	struct metrics w;
	int e;

	if (v && safe_atou64(v, &first) < 0)
		return;
	if (!run->frames.n || first >= run->window_start_ns)
		return;
	e = metrics_compute_recreated(run->frames.t_ns, run->frames.n, first, run->window_start_ns,
				      run_recreations(run, &rec, &rec_ns), opts, &w);
	free(rec_ns);
	if (e < 0)
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
	uint64_t reload_ns = 0, covered = ws, *p, *rec_ns, *laid_ns;
	size_t n = 0, segs = 0, k_rec = 0;
	struct metric_recreations rec, laid = { NULL, 0 };
	const struct metric_recreations *have_rec = run_recreations(run, &rec, &rec_ns);
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
	/* a play frame that spans a recreation spans it laid end to end too:
	 * the recreation moves to the frame's end */
	laid_ns = zalloc((same || !have_rec ? 1 : rec.n + 1) * sizeof(*laid_ns));
	for (size_t i = 1, k = 0; !same && i < run->frames.n; i++) {
		if (t[i] <= ws || t[i] > we || in_reload(rr, t[i - 1], t[i]))
			continue;
		p[k + 1] = p[k] + (t[i] - t[i - 1]);
		for (; have_rec && k_rec < rec.n && rec.t_ns[k_rec] <= t[i]; k_rec++)
			if (rec.t_ns[k_rec] > t[i - 1])
				laid_ns[laid.n++] = p[k + 1];
		k++;
	}
	laid.t_ns = laid_ns;
	if (n > 0 && (same || (p[n] > 0 && metrics_compute_recreated(p, n + 1, 0, p[n], have_rec ? &laid : NULL,
								       opts, &play) == 0))) {
		static const enum metric_id from[][2] = {
			{ M_STALLS, M_STALLS_PLAY }, { M_STALL_S, M_STALL_PLAY_S },
			{ M_LONGEST_MS, M_LONGEST_PLAY }, { M_LOW1, M_LOW1_PLAY },
		};

		for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++)
			if (play.have[from[k][0]])
				set(m, from[k][1], play.v[from[k][0]]);
	}
	free(p);
	free(laid_ns);
	free(rec_ns);
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
