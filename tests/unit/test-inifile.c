/*
 * The INI adapter (common/text/inifile.h) under every INI reader: what a format's
 * callbacks are given (section, key, value, line) from texts with a BOM,
 * CRLF, comments, indented and long lines, and the errors it reports, each
 * with its line: a NUL byte, a line without '=', a bad section header, a
 * callback's own, the first of several, a missing file.
 */
#include "text/inifile.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the callbacks saw, one "LINE:..." a call; a key named "bad" fails
 * with its value, and a section named "late" makes the end fail. */
struct transcript {
	struct strbuf log;
	bool late;
};

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct transcript *t = user;

	strbuf_addf(&t->log, "%d:[%s]\n", ini_line(ini), name);
	t->late |= !strcmp(name, "late");
	return 0;
}

static int on_key(struct ini *ini, void *user, const char *section, const char *key,
		  const char *value)
{
	struct transcript *t = user;

	if (!strcmp(key, "bad"))
		return ini_fail(ini, "bad says '%s'", value);
	strbuf_addf(&t->log, "%d:%s:%s=%s\n", ini_line(ini), section ? section : "-", key, value);
	return 0;
}

static int on_end(struct ini *ini, void *user)
{
	struct transcript *t = user;

	if (t->late)
		return ini_fail_at(ini, 0, "[late] is wrong after %d lines", ini_line(ini));
	return 0;
}

static const struct ini_format test_format = {
	.what = "a test file",
	.expected = "expected 'key = value' or '[section]'",
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

/* Parses text as fmt; its transcript or its error message (static). */
static const char *parse_as(const struct ini_format *fmt, const char *text, size_t len, int want)
{
	static struct strbuf out = STRBUF_INIT;
	struct transcript t = { STRBUF_INIT, false };
	struct strbuf err = STRBUF_INIT;
	int e = ini_parse_text(fmt, text, len, "t.ini", &t, &err);

	ck_assert_msg(e == want, "parse gave %d, not %d: %s", e, want, err.buf ? err.buf : "");
	strbuf_reset(&out);
	strbuf_addstr(&out, e == 0 ? (t.log.buf ? t.log.buf : "") : err.buf);
	strbuf_release(&t.log);
	strbuf_release(&err);
	return out.buf;
}

static const char *parse(const char *text, int want)
{
	return parse_as(&test_format, text, strlen(text), want);
}

START_TEST(syntax)
{
	/* a BOM, CRLF, comments, indented lines (no inih continuation), ':' */
	ck_assert_str_eq(parse("\xef\xbb\xbf" "top = 1\r\n"
			       "[ one ]  ; comment\r\n"
			       "  a = x y ; cut\r\n"
			       "\t# comment\r\n"
			       "; comment\r\n"
			       "\r\n"
			       "   b: 2\r\n"
			       "[two]\r\n"
			       "c =\r\n"
			       "d = e = f", 0),
			 "1:-:top=1\n2:[one]\n3:one:a=x y\n7:one:b=2\n8:[two]\n9:two:c=\n10:two:d=e = f\n");
	/* a section without keys is seen; a BOM only counts on line 1 */
	ck_assert_str_eq(parse("[a]\n[b]\n", 0), "1:[a]\n2:[b]\n");
	/* the name's blanks are all isspace() ones, as a recipe's always were */
	ck_assert_str_eq(parse("[\vrecipe\f]\n", 0), "1:[recipe]\n");
	ck_assert_str_eq(parse("x = 1\n\xef\xbb\xbfy = 2\n", 0), "1:-:x=1\n2:-:\xef\xbb\xbfy=2\n");
	ck_assert_str_eq(parse("", 0), "");
}
END_TEST

START_TEST(long_lines)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
	static const struct ini_format short_lines = {
		.what = "a short file",
		.expected = "expected 'key = value'",
		.max_line = 10,
		.too_long_hint = "; split it",
		.key = on_key,
	};

	/* far past inih's 200-byte buffer: the value whole, its comment cut */
	strbuf_addstr(&text, "[s]\nlong = ");
	strbuf_addstr(&want, "1:[s]\n2:s:long=");
	for (int i = 0; i < 500; i++) {
		strbuf_addstr(&text, "ab");
		strbuf_addstr(&want, "ab");
	}
	strbuf_addstr(&text, "   ; comment  \nafter = 1\n");
	strbuf_addstr(&want, "\n3:s:after=1\n");
	ck_assert_str_eq(parse(text.buf, 0), want.buf);
	/* a long line without '=' is an error with its line, as a short one */
	strbuf_reset(&text);
	strbuf_addstr(&text, "[s]\n");
	for (int i = 0; i < 300; i++)
		strbuf_addch(&text, 'x');
	ck_assert_str_eq(parse(text.buf, -EINVAL), "t.ini:2: expected 'key = value' or '[section]'");
	/* a long key is refused */
	strbuf_addstr(&text, " = 1\n");
	ck_assert_str_eq(parse(text.buf, -EINVAL), "t.ini:2: line too long");
	/* a format with a limit counts the line without its leading blanks */
	ck_assert_str_eq(parse_as(&short_lines, "  k = 12345\n", 12, 0), "1:-:k=12345\n");
	ck_assert_str_eq(parse_as(&short_lines, "k = 1\nk = 1234567\n", 18, -EINVAL),
			 "t.ini:2: line too long (at most 10 characters; split it)");
	/* nor its CRLF line end: 10 characters are taken, 11 are not */
	ck_assert_str_eq(parse_as(&short_lines, "k = 123456\r\n", 12, 0), "1:-:k=123456\n");
	ck_assert_str_eq(parse_as(&short_lines, "k = 1234567\r\n", 13, -EINVAL),
			 "t.ini:1: line too long (at most 10 characters; split it)");
	strbuf_release(&text);
	strbuf_release(&want);
}
END_TEST

START_TEST(errors)
{
	static const struct ini_format no_sections = {
		.what = "a flat file",
		.expected = "expected 'key = value' only",
		.key = on_key,
	};
	static const char nul[] = "[s]\na = 1\nb = \0x\n";

	ck_assert_str_eq(parse_as(&test_format, nul, sizeof(nul) - 1, -EINVAL),
			 "t.ini:3: NUL byte in a test file");
	ck_assert_str_eq(parse("[s]\na = 1\njust words\n", -EINVAL),
			 "t.ini:3: expected 'key = value' or '[section]'");
	ck_assert_str_eq(parse("[s\n", -EINVAL), "t.ini:1: missing ']' in section header");
	ck_assert_str_eq(parse("a = 1\n[s] x\n", -EINVAL), "t.ini:2: unexpected text after section header");
	ck_assert_str_eq(parse("[s]\r\na = 1\r\nbad = it\r\n", -EINVAL), "t.ini:3: bad says 'it'");
	/* the first error wins, inih's own or a callback's */
	ck_assert_str_eq(parse("words\nbad = 1\n", -EINVAL),
			 "t.ini:1: expected 'key = value' or '[section]'");
	ck_assert_str_eq(parse("bad = 1\nwords\n", -EINVAL), "t.ini:1: bad says '1'");
	ck_assert_str_eq(parse("bad = 1\nbad = 2\n", -EINVAL), "t.ini:1: bad says '1'");
	/* an error of the whole file names no line; it needs a clean file */
	ck_assert_str_eq(parse("[late]\na = 1\n", -EINVAL), "t.ini: [late] is wrong after 2 lines");
	ck_assert_str_eq(parse("[late]\nbad = x\n", -EINVAL), "t.ini:2: bad says 'x'");
	/* a format without sections takes a header as a bad line */
	ck_assert_str_eq(parse_as(&no_sections, "a = 1\n[s]\n", 10, -EINVAL),
			 "t.ini:2: expected 'key = value' only");
}
END_TEST

START_TEST(files)
{
	char *dir = test_tmpdir(), *good, *nul, *missing, *text = NULL;
	struct transcript t = { STRBUF_INIT, false };
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	size_t len;

	good = xasprintf("%s/good.ini", dir);
	nul = xasprintf("%s/nul.ini", dir);
	missing = xasprintf("%s/missing.ini", dir);
	test_put(dir, "good.ini", "[s]\na = 1\n");
	ck_assert_int_eq(write_file_atomic(nul, "a = 1\n\nb\0\n", 10, 0644), 0);

	ck_assert_int_eq(ini_load(&test_format, good, &t, &err), 0);
	ck_assert_str_eq(t.log.buf, "1:[s]\n2:s:a=1\n");
	ck_assert_ptr_null(err.buf);

	ck_assert_int_eq(ini_load(&test_format, nul, &t, &err), -EINVAL);
	strbuf_addf(&want, "%s:3: NUL byte in a test file", nul);
	ck_assert_str_eq(err.buf, want.buf);

	strbuf_reset(&err);
	strbuf_reset(&want);
	ck_assert_int_eq(ini_load(&test_format, missing, &t, &err), -ENOENT);
	strbuf_addf(&want, "cannot read '%s': No such file or directory", missing);
	ck_assert_str_eq(err.buf, want.buf);
	ck_assert_int_eq(ini_load(&test_format, missing, &t, NULL), -ENOENT);

	/* the reading half alone */
	strbuf_reset(&err);
	ck_assert_int_eq(ini_file_read(missing, "a list", &text, &len, &err), -ENOENT);
	ck_assert_str_eq(err.buf, want.buf);
	strbuf_reset(&err);
	ck_assert_int_eq(ini_file_read(nul, "a list", &text, &len, &err), -EINVAL);
	ck_assert(str_startswith(err.buf, nul) && !strcmp(err.buf + strlen(nul), ":3: NUL byte in a list"));
	ck_assert_int_eq(ini_file_read(good, "a list", &text, &len, NULL), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_str_eq(text, "[s]\na = 1\n");

	free(text);
	strbuf_release(&t.log);
	strbuf_release(&err);
	strbuf_release(&want);
	remove_tree(dir);
	free(good);
	free(nul);
	free(missing);
	free(dir);
}
END_TEST

TEST_SUITE(ini_suite)
{
	Suite *s = suite_create("ini");
	TCase *tc = tcase_create("ini");

	tcase_add_test(tc, syntax);
	tcase_add_test(tc, long_lines);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, files);
	suite_add_tcase(s, tc);
	return s;
}
