/*
 * analysis/import/import*.c: every real log in $HB_TESTDATA that fits a reader
 * (MangoHud 0.6.8 logs made on this project's kind of machine, a MangoHud
 * 0.8 log from sched-ext/scx, PresentMon 1.x/2.x gold files and a CS:GO
 * capture), and hand-made logs for each quirk: banner and version lines,
 * no header (0.4), us against ms frame times, extra columns, two logs in
 * one file, interval logs, BOM, CRLF, the process filter, FrameView's
 * columns, and broken files refused with their line.
 */
#include "import/import.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

static struct import_series s;
static struct strbuf err;

static void setup(void)
{
	import_series_init(&s);
	strbuf_init(&err);
}

static void teardown(void)
{
	import_series_release(&s);
	strbuf_release(&err);
}

static int mango_opts(const char *text, bool interval)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;

	o.interval = interval;
	return import_mangohud_parse(text, strlen(text), "t.csv", &o, &s, &err);
}

static int mango(const char *text)
{
	return mango_opts(text, false);
}

static int pm(const char *text, const char *process)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;

	o.process = process;
	return import_presentmon_parse(text, strlen(text), "t.csv", &o, &s, &err);
}

static int real(enum import_format f, const char *rel, const char *process)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	char *src = NULL;
	int r;

	o.process = process;
	r = import_read(f, testdata_path(rel), &o, &s, &src, &err);
	free(src);
	return r;
}

/* frame i (from 0) in ns */
static uint64_t frame(size_t i)
{
	return s.t_ns[i + 1] - s.t_ns[i];
}

static const char *info(const char *key)
{
	return kvfile_get(&s.info, key);
}

START_TEST(mangohud_068_real)
{
	ck_assert_int_eq(real(IMPORT_MANGOHUD, "mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37.csv", NULL), 0);
	/* 1215 lines: system header and values, column header, 1212 rows */
	ck_assert_uint_eq(s.rows, 1212);
	ck_assert_uint_eq(s.n_presents, 1213);
	ck_assert(!s.interval);
	ck_assert_str_eq(info("frametime_unit"), "us");
	ck_assert_str_eq(info("kernel"), "6.18.44-fc-v782");
	ck_assert_str_eq(info("driver"), "4.5 Mesa 22.3.6");
	ck_assert_str_eq(info("cpu"), "AMD EPYC");
	ck_assert_ptr_null(info("gpu")); /* empty in the log: not known */
	ck_assert_uint_eq(s.t_ns[0], IMPORT_T0_NS);
	ck_assert_uint_eq(frame(0), 42449000); /* first row: 42449 us */
	ck_assert_uint_eq(frame(1211), 20902000);
}
END_TEST

START_TEST(mangohud_068_interval_real)
{
	/* made with log_interval=100: elapsed steps 100 ms, frames ~8 ms */
	ck_assert_int_eq(real(IMPORT_MANGOHUD, "mangohud-0.6.8-here/chocolate-doom_2026-11-30_11-07-09.csv", NULL), 0);
	ck_assert(s.interval);
	ck_assert_uint_eq(s.rows, 78);
	/* its first 11 samples say 4464120894 us (fps 0.000224): no frame
	 * time, dropped and counted */
	ck_assert_uint_eq(s.rows_dropped, 11);
	ck_assert_uint_eq(s.rows_kept, 67);
	ck_assert_str_eq(s.first_dropped, "4: frame time 4.46412e+09 us is over 60 s");
	ck_assert(strstr(s.warnings.buf, "11 rows dropped"));
	ck_assert_uint_eq(frame(66), 7650000);
	/* the per-frame logs of the same directory are frames */
	import_series_release(&s);
	ck_assert_int_eq(real(IMPORT_MANGOHUD, "mangohud-0.6.8-here/chocolate-doom_2026-11-30_10-58-25.csv", NULL), 0);
	ck_assert(!s.interval);
	ck_assert_uint_eq(s.rows, 595);
	import_series_release(&s);
	ck_assert_int_eq(real(IMPORT_MANGOHUD, "mangohud-0.6.8-here/ioquake3_2026-11-30_11-14-42.csv", NULL), 0);
	ck_assert(!s.interval);
	ck_assert_uint_eq(s.rows, 241);
}
END_TEST

START_TEST(mangohud_080_real)
{
	ck_assert_int_eq(real(IMPORT_MANGOHUD, "mangohud/scx_fps-data.csv", NULL), 0);
	ck_assert_uint_eq(s.rows, 7);
	ck_assert_str_eq(info("frametime_unit"), "ms");
	ck_assert_str_eq(info("cpuscheduler"), "performance");
	ck_assert_str_eq(info("cpu"), "Intel Core Ultra 7 258V");
	/* scx_utils' test_mangohud_tailer: last frametime 15.6854 ms */
	ck_assert_uint_eq(frame(6), 15685400);
	ck_assert_uint_eq(frame(0), 121506000);
	ck_assert(!s.interval);
}
END_TEST

START_TEST(mangohud_banner_version)
{
	/* log_versioning: v1, the version, banners; 0.6.8 says us by version
	 * even where the numbers could pass for ms */
	ck_assert_int_eq(mango("v1\n0.6.8\n---------------------SYSTEM INFO---------------------\n"
			       "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
			       "Debian,AMD EPYC,,1,6.1.0,Mesa,\n"
			       "--------------------FRAME METRICS--------------------\n"
			       "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,elapsed\n"
			       "100,10000,1,0,0,0,0,0,0,0,0.1,10000000\n"
			       "50,20000,1,0,0,0,0,0,0,0,0.1,30000000\n"), 0);
	ck_assert_str_eq(info("version"), "0.6.8");
	ck_assert_uint_eq(frame(0), 10 * MS);
	ck_assert_uint_eq(frame(1), 20 * MS);
	import_series_release(&s);
	/* 0.7.2 by version: ms */
	ck_assert_int_eq(mango("v1\n0.7.2\nos,cpu\nArch,x\n"
			       "fps,frametime,cpu_load,elapsed\n100,10.5,1,10000000\n"), 0);
	ck_assert_uint_eq(frame(0), 10500000);
}
END_TEST

START_TEST(mangohud_units_inferred)
{
	/* the 0.6 columns without a version line: fps x frametime tells */
	const char *hdr = "fps,frametime,cpu_load,gpu_load,elapsed\n";
	char *t = xasprintf("%s100,10000,0,0,10000000\n100,10000,0,0,20000000\n", hdr);

	ck_assert_int_eq(mango(t), 0);
	ck_assert_str_eq(info("frametime_unit"), "us");
	ck_assert_uint_eq(frame(1), 10 * MS);
	free(t);
	import_series_release(&s);
	t = xasprintf("%s100,10.0,0,0,10000000\n100,10.0,0,0,20000000\n", hdr);
	ck_assert_int_eq(mango(t), 0);
	ck_assert_str_eq(info("frametime_unit"), "ms");
	ck_assert_uint_eq(frame(1), 10 * MS);
	free(t);
}
END_TEST

START_TEST(mangohud_pre05_no_header)
{
	/* 0.4: no column header, fps,cpu_load,gpu_load,elapsed (us): fps
	 * samples, read only when asked for as an interval log */
	const char *v04 = "os,cpu,gpu,ram,kernel,driver\nArch,x,y,1,5.7,z\n"
			  "50,10,20,100000\n25,10,20,200000\n";

	ck_assert_int_eq(mango(v04), -EINVAL);
	ck_assert(str_startswith(err.buf, "t.csv:3: expected MangoHud's column header; rows of 4 numbers"));
	ck_assert(strstr(err.buf, "--interval"));
	import_series_release(&s);
	ck_assert_int_eq(mango_opts(v04, true), 0);
	ck_assert(s.interval);
	ck_assert_uint_eq(s.rows, 2);
	ck_assert_uint_eq(frame(0), 20 * MS);
	ck_assert_uint_eq(frame(1), 40 * MS);
	ck_assert(strstr(info("version"), "0.4"));
	import_series_release(&s);
	/* 0.5: a header, no frametime: samples too */
	ck_assert_int_eq(mango_opts("fps,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,ram_used,elapsed\n"
			       "100,1,1,1,1,1,1,1,1,100000\n", true), 0);
	ck_assert(s.interval);
	ck_assert_uint_eq(frame(0), 10 * MS);
}
END_TEST

START_TEST(mangohud_extra_columns)
{
	/* 0.8.2 adds cpu_mhz before elapsed: found by name, not place */
	ck_assert_int_eq(mango("os,cpu,gpu,ram,kernel,driver,cpuscheduler\na,b,c,1,6.9,d,e\n"
			       "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,cpu_mhz,elapsed\n"
			       "60,16.6667,1,0,1,1,1,1,1,1,1,1,0,0,4000,16666700\n"
			       "60,16.6667,1,0,1,1,1,1,1,1,1,1,0,0,4000,33333400\n"), 0);
	ck_assert_uint_eq(frame(1), 16666700);
	ck_assert(strstr(info("version"), "0.8.2 or newer"));
	ck_assert_str_eq(info("version_from"), "columns");
	ck_assert(!s.interval);
}
END_TEST

START_TEST(mangohud_two_blocks)
{
	/* two logs started in the same second: appended blocks, each with
	 * its own columns (here an older and a newer one) */
	ck_assert_int_eq(mango("os,cpu,gpu,ram,kernel,driver\nA,cpu1,,1,6.1,\n"
			       "fps,frametime,cpu_load,gpu_load,elapsed\n100,10000,0,0,10000000\n100,10000,0,0,20000000\n"
			       "os,cpu,gpu,ram,kernel,driver\nA,cpu1,,1,6.1,\n"
			       "fps,frametime,cpu_load,cpu_power,gpu_load,swap_used,elapsed\n50,20,0,0,0,0,20000000\n"), 0);
	ck_assert_str_eq(info("blocks"), "2");
	ck_assert_str_eq(info("frametime_unit"), "us,ms");
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(frame(0), 10 * MS);
	ck_assert_uint_eq(frame(2), 20 * MS);
}
END_TEST

START_TEST(mangohud_interval_handmade)
{
	/* log_interval=100: rows 100 ms apart, frames of 10 ms */
	ck_assert_int_eq(mango("fps,frametime,cpu_load,swap_used,elapsed\n"
			       "100,10,0,0,100000000\n100,10,0,0,200000000\n100,10,0,0,300000000\n100,10,0,0,400000000\n"), 0);
	ck_assert(s.interval);
	import_series_release(&s);
	ck_assert_int_eq(mango("fps,frametime,cpu_load,swap_used,elapsed\n"
			       "100,10,0,0,10000000\n100,10,0,0,20000000\n100,10,0,0,30000000\n100,10,0,0,40000000\n"), 0);
	ck_assert(!s.interval);
}
END_TEST

START_TEST(mangohud_broken)
{
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2,3\n1,x,3\n"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected a number in column 'frametime', found 'x'");
	strbuf_reset(&err);
	import_series_release(&s);
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2,3\n1,2\n"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected 3 fields as the header on line 1 says, found 2");
	strbuf_reset(&err);
	import_series_release(&s);
	/* a PresentMon file is no MangoHud log */
	ck_assert_int_eq(mango("Application,ProcessID,MsBetweenPresents\na.exe,1,16.6\n"), -EINVAL);
	ck_assert(str_startswith(err.buf, "t.csv:1: expected MangoHud's column header"));
	strbuf_reset(&err);
	import_series_release(&s);
	ck_assert_int_eq(mango(""), -EINVAL);
	ck_assert(strstr(err.buf, "found the end"));
}
END_TEST

START_TEST(mangohud_cut_real)
{
	/* a real log as a crash leaves it: cut in the middle of its last row
	 * (line 1215), after 5 of its 12 fields */
	char *text = NULL, *p;
	size_t len;
	int commas = 0;

	ck_assert_int_eq(read_file(testdata_path("mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37.csv"),
				   &text, &len), 0);
	ck_assert(len > 2 && text[len - 1] == '\n');
	text[len - 1] = '\0';
	p = strrchr(text, '\n') + 1;
	while (commas < 5 && (p = strchr(p, ',')))
		commas += !!p++;
	ck_assert_ptr_nonnull(p);
	len = (size_t)(p - 1 - text);
	ck_assert_int_eq(import_mangohud_parse(text, len, "t.csv", NULL, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 1212);
	ck_assert_uint_eq(s.rows_dropped, 1);
	ck_assert_uint_eq(s.n_presents, 1212);
	ck_assert_str_eq(s.first_dropped, "1215: last row cut short (5 of 12 fields)");
	ck_assert_str_eq(s.warnings.buf, "t.csv:1215: last row cut short (5 of 12 fields): dropped\n");
	ck_assert_uint_eq(frame(0), 42449000);
	free(text);
}
END_TEST

START_TEST(mangohud_cut_handmade)
{
	/* a number cut in two: "-" is what is left of "-nan" */
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2,3\n1,2,-"), 0);
	ck_assert_uint_eq(s.rows_dropped, 1);
	ck_assert_str_eq(s.warnings.buf, "t.csv:3: last row cut short ('-' in column 'elapsed'): dropped\n");
	import_series_release(&s);
	/* the same row with its line break is broken, not cut: refused */
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2,3\n1,2,-\n"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected a number in column 'elapsed', found '-'");
	strbuf_reset(&err);
	import_series_release(&s);
	/* a short row before the last is refused too */
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2\n1,2,3"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:2: expected 3 fields as the header on line 1 says, found 2");
	strbuf_reset(&err);
	import_series_release(&s);
	/* a whole last row without its line break is kept */
	ck_assert_int_eq(mango("fps,frametime,elapsed\n1,2,3\n1,2,4"), 0);
	ck_assert_uint_eq(s.rows_dropped, 0);
	ck_assert_uint_eq(s.rows_kept, 2);
	ck_assert_uint_eq(s.warnings.len, 0);
}
END_TEST

START_TEST(mangohud_bad_frame_times)
{
	/* every row that is no frame is counted, the first named */
	ck_assert_int_eq(mango("0.7.2\nfps,frametime,elapsed\n60,16,1\n60,-5,2\n60,0,3\n60,nan,4\n"
			       "60,70000,5\n60,1e999,6\n60,17,7\n"), 0);
	ck_assert_uint_eq(s.rows, 7);
	ck_assert_uint_eq(s.rows_dropped, 5);
	ck_assert_uint_eq(s.rows_kept, 2);
	ck_assert_str_eq(s.first_dropped, "4: frame time -5 ms is not positive");
	ck_assert_str_eq(s.warnings.buf, "t.csv: 5 rows dropped, not frames (the first, line 4: frame time "
			 "-5 ms is not positive)\n");
	ck_assert_uint_eq(frame(1), 17 * MS);
	import_series_release(&s);
	/* the reasons */
	ck_assert_int_eq(mango("0.7.2\nfps,frametime,elapsed\n60,16,1\n60,-nan,2\n"), 0);
	ck_assert_str_eq(s.first_dropped, "4: frame time -nan ms is not a number");
	import_series_release(&s);
	ck_assert_int_eq(mango("0.7.2\nfps,frametime,elapsed\n60,16,1\n60,60001,2\n"), 0);
	ck_assert_str_eq(s.first_dropped, "4: frame time 60001 ms is over 60 s");
	import_series_release(&s);
	/* hex is no frame time a log writes */
	ck_assert_int_eq(mango("0.7.2\nfps,frametime,elapsed\n60,0x10,1\n"), -EINVAL);
}
END_TEST

START_TEST(mangohud_frametime_misspelt)
{
	/* a header without frametime is no log of frames: refused, with the
	 * header's line and columns, unless an interval import is asked for */
	const char *t = "os,cpu\nA,B\nfps,frametme,cpu_load,elapsed\n60,16.6,1,16600000\n60,16.6,1,33200000\n";

	ck_assert_int_eq(mango(t), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected a 'frametime' column in MangoHud's column header; it has "
			 "fps,frametme,cpu_load,elapsed (a log of fps samples, as MangoHud before 0.6 "
			 "wrote, is imported only as an interval log: --interval)");
	import_series_release(&s);
	ck_assert_int_eq(mango_opts(t, true), 0);
	ck_assert(s.interval);
	ck_assert_uint_eq(s.rows_kept, 2);
}
END_TEST

START_TEST(mangohud_version_lines)
{
	const char *rows = "\nfps,frametime,elapsed\n100,10,1\n";
	/* past what an int holds (sscanf's %u wrapped 4294967296 to 0) or
	 * not MAJOR.MINOR.PATCH: refused, not taken for a version */
	const char *bad[] = { "4294967296.0.9", "0.6.4294967305", "99999999999.6.8", "0.6", "0.6.8.1",
			      "0.100.0", "0.0.0", "v0.6.x" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *t = xasprintf("%s%s", bad[i], rows);

		strbuf_reset(&err);
		import_series_release(&s);
		ck_assert_int_eq(mango(t), -EINVAL);
		ck_assert(str_startswith(err.buf, "t.csv:1: expected a MangoHud version (MAJOR.MINOR.PATCH)"));
		free(t);
	}
	import_series_release(&s);
	ck_assert_int_eq(mango("v0.6.8-47-gabc\nfps,frametime,elapsed\n100,10000,1\n"), 0);
	ck_assert_str_eq(info("version"), "0.6.8");
	ck_assert_str_eq(info("frametime_unit"), "us");
}
END_TEST

START_TEST(mangohud_many_blocks)
{
	/* 50,000 one-row logs appended: the lists of versions and units grew
	 * by copying themselves at each block (quadratic); now linear, and
	 * bench.txt names the first 16 */
	struct strbuf t = STRBUF_INIT;

	for (int i = 0; i < 50000; i++)
		strbuf_addstr(&t, "fps,frametime,cpu_power,elapsed\n60,16,0,1\n");
	ck_assert_int_eq(mango(t.buf), 0);
	ck_assert_str_eq(info("blocks"), "50000");
	ck_assert_uint_eq(s.rows_kept, 50000);
	ck_assert(strstr(info("frametime_unit"), "ms,ms,...") && strlen(info("frametime_unit")) == 16 * 3 + 3);
	strbuf_release(&t);
}
END_TEST

START_TEST(presentmon_real)
{
	/* PresentMon 1.x capture of CS:GO: one process, 4265 rows summing to
	 * 36168.414 ms (our check with awk) */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/carhol_csgo_presentmon1x.csv", NULL), 0);
	ck_assert_uint_eq(s.rows, 4265);
	ck_assert_uint_eq(s.n_presents, 4266);
	ck_assert_uint_eq(s.t_ns[4265] - s.t_ns[0], 36168414000ull);
	ck_assert_str_eq(info("application"), "csgo.exe");
	ck_assert_str_eq(info("runtime"), "D3D9");
	ck_assert_str_eq(info("version"), "1.x");
	ck_assert_uint_eq(frame(0), 10564000);
}
END_TEST

START_TEST(presentmon_gold)
{
	/* 2.x gold file with a BOM; 3 processes, dwm.exe (the compositor)
	 * has the most rows (358), PresentBench.exe the most of the others
	 * (265): it is kept, and said */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_5.csv", NULL), 0);
	ck_assert_uint_eq(s.rows, 647);
	ck_assert_str_eq(info("application"), "PresentBench.exe");
	ck_assert_str_eq(info("process_choice"), "the most presents, compositors left out");
	ck_assert(strstr(s.notes.buf, ": kept PresentBench.exe (24892), the process with the most presents "
			 "(265 of 647) that is not a compositor; --process NAME or PID keeps another"));
	ck_assert_str_eq(info("processes"), "dwm.exe (2656): 358, PresentBench.exe (24892): 265, "
			 "steamwebhelper.exe (3980): 24");
	import_series_release(&s);
	/* dwm.exe when asked for: two swap chains of 174 presents */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_5.csv", "DWM.exe"), 0);
	ck_assert_str_eq(info("application"), "dwm.exe");
	ck_assert_str_eq(info("process_choice"), "--process");
	ck_assert_str_eq(info("version"), "2.x");
	ck_assert_str_eq(info("swap_chain"), "0x19D7EF5E390");
	ck_assert_uint_eq(s.rows_kept, 174);
	ck_assert_uint_eq(s.t_ns[174] - s.t_ns[0], 2900310700ull);
	import_series_release(&s);
	/* --process by name */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_5.csv", "presentbench.exe"), 0);
	ck_assert_str_eq(info("application"), "PresentBench.exe");
	ck_assert_str_eq(info("process_id"), "24892");
	ck_assert_str_eq(info("present_mode"), "Composed: Flip");
	import_series_release(&s);
	/* the same trace in the three column sets */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_0.csv", "10792"), 0);
	ck_assert_str_eq(info("application"), "Presenter.exe");
	import_series_release(&s);
	/* nine Presenter.exe of 18-19 presents and dwm.exe of 199: the first
	 * Presenter.exe of 19 */
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_0_v1.csv", NULL), 0);
	ck_assert_str_eq(info("application"), "Presenter.exe");
	ck_assert_str_eq(info("process_id"), "10792");
	import_series_release(&s);
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_0_v1.csv", "dwm.exe"), 0);
	ck_assert(str_startswith(info("version"), "1.x column names"));
	ck_assert_uint_eq(frame(0), 16475400);
	import_series_release(&s);
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_0_v2.csv", "dwm.exe"), 0);
	ck_assert(strstr(info("version"), "v2_metrics"));
	ck_assert_uint_eq(frame(0), 16389300);
	import_series_release(&s);
	ck_assert_int_eq(real(IMPORT_PRESENTMON, "presentmon/presentmon_gold_test_case_5.csv", "nosuch.exe"), -EINVAL);
	ck_assert(strstr(err.buf, "expected a process 'nosuch.exe'"));
	ck_assert(strstr(err.buf, "PresentBench.exe (24892)"));
}
END_TEST

START_TEST(presentmon_bom_crlf_na)
{
	ck_assert_int_eq(pm("\xef\xbb\xbf" "Application,ProcessID,SwapChainAddress,Runtime,MsBetweenPresents\r\n"
			    "game.exe,7,0x1,DXGI,NA\r\n"
			    "game.exe,7,0x1,DXGI,16.5\r\n"
			    "other.exe,8,0x2,DXGI,5\r\n"
			    "game.exe,7,0x1,DXGI,33.25\r\n", NULL), 0);
	ck_assert_str_eq(info("application"), "game.exe");
	ck_assert_uint_eq(s.rows, 4);
	ck_assert_uint_eq(s.rows_kept, 2);
	ck_assert_uint_eq(frame(0), 16500000);
	ck_assert_uint_eq(frame(1), 33250000);
}
END_TEST

START_TEST(presentmon_quoted_comma)
{
	/* a quoted field with a comma (and a doubled quote) shifts nothing */
	ck_assert_int_eq(pm("Application,ProcessID,SwapChainAddress,PresentMode,MsBetweenPresents\r\n"
			    "\"My, \"\"Best\"\" Game.exe\",7,0x1,\"Hardware: Independent Flip\",NA\r\n"
			    "\"My, \"\"Best\"\" Game.exe\",7,0x1,\"Hardware: Independent Flip\",16.5\r\n", NULL), 0);
	ck_assert_str_eq(info("application"), "My, \"Best\" Game.exe");
	ck_assert_str_eq(info("present_mode"), "Hardware: Independent Flip");
	ck_assert_uint_eq(s.rows_kept, 1);
	ck_assert_uint_eq(frame(0), 16500000);
}
END_TEST

START_TEST(presentmon_compositor)
{
	const char *t = "Application,ProcessID,MsBetweenPresents\n"
			"dwm.exe,1,16\ndwm.exe,1,16\ndwm.exe,1,16\ngame.exe,2,33\ngame.exe,2,34\n";

	ck_assert_int_eq(pm(t, NULL), 0);
	ck_assert_str_eq(info("application"), "game.exe");
	ck_assert_uint_eq(frame(1), 34 * MS);
	import_series_release(&s);
	/* nothing but the compositor: it is kept, and said */
	ck_assert_int_eq(pm("Application,ProcessID,MsBetweenPresents\nDWM.EXE,1,16\n", NULL), 0);
	ck_assert_str_eq(info("application"), "DWM.EXE");
	ck_assert_str_eq(s.notes.buf, "t.csv: only the compositor DWM.EXE (1) presented: kept it\n");
}
END_TEST

START_TEST(presentmon_many_processes)
{
	/* 20,000 processes of one present each and one of two: a lookup per
	 * row that scanned every process took a minute here */
	struct strbuf t = STRBUF_INIT;

	strbuf_addstr(&t, "Application,ProcessID,SwapChainAddress,MsBetweenPresents\n");
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&t, "p%d.exe,%d,0x%x,16\n", i, i, i);
	strbuf_addstr(&t, "p7.exe,7,0x7,17\n");
	ck_assert_int_eq(pm(t.buf, NULL), 0);
	ck_assert_str_eq(info("application"), "p7.exe");
	ck_assert_uint_eq(s.rows_kept, 2);
	ck_assert(str_startswith(info("processes"), "p7.exe (7): 2, p0.exe (0): 1, p1.exe (1): 1"));
	ck_assert(strstr(info("processes"), ", and 19980 more"));
	strbuf_release(&t);
}
END_TEST

START_TEST(presentmon_cut_and_dropped)
{
	ck_assert_int_eq(pm("Application,ProcessID,MsBetweenPresents,MsUntilDisplayed\n"
			    "g,1,16,1\ng,1,-5,1\ng,1,1", NULL), 0);
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(s.rows_dropped, 2);
	ck_assert_str_eq(s.first_dropped, "3: frame time -5 ms is not positive");
	ck_assert_str_eq(s.warnings.buf, "t.csv:4: last row cut short (3 of 4 fields): dropped\n"
			 "t.csv: 2 rows dropped, not frames (the first, line 3: frame time -5 ms is not positive)\n");
	import_series_release(&s);
	/* a frame time cut in two */
	ck_assert_int_eq(pm("Application,ProcessID,MsBetweenPresents\ng,1,16\ng,1,1.5e", NULL), 0);
	ck_assert_str_eq(s.first_dropped, "3: last row cut short ('1.5e' as the frame time)");
	ck_assert_uint_eq(s.rows_kept, 1);
}
END_TEST

START_TEST(presentmon_frameview)
{
	/* FrameView: its own columns, padded values, per-core names with
	 * spaces and brackets */
	ck_assert_int_eq(pm("Application,GPU,CPU,Resolution,Runtime,AllowsTearing,ProcessID,SwapChainAddress,"
			    "SyncInterval,PresentFlags,PresentMode,Dropped,TimeInSeconds,MsBetweenPresents,"
			    "MsBetweenDisplayChange,GPU0Clk(MHz),CPUCoreUtil%[ 0],CPUCoreUtil%[ 1]\n"
			    "Game.exe, NVIDIA GeForce RTX 3080, AMD Ryzen 9, 2560x1440,DXGI,0,1234,0x1,0,0,"
			    "Hardware: Independent Flip,0,1.0, 6.944, 6.944, 1905, 50.0, 40.0\n"
			    "Game.exe, NVIDIA GeForce RTX 3080, AMD Ryzen 9, 2560x1440,DXGI,0,1234,0x1,0,0,"
			    "Hardware: Independent Flip,0,1.007, 7.100, 6.944, 1905, 50.0, 40.0\n", NULL), 0);
	ck_assert_str_eq(info("version"), "FrameView");
	ck_assert_str_eq(info("gpu"), "NVIDIA GeForce RTX 3080");
	ck_assert_str_eq(info("resolution"), "2560x1440");
	ck_assert_uint_eq(frame(0), 6944000);
	ck_assert_uint_eq(frame(1), 7100000);
}
END_TEST

START_TEST(presentmon_broken)
{
	ck_assert_int_eq(pm("fps,frametime,elapsed\n1,2,3\n", NULL), -EINVAL);
	ck_assert(str_startswith(err.buf, "t.csv:1: expected PresentMon's column header"));
	strbuf_reset(&err);
	import_series_release(&s);
	ck_assert_int_eq(pm("Application,ProcessID,MsBetweenPresents\na,1,2\na,1,fast\n", NULL), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected a number or NA as the frame time, found 'fast'");
	strbuf_reset(&err);
	import_series_release(&s);
	ck_assert_int_eq(pm("Application,ProcessID,MsBetweenPresents\na,1,2\na\n", NULL), -EINVAL);
	ck_assert_str_eq(err.buf, "t.csv:3: expected 3 fields as the header says, found 1");
}
END_TEST

START_TEST(gallium)
{
	struct import_opts o = IMPORT_OPTS_DEFAULT;
	const char *t = "16.666\n17\n\n33.5\n";

	o.gallium_period_s = 0;
	ck_assert_int_eq(import_gallium_parse(t, strlen(t), "g", &o, &s, &err), 0);
	ck_assert(!s.interval);
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(frame(0), 16666000);
	ck_assert_uint_eq(frame(2), 33500000);
	import_series_release(&s);
	o.gallium_period_s = 0.5;
	ck_assert_int_eq(import_gallium_parse(t, strlen(t), "g", &o, &s, &err), 0);
	ck_assert(s.interval);
	import_series_release(&s);
	/* a zero is counted as dropped; a last value without its line break
	 * was cut */
	t = "16.6\n0\n17";
	ck_assert_int_eq(import_gallium_parse(t, strlen(t), "g", &o, &s, &err), 0);
	ck_assert_uint_eq(s.rows, 3);
	ck_assert_uint_eq(s.rows_kept, 1);
	ck_assert_uint_eq(s.rows_dropped, 2);
	ck_assert_str_eq(s.first_dropped, "2: frame time 0 is not positive");
	ck_assert_str_eq(s.warnings.buf, "g:3: last row cut short (no line break after it): dropped\n"
			 "g: 2 rows dropped, not frames (the first, line 2: frame time 0 is not positive)\n");
	import_series_release(&s);
	t = "16.6\nfps: 60\n";
	ck_assert_int_eq(import_gallium_parse(t, strlen(t), "g", &o, &s, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "g:2: expected a frame time in ms (one number a line), found 'fps: 60'");
}
END_TEST

START_TEST(formats)
{
	enum import_format f;

	for (int i = 0; i < IMPORT_FORMAT_COUNT; i++) {
		ck_assert_int_eq(import_format_parse(import_format_name((enum import_format)i), &f), 0);
		ck_assert_int_eq(f, i);
	}
	ck_assert_int_eq(import_format_parse("fraps", &f), -EINVAL);
}
END_TEST

TEST_SUITE(import_suite)
{
	Suite *su = suite_create("import");
	TCase *tc = tcase_create("import");

	/* Check's default 4 s was a speed limit, and the sanitizer build beside
	 * the suite took longer over 50,000 blocks: speed is for benchmarks */
	tcase_set_timeout(tc, 60);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mangohud_068_real);
	tcase_add_test(tc, mangohud_068_interval_real);
	tcase_add_test(tc, mangohud_080_real);
	tcase_add_test(tc, mangohud_banner_version);
	tcase_add_test(tc, mangohud_units_inferred);
	tcase_add_test(tc, mangohud_pre05_no_header);
	tcase_add_test(tc, mangohud_extra_columns);
	tcase_add_test(tc, mangohud_two_blocks);
	tcase_add_test(tc, mangohud_interval_handmade);
	tcase_add_test(tc, mangohud_broken);
	tcase_add_test(tc, mangohud_cut_real);
	tcase_add_test(tc, mangohud_cut_handmade);
	tcase_add_test(tc, mangohud_bad_frame_times);
	tcase_add_test(tc, mangohud_frametime_misspelt);
	tcase_add_test(tc, mangohud_version_lines);
	tcase_add_test(tc, mangohud_many_blocks);
	tcase_add_test(tc, presentmon_real);
	tcase_add_test(tc, presentmon_gold);
	tcase_add_test(tc, presentmon_bom_crlf_na);
	tcase_add_test(tc, presentmon_quoted_comma);
	tcase_add_test(tc, presentmon_compositor);
	tcase_add_test(tc, presentmon_many_processes);
	tcase_add_test(tc, presentmon_cut_and_dropped);
	tcase_add_test(tc, presentmon_frameview);
	tcase_add_test(tc, presentmon_broken);
	tcase_add_test(tc, gallium);
	tcase_add_test(tc, formats);
	suite_add_tcase(su, tc);
	return su;
}
