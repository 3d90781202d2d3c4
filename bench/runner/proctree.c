/*
 * Scanning proc/ for a run's processes (see proctree.h).
 */
#include "runner/proctree.h"
#include "system/fsroot.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pid_list_release(struct pid_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void pid_list_add(struct pid_list *l, pid_t pid)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 16;
		l->v = xrealloc(l->v, l->alloc * sizeof(pid_t));
	}
	l->v[l->n++] = pid;
}

int pid_list_has(const struct pid_list *l, pid_t pid)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (l->v[i] == pid)
			return 1;
	return 0;
}

/* proc/PID/stat under root. */
static int read_stat(const char *root, int pid, struct proc_stat *st)
{
	char *path = xasprintf("%s/proc/%d/stat", root, pid), *text = NULL;
	int r = read_file(path, &text, NULL);

	if (r == 0)
		r = proc_stat_parse(text, st);
	free(text);
	free(path);
	return r;
}

int proctree_scan(const char *root, pid_t sid, pid_t reaper, const struct pid_list *exclude,
		  struct pid_list *out)
{
	char *dir = xasprintf("%s/proc", root);
	DIR *d = opendir(dir);
	struct dirent *de;

	free(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct proc_stat st;
		int pid;

		if (safe_atoi(de->d_name, &pid) < 0 || pid <= 0)
			continue;
		if (read_stat(root, pid, &st) < 0)
			continue; /* gone meanwhile, or not a process */
		if (st.session != sid && st.ppid != reaper)
			continue;
		if (pid_list_has(exclude, pid))
			continue;
		pid_list_add(out, pid);
	}
	closedir(d);
	return 0;
}
