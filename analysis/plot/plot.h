/*
 * Pictures of results, drawn by gnuplot: each plot function takes plain
 * data (so any part of hitchbench can feed it), writes a gnuplot script and
 * its data files into a temporary directory, runs gnuplot there and leaves
 * OUT_DIR/NAME.png (pngcairo) and OUT_DIR/NAME.svg. Nothing is printed:
 * errors come back as -errno with a message in err (gnuplot's own
 * complaint when it failed). What each picture shows: docs/plots.md.
 *
 * The plot_*_write() halves write only the script and data (into a
 * directory the caller made), so tests can check them without gnuplot.
 * Reading the matrix CSV and trend TSV a picture is drawn from is
 * plot-inputs.h's.
 */
#ifndef HB_PLOT_H
#define HB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct plot_out {
	const char *dir;      /* where NAME.png and NAME.svg go (made if missing) */
	const char *name;     /* base name of the pictures, no '/' */
	const char *gnuplot;  /* program; NULL: $HITCHBENCH_GNUPLOT, else "gnuplot" from PATH */
};

/*
 * A stretch of a run drawn as a shaded band over the frame times. kind
 * says what it is and picks the colour and the legend entry: "warm-up"
 * (before the measured window), "reload" (the game was loading: a level,
 * a save), "after window"; any other word gets a colour of its own.
 * Bands of one kind share one legend entry. Times are seconds from the
 * run's first present, t0_s < t1_s.
 */
struct plot_segment {
	double t0_s, t1_s;
	const char *kind;
};

/*
 * How a run's (or a group's) lines look. Runs of one group (one game and
 * run name, as the report groups them: report_groups()) share a hue,
 * group picks it; member (0, 1, ...) tells the group's runs apart: each
 * member after the first is drawn in another shade of the hue and another
 * dash pattern. The same style gives the same colour in every picture.
 */
struct plot_style {
	unsigned group;
	unsigned member;
};

/* One run in the frame-time picture: frame i ended t_s[i] seconds after
 * the run's first present and took ms[i] milliseconds. */
struct plot_run {
	const char *label;                 /* the legend line, headline numbers and all */
	struct plot_style style;
	const double *t_s, *ms;
	size_t n;
	/* the measured window in the same seconds: frames ending in
	 * (window_t0_s, window_t1_s] are the report's; a stall outside it is
	 * drawn hollow (not counted). window_t1_s <= window_t0_s: no window,
	 * every frame is drawn as counted. */
	double window_t0_s, window_t1_s;
	const struct plot_segment *segments;
	size_t n_segments;
	/* [n] or NULL: frame i spans a Vulkan swapchain recreation (a resize,
	 * a present mode change: analysis/run/swapchain.h), an event of the
	 * run and no stall however long, as the report counts it; drawn with
	 * a mark of its own, never as a stall */
	const bool *recreated;
};

/* The frame-time picture: runs drawn over each other, each from its own
 * first present. */
struct plot_frames {
	const char *title;                 /* e.g. plot_runs_title(): "frame times: 2 runs of dsda-doom" */
	const struct plot_run *runs;
	size_t n_runs;
	double stall_ms;                   /* frames over it are marked; <= 0: none */
};

/* One curve of the percentile chart or one outline of the histogram: a
 * run's (or a group's pooled) frame times in milliseconds, in any order. */
struct plot_series {
	const char *label;                 /* the legend line */
	struct plot_style style;
	const double *ms;
	size_t n;
};

/* A metric's matrix (results/matrix/<metric>.csv, docs/formats.md): rows
 * are game and run (variant), columns batches or kernels; a cell is the
 * median, min and max of its runs' values and their count, n == 0 where
 * no run was. */
struct plot_matrix_cell {
	double median, min, max;
	int n;
};

struct plot_matrix {
	char *metric;                      /* from the file name: "p99_ms" */
	size_t n_cols, n_rows;
	char **cols;                       /* [n_cols] */
	char **games, **runs;              /* [n_rows] */
	struct plot_matrix_cell *cells;    /* [n_rows * n_cols], row-major */
};

/* One kernel of a metric's trend (what `hitchbench regress --format tsv`
 * prints: kernel median min max n change p magnitude). change: a change
 * point is at this kernel (its runs differ from the previous kernel's);
 * p: the test's p-value; magnitude: the change of the median, in the
 * metric's unit (signed). p and magnitude mean something only where
 * change is set. */
struct plot_trend_point {
	const char *kernel;
	double median, min, max;
	int n;
	bool change;
	double p, magnitude;
};

/* A flip run's picture (docs/metrics.md "Flip"): its counted segments
 * (t_s: seconds from the run's first present to the segment's switch; the
 * segment's fps; side 'A' or 'B') and the running estimate after each of
 * its n_est blocks of segment pairs: B/A - 1 in percent, with an interval
 * (lo, hi; NAN where there is none yet: one block). */
struct plot_flip_seg {
	double t_s, fps;
	char side;
};

struct plot_flip {
	const char *title;
	const char *label_a, *label_b;  /* the legend's: "A: SLOWDOWN=0" */
	const struct plot_flip_seg *segs;
	size_t n_segs;
	const double *est_pct, *lo_pct, *hi_pct;
	size_t n_est;
};

/* A metric's unit for axis labels, from its name: "_ms" -> "ms", "_s" ->
 * "s", "fps" and the lows -> "frames/s", "frames"/"stalls" -> "count";
 * "" when unknown. */
const char *plot_metric_unit(const char *metric);

/* The hue of style's group and shade of its member, "#rrggbb" (a static
 * string), and its gnuplot dash type (1: solid). */
const char *plot_style_colour(const struct plot_style *style);
int plot_style_dash(const struct plot_style *style);

int plot_frames(const struct plot_out *out, const struct plot_frames *f, struct strbuf *err);
int plot_percentiles(const struct plot_out *out, const char *title,
		     const struct plot_series *series, size_t n, double stall_ms, struct strbuf *err);
/* A frame-time histogram: one outline per series, the share of its frames
 * (%) in each bin; bins logarithmic when the frame times span over 20
 * times their median (docs/plots.md). */
int plot_histogram(const struct plot_out *out, const char *title,
		   const struct plot_series *series, size_t n, double stall_ms, struct strbuf *err);
int plot_matrix(const struct plot_out *out, const struct plot_matrix *m, struct strbuf *err);
int plot_flip(const struct plot_out *out, const struct plot_flip *f, struct strbuf *err);
int plot_trend(const struct plot_out *out, const char *metric,
	       const struct plot_trend_point *pts, size_t n, struct strbuf *err);

/* The script (workdir/NAME.gp) and its data files (workdir/NAME-*.dat),
 * drawing into out->dir; 0 or -errno (-EINVAL for no data). stall_ms: the
 * stall threshold, marked where the axis reaches it and named above the
 * axis where it does not (<= 0: not marked). */
int plot_frames_write(const struct plot_out *out, const char *workdir, const struct plot_frames *f);
int plot_percentiles_write(const struct plot_out *out, const char *workdir, const char *title,
			   const struct plot_series *series, size_t n, double stall_ms);
int plot_histogram_write(const struct plot_out *out, const char *workdir, const char *title,
			 const struct plot_series *series, size_t n, double stall_ms);
int plot_matrix_write(const struct plot_out *out, const char *workdir, const struct plot_matrix *m);
int plot_flip_write(const struct plot_out *out, const char *workdir, const struct plot_flip *f);
int plot_trend_write(const struct plot_out *out, const char *workdir, const char *metric,
		     const struct plot_trend_point *pts, size_t n);

#endif
