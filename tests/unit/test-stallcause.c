/*
 * Stall causes on hand-made runs (tests/tools/stallrun.c): one 200 ms
 * stall of each cause, each classified right and decided by the right
 * source; the run's stall_*_s add up to stall_s; load_disk_s, warm_disk_s
 * and the recorder's cost come out as built; the report's CSV has
 * stall_why and the matrix writes stall_disk_s.csv.
 */
#include "report/matrix.h"
#include "report/report.h"
#include "run/run.h"
#include "stalls/stallcause.h"
#include "test.h"
#include "base/util.h"
#include "../tools/stallrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLOSE(a, b) ck_assert_msg(fabs((a) - (b)) < 1e-6, "%s = %.9f, expected %.9f", #a, (double)(a), (double)(b))

static char *make_run(enum stallrun_kind kind, struct run *run)
{
	char *dir = test_tmpdir();
	struct strbuf err = STRBUF_INIT;

	ck_assert_int_eq(stallrun_write(dir, kind), 0);
	ck_assert_msg(run_load(dir, run, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
	return dir;
}

static void check_cases(enum stallrun_kind kind)
{
	struct run run;
	char *dir = make_run(kind, &run);
	struct stall_run sr;
	struct strbuf err = STRBUF_INIT;
	size_t n_case, k = 0;
	const struct stallrun_case *cases = stallrun_cases(kind, &n_case);

	ck_assert_msg(stall_run_load(&run, NULL, &sr, &err) == 0, "%s", err.buf);
	/* the load first, then a stall per case in time order */
	ck_assert_uint_eq(sr.n_stall, n_case + 1);
	ck_assert_int_eq(sr.stall[0].section, SS_LOAD);
	ck_assert_str_eq(stall_cause_name(sr.stall[0].cause), "disk");
	for (size_t i = 1; i < sr.n_stall; i++, k++) {
		const struct stall *st = &sr.stall[i];
		double sum = 0;

		ck_assert_msg(!strcmp(stall_cause_name(st->cause), cases[k].cause),
			      "%s: cause %s, expected %s", cases[k].name, stall_cause_name(st->cause),
			      cases[k].cause);
		ck_assert_msg(!strcmp(stall_decider_name(st->decided), cases[k].decided),
			      "%s: decided by %s, expected %s", cases[k].name,
			      stall_decider_name(st->decided), cases[k].decided);
		ck_assert_str_eq(stall_section_name(st->section), cases[k].section);
		CLOSE((double)(st->end_ns - st->start_ns) / 1e9, 0.2);
		for (int c = 0; c < SC_COUNT; c++)
			sum += st->share_s[c];
		CLOSE(sum, 0.2);
	}
	stall_run_release(&sr);
	run_release(&run);
	remove_tree(dir);
	free(dir);
	strbuf_release(&err);
}

START_TEST(sampled_causes)
{
	check_cases(STALLRUN_SAMPLED);
}
END_TEST

START_TEST(exact_causes)
{
	check_cases(STALLRUN_EXACT);
}
END_TEST

/* The shares where the numbers are known: a sampled disk stall is 197 ms
 * disk and the 3 ms of the sample before it (cpu); with delay.blkio (197
 * ms of it) deciding, those 3 ms unmeasured are split as the samples split
 * the stall (98.5% disk); delay.blkio's 147.75 ms
 * (7.5 ms a sample, 0.7 of the last) decide over a sampled cpu, which gets
 * the rest; a gap is unknown but for the period of the sample after it
 * (7 ms of it inside; runq, its 10 ms of CPU being over 200 ms) and the
 * 3 ms of the one before (cpu). */
START_TEST(shares)
{
	struct run run;
	char *dir = make_run(STALLRUN_EXACT, &run);
	struct stall_run sr;
	struct strbuf err = STRBUF_INIT, ev = STRBUF_INIT;

	ck_assert_int_eq(stall_run_load(&run, NULL, &sr, &err), 0);
	CLOSE(sr.stall[1].share_s[SC_DISK], STALLRUN_WARM_DISK_EXACT_S);
	CLOSE(sr.stall[1].share_s[SC_CPU], 0.003 * 0.003 / 0.2);
	CLOSE(sr.stall[4].exact_s[SC_DISK], 0.14775);
	CLOSE(sr.stall[4].share_s[SC_DISK], 0.14775);
	CLOSE(sr.stall[4].share_s[SC_CPU], 0.2 - 0.14775);
	stall_evidence(&sr.an, &sr.stall[4], &ev);
	ck_assert_msg(strstr(ev.buf, "delay blkio 148 ms"), "evidence: %s", ev.buf);
	stall_run_release(&sr);
	run_release(&run);
	remove_tree(dir);
	free(dir);

	dir = make_run(STALLRUN_SAMPLED, &run);
	ck_assert_int_eq(stall_run_load(&run, NULL, &sr, &err), 0);
	/* cases: warm disk swap_zram ... gap is the 17th */
	CLOSE(sr.stall[17].share_s[SC_UNKNOWN], 0.190);
	CLOSE(sr.stall[17].share_s[SC_CPU], 0.003);
	/* the sample after the gap got 10 ms of CPU in 200 ms: runq */
	CLOSE(sr.stall[17].share_s[SC_RUNQ], 0.007);
	strbuf_reset(&ev);
	stall_evidence(&sr.an, &sr.stall[13], &ev);
	ck_assert_msg(strstr(ev.buf, "D in pread64 on /usr/share/games/doom/freedoom2.wad") &&
		      strstr(ev.buf, "stack: folio_wait_bit_common < filemap_read < vfs_read") &&
		      strstr(ev.buf, "Xorg R"), "evidence: %s", ev.buf);
	strbuf_reset(&ev);
	stall_evidence(&sr.an, &sr.stall[2], &ev);
	ck_assert_msg(strstr(ev.buf, "+60 majflt") && strstr(ev.buf, "vda +60 reads"), "evidence: %s", ev.buf);
	stall_run_release(&sr);
	run_release(&run);
	remove_tree(dir);
	free(dir);
	strbuf_release(&err);
	strbuf_release(&ev);
}
END_TEST

static void check_metrics(enum stallrun_kind kind, struct metrics *m)
{
	struct run run;
	char *dir = make_run(kind, &run);
	double sum = 0;

	ck_assert_int_eq(run_metrics(&run, NULL, m), 0);
	for (int id = M_STALL_DISK_S; id <= M_STALL_OTHER_S; id++) {
		ck_assert(m->have[id]);
		sum += m->v[id];
	}
	CLOSE(sum, m->v[M_STALL_S]);
	CLOSE(m->v[M_LOAD_DISK_S], STALLRUN_LOAD_DISK_S);
	CLOSE(m->v[M_WARM_DISK_S], kind == STALLRUN_EXACT ? STALLRUN_WARM_DISK_EXACT_S :
				    STALLRUN_WARM_DISK_S);
	ck_assert(m->have[M_STALLREC_SAMPLES] && m->v[M_STALLREC_SAMPLES] > 0);
	CLOSE(m->v[M_STALLREC_CPU_S], m->v[M_STALLREC_SAMPLES] * 5e-6);
	CLOSE(m->v[M_STALLREC_CPU_PCT], 0.05);
	CLOSE(m->v[M_STALLREC_US_PER_SAMPLE], 5.0);
	CLOSE(m->v[M_STALLREC_WORK_US], 3.5);
	run_release(&run);
	remove_tree(dir);
	free(dir);
}

START_TEST(run_metrics_add_up)
{
	struct metrics m;

	check_metrics(STALLRUN_SAMPLED, &m);
	/* 17 window stalls of 200 ms; disk 197 ms of the disk stall */
	CLOSE(m.v[M_STALL_S], 17 * 0.2);
	CLOSE(m.v[M_STALL_DISK_S], 0.197);
	check_metrics(STALLRUN_EXACT, &m);
	CLOSE(m.v[M_STALL_S], 4 * 0.2);
}
END_TEST

START_TEST(no_record_no_metrics)
{
	struct run run;
	struct metrics m;
	char *dir = make_run(STALLRUN_SAMPLED, &run);
	char *rec = xasprintf("%s/%s", dir, HB_STALLREC_FILE);

	ck_assert_int_eq(unlink(rec), 0);
	ck_assert_int_eq(run_metrics(&run, NULL, &m), 0);
	for (int id = M_STALL_DISK_S; id <= M_STALLBPF_EVENTS; id++)
		ck_assert(!m.have[id]);
	ck_assert_ptr_null(metrics_stall_why(&m));
	free(rec);
	run_release(&run);
	remove_tree(dir);
	free(dir);
}
END_TEST

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void print_csv(FILE *f, void *arg)
{
	struct report_opts o = { .format = REPORT_CSV, .metric = METRIC_OPTS_DEFAULT };

	ck_assert_int_eq(report_print(f, arg, 1, &o), 0);
}

static void print_matrix(FILE *f, void *arg)
{
	ck_assert_int_eq(matrix_write_csv(f, arg, M_STALL_DISK_S), 0);
}

START_TEST(report_and_matrix)
{
	struct run run;
	char *dir = make_run(STALLRUN_SAMPLED, &run);
	struct report_row row;
	struct matrix mx;
	char *csv, *mcsv;
	char want[64];

	ck_assert(run_report_row(&run, NULL, &row));
	/* the sampled run's largest group is swap: four stalls of 197 ms
	 * (zram, VRAM, disk, unknown device), where cpu has three (cpu, runq,
	 * system_psi) and the 3 ms edges of the others */
	ck_assert_str_eq(metrics_stall_why(&row.m), "swap");
	csv = render(print_csv, &row);
	ck_assert_msg(strstr(csv, ",stall_why,api,excluded\n"), "%s", csv);
	snprintf(want, sizeof(want), ",swap,%s,\n", row.api ? row.api : "");
	ck_assert_msg(strstr(csv, want), "no stall_why in the row: %s", csv);

	matrix_init(&mx);
	ck_assert_int_eq(matrix_build(&mx, &row, 1, MATRIX_BY_BATCH, false), 0);
	ck_assert(matrix_has(&mx, M_STALL_DISK_S));
	ck_assert(matrix_has(&mx, M_STALL_SWAP_S));
	mcsv = render(print_matrix, &mx);
	snprintf(want, sizeof(want), "stallgame,sampled@rec10,%.2f,%.2f,%.2f,1\n", 0.197, 0.197, 0.197);
	ck_assert_msg(strstr(mcsv, want), "matrix: %s (want %s)", mcsv, want);
	matrix_release(&mx);
	free(csv);
	free(mcsv);
	run_release(&run);
	remove_tree(dir);
	free(dir);
}
END_TEST

TEST_SUITE(stallcause_suite)
{
	Suite *s = suite_create("stallcause");
	TCase *tc = tcase_create("stallcause");

	tcase_add_test(tc, sampled_causes);
	tcase_add_test(tc, exact_causes);
	tcase_add_test(tc, shares);
	tcase_add_test(tc, run_metrics_add_up);
	tcase_add_test(tc, no_record_no_metrics);
	tcase_add_test(tc, report_and_matrix);
	suite_add_tcase(s, tc);
	return s;
}
