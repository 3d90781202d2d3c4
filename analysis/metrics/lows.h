/*
 * The other tools' "1% low"s and stutter share, each named after the tool
 * whose definition it reproduces (docs/metrics.md has the formulas and
 * where they were read):
 *
 *   low1_avg, low01_avg   CapFrameX "1% low average" / "0.1% low average":
 *                         1000 / the mean of the frame times at or above the
 *                         99th (99.9th) percentile, the percentile as
 *                         CapFrameX takes it (Math.NET's Quantile, R type 8)
 *   low1_integral         MSI Afterburner's / CapFrameX's "1% low integral":
 *                         frame times sorted longest first are summed until
 *                         the sum reaches 1% of the total time; 1000 / the
 *                         frame time that got it there
 *   stutter_pct           CapFrameX "stuttering time": the share of the time
 *                         spent in frames longer than 2.5 x the trailing
 *                         500 ms moving average of frame time, percent
 *   mangohud_*            MangoHud's summary (mangohud-summary.h)
 *   frameview_low1, frameview_low01   NVIDIA FrameView's "1% Low FPS" /
 *                         "0.1% Low FPS": 1000 / the mean of the n/100 + 1
 *                         (n/1000 + 1) longest frame times, n the frames,
 *                         / integer division; established on FrameView's
 *                         own summaries (docs/metrics.md)
 *
 * Nothing is dropped as an outlier: the hitches are what these measure.
 */
#ifndef HB_LOWS_H
#define HB_LOWS_H

#include "metrics/metrics.h"

#include <stddef.h>
#include <stdint.h>

#define STUTTER_WINDOW_NS 500000000ull  /* CapFrameX's default moving-average window */
#define STUTTER_FACTOR 2.5              /* CapFrameX's default stuttering factor */

/* Math.NET's Quantile on sorted data (R type 8, "approximately
 * median-unbiased"): h = (n + 1/3) * tau + 1/3 (1-based), interpolated
 * between the neighbours of floor(h), clamped to the ends. NAN for n == 0. */
double quantile_r8_sorted(const double *sorted, size_t n, double tau);
/* Where that quantile lies among n sorted values: 1 when between the
 * 0-based *at and *at + 1, *w of the way (interpolate); 0 when it is the
 * value at *at itself (clamped to an end); -1 for n == 0 or tau outside
 * [0, 1]. capframex.c takes it over values it never stores (the fps). */
int quantile_r8_position(size_t n, double tau, size_t *at, double *w);

/* 1000 / the mean of the frame times (ascending sorted_ms) at or above
 * their quantile_r8 at 1 - low (low = 0.01 for the 1% low). NAN when n is
 * 0 or that mean is 0. */
double low_average_fps(const double *sorted_ms, size_t n, double low);

/* Frame times (ascending sorted_ms) taken longest first and summed until
 * the sum reaches `low` of the total time (low = 0.01: 1%); 1000 / the
 * frame time that reached it. NAN when n is 0 or that frame is 0 ms. */
double low_integral_fps(const double *sorted_ms, size_t n, double low);

/* 100 x the time in frames longer than factor x the trailing moving average
 * / the total time. The moving average at frame i is the mean of frames
 * i, i-1, ... back to the first whose running sum reaches window_ns (or to
 * frame 0), frame i included. frame_ns in the order they happened. NAN for
 * n == 0 or no time at all. */
double stutter_time_pct(const uint64_t *frame_ns, size_t n, uint64_t window_ns, double factor);

/* FrameView's "1% Low FPS" (per_mille = 10) or "0.1% Low FPS" (1): 1000 /
 * the mean of the n * per_mille / 1000 + 1 longest frame times (ascending
 * sorted_ms), at most n. NAN when n is 0 or that mean is 0. */
double frameview_low_fps(const double *sorted_ms, size_t n, unsigned per_mille);

/* Fills M_LOW1_AVG .. M_FRAMEVIEW_LOW01 of m from the window's frames: frame_ns
 * in order, sorted_ns and sorted_ms the same frames ascending (ns, ms); n > 0. The MangoHud
 * metrics use opts->mangohud. Called by metrics_compute(). */
void lows_compute(const uint64_t *frame_ns, const uint64_t *sorted_ns, const double *sorted_ms,
		  size_t n, const struct metric_opts *opts, struct metrics *m);

#endif
