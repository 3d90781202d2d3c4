/*
 * bench/runner/footprint.c: rusages summed as the runner sums the game's (CPU
 * added, the largest peak kept), the keys bench.txt gets, and VmHWM of a
 * live process (this one, after touching a known amount).
 */
#include "runner/footprint.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(sum_and_record)
{
	struct rusage a = { .ru_maxrss = 5000, .ru_utime = { 1, 250000 }, .ru_stime = { 0, 500 } };
	struct rusage b = { .ru_maxrss = 7000, .ru_utime = { 0, 100000 }, .ru_stime = { 0, 0 } };
	struct footprint f;
	struct kvfile kv;

	kvfile_init(&kv);
	footprint_init(&f);
	footprint_record(&kv, "none", &f);
	ck_assert_uint_eq(kv.n, 0); /* nothing reaped, nothing said */
	footprint_add(&f, &a);
	footprint_add(&f, &b);
	footprint_record(&kv, "game", &f);
	ck_assert_str_eq(kvfile_get(&kv, "footprint.game.maxrss_kb"), "7000");
	ck_assert_str_eq(kvfile_get(&kv, "footprint.game.cpu_ms"), "1350.5");
	ck_assert_ptr_null(kvfile_get(&kv, "footprint.game.hwm_kb"));
	footprint_record_self(&kv, "runner");
	ck_assert_ptr_nonnull(kvfile_get(&kv, "footprint.runner.maxrss_kb"));
	kvfile_release(&kv);
}
END_TEST

START_TEST(hwm_of_self)
{
	size_t n = 32u << 20;
	volatile char *p = malloc(n);
	struct footprint f;

	footprint_init(&f);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1; /* each page made resident */
	ck_assert_int_eq(footprint_read_hwm(&f, getpid()), 0);
	ck_assert_msg(f.hwm_kb >= 32 * 1024, "VmHWM %ld kB after touching 32 MiB", f.hwm_kb);
	free((void *)p);
	ck_assert_int_eq(footprint_read_hwm(&f, 0x3fffffff), -ENOENT);
}
END_TEST

TEST_SUITE(footprint_suite)
{
	Suite *s = suite_create("footprint");
	TCase *tc = tcase_create("footprint");

	tcase_add_test(tc, sum_and_record);
	tcase_add_test(tc, hwm_of_self);
	suite_add_tcase(s, tc);
	return s;
}
