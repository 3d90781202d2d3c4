/*
 * A small double-buffered GLX window on $DISPLAY with its GL context
 * current: what the test programs that render through real GL (present
 * --glx, glgame; llvmpipe on Xvfb) draw and swap in.
 */
#ifndef HB_GLXWINDOW_H
#define HB_GLXWINDOW_H

#include <GL/glx.h>
#include <X11/Xlib.h>

struct glx_window {
	Display *dpy;
	XVisualInfo *vi;
	Window win;
	GLXContext ctx;
};

/* Opens a width x height window titled title, mapped, its context
 * current. 0, or -ENODEV when there is no display, GLX, visual or context
 * to run on, said on stderr after "prog: ". glx_window_close() releases
 * what was made, whether it succeeded or not. */
int glx_window_open(struct glx_window *w, const char *prog, const char *title, unsigned width,
		    unsigned height);
void glx_window_close(struct glx_window *w);

#endif
