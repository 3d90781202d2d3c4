/*
 * bench/runner/proctree.c on a process tree captured from a real machine
 * (tests/fixtures/proctree, README.md there says how): a game in its own
 * session with children and a zombie, a daemon that left the session and
 * was reparented to the subreaper runner, a helper the runner started, and
 * processes that have nothing to do with the run.
 */
#include "system/fsroot.h"
#include "runner/proctree.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The roles in the capture (tests/fixtures/proctree/README.md). */
enum {
	REAPER = 12753,    /* the runner, a child subreaper */
	HELPER = 12755,    /* the runner's own child, outside the session */
	GAME = 12756,      /* session leader */
	CHILD1 = 12757,
	CHILD2 = 12758,
	CHILD3 = 12759,    /* never reaps ZOMBIE */
	DAEMON = 12761,    /* setsid + orphaned: ppid REAPER, a session of its own */
	ZOMBIE = 12762,
	UNRELATED = 12752,
};

static const pid_t session_and_orphans[] = { GAME, CHILD1, CHILD2, CHILD3, DAEMON, ZOMBIE };

static void use_fixture(void)
{
	fsroot_set(fixture_path("proctree"));
}

static void back_to_env(void)
{
	fsroot_set(NULL);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* out, in any order, is exactly want plus extra (0 for none). */
static void expect_pids(struct pid_list *out, const pid_t *want, size_t n, pid_t extra)
{
	pid_t all[16];
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		all[m++] = want[i];
	if (extra)
		all[m++] = extra;
	qsort(all, m, sizeof(pid_t), cmp_pid);
	qsort(out->v, out->n, sizeof(pid_t), cmp_pid);
	ck_assert_uint_eq(out->n, m);
	for (size_t i = 0; i < m; i++)
		ck_assert_int_eq(out->v[i], all[i]);
}

/* The capture is what the README says it is. */
START_TEST(fixture_roles)
{
	struct proc_stat st;

	ck_assert_int_eq(proc_stat_read(GAME, &st), 0);
	ck_assert_int_eq(st.session, GAME);
	ck_assert_int_eq(st.ppid, REAPER);
	ck_assert_int_eq(proc_stat_read(DAEMON, &st), 0);
	ck_assert_int_eq(st.ppid, REAPER);
	ck_assert_int_ne(st.session, GAME);
	ck_assert_int_eq(proc_stat_read(ZOMBIE, &st), 0);
	ck_assert_int_eq(st.state, 'Z');
	ck_assert_int_eq(st.session, GAME);
	ck_assert_int_eq(proc_stat_read(HELPER, &st), 0);
	ck_assert_int_eq(st.ppid, REAPER);
	ck_assert_int_ne(st.session, GAME);
	ck_assert_int_eq(proc_stat_read(REAPER, &st), 0);
	ck_assert_str_eq(st.comm, "reaper");
}
END_TEST

START_TEST(scan_session_and_orphans)
{
	struct pid_list out = { 0 };
	struct pid_list exclude = { 0 };

	/* everything of the run: the helper is the runner's child too */
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, REAPER, NULL, &out), 0);
	expect_pids(&out, session_and_orphans, ARRAY_SIZE(session_and_orphans), HELPER);
	ck_assert(!pid_list_has(&out, REAPER));
	ck_assert(!pid_list_has(&out, UNRELATED));
	ck_assert(!pid_list_has(&out, 1));
	ck_assert(!pid_list_has(&out, 2));
	pid_list_release(&out);

	/* the runner excludes what it started itself */
	pid_list_add(&exclude, HELPER);
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, REAPER, &exclude, &out), 0);
	expect_pids(&out, session_and_orphans, ARRAY_SIZE(session_and_orphans), 0);
	pid_list_release(&out);

	/* exclude applies to session members as well */
	pid_list_add(&exclude, GAME);
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, REAPER, &exclude, &out), 0);
	ck_assert_uint_eq(out.n, ARRAY_SIZE(session_and_orphans) - 1);
	ck_assert(!pid_list_has(&out, GAME));
	ck_assert(pid_list_has(&out, DAEMON));
	pid_list_release(&out);
	pid_list_release(&exclude);
}
END_TEST

START_TEST(scan_appends)
{
	struct pid_list out = { 0 };

	pid_list_add(&out, 99999);
	/* the session alone (no reaper matches): no daemon, no helper */
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, 424242, NULL, &out), 0);
	ck_assert_uint_eq(out.n, 6);
	ck_assert(pid_list_has(&out, 99999));
	ck_assert(pid_list_has(&out, ZOMBIE));
	ck_assert(!pid_list_has(&out, DAEMON));
	ck_assert(!pid_list_has(&out, HELPER));
	pid_list_release(&out);

	/* a session nobody is in */
	ck_assert_int_eq(proctree_scan(fsroot(), 424242, 424243, NULL, &out), 0);
	ck_assert_uint_eq(out.n, 0);
	pid_list_release(&out);
}
END_TEST

START_TEST(scan_skips_what_is_not_a_process)
{
	char *root = test_tmpdir();
	char *dir, *text, *path;
	struct pid_list out = { 0 };

	/* a process that exits between readdir and the read (no stat), a stat
	 * that does not parse, non-PID entries, and one real stat */
	dir = xasprintf("%s/proc/4000", root);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	free(dir);
	dir = xasprintf("%s/proc/self", root);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	free(dir);
	dir = xasprintf("%s/proc/4001", root);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	path = xasprintf("%s/stat", dir);
	ck_assert_int_eq(write_file_atomic(path, "truncated (", 11, 0644), 0);
	free(path);
	free(dir);
	ck_assert_int_eq(read_file(fixture_path("proctree/proc/12757/stat"), &text, NULL), 0);
	dir = xasprintf("%s/proc/%d", root, CHILD1);
	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	path = xasprintf("%s/stat", dir);
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
	free(path);
	free(dir);
	free(text);

	fsroot_set(root);
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, REAPER, NULL, &out), 0);
	ck_assert_uint_eq(out.n, 1);
	ck_assert_int_eq(out.v[0], CHILD1);
	pid_list_release(&out);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(scan_without_proc)
{
	char *root = test_tmpdir();
	struct pid_list out = { 0 };

	fsroot_set(root);
	ck_assert_int_eq(proctree_scan(fsroot(), GAME, REAPER, NULL, &out), -ENOENT);
	ck_assert_uint_eq(out.n, 0);
	remove_tree(root);
	free(root);
}
END_TEST

START_TEST(pid_lists)
{
	struct pid_list l = { 0 };

	ck_assert(!pid_list_has(&l, 1));
	ck_assert(!pid_list_has(NULL, 1));
	for (pid_t p = 1; p <= 100; p++)
		pid_list_add(&l, p * 3);
	ck_assert_uint_eq(l.n, 100);
	ck_assert(pid_list_has(&l, 300));
	ck_assert(!pid_list_has(&l, 301));
	pid_list_release(&l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.v);
	pid_list_release(&l);
}
END_TEST

TEST_SUITE(proctree_suite)
{
	Suite *s = suite_create("proctree");
	TCase *tc = tcase_create("proctree");

	tcase_add_checked_fixture(tc, use_fixture, back_to_env);
	tcase_add_test(tc, fixture_roles);
	tcase_add_test(tc, scan_session_and_orphans);
	tcase_add_test(tc, scan_appends);
	tcase_add_test(tc, scan_skips_what_is_not_a_process);
	tcase_add_test(tc, scan_without_proc);
	tcase_add_test(tc, pid_lists);
	suite_add_tcase(s, tc);
	return s;
}
