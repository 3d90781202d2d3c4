/*
 * CapFrameX's named percentiles (its analysis view's "P5", "P1", "P0.1"),
 * which it takes of the frames' fps, not of their frame times: the fps of
 * each frame (1000 / its frame time in ms), then Math.NET's Quantile (R
 * type 8) at 0.05, 0.01, 0.001. Interpolating between fps is not the
 * same as 1000 / the interpolated frame time, so low1/low01 (nearest-rank
 * frame times) and these differ. Read in CXWorld/CapFrameX,
 * source/CapFrameX.Statistics.NetStandard/FrametimeStatisticProvider.cs
 * (GetFpsMetricValue: P5, P1, P0dot1); docs/metrics.md "Other tools' 1% lows".
 * CapFrameX shows them rounded to 2 decimals (FpsValuesRoundingDigits).
 */
#ifndef HB_CAPFRAMEX_H
#define HB_CAPFRAMEX_H

#include "metrics/metrics.h"

#include <stddef.h>


/* Sets M_CAPFRAMEX_P5 .. M_CAPFRAMEX_P01 of m from the window's frame
 * times (ascending sorted_ms, n > 0). Called by metrics_compute(). */
void capframex_compute(const double *sorted_ms, size_t n, struct metrics *m);

#endif
