/*
 * The logs of PresentMon 2.x, OCAT and FrameView read as the tool wrote
 * them (analysis/import/import-presentmon.c), and FrameView's own "1% Low
 * FPS" / "0.1% Low FPS" reproduced by frameview_low1 / frameview_low01
 * (analysis/metrics/lows.c).
 *
 * One real OCAT capture is read (CapFrameX's test data). No FrameView or
 * PresentMon capture-app file with a licence that allows copying was found
 * in public repositories (tests/fixtures/testdata/MANIFEST.md section 9
 * says where was looked): those layouts are written by the test, each
 * quirk as the real files have it (OCAT's short rows after the
 * first, FrameView's padded values and its summary's four-blank column,
 * the capture app's CRLF). The FrameView definition was established on
 * real captures with their summaries; `real_frameview_summaries` checks it
 * again on such captures when HB_FRAMEVIEW_LOGS names a directory of them
 * (one directory per FrameView_Summary.csv, its logs beside it).
 */
#include "test.h"

#include "import/import.h"
#include "metrics/lows.h"
#include "base/util.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(frameview_count)
{
	double ms[900];

	/* 900 frames: the 10 longest (900 / 100 + 1: nine of 20 ms, one of 10), not 9 */
	for (int i = 0; i < 900; i++)
		ms[i] = i < 891 ? 10.0 : 20.0;
	ck_assert_double_eq_tol(frameview_low_fps(ms, 900, 10), 1000.0 / 19, 1e-9);
	/* 0.1%: 900 / 1000 + 1 = 1 frame */
	ck_assert_double_eq_tol(frameview_low_fps(ms, 900, 1), 50.0, 1e-9);
	ck_assert_double_eq_tol(frameview_low_fps(ms, 1, 10), 100.0, 1e-9);
	ck_assert(isnan(frameview_low_fps(ms, 0, 10)));
}
END_TEST

static int read_as(enum import_format f, const char *path, struct import_series *s)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	import_series_init(s);
	r = import_read(f, path, NULL, s, NULL, &err);
	if (r < 0)
		fprintf(stderr, "%s\n", err.buf);
	strbuf_release(&err);
	return r;
}

#define OCAT_HEADER "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags," \
	"AllowsTearing,PresentMode,WasBatched,DwmNotified,Dropped,TimeInSeconds,MsBetweenPresents," \
	"MsBetweenDisplayChange,MsInPresentAPI,MsUntilRenderComplete,MsUntilDisplayed,Motherboard,OS," \
	"Processor,System RAM,Base Driver Version,Driver Package,GPU #,GPU,GPU Core Clock (MHz)," \
	"GPU Memory Clock (MHz),GPU Memory (MB)\r\n"

START_TEST(ocat_short_rows)
{
	char *dir = test_tmpdir(), *path = xasprintf("%s/OCAT-game.exe-2020-01-01T000000.csv", dir);
	struct import_series s;

	test_put(dir, "OCAT-game.exe-2020-01-01T000000.csv",
		 OCAT_HEADER
		 "game.exe,42,0x1,DXGI,0,0,1,Hardware: Independent Flip,0,0,0,0.0100,16.5,16.6,0.1,2.0,"
		 "3.0,ASUS PRIME X570,Windows 10 (19041),AMD Ryzen 7 3700X,32 GB,20.11.2,"
		 "20.11.2,1,Radeon RX 5700 XT,2000,875,8176\r\n"
		 "game.exe,42,0x1,DXGI,0,0,1,Hardware: Independent Flip,0,0,0,0.0267,16.7,16.6,0.1,2.0,3.0\r\n"
		 "game.exe,42,0x1,DXGI,0,0,1,Hardware: Independent Flip,0,0,0,0.0600,33.3,33.4,0.1,2.0,3.0\r\n");
	ck_assert_int_eq(read_as(IMPORT_OCAT, path, &s), 0);
	ck_assert_str_eq(s.format, "ocat");
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(s.n_presents, 4);
	ck_assert_str_eq(kvfile_get(&s.info, "cpu"), "AMD Ryzen 7 3700X");
	ck_assert_str_eq(kvfile_get(&s.info, "gpu"), "Radeon RX 5700 XT");
	ck_assert_str_eq(kvfile_get(&s.info, "os"), "Windows 10 (19041)");
	ck_assert_str_eq(kvfile_get(&s.info, "motherboard"), "ASUS PRIME X570");
	ck_assert_str_eq(kvfile_get(&s.info, "driver"), "20.11.2");
	ck_assert_str_eq(kvfile_get(&s.info, "ram"), "32 GB");
	import_series_release(&s);
	free(path);
	free(dir);
}
END_TEST

/* A real OCAT capture (CapFrameX's test data, MIT: testdata/MANIFEST.md):
 * MetroExodus.exe, 2502 frames, the system columns on row 1 only, and a
 * Comment column CapFrameX's OCAT files carry */
START_TEST(ocat_real)
{
	struct import_series s;
	double sum_ms;

	ck_assert_int_eq(read_as(IMPORT_OCAT, testdata_path("ocat/OCAT-MetroExodus.exe-2019-02-20T101522.csv"), &s), 0);
	ck_assert_str_eq(s.format, "ocat");
	ck_assert_uint_eq(s.rows, 2502);
	ck_assert_uint_eq(s.n_presents, 2503);
	ck_assert_uint_eq(s.rows_dropped, 0);
	ck_assert_str_eq(kvfile_get(&s.info, "application"), "MetroExodus.exe");
	ck_assert_str_eq(kvfile_get(&s.info, "cpu"), "Intel(R) Core(TM) i9-9900K CPU @ 3.60GHz");
	ck_assert_str_eq(kvfile_get(&s.info, "gpu"), "GeForce RTX 2080 Ti");
	ck_assert_str_eq(kvfile_get(&s.info, "driver_package"), "r418_77");
	ck_assert_str_eq(kvfile_get(&s.info, "motherboard"),
			 "Micro-Star International Co. Ltd. MPG Z390 GAMING PRO CARBON (MS-7B17)");
	/* the first frame is the log's first MsBetweenPresents, 9.681 ms */
	ck_assert_uint_eq(s.t_ns[1] - s.t_ns[0], 9681000);
	sum_ms = (double)(s.t_ns[s.n_presents - 1] - s.t_ns[0]) / 1e6;
	/* every frame kept to the us: the column's sum is 25386.433 ms, and
	 * the capture's span (last TimeInSeconds 25.388785 less the first,
	 * 0.012027, plus the first frame) agrees to its rounding */
	ck_assert_msg(fabs(sum_ms - 25386.433) < 1e-6, "%f ms", sum_ms);
	import_series_release(&s);
}
END_TEST

START_TEST(frameview_log_and_summary)
{
	char *dir = test_tmpdir(), *path = xasprintf("%s/FrameView_game.exe_2024_01_01T000000_Log.csv", dir);
	char *summary, *moved;
	struct import_series s;
	struct strbuf log = STRBUF_INIT;

	strbuf_addstr(&log, "Application,GPU,CPU,Resolution,Runtime,AllowsTearing,ProcessID,"
		      "SwapChainAddress,SyncInterval,PresentFlags,PresentMode,Dropped,TimeInSeconds,"
		      "MsBetweenPresents,CPUCoreUtil%[ 0]\n");
	for (int i = 0; i < 200; i++)
		strbuf_addf(&log, "game.exe,NVIDIA GeForce RTX 4060 Ti,Intel i7,1920x1080,D3D12,1,7,"
			    "0x00000ABC,0,0,Hardware: Independent Flip,0,  %.3f,   %.3f,  12.5\n",
			    i * 0.0167, i % 50 == 0 ? 33.333 : 16.667);
	test_put(dir, "FrameView_game.exe_2024_01_01T000000_Log.csv", log.buf);
	test_put(dir, "FrameView_Summary.csv",
		 "TimeStamp,Application,Log Name,GPU0,CPU,Resolution,Runtime,Avg FPS,1% Low FPS,    ,"
		 "Min FPS,0.1% Low FPS,1% FPS\n"
		 "2024-01-01T000100,other.exe,FrameView_other.exe_2024_01_01T000030_Log.csv,x,y,1x1,"
		 "D3D11,1.000,2.000,  ,3.000,4.000,5.000\n"
		 "2024-01-01T000200,game.exe,FrameView_game.exe_2024_01_01T000000_Log.csv,NVIDIA,"
		 "Intel,1920x1080,D3D12,57.692,30.000,  ,30.000,30.000,30.000\n");
	ck_assert_int_eq(read_as(IMPORT_FRAMEVIEW, path, &s), 0);
	ck_assert_str_eq(s.format, "frameview");
	ck_assert_uint_eq(s.rows, 200);
	ck_assert_str_eq(kvfile_get(&s.info, "gpu"), "NVIDIA GeForce RTX 4060 Ti");
	ck_assert_str_eq(kvfile_get(&s.info, "resolution"), "1920x1080");
	ck_assert_str_eq(kvfile_get(&s.info, "summary.avg_fps"), "57.692");
	ck_assert_str_eq(kvfile_get(&s.info, "summary.low1_fps"), "30.000");
	ck_assert_str_eq(kvfile_get(&s.info, "summary.low01_fps"), "30.000");
	ck_assert_str_eq(kvfile_get(&s.info, "summary.min_fps"), "30.000");
	import_series_release(&s);

	/* a summary that is a link (the game's to plant beside its log) is
	 * not followed: no figures, and a note that says why */
	summary = xasprintf("%s/FrameView_Summary.csv", dir);
	moved = xasprintf("%s/elsewhere.csv", dir);
	ck_assert_int_eq(rename(summary, moved), 0);
	ck_assert_int_eq(symlink(moved, summary), 0);
	ck_assert_int_eq(read_as(IMPORT_FRAMEVIEW, path, &s), 0);
	ck_assert_uint_eq(s.rows, 200);
	ck_assert_ptr_null(kvfile_get(&s.info, "summary.avg_fps"));
	ck_assert_ptr_nonnull(strstr(s.notes.buf, "FrameView_Summary.csv beside it is a link, not followed"));
	import_series_release(&s);
	free(summary);
	free(moved);
	strbuf_release(&log);
	free(path);
	free(dir);
}
END_TEST

START_TEST(presentmon_named)
{
	static const char *const gold[] = {
		"presentmon/presentmon_gold_test_case_0.csv",
		"presentmon/presentmon_gold_test_case_0_v1.csv",
		"presentmon/presentmon_gold_test_case_0_v2.csv",
		"presentmon/carhol_csgo_presentmon1x.csv",
	};
	struct import_series s;

	for (size_t i = 0; i < sizeof(gold) / sizeof(gold[0]); i++) {
		/* read as OCAT or FrameView, the file still says what it is */
		ck_assert_int_eq(read_as(i % 2 ? IMPORT_OCAT : IMPORT_PRESENTMON, testdata_path(gold[i]), &s), 0);
		ck_assert_str_eq(s.format, "presentmon");
		import_series_release(&s);
	}
}
END_TEST

START_TEST(capture_app_crlf)
{
	char *dir = test_tmpdir(), *path = xasprintf("%s/pmcap-game.exe-250709-222018.csv", dir);
	struct import_series s;

	test_put(dir, "pmcap-game.exe-250709-222018.csv",
		 "Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,"
		 "AllowsTearing,PresentMode,FrameType,TimeInSeconds,MsBetweenSimulationStart,"
		 "MsBetweenPresents,MsBetweenDisplayChange,CPUStartTime,GPUPower\r\n"
		 "game.exe,18660,0x1F7,DXGI,0,512,1,Hardware: Independent Flip,Application,0,NA,5.2298,"
		 "13.6476,0,58.8\r\n"
		 "game.exe,18660,0x1F7,DXGI,0,512,1,Hardware: Independent Flip,Application,0.004492,NA,"
		 "4.4923,0.0000,0.005302,58.8\r\n");
	ck_assert_int_eq(read_as(IMPORT_PRESENTMON, path, &s), 0);
	ck_assert_str_eq(s.format, "presentmon");
	ck_assert_uint_eq(s.n_presents, 3);
	ck_assert_uint_eq(s.t_ns[2] - s.t_ns[0], 9722100);
	ck_assert_ptr_nonnull(strstr(kvfile_get(&s.info, "version"), "capture app"));
	import_series_release(&s);
	free(path);
	free(dir);
}
END_TEST

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Every FrameView log under $HB_FRAMEVIEW_LOGS/<dir>/ with its summary:
 * frameview_low1 / low01 equal FrameView's to the log's precision (its
 * frame times are printed to 1 us: each fps can move by fps^2 * 0.0005 /
 * 1000, plus the summary's own rounding to 0.001). */
START_TEST(real_frameview_summaries)
{
	const char *root = getenv("HB_FRAMEVIEW_LOGS");
	DIR *d;
	struct dirent *e;
	int checked = 0;

	if (!root || !(d = opendir(root)))
		test_skip("HB_FRAMEVIEW_LOGS names no directory of FrameView captures (none can be shipped)");
	while ((e = readdir(d))) {
		char *sub = xasprintf("%s/%s", root, e->d_name);
		DIR *sd = e->d_name[0] == '.' ? NULL : opendir(sub);
		struct dirent *l;

		while (sd && (l = readdir(sd))) {
			char *p = xasprintf("%s/%s", sub, l->d_name);
			struct import_series s;
			double *ms;
			size_t n;
			const char *want1, *want01;

			if (!strstr(l->d_name, "_Log.csv") || read_as(IMPORT_FRAMEVIEW, p, &s) < 0) {
				free(p);
				continue;
			}
			want1 = kvfile_get(&s.info, "summary.low1_fps");
			want01 = kvfile_get(&s.info, "summary.low01_fps");
			n = s.n_presents - 1;
			ms = xrealloc(NULL, n * sizeof(*ms));
			for (size_t i = 0; i < n; i++)
				ms[i] = (double)(s.t_ns[i + 1] - s.t_ns[i]) / 1e6;
			qsort(ms, n, sizeof(*ms), by_value);
			if (want1 && want01) {
				double v1 = frameview_low_fps(ms, n, 10), v01 = frameview_low_fps(ms, n, 1);

				ck_assert_msg(fabs(v1 - atof(want1)) <= 0.0005 + v1 * v1 * 5e-7 + 1e-9,
					      "%s: ours %.4f, FrameView %s", p, v1, want1);
				ck_assert_msg(fabs(v01 - atof(want01)) <= 0.0005 + v01 * v01 * 5e-7 + 1e-9,
					      "%s: ours %.4f, FrameView %s", p, v01, want01);
				checked++;
			}
			free(ms);
			import_series_release(&s);
			free(p);
		}
		if (sd)
			closedir(sd);
		free(sub);
	}
	closedir(d);
	ck_assert_int_gt(checked, 0);
	fprintf(stderr, "importpeers: %d FrameView captures reproduced\n", checked);
}
END_TEST

TEST_SUITE(importpeers_suite)
{
	Suite *s = suite_create("importpeers");
	TCase *tc = tcase_create("importpeers");

	tcase_add_test(tc, frameview_count);
	tcase_add_test(tc, ocat_short_rows);
	tcase_add_test(tc, ocat_real);
	tcase_add_test(tc, frameview_log_and_summary);
	tcase_add_test(tc, presentmon_named);
	tcase_add_test(tc, capture_app_crlf);
	tcase_add_test(tc, real_frameview_summaries);
	suite_add_tcase(s, tc);
	return s;
}
