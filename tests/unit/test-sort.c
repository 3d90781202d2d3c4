/*
 * common/base/sort.c: the radix sort against qsort on the values the analysis
 * sorts (frame times near 16.7 ms, present times hours apart) and on the
 * edges of a radix sort: nothing, one value, all equal, the full 64-bit
 * range, digits every value shares, and sizes around the insertion-sort
 * cut-over.
 */
#include "base/sort.h"
#include "test.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

/* xorshift64 (Marsaglia 2003): a fixed stream for the cases below */
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sort_u64 and qsort agree on v[0..n) */
static void check_sorts(const uint64_t *v, size_t n)
{
	uint64_t *a = zalloc((n ? n : 1) * sizeof(*a));
	uint64_t *b = zalloc((n ? n : 1) * sizeof(*b));

	memcpy(a, v, n * sizeof(*a));
	memcpy(b, v, n * sizeof(*b));
	sort_u64(a, n);
	qsort(b, n, sizeof(*b), cmp_u64);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(a[i] == b[i], "n=%zu: [%zu] %llu, qsort says %llu", n, i,
			      (unsigned long long)a[i], (unsigned long long)b[i]);
	free(a);
	free(b);
}

START_TEST(frame_times)
{
	size_t n = 100000;
	uint64_t *v = zalloc(n * sizeof(*v));

	rng_state = 88172645463325252ull;
	for (size_t i = 0; i < n; i++)
		v[i] = 16000000 + rng() % 2000000 + (rng() % 500 == 0 ? rng() % 500000000 : 0);
	check_sorts(v, n);
	free(v);
}
END_TEST

START_TEST(present_times)
{
	size_t n = 50000;
	uint64_t *v = zalloc(n * sizeof(*v));
	uint64_t t = 1000000000000ull;

	/* ascending with a few swapped neighbours, as two threads stamp them */
	for (size_t i = 0; i < n; i++) {
		t += 16666667;
		v[i] = t;
	}
	for (size_t i = 1; i < n; i += 97) {
		uint64_t x = v[i];

		v[i] = v[i - 1];
		v[i - 1] = x;
	}
	check_sorts(v, n);
	free(v);
}
END_TEST

START_TEST(edges)
{
	uint64_t v[300];

	sort_u64(NULL, 0);
	v[0] = 42;
	sort_u64(v, 1);
	ck_assert_uint_eq(v[0], 42);

	for (size_t i = 0; i < 300; i++)
		v[i] = 7;
	check_sorts(v, 300);

	rng_state = 2463534242ull;
	for (size_t i = 0; i < 300; i++)
		v[i] = rng(); /* the full 64 bits: every digit sorted */
	v[5] = 0;
	v[6] = UINT64_MAX;
	check_sorts(v, 300);

	/* only the top digit differs: the lower passes are skipped */
	for (size_t i = 0; i < 300; i++)
		v[i] = (uint64_t)(300 - i) << 55 | 12345;
	check_sorts(v, 300);

	/* around the insertion-sort cut-over */
	for (size_t n = 60; n < 70; n++) {
		for (size_t i = 0; i < n; i++)
			v[i] = rng() % 1000;
		check_sorts(v, n);
	}
}
END_TEST

TEST_SUITE(sort_suite)
{
	Suite *s = suite_create("sort");
	TCase *tc = tcase_create("sort_u64");

	tcase_add_test(tc, frame_times);
	tcase_add_test(tc, present_times);
	tcase_add_test(tc, edges);
	suite_add_tcase(s, tc);
	return s;
}
