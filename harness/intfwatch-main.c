/*
 * hitchbench-intfwatch: the interference watcher. Beside a run it watches
 * for anyone else using the machine: real input on every input device
 * (common/input/inputrules.c decides what counts), input devices coming and
 * going, VT switches, new logins, new processes outside the run and busy
 * processes of other sessions (common/procwatch/procwatch.c), USB lines in the
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
#include "base/message.h"
#include "intfwatch-internal.h"
#include "base/exitcodes.h"
#include "system/helperproc.h"
#include "system/sandbox.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define TICK_MS 250     /* while a mouse motion burst is open */
/* Otherwise the loop sleeps in poll() until something happens, but at
 * most this long: a stop signal that lands just before poll() is seen
 * within it, and so is a pass's pid. */
#define IDLE_MS 1000
/* the poll set: the open devices, then one slot per other source */
enum { SLOT_UDEV, SLOT_VT, SLOT_LOGINS, SLOT_KMSG, SLOT_PROCESSES, N_SLOTS };

double since(const struct watcher *w, uint64_t t_ns)
{
	return t_ns > w->t0 ? (double)(t_ns - w->t0) / 1e9 : 0;
}

void logf_line(struct watcher *w, char mark, double t, const char *fmt, ...)
{
	va_list ap;

	fprintf(w->log, "%c %9.3f ", mark, t);
	va_start(ap, fmt);
	vfprintf(w->log, fmt, ap);
	va_end(ap);
	fputc('\n', w->log);
	fflush(w->log);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-intfwatch --log FILE [--run-root PID]... [--run-id ID] [--relay-id ID]\n"
		"                            [--harness PID]... [--x-vt N] [--ready FILE] [--duration S]\n"
		"                            [--scan]\n"
		"\n"
		"  --log FILE      the watcher's log (interference.log)\n"
		"  --run-root PID  a process of the run (repeatable; later ones by sigqueue SIGUSR1)\n"
		"  --run-id ID     processes with HITCHBENCH_RUN=ID in their environment are the run's\n"
		"  --relay-id ID   and those with HITCHBENCH_RELAY=ID (the game a relay run takes turns with)\n"
		"  --harness PID   a process of the harness (exempt; repeatable)\n"
		"  --x-vt N        the VT the run's X server takes (its switch there is not counted)\n"
		"  --ready FILE    create FILE once watching\n"
		"  --duration S    stop after S seconds (default: at SIGTERM or SIGINT)\n"
		"  --scan          find new processes by scanning /proc, not the proc connector\n"
		"\n"
		"Exit 0 clean, 3 when something counted (the summary says what), 1 on failure.\n");
}

/* What main is told beyond the watcher's own fields. */
struct args {
	pid_t roots[MAX_ROOTS], harness[MAX_ROOTS];
	size_t n_roots, n_harness;
	const char *log_path, *ready, *run_id, *relay_id;
	int duration_s;
	bool scan;
};

/* A number option (--run-root, --harness, --x-vt, --duration) into a or
 * w; HB_EXIT_OK, or HB_EXIT_USAGE (said why). Roots and harness PIDs beyond MAX_ROOTS are
 * dropped. */
static int parse_number(int opt, const char *arg, struct args *a, struct watcher *w)
{
	int v;

	if (safe_atoi(arg, &v) < 0 || v < (opt == 'x' ? 0 : 1)) {
		error_msg("--%s wants a number, not '%s'",
			opt == 'r' ? "run-root" : opt == 'H' ? "harness" : opt == 'x' ? "x-vt" :
			"duration", arg);
		return HB_EXIT_USAGE;
	}
	if (opt == 'r' && a->n_roots < MAX_ROOTS)
		a->roots[a->n_roots++] = v;
	else if (opt == 'H' && a->n_harness < MAX_ROOTS)
		a->harness[a->n_harness++] = v;
	else if (opt == 'x')
		w->x_vt = v;
	else if (opt == 'd')
		a->duration_s = v;
	return 0;
}

/* The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_args(int argc, char **argv, struct args *a, struct watcher *w)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' }, { "run-root", required_argument, NULL, 'r' },
		{ "run-id", required_argument, NULL, 'i' }, { "harness", required_argument, NULL, 'H' },
		{ "relay-id", required_argument, NULL, 'y' },
		{ "x-vt", required_argument, NULL, 'x' }, { "ready", required_argument, NULL, 'R' },
		{ "duration", required_argument, NULL, 'd' }, { "scan", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': a->log_path = optarg; break;
		case 'i': a->run_id = optarg; break;
		case 'y': a->relay_id = optarg; break;
		case 'R': a->ready = optarg; break;
		case 's': a->scan = true; break;
		case 'r': case 'H': case 'x': case 'd':
			if (parse_number(opt, optarg, a, w) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return HB_ARGS_DONE;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (!a->log_path || optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* The log and its header; the stop signals from here on. 0 or -1 (said). */
static int open_log(struct watcher *w, const char *path)
{
	w->log = fopen(path, "w");
	if (!w->log) {
		error_msg("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	helper_signals_install();
	w->t0 = mono_ns();
	fprintf(w->log, "# hitchbench interference 1\n# clock_pair %llu %llu\n",
		(unsigned long long)w->t0, (unsigned long long)real_ns());
	return 0;
}

/* What is watched and what could not be; r: the process watch's start. */
static void sources_line(struct watcher *w, int r)
{
	fprintf(w->log, "# sources input=%u device(s)%s vt=%s logins=%s kmsg=%s processes=%s%s%s%s\n",
		w->watched_devices, !w->mon ? " (no device monitor: devices added later unseen)" :
		strcmp(w->mon_source, "udev") == 0 ? " (udev monitor)" :
		" (kernel uevents: no udev daemon)",
		w->vt_fd >= 0 ? "sys/class/tty/tty0/active" : "none", w->sess_fd >= 0 ? SESSIONS_DIR : "none",
		w->kmsg_fd >= 0 ? "yes" : "no", r == 0 ? procwatch_source_name(procwatch_source(w->pw)) : "none",
		r == 0 ? " — " : " (", r == 0 ? procwatch_why(w->pw) : strerror(-r), r == 0 ? "" : ")");
	fflush(w->log);
}

/* Every source in turn, each said in the sources line; one that cannot be
 * opened is watched without. */
static void start_sources(struct watcher *w, const struct args *a)
{
	int r;

	input_start(w);
	vt_start(w);
	logins_start(w);
	kmsg_start(w);
	r = processes_start(w, a->roots, a->n_roots, a->run_id, a->relay_id, a->harness, a->n_harness, a->scan);
	sources_line(w, r);
}

/* The poll set: the open devices, then the N_SLOTS other sources from
 * *dev_at (-1 for one not open, which poll() skips); how many in all. */
static size_t poll_set(const struct watcher *w, struct pollfd *pf, size_t *dev_at)
{
	size_t np = 0;

	for (size_t i = 0; i < w->n_devs; i++)
		if (w->devs[i].fd >= 0)
			pf[np++] = (struct pollfd){ w->devs[i].fd, POLLIN, 0 };
	*dev_at = np;
	pf[np + SLOT_UDEV] = (struct pollfd){ w->mon ? udev_monitor_get_fd(w->mon) : -1, POLLIN, 0 };
	pf[np + SLOT_VT] = (struct pollfd){ w->vt_fd, POLLPRI | POLLERR, 0 };
	pf[np + SLOT_LOGINS] = (struct pollfd){ w->sess_fd, POLLIN, 0 };
	pf[np + SLOT_KMSG] = (struct pollfd){ w->kmsg_fd, POLLIN, 0 };
	pf[np + SLOT_PROCESSES] = (struct pollfd){ w->pw ? procwatch_fd(w->pw) : -1, POLLIN, 0 };
	return np + N_SLOTS;
}

/* How long poll() may sleep: until --duration's end, and not past what
 * the process watch or an open motion burst waits for. */
static int poll_timeout(const struct watcher *w, uint64_t end)
{
	int timeout = IDLE_MS, pt;

	/* a motion burst ends by time passing: look again soon while one is open */
	if (devs_burst_open(w))
		timeout = TICK_MS;
	if (end && (int64_t)(end - mono_ns()) / 1000000 < timeout)
		timeout = end > mono_ns() ? (int)((end - mono_ns()) / 1000000) + 1 : 0;
	pt = w->pw ? procwatch_timeout_ms(w->pw) : -1;
	if (pt >= 0 && pt < timeout)
		timeout = pt;
	return timeout;
}

/* Every source poll() woke for, the VT and the process watch every time. */
static void dispatch(struct watcher *w, const struct pollfd *pf, size_t dev_at)
{
	const struct pollfd *slot = pf + dev_at;

	for (size_t i = 0, k = 0; i < w->n_devs && k < dev_at; i++) {
		if (w->devs[i].fd < 0)
			continue;
		if (pf[k++].revents)
			dev_read(w, &w->devs[i]);
	}
	if (slot[SLOT_UDEV].revents)
		udev_read(w);
	/* sysfs signals a VT switch as POLLPRI; the file is read again at
	 * every wakeup anyway (a pread), for a kernel or a fixture tree
	 * whose file never signals */
	if (w->vt_fd >= 0)
		vt_read(w);
	if (slot[SLOT_LOGINS].revents)
		sessions_read(w);
	if (slot[SLOT_KMSG].revents)
		kmsg_read(w);
	if (w->pw)
		procwatch_dispatch(w->pw);
	devs_tick(w);
}

/* Until a stop signal, or end (0: none); later run roots by SIGUSR1. */
static void watch_loop(struct watcher *w, uint64_t end)
{
	while (!helper_stop_sig && (!end || mono_ns() < end)) {
		struct pollfd pf[MAX_DEVS + N_SLOTS];
		size_t np, dev_at;
		pid_t root = helper_take_pid();

		if (root > 0 && w->pw)
			procwatch_add_run_root(w->pw, root);
		np = poll_set(w, pf, &dev_at);
		if (poll(pf, np, poll_timeout(w, end)) < 0 && errno != EINTR)
			break;
		dispatch(w, pf, dev_at);
	}
}

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

/* What the watch cost: its CPU time over the whole run, the start's, and
 * per second while watching. */
static void cost_line(const struct watcher *w, double cpu, double wall, double watch_wall,
		      long maxrss_kib)
{
	fprintf(w->log, "# self cpu=%.3f s (%.3f ms a second over %.1f s; the start %.1f ms, then "
		"%.3f ms a second while watching), maxrss=%.1f MiB\n", cpu,
		wall > 0 ? cpu * 1000 / wall : 0, wall, w->start_cpu * 1000,
		watch_wall > 0 ? (cpu - w->start_cpu) * 1000 / watch_wall : 0, (double)maxrss_kib / 1024);
}

/* The end: what is still open, the busy sessions, the summary, the cost.
 * 0 clean, HB_EXIT_REGRESSION when something counted. */
static int finish(struct watcher *w)
{
	struct strbuf sum = STRBUF_INIT;
	struct rusage ru;
	double cpu, wall, watch_wall;
	int r;

	devs_end(w);
	processes_end(w);
	summary(w, &sum);
	getrusage(RUSAGE_SELF, &ru); /* for maxrss; the CPU time is self_cpu_ns() */
	cpu = (double)self_cpu_ns() / 1e9;
	wall = since(w, mono_ns());
	watch_wall = (double)(mono_ns() - w->watch_t0) / 1e9;
	r = str_startswith(sum.buf, "none") ? 0 : HB_EXIT_REGRESSION;
	fprintf(w->log, "# summary interfered=%d: %s\n", r ? 1 : 0, sum.buf);
	cost_line(w, cpu, wall, watch_wall, ru.ru_maxrss);
	fprintf(stderr, "interference: %s\n", sum.buf);
	fclose(w->log);
	input_stop(w);
	free(w->sessions);
	strbuf_release(&sum);
	return r;
}

/* After its setup (docs/man/hitchbench-intfwatch.1, PRIVILEGES): the
 * proc connector, the kernel log and the input devices present are
 * open; its loop opens the devices that come (root's nodes: its uid
 * does) and reads each new process's environment for the run's and the
 * harness's markers: mode 0400, the process's owner's (CAP_DAC_READ_SEARCH
 * for the game user's) and behind ptrace's check (CAP_SYS_PTRACE for root's
 * processes, which hold more capabilities than it keeps). Measured: with
 * neither, every marked process counts as interference; CAP_PERFMON does
 * not do for CAP_SYS_PTRACE here. */
static const int narrowed_to[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH };

int main(int argc, char **argv)
{
	static struct watcher w;
	static struct args a;
	int r;

	msg_program("hitchbench-intfwatch");

	w.vt_fd = w.sess_fd = w.kmsg_fd = -1;
	r = parse_args(argc, argv, &a, &w);
	if (r != 0)
		return hb_args_exit(r);
	if (open_log(&w, a.log_path) < 0)
		return HB_EXIT_FAILURE;
	start_sources(&w, &a);
	helper_ready(a.ready);
	if (sandbox_narrow(narrowed_to, ARRAY_SIZE(narrowed_to), NULL, msg_lines) < 0)
		return HB_EXIT_FAILURE;
	w.start_cpu = (double)self_cpu_ns() / 1e9;
	w.watch_t0 = mono_ns();
	watch_loop(&w, a.duration_s ? w.t0 + (uint64_t)a.duration_s * NSEC_PER_SEC : 0);
	return finish(&w);
}
