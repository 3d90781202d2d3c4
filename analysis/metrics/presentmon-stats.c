/*
 * PresentMon 2.x capture's stats figures (definitions in
 * presentmon-stats.h). Its R-7 percentile is percentile_sorted()'s
 * PCT_LINEAR: PresentMon finds the position (N-1)p in doubles, here in
 * integers, which can only differ where (N-1)p is a whole number, and then
 * by the rounding of a weight of 1 against 0 (the same frame's time).
 */
#include "metrics/presentmon-stats.h"

#include <math.h>

/* 1000 / ms into m->v[id], when ms is a frame time that inverts. */
static void set_inverse(struct metrics *m, enum metric_id id, double ms)
{
	if (isfinite(ms) && ms > 0)
		metrics_set_finite(m, id, 1000.0 / ms);
}

void presentmon_stats_compute(const double *sorted_ms, size_t n, struct metrics *m)
{
	if (n == 0)
		return;
	set_inverse(m, M_PRESENTMON_MIN, sorted_ms[n - 1]);
	set_inverse(m, M_PRESENTMON_P1, percentile_sorted(sorted_ms, n, 990000, PCT_LINEAR));
	set_inverse(m, M_PRESENTMON_P5, percentile_sorted(sorted_ms, n, 950000, PCT_LINEAR));
	set_inverse(m, M_PRESENTMON_MAX, sorted_ms[0]);
}
