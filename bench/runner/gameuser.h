/*
 * The unprivileged user a game runs as. Games never run as root: under
 * sudo it is the invoking user; as plain root it is the system user
 * "hitchbench" that scripts/deps.sh creates; as any other user, that user.
 */
#ifndef HB_GAMEUSER_H
#define HB_GAMEUSER_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

#define HB_SYSTEM_USER "hitchbench"

struct game_user {
	char *name;
	uid_t uid;
	gid_t gid;
	gid_t *groups;      /* supplementary groups (for /dev/dri and the like) */
	int n_groups;
	bool switch_needed; /* we are root and must drop to uid/gid */
};

/* Picks the user. 0, or -ESRCH with a message in err. */
int game_user_resolve(struct game_user *u, struct strbuf *err);
void game_user_release(struct game_user *u);
/* In a child after fork: become the user. 0 or -errno; refuses to end up
 * as root (-EPERM). Async-signal-safe apart from nothing: it only calls
 * setgroups/setgid/setuid. */
int game_user_become(const struct game_user *u);
/* Gives path and everything under it to the user (by file descriptors,
 * nothing followed; a directory after its contents; at most 128 levels
 * deep, -ELOOP past them) when we are root and switch to it; nothing otherwise
 * (the files are the user's already). The staging directory, a switch's
 * directory the game writes. 0 or -errno. */
int game_user_give(const struct game_user *u, const char *path);

#endif
