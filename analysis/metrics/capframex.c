/*
 * CapFrameX's percentiles of fps (definitions in capframex.h). The
 * quantile is the R-8 of lows.c's quantile_r8_sorted(), over the fps
 * without building their array: the k-th smallest fps is the k-th longest
 * frame.
 */
#include "metrics/capframex.h"
#include "metrics/lows.h"

#include <math.h>

/* The fps of the i-th smallest fps (0-based): the i-th longest frame. */
static double fps_at(const double *sorted_ms, size_t n, size_t i)
{
	double ms = sorted_ms[n - 1 - i];

	return ms > 0 ? 1000.0 / ms : NAN;
}

/* The R-8 quantile at tau of the fps of frame times sorted_ms (ascending;
 * the fps ascend the other way). NAN for n == 0 or a 0 ms frame in the
 * two neighbours interpolated. */
static double capframex_fps_quantile(const double *sorted_ms, size_t n, double tau)
{
	size_t at;
	double w, lo;
	int r = quantile_r8_position(n, tau, &at, &w);

	if (r < 0)
		return NAN;
	lo = fps_at(sorted_ms, n, at);
	return r ? lo + w * (fps_at(sorted_ms, n, at + 1) - lo) : lo;
}


void capframex_compute(const double *sorted_ms, size_t n, struct metrics *m)
{
	metrics_set_finite(m, M_CAPFRAMEX_P5, capframex_fps_quantile(sorted_ms, n, 0.05));
	metrics_set_finite(m, M_CAPFRAMEX_P1, capframex_fps_quantile(sorted_ms, n, 0.01));
	metrics_set_finite(m, M_CAPFRAMEX_P01, capframex_fps_quantile(sorted_ms, n, 0.001));
}
