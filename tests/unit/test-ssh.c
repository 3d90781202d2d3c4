/*
 * bench/target/ssh.c, the parts that need no server: a target's address parses
 * into the user, host and port ssh is given (and nonsense is refused with
 * why), and sh_quote makes one shell word of anything, which /bin/sh reads
 * back unchanged (the remote commands are built from it). The connection
 * itself is tested against a real sshd: tests/cli/t1600-target.sh.
 */
#include "target/ssh.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(url_forms)
{
	struct ssh_target t = { 0 };
	const char *why = NULL;

	ck_assert_int_eq(ssh_url_parse("ssh://ps3", &t, &why), 0);
	ck_assert_str_eq(t.host, "ps3");
	ck_assert_ptr_null(t.user);
	ck_assert_int_eq(t.port, 0);
	ck_assert_int_eq(ssh_url_parse("ssh://tibi@192.168.1.20:2222/", &t, &why), 0);
	ck_assert_str_eq(t.host, "192.168.1.20");
	ck_assert_str_eq(t.user, "tibi");
	ck_assert_int_eq(t.port, 2222);
	ck_assert_int_eq(ssh_url_parse("ssh://u-@h-", &t, &why), 0);
	ck_assert_str_eq(t.user, "u-");
	ck_assert_str_eq(t.host, "h-");
	ck_assert_int_eq(ssh_url_parse("ssh://root@lab-pc", &t, &why), 0);
	ck_assert_str_eq(t.user, "root");
	ck_assert_int_eq(t.port, 0);
	ssh_target_release(&t);
}
END_TEST

START_TEST(url_refused)
{
	static const char *const bad[] = { "ps3",          "http://ps3",      "ssh://",       "ssh://@ps3",
					   "ssh://ps3:0",  "ssh://ps3:65536", "ssh://ps3:x1", "ssh://ps3:",
					   "ssh://u@:22",  "ssh://a/b",       "ssh://a b",
					   /* issue 38: nothing that reads as an option */
					   "ssh://-oProxyCommand=x", "ssh://u@-h:22", "ssh://-l@h",
					   "ssh://a b@h", "ssh://a\tb@h" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ssh_target t = { 0 };
		const char *why = NULL;

		ck_assert_msg(ssh_url_parse(bad[i], &t, &why) == -EINVAL, "%s accepted", bad[i]);
		ck_assert_ptr_nonnull(why);
		ck_assert_ptr_null(t.host);
		ssh_target_release(&t);
	}
}
END_TEST

/* Each word through sh_quote, then `printf '%s\n' WORD` run by /bin/sh,
 * prints the word itself. */
START_TEST(quote_round_trip)
{
	static const char *const words[] = { "plain", "", "two words", "it's", "'", "a\"b", "$HOME", "`id`",
					     "back\\slash", "new\nline", "*?[", ";&|<>" };

	for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
		char *q = sh_quote(words[i]);
		char *cmd = xasprintf("printf '%%s|' %s", q);
		FILE *p = popen(cmd, "r");
		char got[256] = "";
		size_t n;

		ck_assert_ptr_nonnull(p);
		n = fread(got, 1, sizeof(got) - 1, p);
		got[n] = '\0';
		ck_assert_int_eq(pclose(p), 0);
		ck_assert_msg(n > 0 && got[n - 1] == '|', "[%s]: [%s]", words[i], got);
		got[n - 1] = '\0';
		ck_assert_msg(strcmp(got, words[i]) == 0, "[%s] came back [%s]", words[i], got);
		free(cmd);
		free(q);
	}
}
END_TEST

TEST_SUITE(ssh_suite)
{
	Suite *s = suite_create("ssh");
	TCase *tc = tcase_create("ssh");

	tcase_add_test(tc, url_forms);
	tcase_add_test(tc, url_refused);
	tcase_add_test(tc, quote_round_trip);
	suite_add_tcase(s, tc);
	return s;
}
