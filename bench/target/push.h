/*
 * The parts of `hitchbench push` that decide and describe, apart from the
 * command (bench/cmd/cmd-push.c) that runs them: which build a target gets,
 * what rsync said it copied, what PREFIX/push.txt holds (docs/targets.md).
 */
#ifndef HB_PUSH_H
#define HB_PUSH_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define PUSH_TXT_FORMAT 1

enum push_how {
	PUSH_HOST_BUILD,    /* the host's build, staged by make install */
	PUSH_CROSS,         /* make ARCH=<arch> install: a cross build for the target's architecture */
	PUSH_TARGET_BUILD,  /* the source copied and built there */
};

/* "host-build", "cross", "target-build" (push.txt's how) */
const char *push_how_name(enum push_how how);

/* The build a target of Debian architecture target_arch gets from a host
 * of host_arch, unless on_target asks for a build there. */
enum push_how push_decide(const char *host_arch, const char *target_arch, bool on_target);

/* What a program printed, when it exited 0 and printed one line (its
 * blanks stripped); else NULL. The caller frees. */
char *push_output_line(char *const *argv);

/* This machine's Debian architecture (dpkg --print-architecture, else
 * from uname -m); the caller frees. NULL when neither says. */
char *push_host_arch(void);

/* The GNU triplet of a Debian architecture (s390x -> s390x-linux-gnu), or
 * NULL for one push does not know. */
const char *push_arch_triplet(const char *arch);

/* What rsync --stats said. */
struct push_stats {
	uint64_t files;        /* "Number of regular files transferred" */
	uint64_t deleted;      /* "Number of deleted files" */
	uint64_t bytes_sent;   /* "Total bytes sent" */
};

/* Reads rsync's --stats lines out of its output (numbers may have ','
 * between thousands). 0, or -EINVAL when a line is missing. */
int push_stats_parse(const char *out, struct push_stats *st);

/* PREFIX/push.txt (key=value, docs/targets.md); the caller frees. */
char *push_txt_format(const char *version, const char *arch, enum push_how how, time_t when,
		      const char *host);

/* Runs argv (as ourselves) with stdout and stderr into log_path (made
 * anew). Its exit status (a signal: 128 + its number), or -errno. */
int push_run_logged(char *const *argv, const char *cwd, const char *log_path);

#endif
