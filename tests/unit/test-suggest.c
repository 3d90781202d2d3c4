/*
 * common/text/suggest.c: the distance (insertions, deletions, substitutions and
 * neighbours swapped, case ignored) and which names are offered for a
 * mistyped one: the nearest within a third of its length, prefixes, ties,
 * nothing when nothing is near.
 */
#include "text/suggest.h"
#include "test.h"
#include "base/util.h"

#include <string.h>

START_TEST(distances)
{
	ck_assert_uint_eq(suggest_distance("", ""), 0);
	ck_assert_uint_eq(suggest_distance("abc", ""), 3);
	ck_assert_uint_eq(suggest_distance("", "abc"), 3);
	ck_assert_uint_eq(suggest_distance("stalls", "stalls"), 0);
	ck_assert_uint_eq(suggest_distance("Stalls", "stALLs"), 0);
	ck_assert_uint_eq(suggest_distance("staals", "stalls"), 1);   /* substitution */
	ck_assert_uint_eq(suggest_distance("stals", "stalls"), 1);    /* insertion */
	ck_assert_uint_eq(suggest_distance("stallls", "stalls"), 1);  /* deletion */
	ck_assert_uint_eq(suggest_distance("stlals", "stalls"), 1);   /* swap */
	ck_assert_uint_eq(suggest_distance("p99ms", "p99_ms"), 1);
	ck_assert_uint_eq(suggest_distance("kitten", "sitting"), 3);
	ck_assert_uint_eq(suggest_distance("ca", "abc"), 3);          /* OSA: no edit of a swapped pair */
	/* symmetric */
	ck_assert_uint_eq(suggest_distance("sitting", "kitten"), 3);
}
END_TEST

static const char *const cmds[] = { "run", "recipes", "report", "matrix", "db", "stalls", "plot",
				    "compare", "calibrate", "regress", "target", "push", "pull" };

static void expect(const char *word, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = suggest_append(&sb, word, cmds, ARRAY_SIZE(cmds));

	ck_assert_msg(strcmp(sb.len ? sb.buf : "", want) == 0, "%s: got '%s', want '%s'", word,
		      sb.len ? sb.buf : "", want);
	ck_assert_uint_eq(n, !*want ? 0 : strchr(want, ',') ? 2 : 1);
	strbuf_release(&sb);
}

START_TEST(offers)
{
	expect("staals", " did you mean 'stalls'?");
	expect("reprot", " did you mean 'report'?");
	expect("calibrat", " did you mean 'calibrate'?");
	expect("rep", " did you mean 'report'?");    /* a prefix counts as one edit */
	expect("pusl", " did you mean one of 'push', 'pull'?");  /* a tie: both, in the list's order */
	expect("pus", " did you mean 'push'?");
	expect("pul", " did you mean 'pull'?");
	expect("xyzzy", "");
	expect("report", "");       /* the name itself: nothing to suggest */
	expect("r", "");            /* a one-letter prefix is no hint */
	expect("regresion", " did you mean 'regress'?");
	/* a long word far from everything: the limit is 3 whatever its length */
	expect("completelydifferent", "");
}
END_TEST

START_TEST(empty_list)
{
	struct strbuf sb = STRBUF_INIT;

	ck_assert_uint_eq(suggest_append(&sb, "x", NULL, 0), 0);
	ck_assert_uint_eq(sb.len, 0);
	strbuf_release(&sb);
}
END_TEST

TEST_SUITE(suggest_suite)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("suggest");

	tcase_add_test(tc, distances);
	tcase_add_test(tc, offers);
	tcase_add_test(tc, empty_list);
	suite_add_tcase(s, tc);
	return s;
}
