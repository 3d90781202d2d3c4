/*
 * bench/runner/provenance.c's parsers: the CPU model from /proc/cpuinfo (a copy
 * captured on the development VM, and a powerpc line) and MemTotal from
 * real /proc/meminfo files of other projects' fixtures
 * (tests/fixtures/testdata/procfs); the kernel settings from a root in the
 * kernel's layout (tests/fixtures/provenance-root, see its README) and
 * from roots made here; the GL stack from recorded and hand-written
 * glxinfo -B output (tests/fixtures/glxinfo) and stand-in glxinfo scripts.
 */
#include "system/fsroot.h"
#include "runner/provenance.h"
#include "text/kvfile.h"
#include "test.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

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

START_TEST(cpuinfo_microcode_lines)
{
	char *text = slurp(fixture_path("proc/cpuinfo-x86_64"));
	char *v = cpuinfo_microcode(text);

	ck_assert_str_eq(v, "0x1");
	free(v);
	free(text);
	/* arm64 has none */
	ck_assert_ptr_null(cpuinfo_microcode("processor\t: 0\nCPU implementer\t: 0x41\n"));
}
END_TEST

START_TEST(meminfo_other_keys)
{
	const char *text = "MemTotal:       24684092 kB\nMemAvailable:   24318328 kB\n"
			   "SwapCached:            0 kB\nSwapTotal:       6291448 kB\n"
			   "SwapFree:        6290424 kB\n";

	ck_assert_int_eq(meminfo_kb(text, "MemAvailable"), 24318328);
	ck_assert_int_eq(meminfo_kb(text, "SwapTotal"), 6291448);
	ck_assert_int_eq(meminfo_kb(text, "SwapFree"), 6290424);
	/* a key is the whole name at the start of a line */
	ck_assert_int_eq(meminfo_kb(text, "Swap"), -1);
	ck_assert_int_eq(meminfo_kb(text, "Cached"), -1);
	ck_assert_int_eq(meminfo_kb("XSwapFree: 3 kB\n", "SwapFree"), -1);
}
END_TEST

START_TEST(swaps_lines)
{
	char *v = swaps_describe("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
				 "/dev/zram0                              partition\t4194300\t\t1024\t\t100\n"
				 "/swap\\040file                           file\t\t2097148\t\t0\t\t-2\n");

	ck_assert_str_eq(v, "/dev/zram0 partition 4194300kB prio 100; /swap\\040file file 2097148kB prio -2");
	free(v);
	v = swaps_describe("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	ck_assert_str_eq(v, "none");
	free(v);
	ck_assert_ptr_null(swaps_describe(""));
}
END_TEST

START_TEST(sysfs_choice_lines)
{
	char *v = sysfs_choice("always [madvise] never\n");

	ck_assert_str_eq(v, "madvise");
	free(v);
	v = sysfs_choice("always defer defer+madvise [madvise] never\n");
	ck_assert_str_eq(v, "madvise");
	free(v);
	v = sysfs_choice("[always] madvise never");
	ck_assert_str_eq(v, "always");
	free(v);
	ck_assert_ptr_null(sysfs_choice("always madvise never\n"));
	ck_assert_ptr_null(sysfs_choice("[] x"));
	ck_assert_ptr_null(sysfs_choice("[open"));
}
END_TEST

static void expect_governors(const int *cpus, const char *const *g, size_t n, const char *want)
{
	char *v = cpu_governors_describe(cpus, g, n);

	ck_assert_str_eq(v, want);
	free(v);
}

START_TEST(governors)
{
	static const int c[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	const char *all_perf[] = { "performance", "performance" };
	const char *split[] = { "powersave", "powersave", "powersave", "powersave",
				"performance", "performance", "performance", "performance" };
	const char *mixed[] = { "schedutil", "performance", "schedutil", NULL, NULL, "schedutil" };
	const char *none[] = { NULL, NULL };
	const char *tail[] = { "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "b", "b" };
	static const int gaps[] = { 0, 2, 3, 7 };
	const char *gaps_g[] = { "ondemand", "ondemand", "ondemand", "performance" };

	expect_governors(c, all_perf, 2, "performance");
	expect_governors(c, split, 8, "powersave (cpu0-3), performance (cpu4-7)");
	expect_governors(c, mixed, 6, "schedutil (cpu0,2,5), performance (cpu1), none (cpu3-4)");
	expect_governors(c, none, 2, "none (no cpufreq)");
	expect_governors(c, tail, 12, "a (cpu0-9), b (cpu10-11)");
	/* offline CPUs are not listed: numbers need not be consecutive */
	expect_governors(gaps, gaps_g, 4, "ondemand (cpu0,2-3), performance (cpu7)");
	ck_assert_ptr_null(cpu_governors_describe(c, all_perf, 0));
}
END_TEST

static void expect_key(const struct kvfile *kf, const char *key, const char *want)
{
	const char *v = kvfile_get(kf, key);

	ck_assert_msg(v, "no %s", key);
	ck_assert_msg(!strcmp(v, want), "%s: expected '%s', got '%s'", key, want, v);
}

START_TEST(root_fixture)
{
	static const struct {
		const char *name, *text;
	} vulns[] = {
		/* in name order, as the files of the fixture say */
		{ "gather_data_sampling", "Not affected" },
		{ "ghostwrite", "Not affected" },
		{ "indirect_target_selection", "Not affected" },
		{ "itlb_multihit", "Not affected" },
		{ "l1tf", "Not affected" },
		{ "mds", "Vulnerable: Clear CPU buffers attempted, no microcode; SMT Host state unknown" },
		{ "meltdown", "Mitigation: PTI" },
		{ "mmio_stale_data", "Not affected" },
		{ "old_microcode", "Not affected" },
		{ "reg_file_data_sampling", "Not affected" },
		{ "retbleed", "Not affected" },
		{ "spec_rstack_overflow", "Not affected" },
		{ "spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl" },
		{ "spectre_v1", "Mitigation: usercopy/swapgs barriers and __user pointer sanitization" },
		{ "spectre_v2", "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; "
				"PBRSB-eIBRS: SW sequence; BHI: Vulnerable" },
		{ "srbds", "Not affected" },
		{ "tsa", "Not affected" },
		{ "tsx_async_abort", "Mitigation: TSX disabled" },
		{ "vmscape", "Not affected" },
	};
	struct kvfile kf;
	size_t first = 0, seen = 0;

	kvfile_init(&kf);
	fsroot_set(fixture_path("provenance-root"));
	provenance_system(&kf);
	fsroot_set(NULL);
	expect_key(&kf, "kernel_cmdline",
		   "mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
		   "nomodule random.trust_cpu=1 swiotlb=noforce psi=1 nvproxy.enable=1 "
		   "page_reporting.page_reporting_order=11 deferred_init=lazy nested_pvm=1");
	for (size_t i = 0; i < kf.n; i++) {
		if (!str_startswith(kf.items[i].key, "cpu_vulnerability."))
			continue;
		if (!seen)
			first = i;
		ck_assert_msg(i == first + seen, "cpu_vulnerability keys are not together");
		ck_assert_uint_lt(seen, ARRAY_SIZE(vulns));
		ck_assert_str_eq(kf.items[i].key + strlen("cpu_vulnerability."), vulns[seen].name);
		ck_assert_str_eq(kf.items[i].value, vulns[seen].text);
		seen++;
	}
	ck_assert_uint_eq(seen, ARRAY_SIZE(vulns));
	expect_key(&kf, "machine_id", "3d1219c7c4c5404aaa1f6d2a48adfda4");
	expect_key(&kf, "gpu", "8086:46a6 i915");
	expect_key(&kf, "clocksource", "tsc");
	expect_key(&kf, "delayacct", "0");
	expect_key(&kf, "psi", "yes");
	expect_key(&kf, "cpu_model", "Intel(R) Xeon(R) Processor");
	expect_key(&kf, "cpu_microcode", "0x1");
	expect_key(&kf, "cpu_online", "0-3");
	expect_key(&kf, "cpu_governor", "performance (cpu0-1), powersave (cpu2-3)");
	expect_key(&kf, "mem_total_kb", "24684092");
	expect_key(&kf, "mem_available_kb", "24318328");
	expect_key(&kf, "swap_total_kb", "6291448");
	expect_key(&kf, "swap_free_kb", "6290424");
	expect_key(&kf, "swappiness", "60");
	expect_key(&kf, "swaps", "/dev/zram0 partition 4194300kB prio 100; /swapfile file 2097148kB prio -2");
	expect_key(&kf, "thp_enabled", "madvise");
	expect_key(&kf, "thp_defrag", "madvise");
	expect_key(&kf, "boot_id", "fc4a2586-52ce-43fc-861a-bde58b834897");
	kvfile_release(&kf);
}
END_TEST

static const char *const root_keys[] = {
	"kernel_cmdline", "clocksource", "delayacct", "cpu_model", "cpu_microcode", "cpu_online",
	"cpu_governor", "mem_total_kb", "mem_available_kb", "swap_total_kb", "swap_free_kb",
	"swappiness", "swaps", "thp_enabled", "thp_defrag", "boot_id",
};

START_TEST(root_empty)
{
	char *dir = test_tmpdir();
	struct kvfile kf;

	kvfile_init(&kf);
	fsroot_set(dir);
	provenance_system(&kf);
	fsroot_set(NULL);
	/* nothing to read: the keys of files are absent, not "unknown" */
	for (size_t i = 0; i < ARRAY_SIZE(root_keys); i++)
		ck_assert_msg(!kvfile_get(&kf, root_keys[i]), "%s=%s on an empty root", root_keys[i],
			      kvfile_get(&kf, root_keys[i]));
	for (size_t i = 0; i < kf.n; i++)
		ck_assert_msg(!str_startswith(kf.items[i].key, "cpu_vulnerability."), "%s",
			      kf.items[i].key);
	expect_key(&kf, "psi", "no");
	/* what does not come from the root is still there */
	ck_assert_ptr_nonnull(kvfile_get(&kf, "kernel_release"));
	ck_assert_ptr_nonnull(kvfile_get(&kf, "cpus"));
	ck_assert_ptr_nonnull(kvfile_get(&kf, "harness_version"));
	kvfile_release(&kf);
	remove_tree(dir);
	free(dir);
}
END_TEST

static void put(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);

	*strrchr(path, '/') = '\0';
	ck_assert_int_eq(mkdir_p(path, 0755), 0);
	path[strlen(path)] = '/';
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
	free(path);
}

START_TEST(root_no_cpufreq)
{
	char *dir = test_tmpdir();
	struct kvfile kf;

	/* this VM: CPUs without cpufreq, a swap table without devices, an
	 * empty vulnerabilities directory (a kernel that knows of none) */
	put(dir, "sys/devices/system/cpu/cpu0/uevent", "");
	put(dir, "sys/devices/system/cpu/cpu1/uevent", "");
	put(dir, "sys/devices/system/cpu/cpuidle/current_driver", "none\n");
	put(dir, "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
	put(dir, "sys/devices/system/cpu/vulnerabilities/.keep", "");
	kvfile_init(&kf);
	fsroot_set(dir);
	provenance_system(&kf);
	fsroot_set(NULL);
	expect_key(&kf, "cpu_governor", "none (no cpufreq)");
	expect_key(&kf, "swaps", "none");
	for (size_t i = 0; i < kf.n; i++)
		ck_assert_msg(!str_startswith(kf.items[i].key, "cpu_vulnerability."), "%s",
			      kf.items[i].key);
	kvfile_release(&kf);
	remove_tree(dir);
	free(dir);
}
END_TEST

static void glxinfo_fixture(const char *name, struct kvfile *kf)
{
	char *text = slurp(fixture_path(name));

	kvfile_init(kf);
	ck_assert_int_eq(glxinfo_parse(text, kf), 0);
	free(text);
}

START_TEST(glxinfo_llvmpipe)
{
	struct kvfile kf;

	glxinfo_fixture("glxinfo/llvmpipe-xvfb.txt", &kf);
	expect_key(&kf, "gl_vendor", "Mesa/X.org");
	expect_key(&kf, "gl_renderer", "llvmpipe (LLVM 15.0.6, 256 bits)");
	expect_key(&kf, "gl_version", "4.5 (Compatibility Profile) Mesa 22.3.6");
	expect_key(&kf, "gl_core_version", "4.5 (Core Profile) Mesa 22.3.6");
	expect_key(&kf, "gl_es_version", "OpenGL ES 3.2 Mesa 22.3.6");
	expect_key(&kf, "mesa_version", "22.3.6");
	expect_key(&kf, "gl_direct", "yes");
	ck_assert_uint_eq(kf.n, 7);
	kvfile_release(&kf);
}
END_TEST

START_TEST(glxinfo_nvidia)
{
	struct kvfile kf;

	glxinfo_fixture("glxinfo/nvidia-proprietary.txt", &kf);
	expect_key(&kf, "gl_vendor", "NVIDIA Corporation");
	expect_key(&kf, "gl_renderer", "NVIDIA GeForce GTX 1070/PCIe/SSE2");
	expect_key(&kf, "gl_version", "4.6.0 NVIDIA 535.183.01");
	expect_key(&kf, "gl_core_version", "4.6.0 NVIDIA 535.183.01");
	expect_key(&kf, "gl_direct", "yes");
	/* not Mesa; and the memory section's indented lines are not read */
	ck_assert_ptr_null(kvfile_get(&kf, "mesa_version"));
	kvfile_release(&kf);
}
END_TEST

START_TEST(glxinfo_mesa_version_sources)
{
	struct kvfile kf;

	/* hand-written, the shape of radeonsi on Ubuntu: the version string
	 * carries the distribution's build, which is what we want */
	kvfile_init(&kf);
	ck_assert_int_eq(glxinfo_parse("direct rendering: No\n"
				       "Extended renderer info (GLX_MESA_query_renderer):\n"
				       "    Vendor: AMD (0x1002)\n"
				       "    Version: 23.2.1\n"
				       "    Max core profile version: 4.6\n"
				       "OpenGL vendor string: AMD\n"
				       "OpenGL renderer string: AMD Radeon RX 6600 (navi23, LLVM 15.0.7, DRM 3.54)\n"
				       "OpenGL version string: 4.6 (Compatibility Profile) Mesa 23.2.1-1ubuntu3.1~22.04.2\n",
				       &kf), 0);
	expect_key(&kf, "mesa_version", "23.2.1-1ubuntu3.1~22.04.2");
	expect_key(&kf, "gl_direct", "no");
	ck_assert_ptr_null(kvfile_get(&kf, "gl_core_version"));
	kvfile_release(&kf);
	/* no "Mesa" in the strings: the extended info's Version */
	kvfile_init(&kf);
	ck_assert_int_eq(glxinfo_parse("Extended renderer info (GLX_MESA_query_renderer):\n"
				       "    Version: 24.0.5\n"
				       "OpenGL renderer string: virgl\n"
				       "OpenGL version string: 4.3 (Compatibility Profile)\n"
				       "Version: 1.0 (not indented: not the extended info)\n",
				       &kf), 0);
	expect_key(&kf, "mesa_version", "24.0.5");
	kvfile_release(&kf);
}
END_TEST

START_TEST(glxinfo_no_renderer)
{
	struct kvfile kf;

	kvfile_init(&kf);
	ck_assert_int_eq(glxinfo_parse("Error: unable to open display :99\n", &kf), -ENODATA);
	ck_assert_int_eq(glxinfo_parse("", &kf), -ENODATA);
	ck_assert_int_eq(glxinfo_parse("OpenGL vendor string: X\nOpenGL renderer string:  \n", &kf),
			 -ENODATA);
	/* nothing added on failure */
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
}
END_TEST

/* A stand-in for glxinfo: a script in dir. Returns its path. */
static char *fake_glxinfo(const char *dir, const char *name, const char *body)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = xasprintf("#!/bin/sh\n%s\n", body);

	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0755), 0);
	free(text);
	return path;
}

START_TEST(probe_ok)
{
	char *dir = test_tmpdir(), *body, *prog;
	struct kvfile kf;

	body = xasprintf("[ \"$1\" = -B ] || exit 3\ncat '%s'", fixture_path("glxinfo/llvmpipe-xvfb.txt"));
	prog = fake_glxinfo(dir, "glxinfo", body);
	kvfile_init(&kf);
	ck_assert_int_eq(provenance_gl(&kf, prog, environ, NULL, 10), 0);
	expect_key(&kf, "gl_renderer", "llvmpipe (LLVM 15.0.6, 256 bits)");
	expect_key(&kf, "mesa_version", "22.3.6");
	ck_assert_ptr_null(kvfile_get(&kf, "gl_probe"));
	kvfile_release(&kf);
	free(body);
	free(prog);
	remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(probe_failures)
{
	char *dir = test_tmpdir(), *prog, *missing = xasprintf("%s/none", dir), *want;
	struct kvfile kf;
	uint64_t t0;

	kvfile_init(&kf);
	prog = fake_glxinfo(dir, "nodisplay", "echo 'Error: unable to open display :99' >&2; exit 1");
	ck_assert_int_eq(provenance_gl(&kf, prog, environ, NULL, 10), -EIO);
	expect_key(&kf, "gl_probe", "failed: exit 1: Error: unable to open display :99");
	ck_assert_ptr_null(kvfile_get(&kf, "gl_renderer"));
	kvfile_release(&kf);
	free(prog);

	kvfile_init(&kf);
	prog = fake_glxinfo(dir, "junk", "echo hello");
	ck_assert_int_eq(provenance_gl(&kf, prog, environ, NULL, 10), -ENODATA);
	expect_key(&kf, "gl_probe", "failed: no \"OpenGL renderer string\" in its output");
	kvfile_release(&kf);
	free(prog);

	kvfile_init(&kf);
	ck_assert_int_eq(provenance_gl(&kf, missing, environ, NULL, 10), -ENOENT);
	want = xasprintf("failed: cannot run '%s': %s", missing, strerror(ENOENT));
	expect_key(&kf, "gl_probe", want);
	kvfile_release(&kf);
	free(want);

	/* a glxinfo that hangs (a server that never answers), with a child
	 * that holds the pipe open: killed as a group at the deadline */
	kvfile_init(&kf);
	prog = fake_glxinfo(dir, "hang", "sleep 30 & sleep 30");
	t0 = mono_ns();
	ck_assert_int_eq(provenance_gl(&kf, prog, environ, NULL, 0.3), -ETIMEDOUT);
	ck_assert_uint_lt(mono_ns() - t0, 3 * NSEC_PER_SEC);
	expect_key(&kf, "gl_probe", "failed: no answer within 0.3 s");
	kvfile_release(&kf);
	free(prog);

	free(missing);
	remove_tree(dir);
	free(dir);
}
END_TEST

/* issue 38: a package name with '+' (libstdc++6) once made a key no
 * reader takes */
START_TEST(package_keys)
{
	struct argv_list pk;
	struct kvfile kf, back;
	char key[64], *text;
	int line = 0;

	package_key("libstdc++6", key, sizeof(key));
	ck_assert_str_eq(key, "package.libstdc_2b_2b6");
	package_key("python3.11", key, sizeof(key));
	ck_assert_str_eq(key, "package.python3.11");
	package_key("g++", key, 12);
	ck_assert_str_eq(key, "package.g");
	argv_init(&pk);
	argv_push(&pk, "libstdc++6");
	argv_push(&pk, "dsda-doom");
	kvfile_init(&kf);
	provenance_packages(&kf, &pk);
	ck_assert_uint_eq(kf.n, 2);
	for (size_t i = 0; i < kf.n; i++)
		ck_assert_msg(kvfile_valid_key(kf.items[i].key), "'%s' is no key", kf.items[i].key);
	text = kvfile_format(&kf);
	kvfile_init(&back);
	ck_assert_int_eq(kvfile_parse(&back, text, &line), 0);
	ck_assert_ptr_nonnull(kvfile_get(&back, "package.libstdc_2b_2b6"));
	ck_assert_ptr_nonnull(kvfile_get(&back, "package.dsda-doom"));
	free(text);
	kvfile_release(&back);
	kvfile_release(&kf);
	argv_release(&pk);
}
END_TEST

TEST_SUITE(provenance_suite)
{
	Suite *s = suite_create("provenance");
	TCase *tc = tcase_create("parsers");
	TCase *roots = tcase_create("roots");
	TCase *gl = tcase_create("glxinfo");

	tcase_add_test(tc, cpuinfo_x86_64);
	tcase_add_test(tc, package_keys);
	tcase_add_test(tc, cpuinfo_powerpc);
	tcase_add_test(tc, cpuinfo_first_and_trimmed);
	tcase_add_test(tc, cpuinfo_absent);
	tcase_add_test(tc, cpuinfo_microcode_lines);
	tcase_add_test(tc, meminfo_testdata);
	tcase_add_test(tc, meminfo_absent);
	tcase_add_test(tc, meminfo_other_keys);
	tcase_add_test(tc, swaps_lines);
	tcase_add_test(tc, sysfs_choice_lines);
	tcase_add_test(tc, governors);
	suite_add_tcase(s, tc);
	tcase_add_test(roots, root_fixture);
	tcase_add_test(roots, root_empty);
	tcase_add_test(roots, root_no_cpufreq);
	suite_add_tcase(s, roots);
	tcase_add_test(gl, glxinfo_llvmpipe);
	tcase_add_test(gl, glxinfo_nvidia);
	tcase_add_test(gl, glxinfo_mesa_version_sources);
	tcase_add_test(gl, glxinfo_no_renderer);
	tcase_add_test(gl, probe_ok);
	tcase_add_test(gl, probe_failures);
	tcase_set_timeout(gl, 20);
	suite_add_tcase(s, gl);
	return s;
}
