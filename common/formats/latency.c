/*
 * The lateness histogram and its percentiles (latency.h), shared by the
 * probe that fills it and the probe.txt reader that rebuilds it.
 */
#include "formats/latency.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lat_hist_init(struct lat_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->bins = zalloc(LAT_BINS * sizeof(*h->bins));
}

void lat_hist_release(struct lat_hist *h)
{
	free(h->bins);
	free(h->sparse);
	memset(h, 0, sizeof(*h));
}

uint64_t lat_hist_bin(const struct lat_hist *h, size_t b)
{
	size_t lo = 0, hi = h->n_sparse;

	if (h->bins)
		return b < LAT_BINS ? h->bins[b] : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->sparse[mid].bin == b)
			return h->sparse[mid].count;
		if (h->sparse[mid].bin < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

uint64_t lat_nearest_rank(uint64_t n, uint32_t ppm)
{
	/* in integers: 99.9% of 1000 is rank 999 exactly */
	uint64_t r = (n * ppm + 999999) / 1000000;

	return r ? r : 1;
}

int lat_hist_percentile(const struct lat_hist *h, uint32_t ppm, uint64_t *us)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return -ENODATA;
	rank = lat_nearest_rank(h->n, ppm);
	for (size_t i = 0, n = h->bins ? LAT_BINS : h->n_sparse; i < n; i++) {
		seen += h->bins ? h->bins[i] : h->sparse[i].count;
		if (seen >= rank) {
			*us = h->bins ? i : h->sparse[i].bin;
			return 0;
		}
	}
	*us = LAT_BINS;
	return 1;
}
