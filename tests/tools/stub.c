/*
 * A stub "present library" for measuring the frame hook alone and for the
 * tests: it exports the present functions a game calls, and they do
 * nothing but count. SDL_GL_SwapWindow calls glXSwapBuffers through a
 * pointer it got from dlsym() on a dlopen() handle, as SDL's X11 backend
 * does with libGL, so a hooked present nests the way it does in a real
 * SDL game and goes through the hook's dlsym.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr; this file is built without the project's CPPFLAGS */
#endif
#include <dlfcn.h>
#include <stddef.h>

void glXSwapBuffers(void *dpy, unsigned long drawable);
void SDL_GL_SwapWindow(void *window);
void SDL_RenderPresent(void *renderer);
unsigned long hbstub_glx_swaps(void);
int hbstub_rtld_next_is_self(void);

typedef void (*glx_swap_fn)(void *, unsigned long);

static unsigned long glx_swaps;
static glx_swap_fn sdl_glx_swap;

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	__atomic_fetch_add(&glx_swaps, 1, __ATOMIC_RELAXED);
}

/* How many times glXSwapBuffers ran, by any path: a test's proof that the
 * nested present happened. */
unsigned long hbstub_glx_swaps(void)
{
	return __atomic_load_n(&glx_swaps, __ATOMIC_RELAXED);
}

/*
 * SDL's GL loading, cut down: a handle on the library that holds the GL
 * functions (here, this one, found from a file-local address because any
 * exported one may be a preloaded hook's), then dlsym on that handle.
 */
static glx_swap_fn load_glx_swap(void)
{
	glx_swap_fn fn = NULL;
	Dl_info info;
	void *self;

	if (!dladdr((void *)load_glx_swap, &info) || !info.dli_fname)
		return NULL;
	self = dlopen(info.dli_fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!self)
		return NULL;
	fn = (glx_swap_fn)dlsym(self, "glXSwapBuffers");
	dlclose(self);
	return fn;
}

/*
 * Whether dlsym(RTLD_NEXT, ...) from here wrongly finds this library's own
 * definition: it must search only the objects after this one. A preloaded
 * dlsym that forwards the lookup without the caller's return address
 * would search after itself, and an interposer loaded after it would
 * find and call itself. 1 wrong, 0 right.
 */
int hbstub_rtld_next_is_self(void)
{
	void *fn = dlsym(RTLD_NEXT, "SDL_RenderPresent");
	Dl_info self, found;

	if (!fn)
		return 0;
	if (!dladdr((void *)load_glx_swap, &self) || !dladdr(fn, &found))
		return 0;
	return self.dli_fbase == found.dli_fbase;
}

void SDL_GL_SwapWindow(void *window)
{
	glx_swap_fn fn = __atomic_load_n(&sdl_glx_swap, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = load_glx_swap();
		if (!fn)
			return;
		__atomic_store_n(&sdl_glx_swap, fn, __ATOMIC_RELEASE);
	}
	fn(window, 1);
}

void SDL_RenderPresent(void *renderer)
{
}
