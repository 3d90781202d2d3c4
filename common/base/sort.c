/*
 * Least-significant-digit radix sort of uint64_t (see sort.h), the
 * textbook counting sort per digit (Knuth, TAOCP vol. 3, 5.2.5): keys are
 * v - min, so only the digits the values' range spans are sorted (frame
 * times under a second: 3 passes of 11 bits; a run's present times, hours
 * apart: 4 or 5). One pass over the input counts every digit at once.
 */
#include "base/sort.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

#define SORT_BITS 11
#define SORT_BUCKETS (1u << SORT_BITS)
#define SORT_MAX_PASSES ((64 + SORT_BITS - 1) / SORT_BITS)
#define SORT_SMALL 64 /* below this, insertion sort */

static void insertion_sort(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

void sort_u64(uint64_t *v, size_t n)
{
	size_t (*count)[SORT_BUCKETS];
	uint64_t *tmp, *src, *dst, min, max;
	unsigned passes = 0;

	if (n < SORT_SMALL) {
		insertion_sort(v, n);
		return;
	}
	min = max = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	while (passes < SORT_MAX_PASSES && ((max - min) >> (passes * SORT_BITS)) != 0)
		passes++;
	if (passes == 0)
		return; /* all equal */

	count = zalloc(sizeof(*count) * passes);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = v[i] - min;

		for (unsigned p = 0; p < passes; p++)
			count[p][(k >> (p * SORT_BITS)) & (SORT_BUCKETS - 1)]++;
	}
	tmp = zalloc(n * sizeof(*tmp));
	src = v;
	dst = tmp;
	for (unsigned p = 0; p < passes; p++) {
		unsigned shift = p * SORT_BITS;
		uint64_t *swap;
		size_t sum = 0;

		/* a digit every value shares moves nothing: skip its pass */
		if (count[p][((src[0] - min) >> shift) & (SORT_BUCKETS - 1)] == n)
			continue;
		for (unsigned b = 0; b < SORT_BUCKETS; b++) {
			size_t c = count[p][b];

			count[p][b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[p][((src[i] - min) >> shift) & (SORT_BUCKETS - 1)]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(count);
}
