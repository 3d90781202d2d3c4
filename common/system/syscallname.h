/*
 * The names of the system calls a stall record names (the stall recorder
 * reads a thread's /proc/PID/task/TID/syscall, which gives a number, and
 * records a name: numbers differ between architectures, names do not).
 */
#ifndef HB_SYSCALLNAME_H
#define HB_SYSCALLNAME_H

#include <stdbool.h>

struct sysname {
	long nr;
	const char *name;
	bool fd_first;          /* its first argument is an fd */
};

/* The call with number nr on this machine, or NULL for one not listed
 * (the recorder then writes "syscall_N"). */
const struct sysname *sysname_of(long nr);

#endif
