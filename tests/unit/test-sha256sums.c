/*
 * common/formats/sha256sums.c: a directory's list written and checked back, and
 * each thing a check must catch in a copy: a file changed, a file gone, a
 * file that is not listed, a list that does not parse; a batch's list of
 * its runs' lists checked through; the parser's refusals and sha256sum's
 * escapes; and a recorded run whose list does not match is invalid
 * (run integrity), for the reason the list gives.
 */
#include "run/run.h"
#include "formats/sha256sums.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-256("abc"), FIPS 180-2 appendix B.1 */
#define ABC_HEX "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

/* A run directory as the runner leaves it, small. */
static char *make_run(const char *root, const char *name)
{
	char *dir = xasprintf("%s/%s", root, name);
	char *rel = xasprintf("%s/bench.txt", name);

	test_put(root, rel, "format=1\nstatus=ok\n");
	free(rel);
	rel = xasprintf("%s/frames.bin", name);
	test_put(root, rel, "abc");
	free(rel);
	rel = xasprintf("%s/home/.config/game/game.cfg", name);
	test_put(root, rel, "fullscreen 0\n");
	free(rel);
	return dir;
}

static char *list_text(const char *dir)
{
	char *path = xasprintf("%s/SHA256SUMS", dir), *text;

	ck_assert_int_eq(read_file(path, &text, NULL), 0);
	free(path);
	return text;
}

static void rm_rel(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);

	ck_assert_int_eq(remove_tree(path), 0);
	free(path);
}

/* verify's result and its reason */
static void expect(const char *dir, int want, const char *why_want)
{
	struct strbuf why = STRBUF_INIT;
	int r = sha256sums_verify(dir, &why);

	ck_assert_msg(r == want, "verify %s: %d (%s), wanted %d", dir, r, why.buf ? why.buf : "", want);
	ck_assert_str_eq(why.buf ? why.buf : "", why_want);
	strbuf_release(&why);
}

START_TEST(write_and_verify)
{
	char *root = test_tmpdir(), *dir = make_run(root, "run"), *text, *link;

	link = xasprintf("%s/home/cfg-link", dir);
	ck_assert_int_eq(symlink(".config/game/game.cfg", link), 0);
	ck_assert_int_eq(sha256sums_write(dir, NULL), 0);
	text = list_text(dir);
	/* sorted by path, the symlink and the list itself left out */
	ck_assert_str_eq(text,
			 "e9982c774dc63b2b76de3b37a4c1c9c70a0394b8e23c670d95734e0f74a656d1  bench.txt\n"
			 ABC_HEX "  frames.bin\n"
			 "b93a5b4ae46f6b62f862b89a4769a7716d8bc9cb055a7f26206ed52b7ab9b716  "
			 "home/.config/game/game.cfg\n");
	free(text);
	expect(dir, 0, "");
	free(link);
	free(dir);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(tampered_missing_extra)
{
	char *root = test_tmpdir(), *dir = make_run(root, "run");

	ck_assert_int_eq(sha256sums_write(dir, NULL), 0);
	test_put(dir, "frames.bin", "abd");
	expect(dir, 1, "frames.bin: checksum mismatch");
	test_put(dir, "frames.bin", "abc");
	expect(dir, 0, "");

	test_put(dir, "stray.txt", "left by someone\n");
	expect(dir, 1, "stray.txt: not listed");
	test_put(dir, "home/new/deep.sav", "x");
	rm_rel(dir, "stray.txt");
	expect(dir, 1, "home/new/deep.sav: not listed");
	rm_rel(dir, "home/new");

	rm_rel(dir, "home/.config/game/game.cfg");
	expect(dir, 1, "home/.config/game/game.cfg: missing");
	/* a directory where the file was is not the file */
	test_put(dir, "home/.config/game/game.cfg/inside", "");
	expect(dir, 1, "home/.config/game/game.cfg: not a regular file");

	rm_rel(dir, "SHA256SUMS");
	expect(dir, 1, "SHA256SUMS: missing");
	free(dir);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(malformed_line)
{
	char *root = test_tmpdir(), *dir = make_run(root, "run");

	ck_assert_int_eq(sha256sums_write(dir, NULL), 0);
	test_put(dir, "SHA256SUMS", ABC_HEX "  frames.bin\n" ABC_HEX " bench.txt\n");
	expect(dir, -EINVAL, "SHA256SUMS:2: expected 'HEX  PATH' (64 hex digits, two spaces or ' *', a path)");
	test_put(dir, "SHA256SUMS", ABC_HEX "  ../outside\n");
	expect(dir, -EINVAL, "SHA256SUMS:1: a '.' or '..' path component");
	free(dir);
	remove_tree(root);
	free(root);
}
END_TEST

/* A batch: its own files and each run's list; a run's file checked
 * through its run's list, named from the batch. */
START_TEST(nested_lists)
{
	char *root = test_tmpdir(), *a = make_run(root, "r1"), *b = make_run(root, "r2");
	const char *only[] = { "batch.txt", "r1/SHA256SUMS", "r2/SHA256SUMS", NULL };

	test_put(root, "batch.txt", "format=1\n");
	ck_assert_int_eq(sha256sums_write(a, NULL), 0);
	ck_assert_int_eq(sha256sums_write(b, NULL), 0);
	ck_assert_int_eq(sha256sums_write(root, only), 0);
	expect(root, 0, "");

	test_put(b, "bench.txt", "format=1\nstatus=failed\n");
	expect(root, 1, "r2/bench.txt: checksum mismatch");
	test_put(b, "bench.txt", "format=1\nstatus=ok\n");
	test_put(a, "extra.log", "");
	expect(root, 1, "r1/extra.log: not listed");
	rm_rel(a, "extra.log");

	/* a run's list changed with its files: the batch's list still knows */
	test_put(b, "frames.bin", "xyz");
	ck_assert_int_eq(sha256sums_write(b, NULL), 0);
	expect(b, 0, "");
	expect(root, 1, "r2/SHA256SUMS: checksum mismatch");

	/* an unfinished run's directory is not part of the batch */
	test_put(root, ".r3.tmp/bench.txt", "format=1\n");
	ck_assert_int_eq(sha256sums_write(b, NULL), 0);
	ck_assert_int_eq(sha256sums_write(root, only), 0);
	expect(root, 1, ".r3.tmp/bench.txt: not listed");
	free(a);
	free(b);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(escaped_names)
{
	char *root = test_tmpdir(), *text;
	struct sha256sums s;
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;

	test_put(root, "a\nb", "abc");
	test_put(root, "c\\d", "abc");
	test_put(root, "e\rf", "abc");
	test_put(root, "g h", "abc");
	ck_assert_int_eq(sha256sums_write(root, NULL), 0);
	text = list_text(root);
	/* as sha256sum (coreutils 9.1) writes them */
	ck_assert_str_eq(text, "\\" ABC_HEX "  a\\nb\n"
			       "\\" ABC_HEX "  c\\\\d\n"
			       "\\" ABC_HEX "  e\\rf\n" ABC_HEX "  g h\n");
	ck_assert_int_eq(sha256sums_parse(text, strlen(text), &s, &why), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_str_eq(s.v[0].path, "a\nb");
	ck_assert_str_eq(s.v[1].path, "c\\d");
	ck_assert_str_eq(s.v[2].path, "e\rf");
	sha256sums_format(&s, &out);
	ck_assert_str_eq(out.buf, text);
	sha256sums_release(&s);
	expect(root, 0, "");
	strbuf_release(&why);
	strbuf_release(&out);
	free(text);
	remove_tree(root);
	free(root);
}
END_TEST

/* len 0: strlen(text) */
static void refused(const char *text, size_t len, const char *why_want)
{
	struct strbuf why = STRBUF_INIT;
	struct sha256sums s;

	if (len == 0)
		len = strlen(text);
	ck_assert_int_eq(sha256sums_parse(text, len, &s, &why), -EINVAL);
	ck_assert_str_eq(why.buf, why_want);
	ck_assert_uint_eq(s.n, 0);
	strbuf_release(&why);
}

START_TEST(parse_refusals)
{
	static const char format[] = "expected 'HEX  PATH' (64 hex digits, two spaces or ' *', a path)";
	struct strbuf why = STRBUF_INIT, f = STRBUF_INIT;
	const char *ok = ABC_HEX "  x\n" ABC_HEX " *y";
	struct sha256sums s;
	char line3[256];

	/* binary mode, upper case and no last line break are sha256sum's too */
	ck_assert_int_eq(sha256sums_parse(ok, strlen(ok), &s, &why), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.v[1].path, "y");
	sha256sums_release(&s);
	ck_assert_int_eq(sha256sums_parse("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD  z\n",
					  68, &s, &why), 0);
	ck_assert_str_eq(s.v[0].hex, ABC_HEX);
	sha256sums_release(&s);
	ck_assert_int_eq(sha256sums_parse("", 0, &s, &why), 0);
	ck_assert_uint_eq(s.n, 0);

	refused("\n", 0, "1: expected 'HEX  PATH' (64 hex digits, two spaces or ' *', a path)");
	snprintf(line3, sizeof(line3), "%s  a\n%s  b\n%.63s  c\n", ABC_HEX, ABC_HEX, ABC_HEX);
	strbuf_addf(&f, "3: %s", format);
	refused(line3, 0, f.buf);
	refused(ABC_HEX "  \n", 0, "1: an empty path");
	refused(ABC_HEX "  /etc/passwd\n", 0, "1: an absolute path");
	refused(ABC_HEX "  a//b\n", 0, "1: an empty path component");
	refused(ABC_HEX "  a/\n", 0, "1: an empty path component");
	refused(ABC_HEX "  ./a\n", 0, "1: a '.' or '..' path component");
	refused("\\" ABC_HEX "  a\\tb\n", 0, "1: a backslash in the path that is not \\\\, \\n or \\r");
	refused(ABC_HEX "  a\n" ABC_HEX "  b\n" ABC_HEX "  a\n", 0,
		"3: 'a' listed twice (also on line 1)");
	refused(ABC_HEX "  a\n" ABC_HEX "  b\0\n", 2 * 68, "2: NUL byte");
	strbuf_release(&why);
	strbuf_release(&f);
}
END_TEST

/* The run's status after run_validate() and the reason, "" when valid. */
static void expect_run(const char *dir, const char *status, const char *invalid)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;

	ck_assert_msg(run_load(dir, &run, &err) == 0, "run_load: %s", err.buf);
	run_validate(&run, NULL);
	ck_assert_str_eq(run.status, status);
	ck_assert_str_eq(run.invalid ? run.invalid : "", invalid);
	run_release(&run);
	strbuf_release(&err);
}

START_TEST(run_integrity)
{
	static const char *const files[] = { "bench.txt", "frames.bin", "game.log", "prepare.log",
					     "result.txt", "xserver.log" };
	char *root = test_tmpdir(), *dir = xasprintf("%s/20261130T120707Z-dsda-doom-software", root);

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("runs/20261130T120707Z-dsda-doom-software/%s", files[i]);
		char *to = xasprintf("%s/%s", dir, files[i]);

		ck_assert_int_eq(copy_file(fixture_path(from), to, 0644), 0);
		free(from);
		free(to);
	}
	/* without a list: nothing to check */
	expect_run(dir, "ok", "");
	ck_assert_int_eq(sha256sums_write(dir, NULL), 0);
	expect_run(dir, "ok", "");
	test_put(dir, "game.log", "a line the game never wrote\n");
	expect_run(dir, "invalid", "SHA256SUMS does not match: game.log: checksum mismatch");
	ck_assert_int_eq(sha256sums_write(dir, NULL), 0);
	test_put(dir, "notes.txt", "mine\n");
	expect_run(dir, "invalid", "SHA256SUMS does not match: notes.txt: not listed");
	rm_rel(dir, "notes.txt");
	test_put(dir, "SHA256SUMS", "not a list\n");
	expect_run(dir, "invalid", "SHA256SUMS:1: expected 'HEX  PATH' (64 hex digits, two spaces or ' *', a path)");
	free(dir);
	remove_tree(root);
	free(root);
}
END_TEST

TEST_SUITE(sha256sums_suite)
{
	Suite *s = suite_create("sha256sums");
	TCase *tc = tcase_create("sha256sums");

	tcase_add_test(tc, write_and_verify);
	tcase_add_test(tc, tampered_missing_extra);
	tcase_add_test(tc, malformed_line);
	tcase_add_test(tc, nested_lists);
	tcase_add_test(tc, escaped_names);
	tcase_add_test(tc, parse_refusals);
	tcase_add_test(tc, run_integrity);
	suite_add_tcase(s, tc);
	return s;
}
