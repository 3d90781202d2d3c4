/*
 * A thread's delay accounting through the kernel's taskstats interface
 * (generic netlink, family "TASKSTATS"): the nanoseconds it waited for a
 * CPU, for block I/O, for swap-ins, in direct reclaim, on thrashing
 * refaults and in compaction. The kernel answers only a caller with
 * CAP_NET_ADMIN, and the delays grow only while kernel.task_delayacct is on.
 * One request and one reply a query, into buffers the client owns: the
 * stall recorder asks every sample.
 */
#ifndef HB_TASKSTATS_H
#define HB_TASKSTATS_H

#include <stddef.h>
#include <stdint.h>

struct taskstats_client {
	int fd;
	uint16_t family;
	uint32_t seq;
	unsigned char buf[1024];
};

struct task_delays {
	uint64_t cpu_ns, blkio_ns, swapin_ns, reclaim_ns, thrashing_ns, compact_ns;
	unsigned version;       /* the kernel's struct taskstats version */
};

/* Opens a netlink socket and resolves the family. 0 or -errno (-ENOENT:
 * the kernel has no taskstats). */
int taskstats_open(struct taskstats_client *c);
void taskstats_close(struct taskstats_client *c);
/* The delays of thread tid. 0 or -errno (-EPERM without CAP_NET_ADMIN,
 * -ESRCH for a thread that is gone). */
int taskstats_query(struct taskstats_client *c, int tid, struct task_delays *out);
/* Parses a TASKSTATS_CMD_NEW reply (the netlink message as received).
 * 0, -errno from an error reply, or -EINVAL. */
int taskstats_parse_reply(const void *msg, size_t len, struct task_delays *out);

#endif
