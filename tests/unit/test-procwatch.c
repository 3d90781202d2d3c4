/*
 * common/procwatch/procwatch.c on fixture trees under the swappable root: the scan
 * source (a pid appears in proc/, its stat names its parent), whose a new
 * process is (ancestry, process group, the environ marker, kernel
 * threads, the harness's children), the loadavg gate, and the busy-session
 * pass between two snapshots of a process's CPU times. Real stat files
 * from tests/fixtures/testdata/procfs where one fits. The expected verdicts
 * follow from the rules in procwatch.h applied to the trees by hand.
 */
#include "system/fsroot.h"
#include "procwatch/procwatch.h"
#include "test.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seen {
	size_t n;
	struct {
		char mark;
		int pid;
		enum procwatch_what what;
		char comm[64];
		char why[128];
		int64_t cpu_ticks;
		unsigned sessionid;
	} v[32];
};

static void collect(void *ctx, const struct procwatch_verdict *v)
{
	struct seen *s = ctx;

	ck_assert_uint_lt(s->n, ARRAY_SIZE(s->v));
	s->v[s->n].mark = v->counted ? '!' : '-';
	s->v[s->n].pid = v->pid;
	s->v[s->n].what = v->what;
	snprintf(s->v[s->n].comm, sizeof(s->v[s->n].comm), "%s", v->comm);
	snprintf(s->v[s->n].why, sizeof(s->v[s->n].why), "%s", v->why);
	s->v[s->n].cpu_ticks = v->cpu_ticks;
	s->v[s->n].sessionid = v->sessionid;
	s->n++;
}

/* The verdict for pid: its index, or -1. */
static int find(const struct seen *s, int pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid)
			return (int)i;
	return -1;
}

static void expect(const struct seen *s, int pid, char mark, enum procwatch_what what)
{
	int i = find(s, pid);

	ck_assert_msg(i >= 0, "no verdict for %d", pid);
	ck_assert_msg(s->v[i].mark == mark && s->v[i].what == what, "%d: got %c %s (%s)", pid,
		      s->v[i].mark, procwatch_what_name(s->v[i].what), s->v[i].why);
}

/* A proc/PID/stat line as the kernel writes it, through field 22. */
static void put_proc(const char *root, int pid, const char *comm, int ppid, int pgrp, int sid,
		     unsigned flags, unsigned long utime, long cutime)
{
	char rel[64], text[256];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(text, sizeof(text),
		 "%d (%s) S %d %d %d 0 -1 %u 10 0 0 0 %lu 0 %ld 0 20 0 1 0 100 0 0\n",
		 pid, comm, ppid, pgrp, sid, flags, utime, cutime);
	test_put(root, rel, text);
}

static void put_file(const char *root, int pid, const char *name, const char *text)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/%s", pid, name);
	test_put(root, rel, text);
}

static void rm_pid(const char *root, int pid)
{
	char *dir = xasprintf("%s/proc/%d", root, pid);

	ck_assert_int_eq(remove_tree(dir), 0);
	free(dir);
}

/* environ holds NULs: test_put would stop at the first */
static void put_environ(const char *root, int pid, const char *data, size_t len)
{
	char *path = xasprintf("%s/proc/%d/environ", root, pid);

	ck_assert_int_eq(write_file_atomic(path, data, len, 0644), 0);
	free(path);
}

/* init, kthreadd, the watcher (50, in login session 3, started by a
 * shell 40), the run's root 100 leading its own session. */
static char *base_tree(void)
{
	char *root = test_tmpdir();

	put_proc(root, 1, "systemd", 0, 1, 1, 0x400100, 0, 0);
	put_proc(root, 2, "kthreadd", 0, 0, 0, 0x208040, 0, 0);
	put_proc(root, 40, "bash", 1, 40, 40, 0x400000, 0, 0);
	put_file(root, 40, "sessionid", "3");
	put_proc(root, 50, "hitchbench", 40, 50, 40, 0x400000, 0, 0);
	put_file(root, 50, "sessionid", "3");
	put_proc(root, 100, "game", 50, 100, 100, 0x400000, 0, 0);
	put_file(root, 100, "sessionid", "3");
	fsroot_set(root);
	return root;
}

static struct procwatch *start(struct seen *s, const char *run_id)
{
	static const pid_t run[] = { 100 };
	struct procwatch_config cfg = {
		.source = PROCWATCH_SCAN, .run_roots = run, .n_run_roots = 1, .run_id = run_id,
		.self = 50, .fn = collect, .ctx = s,
	};
	struct procwatch *w;

	ck_assert_int_eq(procwatch_start(&w, &cfg), 0);
	ck_assert_int_eq(procwatch_source(w), PROCWATCH_SCAN);
	ck_assert_uint_eq(s->n, 0);   /* what exists at the start gets no verdict */
	return w;
}

static void done(struct procwatch *w, char *root)
{
	procwatch_free(w);
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
}

START_TEST(new_processes_by_rule)
{
	struct seen s = { 0 };
	char *root = base_tree();
	struct procwatch *w = start(&s, "r7");
	struct procwatch_stats st;

	/* the game's child, and a grandchild whose parent is new too (its
	 * pid is lower: pids wrap) */
	put_proc(root, 101, "game-helper", 100, 100, 100, 0x400040, 0, 0);
	put_proc(root, 310, "sh", 100, 310, 310, 0x400000, 0, 0);
	put_proc(root, 305, "daemon", 310, 305, 305, 0x400040, 0, 0);
	/* the watcher's own child: the harness is exempt, what it starts is not */
	put_proc(root, 200, "ls", 50, 50, 40, 0x400000, 0, 0);
	/* a stranger carrying the run's marker, and one carrying another run's */
	put_proc(root, 201, "dbus-daemon", 1, 201, 201, 0x400000, 0, 0);
	put_environ(root, 201, "HOME=/root\0HITCHBENCH_RUN=r7\0X=1", 32);
	put_proc(root, 202, "cron", 1, 202, 202, 0x400000, 0, 0);
	put_file(root, 202, "environ", "HITCHBENCH_RUN=r77\0");
	put_file(root, 202, "sessionid", "12");
	put_file(root, 202, "cgroup", "0::/user.slice/user-1000.slice/session-12.scope\n");
	/* a kernel thread */
	put_proc(root, 203, "kworker/1:2", 2, 0, 0, 0x4208060, 0, 0);
	/* the harness's own by its marker (a test script's pgrep), and a
	 * process whose marker is only a longer name's prefix */
	put_proc(root, 204, "pgrep", 50, 50, 40, 0x400000, 0, 0);
	put_environ(root, 204, "PATH=/bin\0HITCHBENCH_HARNESS=tests", 34);
	put_proc(root, 205, "pgrep", 50, 50, 40, 0x400000, 0, 0);
	put_file(root, 205, "environ", "HITCHBENCH_HARNESSX=1");

	ck_assert_int_eq(procwatch_scan(w), 0);
	expect(&s, 101, '-', PROCWATCH_RUN);
	expect(&s, 305, '-', PROCWATCH_RUN);
	expect(&s, 310, '-', PROCWATCH_RUN);
	expect(&s, 200, '!', PROCWATCH_OUTSIDE);
	expect(&s, 201, '-', PROCWATCH_RUN);
	ck_assert_str_eq(s.v[find(&s, 201)].why, "carries HITCHBENCH_RUN");
	expect(&s, 202, '!', PROCWATCH_OUTSIDE);
	ck_assert_uint_eq(s.v[find(&s, 202)].sessionid, 12);
	expect(&s, 203, '-', PROCWATCH_KERNEL);
	expect(&s, 204, '-', PROCWATCH_HARNESS);
	ck_assert_str_eq(s.v[find(&s, 204)].why, "carries HITCHBENCH_HARNESS");
	expect(&s, 205, '!', PROCWATCH_OUTSIDE);
	ck_assert_uint_eq(s.n, 9);

	/* nothing new: no more verdicts; one gone: forgotten */
	procwatch_stats(w, &st);
	ck_assert_uint_eq(st.procs, 14);
	rm_pid(root, 200);
	ck_assert_int_eq(procwatch_scan(w), 0);
	ck_assert_uint_eq(s.n, 9);
	procwatch_stats(w, &st);
	ck_assert_uint_eq(st.procs, 13);
	ck_assert_int_eq(procwatch_finish(w), 0);
	ck_assert_uint_eq(s.n, 9);
	done(w, root);
}
END_TEST

/* The game's pgrp is the run's only because it leads it: a process in
 * the watcher's group (which the game did not lead) is not the run's. */
START_TEST(inherited_group_is_not_the_runs)
{
	static const pid_t run[] = { 60 };
	struct seen s = { 0 };
	char *root = base_tree();
	struct procwatch_config cfg = {
		.source = PROCWATCH_SCAN, .run_roots = run, .n_run_roots = 1, .self = 50,
		.fn = collect, .ctx = &s,
	};
	struct procwatch *w;

	put_proc(root, 60, "game", 50, 50, 40, 0x400000, 0, 0);  /* in the watcher's group */
	ck_assert_int_eq(procwatch_start(&w, &cfg), 0);
	put_proc(root, 70, "vim", 40, 50, 40, 0x400000, 0, 0);
	put_proc(root, 71, "game-child", 60, 50, 40, 0x400000, 0, 0);
	ck_assert_int_eq(procwatch_scan(w), 0);
	expect(&s, 70, '!', PROCWATCH_OUTSIDE);
	expect(&s, 71, '-', PROCWATCH_RUN);
	procwatch_finish(w);
	done(w, root);
}
END_TEST

/* proc/loadavg's last pid gates the listing: unmoved, proc/ is not read. */
START_TEST(loadavg_gate)
{
	struct seen s = { 0 };
	char *root = base_tree();
	struct procwatch_stats st;
	struct procwatch *w;

	test_put(root, "proc/loadavg", "0.10 0.20 0.30 1/80 100\n");
	w = start(&s, NULL);
	put_proc(root, 400, "sshd", 1, 400, 400, 0x400100, 0, 0);
	ck_assert_int_eq(procwatch_scan(w), 0);
	ck_assert_uint_eq(s.n, 0);
	procwatch_stats(w, &st);
	ck_assert_uint_eq(st.listings, 1);   /* the start's */
	/* in place, as the kernel's file changes (the watcher keeps it open) */
	{
		char *path = xasprintf("%s/proc/loadavg", root);
		FILE *f = fopen(path, "r+");

		ck_assert_ptr_nonnull(f);
		fputs("0.10 0.20 0.30 1/81 400\n", f);
		fclose(f);
		free(path);
	}
	ck_assert_int_eq(procwatch_scan(w), 0);
	expect(&s, 400, '!', PROCWATCH_OUTSIDE);
	procwatch_stats(w, &st);
	ck_assert_uint_eq(st.scans, 2);
	ck_assert_uint_eq(st.listings, 2);
	procwatch_finish(w);
	done(w, root);
}
END_TEST

/* Two snapshots of other sessions' processes: a second of CPU or more
 * counts, less is a '-' line, the run's session and no session are not
 * looked at, reaped children's time (cutime) counts, an exit is said. */
START_TEST(busy_sessions)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct seen s = { 0 };
	char *root = base_tree();
	struct procwatch *w;

	put_proc(root, 500, "make", 1, 500, 500, 0x400000, 100, 0);
	put_file(root, 500, "sessionid", "7");
	put_file(root, 500, "cgroup", "0::/user.slice/user-1000.slice/session-7.scope\n");
	put_proc(root, 501, "top", 1, 501, 501, 0x400000, 100, 0);
	put_file(root, 501, "sessionid", "7");
	put_proc(root, 502, "vim", 40, 502, 40, 0x400000, 100, 0);
	put_file(root, 502, "sessionid", "3");              /* the run's login session */
	put_proc(root, 503, "journald", 1, 503, 503, 0x400100, 100, 0);
	put_file(root, 503, "sessionid", "4294967295");     /* a service */
	put_proc(root, 504, "bash", 1, 504, 504, 0x400000, 100, 0);
	put_file(root, 504, "sessionid", "8");
	put_proc(root, 505, "less", 1, 505, 505, 0x400000, 100, 0);
	put_file(root, 505, "sessionid", "8");
	w = start(&s, NULL);

	put_proc(root, 500, "make", 1, 500, 500, 0x400000, 100 + (unsigned long)hz * 3 / 2, 0);
	put_proc(root, 501, "top", 1, 501, 501, 0x400000, 100 + (unsigned long)hz / 2, 0);
	put_proc(root, 502, "vim", 40, 502, 40, 0x400000, 100 + (unsigned long)hz * 5, 0);
	put_proc(root, 503, "journald", 1, 503, 503, 0x400100, 100 + (unsigned long)hz * 5, 0);
	put_proc(root, 504, "bash", 1, 504, 504, 0x400000, 100, hz * 2);  /* its commands, reaped */
	rm_pid(root, 505);
	ck_assert_int_eq(procwatch_finish(w), 0);

	expect(&s, 500, '!', PROCWATCH_BUSY);
	ck_assert_int_eq(s.v[find(&s, 500)].cpu_ticks, hz * 3 / 2);
	ck_assert_uint_eq(s.v[find(&s, 500)].sessionid, 7);
	expect(&s, 501, '-', PROCWATCH_BUSY);
	ck_assert_int_eq(find(&s, 502), -1);
	ck_assert_int_eq(find(&s, 503), -1);
	expect(&s, 504, '!', PROCWATCH_BUSY);
	expect(&s, 505, '-', PROCWATCH_BUSY);
	ck_assert_int_eq(s.v[find(&s, 505)].cpu_ticks, -1);
	ck_assert_uint_eq(s.n, 4);
	done(w, root);
}
END_TEST

/* A real kernel thread's stat (node_exporter's rcu_preempt, state I,
 * flags 2129984 = 0x208040: PF_KTHREAD set) appearing as a new pid. */
START_TEST(real_kernel_thread)
{
	struct seen s = { 0 };
	char *root = base_tree();
	struct procwatch *w = start(&s, NULL);
	char *text = NULL;

	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/11/stat"), &text, NULL), 0);
	put_file(root, 11, "stat", text);
	free(text);
	ck_assert_int_eq(procwatch_scan(w), 0);
	expect(&s, 11, '-', PROCWATCH_KERNEL);
	ck_assert_str_eq(s.v[0].comm, "rcu_preempt");
	procwatch_finish(w);
	done(w, root);
}
END_TEST

/* sysstat's snapshots of one machine: root1 then root3, where pid 9009
 * (WebExtensions, firefox 8741's child) has exited. With firefox as the
 * run's root its child is the run's; nothing is new, nothing counted
 * (firefox's 8741 has no sessionid file: no busy-session candidates). */
START_TEST(real_snapshots)
{
	static const pid_t run[] = { 8741 };
	struct seen s = { 0 };
	char *root = test_tmpdir();
	char *link = xasprintf("%s/proc", root);
	struct procwatch_config cfg = {
		.source = PROCWATCH_SCAN, .run_roots = run, .n_run_roots = 1, .self = 1,
		.fn = collect, .ctx = &s,
	};
	struct procwatch_stats st;
	struct procwatch *w;

	ck_assert_int_eq(symlink(testdata_path("procfs/sysstat/root1/proc"), link), 0);
	fsroot_set(root);
	ck_assert_int_eq(procwatch_start(&w, &cfg), 0);
	procwatch_stats(w, &st);
	ck_assert_uint_eq(st.procs, 4);
	unlink(link);
	ck_assert_int_eq(symlink(testdata_path("procfs/sysstat/root3/proc"), link), 0);
	ck_assert_int_eq(procwatch_scan(w), 0);
	procwatch_stats(w, &st);
	/* the three snapshots' loadavg files are the same line (sysstat's
	 * tests copy it): the last pid did not move, so proc/ is not listed
	 * and the exit is not noticed; nothing new can have started */
	ck_assert_uint_eq(st.listings, 1);
	ck_assert_uint_eq(st.procs, 4);
	ck_assert_int_eq(procwatch_finish(w), 0);
	ck_assert_uint_eq(s.n, 0);
	free(link);
	done(w, root);
}
END_TEST

START_TEST(environ_and_scope)
{
	static const char env[] = "A=1\0HITCHBENCH_RUN=abc\0B=2";
	char scope[32];

	ck_assert(procwatch_environ_has(env, sizeof(env) - 1, PROCWATCH_MARKER_ENV, "abc"));
	ck_assert(!procwatch_environ_has(env, sizeof(env) - 1, PROCWATCH_MARKER_ENV, "ab"));
	ck_assert(!procwatch_environ_has(env, sizeof(env) - 1, PROCWATCH_MARKER_ENV, "abcd"));
	ck_assert(!procwatch_environ_has("XHITCHBENCH_RUN=abc", 19, PROCWATCH_MARKER_ENV, "abc"));
	ck_assert(procwatch_environ_has("HITCHBENCH_RUN=abc", 18, PROCWATCH_MARKER_ENV, "abc"));   /* no final NUL */
	/* any value */
	ck_assert(procwatch_environ_has(env, sizeof(env) - 1, PROCWATCH_MARKER_ENV, NULL));
	ck_assert(procwatch_environ_has("HITCHBENCH_HARNESS=", 19, PROCWATCH_HARNESS_ENV, NULL));
	ck_assert(!procwatch_environ_has("HITCHBENCH_HARNESS", 18, PROCWATCH_HARNESS_ENV, NULL));
	ck_assert(!procwatch_environ_has(env, sizeof(env) - 1, PROCWATCH_HARNESS_ENV, NULL));
	procwatch_scope("/user.slice/user-1000.slice/session-12.scope", scope, sizeof(scope));
	ck_assert_str_eq(scope, "session-12.scope");
	procwatch_scope("/", scope, sizeof(scope));
	ck_assert_str_eq(scope, "");
}
END_TEST

TEST_SUITE(procwatch_suite)
{
	Suite *s = suite_create("procwatch");
	TCase *tc = tcase_create("procwatch");

	tcase_add_test(tc, new_processes_by_rule);
	tcase_add_test(tc, inherited_group_is_not_the_runs);
	tcase_add_test(tc, loadavg_gate);
	tcase_add_test(tc, busy_sessions);
	tcase_add_test(tc, real_kernel_thread);
	tcase_add_test(tc, real_snapshots);
	tcase_add_test(tc, environ_and_scope);
	suite_add_tcase(s, tc);
	return s;
}
