/*
 * common/system/daemoncost.c: the name list, the status and sched parsers on
 * buffers, and the cost of the daemons between the two real /proc trees of
 * tests/fixtures/daemoncost (a stand-in slurmd, an exempt and a departed
 * slurmstepd, a real four-thread munged); the noise.daemon.* keys; one
 * snapshot of this machine.
 */
#include "system/daemoncost.h"
#include "system/fsroot.h"
#include "system/hostnoise.h"
#include "text/kvfile.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(names)
{
	struct strbuf why = STRBUF_INIT;
	struct daemon_names n;

	ck_assert_int_eq(daemon_names_parse(DAEMON_NAMES_DEFAULT, &n, &why), 0);
	ck_assert_uint_eq(n.n, 4);
	ck_assert_str_eq(n.name[1], "slurmstepd");
	ck_assert_int_eq(daemon_names_parse(" a,b ,\tc,", &n, &why), 0);
	ck_assert_uint_eq(n.n, 3);
	ck_assert_str_eq(n.name[2], "c");
	ck_assert_int_eq(daemon_names_parse("", &n, &why), 0);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_int_eq(daemon_names_parse("abcdefghijklmnop", &n, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "'abcdefghijklmnop' is longer than a process name (15)");
	strbuf_reset(&why);
	ck_assert_int_eq(daemon_names_parse("a b c d e f g h i", &n, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "more than 8 names");
	strbuf_reset(&why);
	ck_assert_int_eq(daemon_names_parse("munged slurmd munged", &n, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "'munged' is named twice");
	strbuf_reset(&why);
	/* issue 38: any comm is a name (kworker/0:1, (sd-pam), a=b), but one
	 * with a control byte */
	ck_assert_int_eq(daemon_names_parse("kworker/0:1 (sd-pam) php-fpm: a=b a.cpu_ms", &n, &why), 0);
	ck_assert_uint_eq(n.n, 5);
	ck_assert_str_eq(n.name[3], "a=b");
	ck_assert_int_eq(daemon_names_parse("slurmd a\x01" "b", &n, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "'a\x01" "b' has a control byte (0x01)");
	strbuf_reset(&why);
	ck_assert_int_eq(daemon_names_parse("a\x7f", &n, &why), -EINVAL);
	strbuf_release(&why);
}
END_TEST

/* issue 38: a name inside a key is encoded (docs/formats.md, "Daemons'
 * cost"), so that hostile names still make a bench.txt that parses, with
 * each name's keys its own. */
START_TEST(names_as_keys)
{
	static const struct {
		const char *name, *key;
	} enc[] = {
		{ "slurmd", "slurmd" },
		{ "php-fpm", "php-fpm" },
		{ "kworker/0:1", "kworker_2f0_3a1" },
		{ "(sd-pam)", "_28sd-pam_29" },
		{ "rcu_sched", "rcu_5fsched" },
		{ "a=b", "a_3db" },
		{ "a.cpu_ms", "a_2ecpu_5fms" },
		{ "\xff\xfe", "_ff_fe" },
		{ "#~~~~~~~~~~~~~~", "_23_7e_7e_7e_7e_7e_7e_7e_7e_7e_7e_7e_7e_7e_7e" },
	};
	struct strbuf why = STRBUF_INIT;
	struct daemon_cost c;
	struct kvfile kf, back;
	char key[DAEMON_KEY_NAME_MAX], *text;
	int line = 0;

	for (size_t i = 0; i < ARRAY_SIZE(enc); i++) {
		daemon_key_name(enc[i].name, key, sizeof(key));
		ck_assert_str_eq(key, enc[i].key);
		ck_assert(kvfile_valid_key(key));
	}
	/* a short buffer: cut at a whole byte's code */
	daemon_key_name("a/b", key, 5);
	ck_assert_str_eq(key, "a_2f");

	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(daemon_names_parse("a=b kworker/0:1 a a.cpu_ms a_2ecpu_5fms", &c.names, &why), 0);
	for (size_t i = 0; i < c.names.n; i++) {
		snprintf(c.d[i].pids, sizeof(c.d[i].pids), "%zu", 100 + i);
		c.d[i].switches = i;
	}
	kvfile_init(&kf);
	daemon_cost_write(&c, "profile t.ini", &kf);
	for (size_t i = 0; i < kf.n; i++)
		ck_assert_msg(kvfile_valid_key(kf.items[i].key), "'%s' is no key", kf.items[i].key);
	text = kvfile_format(&kf);
	kvfile_init(&back);
	ck_assert_int_eq(kvfile_parse(&back, text, &line), 0);
	ck_assert_uint_eq(back.n, kf.n);
	/* each name's keys its own: as many pairs as distinct keys */
	for (size_t i = 0; i < back.n; i++)
		for (size_t j = i + 1; j < back.n; j++)
			ck_assert_str_ne(back.items[i].key, back.items[j].key);
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.format"), "2");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.names"),
			 "a=b kworker/0:1 a a.cpu_ms a_2ecpu_5fms (profile t.ini)");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.a_3db.pids"), "100");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.kworker_2f0_3a1.pids"), "101");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.a.pids"), "102");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.a.cpu_ms"), "0");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.a_2ecpu_5fms.wakeups"), "3");
	ck_assert_str_eq(kvfile_get(&back, "noise.daemon.a_5f2ecpu_5f5fms.wakeups"), "4");
	ck_assert_ptr_null(kvfile_get(&back, "noise.daemon.a"));
	free(text);
	kvfile_release(&back);
	kvfile_release(&kf);
	strbuf_release(&why);
}
END_TEST

START_TEST(parsers)
{
	uint64_t v = 0;
	char *text = NULL;

	ck_assert_int_eq(read_file(fixture_path("daemoncost/t1/proc/7305/task/7305/status"), &text, NULL), 0);
	ck_assert_int_eq(daemon_status_switches(text, &v), 0);
	free(text);
	ck_assert_int_eq(daemon_status_switches("voluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t5\n", &v), 0);
	ck_assert_uint_eq(v, 12);
	ck_assert_int_eq(daemon_status_switches("Name:\tx\n", &v), -ENOENT);
	ck_assert_int_eq(daemon_status_switches("voluntary_ctxt_switches:\tx\n", &v), -EINVAL);
	/* issue 38: one of the two lines alone is not read as the other at 0 */
	v = 99;
	ck_assert_int_eq(daemon_status_switches("voluntary_ctxt_switches:\t7\n", &v), -EINVAL);
	ck_assert_int_eq(daemon_status_switches("Name:\tx\nnonvoluntary_ctxt_switches:\t5\n", &v), -EINVAL);
	ck_assert_uint_eq(v, 99);
	ck_assert_int_eq(daemon_status_switches("voluntary_ctxt_switches:\t18446744073709551615\n"
						"nonvoluntary_ctxt_switches:\t1\n", &v), -EINVAL);
	/* this kernel's sched has no wakeups count */
	ck_assert_int_eq(read_file(fixture_path("daemoncost/t1/proc/7305/sched"), &text, NULL), 0);
	ck_assert_int_eq(daemon_sched_wakeups(text, &v), -ENOENT);
	free(text);
	/* a kernel with schedstats: 6.x's "stats." lines, 4.x's "se.statistics." */
	ck_assert_int_eq(daemon_sched_wakeups("nr_switches : 40\n"
					      "stats.nr_wakeups_sync                        :                    3\n"
					      "stats.nr_wakeups                             :                   31\n",
					      &v), 0);
	ck_assert_uint_eq(v, 31);
	ck_assert_int_eq(daemon_sched_wakeups("se.statistics.nr_wakeups_local : 2\n"
					      "se.statistics.nr_wakeups : 17\n", &v), 0);
	ck_assert_uint_eq(v, 17);
	ck_assert_int_eq(daemon_sched_wakeups("stats.nr_wakeups : many\n", &v), -EINVAL);
}
END_TEST

/* A snapshot of one of the fixture trees: a scan, or of pids[] when npids. */
static void take_of(const char *tree, const struct daemon_names *n, const pid_t *pids, size_t npids,
		    const pid_t *exempt, size_t nexempt, struct daemon_snapshot *s)
{
	struct noise_reader r;
	char *root = xasprintf("%s/%s", fixture_path("daemoncost"), tree);

	/* the reader wants a proc/stat: the test's root has none, so open
	 * this machine's and point the root fd at the tree */
	ck_assert_int_eq(noise_reader_open(&r), 0);
	close(r.root_fd);
	fsroot_set(root);
	r.root_fd = fsroot_open("", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(r.root_fd, 0);
	if (npids)
		ck_assert_int_eq(daemon_snapshot_take_pids(&r, n, pids, npids, exempt, nexempt, s), 0);
	else
		ck_assert_int_eq(daemon_snapshot_take(&r, n, exempt, nexempt, s), 0);
	noise_reader_close(&r);
	fsroot_set(NULL);
	free(root);
}

static void take(const char *tree, const struct daemon_names *n, const pid_t *exempt, size_t nexempt,
		 struct daemon_snapshot *s)
{
	take_of(tree, n, NULL, 0, exempt, nexempt, s);
}

/* pids.txt's pid of what */
static pid_t fixture_pid(const char *what)
{
	struct kvfile kf;
	const char *v;
	int pid = -1, line = 0;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_read(&kf, fixture_path("daemoncost/pids.txt"), &line), 0);
	v = kvfile_get(&kf, what);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(safe_atoi(v, &pid), 0);
	kvfile_release(&kf);
	return pid;
}

START_TEST(window)
{
	struct daemon_snapshot *s = zalloc(2 * sizeof(*s));
	struct strbuf why = STRBUF_INIT;
	struct daemon_names n;
	struct daemon_cost c;
	pid_t exempt[2] = { 1, fixture_pid("slurmstepd_ancestor") };
	char pids[16];
	struct kvfile kf;

	ck_assert_int_eq(daemon_names_parse("slurmd slurmstepd munged absentd", &n, &why), 0);
	take("t0", &n, exempt, 2, &s[0]);
	take("t1", &n, exempt, 2, &s[1]);
	ck_assert_uint_eq(s[0].nproc, 3); /* slurmd, the departing slurmstepd, munged */
	ck_assert_uint_eq(s[0].nthr, 6);  /* munged's four threads */
	ck_assert(!s[0].truncated);
	daemon_cost_diff(&n, &s[0], &s[1], 100, &c);

	/* slurmd: 2 -> 9 ticks of 10 ms, 23 -> 72 switches */
	snprintf(pids, sizeof(pids), "%d", (int)fixture_pid("slurmd"));
	ck_assert_double_eq_tol(c.d[0].cpu_ms, 70, 1e-9);
	ck_assert_uint_eq(c.d[0].switches, 49);
	ck_assert(!c.d[0].have_wakeups);
	ck_assert_uint_eq(c.d[0].procs, 1);
	ck_assert_str_eq(c.d[0].pids, pids);
	/* slurmstepd: the ancestor exempt, the other gone */
	ck_assert_uint_eq(c.d[1].procs, 0);
	ck_assert_uint_eq(c.d[1].gone, 1);
	ck_assert_str_eq(c.d[1].pids, "none");
	ck_assert_double_eq(c.d[1].cpu_ms, 0);
	/* munged: its four threads summed, no CPU tick in the second */
	ck_assert_uint_eq(c.d[2].switches, 142);
	ck_assert_double_eq(c.d[2].cpu_ms, 0);
	/* absent */
	ck_assert_uint_eq(c.d[3].procs, 0);
	ck_assert_uint_eq(c.d[3].switches, 0);

	kvfile_init(&kf);
	daemon_cost_write(&c, "default list", &kf);
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.format"), "2");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.names"), "slurmd slurmstepd munged absentd (default list)");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.slurmd.cpu_ms"), "70");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.slurmd.wakeups"), "49");
	ck_assert_ptr_null(kvfile_get(&kf, "noise.daemon.slurmd.sched_wakeups"));
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.slurmd.pids"), pids);
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.slurmstepd.gone"), "1");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.munged.wakeups"), "142");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.absentd.pids"), "none");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.absentd.cpu_ms"), "0");
	ck_assert_str_eq(kvfile_get(&kf, "noise.daemon.absentd.wakeups"), "0");
	ck_assert_ptr_null(kvfile_get(&kf, "noise.daemon.truncated"));
	kvfile_release(&kf);

	/* the window's start read from a list of pids, as the runner does
	 * (a pid that is gone, one exempt, one of another name: left out),
	 * and without the sched files: the same figures */
	{
		pid_t list[] = { 99999, fixture_pid("slurmstepd_gone"), fixture_pid("slurmstepd_ancestor"),
				 fixture_pid("munged"), fixture_pid("slurmd") };
		struct daemon_cost c2;

		s[0].skip_sched = true;
		take_of("t0", &n, list, ARRAY_SIZE(list), exempt, 2, &s[0]);
		ck_assert_uint_eq(s[0].nproc, 3);
		ck_assert_uint_eq(s[0].nthr, 6);
		daemon_cost_diff(&n, &s[0], &s[1], 100, &c2);
		ck_assert_mem_eq(c2.d, c.d, sizeof(c.d));
	}

	/* a process that came during the window counts all it has */
	daemon_cost_diff(&n, &s[1], &s[1], 100, &c);
	ck_assert_uint_eq(c.d[0].switches, 0);
	s[0].nproc = s[0].nthr = 0;
	daemon_cost_diff(&n, &s[0], &s[1], 100, &c);
	ck_assert_double_eq_tol(c.d[0].cpu_ms, 90, 1e-9);
	ck_assert_uint_eq(c.d[0].switches, 72);
	free(s);
	strbuf_release(&why);
}
END_TEST

START_TEST(wakeups_counted)
{
	/* a made-up pair of snapshots with a sched count on every thread */
	struct daemon_snapshot *s = zalloc(2 * sizeof(*s));
	struct strbuf why = STRBUF_INIT;
	struct daemon_names n;
	struct daemon_cost c;

	ck_assert_int_eq(daemon_names_parse("slurmd", &n, &why), 0);
	for (int i = 0; i < 2; i++) {
		s[i].nproc = 1;
		s[i].proc[0] = (struct daemon_proc){ .pid = 10, .starttime = 5, .ticks = 100 + 3 * i };
		s[i].nthr = 2;
		s[i].thr[0] = (struct daemon_thread){ .tid = 10, .starttime = 5, .switches = 50 + 7 * i,
						      .wakeups = 40 + 6 * i, .have_wakeups = true };
		s[i].thr[1] = (struct daemon_thread){ .tid = 11, .starttime = 6, .switches = 9 + i,
						      .wakeups = 8 + i, .have_wakeups = true };
	}
	daemon_cost_diff(&n, &s[0], &s[1], 250, &c);
	ck_assert_double_eq_tol(c.d[0].cpu_ms, 12, 1e-9);
	ck_assert_uint_eq(c.d[0].switches, 8);
	ck_assert(c.d[0].have_wakeups);
	ck_assert_uint_eq(c.d[0].wakeups, 7);
	/* the same pid with another start time is another process */
	s[1].proc[0].starttime = 99;
	daemon_cost_diff(&n, &s[0], &s[1], 250, &c);
	ck_assert_double_eq_tol(c.d[0].cpu_ms, 103 * 4.0, 1e-9);
	ck_assert_uint_eq(c.d[0].gone, 1);
	free(s);
	strbuf_release(&why);
}
END_TEST

START_TEST(live)
{
	struct daemon_snapshot *s = zalloc(sizeof(*s));
	struct strbuf why = STRBUF_INIT;
	struct noise_reader r;
	struct daemon_names n;
	pid_t anc[64];
	size_t k;
	char comm[32];

	/* this test program by its own name: found, unless exempt */
	ck_assert_int_eq(fsroot_read_line("proc/self/comm", comm, sizeof(comm)), 0);
	ck_assert_int_eq(daemon_names_parse(comm, &n, &why), 0);
	if (noise_reader_open(&r) < 0) {
		free(s);
		test_skip("no readable proc/stat here");
	}
	ck_assert_int_eq(daemon_snapshot_take(&r, &n, NULL, 0, s), 0);
	ck_assert_uint_ge(s->nproc, 1);
	k = daemon_ancestors(&r, getpid(), anc, 64);
	ck_assert_uint_ge(k, 1);
	ck_assert_int_eq(anc[0], getpid());
	if (k > 1)
		ck_assert_int_eq(anc[1], getppid());
	ck_assert_int_eq(daemon_snapshot_take(&r, &n, anc, k, s), 0);
	for (size_t i = 0; i < s->nproc; i++)
		ck_assert_int_ne(s->proc[i].pid, getpid());
	noise_reader_close(&r);
	free(s);
	strbuf_release(&why);
}
END_TEST

TEST_SUITE(daemoncost_suite)
{
	Suite *s = suite_create("daemoncost");
	TCase *tc = tcase_create("daemoncost");

	tcase_add_test(tc, names);
	tcase_add_test(tc, names_as_keys);
	tcase_add_test(tc, parsers);
	tcase_add_test(tc, window);
	tcase_add_test(tc, wakeups_counted);
	tcase_add_test(tc, live);
	suite_add_tcase(s, tc);
	return s;
}
