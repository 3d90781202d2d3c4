/*
 * The figures of the stats file PresentMon 2.x's capture application
 * writes beside a capture (<app>-<time>-stats.csv: Duration, Total
 * Frames, Average FPS, Minimum FPS, 1st Percentile FPS, 5th Percentile
 * FPS, Maximum FPS, AnimationErrorPerSecond, AnimationErrorPerFrame), so a
 * capture's own numbers can be reproduced by name. Read in
 * GameTechDev/PresentMon v2.5.1, IntelPresentMon/Core/source/pmon/
 * RawFrameDataWriter.cpp (WriteStats_, lines 560-617) and
 * StatisticsTracker.cpp (GetPercentile, lines 19-42): every figure is 1 /
 * a statistic of the frame times, and the percentiles are R-7 (linear,
 * position (N-1)p, 0-based) of the frame times sorted ascending, taken at
 * 0.99 for "1st Percentile FPS" and 0.95 for "5th" (PresentMon 2.0-2.1
 * labelled the same two "99th" and "95th Percentile FPS"). So
 *
 *   presentmon_min   1000 / the longest frame time ("Minimum FPS")
 *   presentmon_p1    1000 / the R-7 99th percentile of frame time
 *   presentmon_p5    1000 / the R-7 95th percentile of frame time
 *   presentmon_max   1000 / the shortest frame time ("Maximum FPS")
 *
 * "Average FPS" is 1000 / the mean frame time, which fps is on an
 * imported capture (its window is the frames laid end to end); "Total
 * Frames" is frames. With one frame PresentMon's percentile returns the
 * time in ms, not s (its file then says 1 / ms): not reproduced, p1 and p5
 * are the frame's 1000 / ms. docs/metrics.md "Other tools' 1% lows" says which
 * frame-time column each PresentMon version used.
 */
#ifndef HB_PRESENTMON_STATS_H
#define HB_PRESENTMON_STATS_H

#include "metrics/metrics.h"

#include <stddef.h>

/* Sets M_PRESENTMON_MIN .. M_PRESENTMON_MAX of m from the window's frame
 * times (ascending sorted_ms, n > 0; a 0 ms frame leaves the figure that
 * inverts it unset). Called by metrics_compute(). */
void presentmon_stats_compute(const double *sorted_ms, size_t n, struct metrics *m);

#endif
