/*
 * bench/quiet/banner.c: the BENCHMARK RUNNING screen says what runs, since when,
 * and that input spoils the run; it is written to the VT's device under
 * the swappable root (a plain file in a fixture tree, so no test here
 * switches a real screen); a root without a console has no VT to use.
 * Switching VTs itself needs a console and is not tested here.
 */
#include "quiet/banner.h"
#include "system/fsroot.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

START_TEST(text)
{
	char *t = banner_text("dsda-doom software@cpu1, round 2/3", 1796040000);

	ck_assert_ptr_nonnull(strstr(t, "BENCHMARK RUNNING"));
	ck_assert_ptr_nonnull(strstr(t, "what:  dsda-doom software@cpu1, round 2/3\n"));
	ck_assert_ptr_nonnull(strstr(t, "since: 2026-11-30T"));
	ck_assert_ptr_nonnull(strstr(t, "any input makes the run invalid"));
	free(t);
	t = banner_text(NULL, 0);
	ck_assert_ptr_nonnull(strstr(t, "what:  a hitchbench session\n"));
	free(t);
}
END_TEST

START_TEST(write_under_root)
{
	char *root = test_tmpdir(), *dev = xasprintf("%s/dev", root), *tty = xasprintf("%s/tty8", dev);
	char *text = NULL, *want = banner_text("x", 0);
	int vt;

	ck_assert_int_eq(mkdir_p(dev, 0755), 0);
	ck_assert_int_eq(write_file_atomic(tty, "", 0, 0600), 0);
	fsroot_set(root);
	ck_assert_int_eq(banner_write(8, "x", 0), 0);
	/* no tty0 in the tree: no console, no VT to switch to */
	ck_assert_int_lt(vt_active(&vt), 0);
	/* nor a tty9 */
	ck_assert_int_eq(banner_write(9, "x", 0), -ENOENT);
	fsroot_set(NULL);
	ck_assert_int_eq(read_file(tty, &text, NULL), 0);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);
	remove_tree(root);
	free(root);
	free(dev);
	free(tty);
}
END_TEST

TEST_SUITE(banner_suite)
{
	Suite *s = suite_create("banner");
	TCase *tc = tcase_create("banner");

	tcase_add_test(tc, text);
	tcase_add_test(tc, write_under_root);
	suite_add_tcase(s, tc);
	return s;
}
