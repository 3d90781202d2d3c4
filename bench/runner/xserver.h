/*
 * The run's own X server: Xvfb on a display it picks itself (-displayfd),
 * no TCP, a fresh MIT-MAGIC-COOKIE in an authority file only the run can
 * read, stopped (TERM, then KILL) when the run ends.
 */
#ifndef HB_XSERVER_H
#define HB_XSERVER_H

#include <sys/types.h>

#include "runner/footprint.h"
#include "base/util.h"

struct xserver {
	pid_t pid;          /* 0: not ours (an existing display) */
	struct footprint fp; /* once reaped: its peak RSS and CPU (VmHWM read before it is stopped) */
	int display;
	char name[32];      /* ":N" */
};

/* Writes an X authority file holding one wildcard entry (any display of
 * this host) with a random 16-byte cookie. 0 or -errno. */
int xauth_write(const char *path, int mode);

/* Starts Xvfb -screen 0 SCREEN with the authority file, as user (the game's,
 * when we are root: the X server is the game's to talk to, so a game that
 * breaks it gains nothing the game did not have; docs/security.md); its
 * output goes to log_fd. Waits until it accepts connections (at most
 * timeout_s). 0, or -errno with a message in err. */
struct game_user;
int xserver_start(struct xserver *x, const char *screen, const char *auth_path,
		  const struct game_user *user, int log_fd, double timeout_s, struct strbuf *err);
/* Stops our server (nothing for an existing display), its footprint into
 * x->fp. Returns 0, or 1 when SIGKILL was needed. */
int xserver_stop(struct xserver *x);

#endif
