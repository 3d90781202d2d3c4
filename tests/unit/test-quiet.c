/*
 * bench/quiet/quiet-profile.c and bench/quiet/quiet-idle.c: profiles good and bad (each bad
 * one with its file:line), the PSI, loadavg and /proc/stat parsers on
 * real files (tests/fixtures/testdata/procfs), the settle logic on made-up
 * sample sequences, and one real wait on a fixture tree.
 */
#include "system/fsroot.h"
#include "quiet/quiet.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

START_TEST(profile_defaults_file)
{
	struct quiet_profile def, p;
	struct strbuf err = STRBUF_INIT;

	/* recipes/quiet/default.ini says what the built-in defaults are */
	quiet_profile_init(&def);
	quiet_profile_init(&p);
	ck_assert_msg(quiet_profile_load(srcdir_path("recipes/quiet/default.ini"), &p, &err) == 0,
		      "%s", err.buf);
	ck_assert_uint_eq(p.services.n, def.services.n);
	for (size_t i = 0; i < p.services.n; i++)
		ck_assert_str_eq(p.services.v[i], def.services.v[i]);
	ck_assert(p.sync && p.compact_memory && p.delayacct);
	ck_assert_int_eq(p.drop_caches, 3);
	ck_assert_str_eq(p.governor, "performance");
	ck_assert_int_eq(p.banner_vt, 0);
	ck_assert(p.idle.psi_cpu_some_avg10 == def.idle.psi_cpu_some_avg10);
	ck_assert(p.idle.cpu_busy_pct == def.idle.cpu_busy_pct);
	ck_assert(p.idle.load1 < 0 && def.idle.load1 < 0);
	ck_assert(p.idle.settle_s == def.idle.settle_s && p.idle.timeout_s == def.idle.timeout_s);
	ck_assert_str_eq(p.thermal_sensors, "temp.*");
	ck_assert_str_eq(def.thermal_sensors, "temp.*");
	ck_assert(p.thermal_max_c == 0 && p.thermal_timeout_s == 300);
	ck_assert(p.noise.steal_pct_max == 5 && def.noise.steal_pct_max == 5);
	ck_assert(p.noise.foreign_cpu_pct_max == 10 && def.noise.foreign_cpu_pct_max == 10);
	ck_assert(p.noise.irq_pct_max < 0 && def.noise.irq_pct_max < 0);
	ck_assert(p.noise.game_runq_ms_per_s_max < 0 && def.noise.game_runq_ms_per_s_max < 0);
	quiet_profile_release(&p);
	quiet_profile_release(&def);
	strbuf_release(&err);
}
END_TEST

START_TEST(profile_values)
{
	struct quiet_profile p;
	struct strbuf err = STRBUF_INIT;
	const char *text =
		"; a comment\n"
		"[quiet]\n"
		"services = a.service\n"
		"  services = b.timer c@1.service ; two more\n"
		"governor =\n"
		"drop_caches = 0\n"
		"banner_vt = 8\n"
		"[idle]\n"
		"load1 = 0.5\n"
		"psi_io_some_avg10 =\n"
		"[thermal]\n"
		"sensors = temp.coretemp0.*\n"
		"max_c = 85\n";

	quiet_profile_init(&p);
	ck_assert_msg(quiet_profile_parse(text, "t.ini", &p, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(p.services.n, 3);
	ck_assert_str_eq(p.services.v[2], "c@1.service");
	ck_assert_ptr_null(p.governor);
	ck_assert_int_eq(p.drop_caches, 0);
	ck_assert_int_eq(p.banner_vt, 8);
	ck_assert(p.idle.load1 == 0.5);
	ck_assert(p.idle.psi_io_some_avg10 < 0);
	ck_assert_str_eq(p.thermal_sensors, "temp.coretemp0.*");
	ck_assert(p.thermal_max_c == 85);
	/* [noise]: set, and empty (no limit) */
	ck_assert_int_eq(quiet_profile_parse("[noise]\nsteal_pct_max = 2.5\nforeign_cpu_pct_max =\n"
					     "game_runq_ms_per_s_max = 40\n", "t.ini", &p, &err), 0);
	ck_assert(p.noise.steal_pct_max == 2.5 && p.noise.foreign_cpu_pct_max < 0);
	ck_assert(p.noise.irq_pct_max < 0 && p.noise.game_runq_ms_per_s_max == 40);
	strbuf_reset(&err);
	ck_assert_int_eq(quiet_profile_parse("[noise]\nirq_pct_max = 101\n", "t.ini", &p, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "t.ini:2: 'irq_pct_max' wants a number from 0 to 100 (or nothing: not "
			 "checked), not '101'");
	strbuf_reset(&err);
	ck_assert_int_eq(quiet_profile_parse("[noise]\nsteal_max = 1\n", "t.ini", &p, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "t.ini:2: unknown key 'steal_max' in [noise]");
	/* issue 38: [noise] daemons takes any comm (written into keys
	 * encoded), but refuses a control byte where it reads it */
	strbuf_reset(&err);
	ck_assert_int_eq(quiet_profile_parse("[noise]\ndaemons = kworker/0:1 (sd-pam) a=b\n", "t.ini", &p, &err), 0);
	ck_assert_str_eq(p.noise_daemons, "kworker/0:1 (sd-pam) a=b");
	ck_assert_int_eq(quiet_profile_parse("[noise]\n\ndaemons = slurmd a\x7f\n", "t.ini", &p, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "t.ini:3: 'daemons' wants process names (comm, at most 8): 'a\x7f' has a "
			 "control byte (0x7f)");
	strbuf_reset(&err);
	/* one empty services line: none */
	ck_assert_int_eq(quiet_profile_parse("[quiet]\nservices =\n", "t.ini", &p, &err), 0);
	ck_assert_uint_eq(p.services.n, 0);
	quiet_profile_release(&p);
	strbuf_release(&err);
}
END_TEST

START_TEST(profile_sensors_globs)
{
	/* globs the guard can use, each with a column name it matches */
	static const struct {
		const char *glob, *column;
	} good[] = {
		{ "temp.*", "temp.zone0.x86_pkg_temp" },
		{ "temp.coretemp0.*", "temp.coretemp0.package_id_0" },
		{ "temp.zone[0-9].*", "temp.zone3.acpitz" },
		{ "temp.[!z]*", "temp.nvme0.composite" },
		{ "temp.k10temp?.tctl", "temp.k10temp1.tctl" },
		{ "*", "temp.zone0.acpitz" },
		{ "t*pkg*", "temp.zone0.x86_pkg_temp" },
		{ "temp.amdgpu.edge", "temp.amdgpu.edge" },
	};
	struct quiet_profile p;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;

	quiet_profile_init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		strbuf_reset(&text);
		strbuf_addf(&text, "[thermal]\nsensors = %s\n", good[i].glob);
		ck_assert_msg(quiet_profile_parse(text.buf, "t.ini", &p, &err) == 0, "%s", err.buf);
		ck_assert_str_eq(p.thermal_sensors, good[i].glob);
		ck_assert_int_eq(fnmatch(p.thermal_sensors, good[i].column, 0), 0);
	}
	/* nothing: all temperatures */
	ck_assert_int_eq(quiet_profile_parse("[thermal]\nsensors =\n", "t.ini", &p, &err), 0);
	ck_assert_ptr_null(p.thermal_sensors);
	quiet_profile_release(&p);
	strbuf_release(&text);
	strbuf_release(&err);
}
END_TEST

/* the message for a [thermal] sensors that is no glob on column names */
#define NOT_A_GLOB(v) "t.ini:2: 'sensors' wants a glob on column names such as 'temp.*' or " \
	"'temp.coretemp0.*' (a-z 0-9 _ - . and * ? [...]), not '" v "'"

START_TEST(profile_errors)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "sync = yes\n", "t.ini:1: key 'sync' outside any section" },
		{ "[quiet]\n\nsyn = yes\n", "t.ini:3: unknown key 'syn' in [quiet]" },
		{ "[quiet]\n[loud]\n", "t.ini:2: unknown section '[loud]'" },
		{ "[quiet]\n[quiet]\n", "t.ini:2: duplicate section '[quiet]' (first on line 1)" },
		{ "[quiet]\nsync = yes\nsync = no\n", "t.ini:3: duplicate key 'sync' (first set on line 2)" },
		{ "[quiet]\nsync = maybe\n", "t.ini:2: 'sync' wants yes or no, not 'maybe'" },
		{ "[quiet]\nsync =\n", "t.ini:2: empty value for 'sync'" },
		{ "[quiet]\ndrop_caches = 4\n", "t.ini:2: 'drop_caches' wants a whole number from 0 to 3, not '4'" },
		{ "[quiet]\ngovernor = per/formance\n", "t.ini:2: bad governor name 'per/formance'" },
		{ "[quiet]\nservices = ok.service -bad\n", "t.ini:2: bad unit name '-bad'" },
		{ "[idle]\ntimeout_s = -1\n", "t.ini:2: 'timeout_s' wants a number from 0 to 86400, not '-1'" },
		{ "[idle]\nload1 = 1e3\n", "t.ini:2: 'load1' wants a number from 0 to 1024 (or nothing: not checked), not '1e3'" },
		/* sensors is a glob on column names: a regex, capitals, an open [ */
		{ "[thermal]\nsensors = temp\\..*\n", NOT_A_GLOB("temp\\..*") },
		{ "[thermal]\nsensors = temp.(core|zone).*\n", NOT_A_GLOB("temp.(core|zone).*") },
		{ "[thermal]\nsensors = Temp.*\n", NOT_A_GLOB("Temp.*") },
		{ "[thermal]\nsensors = temp.zone[0-9\n", NOT_A_GLOB("temp.zone[0-9") },
		{ "[thermal]\nsensors = temp.[!]x\n", NOT_A_GLOB("temp.[!]x") },
		/* ... and one that cannot match a temperature column */
		{ "[thermal]\nsensors = coretemp*\n", "t.ini:2: 'sensors' = 'coretemp*' matches no temperature: their column names start with 'temp.'" },
		{ "[thermal]\nsensors = fan.*\n", "t.ini:2: 'sensors' = 'fan.*' matches no temperature: their column names start with 'temp.'" },
		{ "[thermal]\nsensors = temp\n", "t.ini:2: 'sensors' = 'temp' matches no temperature: their column names start with 'temp.'" },
		/* a section that profiles no longer have says where it went, at its header */
		{ "[quiet]\nsync = yes\n[sampler]\nperiod_ms = 500\n",
		  "t.ini:3: [sampler] is gone: the sampler's settings are the SENSORS switch's "
		  "parameters (SENSORS_MS, SENSORS_THROTTLE)" },
		{ "[quiet]\njust words\n", "t.ini:2: expected 'key = value' or '[section]'" },
		{ "[quiet\n", "t.ini:1: missing ']' in section header" },
		{ "[idle] x\n", "t.ini:1: unexpected text after section header" },
	};
	struct quiet_profile p;
	struct strbuf err = STRBUF_INIT, longline = STRBUF_INIT;

	quiet_profile_init(&p);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&err);
		ck_assert_int_eq(quiet_profile_parse(bad[i].text, "t.ini", &p, &err), -EINVAL);
		ck_assert_str_eq(err.buf, bad[i].msg);
	}
	/* a failed parse leaves the profile as it was */
	ck_assert_int_eq(p.drop_caches, 3);
	strbuf_addstr(&longline, "[quiet]\nservices =");
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&longline, " x.service");
	strbuf_addch(&longline, '\n');
	strbuf_reset(&err);
	ck_assert_int_eq(quiet_profile_parse(longline.buf, "t.ini", &p, &err), -EINVAL);
	ck_assert(str_startswith(err.buf, "t.ini:2: line too long"));
	strbuf_reset(&err);
	ck_assert_int_eq(quiet_profile_load("/nonexistent/p.ini", &p, &err), -ENOENT);
	ck_assert_str_eq(err.buf, "cannot read '/nonexistent/p.ini': No such file or directory");
	quiet_profile_release(&p);
	strbuf_release(&err);
	strbuf_release(&longline);
}
END_TEST

static char *slurp(const char *rel)
{
	char *text;

	ck_assert_int_eq(read_file(testdata_path(rel), &text, NULL), 0);
	return text;
}

START_TEST(parse_proc_files)
{
	struct cpu_ticks a, b;
	char *t;
	double v;

	/* values read off the files by eye */
	t = slurp("procfs/node_exporter/proc/pressure/io");
	ck_assert_int_eq(quiet_psi_some_avg10(t, &v), 0);
	ck_assert_double_eq_tol(v, 0.18, 1e-9);
	free(t);
	t = slurp("procfs/prometheus_procfs/proc/pressure/cpu");
	ck_assert_int_eq(quiet_psi_some_avg10(t, &v), 0);
	ck_assert_double_eq_tol(v, 0.10, 1e-9);
	free(t);
	/* irq has only a "full" line */
	t = slurp("procfs/node_exporter/proc/pressure/irq");
	ck_assert_int_eq(quiet_psi_some_avg10(t, &v), -EINVAL);
	free(t);
	t = slurp("procfs/sysstat/root1/proc/loadavg");
	ck_assert_int_eq(quiet_loadavg_load1(t, &v), 0);
	ck_assert_double_eq_tol(v, 3.16, 1e-9);
	free(t);
	ck_assert_int_eq(quiet_loadavg_load1("x 1 2", &v), -EINVAL);

	/* two snapshots of one machine, 31 s apart; the busy share
	 * recomputed by hand from the "cpu" lines' deltas */
	t = slurp("procfs/sysstat/root1/proc/stat");
	ck_assert_int_eq(sensor_parse_stat(t, &a), 0);
	free(t);
	t = slurp("procfs/sysstat/root2/proc/stat");
	ck_assert_int_eq(sensor_parse_stat(t, &b), 0);
	free(t);
	ck_assert_uint_eq(a.total, 96005ULL + 2578701 + 53845 + 3617879 + 60648 + 27891 + 25853);
	ck_assert_uint_eq(a.idle, 3617879 + 60648);
	v = quiet_cpu_busy_pct(&a, &b);
	ck_assert(v >= 0 && v <= 100);
	ck_assert_double_eq_tol(v, 100.0 * (double)((b.total - b.idle) - (a.total - a.idle)) /
				(double)(b.total - a.total), 1e-9);
	ck_assert(quiet_cpu_busy_pct(&a, &a) < 0);
	ck_assert_int_lt(sensor_parse_stat("cpu0 1 2 3 4\n", &a), 0);
}
END_TEST

START_TEST(settle_logic)
{
	struct idle_limits l = { .psi_cpu_some_avg10 = 1, .psi_io_some_avg10 = 1,
				 .cpu_busy_pct = 5, .load1 = -1, .settle_s = 3, .timeout_s = 60 };
	struct idle_sample quiet = { .have_psi = true, .psi_cpu = 0.5, .psi_io = 0, .busy_pct = 2,
				     .load1 = 1.9 };
	struct idle_sample busy = quiet, nopsi = quiet, unknown = quiet;
	struct idle_state st;

	busy.busy_pct = 40;
	nopsi.have_psi = false;
	nopsi.psi_cpu = 99;
	unknown.busy_pct = -1;
	ck_assert(quiet_idle_sample_is_quiet(&l, &quiet));
	ck_assert(!quiet_idle_sample_is_quiet(&l, &busy));
	ck_assert(quiet_idle_sample_is_quiet(&l, &nopsi)); /* no PSI: only the busy share counts */
	ck_assert(!quiet_idle_sample_is_quiet(&l, &unknown));
	/* load1 1.9 counts only when asked for */
	l.load1 = 0.5;
	ck_assert(!quiet_idle_sample_is_quiet(&l, &quiet));
	l.load1 = -1;

	quiet_idle_init(&st);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 1), 0);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 2), 0);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &busy, 3), 0);  /* a busy sample starts over */
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 4), 0);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 6), 0);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 7), 1);
	l.settle_s = 0;
	quiet_idle_init(&st);
	ck_assert_int_eq(quiet_idle_step(&st, &l, &quiet, 1), 1);
}
END_TEST

static char *root;

static void put(const char *rel, const char *text)
{
	test_put(root, rel, text);
}

START_TEST(wait_on_tree)
{
	struct idle_limits l = { .psi_cpu_some_avg10 = 1, .psi_io_some_avg10 = 1,
				 .cpu_busy_pct = -1, .load1 = 1, .settle_s = 0.02, .timeout_s = 2 };
	struct idle_result res;
	struct strbuf sb = STRBUF_INIT;

	root = test_tmpdir();
	put("proc/pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
				 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	put("proc/pressure/io", "some avg10=0.30 avg60=0.00 avg300=0.00 total=1\n");
	put("proc/loadavg", "0.50 0.20 0.10 1/100 42\n");
	put("proc/stat", "cpu  1 0 1 100 0 0 0 0 0 0\n");
	fsroot_set(root);
	ck_assert_int_eq(quiet_wait_idle(&l, 0.01, -1, &res), 0);
	ck_assert(res.reached);
	quiet_idle_describe(&l, &res, &sb);
	/* reached within its timeout: how soon depends on the machine's load
	 * (settle_s is 20 ms, each look 10 ms apart) */
	ck_assert_msg(str_startswith(sb.buf, "reached after ") && res.waited_s < l.timeout_s, "%s", sb.buf);
	ck_assert(strstr(sb.buf, "(psi cpu 0.00 io 0.30, load1 0.50)"));

	/* io pressure too high: the timeout is a result, not an error */
	put("proc/pressure/io", "some avg10=7.50 avg60=0.00 avg300=0.00 total=1\n");
	l.timeout_s = 0.05;
	ck_assert_int_eq(quiet_wait_idle(&l, 0.01, -1, &res), 0);
	ck_assert(!res.reached);
	ck_assert(res.waited_s >= 0.05);
	strbuf_reset(&sb);
	quiet_idle_describe(&l, &res, &sb);
	ck_assert_msg(str_startswith(sb.buf, "timeout after 0 s (psi cpu 0.00 io 7.50"), "%s", sb.buf);

	/* no PSI in this kernel: recorded as such, the rest still decides */
	remove_tree(root);
	put("proc/loadavg", "0.10 0.20 0.10 1/100 42\n");
	l.timeout_s = 2;
	ck_assert_int_eq(quiet_wait_idle(&l, 0.01, -1, &res), 0);
	ck_assert(res.reached && !res.last.have_psi);
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
	strbuf_release(&sb);
}
END_TEST

TEST_SUITE(quiet_suite)
{
	Suite *s = suite_create("quiet");
	TCase *prof = tcase_create("profile");
	TCase *idle = tcase_create("idle");

	tcase_add_test(prof, profile_defaults_file);
	tcase_add_test(prof, profile_values);
	tcase_add_test(prof, profile_errors);
	tcase_add_test(prof, profile_sensors_globs);
	suite_add_tcase(s, prof);
	tcase_add_test(idle, parse_proc_files);
	tcase_add_test(idle, settle_logic);
	tcase_add_test(idle, wait_on_tree);
	suite_add_tcase(s, idle);
	return s;
}
