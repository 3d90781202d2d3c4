/*
 * Starting and stopping the run's Xvfb (see xserver.h).
 */
#include "runner/xserver.h"
#include "runner/spawn.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* how long the X server has to end after SIGTERM before SIGKILL */
#define STOP_GRACE_S 5

static void put_counted(struct strbuf *sb, const void *data, size_t len)
{
	unsigned char n[2] = { (unsigned char)(len >> 8), (unsigned char)len };

	strbuf_add(sb, n, 2);
	strbuf_add(sb, data, len);
}

int xauth_write(const char *path, int mode)
{
	static const unsigned char family_wild[2] = { 0xff, 0xff };
	struct strbuf sb = STRBUF_INIT;
	unsigned char cookie[16];
	int r;

	if (getrandom(cookie, sizeof(cookie), 0) != (ssize_t)sizeof(cookie))
		return -errno;
	/* family, address, display number, auth name, auth data: an empty
	 * number matches every display, FamilyWild every address */
	strbuf_add(&sb, family_wild, 2);
	put_counted(&sb, "", 0);
	put_counted(&sb, "", 0);
	put_counted(&sb, "MIT-MAGIC-COOKIE-1", 18);
	put_counted(&sb, cookie, sizeof(cookie));
	r = write_file_atomic(path, sb.buf, sb.len, mode);
	strbuf_release(&sb);
	return r;
}

#define X_SOCKET_DIR "/tmp/.X11-unix"

/* The directory of X's sockets: made by root, world-writable and sticky,
 * as the X server would make it, so that an X server started as a user
 * finds it (one of its own making would be the first user's). */
static void socket_dir(void)
{
	if (geteuid() == 0 && mkdir(X_SOCKET_DIR, 01777) == 0)
		chmod(X_SOCKET_DIR, 01777); /* past the umask */
}

int xserver_start(struct xserver *x, const char *screen, const char *auth_path,
		  const struct game_user *user, int log_fd, double timeout_s, struct strbuf *err)
{
	char fdarg[16], buf[32];
	char *argv[] = { "Xvfb", "-displayfd", fdarg, "-screen", "0", (char *)screen,
			 "-nolisten", "tcp", "-noreset", "-auth", (char *)auth_path, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin:/usr/local/bin", NULL };
	struct spawn_opts o = {
		.argv = argv, .envp = envp, .in_fd = -1, .out_fd = log_fd, .err_fd = log_fd,
		.new_session = true, .parent_death_signal = SIGTERM, .user = user,
	};
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_s * 1e9);
	size_t got = 0;

	footprint_init(&x->fp);
	int pfd[2], r;

	memset(x, 0, sizeof(*x));
	socket_dir();
	if (pipe(pfd) < 0)
		return -errno;
	/* the write end must survive exec in Xvfb: only the read end is CLOEXEC */
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	snprintf(fdarg, sizeof(fdarg), "%d", pfd[1]);
	r = spawn_process(&o, &x->pid);
	close(pfd[1]);
	if (r < 0) {
		strbuf_addf(err, "cannot start Xvfb: %s", strerror(-r));
		close(pfd[0]);
		return r;
	}
	/* Xvfb writes "N\n" once it listens */
	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		uint64_t now = mono_ns();
		ssize_t n;

		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		n = read(pfd[0], buf + got, sizeof(buf) - 1 - got);
		if (n <= 0) {
			r = -EPIPE;
			break;
		}
		got += (size_t)n;
		buf[got] = '\0';
	}
	close(pfd[0]);
	if (r == 0) {
		buf[got] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (safe_atoi(buf, &x->display) < 0)
			r = -EPROTO;
	}
	if (r < 0) {
		strbuf_addf(err, "Xvfb did not start (%s): see xserver.log in the run directory",
			    r == -ETIMEDOUT ? "no display within the timeout" : "it exited");
		xserver_stop(x);
		return r;
	}
	snprintf(x->name, sizeof(x->name), ":%d", x->display);
	return 0;
}

int xserver_stop(struct xserver *x)
{
	struct rusage ru;
	int r;

	if (x->pid <= 0)
		return 0;
	footprint_read_hwm(&x->fp, x->pid);
	kill(x->pid, SIGTERM);
	r = spawn_wait_until(x->pid, mono_ns() + STOP_GRACE_S * NSEC_PER_SEC, false, NULL, &ru);
	if (r == 0 || r == -ETIMEDOUT)
		footprint_add(&x->fp, &ru);
	x->pid = 0;
	return r == -ETIMEDOUT;
}
