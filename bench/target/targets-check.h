/*
 * What a target has, asked in one remote shell script (sent on stdin to
 * `sh -s` through the command's one connection): `target check` prints
 * it, `push` decides its build from it and finds the prefix there. The
 * script prints key=value lines (docs/targets.md, "target check"):
 * reachable, user, home, machine (uname -m), arch (dpkg's), kernel,
 * boot_id, os, nproc, xorg, xvfb, x_displays, quieting (root, sudo or
 * no), mem_total_kb, mem_available_kb, prefix (absolute: ~ resolved
 * there), disk_free_kb, installed_version / installed_arch /
 * installed_how / installed_utc (PREFIX/push.txt's), build_missing (the
 * Debian packages a build on the target lacks), rsync (yes or no: push
 * needs it there), and game.NAME for each
 * recipe ("ok", or what is missing).
 */
#ifndef HB_TARGETS_CHECK_H
#define HB_TARGETS_CHECK_H

#include <stddef.h>

#include "text/kvfile.h"
#include "target/ssh.h"
#include "target/targets.h"
#include "base/util.h"

/* A recipe's game as the script checks it: its Debian packages and the
 * program its command runs. */
struct check_game {
	char *name;
	char *packages;   /* blank-separated, may be empty */
	char *program;    /* may be NULL */
};

struct check_games {
	struct check_game *v;
	size_t n;
};

/* Every recipe (*.ini) of the first existing directory of dirs (NULL-ended
 * or n long) that loads; the ones that do not are left out. */
void check_games_collect(struct check_games *g, char *const *dirs, size_t n);
void check_games_release(struct check_games *g);

/* The program a recipe's command runs: its first word past the wrappers
 * that run another program (env, stdbuf, nice, ...), their options and
 * their numbers. */
const char *check_command_program(char *const *words);

/* The script for a target whose prefix is prefix (NULL: ~/hitchbench).
 * The caller frees. */
char *check_script(const char *prefix, const struct check_games *games);

/* Runs the script through c into out (its key=value lines). 0; -errno
 * (ssh failed: what it said in err); -EPROTO when the script's output has
 * no reachable=yes (its stderr in err). */
int check_run(struct ssh_conn *c, const char *prefix, const struct check_games *games, struct kvfile *out,
	      struct strbuf *err);

#endif
