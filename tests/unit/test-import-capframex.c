/*
 * CapFrameX's captures (analysis/import/import-capframex.c) and its
 * figures (analysis/metrics/capframex.c) on the real CSV capture of
 * CapFrameX's own repository (tests/fixtures/testdata/MANIFEST.md,
 * section 8). No JSON capture with a licence was found, so the JSON tests
 * write theirs: one holds the real CSV's frame times, as CapFrameX turns
 * a CSV into a JSON run, and must give the same frames and figures.
 *
 * The file comes with no figures of CapFrameX's; the expected ones were
 * computed from the file with an independent Python implementation of
 * CapFrameX's formulas (fps = 1000 / MsBetweenPresents, Math.NET's R-8
 * quantile; read in FrametimeStatisticProvider.cs), rounded to 2 decimals
 * as CapFrameX shows them: Average 286.32, P5 264.41, P1 259.07, P0.1
 * 238.56, 1% low average 248.69, 0.1% low average 203.51.
 */
#include "test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "metrics/metrics.h"

#define CX_CSV "capframex/CapFrameXFileWithHeader.csv"

static char *slurp(const char *path, size_t *len)
{
	char *text = NULL;

	ck_assert_int_eq(read_file(path, &text, len), 0);
	return text;
}

static int parse(const char *text, size_t len, const struct import_opts *o, struct import_series *s,
		 struct strbuf *err)
{
	import_series_init(s);
	return import_capframex_parse(text, len, "cx", o, s, err);
}

static int parse_str(const char *text, const struct import_opts *o, struct import_series *s,
		     struct strbuf *err)
{
	return parse(text, strlen(text), o, s, err);
}

/* The metrics over the whole series: every frame in the window. */
static void whole(const struct import_series *s, struct metrics *m)
{
	ck_assert_uint_gt(s->n_presents, 1);
	ck_assert_int_eq(metrics_compute(s->t_ns, s->n_presents, s->t_ns[0], s->t_ns[s->n_presents - 1],
					 NULL, m), 0);
}

/* v as CapFrameX shows it: 2 decimals, half away from 0. */
static double shown(double v)
{
	return round(v * 100) / 100;
}

static void check_figures(const struct metrics *m)
{
	ck_assert_double_eq(m->v[M_FRAMES], 7285);
	ck_assert_double_eq_tol(shown(m->v[M_FPS]), 286.32, 1e-9);
	ck_assert(m->have[M_CAPFRAMEX_P5] && m->have[M_CAPFRAMEX_P1] && m->have[M_CAPFRAMEX_P01]);
	ck_assert_double_eq_tol(shown(m->v[M_CAPFRAMEX_P5]), 264.41, 1e-9);
	ck_assert_double_eq_tol(shown(m->v[M_CAPFRAMEX_P1]), 259.07, 1e-9);
	ck_assert_double_eq_tol(shown(m->v[M_CAPFRAMEX_P01]), 238.56, 1e-9);
	ck_assert_double_eq_tol(shown(m->v[M_LOW1_AVG]), 248.69, 1e-9);
	ck_assert_double_eq_tol(shown(m->v[M_LOW01_AVG]), 203.51, 1e-9);
}

START_TEST(csv_real)
{
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	struct metrics m;
	char *source = NULL;

	import_series_init(&s);
	ck_assert_int_eq(import_read(IMPORT_CAPFRAMEX, testdata_path(CX_CSV), NULL, &s, &source, &err), 0);
	ck_assert_str_eq(s.format, "capframex");
	ck_assert_uint_eq(s.rows, 7285);
	ck_assert_uint_eq(s.rows_kept, 7285);
	ck_assert_uint_eq(s.rows_dropped, 0);
	ck_assert(!s.interval);
	ck_assert_str_eq(kvfile_get(&s.info, "game"), "re2.exe");
	ck_assert_str_eq(kvfile_get(&s.info, "process"), "Resident Evil 2 Remake");
	ck_assert_str_eq(kvfile_get(&s.info, "cpu"), "Intel(R) Core(TM) i9-9900K CPU @ 3.60GHz");
	ck_assert_str_eq(kvfile_get(&s.info, "gpu"), "NVIDIA GeForce RTX 2080 Ti");
	ck_assert_str_eq(kvfile_get(&s.info, "ram"), "32 GB 3800 MT/s");
	ck_assert_str_eq(kvfile_get(&s.info, "capture_date"), "2019-03-30");
	ck_assert_str_eq(kvfile_get(&s.info, "gpu_memory_mb"), "11278");
	ck_assert_str_eq(kvfile_get(&s.info, "comment"), "Test");
	ck_assert_str_eq(kvfile_get(&s.info, "layout"), "csv");
	/* the first frame as logged (3.387 ms), to the ns */
	ck_assert_uint_eq(s.t_ns[1] - s.t_ns[0], 3387000);
	whole(&s, &m);
	check_figures(&m);
	free(source);
	strbuf_release(&err);
	import_series_release(&s);
}
END_TEST

/* A JSON capture of two runs: the first holds the real CSV's frame times
 * (as logged, the strings copied), the second three frames. */
static char *json_of_csv(const char *info)
{
	struct strbuf j = STRBUF_INIT;
	size_t len;
	char *csv = slurp(testdata_path(CX_CSV), &len), *p = csv;
	int line = 0;
	bool first = true;

	strbuf_addf(&j, "{\"Hash\":\"x\",\"Info\":%s,\n\"Runs\":[{\"PresentMonRuntime\":\"DXGI\",\n"
		    "\"CaptureData\":{\"MsBetweenPresents\":[", info);
	/* column 13 (from 1) of the rows after the 17 // lines and the header */
	while (p && *p) {
		char *nl = strchr(p, '\n');

		if (++line > 18) {
			char *f = p;

			for (int c = 1; c < 13; c++)
				f = strchr(f, ',') + 1;
			strbuf_addf(&j, "%s%.*s", first ? "" : ",", (int)(strchr(f, ',') - f), f);
			first = false;
		}
		p = nl ? nl + 1 : NULL;
	}
	strbuf_addstr(&j, "]}},\n{\"CaptureData\":{\"MsBetweenPresents\":[10,20.5,30]}}]}\n");
	free(csv);
	return strbuf_detach(&j);
}

START_TEST(json_runs)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	struct metrics m;
	char *j = json_of_csv("{\"GameName\":\"Resident Evil 2\",\"Processor\":\"i9-9900K\","
			      "\"SystemRam\":\"32 GB\",\"GPUDriverVersion\":\"436.30\",\"Comment\":\"two\\nlines\","
			      "\"AppVersion\":{\"Major\":1,\"Minor\":7,\"Build\":1,\"Revision\":0,"
			      "\"MajorRevision\":0,\"MinorRevision\":0},\"Some New Key\":\"v\"}");

	/* by default every run, joined as CapFrameX computes its figures */
	ck_assert_int_eq(parse_str(j, &o, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 7288);
	ck_assert_uint_eq(s.n_presents, 7289);
	ck_assert_str_eq(kvfile_get(&s.info, "run"), "all");
	ck_assert_ptr_nonnull(strstr(s.notes.buf, "the capture's 2 runs read one after the other"));
	ck_assert_uint_eq(s.t_ns[7288] - s.t_ns[7287], 30000000);
	import_series_release(&s);

	o.run = 1;
	ck_assert_int_eq(parse_str(j, &o, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 7285);
	ck_assert_str_eq(kvfile_get(&s.info, "game"), "Resident Evil 2");
	ck_assert_str_eq(kvfile_get(&s.info, "cpu"), "i9-9900K");
	ck_assert_str_eq(kvfile_get(&s.info, "ram"), "32 GB");
	ck_assert_str_eq(kvfile_get(&s.info, "driver"), "436.30");
	ck_assert_str_eq(kvfile_get(&s.info, "comment"), "two lines");
	ck_assert_str_eq(kvfile_get(&s.info, "version"), "1.7.1.0");
	ck_assert_str_eq(kvfile_get(&s.info, "some_new_key"), "v");
	ck_assert_str_eq(kvfile_get(&s.info, "layout"), "json");
	ck_assert_str_eq(kvfile_get(&s.info, "runs"), "2");
	ck_assert_str_eq(kvfile_get(&s.info, "run"), "1");
	ck_assert_ptr_nonnull(strstr(s.notes.buf, "run 1 of the capture's 2 read"));
	whole(&s, &m);
	check_figures(&m);
	import_series_release(&s);

	o.run = 2;
	ck_assert_int_eq(parse_str(j, &o, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(s.t_ns[2] - s.t_ns[1], 20500000);
	import_series_release(&s);

	o.run = 3;
	ck_assert_int_eq(parse_str(j, &o, &s, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "cx: run 3 asked for, the capture has 2");
	import_series_release(&s);
	strbuf_release(&err);
	free(j);
}
END_TEST

/* an Info key of the file named as a key of ours (runs, run, layout)
 * never adds a second one: ours win, each once */
START_TEST(info_keys_ours_win)
{
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	size_t runs = 0;

	ck_assert_int_eq(parse_str("{\"Info\":{\"Runs\":\"9\",\"Run\":\"7\",\"Layout\":\"csv\"},"
				   "\"Runs\":[{\"CaptureData\":{\"MsBetweenPresents\":[10,20]}}]}",
				   NULL, &s, &err), 0);
	ck_assert_str_eq(kvfile_get(&s.info, "runs"), "1");
	ck_assert_str_eq(kvfile_get(&s.info, "run"), "all");
	ck_assert_str_eq(kvfile_get(&s.info, "layout"), "json");
	for (size_t i = 0; i < s.info.n; i++)
		runs += strcmp(s.info.items[i].key, "runs") == 0;
	ck_assert_uint_eq(runs, 1);
	import_series_release(&s);
	strbuf_release(&err);
}
END_TEST

START_TEST(json_values)
{
	struct import_series s;
	struct strbuf err = STRBUF_INIT;

	/* a string version, a null frame time dropped and counted */
	ck_assert_int_eq(parse_str("\xef\xbb\xbf {\"Info\":{\"AppVersion\":\"1.6.9\"},\"Runs\":[{\"CaptureData\":"
				   "{\"MsBetweenPresents\":[16.6,null,-1,16.7]}}]}", NULL, &s, &err), 0);
	ck_assert_str_eq(kvfile_get(&s.info, "version"), "1.6.9");
	ck_assert_uint_eq(s.rows, 4);
	ck_assert_uint_eq(s.rows_kept, 2);
	ck_assert_uint_eq(s.rows_dropped, 2);
	ck_assert_str_eq(s.first_dropped, "2: frame time null is not a number");
	import_series_release(&s);
	strbuf_release(&err);
}
END_TEST

/* What is refused, with file:line where the file has a line to name. */
START_TEST(refused)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "//GameName=x\n//Processor\nApplication,MsBetweenPresents\na,1\n",
		  "cx:2: expected a //Key=Value line, found '//Processor'" },
		{ "//GameName=x\r\n//=v\r\nMsBetweenPresents\r\n1\r\n",
		  "cx:2: expected a //Key=Value line, found '//=v'" },
		{ "//GameName=x\nApplication,FrameTime\na,1\n",
		  "cx:2: expected a header with a MsBetweenPresents column, found 'Application'" },
		{ "//GameName=x\nApplication,MsBetweenPresents\na,1\na,x\n",
		  "cx:4: expected a number in MsBetweenPresents, found 'x'" },
		{ "//GameName=x\n", "cx:2: expected a header with a MsBetweenPresents column, found the end of the file" },
		{ "{\n  \"Runs\": [\n    {,\n", "cx:3: bad JSON: quoted object property name expected" },
		{ "{\n  \"Runs\": [\n", "cx:3: the JSON ends before its object does (cut short?)" },
		{ "{\"Runs\":[]} x", "cx:1: bad JSON: text after the capture's object" },
		{ "{\"Info\":{}}", "cx: expected a CapFrameX capture, an object with \"Runs\" (an array)" },
		{ "{\"Runs\":[]}", "cx: the capture has no runs" },
		{ "{\"Runs\":[{\"CaptureData\":{}}]}", "cx: expected run 1 to hold CaptureData.MsBetweenPresents (an array)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct import_series s;
		struct strbuf err = STRBUF_INIT;

		ck_assert_int_eq(parse_str(cases[i].text, NULL, &s, &err), -EINVAL);
		ck_assert_str_eq(err.buf, cases[i].want);
		import_series_release(&s);
		strbuf_release(&err);
	}
}
END_TEST

/* The real capture cut in the middle of its last row, as a crash leaves
 * it: the row is dropped, counted and warned of; the rest is read. */
START_TEST(cut_short)
{
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	size_t len;
	char *text = slurp(testdata_path(CX_CSV), &len);
	/* the last row ends "...,3.681,8.327,1.700,4.993,13.427\n": cut after
	 * its first fields, before MsBetweenPresents */
	size_t cut = len - 1;

	while (text[cut - 1] != '\n')
		cut--;
	cut += 20;
	ck_assert_int_eq(parse(text, cut, NULL, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 7285);
	ck_assert_uint_eq(s.rows_kept, 7284);
	ck_assert_uint_eq(s.rows_dropped, 1);
	ck_assert(s.cut_dropped);
	ck_assert_ptr_nonnull(strstr(s.warnings.buf, "cx:7303: last row cut short (fewer fields than the header)"));
	import_series_release(&s);
	strbuf_release(&err);
	free(text);
}
END_TEST

/* CapFrameX's P1 is of fps, interpolated: on 1000 frames of 10 ms and one
 * of 100 ms it lies between 10 and 100 fps, where 1000 / the R-8 99th
 * percentile of frame time would not (a check of the formula apart from
 * the files). */
START_TEST(fps_quantile)
{
	uint64_t t[1002];
	struct metrics m;
	double h, want;

	t[0] = 0;
	for (size_t i = 1; i < 1002; i++)
		t[i] = t[i - 1] + (i == 500 ? 100000000u : 10000000u);
	ck_assert_int_eq(metrics_compute(t, 1002, 0, t[1001], NULL, &m), 0);
	/* 1001 fps values, one 10, the others 100: h = (1001 + 1/3) 0.001 + 1/3 */
	h = (1001 + 1.0 / 3) * 0.001 + 1.0 / 3;
	want = 10 + (h - 1) * (100 - 10);
	ck_assert_double_eq_tol(m.v[M_CAPFRAMEX_P01], want, 1e-9);
	ck_assert_double_eq_tol(m.v[M_CAPFRAMEX_P1], 100, 1e-9);
}
END_TEST

TEST_SUITE(capframex_suite)
{
	Suite *s = suite_create("capframex");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, csv_real);
	tcase_add_test(tc, json_runs);
	tcase_add_test(tc, info_keys_ours_win);
	tcase_add_test(tc, json_values);
	tcase_add_test(tc, refused);
	tcase_add_test(tc, cut_short);
	tcase_add_test(tc, fps_quantile);
	suite_add_tcase(s, tc);
	return s;
}
