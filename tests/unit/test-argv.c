/*
 * common/text/argv.c: a recipe's command line splits into the words a POSIX
 * shell would give (without any expansion), and argv_join quotes words so
 * that splitting the line again gives them back, exactly.
 */
#include "text/argv.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Splits s and checks the words against want (NULL-terminated). */
static void expect_words(const char *s, const char *const *want)
{
	struct argv_list a;
	const char *why = NULL;
	size_t n = 0;

	argv_init(&a);
	ck_assert_msg(argv_split(&a, s, &why) == 0, "[%s]: %s", s, why);
	while (want[n])
		n++;
	ck_assert_msg(a.n == n, "[%s]: %zu words, want %zu", s, a.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strcmp(a.v[i], want[i]) == 0, "[%s] word %zu: [%s], want [%s]", s, i,
			      a.v[i], want[i]);
	ck_assert_ptr_null(a.v[n]);
	argv_release(&a);
}

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

START_TEST(split_blanks)
{
	expect_words("dsda-doom -iwad freedoom2.wad", WORDS("dsda-doom", "-iwad", "freedoom2.wad"));
	expect_words("  lead\t\ttabs  and\nnewline  ", WORDS("lead", "tabs", "and", "newline"));
	expect_words("", (const char *const[]){ NULL });
	expect_words(" \t ", (const char *const[]){ NULL });
}
END_TEST

START_TEST(split_quotes)
{
	/* single quotes: everything literal, backslash and $ included */
	expect_words("echo 'a  b' '$HOME' 'back\\slash'", WORDS("echo", "a  b", "$HOME", "back\\slash"));
	/* double quotes: \" \\ \$ are escapes, any other backslash stays */
	expect_words("\"say \\\"hi\\\"\" \"a\\\\b\" \"\\$x\" \"\\n\"",
		     WORDS("say \"hi\"", "a\\b", "$x", "\\n"));
	/* quotes join with their neighbours into one word */
	expect_words("--name='Big Game'\"!\"x", WORDS("--name=Big Game!x"));
	expect_words("'it'\\''s'", WORDS("it's"));
	expect_words("\"it's\" 'say \"x\"'", WORDS("it's", "say \"x\""));
	/* a quoted tab or newline is part of the word */
	expect_words("'a\tb' \"c\nd\"", WORDS("a\tb", "c\nd"));
}
END_TEST

START_TEST(split_empty_words)
{
	expect_words("''", WORDS(""));
	expect_words("\"\"", WORDS(""));
	expect_words("a '' b", WORDS("a", "", "b"));
	expect_words("a \"\" ''", WORDS("a", "", ""));
	expect_words("x''", WORDS("x"));
}
END_TEST

START_TEST(split_backslash)
{
	expect_words("a\\ b c", WORDS("a b", "c"));
	expect_words("\\'quoted\\'", WORDS("'quoted'"));
	expect_words("\\\\", WORDS("\\"));
	expect_words("\\$HOME", WORDS("$HOME"));
}
END_TEST

static void expect_error(const char *s, const char *want_why)
{
	struct argv_list a;
	const char *why = NULL;

	argv_init(&a);
	ck_assert_msg(argv_split(&a, s, &why) == -EINVAL, "[%s] accepted", s);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, want_why);
	argv_release(&a);
}

START_TEST(split_errors)
{
	expect_error("echo 'unclosed", "unclosed single quote");
	expect_error("'", "unclosed single quote");
	expect_error("echo \"unclosed", "unclosed double quote");
	expect_error("\"ends with escape\\\"", "unclosed double quote");
	expect_error("echo \\", "backslash at the end of the line");
}
END_TEST

START_TEST(split_appends)
{
	struct argv_list a;
	const char *why = NULL;

	argv_init(&a);
	argv_push(&a, "env");
	ck_assert_int_eq(argv_split(&a, "A=1 game", &why), 0);
	ck_assert_int_eq(argv_split(&a, "--fast", &why), 0);
	ck_assert_uint_eq(a.n, 4);
	ck_assert_str_eq(a.v[0], "env");
	ck_assert_str_eq(a.v[3], "--fast");
	ck_assert_ptr_null(a.v[4]);
	argv_release(&a);
	argv_release(&a); /* twice is fine */
}
END_TEST

START_TEST(join_quoting)
{
	char *s;

	s = argv_join(ARGV("dsda-doom", "-iwad", "/usr/share/games/doom/freedoom2.wad"));
	ck_assert_str_eq(s, "dsda-doom -iwad /usr/share/games/doom/freedoom2.wad");
	free(s);
	s = argv_join(ARGV("echo", "a b", "", "it's"));
	ck_assert_str_eq(s, "echo 'a b' '' 'it'\\''s'");
	free(s);
	s = argv_join((char *const[]){ NULL });
	ck_assert_str_eq(s, "");
	free(s);
}
END_TEST

/* split(join(v)) == v */
static void expect_round_trip(char *const *v, size_t n)
{
	struct argv_list back;
	const char *why = NULL;
	char *line = argv_join(v);

	argv_init(&back);
	ck_assert_msg(argv_split(&back, line, &why) == 0, "[%s]: %s", line, why);
	ck_assert_msg(back.n == n, "[%s]: %zu words, want %zu", line, back.n, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(strcmp(back.v[i], v[i]) == 0, "[%s] word %zu: [%s], want [%s]", line,
			      i, back.v[i], v[i]);
	argv_release(&back);
	free(line);
}

START_TEST(join_split_round_trip)
{
	static const char *const tricky[] = {
		"plain", "", "a b", "it's", "'", "''", "\"", "\\", "\\'", "$HOME", "`id`",
		"a\tb", "new\nline", "*", "~", "#comment", ";", "&&", "x=y z", "'\"'\"'",
		"trailing\\", " ", "ünïcödé", "--opt=va'l ue",
	};
	struct argv_list all;

	/* all at once, then each alone (a lone empty word is an edge of its own) */
	argv_init(&all);
	for (size_t i = 0; i < ARRAY_SIZE(tricky); i++) {
		struct argv_list one;

		argv_init(&one);
		argv_push(&one, tricky[i]);
		expect_round_trip(one.v, 1);
		argv_release(&one);
		argv_push(&all, tricky[i]);
	}
	expect_round_trip(all.v, all.n);
	argv_release(&all);
}
END_TEST

TEST_SUITE(argv_suite)
{
	Suite *s = suite_create("argv");
	TCase *tc = tcase_create("argv");

	tcase_add_test(tc, split_blanks);
	tcase_add_test(tc, split_quotes);
	tcase_add_test(tc, split_empty_words);
	tcase_add_test(tc, split_backslash);
	tcase_add_test(tc, split_errors);
	tcase_add_test(tc, split_appends);
	tcase_add_test(tc, join_quoting);
	tcase_add_test(tc, join_split_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
