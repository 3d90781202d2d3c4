/*
 * CapFrameX's percentiles of fps (definitions in capframex.h). The
 * quantile is the R-8 of lows.c's quantile_r8_sorted(), over the fps
 * without building their array: the k-th smallest fps is the k-th longest
 * frame.
 */
#include "metrics/capframex.h"

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
	double h, lo, hi;
	size_t hf;

	if (n == 0 || !(tau >= 0 && tau <= 1))
		return NAN;
	/* Math.NET's R-8: h = (n + 1/3) tau + 1/3, 1-based, clamped to the ends */
	h = ((double)n + 1.0 / 3) * tau + 1.0 / 3;
	hf = (size_t)h;
	if (tau == 0 || n == 1 || hf < 1)
		return fps_at(sorted_ms, n, 0);
	if (tau == 1 || hf >= n)
		return fps_at(sorted_ms, n, n - 1);
	lo = fps_at(sorted_ms, n, hf - 1);
	hi = fps_at(sorted_ms, n, hf);
	return lo + (h - (double)hf) * (hi - lo);
}


void capframex_compute(const double *sorted_ms, size_t n, struct metrics *m)
{
	metrics_set_finite(m, M_CAPFRAMEX_P5, capframex_fps_quantile(sorted_ms, n, 0.05));
	metrics_set_finite(m, M_CAPFRAMEX_P1, capframex_fps_quantile(sorted_ms, n, 0.01));
	metrics_set_finite(m, M_CAPFRAMEX_P01, capframex_fps_quantile(sorted_ms, n, 0.001));
}
