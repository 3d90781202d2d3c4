/*
 * common/system/fsroot.c: /proc/PID/stat parsing on real files other projects
 * test against (tests/fixtures/testdata/procfs, see MANIFEST.md), and
 * the swappable root's readers on a tree built in a temporary directory.
 * Expected values are the ones the source projects assert, or read off
 * the files by eye (each says which).
 */
#include "system/fsroot.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void parse_testdata(const char *rel, struct proc_stat *st)
{
	const char *path = testdata_path(rel);
	char *text;
	int r = read_file(path, &text, NULL);

	ck_assert_msg(r == 0, "cannot read '%s': %s", path, strerror(-r));
	r = proc_stat_parse(text, st);
	ck_assert_msg(r == 0, "%s: %s", path, strerror(-r));
	free(text);
}

START_TEST(stat_vim)
{
	struct proc_stat st;

	/* utime, stime and starttime as prometheus/procfs's own tests assert */
	parse_testdata("procfs/prometheus_procfs/proc/26231/stat", &st);
	ck_assert_int_eq(st.pid, 26231);
	ck_assert_str_eq(st.comm, "vim");
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_eq(st.ppid, 5392);
	ck_assert_int_eq(st.pgrp, 7446);
	ck_assert_int_eq(st.session, 5392);
	ck_assert_uint_eq(st.utime, 1677);
	ck_assert_uint_eq(st.stime, 44);
	ck_assert_uint_eq(st.starttime, 82375);
}
END_TEST

START_TEST(stat_comm_with_parens)
{
	struct proc_stat st;

	/* the field "((a b ) ( c d) )" holds the comm "(a b ) ( c d) " (as
	 * procfs's TestProcStatComm says), and a stray second line
	 * "#!/bin/cat /proc/self/stat" follows the record; the file's pid
	 * field says 1020, whatever its directory */
	parse_testdata("procfs/prometheus_procfs/proc/584/stat", &st);
	ck_assert_int_eq(st.pid, 1020);
	ck_assert_str_eq(st.comm, "(a b ) ( c d) ");
	ck_assert_int_eq(st.state, 'R');
	ck_assert_int_eq(st.ppid, 28378);
	ck_assert_int_eq(st.pgrp, 1020);
	ck_assert_int_eq(st.session, 28378);
	ck_assert_uint_eq(st.utime, 0);
	ck_assert_uint_eq(st.stime, 0);
	ck_assert_uint_eq(st.starttime, 10839175);
}
END_TEST

START_TEST(stat_comm_script)
{
	struct proc_stat st;

	parse_testdata("procfs/gopsutil/process/testdata/linux/68927/stat", &st);
	ck_assert_int_eq(st.pid, 68927);
	ck_assert_str_eq(st.comm, "test(cmd).sh");
	ck_assert_int_eq(st.state, 'S');
	ck_assert_int_eq(st.ppid, 68044);
	ck_assert_int_eq(st.pgrp, 68927);
	ck_assert_int_eq(st.session, 68044);
	ck_assert_uint_eq(st.starttime, 114413973);
}
END_TEST

START_TEST(stat_int64_extremes)
{
	struct proc_stat st;

	/* a kernel thread (pid field 33) with INT64_MIN/MAX in cutime and
	 * cstime, fields the parser skips: they must not upset the rest */
	parse_testdata("procfs/prometheus_procfs/proc/26232/stat", &st);
	ck_assert_int_eq(st.pid, 33);
	ck_assert_str_eq(st.comm, "ata_sff");
	ck_assert_int_eq(st.state, 'S');
	ck_assert_int_eq(st.ppid, 2);
	ck_assert_int_eq(st.pgrp, 0);
	ck_assert_int_eq(st.session, 0);
	ck_assert_uint_eq(st.utime, 0);
	ck_assert_uint_eq(st.stime, 0);
	ck_assert_uint_eq(st.starttime, 5);
}
END_TEST

START_TEST(stat_node_exporter_kthread)
{
	struct proc_stat st;
	char *text;
	unsigned long long want_start;

	/* an idle kernel thread, state I (kernel >= 4.14); starttime is read
	 * from the file here by counting fields, independently of the parser */
	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/11/stat"), &text, NULL),
			 0);
	{
		const char *p = strrchr(text, ')') + 2;

		for (int field = 3; field < 22; field++)
			p = strchr(p, ' ') + 1;
		want_start = strtoull(p, NULL, 10);
	}
	ck_assert_int_eq(proc_stat_parse(text, &st), 0);
	ck_assert_int_eq(st.state, 'I');
	ck_assert_int_eq(st.ppid, 2);
	ck_assert_uint_eq(st.starttime, want_start);
	free(text);
}
END_TEST

START_TEST(stat_refused)
{
	struct proc_stat st;

	memset(&st, 0x5a, sizeof(st));
	ck_assert_int_eq(proc_stat_parse("", &st), -EINVAL);
	ck_assert_int_eq(proc_stat_parse("not a stat line", &st), -EINVAL);
	ck_assert_int_eq(proc_stat_parse("12 (x", &st), -EINVAL);
	ck_assert_int_eq(proc_stat_parse("12 x) S 1 12 12", &st), -EINVAL);
	ck_assert_int_eq(proc_stat_parse(") 12 (x", &st), -EINVAL);
	/* cut short after the session */
	ck_assert_int_eq(proc_stat_parse("12 (x) S 1 12 12 0 -1 4194304", &st), -EINVAL);
	ck_assert_int_eq(proc_stat_parse("pid (x) S 1 12 12 0 -1 4194304 0 0 0 0 1 2 0 0 20 0 1 0 9",
					 &st), -EINVAL);
	/* nothing written on failure */
	ck_assert_int_eq(st.pid, 0x5a5a5a5a);
}
END_TEST

START_TEST(stat_long_comm)
{
	struct proc_stat st;
	struct strbuf sb = STRBUF_INIT;

	/* longer than the struct holds: truncated, not overflowed */
	strbuf_addstr(&sb, "7 (");
	for (int i = 0; i < 100; i++)
		strbuf_addch(&sb, 'a' + i % 26);
	strbuf_addstr(&sb, ") S 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 99 0 0");
	ck_assert_int_eq(proc_stat_parse(sb.buf, &st), 0);
	ck_assert_uint_eq(strlen(st.comm), sizeof(st.comm) - 1);
	ck_assert_int_eq(strncmp(st.comm, "abcdefghijklmnopqrstuvwxyz", 26), 0);
	ck_assert_uint_eq(st.utime, 3);
	ck_assert_uint_eq(st.stime, 4);
	ck_assert_uint_eq(st.starttime, 99);
	strbuf_release(&sb);
}
END_TEST

static char *root;

static void put(const char *rel, const char *text)
{
	test_put(root, rel, text);
}

static void root_setup(void)
{
	char *text;

	root = test_tmpdir();
	put("proc/sys/kernel/random/boot_id", "0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f\nsecond line\n");
	put("proc/loadavg", "0.10 0.20 0.30 1/200 4242");
	put("proc/empty", "");
	/* a real stat, under a pid of its own */
	ck_assert_int_eq(read_file(testdata_path("procfs/prometheus_procfs/proc/26231/stat"), &text,
				   NULL), 0);
	put("proc/26231/stat", text);
	free(text);
	put("proc/4242/stat", "garbage\n");
	fsroot_set(root);
}

static void root_teardown(void)
{
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
}

START_TEST(root_override)
{
	ck_assert_str_eq(fsroot(), root);
	fsroot_set(NULL);
	setenv(HB_ROOT_ENV, "/somewhere/else", 1);
	ck_assert_str_eq(fsroot(), "/somewhere/else");
	setenv(HB_ROOT_ENV, "", 1);
	ck_assert_str_eq(fsroot(), "/");
	unsetenv(HB_ROOT_ENV);
	ck_assert_str_eq(fsroot(), "/");
	fsroot_set(root);
	ck_assert_str_eq(fsroot(), root);
}
END_TEST

START_TEST(read_line)
{
	char buf[64];

	ck_assert_int_eq(fsroot_read_line("proc/sys/kernel/random/boot_id", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f");
	/* a leading slash means the same file */
	ck_assert_int_eq(fsroot_read_line("/proc/loadavg", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0.10 0.20 0.30 1/200 4242");
	ck_assert_int_eq(fsroot_read_line("proc/empty", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(fsroot_read_line("proc/missing", buf, sizeof(buf)), -ENOENT);
}
END_TEST

START_TEST(read_sizes)
{
	const char *text = "0.10 0.20 0.30 1/200 4242"; /* 25 bytes */
	char buf[64];
	char *all;

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(fsroot_read("proc/loadavg", buf, sizeof(buf)), 25);
	ck_assert_str_eq(buf, text);
	/* exactly fits with its NUL */
	ck_assert_int_eq(fsroot_read("proc/loadavg", buf, 26), 25);
	ck_assert_str_eq(buf, text);
	/* one byte short, or no room at all */
	ck_assert_int_eq(fsroot_read("proc/loadavg", buf, 25), -EOVERFLOW);
	ck_assert_int_eq(fsroot_read("proc/loadavg", buf, 4), -EOVERFLOW);
	ck_assert_int_eq(fsroot_read("proc/loadavg", buf, 0), -EOVERFLOW);
	ck_assert_int_eq(fsroot_read_line("proc/sys/kernel/random/boot_id", buf, 16), -EOVERFLOW);
	ck_assert_int_eq(fsroot_read("proc/empty", buf, 1), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(fsroot_read("proc", buf, sizeof(buf)), -EISDIR);

	ck_assert_int_eq(fsroot_read_all("proc/sys/kernel/random/boot_id", &all), 0);
	ck_assert_str_eq(all, "0fc3b0a5-7f6d-4b5e-9a53-b5a3c11d3e4f\nsecond line\n");
	free(all);
	ck_assert_int_eq(fsroot_read_all("proc/missing", &all), -ENOENT);
}
END_TEST

START_TEST(open_under_root)
{
	int fd = fsroot_open("proc/loadavg", O_RDONLY);
	char c;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, &c, 1), 1);
	ck_assert_int_eq(c, '0');
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
	ck_assert_int_eq(fsroot_open("proc/missing", O_RDONLY), -ENOENT);
}
END_TEST

START_TEST(stat_read)
{
	struct proc_stat st;

	ck_assert_int_eq(proc_stat_read(26231, &st), 0);
	ck_assert_str_eq(st.comm, "vim");
	ck_assert_uint_eq(st.utime, 1677);
	ck_assert_int_eq(proc_stat_read(4242, &st), -EINVAL);
	ck_assert_int_eq(proc_stat_read(1, &st), -ENOENT);
}
END_TEST

TEST_SUITE(fsroot_suite)
{
	Suite *s = suite_create("fsroot");
	TCase *parse = tcase_create("proc_stat_parse");
	TCase *tree = tcase_create("root");

	tcase_add_test(parse, stat_vim);
	tcase_add_test(parse, stat_comm_with_parens);
	tcase_add_test(parse, stat_comm_script);
	tcase_add_test(parse, stat_int64_extremes);
	tcase_add_test(parse, stat_node_exporter_kthread);
	tcase_add_test(parse, stat_refused);
	tcase_add_test(parse, stat_long_comm);
	suite_add_tcase(s, parse);

	tcase_add_checked_fixture(tree, root_setup, root_teardown);
	tcase_add_test(tree, root_override);
	tcase_add_test(tree, read_line);
	tcase_add_test(tree, read_sizes);
	tcase_add_test(tree, open_under_root);
	tcase_add_test(tree, stat_read);
	suite_add_tcase(s, tree);
	return s;
}
