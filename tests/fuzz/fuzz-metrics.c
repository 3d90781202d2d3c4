/*
 * Fuzz target: the metrics (analysis/metrics/metrics.c metrics_compute) over
 * arbitrary present times. The input is read as little-endian uint64s:
 * the first two the window, the next one the stall threshold in
 * microseconds and the percentile definition, the rest the present times
 * (sorted, as every frame source gives them: metrics_compute refuses
 * others, which is checked too on the unsorted array).
 */
#include "metrics/metrics.h"
#include "base/sort.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	struct metrics m, med[2];
	size_t n = size / 8;
	uint64_t *v, start, end;

	if (n < 3)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	memcpy(v, data, n * sizeof(*v));
	start = v[0];
	end = v[1];
	opts.stall_ms = (double)(v[2] & 0xffffffff) / 1000.0;
	opts.pct = (v[2] >> 32) & 1 ? PCT_LINEAR : PCT_NEAREST_RANK;
	metrics_compute(v + 3, n - 3, start, end, &opts, &m);
	qsort(v + 3, n - 3, sizeof(*v), cmp_u64);
	if (metrics_compute(v + 3, n - 3, start, end, &opts, &m) == 0) {
		med[0] = m;
		med[1] = m;
		metrics_median(med, 2, &m);
		(void)metrics_stall_why(&m);
	}
	free(v);
	return 0;
}
