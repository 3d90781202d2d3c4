/*
 * The xtest driver: the XTEST extension on the run's X display (Xvfb, or
 * the display the run was given). Keys are keysyms, turned into the
 * keycodes of the server's own keymap; events are flushed one by one so
 * each reaches the game when its step says.
 */
#include "input-internal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <X11/XKBlib.h>
#include <X11/keysym.h>
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>

int xtest_open(struct input_sink *s, const char *display, struct strbuf *err)
{
	int ev, er, major, minor;
	Display *dpy = XOpenDisplay(display);

	if (!dpy) {
		strbuf_addf(err, "cannot open X display '%s'", display ? display : "(DISPLAY)");
		return -ECONNREFUSED;
	}
	if (!XTestQueryExtension(dpy, &ev, &er, &major, &minor)) {
		strbuf_addf(err, "X display '%s' has no XTEST extension", DisplayString(dpy));
		XCloseDisplay(dpy);
		return -ENOTSUP;
	}
	s->x_display = dpy;
	return 0;
}

static KeyCode keycode_of(Display *dpy, unsigned keysym, struct strbuf *err)
{
	KeyCode kc = XKeysymToKeycode(dpy, (KeySym)keysym);

	if (!kc)
		strbuf_addf(err, "the X server's keymap has no key for keysym '%s'",
			    XKeysymToString((KeySym)keysym) ? XKeysymToString((KeySym)keysym) : "?");
	return kc;
}

int xtest_key(struct input_sink *s, unsigned keysym, bool down, struct strbuf *err)
{
	Display *dpy = s->x_display;
	KeyCode kc = keycode_of(dpy, keysym, err);

	if (!kc)
		return -ENOENT;
	XTestFakeKeyEvent(dpy, kc, down, CurrentTime);
	XFlush(dpy);
	return 0;
}

int xtest_type_char(struct input_sink *s, char c, unsigned hold_ms, struct strbuf *err)
{
	Display *dpy = s->x_display;
	KeySym ks = (KeySym)(unsigned char)c;
	KeyCode kc = keycode_of(dpy, (unsigned)ks, err);
	KeyCode shift = XKeysymToKeycode(dpy, XK_Shift_L);
	bool need_shift;

	if (!kc)
		return -ENOENT;
	/* the keysym on the key's second level wants Shift held */
	need_shift = XkbKeycodeToKeysym(dpy, kc, 0, 0) != ks && XkbKeycodeToKeysym(dpy, kc, 0, 1) == ks;
	if (need_shift && !shift) {
		strbuf_addf(err, "the X server's keymap has no Shift key to type '%c'", c);
		return -ENOENT;
	}
	if (need_shift)
		XTestFakeKeyEvent(dpy, shift, True, CurrentTime);
	XTestFakeKeyEvent(dpy, kc, True, CurrentTime);
	XFlush(dpy);
	sleep_ms(hold_ms);
	XTestFakeKeyEvent(dpy, kc, False, CurrentTime);
	if (need_shift)
		XTestFakeKeyEvent(dpy, shift, False, CurrentTime);
	XFlush(dpy);
	return 0;
}

int xtest_move(struct input_sink *s, int x, int y, struct strbuf *err)
{
	Display *dpy = s->x_display;

	XTestFakeMotionEvent(dpy, DefaultScreen(dpy), x, y, CurrentTime);
	XFlush(dpy);
	return 0;
}

int xtest_button(struct input_sink *s, int button, bool down, struct strbuf *err)
{
	Display *dpy = s->x_display;

	XTestFakeButtonEvent(dpy, (unsigned)button, down, CurrentTime);
	XFlush(dpy);
	return 0;
}

void xtest_close(struct input_sink *s)
{
	if (s->x_display) {
		XSync(s->x_display, False);
		XCloseDisplay(s->x_display);
	}
	s->x_display = NULL;
}
