/*
 * What a run's processes cost the machine it runs on (issue 20: a PS3 has
 * 256 MB): each process's peak resident set and CPU time, from the
 * rusage wait4() returns when the runner reaps it, summed over the
 * processes of one part (the game's passes and orphans) and kept in
 * bench.txt as footprint.NAME.maxrss_kb and footprint.NAME.cpu_ms
 * (docs/formats.md). The runner's own comes from getrusage(RUSAGE_SELF).
 *
 * Linux's ru_maxrss of a child counts the memory it had before it ran
 * its program: fork() copies the runner's anonymous pages and exec keeps
 * the high-water mark, so a small helper shows at least the runner's
 * resident set at the moment it was started. footprint.NAME.hwm_kb says
 * the program's own peak (VmHWM of /proc/PID/status, read just before the
 * runner stops it), when it could be read.
 */
#ifndef HB_FOOTPRINT_H
#define HB_FOOTPRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "text/kvfile.h"

struct footprint {
	bool have;              /* at least one rusage taken */
	long maxrss_kb;         /* the largest ru_maxrss */
	uint64_t cpu_us;        /* utime + stime, summed */
	long hwm_kb;            /* the program's own peak RSS (VmHWM), or -1: not read */
};

/* Nothing taken yet. */
void footprint_init(struct footprint *f);
/* One reaped process's rusage into f: its peak if larger, its CPU added. */
void footprint_add(struct footprint *f, const struct rusage *ru);
/* VmHWM of the live process pid (kB) from /proc/PID/status, the largest
 * seen kept in f->hwm_kb. 0 or -errno. */
int footprint_read_hwm(struct footprint *f, pid_t pid);
/* footprint.NAME.maxrss_kb, .cpu_ms (and .hwm_kb when read) into kv;
 * nothing when f has nothing. */
void footprint_record(struct kvfile *kv, const char *name, const struct footprint *f);
/* The calling process's own, getrusage(RUSAGE_SELF), as footprint.NAME.*. */
void footprint_record_self(struct kvfile *kv, const char *name);

#endif
