/*
 * MangoHud's logs per version, end to end: a real log imported
 * (analysis/import/import-mangohud.c) says which MangoHud wrote it and how
 * that was told, and its frames, through metrics_compute() with the
 * summary formula of that version (as `hitchbench report` picks it,
 * analysis/run/run.c), give the figures MangoHud printed in the log's own
 * _summary.csv, to MangoHud's printed precision.
 *
 * Where no _summary.csv came with a real log, the figures below were worked
 * out by hand from the log's rows and the MangoHud source of that version
 * (the lines are cited in docs/metrics.md "MangoHud's summary"); they are
 * marked so. A log of samples (log_interval) is checked the same way:
 * MangoHud's summary is made from the logged rows, samples or frames.
 *
 * MangoHud 0.7.0 and later write each row as it is logged, and the first
 * row of every log goes to a stream not yet open (logging.cpp
 * Logger::writeToFile tests `!output_file`, which is false for a stream
 * never opened, so the first row is written nowhere and the file is opened
 * at the second): the summary counts one row the log does not hold. The
 * logs recorded here with 0.7.2 and 0.8.4 show it; for them the figures
 * that row cannot move are compared as they are, those it moves must differ
 * on the log's rows alone (else the table below is wrong), and all four are
 * reproduced with one frame more, of a time found by search.
 */
#include "test.h"
#include "import/import.h"
#include "metrics/mangohud-summary.h"
#include "metrics/metrics.h"
#include "base/sort.h"
#include "base/util.h"
#include "../tools/mhlog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mh_case {
	const char *log;          /* under $HB_TESTDATA */
	const char *version;      /* what log.version starts with */
	const char *version_from; /* log.version_from */
	bool sampled;             /* rows are samples (log_interval > 0) */
	/* figures [compare_from..4) are compared: rows MangoHud counted that
	 * are no frame here move the others (and a note must say so) */
	int compare_from;
	/* written by MangoHud 0.7.0+: its summary counts a first row the log
	 * lacks (see above); `moved` are the figures (bit i for figure i) that
	 * row moves here, which must differ on the log's rows alone */
	bool unlogged_row;
	unsigned moved;
	enum mangohud_formula formula;
	/* MangoHud's figures: "0.1% Min", "1% Min", "97% Percentile",
	 * "Average", as printed; the digits printed give the precision */
	const char *printed[4];
	const char *printed_from; /* where they come from */
};

static const struct mh_case cases[] = {
	/* its first 11 samples hold a 4464 s frame time (logged before the game
	 * presented): the importer drops them, MangoHud counted them (its 0.1%
	 * and 1% are their fps, its mean and 97% index count them), so no figure
	 * can match and the note must say so */
	{ "mangohud-0.6.8-here/chocolate-doom_2026-11-30_11-07-09.csv", "0.6.5-0.6.8",
	  "columns and fps x frametime", true, 4, false, 0, MH_068,
	  { "0.0", "0.0", "141.6", "88.0" }, "its _summary.csv (MangoHud 0.6.8, log_interval=100)" },
	{ "mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37.csv", "0.6.5-0.6.8",
	  "columns and fps x frametime", false, 0, false, 0, MH_068,
	  { NULL, NULL, NULL, NULL }, "its _summary.csv" },
	/* 7 frames: index (uint64)(p*7-1) is 0 for 0.1% and 1%, 5 for 97%
	 * (6.84203 ms); Average 1000 / (186.708 / 7). MangoHud's fps column
	 * says 146.156 for that row: its frame time in memory had more digits
	 * than the 6 the log keeps, so the sixth digit can differ by one. */
	{ "mangohud/scx_fps-data.csv", "0.8.0-0.8.1", "columns", false, 0, false, 0, MH_08,
	  { "8.23005", "8.23005", "146.155", "38.7" }, "by hand from the rows and v0.8.1 src/fps_metrics.h" },
	/* recorded here (MANIFEST.md): 0.1%, 1% and 97% as they are; the mean
	 * is 136.0 on the 1287 rows, MangoHud's 135.8 with a 1288th frame of
	 * 19.10 to 26.08 ms (the search's range) */
	{ "mangohud-0.7.2-here/dsda-doom_2026-12-06_02-11-30.csv", "0.7.0-0.7.2", "columns", false, 0, true,
	  1u << 3, MH_07, { NULL, NULL, NULL, NULL }, "its _summary.csv (MangoHud 0.7.2)" },
	/* recorded here with v0.8.4 (its README.md), no version line: the
	 * cpu_mhz column says 0.8.2 or newer. Per frame, 1564 rows: 0.1% and
	 * 97% as they are; 1% (index 14 of 1565) is the logged rows' index 13
	 * once the unwritten frame, longer, is counted, and the mean needs it
	 * (the search: 52.90 to 56.76 ms, shorter than the longest logged) */
	{ "mangohud-0.8.4-here/dsda-doom_2026-12-06_02-26-15.csv", "0.8.2 or newer", "columns", false, 0, true,
	  1u << 1 | 1u << 3, MH_08, { NULL, NULL, NULL, NULL }, "its _summary.csv (MangoHud 0.8.4)" },
	/* the same, sampled every 100 ms, 100 rows: the unwritten first sample
	 * is the longest frame (630.87 ms, the level's load, the search's one
	 * value), MangoHud's 0.1% and 1% both; it moves the 97% by one place
	 * and the mean */
	{ "mangohud-0.8.4-here/dsda-doom_2026-12-06_02-26-36.csv", "0.8.2 or newer", "columns", true, 0, true,
	  0xf, MH_08, { NULL, NULL, NULL, NULL }, "its _summary.csv (MangoHud 0.8.4, log_interval=100)" },
};

/* The first four values of the _summary.csv beside LOG: false if none. */
static bool summary_beside(const char *log, char fields[4][32])
{
	char path[600];

	snprintf(path, sizeof(path), "%.*s_summary.csv", (int)(strlen(log) - 4), log);
	return mhlog_summary(testdata_path(path), fields) == 0;
}

/* Half a unit in the last printed digit of `printed`, and a unit more in a
 * sixth significant digit (0.8 prints six; the log's frame times keep six
 * too, so the last one may round either way). */
static double printed_tolerance(const char *printed, double value)
{
	const char *dot = strchr(printed, '.');
	int decimals = dot ? (int)strlen(dot + 1) : 0;
	double tol = 0.5 * pow(10, -decimals);

	if (strspn(printed, "0123456789") + (size_t)decimals >= 6 && value > 0)
		tol += pow(10, floor(log10(value)) - 5);
	return tol;
}

/* Whether all four of MangoHud's figures `want` are what formula f gives
 * on frames ft[0..n) and one frame more of x ns; *x_lo and *x_hi are the
 * least and the greatest x, searched in 10 us steps up to 2 s, that give
 * them (0 when none). The frames are sorted once and x put in its place. */
static bool reproduced_with_one_more(const uint64_t *ft, size_t n, enum mangohud_formula f, char want[4][32],
				     uint64_t *x_lo, uint64_t *x_hi)
{
	uint64_t *v = zalloc(n * sizeof(*v)), *w = zalloc((n + 1) * sizeof(*w));
	size_t at = 0;

	*x_lo = *x_hi = 0;
	memcpy(v, ft, n * sizeof(*v));
	sort_u64(v, n);
	for (uint64_t x = 10000; x <= 2000000000; x += 10000) {
		struct mangohud_summary m;
		double got[4];
		bool all = true;

		while (at < n && v[at] < x)
			at++;
		memcpy(w, v, at * sizeof(*w));
		w[at] = x;
		memcpy(w + at + 1, v + at, (n - at) * sizeof(*w));
		ck_assert_int_eq(mangohud_summary_from_sorted(w, n + 1, f, &m), 0);
		got[0] = m.low01, got[1] = m.low1, got[2] = m.p97, got[3] = m.avg;
		for (int i = 0; i < 4 && all; i++) {
			double t = strtod(want[i], NULL);

			all = fabs(got[i] - t) <= printed_tolerance(want[i], t);
		}
		if (all) {
			if (!*x_lo)
				*x_lo = x;
			*x_hi = x;
		}
	}
	free(w);
	free(v);
	return *x_lo != 0;
}

START_TEST(real_logs)
{
	const struct mh_case *c = &cases[_i];
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	struct metric_opts opts = METRIC_OPTS_DEFAULT;
	static const enum metric_id ids[4] = { M_MANGOHUD_LOW01, M_MANGOHUD_LOW1, M_MANGOHUD_P97,
					       M_MANGOHUD_AVG };
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	char want[4][32];
	const char *version, *from;
	struct metrics m;
	char *src = NULL;

	import_series_init(&s);
	ck_assert_msg(import_read(IMPORT_MANGOHUD, testdata_path(c->log), &o, &s, &src, &err) == 0, "%s: %s",
		      c->log, err.buf);
	version = kvfile_get(&s.info, "version");
	from = kvfile_get(&s.info, "version_from");
	ck_assert_msg(version && strncmp(version, c->version, strlen(c->version)) == 0, "%s: version %s",
		      c->log, version);
	ck_assert_str_eq(from, c->version_from);
	ck_assert_int_eq(s.interval, c->sampled);
	ck_assert_int_eq(mangohud_formula_for_version(version), c->formula);
	ck_assert_msg(strstr(s.notes.buf, "mangohud_* follow"), "%s: notes %s", c->log, s.notes.buf);
	/* a sampled log is said to reproduce MangoHud's summary only when no
	 * row MangoHud counted was dropped (else the note says it can differ) */
	if (c->sampled)
		ck_assert_msg(!strstr(s.notes.buf, "a log of samples") == !!s.rows_dropped, "%s: notes %s",
			      c->log, s.notes.buf);

	if (!summary_beside(c->log, want)) {
		ck_assert_msg(c->printed[0] != NULL, "%s: no _summary.csv and no figures", c->log);
		for (int i = 0; i < 4; i++)
			snprintf(want[i], sizeof(want[i]), "%s", c->printed[i]);
	}
	opts.mangohud = mangohud_formula_for_version(version);
	ck_assert_int_eq(metrics_compute(s.t_ns, s.n_presents, s.t_ns[0], s.t_ns[s.n_presents - 1], &opts, &m), 0);
	if (c->compare_from)
		ck_assert_msg(strstr(s.notes.buf, "can differ from its _summary.csv"), "%s: notes %s", c->log,
			      s.notes.buf);
	for (int i = 0; i < 4; i++) {
		double w = strtod(want[i], NULL);

		if (i < c->compare_from)
			continue;
		if (c->moved & (1u << i)) {
			ck_assert_msg(!m.have[ids[i]] || fabs(m.v[ids[i]] - w) > printed_tolerance(want[i], w),
				      "%s: %s = %.6f is MangoHud's %s on the logged rows alone: not moved", c->log,
				      metric_defs[ids[i]].name, m.v[ids[i]], want[i]);
			continue;
		}
		ck_assert_msg(m.have[ids[i]], "%s: %s unset", c->log, metric_defs[ids[i]].name);
		ck_assert_msg(fabs(m.v[ids[i]] - w) <= printed_tolerance(want[i], w),
			      "%s: %s = %.6f, MangoHud printed %s (%s)", c->log, metric_defs[ids[i]].name,
			      m.v[ids[i]], want[i], c->printed_from);
	}
	if (c->unlogged_row) {
		size_t n = s.n_presents - 1;
		uint64_t *ft = zalloc(n * sizeof(*ft)), lo, hi;

		for (size_t i = 0; i < n; i++)
			ft[i] = s.t_ns[i + 1] - s.t_ns[i];
		ck_assert_msg(reproduced_with_one_more(ft, n, opts.mangohud, want, &lo, &hi),
			      "%s: no one frame more gives MangoHud's %s,%s,%s,%s", c->log, want[0], want[1], want[2],
			      want[3]);
		ck_assert_msg(strstr(s.notes.buf, "never write"), "%s: notes %s", c->log, s.notes.buf);
		free(ft);
	}
	free(src);
	strbuf_release(&err);
	import_series_release(&s);
}
END_TEST

/* The column sets each release wrote (writeFileHeaders at each tag) tell
 * the version when no version line does; a version line wins. */
START_TEST(version_from_columns)
{
	static const struct {
		const char *header;
		const char *version;
		enum mangohud_formula f;
	} v[] = {
		{ "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
		  "gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed", "0.7.0-0.7.2", MH_07 },
		{ "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
		  "gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed", "0.8.0-0.8.1", MH_08 },
		{ "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
		  "gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,cpu_mhz,elapsed", "0.8.2 or newer", MH_08 },
	};

	struct import_series s;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		size_t ncols = 1;

		strbuf_reset(&text);
		for (const char *p = v[i].header; *p; p++)
			ncols += *p == ',';
		strbuf_addf(&text, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\na,b,c,1,6.9,d,e\n%s\n", v[i].header);
		for (int row = 1; row <= 3; row++) {
			for (size_t k = 0; k + 1 < ncols; k++)
				strbuf_addstr(&text, k == 0 ? "60," : k == 1 ? "16.6667," : "0,");
			strbuf_addf(&text, "%d\n", row * 16666700);
		}
		import_series_init(&s);
		ck_assert_msg(import_mangohud_parse(text.buf, text.len, "x.csv", NULL, &s, &err) == 0, "%s", err.buf);
		ck_assert_str_eq(kvfile_get(&s.info, "version_from"), "columns");
		ck_assert_msg(str_startswith(kvfile_get(&s.info, "version"), v[i].version), "%s",
			      kvfile_get(&s.info, "version"));
		ck_assert_int_eq(mangohud_formula_for_version(kvfile_get(&s.info, "version")), v[i].f);
		import_series_release(&s);
	}
	/* a version line says it outright */
	strbuf_reset(&text);
	strbuf_addstr(&text, "v1\n0.7.1\n---------------------SYSTEM INFO---------------------\n"
		      "os,cpu,gpu,ram,kernel,driver,cpuscheduler\na,b,c,1,6.9,d,e\n"
		      "--------------------FRAME METRICS--------------------\nfps,frametime,elapsed\n"
		      "60,16.6667,16666700\n60,16.6667,33333400\n");
	import_series_init(&s);
	ck_assert_int_eq(import_mangohud_parse(text.buf, text.len, "x.csv", NULL, &s, &err), 0);
	ck_assert_str_eq(kvfile_get(&s.info, "version"), "0.7.1");
	ck_assert_str_eq(kvfile_get(&s.info, "version_from"), "version line");
	ck_assert_int_eq(mangohud_formula_for_version("0.7.1"), MH_07);
	import_series_release(&s);
	strbuf_release(&text);
	strbuf_release(&err);
}
END_TEST

/* 0.7's and 0.8's formulas apart, by hand: 200 frames, one of 100 ms, one
 * of 50 ms, 198 of 10 ms. 0.7 (v0.7.2 logging.cpp:97-105): 0.1% = 1000 /
 * mean of the longest ceil(0.2) = 1 = 10; 1% = 1000 / mean of the longest
 * ceil(2) = 2 = 1000 / 75; 97% = 1000 / frame floor(0.97 * 199) = 193
 * longest first = 100. 0.8 (v0.8.1 fps_metrics.h:78): 1% = 1000 / frame
 * (uint64)(2 - 1) = 1 = 20. Average both: 1000 / (2130 / 200). */
START_TEST(formulas_07_08)
{
	uint64_t ns[200];
	struct mangohud_summary a, b;

	for (int i = 0; i < 200; i++)
		ns[i] = 10000000;
	ns[17] = 100000000;
	ns[90] = 50000000;
	ck_assert_int_eq(mangohud_summary_compute(ns, 200, MH_07, &a), 0);
	ck_assert_double_eq_tol(a.low01, 10.0, 1e-4);
	ck_assert_double_eq_tol(a.low1, 1000.0 / 75, 1e-4);
	ck_assert_double_eq_tol(a.p97, 100.0, 1e-3);
	ck_assert_double_eq_tol(a.avg, 200000.0 / 2130, 1e-3);
	ck_assert_int_eq(mangohud_summary_compute(ns, 200, MH_08, &b), 0);
	ck_assert_double_eq_tol(b.low01, 10.0, 1e-4);
	ck_assert_double_eq_tol(b.low1, 20.0, 1e-4);
	ck_assert_double_eq_tol(b.p97, 100.0, 1e-3);
	ck_assert_double_eq(b.avg, a.avg);
	ck_assert_str_eq(mangohud_formula_name(MH_07), "0.7");
}
END_TEST

TEST_SUITE(mangohudver_suite)
{
	Suite *s = suite_create("mangohudver");
	TCase *tc = tcase_create("mangohudver");

	tcase_add_loop_test(tc, real_logs, 0, ARRAY_SIZE(cases));
	tcase_add_test(tc, version_from_columns);
	tcase_add_test(tc, formulas_07_08);
	suite_add_tcase(s, tc);
	return s;
}
