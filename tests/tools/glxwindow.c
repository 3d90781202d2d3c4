/*
 * The GLX window of present --glx and glgame, one way to open it
 * (glxwindow.h).
 */
#include "glxwindow.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int glx_window_open(struct glx_window *w, const char *prog, const char *title, unsigned width,
		    unsigned height)
{
	int attrs[] = { GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 1, GLX_GREEN_SIZE, 1,
			GLX_BLUE_SIZE, 1, None };
	XSetWindowAttributes swa;
	int err_base, ev_base;
	XEvent ev;

	memset(w, 0, sizeof(*w));
	w->dpy = XOpenDisplay(NULL);
	if (!w->dpy) {
		fprintf(stderr, "%s: cannot open display '%s'\n", prog, XDisplayName(NULL));
		return -ENODEV;
	}
	if (!glXQueryExtension(w->dpy, &err_base, &ev_base)) {
		fprintf(stderr, "%s: display '%s' has no GLX\n", prog, XDisplayName(NULL));
		return -ENODEV;
	}
	w->vi = glXChooseVisual(w->dpy, DefaultScreen(w->dpy), attrs);
	if (!w->vi) {
		fprintf(stderr, "%s: no double-buffered RGBA GLX visual\n", prog);
		return -ENODEV;
	}
	memset(&swa, 0, sizeof(swa));
	swa.colormap = XCreateColormap(w->dpy, RootWindow(w->dpy, w->vi->screen), w->vi->visual, AllocNone);
	swa.event_mask = StructureNotifyMask;
	w->win = XCreateWindow(w->dpy, RootWindow(w->dpy, w->vi->screen), 0, 0, width, height, 0,
			       w->vi->depth, InputOutput, w->vi->visual, CWColormap | CWEventMask, &swa);
	XStoreName(w->dpy, w->win, title);
	XMapWindow(w->dpy, w->win);
	do
		XWindowEvent(w->dpy, w->win, StructureNotifyMask, &ev);
	while (ev.type != MapNotify);
	w->ctx = glXCreateContext(w->dpy, w->vi, NULL, True);
	if (!w->ctx || !glXMakeCurrent(w->dpy, w->win, w->ctx)) {
		fprintf(stderr, "%s: cannot make a GLX context current\n", prog);
		return -ENODEV;
	}
	return 0;
}

void glx_window_close(struct glx_window *w)
{
	if (!w->dpy)
		return;
	if (w->ctx) {
		glXMakeCurrent(w->dpy, None, NULL);
		glXDestroyContext(w->dpy, w->ctx);
	}
	if (w->win)
		XDestroyWindow(w->dpy, w->win);
	if (w->vi)
		XFree(w->vi);
	XCloseDisplay(w->dpy);
	memset(w, 0, sizeof(*w));
}
