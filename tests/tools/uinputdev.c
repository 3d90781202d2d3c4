/*
 * Plays a person at a keyboard, a mouse or a pad, for the interference
 * watcher's live tests (t1120): a uinput device with a name of the test's
 * choosing, made and written through the uinput driver of the input
 * helper (harness/input-uinput.c).
 *
 *   uinputdev NAME keyboard|mouse|pad STEP...
 *
 * It makes the device, prints "ready /dev/input/eventN" once that node
 * exists, plays the steps in order and destroys the device. Each step is a
 * word and its arguments, each its own argument of the command line:
 *
 *   wait MS          sleep MS milliseconds
 *   waitfile PATH    wait until PATH exists (at most 60 s, then fail): the
 *                    test says when, e.g. once the watcher has the device
 *   press CODE       press and release (KEY_A, BTN_LEFT, BTN_SOUTH), a
 *                    SYN_REPORT after each; button CODE is the same
 *   repeat CODE      one auto-repeat (value 2) and a SYN_REPORT
 *   move DX DY       REL_X DX, REL_Y DY, one SYN_REPORT (mouse)
 *   wiggle MS        a hand bumping the mouse: for MS milliseconds, a move
 *                    every 10 ms, (5, 3) and (-5, -3) in turn, MS/10 moves
 *                    of 8 counts each, ending where it started
 *   wheel N          REL_WHEEL N (mouse)
 *   stick AXIS VAL   an absolute axis to VAL (pad: ABS_X, ABS_Y, ABS_RX,
 *                    ABS_RY -32768..32767 resting at 0, ABS_Z, ABS_RZ
 *                    0..255, ABS_HAT0X, ABS_HAT0Y -1..1)
 *   exit             destroy the device now (no step may follow)
 *
 * The whole script is checked before the device is made: a code the
 * device lacks would be dropped by the kernel without a word, so it is an
 * error here. Exit 0 when every step played, 1 when one failed, 2 for bad
 * usage, 77 when /dev/uinput is missing or cannot be opened (the reason on
 * stderr: a test skips).
 */
#include "base/exitcodes.h"
#include "input-internal.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WAITFILE_MS 60000
#define POLL_MS 20
#define NODE_MS 5000
#define WIGGLE_STEP_MS 10

enum act { ACT_WAIT, ACT_WAITFILE, ACT_PRESS, ACT_REPEAT, ACT_MOVE, ACT_WIGGLE, ACT_WHEEL, ACT_STICK,
	   ACT_EXIT };

static const struct verb {
	const char *name;
	enum act act;
	int n_args;
} verbs[] = {
	{ "wait", ACT_WAIT, 1 },     { "waitfile", ACT_WAITFILE, 1 }, { "press", ACT_PRESS, 1 },
	{ "button", ACT_PRESS, 1 },  { "repeat", ACT_REPEAT, 1 },     { "move", ACT_MOVE, 2 },
	{ "wiggle", ACT_WIGGLE, 1 }, { "wheel", ACT_WHEEL, 1 },       { "stick", ACT_STICK, 2 },
	{ "exit", ACT_EXIT, 0 },
};

struct step {
	enum act act;
	unsigned code;          /* press, repeat: EV_KEY; stick: EV_ABS */
	int a, b;               /* wait, wiggle: ms; move: dx dy; wheel: n; stick: value */
	const char *path;       /* waitfile */
};

static void describe_pad(struct libevdev *dev)
{
	static const unsigned pad_buttons[] = {
		BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR, BTN_SELECT, BTN_START,
		BTN_MODE, BTN_THUMBL, BTN_THUMBR,
	};
	static const struct {
		unsigned code;
		int min, max, fuzz, flat;
	} axes[] = {
		{ ABS_X, -32768, 32767, 16, 128 },  { ABS_Y, -32768, 32767, 16, 128 },
		{ ABS_RX, -32768, 32767, 16, 128 }, { ABS_RY, -32768, 32767, 16, 128 },
		{ ABS_Z, 0, 255, 0, 0 },            { ABS_RZ, 0, 255, 0, 0 },
		{ ABS_HAT0X, -1, 1, 0, 0 },         { ABS_HAT0Y, -1, 1, 0, 0 },
	};

	libevdev_enable_event_type(dev, EV_KEY);
	for (size_t i = 0; i < ARRAY_SIZE(pad_buttons); i++)
		libevdev_enable_event_code(dev, EV_KEY, pad_buttons[i], NULL);
	libevdev_enable_event_type(dev, EV_ABS);
	for (size_t i = 0; i < ARRAY_SIZE(axes); i++) {
		struct input_absinfo ai = {
			.minimum = axes[i].min, .maximum = axes[i].max,
			.fuzz = axes[i].fuzz, .flat = axes[i].flat,
		};

		libevdev_enable_event_code(dev, EV_ABS, axes[i].code, &ai);
	}
}

/* The device's description, or NULL for an unknown kind. */
static struct libevdev *describe(const char *name, const char *kind)
{
	struct libevdev *dev;

	if (strcmp(kind, "keyboard") && strcmp(kind, "mouse") && strcmp(kind, "pad"))
		return NULL;
	dev = libevdev_new();
	if (!dev) {
		fprintf(stderr, "uinputdev: out of memory\n");
		exit(HB_EXIT_FAILURE);
	}
	libevdev_set_name(dev, name);
	if (!strcmp(kind, "keyboard")) {
		uinput_describe_keyboard(dev);
	} else if (!strcmp(kind, "mouse")) {
		uinput_describe_mouse(dev);
		libevdev_enable_event_code(dev, EV_REL, REL_WHEEL, NULL);
		libevdev_enable_property(dev, INPUT_PROP_POINTER);
	} else {
		describe_pad(dev);
	}
	return dev;
}

/* A code the device has, by name: 0, or -1 after saying what is wrong. */
static int code_of(const struct libevdev *dev, const char *kind, unsigned type, const char *name,
		   unsigned *code)
{
	int c = libevdev_event_code_from_name(type, name);

	if (c < 0) {
		fprintf(stderr, "uinputdev: '%s' is not the name of an %s code\n", name,
			libevdev_event_type_get_name(type));
		return -1;
	}
	if (!libevdev_has_event_code(dev, type, (unsigned)c)) {
		fprintf(stderr, "uinputdev: the %s has no %s\n", kind, name);
		return -1;
	}
	*code = (unsigned)c;
	return 0;
}

static int number(const char *what, const char *s, int min, int *out)
{
	if (safe_atoi(s, out) < 0 || *out < min) {
		fprintf(stderr, "uinputdev: %s wants a number%s, not '%s'\n", what,
			min > 0 ? " above 0" : min == 0 ? " of 0 or more" : "", s);
		return -1;
	}
	return 0;
}

/* Reads the script (argv, argc words) into steps; 0, or -1 after saying
 * what is wrong. */
static int parse(const struct libevdev *dev, const char *kind, char **argv, int argc,
		 struct step *steps, size_t *n_steps)
{
	size_t n = 0;

	for (int i = 0; i < argc;) {
		const struct verb *v = NULL;
		struct step *s = &steps[n];

		for (size_t k = 0; k < ARRAY_SIZE(verbs); k++)
			if (!strcmp(argv[i], verbs[k].name))
				v = &verbs[k];
		if (!v) {
			fprintf(stderr, "uinputdev: unknown step '%s'\n", argv[i]);
			return -1;
		}
		if (i + v->n_args >= argc) {
			fprintf(stderr, "uinputdev: %s wants %d argument%s\n", v->name, v->n_args,
				v->n_args == 1 ? "" : "s");
			return -1;
		}
		if (n && steps[n - 1].act == ACT_EXIT) {
			fprintf(stderr, "uinputdev: nothing can follow exit\n");
			return -1;
		}
		memset(s, 0, sizeof(*s));
		s->act = v->act;
		switch (v->act) {
		case ACT_WAIT:
		case ACT_WIGGLE:
			if (number(v->name, argv[i + 1], v->act == ACT_WIGGLE ? 1 : 0, &s->a) < 0)
				return -1;
			break;
		case ACT_WAITFILE:
			s->path = argv[i + 1];
			break;
		case ACT_PRESS:
		case ACT_REPEAT:
			if (code_of(dev, kind, EV_KEY, argv[i + 1], &s->code) < 0)
				return -1;
			break;
		case ACT_MOVE:
			if (number("move", argv[i + 1], INT_MIN, &s->a) < 0 ||
			    number("move", argv[i + 2], INT_MIN, &s->b) < 0)
				return -1;
			break;
		case ACT_WHEEL:
			if (number("wheel", argv[i + 1], INT_MIN, &s->a) < 0)
				return -1;
			break;
		case ACT_STICK:
			if (code_of(dev, kind, EV_ABS, argv[i + 1], &s->code) < 0 ||
			    number("stick", argv[i + 2], INT_MIN, &s->a) < 0)
				return -1;
			break;
		case ACT_EXIT:
			break;
		}
		if ((v->act == ACT_MOVE || v->act == ACT_WIGGLE || v->act == ACT_WHEEL) &&
		    !libevdev_has_event_code(dev, EV_REL, v->act == ACT_WHEEL ? REL_WHEEL : REL_X)) {
			fprintf(stderr, "uinputdev: the %s has no %s for %s\n", kind,
				v->act == ACT_WHEEL ? "REL_WHEEL" : "REL_X", v->name);
			return -1;
		}
		n++;
		i += 1 + v->n_args;
	}
	*n_steps = n;
	return 0;
}

/* Prints "ready NODE" once the device's node exists: 0, or -1 after
 * saying why not. */
static int say_ready(struct input_sink *s)
{
	for (unsigned waited = 0; waited <= NODE_MS; waited += POLL_MS) {
		const char *node = libevdev_uinput_get_devnode(s->ui);

		if (node && access(node, F_OK) == 0) {
			printf("ready %s\n", node);
			return fflush(stdout) == 0 ? 0 : -1;
		}
		sleep_ms(POLL_MS);
	}
	fprintf(stderr, "uinputdev: the device %s has no node in /dev/input after %d ms\n", s->syspath,
		NODE_MS);
	return -1;
}

static int play(struct input_sink *sink, const struct step *s, struct strbuf *err)
{
	int r = 0;

	switch (s->act) {
	case ACT_WAIT:
		sleep_ms((unsigned)s->a);
		return 0;
	case ACT_WAITFILE:
		for (unsigned waited = 0; access(s->path, F_OK) < 0; waited += POLL_MS) {
			if (waited >= WAITFILE_MS) {
				strbuf_addf(err, "'%s' did not appear within %d s", s->path,
					    WAITFILE_MS / 1000);
				return -ETIMEDOUT;
			}
			sleep_ms(POLL_MS);
		}
		return 0;
	case ACT_PRESS:
		r = uinput_key(sink, s->code, true, err);
		return r < 0 ? r : uinput_key(sink, s->code, false, err);
	case ACT_REPEAT:
		return uinput_write(sink, EV_KEY, s->code, 2, true, err);
	case ACT_MOVE:
		return uinput_move(sink, s->a, s->b, err);
	case ACT_WIGGLE:
		for (int i = 0; r == 0 && i < s->a / WIGGLE_STEP_MS; i++) {
			if (i)
				sleep_ms(WIGGLE_STEP_MS);
			r = uinput_move(sink, i % 2 ? -5 : 5, i % 2 ? -3 : 3, err);
		}
		return r;
	case ACT_WHEEL:
		return uinput_write(sink, EV_REL, REL_WHEEL, s->a, true, err);
	case ACT_STICK:
		return uinput_write(sink, EV_ABS, s->code, s->a, true, err);
	case ACT_EXIT:
		return 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct input_sink sink = { .driver = INPUT_UINPUT };
	struct strbuf err = STRBUF_INIT;
	struct libevdev *dev;
	struct step *steps;
	size_t n_steps = 0, i;
	int fd, r = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: uinputdev NAME keyboard|mouse|pad STEP...\n");
		return HB_EXIT_USAGE;
	}
	dev = describe(argv[1], argv[2]);
	if (!dev) {
		fprintf(stderr, "uinputdev: unknown kind '%s' (keyboard, mouse or pad)\n", argv[2]);
		return HB_EXIT_USAGE;
	}
	steps = zalloc(sizeof(*steps) * (size_t)(argc - 2));
	if (parse(dev, argv[2], argv + 3, argc - 3, steps, &n_steps) < 0) {
		libevdev_free(dev);
		free(steps);
		return HB_EXIT_USAGE;
	}
	/* libevdev opens it again; this says why a test cannot run */
	fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "uinputdev: cannot open /dev/uinput: %s (%s)\n", strerror(errno),
			errno == ENOENT || errno == ENODEV ? "the uinput module is not loaded or not built" :
			"only root, or a member of the group that owns it, may make input devices");
		libevdev_free(dev);
		free(steps);
		return HB_EXIT_SKIP;
	}
	close(fd);
	if (uinput_create(&sink, dev, &err) < 0) {
		fprintf(stderr, "uinputdev: %s\n", err.buf);
		free(steps);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	r = say_ready(&sink) < 0 ? -EIO : 0;
	for (i = 0; r == 0 && i < n_steps; i++)
		r = play(&sink, &steps[i], &err);
	if (r < 0 && err.len)
		fprintf(stderr, "uinputdev: step %zu: %s\n", i, err.buf);
	uinput_close(&sink);
	free(steps);
	strbuf_release(&err);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}
