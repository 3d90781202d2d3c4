/*
 * Choosing and becoming the unprivileged user of a game (see gameuser.h).
 */
#include "runner/gameuser.h"

#include <errno.h>
#include <ftw.h>
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

/* nftw passes no argument: the user being given a tree (one walk at a time) */
static uid_t give_uid;
static gid_t give_gid;

static int give_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return lchown(path, give_uid, give_gid) < 0 ? -1 : 0;
}

int game_user_give(const struct game_user *u, const char *path)
{
	if (!u->switch_needed)
		return 0;
	give_uid = u->uid;
	give_gid = u->gid;
	return nftw(path, give_one, 16, FTW_PHYS) == 0 ? 0 : -errno;
}
