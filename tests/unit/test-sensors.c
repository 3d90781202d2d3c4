/*
 * common/system/sensors.c, common/formats/sensorlog.c, analysis/metrics/sensorstats.c and
 * common/system/thermalguard.c: the parsers on strings and real /proc files, and
 * discovery plus sampling on real sysfs trees other projects test against
 * (tests/fixtures/testdata/sysfs, see MANIFEST.md), on the hand-made
 * cpufreq tree (tests/fixtures/sysfs-cpufreq) and on an empty root.
 *
 * The tests copy a tree into a temporary root, its symlinks as symlinks;
 * a copy made without them (git's core.symlinks=false) holds each as a
 * small text file naming the target, and those become links again, as
 * sysfs has them. Expected values are the ones node_exporter's
 * and procfs's own tests assert (e2e-output_hwmon_thermal_extract.txt,
 * sysfs_class_thermal_test.go), or read off the files by eye (each says).
 */
#include "system/fsroot.h"
#include "formats/sensorlog.h"
#include "system/sensors.h"
#include "system/sensors-parse.h"
#include "metrics/sensorstats.h"
#include "test.h"
#include "system/thermalguard.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- trees ---- */

/* Copies the tree src to dst; a small one-line file naming "../..." becomes
 * the symlink it stood for. */
static void copy_tree(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;

	ck_assert_msg(d != NULL, "cannot open '%s'", src);
	ck_assert_int_eq(mkdir_p(dst, 0755), 0);
	while ((e = readdir(d))) {
		char *from, *to, *text;
		size_t len;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		from = xasprintf("%s/%s", src, e->d_name);
		to = xasprintf("%s/%s", dst, e->d_name);
		ck_assert_int_eq(lstat(from, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			copy_tree(from, to);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(from, target, sizeof(target) - 1);

			ck_assert_int_gt(n, 0);
			target[n] = '\0';
			ck_assert_int_eq(symlink(target, to), 0);
		} else {
			ck_assert_int_eq(read_file(from, &text, &len), 0);
			if (len < 300 && str_startswith(text, "../") && !strchr(text, '\n'))
				ck_assert_int_eq(symlink(text, to), 0);
			else
				ck_assert_int_eq(write_file_atomic(to, text, len, 0644), 0);
			free(text);
		}
		free(from);
		free(to);
	}
	closedir(d);
}

static char *root;

static void put_root(const char *rel_under_root, const char *src)
{
	char *dst = xasprintf("%s/%s", root, rel_under_root);

	copy_tree(src, dst);
	free(dst);
}

static void root_teardown(void)
{
	fsroot_set(NULL);
	if (root)
		remove_tree(root);
	free(root);
	root = NULL;
}

/* node_exporter's sysfs and procfs trees, as one machine */
static void node_exporter_setup(void)
{
	root = test_tmpdir();
	put_root("sys", testdata_path("sysfs/node_exporter/sys"));
	put_root("proc", testdata_path("procfs/node_exporter/proc"));
	fsroot_set(root);
}

/* procfs's thermal zones and NVMe hwmon; its fixture lacks the class link a
 * kernel makes for the chip, so it is added here as the kernel has it */
static void procfs_setup(void)
{
	char *link;

	root = test_tmpdir();
	put_root("sys", testdata_path("sysfs/prometheus_procfs/sys"));
	link = xasprintf("%s/sys/class/hwmon", root);
	ck_assert_int_eq(mkdir_p(link, 0755), 0);
	free(link);
	link = xasprintf("%s/sys/class/hwmon/hwmon3", root);
	ck_assert_int_eq(symlink("../../devices/pci0000:00/0000:00:02.1/0000:01:00.0/nvme/nvme0/hwmon3",
				 link), 0);
	free(link);
	fsroot_set(root);
}

static void empty_setup(void)
{
	root = test_tmpdir();
	fsroot_set(root);
}

static void cpufreq_setup(void)
{
	root = test_tmpdir();
	put_root("sys", fixture_path("sysfs-cpufreq/sys"));
	fsroot_set(root);
}

/* The value of a channel in values, asserting that it exists. */
static double value_of(const struct sensors *s, const double *values, const char *name)
{
	int i = sensors_find(s, name);

	ck_assert_msg(i >= 0, "no channel '%s'", name);
	return values[i];
}

#define ck_assert_near(a, b) \
	ck_assert_msg(fabs((double)(a) - (double)(b)) < 1e-6, "%s = %f, not %f", #a, (double)(a), (double)(b))

/* ---- the parse layer ---- */

START_TEST(parse_int)
{
	int64_t v = 7;

	ck_assert_int_eq(sensor_parse_int("55000\n", &v), 0);
	ck_assert_int_eq(v, 55000);
	ck_assert_int_eq(sensor_parse_int("-44000", &v), 0);
	ck_assert_int_eq(v, -44000);
	ck_assert_int_eq(sensor_parse_int("0\n", &v), 0);
	ck_assert_int_eq(v, 0);
	v = 7;
	ck_assert_int_eq(sensor_parse_int("", &v), -EINVAL);
	ck_assert_int_eq(sensor_parse_int("\n", &v), -EINVAL);
	ck_assert_int_eq(sensor_parse_int("-", &v), -EINVAL);
	ck_assert_int_eq(sensor_parse_int(" 5", &v), -EINVAL);
	ck_assert_int_eq(sensor_parse_int("12x\n", &v), -EINVAL);
	ck_assert_int_eq(sensor_parse_int("99999999999999999999", &v), -EINVAL);
	ck_assert_int_eq(v, 7);
}
END_TEST

START_TEST(parse_stat)
{
	struct cpu_ticks t;
	char *text;

	/* node_exporter's proc/stat, read by eye: cpu  301854 612 111922
	 * 8979004 3552 2 3944 0 44 36 (guest fields are inside user/nice) */
	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/stat"), &text, NULL), 0);
	ck_assert_int_eq(sensor_parse_stat(text, &t), 0);
	ck_assert_uint_eq(t.total, 301854 + 612 + 111922 + 8979004 + 3552 + 2 + 3944 + 0);
	ck_assert_uint_eq(t.idle, 8979004 + 3552);
	ck_assert_uint_eq(t.iowait, 3552);
	free(text);
	/* an old kernel's four fields */
	ck_assert_int_eq(sensor_parse_stat("cpu  1 2 3 4\ncpu0 1 2 3 4\n", &t), 0);
	ck_assert_uint_eq(t.total, 10);
	ck_assert_uint_eq(t.idle, 4);
	ck_assert_int_eq(sensor_parse_stat("cpu0 1 2 3 4\n", &t), -ENOENT);
	ck_assert_int_eq(sensor_parse_stat("cpu  1 2 x 4\n", &t), -EINVAL);
	ck_assert_int_eq(sensor_parse_stat("cpu  1 2\n", &t), -EINVAL);
}
END_TEST

START_TEST(parse_meminfo)
{
	struct mem_kb m;
	char *text;

	/* node_exporter's meminfo has no MemAvailable (an older kernel) */
	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/meminfo"), &text, NULL), 0);
	ck_assert_int_eq(sensor_parse_meminfo(text, &m), 0);
	ck_assert_int_eq(m.available, -1);
	ck_assert_int_eq(m.swap_total, 4194300);
	ck_assert_int_eq(m.swap_free, 3155360);
	free(text);
	ck_assert_int_eq(sensor_parse_meminfo("MemTotal:  100 kB\nMemAvailable:   2048 kB\n", &m), 0);
	ck_assert_int_eq(m.available, 2048);
	ck_assert_int_eq(m.swap_total, -1);
	ck_assert_int_eq(sensor_parse_meminfo("MemAvailable: lots\n", &m), -EINVAL);
	/* the key must start a line */
	ck_assert_int_eq(sensor_parse_meminfo("XMemAvailable: 5 kB\n", &m), 0);
	ck_assert_int_eq(m.available, -1);
}
END_TEST

START_TEST(parse_psi)
{
	struct psi_totals p;
	char *text;

	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/pressure/io"), &text, NULL),
			 0);
	ck_assert_int_eq(sensor_parse_psi(text, &p), 0);
	ck_assert_int_eq(p.some_us, 159886802);
	ck_assert_int_eq(p.full_us, 159229614);
	free(text);
	/* irq has only a "full" line, here without a newline */
	ck_assert_int_eq(read_file(testdata_path("procfs/node_exporter/proc/pressure/irq"), &text, NULL),
			 0);
	ck_assert_int_eq(sensor_parse_psi(text, &p), 0);
	ck_assert_int_eq(p.some_us, -1);
	ck_assert_int_eq(p.full_us, 8494);
	free(text);
	ck_assert_int_eq(sensor_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n", &p), 0);
	ck_assert_int_eq(p.some_us, 12);
	ck_assert_int_eq(p.full_us, -1);
	ck_assert_int_eq(sensor_parse_psi("", &p), -ENOENT);
	ck_assert_int_eq(sensor_parse_psi("some avg10=0.00\n", &p), -EINVAL);
	ck_assert_int_eq(sensor_parse_psi("some avg10=0.00 total=x\n", &p), -EINVAL);
}
END_TEST

START_TEST(name_part)
{
	char a[] = "Physical id 0", b[] = "cpu-thermal", c[] = "  Foo!!", d[] = "", e[] = "A/B..c_";

	ck_assert_str_eq(sensor_name_part(a), "physical_id_0");
	ck_assert_str_eq(sensor_name_part(b), "cpu-thermal");
	ck_assert_str_eq(sensor_name_part(c), "foo");
	ck_assert_str_eq(sensor_name_part(d), "");
	ck_assert_str_eq(sensor_name_part(e), "a_b_c");
}
END_TEST

/* ---- discovery and sampling ---- */

START_TEST(node_exporter_tree)
{
	struct sensors s;
	double v[64];

	ck_assert_int_eq(sensors_open(&s), 0);
	ck_assert_uint_le(s.n, ARRAY_SIZE(v));
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	/* node_exporter: node_thermal_zone_temp{type="cpu-thermal",zone="0"} 12.376 */
	ck_assert_near(value_of(&s, v, "temp.zone0.cpu-thermal"), 12.376);
	/* two coretemp chips, told apart by device path (platform_coretemp_0/1) */
	ck_assert_near(value_of(&s, v, "temp.coretemp0.physical_id_0"), 55);
	ck_assert_near(value_of(&s, v, "temp.coretemp0.core_0"), 54);
	ck_assert_near(value_of(&s, v, "temp.coretemp0.core_3"), 50);
	ck_assert_near(value_of(&s, v, "temp.coretemp1.core_1"), 52);
	/* hwmon4: a plain directory without name nor device, both inputs
	 * labelled "foosensor" (node_exporter's chip "hwmon4") */
	ck_assert_near(value_of(&s, v, "temp.hwmon4.foosensor_temp1"), 55);
	ck_assert_near(value_of(&s, v, "temp.hwmon4.foosensor_temp2"), 54);
	/* mt7996: three chips on one wifi device, each its own name */
	ck_assert_near(value_of(&s, v, "temp.mt7996_phy0_0.temp1"), 55);
	ck_assert_near(value_of(&s, v, "temp.mt7996_phy0_2.temp1"), 57);
	/* node_hwmon_fan_rpm{chip="nct6779",sensor="fan2"} 1098 */
	ck_assert_near(value_of(&s, v, "fan.nct6779.fan2"), 1098);
	/* bogus1_input is no hwmon channel type; applesmc has no inputs here */
	for (size_t i = 0; i < s.n; i++) {
		ck_assert_msg(!strstr(s.ch[i].name, "bogus"), "%s", s.ch[i].name);
		ck_assert_msg(!strstr(s.ch[i].name, "applesmc"), "%s", s.ch[i].name);
	}
	ck_assert_str_eq(s.ch[sensors_find(&s, "temp.coretemp0.core_0")].unit, "C");
	ck_assert_str_eq(s.ch[sensors_find(&s, "temp.coretemp0.core_0")].source,
			 "sys/class/hwmon/hwmon0/temp2_input");
	/* proc: (4194300 - 3155360) kB of swap in use; no MemAvailable line */
	ck_assert_near(value_of(&s, v, "swap.used_mib"), (4194300 - 3155360) / 1024.0);
	ck_assert_int_eq(sensors_find(&s, "mem.avail_mib"), -1);
	/* rates need two samples */
	ck_assert(isnan(value_of(&s, v, "cpu.busy_pct")));
	ck_assert(isnan(value_of(&s, v, "psi.io.some_pct")));
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	/* the file did not change: no tick passed (NaN), no stall (0) */
	ck_assert(isnan(value_of(&s, v, "cpu.busy_pct")));
	ck_assert_near(value_of(&s, v, "psi.io.some_pct"), 0);
	ck_assert_near(value_of(&s, v, "psi.memory.some_pct"), 0);
	ck_assert_near(value_of(&s, v, "temp.coretemp1.physical_id_0"), 55);
	sensors_release(&s);
}
END_TEST

START_TEST(node_exporter_order_and_names)
{
	struct sensors s;

	/* kinds in a fixed order, every name a valid key part */
	ck_assert_int_eq(sensors_open(&s), 0);
	for (size_t i = 1; i < s.n; i++)
		ck_assert_int_le(s.ch[i - 1].kind, s.ch[i].kind);
	for (size_t i = 0; i < s.n; i++) {
		char key[200];

		snprintf(key, sizeof(key), "sensors.%s.max", s.ch[i].name);
		ck_assert_msg(kvfile_valid_key(key), "%s", key);
		ck_assert_int_eq(sensors_find(&s, s.ch[i].name), (int)i);
	}
	sensors_release(&s);
}
END_TEST

START_TEST(procfs_tree)
{
	struct sensors s;
	double v[32];

	ck_assert_int_eq(sensors_open(&s), 0);
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	/* procfs's own test: Temp 49925 and -44000 */
	ck_assert_near(value_of(&s, v, "temp.zone0.bcm2835_thermal"), 49.925);
	ck_assert_near(value_of(&s, v, "temp.zone1.acpitz"), -44);
	/* the NVMe chip, by eye: temp1..3 and 9 with their labels */
	ck_assert_near(value_of(&s, v, "temp.nvme.composite"), 43.85);
	ck_assert_near(value_of(&s, v, "temp.nvme.sensor_1"), 43.85);
	ck_assert_near(value_of(&s, v, "temp.nvme.sensor_2"), 45.85);
	ck_assert_near(value_of(&s, v, "temp.nvme.sensor_8"), 43.85);
	ck_assert_uint_eq(s.n, 6); /* no /proc in this tree */
	sensors_release(&s);
}
END_TEST

START_TEST(empty_tree)
{
	struct sensors s;
	double v[1] = { 42 };

	ck_assert_int_eq(sensors_open(&s), 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	ck_assert_int_eq(v[0], 42);
	sensors_release(&s);
}
END_TEST

START_TEST(cpufreq_tree)
{
	struct sensors s;
	double v[16];

	ck_assert_int_eq(sensors_open(&s), 0);
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	ck_assert_uint_eq(s.n, 6);
	ck_assert_str_eq(s.ch[0].name, "freq.cpu0_mhz");
	ck_assert_str_eq(s.ch[0].unit, "MHz");
	ck_assert_near(v[0], 3400);
	ck_assert_near(value_of(&s, v, "freq.cpu1_mhz"), 800);
	ck_assert_near(value_of(&s, v, "throttle.cpu0.core"), 17);
	ck_assert_near(value_of(&s, v, "throttle.cpu0.package"), 42);
	ck_assert_near(value_of(&s, v, "throttle.cpu1.core"), 0);
	ck_assert_near(value_of(&s, v, "throttle.cpu1.package"), 42);
	/* a value that stops parsing is NaN, not a crash */
	{
		char *p = xasprintf("%s/sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", root);

		ck_assert_int_eq(write_file_atomic(p, "", 0, 0644), 0);
		free(p);
	}
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	ck_assert_near(v[0], 3400);
	/* (rename replaced the file; the old one, still open, reads the same) */
	sensors_release(&s);
	ck_assert_int_eq(sensors_open(&s), 0);
	ck_assert_int_eq(sensors_find(&s, "freq.cpu1_mhz"), -1);
	sensors_release(&s);
}
END_TEST

/* ---- the file and its summary ---- */

static void fake_channel(struct sensor_channel *c, const char *name, const char *unit)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->source, sizeof(c->source), "test/%s", name);
	c->unit = unit;
}

START_TEST(summarize_written)
{
	struct sensor_channel ch[6];
	struct sensor_log log;
	struct sensor_self self = { 3, 300000, 150000 };
	struct kvfile kf;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/sensors.tsv.zst", dir);
	const double rows[3][6] = {
		{ 50, 3400, 17, NAN, 2048, NAN },
		{ 70, 800, 18, 10, 1024, NAN },
		{ 60, 2100, 20, 30, 4096, NAN },
	};

	fake_channel(&ch[0], "temp.coretemp0.core_0", "C");
	fake_channel(&ch[1], "freq.cpu0_mhz", "MHz");
	fake_channel(&ch[2], "throttle.cpu0.core", "count");
	fake_channel(&ch[3], "cpu.busy_pct", "%");
	fake_channel(&ch[4], "mem.avail_mib", "MiB");
	fake_channel(&ch[5], "psi.io.some_pct", "%");
	ck_assert_int_eq(sensor_log_open(&log, path, ch, 6, 500000000, "/"), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(sensor_log_row(&log, 1000 + (uint64_t)i * 500000000, rows[i]), 0);
	ck_assert_int_eq(sensor_log_close(&log, &self), 0);

	kvfile_init(&kf);
	kvfile_add(&kf, "format", "1");
	ck_assert_msg(sensors_summarize(path, &kf, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&kf, "format"), "1");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.samples"), "3");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.period_ms"), "500");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.cost_us_per_sample"), "100.00");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.temp.coretemp0.core_0.max"), "70");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.temp.coretemp0.core_0.mean"), "60");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.freq.cpu0_mhz.min"), "800");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.freq.cpu0_mhz.mean"), "2100");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.freq.cpu0_mhz.max"), "3400");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.throttle.cpu0.core.delta"), "3");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.cpu.busy_pct.mean"), "20");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.cpu.busy_pct.max"), "30");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.mem.avail_mib.min"), "1024");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.mem.avail_mib.mean"), "2389.333");
	ck_assert_str_eq(kvfile_get(&kf, "sensors.mem.avail_mib.max"), "4096");
	/* a column without a value has no keys */
	ck_assert_ptr_null(kvfile_get(&kf, "sensors.psi.io.some_pct.mean"));
	kvfile_release(&kf);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(path);
}
END_TEST

static const char good_head[] = "# hitchbench sensors 1\n"
				"# clock_pair 1 2\n"
				"# period_ms 500\n"
				"# root /\n"
				"# column temp.zone0 C sys/class/thermal/thermal_zone0/temp\n"
				"t_ns\ttemp.zone0\n";

/* The error for head + rest, asserting it is refused. */
static void refused(const char *rest, const char *want)
{
	struct kvfile kf;
	struct strbuf err = STRBUF_INIT;
	char *text = xasprintf("%s%s", rest[0] == '!' ? "" : good_head, rest + (rest[0] == '!'));

	kvfile_init(&kf);
	ck_assert_int_eq(sensors_summarize_text("s.tsv", text, &kf, &err), -EINVAL);
	ck_assert_msg(err.buf && !strcmp(err.buf, want), "got '%s', want '%s'", err.buf, want);
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
	strbuf_release(&err);
	free(text);
}

START_TEST(summarize_refused)
{
	refused("1\t50\n2\tx\n# self samples=2 us_per_sample=1\n", "s.tsv:8: column 'temp.zone0': bad value 'x'");
	refused("1\t50\n1\t51\n", "s.tsv:8: bad or out-of-order t_ns '1'");
	refused("1\t50\t3\n", "s.tsv:7: expected 1 values after t_ns");
	refused("1\n", "s.tsv:7: expected 1 values after t_ns");
	refused("1\t50\n", "s.tsv: no '# self' trailer (the sampler was stopped before it finished)");
	refused("1\t50\n# self samples=3 us_per_sample=1\n",
		"s.tsv:8: the trailer counts 3 samples but the file has 1 rows");
	refused("1\t50\n# self samples=1 us_per_sample=1\n2\t50\n",
		"s.tsv:9: text after the '# self' trailer");
	refused("1\t50", "s.tsv:7: the last line has no newline (file cut short?)");
	refused("!# hitchbench sensors 2\n", "s.tsv:1: sensors format 2 is newer than this hitchbench reads (1)");
	refused("!t_ns\n", "s.tsv:1: not a hitchbench sensors file");
	refused("!# hitchbench sensors 1\n# period_ms 500\n# column Bad C x\n",
		"s.tsv:3: bad column name 'Bad'");
	refused("!# hitchbench sensors 1\n# period_ms 500\n# column a.b C x\nt_ns\ta.c\n",
		"s.tsv:4: the header row does not match the '# column' lines");
	refused("!", "s.tsv: empty");
}
END_TEST

START_TEST(summarize_not_zstd)
{
	struct kvfile kf;
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *path = xasprintf("%s/s.zst", dir), *data;
	struct sensor_channel ch;
	struct sensor_log log;
	struct sensor_self self = { 1, 10, 10 };
	double v = 1;
	size_t len;

	kvfile_init(&kf);
	/* plain text is no zstd stream */
	ck_assert_int_eq(write_file_atomic(path, good_head, strlen(good_head), 0644), 0);
	ck_assert_int_eq(sensors_summarize(path, &kf, &err), -EINVAL);
	ck_assert_msg(str_startswith(err.buf, path) &&
		      strstr(err.buf, ": not a sensor log (Unknown frame descriptor)"), "%s", err.buf);
	/* a stream cut short */
	fake_channel(&ch, "temp.a", "C");
	ck_assert_int_eq(sensor_log_open(&log, path, &ch, 1, 500000000, "/"), 0);
	ck_assert_int_eq(sensor_log_row(&log, 5, &v), 0);
	ck_assert_int_eq(sensor_log_close(&log, &self), 0);
	ck_assert_int_eq(read_file(path, &data, &len), 0);
	ck_assert_int_eq(write_file_atomic(path, data, len - 6, 0644), 0);
	free(data);
	strbuf_reset(&err);
	ck_assert_int_eq(sensors_summarize(path, &kf, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, "cut short"), "%s", err.buf);
	strbuf_reset(&err);
	ck_assert_int_eq(sensors_summarize("/nonexistent/s.zst", &kf, &err), -ENOENT);
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(path);
}
END_TEST

/* ---- the thermal guard ---- */

START_TEST(guard_reached)
{
	struct thermal_guard_result res;

	ck_assert_int_eq(thermal_guard_wait_every("temp.*", 90, 5, 0.05, &res), 0);
	ck_assert_int_eq(res.outcome, THERMAL_GUARD_REACHED);
	ck_assert_str_eq(res.hottest, "temp.mt7996_phy0_2.temp1");
	ck_assert_near(res.hottest_c, 57);
	ck_assert_uint_eq(res.sensors, 16);
	ck_assert(res.waited_s < 1);
}
END_TEST

START_TEST(guard_timeout)
{
	struct thermal_guard_result res;
	struct kvfile kf;

	ck_assert_int_eq(thermal_guard_wait_every("temp.coretemp1.*", 54.5, 0.2, 0.05, &res), 0);
	ck_assert_int_eq(res.outcome, THERMAL_GUARD_TIMEOUT);
	ck_assert_str_eq(res.hottest, "temp.coretemp1.physical_id_0");
	ck_assert_uint_eq(res.sensors, 5);
	ck_assert(res.waited_s >= 0.2 && res.waited_s < 2);
	kvfile_init(&kf);
	thermal_guard_record(&res, "temp.coretemp1.*", 54.5, &kf);
	ck_assert_str_eq(kvfile_get(&kf, "thermal_guard"), "timeout");
	ck_assert_str_eq(kvfile_get(&kf, "thermal_guard_max_c"), "54.5");
	ck_assert_str_eq(kvfile_get(&kf, "thermal_guard_hottest_c"), "55.000");
	kvfile_release(&kf);
}
END_TEST

START_TEST(guard_no_sensors)
{
	struct thermal_guard_result res;

	/* the root of this test is empty, as this VM's /sys is of sensors */
	ck_assert_int_eq(thermal_guard_wait("temp.*", 10, 600, NULL, &res), 0);
	ck_assert_int_eq(res.outcome, THERMAL_GUARD_NO_SENSORS);
	ck_assert_uint_eq(res.sensors, 0);
	ck_assert_str_eq(res.hottest, "");
	ck_assert(res.waited_s < 0.5);
}
END_TEST

/* Copies the host noise fixture's proc/stat over root's in place (the
 * sampler holds the file open and preads it). */
static void put_stat_in_place(const char *root, const char *fixture)
{
	char *text = NULL, *path = xasprintf("%s/proc/stat", root);
	FILE *f;

	ck_assert_int_eq(read_file(fixture_path(fixture), &text, NULL), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(text);
	free(path);
}

/* steal, irq and softirq of all CPUs and of each, from the host noise
 * fixtures' two proc/stat files (tests/fixtures/hostnoise/README.md) */
START_TEST(stat_steal_irq)
{
	char *root = test_tmpdir(), *dir = xasprintf("%s/proc", root);
	struct sensors s;
	double v[64];
	static const struct {
		const char *name;
		double pct;
	} want[] = {
		{ "cpu.steal_pct", 5.5 }, { "cpu.irq_pct", 3.5 }, { "cpu.softirq_pct", 3.0 },
		{ "cpu.cpu0.steal_pct", 5 }, { "cpu.cpu0.irq_pct", 5 }, { "cpu.cpu0.softirq_pct", 4 },
		{ "cpu.cpu1.steal_pct", 6 }, { "cpu.cpu1.irq_pct", 2 }, { "cpu.cpu1.softirq_pct", 2 },
	};

	ck_assert_int_eq(mkdir_p(dir, 0755), 0);
	put_stat_in_place(root, "hostnoise/steal/t0/proc/stat");
	fsroot_set(root);
	ck_assert_int_eq(sensors_open(&s), 0);
	fsroot_set(NULL);
	ck_assert_uint_le(s.n, ARRAY_SIZE(v));
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		int c = sensors_find(&s, want[i].name);

		ck_assert_msg(c >= 0, "no column %s", want[i].name);
		ck_assert_msg(isnan(v[c]), "%s has a value on the first sample", want[i].name);
	}
	put_stat_in_place(root, "hostnoise/steal/t1/proc/stat");
	ck_assert_int_eq(sensors_sample(&s, v), 0);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		int c = sensors_find(&s, want[i].name);

		ck_assert_msg(fabs(v[c] - want[i].pct) < 1e-9, "%s: %g, want %g", want[i].name, v[c],
			      want[i].pct);
	}
	ck_assert(fabs(v[sensors_find(&s, "cpu.busy_pct")] - 49.0) < 1e-9);
	sensors_release(&s);
	remove_tree(root);
	free(root);
	free(dir);
}
END_TEST

TEST_SUITE(sensors_suite)
{
	Suite *s = suite_create("sensors");
	TCase *parse = tcase_create("parse");
	TCase *ne = tcase_create("node_exporter");
	TCase *pf = tcase_create("procfs");
	TCase *empty = tcase_create("empty");
	TCase *cpufreq = tcase_create("cpufreq");
	TCase *file = tcase_create("file");

	tcase_add_test(parse, parse_int);
	tcase_add_test(parse, parse_stat);
	tcase_add_test(parse, parse_meminfo);
	tcase_add_test(parse, parse_psi);
	tcase_add_test(parse, name_part);
	suite_add_tcase(s, parse);

	tcase_add_checked_fixture(ne, node_exporter_setup, root_teardown);
	tcase_add_test(ne, node_exporter_tree);
	tcase_add_test(ne, node_exporter_order_and_names);
	tcase_add_test(ne, guard_reached);
	tcase_add_test(ne, guard_timeout);
	suite_add_tcase(s, ne);

	tcase_add_checked_fixture(pf, procfs_setup, root_teardown);
	tcase_add_test(pf, procfs_tree);
	tcase_add_test(pf, stat_steal_irq);
	suite_add_tcase(s, pf);

	tcase_add_checked_fixture(empty, empty_setup, root_teardown);
	tcase_add_test(empty, empty_tree);
	tcase_add_test(empty, guard_no_sensors);
	suite_add_tcase(s, empty);

	tcase_add_checked_fixture(cpufreq, cpufreq_setup, root_teardown);
	tcase_add_test(cpufreq, cpufreq_tree);
	suite_add_tcase(s, cpufreq);

	tcase_add_test(file, summarize_written);
	tcase_add_test(file, summarize_refused);
	tcase_add_test(file, summarize_not_zstd);
	suite_add_tcase(s, file);
	return s;
}
