/*
 * The ways fakegame stalls (--stall-at SEC:MS:HOW), each a real cause the
 * stall recorder must name: sleep, busy (the CPU), futex (another thread),
 * fault (major faults on a file dropped from the page cache: the disk),
 * runq (runnable, with hogs on its CPU), reclaim (allocating in a memory
 * cgroup at its limit) and swapin (touching again what reclaim swapped
 * out).
 */
#ifndef HB_STALLWAYS_H
#define HB_STALLWAYS_H

#include <stdint.h>

enum stall_way {
	STALL_SLEEP,
	STALL_BUSY,
	STALL_FUTEX,
	STALL_FAULT,
	STALL_RUNQ,
	STALL_RECLAIM,
	STALL_SWAPIN,
};

struct stall_env {
	const char *fault_file;   /* --fault-file: a large file on a disk */
	const char *cgroup;       /* --cgroup: a memory cgroup directory to join for reclaim
				   * (NULL: the caller put the game in one) */
	uint64_t reclaim_mb;      /* how much anonymous memory reclaim touches (default 1024) */
};

/* "sleep" ... "swapin" -> way. 0 or -EINVAL. */
int stall_way_parse(const char *s, enum stall_way *out);
/* Stalls the calling thread for about ms in that way. 0, or -errno with
 * the reason printed on stderr (a missing --fault-file, say). */
int stall_now(enum stall_way way, uint64_t ms, const struct stall_env *env);

#endif
