/*
 * The CPU-list parser (see cpulist.h).
 */
#include "cpulist.h"
#include "util.h"

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
