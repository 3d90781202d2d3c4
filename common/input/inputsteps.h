/*
 * A recipe's [input] steps: what the harness plays into a game that needs
 * input (a menu to click through, a demo to start), in order, through one
 * of two drivers. The recipe parser (recipe.c) reads them and the input
 * helper (harness/input.c, hitchbench-input) plays them; both go through
 * the parsing here, so a step the helper would refuse never gets past the
 * recipe. Syntax: recipes/README.md, "[input]".
 */
#ifndef HB_INPUTSTEPS_H
#define HB_INPUTSTEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

enum input_driver {
	INPUT_XTEST,    /* XTest on the run's X display (works under Xvfb) */
	INPUT_UINPUT,   /* a virtual keyboard and mouse through /dev/uinput (libevdev) */
};

enum input_step_kind {
	STEP_WAIT_LINE, /* wait for a line of the game's output matching a regex */
	STEP_WAIT,      /* wait some seconds */
	STEP_KEY,       /* press and release one key */
	STEP_KEYS,      /* a chord: press in order, release in reverse ("ctrl+q") */
	STEP_TYPE,      /* type printable ASCII text, a key a character */
	STEP_MOVE,      /* the pointer: to X Y (xtest), by X Y counts (uinput) */
	STEP_CLICK,     /* press and release mouse button 1, 2 or 3 */
	STEP_PLAY,      /* a recorded device made through uinput and its events
	                 * played in real time (libevemu: harness/input-play.c),
	                 * whatever the driver; a recipe's [input] play = FILE */
};

#define INPUT_MAX_CHORD 8
#define INPUT_MAX_TEXT 256
#define INPUT_MAX_STEPS 256
#define INPUT_MAX_PLAYS 8       /* recorded devices a recipe may play */

struct input_step {
	enum input_step_kind kind;
	char *text;             /* the step as written, blanks squeezed: for logs */
	char *arg;              /* the regex (wait_line), the text (type), NULL otherwise */
	char *paths[2];         /* play: the recording (desc and events in one), or
	                         * the description then the events */
	size_t n_paths;
	char *keys[INPUT_MAX_CHORD]; /* key names as written, after aliases (key, keys) */
	size_t n_keys;
	double seconds;         /* wait */
	int x, y;               /* move */
	int button;             /* click: 1 left, 2 middle, 3 right */
};

/* "xtest" / "uinput"; parse: 0 or -EINVAL. */
const char *input_driver_name(enum input_driver d);
int input_driver_parse(const char *name, enum input_driver *d);

/* Parses one step ("key Return", "wait 2.5", "wait_line ^ready$",
 * "play /abs/pad.evemu"): its syntax, numbers, regex and text, not its key
 * names (they depend on the driver: input_step_check) nor a play's files.
 * A play's paths are words (argv_split: quoted when they hold blanks, as
 * the step's text writes them), used as they are: the recipe reader makes
 * them absolute first. 0, or -EINVAL with what is wrong in err (appended).
 * On success *s owns new strings (input_step_release); on error it is left
 * zeroed. */
int input_step_parse(const char *text, struct input_step *s, struct strbuf *err);
/* Checks what depends on the driver: every key name resolves
 * (input_key_code), every character of a type step has a key, the click's
 * button; and a play's files: readable evemu recordings that libevemu's
 * player reads whole (evemu_load_play: one file, a description then its
 * events; two, the description then the events), the error naming the
 * recording's line. 0 or -EINVAL (-errno for a file that cannot be read)
 * with what is wrong in err. */
int input_step_check(const struct input_step *s, enum input_driver d, struct strbuf *err);
void input_step_release(struct input_step *s);

/* A key name as the driver knows it: an X keysym (XStringToKeysym: "Return",
 * "q", "F12", "Escape") for xtest, a Linux key code name
 * (libevdev_event_code_from_name: "KEY_ENTER", "KEY_Q") for uinput. The
 * aliases ctrl, shift, alt and super are each driver's left modifier. The
 * keysym or the key code in *code; -ENOENT for a name the driver lacks. */
int input_key_code(enum input_driver d, const char *name, unsigned *code);

/* A character of a type step as a key (uinput: a US layout, *shift when
 * it needs Shift; xtest: the character's keysym, shift decided by the
 * X server's keymap when playing). -ENOENT when c has none. */
int input_char_code(enum input_driver d, char c, unsigned *code, bool *shift);

#endif
