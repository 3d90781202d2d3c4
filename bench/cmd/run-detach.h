/*
 * run --detach (cmd-run.c): the runner goes on in a session of its own
 * once the batch directory is made, so that a batch started over SSH on a
 * target outlives the connection (docs/targets.md "Running on a target").
 */
#ifndef HB_RUN_DETACH_H
#define HB_RUN_DETACH_H

#include <stddef.h>
#include <stdint.h>

#include "batch/batch.h"
#include "base/util.h"

/* What a run takes besides its warm-up, window, stop_grace and the quiet
 * profile's settle_s, in the batch's expected length: the X server, the
 * game's load to its first frame, the watcher, the end's checks and files. */
#define DETACH_RUN_ALLOWANCE_S 5.0

/* The seconds the batch's pending runs should take (expected_s). */
double detach_expected_s(size_t pending, double warmup, double window, double stop_grace, double settle);

/* The quiet profile's settle_s (profile NULL: no quieting, 0), the profile
 * read now so that a bad one fails in the foreground. 0, -ENOENT (no such
 * profile) or -EINVAL, err saying what is wrong. */
int detach_profile_settle(const char *profile, char *const *recipe_dirs, size_t n, double *settle,
			  struct strbuf *err);

/* Forks the detached runner of batch b: a double fork, the first child
 * calling setsid() and exiting (the runner re-parented, in a session of
 * its own, so no hang-up reaches it), the runner's stdin /dev/null, its
 * stdout and stderr appended to BATCH/runner.log, BATCH/runner.pid
 * written ("PID STARTTIME", /proc/PID/stat's start time, so that a look
 * can tell it alive from a pid used again). stdout and stderr are flushed
 * first. Returns 0 in the runner, 1 in the foreground once the runner is
 * ready, -errno in the foreground when it could not start. */
int detach_runner(const struct batch *b);

/* run --detach --follow's foreground, once the batch line is printed: the
 * batch followed to its end in the connection that started it, so that the
 * controller needs no new login while it runs (docs/targets.md, "Running
 * on a target"). Each event the batch's runs.txt gains is printed as "run
 * SLOT EVENT ..." (the line as the file has it), then "ended STATUS" once
 * the runner is gone (batch.txt's status, "abandoned" without one). It
 * sleeps on inotify on the batch's directory, which the runner writes at a
 * run's start and end, never within a window, and wakes once a minute to
 * look at the runner. HB_EXIT_OK, HB_EXIT_INTERRUPTED on a signal on
 * stop_fd (the batch goes on), HB_EXIT_FAILURE when the directory cannot
 * be watched. */
int detach_follow(const struct batch *b, int stop_fd);

/* The login the batch was started from: the nearest sshd among the
 * runner's ancestors (OpenSSH's process for the session), found before the
 * runner detaches. pid 0: none (a batch started at a terminal). */
struct detach_login {
	int pid;
	uint64_t starttime;     /* /proc/PID/stat's, to tell it from a pid used again */
};

/* Seconds the detached runner waits for that session to end (the
 * controller closes it at once), and then for its teardown (sshd's exit,
 * logind's cleanup) to pass, before the first run. */
#define DETACH_LOGIN_WAIT_S 10
#define DETACH_LOGIN_SETTLE_S 2

/* Walks up from our parent (proc/PID/stat under the swappable root). */
void detach_login_find(struct detach_login *l);

/* In the detached runner: waits until l's process is gone (at most
 * DETACH_LOGIN_WAIT_S), then DETACH_LOGIN_SETTLE_S more, looking every
 * 100 ms at /proc alone (it starts nothing); stop_fd (-1: none) readable
 * ends the wait at once. The seconds waited for the session to end, or
 * -1 when it had not ended by then; 0 with no login to wait for. */
double detach_login_wait(const struct detach_login *l, int stop_fd);
/* Says in the runner's log how the wait went (a warning when the session
 * had not ended). The detached runner's first run waits for the session
 * that started it to end: its teardown (sshd's exit, the controller's last
 * ssh on a target that is also the host, logind's cleanup) is no run's
 * interference. */
void detach_login_say(const struct detach_login *l, double waited);

#endif
