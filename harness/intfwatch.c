/*
 * hitchbench-intfwatch: the interference watcher. Beside a run it watches
 * for anyone else using the machine: real input on every input device
 * (common/inputrules.c decides what counts), input devices coming and
 * going, VT switches, new logins, new processes outside the run and busy
 * processes of other sessions (common/procwatch.c), USB lines in the
 * kernel log. Each thing it counts is a '!' line in its log, each thing it
 * saw and let pass a '-' line; at the end a summary line says whether the
 * run was disturbed and by what, and a "# self" line what the watch cost.
 * The log's format: docs/interference.md ("The watcher's log").
 *
 * It never logs which key was pressed: the input rules' details name no
 * key, and the watcher adds only the device's name.
 *
 * The run's processes: --run-root PIDs, and later ones by
 * sigqueue(SIGUSR1, pid) (the game's pass, as the stall recorder gets it);
 * processes carrying HITCHBENCH_RUN=<--run-id> in their environment. The
 * harness's: the watcher's ancestors and --harness PIDs. Devices whose
 * name starts with "hitchbench input" are the harness's own (the input
 * drivers): '-' lines.
 */
#include "evemu.h"
#include "exitcodes.h"
#include "helperproc.h"
#include "fsroot.h"
#include "inputrules.h"
#include "procwatch.h"
#include "sessions.h"
#include "timeutil.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libevdev/libevdev.h>
#include <libudev.h>
#include <linux/input.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVS 64
#define MAX_ROOTS 64
#define HARNESS_DEVICE_PREFIX "hitchbench input"
#define TICK_MS 250     /* while a mouse motion burst is open */
/* Otherwise the loop sleeps in poll() until something happens, but at
 * most this long: a stop signal that lands just before poll() is seen
 * within it, and so is a pass's pid. */
#define IDLE_MS 1000

struct dev {
	char node[64];              /* event3 */
	int fd;
	struct libevdev *ev;
	struct input_dev_state st;
	bool exempt;
};

/* What was counted, for the summary. */
struct tally {
	unsigned input[INPUT_N_KINDS];
	unsigned devices, vt, logins, processes, busy, usb;
	char first_vt[64], first_login[240];
};

struct watcher {
	FILE *log;
	uint64_t t0;
	struct dev devs[MAX_DEVS];
	size_t n_devs;
	struct udev *udev;
	struct udev_monitor *mon;
	const char *mon_source;     /* "udev" or "kernel" */
	int vt_fd, x_vt;
	struct vt_watch vt;
	int sess_fd;                /* inotify on run/systemd/sessions */
	struct login_session *sessions;
	size_t n_sessions;
	int kmsg_fd;
	struct procwatch *pw;
	struct tally tally;
	unsigned watched_devices;
};

static double since(const struct watcher *w, uint64_t t_ns)
{
	return t_ns > w->t0 ? (double)(t_ns - w->t0) / 1e9 : 0;
}

static void logf_line(struct watcher *w, char mark, double t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void logf_line(struct watcher *w, char mark, double t, const char *fmt, ...)
{
	va_list ap;

	fprintf(w->log, "%c %9.3f ", mark, t);
	va_start(ap, fmt);
	vfprintf(w->log, fmt, ap);
	va_end(ap);
	fputc('\n', w->log);
	fflush(w->log);
}

/* ---- input devices ---- */

static void caps_from_libevdev(struct libevdev *ev, struct input_caps *c)
{
	input_caps_init(c);
	snprintf(c->name, sizeof(c->name), "%s", libevdev_get_name(ev) ? libevdev_get_name(ev) : "?");
	c->bustype = (unsigned)libevdev_get_id_bustype(ev);
	c->vendor = (unsigned)libevdev_get_id_vendor(ev);
	c->product = (unsigned)libevdev_get_id_product(ev);
	c->version = (unsigned)libevdev_get_id_version(ev);
	for (unsigned p = 0; p <= INPUT_PROP_MAX; p++)
		if (libevdev_has_property(ev, p))
			c->props[p / 8] |= (uint8_t)(1u << (p % 8));
	for (unsigned type = 0; type <= EV_MAX; type++) {
		int max;

		if (!libevdev_has_event_type(ev, type))
			continue;
		input_caps_set(c, type, 0);
		max = libevdev_event_type_get_max(type);
		for (int code = 0; max > 0 && code <= max; code++) {
			if (!libevdev_has_event_code(ev, type, (unsigned)code))
				continue;
			input_caps_set(c, type, (unsigned)code);
			if (type == EV_ABS) {
				const struct input_absinfo *ai = libevdev_get_abs_info(ev, (unsigned)code);

				if (ai) {
					c->abs[code].min = ai->minimum;
					c->abs[code].max = ai->maximum;
					c->abs[code].fuzz = ai->fuzz;
					c->abs[code].flat = ai->flat;
					c->abs[code].resolution = ai->resolution;
					c->abs[code].value = ai->value;
					c->abs[code].has_value = true;
				}
			}
		}
	}
}

static void dev_close(struct dev *d)
{
	if (d->ev)
		libevdev_free(d->ev);
	if (d->fd >= 0)
		close(d->fd);
	d->ev = NULL;
	d->fd = -1;
}

/* A device that cannot be watched: one that appeared mid-run still
 * counts as a device change. */
static void dev_unwatched(struct watcher *w, const char *node, bool added, const char *why)
{
	if (added)
		w->tally.devices++;
	logf_line(w, added ? '!' : '-', since(w, mono_ns()), "%s %s not watched: %s", added ? "DEVADD" :
		  "DEVICE", node, why);
}

/* Opens /dev/input/NODE and starts its rules. added: it appeared mid-run. */
static void dev_open(struct watcher *w, const char *node, bool added)
{
	char path[128];
	struct input_caps caps;
	struct dev *d = NULL;
	int clk = CLOCK_MONOTONIC;

	for (size_t i = 0; i < w->n_devs; i++)
		if (strcmp(w->devs[i].node, node) == 0 && w->devs[i].fd >= 0)
			return;
	/* a slot a device that went away left, else a new one */
	for (size_t i = 0; i < w->n_devs && !d; i++)
		if (w->devs[i].fd < 0)
			d = &w->devs[i];
	if (!d && w->n_devs < MAX_DEVS)
		d = &w->devs[w->n_devs++];
	if (!d) {
		dev_unwatched(w, node, added, "too many devices open already");
		return;
	}
	memset(d, 0, sizeof(*d));
	snprintf(d->node, sizeof(d->node), "%s", node);
	snprintf(path, sizeof(path), "dev/input/%s", node);
	d->fd = fsroot_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0) {
		dev_unwatched(w, node, added, strerror(-d->fd));
		d->fd = -1;
		return;
	}
	if (libevdev_new_from_fd(d->fd, &d->ev) < 0) {
		dev_close(d);
		dev_unwatched(w, node, added, "not an evdev device libevdev can read");
		return;
	}
	/* stamps on the monotonic clock, as every other time here */
	ioctl(d->fd, EVIOCSCLOCKID, &clk);
	caps_from_libevdev(d->ev, &caps);
	input_rules_init(&d->st, &caps, mono_ns() / 1000);
	d->exempt = strncmp(caps.name, HARNESS_DEVICE_PREFIX, strlen(HARNESS_DEVICE_PREFIX)) == 0;
	w->watched_devices++;
	if (added && !d->exempt) {
		w->tally.devices++;
		logf_line(w, '!', since(w, mono_ns()), "DEVADD %s \"%s\" (an input device appeared)", node,
			  caps.name);
	} else {
		logf_line(w, '-', since(w, mono_ns()), "%s %s \"%s\"%s", added ? "DEVADD" : "DEVICE", node,
			  caps.name, d->exempt ? " (the harness's own input device)" : " watched");
	}
}

static void dev_gone(struct watcher *w, const char *node)
{
	for (size_t i = 0; i < w->n_devs; i++) {
		struct dev *d = &w->devs[i];

		if (strcmp(d->node, node) != 0 || d->fd < 0)
			continue;
		if (!d->exempt)
			w->tally.devices++;
		logf_line(w, d->exempt ? '-' : '!', since(w, mono_ns()), "DEVREMOVE %s \"%s\"%s", node,
			  libevdev_get_name(d->ev), d->exempt ? " (the harness's own input device)" :
			  " (an input device went away)");
		dev_close(d);
	}
}

static void verdicts(struct watcher *w, const struct dev *d, const struct input_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool counted = v[i].counted && !d->exempt;

		if (counted)
			w->tally.input[v[i].kind] += v[i].n ? v[i].n : 1;
		logf_line(w, counted ? '!' : '-', since(w, v[i].t_us * 1000), "%s dev=\"%s\" %s%s",
			  input_kind_name(v[i].kind), libevdev_get_name(d->ev), v[i].detail,
			  v[i].counted && d->exempt ? " (the harness's own input device)" : "");
	}
}

static void dev_read(struct watcher *w, struct dev *d)
{
	struct input_verdict v[INPUT_VERDICTS_MAX];
	struct input_event ev;
	unsigned flag = LIBEVDEV_READ_FLAG_NORMAL;
	int r;
	size_t n;

	for (;;) {
		r = libevdev_next_event(d->ev, flag, &ev);
		if (r == -EAGAIN) {
			if (flag == LIBEVDEV_READ_FLAG_SYNC) {
				flag = LIBEVDEV_READ_FLAG_NORMAL;
				continue;
			}
			return;
		}
		if (r < 0) {
			dev_gone(w, d->node);
			return;
		}
		/* the kernel dropped events: libevdev hands over what changed */
		if (r == LIBEVDEV_READ_STATUS_SYNC)
			flag = LIBEVDEV_READ_FLAG_SYNC;
		input_rules_event(&d->st, (uint64_t)ev.input_event_sec * 1000000 + ev.input_event_usec,
				  ev.type, ev.code, ev.value, v, &n);
		verdicts(w, d, v, n);
	}
}

static void devs_scan(struct watcher *w)
{
	char *dir = xasprintf("%s/dev/input", fsroot());
	DIR *dd = opendir(dir);
	struct dirent *e;

	free(dir);
	if (!dd)
		return;
	while ((e = readdir(dd)) != NULL)
		if (strncmp(e->d_name, "event", 5) == 0)
			dev_open(w, e->d_name, false);
	closedir(dd);
}

/* Where devices that come and go are heard of: udev's events once its
 * daemon has handled them (the node then has its permissions), or,
 * where no udev daemon runs (a container, a minimal system), the
 * kernel's own uevents, which nobody would otherwise relay. */
static const char *udev_source(void)
{
	char *control = xasprintf("%s/run/udev/control", fsroot());
	bool daemon = access(control, F_OK) == 0;

	free(control);
	return daemon ? "udev" : "kernel";
}

static void udev_read(struct watcher *w)
{
	struct udev_device *u;

	while ((u = udev_monitor_receive_device(w->mon)) != NULL) {
		const char *action = udev_device_get_action(u);
		const char *node = udev_device_get_sysname(u);

		if (action && node && strncmp(node, "event", 5) == 0) {
			if (strcmp(action, "add") == 0)
				dev_open(w, node, true);
			else if (strcmp(action, "remove") == 0)
				dev_gone(w, node);
		}
		udev_device_unref(u);
	}
}

/* ---- the VT, logins, the kernel log ---- */

static void vt_read(struct watcher *w)
{
	char buf[32];
	ssize_t n = pread(w->vt_fd, buf, sizeof(buf) - 1, 0);
	int vt, was = w->vt.now;

	if (n <= 0)
		return;
	buf[n] = '\0';
	if (vt_parse(buf, &vt) < 0)
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

static void sessions_read(struct watcher *w)
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

/* USB devices connected or disconnected, from the kernel log. */
static void kmsg_read(struct watcher *w)
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

/* ---- processes ---- */

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

/* ---- the end ---- */

static void summary(struct watcher *w, struct strbuf *out)
{
	static const char *const names[INPUT_N_KINDS] = {
		[INPUT_KEY] = "key presses", [INPUT_BUTTON] = "button presses",
		[INPUT_TOUCH] = "touches", [INPUT_WHEEL] = "wheel steps",
		[INPUT_STICK] = "stick moves", [INPUT_TRIGGER] = "trigger pulls",
		[INPUT_HAT] = "hat presses", [INPUT_MOTION] = "mouse motions",
	};
	const struct tally *t = &w->tally;
	size_t start = out->len;

	for (int k = 0; k < INPUT_N_KINDS; k++)
		if (t->input[k] && names[k])
			strbuf_addf(out, "%s%u %s", out->len > start ? ", " : "", t->input[k], names[k]);
	if (t->devices)
		strbuf_addf(out, "%s%u device change(s)", out->len > start ? ", " : "", t->devices);
	if (t->vt)
		strbuf_addf(out, "%s%s%s", out->len > start ? ", " : "", t->first_vt,
			    t->vt > 1 ? " (and more)" : "");
	if (t->logins)
		strbuf_addf(out, "%s%u login(s): %s", out->len > start ? ", " : "", t->logins,
			    t->first_login);
	if (t->processes)
		strbuf_addf(out, "%s%u process(es) outside the run", out->len > start ? ", " : "",
			    t->processes);
	if (t->busy)
		strbuf_addf(out, "%s%u busy process(es) of other sessions", out->len > start ? ", " : "",
			    t->busy);
	if (t->usb)
		strbuf_addf(out, "%s%u USB connect/disconnect(s)", out->len > start ? ", " : "", t->usb);
	if (out->len == start)
		strbuf_addf(out, "none (%u input devices watched)", w->watched_devices);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-intfwatch --log FILE [--run-root PID]... [--run-id ID]\n"
		"                            [--harness PID]... [--x-vt N] [--ready FILE] [--duration S]\n"
		"                            [--scan]\n"
		"\n"
		"  --log FILE      the watcher's log (interference.log)\n"
		"  --run-root PID  a process of the run (repeatable; later ones by sigqueue SIGUSR1)\n"
		"  --run-id ID     processes with HITCHBENCH_RUN=ID in their environment are the run's\n"
		"  --harness PID   a process of the harness (exempt; repeatable)\n"
		"  --x-vt N        the VT the run's X server takes (its switch there is not counted)\n"
		"  --ready FILE    create FILE once watching\n"
		"  --duration S    stop after S seconds (default: at SIGTERM or SIGINT)\n"
		"  --scan          find new processes by scanning /proc, not the proc connector\n"
		"\n"
		"Exit 0 clean, 3 when something counted (the summary says what), 1 on failure.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' }, { "run-root", required_argument, NULL, 'r' },
		{ "run-id", required_argument, NULL, 'i' }, { "harness", required_argument, NULL, 'H' },
		{ "x-vt", required_argument, NULL, 'x' }, { "ready", required_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'd' }, { "scan", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static struct watcher w;
	pid_t roots[MAX_ROOTS], harness[MAX_ROOTS];
	size_t n_roots = 0, n_harness = 0;
	const char *log_path = NULL, *ready = NULL, *run_id = NULL;
	int opt, duration_s = 0, v;
	bool scan = false;
	struct procwatch_config cfg;
	struct strbuf sum = STRBUF_INIT;
	struct rusage ru;
	uint64_t end = 0, watch_t0;
	double cpu, wall, start_cpu, watch_wall;
	int r;

	w.vt_fd = w.sess_fd = w.kmsg_fd = -1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': log_path = optarg; break;
		case 'i': run_id = optarg; break;
		case 'R': ready = optarg; break;
		case 's': scan = true; break;
		case 'r': case 'H': case 'x': case 'd':
			if (safe_atoi(optarg, &v) < 0 || v < (opt == 'x' ? 0 : 1)) {
				fprintf(stderr, "hitchbench-intfwatch: --%s wants a number, not '%s'\n",
					opt == 'r' ? "run-root" : opt == 'H' ? "harness" : opt == 'x' ? "x-vt" :
					"duration", optarg);
				return HB_EXIT_USAGE;
			}
			if (opt == 'r' && n_roots < MAX_ROOTS)
				roots[n_roots++] = v;
			else if (opt == 'H' && n_harness < MAX_ROOTS)
				harness[n_harness++] = v;
			else if (opt == 'x')
				w.x_vt = v;
			else if (opt == 'd')
				duration_s = v;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (!log_path || optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	w.log = fopen(log_path, "w");
	if (!w.log) {
		fprintf(stderr, "hitchbench-intfwatch: cannot create '%s': %s\n", log_path, strerror(errno));
		return HB_EXIT_FAILURE;
	}
	helper_signals_install();
	w.t0 = mono_ns();
	fprintf(w.log, "# hitchbench interference 1\n# clock_pair %llu %llu\n",
		(unsigned long long)w.t0, (unsigned long long)real_ns());

	/* input: every device now, and what comes and goes */
	/* listening first, then the scan: a device plugged in between the two
	 * is seen twice, and dev_open() opens it once */
	w.udev = udev_new();
	w.mon_source = udev_source();
	if (w.udev && (w.mon = udev_monitor_new_from_netlink(w.udev, w.mon_source)) != NULL) {
		udev_monitor_filter_add_match_subsystem_devtype(w.mon, "input", NULL);
		if (udev_monitor_enable_receiving(w.mon) < 0) {
			udev_monitor_unref(w.mon);
			w.mon = NULL;
		}
	}
	devs_scan(&w);
	/* the VT in front */
	w.vt_fd = fsroot_open("sys/class/tty/tty0/active", O_RDONLY | O_CLOEXEC);
	if (w.vt_fd >= 0) {
		char buf[32];
		ssize_t n = pread(w.vt_fd, buf, sizeof(buf) - 1, 0);
		int now = 0;

		if (n > 0) {
			buf[n] = '\0';
			vt_parse(buf, &now);
		}
		vt_watch_init(&w.vt, now, w.x_vt);
	}
	/* logins */
	sessions_list(&w.sessions, &w.n_sessions);
	{
		char *dir = xasprintf("%s/%s", fsroot(), SESSIONS_DIR);

		w.sess_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (w.sess_fd >= 0 && inotify_add_watch(w.sess_fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
			close(w.sess_fd);
			w.sess_fd = -1;
		}
		free(dir);
	}
	/* the kernel log, from now on */
	w.kmsg_fd = fsroot_open("dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w.kmsg_fd >= 0)
		lseek(w.kmsg_fd, 0, SEEK_END);
	/* processes */
	memset(&cfg, 0, sizeof(cfg));
	cfg.source = scan ? PROCWATCH_SCAN : PROCWATCH_AUTO;
	cfg.run_roots = roots;
	cfg.n_run_roots = n_roots;
	cfg.run_id = run_id;
	cfg.harness = harness;
	cfg.n_harness = n_harness;
	cfg.fn = on_process;
	cfg.ctx = &w;
	r = procwatch_start(&w.pw, &cfg);
	fprintf(w.log, "# sources input=%u device(s)%s vt=%s logins=%s kmsg=%s processes=%s%s%s%s\n",
		w.watched_devices, !w.mon ? " (no device monitor: devices added later unseen)" :
		strcmp(w.mon_source, "udev") == 0 ? " (udev monitor)" :
		" (kernel uevents: no udev daemon)",
		w.vt_fd >= 0 ? "sys/class/tty/tty0/active" : "none", w.sess_fd >= 0 ? SESSIONS_DIR : "none",
		w.kmsg_fd >= 0 ? "yes" : "no", r == 0 ? procwatch_source_name(procwatch_source(w.pw)) : "none",
		r == 0 ? " — " : " (", r == 0 ? procwatch_why(w.pw) : strerror(-r), r == 0 ? "" : ")");
	fflush(w.log);
	helper_ready(ready);
	start_cpu = (double)self_cpu_ns() / 1e9;
	watch_t0 = mono_ns();
	if (duration_s)
		end = w.t0 + (uint64_t)duration_s * NSEC_PER_SEC;

	while (!helper_stop_sig && (!end || mono_ns() < end)) {
		struct pollfd pf[MAX_DEVS + 5];
		size_t np = 0, dev_at = 0;
		int timeout = IDLE_MS, pt;
		pid_t root = helper_take_pid();

		if (root > 0 && w.pw)
			procwatch_add_run_root(w.pw, root);
		for (size_t i = 0; i < w.n_devs; i++)
			if (w.devs[i].fd >= 0)
				pf[np++] = (struct pollfd){ w.devs[i].fd, POLLIN, 0 };
		dev_at = np;
		pf[np++] = (struct pollfd){ w.mon ? udev_monitor_get_fd(w.mon) : -1, POLLIN, 0 };
		pf[np++] = (struct pollfd){ w.vt_fd, POLLPRI | POLLERR, 0 };
		pf[np++] = (struct pollfd){ w.sess_fd, POLLIN, 0 };
		pf[np++] = (struct pollfd){ w.kmsg_fd, POLLIN, 0 };
		pf[np++] = (struct pollfd){ w.pw ? procwatch_fd(w.pw) : -1, POLLIN, 0 };
		/* a motion burst ends by time passing: look again soon while one is open */
		for (size_t i = 0; i < w.n_devs; i++)
			if (w.devs[i].fd >= 0 && w.devs[i].st.burst_open)
				timeout = TICK_MS;
		if (end && (int64_t)(end - mono_ns()) / 1000000 < timeout)
			timeout = end > mono_ns() ? (int)((end - mono_ns()) / 1000000) + 1 : 0;
		pt = w.pw ? procwatch_timeout_ms(w.pw) : -1;
		if (pt >= 0 && pt < timeout)
			timeout = pt;
		if (poll(pf, np, timeout) < 0 && errno != EINTR)
			break;
		for (size_t i = 0, k = 0; i < w.n_devs && k < dev_at; i++) {
			if (w.devs[i].fd < 0)
				continue;
			if (pf[k++].revents)
				dev_read(&w, &w.devs[i]);
		}
		if (pf[dev_at].revents)
			udev_read(&w);
		/* sysfs signals a VT switch as POLLPRI; the file is read again at
		 * every wakeup anyway (a pread), for a kernel or a fixture tree
		 * whose file never signals */
		if (w.vt_fd >= 0)
			vt_read(&w);
		if (pf[dev_at + 2].revents)
			sessions_read(&w);
		if (pf[dev_at + 3].revents)
			kmsg_read(&w);
		if (w.pw)
			procwatch_dispatch(w.pw);
		/* a motion burst ends by time passing, not by an event */
		for (size_t i = 0; i < w.n_devs; i++) {
			struct input_verdict iv[INPUT_VERDICTS_MAX];
			size_t n;

			if (w.devs[i].fd < 0)
				continue;
			input_rules_tick(&w.devs[i].st, mono_ns() / 1000, iv, &n);
			verdicts(&w, &w.devs[i], iv, n);
		}
	}

	/* the end: what is still open, the busy sessions, the summary, the cost */
	for (size_t i = 0; i < w.n_devs; i++) {
		struct input_verdict iv[INPUT_VERDICTS_MAX];
		size_t n;

		if (w.devs[i].fd < 0)
			continue;
		input_rules_end(&w.devs[i].st, mono_ns() / 1000, iv, &n);
		verdicts(&w, &w.devs[i], iv, n);
		dev_close(&w.devs[i]);
	}
	if (w.pw) {
		procwatch_finish(w.pw);
		procwatch_free(w.pw);
	}
	summary(&w, &sum);
	getrusage(RUSAGE_SELF, &ru); /* for maxrss; the CPU time is self_cpu_ns() */
	cpu = (double)self_cpu_ns() / 1e9;
	wall = since(&w, mono_ns());
	watch_wall = (double)(mono_ns() - watch_t0) / 1e9;
	r = str_startswith(sum.buf, "none") ? 0 : HB_EXIT_REGRESSION;
	fprintf(w.log, "# summary interfered=%d: %s\n", r ? 1 : 0, sum.buf);
	fprintf(w.log, "# self cpu=%.3f s (%.3f ms a second over %.1f s; the start %.1f ms, then "
		"%.3f ms a second while watching), maxrss=%.1f MiB\n", cpu,
		wall > 0 ? cpu * 1000 / wall : 0, wall, start_cpu * 1000,
		watch_wall > 0 ? (cpu - start_cpu) * 1000 / watch_wall : 0, (double)ru.ru_maxrss / 1024);
	fprintf(stderr, "interference: %s\n", sum.buf);
	fclose(w.log);
	if (w.mon)
		udev_monitor_unref(w.mon);
	if (w.udev)
		udev_unref(w.udev);
	free(w.sessions);
	strbuf_release(&sum);
	return r;
}
