/*
 * A recipe's [input] steps, parsed and checked (see inputsteps.h). Key
 * names are resolved the way each driver will resolve them when playing:
 * XStringToKeysym needs no display, libevdev's name table no device, so a
 * recipe with a key the driver lacks is refused when it is read.
 */
#include "input/inputsteps.h"
#include "text/argv.h"
#include "input/evemurec.h"
#include "text/regexlimit.h"

#include <ctype.h>
#include <errno.h>
#include <libevdev/libevdev.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <X11/Xlib.h>

#define MAX_WAIT_S (7 * 24 * 3600.0)   /* a week, as the recipe's durations */
#define MAX_MOVE 65535

const char *input_driver_name(enum input_driver d)
{
	return d == INPUT_UINPUT ? "uinput" : "xtest";
}

int input_driver_parse(const char *name, enum input_driver *d)
{
	if (!strcmp(name, "xtest"))
		*d = INPUT_XTEST;
	else if (!strcmp(name, "uinput"))
		*d = INPUT_UINPUT;
	else
		return -EINVAL;
	return 0;
}

static const struct {
	const char *alias, *keysym, *linux_name;
} modifier_aliases[] = {
	{ "ctrl", "Control_L", "KEY_LEFTCTRL" },
	{ "shift", "Shift_L", "KEY_LEFTSHIFT" },
	{ "alt", "Alt_L", "KEY_LEFTALT" },
	{ "super", "Super_L", "KEY_LEFTMETA" },
};

int input_key_code(enum input_driver d, const char *name, unsigned *code)
{
	for (size_t i = 0; i < ARRAY_SIZE(modifier_aliases); i++)
		if (!strcmp(name, modifier_aliases[i].alias))
			name = d == INPUT_XTEST ? modifier_aliases[i].keysym : modifier_aliases[i].linux_name;
	if (d == INPUT_XTEST) {
		KeySym ks = XStringToKeysym(name);

		if (ks == NoSymbol)
			return -ENOENT;
		*code = (unsigned)ks;
		return 0;
	} else {
		int c;

		/* only keys: a BTN_ name is a click's business */
		if (strncmp(name, "KEY_", 4) != 0)
			return -ENOENT;
		c = libevdev_event_code_from_name(EV_KEY, name);
		if (c < 0)
			return -ENOENT;
		*code = (unsigned)c;
		return 0;
	}
}

/* The US layout's keys for printable ASCII (uinput), unshifted then shifted. */
static const char us_plain[] = "`1234567890-=qwertyuiop[]\\asdfghjkl;'zxcvbnm,./ ";
static const char us_shift[] = "~!@#$%^&*()_+QWERTYUIOP{}|ASDFGHJKL:\"ZXCVBNM<>? ";
static const char *const us_keys[] = {
	"KEY_GRAVE", "KEY_1", "KEY_2", "KEY_3", "KEY_4", "KEY_5", "KEY_6", "KEY_7", "KEY_8", "KEY_9",
	"KEY_0", "KEY_MINUS", "KEY_EQUAL", "KEY_Q", "KEY_W", "KEY_E", "KEY_R", "KEY_T", "KEY_Y",
	"KEY_U", "KEY_I", "KEY_O", "KEY_P", "KEY_LEFTBRACE", "KEY_RIGHTBRACE", "KEY_BACKSLASH",
	"KEY_A", "KEY_S", "KEY_D", "KEY_F", "KEY_G", "KEY_H", "KEY_J", "KEY_K", "KEY_L",
	"KEY_SEMICOLON", "KEY_APOSTROPHE", "KEY_Z", "KEY_X", "KEY_C", "KEY_V", "KEY_B", "KEY_N",
	"KEY_M", "KEY_COMMA", "KEY_DOT", "KEY_SLASH", "KEY_SPACE",
};

int input_char_code(enum input_driver d, char c, unsigned *code, bool *shift)
{
	const char *at;

	if (c < 0x20 || c > 0x7e)
		return -ENOENT;
	if (d == INPUT_XTEST) {
		*code = (unsigned char)c; /* Latin-1 keysyms are their code points */
		*shift = false;
		return 0;
	}
	if ((at = strchr(us_plain, c)) != NULL) {
		*shift = false;
	} else if ((at = strchr(us_shift, c)) != NULL) {
		*shift = true;
		at = us_plain + (at - us_shift);
	} else {
		return -ENOENT;
	}
	return input_key_code(d, us_keys[at - us_plain], code);
}

/* A whole decimal integer, optionally negative, |v| <= max. */
static bool parse_int(const char *s, int max, int *out)
{
	int v;

	if (!*s || safe_atoi(s, &v) < 0 || v > max || v < -max)
		return false;
	for (const char *c = *s == '-' ? s + 1 : s; *c; c++)
		if (!isdigit((unsigned char)*c))
			return false;
	*out = v;
	return true;
}

/* Seconds as the recipe writes durations: "2", "2.5"; 0 to a week. */
static bool parse_wait(const char *s, double *out)
{
	const char *c = s;
	double v;

	if (!isdigit((unsigned char)*c))
		return false;
	while (isdigit((unsigned char)*c))
		c++;
	if (*c == '.') {
		c++;
		if (!isdigit((unsigned char)*c))
			return false;
		while (isdigit((unsigned char)*c))
			c++;
	}
	if (*c || safe_atod(s, &v) < 0 || v > MAX_WAIT_S)
		return false;
	*out = v;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The words of a "X Y" argument: exactly two. */
static bool split_two(const char *arg, char **a, char **b)
{
	const char *sp = arg;

	while (*sp && !is_blank(*sp))
		sp++;
	if (!*sp)
		return false;
	*a = xstrndup(arg, (size_t)(sp - arg));
	while (is_blank(*sp))
		sp++;
	*b = xstrdup(sp);
	for (const char *c = *b; *c; c++) {
		if (is_blank(*c)) {
			free(*a);
			free(*b);
			*a = *b = NULL;
			return false;
		}
	}
	return true;
}

static int parse_keys(struct input_step *s, const char *verb, const char *arg, struct strbuf *err)
{
	const char *p = arg;

	for (const char *c = arg; *c; c++) {
		if (is_blank(*c)) {
			strbuf_addf(err, "'%s' takes one %s, not '%s'", verb,
				    s->kind == STEP_KEY ? "key name" : "chord like ctrl+q", arg);
			return -EINVAL;
		}
	}
	if (s->kind == STEP_KEY) {
		s->keys[s->n_keys++] = xstrdup(arg);
		return 0;
	}
	for (;;) {
		const char *plus = strchr(p, '+');
		size_t n = plus ? (size_t)(plus - p) : strlen(p);

		if (n == 0) {
			strbuf_addf(err, "empty key name in chord '%s'", arg);
			return -EINVAL;
		}
		if (s->n_keys == INPUT_MAX_CHORD) {
			strbuf_addf(err, "chord '%s' has more than %d keys", arg, INPUT_MAX_CHORD);
			return -EINVAL;
		}
		s->keys[s->n_keys++] = xstrndup(p, n);
		if (!plus)
			return 0;
		p = plus + 1;
	}
}

/* "play RECORDING" or "play DESC EVENTS": one or two words. */
static int parse_play(struct input_step *s, const char *arg, struct strbuf *err)
{
	struct argv_list words;
	const char *bad = NULL;
	int e = 0;

	argv_init(&words);
	if (argv_split(&words, arg, &bad) < 0) {
		strbuf_addf(err, "bad 'play %s': %s", arg, bad);
		e = -EINVAL;
	} else if (words.n < 1 || words.n > 2) {
		strbuf_addf(err, "'play' takes a recording, or a description and its events, not %zu "
			    "words: '%s'", words.n, arg);
		e = -EINVAL;
	} else {
		for (size_t i = 0; i < words.n; i++)
			s->paths[i] = xstrdup(words.v[i]);
		s->n_paths = words.n;
	}
	argv_release(&words);
	return e;
}

static int parse_arg(struct input_step *s, const char *verb, const char *arg, struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	char *a = NULL, *b = NULL;
	regex_t re;
	int e;

	switch (s->kind) {
	case STEP_WAIT_LINE:
		if (regex_compile(&re, arg, &msg) < 0) {
			strbuf_addf(err, "bad regex '%s' for 'wait_line': %s", arg, msg.buf);
			strbuf_release(&msg);
			return -EINVAL;
		}
		regfree(&re);
		s->arg = xstrdup(arg);
		return 0;
	case STEP_WAIT:
		if (!parse_wait(arg, &s->seconds)) {
			strbuf_addf(err, "bad number '%s' for 'wait' (seconds, 0 to %g, like 2.5)", arg,
				    MAX_WAIT_S);
			return -EINVAL;
		}
		return 0;
	case STEP_KEY:
	case STEP_KEYS:
		return parse_keys(s, verb, arg, err);
	case STEP_TYPE:
		if (strlen(arg) > INPUT_MAX_TEXT) {
			strbuf_addf(err, "'type' text longer than %d characters", INPUT_MAX_TEXT);
			return -EINVAL;
		}
		for (const char *c = arg; *c; c++) {
			if (*c < 0x20 || *c > 0x7e) {
				strbuf_addf(err, "'type' takes printable ASCII only (byte 0x%02x in '%s')",
					    (unsigned char)*c, arg);
				return -EINVAL;
			}
		}
		s->arg = xstrdup(arg);
		return 0;
	case STEP_MOVE:
		if (!split_two(arg, &a, &b) || !parse_int(a, MAX_MOVE, &s->x) ||
		    !parse_int(b, MAX_MOVE, &s->y)) {
			strbuf_addf(err, "bad 'move %s' (expected two whole numbers: move X Y)", arg);
			e = -EINVAL;
		} else {
			e = 0;
		}
		free(a);
		free(b);
		return e;
	case STEP_CLICK:
		if (!parse_int(arg, 3, &s->button) || s->button < 1) {
			strbuf_addf(err, "bad button '%s' for 'click' (1 left, 2 middle, 3 right)", arg);
			return -EINVAL;
		}
		return 0;
	case STEP_PLAY:
		return parse_play(s, arg, err);
	}
	return -EINVAL;
}

/* "play" and the paths, quoted as argv_split reads them back. */
static char *play_text(const struct input_step *s)
{
	char *v[3] = { s->paths[0], s->paths[1], NULL };
	char *words = argv_join(v);
	char *text = xasprintf("play %s", words);

	free(words);
	return text;
}

static const struct {
	const char *verb;
	enum input_step_kind kind;
} verbs[] = {
	{ "wait_line", STEP_WAIT_LINE },
	{ "wait", STEP_WAIT },
	{ "key", STEP_KEY },
	{ "keys", STEP_KEYS },
	{ "type", STEP_TYPE },
	{ "move", STEP_MOVE },
	{ "click", STEP_CLICK },
	{ "play", STEP_PLAY },
};

int input_step_parse(const char *text, struct input_step *s, struct strbuf *err)
{
	const char *v = text, *v_end, *arg, *arg_end;
	char *verb;
	size_t i;
	int e;

	memset(s, 0, sizeof(*s));
	while (is_blank(*v))
		v++;
	for (v_end = v; *v_end && !is_blank(*v_end); v_end++)
		;
	for (arg = v_end; is_blank(*arg); arg++)
		;
	for (arg_end = arg + strlen(arg); arg_end > arg && is_blank(arg_end[-1]); arg_end--)
		;
	verb = xstrndup(v, (size_t)(v_end - v));
	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(verb, verbs[i].verb))
			break;
	if (i == ARRAY_SIZE(verbs)) {
		strbuf_addf(err, "unknown step '%s' (expected wait_line, wait, key, keys, type, move, "
			    "click or play)", verb);
		free(verb);
		return -EINVAL;
	}
	s->kind = verbs[i].kind;
	if (arg == arg_end) {
		strbuf_addf(err, "step '%s' needs an argument", verb);
		free(verb);
		memset(s, 0, sizeof(*s));
		return -EINVAL;
	}
	{
		char *a = xstrndup(arg, (size_t)(arg_end - arg));

		e = parse_arg(s, verb, a, err);
		if (e == 0 && s->kind == STEP_PLAY)
			s->text = play_text(s);
		else if (e == 0)
			s->text = xasprintf("%s %s", verb, a);
		free(a);
	}
	free(verb);
	if (e < 0)
		input_step_release(s);
	return e;
}

static int input_play_check(const struct input_step *s, struct strbuf *err)
{
	static const enum evemu_part parts[2][2] = {
		{ EVEMU_WHOLE }, { EVEMU_DESC, EVEMU_EVENTS },
	};
	int e = 0;

	for (size_t i = 0; e == 0 && i < s->n_paths; i++) {
		struct evemu_recording r;

		evemu_init(&r);
		e = evemu_load_play(&r, s->paths[i], parts[s->n_paths - 1][i], err);
		evemu_release(&r);
	}
	return e;
}

int input_step_check(const struct input_step *s, enum input_driver d, struct strbuf *err)
{
	unsigned code;
	bool shift;

	for (size_t i = 0; i < s->n_keys; i++) {
		if (input_key_code(d, s->keys[i], &code) < 0) {
			strbuf_addf(err, d == INPUT_XTEST ?
				    "unknown key '%s' (an X keysym name like Return, Escape, F12, q; or "
				    "ctrl, shift, alt, super)" :
				    "unknown key '%s' (a Linux key name like KEY_ENTER, KEY_ESC, KEY_Q; or "
				    "ctrl, shift, alt, super)", s->keys[i]);
			return -EINVAL;
		}
	}
	if (s->kind == STEP_TYPE) {
		for (const char *c = s->arg; *c; c++) {
			if (input_char_code(d, *c, &code, &shift) < 0) {
				strbuf_addf(err, "no %s key types '%c'", input_driver_name(d), *c);
				return -EINVAL;
			}
		}
	}
	if (s->kind == STEP_MOVE && d == INPUT_XTEST && (s->x < 0 || s->y < 0)) {
		strbuf_addf(err, "'%s': xtest moves to a point on the screen, not below 0", s->text);
		return -EINVAL;
	}
	if (s->kind == STEP_PLAY)
		return input_play_check(s, err);
	return 0;
}

void input_step_release(struct input_step *s)
{
	if (!s)
		return;
	free(s->text);
	free(s->arg);
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i]);
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i]);
	memset(s, 0, sizeof(*s));
}
