/*
 * The input helper's two drivers behind one set of calls (input.c plays
 * the steps, input-xtest.c and input-uinput.c send the events), and its
 * recorded devices (input-play.c, libevemu: a recipe's play).
 */
#ifndef HB_INPUT_INTERNAL_H
#define HB_INPUT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input/inputsteps.h"
#include "base/util.h"

struct input_sink {
	enum input_driver driver;
	void *x_display;            /* xtest: the Display */
	struct libevdev *dev;       /* uinput: the device's description */
	struct libevdev_uinput *ui; /* uinput: the device */
	char *syspath;              /* uinput: /sys/devices/virtual/input/inputN */
};

/* xtest: display (":5"), reached with $XAUTHORITY. uinput: a new device
 * called name. 0, or -errno with the reason in err. */
int xtest_open(struct input_sink *s, const char *display, struct strbuf *err);
int uinput_open(struct input_sink *s, const char *name, struct strbuf *err);

/* The parts of uinput_open, for devices of other kinds (the watcher's
 * tests play a person's keyboard, mouse or pad with them). describe_*
 * enable the codes of a full keyboard (KEY_ESC..KEY_MICMUTE), of a mouse
 * (BTN_LEFT, BTN_MIDDLE, BTN_RIGHT, REL_X, REL_Y). uinput_create makes a
 * virtual-bus device of what dev describes (its name set by the caller)
 * and takes dev: s owns it on success, it is freed on failure. 0, or
 * -errno with the reason in err. */
void uinput_describe_keyboard(struct libevdev *dev);
void uinput_describe_mouse(struct libevdev *dev);
int uinput_create(struct input_sink *s, struct libevdev *dev, struct strbuf *err);
/* One event, then a SYN_REPORT when syn. 0 or -errno (err says why). */
int uinput_write(struct input_sink *s, unsigned type, unsigned code, int value, bool syn,
		 struct strbuf *err);

/* code: what input_key_code gave for the sink's driver. 0 or -errno
 * (err says why). Events are flushed (X) or reported (SYN) at once. */
int sink_key(struct input_sink *s, unsigned code, bool down, struct strbuf *err);
/* One character of a type step, press and release, shift as needed. */
int sink_type_char(struct input_sink *s, char c, unsigned hold_ms, struct strbuf *err);
int sink_move(struct input_sink *s, int x, int y, struct strbuf *err);
int sink_button(struct input_sink *s, int button, bool down, struct strbuf *err);
void sink_close(struct input_sink *s);

/* The driver halves of the above. */
int xtest_key(struct input_sink *s, unsigned keysym, bool down, struct strbuf *err);
int xtest_type_char(struct input_sink *s, char c, unsigned hold_ms, struct strbuf *err);
int xtest_move(struct input_sink *s, int x, int y, struct strbuf *err);
int xtest_button(struct input_sink *s, int button, bool down, struct strbuf *err);
void xtest_close(struct input_sink *s);
int uinput_key(struct input_sink *s, unsigned code, bool down, struct strbuf *err);
int uinput_move(struct input_sink *s, int dx, int dy, struct strbuf *err);
int uinput_button(struct input_sink *s, int button, bool down, struct strbuf *err);
void uinput_close(struct input_sink *s);

/* A play step's recorded device (input-play.c). */
struct input_play {
	struct evemu_device *dev;   /* libevemu's: the description, then the device */
	FILE *desc, *events;        /* events is desc for a recording in one file */
	int fd;                     /* the device's node, written (-1 before) */
	char *recorded;             /* the name the recording gives the device */
	char *syspath;              /* once made: /sys/devices/virtual/input/inputN */
};

/* Reads the step's description with libevemu (nothing made yet): 0, or
 * -errno with err. play_close releases p either way. */
int play_read(struct input_play *p, const struct input_step *s, struct strbuf *err);
/* 'recorded "NAME" (bus B vendor V product P version X)' into out. */
void play_describe(const struct input_play *p, struct strbuf *out);
/* The dry run: reads every event with libevemu, "N events over S s" into
 * out (the events are used up). 0, or -EINVAL for none. */
int play_plan(struct input_play *p, struct strbuf *out);
/* Makes the device through uinput, named name, the recorded ids kept, and
 * opens its node. 0 or -errno with err. */
int play_create(struct input_play *p, const char *name, struct strbuf *err);
/* Writes the events, each when its offset from the first has passed since
 * the call, waiting through wait (false: stopped). 0 with "ok: ..." in
 * out, 1 when stopped (out says how far), -errno when a write failed. */
int play_events(struct input_play *p, bool (*wait)(void *ctx, uint64_t deadline_ns), void *ctx,
		struct strbuf *out);
/* Destroys the device (the kernel releases what it held down). */
void play_close(struct input_play *p);

#endif
