/*
 * fakegame: a stand-in game for the runner's tests. It presents through
 * the stub present library (SDL_GL_SwapWindow from dlsym, like an SDL
 * game, so the frame hook sees it), and misbehaves on cue.
 *
 *   fakegame [--fps N] [--busy-us N] [--seconds S] [--stall-at SEC:MS[:HOW]]... [--print-at SEC:TEXT]...
 *            [--tamper-at SEC:WHAT]... [--exit-code C] [--ignore-term] [--fork-child] [--fault-file F]
 *            [--cgroup DIR]
 *
 * --fps N            presents per second (default 60), on absolute deadlines
 * --busy-us N        a frame's work: N us busy on the CPU (the clock read in a
 *                    loop) before each present; with a period shorter than the
 *                    work the game is CPU-bound and never sleeps (the SLOWDOWN
 *                    switch's test: a spin in the present lengthens such a frame,
 *                    a paced frame hides it in its sleep)
 * --seconds S        exit after S seconds (decimals allowed); 0, the default: never
 * --stall-at SEC:MS[:HOW]  at SEC seconds, stall MS ms before the next present (one
 *                    long frame): HOW is sleep (the default), busy, futex, fault, runq,
 *                    reclaim or swapin (stallways.h)
 * --fault-file F     the file the fault stall reads (large, on a disk)
 * --cgroup DIR       the memory cgroup the reclaim stall joins (its limit set by the caller)
 * --reclaim-mb N     the memory reclaim touches (default 1024)
 * --touch-mb N       N MiB allocated and written before the first present and
 *                    kept to the end (a known resident set: the footprint's test)
 * --print-at SEC:TEXT print TEXT on stdout (flushed) at SEC seconds
 * --tamper-at SEC:WHAT a hostile game: at SEC seconds, attack its own frame file
 *                    ($HITCHBENCH_FRAMES), which root's runner and stall recorder
 *                    read live. WHAT is header (the header's capacity and count
 *                    rewritten huge: a reader that trusts them reads far past the
 *                    file) or truncate (the file cut to its first page, the
 *                    header's: a reader of the records past it would get SIGBUS;
 *                    the game presents no more, its own hook would store there)
 * --exit-code C      the exit status after --seconds (default 0)
 * --ignore-term      ignore SIGTERM, so only SIGKILL stops it
 * --fork-child       leave a child process sleeping forever (it also ignores
 *                    SIGTERM with --ignore-term)
 * --show-env NAME    print "env NAME=VALUE" (or "env NAME unset") at the start
 * --show-cpus        print "cpus N,N,..." (the CPUs it may run on) at the start
 * --x-input          open a window on $DISPLAY, take the keyboard focus, print
 *                    "x-input ready", then each key press ("key Return", the
 *                    keysym with the modifiers applied), button press
 *                    ("button 1") and pointer motion ("motion X Y") it gets,
 *                    read between frames (the input driver's tests)
 *
 * Events fire before the first present at or after their time. After a
 * stall the schedule restarts from the present instead of catching up, as
 * a game's frame loop does. The stub is $HB_STUB, or libhbstub.so beside
 * this program.
 */
#include "base/exitcodes.h"
#include "base/timeutil.h"
#include "base/util.h"
#include "formats/frames.h"
#include "stubpath.h"
#include "stallways.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#define FAKEGAME_MAX_EVENTS 64

enum tamper {
	TAMPER_NONE,
	TAMPER_HEADER,
	TAMPER_TRUNCATE,
};

/* A --stall-at, --print-at or --tamper-at, at_ns after the start. */
struct fake_event {
	uint64_t at_ns;
	uint64_t stall_ms;      /* stall: how long */
	enum stall_way way;     /* stall: how */
	const char *text;       /* print: what (NULL for a stall) */
	enum tamper tamper;     /* tamper: what (TAMPER_NONE for the others) */
	bool done;
};

struct fakegame_opts {
	double fps;
	uint64_t busy_ns;       /* work before each present */
	uint64_t run_ns;        /* 0: forever */
	int exit_code;
	bool ignore_term;
	bool fork_child;
	struct fake_event events[FAKEGAME_MAX_EVENTS];
	unsigned n_events;
	struct stall_env env;
	bool x_input;
	bool presents_stopped;  /* --tamper-at SEC:truncate happened */
	Display *dpy;
};

/* --x-input: a window that has the keyboard focus, on $DISPLAY. */
static int x_input_open(struct fakegame_opts *o)
{
	XSetWindowAttributes wa = { .event_mask = KeyPressMask | ButtonPressMask | PointerMotionMask |
						  StructureNotifyMask };
	Window w;
	XEvent ev;

	o->dpy = XOpenDisplay(NULL);
	if (!o->dpy) {
		fprintf(stderr, "fakegame: cannot open X display '%s'\n", getenv("DISPLAY") ? getenv("DISPLAY") : "");
		return -ECONNREFUSED;
	}
	w = XCreateWindow(o->dpy, DefaultRootWindow(o->dpy), 0, 0, 640, 480, 0, CopyFromParent,
			  InputOutput, CopyFromParent, CWEventMask, &wa);
	XMapWindow(o->dpy, w);
	do
		XNextEvent(o->dpy, &ev);
	while (ev.type != MapNotify);
	XSetInputFocus(o->dpy, w, RevertToParent, CurrentTime);
	XSync(o->dpy, False);
	printf("x-input ready\n");
	fflush(stdout);
	return 0;
}

/* What the window got since the last frame, a line each. */
static void x_input_poll(struct fakegame_opts *o)
{
	while (XPending(o->dpy)) {
		XEvent ev;
		KeySym ks = NoSymbol;
		char buf[16];
		const char *name;

		XNextEvent(o->dpy, &ev);
		if (ev.type == KeyPress) {
			XLookupString(&ev.xkey, buf, sizeof(buf), &ks, NULL);
			name = XKeysymToString(ks);
			printf("key %s\n", name ? name : "?");
		} else if (ev.type == ButtonPress) {
			printf("button %u\n", ev.xbutton.button);
		} else if (ev.type == MotionNotify) {
			printf("motion %d %d\n", ev.xmotion.x, ev.xmotion.y);
		}
		fflush(stdout);
	}
}

/* Seconds as a decimal number, whole string, not negative: 0 or -EINVAL. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	double v;

	if (safe_atod(s, &v) < 0 || v < 0 || v > 1e9)
		return -EINVAL;
	*ns = (uint64_t)(v * (double)NSEC_PER_SEC);
	return 0;
}

/* A whole decimal number up to max: 0 or -EINVAL. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (safe_atou64(s, &v) < 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* SEC:MS, SEC:TEXT or SEC:WHAT into an event. */
static int parse_event(struct fakegame_opts *o, char *arg, int kind)
{
	struct fake_event *ev;
	char *colon = strchr(arg, ':');

	if (!colon || o->n_events == FAKEGAME_MAX_EVENTS)
		return -EINVAL;
	*colon = '\0';
	ev = &o->events[o->n_events];
	memset(ev, 0, sizeof(*ev));
	if (parse_seconds(arg, &ev->at_ns) < 0)
		return -EINVAL;
	if (kind == 'p') {
		ev->text = colon + 1;
	} else if (kind == 'A') {
		if (strcmp(colon + 1, "header") == 0)
			ev->tamper = TAMPER_HEADER;
		else if (strcmp(colon + 1, "truncate") == 0)
			ev->tamper = TAMPER_TRUNCATE;
		else
			return -EINVAL;
	} else {
		char *how = strchr(colon + 1, ':');

		if (how) {
			*how++ = '\0';
			if (stall_way_parse(how, &ev->way) < 0)
				return -EINVAL;
		}
		if (parse_uint(colon + 1, 3600 * 1000, &ev->stall_ms) < 0)
			return -EINVAL;
	}
	o->n_events++;
	return 0;
}

/* --tamper-at: what a hostile game can do to the file its hook maps (it
 * owns it). Said on stdout, in game.log, for the test to see it happened. */
_Static_assert(offsetof(struct hb_frames_header, count) == offsetof(struct hb_frames_header, capacity) + 8,
	       "tamper() writes capacity and count in one pwrite");

static void tamper(struct fakegame_opts *o, enum tamper what)
{
	const char *path = getenv(HB_FRAMES_ENV);
	uint64_t big[2] = { UINT64_MAX / 2, UINT64_MAX / 4 }; /* capacity, then count */
	int fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;
	bool ok = fd >= 0;

	if (ok && what == TAMPER_HEADER)
		ok = pwrite(fd, big, sizeof(big), offsetof(struct hb_frames_header, capacity)) == (ssize_t)sizeof(big);
	if (ok && what == TAMPER_TRUNCATE) {
		ok = ftruncate(fd, 4096) == 0;
		o->presents_stopped = true;
	}
	printf("tampered %s: %s\n", what == TAMPER_HEADER ? "header" : "truncate",
	       ok ? "done" : strerror(errno));
	fflush(stdout);
	if (fd >= 0)
		close(fd);
}

/* Runs the events due by now; a stall sleeps here. True if one stalled. */
static bool fire_events(struct fakegame_opts *o, uint64_t elapsed)
{
	bool stalled = false;

	for (unsigned i = 0; i < o->n_events; i++) {
		struct fake_event *ev = &o->events[i];

		if (ev->done || ev->at_ns > elapsed)
			continue;
		ev->done = true;
		if (ev->tamper) {
			tamper(o, ev->tamper);
		} else if (ev->text) {
			printf("%s\n", ev->text);
			fflush(stdout);
		} else {
			if (stall_now(ev->way, ev->stall_ms, &o->env) < 0)
				exit(HB_EXIT_FAILURE);
			stalled = true;
		}
	}
	return stalled;
}

static int run(struct fakegame_opts *o, void (*swap_window)(void *))
{
	uint64_t period = (uint64_t)((double)NSEC_PER_SEC / o->fps);
	uint64_t start = mono_ns(), deadline = start, now;

	for (;;) {
		now = mono_ns();
		if (o->run_ns && now - start >= o->run_ns)
			break;
		if (fire_events(o, now - start))
			deadline = mono_ns();
		if (o->dpy)
			x_input_poll(o);
		if (o->busy_ns)
			for (uint64_t t0 = mono_ns(); mono_ns() - t0 < o->busy_ns;)
				;
		if (!o->presents_stopped)
			swap_window(NULL);
		deadline += period;
		now = mono_ns();
		if (deadline + period < now)
			deadline = now; /* fell behind: no burst of catch-up frames */
		sleep_until(deadline, NULL);
	}
	return o->exit_code;
}

static void show_cpus(void)
{
	cpu_set_t set;
	const char *sep = "";

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	printf("cpus ");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			printf("%s%d", sep, c);
			sep = ",";
		}
	printf("\n");
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fakegame [--fps N] [--busy-us N] [--seconds S] [--stall-at SEC:MS[:HOW]]... [--print-at SEC:TEXT]...\n"
		   "                [--tamper-at SEC:header|truncate]... [--exit-code C] [--ignore-term] [--fork-child] [--show-env NAME]\n"
		   "                [--show-cpus] [--x-input] [--fault-file F] [--cgroup DIR] [--reclaim-mb N]\n"
		   "                [--touch-mb N]\n"
		   "  HOW: sleep (default), busy, futex, fault, runq, reclaim, swapin\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fps", required_argument, NULL, 'f' },
		{ "busy-us", required_argument, NULL, 'b' },
		{ "seconds", required_argument, NULL, 's' },
		{ "stall-at", required_argument, NULL, 'S' },
		{ "print-at", required_argument, NULL, 'p' },
		{ "tamper-at", required_argument, NULL, 'A' },
		{ "exit-code", required_argument, NULL, 'e' },
		{ "ignore-term", no_argument, NULL, 'i' },
		{ "fork-child", no_argument, NULL, 'k' },
		{ "show-env", required_argument, NULL, 'E' },
		{ "show-cpus", no_argument, NULL, 'C' },
		{ "x-input", no_argument, NULL, 'X' },
		{ "fault-file", required_argument, NULL, 'F' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "reclaim-mb", required_argument, NULL, 'M' },
		{ "touch-mb", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct fakegame_opts o = { .fps = 60 };
	void (*swap_window)(void *);
	char path[PATH_MAX];
	uint64_t v, touch_mb = 0;
	void *lib, *touched = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_uint(optarg, 100000, &v) < 0 || v == 0) {
				fprintf(stderr, "fakegame: --fps wants 1 to 100000, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			o.fps = (double)v;
			break;
		case 'b':
			if (parse_uint(optarg, 10 * 1000 * 1000, &v) < 0) {
				fprintf(stderr, "fakegame: --busy-us wants 0 to 10000000, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			o.busy_ns = v * 1000;
			break;
		case 's':
			if (parse_seconds(optarg, &o.run_ns) < 0) {
				fprintf(stderr, "fakegame: --seconds wants a number of seconds, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'S':
		case 'p':
		case 'A':
			if (parse_event(&o, optarg, c) < 0) {
				fprintf(stderr, "fakegame: bad --%s '%s' (or more than %d events)\n",
					c == 'p' ? "print-at SEC:TEXT" : c == 'A' ? "tamper-at SEC:header|truncate" :
					"stall-at SEC:MS[:HOW]", optarg, FAKEGAME_MAX_EVENTS);
				return HB_EXIT_USAGE;
			}
			break;
		case 'e':
			if (parse_uint(optarg, 255, &v) < 0) {
				fprintf(stderr, "fakegame: --exit-code wants 0 to 255, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			o.exit_code = (int)v;
			break;
		case 'i':
			o.ignore_term = true;
			break;
		case 'k':
			o.fork_child = true;
			break;
		case 'E':
			if (getenv(optarg))
				printf("env %s=%s\n", optarg, getenv(optarg));
			else
				printf("env %s unset\n", optarg);
			fflush(stdout);
			break;
		case 'C':
			show_cpus();
			break;
		case 'X':
			o.x_input = true;
			break;
		case 'F':
			o.env.fault_file = optarg;
			break;
		case 'G':
			o.env.cgroup = optarg;
			break;
		case 'M':
			if (parse_uint(optarg, 1 << 20, &o.env.reclaim_mb) < 0) {
				fprintf(stderr, "fakegame: --reclaim-mb wants a number of MiB, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'T':
			if (parse_uint(optarg, 1 << 16, &touch_mb) < 0) {
				fprintf(stderr, "fakegame: --touch-mb wants a number of MiB, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}

	r = stub_path(path, sizeof(path));
	if (r < 0) {
		fprintf(stderr, "fakegame: cannot find the stub library: %s\n", strerror(-r));
		return HB_EXIT_FAILURE;
	}
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	swap_window = lib ? (void (*)(void *))dlsym(lib, "SDL_GL_SwapWindow") : NULL;
	if (!swap_window) {
		fprintf(stderr, "fakegame: cannot load SDL_GL_SwapWindow from '%s': %s\n", path, dlerror());
		return HB_EXIT_FAILURE;
	}
	if (o.x_input && x_input_open(&o) < 0)
		return HB_EXIT_FAILURE;
	if (touch_mb) {
		touched = malloc(touch_mb << 20);
		if (!touched) {
			fprintf(stderr, "fakegame: cannot allocate %llu MiB\n", (unsigned long long)touch_mb);
			return HB_EXIT_FAILURE;
		}
		memset(touched, 0x5a, touch_mb << 20);
	}
	if (o.ignore_term)
		signal(SIGTERM, SIG_IGN);
	if (o.fork_child) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "fakegame: fork: %s\n", strerror(errno));
			return HB_EXIT_FAILURE;
		}
		if (pid == 0) {
			for (;;)
				pause();
		}
	}
	r = run(&o, swap_window);
	free(touched);
	return r;
}
