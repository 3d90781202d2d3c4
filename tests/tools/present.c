/*
 * present: presents as fast as it can and prints the time per present, so
 * bench-self.sh can time the same loop with and without the frame hook.
 *
 *   present [--stub|--glx] [--frames N] [--warmup N] [--size WxH]
 *
 * --stub (the default) dlopen()s the stub present library and calls its
 * SDL_GL_SwapWindow through a dlsym() pointer, as a game using SDL would:
 * the hook's cost with nothing else in the way. --glx opens a small GLX
 * window on $DISPLAY and clears and swaps it (glXSwapBuffers, swap
 * interval 0 where the driver allows): the cost beside a real present.
 *
 * Prints one line on stdout:
 *   ns_per_frame=F frames=N warmup=W presents=P [stub_glx_swaps=S stub_rtld_next=R]
 * ns_per_frame is the time of the N timed presents divided by N; the W
 * warm-up presents before them are not timed (P = W + N presents in all,
 * what a hook must record). stub_glx_swaps counts the stub's nested
 * glXSwapBuffers calls, the proof that each present nested once;
 * stub_rtld_next is "self" if dlsym(RTLD_NEXT) from the stub finds the
 * stub's own functions (a broken preloaded dlsym), "ok" otherwise.
 *
 * The stub is $HB_STUB, or libhbstub.so beside this program.
 */
#include "base/exitcodes.h"
#include "glxwindow.h"
#include "stubpath.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum present_mode { MODE_STUB, MODE_GLX };

struct present_opts {
	enum present_mode mode;
	uint64_t frames;
	uint64_t warmup;
	unsigned width, height;
};

/* What a run measured. */
struct present_result {
	uint64_t ns;                  /* the timed presents, in all */
	long long stub_glx_swaps;     /* -1: not the stub */
	int stub_rtld_next_is_self;
};

static int parse_size(const char *s, unsigned *w, unsigned *h)
{
	uint64_t a, b;
	char buf[64], *x;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	x = strchr(buf, 'x');
	if (!x)
		return -EINVAL;
	*x = '\0';
	if (safe_atou64(buf, &a) < 0 || safe_atou64(x + 1, &b) < 0 ||
	    a == 0 || b == 0 || a > 16384 || b > 16384)
		return -EINVAL;
	*w = (unsigned)a;
	*h = (unsigned)b;
	return 0;
}

static int run_stub(const struct present_opts *o, struct present_result *res)
{
	void (*swap_window)(void *);
	unsigned long (*glx_swaps)(void);
	int (*rtld_next_is_self)(void);
	char path[PATH_MAX];
	uint64_t t0;
	void *lib;
	int r;

	r = stub_path(path, sizeof(path));
	if (r < 0) {
		fprintf(stderr, "present: cannot find the stub library: %s\n", strerror(-r));
		return -1;
	}
	/* Global, so the stub is in the list dlsym(RTLD_NEXT) walks and
	 * hbstub_rtld_next_is_self() can tell whose return address it saw. */
	lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "present: %s\n", dlerror());
		return -1;
	}
	swap_window = (void (*)(void *))dlsym(lib, "SDL_GL_SwapWindow");
	glx_swaps = (unsigned long (*)(void))dlsym(lib, "hbstub_glx_swaps");
	rtld_next_is_self = (int (*)(void))dlsym(lib, "hbstub_rtld_next_is_self");
	if (!swap_window || !glx_swaps || !rtld_next_is_self) {
		fprintf(stderr, "present: '%s' is not the stub present library\n", path);
		return -1;
	}
	/* A name the hook looks at (its first letter is one of the presents')
	 * but does not hook, as SDL asks for glXQueryExtension: the hook
	 * compares it with every name it hooks, and once crashed on an
	 * unnamed entry. Not found, and no crash. */
	if (dlsym(lib, "glXQueryExtension") || dlsym(lib, "eglQueryString") || dlsym(lib, "SDL_Quit")) {
		fprintf(stderr, "present: the stub defines names it should not\n");
		return -1;
	}
	for (uint64_t i = 0; i < o->warmup; i++)
		swap_window(NULL);
	t0 = mono_ns();
	for (uint64_t i = 0; i < o->frames; i++)
		swap_window(NULL);
	res->ns = mono_ns() - t0;
	res->stub_glx_swaps = (long long)glx_swaps();
	res->stub_rtld_next_is_self = rtld_next_is_self();
	return 0;
}

/* Turns vsync off where the GLX driver offers a way; Xvfb has none anyway. */
static void glx_no_vsync(Display *dpy, Window win)
{
	const char *ext = glXQueryExtensionsString(dpy, DefaultScreen(dpy));

	if (!ext)
		return;
	if (strstr(ext, "GLX_MESA_swap_control")) {
		int (*interval)(unsigned) =
			(int (*)(unsigned))glXGetProcAddressARB((const GLubyte *)"glXSwapIntervalMESA");

		if (interval)
			interval(0);
	} else if (strstr(ext, "GLX_EXT_swap_control")) {
		void (*interval)(Display *, GLXDrawable, int) = (void (*)(Display *, GLXDrawable, int))
			glXGetProcAddressARB((const GLubyte *)"glXSwapIntervalEXT");

		if (interval)
			interval(dpy, win, 0);
	}
}

static void glx_frame(Display *dpy, Window win, uint64_t i)
{
	glClearColor((float)(i & 255) / 255.0f, 0.2f, 0.4f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glXSwapBuffers(dpy, win);
}

static int run_glx(const struct present_opts *o, struct present_result *res)
{
	struct glx_window w;
	uint64_t t0;
	int r = -1;

	if (glx_window_open(&w, "present", "hitchbench present", o->width, o->height) < 0)
		goto out;
	glx_no_vsync(w.dpy, w.win);
	for (uint64_t i = 0; i < o->warmup; i++)
		glx_frame(w.dpy, w.win, i);
	glFinish();
	t0 = mono_ns();
	for (uint64_t i = 0; i < o->frames; i++)
		glx_frame(w.dpy, w.win, i);
	glFinish();
	res->ns = mono_ns() - t0;
	res->stub_glx_swaps = -1;
	r = 0;
out:
	glx_window_close(&w);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: present [--stub|--glx] [--frames N] [--warmup N] [--size WxH]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "stub", no_argument, NULL, 's' },
		{ "glx", no_argument, NULL, 'g' },
		{ "frames", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct present_opts o = { MODE_STUB, 0, 0, 64, 64 };
	struct present_result res;
	bool frames_given = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.mode = MODE_STUB;
			break;
		case 'g':
			o.mode = MODE_GLX;
			break;
		case 'n':
			if (safe_atou64(optarg, &o.frames) < 0 || o.frames == 0) {
				fprintf(stderr, "present: --frames wants a positive number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			frames_given = true;
			break;
		case 'w':
			if (safe_atou64(optarg, &o.warmup) < 0) {
				fprintf(stderr, "present: --warmup wants a number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'S':
			if (parse_size(optarg, &o.width, &o.height) < 0) {
				fprintf(stderr, "present: --size wants WxH, not '%s'\n", optarg);
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
	if (!frames_given)
		o.frames = o.mode == MODE_STUB ? 1000000 : 1000;

	r = o.mode == MODE_STUB ? run_stub(&o, &res) : run_glx(&o, &res);
	if (r < 0)
		return HB_EXIT_FAILURE;
	printf("ns_per_frame=%.1f frames=%" PRIu64 " warmup=%" PRIu64 " presents=%" PRIu64,
	       (double)res.ns / (double)o.frames, o.frames, o.warmup, o.frames + o.warmup);
	if (res.stub_glx_swaps >= 0)
		printf(" stub_glx_swaps=%lld stub_rtld_next=%s", res.stub_glx_swaps,
		       res.stub_rtld_next_is_self ? "self" : "ok");
	printf("\n");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "present: cannot write the result: %s\n", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}
