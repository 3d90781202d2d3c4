/*
 * The frame-time pictures' data (plot.h) filled from loaded runs, for
 * every caller that draws runs (`hitchbench plot`, the HTML report): each
 * run's frames, window, shaded stretches and legend line, its window's
 * frames, and the runs pooled by group. The legend's numbers are
 * run_metrics()'s, the report's own, so a picture's stall count is the
 * report's `stalls`: a frame that spans a Vulkan swapchain recreation is
 * marked recreated (plot_run.recreated), drawn apart and never as a stall,
 * by the report's own rule (metric_recreation_spanned()). Groups are the report's (report_groups(): game and
 * run name), in order of first appearance; runs of one group share a hue.
 */
#ifndef HB_PLOT_RUNS_H
#define HB_PLOT_RUNS_H

#include "plot/plot.h"
#include "run/run.h"

struct plot_runs_store;

struct plot_runs {
	size_t n_runs;
	/* [n_runs], the runs in the order given: */
	struct plot_run *frames;        /* every frame: plot_frames()'s runs */
	struct plot_series *runs;       /* the window's frames: plot_percentiles() */
	struct metrics *metrics;        /* run_metrics() (the report's numbers) */
	bool *have_metrics;             /* false: no window (every frame is in runs[]) */
	size_t n_groups;
	struct plot_series *groups;     /* [n_groups]: a group's window frames pooled: plot_histogram() */
	struct plot_runs_store *store;  /* what the above point into */
};

/* Fills pr from runs[0..n) (loaded, frames and all) with opts (stall
 * threshold, percentile definition, gamedb_dirs for the reload rule;
 * NULL: METRIC_OPTS_DEFAULT). A run's legend line is plot_run_name()
 * then plot_run_headline(); a group's says its runs, frames and stalls
 * (the sum of its runs'). Reload segments are drawn where the run's rule
 * finds them (a bad rule: none). 0, or -ENODATA with "'DIR' has no
 * frames" in err for a run without two frames (pr then holds nothing). */
int plot_runs_fill(struct plot_runs *pr, const struct run *const *runs, size_t n,
		   const struct metric_opts *opts, struct strbuf *err);
void plot_runs_release(struct plot_runs *pr);

/* "GAME RUN_NAME, YYYY-MM-DD HH:MM:SS UTC" (bench.txt game, run_name or
 * variant, started_utc; the directory's name where no time is known). */
void plot_run_name(const struct run *run, struct strbuf *out);
/* The window's numbers as the report prints them (metric_defs decimals):
 * "731 frames in the window: median 7.18 ms, p99 25.28 ms, 1% low 39.6
 * fps, stalls 0 (0.00 s)", then "; warm-up stalls 1, not counted" when
 * stalls_warm is over 0. */
void plot_run_headline(const struct metrics *m, struct strbuf *out);
/* A picture's title: "WHAT: " and the run's name for one run, "WHAT: N
 * runs of GAME" for one game, "WHAT: N runs of G games" otherwise. The
 * caller frees it. */
char *plot_runs_title(const struct run *const *runs, size_t n, const char *what);

#endif
