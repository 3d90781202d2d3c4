/*
 * bench/target/remote.c: the start's batch line, the listing of a target's
 * batches (a batch running, ended, ended but its runner still finishing,
 * abandoned; runs done counted by each slot's last event), the prefix as
 * the remote shell sees it, and the host's records of remote batches (one
 * measuring now, one seen ended, one whose expected end has passed).
 */
#include "target/remote.h"
#include "system/fsroot.h"
#include "cmd/run-detach.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(start_line)
{
	char *id = NULL, *dir = NULL;
	double s = -1;

	ck_assert_int_eq(remote_start_parse("noise\nbatch 20261201T1Z-fake expected_s 26 dir /p/results/runs/20261201T1Z-fake\n",
					    &id, &s, &dir), 0);
	ck_assert_str_eq(id, "20261201T1Z-fake");
	ck_assert_str_eq(dir, "/p/results/runs/20261201T1Z-fake");
	ck_assert(s == 26);
	free(id);
	free(dir);
	ck_assert_int_eq(remote_start_parse("", &id, &s, &dir), -EINVAL);
	ck_assert_int_eq(remote_start_parse("batch x expected_s -1 dir /d\n", &id, &s, &dir), -EINVAL);
	ck_assert_int_eq(remote_start_parse("batch ../x expected_s 1 dir /d\n", &id, &s, &dir), -EINVAL);
	ck_assert_int_eq(remote_start_parse("batch x expected 1 dir /d\n", &id, &s, &dir), -EINVAL);
}
END_TEST

START_TEST(prefix_and_commands)
{
	struct ssh_target t = { 0 };
	const char *args[] = { "--window", "it's 2", NULL };
	char *p, *cmd;

	p = remote_prefix(&t);
	ck_assert_str_eq(p, "hitchbench");
	free(p);
	t.prefix = "~/lab/hb";
	p = remote_prefix(&t);
	ck_assert_str_eq(p, "lab/hb");
	free(p);
	t.prefix = "/opt/hb";
	p = remote_prefix(&t);
	ck_assert_str_eq(p, "/opt/hb");
	free(p);
	cmd = remote_start_command(&t, args);
	ck_assert_str_eq(cmd, "cd '/opt/hb' 2>/dev/null || exit 97; [ -f push.txt ] || exit 97; "
			      "HITCHBENCH_HARNESS=remote-start HITCHBENCH_RESULTS=results exec bin/hitchbench run --detach '--window' 'it'\\''s 2'");
	free(cmd);
	cmd = remote_list_command(&t, NULL, 0);
	ck_assert_ptr_nonnull(strstr(cmd, "for d in results/runs/*; do"));
	free(cmd);
	ck_assert(remote_batch_id_valid("20261201T1Z-fake"));
	ck_assert(!remote_batch_id_valid(".x") && !remote_batch_id_valid("a/b") && !remote_batch_id_valid(""));
}
END_TEST

/* A listing section: batch.txt with three slots and status (NULL: none),
 * runs.txt, runner.pid ("" none) and the stat (NULL: none). */
static void section(struct strbuf *sb, const char *id, const char *status, const char *runs, const char *pid,
		    const char *stat)
{
	strbuf_addf(sb, "@batch results/runs/%s\nformat=1\nbatch_id=%s\ngame=fake\n"
		    "slot.1=1 1 base -\nslot.2=2 1 base -\nslot.3=3 1 base -\n", id, id);
	if (status)
		strbuf_addf(sb, "status=%s\n", status);
	strbuf_addf(sb, "@runs\n%s@pid\n%s", runs, pid);
	if (stat)
		strbuf_addf(sb, "@stat\n%s", stat);
	strbuf_addstr(sb, "@end\n");
}

START_TEST(listing)
{
	struct strbuf sb = STRBUF_INIT, self = STRBUF_INIT;
	struct remote_list l;
	const char *why = NULL;
	char *stat = NULL, *start, pidline[64];
	size_t len;

	/* this process as a live runner: its pid and start time from its stat */
	ck_assert_int_eq(read_file("/proc/self/stat", &stat, &len), 0);
	start = strrchr(stat, ')');
	for (int f = 2; f < 22; f++)
		start = strchr(start + 1, ' ');
	snprintf(pidline, sizeof(pidline), "%d %.*s\n", (int)getpid(), (int)strcspn(start + 1, " "), start + 1);
	section(&sb, "a-running", NULL, "1 started\n1 done r1\n2 started\n", pidline, stat);
	section(&sb, "b-ended", "complete", "1 done r1\n2 invalid r2 x\n3 started\n3 done r3\n", "9 1\n", "");
	section(&sb, "c-finishing", "complete", "1 done r1\n2 done r2\n3 done r3\n", pidline, stat);
	section(&sb, "d-abandoned", NULL, "1 done r1\n2 invalid r2 x\n2 rerun\n3 started\n", "9 1\n", NULL);
	section(&sb, "e-foreground", "interrupted", "1 done r1\n2 aborted\n", "", NULL);
	remote_list_init(&l);
	ck_assert_int_eq(remote_list_parse(sb.buf, &l, &why), 0);
	ck_assert_uint_eq(l.n, 5);
	ck_assert_str_eq(l.v[0].id, "a-running");
	ck_assert_str_eq(l.v[0].dir, "results/runs/a-running");
	ck_assert_int_eq(l.v[0].state, REMOTE_RUNNING);
	ck_assert_uint_eq(l.v[0].done, 1);
	ck_assert_uint_eq(l.v[0].planned, 3);
	ck_assert_int_eq(l.v[1].state, REMOTE_ENDED);
	ck_assert_uint_eq(l.v[1].done, 3);
	ck_assert_str_eq(l.v[1].status, "complete");
	ck_assert_int_eq(l.v[2].state, REMOTE_RUNNING);   /* status written, runner still at its end */
	ck_assert_int_eq(l.v[3].state, REMOTE_ABANDONED);
	ck_assert_uint_eq(l.v[3].done, 1);                  /* slot 2 owes a rerun */
	ck_assert_int_eq(l.v[4].state, REMOTE_ENDED);
	ck_assert_uint_eq(l.v[4].done, 1);
	remote_list_release(&l);

	remote_list_init(&l);
	ck_assert_int_eq(remote_list_parse("stray\n", &l, &why), -EINVAL);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "@batch results/runs/x\nformat=1\nbatch_id=x\n@runs\n");
	ck_assert_int_eq(remote_list_parse(sb.buf, &l, &why), -EINVAL);
	ck_assert_str_eq(why, "no @pid");
	ck_assert_uint_eq(l.n, 0);
	remote_list_release(&l);
	free(stat);
	strbuf_release(&sb);
	strbuf_release(&self);
}
END_TEST

START_TEST(records)
{
	char tmpl[] = "/tmp/hb-remote.XXXXXX", *dir = mkdtemp(tmpl), *path;
	struct remote_batch seen = { .id = "b2", .state = REMOTE_ENDED, .status = "complete", .done = 3, .planned = 3 };
	struct argv_list busy;
	struct kvfile kf;
	time_t now = 1000000;

	ck_assert_ptr_nonnull(dir);
	ck_assert_int_eq(remote_record_write(dir, "hb", "b1", "/p/results/runs/b1", now, 100), 0);
	ck_assert_int_eq(remote_record_write(dir, "hb", "b2", "/p/results/runs/b2", now, 100), 0);
	ck_assert_int_eq(remote_record_write(dir, "hb", "b3", "/p/results/runs/b3", now - 500, 100), 0);
	ck_assert_int_eq(remote_record_look(dir, "hb", &seen), 0);
	path = remote_record_path(dir, "hb", "b1");
	ck_assert_int_eq(access(path, R_OK), 0);
	free(path);
	kvfile_init(&kf);
	ck_assert_int_eq(remote_record_read(dir, "hb", "b2", &kf), 0);
	ck_assert_str_eq(kvfile_get(&kf, "dir"), "/p/results/runs/b2");
	ck_assert_str_eq(kvfile_get(&kf, "expected_end_s"), "1000100");
	ck_assert_str_eq(kvfile_get(&kf, "state"), "complete");
	ck_assert_str_eq(kvfile_get(&kf, "runs_done"), "3");
	kvfile_release(&kf);
	kvfile_init(&kf);
	ck_assert_int_eq(remote_record_read(dir, "hb", "nosuch", &kf), -ENOENT);
	kvfile_release(&kf);
	argv_init(&busy);
	ck_assert_int_eq(remote_records_measuring(dir, "hb", now + 50, &busy), 0);
	ck_assert_uint_eq(busy.n, 1);   /* b1; b2 seen ended, b3 past its end */
	ck_assert(str_startswith(busy.v[0], "b1 "));
	argv_release(&busy);
	argv_init(&busy);
	ck_assert_int_eq(remote_records_measuring(dir, "other", now, &busy), 0);
	ck_assert_uint_eq(busy.n, 0);
	argv_release(&busy);
	remove_tree(dir);
}
END_TEST

/* A stat line of a fake process: pid, comm, ppid and start time. */
static void put_stat(const char *root, int pid, const char *comm, int ppid, unsigned long long start)
{
	char rel[64], *text;

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	text = xasprintf("%d (%s) S %d %d %d 0 -1 4194560 0 0 0 0 1 2 0 0 20 0 1 0 %llu 1000 100\n", pid, comm, ppid,
			 pid, pid, start);
	test_put(root, rel, text);
	free(text);
}

/* run --detach's wait for the session that started it: the nearest sshd
 * above our parent, found on a fixture tree (a shell under sshd under the
 * listener); gone, it is waited for no longer; a pid reused (another start
 * time) is gone too; without one, nothing is waited for. */
START_TEST(detach_login)
{
	char *root = test_tmpdir();
	struct detach_login l;
	int ppid = getppid();
	double w;

	put_stat(root, ppid, "sh", 4001, 500);
	put_stat(root, 4001, "sshd", 4000, 400);
	put_stat(root, 4000, "sshd", 1, 10);
	fsroot_set(root);
	detach_login_find(&l);
	ck_assert_int_eq(l.pid, 4001);
	ck_assert_uint_eq(l.starttime, 400);
	put_stat(root, 4001, "bash", 4000, 900);        /* the pid used again */
	w = detach_login_wait(&l, -1);                  /* at once (then the settle) */
	ck_assert_msg(w >= 0 && w < 1, "waited %f s", w);
	put_stat(root, ppid, "bash", 1, 500);           /* a terminal's shell: no sshd above */
	detach_login_find(&l);
	ck_assert_int_eq(l.pid, 0);
	ck_assert(detach_login_wait(&l, -1) == 0);
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
}
END_TEST

TEST_SUITE(remote_suite)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("remote");

	tcase_add_test(tc, start_line);
	tcase_add_test(tc, prefix_and_commands);
	tcase_add_test(tc, listing);
	tcase_add_test(tc, records);
	tcase_add_test(tc, detach_login);
	suite_add_tcase(s, tc);
	return s;
}
