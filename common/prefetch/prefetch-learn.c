/*
 * What the game prefetch learns while a game runs (prefetch.h): the
 * processes of the game (the pids it is given and their children), the
 * files they map or hold open, read through the swappable root so a
 * made-up /proc stands in for a game in tests, the files under its data
 * directories, and at the end each file's pages in memory.
 */
#include "prefetch/prefetch.h"
#include "system/fsroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pf_learner_init(struct pf_learner *L)
{
	memset(L, 0, sizeof(*L));
	pf_list_init(&L->seen);
}

void pf_learner_release(struct pf_learner *L)
{
	pf_list_release(&L->seen);
	free(L->sorted);
	L->sorted = NULL;
	L->n_pids = L->n_sorted = 0;
}

static bool have_pid(const struct pf_learner *L, pid_t pid)
{
	for (size_t i = 0; i < L->n_pids; i++)
		if (L->pids[i] == pid)
			return true;
	return false;
}

void pf_learner_add_pid(struct pf_learner *L, pid_t pid)
{
	if (!have_pid(L, pid) && L->n_pids < PF_LEARN_MAX_PIDS)
		L->pids[L->n_pids++] = pid;
}

/* A file worth learning: a regular file, not of /proc, /sys or /dev. */
void pf_learner_add_path(struct pf_learner *L, const char *path)
{
	struct stat st;

	if (!pf_path_learnable(path))
		return;
	if (pf_list_find(&L->seen, path) >= 0)
		return;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	pf_list_add(&L->seen, path, (uint64_t)st.st_size, st.st_mtim.tv_sec, NULL, 0);
}

static void maps_path(const char *path, void *arg)
{
	pf_learner_add_path(arg, path);
}

static void learn_maps(struct pf_learner *L, pid_t pid)
{
	char rel[64], *text = NULL;

	snprintf(rel, sizeof(rel), "proc/%d/maps", (int)pid);
	if (fsroot_read_all(rel, &text) < 0)
		return;
	pf_maps_paths(text, maps_path, L);
	free(text);
}

static void learn_fds(struct pf_learner *L, pid_t pid)
{
	char rel[64], *dir = NULL;
	DIR *d;
	struct dirent *e;

	snprintf(rel, sizeof(rel), "proc/%d/fd", (int)pid);
	dir = xasprintf("%s/%s", fsroot(), rel);
	d = opendir(dir);
	while (d && (e = readdir(d)) != NULL) {
		char target[PATH_MAX], *link;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		link = xasprintf("%s/%s", dir, e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		free(link);
		if (n <= 0)
			continue;
		target[n] = '\0';
		pf_learner_add_path(L, target);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* New children of the watched processes (their pids, from each /proc/N/stat). */
static void learn_children(struct pf_learner *L)
{
	char *dir = xasprintf("%s/proc", fsroot());
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL) {
		struct proc_stat st;
		pid_t pid;
		int v;

		if (safe_atoi(e->d_name, &v) < 0 || v <= 0 || have_pid(L, (pid = v)))
			continue;
		if (proc_stat_read(pid, &st) == 0 && have_pid(L, st.ppid))
			pf_learner_add_pid(L, pid);
	}
	if (d)
		closedir(d);
	free(dir);
}

size_t pf_learner_sample(struct pf_learner *L)
{
	size_t alive = 0;

	learn_children(L);
	for (size_t i = 0; i < L->n_pids; i++) {
		if (!pf_pid_alive(L->pids[i]))
			continue;
		alive++;
		learn_maps(L, L->pids[i]);
		learn_fds(L, L->pids[i]);
	}
	return alive;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* nftw passes no argument: the learner being walked (one walk at a time) */
static struct pf_learner *walk_learner;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct pf_learner *L = walk_learner;

	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0 || strchr(path, '\n'))
		return 0;
	if (L->seen.n >= PF_LEARN_MAX_FILES)
		return 1;
	if (bsearch(&path, L->sorted, L->n_sorted, sizeof(char *), cmp_str))
		return 0;
	pf_list_add(&L->seen, path, (uint64_t)st->st_size, st->st_mtim.tv_sec, NULL, 0);
	return 0;
}

/* Every file under the data directories, after what the game was seen using. */
void pf_learner_walk(struct pf_learner *L, char *const *data, size_t n_data)
{
	L->n_sorted = L->seen.n;
	L->sorted = xrealloc(NULL, (L->n_sorted + 1) * sizeof(char *));
	for (size_t i = 0; i < L->n_sorted; i++)
		L->sorted[i] = L->seen.files[i].path;
	qsort(L->sorted, L->n_sorted, sizeof(char *), cmp_str);
	walk_learner = L;
	for (size_t i = 0; i < n_data; i++)
		nftw(data[i], walk_one, 16, FTW_PHYS);
	free(L->sorted);
	L->sorted = NULL;
}

/* Each file's resident ranges now (a file that changed since it was seen
 * is taken as it is now). */
size_t pf_list_residency(struct pf_list *l)
{
	size_t untold = 0;

	for (size_t i = 0; i < l->n; i++) {
		struct pf_file *f = &l->files[i];
		struct stat st;
		int fd = pf_open(f->path, &st);

		if (fd < 0)
			continue;
		f->size = (uint64_t)st.st_size;
		f->mtime = st.st_mtim.tv_sec;
		free(f->ranges);
		f->ranges = NULL;
		f->n = 0;
		if (pf_file_ranges(fd, f->size, &f->ranges, &f->n) == -EACCES)
			untold++;
		close(fd);
	}
	return untold;
}

