/*
 * Wakeup lateness, as the probe (hitchbench-waker -m probe) measures it:
 * how long after its absolute deadline a sleeping thread ran again. One
 * histogram per CPU, filled inside the probe's loop, so adding to it never
 * allocates, locks or fails; the percentiles and the worst come out of it
 * at the end.
 *
 * Bins: lateness floored to whole microseconds, one bin per microsecond
 * from 0 to LAT_BINS - 1 us (20 ms), anything later counted in overflow.
 * The worst lateness is kept exactly (ns). Percentiles are nearest-rank
 * (docs/metrics.md: rank ceil(p * N), computed in integers) over the
 * floored microseconds, so they are exact for wakeups under 20 ms; a rank
 * that falls in the overflow is only known to be 20 ms or more, and is
 * reported as that lower bound, flagged.
 */
#ifndef HB_LATENCY_H
#define HB_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAT_BIN_NS 1000ULL
#define LAT_BINS 20000

/* A bin with wakeups, in a histogram read from a file. */
struct lat_bin {
	uint32_t bin;           /* < LAT_BINS */
	uint64_t count;
};

/* The probe fills bins, all LAT_BINS of them, allocated before its loop;
 * a histogram read back from probe.txt holds only the bins the file lists
 * (sparse, bins NULL), so what it costs is what the file holds. */
struct lat_hist {
	uint64_t *bins;         /* LAT_BINS counts, or NULL: sparse */
	struct lat_bin *sparse; /* [n_sparse], ascending bins, each once */
	size_t n_sparse;
	uint64_t overflow;      /* wakeups LAT_BINS us late or later */
	uint64_t n;             /* every wakeup counted */
	uint64_t worst_ns;
	uint64_t sum_ns;
};

/* Allocates the bins (zalloc: aborts on out-of-memory). */
void lat_hist_init(struct lat_hist *h);
void lat_hist_release(struct lat_hist *h);
/* Wakeups in bin b (either layout). */
uint64_t lat_hist_bin(const struct lat_hist *h, size_t b);

/* The hot path: one wakeup late_ns late. */
static inline void lat_hist_add(struct lat_hist *h, uint64_t late_ns)
{
	uint64_t us = late_ns / LAT_BIN_NS;

	if (us < LAT_BINS)
		h->bins[us]++;
	else
		h->overflow++;
	h->n++;
	h->sum_ns += late_ns;
	if (late_ns > h->worst_ns)
		h->worst_ns = late_ns;
}

/* The nearest-rank percentile p (parts per million: 999000 = 99.9th) of
 * the lateness, whole microseconds, in *us. 0; 1 when the rank fell in the
 * overflow (*us is then LAT_BINS, a lower bound: the wakeup was at least
 * that late, at most the worst); -ENODATA with no wakeup. */
int lat_hist_percentile(const struct lat_hist *h, uint32_t ppm, uint64_t *us);

/* The 1-based nearest rank of p (ppm) among n values: ceil(n * p / 1e6),
 * at least 1. */
uint64_t lat_nearest_rank(uint64_t n, uint32_t ppm);

#endif
