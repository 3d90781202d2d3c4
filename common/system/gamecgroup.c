/*
 * The game's own cgroup (gamecgroup.h).
 */
#include "system/gamecgroup.h"
#include "system/fsroot.h"
#include "system/procparse.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "hitchbench-game-"

/* Where cgroup v2 is mounted (under the root), or NULL. */
static char *cgroup2_mount(void)
{
	char *all = NULL, *save, *line, *found = NULL;

	if (fsroot_read_all("proc/self/mounts", &all) < 0)
		return NULL;
	for (line = strtok_r(all, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], dir[512], type[32];

		if (sscanf(line, "%63s %511s %31s", dev, dir, type) == 3 && strcmp(type, "cgroup2") == 0)
			found = xstrdup(dir);
	}
	free(all);
	return found;
}

/* A game cgroup made this recently may be a runner's that has not put
 * its game in yet: a runner in another PID namespace (a container beside
 * this one, a test of the suite) whose pid means nothing here. */
#define STALE_AFTER_S 3600

/* Empty game cgroups whose runner is gone, and which are old enough not
 * to be another namespace's runner's, just made. */
static void remove_stale(const char *parent)
{
	time_t now = time(NULL);

	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		int pid;
		char *dash, *dir;

		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) != 0)
			continue;
		pid = atoi(e->d_name + strlen(PREFIX));
		dash = strchr(e->d_name + strlen(PREFIX), '-');
		if (pid <= 0 || !dash || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		dir = xasprintf("%s/%s", parent, e->d_name);
		if (stat(dir, &st) == 0 && now - st.st_mtime >= STALE_AFTER_S)
			rmdir(dir);     /* fails, and stays, while something is in it */
		free(dir);
	}
	closedir(d);
}

int cgroup2_dir_of(pid_t pid, char **dir, bool *is_root, struct strbuf *err)
{
	char *mnt = cgroup2_mount(), *all = NULL, *rel, own[512];
	int r;

	if (!mnt) {
		strbuf_addstr(err, "no cgroup v2 mounted");
		return -ENOENT;
	}
	rel = pid > 0 ? xasprintf("proc/%d/cgroup", (int)pid) : xstrdup("proc/self/cgroup");
	r = fsroot_read_all(rel, &all);
	if (r < 0 || cgroup2_path_parse(all, own, sizeof(own)) < 0) {
		strbuf_addf(err, "%s has no cgroup v2 path", pid > 0 ? "the process" : "this process");
		r = -ENOENT;
	} else {
		*is_root = strcmp(own, "/") == 0;
		*dir = xasprintf("%s%s%s", strcmp(fsroot(), "/") == 0 ? "" : fsroot(), mnt,
				 *is_root ? "" : own);
	}
	free(rel);
	free(all);
	free(mnt);
	return r;
}

int game_cgroup_create(char **path, struct strbuf *err)
{
	static unsigned serial;
	char *parent, *dir;
	bool is_root;
	int r = cgroup2_dir_of(0, &parent, &is_root, err);

	if (r < 0)
		return r;
	remove_stale(parent);
	/* a name of its own: a runner in another PID namespace may have the
	 * same pid, so one that is taken is passed by, never shared */
	for (;;) {
		dir = xasprintf("%s/" PREFIX "%d-%u", parent, (int)getpid(), serial++);
		r = mkdir(dir, 0755) < 0 ? -errno : 0;
		if (r != -EEXIST || serial > 1000)
			break;
		free(dir);
	}
	if (r < 0) {
		strbuf_addf(err, "cannot create %s: %s", dir, strerror(-r));
		free(dir);
	} else {
		*path = dir;
	}
	free(parent);
	return r;
}

int game_cgroup_add(const char *path, pid_t pid)
{
	char *procs = xasprintf("%s/cgroup.procs", path), num[24];
	int fd = open(procs, O_WRONLY | O_CLOEXEC), r = 0, n;

	free(procs);
	if (fd < 0)
		return -errno;
	n = snprintf(num, sizeof(num), "%d\n", (int)pid);
	if (write(fd, num, (size_t)n) != n)
		r = -errno;
	close(fd);
	return r;
}

int game_cgroup_remove(const char *path)
{
	return rmdir(path) < 0 ? -errno : 0;
}
