/*
 * common/base/message.c: what a program says on stderr, as the tests of
 * every command read it: the program's name, the level's word, syslog's
 * "<N>" when asked, one message a line of msg_lines(), a message longer
 * than the stack buffer whole, the copy a program's own log gets, and a
 * usage error followed by the usage.
 */
#include "base/exitcodes.h"
#include "base/message.h"
#include "base/util.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stderr sent to a file for the test's messages, and read back */
static FILE *captured;
static int saved_fd = -1;

static void capture(void)
{
	captured = tmpfile();
	ck_assert_ptr_nonnull(captured);
	fflush(stderr);
	saved_fd = dup(STDERR_FILENO);
	ck_assert_int_ge(saved_fd, 0);
	ck_assert_int_ge(dup2(fileno(captured), STDERR_FILENO), 0);
}

/* What was said since capture(), malloc'd; stderr given back. */
static char *said(void)
{
	long n;
	char *text;

	fflush(stderr);
	dup2(saved_fd, STDERR_FILENO);
	close(saved_fd);
	n = ftell(captured);
	text = zalloc((size_t)n + 1);
	rewind(captured);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, captured), (size_t)n);
	fclose(captured);
	msg_program("hitchbench");
	msg_levels(false);
	msg_copy(NULL, NULL);
	return text;
}

START_TEST(levels_and_words)
{
	char *text;

	capture();
	msg_program("hitchbench-test");
	error_msg("cannot open '%s': %s", "x.ini", "No such file or directory");
	warn_msg("a %s", "warning");
	note_msg("a note");
	info_msg("dsda-doom software: starting");
	text = said();
	ck_assert_str_eq(text, "hitchbench-test: cannot open 'x.ini': No such file or directory\n"
			       "hitchbench-test: warning: a warning\n"
			       "hitchbench-test: note: a note\n"
			       "hitchbench-test: dsda-doom software: starting\n");
	free(text);

	capture();
	msg_program("hitchbench-reboot");
	msg_levels(true);
	error_msg("e");
	warn_msg("w");
	info_msg("i");
	text = said();
	ck_assert_str_eq(text, "<3>hitchbench-reboot: e\n<4>hitchbench-reboot: warning: w\n<6>hitchbench-reboot: i\n");
	free(text);
}
END_TEST

START_TEST(lines_and_long_messages)
{
	char long_word[3000], *text, *want;

	capture();
	msg_lines(MSG_WARNING, "first\nsecond\n");
	msg_lines(MSG_ERROR, "");
	msg_lines(MSG_NOTE, "no newline at the end");
	text = said();
	ck_assert_str_eq(text, "hitchbench: warning: first\nhitchbench: warning: second\n"
			       "hitchbench: note: no newline at the end\n");
	free(text);

	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	capture();
	error_msg("%s!", long_word);
	text = said();
	want = xasprintf("hitchbench: %s!\n", long_word);
	ck_assert_str_eq(text, want);
	free(want);
	free(text);
}
END_TEST

static void keep(enum msg_level level, const char *msg, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "%d %s|", (int)level, msg);
}

START_TEST(copy_and_usage)
{
	struct strbuf log = STRBUF_INIT;
	char *text;
	int r;

	capture();
	msg_copy(keep, &log);
	warn_msg("cannot open the log");
	r = usage_error("usage: x [--y]\n", "unknown option '--%s'", "z");
	text = said();
	ck_assert_int_eq(r, HB_EXIT_USAGE);
	ck_assert_str_eq(text, "hitchbench: warning: cannot open the log\nhitchbench: unknown option '--z'\n"
			       "usage: x [--y]\n");
	ck_assert_str_eq(log.buf, "4 cannot open the log|3 unknown option '--z'|");
	free(text);
	strbuf_release(&log);
}
END_TEST

TEST_SUITE(message_suite)
{
	Suite *s = suite_create("message");
	TCase *tc = tcase_create("message");

	tcase_add_test(tc, levels_and_words);
	tcase_add_test(tc, lines_and_long_messages);
	tcase_add_test(tc, copy_and_usage);
	suite_add_tcase(s, tc);
	return s;
}
