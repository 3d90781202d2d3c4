/*
 * Every read of /proc and /sys goes through one swappable root, as perf's
 * fs.c does: HITCHBENCH_ROOT (default "/") is resolved once, and readers
 * name files relative to it ("proc/sys/kernel/random/boot_id"). Tests point
 * the root at a fixture tree; parsers take buffers so most tests need no
 * tree at all.
 */
#ifndef HB_FSROOT_H
#define HB_FSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HB_ROOT_ENV "HITCHBENCH_ROOT"

/* The root directory in use ("/" unless HITCHBENCH_ROOT says otherwise). */
const char *fsroot(void);
/* Points the root elsewhere (tests); NULL goes back to the environment. */
void fsroot_set(const char *root);
/* Opens rel (no leading slash needed) under the root. fd or -errno. */
int fsroot_open(const char *rel, int flags);
/* Opens rel under the root for a caller that must not be led out of the
 * directory rel starts in (root/proc, root/sys) by rel itself or by a
 * link on the way: rel is one rel_path_valid() takes (else -EINVAL); the rest is resolved beneath root/FIRST with openat2's
 * RESOLVE_BENEATH and RESOLVE_NO_MAGICLINKS (a relative symlink that stays
 * there is followed, as sysfs's are; an absolute one or one that climbs
 * out is -EXDEV), and the last name is not followed (-ELOOP). Where the
 * kernel has no openat2 (before 5.6, or a seccomp filter), the names are
 * checked and the last one not followed. fd or -errno. */
int fsroot_open_beneath(const char *rel, int flags);
/* Reads a small file under the root into buf (NUL-terminated, trailing
 * newline kept). Bytes read or -errno; -EOVERFLOW if it did not fit (buf
 * then holds what did, NUL-terminated). */
ssize_t fsroot_read(const char *rel, char *buf, size_t size);
/* Reads a whole file of any size under the root (caller frees). 0 or -errno. */
int fsroot_read_all(const char *rel, char **out);
/* fsroot_read of the first line, newline stripped. 0 or -errno. */
int fsroot_read_line(const char *rel, char *buf, size_t size);

/* /proc/PID/stat, parsed from a buffer (split on the last ')'). */
struct proc_stat {
	int pid;
	char comm[64];
	char state;
	int ppid;
	int pgrp;
	int session;
	unsigned long long utime, stime; /* clock ticks */
	unsigned long long starttime;    /* clock ticks after boot */
};
/* 0 or -EINVAL. */
int proc_stat_parse(const char *buf, struct proc_stat *out);
/* Reads and parses proc/PID/stat under the root. 0 or -errno. */
int proc_stat_read(int pid, struct proc_stat *out);

#endif
