/*
 * Who else is on the machine: logind's sessions and the virtual terminal
 * in front, as the interference watcher reads them (under the swappable
 * root, so both are tested on fixture trees).
 *
 * logind keeps one key=value file per session in /run/systemd/sessions/
 * (UID=, USER=, SERVICE=, REMOTE_HOST=, TTY=, LEADER=, REALTIME= ...); a
 * new file is a new login, an SSH command included. The active VT is
 * /sys/class/tty/tty0/active ("tty2"), whose change the kernel signals to
 * poll() as POLLPRI.
 */
#ifndef HB_SESSIONS_H
#define HB_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SESSIONS_DIR "run/systemd/sessions"

struct login_session {
	char id[32];
	unsigned uid;
	char user[64];
	char service[32];       /* sshd, login, gdm-password ...; "" unknown */
	char remote_host[64];   /* "" for a local one */
	char tty[32];
	char scope[96];         /* its cgroup scope (session-12.scope) */
	char class_[16];        /* user, greeter, manager ... */
	int leader;             /* the session's leader pid; 0 unknown */
	uint64_t realtime_us;   /* when it began, CLOCK_REALTIME us; 0 unknown */
	bool remote;
};

/* Parses a session file's text (id: its file name). 0 or -EINVAL (no
 * UID= line, a malformed number). */
int session_parse(const char *id, const char *text, struct login_session *out);

/* The sessions under the root's run/systemd/sessions (ids that are not
 * files, and files that do not parse, are left out). 0 (n 0 when logind
 * keeps no such directory) or -errno; *out is the caller's to free. */
int sessions_list(struct login_session **out, size_t *n);

/* "session 12 (tibi, sshd from 10.0.0.45)" / "session 3 (root, login on tty1)". */
void session_describe(const struct login_session *s, char *buf, size_t size);

/* The active VT's number from the text of sys/class/tty/tty0/active ("tty2"
 * -> 2), the file the watcher polls for POLLPRI (bench/quiet/banner.h's
 * vt_active() asks the console instead). 0 or -EINVAL (not "ttyN"). */
int vt_parse(const char *text, int *vt);

/* Which VT switches count. The run's own X server (on x_vt; 0: none, as
 * Xvfb) takes its VT once and gives it back once, to the VT it took it
 * from: neither counts. Any other change does. */
struct vt_watch {
	int now;                /* the VT in front */
	int x_vt;
	int x_from;             /* the VT the X server took its VT from */
	bool x_took, x_gave;
};

enum vt_verdict {
	VT_SAME,                /* no change */
	VT_X_TAKES,             /* the run's X server takes its VT: exempt */
	VT_X_GIVES_BACK,        /* and gives it back: exempt */
	VT_SWITCH,              /* anything else: counted */
};

void vt_watch_init(struct vt_watch *v, int now, int x_vt);
/* Judges the VT now in front, and remembers it. */
enum vt_verdict vt_watch_change(struct vt_watch *v, int vt);

#endif
