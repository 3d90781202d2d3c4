/*
 * The game's own cgroup (v2), so that pressure stall information (its
 * cpu/io/memory.pressure) counts the game's stalls and nobody else's. A
 * child of the runner's own cgroup, with no controller enabled: it only
 * groups, it limits nothing. Made where cgroup v2 is mounted and the
 * runner may write there (root); elsewhere the recorder falls back to the
 * system's PSI and says so.
 */
#ifndef HB_GAMECGROUP_H
#define HB_GAMECGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/util.h"

/* The cgroup v2 directory of process pid (0: this one), as a path under
 * the root (where cgroup v2 is mounted, from proc/self/mounts, and the
 * process's "0::" line); is_root: it is the root cgroup, the whole
 * system's. 0, or -ENOENT with why in err. *dir is the caller's to free. */
int cgroup2_dir_of(pid_t pid, char **dir, bool *is_root, struct strbuf *err);
/* Creates "hitchbench-game-PID-N" under the caller's cgroup v2 directory
 * (found through /proc/self/mounts and /proc/self/cgroup under the root)
 * and returns its path (caller frees). Removes empty ones left by runners
 * that are gone first. 0, or -ENOENT (no cgroup v2) or -errno with why in
 * err. */
int game_cgroup_create(char **path, struct strbuf *err);
/* Moves pid (its threads with it) into the cgroup. 0 or -errno. */
int game_cgroup_add(const char *path, pid_t pid);
/* Removes the cgroup once its processes are gone. 0 or -errno (-EBUSY:
 * processes are left in it). */
int game_cgroup_remove(const char *path);

#endif
