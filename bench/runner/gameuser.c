/*
 * Choosing and becoming the unprivileged user of a game (see gameuser.h).
 */
#include "runner/gameuser.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fill_from_passwd(struct game_user *u, const struct passwd *pw)
{
	int n = 0;

	u->name = xstrdup(pw->pw_name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	getgrouplist(pw->pw_name, pw->pw_gid, NULL, &n);
	u->groups = zalloc(sizeof(gid_t) * (size_t)(n > 0 ? n : 1));
	if (getgrouplist(pw->pw_name, pw->pw_gid, u->groups, &n) < 0)
		n = 0;
	u->n_groups = n;
	return 0;
}

int game_user_resolve(struct game_user *u, struct strbuf *err)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		if (!pw) {
			strbuf_addf(err, "cannot find the passwd entry of uid %u", (unsigned)geteuid());
			return -ESRCH;
		}
		return fill_from_passwd(u, pw);
	}
	u->switch_needed = true;
	if (sudo_user && *sudo_user && strcmp(sudo_user, "root") != 0) {
		pw = getpwnam(sudo_user);
		if (pw && pw->pw_uid != 0)
			return fill_from_passwd(u, pw);
	}
	pw = getpwnam(HB_SYSTEM_USER);
	if (!pw || pw->pw_uid == 0) {
		strbuf_addf(err, "no unprivileged user to run the game as: games never run as root; "
			    "run 'sh scripts/deps.sh ensure' as root (it creates the system user '%s') "
			    "or start hitchbench through sudo", HB_SYSTEM_USER);
		return -ESRCH;
	}
	return fill_from_passwd(u, pw);
}

void game_user_release(struct game_user *u)
{
	if (!u)
		return;
	free(u->name);
	free(u->groups);
	memset(u, 0, sizeof(*u));
}

int game_user_become(const struct game_user *u)
{
	if (u->switch_needed) {
		if (setgroups((size_t)u->n_groups, u->groups) < 0)
			return -errno;
		if (setgid(u->gid) < 0)
			return -errno;
		if (setuid(u->uid) < 0)
			return -errno;
	}
	if (getuid() == 0 || geteuid() == 0)
		return -EPERM;
	return 0;
}

/* How deep a tree game_user_give walks: deeper is refused (ELOOP). */
#define GIVE_DEPTH 128

/* Gives dirfd/name and everything under it, by file descriptors: nothing
 * is followed, so an entry swapped for a link while the walk goes (by a
 * process of a user who owned the tree before) has the link itself
 * changed, never what it points at. A directory is given after what it
 * holds, so the game's user cannot enter a tree half given. */
static int give_at(int dirfd, const char *name, uid_t uid, gid_t gid, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return fchownat(dirfd, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (depth >= GIVE_DEPTH)
		return -ELOOP;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    (r = give_at(fd, de->d_name, uid, gid, depth + 1)) == -ENOENT)
			r = 0; /* gone meanwhile */
	if (r == 0 && fchown(fd, uid, gid) < 0)
		r = -errno;
	closedir(d);
	return r;
}

int game_user_give(const struct game_user *u, const char *path)
{
	if (!u->switch_needed)
		return 0;
	return give_at(AT_FDCWD, path, u->uid, u->gid, 0);
}
