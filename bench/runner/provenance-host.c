/*
 * The kernel's settings that change how a game runs, for bench.txt (see
 * provenance.h): the boot command line, the CPU vulnerability mitigations,
 * the frequency governors, swap and transparent huge pages, the clock
 * source. Two runs that differ only in one of these can differ by more
 * than the change being measured.
 */
#include "runner/provenance.h"
#include "system/fsroot.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SYS_CPU "sys/devices/system/cpu"

/* ---- parsers ---- */

char *swaps_describe(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = text;

	/* "Filename\tType\tSize\tUsed\tPriority", then one device a line */
	if (!str_startswith(p, "Filename"))
		return NULL;
	p = strchr(p, '\n');
	while (p && *++p) {
		char name[4096], type[64];
		long long size, used;
		int prio;

		if (sscanf(p, "%4095s %63s %lld %lld %d", name, type, &size, &used, &prio) == 5) {
			if (sb.len)
				strbuf_addstr(&sb, "; ");
			strbuf_addf(&sb, "%s %s %lldkB prio %d", name, type, size, prio);
		}
		p = strchr(p, '\n');
	}
	if (!sb.len)
		strbuf_addstr(&sb, "none");
	return strbuf_detach(&sb);
}

char *sysfs_choice(const char *text)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close || close == open + 1)
		return NULL;
	return xasprintf("%.*s", (int)(close - open - 1), open + 1);
}

static bool same_governor(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* ", GOV (cpu0-3,6)" for the CPUs whose governor is that of index first. */
static void add_governor_group(struct strbuf *sb, const int *cpus, const char *const *governors,
			       size_t n, size_t first)
{
	const char *gov = governors[first];
	bool in_run = false;
	int prev = -2;

	strbuf_addf(sb, "%s%s (cpu", sb->len ? ", " : "", gov ? gov : "none");
	for (size_t i = first; i < n; i++) {
		if (!same_governor(governors[i], gov))
			continue;
		if (cpus[i] == prev + 1 && prev >= 0) {
			in_run = true;
		} else {
			if (in_run)
				strbuf_addf(sb, "-%d", prev);
			strbuf_addf(sb, "%s%d", prev >= 0 ? "," : "", cpus[i]);
			in_run = false;
		}
		prev = cpus[i];
	}
	if (in_run)
		strbuf_addf(sb, "-%d", prev);
	strbuf_addch(sb, ')');
}

char *cpu_governors_describe(const int *cpus, const char *const *governors, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	bool all_same = true, any = false;

	if (n == 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		all_same = all_same && same_governor(governors[i], governors[0]);
		any = any || governors[i];
	}
	if (!any)
		return xstrdup("none (no cpufreq)");
	if (all_same)
		return xstrdup(governors[0]);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = same_governor(governors[j], governors[i]);
		if (!seen)
			add_governor_group(&sb, cpus, governors, n, i);
	}
	return strbuf_detach(&sb);
}

/* ---- readers ---- */

/* The first line of a file under the root, blanks trimmed (any length:
 * the kernel command line can be long). 0 or -errno. */
static int read_value(const char *rel, char **out)
{
	char *text;
	int r = fsroot_read_all(rel, &text);

	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	*out = str_strip(text);
	return 0;
}

static void add_value(struct kvfile *kf, const char *key, const char *rel)
{
	char *v;

	if (read_value(rel, &v) == 0) {
		kvfile_add(kf, key, v);
		free(v);
	}
}

static void add_choice(struct kvfile *kf, const char *key, const char *rel)
{
	char *text, *v;

	if (fsroot_read_all(rel, &text) < 0)
		return;
	v = sysfs_choice(text);
	if (v)
		kvfile_add(kf, key, v);
	free(v);
	free(text);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory under the root (no dot files), sorted.
 * 0 with *names (free each and the array) or -errno. */
static int list_dir(const char *rel, char ***names, size_t *n)
{
	int fd = fsroot_open(rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	char **v = NULL;
	size_t len = 0;
	DIR *d;

	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		int e = -errno;

		close(fd);
		return e;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		v = xrealloc(v, (len + 1) * sizeof(*v));
		v[len++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (len > 1)
		qsort(v, len, sizeof(*v), cmp_name);
	*names = v;
	*n = len;
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void provenance_kernel(struct kvfile *kf)
{
	static const char vuln_dir[] = SYS_CPU "/vulnerabilities";
	char **names, *v;
	size_t n;
	int r;

	add_value(kf, "kernel_cmdline", "proc/cmdline");
	if (list_dir(vuln_dir, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *rel = xasprintf("%s/%s", vuln_dir, names[i]);
			char *key = xasprintf("cpu_vulnerability.%s", names[i]);

			if (kvfile_valid_key(key))
				add_value(kf, key, rel);
			free(rel);
			free(key);
		}
		free_names(names, n);
	}
	add_value(kf, "clocksource", "sys/devices/system/clocksource/clocksource0/current_clocksource");
	add_value(kf, "delayacct", "proc/sys/kernel/task_delayacct");
	/* PSI compiled in but off (psi=0) has no proc/pressure; on
	 * unprivileged container setups reading may fail: both are "no" */
	r = read_value("proc/pressure/cpu", &v);
	kvfile_add(kf, "psi", r == 0 ? "yes" : "no");
	if (r == 0)
		free(v);
}

/* "cpu12" -> 12; -1 for "cpufreq", "cpuidle" and the like. */
static int cpu_number(const char *name)
{
	int n;

	if (!str_startswith(name, "cpu") || safe_atoi(name + 3, &n) < 0 || n < 0)
		return -1;
	return n;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void provenance_cpu(struct kvfile *kf)
{
	char **names, **governors, *desc;
	size_t n, ncpu = 0;
	int *cpus;

	add_value(kf, "cpu_online", SYS_CPU "/online");
	if (list_dir(SYS_CPU, &names, &n) < 0)
		return;
	cpus = zalloc((n + 1) * sizeof(*cpus));
	governors = zalloc((n + 1) * sizeof(*governors));
	for (size_t i = 0; i < n; i++)
		if (cpu_number(names[i]) >= 0)
			cpus[ncpu++] = cpu_number(names[i]);
	/* numerically: cpu10 after cpu9 */
	qsort(cpus, ncpu, sizeof(*cpus), cmp_int);
	for (size_t i = 0; i < ncpu; i++) {
		char *rel = xasprintf(SYS_CPU "/cpu%d/cpufreq/scaling_governor", cpus[i]);

		if (read_value(rel, &governors[i]) < 0)
			governors[i] = NULL;
		free(rel);
	}
	desc = cpu_governors_describe(cpus, (const char *const *)governors, ncpu);
	if (desc)
		kvfile_add(kf, "cpu_governor", desc);
	free(desc);
	for (size_t i = 0; i < ncpu; i++)
		free(governors[i]);
	free(governors);
	free(cpus);
	free_names(names, n);
}

void provenance_memory(struct kvfile *kf)
{
	char *text, *desc;

	add_value(kf, "swappiness", "proc/sys/vm/swappiness");
	if (fsroot_read_all("proc/swaps", &text) == 0) {
		desc = swaps_describe(text);
		if (desc)
			kvfile_add(kf, "swaps", desc);
		free(desc);
		free(text);
	}
	add_choice(kf, "thp_enabled", "sys/kernel/mm/transparent_hugepage/enabled");
	add_choice(kf, "thp_defrag", "sys/kernel/mm/transparent_hugepage/defrag");
}

/* ---- the machine's identity ---- */

/* One DRM card's "VVVV:DDDD DRIVER" from its device's sysfs files ("0x8086"
 * and "0x46a6" in vendor and device, DRIVER= in uevent); NULL when it has
 * no PCI ids (a virtual card without a device). */
static char *drm_card_describe(const char *card)
{
	char vendor[32], device[32], *rel, *uevent = NULL, *driver = NULL, *out = NULL;

	rel = xasprintf("sys/class/drm/%s/device/vendor", card);
	if (fsroot_read_line(rel, vendor, sizeof(vendor)) < 0)
		goto out;
	free(rel);
	rel = xasprintf("sys/class/drm/%s/device/device", card);
	if (fsroot_read_line(rel, device, sizeof(device)) < 0)
		goto out;
	free(rel);
	rel = xasprintf("sys/class/drm/%s/device/uevent", card);
	if (fsroot_read_all(rel, &uevent) == 0) {
		const char *d = strstr(uevent, "DRIVER=");

		if (d && (d == uevent || d[-1] == '\n'))
			driver = xstrndup(d + 7, strcspn(d + 7, "\n"));
	}
	out = xasprintf("%s:%s%s%s", str_startswith(vendor, "0x") ? vendor + 2 : vendor,
			str_startswith(device, "0x") ? device + 2 : device, driver ? " " : "",
			driver ? driver : "");
out:
	free(rel);
	free(uevent);
	free(driver);
	return out;
}

void provenance_machine(struct kvfile *kf)
{
	struct strbuf sb = STRBUF_INIT;
	char id[64], **names = NULL;
	size_t n = 0;

	/* systemd's machine id: stable across reboots and host renames */
	if (fsroot_read_line("etc/machine-id", id, sizeof(id)) == 0 && *id)
		kvfile_add(kf, "machine_id", id);
	/* the GPUs: the cards (card0, card1; not their connectors card0-HDMI-A-1) */
	if (list_dir("sys/class/drm", &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *p = names[i] + 4;
		char *card;

		if (!str_startswith(names[i], "card") || !*p || p[strspn(p, "0123456789")])
			continue;
		card = drm_card_describe(names[i]);
		if (card)
			strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", card);
		free(card);
	}
	free_names(names, n);
	if (sb.len)
		kvfile_add(kf, "gpu", sb.buf);
	strbuf_release(&sb);
}
