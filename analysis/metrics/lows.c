/*
 * Other tools' 1% lows and stutter share (definitions in lows.h).
 *
 * Sources read (never copied): CXWorld/CapFrameX,
 * source/CapFrameX.Statistics.NetStandard/FrametimeStatisticProvider.cs
 * (GetPercentageHighAverageSequence, GetPercentageHighIntegralSequence,
 * GetStutteringTimePercentage) and TimeBasedMovingAverage.cs; Math.NET
 * Numerics' SortedArrayStatistics.Quantile for the R-8 quantile CapFrameX
 * uses. The reference values in tests/unit/test-lows.c were computed with
 * an independent Python implementation.
 */
#include "metrics/lows.h"
#include "metrics/mangohud-summary.h"

#include <math.h>

int quantile_r8_position(size_t n, double tau, size_t *at, double *w)
{
	double h;
	size_t hf;

	if (n == 0 || !(tau >= 0 && tau <= 1))
		return -1;
	*w = 0;
	*at = tau == 1 ? n - 1 : 0;
	if (tau == 0 || tau == 1 || n == 1)
		return 0;
	h = ((double)n + 1.0 / 3) * tau + 1.0 / 3;
	hf = (size_t)h;
	if (hf < 1)
		return 0;
	if (hf >= n) {
		*at = n - 1;
		return 0;
	}
	*at = hf - 1;
	*w = h - (double)hf;
	return 1;
}

double quantile_r8_sorted(const double *sorted, size_t n, double tau)
{
	size_t at;
	double w;
	int r = quantile_r8_position(n, tau, &at, &w);

	if (r < 0)
		return NAN;
	return r ? sorted[at] + w * (sorted[at + 1] - sorted[at]) : sorted[at];
}

double low_average_fps(const double *sorted_ms, size_t n, double low)
{
	double q, sum = 0;
	size_t k = 0;

	if (n == 0)
		return NAN;
	q = quantile_r8_sorted(sorted_ms, n, 1 - low);
	for (size_t i = n; i-- > 0 && sorted_ms[i] >= q; k++)
		sum += sorted_ms[i];
	if (sum <= 0)
		return NAN;
	return 1000.0 / (sum / (double)k);
}

double low_integral_fps(const double *sorted_ms, size_t n, double low)
{
	double total = 0, target, run = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = n; i-- > 0;)
		total += sorted_ms[i];
	/* CapFrameX's 1 - pQuantile with pQuantile = 1 - low, kept as is. */
	target = total * (1 - (1 - low));
	for (i = n; i-- > 0;) {
		run += sorted_ms[i];
		if (run >= target)
			break;
	}
	if (i >= n)  /* the loop ran out: total < target cannot happen, but be safe */
		i = 0;
	if (sorted_ms[i] <= 0)
		return NAN;
	return 1000.0 / sorted_ms[i];
}

double stutter_time_pct(const uint64_t *frame_ns, size_t n, uint64_t window_ns, double factor)
{
	uint64_t total = 0, stutter = 0, sum = 0;
	size_t j = 0;

	if (n == 0)
		return NAN;
	/* sum = frames j..i. The average's start j only moves forward: the
	 * latest j whose suffix sum still reaches the window is kept. Integer
	 * ns keep every sum exact. */
	for (size_t i = 0; i < n; i++) {
		double avg;

		sum += frame_ns[i];
		while (j < i && sum - frame_ns[j] >= window_ns)
			sum -= frame_ns[j++];
		avg = (double)sum / (double)(i - j + 1);
		if ((double)frame_ns[i] > factor * avg)
			stutter += frame_ns[i];
		total += frame_ns[i];
	}
	if (total == 0)
		return NAN;
	return 100.0 * (double)stutter / (double)total;
}

double frameview_low_fps(const double *sorted_ms, size_t n, unsigned per_mille)
{
	size_t k;
	double sum = 0;

	if (n == 0)
		return NAN;
	/* integer division: 900 frames give 10, 1800 give 19 (FrameView's
	 * summaries reproduce with this count, not with ceil(n / 100)) */
	k = n * per_mille / 1000 + 1;
	if (k > n)
		k = n;
	for (size_t i = n - k; i < n; i++)
		sum += sorted_ms[i];
	if (sum <= 0)
		return NAN;
	return 1000.0 / (sum / (double)k);
}


void lows_compute(const uint64_t *frame_ns, const uint64_t *sorted_ns, const double *sorted_ms,
		  size_t n, const struct metric_opts *opts, struct metrics *m)
{
	struct mangohud_summary mh;

	metrics_set_finite(m, M_LOW1_AVG, low_average_fps(sorted_ms, n, 0.01));
	metrics_set_finite(m, M_LOW01_AVG, low_average_fps(sorted_ms, n, 0.001));
	metrics_set_finite(m, M_LOW1_INTEGRAL, low_integral_fps(sorted_ms, n, 0.01));
	metrics_set_finite(m, M_STUTTER_PCT, stutter_time_pct(frame_ns, n, STUTTER_WINDOW_NS, STUTTER_FACTOR));
	metrics_set_finite(m, M_FRAMEVIEW_LOW1, frameview_low_fps(sorted_ms, n, 10));
	metrics_set_finite(m, M_FRAMEVIEW_LOW01, frameview_low_fps(sorted_ms, n, 1));
	if (mangohud_summary_from_sorted(sorted_ns, n, opts->mangohud, &mh) == 0) {
		metrics_set_finite(m, M_MANGOHUD_LOW01, mh.low01);
		metrics_set_finite(m, M_MANGOHUD_LOW1, mh.low1);
		metrics_set_finite(m, M_MANGOHUD_P97, mh.p97);
		metrics_set_finite(m, M_MANGOHUD_AVG, mh.avg);
	}
}
