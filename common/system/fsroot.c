/*
 * The swappable /proc and /sys root, and the /proc readers built on it.
 */
#include "system/fsroot.h"
#include "system/procparse.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

static char *root_override;

const char *fsroot(void)
{
	const char *r;

	if (root_override)
		return root_override;
	r = getenv(HB_ROOT_ENV);
	return r && *r ? r : "/";
}

void fsroot_set(const char *root)
{
	free(root_override);
	root_override = xstrdup(root);
}

int fsroot_open(const char *rel, int flags)
{
	char *path;
	int fd;

	while (*rel == '/')
		rel++;
	path = xasprintf("%s/%s", fsroot(), rel);
	fd = open(path, flags | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	free(path);
	return fd;
}

/* rest resolved beneath dirfd, its last name not followed. */
static int open_beneath(int dirfd, const char *rest, int flags)
{
	int fd;

#ifdef SYS_openat2
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};

	do {
		fd = (int)syscall(SYS_openat2, dirfd, rest, &how, sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd < 0 ? -errno : fd;
#endif
	/* no openat2: the names were checked, the last is not followed */
	fd = openat(dirfd, rest, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int fsroot_open_beneath(const char *rel, int flags)
{
	const char *slash;
	char *path;
	int dirfd, fd;

	if (!rel_path_valid(rel) || !(slash = strchr(rel, '/')))
		return -EINVAL;
	path = xasprintf("%s/%.*s", fsroot(), (int)(slash - rel), rel);
	dirfd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (dirfd < 0)
		return -errno;
	fd = open_beneath(dirfd, slash + 1, flags);
	close(dirfd);
	return fd;
}

ssize_t fsroot_read(const char *rel, char *buf, size_t size)
{
	size_t len = 0;
	int fd = fsroot_open(rel, O_RDONLY);

	if (fd < 0)
		return fd;
	if (size == 0) {
		close(fd);
		return -EOVERFLOW;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == size - 1) {
			char c;

			if (read(fd, &c, 1) == 1) {
				buf[len] = '\0';
				close(fd);
				return -EOVERFLOW;
			}
			break;
		}
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int fsroot_read_all(const char *rel, char **out)
{
	char *path;
	int r;

	while (*rel == '/')
		rel++;
	path = xasprintf("%s/%s", fsroot(), rel);
	r = read_file(path, out, NULL);
	free(path);
	return r;
}

int fsroot_read_line(const char *rel, char *buf, size_t size)
{
	ssize_t n = fsroot_read(rel, buf, size);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int proc_stat_parse(const char *buf, struct proc_stat *out)
{
	struct pstat st;

	if (pstat_parse(buf, &st) < 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->pid = st.pid;
	memcpy(out->comm, st.comm, sizeof(out->comm));
	out->state = st.state;
	out->ppid = st.ppid;
	out->pgrp = st.pgrp;
	out->session = st.session;
	out->utime = st.utime;
	out->stime = st.stime;
	out->starttime = st.starttime;
	return 0;
}

int proc_stat_read(int pid, struct proc_stat *out)
{
	char rel[64], buf[1024];
	ssize_t n;

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	n = fsroot_read(rel, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_stat_parse(buf, out);
}
