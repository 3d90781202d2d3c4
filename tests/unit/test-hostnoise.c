/*
 * common/system/hostnoise.c: the /proc/stat, cpuinfo, PID/stat and children
 * parsers on buffers; snapshots and their difference on the fixture trees
 * of tests/fixtures/hostnoise (a guest with steal, bare metal, a guest
 * whose steal clock never moved, a kernel without schedstat), each with a
 * t0 and a t1 tree one second of made-up ticks apart; the limits; and one
 * snapshot of this machine.
 */
#include "system/fsroot.h"
#include "system/hostnoise.h"
#include "test.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const pid_t run_pids[] = { 100, 200, 201, 300 };
static const pid_t game_pids[] = { 200, 201 };

#define near(a, b) (fabs((a) - (b)) < 1e-9)

START_TEST(stat_lines)
{
	const char *text =
		"cpu  1060 10 220 5100 52 6 21 31 0 0\n"
		"cpu0 540 5 110 2540 25 4 11 10 0 0\n"
		"cpu3 520 5 110 2560 27 2 10 21 0 0\n"
		"intr 123456 0 9\n";
	struct noise_ticks all, cpu[2];
	int id[2];
	size_t n = 0;

	ck_assert_int_eq(noise_stat_parse(text, &all, cpu, id, 2, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(id[1], 3);
	ck_assert_uint_eq(all.f[NF_STEAL], 31);
	ck_assert_uint_eq(cpu[1].f[NF_SOFTIRQ], 10);
	ck_assert_uint_eq(noise_ticks_total(&all), 1060 + 10 + 220 + 5100 + 52 + 6 + 21 + 31);
	ck_assert_uint_eq(noise_ticks_busy(&all), 1060 + 10 + 220 + 6 + 21);
	/* more CPUs than room: counted, not kept */
	ck_assert_int_eq(noise_stat_parse(text, &all, cpu, id, 1, &n), 0);
	ck_assert_uint_eq(n, 2);
	/* an old kernel's four fields */
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\ncpu0 1 2 3 4\n", &all, cpu, id, 2, &n), 0);
	ck_assert_uint_eq(all.f[NF_STEAL], 0);
	/* cut inside the cpu lines, bad ones */
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\ncpu0 1 2", &all, cpu, id, 2, &n), -EOVERFLOW);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\ncpu", &all, cpu, id, 2, &n), -EOVERFLOW);
	/* issue 38: cut inside the next "cpu" too (once read as the end: a CPU short) */
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\ncp", &all, cpu, id, 2, &n), -EOVERFLOW);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\nc", &all, cpu, id, 2, &n), -EOVERFLOW);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\nintr 0", &all, cpu, id, 2, &n), 0);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4\ncpux 1 2 3 4\n", &all, cpu, id, 2, &n), -EINVAL);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 x 4\n", &all, cpu, id, 2, &n), -EINVAL);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3\n", &all, cpu, id, 2, &n), -EINVAL);
	ck_assert_int_eq(noise_stat_parse("cpu  1 2 3 4 5 6 7 8 9 10 11\n", &all, cpu, id, 2, &n), -EINVAL);
	ck_assert_int_eq(noise_stat_parse("intr 1\n", &all, cpu, id, 2, &n), -ENOENT);
}
END_TEST

START_TEST(cpuinfo_flags)
{
	char *text = NULL;

	ck_assert_int_eq(read_file(fixture_path("proc/cpuinfo-x86_64"), &text, NULL), 0);
	ck_assert_int_eq(noise_cpuinfo_hypervisor(text), 1);
	free(text);
	ck_assert_int_eq(noise_cpuinfo_hypervisor("flags\t\t: fpu vme hypervisorx sse\n"), 0);
	ck_assert_int_eq(noise_cpuinfo_hypervisor("flags\t\t: fpu hypervisor\nflags : fpu\n"), 1);
	ck_assert_int_eq(noise_cpuinfo_hypervisor("vmx flags\t: hypervisor\n"), -ENOENT);
	ck_assert_int_eq(noise_cpuinfo_hypervisor("processor : 0\nFeatures : fp asimd\n"), -ENOENT);
}
END_TEST

START_TEST(pid_lines)
{
	uint64_t t;
	pid_t p[2];

	ck_assert_int_eq(noise_pid_ticks("7 (a b) c) S 1 7 7 0 -1 0 0 0 0 0 11 22 33 44 20 0 1 0 5 0 0\n",
					 &t), 0);
	ck_assert_uint_eq(t, 110);
	ck_assert_int_eq(noise_pid_ticks("7 (x) S 1 7 7 0 -1 0 0 0 0 0 1 2 -3 4 20 0 1 0 5 0 0\n", &t),
			 -EINVAL);
	ck_assert_int_eq(noise_pid_ticks("garbage\n", &t), -EINVAL);
	ck_assert_int_eq(noise_children_parse("12 34 56 ", p, 2), 3);
	ck_assert_int_eq(p[1], 34);
	ck_assert_int_eq(noise_children_parse("", p, 2), 0);
	ck_assert_int_eq(noise_children_parse("12 x", p, 2), -EINVAL);
	ck_assert_int_eq(noise_children_parse("0 ", p, 2), -EINVAL);
}
END_TEST

/* Snapshots of TREE/t0 and TREE/t1, one second apart on the clock. */
static void snap_pair(const char *tree, struct noise_reader *r, struct noise_snapshot s[2])
{
	for (int t = 0; t < 2; t++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "hostnoise/%s/t%d", tree, t);
		fsroot_set(fixture_path(rel));
		ck_assert_int_eq(noise_reader_open(&r[t]), 0);
		noise_snapshot_init(&s[t], &r[t]);
		ck_assert_int_eq(noise_snapshot_take(&r[t], run_pids, ARRAY_SIZE(run_pids), game_pids,
						     ARRAY_SIZE(game_pids), &s[t]), 0);
	}
	fsroot_set(NULL);
	s[0].t_ns = 5 * NSEC_PER_SEC;
	s[1].t_ns = 6 * NSEC_PER_SEC;
}

static void snap_release(struct noise_reader *r, struct noise_snapshot s[2])
{
	for (int t = 0; t < 2; t++) {
		noise_snapshot_release(&s[t]);
		noise_reader_close(&r[t]);
	}
}

START_TEST(guest_with_steal)
{
	struct noise_reader r[2];
	struct noise_snapshot s[2];
	struct noise_figures f;
	struct kvfile kf;
	struct strbuf sb = STRBUF_INIT;

	snap_pair("steal", r, s);
	ck_assert_int_eq(r[0].hypervisor, 1);
	ck_assert_uint_eq(r[0].cpu_max, 2 + 4);
	ck_assert_uint_eq(s[1].ncpu, 2);
	ck_assert_uint_eq(s[1].run_procs, 4);
	ck_assert_uint_eq(s[1].game_procs, 2);
	ck_assert_uint_eq(s[1].game_threads, 3);
	ck_assert_int_eq(noise_diff(&s[0], &s[1], r[1].hypervisor, 100, &f), 0);
	ck_assert_uint_eq(f.cpus, 2);
	ck_assert(f.steal_known);
	/* 11 of 200 ticks stolen; cpu1 6 of its 100 */
	ck_assert(near(f.steal_pct, 5.5));
	ck_assert_str_eq(f.steal, "proc/stat steal; worst cpu1 6.00%");
	ck_assert(near(f.irq_pct, 3.5));
	ck_assert(near(f.softirq_pct, 3.0));
	/* the runner 5 ticks, the game 35 + 5, Xvfb none: 450 ms */
	ck_assert(near(f.run_cpu_ms, 450));
	ck_assert(near(f.game_cpu_ms, 400));
	/* busy 87 ticks = 870 ms, less the run's 450, over 2 CPUs x 1 s */
	ck_assert(near(f.foreign_cpu_pct, 21.0));
	ck_assert(f.have_runq);
	ck_assert(near(f.game_runq_ms, 23));
	ck_assert(near(f.game_runq_ms_per_s, 23));
	kvfile_init(&kf);
	noise_figures_write(&f, &kf);
	ck_assert_str_eq(kvfile_get(&kf, "noise.t0_ns"), "5000000000");
	ck_assert_str_eq(kvfile_get(&kf, "noise.steal_pct"), "5.50");
	ck_assert_str_eq(kvfile_get(&kf, "noise.foreign_cpu_pct"), "21.00");
	ck_assert_str_eq(kvfile_get(&kf, "noise.game_cpu_ms"), "400.000");
	ck_assert_str_eq(kvfile_get(&kf, "noise.game_runq_ms_per_s"), "23.000");
	ck_assert_ptr_null(kvfile_get(&kf, "noise.game_runq"));
	noise_figures_brief(&f, &sb);
	ck_assert_str_eq(sb.buf, "steal 5.50% foreign 21.00% irq 3.50% runq 23.0 ms/s");
	/* the same snapshot twice: no time passed */
	ck_assert_int_eq(noise_diff(&s[1], &s[1], 1, 100, &f), -EINVAL);
	kvfile_release(&kf);
	strbuf_release(&sb);
	snap_release(r, s);
}
END_TEST

START_TEST(bare_metal_and_zero_steal)
{
	struct noise_reader r[2];
	struct noise_snapshot s[2];
	struct noise_figures f;
	struct kvfile kf;
	struct strbuf sb = STRBUF_INIT;

	snap_pair("baremetal", r, s);
	ck_assert_int_eq(r[1].hypervisor, 0);
	ck_assert_int_eq(noise_diff(&s[0], &s[1], r[1].hypervisor, 100, &f), 0);
	ck_assert(!f.steal_known);
	ck_assert_str_eq(f.steal, "no steal clock: bare metal (no hypervisor flag in /proc/cpuinfo)");
	ck_assert(near(f.irq_pct, 3.5));
	kvfile_init(&kf);
	noise_figures_write(&f, &kf);
	ck_assert_str_eq(kvfile_get(&kf, "noise.steal_pct"), "-");
	noise_figures_brief(&f, &sb);
	ck_assert_str_eq(sb.buf, "steal - foreign 21.00% irq 3.50% runq 23.0 ms/s");
	kvfile_release(&kf);
	strbuf_release(&sb);
	snap_release(r, s);

	snap_pair("guest-nosteal", r, s);
	ck_assert_int_eq(r[1].hypervisor, 1);
	ck_assert_int_eq(noise_diff(&s[0], &s[1], r[1].hypervisor, 100, &f), 0);
	ck_assert(!f.steal_known);
	ck_assert_str_eq(f.steal, "no steal clock: a guest whose steal counter is 0 on every CPU since boot");
	/* no cpuinfo flags at all (not x86) and no steal: said without guessing */
	ck_assert_int_eq(noise_diff(&s[0], &s[1], -ENOENT, 100, &f), 0);
	ck_assert_str_eq(f.steal, "no steal clock: steal is 0 on every CPU since boot");
	snap_release(r, s);
}
END_TEST

START_TEST(no_schedstat)
{
	struct noise_reader r[2];
	struct noise_snapshot s[2];
	struct noise_figures f;
	struct kvfile kf;
	pid_t d[8];

	snap_pair("noschedstat", r, s);
	ck_assert(!s[1].have_schedstat);
	ck_assert_int_eq(noise_diff(&s[0], &s[1], r[1].hypervisor, 100, &f), 0);
	ck_assert(!f.have_runq);
	ck_assert(near(f.game_cpu_ms, 400));
	kvfile_init(&kf);
	noise_figures_write(&f, &kf);
	ck_assert_ptr_null(kvfile_get(&kf, "noise.game_runq_ms"));
	ck_assert_str_eq(kvfile_get(&kf, "noise.game_runq"),
			 "no proc/PID/task/TID/schedstat (CONFIG_SCHEDSTATS)");
	kvfile_release(&kf);
	/* no children files either */
	ck_assert_int_eq(noise_descendants(&r[1], 100, d, ARRAY_SIZE(d)), -ENOENT);
	snap_release(r, s);
}
END_TEST

START_TEST(descendants)
{
	struct noise_reader r;
	pid_t d[8];

	fsroot_set(fixture_path("hostnoise/steal/t0"));
	ck_assert_int_eq(noise_reader_open(&r), 0);
	fsroot_set(NULL);
	ck_assert_int_eq(noise_descendants(&r, 100, d, ARRAY_SIZE(d)), 4);
	ck_assert_int_eq(d[0], 100);
	ck_assert_int_eq(d[1], 200);
	ck_assert_int_eq(d[2], 300);
	ck_assert_int_eq(d[3], 201);
	/* past the room: counted */
	ck_assert_int_eq(noise_descendants(&r, 100, d, 2), 4);
	/* a pid that is gone: itself */
	ck_assert_int_eq(noise_descendants(&r, 999, d, ARRAY_SIZE(d)), 1);
	noise_reader_close(&r);
}
END_TEST

START_TEST(limits)
{
	struct noise_figures f = { .steal_known = true, .steal_pct = 4.2, .foreign_cpu_pct = 3,
				   .irq_pct = 0.5, .have_runq = true, .game_runq_ms_per_s = 12 };
	struct noise_limits l = NOISE_LIMITS_NONE;
	struct strbuf sb = STRBUF_INIT;

	ck_assert(!noise_limits_any(&l));
	noise_limits_describe(&l, &sb);
	ck_assert_str_eq(sb.buf, "none");
	ck_assert(!noise_over_limits(&f, &l, &sb));
	l.steal_pct_max = 2;
	l.game_runq_ms_per_s_max = 20;
	strbuf_reset(&sb);
	noise_limits_describe(&l, &sb);
	ck_assert_str_eq(sb.buf, "steal_pct_max=2 game_runq_ms_per_s_max=20");
	strbuf_reset(&sb);
	ck_assert(noise_over_limits(&f, &l, &sb));
	ck_assert_str_eq(sb.buf, "noise: steal 4.20% over the profile's 2%");
	/* an unknown steal is not checked */
	f.steal_known = false;
	strbuf_reset(&sb);
	ck_assert(!noise_over_limits(&f, &l, &sb));
	l.foreign_cpu_pct_max = 0;
	ck_assert(noise_over_limits(&f, &l, &sb));
	ck_assert_str_eq(sb.buf, "noise: foreign CPU 3.00% over the profile's 0%");
	l.foreign_cpu_pct_max = 3; /* at the limit is within it */
	l.game_runq_ms_per_s_max = 10;
	strbuf_reset(&sb);
	ck_assert(noise_over_limits(&f, &l, &sb));
	ck_assert_str_eq(sb.buf, "noise: game run-queue delay 12.0 ms/s over the profile's 10 ms/s");
	f.have_runq = false;
	l.irq_pct_max = 0.25;
	strbuf_reset(&sb);
	ck_assert(noise_over_limits(&f, &l, &sb));
	ck_assert_str_eq(sb.buf, "noise: irq 0.50% over the profile's 0.25%");
	strbuf_release(&sb);
}
END_TEST

/* This machine, this process: its own CPU time moves when it burns some. */
START_TEST(live)
{
	struct noise_reader r;
	struct noise_snapshot s[2];
	struct noise_figures f;
	pid_t self = getpid(), d[16];
	volatile unsigned long spins = 0;
	int n;

	if (access("/proc/stat", R_OK) != 0)
		test_skip("no /proc/stat here");
	fsroot_set("/");
	ck_assert_int_eq(noise_reader_open(&r), 0);
	fsroot_set(NULL);
	noise_snapshot_init(&s[0], &r);
	noise_snapshot_init(&s[1], &r);
	n = noise_descendants(&r, self, d, ARRAY_SIZE(d));
	ck_assert(n >= 1 || n == -ENOENT);
	ck_assert_int_eq(noise_snapshot_take(&r, &self, 1, &self, 1, &s[0]), 0);
	/* 150 ms of its own CPU time, however busy the machine is (at most
	 * 10 s of waiting for it) */
	for (uint64_t c0 = self_cpu_ns(), t0 = mono_ns();
	     self_cpu_ns() - c0 < 150 * NSEC_PER_MSEC && mono_ns() - t0 < 10 * NSEC_PER_SEC;)
		spins = spins + 1;
	ck_assert_int_eq(noise_snapshot_take(&r, &self, 1, &self, 1, &s[1]), 0);
	ck_assert_int_eq(noise_diff(&s[0], &s[1], r.hypervisor, r.hz, &f), 0);
	ck_assert(spins > 0);
	/* counted in the kernel's ticks (4 ms at HZ 250) */
	ck_assert_msg(f.game_cpu_ms >= 100, "150 ms of spinning counted %.3f ms", f.game_cpu_ms);
	ck_assert(f.run_cpu_ms == f.game_cpu_ms);
	ck_assert(f.foreign_cpu_pct >= 0 && f.foreign_cpu_pct <= 100);
	noise_snapshot_release(&s[0]);
	noise_snapshot_release(&s[1]);
	noise_reader_close(&r);
}
END_TEST

START_TEST(no_proc_stat)
{
	struct noise_reader r;
	char *dir = test_tmpdir();

	fsroot_set(dir);
	ck_assert_int_eq(noise_reader_open(&r), -ENOENT);
	fsroot_set(NULL);
	remove_tree(dir);
	free(dir);
}
END_TEST

/* A root whose proc/stat is text; noise_reader_open() of it. */
static int open_with_stat(const char *text, size_t len)
{
	struct noise_reader r;
	char *dir = test_tmpdir(), *proc = xasprintf("%s/proc", dir), *stat = xasprintf("%s/stat", proc);
	int ret;

	ck_assert_int_eq(mkdir(proc, 0755), 0);
	ck_assert_int_eq(write_file_atomic(stat, text, len, 0644), 0);
	fsroot_set(dir);
	ret = noise_reader_open(&r);
	fsroot_set(NULL);
	if (ret == 0)
		noise_reader_close(&r);
	remove_tree(dir);
	free(stat);
	free(proc);
	free(dir);
	return ret;
}

/* issue 38: a cpu line cut by the file's end once made the reader double
 * its buffer twelve times (to 64 MiB) before it failed; now it fails at
 * the first read, and a proc/stat is never read past the cpu lines of the
 * most CPUs a kernel has */
START_TEST(stat_bounded)
{
	static const char cut[] = "cpu  10 0 20 300 0 0 0 0 0 0\ncpu0 10 0 20 300";
	struct strbuf big = STRBUF_INIT;
	uint64_t t0 = mono_ns();

	ck_assert_int_eq(open_with_stat(cut, strlen(cut)), -EINVAL);
	ck_assert_int_eq(open_with_stat("cpu  1 2 3 4", 12), -EINVAL);
	ck_assert_msg(mono_ns() - t0 < 500000000, "a cut proc/stat took %.3f s", (mono_ns() - t0) / 1e9);
	/* whole lines, well formed, past the bound */
	strbuf_addstr(&big, "cpu  1 2 3 4\n");
	for (int i = 0; big.len <= NOISE_STAT_MAX; i++)
		strbuf_addf(&big, "cpu%d 18446744073709551615 0 0 0 0 0 0 0 0 0                     \n", i % 1000000);
	ck_assert_int_eq(open_with_stat(big.buf, big.len), -EFBIG);
	/* the same, ending with a line that is no cpu line before the bound:
	 * read */
	strbuf_reset(&big);
	strbuf_addstr(&big, "cpu  1 2 3 4\n");
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&big, "cpu%d 1 2 3 4\n", i);
	strbuf_addstr(&big, "intr 0\n");
	ck_assert_int_eq(open_with_stat(big.buf, big.len), 0);
	strbuf_release(&big);
}
END_TEST

TEST_SUITE(hostnoise_suite)
{
	Suite *s = suite_create("hostnoise");
	TCase *tc = tcase_create("hostnoise");

	tcase_add_test(tc, stat_lines);
	tcase_add_test(tc, cpuinfo_flags);
	tcase_add_test(tc, pid_lines);
	tcase_add_test(tc, guest_with_steal);
	tcase_add_test(tc, bare_metal_and_zero_steal);
	tcase_add_test(tc, no_schedstat);
	tcase_add_test(tc, descendants);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, live);
	tcase_add_test(tc, no_proc_stat);
	tcase_add_test(tc, stat_bounded);
	suite_add_tcase(s, tc);
	return s;
}
