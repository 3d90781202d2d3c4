/*
 * Finding every process of a run, so that when a run ends the whole tree is
 * gone and the runner can say so. A game runs in a session of its own;
 * the runner is a child subreaper, so a process that leaves the session
 * (setsid, a daemon) and is orphaned still becomes the runner's child.
 * Reads proc/ under the root it is given: "/" for the runner, whose
 * processes are real even when HITCHBENCH_ROOT points the machine's
 * state elsewhere; a fixture tree in tests.
 */
#ifndef HB_PROCTREE_H
#define HB_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

struct pid_list {
	pid_t *v;
	size_t n, alloc;
};

void pid_list_release(struct pid_list *l);
void pid_list_add(struct pid_list *l, pid_t pid);
int pid_list_has(const struct pid_list *l, pid_t pid);

/* Appends to out every process under root/proc/ whose session is sid, or
 * whose parent is reaper, and that is not in exclude. Zombies count (they
 * are not gone until reaped). 0 or -errno (proc/ unreadable). */
int proctree_scan(const char *root, pid_t sid, pid_t reaper, const struct pid_list *exclude,
		  struct pid_list *out);

#endif
