/*
 * The interference watcher's view of the rest of the machine: the VT in
 * front (its switch by the run's X server let pass), new logins (logind's
 * session files), USB devices connected or disconnected (the kernel log)
 * and processes outside the run (common/procwatch/procwatch.c decides).
 */
#include "intfwatch-internal.h"
#include "system/fsroot.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* The VT in front, read again from the file opened once; 0 or -1. */
static int vt_active(int fd, int *vt)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return vt_parse(buf, vt) < 0 ? -1 : 0;
}

void vt_start(struct watcher *w)
{
	int now = 0;

	w->vt_fd = fsroot_open("sys/class/tty/tty0/active", O_RDONLY | O_CLOEXEC);
	if (w->vt_fd < 0)
		return;
	vt_active(w->vt_fd, &now);
	vt_watch_init(&w->vt, now, w->x_vt);
}

void vt_read(struct watcher *w)
{
	int vt, was = w->vt.now;

	if (vt_active(w->vt_fd, &vt) < 0)
		return;
	switch (vt_watch_change(&w->vt, vt)) {
	case VT_SAME:
		break;
	case VT_X_TAKES:
		logf_line(w, '-', since(w, mono_ns()), "VT %d -> %d (the run's X server takes its VT)", was, vt);
		break;
	case VT_X_GIVES_BACK:
		logf_line(w, '-', since(w, mono_ns()), "VT %d -> %d (the run's X server gives it back)", was,
			  vt);
		break;
	case VT_SWITCH:
		w->tally.vt++;
		if (!*w->tally.first_vt)
			snprintf(w->tally.first_vt, sizeof(w->tally.first_vt), "VT switch %d->%d at %.0f s", was,
				 vt, since(w, mono_ns()));
		logf_line(w, '!', since(w, mono_ns()), "VT switch %d -> %d", was, vt);
		break;
	}
}

static bool known_session(const struct watcher *w, const char *id)
{
	for (size_t i = 0; i < w->n_sessions; i++)
		if (strcmp(w->sessions[i].id, id) == 0)
			return true;
	return false;
}

void sessions_read(struct watcher *w)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct login_session *now;
	size_t n;

	while (read(w->sess_fd, ev, sizeof(ev)) > 0)
		;       /* which file does not matter: the list is read again */
	if (sessions_list(&now, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char desc[160];

		if (known_session(w, now[i].id))
			continue;
		session_describe(&now[i], desc, sizeof(desc));
		w->tally.logins++;
		if (!*w->tally.first_login)
			snprintf(w->tally.first_login, sizeof(w->tally.first_login), "%s at %.0f s", desc,
				 since(w, mono_ns()));
		logf_line(w, '!', since(w, mono_ns()), "LOGIN %s", desc);
	}
	free(w->sessions);
	w->sessions = now;
	w->n_sessions = n;
}

/* The sessions there now are not logins; one that appears later is. */
void logins_start(struct watcher *w)
{
	char *dir = xasprintf("%s/%s", fsroot(), SESSIONS_DIR);

	sessions_list(&w->sessions, &w->n_sessions);
	w->sess_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->sess_fd >= 0 && inotify_add_watch(w->sess_fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		close(w->sess_fd);
		w->sess_fd = -1;
	}
	free(dir);
}

/* The kernel log from now on: what was logged before is not the run's. */
void kmsg_start(struct watcher *w)
{
	w->kmsg_fd = fsroot_open("dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->kmsg_fd >= 0)
		lseek(w->kmsg_fd, 0, SEEK_END);
}

/* USB devices connected or disconnected, from the kernel log. */
void kmsg_read(struct watcher *w)
{
	char buf[2048];
	ssize_t n;

	while ((n = read(w->kmsg_fd, buf, sizeof(buf) - 1)) > 0) {
		char *msg;

		buf[n] = '\0';
		msg = strchr(buf, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = '\0';
		if (strstr(msg, "new ") && strstr(msg, "USB device number")) {
			w->tally.usb++;
			logf_line(w, '!', since(w, mono_ns()), "USB %s", msg);
		} else if (strstr(msg, "USB disconnect")) {
			w->tally.usb++;
			logf_line(w, '!', since(w, mono_ns()), "USB %s", msg);
		}
	}
}

static void on_process(void *ctx, const struct procwatch_verdict *v)
{
	struct watcher *w = ctx;

	if (v->counted) {
		if (v->what == PROCWATCH_BUSY)
			w->tally.busy++;
		else
			w->tally.processes++;
	}
	logf_line(w, v->counted ? '!' : '-', v->t, "%s pid %d (%s) %s%s%s", v->what == PROCWATCH_BUSY ?
		  "BUSY" : "PROCESS", v->pid, v->comm, procwatch_what_name(v->what),
		  v->why ? ": " : "", v->why ? v->why : "");
}

int processes_start(struct watcher *w, const pid_t *roots, size_t n_roots, const char *run_id, const char *relay_id,
		    const pid_t *harness, size_t n_harness, bool scan)
{
	struct procwatch_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.source = scan ? PROCWATCH_SCAN : PROCWATCH_AUTO;
	cfg.run_roots = roots;
	cfg.n_run_roots = n_roots;
	cfg.run_id = run_id;
	cfg.relay_id = relay_id;
	cfg.harness = harness;
	cfg.n_harness = n_harness;
	cfg.fn = on_process;
	cfg.ctx = w;
	return procwatch_start(&w->pw, &cfg);
}

/* The busy processes of other sessions are told at the end. */
void processes_end(struct watcher *w)
{
	if (!w->pw)
		return;
	procwatch_finish(w->pw);
	procwatch_free(w->pw);
	w->pw = NULL;
}
