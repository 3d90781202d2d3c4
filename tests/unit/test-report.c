/*
 * Tests for analysis/report/report.c: fixed rows rendered into memory and compared
 * byte for byte with tests/fixtures/report/, which were written by hand
 * from the layout documented at the top of report.c.
 */
#include "test.h"
#include "report/report.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* frames window_s fps steady smooth stalls stall_s longest p50 p99 p999
 * low1 low01; NAN: missing. The metrics after low01 (other tools' lows)
 * are left unset in these rows: their columns stay empty. */
static const double run_a[M_COUNT] = { 1380, 20, 69.0, 70.2, 69.1, 0, 0, 61.3, 14.2, 20.8, 40, 48.1, 25 };
static const double run_b[M_COUNT] = { 1372, 20, 68.6, 69.8, 68.9, 2, 0.36, 200.5, 14.4, 21.6, 200.5, 46.3, 5 };
static const double run_v[M_COUNT] = { 1200, 20, 60, 60, 60, 0, 0, NAN, 16.67, 16.9, 17.2, 59.2, 58.1 };
static const double crashed[M_COUNT] = { 12, 0.5, 24, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
static const double none[M_COUNT] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };

static struct metrics metrics_of(const double *v)
{
	struct metrics m;

	/* the metrics after low01 (other tools' lows, warm-up, play) are not in these rows */
	for (int id = 0; id < M_COUNT; id++) {
		m.have[id] = id <= M_LOW01 && !isnan(v[id]);
		m.v[id] = m.have[id] ? v[id] : 0;
	}
	return m;
}

static struct report_row mkrow(const char *run, const char *game, const char *variant,
			       const char *status, const double *v)
{
	return (struct report_row){ .run = run, .game = game, .run_name = variant, .status = status,
				    .m = metrics_of(v) };
}

/* Six runs: two ok, one crashed and one marked disturbed of dsda-doom
 * base, one of another variant, and a game with no ok run at all. */
#define N_FIXED 6
static size_t fixed_rows(struct report_row *rows)
{
	rows[0] = mkrow("20261130T100000Z-dsda-doom-base", "dsda-doom", "base", "ok", run_a);
	rows[1] = mkrow("20261130T101000Z-dsda-doom-base", "dsda-doom", "base", "ok", run_b);
	/* numbers of a failed run are never shown, even when set */
	rows[2] = mkrow("20261130T102000Z-dsda-doom-base", "dsda-doom", "base",
			"crashed (signal 11)", crashed);
	rows[3] = mkrow("20261130T103000Z-dsda-doom-vsync", "dsda-doom", "vsync", "ok", run_v);
	rows[4] = mkrow("20261130T104000Z-quake-base", "quake", "base", "timeout", none);
	/* a disturbed run has numbers, but is not counted */
	rows[5] = mkrow("20261130T105000Z-dsda-doom-base", "dsda-doom", "base", "ok", run_v);
	rows[5].disturbed = "interfered=1 (a backup ran)";
	return N_FIXED;
}

static struct report_opts opts_for(enum report_format format)
{
	struct report_opts opts = {
		.format = format,
		.metric = METRIC_OPTS_DEFAULT,
		.window_note = "frames ending in each run's measured window",
	};

	return opts;
}

/* Renders rows into a string the caller frees. */
static char *render(const struct report_row *rows, size_t n, const struct report_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_print(f, rows, n, opts), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static void assert_fixture(const char *got, const char *name)
{
	char *want = NULL;
	size_t len;
	int r;

	/* HB_UPDATE_FIXTURES=1: write what the code prints now (then review
	 * the diff: only intended changes may go in); nothing was compared,
	 * so the test is skipped, not passed */
	if (getenv("HB_UPDATE_FIXTURES")) {
		ck_assert_int_eq(write_file_atomic(fixture_path(name), got, strlen(got), 0644), 0);
		test_skip("HB_UPDATE_FIXTURES: %s rewritten, not compared", name);
	}
	r = read_file(fixture_path(name), &want, &len);

	ck_assert_msg(r == 0, "cannot read fixture '%s': %s", fixture_path(name), strerror(-r));
	if (strcmp(got, want) != 0)
		ck_abort_msg("output differs from %s; got:\n%s", name, got);
	free(want);
}

START_TEST(table)
{
	struct report_row rows[N_FIXED];
	size_t n = fixed_rows(rows);
	struct report_opts opts = opts_for(REPORT_TABLE);
	char *out = render(rows, n, &opts);

	assert_fixture(out, "report/table.txt");
	free(out);
}
END_TEST

START_TEST(csv)
{
	struct report_row rows[N_FIXED];
	size_t n = fixed_rows(rows);
	struct report_opts opts = opts_for(REPORT_CSV);
	char *out = render(rows, n, &opts);

	assert_fixture(out, "report/report.csv");
	free(out);
}
END_TEST

START_TEST(json)
{
	struct report_row rows[N_FIXED];
	size_t n = fixed_rows(rows);
	struct report_opts opts = opts_for(REPORT_JSON);
	char *out = render(rows, n, &opts);

	assert_fixture(out, "report/report.json");
	free(out);
}
END_TEST

START_TEST(table_notes_follow_options)
{
	struct report_opts opts = opts_for(REPORT_TABLE);
	char *out;

	opts.metric.stall_ms = 33.4;
	opts.metric.pct = PCT_LINEAR;
	opts.window_note = NULL;
	out = render(NULL, 0, &opts);
	ck_assert_str_eq(out,
		"run  frames  fps  steady  stalls  stall_s  longest  low1\n"
		"# frame time = interval between consecutive presents\n"
		"# fps = frames / window seconds\n"
		"# stall = a frame over 33.4 ms (stalls: how many, stall_s: the seconds they took)\n"
		"# percentiles: linear = interpolated at position (N-1) * p/100 (0-based) between "
		"the two neighbouring sorted frame times (R type 7, numpy's default)\n"
		"# steady = 1000 / p50 frame time\n"
		"# low1 = 1000 / p99 frame time\n"
		"# median, min, max = over each group's valid runs (status ok, not marked disturbed); "
		"median: the middle value, the mean of the two middle values for an even count\n"
		"# excluded = not in the groups: the run failed, or was marked disturbed (bench.txt "
		"invalid=1 or interfered=1, or listed in the interfered file)\n");
	free(out);
}
END_TEST

START_TEST(json_escaping)
{
	/* quote, backslash, newline, a control character, a byte that is not
	 * UTF-8, and an é that is */
	struct report_row row = mkrow("r\t1", "say \"hi\"\\\n\x01\xff\xc3\xa9", "v", "ok", run_a);
	struct report_opts opts = opts_for(REPORT_JSON);
	char *out;

	out = render(&row, 1, &opts);
	ck_assert_ptr_nonnull(strstr(out,
		"{\"run\": \"r\\u00091\", \"dir\": null, \"run_id\": null, "
		"\"game\": \"say \\\"hi\\\"\\\\\\u000a\\u0001\\ufffd\xc3\xa9\", "
		"\"run_name\": \"v\", \"status\": \"ok\", \"excluded\": null, \"provenance\": null, "
		"\"metrics\": {\"frames\": 1380, "
		"\"window_s\": 20, \"fps\": 69, "));
	ck_assert_ptr_nonnull(strstr(out,
		"\"groups\": [\n    {\"game\": \"say \\\"hi\\\"\\\\\\u000a\\u0001\\ufffd\xc3\xa9\", "
		"\"run_name\": \"v\", \"n\": 1, "));
	free(out);

	/* truncated and overlong sequences, a surrogate */
	row.game = "\xc3|\xe0\x80\x80|\xed\xa0\x80|\xf4\x90\x80\x80|\xf0\x9f\x8e\xae";
	out = render(&row, 1, &opts);
	ck_assert_ptr_nonnull(strstr(out,
		"\"game\": \"\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
		"\\ufffd\\ufffd\\ufffd\\ufffd|\xf0\x9f\x8e\xae\""));
	free(out);
}
END_TEST

START_TEST(json_empty)
{
	struct report_opts opts = opts_for(REPORT_JSON);
	char *out = render(NULL, 0, &opts);

	ck_assert_ptr_nonnull(strstr(out, "\n  \"runs\": [],\n  \"groups\": [],\n  \"excluded\": []\n}\n"));
	free(out);
}
END_TEST

/* Markdown: the table's rows with a '|' escaped, the excluded and the
 * definitions as lists; --no-notes keeps the rows and drops the definitions. */
START_TEST(markdown)
{
	struct report_row rows[N_FIXED];
	size_t n = fixed_rows(rows);
	struct report_opts opts = opts_for(REPORT_MARKDOWN);
	char *out, *bare;

	rows[0].run = "20261130T100000Z-a|b";
	out = render(rows, n, &opts);
	ck_assert_msg(str_startswith(out, "| run | frames | fps | steady | stalls | stall_s | longest | low1 |\n"
				     "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
				     "| 20261130T100000Z-a\\|b | 1380 | 69.0 | 70.2 | 0 | 0.00 | 61.3 | 48.1 |\n"),
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\n| median dsda-doom base (n=2) | 1376 | 68.8 | 70.0 | 1 | 0.18 | 130.9 | 47.2 |\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n\nExcluded from the groups:\n- 20261130T102000Z-dsda-doom-base: crashed (signal 11)\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n\nDefinitions:\n- "));
	ck_assert_ptr_nonnull(strstr(out, "\n- frame time = interval between consecutive presents\n"));
	opts.no_notes = true;
	bare = render(rows, n, &opts);
	ck_assert_ptr_null(strstr(bare, "Definitions:"));
	ck_assert_ptr_null(strstr(bare, "\n- frame time"));
	ck_assert_ptr_nonnull(strstr(bare, "Excluded from the groups:"));
	ck_assert(strncmp(out, bare, strlen(bare)) == 0);
	free(out);
	free(bare);
}
END_TEST

START_TEST(csv_quoting)
{
	struct report_row row = mkrow("r1", "doom, \"ultimate\"", "a\nb", "ok", none);
	struct report_opts opts = opts_for(REPORT_CSV);
	char *out = render(&row, 1, &opts);
	struct strbuf run = STRBUF_INIT, median = STRBUF_INIT;

	/* quoted names, then empty cells: n, every metric, stall_why, api, excluded */
	strbuf_addstr(&run, "\nrun,,r1,\"doom, \"\"ultimate\"\"\",\"a\nb\",ok,");
	strbuf_addstr(&median, "\ngroup,median,,\"doom, \"\"ultimate\"\"\",\"a\nb\",,1");
	for (int i = 0; i < M_COUNT + 3; i++) {
		strbuf_addch(&run, ',');
		strbuf_addch(&median, ',');
	}
	strbuf_addch(&run, '\n');
	strbuf_addch(&median, '\n');
	ck_assert_ptr_nonnull(strstr(out, run.buf));
	ck_assert_ptr_nonnull(strstr(out, median.buf));
	strbuf_release(&run);
	strbuf_release(&median);
	free(out);
}
END_TEST

START_TEST(format_names)
{
	enum report_format f = REPORT_CSV;

	ck_assert_int_eq(report_format_parse("table", &f), 0);
	ck_assert_int_eq(f, REPORT_TABLE);
	ck_assert_int_eq(report_format_parse("json", &f), 0);
	ck_assert_int_eq(f, REPORT_JSON);
	ck_assert_int_eq(report_format_parse("csv", &f), 0);
	ck_assert_int_eq(f, REPORT_CSV);
	ck_assert_int_eq(report_format_parse("markdown", &f), 0);
	ck_assert_int_eq(f, REPORT_MARKDOWN);
	ck_assert_str_eq(report_format_name(REPORT_MARKDOWN), "markdown");
	ck_assert_ptr_null(report_format_name((enum report_format)42));
	f = REPORT_CSV;
	ck_assert_int_eq(report_format_parse("JSON", &f), -EINVAL);
	ck_assert_int_eq(report_format_parse("", &f), -EINVAL);
	ck_assert_int_eq(report_format_parse(NULL, &f), -EINVAL);
	ck_assert_int_eq(f, REPORT_CSV);
}
END_TEST

START_TEST(bad_arguments)
{
	struct report_opts opts = opts_for(REPORT_TABLE);

	ck_assert_int_eq(report_print(NULL, NULL, 0, &opts), -EINVAL);
	ck_assert_int_eq(report_print(stdout, NULL, 1, &opts), -EINVAL);
	ck_assert_int_eq(report_print(stdout, NULL, 0, NULL), -EINVAL);
	opts.format = (enum report_format)42;
	ck_assert_int_eq(report_print(stdout, NULL, 0, &opts), -EINVAL);
}
END_TEST

START_TEST(stream_error)
{
	/* /dev/full fails every write with ENOSPC: a full disk must not
	 * pass for a printed report */
	struct report_row rows[N_FIXED];
	size_t n = fixed_rows(rows);
	struct report_opts opts = opts_for(REPORT_JSON);
	FILE *f = fopen("/dev/full", "w");

	ck_assert_msg(f != NULL, "cannot open /dev/full: %s", strerror(errno));
	ck_assert_int_eq(report_print(f, rows, n, &opts), -ENOSPC);
	fclose(f);
}
END_TEST

TEST_SUITE(report_suite)
{
	Suite *suite = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, table);
	tcase_add_test(tc, csv);
	tcase_add_test(tc, json);
	tcase_add_test(tc, table_notes_follow_options);
	tcase_add_test(tc, json_escaping);
	tcase_add_test(tc, json_empty);
	tcase_add_test(tc, csv_quoting);
	tcase_add_test(tc, markdown);
	tcase_add_test(tc, format_names);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, stream_error);
	suite_add_tcase(suite, tc);
	return suite;
}
