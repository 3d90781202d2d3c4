/*
 * A run directory's frames as plot.h's pictures take them: hitchbench plot
 * and the HTML report (report-html-plots.c) draw the same frames, warm-up,
 * reloads and window from one place.
 */
#ifndef HB_PLOT_RUN_H
#define HB_PLOT_RUN_H

#include <stddef.h>

#include "plot.h"
#include "run.h"

/* Every frame of run (loaded, at least two presents) into f: the time
 * each ended (seconds from the first present) and what it took (ms); as
 * shaded segments the warm-up (bench.txt first_frame_ns to the window's
 * start), what came after the window and each pass's reload segment
 * (the reload rule run_reload_find() gives; a bad rule draws none).
 * title and stall_ms are set as given. f's arrays are the caller's to
 * free with plot_run_frames_release(). 0, or -ENODATA for a run with
 * fewer than two presents. */
int plot_run_frames(const struct run *run, const char *const *gamedb_dirs, const char *title,
		    double stall_ms, struct plot_frames *f);
void plot_run_frames_release(struct plot_frames *f);

/* The frame times (ms) of the run's measured window (frames whose end is
 * in (window_start, window_end], docs/metrics.md), all of them when the
 * run has no window, into *ms (the caller frees it). Returns how many. */
size_t plot_run_window_ms(const struct run *run, double **ms);

#endif
