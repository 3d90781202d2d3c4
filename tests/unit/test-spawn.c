/*
 * bench/runner/spawn.c's captured commands with a deadline: one that ends
 * in time is as without one; one that does not has its whole session
 * killed (a child it started too), keeps what it printed, and is waited
 * for, with -ETIMEDOUT and a status that says SIGKILL.
 */
#include "runner/spawn.h"
#include "base/timeutil.h"
#include "test.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

START_TEST(in_time)
{
	char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int status = 0;

	ck_assert_int_eq(spawn_capture_until(argv, NULL, &out, &err, mono_ns() + 60 * 1000000000ull, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	ck_assert_str_eq(out.buf, "out\n");
	ck_assert_str_eq(err.buf, "err\n");
	strbuf_release(&out);
	strbuf_release(&err);
}
END_TEST

/* Whether pid is gone or a zombie (killed, not yet reaped by init). */
static bool dead(int pid)
{
	char path[64], *text = NULL;
	const char *close_paren;
	bool r;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &text, NULL) < 0)
		return true;
	close_paren = strrchr(text, ')');
	r = close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
	free(text);
	return r;
}

START_TEST(past_the_deadline)
{
	/* a child in the background and a wait: the shell's session holds both */
	char *argv[] = { "/bin/sh", "-c", "sleep 60 & echo $!; echo waiting >&2; wait", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	uint64_t give_up;
	int status = 0, child;

	ck_assert_int_eq(spawn_capture_until(argv, NULL, &out, &err, mono_ns() + 300000000u, &status), -ETIMEDOUT);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status 0x%x", (unsigned)status);
	ck_assert_str_eq(err.buf, "waiting\n");
	ck_assert_int_eq(safe_atoi(str_strip(out.buf), &child), 0);
	/* the background sleep was killed with its session, not left behind
	 * (a wait for the kernel to deliver, not a measure of time) */
	give_up = mono_ns() + 10 * 1000000000ull;
	while (!dead(child) && mono_ns() < give_up)
		sleep_ms(10);
	ck_assert_msg(dead(child), "the shell's child %d outlived its session's kill", child);
	strbuf_release(&out);
	strbuf_release(&err);
}
END_TEST

START_TEST(no_deadline)
{
	char *argv[] = { "/bin/sh", "-c", "cat", NULL };
	struct strbuf out = STRBUF_INIT;
	int status = 0;

	ck_assert_int_eq(spawn_capture_until(argv, "fed\n", &out, NULL, 0, &status), 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(out.buf, "fed\n");
	strbuf_release(&out);
}
END_TEST

TEST_SUITE(spawn_suite)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("spawn");

	tcase_add_test(tc, in_time);
	tcase_add_test(tc, past_the_deadline);
	tcase_add_test(tc, no_deadline);
	suite_add_tcase(s, tc);
	return s;
}
