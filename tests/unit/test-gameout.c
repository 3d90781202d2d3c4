/*
 * bench/runner/gameout.c: what the game writes to its terminal comes out in
 * game.log a line at a time, stamped, with CR dropped, over-long lines cut,
 * the last unterminated line kept on flush, and start_line and end_line
 * each matched once.
 */
#include "runner/gameout.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;
static char *log_path;

static void setup(void)
{
	dir = test_tmpdir();
	log_path = xasprintf("%s/game.log", dir);
}

static void teardown(void)
{
	remove_tree(dir);
	free(dir);
	free(log_path);
}

/* What game.log holds, stamps removed: each line's text after the tab. */
static char *log_text(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *text, *save = NULL;

	ck_assert_int_eq(read_file(log_path, &text, NULL), 0);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(l, '\t');

		ck_assert_msg(tab, "line without a stamp: '%s'", l);
		/* the stamp: SECONDS.MICROSECONDS */
		ck_assert_uint_eq(strspn(l, "0123456789"), (size_t)(strchr(l, '.') - l));
		ck_assert_uint_eq((size_t)(tab - strchr(l, '.') - 1), 6);
		strbuf_addf(&sb, "%s|", tab + 1);
	}
	free(text);
	return strbuf_detach(&sb);
}

static void say(struct game_output *o, const char *s)
{
	ck_assert_int_eq(write(o->slave, s, strlen(s)), (ssize_t)strlen(s));
	usleep(20 * 1000);
}

START_TEST(lines_are_stamped_and_split)
{
	struct game_output o;
	char *text;

	ck_assert_int_eq(game_output_open(&o, log_path, NULL, NULL), 0);
	say(&o, "first\nsecond\r\nthi");
	game_output_drain(&o, false);
	say(&o, "rd\nunfinished");
	game_output_drain(&o, false);
	text = log_text();
	ck_assert_str_eq(text, "first|second|third|");
	free(text);
	game_output_drain(&o, true);
	text = log_text();
	ck_assert_str_eq(text, "first|second|third|unfinished|");
	free(text);
	ck_assert(!o.end.matched);
	ck_assert_int_eq(o.write_error, 0);
	game_output_close(&o);
}
END_TEST

START_TEST(end_line_matches_once)
{
	struct game_output o;

	ck_assert_int_eq(game_output_open(&o, log_path, NULL, "^CL_InitCGame:"), 0);
	say(&o, "loading\n  CL_InitCGame: not at the start\n");
	game_output_drain(&o, false);
	ck_assert(!o.end.matched);
	say(&o, "CL_InitCGame: 1.2 seconds\nCL_InitCGame: again\n");
	game_output_drain(&o, false);
	ck_assert(o.end.matched);
	ck_assert_uint_gt(o.end.matched_ns, 0);
	game_output_close(&o);
}
END_TEST

START_TEST(start_and_end_lines_match_apart)
{
	struct game_output o;
	uint64_t first;

	ck_assert_int_eq(game_output_open(&o, log_path, "NEW_ROUND", "frames in"), 0);
	say(&o, "menu\n[L] NEW_ROUND 1\n");
	game_output_drain(&o, false);
	ck_assert(o.start.matched);
	ck_assert(!o.end.matched);
	first = o.start.matched_ns;
	usleep(2000);
	say(&o, "[L] NEW_ROUND 2\n8602 frames in 150.0 seconds\n");
	game_output_drain(&o, false);
	/* the first match stays */
	ck_assert_uint_eq(o.start.matched_ns, first);
	ck_assert(o.end.matched);
	ck_assert_uint_gt(o.end.matched_ns, first);
	game_output_close(&o);
}
END_TEST

START_TEST(bad_regex_is_refused)
{
	struct game_output o;

	ck_assert_int_eq(game_output_open(&o, log_path, NULL, "a("), -EINVAL);
	game_output_close(&o);
	ck_assert_int_eq(game_output_open(&o, log_path, "a(", NULL), -EINVAL);
	game_output_close(&o);
}
END_TEST

START_TEST(long_line_is_cut)
{
	struct game_output o;
	char *big = zalloc(GAMEOUT_MAX_LINE + 11);
	char *text;
	size_t written = 0, len = GAMEOUT_MAX_LINE + 10;

	memset(big, 'x', len);
	big[len - 1] = '\n';
	ck_assert_int_eq(game_output_open(&o, log_path, NULL, NULL), 0);
	/* more than a pty buffer: write and drain in turns */
	while (written < len) {
		ssize_t n = write(o.slave, big + written, len - written > 1024 ? 1024 : len - written);

		ck_assert_int_gt(n, 0);
		written += (size_t)n;
		game_output_drain(&o, false);
	}
	usleep(20 * 1000);
	game_output_drain(&o, true);
	text = log_text();
	/* one line of GAMEOUT_MAX_LINE x, then the 9 left */
	ck_assert_uint_eq(strlen(text), GAMEOUT_MAX_LINE + 1 + 9 + 1);
	ck_assert_str_eq(text + GAMEOUT_MAX_LINE, "|xxxxxxxxx|");
	free(text);
	free(big);
	game_output_close(&o);
}
END_TEST

TEST_SUITE(gameout_suite)
{
	Suite *s = suite_create("gameout");
	TCase *tc = tcase_create("gameout");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, lines_are_stamped_and_split);
	tcase_add_test(tc, end_line_matches_once);
	tcase_add_test(tc, start_and_end_lines_match_apart);
	tcase_add_test(tc, bad_regex_is_refused);
	tcase_add_test(tc, long_line_is_cut);
	suite_add_tcase(s, tc);
	return s;
}
