/*
 * common/formats/latency.c, common/system/wakeplan.c, common/formats/probefile.c and the CPU
 * sets of common/system/cpulist.c: the lateness histogram and its nearest-rank
 * percentiles on made-up wakeups, what the waker decides before it
 * starts (modes, periods, CPU sets, who kicks whom), probe.txt
 * written and read back, and what the reader refuses; and the WAKER and
 * PROBE switches' labels and refusals.
 */
#include "system/cpulist.h"
#include "system/fsroot.h"
#include "formats/latency.h"
#include "formats/probefile.h"
#include "switch/switch.h"
#include "test.h"
#include "base/util.h"
#include "system/wakeplan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_of(cpu_set_t *s, const char *list)
{
	ck_assert_int_eq(cpu_list_parse(list, s), 0);
}

START_TEST(percentiles)
{
	struct lat_hist h;
	uint64_t us = 0;

	lat_hist_init(&h);
	ck_assert_int_eq(lat_hist_percentile(&h, 999000, &us), -ENODATA);
	/* the worked case of docs/metrics.md, in us: 999 wakeups 8 us late, one 200 us */
	for (int i = 0; i < 999; i++)
		lat_hist_add(&h, 8000 + 999);  /* floored: 8 us */
	lat_hist_add(&h, 200000);
	ck_assert_uint_eq(h.n, 1000);
	ck_assert_uint_eq(h.worst_ns, 200000);
	ck_assert_int_eq(lat_hist_percentile(&h, 990000, &us), 0);
	ck_assert_uint_eq(us, 8);
	ck_assert_int_eq(lat_hist_percentile(&h, 999000, &us), 0);
	ck_assert_uint_eq(us, 8);      /* rank 999 */
	ck_assert_int_eq(lat_hist_percentile(&h, 1000000, &us), 0);
	ck_assert_uint_eq(us, 200);
	/* a second slow one: rank 999 is now 200 us */
	lat_hist_add(&h, 200500);
	ck_assert_int_eq(lat_hist_percentile(&h, 999000, &us), 0);
	ck_assert_uint_eq(us, 200);
	ck_assert_int_eq(lat_hist_percentile(&h, 500000, &us), 0);
	ck_assert_uint_eq(us, 8);
	lat_hist_release(&h);

	/* the rank in the overflow: only its lower bound, 20 ms, is known; flagged */
	lat_hist_init(&h);
	lat_hist_add(&h, 5000);
	lat_hist_add(&h, 50000001);     /* 50 ms: past the 20 ms of bins */
	ck_assert_uint_eq(h.overflow, 1);
	ck_assert_int_eq(lat_hist_percentile(&h, 999000, &us), 1);
	ck_assert_uint_eq(us, LAT_BINS);
	ck_assert_int_eq(lat_hist_percentile(&h, 500000, &us), 0);
	ck_assert_uint_eq(us, 5);
	/* the last bin is still a bin */
	lat_hist_add(&h, (LAT_BINS - 1) * LAT_BIN_NS + 999);
	ck_assert_uint_eq(h.bins[LAT_BINS - 1], 1);
	ck_assert_uint_eq(h.overflow, 1);
	lat_hist_release(&h);

	ck_assert_uint_eq(lat_nearest_rank(1000, 999000), 999);
	ck_assert_uint_eq(lat_nearest_rank(1001, 999000), 1000);
	ck_assert_uint_eq(lat_nearest_rank(1000000, 999000), 999000);
	ck_assert_uint_eq(lat_nearest_rank(1, 999000), 1);
	ck_assert_uint_eq(lat_nearest_rank(5, 0), 1);
}
END_TEST

START_TEST(modes_periods)
{
	enum waker_mode m;
	uint64_t ns = 0;

	ck_assert_int_eq(waker_mode_parse("kick", &m), 0);
	ck_assert_int_eq(m, WAKER_KICK);
	ck_assert_int_eq(waker_mode_parse("probe", &m), 0);
	ck_assert_str_eq(waker_mode_name(m), "probe");
	ck_assert_int_eq(waker_mode_parse("Kick", &m), -EINVAL);
	ck_assert_int_eq(waker_mode_parse("", &m), -EINVAL);
	ck_assert_int_eq(waker_period_parse("1.37", &ns), 0);
	ck_assert_uint_eq(ns, 1370000);
	ck_assert_int_eq(waker_period_parse("10", &ns), 0);
	ck_assert_uint_eq(ns, 10000000);
	ck_assert_int_eq(waker_period_parse("0.05", &ns), 0);
	ck_assert_uint_eq(ns, 50000);
	ck_assert_int_eq(waker_period_parse("0", &ns), -ERANGE);
	ck_assert_int_eq(waker_period_parse("-1", &ns), -ERANGE);
	ck_assert_int_eq(waker_period_parse("60001", &ns), -ERANGE);
	ck_assert_int_eq(waker_period_parse("10ms", &ns), -EINVAL);
	ck_assert_int_eq(waker_period_parse("nan", &ns), -EINVAL);
	ck_assert_int_eq(waker_period_parse("", &ns), -EINVAL);
}
END_TEST

static char *fmt(const char *list)
{
	cpu_set_t s;
	struct strbuf sb = STRBUF_INIT;

	set_of(&s, list);
	cpu_set_format(&s, &sb);
	return strbuf_detach(&sb);
}

START_TEST(cpu_lists)
{
	cpu_set_t want, online;
	char *s;
	int bad = -1;

	s = fmt("0-3,5");
	ck_assert_str_eq(s, "0-3,5");
	free(s);
	s = fmt("5,1,0,2");
	ck_assert_str_eq(s, "0-2,5");
	free(s);
	s = fmt("7");
	ck_assert_str_eq(s, "7");
	free(s);
	set_of(&online, "0-1");
	set_of(&want, "1");
	ck_assert_int_eq(cpu_set_check_online(&want, &online, &bad), 0);
	set_of(&want, "0-2");
	ck_assert_int_eq(cpu_set_check_online(&want, &online, &bad), -EINVAL);
	ck_assert_int_eq(bad, 2);
}
END_TEST

START_TEST(kick_plans)
{
	cpu_set_t t, online;
	struct kick_plan p;

	/* every CPU kicked: the kicker on 0, the sleeper on 1 wakes 0's */
	set_of(&online, "0-1");
	set_of(&t, "0-1");
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), 0);
	ck_assert_int_eq(p.kicker_cpu, 0);
	ck_assert_int_eq(p.relay_cpu, 1);
	ck_assert(!p.same_cpu);
	/* one CPU kicked: the kicker on another, no relay */
	set_of(&t, "0");
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), 0);
	ck_assert_int_eq(p.kicker_cpu, 1);
	ck_assert_int_eq(p.relay_cpu, -1);
	set_of(&t, "1");
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), 0);
	ck_assert_int_eq(p.kicker_cpu, 0);
	/* a free CPU on a larger machine */
	set_of(&online, "0-3");
	set_of(&t, "0,1,3");
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), 0);
	ck_assert_int_eq(p.kicker_cpu, 2);
	ck_assert_int_eq(p.relay_cpu, -1);
	/* a single CPU: nothing can cross */
	set_of(&online, "0");
	set_of(&t, "0");
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), 0);
	ck_assert_int_eq(p.kicker_cpu, 0);
	ck_assert(p.same_cpu);
	CPU_ZERO(&t);
	ck_assert_int_eq(kick_plan_make(&t, &online, &p), -EINVAL);
}
END_TEST

static char *write_text(const struct probe_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(probe_result_write(r, f), 0);
	fclose(f);
	return buf;
}

START_TEST(probe_round_trip)
{
	struct probe_result r, back;
	struct strbuf err = STRBUF_INIT;
	cpu_set_t cpus;
	char *text, *again;
	uint64_t us = 0;

	set_of(&cpus, "0,2");
	probe_result_init(&r, &cpus, 2);
	ck_assert_uint_eq(r.n_cpus, 2);
	r.period_ns = 1370000;
	r.threshold_ns = 5000000;
	r.fifo_prio = 80;
	r.mono0_ns = 1000;
	r.real0_ns = 1796000000000000000ULL;
	r.start_ns = 2000;
	r.end_ns = 3000000000ULL;
	r.self_cpu_ns = 12345678;
	for (int i = 0; i < 1000; i++)
		lat_hist_add(&r.cpus[0].hist, 12000);
	lat_hist_add(&r.cpus[1].hist, 3000);
	lat_hist_add(&r.cpus[1].hist, 50222933);
	r.cpus[1].missed = 36;
	probe_cpu_late(&r.cpus[1], 43830638878179ULL, 50222933);
	probe_cpu_late(&r.cpus[1], 43830700000000ULL, 6000000);
	probe_cpu_late(&r.cpus[1], 43830800000000ULL, 7000000);  /* past cap_late: counted */
	ck_assert_uint_eq(r.cpus[1].n_late, 2);
	ck_assert_uint_eq(r.cpus[1].late_dropped, 1);
	text = write_text(&r);
	ck_assert_ptr_nonnull(strstr(text, "\nformat 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\ncpu 2 wakeups 2 missed 36 overflow 1 late 2 late_dropped 1 "
				   "worst_ns 50222933 "));
	ck_assert_ptr_nonnull(strstr(text, " p999_us >=20000\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nhist 0 12 1000\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nlate 2 43830638878179 50222933\n"));

	ck_assert_int_eq(probe_result_parse(text, &back, &err), 0);
	ck_assert_uint_eq(back.period_ns, r.period_ns);
	ck_assert_uint_eq(back.threshold_ns, r.threshold_ns);
	ck_assert_int_eq(back.fifo_prio, 80);
	ck_assert_uint_eq(back.mono0_ns, r.mono0_ns);
	ck_assert_uint_eq(back.real0_ns, r.real0_ns);
	ck_assert_uint_eq(back.end_ns, r.end_ns);
	ck_assert_uint_eq(back.self_cpu_ns, r.self_cpu_ns);
	ck_assert_uint_eq(back.n_cpus, 2);
	ck_assert_int_eq(back.cpus[1].cpu, 2);
	ck_assert_uint_eq(back.cpus[1].hist.n, 2);
	ck_assert_uint_eq(back.cpus[1].hist.worst_ns, 50222933);
	ck_assert_uint_eq(back.cpus[1].missed, 36);
	ck_assert_uint_eq(back.cpus[1].late_dropped, 1);
	ck_assert_uint_eq(back.cpus[1].n_late, 2);
	ck_assert_uint_eq(back.cpus[1].late[0].mono_ns, 43830638878179ULL);
	ck_assert_int_eq(lat_hist_percentile(&back.cpus[0].hist, 999000, &us), 0);
	ck_assert_uint_eq(us, 12);
	/* written again, the same text */
	again = write_text(&back);
	ck_assert_str_eq(again, text);
	free(again);
	probe_result_release(&back);
	probe_result_release(&r);
	free(text);
	strbuf_release(&err);
}
END_TEST

static void refused(const char *text, const char *why)
{
	struct probe_result r;
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(probe_result_parse(text, &r, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, why), "'%s' said '%s', not '%s'", text, err.buf, why);
	strbuf_release(&err);
}

START_TEST(probe_refusals)
{
	refused("period_ns 1\nend\n", "no 'format' line");
	refused("format 2\nend\n", "line 1: format is not 1");
	refused("format 1\ncpu 0 wakeups 1\nhist 0 3 1\n", "cut short");
	refused("format 1\nhist 0 3 1\nend\n", "line 2: wants CPU");
	refused("format 1\ncpu 0 wakeups 2\nhist 0 3 1\nend\n", "cpu 0: 2 wakeups, but its histogram holds 1");
	refused("format 1\ncpu 0 wakeups 1\nhist 0 20000 1\nend\n", "bin beyond");
	refused("format 1\nbins 1000 1000\nend\n", "bins");
	refused("format 1\ncpu 0 wakeups 0\ncpu 0 wakeups 0\nend\n", "line 3");
	refused("format 1\nend\nlate 0 1 2\n", "after 'end'");
}
END_TEST

static char *label_of(const char *token)
{
	struct switch_set set;
	struct strbuf err = STRBUF_INIT;
	char *l;

	ck_assert_msg(switch_set_parse(token, &set, &err) == 0, "%s: %s", token, err.buf);
	l = xstrdup(set.label);
	switch_set_release(&set);
	strbuf_release(&err);
	return l;
}

static void token_refused(const char *token, const char *why)
{
	struct switch_set set;
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(switch_set_parse(token, &set, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, why), "%s said '%s'", token, err.buf);
	strbuf_release(&err);
	switch_set_release(&set);
}

START_TEST(switch_labels)
{
	static const struct { const char *token, *label; } cases[] = {
		{ "WAKER=10", "wksleep10" },
		{ "WAKER=10+WAKER_MODE=kick", "wkkick10" },
		{ "WAKER=10+WAKER_MODE=kick+WAKER_CPU=1", "wkkick10c1" },
		{ "WAKER=1.37+WAKER_CPU=0", "wksleep1.37c0" },
		{ "WAKER=10+WAKER_MODE=kick+WAKER_CPU=0,1", "wkkick10c0.1" },
		{ "PROBE=1", "probe" },
		{ "PROBE=1+PROBE_MS=20", "probe20" },
		{ "PROBE=1+PROBE_LATE_US=5000", "probel5000" },
		{ "WAKER=10+WAKER_MODE=kick+PROBE=1", "wkkick10+probe" },
	};
	char *dir = test_tmpdir();

	test_put(dir, "sys/devices/system/cpu/online", "0-1\n");
	fsroot_set(dir);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *l = label_of(cases[i].token);

		ck_assert_msg(strcmp(l, cases[i].label) == 0, "%s: %s", cases[i].token, l);
		free(l);
	}
	token_refused("WAKER=0", "WAKER=0");
	token_refused("WAKER=10+WAKER_MODE=probe", "sleep or kick");
	token_refused("WAKER=10+WAKER_CPU=2", "CPU 2 is not online");
	token_refused("PROBE=2", "PROBE=2");
	token_refused("PROBE=1+PROBE_MS=x", "period in ms");
	token_refused("WAKER_MODE=kick", "WAKER_MODE");
	fsroot_set(NULL);
	remove_tree(dir);
	free(dir);
}
END_TEST

TEST_SUITE(waker_suite)
{
	Suite *s = suite_create("waker");
	TCase *tc = tcase_create("waker");

	tcase_add_test(tc, percentiles);
	tcase_add_test(tc, modes_periods);
	tcase_add_test(tc, cpu_lists);
	tcase_add_test(tc, kick_plans);
	tcase_add_test(tc, probe_round_trip);
	tcase_add_test(tc, probe_refusals);
	tcase_add_test(tc, switch_labels);
	suite_add_tcase(s, tc);
	return s;
}
