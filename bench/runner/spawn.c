/*
 * Starting games and their helpers (see spawn.h).
 */
#include "runner/spawn.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, n) && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

char *spawn_find_program(const char *name, char *const *envp)
{
	const char *path = env_get(envp, "PATH");
	char *copy, *save = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path)
		path = "/usr/bin:/bin";
	copy = xstrdup(path);
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, name);
		struct stat st;

		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
			free(copy);
			return full;
		}
		free(full);
	}
	free(copy);
	return NULL;
}

/* Everything after fork: no allocation, only system calls. */
static void child(const struct spawn_opts *o, const char *prog, int report_fd)
{
	sigset_t none;
	int e, null_fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	if (o->new_session && setsid() < 0)
		goto fail;
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd < 0)
		goto fail;
	if (dup2(o->in_fd >= 0 ? o->in_fd : null_fd, 0) < 0 ||
	    dup2(o->out_fd >= 0 ? o->out_fd : null_fd, 1) < 0 ||
	    dup2(o->err_fd >= 0 ? o->err_fd : null_fd, 2) < 0)
		goto fail;
	if (o->cpus && sched_setaffinity(0, sizeof(*o->cpus), o->cpus) < 0)
		goto fail;
	errno = 0;
	if (o->nice && nice(o->nice) == -1 && errno != 0)
		goto fail;
	if (o->user) {
		e = game_user_become(o->user);
		if (e < 0) {
			errno = -e;
			goto fail;
		}
	}
	/* after the user change: PR_SET_PDEATHSIG is cleared by setuid */
	if (o->parent_death_signal && prctl(PR_SET_PDEATHSIG, o->parent_death_signal) < 0)
		goto fail;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	execve(prog, o->argv, o->envp);
fail:
	e = errno;
	if (write(report_fd, &e, sizeof(e)) < 0) {
		/* nothing left to tell */
	}
	_exit(127);
}

int spawn_process(const struct spawn_opts *o, pid_t *pid)
{
	char *prog = spawn_find_program(o->argv[0], o->envp);
	int pfd[2], e = 0, r = 0;
	ssize_t n;
	pid_t p;

	if (!prog)
		return -ENOENT;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	p = fork();
	if (p < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (p == 0)
		child(o, prog, pfd[1]);
	close(pfd[1]);
	do {
		n = read(pfd[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(p, NULL, 0);
		r = -e;
		goto out;
	}
	*pid = p;
out:
	free(prog);
	return r;
}

/* wait4 once, EINTR taken again: its pid, 0 (running) or -errno */
static pid_t reap_one(pid_t pid, int options, int *status, struct rusage *ru)
{
	struct rusage r;
	int st;
	pid_t p;

	while ((p = wait4(pid, &st, options, &r)) < 0 && errno == EINTR)
		;
	if (p < 0)
		return -errno;
	if (p == pid) {
		if (status)
			*status = st;
		if (ru)
			*ru = r;
	}
	return p;
}

int spawn_wait_until(pid_t pid, uint64_t deadline_ns, bool group, int *status, struct rusage *ru)
{
	pid_t p;

	while ((p = reap_one(pid, WNOHANG, status, ru)) == 0) {
		if (mono_ns() >= deadline_ns) {
			kill(group ? -pid : pid, SIGKILL);
			p = reap_one(pid, 0, status, ru);
			return p < 0 ? (int)p : -ETIMEDOUT;
		}
		sleep_ms(10);
	}
	return p < 0 ? (int)p : 0;
}

void describe_wait_status(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "status 0x%x", (unsigned)status);
}

static void drain(int *fd, struct strbuf *sb)
{
	char chunk[8192];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (sb)
		strbuf_add(sb, chunk, (size_t)n);
}

int spawn_capture_until(char *const *argv, const char *stdin_text, struct strbuf *out, struct strbuf *err,
			uint64_t deadline_ns, int *status)
{
	int in[2], o[2], e[2], r;
	size_t off = 0, len = stdin_text ? strlen(stdin_text) : 0;
	struct spawn_opts so = { .argv = argv, .envp = environ, .new_session = deadline_ns != 0 };
	bool killed = false;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(o, O_CLOEXEC) < 0 || pipe2(e, O_CLOEXEC) < 0) {
		r = -errno;
		close(in[0]);
		close(in[1]);
		return r;
	}
	so.in_fd = in[0];
	so.out_fd = o[1];
	so.err_fd = e[1];
	r = spawn_process(&so, &pid);
	close(in[0]);
	close(o[1]);
	close(e[1]);
	if (r < 0) {
		close(in[1]);
		close(o[0]);
		close(e[0]);
		return r;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	if (!len) {
		close(in[1]);
		in[1] = -1;
	}
	while (o[0] >= 0 || e[0] >= 0) {
		struct pollfd p[3] = { { o[0], POLLIN, 0 }, { e[0], POLLIN, 0 }, { in[1], POLLOUT, 0 } };
		uint64_t t = deadline_ns ? mono_ns() : 0;

		if (deadline_ns && t >= deadline_ns) {
			/* its session killed; what it printed so far is kept, and
			 * no more is waited for (a process that left the session
			 * may hold the pipes) */
			kill(-pid, SIGKILL);
			killed = true;
			break;
		}
		if (poll(p, 3, deadline_ns ? (int)((deadline_ns - t + 999999u) / 1000000u) : -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			drain(&o[0], out);
		if (p[1].revents)
			drain(&e[0], err);
		if (in[1] >= 0 && p[2].revents) {
			ssize_t n = write(in[1], stdin_text + off, len - off);

			if (n > 0)
				off += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || off == len) {
				close(in[1]);
				in[1] = -1;
			}
		}
	}
	if (in[1] >= 0)
		close(in[1]);
	if (o[0] >= 0)
		close(o[0]);
	if (e[0] >= 0)
		close(e[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return killed ? -ETIMEDOUT : 0;
}

int spawn_capture_io(char *const *argv, const char *stdin_text, struct strbuf *out, struct strbuf *err,
		     int *status)
{
	return spawn_capture_until(argv, stdin_text, out, err, 0, status);
}

int spawn_capture(char *const *argv, char **out, int *status)
{
	struct strbuf sb = STRBUF_INIT;
	int r = spawn_capture_io(argv, NULL, &sb, NULL, status);

	if (r < 0) {
		strbuf_release(&sb);
		return r;
	}
	*out = strbuf_detach(&sb);
	return 0;
}
