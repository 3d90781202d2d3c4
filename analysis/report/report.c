/*
 * Printing runs and their groups as a table (for people), CSV (for
 * spreadsheets), JSON (for programs) or Markdown (for an issue or a commit
 * message: report-markdown.c), from one list of rows (the HTML page,
 * report-html.c, prints its table through this one too), so all of them
 * always show the same numbers. The format is an enum report_format,
 * named in format_names[] and dispatched in report_print(): a new one is a
 * value, a name and a case. Called by the runner's report command after
 * it has loaded the runs and computed their metrics, and by a batch's end.
 *
 * Shared by all three forms:
 *  - a row whose status is not "ok" shows no numbers, even if the caller
 *    left some set: a failed run is not evidence;
 *  - a group is a (game, variant) pair, in order of first appearance; its
 *    median, min and max are over its counted rows (valid ones, plus the
 *    disturbed ones with include_interfered); n may be 0 (no numbers then);
 *  - a row that is not counted is listed after the groups with why.
 *
 * Table: the counted runs, then per group the rows "median GAME VARIANT
 * (n=N)", "min GAME VARIANT", "max GAME VARIANT", then one line
 * "excluded RUN: WHY" per run left out ("excluded RUN: invalid: WHY" for a
 * run whose data failed a check; its status is "invalid"). The run column is as wide as the
 * longest label, every number column as wide as its heading or widest
 * value, numbers right-aligned with the metric's decimals, "-" where a
 * value is missing. '#' lines at the end say how the numbers were computed
 * (report_print_notes(); none with no_notes).
 * The default columns are the headline ones; when a counted run has the
 * host's noise (bench.txt noise.*), cpu_ms/f follows fps and a last column
 * "noise" sums the noise up (metrics_noise_summary(): "st0.4 fg2.1 rq9",
 * "-" for a run without), so older runs' tables stay as they were. A run
 * whose frames came through Vulkan (or whose frame file has swapchain
 * events) gets a last note line of its own, "# RUN: API (PRESENTS),
 * swapchain ...; N recreations in the window at ..." (swapchain_note()),
 * after one saying what those lines are.
 *
 * CSV (RFC 4180 quoting; lines end in "\n", not CRLF):
 *   row,stat,run,game,variant,status,n,frames,window_s,...,game_runq_ms_per_s,stall_why,api,excluded
 * a run row (row "run": every run, counted or not) has an empty stat, its
 * run directory's name, its status, an empty n and, when it is not
 * counted, why in "excluded"; a group row (row "group") has stat "median",
 * "min" or "max", an empty run and status, and n, the number of runs it is
 * over. Values are at full precision (format_double_exact(): they read
 * back as the same doubles, as the JSON's do); a missing value is an empty
 * field. stall_why (metrics_stall_why(): the stall_*_s group with
 * the most seconds; a group's from its medians) is empty without stalls;
 * api (run_window_api(), bench.txt frames_api's words) is the run's
 * window's (from the database: runs.api, the same computed at import),
 * empty for a group.
 *
 * JSON (format 4): {"format":4,"definitions":{...},"include_interfered":B,
 * "runs":[{"run","dir","run_id","game","run_name","status","excluded",
 * "provenance":{KEY:VALUE...},"metrics":{...},"stall_why","api",
 * "swapchain_events":[{"t_s","in_window","pid","kind","swapchain",
 * "surface", and for a create "old_swapchain","width","height",
 * "present_mode","min_images","images","format","recreation",
 * "replaces"}...],"swapchain_events_dropped","flip":{...}|null}...],
 * "groups":[{"game","run_name","n","median":{...},"min":{...},"max":{...},"stall_why"}...],
 * "excluded":[{"run","why"}...]}. "run_name" is the row's variant
 * (variant@switches, or the variant); provenance holds every bench.txt pair in file order
 * (a key that repeats has an array of its values); "excluded" is null for
 * a counted run. Swapchain handles are hex strings ("0x55"; null for
 * 0); "swapchain_events" and "swapchain_events_dropped" are null for a
 * run from the database, "api" too for one imported before schema 5. Numbers are printed with the fewest significant digits
 * (15 to 17) that read back as the same double, so no precision is lost and
 * 8 ms prints as 8; a missing or non-finite value is null. Strings are
 * escaped (quote, backslash, control characters as \u00XX) and bytes that
 * are not valid UTF-8 become U+FFFD, so the output is always valid JSON.
 */
#include "report/report-internal.h"
#include "text/csv.h"
#include "text/kvfile.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The table's number columns unless the caller chose; CSV and JSON carry
 * every metric. */
static const enum metric_id headline_metrics[] = {
	M_FRAMES, M_FPS, M_STEADY_FPS, M_STALLS, M_STALL_S, M_LONGEST_MS, M_LOW1,
};


/* The names --format takes, by enum report_format. */
static const char *const format_names[] = {
	[REPORT_TABLE] = "table",
	[REPORT_CSV] = "csv",
	[REPORT_JSON] = "json",
	[REPORT_MARKDOWN] = "markdown",
	[REPORT_HTML] = "html",
};

int report_format_parse(const char *s, enum report_format *out)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(format_names); i++)
		if (format_names[i] && strcmp(s, format_names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	return -EINVAL;
}

const char *report_format_name(enum report_format f)
{
	return (size_t)f < ARRAY_SIZE(format_names) ? format_names[f] : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool report_row_ok(const struct report_row *row)
{
	return row->status && strcmp(row->status, "ok") == 0;
}

const char *report_row_excluded(const struct report_row *row, bool include_interfered)
{
	if (row->invalid && row->status && strcmp(row->status, "invalid") == 0)
		return row->invalid;
	if (!report_row_ok(row))
		return row->status ? row->status : "no status";
	if (row->disturbed && !include_interfered)
		return row->disturbed;
	return NULL;
}

void report_print_excluded(FILE *out, const char *lead, const struct report_row *row,
			   bool include_interfered)
{
	const char *why = report_row_excluded(row, include_interfered);

	if (why)
		fprintf(out, "%sexcluded %s: %s%s\n", lead, row->run ? row->run : "-",
			why == row->invalid ? "invalid: " : "", why);
}

void run_stats_compute(const struct metrics *runs, size_t n, struct run_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	metrics_median(runs, n, &out->median);
	for (size_t i = 0; i < n; i++) {
		for (int id = 0; id < M_COUNT; id++) {
			double v = runs[i].v[id];

			if (!runs[i].have[id])
				continue;
			if (!out->n_metric[id] || v < out->min.v[id])
				out->min.v[id] = v;
			if (!out->n_metric[id] || v > out->max.v[id])
				out->max.v[id] = v;
			out->min.have[id] = out->max.have[id] = true;
			out->n_metric[id]++;
		}
	}
}

size_t report_groups(const struct report_row *rows, size_t n, bool include_interfered,
		     struct report_group **out)
{
	struct report_group *grp = zalloc((n ? n : 1) * sizeof(*grp));
	struct metrics *counted = zalloc((n ? n : 1) * sizeof(*counted));
	size_t n_grp = 0;

	for (size_t i = 0; i < n; i++) {
		size_t g, k = 0;

		for (g = 0; g < n_grp; g++)
			if (str_eq(grp[g].game, rows[i].game) && str_eq(grp[g].run_name, rows[i].run_name))
				break;
		if (g < n_grp)
			continue;
		grp[n_grp].game = rows[i].game;
		grp[n_grp].run_name = rows[i].run_name;
		for (size_t j = i; j < n; j++) {
			if (report_row_excluded(&rows[j], include_interfered) ||
			    !str_eq(rows[j].game, rows[i].game) || !str_eq(rows[j].run_name, rows[i].run_name))
				continue;
			counted[k++] = rows[j].m;
		}
		run_stats_compute(counted, k, &grp[n_grp].s);
		n_grp++;
	}
	free(counted);
	*out = grp;
	return n_grp;
}

static bool has(const struct metrics *m, enum metric_id id)
{
	return m->have[id] && isfinite(m->v[id]);
}

/* ---- table ---- */

struct table {
	struct report_columns c;
	int *width;
	int label_width;
	int noise_width;
};

/* Room for "st100.0 fg100.0 rq1000000" and more. */
#define NOISE_SUMMARY_MAX 64

static void table_widen(struct table *t, const char *label, const struct metrics *m)
{
	if ((int)strlen(label) > t->label_width)
		t->label_width = (int)strlen(label);
	for (size_t c = 0; c < t->c.n_col; c++) {
		enum metric_id id = t->c.col[c];
		int w = has(m, id) ? snprintf(NULL, 0, "%.*f", metric_defs[id].decimals, m->v[id]) : 1;

		if (w > t->width[c])
			t->width[c] = w;
	}
	if (t->c.noise) {
		char buf[NOISE_SUMMARY_MAX];

		metrics_noise_summary(m, buf, sizeof(buf));
		if ((int)strlen(buf) > t->noise_width)
			t->noise_width = (int)strlen(buf);
	}
}

static void table_line(FILE *out, const struct table *t, const char *label, const struct metrics *m,
		       bool why)
{
	fprintf(out, "%-*s", t->label_width, label);
	for (size_t c = 0; c < t->c.n_col; c++) {
		enum metric_id id = t->c.col[c];

		if (has(m, id))
			fprintf(out, "  %*.*f", t->width[c], metric_defs[id].decimals, m->v[id]);
		else
			fprintf(out, "  %*s", t->width[c], "-");
	}
	if (t->c.noise) {
		char buf[NOISE_SUMMARY_MAX];

		metrics_noise_summary(m, buf, sizeof(buf));
		/* the last column unless why follows: no trailing blanks */
		fprintf(out, "  %-*s", why ? t->noise_width : 0, buf);
	}
	if (why) {
		const char *w = metrics_stall_why(m);

		fprintf(out, "  %s", w ? w : "-");
	}
	fputc('\n', out);
}

const char *const report_stat_name[3] = { "median", "min", "max" };

const struct metrics *report_group_stat(const struct report_group *g, int k)
{
	return k == 0 ? &g->s.median : k == 1 ? &g->s.min : &g->s.max;
}

char *report_group_label(const struct report_group *g, int k)
{
	const char *game = g->game ? g->game : "-", *name = g->run_name ? g->run_name : "-";

	if (k == 0)
		return xasprintf("median %s %s (n=%zu)", game, name, g->s.n);
	return xasprintf("%s %s %s", report_stat_name[k], game, name);
}

/* Said only when it applies, so that the notes of whole runs stay as
 * they were: what made a run invalid, and which runs are interval logs. */
static void print_integrity_notes(FILE *out, const char *lead, const struct report_row *rows, size_t n)
{
	bool invalid = false, interval = false;

	for (size_t i = 0; i < n; i++) {
		invalid |= rows[i].invalid != NULL;
		interval |= rows[i].interval;
	}
	if (invalid)
		fprintf(out, "%sinvalid = the run's data failed a check (docs/formats.md \"Run "
			"integrity\"): frames.bin cut short, a number in bench.txt that does not "
			"parse, a window outside the frames, or fewer frames in it than the minimum "
			"(--min-frames, default %d)\n", lead, METRIC_MIN_FRAMES_DEFAULT);
	if (!interval)
		return;
	fprintf(out, "%sinterval log (frame_source_kind=interval), rows are samples, not frames:", lead);
	for (size_t i = 0; i < n; i++)
		if (rows[i].interval)
			fprintf(out, " %s", rows[i].run ? rows[i].run : "-");
	fputs("; only window, fps and mangohud_avg are computed for it, the per-frame metrics "
	      "(frames, stalls, longest, percentiles, lows) are left empty\n", out);
}

/* Said only for runs that have one (those with Vulkan frames or
 * swapchains), so GL runs' tables stay as they were: where the frames
 * came from, the swapchain and its recreations. */
static void print_frames_notes(FILE *out, const char *lead, const struct report_row *rows, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= rows[i].frames_note != NULL;
	if (!any)
		return;
	fprintf(out, "%sRUN: API (presents), swapchain ...; recreations = " FRAMES_NOTE_DEFINITION "\n",
		lead);
	for (size_t i = 0; i < n; i++)
		if (rows[i].frames_note)
			fprintf(out, "%s%s: %s\n", lead, rows[i].run ? rows[i].run : "-", rows[i].frames_note);
}

/* Said only for runs with a profile record (PROFILE=1): what the CPU did
 * in their stall frames. */
static void print_cpu_what(FILE *out, const char *lead, const struct report_row *rows, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= rows[i].cpu_what != NULL;
	if (!any)
		return;
	fprintf(out, "%sRUN: stall_cpu_what = the categories (gamedb/cpu-categories.ini) of at least 5%% of the "
		"CPU samples of the game's threads in the window's stall frames (hitchbench profile)\n", lead);
	for (size_t i = 0; i < n; i++)
		if (rows[i].cpu_what)
			fprintf(out, "%s%s: stall_cpu_what %s\n", lead, rows[i].run ? rows[i].run : "-",
				*rows[i].cpu_what ? rows[i].cpu_what : "(no sample in a stall frame)");
}

/* Said only for flip runs: each one's own estimate, stalls and tail (its
 * fps in the table mixes both sides). */
static void print_flip_notes(FILE *out, const char *lead, const struct report_row *rows, size_t n,
			     const char *threshold)
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= rows[i].flip.have;
	if (!any)
		return;
	fprintf(out, "%sflip RUN: a flip run (docs/metrics.md \"Flip\"), its fps above mixes both sides; SWITCH A B; "
		"segments counted of switched; pairs in blocks; ln(B/A) of fps = the mean of the blocks, "
		"+- its standard error; stalls over %s ms and p99 frame time per side, in paired segments "
		"(p99 pooled, no interval): hitchbench flip RUNDIR says more\n", lead, threshold);
	for (size_t i = 0; i < n; i++) {
		const struct report_flip *f = &rows[i].flip;

		if (!f->have)
			continue;
		fprintf(out, "%sflip %s: %s; %zu of %zu segments; %zu pairs in %zu blocks of %zu", lead,
			rows[i].run ? rows[i].run : "-", f->what ? f->what : "-", f->counted, f->segments,
			f->pairs, f->blocks, f->block_size);
		if (f->blocks)
			fprintf(out, "; ln(B/A) %+.2f%% +- %.2f%% (B/A %.4f)", f->estimate * 100, f->se * 100,
				exp(f->estimate));
		fprintf(out, "; stalls A %" PRIu64 "/%" PRIu64 " B %" PRIu64 "/%" PRIu64 " frames", f->stalls_a,
			f->frames_a, f->stalls_b, f->frames_b);
		if (f->frames_a && f->frames_b)
			fprintf(out, "; p99 A %.2f B %.2f ms", f->p99_a, f->p99_b);
		fputc('\n', out);
	}
}

void report_columns_choose(struct report_columns *c, const struct report_row *rows, size_t n,
			   const struct report_opts *opts)
{
	bool inc = opts->include_interfered;

	memset(c, 0, sizeof(*c));
	if (opts->table_metrics) {
		c->col = opts->table_metrics;
		c->n_col = opts->n_table_metrics;
		return;
	}
	c->col = c->own;
	for (size_t i = 0; i < n; i++) {
		if (report_row_excluded(&rows[i], inc))
			continue;
		c->probe |= rows[i].m.have[M_PROBE_WORST_US];
		for (int id = M_CPU_MS_PER_FRAME; id <= M_GAME_RUNQ_MS_PER_S; id++)
			c->noise |= rows[i].m.have[id];
	}
	for (size_t k = 0; k < ARRAY_SIZE(headline_metrics); k++) {
		c->own[c->n_col++] = headline_metrics[k];
		if (headline_metrics[k] == M_FPS && c->noise)
			c->own[c->n_col++] = M_CPU_MS_PER_FRAME;
	}
	if (c->probe) {
		c->own[c->n_col++] = M_PROBE_WORST_US;
		c->own[c->n_col++] = M_PROBE_P999_US;
	}
}

void report_print_notes(FILE *out, const char *lead, const struct report_columns *c,
			const struct report_row *rows, size_t n, const struct report_opts *opts)
{
	bool inc = opts->include_interfered;
	char threshold[32];

	format_double_exact(threshold, sizeof(threshold), opts->metric.stall_ms);
	if (opts->window_note)
		fprintf(out, "%s%s\n", lead, opts->window_note);
	fprintf(out, "%sframe time = " FRAME_DEFINITION "\n", lead);
	fprintf(out, "%sfps = frames / window seconds\n", lead);
	fprintf(out, "%sstall = a frame over %s ms (stalls: how many, stall_s: the seconds they took)\n",
		lead, threshold);
	fprintf(out, "%spercentiles: %s = %s\n", lead, percentile_def_name(opts->metric.pct),
		percentile_def_formula(opts->metric.pct));
	fprintf(out, "%ssteady = 1000 / p50 frame time\n", lead);
	fprintf(out, "%slow1 = 1000 / p99 frame time\n", lead);
	for (size_t k = 0; (opts->table_metrics || c->probe || c->noise) && k < c->n_col; k++)
		if (c->col[k] >= M_RECREATIONS)
			fprintf(out, "%s%s = %s\n", lead, metric_defs[c->col[k]].column,
				metric_defs[c->col[k]].definition);
	if (c->noise)
		fprintf(out, "%snoise = %s\n", lead, NOISE_DEFINITION);
	if (opts->stall_why)
		fprintf(out, "%swhy = %s\n", lead, STALL_WHY_DEFINITION);
	fprintf(out, "%smedian, min, max = %s\n", lead, inc ? GROUP_DEFINITION_ALL : GROUP_DEFINITION);
	fprintf(out, "%sexcluded = not in the groups: the run failed%s\n", lead,
		inc ? "" : ", or was marked disturbed (bench.txt invalid=1 or interfered=1, "
			   "or listed in the interfered file)");
	print_integrity_notes(out, lead, rows, n);
	print_frames_notes(out, lead, rows, n);
	print_cpu_what(out, lead, rows, n);
	print_flip_notes(out, lead, rows, n, threshold);
}

static void print_table(FILE *out, const struct report_row *rows, size_t n,
			const struct report_group *grp, size_t n_grp,
			const struct report_opts *opts)
{
	struct table t = { .label_width = (int)strlen("run"), .noise_width = (int)strlen("noise") };
	bool inc = opts->include_interfered;

	report_columns_choose(&t.c, rows, n, opts);
	t.width = zalloc((t.c.n_col ? t.c.n_col : 1) * sizeof(*t.width));
	for (size_t c = 0; c < t.c.n_col; c++)
		t.width[c] = (int)strlen(metric_defs[t.c.col[c]].column);
	for (size_t i = 0; i < n; i++)
		if (!report_row_excluded(&rows[i], inc))
			table_widen(&t, rows[i].run ? rows[i].run : "-", &rows[i].m);
	for (size_t g = 0; g < n_grp; g++) {
		for (int k = 0; k < 3; k++) {
			char *label = report_group_label(&grp[g], k);

			table_widen(&t, label, report_group_stat(&grp[g], k));
			free(label);
		}
	}

	fprintf(out, "%-*s", t.label_width, "run");
	for (size_t c = 0; c < t.c.n_col; c++)
		fprintf(out, "  %*s", t.width[c], metric_defs[t.c.col[c]].column);
	if (t.c.noise)
		fprintf(out, "  %-*s", opts->stall_why ? t.noise_width : 0, "noise");
	fputs(opts->stall_why ? "  why\n" : "\n", out);
	for (size_t i = 0; i < n; i++)
		if (!report_row_excluded(&rows[i], inc))
			table_line(out, &t, rows[i].run ? rows[i].run : "-", &rows[i].m, opts->stall_why);
	for (size_t g = 0; g < n_grp; g++) {
		for (int k = 0; k < 3; k++) {
			char *label = report_group_label(&grp[g], k);

			table_line(out, &t, label, report_group_stat(&grp[g], k), opts->stall_why);
			free(label);
		}
	}
	for (size_t i = 0; i < n; i++)
		report_print_excluded(out, "", &rows[i], inc);
	free(t.width);
	if (!opts->no_notes)
		report_print_notes(out, "# ", &t.c, rows, n, opts);
}

/* ---- CSV ---- */

/* The metrics at full precision (format_double_exact: they read back as
 * the same doubles), then stall_why (derived from them) and the frames'
 * API, each after a comma. */
static void csv_values(FILE *out, const struct metrics *m, bool ok, const char *api)
{
	char buf[32];

	for (int id = 0; id < M_COUNT; id++) {
		fputc(',', out);
		if (ok && has(m, id)) {
			format_double_exact(buf, sizeof(buf), m->v[id]);
			fputs(buf, out);
		}
	}
	fputc(',', out);
	if (ok)
		csv_write_field(out, metrics_stall_why(m));
	fputc(',', out);
	if (api)
		csv_write_field(out, api);
	fputc(',', out);
}

/* The leading fields row,stat,run,game,variant, each followed by a comma. */
static void csv_lead(FILE *out, const char *row, const char *stat, const char *run, const char *game,
		     const char *variant)
{
	const char *f[] = { row, stat, run, game, variant };

	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		csv_write_field(out, f[i]);
		fputc(',', out);
	}
}

static void print_csv(FILE *out, const struct report_row *rows, size_t n,
		      const struct report_group *grp, size_t n_grp, bool inc)
{
	fputs("row,stat,run,game,variant,status,n", out);
	for (int id = 0; id < M_COUNT; id++)
		fprintf(out, ",%s", metric_defs[id].name);
	fputs(",stall_why,api,excluded\n", out);

	for (size_t i = 0; i < n; i++) {
		csv_lead(out, "run", NULL, rows[i].run, rows[i].game, rows[i].run_name);
		csv_write_field(out, rows[i].status);
		fputc(',', out);
		csv_values(out, &rows[i].m, report_row_ok(&rows[i]), rows[i].api);
		csv_write_field(out, report_row_excluded(&rows[i], inc));
		fputc('\n', out);
	}
	for (size_t g = 0; g < n_grp; g++) {
		for (int k = 0; k < 3; k++) {
			csv_lead(out, "group", report_stat_name[k], NULL, grp[g].game, grp[g].run_name);
			fprintf(out, ",%zu", grp[g].s.n);
			csv_values(out, report_group_stat(&grp[g], k), true, NULL);
			fputc('\n', out);
		}
	}
}

int report_print(FILE *out, const struct report_row *rows, size_t n,
		 const struct report_opts *opts)
{
	struct report_group *grp;
	size_t n_grp;

	if (!out || !opts || (n > 0 && !rows))
		return -EINVAL;
	/* HTML is a page with pictures: report_html_write()'s, not this */
	if (!report_format_name(opts->format) || opts->format == REPORT_HTML)
		return -EINVAL;
	for (size_t c = 0; opts->table_metrics && c < opts->n_table_metrics; c++)
		if ((int)opts->table_metrics[c] < 0 || opts->table_metrics[c] >= M_COUNT)
			return -EINVAL;

	n_grp = report_groups(rows, n, opts->include_interfered, &grp);
	switch (opts->format) {
	case REPORT_TABLE:
		print_table(out, rows, n, grp, n_grp, opts);
		break;
	case REPORT_CSV:
		print_csv(out, rows, n, grp, n_grp, opts->include_interfered);
		break;
	case REPORT_JSON:
		report_print_json(out, rows, n, grp, n_grp, opts);
		break;
	case REPORT_MARKDOWN:
		report_print_markdown(out, rows, n, grp, n_grp, opts);
		break;
	case REPORT_HTML:       /* refused above */
		break;
	}
	free(grp);

	if (fflush(out) != 0)
		return errno ? -errno : -EIO;
	if (ferror(out))
		return -EIO;
	return 0;
}
