/*
 * Gathering a run's conditions (see provenance.h).
 */
#include "runner/provenance.h"
#include "system/fsroot.h"
#include "runner/spawn.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "version.h" /* generated: HB_VERSION */

/* The value of the first line of cpuinfo text whose key is exactly key
 * (blanks may pad it before the colon: "cpu\t\t: ..."), or NULL. */
static char *cpuinfo_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *colon;

		if (strncmp(p, key, klen) != 0)
			continue;
		/* "cpu" must be the whole key: not "cpu family", "cpu MHz" */
		colon = p + klen + strspn(p + klen, " \t");
		if (*colon != ':')
			continue;
		char *v = strndup(colon + 1, strcspn(colon + 1, "\n"));

		if (!v)
			abort();
		return str_strip(v);
	}
	return NULL;
}

char *cpuinfo_model(const char *text)
{
	char *v = cpuinfo_field(text, "model name");

	return v ? v : cpuinfo_field(text, "cpu");
}

char *cpuinfo_microcode(const char *text)
{
	return cpuinfo_field(text, "microcode");
}

long long meminfo_kb(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		long long kb;

		if (strncmp(p, key, klen) != 0 || p[klen] != ':')
			continue;
		if (sscanf(p + klen + 1, "%lld", &kb) != 1 || kb < 0)
			return -1;
		return kb;
	}
	return -1;
}

long long meminfo_total_kb(const char *text)
{
	return meminfo_kb(text, "MemTotal");
}

static void add_meminfo(struct kvfile *kf, const char *text, const char *key, const char *field)
{
	long long kb = meminfo_kb(text, field);

	if (kb >= 0)
		kvfile_addf(kf, key, "%lld", kb);
}

/* A batch run as a lab job (docs/lab.md): the Slurm job, how many times it
 * was requeued before this start, its node, and the kernel it asked for
 * (lab job checked it before the batch began). Nothing outside a job. */
static void add_env(struct kvfile *kf, const char *key, const char *var, const char *otherwise)
{
	const char *v = getenv(var);

	if ((v && *v) || otherwise)
		kvfile_add(kf, key, v && *v ? v : otherwise);
}

static void provenance_slurm(struct kvfile *kf)
{
	if (!getenv("SLURM_JOB_ID"))
		return;
	add_env(kf, "slurm_job_id", "SLURM_JOB_ID", NULL);
	add_env(kf, "slurm_restart_count", "SLURM_RESTART_COUNT", "0");
	add_env(kf, "slurm_node", "SLURMD_NODENAME", NULL);
	add_env(kf, "kernel_wanted", "HITCHBENCH_KERNEL_WANTED", NULL);
}

void provenance_system(struct kvfile *kf)
{
	struct utsname u;
	char buf[256], *text;

	if (uname(&u) == 0) {
		kvfile_add(kf, "kernel_release", u.release);
		kvfile_add(kf, "kernel_version", u.version);
		kvfile_add(kf, "machine", u.machine);
		kvfile_add(kf, "host", u.nodename);
	}
	provenance_machine(kf);
	if (fsroot_read_line("proc/sys/kernel/random/boot_id", buf, sizeof(buf)) == 0)
		kvfile_add(kf, "boot_id", buf);
	provenance_kernel(kf);
	if (fsroot_read_all("proc/cpuinfo", &text) == 0) {
		char *model = cpuinfo_model(text), *microcode = cpuinfo_microcode(text);

		if (model)
			kvfile_add(kf, "cpu_model", model);
		if (microcode)
			kvfile_add(kf, "cpu_microcode", microcode);
		free(model);
		free(microcode);
		free(text);
	}
	kvfile_addf(kf, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	provenance_cpu(kf);
	if (fsroot_read_all("proc/meminfo", &text) == 0) {
		if (meminfo_total_kb(text) > 0)
			kvfile_addf(kf, "mem_total_kb", "%lld", meminfo_total_kb(text));
		add_meminfo(kf, text, "mem_available_kb", "MemAvailable");
		add_meminfo(kf, text, "swap_total_kb", "SwapTotal");
		add_meminfo(kf, text, "swap_free_kb", "SwapFree");
		free(text);
	}
	provenance_memory(kf);
	kvfile_add(kf, "harness_version", HB_VERSION);
	provenance_slurm(kf);
}


void package_key(const char *name, char *key, size_t size)
{
	size_t n = (size_t)snprintf(key, size, "package.");

	for (const char *p = name; *p && n + 4 <= size; p++) {
		if (*p == '+') {
			memcpy(key + n, "_2b", 3);
			n += 3;
		} else {
			key[n++] = *p;
		}
	}
	key[n < size ? n : size - 1] = '\0';
}

void provenance_packages(struct kvfile *kf, const struct argv_list *packages)
{
	struct argv_list argv;
	char *out = NULL;
	int status = 0;

	if (packages->n == 0)
		return;
	argv_init(&argv);
	argv_push(&argv, "dpkg-query");
	argv_push(&argv, "-W");
	argv_push(&argv, "-f=${Package}\\t${db:Status-Abbrev}\\t${Version}\\n");
	for (size_t i = 0; i < packages->n; i++)
		argv_push(&argv, packages->v[i]);
	if (spawn_capture(argv.v, &out, &status) < 0)
		out = NULL;
	for (size_t i = 0; i < packages->n; i++) {
		const char *version = out ? "not-installed" : "unknown";
		char key[256];
		char *line_copy = NULL;

		for (char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
			size_t n = strlen(packages->v[i]);

			/* "NAME\tii \tVERSION" (":arch" may follow NAME) */
			if (strncmp(p, packages->v[i], n) != 0 || (p[n] != '\t' && p[n] != ':'))
				continue;
			char *tab1 = strchr(p, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;

			if (!tab2 || tab1[1] != 'i' || tab1[2] != 'i')
				continue;
			line_copy = strndup(tab2 + 1, strcspn(tab2 + 1, "\n"));
			version = line_copy;
			break;
		}
		package_key(packages->v[i], key, sizeof(key));
		kvfile_add(kf, key, version);
		free(line_copy);
	}
	free(out);
	argv_release(&argv);
}
