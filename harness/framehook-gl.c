/*
 * The frame hook's GL side: preloaded into a game (LD_PRELOAD), it stands
 * in for every GL, EGL and SDL present and has each stamped into the
 * frame file (framehook-record.c).
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
 * Loaded by the Vulkan loader alone (not preloaded), the object's scope is
 * its own: nothing calls these, and the game's GL is not stamped.
 */
#include "framehook.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

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

HOOK_EXPORT int glXSwapBuffers(void *dpy, unsigned long drawable)
{
	present_glx_fn real = (present_glx_fn)real_target(HOOKED_GLX_SWAP);
	struct present p;
	int r;

	if (!real)
		return 0;
	present_begin(&p, (uint16_t)HOOKED_GLX_SWAP);
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
	present_begin(&p, (uint16_t)HOOKED_EGL_SWAP);
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
	present_begin(&p, (uint16_t)HOOKED_SDL_GL_SWAP_WINDOW);
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
	present_begin(&p, (uint16_t)HOOKED_SDL_RENDER_PRESENT);
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
	present_begin(&p, (uint16_t)HOOKED_SDL_GL_SWAP_BUFFERS);
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

void hook_gl_init(void)
{
	real_dlsym();
}
