/*
 * The CPU-list parser (see cpulist.h).
 */
#include "system/cpulist.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cpu_list_parse(const char *s, cpu_set_t *set)
{
	char *copy = xstrdup(s), *save = NULL, *str = str_strip(copy);
	int r = 0;

	CPU_ZERO(set);
	if (!*str || *str == ',' || str[strlen(str) - 1] == ',' || strstr(str, ",,"))
		r = -EINVAL;
	for (char *t = r ? NULL : strtok_r(str, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(t, '-');
		int a, b;

		if (dash)
			*dash = '\0';
		if (safe_atoi(t, &a) < 0 || (dash && safe_atoi(dash + 1, &b) < 0)) {
			r = -EINVAL;
			break;
		}
		if (!dash)
			b = a;
		if (a < 0 || b < a || b >= CPU_SETSIZE) {
			r = -EINVAL;
			break;
		}
		for (int c = a; c <= b; c++)
			CPU_SET(c, set);
	}
	free(copy);
	return r;
}

void cpu_set_format(const cpu_set_t *set, struct strbuf *out)
{
	bool first = true;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		int end = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
			end++;
		strbuf_addf(out, "%s%d", first ? "" : ",", c);
		if (end > c)
			strbuf_addf(out, "-%d", end);
		first = false;
		c = end;
	}
	if (first)
		strbuf_addstr(out, "");
}

int cpu_set_check_online(const cpu_set_t *want, const cpu_set_t *online, int *bad)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, want) && !CPU_ISSET(c, online)) {
			*bad = c;
			return -EINVAL;
		}
	return 0;
}
