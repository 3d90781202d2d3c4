/*
 * Tests for analysis/export/: the writers on a small series of four
 * frames, their bytes held against what each tool writes (MangoHud's
 * columns, PresentMon's BOM, CRLF and NA, CapFrameX's arrays), the file
 * names, exact milliseconds, and each CSV read back by our importers to
 * the same frame times, to the ns.
 */
#include "test.h"
#include "export/export.h"
#include "import/import.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* frames of 16.666667 ms (three) and 50 ms: present times from 1 s */
static const uint64_t series[] = { 1000000000, 1016666667, 1033333334, 1050000001, 1100000001 };

static struct export_input input(void)
{
	return (struct export_input){
		.t_ns = series, .n = 5, .game = "doom", .run_id = "0e4c7d1a86e9eb45421f1ed44c56d5a2",
		.started_utc = "2026-11-30T08:05:03Z", .os = "", .cpu = "Some CPU, 8 cores", .gpu = "llvmpipe",
		.ram = "", .kernel = "6.1.0", .driver = "Mesa 22.3.6",
	};
}

/* What a writer writes, as a string the caller frees. */
static char *written(void (*writer)(FILE *, const struct export_input *), const struct export_input *in,
		     size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	writer(f, in);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(milliseconds)
{
	char b[48];

	export_ms(b, sizeof(b), 16666667, 0);
	ck_assert_str_eq(b, "16.666667");
	export_ms(b, sizeof(b), 50000000, 0);
	ck_assert_str_eq(b, "50");
	export_ms(b, sizeof(b), 1, 0);
	ck_assert_str_eq(b, "0.000001");
	export_ms(b, sizeof(b), 16475400, 14);
	ck_assert_str_eq(b, "16.47540000000000");
}
END_TEST

START_TEST(names)
{
	struct export_input in = input();
	char *n;

	n = export_file_name(EXPORT_MANGOHUD, &in);
	ck_assert_str_eq(n, "doom_2026-11-30_08-05-03.csv");
	free(n);
	n = export_summary_name("doom_2026-11-30_08-05-03.csv");
	ck_assert_str_eq(n, "doom_2026-11-30_08-05-03_summary.csv");
	free(n);
	n = export_file_name(EXPORT_PRESENTMON, &in);
	ck_assert_str_eq(n, "PresentMon-2026-11-30T080503.csv");
	free(n);
	n = export_file_name(EXPORT_CAPFRAMEX, &in);
	ck_assert_str_eq(n, "CapFrameX-doom.exe-2026-11-30T853.json");
	free(n);
}
END_TEST

/* the series' frame times, as an import gives them back */
static void same_frames(const struct import_series *s)
{
	ck_assert_uint_eq(s->n_presents, 5);
	for (size_t i = 1; i < 5; i++)
		ck_assert_uint_eq(s->t_ns[i] - s->t_ns[i - 1], series[i] - series[i - 1]);
}

START_TEST(mangohud_log)
{
	struct export_input in = input();
	struct import_series s;
	struct strbuf err;
	size_t len;
	char *text = written(export_mangohud_log, &in, &len);

	ck_assert_str_eq(text,
			 "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
			 ",\"Some CPU, 8 cores\",llvmpipe,,6.1.0,Mesa 22.3.6,\n"
			 "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
			 "gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed\n"
			 "60,16.666667,0,0,0,0,0,0,0,0,0,0,0,0,16666667\n"
			 "60,16.666667,0,0,0,0,0,0,0,0,0,0,0,0,33333334\n"
			 "60,16.666667,0,0,0,0,0,0,0,0,0,0,0,0,50000001\n"
			 "20,50,0,0,0,0,0,0,0,0,0,0,0,0,100000001\n");
	import_series_init(&s);
	strbuf_init(&err);
	ck_assert_msg(import_mangohud_parse(text, len, "x.csv", NULL, &s, &err) == 0, "%s", err.buf);
	same_frames(&s);
	ck_assert(!s.interval);
	import_series_release(&s);
	strbuf_release(&err);
	free(text);
}
END_TEST

START_TEST(mangohud_summary)
{
	struct export_input in = input();
	size_t len;
	char *text = written(export_mangohud_summary, &in, &len);
	const char *values = strchr(text, '\n');

	ck_assert(strncmp(text, "0.1% Min FPS,1% Min FPS,97% Percentile FPS,Average FPS,", 55) == 0);
	ck_assert_ptr_nonnull(values);
	/* 0.8: the slowest frame for 0.1% and 1% of four; 97%: index
	 * (uint64)(0.97 * 4 - 1) = 2 of the frames sorted longest first;
	 * average 1000 / 25 ms; no line break after the values, as MangoHud */
	ck_assert_str_eq(values + 1, "20,20,60,40.0,0.0,0.0,25.0,0.0,0.0,0.0,0.0,0.0,0,0.0,0,0,0.0,0.0,0.0");
	free(text);
}
END_TEST

START_TEST(presentmon_csv)
{
	struct export_input in = input();
	struct import_series s;
	struct strbuf err;
	size_t len;
	char *text = written(export_presentmon, &in, &len);
	char *row;

	ck_assert(strncmp(text, "\xef\xbb\xbf" "Application,ProcessID,", 25) == 0);
	row = strstr(text, "\r\n");
	ck_assert_ptr_nonnull(row);
	ck_assert(strncmp(row + 2,
			  "doom,0,0x0,Other,0,0,0,Unknown,Application,0.01666666700000,NA,16.66666700000000,NA,NA,NA,"
			  "NA,NA,0.00000000000000,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA\r\n",
			  150) == 0);
	ck_assert(len > 2 && strcmp(text + len - 2, "\r\n") == 0);
	import_series_init(&s);
	strbuf_init(&err);
	ck_assert_msg(import_presentmon_parse(text, len, "x.csv", NULL, &s, &err) == 0, "%s", err.buf);
	same_frames(&s);
	import_series_release(&s);
	strbuf_release(&err);
	free(text);
}
END_TEST

START_TEST(capframex_json)
{
	struct export_input in = input();
	size_t len;
	char *text = written(export_capframex, &in, &len);

	ck_assert_ptr_nonnull(strstr(text, "\"Id\": \"0e4c7d1a-86e9-eb45-421f-1ed44c56d5a2\""));
	ck_assert_ptr_nonnull(strstr(text, "\"GameName\": \"doom\""));
	ck_assert_ptr_nonnull(strstr(text, "\"MsBetweenPresents\": [16.666667, 16.666667, 16.666667, 50]"));
	ck_assert_ptr_nonnull(strstr(text, "\"TimeInSeconds\": [0.016666667, 0.033333334, 0.050000001, 0.100000001]"));
	ck_assert_ptr_nonnull(strstr(text, "\"Dropped\": [false, false, false, false]"));
	ck_assert_ptr_nonnull(strstr(text, "\"PresentMode\": [0, 0, 0, 0]"));
	free(text);
}
END_TEST

START_TEST(format_names)
{
	enum export_format f;

	for (unsigned i = 0; i < EXPORT_FORMAT_COUNT; i++) {
		ck_assert_int_eq(export_format_parse(export_format_name((enum export_format)i), &f), 0);
		ck_assert_uint_eq(f, i);
	}
	ck_assert_int_lt(export_format_parse("ocat", &f), 0);
}
END_TEST

TEST_SUITE(export_suite)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");

	tcase_add_test(tc, milliseconds);
	tcase_add_test(tc, names);
	tcase_add_test(tc, mangohud_log);
	tcase_add_test(tc, mangohud_summary);
	tcase_add_test(tc, presentmon_csv);
	tcase_add_test(tc, capframex_json);
	tcase_add_test(tc, format_names);
	suite_add_tcase(s, tc);
	return s;
}
