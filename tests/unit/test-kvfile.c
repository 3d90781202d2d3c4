/*
 * common/text/kvfile.c: bench.txt and result.txt survive a format/parse round
 * trip whatever their values hold, and a broken line is reported by the
 * number a person sees in an editor.
 */
#include "text/kvfile.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

START_TEST(round_trip)
{
	static const char *const values[] = {
		"plain",
		"",
		"two\nlines",
		"back\\slash",
		"\\n is not a newline",
		"trailing backslash\\",
		"\n\n",
		"a=b=c",
		"# not a comment",
		" blanks kept ",
		"tab\there",
		"cr\rin the middle",
		"ünïcödé",
	};
	static const char *const repeats[] = { "key", NULL };
	struct kvfile kf, back;
	char *text, *again;
	size_t lines = 0;
	int line = -1;

	kvfile_init(&kf);
	kvfile_init_repeats(&back, repeats);
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		kvfile_addf(&kf, "key", "%s", values[i]);
	kvfile_add(&kf, "dotted.key-9_x", NULL);
	text = kvfile_format(&kf);
	/* one line per pair: every newline in a value was escaped */
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, kf.n);

	ck_assert_int_eq(kvfile_parse(&back, text, &line), 0);
	ck_assert_uint_eq(back.n, kf.n);
	for (size_t i = 0; i < kf.n; i++) {
		ck_assert_str_eq(back.items[i].key, kf.items[i].key);
		ck_assert_str_eq(back.items[i].value, kf.items[i].value);
		ck_assert_int_eq(back.items[i].line, (int)i + 1);
	}
	ck_assert_str_eq(back.items[kf.n - 1].value, "");
	again = kvfile_format(&back);
	ck_assert_str_eq(again, text);
	free(text);
	free(again);
	kvfile_release(&kf);
	kvfile_release(&back);
}
END_TEST

START_TEST(escapes_on_disk)
{
	struct kvfile kf;
	char *text;

	kvfile_init(&kf);
	kvfile_add(&kf, "status", "crashed:\nsee log\\err");
	text = kvfile_format(&kf);
	ck_assert_str_eq(text, "status=crashed:\\nsee log\\\\err\n");
	free(text);
	kvfile_release(&kf);
}
END_TEST

/* A value ending in a carriage return (a game's last output line, say)
 * must come back as it went in: the parser strips one '\r' before '\n'
 * for CRLF files, so the formatter has to keep such a '\r' from ending a
 * line. */
START_TEST(round_trip_trailing_cr)
{
	struct kvfile kf, back;
	char *text;

	kvfile_init(&kf);
	kvfile_init(&back);
	kvfile_add(&kf, "status", "killed\r");
	text = kvfile_format(&kf);
	ck_assert_int_eq(kvfile_parse(&back, text, NULL), 0);
	ck_assert_uint_eq(back.n, 1);
	ck_assert_str_eq(back.items[0].value, "killed\r");
	free(text);
	kvfile_release(&kf);
	kvfile_release(&back);
}
END_TEST

START_TEST(comments_blank_crlf)
{
	const char *text =
		"# bench.txt written by hand\r\n"
		"\r\n"
		"format=1\r\n"
		"\n"
		"#key=not a pair\n"
		"game=doom\r\n"
		"empty=\n"
		"last=no newline at the end";
	struct kvfile kf;
	int line = -1;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, text, &line), 0);
	ck_assert_uint_eq(kf.n, 4);
	ck_assert_str_eq(kf.items[0].key, "format");
	ck_assert_str_eq(kf.items[0].value, "1");
	ck_assert_int_eq(kf.items[0].line, 3);
	ck_assert_str_eq(kf.items[1].key, "game");
	ck_assert_str_eq(kf.items[1].value, "doom");
	ck_assert_int_eq(kf.items[1].line, 6);
	ck_assert_str_eq(kf.items[2].value, "");
	ck_assert_str_eq(kf.items[3].value, "no newline at the end");
	ck_assert_int_eq(kf.items[3].line, 8);
	ck_assert_ptr_null(kvfile_get(&kf, "#key"));
	kvfile_release(&kf);

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "", &line), 0);
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
}
END_TEST

static void expect_bad(const char *text, int want_line)
{
	struct kvfile kf;
	int line = -1;

	kvfile_init(&kf);
	ck_assert_msg(kvfile_parse(&kf, text, &line) == -EINVAL, "accepted: %s", text);
	ck_assert_msg(line == want_line, "line %d, want %d for: %s", line, want_line, text);
	kvfile_release(&kf);
}

START_TEST(bad_lines)
{
	struct kvfile kf;

	/* no '=': the line number counts comments and blank lines */
	expect_bad("# c\n\nformat=1\r\nno equals sign\nx=1\n", 4);
	expect_bad("just text", 1);
	/* keys are [A-Za-z0-9_.-]+ */
	expect_bad("a=1\n=value\n", 2);
	expect_bad("a b=1\n", 1);
	expect_bad(" a=1\n", 1);
	expect_bad("a=1\nb\t=2\n", 2);
	expect_bad("k/e/y=1\n", 1);
	expect_bad("ключ=1\n", 1);
	/* escapes: only \n and \\ exist */
	expect_bad("a=1\nb=\\t\n", 2);
	expect_bad("a=trailing\\\n", 1);
	expect_bad("a=trailing\\", 1);
	/* the error line pointer may be NULL */
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "nope\n", NULL), -EINVAL);
	kvfile_release(&kf);
}
END_TEST

/* docs/formats.md: a key appears once unless the format says it repeats.
 * The attack it stops: a second window_start_ns= before the real one made
 * the report measure another window, without a word. */
START_TEST(repeated_key)
{
	static const char *const repeats[] = { "env", "flip", NULL };
	struct kvfile kf;
	const char *why = NULL;
	const char *text = "format=1\nwindow_start_ns=5\n# c\nwindow_start_ns=7\nz=1\n";
	int line = -1;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse_len(&kf, text, strlen(text), &line, &why), -EINVAL);
	ck_assert_int_eq(line, 4);
	ck_assert_str_eq(why, "key 'window_start_ns' repeats line 2");
	/* the pairs before the bad line stay */
	ck_assert_uint_eq(kf.n, 2);
	kvfile_release(&kf);

	/* the first repeat in the file is the one said, whichever key */
	kvfile_init(&kf);
	text = "b=1\na=1\nc=1\na=2\nb=2\n";
	ck_assert_int_eq(kvfile_parse_len(&kf, text, strlen(text), &line, &why), -EINVAL);
	ck_assert_int_eq(line, 4);
	ck_assert_str_eq(why, "key 'a' repeats line 2");
	kvfile_release(&kf);

	/* a key the format lets repeat; kept across release */
	kvfile_init_repeats(&kf, repeats);
	text = "env=A=1\nflip=1\nenv=B=2\nflip=2\nenv=A=1\n";
	ck_assert_int_eq(kvfile_parse(&kf, text, &line), 0);
	ck_assert_uint_eq(kf.n, 5);
	kvfile_release(&kf);
	ck_assert_ptr_eq(kf.repeats, repeats);
	ck_assert_int_eq(kvfile_parse(&kf, "env=1\nformat=1\nformat=1\n", &line), -EINVAL);
	ck_assert_int_eq(line, 3);
	kvfile_release(&kf);

	/* a second parse into the same pairs: a key already there repeats */
	kvfile_init(&kf);
	kvfile_add(&kf, "status", "ok");
	ck_assert_int_eq(kvfile_parse_len(&kf, "status=killed\n", 14, &line, &why), -EINVAL);
	ck_assert_int_eq(line, 1);
	ck_assert_str_eq(why, "key 'status' repeats");
	ck_assert_uint_eq(kf.n, 1);
	kvfile_release(&kf);
}
END_TEST

/* The message a command prints: file:line. */
START_TEST(repeated_key_load)
{
	char *dir = test_tmpdir(), *path = xasprintf("%s/ab.txt", dir);
	struct strbuf err = STRBUF_INIT;
	struct kvfile kf;

	ck_assert_int_eq(write_file_atomic(path, "format=1\nk=1\nformat=2\n", 22, 0644), 0);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_load(&kf, path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "/ab.txt:3: key 'format' repeats line 1"));
	kvfile_release(&kf);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(path);
}
END_TEST

/* Keys are checked on write: a file that would not read back is never
 * written. */
START_TEST(write_refuses_repeat)
{
	static const char *const repeats[] = { "env", NULL };
	char *dir = test_tmpdir(), *path = xasprintf("%s/bench.txt", dir);
	struct kvfile kf;

	kvfile_init(&kf);
	kvfile_add(&kf, "format", "1");
	kvfile_add(&kf, "env", "A=1");
	kvfile_add(&kf, "env", "B=1");
	ck_assert_int_eq(kvfile_write(&kf, path), -EINVAL);
	ck_assert_int_eq(access(path, F_OK), -1);
	kf.repeats = repeats;
	ck_assert_int_eq(kvfile_write(&kf, path), 0);
	kvfile_add(&kf, "format", "2");
	ck_assert_int_eq(kvfile_write(&kf, path), -EINVAL);
	kvfile_release(&kf);
	remove_tree(dir);
	free(dir);
	free(path);
}
END_TEST

/* A key from outside data must be checked by the caller: one that is not
 * valid is a bug, never a file that does not parse. */
START_TEST(add_invalid_key_aborts)
{
	struct kvfile kf;

	kvfile_init(&kf);
	kvfile_add(&kf, "kworker/0:1", "x");
}
END_TEST

START_TEST(addf_invalid_key_aborts)
{
	struct kvfile kf;

	kvfile_init(&kf);
	kvfile_addf(&kf, "daemon.a=b", "%d", 1);
}
END_TEST

START_TEST(valid_key)
{
	ck_assert(kvfile_valid_key("window_start_ns"));
	ck_assert(kvfile_valid_key("package.dsda-doom"));
	ck_assert(kvfile_valid_key("A9"));
	ck_assert(!kvfile_valid_key(""));
	ck_assert(!kvfile_valid_key("a b"));
	ck_assert(!kvfile_valid_key("a=b"));
	ck_assert(!kvfile_valid_key("a\n"));
}
END_TEST

START_TEST(set_and_get)
{
	struct kvfile kf;

	static const char *const repeats[] = { "a", "n", NULL };

	kvfile_init_repeats(&kf, repeats);
	ck_assert_ptr_null(kvfile_get(&kf, "a"));
	kvfile_add(&kf, "a", "first");
	kvfile_add(&kf, "b", "x");
	kvfile_add(&kf, "a", "second");
	ck_assert_str_eq(kvfile_get(&kf, "a"), "first");
	ck_assert_ptr_null(kvfile_get(&kf, "A")); /* keys are case-sensitive */

	kvfile_set(&kf, "a", "replaced");
	ck_assert_uint_eq(kf.n, 3);
	ck_assert_str_eq(kf.items[0].value, "replaced");
	ck_assert_str_eq(kf.items[2].value, "second");

	kvfile_set(&kf, "c", "appended");
	ck_assert_uint_eq(kf.n, 4);
	ck_assert_str_eq(kf.items[3].key, "c");
	ck_assert_str_eq(kvfile_get(&kf, "c"), "appended");
	kvfile_set(&kf, "c", NULL);
	ck_assert_str_eq(kvfile_get(&kf, "c"), "");

	/* many pairs: the array grows */
	for (int i = 0; i < 1000; i++)
		kvfile_addf(&kf, "n", "%d", i);
	ck_assert_uint_eq(kf.n, 1004);
	ck_assert_str_eq(kf.items[1003].value, "999");
	ck_assert_str_eq(kvfile_get(&kf, "n"), "0");
	kvfile_release(&kf);
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
}
END_TEST

START_TEST(empty_format)
{
	struct kvfile kf;
	char *text;

	kvfile_init(&kf);
	text = kvfile_format(&kf);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

START_TEST(file_read_write)
{
	char *dir = test_tmpdir();
	char *path = xasprintf("%s/bench.txt", dir);
	char *missing = xasprintf("%s/missing.txt", dir);
	struct kvfile kf, back;
	int line = 0;

	kvfile_init(&kf);
	kvfile_init(&back);
	kvfile_add(&kf, "format", "1");
	kvfile_add(&kf, "command", "dsda-doom -iwad 'free doom2.wad'\n-fast");
	ck_assert_int_eq(kvfile_write(&kf, path), 0);
	ck_assert_int_eq(kvfile_read(&back, path, &line), 0);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_str_eq(kvfile_get(&back, "command"), "dsda-doom -iwad 'free doom2.wad'\n-fast");
	ck_assert_int_eq(kvfile_read(&back, missing, &line), -ENOENT);
	ck_assert_uint_eq(back.n, 2);

	ck_assert_int_eq(write_file_atomic(path, "a=1\nb=2\noops\n", 13, 0644), 0);
	kvfile_release(&back);
	ck_assert_int_eq(kvfile_read(&back, path, &line), -EINVAL);
	ck_assert_int_eq(line, 3);

	kvfile_release(&kf);
	kvfile_release(&back);
	remove_tree(dir);
	free(dir);
	free(path);
	free(missing);
}
END_TEST

TEST_SUITE(kvfile_suite)
{
	Suite *s = suite_create("kvfile");
	TCase *tc = tcase_create("kvfile");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, escapes_on_disk);
	tcase_add_test(tc, round_trip_trailing_cr);
	tcase_add_test(tc, comments_blank_crlf);
	tcase_add_test(tc, bad_lines);
	tcase_add_test(tc, repeated_key);
	tcase_add_test(tc, repeated_key_load);
	tcase_add_test(tc, write_refuses_repeat);
	tcase_add_test_raise_signal(tc, add_invalid_key_aborts, SIGABRT);
	tcase_add_test_raise_signal(tc, addf_invalid_key_aborts, SIGABRT);
	tcase_add_test(tc, valid_key);
	tcase_add_test(tc, set_and_get);
	tcase_add_test(tc, empty_format);
	tcase_add_test(tc, file_read_write);
	suite_add_tcase(s, tc);
	return s;
}
