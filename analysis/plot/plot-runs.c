/*
 * Loaded runs into the frame-time pictures' structs (plot-runs.h): the
 * gathering `hitchbench plot` and the HTML report share, so both draw the
 * same labels, colours and counts. Every number in a legend comes from
 * run_metrics(), the function the report's rows come from.
 */
#include "plot/plot-runs.h"
#include "run/runrelay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One run's arrays, and a group's pooled frames. */
struct plot_run_store {
	char *label;
	double *t_s, *ms, *win;
	bool *recreated;
	struct plot_segment *segments;
};

struct plot_runs_store {
	struct plot_run_store *runs;    /* [n_runs] */
	char **group_labels;            /* [n_groups] */
	double **group_ms;              /* [n_groups] */
};

/* Whether two names are equal, NULL equal to NULL only. */
static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

void plot_run_name(const struct run *run, struct strbuf *out)
{
	const char *name = kvfile_get(&run->bench, "run_name");
	const char *started = kvfile_get(&run->bench, "started_utc");

	strbuf_addf(out, "%s %s ", run->game ? run->game : "?", name ? name : run->variant ? run->variant : "?");
	/* 2026-11-30T12:07:15Z -> 2026-11-30 12:07:15 UTC */
	if (started && strlen(started) == 20 && started[10] == 'T' && started[19] == 'Z')
		strbuf_addf(out, "%.10s %.8s", started, started + 11);
	else
		strbuf_addstr(out, run->name);
}

/* The headline: each figure with its lead and unit; one a run lacks is "-". */
static const struct headline_part {
	const char *lead;
	enum metric_id id;
	const char *unit;
} headline[] = {
	{ "", M_FRAMES, " frames" },
	{ ", median ", M_P50_MS, " ms" },
	{ ", p99 ", M_P99_MS, " ms" },
	{ ", 1% low ", M_LOW1, " fps" },
	{ ", stalls ", M_STALLS, "" },
	{ " (", M_STALL_S, " s" },
};

void plot_run_headline(const struct metrics *m, struct strbuf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(headline); i++) {
		const struct headline_part *h = &headline[i];

		strbuf_addstr(out, h->lead);
		if (m->have[h->id])
			strbuf_addf(out, "%.*f%s", metric_defs[h->id].decimals, m->v[h->id], h->unit);
		else
			strbuf_addstr(out, "-");
	}
	strbuf_addstr(out, ")");
	if (m->have[M_STALLS_WARM] && m->v[M_STALLS_WARM] > 0)
		strbuf_addf(out, "; warm-up stalls %.0f (not counted)", m->v[M_STALLS_WARM]);
}

char *plot_runs_title(const struct run *const *runs, size_t n, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	size_t games = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (same_str(runs[j]->game, runs[i]->game))
				break;
		games += j == i;
	}
	strbuf_addf(&sb, "%s: ", what);
	if (n == 1)
		plot_run_name(runs[0], &sb);
	else if (games == 1)
		strbuf_addf(&sb, "%zu runs of %s", n, runs[0]->game ? runs[0]->game : "?");
	else
		strbuf_addf(&sb, "%zu runs of %zu games", n, games);
	return strbuf_detach(&sb);
}

/* Seconds from the run's first present; clamped at 0. */
static double since_first(const struct run *run, uint64_t ns)
{
	return ns > run->frames.t_ns[0] ? (double)(ns - run->frames.t_ns[0]) / 1e9 : 0.0;
}

/*
 * The warm-up (from the first frame to the window's start; bench.txt's
 * first_frame_ns and window_start_ns), what came after the window, and
 * each pass's reload segment (the game's reload rule, analysis/run/reload.h),
 * as shaded segments; *n_out of them.
 */
static struct plot_segment *run_segments(const struct run *run, const struct metric_opts *opts,
					 size_t *n_out)
{
	const uint64_t *t = run->frames.t_ns;
	uint64_t first = t[0], last = t[run->frames.n - 1];
	const char *ff = kvfile_get(&run->bench, "first_frame_ns");
	struct strbuf err = STRBUF_INIT;
	struct plot_segment *seg;
	struct run_reload rr;
	bool have_rr;
	size_t n = 0;

	*n_out = 0;
	if (!run->have_window)
		return NULL;
	/* the reload segments when the game has a rule (a bad rule: none drawn) */
	have_rr = run_reload_find(run, opts->gamedb_dirs, &rr, &err) == 0;
	strbuf_release(&err);
	seg = zalloc(sizeof(*seg) * (2 + (have_rr ? rr.n_segments : 0)));
	if (ff)
		safe_atou64(ff, &first);
	if (run->window_start_ns > first)
		seg[n++] = (struct plot_segment){ since_first(run, first),
						  since_first(run, run->window_start_ns), "warm-up" };
	if (last > run->window_end_ns)
		seg[n++] = (struct plot_segment){ since_first(run, run->window_end_ns),
						  since_first(run, last), "after window" };
	for (size_t i = 0; have_rr && i < rr.n_segments; i++)
		seg[n++] = (struct plot_segment){ since_first(run, rr.segments[i].start_ns),
						  since_first(run, rr.segments[i].end_ns), "reload" };
	if (have_rr)
		run_reload_release(&rr);
	*n_out = n;
	return seg;
}

/* Run k into pr: every frame, its window's frames (the frames metrics.h
 * counts: those ending in (window_start, window_end]; all of them when the
 * run has no window), its segments, metrics and label. A run of a relay
 * leaves out the intervals that touch its gaps (runrelay.h), as its
 * metrics do: a stop is no frame of the game's. */
static void fill_run(struct plot_runs *pr, size_t k, const struct run *run, const struct metric_opts *opts)
{
	struct plot_run_store *st = &pr->store->runs[k];
	struct strbuf label = STRBUF_INIT;
	size_t n = run->frames.n - 1, n_win = 0, n_seg, kept = 0, gap = 0, next_rec = 0;
	struct metric_recreations rec_buf;
	const struct metric_recreations *rec;
	uint64_t *rec_ns;
	struct run_relay_gaps g;

	st->t_s = zalloc(n * sizeof(*st->t_s));
	st->ms = zalloc(n * sizeof(*st->ms));
	st->win = zalloc(n * sizeof(*st->win));
	st->recreated = zalloc(n * sizeof(*st->recreated));
	/* the frames run_metrics() leaves out of the stalls */
	rec = run_recreations(run, &rec_buf, &rec_ns);
	run_relay_gaps(run, &g);
	for (size_t i = 0; i < n; i++) {
		uint64_t end = run->frames.t_ns[i + 1];
		bool recreated = metric_recreation_spanned(rec, &next_rec, run->frames.t_ns[i], end);

		if (run_relay_in_gap(&g, &gap, run->frames.t_ns[i], end))
			continue;
		st->t_s[kept] = since_first(run, end);
		st->ms[kept] = (double)(end - run->frames.t_ns[i]) / 1e6;
		st->recreated[kept] = recreated;
		if (!run->have_window || (end > run->window_start_ns && end <= run->window_end_ns))
			st->win[n_win++] = st->ms[kept];
		kept++;
	}
	run_relay_gaps_release(&g);
	free(rec_ns);
	n = kept;
	st->segments = run_segments(run, opts, &n_seg);
	pr->have_metrics[k] = run_metrics(run, opts, &pr->metrics[k]) == 0;
	plot_run_name(run, &label);
	strbuf_addstr(&label, ": ");
	if (pr->have_metrics[k])
		plot_run_headline(&pr->metrics[k], &label);
	else
		strbuf_addf(&label, "%zu frames, no measured window", n);
	st->label = strbuf_detach(&label);
	pr->frames[k] = (struct plot_run){ .label = st->label, .t_s = st->t_s, .ms = st->ms, .n = n,
					   .segments = st->segments, .n_segments = n_seg,
					   .recreated = st->recreated };
	if (run->have_window) {
		pr->frames[k].window_t0_s = since_first(run, run->window_start_ns);
		pr->frames[k].window_t1_s = since_first(run, run->window_end_ns);
	}
	pr->runs[k] = (struct plot_series){ .label = st->label, .ms = st->win, .n = n_win };
}

static const char *run_name_of(const struct run *run)
{
	const char *name = kvfile_get(&run->bench, "run_name");

	return name ? name : run->variant;
}

/* The groups: each run's style (group, member) and each group's pooled
 * window frames and label. */
static void fill_groups(struct plot_runs *pr, const struct run *const *runs, size_t n)
{
	size_t *first = zalloc((n + 1) * sizeof(*first)); /* a group's first run */

	for (size_t k = 0; k < n; k++) {
		unsigned g, member = 0;

		for (g = 0; g < pr->n_groups; g++)
			if (same_str(runs[first[g]]->game, runs[k]->game) &&
			    same_str(run_name_of(runs[first[g]]), run_name_of(runs[k])))
				break;
		if (g == pr->n_groups)
			first[pr->n_groups++] = k;
		for (size_t j = 0; j < k; j++)
			member += pr->frames[j].style.group == g;
		pr->frames[k].style = pr->runs[k].style = (struct plot_style){ g, member };
	}
	pr->groups = zalloc((pr->n_groups + 1) * sizeof(*pr->groups));
	pr->store->group_labels = zalloc((pr->n_groups + 1) * sizeof(char *));
	pr->store->group_ms = zalloc((pr->n_groups + 1) * sizeof(double *));
	for (size_t g = 0; g < pr->n_groups; g++) {
		struct strbuf label = STRBUF_INIT;
		size_t runs_in = 0, frames = 0;
		double stalls = 0, stall_s = 0;
		double *ms;

		for (size_t k = 0; k < n; k++)
			if (pr->runs[k].style.group == g)
				frames += pr->runs[k].n;
		ms = zalloc((frames + 1) * sizeof(*ms));
		frames = 0;
		for (size_t k = 0; k < n; k++) {
			if (pr->runs[k].style.group != g)
				continue;
			memcpy(ms + frames, pr->runs[k].ms, pr->runs[k].n * sizeof(*ms));
			frames += pr->runs[k].n;
			runs_in++;
			if (pr->have_metrics[k] && pr->metrics[k].have[M_STALLS]) {
				stalls += pr->metrics[k].v[M_STALLS];
				stall_s += pr->metrics[k].v[M_STALL_S];
			}
		}
		strbuf_addf(&label, "%s %s: %zu run%s, %zu frames in the windows, stalls %.0f (%.*f s)",
			    runs[first[g]]->game ? runs[first[g]]->game : "?", run_name_of(runs[first[g]]),
			    runs_in, runs_in == 1 ? "" : "s", frames, stalls,
			    metric_defs[M_STALL_S].decimals, stall_s);
		pr->store->group_labels[g] = strbuf_detach(&label);
		pr->store->group_ms[g] = ms;
		pr->groups[g] = (struct plot_series){ pr->store->group_labels[g], { (unsigned)g, 0 }, ms, frames };
	}
	free(first);
}

int plot_runs_fill(struct plot_runs *pr, const struct run *const *runs, size_t n,
		   const struct metric_opts *opts, struct strbuf *err)
{
	static const struct metric_opts defaults = METRIC_OPTS_DEFAULT;

	memset(pr, 0, sizeof(*pr));
	if (!opts)
		opts = &defaults;
	for (size_t k = 0; k < n; k++)
		if (!runs[k]->have_frames || runs[k]->frames.n < 2) {
			strbuf_addf(err, "'%s' has no frames", runs[k]->dir);
			return -ENODATA;
		}
	pr->n_runs = n;
	pr->frames = zalloc((n + 1) * sizeof(*pr->frames));
	pr->runs = zalloc((n + 1) * sizeof(*pr->runs));
	pr->metrics = zalloc((n + 1) * sizeof(*pr->metrics));
	pr->have_metrics = zalloc((n + 1) * sizeof(*pr->have_metrics));
	pr->store = zalloc(sizeof(*pr->store));
	pr->store->runs = zalloc((n + 1) * sizeof(*pr->store->runs));
	for (size_t k = 0; k < n; k++)
		fill_run(pr, k, runs[k], opts);
	fill_groups(pr, runs, n);
	return 0;
}

void plot_runs_release(struct plot_runs *pr)
{
	if (!pr)
		return;
	for (size_t k = 0; pr->store && k < pr->n_runs; k++) {
		struct plot_run_store *st = &pr->store->runs[k];

		free(st->label);
		free(st->t_s);
		free(st->ms);
		free(st->win);
		free(st->recreated);
		free(st->segments);
	}
	for (size_t g = 0; pr->store && g < pr->n_groups; g++) {
		free(pr->store->group_labels[g]);
		free(pr->store->group_ms[g]);
	}
	if (pr->store) {
		free(pr->store->runs);
		free(pr->store->group_labels);
		free(pr->store->group_ms);
		free(pr->store);
	}
	free(pr->frames);
	free(pr->runs);
	free(pr->metrics);
	free(pr->have_metrics);
	free(pr->groups);
	memset(pr, 0, sizeof(*pr));
}
