/*
 * Unit tests register themselves: each file ends its suite factory with
 * TEST_SUITE(name), and tests/unit/main.c runs every registered suite.
 * No hand-kept list. Fixture paths come from the environment tests/run.sh
 * sets, or default to the working directory's checkout (main.c makes them
 * absolute): HB_SRCDIR (the checkout), HB_FIXTURES (tests/fixtures),
 * HB_TESTDATA (tests/fixtures/testdata: real files from other projects,
 * each in its MANIFEST.md).
 *
 * A test that cannot run on this machine (no root, a kernel without the
 * call, a package not installed) says so with test_skip("why") and never
 * passes in silence: unit-tests prints "SKIP file:test: why [path:line]"
 * and tests/run.sh counts the test as skipped, not passed.
 */
#ifndef HB_TEST_H
#define HB_TEST_H

#include <check.h>

void test_register(Suite *(*make)(void));
/* $HB_FIXTURES/rel, $HB_TESTDATA/rel, $HB_SRCDIR/rel (static buffers, one each). */
const char *fixture_path(const char *rel);
const char *testdata_path(const char *rel);
const char *srcdir_path(const char *rel);
/* A new empty directory under $TMPDIR; the caller removes it. */
char *test_tmpdir(void);
/* Writes root/rel with text, making its directories (fixture trees). */
void test_put(const char *root, const char *rel, const char *text);
/* The data lines of dir/name (neither empty nor a '#' comment): how many
 * points a plot's data file holds. */
int test_data_lines(const char *dir, const char *name);

/* Notes that the running test is skipped, with the reason (once per test;
 * later calls in the same test are ignored). The test must then do no
 * more checks: test_skip() returns from the function at once; a test
 * with something to clean up calls test_skipped() and goes to its exit. */
void test_skip_note(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define test_skipped(...) test_skip_note(__FILE__, __LINE__, __VA_ARGS__)
#define test_skip(...)                        \
	do {                                  \
		test_skipped(__VA_ARGS__);    \
		return;                       \
	} while (0)

#define TEST_SUITE(fn)                                                   \
	static Suite *fn(void);                                          \
	__attribute__((constructor)) static void register_##fn(void)     \
	{                                                                \
		test_register(fn);                                       \
	}                                                                \
	static Suite *fn(void)

#endif
