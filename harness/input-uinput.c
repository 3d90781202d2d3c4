/*
 * The uinput driver: a virtual keyboard and mouse made with libevdev's
 * uinput API, for games that read /dev/input themselves. Its name says it
 * is the harness's ("hitchbench input RUN_ID"), and the helper logs its
 * syspath, so the interference watcher can tell it from a person's device.
 *
 * The making of a device and the writing of events are also what the
 * watcher's live tests use (tests/tools/uinputdev.c) to play a person's
 * keyboard, mouse or pad: one way to make uinput devices in the project.
 */
#include "input-internal.h"

#include <errno.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <stdlib.h>
#include <string.h>

static const unsigned buttons[] = { BTN_LEFT, BTN_MIDDLE, BTN_RIGHT };

void uinput_describe_keyboard(struct libevdev *dev)
{
	/* every key of a full keyboard, KEY_ESC up to KEY_MICMUTE */
	libevdev_enable_event_type(dev, EV_KEY);
	for (unsigned c = KEY_ESC; c <= KEY_MICMUTE; c++)
		libevdev_enable_event_code(dev, EV_KEY, c, NULL);
}

void uinput_describe_mouse(struct libevdev *dev)
{
	libevdev_enable_event_type(dev, EV_KEY);
	for (size_t i = 0; i < ARRAY_SIZE(buttons); i++)
		libevdev_enable_event_code(dev, EV_KEY, buttons[i], NULL);
	libevdev_enable_event_type(dev, EV_REL);
	libevdev_enable_event_code(dev, EV_REL, REL_X, NULL);
	libevdev_enable_event_code(dev, EV_REL, REL_Y, NULL);
}

int uinput_create(struct input_sink *s, struct libevdev *dev, struct strbuf *err)
{
	const char *sys;
	int r;

	libevdev_set_id_bustype(dev, BUS_VIRTUAL);
	r = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &s->ui);
	if (r < 0) {
		strbuf_addf(err, "cannot create a uinput device: %s", strerror(-r));
		libevdev_free(dev);
		s->ui = NULL;
		return r;
	}
	s->dev = dev;
	sys = libevdev_uinput_get_syspath(s->ui);
	s->syspath = xstrdup(sys ? sys : "unknown");
	return 0;
}

int uinput_open(struct input_sink *s, const char *name, struct strbuf *err)
{
	struct libevdev *dev = libevdev_new();

	libevdev_set_name(dev, name);
	uinput_describe_keyboard(dev);
	uinput_describe_mouse(dev);
	return uinput_create(s, dev, err);
}

int uinput_write(struct input_sink *s, unsigned type, unsigned code, int value, bool syn,
		 struct strbuf *err)
{
	int r = libevdev_uinput_write_event(s->ui, type, code, value);

	if (r == 0 && syn)
		r = libevdev_uinput_write_event(s->ui, EV_SYN, SYN_REPORT, 0);
	if (r < 0)
		strbuf_addf(err, "cannot write to the uinput device: %s", strerror(-r));
	return r;
}

int uinput_key(struct input_sink *s, unsigned code, bool down, struct strbuf *err)
{
	return uinput_write(s, EV_KEY, code, down ? 1 : 0, true, err);
}

int uinput_move(struct input_sink *s, int dx, int dy, struct strbuf *err)
{
	int r = uinput_write(s, EV_REL, REL_X, dx, false, err);

	return r < 0 ? r : uinput_write(s, EV_REL, REL_Y, dy, true, err);
}

int uinput_button(struct input_sink *s, int button, bool down, struct strbuf *err)
{
	return uinput_write(s, EV_KEY, buttons[button - 1], down ? 1 : 0, true, err);
}

void uinput_close(struct input_sink *s)
{
	if (s->ui)
		libevdev_uinput_destroy(s->ui);
	libevdev_free(s->dev);
	free(s->syspath);
	s->ui = NULL;
	s->dev = NULL;
	s->syspath = NULL;
}
