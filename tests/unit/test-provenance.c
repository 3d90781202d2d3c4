/*
 * bench/provenance.c's parsers: the CPU model from /proc/cpuinfo (a copy
 * captured on the development VM, and a powerpc line) and MemTotal from
 * real /proc/meminfo files of other projects' fixtures
 * (../shared/testdata/procfs).
 */
#include "provenance.h"
#include "test.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	char *text;
	int r = read_file(path, &text, NULL);

	ck_assert_msg(r == 0, "cannot read '%s': %s", path, strerror(-r));
	return text;
}

START_TEST(cpuinfo_x86_64)
{
	char *text = slurp(fixture_path("proc/cpuinfo-x86_64"));
	char *model = cpuinfo_model(text);

	/* two processors, both "model name\t: Intel(R) Xeon(R) Processor";
	 * "cpu family" and "cpu MHz" lines come before it */
	ck_assert_ptr_nonnull(model);
	ck_assert_str_eq(model, "Intel(R) Xeon(R) Processor");
	free(model);
	free(text);
}
END_TEST

START_TEST(cpuinfo_powerpc)
{
	/* made up in the layout of a PS3's /proc/cpuinfo: no "model name" */
	const char *text = "processor\t: 0\n"
			   "cpu\t\t: Cell Broadband Engine, altivec supported\n"
			   "clock\t\t: 3192.000000MHz\n"
			   "revision\t: 5.1 (pvr 0070 0501)\n"
			   "\n"
			   "timebase\t: 79800000\n"
			   "platform\t: PS3\n";
	char *model = cpuinfo_model(text);

	ck_assert_ptr_nonnull(model);
	ck_assert_str_eq(model, "Cell Broadband Engine, altivec supported");
	free(model);
}
END_TEST

START_TEST(cpuinfo_first_and_trimmed)
{
	char *model = cpuinfo_model("model name\t:   First CPU  \r\nmodel name\t: Second\n");

	ck_assert_str_eq(model, "First CPU");
	free(model);
	/* "model name" wins over an earlier "cpu" line */
	model = cpuinfo_model("cpu\t: POWER9\nmodel name\t: Named\n");
	ck_assert_str_eq(model, "Named");
	free(model);
	/* at the very end, no newline */
	model = cpuinfo_model("processor\t: 0\nmodel name\t: Last");
	ck_assert_str_eq(model, "Last");
	free(model);
}
END_TEST

START_TEST(cpuinfo_absent)
{
	/* arm64 style: "CPU implementer" etc., no model */
	ck_assert_ptr_null(cpuinfo_model("processor\t: 0\nBogoMIPS\t: 50.00\n"
					 "CPU implementer\t: 0x41\nCPU part\t: 0xd08\n"));
	ck_assert_ptr_null(cpuinfo_model(""));
	ck_assert_ptr_null(cpuinfo_model("model namex: no\ncpus: 4\n"));
	/* "cpu family" and "cpu MHz" are not the powerpc "cpu" line */
	ck_assert_ptr_null(cpuinfo_model("processor\t: 0\ncpu family\t: 6\ncpu MHz\t\t: 2100.000\n"));
}
END_TEST

/* MemTotal read by a means of its own: the line that starts with it. */
static long long memtotal_by_hand(const char *text)
{
	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		long long kb;

		if (sscanf(p, "MemTotal: %lld kB", &kb) == 1)
			return kb;
	}
	return -1;
}

START_TEST(meminfo_testdata)
{
	static const struct {
		const char *rel;
		long long kb; /* what the file says (read by eye) */
	} files[] = {
		{ "procfs/prometheus_procfs/proc/meminfo", 15666184 },
		{ "procfs/node_exporter/proc/meminfo", 3742148 },
		{ "procfs/sysstat/root1/proc/meminfo", 8144960 },
		{ "procfs/sysstat/root2/proc/meminfo", 8144960 },
		{ "procfs/sysstat/root3/proc/meminfo", 8144960 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = slurp(testdata_path(files[i].rel));

		ck_assert_int_eq(memtotal_by_hand(text), files[i].kb);
		ck_assert_msg(meminfo_total_kb(text) == files[i].kb, "%s: %lld", files[i].rel,
			      meminfo_total_kb(text));
		free(text);
	}
}
END_TEST

START_TEST(meminfo_absent)
{
	ck_assert_int_eq(meminfo_total_kb(""), -1);
	ck_assert_int_eq(meminfo_total_kb("MemFree:  100 kB\n"), -1);
	ck_assert_int_eq(meminfo_total_kb("MemTotal:\n"), -1);
	ck_assert_int_eq(meminfo_total_kb("MemTotal: 2048 kB"), 2048);
}
END_TEST

TEST_SUITE(provenance_suite)
{
	Suite *s = suite_create("provenance");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, cpuinfo_x86_64);
	tcase_add_test(tc, cpuinfo_powerpc);
	tcase_add_test(tc, cpuinfo_first_and_trimmed);
	tcase_add_test(tc, cpuinfo_absent);
	tcase_add_test(tc, meminfo_testdata);
	tcase_add_test(tc, meminfo_absent);
	suite_add_tcase(s, tc);
	return s;
}
