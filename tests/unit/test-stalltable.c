/*
 * Tests for analysis/stalls/stalltable*.c, the one stall table behind
 * `hitchbench stalls` (text, JSON) and the HTML report's "Why it stalled"
 * (analysis/report/report-html-stalls.c): the model of a run with only its
 * wait record (the recorded STALLS=bpf run of tests/fixtures/stallrun-bpf
 * without its stall record), of mkstallrun's sampled run and of a run with
 * neither, and each stall's cause, evidence and waits found, in order, in
 * all three outputs; the page names the records the run has and claims no
 * samples it lacks; a wait record that does not read is named alone. The
 * commands end to end: tests/cli/t1041.
 */
#include "test.h"
#include "report/report-html.h"
#include "run/run.h"
#include "stalls/stalltable.h"
#include "text/jsonout.h"
#include "base/util.h"
#include "../tools/stallrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run directory with the named files of the recorded STALLS=bpf run. */
static char *recorded_run(const char *const *files, size_t n)
{
	char *dir = test_tmpdir();

	for (size_t i = 0; i < n; i++) {
		char *from = xasprintf("stallrun-bpf/run/%s", files[i]);
		char *to = xasprintf("%s/%s", dir, files[i]);

		ck_assert_int_eq(copy_file(fixture_path(from), to, 0644), 0);
		free(from);
		free(to);
	}
	return dir;
}

static void load(const char *dir, struct run *run, struct stall_table *t)
{
	struct strbuf err = STRBUF_INIT;

	ck_assert_msg(run_load(dir, run, &err) == 0, "%s", err.buf);
	ck_assert_msg(stall_table_build(run, NULL, t, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
}

struct outputs {
	char *text, *json, *html;
	char *why;              /* html from its "Why it stalled" on, or NULL */
};

/* The table as text (-v), as JSON, and the page of the run in dir (its
 * pictures missing: no gnuplot, and no problem but those). */
static void outputs_make(const struct stall_table *t, const char *dir, struct outputs *o)
{
	struct report_opts ro = { .format = REPORT_HTML, .metric = METRIC_OPTS_DEFAULT,
				  .window_note = REPORT_WINDOW_RUNDIR };
	struct report_html_opts ho = { .report = &ro, .tmpdir = getenv("TMPDIR"),
				       .gnuplot = "/nonexistent/gnuplot" };
	struct report_row row = { .run = t->run_name, .game = "stallgame", .run_name = "bpf", .status = "ok",
				  .dir = dir };
	struct strbuf problems = STRBUF_INIT;
	size_t len, n_problems = 0;
	struct json_out j;
	FILE *f;

	f = open_memstream(&o->text, &len);
	stall_table_text(f, t, STT_VERBOSE);
	fclose(f);
	f = open_memstream(&o->json, &len);
	stall_table_json_begin(&j, f, 100);
	stall_table_json_run(&j, t);
	stall_table_json_end(&j);
	fclose(f);
	f = open_memstream(&o->html, &len);
	ck_assert_int_eq(report_html_write(f, &row, 1, &ho, &problems, &n_problems), 0);
	fclose(f);
	for (char *l = problems.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		ck_assert_msg(!strncmp(l, "cannot draw ", 12), "a problem: %s", l);
	o->why = strstr(o->html, "<h4>Why it stalled</h4>");
	strbuf_release(&problems);
}

static void outputs_release(struct outputs *o)
{
	free(o->text);
	free(o->json);
	free(o->html);
}

/* Everything a test made, released and removed. */
static void finish(char *dir, struct run *run, struct stall_table *t, struct outputs *o)
{
	outputs_release(o);
	stall_table_release(t);
	run_release(run);
	remove_tree(dir);
	free(dir);
}

/* s as the writer writes it into its output: JSON or HTML escaped. */
static char *encoded(const char *s, void (*write)(FILE *, const char *))
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	write(f, s);
	fclose(f);
	return buf;
}

static void write_json(FILE *f, const char *s)
{
	json_write_string(f, s);
}

/* Finds what (freed) after *at in out, and moves *at past it: the
 * outputs hold the rows in one order. */
static void find_next(const char *out, const char **at, char *what, const char *which)
{
	const char *p = strstr(*at, what);

	ck_assert_msg(p, "%s: no '%s' after offset %td", which, what, *at - out);
	*at = p + strlen(what);
	free(what);
}

/* Each row's cause and decider, evidence and waits, in order, in the
 * three outputs. */
static void check_agree(const struct stall_table *t, const struct outputs *o)
{
	const char *tx = o->text, *js = o->json, *ht = o->why;

	ck_assert_ptr_nonnull(ht);
	for (size_t k = 0; k < t->n_row; k++) {
		const struct stall_table_row *r = &t->row[k];
		const char *cause = stall_cause_name(r->cause), *dec = stall_decider_name(r->decided);
		char *e;

		find_next(o->text, &tx, xasprintf("  %-9s %-9s  ", cause, dec), "text");
		find_next(o->text, &tx, xstrdup(r->evidence), "text");
		find_next(o->json, &js, xasprintf("\"cause\": \"%s\", \"decided\": \"%s\"", cause, dec),
			  "JSON");
		find_next(o->json, &js, encoded(r->evidence, write_json), "JSON");
		find_next(o->html, &ht, xasprintf("<td>%s</td><td>%s</td>", cause, dec), "HTML");
		find_next(o->html, &ht, encoded(r->evidence, html_escape), "HTML");
		for (size_t i = 0; i < r->n_waits; i++) {
			find_next(o->text, &tx, xasprintf("      - %s\n", r->waits[i]), "text");
			find_next(o->json, &js, encoded(r->waits[i], write_json), "JSON");
			e = encoded(r->waits[i], html_escape);
			find_next(o->html, &ht, xasprintf("<li>%s</li>", e), "HTML");
			free(e);
		}
	}
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The rows' shares add up to their lengths, and to the sections' seconds. */
static void check_sums(const struct stall_table *t)
{
	double sec[SS_COUNT][SC_COUNT] = { { 0 } };

	for (size_t k = 0; k < t->n_row; k++) {
		double sum = 0;

		for (int c = 0; c < SC_COUNT; c++) {
			sum += t->row[k].share_s[c];
			sec[t->row[k].section][c] += t->row[k].share_s[c];
		}
		ck_assert_msg(fabs(sum - t->row[k].ms / 1e3) < 0.011, "row %zu: %g s of %g ms", k, sum,
			      t->row[k].ms);
	}
	for (int s = 0; s < SS_COUNT; s++)
		for (int c = 0; c < SC_COUNT; c++)
			ck_assert(fabs(sec[s][c] - t->seconds[s][c]) < 1e-12);
}

START_TEST(wait_record_only)
{
	static const char *const files[] = { "bench.txt", "frames.bin", "waits.rec.zst" };
	char *dir = recorded_run(files, 3);
	struct stall_table t;
	struct outputs o;
	struct run run;
	size_t waits = 0;
	bool futex = false;

	load(dir, &run, &t);
	ck_assert_int_eq(t.none, STN_SHOWN);
	ck_assert(!t.have_stallrec && t.have_waitrec);
	ck_assert_uint_eq(t.waits.n_off, 513);
	ck_assert_uint_eq(t.waits.n_bio, 3934);
	ck_assert_uint_eq(t.waits.n_thread, 11);
	ck_assert(t.waits.have_cost && t.waits.t0.known);
	ck_assert_str_eq(t.waits.stop, "SIGTERM");
	ck_assert_uint_eq(t.n_row, 7);
	ck_assert_uint_eq(t.n_in[SS_LOAD], 1);
	ck_assert_uint_eq(t.n_in[SS_WARM], 0);
	ck_assert_uint_eq(t.n_in[SS_WINDOW], 6);
	for (size_t k = 0; k < t.n_row; k++) {
		ck_assert_int_eq(t.row[k].decided, SD_BPF);
		ck_assert_uint_gt(t.row[k].n_waits, 0);
		ck_assert_uint_eq(t.row[k].n_sample, 0);
		ck_assert_str_eq(t.row[k].evidence, "no stall record: its waits below");
		waits += t.row[k].n_waits;
		for (size_t i = 0; i < t.row[k].n_waits; i++)
			futex |= t.row[k].cause == SC_WAIT &&
				 !strcmp(t.row[k].waits[i], "futex, woken by fakegame (13785) after 300 ms");
	}
	ck_assert_msg(futex, "the futex stall does not name its waker");
	check_sums(&t);
	outputs_make(&t, dir, &o);
	check_agree(&t, &o);
	ck_assert_ptr_nonnull(strstr(o.why, "<p>From its wait record (513 waits, 3934 block requests, 11 "
				 "threads, 0 events lost); no stall record (the sampler did not run)"));
	ck_assert_msg(!strstr(o.why, "samples") && !strstr(o.why, "period"), "%s", o.why);
	ck_assert_uint_eq(count(o.why, "<li>"), waits);
	ck_assert_ptr_nonnull(strstr(o.json, "\"stall_record\": false,\n      \"wait_record\": true"));
	finish(dir, &run, &t, &o);
}
END_TEST

START_TEST(stall_record_only)
{
	char *dir = test_tmpdir();
	size_t samples = 0;
	struct stall_table t;
	struct outputs o;
	struct run run;

	ck_assert_int_eq(stallrun_write(dir, STALLRUN_SAMPLED), 0);
	load(dir, &run, &t);
	ck_assert(t.have_stallrec && !t.have_waitrec);
	ck_assert_uint_eq(t.rec.samples, 861);
	ck_assert(fabs(t.rec.period_ms - 10) < 1e-9);
	ck_assert_str_eq(t.rec.trailer_samples, "861");
	ck_assert_uint_eq(t.rec.n_aligned, 18);
	ck_assert(fabs(t.rec.align_median_ms - 3) < 1e-6 && fabs(t.rec.align_max_ms - 3) < 1e-6);
	ck_assert_uint_gt(t.n_row, 10);
	for (size_t k = 0; k < t.n_row; k++) {
		ck_assert_int_ne(t.row[k].decided, SD_BPF);
		ck_assert_uint_eq(t.row[k].n_waits, 0);
		ck_assert(t.row[k].evidence[0] && !strstr(t.row[k].evidence, "no stall record"));
		samples += t.row[k].n_sample;
	}
	ck_assert_uint_gt(samples, t.n_row);
	check_sums(&t);
	outputs_make(&t, dir, &o);
	check_agree(&t, &o);
	ck_assert_ptr_nonnull(strstr(o.why, "<p>From its stall record (861 samples over 8.790 s, period "
				 "10.0 ms): "));
	ck_assert_ptr_null(strstr(o.why, "wait record ("));
	ck_assert_ptr_null(strstr(o.why, "<ul class=\"waits\">"));
	/* -v: a line a sample */
	ck_assert_uint_eq(count(o.text, " majflt +"), samples);
	finish(dir, &run, &t, &o);
}
END_TEST

START_TEST(no_record)
{
	static const char *const files[] = { "bench.txt", "frames.bin" };
	char *dir = recorded_run(files, 2);
	struct stall_table t;
	struct outputs o;
	struct run run;

	load(dir, &run, &t);
	ck_assert_int_eq(t.none, STN_NO_RECORD);
	ck_assert(!t.have_stallrec && !t.have_waitrec);
	ck_assert_uint_eq(t.n_row, 0);
	outputs_make(&t, dir, &o);
	ck_assert_str_eq(o.text, "  no stall record (stalls.rec.zst) nor wait record (waits.rec.zst): the run "
			 "was made without STALLS=1 or STALLS=bpf\n\n");
	ck_assert_ptr_nonnull(strstr(o.json, "\"no_stalls_because\": \"no stall record nor wait record: "));
	ck_assert_ptr_null(o.why);
	finish(dir, &run, &t, &o);
}
END_TEST

/* A wait record that does not read, beside no stall record: the error is
 * the bad line's alone, not glued to the missing stall record's. */
START_TEST(bad_wait_record)
{
	static const char *const files[] = { "bench.txt", "frames.bin" };
	char *dir = recorded_run(files, 2), *want = xasprintf("%s/" HB_WAITREC_FILE ":3: ", dir);
	struct strbuf err = STRBUF_INIT;
	struct stall_table t;
	struct run run;

	test_put(dir, HB_WAITREC_FILE, "hbwaits\t1\nmeta\tmin_off_ns=1000000\noff\t4242\tsoon\n");
	ck_assert_msg(run_load(dir, &run, &err) == 0, "%s", err.buf);
	ck_assert_int_lt(stall_table_build(&run, NULL, &t, &err), 0);
	ck_assert_msg(!strncmp(err.buf, want, strlen(want)), "%s", err.buf);
	stall_table_release(&t);
	run_release(&run);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(want);
}
END_TEST

TEST_SUITE(stalltable_suite)
{
	Suite *s = suite_create("stalltable");
	TCase *tc = tcase_create("outputs");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, wait_record_only);
	tcase_add_test(tc, stall_record_only);
	tcase_add_test(tc, no_record);
	tcase_add_test(tc, bad_wait_record);
	suite_add_tcase(s, tc);
	return s;
}
