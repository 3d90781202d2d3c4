/*
 * Unit tests register themselves: each file ends its suite factory with
 * TEST_SUITE(name), and tests/unit/main.c runs every registered suite.
 * No hand-kept list. Fixture paths come from the environment tests/run.sh
 * sets: HB_TESTDATA (../shared/testdata), HB_FIXTURES (tests/fixtures),
 * HB_SRCDIR (the checkout).
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

#define TEST_SUITE(fn)                                                   \
	static Suite *fn(void);                                          \
	__attribute__((constructor)) static void register_##fn(void)     \
	{                                                                \
		test_register(fn);                                       \
	}                                                                \
	static Suite *fn(void)

#endif
