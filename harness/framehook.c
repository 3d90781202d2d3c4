/*
 * The frame hook: preloaded into a game (LD_PRELOAD), it timestamps every
 * present and appends it to the frame file the runner created (frames.h).
 * It is the one part of hitchbench that runs inside the measured program,
 * so it must cost little, never crash or block the game, and say nothing
 * per frame.
 *
 * Games reach a present in three ways, and each is covered:
 *  - a direct call resolved by the dynamic linker (the game links libGL or
 *    SDL): our exported function of the same name comes first, because a
 *    preloaded object precedes every other in the global scope;
 *  - dlsym(): SDL dlopen()s libGL and resolves glXSwapBuffers with dlsym(),
 *    so dlsym is interposed and hands out our wrapper for a present name;
 *  - glXGetProcAddress/eglGetProcAddress: interposed the same way.
 * Where a wrapper was handed out for a real function, that function is
 * remembered as the name's target; a wrapper reached directly resolves its
 * target lazily with dlsym(RTLD_NEXT), the next definition after ours.
 *
 * A present often nests (SDL_GL_SwapWindow calls glXSwapBuffers): a
 * thread-local depth makes only the outermost call record, under its name.
 *
 * Per present: two vDSO clock reads (four on one present in HB_COST_EVERY,
 * to measure the hook's own cost), one atomic add to reserve a slot, one
 * 16-byte record written into a MAP_SHARED mapping of the file. No system
 * call, lock, allocation or message. The pages belong to the file, so a
 * game killed with SIGKILL loses no finished record.
 *
 * Without HITCHBENCH_FRAMES the hook still interposes (the game behaves the
 * same) but records nothing.
 *
 * The SLOWDOWN switch (bench/switch-slowdown.c) makes the hook a known
 * effect: with HITCHBENCH_SLOWDOWN_PCT or _US (read once, at load) each
 * recorded present, once stamped and before the real call, busy-waits on
 * the vDSO clock for PCT% of the frame that ended at it, less the spin
 * that frame already held, or for N us. Still no system call; the spin is
 * kept out of the hook's cost and of present_us, and summed in the header
 * (spin_ns, spin_presents) so that the run says what was injected.
 */
#include "frames.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HOOK_EXPORT __attribute__((visibility("default")))

/*
 * dlsym must reach the real dlsym by a tail call, so that the real one sees
 * the game's return address: dlsym(RTLD_NEXT, ...) and the namespace of
 * RTLD_DEFAULT depend on who called. clang is told with musttail; gcc does
 * sibling calls from -O1 with the attribute below (from -O2 without), not
 * at -O0. t0100-framehook.sh checks it (stub_rtld_next).
 */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(musttail)
#define HOOK_MUSTTAIL __attribute__((musttail))
#endif
#endif
#ifndef HOOK_MUSTTAIL
#define HOOK_MUSTTAIL
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define HOOK_TAIL_CALLER __attribute__((optimize("optimize-sibling-calls")))
#else
#define HOOK_TAIL_CALLER
#endif

typedef void (*hook_proc)(void);
typedef void *(*dlsym_fn)(void *, const char *);
typedef hook_proc (*getprocaddress_fn)(const unsigned char *);
/*
 * The SDL presents return void in SDL 1.2 and 2 but bool in SDL 3, and
 * eglSwapBuffers returns EGLBoolean: every present wrapper returns the int
 * register the real function left, which a void caller ignores and a bool
 * or EGLBoolean caller reads, so one wrapper serves every version.
 */
typedef int (*present_window_fn)(void *);
typedef int (*present_pair_fn)(void *, void *);
typedef int (*present_glx_fn)(void *, unsigned long);
typedef int (*present_none_fn)(void);

/* The interposers, with the real functions' calling conventions; the
 * opaque types stand for Display *, GLXDrawable, EGLDisplay, EGLSurface,
 * SDL_Window * and SDL_Renderer *. */
HOOK_EXPORT int glXSwapBuffers(void *dpy, unsigned long drawable);
HOOK_EXPORT int eglSwapBuffers(void *dpy, void *surface);
HOOK_EXPORT int SDL_GL_SwapWindow(void *window);
HOOK_EXPORT int SDL_RenderPresent(void *renderer);
HOOK_EXPORT int SDL_GL_SwapBuffers(void);
HOOK_EXPORT hook_proc glXGetProcAddress(const unsigned char *name);
HOOK_EXPORT hook_proc glXGetProcAddressARB(const unsigned char *name);
HOOK_EXPORT hook_proc eglGetProcAddress(const char *name);
HOOK_EXPORT void *dlsym(void *restrict handle, const char *restrict name);

/* Every function the hook stands in for: the presents first, indexed by
 * their enum hb_present_source, then the lookups. The lookups follow the
 * last source the hook itself records, not HB_SRC_MAX: the sources after
 * it (frames read from other tools' logs) have no function here, and a
 * gap of unnamed entries would be compared by name on every lookup. */
enum hooked {
	HOOKED_GLX_SWAP = HB_SRC_GLX_SWAP_BUFFERS,
	HOOKED_EGL_SWAP = HB_SRC_EGL_SWAP_BUFFERS,
	HOOKED_SDL_GL_SWAP_WINDOW = HB_SRC_SDL_GL_SWAP_WINDOW,
	HOOKED_SDL_RENDER_PRESENT = HB_SRC_SDL_RENDER_PRESENT,
	HOOKED_SDL_GL_SWAP_BUFFERS = HB_SRC_SDL_GL_SWAP_BUFFERS,
	HOOKED_GLX_GET_PROC_ADDRESS = HB_SRC_SDL_GL_SWAP_BUFFERS + 1,
	HOOKED_GLX_GET_PROC_ADDRESS_ARB,
	HOOKED_EGL_GET_PROC_ADDRESS,
	HOOKED_MAX
};

struct hooked_name {
	const char *name;
	void *wrapper;
};

static const struct hooked_name hooked_names[HOOKED_MAX] = {
	[HOOKED_GLX_SWAP] = { "glXSwapBuffers", (void *)glXSwapBuffers },
	[HOOKED_EGL_SWAP] = { "eglSwapBuffers", (void *)eglSwapBuffers },
	[HOOKED_SDL_GL_SWAP_WINDOW] = { "SDL_GL_SwapWindow", (void *)SDL_GL_SwapWindow },
	[HOOKED_SDL_RENDER_PRESENT] = { "SDL_RenderPresent", (void *)SDL_RenderPresent },
	[HOOKED_SDL_GL_SWAP_BUFFERS] = { "SDL_GL_SwapBuffers", (void *)SDL_GL_SwapBuffers },
	[HOOKED_GLX_GET_PROC_ADDRESS] = { "glXGetProcAddress", (void *)glXGetProcAddress },
	[HOOKED_GLX_GET_PROC_ADDRESS_ARB] = { "glXGetProcAddressARB", (void *)glXGetProcAddressARB },
	[HOOKED_EGL_GET_PROC_ADDRESS] = { "eglGetProcAddress", (void *)eglGetProcAddress },
};

/* The real function behind each name, once known (atomic: any thread may
 * look a name up while another presents). */
static void *real_targets[HOOKED_MAX];
static dlsym_fn real_dlsym_fn;

/* The mapped frame file; NULL when not recording. Written once by the
 * constructor, before the game's main() and its threads. */
static struct hb_frames_header *frames_header;
static struct hb_frame_record *frames_records;
static uint64_t frames_capacity;
static uint32_t cached_pid;

/* Presents of this thread in progress: only the outermost records. */
static __thread unsigned present_depth __attribute__((tls_model("initial-exec")));

/* The SLOWDOWN spin, set once by the constructor: a fraction of the frame
 * before each present, or a fixed time; both 0 when off. */
static double slow_fraction;
static uint64_t slow_fixed_ns;
/* This thread's previous recorded present and the spin it did (a frame is
 * the interval between one thread's presents: a game presents from one). */
static __thread uint64_t slow_last_ns __attribute__((tls_model("initial-exec")));
static __thread uint64_t slow_last_spin_ns __attribute__((tls_model("initial-exec")));

/*
 * The real dlsym, found by version because an unversioned lookup of
 * "dlsym" through dlsym would find ourselves. The versions are those glibc
 * has given dlsym: 2.34 (libdl merged into libc), then the original one of
 * x86_64, aarch64 and i386.
 */
static dlsym_fn real_dlsym(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0" };
	dlsym_fn fn = __atomic_load_n(&real_dlsym_fn, __ATOMIC_ACQUIRE);

	if (fn)
		return fn;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]) && !fn; i++)
		fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
	if (fn)
		__atomic_store_n(&real_dlsym_fn, fn, __ATOMIC_RELEASE);
	return fn;
}

/* The real function behind a wrapper reached without a lookup we saw (a
 * direct call): the next definition after this object. NULL if none. */
static __attribute__((noinline)) void *real_target_resolve(enum hooked which)
{
	dlsym_fn lookup = real_dlsym();
	void *fn;

	if (!lookup)
		return NULL;
	fn = lookup(RTLD_NEXT, hooked_names[which].name);
	if (fn == hooked_names[which].wrapper)
		return NULL;
	if (fn)
		__atomic_store_n(&real_targets[which], fn, __ATOMIC_RELEASE);
	return fn;
}

static inline void *real_target(enum hooked which)
{
	void *fn = __atomic_load_n(&real_targets[which], __ATOMIC_ACQUIRE);

	return fn ? fn : real_target_resolve(which);
}

/*
 * A lookup returned real for a name we hook: remember it as the name's
 * target and hand out our wrapper instead. A lookup that found our own
 * wrapper (RTLD_DEFAULT finds the preloaded object first) or nothing is
 * returned as it is.
 */
static void *stand_in(enum hooked which, void *real)
{
	if (!real || real == hooked_names[which].wrapper)
		return real;
	__atomic_store_n(&real_targets[which], real, __ATOMIC_RELEASE);
	return hooked_names[which].wrapper;
}

/* Which hooked function a looked-up name is, or HOOKED_MAX. Called for
 * every dlsym of the game, so the first letter rules most names out. */
static enum hooked hooked_lookup(const char *name)
{
	if (!name || (name[0] != 'g' && name[0] != 'e' && name[0] != 'S'))
		return HOOKED_MAX;
	for (int i = HB_SRC_UNKNOWN + 1; i < HOOKED_MAX; i++)
		if (hooked_names[i].name && strcmp(name, hooked_names[i].name) == 0)
			return (enum hooked)i;
	return HOOKED_MAX;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One present in progress, between present_begin() and present_end(). */
struct present {
	bool recording;         /* the outermost present, and a file is mapped */
	bool sampled;           /* measure the hook's own cost on this one */
	uint64_t slot;
	uint64_t t_entry;       /* the record's time */
	uint64_t t_call;        /* just before the real call (sampled only) */
	uint64_t t_return;      /* just after it */
	uint64_t spin_ns;       /* SLOWDOWN's busy-wait before the real call */
};

/*
 * SLOWDOWN: busy-waits on the clock (vDSO, no system call) before the
 * real call. A fraction spins for that fraction of the game's own time in
 * the frame that ended at this present: the interval since this thread's
 * previous present less the spin done at that one, so that each frame
 * grows by the fraction of the game's time (a spin of a fraction of the
 * whole interval would feed on itself: f/(1-f) in the end). Nothing at a
 * thread's first present.
 */
static inline void slow_spin(struct present *p)
{
	uint64_t want = slow_fixed_ns, start, t;

	p->spin_ns = 0;
	if (slow_fraction > 0) {
		uint64_t frame = 0;

		if (slow_last_ns && p->t_entry > slow_last_ns)
			frame = p->t_entry - slow_last_ns;
		frame = frame > slow_last_spin_ns ? frame - slow_last_spin_ns : 0;
		want = (uint64_t)((double)frame * slow_fraction);
		slow_last_ns = p->t_entry;
	}
	if (want == 0) {
		slow_last_spin_ns = 0;
		return;
	}
	start = now_ns();
	do
		t = now_ns();
	while (t - start < want);
	p->spin_ns = t - start;
	slow_last_spin_ns = p->spin_ns;
	__atomic_fetch_add(&frames_header->spin_ns, p->spin_ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&frames_header->spin_presents, 1, __ATOMIC_RELAXED);
}

static inline void present_begin(struct present *p, enum hooked which)
{
	struct hb_frame_record *rec;

	p->recording = false;
	if (present_depth++ > 0 || !frames_header)
		return;
	p->t_entry = now_ns();
	p->recording = true;
	p->slot = __atomic_fetch_add(&frames_header->count, 1, __ATOMIC_RELAXED);
	if (p->slot < frames_capacity) {
		/* The present is stamped before the real call, so a game killed
		 * inside it (a hung swap) still leaves this frame behind. t_ns
		 * last, released: a reader sees it only with pid and source. */
		rec = &frames_records[p->slot];
		rec->pid = cached_pid;
		rec->source = (uint16_t)which;
		__atomic_store_n(&rec->t_ns, p->t_entry, __ATOMIC_RELEASE);
	} else {
		__atomic_fetch_add(&frames_header->dropped, 1, __ATOMIC_RELAXED);
	}
	/* One present in HB_COST_EVERY is timed, at an offset that moves from
	 * block to block (37 is odd: every offset in turn), so the timed ones
	 * are not always the first of a page of the frame file, whose write
	 * faults the page in: an unbiased sample of the cost per present. */
	p->sampled = (p->slot % HB_COST_EVERY) == (p->slot / HB_COST_EVERY * 37 % HB_COST_EVERY);
	if (p->sampled)
		p->t_call = now_ns();
	if (slow_fraction > 0 || slow_fixed_ns)
		slow_spin(p);
	else
		p->spin_ns = 0;
}

static inline void present_end(struct present *p)
{
	uint64_t us;

	present_depth--;
	if (!p->recording)
		return;
	p->t_return = now_ns();
	if (p->slot < frames_capacity) {
		us = (p->t_return - p->t_entry - p->spin_ns) / 1000;
		frames_records[p->slot].present_us = us > UINT16_MAX ? UINT16_MAX : (uint16_t)us;
	}
	if (p->sampled) {
		/* the spin came after t_call: not the hook's cost */
		uint64_t cost = (p->t_call - p->t_entry) + (now_ns() - p->t_return);

		__atomic_fetch_add(&frames_header->cost_ns, cost, __ATOMIC_RELAXED);
		__atomic_fetch_add(&frames_header->cost_samples, 1, __ATOMIC_RELAXED);
	}
}

HOOK_EXPORT int glXSwapBuffers(void *dpy, unsigned long drawable)
{
	present_glx_fn real = (present_glx_fn)real_target(HOOKED_GLX_SWAP);
	struct present p;
	int r;

	if (!real)
		return 0;
	present_begin(&p, HOOKED_GLX_SWAP);
	r = real(dpy, drawable);
	present_end(&p);
	return r;
}

HOOK_EXPORT int eglSwapBuffers(void *dpy, void *surface)
{
	present_pair_fn real = (present_pair_fn)real_target(HOOKED_EGL_SWAP);
	struct present p;
	int r;

	if (!real)
		return 0; /* EGL_FALSE */
	present_begin(&p, HOOKED_EGL_SWAP);
	r = real(dpy, surface);
	present_end(&p);
	return r;
}

HOOK_EXPORT int SDL_GL_SwapWindow(void *window)
{
	present_window_fn real = (present_window_fn)real_target(HOOKED_SDL_GL_SWAP_WINDOW);
	struct present p;
	int r;

	if (!real)
		return 0;
	present_begin(&p, HOOKED_SDL_GL_SWAP_WINDOW);
	r = real(window);
	present_end(&p);
	return r;
}

HOOK_EXPORT int SDL_RenderPresent(void *renderer)
{
	present_window_fn real = (present_window_fn)real_target(HOOKED_SDL_RENDER_PRESENT);
	struct present p;
	int r;

	if (!real)
		return 0;
	present_begin(&p, HOOKED_SDL_RENDER_PRESENT);
	r = real(renderer);
	present_end(&p);
	return r;
}

HOOK_EXPORT int SDL_GL_SwapBuffers(void)
{
	present_none_fn real = (present_none_fn)real_target(HOOKED_SDL_GL_SWAP_BUFFERS);
	struct present p;
	int r;

	if (!real)
		return 0;
	present_begin(&p, HOOKED_SDL_GL_SWAP_BUFFERS);
	r = real();
	present_end(&p);
	return r;
}

/* The lookups: a present name gets our wrapper, anything else the answer
 * of the real function. */
static hook_proc get_proc_address(enum hooked self, const char *name)
{
	getprocaddress_fn real = (getprocaddress_fn)real_target(self);
	enum hooked which;
	hook_proc fn;

	if (!real)
		return NULL;
	fn = real((const unsigned char *)name);
	which = hooked_lookup(name);
	if (which == HOOKED_MAX)
		return fn;
	return (hook_proc)stand_in(which, (void *)fn);
}

HOOK_EXPORT hook_proc glXGetProcAddress(const unsigned char *name)
{
	return get_proc_address(HOOKED_GLX_GET_PROC_ADDRESS, (const char *)name);
}

HOOK_EXPORT hook_proc glXGetProcAddressARB(const unsigned char *name)
{
	return get_proc_address(HOOKED_GLX_GET_PROC_ADDRESS_ARB, (const char *)name);
}

HOOK_EXPORT hook_proc eglGetProcAddress(const char *name)
{
	return get_proc_address(HOOKED_EGL_GET_PROC_ADDRESS, name);
}

/*
 * dlsym(RTLD_DEFAULT) of a present name finds our wrapper (the preloaded
 * object comes first), and the wrapper's target would be found after this
 * object in the global scope. But a library opened RTLD_LOCAL also sees
 * its own dependencies, where its libGL may be: the name as the caller's
 * object and its dependencies define it, or NULL. Not for the main
 * program, whose scope is the global one.
 */
static void *caller_lookup(dlsym_fn real, const void *caller, const char *name)
{
	struct link_map *lm = NULL;
	Dl_info info;
	void *h, *fn;

	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_name || !lm->l_name[0])
		return NULL;
	h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	fn = real(h, name);
	dlclose(h);
	return fn;
}

/*
 * RTLD_NEXT asks for the definition after the caller's object: only the
 * real dlsym, reached by a tail call, knows the caller, so such lookups
 * (another interposer finding what it wraps) pass straight through, as do
 * names we do not hook.
 */
HOOK_EXPORT HOOK_TAIL_CALLER void *dlsym(void *restrict handle, const char *restrict name)
{
	dlsym_fn real = real_dlsym();
	enum hooked which;
	void *fn;

	if (!real)
		return NULL;
	if (handle == RTLD_NEXT || (which = hooked_lookup(name)) == HOOKED_MAX)
		HOOK_MUSTTAIL return real(handle, name);
	fn = real(handle, name);
	if (handle == RTLD_DEFAULT && fn == hooked_names[which].wrapper &&
	    !__atomic_load_n(&real_targets[which], __ATOMIC_ACQUIRE))
		stand_in(which, caller_lookup(real, __builtin_return_address(0), name));
	return stand_in(which, fn);
}

/* A forked child presents under its own pid. */
static void hook_atfork_child(void)
{
	cached_pid = (uint32_t)getpid();
}

/*
 * Maps the frame file the runner created. 0 or -errno; *why says what was
 * wrong with a file that opened. The header is checked against this
 * build's format, and the file's size against the capacity: a store past
 * the end of a shared mapping would kill the game with SIGBUS.
 */
static int frames_map(const char *path, const char **why)
{
	struct hb_frames_header h;
	struct stat st;
	uint64_t bytes;
	void *map;
	int fd, r = 0;

	*why = NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		*why = "shorter than the frame file header";
		r = -EINVAL;
		goto out;
	}
	if (memcmp(h.magic, HB_FRAMES_MAGIC, sizeof(h.magic)) != 0 || h.version != HB_FRAMES_VERSION ||
	    h.header_size != sizeof(h) || h.record_size != sizeof(struct hb_frame_record) ||
	    h.event_size != sizeof(struct hb_frame_event) ||
	    h.records_offset != sizeof(h) + (uint64_t)h.event_capacity * h.event_size ||
	    h.clock_id != CLOCK_MONOTONIC) {
		*why = "not a frame file of this hook's format version";
		r = -EINVAL;
		goto out;
	}
	if (h.capacity == 0 || h.capacity > (SIZE_MAX - h.records_offset) / sizeof(struct hb_frame_record)) {
		*why = "frame file capacity out of range";
		r = -EINVAL;
		goto out;
	}
	bytes = h.records_offset + h.capacity * sizeof(struct hb_frame_record);
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size < bytes) {
		*why = "frame file smaller than its capacity";
		r = -EINVAL;
		goto out;
	}
	map = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		goto out;
	}
	frames_header = map;
	frames_records = (struct hb_frame_record *)((char *)map + h.records_offset);
	frames_capacity = h.capacity;
out:
	close(fd);
	return r;
}

/*
 * The SLOWDOWN figure from the environment, once: PCT (0 to 100, decimals
 * allowed) or US (0 to HB_SLOWDOWN_US_MAX). A bad value is said and spins
 * nothing; the runner checked it before, so this is someone else's start.
 */
static void slow_init(void)
{
	const char *pct = getenv(HB_SLOWDOWN_PCT_ENV), *us = getenv(HB_SLOWDOWN_US_ENV);
	char *end;

	if (pct && *pct) {
		double v;

		errno = 0;
		v = strtod(pct, &end);
		if (errno || *end || !(v >= 0 && v <= 100))
			fprintf(stderr, "hitchbench-hook: %s='%s' is not 0 to 100: no slowdown\n",
				HB_SLOWDOWN_PCT_ENV, pct);
		else
			slow_fraction = v / 100.0;
	}
	if (us && *us) {
		unsigned long long v;

		errno = 0;
		v = strtoull(us, &end, 10);
		if (errno || *end || us[0] == '-' || v > HB_SLOWDOWN_US_MAX)
			fprintf(stderr, "hitchbench-hook: %s='%s' is not 0 to %u: no slowdown\n",
				HB_SLOWDOWN_US_ENV, us, HB_SLOWDOWN_US_MAX);
		else
			slow_fixed_ns = (uint64_t)v * 1000u;
	}
	if (slow_fraction > 0 && slow_fixed_ns) {
		fprintf(stderr, "hitchbench-hook: both %s and %s: no slowdown\n", HB_SLOWDOWN_PCT_ENV,
			HB_SLOWDOWN_US_ENV);
		slow_fraction = 0;
		slow_fixed_ns = 0;
	}
}

__attribute__((constructor)) static void hook_init(void)
{
	const char *path = getenv(HB_FRAMES_ENV);
	const char *why = NULL;
	int r;

	real_dlsym();
	if (!path || !*path)
		return;
	cached_pid = (uint32_t)getpid();
	r = pthread_atfork(NULL, NULL, hook_atfork_child);
	if (r == 0)
		r = frames_map(path, &why);
	else
		r = -r;
	if (r < 0) {
		fprintf(stderr, "hitchbench-hook: not recording frames: '%s': %s\n", path,
			why ? why : strerror(-r));
		return;
	}
	__atomic_fetch_add(&frames_header->hooked_procs, 1, __ATOMIC_RELAXED);
	slow_init();
}
