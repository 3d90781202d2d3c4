/*
 * run --detach's fork and its estimate (see run-detach.h).
 */
#include "cmd/run-detach.h"
#include "cmd/cmd.h"
#include "system/procparse.h"
#include "quiet/quiet.h"
#include "system/fsroot.h"
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "text/kvfile.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

double detach_expected_s(size_t pending, double warmup, double window, double stop_grace, double settle)
{
	return (double)pending * (warmup + window + stop_grace + settle + DETACH_RUN_ALLOWANCE_S);
}

int detach_profile_settle(const char *profile, char *const *recipe_dirs, size_t n, double *settle,
			  struct strbuf *err)
{
	struct quiet_profile p;
	char *path;
	int r;

	*settle = 0;
	if (!profile)
		return 0;
	path = quiet_profile_find(profile, recipe_dirs, n);
	if (!path) {
		strbuf_addf(err, "no quiet profile '%s' (a path, or a name in the recipe directories' quiet/)",
			    profile);
		return -ENOENT;
	}
	quiet_profile_init(&p);
	r = quiet_profile_load(path, &p, err);
	free(path);
	if (r == 0)
		*settle = p.idle.settle_s > 0 ? p.idle.settle_s : 0;
	quiet_profile_release(&p);
	return r < 0 ? -EINVAL : 0;
}

static int write_runner_pid(const struct batch *b)
{
	char *text = NULL, *path, line[64];
	struct pstat st;
	size_t len;
	int r = read_file("/proc/self/stat", &text, &len);

	if (r < 0)
		return r;
	r = pstat_parse(text, &st);
	free(text);
	if (r < 0)
		return r;
	snprintf(line, sizeof(line), "%d %llu\n", (int)getpid(), (unsigned long long)st.starttime);
	path = xasprintf("%s/" BATCH_RUNNER_PID, b->dir);
	r = write_file_atomic(path, line, strlen(line), 0644);
	free(path);
	return r;
}

/* The runner's side: says it is ready (a byte on ready) and returns; on
 * failure exits, and the foreground, reading no byte, says it did not
 * start. */
static void runner_side(const struct batch *b, int ready)
{
	char *log = xasprintf("%s/" BATCH_RUNNER_LOG, b->dir);
	int in, out;
	pid_t pid;

	if (setsid() < 0)
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	free(log);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
	    write_runner_pid(b) < 0)
		_exit(1);
	close(in);
	close(out);
	if (write(ready, "1", 1) != 1)
		_exit(1);
	close(ready);
}

int detach_runner(const struct batch *b)
{
	int p[2], status, r;
	pid_t pid;
	char c;

	fflush(stdout);
	fflush(stderr);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		close(p[0]);
		runner_side(b, p[1]);
		return 0;
	}
	close(p[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	r = read(p[0], &c, 1) == 1 ? 1 : -ECHILD;
	close(p[0]);
	return r;
}

/* pid's stat, 0 or -errno (-ENOENT: gone). */
static int read_pstat(int pid, struct pstat *st)
{
	char rel[64], *text = NULL;
	int r;

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	r = fsroot_read_all(rel, &text);
	if (r >= 0)
		r = pstat_parse(text, st);
	free(text);
	return r < 0 ? r : 0;
}

void detach_login_find(struct detach_login *l)
{
	struct pstat st;
	int pid = getppid();

	l->pid = 0;
	l->starttime = 0;
	for (int depth = 0; pid > 1 && depth < 64; depth++) {
		if (read_pstat(pid, &st) < 0)
			return;
		if (strcmp(st.comm, "sshd") == 0) {
			l->pid = pid;
			l->starttime = st.starttime;
			return;
		}
		pid = st.ppid;
	}
}

/* Sleeps ms, or less when stop_fd becomes readable: 1 then. */
static int nap(int ms, int stop_fd)
{
	struct pollfd p = { stop_fd, POLLIN, 0 };

	if (stop_fd < 0) {
		sleep_ms((unsigned)ms);
		return 0;
	}
	return poll(&p, 1, ms) > 0;
}

double detach_login_wait(const struct detach_login *l, int stop_fd)
{
	uint64_t t0 = mono_ns();
	double waited = -1;
	struct pstat st;

	if (!l->pid)
		return 0;
	while (mono_ns() - t0 < (uint64_t)DETACH_LOGIN_WAIT_S * 1000000000ull) {
		if (read_pstat(l->pid, &st) < 0 || st.starttime != l->starttime || st.state == 'Z') {
			waited = (double)(mono_ns() - t0) / 1e9;
			break;
		}
		if (nap(100, stop_fd))
			return waited;
	}
	for (int i = 0; i < DETACH_LOGIN_SETTLE_S * 10; i++)
		if (nap(100, stop_fd))
			break;
	return waited;
}

void detach_login_say(const struct detach_login *l, double waited)
{
	if (waited < 0)
		warn_msg("the SSH session that started the batch (sshd %d) has not ended after %d s: the runs begin "
			 "while it is there", l->pid, DETACH_LOGIN_WAIT_S);
	else
		fprintf(stderr, "hitchbench: the SSH session that started the batch (sshd %d) ended after %.1f s; "
			"the runs begin %d s after that\n", l->pid, waited, DETACH_LOGIN_SETTLE_S);
}

/* Whether the runner named by BATCH/runner.pid ("PID STARTTIME") is alive. */
static bool runner_alive(const struct batch *b)
{
	char *path = xasprintf("%s/" BATCH_RUNNER_PID, b->dir), *text = NULL;
	size_t len = 0;
	uint64_t start;
	struct pstat st;
	int pid;
	bool alive;

	alive = read_file(path, &text, &len) == 0 && batch_runner_parse(text, len, &pid, &start) == 0 &&
		read_pstat(pid, &st) == 0 && batch_runner_is(text, len, &st);
	free(text);
	free(path);
	return alive;
}

/* The complete lines runs.txt gained past *off, each printed after "run ". */
static void follow_events(const struct batch *b, size_t *off)
{
	char *path = xasprintf("%s/runs.txt", b->dir), *text = NULL;
	size_t len = 0;

	if (read_file(path, &text, &len) == 0 && len > *off) {
		char *p = text + *off, *nl;

		while ((nl = memchr(p, '\n', len - (size_t)(p - text))) != NULL) {
			printf("run %.*s\n", (int)(nl - p), p);
			p = nl + 1;
		}
		*off = (size_t)(p - text);
		fflush(stdout);
	}
	free(text);
	free(path);
}

/* batch.txt's status, malloc'd, or NULL while the batch has none */
static char *batch_status(const struct batch *b)
{
	char *path = xasprintf("%s/batch.txt", b->dir), *status = NULL;
	struct kvfile kf;
	const char *v;

	kvfile_init(&kf);
	if (kvfile_load(&kf, path, NULL) == 0 && (v = kvfile_get(&kf, "status")) && *v)
		status = xstrdup(v);
	kvfile_release(&kf);
	free(path);
	return status;
}

int detach_follow(const struct batch *b, int stop_fd)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), ret = HB_EXIT_OK;
	size_t off = 0;

	if (fd < 0 || inotify_add_watch(fd, b->dir, IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
		error_msg("cannot follow batch '%s': %s", b->id, strerror(errno));
		if (fd >= 0)
			close(fd);
		return HB_EXIT_FAILURE;
	}
	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		char drain[4096], *status;
		bool alive;

		follow_events(b, &off);
		alive = runner_alive(b);
		status = batch_status(b);
		if (!alive) {
			follow_events(b, &off);
			printf("ended %s\n", status ? status : "abandoned");
			free(status);
			break;
		}
		/* a minute asleep at most; a fifth of a second once batch.txt
		 * has its status (the runner writes the checksums, then ends,
		 * and its end wakes no watch) */
		if (poll(p, stop_fd >= 0 ? 2 : 1, status ? 200 : 60000) < 0 && errno != EINTR) {
			free(status);
			break;
		}
		free(status);
		if (stop_fd >= 0 && (p[1].revents & POLLIN)) {
			ret = HB_EXIT_INTERRUPTED;
			break;
		}
		while (read(fd, drain, sizeof(drain)) > 0)
			;
	}
	fflush(stdout);
	close(fd);
	return ret;
}
