/*
 * The game's own cgroup on fixture roots: made under the runner's cgroup v2
 * directory (the mount and the path from /proc/self/mounts and cgroup),
 * an empty one of a runner that is gone removed first, none without
 * cgroup v2; adding a pid writes cgroup.procs.
 */
#include "system/fsroot.h"
#include "system/gamecgroup.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char mounts[] =
	"sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
	"cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n";

START_TEST(made_under_own)
{
	char *root = test_tmpdir(), *path = NULL, *want, *stale, *young, *alive, *procs;
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	char *text;
	size_t len;

	test_put(root, "proc/self/mounts", mounts);
	test_put(root, "proc/self/cgroup", "0::/user.slice/session-3.scope\n");
	/* an empty game cgroup of a runner gone two hours ago (pid
	 * 0x3ffffff0), one of a pid no runner here has made a second ago (a
	 * runner's in another PID namespace, not holding its game yet), and
	 * one of this process's pid taken already (another namespace's):
	 * the old one goes, the young one stays, and the taken name is
	 * passed by, never shared */
	stale = xasprintf("%s/sys/fs/cgroup/user.slice/session-3.scope/hitchbench-game-%d-0", root,
			  0x3ffffff0);
	young = xasprintf("%s/sys/fs/cgroup/user.slice/session-3.scope/hitchbench-game-%d-0", root,
			  0x3ffffff1);
	alive = xasprintf("%s/sys/fs/cgroup/user.slice/session-3.scope/hitchbench-game-%d-0", root,
			  (int)getpid());
	ck_assert_int_eq(mkdir_p(stale, 0755), 0);
	ck_assert_int_eq(mkdir_p(young, 0755), 0);
	ck_assert_int_eq(mkdir_p(alive, 0755), 0);
	ck_assert_int_eq(utimes(stale, (struct timeval[]){ { time(NULL) - 7200, 0 }, { time(NULL) - 7200, 0 } }), 0);
	fsroot_set(root);
	ck_assert_int_eq(game_cgroup_create(&path, &err), 0);
	want = xasprintf("%s/sys/fs/cgroup/user.slice/session-3.scope/hitchbench-game-%d-1", root,
			 (int)getpid());
	ck_assert_str_eq(path, want);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(stat(stale, &st), -1);
	ck_assert_int_eq(stat(young, &st), 0);
	ck_assert_int_eq(stat(alive, &st), 0);
	/* a pid into it: cgroup.procs written (a plain file here) */
	procs = xasprintf("%s/cgroup.procs", path);
	test_put(path, "cgroup.procs", "");
	ck_assert_int_eq(game_cgroup_add(path, 4242), 0);
	ck_assert_int_eq(read_file(procs, &text, &len), 0);
	ck_assert_str_eq(text, "4242\n");
	free(text);
	unlink(procs);
	ck_assert_int_eq(game_cgroup_remove(path), 0);
	ck_assert_int_eq(game_cgroup_add(path, 4242), -ENOENT);
	fsroot_set(NULL);
	remove_tree(root);
	free(procs);
	free(want);
	free(stale);
	free(young);
	free(alive);
	free(path);
	free(root);
	strbuf_release(&err);
}
END_TEST

START_TEST(none_without_v2)
{
	char *root = test_tmpdir(), *path = NULL;
	struct strbuf err = STRBUF_INIT;

	/* a cgroup v1 machine: no cgroup2 line */
	test_put(root, "proc/self/mounts", "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n");
	test_put(root, "proc/self/cgroup", "4:memory:/x\n");
	fsroot_set(root);
	ck_assert_int_eq(game_cgroup_create(&path, &err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err.buf, "no cgroup v2"));
	/* v2 mounted, but this process has no v2 path */
	test_put(root, "proc/self/mounts", mounts);
	strbuf_reset(&err);
	ck_assert_int_eq(game_cgroup_create(&path, &err), -ENOENT);
	ck_assert_ptr_null(path);
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(gamecgroup_suite)
{
	Suite *s = suite_create("gamecgroup");
	TCase *tc = tcase_create("cgroup");

	tcase_add_test(tc, made_under_own);
	tcase_add_test(tc, none_without_v2);
	suite_add_tcase(s, tc);
	return s;
}
