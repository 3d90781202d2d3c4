/*
 * Starting a program the way the runner needs: as the game user, in a
 * session of its own, output to a given descriptor, signals reset, and
 * killed with the runner if the runner dies (PR_SET_PDEATHSIG). An exec
 * failure comes back to the caller as an error, not as an exit status.
 */
#ifndef HB_SPAWN_H
#define HB_SPAWN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner/gameuser.h"
#include "base/util.h"

struct spawn_opts {
	char *const *argv;
	char *const *envp;
	const char *cwd;                /* NULL: stay */
	int in_fd;                      /* -1: /dev/null */
	int out_fd;                     /* stdout; -1: /dev/null */
	int err_fd;                     /* stderr; -1: /dev/null */
	const struct game_user *user;   /* NULL: stay who we are */
	bool new_session;
	int parent_death_signal;        /* 0: none */
	const cpu_set_t *cpus;          /* NULL: inherit the runner's CPUs */
	int nice;                       /* added to the niceness (0: none) */
};

/* Finds argv[0] in the PATH of envp when it has no '/'. Returns a new
 * string or NULL when not found or not executable. */
char *spawn_find_program(const char *name, char *const *envp);

/* 0 with *pid set, or -errno (of the exec, the setuid or the fork). */
int spawn_process(const struct spawn_opts *o, pid_t *pid);

/* Waits for the child pid until deadline_ns (CLOCK_MONOTONIC), looking
 * every 10 ms; at the deadline SIGKILLs its process group (group: pid
 * leads a session or group of its own) or it alone, and waits for it.
 * 0 when it ended by itself, -ETIMEDOUT when it was killed, -errno when it
 * could not be waited for (then *status and *ru are left as they were, so
 * a failure never reads as an exit status). status and ru may be NULL. */
struct rusage;
int spawn_wait_until(pid_t pid, uint64_t deadline_ns, bool group, int *status, struct rusage *ru);

/* The status of a waited-for process as words: "exit 0", "signal 9 (Killed)". */
void describe_wait_status(int status, char *buf, size_t size);

/* Runs a command (as ourselves), returning its stdout in *out (caller
 * frees) and its wait status in *status. 0 or -errno. */
int spawn_capture(char *const *argv, char **out, int *status);

/* The same with stdin_text (NULL: none) as its input and both outputs
 * captured (out or err NULL: read and dropped). 0 or -errno. */
int spawn_capture_io(char *const *argv, const char *stdin_text, struct strbuf *out, struct strbuf *err,
		     int *status);

/* The same until deadline_ns (CLOCK_MONOTONIC; 0: none), the command in a
 * session of its own: at the deadline the session is SIGKILLed, what it
 * printed so far is kept, it is waited for, and -ETIMEDOUT is returned
 * with *status set. */
int spawn_capture_until(char *const *argv, const char *stdin_text, struct strbuf *out, struct strbuf *err,
			uint64_t deadline_ns, int *status);

#endif
