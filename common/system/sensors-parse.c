/*
 * The parse layer of sensors-parse.h: sysfs integers, /proc/stat's cpu
 * line, /proc/meminfo, pressure stall totals and column-name parts, each
 * strict (errno, empty, trailing junk, range) and writing its output only
 * on success.
 */
#include "system/sensors-parse.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int sensor_parse_int(const char *buf, int64_t *out)
{
	char *end;
	long long v;

	if (!(isdigit((unsigned char)buf[0]) || (buf[0] == '-' && isdigit((unsigned char)buf[1]))))
		return -EINVAL;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == '\n' || *end == ' ' || *end == '\t')
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The line starting with key (at the start of buf or after a newline), or NULL. */
static const char *find_line(const char *buf, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len))
			return p + len;
	return NULL;
}

int sensor_parse_stat(const char *buf, struct cpu_ticks *out)
{
	const char *p = find_line(buf, "cpu ");
	uint64_t f[8] = { 0 };
	int n = 0;

	if (!p)
		return -ENOENT;
	while (n < 8) {
		char *end;

		while (*p == ' ')
			p++;
		if (*p == '\n' || *p == '\0')
			break;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		f[n++] = strtoull(p, &end, 10);
		if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -EINVAL;
		p = end;
	}
	if (n < 4) /* user nice system idle; iowait and later came with 2.5/2.6 */
		return -EINVAL;
	out->total = 0;
	for (int i = 0; i < 8; i++)
		out->total += f[i];
	out->idle = f[3] + f[4];
	out->iowait = f[4];
	return 0;
}

/* A count of digits at p, ending at a blank, a newline or the end. */
static int parse_count(const char *p, int64_t *out)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	*out = v;
	return 0;
}

/* "Key:   1234 kB" -> 1234; -ENOENT without the line. */
static int meminfo_field(const char *buf, const char *key, int64_t *out)
{
	const char *p = find_line(buf, key);

	if (!p)
		return -ENOENT;
	while (*p == ' ')
		p++;
	return parse_count(p, out);
}

int sensor_parse_meminfo(const char *buf, struct mem_kb *out)
{
	static const char *const keys[] = { "MemAvailable:", "SwapTotal:", "SwapFree:" };
	int64_t v[3];

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		int r = meminfo_field(buf, keys[i], &v[i]);

		if (r == -ENOENT)
			v[i] = -1;
		else if (r < 0)
			return r;
	}
	out->available = v[0];
	out->swap_total = v[1];
	out->swap_free = v[2];
	return 0;
}

/* The total= of the line starting with key: -1 without the line. */
static int psi_total(const char *buf, const char *key, int64_t *out)
{
	const char *p = find_line(buf, key);
	const char *eol;

	if (!p) {
		*out = -1;
		return 0;
	}
	eol = strchr(p, '\n');
	p = strstr(p, "total=");
	if (!p || (eol && p > eol))
		return -EINVAL;
	p += strlen("total=");
	return parse_count(p, out);
}

int sensor_parse_psi(const char *buf, struct psi_totals *out)
{
	int64_t some, full;

	if (psi_total(buf, "some ", &some) < 0 || psi_total(buf, "full ", &full) < 0)
		return -EINVAL;
	if (some < 0 && full < 0)
		return -ENOENT;
	out->some_us = some;
	out->full_us = full;
	return 0;
}

char *sensor_name_part(char *s)
{
	size_t j = 0;
	bool gap = false;

	for (size_t i = 0; s[i]; i++) {
		char c = (char)tolower((unsigned char)s[i]);

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
			if (gap && j > 0)
				s[j++] = '_';
			gap = false;
			s[j++] = c;
		} else {
			gap = true;
		}
	}
	while (j > 0 && s[j - 1] == '_')
		j--;
	s[j] = '\0';
	if (s[0] == '_') {
		size_t k = strspn(s, "_");

		memmove(s, s + k, j - k + 1);
	}
	return s;
}
