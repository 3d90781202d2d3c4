/*
 * The footprint of a run's processes (see footprint.h).
 */
#include "runner/footprint.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void footprint_init(struct footprint *f)
{
	memset(f, 0, sizeof(*f));
	f->hwm_kb = -1;
}

void footprint_add(struct footprint *f, const struct rusage *ru)
{
	f->have = true;
	if (ru->ru_maxrss > f->maxrss_kb)
		f->maxrss_kb = ru->ru_maxrss;
	f->cpu_us += (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000 +
		     (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/* "VmHWM:	    1234 kB" of a status file: the kB, or -EINVAL. */
static long parse_hwm(const char *status)
{
	const char *p = strstr(status, "\nVmHWM:");
	uint64_t kb;
	char num[24];
	size_t n = 0;

	if (!p)
		return -EINVAL;
	p += strlen("\nVmHWM:");
	while (*p == ' ' || *p == '\t')
		p++;
	while (p[n] >= '0' && p[n] <= '9' && n < sizeof(num) - 1) {
		num[n] = p[n];
		n++;
	}
	num[n] = '\0';
	if (strncmp(p + n, " kB\n", 4) != 0 || safe_atou64(num, &kb) < 0 || kb > (uint64_t)(1L << 40))
		return -EINVAL;
	return (long)kb;
}

int footprint_read_hwm(struct footprint *f, pid_t pid)
{
	char path[48], text[8192];
	ssize_t n;
	long kb;
	int fd;

	/* a live process of this machine: never under a test's root */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	if (n < 0) {
		kb = -errno;
		close(fd);
		return (int)kb;
	}
	close(fd);
	text[n] = '\0';
	kb = parse_hwm(text);
	if (kb < 0)
		return (int)kb;
	if (kb > f->hwm_kb)
		f->hwm_kb = kb;
	return 0;
}

void footprint_record(struct kvfile *kv, const char *name, const struct footprint *f)
{
	char key[128];

	if (!f->have)
		return;
	snprintf(key, sizeof(key), "footprint.%s.maxrss_kb", name);
	kvfile_addf(kv, key, "%ld", f->maxrss_kb);
	snprintf(key, sizeof(key), "footprint.%s.cpu_ms", name);
	kvfile_addf(kv, key, "%.1f", (double)f->cpu_us / 1000.0);
	if (f->hwm_kb >= 0) {
		snprintf(key, sizeof(key), "footprint.%s.hwm_kb", name);
		kvfile_addf(kv, key, "%ld", f->hwm_kb);
	}
}

void footprint_record_self(struct kvfile *kv, const char *name)
{
	struct footprint f;
	struct rusage ru;

	footprint_init(&f);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		footprint_add(&f, &ru);
	footprint_record(kv, name, &f);
}
