/*
 * PresentMon 2.x capture's stats figures (analysis/metrics/
 * presentmon-stats.c): presentmon_min, _p1, _p5, _max, with fps and frames
 * for its "Average FPS" and "Total Frames".
 *
 * No capture with its stats file and a licence was found (PresentMon's
 * repository keeps console CSVs and polled-statistics golds of ETW traces
 * that are not stored, and no stats file; people's repositories hold none
 * that the code index finds), so:
 *  - capture_and_stats writes a capture in the capture application's
 *    columns (CRLF, CPUStartTime in seconds from the first frame,
 *    MsBetweenAppStart beside MsBetweenPresents) and the stats file
 *    PresentMon 2.5.1 writes for it, worked out by hand from WriteStats_
 *    and StatisticsTracker (RawFrameDataWriter.cpp 560-617,
 *    StatisticsTracker.cpp 19-66): of the 20 frame times sorted, the R-7
 *    99th percentile is at position 19 x 0.99 = 18.81, 33.4 + 0.81 x
 *    (50.2 - 33.4) = 47.008 ms, so 21.273 fps; the 95th at 18.05, 34.24
 *    ms, 29.2056 fps; the mean 393.1 / 20 ms, 50.8776 fps. The figures
 *    are compared as PresentMon prints them (an ostream's default, 6
 *    significant digits, as %.6g). Its animation error columns are NA,
 *    and PresentMon then writes its two zeros without a comma ("00").
 *  - gold_frames takes the real frame times of PresentMon's gold
 *    test_case_5.csv (PresentBench.exe's swap chain the importer keeps)
 *    against an independent Python implementation of the same formulas:
 *    Average 88.8859, Minimum 82.3581, 1st Percentile 82.5242, 5th
 *    Percentile 83.039, Maximum 92.3788.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "import/import.h"
#include "metrics/metrics.h"

#define PM_GOLD5 "presentmon/presentmon_gold_test_case_5.csv"

static const double capture_ms[] = {
	16.6, 16.8, 17.0, 16.7, 33.4, 16.5, 16.9, 16.6, 50.2, 16.7,
	16.8, 16.6, 16.7, 16.9, 17.1, 16.5, 16.6, 16.8, 25.0, 16.7,
};

/* The stats file PresentMon 2.5.1 writes beside the capture above. */
static const char capture_stats[] =
	"Duration,Total Frames,Average FPS,Minimum FPS,1st Percentile FPS,5th Percentile FPS,"
	"Maximum FPS,AnimationErrorPerSecond,AnimationErrorPerFrame\n"
	"0.3765,20,50.8776,19.9203,21.273,29.2056,60.6061,00\n";

/* A capture in the capture application's columns, a frame a row. */
static char *capture_csv(void)
{
	struct strbuf sb = STRBUF_INIT;
	double cpu_start_s = 0;

	strbuf_addstr(&sb, "Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,"
			   "AllowsTearing,PresentMode,FrameType,CPUStartTime,MsBetweenPresents,"
			   "MsBetweenDisplayChange,MsUntilDisplayed,MsBetweenAppStart,MsCPUBusy,MsCPUWait,"
			   "MsAnimationError\r\n");
	for (size_t i = 0; i < ARRAY_SIZE(capture_ms); i++) {
		if (i)
			cpu_start_s += capture_ms[i] / 1000;
		/* MsBetweenAppStart a little off: the stats take MsBetweenPresents */
		strbuf_addf(&sb, "game.exe,4242,0x1F2E3D4C5B0,DXGI,0,0,1,Hardware: Independent Flip,Application,"
				 "%.6f,%.4f,%.4f,8.1,%.4f,5.0,%.4f,NA\r\n",
			    cpu_start_s, capture_ms[i], capture_ms[i], capture_ms[i] + 0.3, capture_ms[i] - 4.7);
	}
	return strbuf_detach(&sb);
}

/* The metrics over the whole series: every frame in the window. */
static void whole(const struct import_series *s, struct metrics *m)
{
	ck_assert_uint_gt(s->n_presents, 1);
	ck_assert_int_eq(metrics_compute(s->t_ns, s->n_presents, s->t_ns[0], s->t_ns[s->n_presents - 1],
					 NULL, m), 0);
}

/* Field `name` of the stats file's one data row, as written. */
static char *stats_field(const char *stats, const char *name)
{
	char *copy = xstrdup(stats), *rows = copy;
	char *header = strsep(&rows, "\n"), *data = strsep(&rows, "\n");
	char *h, *d, *found = NULL;

	while ((h = strsep(&header, ",")) && (d = strsep(&data, ","))) {
		if (strcmp(h, name) == 0) {
			found = xstrdup(d);
			break;
		}
	}
	free(copy);
	ck_assert_msg(found, "no field '%s' in the stats file", name);
	return found;
}

/* v as PresentMon prints it equals the stats file's field. */
static void check_printed(const char *stats, const char *name, const struct metrics *m, enum metric_id id)
{
	char ours[64];
	char *theirs = stats_field(stats, name);

	ck_assert_msg(m->have[id], "%s unset", metric_defs[id].name);
	snprintf(ours, sizeof(ours), "%.6g", m->v[id]);
	ck_assert_msg(strcmp(ours, theirs) == 0, "%s: PresentMon's %s, ours %s", name, theirs, ours);
	free(theirs);
}

static void check_stats(const char *stats, const struct metrics *m)
{
	check_printed(stats, "Total Frames", m, M_FRAMES);
	check_printed(stats, "Average FPS", m, M_FPS);
	check_printed(stats, "Minimum FPS", m, M_PRESENTMON_MIN);
	check_printed(stats, "1st Percentile FPS", m, M_PRESENTMON_P1);
	check_printed(stats, "5th Percentile FPS", m, M_PRESENTMON_P5);
	check_printed(stats, "Maximum FPS", m, M_PRESENTMON_MAX);
}

START_TEST(capture_and_stats)
{
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	struct metrics m;
	char *csv = capture_csv();

	import_series_init(&s);
	ck_assert_int_eq(import_presentmon_parse(csv, strlen(csv), "game-240101-120000.csv", NULL, &s, &err), 0);
	ck_assert_uint_eq(s.rows_kept, ARRAY_SIZE(capture_ms));
	/* the frame times are MsBetweenPresents, to the ns */
	ck_assert_uint_eq(s.t_ns[9] - s.t_ns[8], 50200000);
	whole(&s, &m);
	check_stats(capture_stats, &m);
	/* the names differ in what they take: the nearest-rank low1 is the
	 * longest frame (rank ceil(0.99 x 20) = 20), CapFrameX's P1 the R-8
	 * percentile of the fps, and PresentMon's "1st Percentile FPS" none
	 * of them */
	ck_assert_double_eq_tol(m.v[M_LOW1], 1000 / 50.2, 1e-9);
	ck_assert_double_eq_tol(m.v[M_PRESENTMON_P1], 1000 / 47.008, 1e-9);
	ck_assert(fabs(m.v[M_CAPFRAMEX_P1] - m.v[M_PRESENTMON_P1]) > 1);
	free(csv);
	strbuf_release(&err);
	import_series_release(&s);
}
END_TEST

/* The capture read from a file with its stats file beside it, as `import`
 * reads it: the stats' figures kept as summary.*, as written, and those
 * the import says beside ours are the pairs import_peer_figures() has */
START_TEST(stats_beside)
{
	static const char *const keys[][2] = {
		{ "summary.avg_fps", "50.8776" }, { "summary.min_fps", "19.9203" }, { "summary.p1_fps", "21.273" },
		{ "summary.p5_fps", "29.2056" }, { "summary.max_fps", "60.6061" }, { "summary.frames", "20" },
	};
	char *dir = test_tmpdir(), *csv = capture_csv(), *path = xasprintf("%s/game-240101-120000.csv", dir);
	const struct import_peer_figure *pf;
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	size_t n, pairs = 0;

	test_put(dir, "game-240101-120000.csv", csv);
	test_put(dir, "game-240101-120000-stats.csv", capture_stats);
	import_series_init(&s);
	ck_assert_int_eq(import_read(IMPORT_PRESENTMON, path, NULL, &s, NULL, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		ck_assert_str_eq(kvfile_get(&s.info, keys[i][0]), keys[i][1]);
	ck_assert_ptr_nonnull(strstr(kvfile_get(&s.info, "summary.file"), "game-240101-120000-stats.csv"));
	pf = import_peer_figures(&n);
	for (size_t i = 0; i < n; i++) {
		/* every tool's pairs name a metric of ours */
		if (!pf[i].metric)
			continue;
		ck_assert_msg(metric_lookup(pf[i].metric) >= 0, "%s", pf[i].metric);
		if (pf[i].format == IMPORT_PRESENTMON) {
			ck_assert_ptr_nonnull(kvfile_get(&s.info, pf[i].key));
			pairs++;
		}
	}
	ck_assert_uint_eq(pairs, 5);
	import_series_release(&s);
	remove_tree(dir);
	free(path);
	free(csv);
	free(dir);
	strbuf_release(&err);
}
END_TEST

START_TEST(gold_frames)
{
	static const char gold_stats[] =
		"Total Frames,Average FPS,Minimum FPS,1st Percentile FPS,5th Percentile FPS,Maximum FPS\n"
		"258,88.8859,82.3581,82.5242,83.039,92.3788\n";
	struct import_series s;
	struct strbuf err = STRBUF_INIT;
	struct metrics m;
	char *source = NULL;

	import_series_init(&s);
	ck_assert_int_eq(import_read(IMPORT_PRESENTMON, testdata_path(PM_GOLD5), NULL, &s, &source, &err), 0);
	ck_assert_str_eq(kvfile_get(&s.info, "application"), "PresentBench.exe");
	ck_assert_str_eq(kvfile_get(&s.info, "swap_chain"), "0x2A70D2CAC00");
	whole(&s, &m);
	check_stats(gold_stats, &m);
	free(source);
	strbuf_release(&err);
	import_series_release(&s);
}
END_TEST

/* Every figure inverts a frame time; one frame gives its own 1000 / ms
 * for all of them (PresentMon's file would say 1 / ms there: its
 * percentile returns the lone value unscaled, presentmon-stats.h). */
START_TEST(one_frame)
{
	const uint64_t t[] = { 0, 20000000 };
	struct metrics m;

	ck_assert_int_eq(metrics_compute(t, 2, 0, t[1], NULL, &m), 0);
	ck_assert_double_eq_tol(m.v[M_PRESENTMON_MIN], 50, 1e-12);
	ck_assert_double_eq_tol(m.v[M_PRESENTMON_P1], 50, 1e-12);
	ck_assert_double_eq_tol(m.v[M_PRESENTMON_P5], 50, 1e-12);
	ck_assert_double_eq_tol(m.v[M_PRESENTMON_MAX], 50, 1e-12);
	/* no frame, no figure */
	ck_assert_int_eq(metrics_compute(t, 1, 0, t[1], NULL, &m), 0);
	ck_assert(!m.have[M_PRESENTMON_MIN] && !m.have[M_PRESENTMON_P1] && !m.have[M_PRESENTMON_P5] &&
		  !m.have[M_PRESENTMON_MAX]);
}
END_TEST

TEST_SUITE(pmstats_suite)
{
	Suite *s = suite_create("pmstats");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, capture_and_stats);
	tcase_add_test(tc, stats_beside);
	tcase_add_test(tc, gold_frames);
	tcase_add_test(tc, one_frame);
	suite_add_tcase(s, tc);
	return s;
}
