/*
 * Expanding run-directory arguments (see rundirs.h).
 */
#include "rundirs.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has_bench(const char *dir)
{
	char *p = xasprintf("%s/bench.txt", dir);
	int r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int rundirs_expand(const char *arg, struct argv_list *out)
{
	struct dirent **list;
	int n, found = 0;

	if (has_bench(arg)) {
		argv_push(out, arg);
		return 0;
	}
	n = scandir(arg, &list, NULL, by_name);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		/* ".name.tmp" are runs still being written or abandoned */
		if (list[i]->d_name[0] != '.') {
			char *p = xasprintf("%s/%s", arg, list[i]->d_name);

			if (has_bench(p)) {
				argv_push(out, p);
				found++;
			}
			free(p);
		}
		free(list[i]);
	}
	free(list);
	return found ? 0 : -ENOENT;
}
