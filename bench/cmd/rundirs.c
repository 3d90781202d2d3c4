/*
 * Expanding run-directory arguments (see rundirs.h).
 */
#include "cmd/rundirs.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has_file(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static int has_bench(const char *dir)
{
	return has_file(dir, "bench.txt");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The run directories in dir; with batches, those of each batch in it
 * too (depth 1 is a batch directory or results/runs, depth 0 its parent). */
static int expand(const char *arg, struct argv_list *out, int depth)
{
	struct dirent **list;
	int n, found = 0;

	if (has_bench(arg)) {
		argv_push(out, arg);
		return 1;
	}
	n = scandir(arg, &list, NULL, by_name);
	if (n < 0)
		return depth > 0 ? -errno : 0;
	for (int i = 0; i < n; i++) {
		/* ".name.tmp" are runs still being written or abandoned */
		if (list[i]->d_name[0] != '.') {
			char *p = xasprintf("%s/%s", arg, list[i]->d_name);

			if (has_bench(p)) {
				argv_push(out, p);
				found++;
			} else if (depth > 0 && has_file(p, "batch.txt")) {
				found += expand(p, out, 0);
			}
			free(p);
		}
		free(list[i]);
	}
	free(list);
	return found;
}

int rundirs_expand(const char *arg, struct argv_list *out)
{
	int n;

	if (access(arg, F_OK) < 0)
		return -errno;
	n = expand(arg, out, 1);
	return n < 0 ? n : n ? 0 : -ENOENT;
}
