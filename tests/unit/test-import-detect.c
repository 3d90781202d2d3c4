/*
 * Telling a frame log's format from the file (analysis/import/import-detect.c):
 * every real log of tests/fixtures/testdata is recognised as the tool whose
 * directory holds it, what is no log (a summary file, a README, JSON that
 * is no capture, a directory without a dump) is refused with what it opens
 * with, and the small marks (a BOM, CRLF, FrameView's padded header, the
 * frame file's magic) are each tried on a file of their own.
 */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/frames.h"
#include "import/import.h"

/* The format of path, or -1 when refused; why is kept in *why_out when
 * not NULL (caller frees). */
static int detect(const char *path, char **why_out)
{
	struct strbuf why = STRBUF_INIT;
	enum import_format f;
	int r = import_detect(path, &f, &why);

	if (why_out)
		*why_out = strbuf_detach(&why);
	strbuf_release(&why);
	return r == 0 ? (int)f : -1;
}

/* Whether name is one of a tool's summary files, which hold no frames. */
static bool is_summary(const char *name)
{
	return strstr(name, "summary") || strstr(name, "Summary");
}

/* Every log in testdata/DIR is read as format f; returns how many. */
static unsigned every_log_in(const char *dir, enum import_format f)
{
	const char *root = testdata_path(dir);
	DIR *d = opendir(root);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *path, *why = NULL;
		int got;

		if (e->d_name[0] == '.' || is_summary(e->d_name) || strncmp(e->d_name, "README", 6) == 0)
			continue;
		path = xasprintf("%s/%s", root, e->d_name);
		got = detect(path, &why);
		ck_assert_msg(got == (int)f, "%s: read as %s, not %s (%s)", path,
			      got < 0 ? "nothing" : import_format_name((enum import_format)got),
			      import_format_name(f), why);
		n++;
		free(why);
		free(path);
	}
	closedir(d);
	return n;
}

START_TEST(real_logs)
{
	static const struct {
		const char *dir;
		enum import_format f;
		unsigned at_least;
	} dirs[] = {
		{ "mangohud", IMPORT_MANGOHUD, 1 },
		{ "mangohud-0.6.8-here", IMPORT_MANGOHUD, 4 },
		{ "mangohud-0.7.2-here", IMPORT_MANGOHUD, 1 },
		{ "mangohud-0.8.4-here", IMPORT_MANGOHUD, 2 },
		{ "presentmon", IMPORT_PRESENTMON, 5 },
		{ "ocat", IMPORT_OCAT, 1 },
		{ "frameview", IMPORT_FRAMEVIEW, 0 },
		{ "capframex", IMPORT_CAPFRAMEX, 1 },
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		unsigned n = every_log_in(dirs[i].dir, dirs[i].f);

		ck_assert_msg(n >= dirs[i].at_least, "%s: %u logs", dirs[i].dir, n);
	}
}
END_TEST

/* MangoHud's summary is no log: refused, with its first line shown */
START_TEST(summary_refused)
{
	char *why = NULL;

	ck_assert_int_eq(detect(testdata_path("mangohud-0.6.8-here/dsda-doom_2026-11-30_10-02-37_summary.csv"), &why),
			 -1);
	ck_assert_msg(strstr(why, "not a log of a format this version reads") && strstr(why, "its first line is '"),
		      "%s", why);
	free(why);
}
END_TEST

/* one file per mark */
START_TEST(marks)
{
	static const struct {
		const char *name, *text;
		int f;
		const char *why;
	} cases[] = {
		{ "cx.json", "  {\n \"Info\": {}, \"Runs\": [] }", IMPORT_CAPFRAMEX, "\"Runs\"" },
		{ "cx.csv", "//GameName=x\r\n//Processor=y\r\nMsBetweenPresents\r\n", IMPORT_CAPFRAMEX, "//Key=Value" },
		{ "other.json", "{\"a\": 1}", -1, "not a CapFrameX capture" },
		{ "ocat.csv", "Application,ProcessID,TimeInSeconds,MsBetweenPresents,Motherboard,OS\n", IMPORT_OCAT,
		  "Motherboard" },
		{ "fv.csv", "Application ,GPU ,CPU ,Resolution , MsBetweenPresents \r\n", IMPORT_FRAMEVIEW,
		  "Resolution" },
		{ "pm.csv", "\xEF\xBB\xBF" "Application,ProcessID,FrameTime\r\n", IMPORT_PRESENTMON, "FrameTime" },
		{ "mh.csv", "fps,frametime,cpu_load\n", IMPORT_MANGOHUD, "fps and frametime" },
		{ "frametime_(ms)", "16.6\n16.7\n", IMPORT_GALLIUM_HUD, "GALLIUM_HUD_DUMP_DIR" },
		{ "frames.bin", HB_FRAMES_MAGIC "\x02", IMPORT_HOOK, "magic" },
		{ "empty.csv", "", -1, "empty" },
		{ "app.csv", "Application,ProcessID\n", -1, "'Application,ProcessID'" },
	};
	char *tmp = test_tmpdir();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = xasprintf("%s/%s", tmp, cases[i].name), *why = NULL;
		int got;

		test_put(tmp, cases[i].name, cases[i].text);
		got = detect(path, &why);
		ck_assert_msg(got == cases[i].f, "%s: %d, not %d (%s)", cases[i].name, got, cases[i].f, why);
		ck_assert_msg(strstr(why, cases[i].why), "%s: '%s' lacks '%s'", cases[i].name, why, cases[i].why);
		free(why);
		free(path);
	}
	/* a dump directory, and one without the frame-time graph */
	test_put(tmp, "dump/frametime_(ms)", "16.6\n");
	test_put(tmp, "nodump/fps", "60\n");
	{
		char *dump = xasprintf("%s/dump", tmp), *nodump = xasprintf("%s/nodump", tmp), *why = NULL;

		ck_assert_int_eq(detect(dump, NULL), IMPORT_GALLIUM_HUD);
		ck_assert_int_eq(detect(nodump, &why), -1);
		ck_assert_ptr_nonnull(strstr(why, "without a Gallium HUD frametime_(ms) file"));
		free(why);
		free(dump);
		free(nodump);
	}
	remove_tree(tmp);
	free(tmp);
}
END_TEST

/* the text alone, as the fuzz harness gives it: the marks are the same,
 * and a file's name tells only Gallium's dump */
START_TEST(text_alone)
{
	static const char ocat[] = "Application,ProcessID,MsBetweenPresents,Processor\n";
	struct strbuf why = STRBUF_INIT;
	enum import_format f;

	ck_assert_int_eq(import_detect_text(ocat, sizeof(ocat) - 1, "x.csv", &f, &why), 0);
	ck_assert_int_eq(f, IMPORT_OCAT);
	ck_assert_str_eq(why.buf, "PresentMon's columns (Application, MsBetweenPresents) and OCAT's system column Processor");
	strbuf_reset(&why);
	ck_assert_int_eq(import_detect_text("1.0\n", 4, "frametime_(ms)", &f, &why), 0);
	ck_assert_int_eq(f, IMPORT_GALLIUM_HUD);
	strbuf_reset(&why);
	ck_assert_int_eq(import_detect_text("1.0\n", 4, "x", &f, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "no tool's marks: its first line is '1.0'");
	strbuf_release(&why);
}
END_TEST

TEST_SUITE(import_detect_suite)
{
	Suite *s = suite_create("importdetect");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, real_logs);
	tcase_add_test(tc, summary_refused);
	tcase_add_test(tc, marks);
	tcase_add_test(tc, text_alone);
	suite_add_tcase(s, tc);
	return s;
}
