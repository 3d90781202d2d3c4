/*
 * logind's session files and the active VT, on fixture trees: an SSH
 * session, a local console one, logind's .ref files beside them, a file
 * that does not parse, a machine without logind; "tty2" and what is not a
 * VT.
 */
#include "system/fsroot.h"
#include "system/sessions.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* As logind writes them (systemd's session file keys; values made up). */
static const char ssh_session[] =
	"# This is private data. Do not parse.\n"
	"UID=1000\n"
	"USER=tibi\n"
	"ACTIVE=1\n"
	"IS_DISPLAY=0\n"
	"STATE=active\n"
	"REMOTE=1\n"
	"TYPE=tty\n"
	"ORIGINAL_TYPE=tty\n"
	"CLASS=user\n"
	"SCOPE=session-12.scope\n"
	"FIFO=/run/systemd/sessions/12.ref\n"
	"SERVICE=sshd\n"
	"REMOTE_HOST=10.0.0.45\n"
	"LEADER=4242\n"
	"AUDIT=12\n"
	"REALTIME=1792000000000000\n"
	"MONOTONIC=123456789\n";

static const char console_session[] =
	"UID=0\n"
	"USER=root\n"
	"REMOTE=0\n"
	"CLASS=user\n"
	"TTY=tty1\n"
	"SERVICE=login\n"
	"SCOPE=session-3.scope\n"
	"LEADER=812\n";

START_TEST(parse_and_describe)
{
	struct login_session s;
	char d[160];

	ck_assert_int_eq(session_parse("12", ssh_session, &s), 0);
	ck_assert_str_eq(s.id, "12");
	ck_assert_uint_eq(s.uid, 1000);
	ck_assert_str_eq(s.user, "tibi");
	ck_assert_str_eq(s.service, "sshd");
	ck_assert_str_eq(s.remote_host, "10.0.0.45");
	ck_assert_str_eq(s.scope, "session-12.scope");
	ck_assert_str_eq(s.class_, "user");
	ck_assert_int_eq(s.leader, 4242);
	ck_assert(s.remote);
	ck_assert_uint_eq(s.realtime_us, 1792000000000000ULL);
	session_describe(&s, d, sizeof(d));
	ck_assert_str_eq(d, "session 12 (tibi, sshd from 10.0.0.45)");

	ck_assert_int_eq(session_parse("3", console_session, &s), 0);
	ck_assert(!s.remote);
	session_describe(&s, d, sizeof(d));
	ck_assert_str_eq(d, "session 3 (root, login on tty1)");

	/* no UID: not a session file; a bad number refused */
	ck_assert_int_eq(session_parse("x", "USER=a\n", &s), -EINVAL);
	ck_assert_int_eq(session_parse("x", "UID=12a\n", &s), -EINVAL);
	ck_assert_int_eq(session_parse("x", "UID=99999999999\n", &s), -EINVAL);
	/* a value longer than its field is cut, not overrun */
	ck_assert_int_eq(session_parse("x", "UID=1\nSERVICE=a-very-long-service-name-indeed-really\n",
				       &s), 0);
	ck_assert_uint_eq(strlen(s.service), sizeof(s.service) - 1);
}
END_TEST

START_TEST(list)
{
	char *root = test_tmpdir();
	struct login_session *v;
	size_t n;
	int seen = 0;

	fsroot_set(root);
	/* no logind: no sessions, not an error */
	ck_assert_int_eq(sessions_list(&v, &n), 0);
	ck_assert_uint_eq(n, 0);
	test_put(root, "run/systemd/sessions/12", ssh_session);
	test_put(root, "run/systemd/sessions/3", console_session);
	test_put(root, "run/systemd/sessions/12.ref", "");
	test_put(root, "run/systemd/sessions/99", "garbage\n");
	ck_assert_int_eq(sessions_list(&v, &n), 0);
	ck_assert_uint_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		seen |= strcmp(v[i].id, "12") == 0 ? 1 : strcmp(v[i].id, "3") == 0 ? 2 : 4;
	ck_assert_int_eq(seen, 3);
	free(v);
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(vt)
{
	int vt = 0;

	ck_assert_int_eq(vt_parse("tty2\n", &vt), 0);
	ck_assert_int_eq(vt, 2);
	ck_assert_int_eq(vt_parse("tty12", &vt), 0);
	ck_assert_int_eq(vt, 12);
	ck_assert_int_eq(vt_parse("ttyS0", &vt), -EINVAL);
	ck_assert_int_eq(vt_parse("tty0x", &vt), -EINVAL);
	ck_assert_int_eq(vt_parse("tty0", &vt), -EINVAL);
	ck_assert_int_eq(vt_parse("tty4294967297", &vt), -EINVAL); /* wrapped to 1 by %d */
	ck_assert_int_eq(vt_parse("tty2\n\n", &vt), -EINVAL);
	ck_assert_int_eq(vt_parse("tty 2", &vt), -EINVAL);
	ck_assert_int_eq(vt_parse("", &vt), -EINVAL);
}
END_TEST

/* The run's X server on VT 7, started from VT 2: its taking VT 7 and
 * giving VT 2 back are exempt, once each; every other change counts. */
START_TEST(vt_switches)
{
	struct vt_watch v;

	vt_watch_init(&v, 2, 7);
	ck_assert_int_eq(vt_watch_change(&v, 2), VT_SAME);
	ck_assert_int_eq(vt_watch_change(&v, 7), VT_X_TAKES);
	ck_assert_int_eq(vt_watch_change(&v, 7), VT_SAME);
	ck_assert_int_eq(vt_watch_change(&v, 2), VT_X_GIVES_BACK);
	/* a second trip is someone's Ctrl+Alt+F7 */
	ck_assert_int_eq(vt_watch_change(&v, 7), VT_SWITCH);
	ck_assert_int_eq(vt_watch_change(&v, 2), VT_SWITCH);
	ck_assert_int_eq(v.now, 2);

	/* from X's VT to a third one, and back: both count; giving back is
	 * to the VT X took it from only */
	vt_watch_init(&v, 1, 7);
	ck_assert_int_eq(vt_watch_change(&v, 7), VT_X_TAKES);
	ck_assert_int_eq(vt_watch_change(&v, 3), VT_SWITCH);
	ck_assert_int_eq(vt_watch_change(&v, 7), VT_SWITCH);
	ck_assert_int_eq(vt_watch_change(&v, 1), VT_X_GIVES_BACK);

	/* no X server of the run's own (Xvfb): every change counts */
	vt_watch_init(&v, 1, 0);
	ck_assert_int_eq(vt_watch_change(&v, 2), VT_SWITCH);
	ck_assert_int_eq(vt_watch_change(&v, 1), VT_SWITCH);
}
END_TEST

TEST_SUITE(sessions_suite)
{
	Suite *s = suite_create("sessions");
	TCase *tc = tcase_create("sessions");

	tcase_add_test(tc, parse_and_describe);
	tcase_add_test(tc, list);
	tcase_add_test(tc, vt);
	tcase_add_test(tc, vt_switches);
	suite_add_tcase(s, tc);
	return s;
}
