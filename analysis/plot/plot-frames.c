/*
 * The frame-time pictures (plot.h): frames over time, several runs drawn
 * over each other; percentile curves; the frame-time histogram. Their
 * axes fit the data drawn: the stall threshold is marked where the axis
 * reaches it and named at the axis's end where it does not, never pulled
 * into view (a smooth run's 6-15 ms frames keep the whole height). Runs
 * of one group share a hue (plot_style). What each shows: docs/plots.md.
 */
#include "plot/plot.h"
#include "plot/plot-internal.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The percentile chart's x axis: x = -log10(1 - p/100), so 90, 99, 99.9
 * and 99.99 are equally far apart and the tail gets most of the width. */
#define PCT_X_MAX 4.0
#define PCT_X_STEP 0.005

/* Frame times that span so much (the longest over 20 times the smallest
 * median of a run, a stall among smooth frames) that a linear axis would
 * flatten every ordinary frame get a logarithmic axis. */
#define LOG_AXIS_RATIO 20.0

#define STALL_RED "#d62728"
#define KEY_ROW_PX 19             /* a legend row at PLOT_FONT, in pixels */
#define KEY_CHAR_PX 7             /* a character of it, about */
#define HIST_BINS 80              /* linear bins: about this many across the data */
#define HIST_BINS_PER_DECADE 20   /* logarithmic bins */

/* A hue per group (colour-blind-safe first), four shades of it per member:
 * the hue, lighter, darker, lighter still. */
static const char *const hues[][4] = {
	{ "#1f5fa8", "#799fcb", "#133965", "#aac2de" },
	{ "#d95f02", "#e89f67", "#823901", "#f1c29f" },
	{ "#1b9e77", "#76c5ad", "#105f47", "#a8dacb" },
	{ "#7570b3", "#aca9d1", "#46436b", "#cbc9e2" },
	{ "#b8860b", "#d4b66d", "#6e5007", "#e4d1a2" },
	{ "#e7298a", "#f17fb9", "#8b1953", "#f6aed3" },
	{ "#5a5a5a", "#9c9c9c", "#363636", "#c0c0c0" },
	{ "#8c564b", "#ba9a93", "#54342d", "#d3bfbb" },
};

const char *plot_style_colour(const struct plot_style *style)
{
	return hues[style->group % ARRAY_SIZE(hues)][style->member % ARRAY_SIZE(hues[0])];
}

int plot_style_dash(const struct plot_style *style)
{
	static const int dash[] = { 1, 2, 4, 3 }; /* solid, dashes, dash-dot, dots */

	return dash[style->member % ARRAY_SIZE(dash)];
}

/* What a frame-time axis must hold: the longest and the shortest positive
 * frame, and the smallest of the series' medians. */
struct extent {
	double lo, hi, min_median;
};

static void extent_add(struct extent *e, const double *ms, size_t n)
{
	double *s;
	double median;

	if (n == 0)
		return;
	s = zalloc(n * sizeof(*s));
	memcpy(s, ms, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	median = s[(n - 1) / 2];
	if (s[n - 1] > e->hi)
		e->hi = s[n - 1];
	for (size_t i = 0; i < n; i++)
		if (s[i] > 0) {
			if (e->lo <= 0 || s[i] < e->lo)
				e->lo = s[i];
			break;
		}
	if (median > 0 && (e->min_median <= 0 || median < e->min_median))
		e->min_median = median;
	free(s);
}

static bool extent_log(const struct extent *e)
{
	return e->min_median > 0 && e->lo > 0 && e->hi > LOG_AXIS_RATIO * e->min_median;
}

/* Tics at 1, 2 and 5 times the powers of ten within [lo, hi]: a log axis
 * with gnuplot's own tics has one every decade only. */
static void log_tics(struct strbuf *gp, char axis, double lo, double hi)
{
	static const double steps[] = { 1, 2, 5 };
	const char *sep = "";

	strbuf_addf(gp, "set %ctics (", axis);
	for (double decade = pow(10, floor(log10(lo))); decade <= hi; decade *= 10)
		for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
			double v = steps[i] * decade;

			if (v < lo || v > hi)
				continue;
			strbuf_addf(gp, "%s'%g' %g", sep, v, v);
			sep = ", ";
		}
	strbuf_addstr(gp, ")\n");
}

/* A frame-time axis fitted to e; returns its top. Linear from 0 with 5 %
 * headroom, or logarithmic (extent_log()) from just under the shortest
 * frame to just over the longest. */
static double frame_axis(struct strbuf *gp, char axis, const char *label, const struct extent *e)
{
	double top;

	if (extent_log(e)) {
		double bottom = e->lo * 0.8;

		top = e->hi * 1.25;
		strbuf_addf(gp, "set %clabel '%s, log scale'\nset logscale %c\nset %crange [%g:%g]\n",
			    axis, label, axis, axis, bottom, top);
		log_tics(gp, axis, bottom, top);
		return top;
	}
	top = e->hi > 0 ? e->hi * 1.05 : 1.0;
	strbuf_addf(gp, "set %clabel '%s'\nset %crange [0:%g]\n", axis, label, axis, top);
	return top;
}

/* The stall threshold: a dashed red line across the plot where the axis
 * (up to top) reaches it, else a note and an arrow at the axis's end; its
 * legend entry is added to key. vertical: the threshold is an x value. */
static void threshold_mark(struct strbuf *gp, struct strbuf *key, double stall_ms, double top,
			   bool vertical)
{
	if (stall_ms <= 0)
		return;
	if (stall_ms <= top) {
		if (vertical)
			strbuf_addf(gp, "set arrow from first %g, graph 0 to first %g, graph 1 nohead "
				    "dt 2 lw 1.5 lc rgb '" STALL_RED "' front\n", stall_ms, stall_ms);
		else
			strbuf_addf(gp, "set arrow from graph 0, first %g to graph 1, first %g nohead "
				    "dt 2 lw 1.5 lc rgb '" STALL_RED "' front\n", stall_ms, stall_ms);
		strbuf_addf(key, ", \\\n     keyentry with lines dt 2 lw 1.5 lc rgb '" STALL_RED "' "
			    "title 'stall threshold %g ms'", stall_ms);
		return;
	}
	if (vertical)
		strbuf_addf(gp, "set arrow from graph 0.9, graph 0.9 to graph 1, graph 0.9 "
			    "lw 1.5 lc rgb '" STALL_RED "' front\nset style textbox opaque noborder\n"
			    "set label 'stall threshold %g ms: right of this axis' at graph 0.89, graph 0.9 "
			    "right tc rgb '" STALL_RED "' front boxed\n", stall_ms);
	else
		/* top left: where frame times (and the curves' low end) rarely are */
		strbuf_addf(gp, "set arrow from graph 0.015, graph 0.86 to graph 0.015, graph 1 "
			    "lw 1.5 lc rgb '" STALL_RED "' front\nset style textbox opaque noborder\n"
			    "set label 'stall threshold %g ms: above this axis' at graph 0.025, graph 0.95 "
			    "left tc rgb '" STALL_RED "' front boxed\n", stall_ms);
	strbuf_addf(key, ", \\\n     keyentry with lines dt 2 lw 1.5 lc rgb '" STALL_RED "' "
		    "title 'stall threshold %g ms (%s the axis: no frame reached it)'",
		    stall_ms, vertical ? "right of" : "above");
}

/* The legend under the x axis label, one entry a line (the runs' entries
 * are long: their numbers), under title; returns its rows, title and
 * all: the picture grows by KEY_ROW_PX a row. */
static size_t legend_below(struct strbuf *gp, size_t rows, const char *title)
{
	strbuf_addf(gp, "set key bmargin left vertical maxrows %zu title ", rows);
	plot_add_str(gp, title);
	/* the margin a line taller than gnuplot makes it: clear of the x
	 * axis's label */
	strbuf_addf(gp, " left\nset bmargin %zu\n", rows + 5);
	return rows + 1;
}

/* A picture wide enough for a legend line of longest characters. */
static int legend_width(size_t longest)
{
	int w = (int)longest * KEY_CHAR_PX + 280;

	return w > PLOT_WIDTH ? w : PLOT_WIDTH;
}

static size_t longest_label(const struct plot_series *series, size_t n)
{
	size_t longest = 0;

	for (size_t s = 0; s < n; s++)
		if (strlen(series[s].label) > longest)
			longest = strlen(series[s].label);
	return longest;
}

/* Ends the plot command with the legend entries in key, closes the script
 * (the picture width x height pixels) and writes it. 0 or -errno. */
static int script_finish(struct strbuf *gp, const struct strbuf *key, const struct plot_out *out,
			 const char *workdir, int width, int height)
{
	if (key->len)
		strbuf_add(gp, key->buf, key->len);
	strbuf_addch(gp, '\n');
	plot_script_end(gp, out, width, height);
	return plot_write_text(workdir, out->name, ".gp", gp);
}

/* ---- frames over time ---- */

static const struct segment_style {
	const char *kind;
	const char *colour;
} segment_styles[] = {
	{ "warm-up", "#b0b0b0" },
	{ "reload", "#ff9f40" },
	{ "after window", "#c9b3e6" },
};
static const char *const other_colours[] = { "#8fd18f", "#f0a0c0", "#a0d8e8" };

static const char *segment_colour(const char *kind, const char **seen, size_t *n_seen)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(segment_styles); i++)
		if (!strcmp(kind, segment_styles[i].kind))
			return segment_styles[i].colour;
	for (i = 0; i < *n_seen; i++)
		if (!strcmp(kind, seen[i]))
			break;
	if (i == *n_seen)
		seen[(*n_seen)++] = kind;
	return other_colours[i % ARRAY_SIZE(other_colours)];
}

/* What a run's marks are: stalls in its window, stalls outside it, and
 * long frames that span a swapchain recreation (no stall). */
struct frame_marks {
	size_t in, outside, recreated;
};

/* NAME-K.dat (what NULL) or NAME-K-WHAT.dat into workdir. */
static int run_data_write(const struct plot_out *out, const char *workdir, size_t k, const char *what,
			  const struct strbuf *sb)
{
	char *suffix = what ? xasprintf("-%zu-%s.dat", k, what) : xasprintf("-%zu.dat", k);
	int r = plot_write_text(workdir, out->name, suffix, sb);

	free(suffix);
	return r;
}

/* Run k's data files: NAME-K.dat (its frames), NAME-K-stalls.dat (stalls
 * in its window, the report's), NAME-K-outside.dat (stalls outside it) and
 * NAME-K-recreations.dat (frames over the threshold that span a swapchain
 * recreation: not stalls, the report's rule); counts them into *marks. */
static int frames_run_data(const struct plot_out *out, const char *workdir, size_t k,
			   const struct plot_run *run, double stall_ms, struct frame_marks *marks)
{
	static const char *const what[3] = { "stalls", "outside", "recreations" };
	struct strbuf dat = STRBUF_INIT, mk[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	bool window = run->window_t1_s > run->window_t0_s;
	int r;

	strbuf_addf(&dat, "# %s\n# t_s\tframe_ms\n", run->label);
	strbuf_addstr(&mk[0], "# t_s\tframe_ms (stalls ending in the measured window)\n");
	strbuf_addstr(&mk[1], "# t_s\tframe_ms (stalls outside the measured window: not counted)\n");
	strbuf_addstr(&mk[2], "# t_s\tframe_ms (frames that span a swapchain recreation: not stalls)\n");
	*marks = (struct frame_marks){ 0 };
	for (size_t i = 0; i < run->n; i++) {
		double t = run->t_s[i];
		int m;

		strbuf_addf(&dat, "%.6f\t%.3f\n", t, run->ms[i]);
		if (stall_ms <= 0 || !(run->ms[i] > stall_ms))
			continue;
		if (run->recreated && run->recreated[i]) {
			m = 2;
			marks->recreated++;
		} else if (!window || (t > run->window_t0_s && t <= run->window_t1_s)) {
			m = 0;
			marks->in++;
		} else {
			m = 1;
			marks->outside++;
		}
		strbuf_addf(&mk[m], "%.6f\t%.3f\n", t, run->ms[i]);
	}
	r = run_data_write(out, workdir, k, NULL, &dat);
	for (int m = 0; m < 3 && r == 0; m++)
		r = run_data_write(out, workdir, k, what[m], &mk[m]);
	strbuf_release(&dat);
	for (int m = 0; m < 3; m++)
		strbuf_release(&mk[m]);
	return r;
}

/* The runs' bands (every run's, see-through where several overlap) and
 * their legend entries, one per kind, into key; returns how many. */
static size_t frames_segments(struct strbuf *gp, struct strbuf *key, const struct plot_frames *f)
{
	size_t total = 0, n_kinds = 0, n_others = 0, obj = 0;
	const char **kinds, **others;

	for (size_t k = 0; k < f->n_runs; k++)
		total += f->runs[k].n_segments;
	kinds = zalloc((total + 1) * sizeof(*kinds));
	others = zalloc((total + 1) * sizeof(*others));
	for (size_t k = 0; k < f->n_runs; k++)
		for (size_t i = 0; i < f->runs[k].n_segments; i++) {
			const struct plot_segment *s = &f->runs[k].segments[i];
			size_t j;

			strbuf_addf(gp, "set object %zu rectangle from %.6f, graph 0 to %.6f, graph 1 behind "
				    "fillcolor rgb '%s' fillstyle transparent solid %.2f noborder\n",
				    ++obj, s->t0_s, s->t1_s, segment_colour(s->kind, others, &n_others),
				    f->n_runs > 1 ? 0.25 : 0.45);
			for (j = 0; j < n_kinds; j++)
				if (!strcmp(kinds[j], s->kind))
					break;
			if (j == n_kinds)
				kinds[n_kinds++] = s->kind;
		}
	for (size_t j = 0; j < n_kinds; j++) {
		strbuf_addf(key, ", \\\n     keyentry with boxes fillstyle solid 0.45 noborder "
			    "fillcolor rgb '%s' title ", segment_colour(kinds[j], others, &n_others));
		plot_add_str(key, kinds[j]);
	}
	free(kinds);
	free(others);
	return n_kinds;
}

/* The plot command: each run's steps and stall dots (filled: in its
 * window, hollow: outside), and a hollow diamond on each frame over the
 * threshold that spans a swapchain recreation (no stall). */
static void frames_plot(struct strbuf *gp, const struct plot_out *out, const struct plot_frames *f,
			const struct frame_marks *marks)
{
	strbuf_addstr(gp, "plot ");
	for (size_t k = 0; k < f->n_runs; k++) {
		const struct plot_run *run = &f->runs[k];
		const char *colour = plot_style_colour(&run->style);

		/* a frame ends at its t and began one frame time before:
		 * fsteps holds each frame's time over the span it took */
		strbuf_addf(gp, "%s'%s-%zu.dat' using 1:2 with fsteps lw 1.2 dt %d lc rgb '%s' title ",
			    k ? ", \\\n     " : "", out->name, k, plot_style_dash(&run->style), colour);
		plot_add_str(gp, run->label);
		if (marks[k].in)
			strbuf_addf(gp, ", \\\n     '%s-%zu-stalls.dat' using 1:2 with points pt 7 ps 1.3 "
				    "lc rgb '%s' notitle", out->name, k, colour);
		if (marks[k].outside)
			strbuf_addf(gp, ", \\\n     '%s-%zu-outside.dat' using 1:2 with points pt 6 ps 1.3 "
				    "lw 1.5 lc rgb '%s' notitle", out->name, k, colour);
		if (marks[k].recreated)
			strbuf_addf(gp, ", \\\n     '%s-%zu-recreations.dat' using 1:2 with points pt 12 ps 1.6 "
				    "lw 1.5 lc rgb '%s' notitle", out->name, k, colour);
	}
}

static int frames_script(const struct plot_out *out, const char *workdir, const struct plot_frames *f,
			 const struct frame_marks *marks)
{
	struct strbuf gp = STRBUF_INIT, head = STRBUF_INIT, key = STRBUF_INIT;
	struct extent e = { 0 };
	size_t rows = f->n_runs, any_in = 0, any_out = 0, any_rec = 0;
	double t_max = 0, top;
	size_t longest = 0;
	int width, r;

	for (size_t k = 0; k < f->n_runs; k++) {
		extent_add(&e, f->runs[k].ms, f->runs[k].n);
		for (size_t i = 0; i < f->runs[k].n; i++)
			if (f->runs[k].t_s[i] > t_max)
				t_max = f->runs[k].t_s[i];
		any_in += marks[k].in;
		any_out += marks[k].outside;
		any_rec += marks[k].recreated;
		if (strlen(f->runs[k].label) > longest)
			longest = strlen(f->runs[k].label);
	}
	width = legend_width(longest);
	strbuf_addstr(&head, "set title ");
	plot_add_str(&head, f->title ? f->title : "frame times");
	strbuf_addstr(&head, "\nset xlabel \"time since the run's first frame (s)\"\n");
	top = frame_axis(&head, 'y', "frame time (ms)", &e);
	strbuf_addf(&head, "set xrange [0:%.6f]\n", t_max > 0 ? t_max : 1.0);
	if (any_in)
		strbuf_addf(&key, ", \\\n     keyentry with points pt 7 ps 1.3 lc rgb '#404040' title "
			    "'stall (frame over %g ms) in the measured window: the report counts it'", f->stall_ms);
	if (any_out)
		strbuf_addf(&key, ", \\\n     keyentry with points pt 6 ps 1.3 lw 1.5 lc rgb '#404040' title "
			    "'stall outside the window (warm-up, after it): drawn, not counted'");
	if (any_rec)
		strbuf_addf(&key, ", \\\n     keyentry with points pt 12 ps 1.6 lw 1.5 lc rgb '#404040' title "
			    "'swapchain recreation (a resize, a present mode change): no stall, not counted'");
	rows += !!any_in + !!any_out + !!any_rec + (f->stall_ms > 0);
	threshold_mark(&head, &key, f->stall_ms, top, false);
	rows += frames_segments(&head, &key, f);
	rows = legend_below(&head, rows, "each run's measured window, as hitchbench report counts it");
	plot_script_begin(&gp, out, width, PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	strbuf_add(&gp, head.buf, head.len);
	frames_plot(&gp, out, f, marks);
	r = script_finish(&gp, &key, out, workdir, width, PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	strbuf_release(&gp);
	strbuf_release(&head);
	strbuf_release(&key);
	return r;
}

int plot_frames_write(const struct plot_out *out, const char *workdir, const struct plot_frames *f)
{
	struct frame_marks *marks;
	int r = 0;

	if (f->n_runs == 0)
		return -EINVAL;
	for (size_t k = 0; k < f->n_runs; k++)
		if (f->runs[k].n == 0)
			return -EINVAL;
	marks = zalloc(f->n_runs * sizeof(*marks));
	for (size_t k = 0; k < f->n_runs && r == 0; k++)
		r = frames_run_data(out, workdir, k, &f->runs[k], f->stall_ms, &marks[k]);
	if (r == 0)
		r = frames_script(out, workdir, f, marks);
	free(marks);
	return r;
}

/* ---- percentile curves ---- */

/* Series s's curve (801 points of x, p, frame_ms) into dat; widens e to
 * the values drawn. */
static void pct_curve(const struct plot_series *s, struct strbuf *dat, struct extent *e)
{
	size_t steps = (size_t)lround(PCT_X_MAX / PCT_X_STEP);
	double *sorted = zalloc(s->n * sizeof(*sorted));

	memcpy(sorted, s->ms, s->n * sizeof(*sorted));
	qsort(sorted, s->n, sizeof(*sorted), cmp_double);
	strbuf_addf(dat, "# %s: %zu frames; x = -log10(1 - p/100), p, frame_ms (nearest rank)\n",
		    s->label, s->n);
	for (size_t i = 0; i <= steps; i++) {
		double x = (double)i * PCT_X_STEP;
		double p = 100.0 * (1.0 - pow(10.0, -x));
		uint32_t ppm = (uint32_t)llround(p * 10000.0);

		strbuf_addf(dat, "%.3f\t%.5f\t%.3f\n", x, p,
			    percentile_sorted(sorted, s->n, ppm, PCT_NEAREST_RANK));
	}
	strbuf_addstr(dat, "\n\n");
	/* the curve runs from the shortest frame to at most the longest */
	extent_add(e, sorted, s->n);
	free(sorted);
}

int plot_percentiles_write(const struct plot_out *out, const char *workdir, const char *title,
			   const struct plot_series *series, size_t n, double stall_ms)
{
	struct strbuf gp = STRBUF_INIT, head = STRBUF_INIT, dat = STRBUF_INIT, key = STRBUF_INIT;
	struct extent e = { 0 };
	size_t rows;
	double top;
	int r;

	if (n == 0)
		return -EINVAL;
	for (size_t s = 0; s < n; s++)
		if (series[s].n == 0)
			return -EINVAL;
	for (size_t s = 0; s < n; s++)
		pct_curve(&series[s], &dat, &e);

	rows = legend_below(&head, n + (stall_ms > 0), "each run's measured window");
	plot_script_begin(&gp, out, legend_width(longest_label(series, n)), PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	strbuf_add(&gp, head.buf, head.len);
	strbuf_addstr(&gp, "set title ");
	plot_add_str(&gp, title && *title ? title : "frame-time percentiles");
	strbuf_addstr(&gp, "\nset xlabel 'percentile of frame times (nearest rank; the axis stretches the tail)'\n");
	strbuf_addf(&gp, "set xrange [0:%g]\n", PCT_X_MAX);
	top = frame_axis(&gp, 'y', "frame time (ms)", &e);
	threshold_mark(&gp, &key, stall_ms, top, false);
	strbuf_addstr(&gp, "set xtics ('0' 0, '50' log10(2), '75' log10(4), '90' 1, '99' 2, '99.9' 3, '99.99' 4)\n"
			   "set grid xtics ytics lc rgb '#dddddd'\n");
	strbuf_addstr(&gp, "plot ");
	for (size_t s = 0; s < n; s++) {
		strbuf_addf(&gp, "%s'%s-pct.dat' index %zu using 1:3 with lines lw 2 dt %d lc rgb '%s' title ",
			    s ? ", \\\n     " : "", out->name, s, plot_style_dash(&series[s].style),
			    plot_style_colour(&series[s].style));
		plot_add_str(&gp, series[s].label);
	}
	r = script_finish(&gp, &key, out, workdir, legend_width(longest_label(series, n)),
			  PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-pct.dat", &dat);
	strbuf_release(&head);
	strbuf_release(&gp);
	strbuf_release(&dat);
	strbuf_release(&key);
	return r;
}

/* ---- the frame-time histogram ---- */

/* Bins of equal width on the axis: from 10^start in steps of 10^width
 * (log), or from start in steps of width. */
struct bins {
	bool log;
	double start, width;
	size_t n;
};

/* Linear bins of a round width (1, 2, 2.5 or 5 times a power of ten)
 * about HIST_BINS of them over [0, hi]; logarithmic ones,
 * HIST_BINS_PER_DECADE a decade, where the axis is logarithmic. */
static void hist_bins(const struct extent *e, struct bins *b)
{
	static const double nice[] = { 1, 2, 2.5, 5, 10 };

	b->log = extent_log(e);
	if (b->log) {
		double l0 = floor(log10(e->lo) * HIST_BINS_PER_DECADE);
		double l1 = ceil(log10(e->hi) * HIST_BINS_PER_DECADE);

		b->start = l0 / HIST_BINS_PER_DECADE;
		b->width = 1.0 / HIST_BINS_PER_DECADE;
		b->n = l1 > l0 ? (size_t)(l1 - l0) : 1;
		/* a longest frame on an edge still has a bin */
		if (b->start + (double)b->n * b->width <= log10(e->hi))
			b->n++;
		return;
	}
	{
		double raw = e->hi > 0 ? e->hi / HIST_BINS : 1.0;
		double mag = pow(10, floor(log10(raw)));
		size_t i = 0;

		while (i + 1 < ARRAY_SIZE(nice) && nice[i] * mag < raw)
			i++;
		b->width = nice[i] * mag;
		b->start = floor(e->lo / b->width) * b->width;
		b->n = (size_t)floor((e->hi - b->start) / b->width) + 1;
	}
}

static double bin_edge(const struct bins *b, size_t i)
{
	double v = b->start + (double)i * b->width;

	return b->log ? pow(10, v) : v;
}

static size_t bin_of(const struct bins *b, double ms)
{
	double v, i;

	if (b->log && !(ms > 0))
		return 0;
	v = b->log ? log10(ms) : ms;
	i = floor((v - b->start) / b->width);
	if (!(i > 0))
		return 0;
	return i >= (double)b->n ? b->n - 1 : (size_t)i;
}

/* Series s's bins into tab (from, to, frames, share) and its outline
 * (the steps, closed down to 0 at both ends) into line, a block each. */
static void hist_series(const struct plot_series *s, const struct bins *b, struct strbuf *tab,
			struct strbuf *line)
{
	size_t *count = zalloc(b->n * sizeof(*count));

	for (size_t i = 0; i < s->n; i++)
		count[bin_of(b, s->ms[i])]++;
	strbuf_addf(tab, "# %s: %zu frames\n# from_ms\tto_ms\tframes\tshare_pct\n", s->label, s->n);
	strbuf_addf(line, "# %s\n%.6g\t0\n", s->label, bin_edge(b, 0));
	for (size_t i = 0; i < b->n; i++) {
		double pct = 100.0 * (double)count[i] / (double)s->n;

		strbuf_addf(tab, "%.6g\t%.6g\t%zu\t%.4f\n", bin_edge(b, i), bin_edge(b, i + 1), count[i], pct);
		strbuf_addf(line, "%.6g\t%.4f\n%.6g\t%.4f\n", bin_edge(b, i), pct, bin_edge(b, i + 1), pct);
	}
	strbuf_addf(line, "%.6g\t0\n\n\n", bin_edge(b, b->n));
	strbuf_addstr(tab, "\n\n");
	free(count);
}

static void hist_axes(struct strbuf *gp, const struct bins *b)
{
	double lo = bin_edge(b, 0), hi = bin_edge(b, b->n);

	if (b->log) {
		strbuf_addf(gp, "set xlabel 'frame time (ms), log scale: bins of 1/%d decade'\n"
			    "set logscale x\n", HIST_BINS_PER_DECADE);
		log_tics(gp, 'x', lo, hi);
	} else {
		strbuf_addf(gp, "set xlabel 'frame time (ms): bins of %g ms'\n", b->width);
	}
	strbuf_addf(gp, "set xrange [%g:%g]\n", lo, hi);
	strbuf_addstr(gp, "set ylabel 'share of the frames in each bin (%)'\nset yrange [0:*]\n"
			  "set offsets 0, 0, graph 0.05, 0\n"
			  "set grid xtics ytics lc rgb '#dddddd'\n");
}

int plot_histogram_write(const struct plot_out *out, const char *workdir, const char *title,
			 const struct plot_series *series, size_t n, double stall_ms)
{
	struct strbuf gp = STRBUF_INIT, head = STRBUF_INIT, tab = STRBUF_INIT, line = STRBUF_INIT,
		      key = STRBUF_INIT;
	struct extent e = { 0 };
	struct bins b;
	size_t rows;
	int r;

	if (n == 0)
		return -EINVAL;
	for (size_t s = 0; s < n; s++) {
		if (series[s].n == 0)
			return -EINVAL;
		extent_add(&e, series[s].ms, series[s].n);
	}
	hist_bins(&e, &b);
	for (size_t s = 0; s < n; s++)
		hist_series(&series[s], &b, &tab, &line);

	rows = legend_below(&head, n + (stall_ms > 0), "the measured windows' frames, as hitchbench report counts them");
	plot_script_begin(&gp, out, legend_width(longest_label(series, n)), PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	strbuf_add(&gp, head.buf, head.len);
	strbuf_addstr(&gp, "set title ");
	plot_add_str(&gp, title && *title ? title : "frame-time histogram");
	strbuf_addch(&gp, '\n');
	hist_axes(&gp, &b);
	threshold_mark(&gp, &key, stall_ms, bin_edge(&b, b.n), true);
	strbuf_addstr(&gp, "plot ");
	for (size_t s = 0; s < n; s++) {
		const char *colour = plot_style_colour(&series[s].style);

		strbuf_addf(&gp, "%s'%s-outline.dat' index %zu using 1:2 with filledcurves y1=0 "
			    "fillstyle transparent solid 0.15 noborder lc rgb '%s' notitle, \\\n"
			    "     '%s-outline.dat' index %zu using 1:2 with lines lw 2 dt %d lc rgb '%s' title ",
			    s ? ", \\\n     " : "", out->name, s, colour, out->name, s,
			    plot_style_dash(&series[s].style), colour);
		plot_add_str(&gp, series[s].label);
	}
	r = script_finish(&gp, &key, out, workdir, legend_width(longest_label(series, n)),
			  PLOT_HEIGHT + (int)rows * KEY_ROW_PX);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-hist.dat", &tab);
	strbuf_release(&head);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-outline.dat", &line);
	strbuf_release(&gp);
	strbuf_release(&tab);
	strbuf_release(&line);
	strbuf_release(&key);
	return r;
}

/* ---- drawing ---- */

static int write_frames_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	return plot_frames_write(out, workdir, arg);
}

int plot_frames(const struct plot_out *out, const struct plot_frames *f, struct strbuf *err)
{
	return plot_draw(out, write_frames_cb, f, err);
}

struct series_args {
	const char *title;
	const struct plot_series *series;
	size_t n;
	double stall_ms;
};

static int write_pct_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	const struct series_args *a = arg;

	return plot_percentiles_write(out, workdir, a->title, a->series, a->n, a->stall_ms);
}

int plot_percentiles(const struct plot_out *out, const char *title,
		     const struct plot_series *series, size_t n, double stall_ms, struct strbuf *err)
{
	struct series_args a = { title, series, n, stall_ms };

	return plot_draw(out, write_pct_cb, &a, err);
}

static int write_hist_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	const struct series_args *a = arg;

	return plot_histogram_write(out, workdir, a->title, a->series, a->n, a->stall_ms);
}

int plot_histogram(const struct plot_out *out, const char *title,
		   const struct plot_series *series, size_t n, double stall_ms, struct strbuf *err)
{
	struct series_args a = { title, series, n, stall_ms };

	return plot_draw(out, write_hist_cb, &a, err);
}
