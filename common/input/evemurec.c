/*
 * Reads evemu recordings (the formats are in evemurec.h, with why this
 * reader is kept beside libevemu's) for the input rules' tests, for
 * looking at a recording offline and for checking a recording a recipe
 * plays. Strict: a line
 * that is not one of the known kinds, a number with junk after it, a bit
 * beyond what the kernel defines, or an event earlier than the one before
 * it is an error naming its line.
 */
#include "input/evemurec.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 40

void evemu_init(struct evemu_recording *r)
{
	memset(r, 0, sizeof(*r));
	input_caps_init(&r->caps);
}

void evemu_release(struct evemu_recording *r)
{
	free(r->events);
	evemu_init(r);
}

/* Where the next B:/P: byte of each bitmap goes: evemu continues a bitmap
 * over as many lines as it needs. */
struct bitmap_pos {
	size_t type_off[EV_MAX + 1];
	size_t prop_off;
};

static int hex_word(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!isxdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* Splits line (modified) into words, up to a '#' that starts a comment. */
static size_t split_words(char *line, char **words)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		if (n == MAX_WORDS)
			return MAX_WORDS + 1;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

/* Adds one byte of a bitmap of `bits` bits; a set bit past the end is an
 * error, zero padding past it (evemu writes whole lines) is not. */
static int bitmap_add(uint8_t *bits, size_t nbits, size_t *off, unsigned byte)
{
	size_t nbytes = (nbits + 7) / 8;

	if (*off < nbytes) {
		unsigned keep = *off == nbytes - 1 && nbits % 8 ? (1u << (nbits % 8)) - 1 : 0xffu;

		if (byte & ~keep)
			return -ERANGE;
		bits[*off] |= (uint8_t)byte;
	} else if (byte) {
		return -ERANGE;
	}
	(*off)++;
	return 0;
}

static int parse_bits(struct evemu_recording *r, struct bitmap_pos *pos, char **w, size_t n,
		      struct strbuf *err)
{
	unsigned type, byte;
	uint8_t *bits = NULL;
	size_t nbits = 0;

	if (n < 2 || hex_word(w[0], 0xff, &type) < 0 || type > EV_MAX) {
		strbuf_addstr(err, "B: wants an event type (hex, up to EV_MAX) and bytes");
		return -EINVAL;
	}
	switch (type) {
	case EV_SYN: bits = r->caps.types; nbits = EV_MAX + 1; break;
	case EV_KEY: bits = r->caps.keys; nbits = KEY_MAX + 1; break;
	case EV_REL: bits = r->caps.rels; nbits = REL_MAX + 1; break;
	case EV_ABS: bits = r->caps.abss; nbits = ABS_MAX + 1; break;
	default: break; /* kept nowhere: the rules do not look at them */
	}
	for (size_t i = 1; i < n; i++) {
		if (hex_word(w[i], 0xff, &byte) < 0) {
			strbuf_addf(err, "B: byte '%s' is not two hex digits", w[i]);
			return -EINVAL;
		}
		if (bits && bitmap_add(bits, nbits, &pos->type_off[type], byte) < 0) {
			strbuf_addf(err, "B: %02x sets a bit beyond the kernel's last code", type);
			return -EINVAL;
		}
	}
	/* a type with codes is a type the device has */
	if (type != EV_SYN)
		for (size_t i = 1; i < n; i++)
			if (strcmp(w[i], "00") != 0)
				input_caps_set(&r->caps, type, UINT_MAX);
	return 0;
}

static int parse_abs(struct evemu_recording *r, char **w, size_t n, struct strbuf *err)
{
	unsigned code;
	int v[5] = { 0 };

	if (n != 5 && n != 6) {
		strbuf_addf(err, "A: wants code min max fuzz flat [resolution], not %zu fields", n);
		return -EINVAL;
	}
	if (hex_word(w[0], 0xff, &code) < 0 || code > ABS_MAX) {
		strbuf_addf(err, "A: axis '%s' is not a hex code up to ABS_MAX", w[0]);
		return -EINVAL;
	}
	for (size_t i = 1; i < n; i++)
		if (safe_atoi(w[i], &v[i - 1]) < 0) {
			strbuf_addf(err, "A: '%s' is not a number", w[i]);
			return -EINVAL;
		}
	if (v[1] < v[0]) {
		strbuf_addf(err, "A: axis %02x has max %d below min %d", code, v[1], v[0]);
		return -EINVAL;
	}
	r->caps.abs[code] = (struct input_axis_info){
		.min = v[0], .max = v[1], .fuzz = v[2], .flat = v[3], .resolution = v[4],
	};
	input_caps_set(&r->caps, EV_ABS, code);
	return 0;
}

static int parse_event(struct evemu_recording *r, int lineno, char **w, size_t n, struct strbuf *err)
{
	struct evemu_event ev = { .line = lineno };
	const char *dot;
	uint64_t sec, usec;
	char secbuf[24];

	if (n != 4) {
		strbuf_addf(err, "E: wants sec.usec type code value, not %zu fields", n);
		return -EINVAL;
	}
	dot = strchr(w[0], '.');
	if (!dot || (size_t)(dot - w[0]) >= sizeof(secbuf) || strlen(dot + 1) != 6) {
		strbuf_addf(err, "E: time '%s' is not seconds.microseconds (6 digits)", w[0]);
		return -EINVAL;
	}
	memcpy(secbuf, w[0], (size_t)(dot - w[0]));
	secbuf[dot - w[0]] = '\0';
	if (safe_atou64(secbuf, &sec) < 0 || safe_atou64(dot + 1, &usec) < 0 ||
	    sec > UINT64_MAX / 1000000 - 1) {
		strbuf_addf(err, "E: time '%s' is not seconds.microseconds", w[0]);
		return -EINVAL;
	}
	ev.t_us = sec * 1000000 + usec;
	if (hex_word(w[1], EV_MAX, &ev.type) < 0 || hex_word(w[2], 0xffff, &ev.code) < 0) {
		strbuf_addf(err, "E: type '%s' or code '%s' is not hex (type up to EV_MAX)", w[1], w[2]);
		return -EINVAL;
	}
	if (safe_atoi(w[3], &ev.value) < 0) {
		strbuf_addf(err, "E: value '%s' is not a number", w[3]);
		return -EINVAL;
	}
	if (r->n && ev.t_us < r->events[r->n - 1].t_us) {
		strbuf_addf(err, "E: time %s is earlier than the event before it (line %d)", w[0],
			    r->events[r->n - 1].line);
		return -EINVAL;
	}
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 256;
		r->events = xrealloc(r->events, r->alloc * sizeof(*r->events));
	}
	r->events[r->n++] = ev;
	return 0;
}

static int parse_line(struct evemu_recording *r, struct bitmap_pos *pos, int lineno, char *line,
		      struct strbuf *err)
{
	char *words[MAX_WORDS];
	unsigned id[4], byte;
	size_t n;
	char kind;

	if (line[0] == '#')
		return 0;
	if (!line[0] || strspn(line, " \t\r") == strlen(line))
		return 0;
	if (!isupper((unsigned char)line[0]) || line[1] != ':' ||
	    (line[2] && line[2] != ' ' && line[2] != '\t' && line[2] != '\r')) {
		strbuf_addstr(err, "not an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or # comment)");
		return -EINVAL;
	}
	kind = line[0];
	if (kind == 'N') {
		char *name = str_strip(line + 2);

		snprintf(r->caps.name, sizeof(r->caps.name), "%s", name);
		r->has_desc = true;
		return 0;
	}
	n = split_words(line + 2, words);
	if (n > MAX_WORDS) {
		strbuf_addstr(err, "too many fields");
		return -EINVAL;
	}
	switch (kind) {
	case 'I':
		for (size_t i = 0; i < 4; i++)
			if (n != 4 || hex_word(words[i], 0xffff, &id[i]) < 0) {
				strbuf_addstr(err, "I: wants bus vendor product version, four hex numbers");
				return -EINVAL;
			}
		r->caps.bustype = id[0];
		r->caps.vendor = id[1];
		r->caps.product = id[2];
		r->caps.version = id[3];
		r->has_desc = true;
		return 0;
	case 'P':
		for (size_t i = 0; i < n; i++)
			if (hex_word(words[i], 0xff, &byte) < 0 ||
			    bitmap_add(r->caps.props, INPUT_PROP_MAX + 1, &pos->prop_off, byte) < 0) {
				strbuf_addf(err, "P: byte '%s' is not a hex byte of known properties",
					    words[i]);
				return -EINVAL;
			}
		return 0;
	case 'B':
		r->has_desc = true;
		return parse_bits(r, pos, words, n, err);
	case 'A':
		r->has_desc = true;
		return parse_abs(r, words, n, err);
	case 'E':
		return parse_event(r, lineno, words, n, err);
	case 'L':
	case 'S':
		return 0;
	default:
		strbuf_addf(err, "unknown line type '%c:'", kind);
		return -EINVAL;
	}
}

int evemu_parse(struct evemu_recording *r, const char *path, const char *buf, struct strbuf *err)
{
	struct bitmap_pos pos;
	struct strbuf why = STRBUF_INIT;
	char *copy = xstrdup(buf), *line = copy, *next;
	int lineno = 0, ret = 0;

	memset(&pos, 0, sizeof(pos));
	for (; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		ret = parse_line(r, &pos, lineno, line, &why);
		if (ret < 0) {
			strbuf_addf(err, "%s:%d: %s", path, lineno, why.buf);
			goto out;
		}
	}
out:
	strbuf_release(&why);
	free(copy);
	return ret;
}

/* The file as text: -errno with "cannot read 'path': ...", -EINVAL for a NUL. */
static int read_text(const char *path, char **buf, struct strbuf *err)
{
	size_t len;
	int ret = read_file(path, buf, &len);

	if (ret < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (memchr(*buf, '\0', len)) {
		strbuf_addf(err, "%s: not a text file (a NUL byte)", path);
		free(*buf);
		*buf = NULL;
		return -EINVAL;
	}
	return 0;
}

int evemu_load(struct evemu_recording *r, const char *path, struct strbuf *err)
{
	char *buf;
	int ret = read_text(path, &buf, err);

	if (ret < 0)
		return ret;
	ret = evemu_parse(r, path, buf, err);
	free(buf);
	return ret;
}

/* The order evemu_read reads a description in, then the events. */
static const char layout_order[] = "NIPBALSE";

struct layout {
	enum evemu_part part;
	int stage;          /* index in layout_order of the last kind seen, -1 before */
	int a_fields;       /* what an A: line has in this file's version */
	size_t n_events;
};

/* One line (no newline) of a recording that parsed: what libevemu's
 * reader would make of it. 0 or -EINVAL with why. */
static int layout_line(struct layout *l, char *line, struct strbuf *err)
{
	static const char *const part_name[] = { "a recording", "a description", "an events file" };
	char *words[MAX_WORDS + 1];
	int stage;
	size_t n;

	if (!line[0] || line[0] == '#')
		return 0;
	if (strspn(line, " \t\r") == strlen(line)) {
		strbuf_addstr(err, "a line of blanks: libevemu's reader ends the events there");
		return -EINVAL;
	}
	stage = (int)(strchr(layout_order, line[0]) - layout_order);
	if (l->part == EVEMU_EVENTS && line[0] != 'E') {
		strbuf_addf(err, "a '%c:' line in an events file: its description goes in a file "
			    "of its own, given first", line[0]);
		return -EINVAL;
	}
	if (l->part == EVEMU_DESC && line[0] == 'E') {
		strbuf_addstr(err, "an event in a description: its events go in a file of their own, "
			      "given second");
		return -EINVAL;
	}
	if (l->part == EVEMU_WHOLE && l->stage < 0 && line[0] == 'E') {
		strbuf_addstr(err, "events without a description: give the description's file first "
			      "(play = DESC EVENTS)");
		return -EINVAL;
	}
	if (l->part != EVEMU_EVENTS && l->stage < 0 && line[0] != 'N') {
		strbuf_addf(err, "%s starts with its N: line (libevemu reads N:, then I:)",
			    part_name[l->part]);
		return -EINVAL;
	}
	if (l->part != EVEMU_EVENTS && l->stage == 0 && line[0] != 'I') {
		strbuf_addstr(err, "the N: line is followed by the I: line (libevemu reads N:, then I:)");
		return -EINVAL;
	}
	if (stage < 2 && stage <= l->stage) {
		strbuf_addf(err, "a second %c: line", line[0]);
		return -EINVAL;
	}
	if (stage < l->stage) {
		strbuf_addf(err, "a '%c:' line after the '%c:' lines: libevemu reads N:, I:, P:, B:, "
			    "A:, L:, S:, then E:, in that order, and leaves out what comes late",
			    line[0], layout_order[l->stage]);
		return -EINVAL;
	}
	l->stage = stage;
	n = split_words(line + 2, words);
	switch (line[0]) {
	case 'P':
	case 'B':
		if (n != (line[0] == 'P' ? 8u : 9u)) {
			strbuf_addf(err, "a %c: line of %zu bytes: libevemu reads 8 a line", line[0],
				    line[0] == 'P' ? n : n - 1);
			return -EINVAL;
		}
		break;
	case 'A':
		if (n != (size_t)l->a_fields) {
			strbuf_addf(err, "an A: line of %zu fields where this file's version has %d "
				    "(the resolution from EVEMU 1.2 on, none before)", n, l->a_fields);
			return -EINVAL;
		}
		break;
	case 'E':
		if (strlen(words[1]) > 4 || strlen(words[2]) > 4) {
			strbuf_addstr(err, "an event's type or code of more than 4 hex digits");
			return -EINVAL;
		}
		l->n_events++;
		break;
	case 'L':
	case 'S':
		if (n != 2) {
			strbuf_addf(err, "a %c: line of %zu fields: libevemu reads code and state", line[0], n);
			return -EINVAL;
		}
		break;
	default:
		break;
	}
	return 0;
}

/* The A: fields of the file's version: "# EVEMU M.N" on its first line
 * that is not empty, 1.0 without. */
static int a_fields(const char *buf)
{
	int major = 1, minor = 0;
	char *line, *dot;

	while (*buf == '\n')
		buf++;
	if (strncmp(buf, "# EVEMU ", 8) != 0)
		return 5;
	/* "M.N" to the end of the line, both through the strict parser */
	line = xstrndup(buf + 8, strcspn(buf + 8, "\n"));
	dot = strchr(line, '.');
	if (dot)
		*dot = '\0';
	if (!dot || safe_atoi(line, &major) < 0 || safe_atoi(dot + 1, &minor) < 0 || major < 0 ||
	    minor < 0) {
		major = 1;
		minor = 0;
	}
	free(line);
	return major > 1 || (major == 1 && minor > 1) ? 6 : 5;
}

int evemu_check_play(struct evemu_recording *r, const char *path, const char *buf,
		     enum evemu_part part, struct strbuf *err)
{
	struct layout l = { .part = part, .stage = -1, .a_fields = a_fields(buf) };
	struct strbuf why = STRBUF_INIT;
	char *copy, *line, *next;
	int lineno = 0, ret = evemu_parse(r, path, buf, err);

	if (ret < 0)
		return ret;
	copy = xstrdup(buf);
	for (line = copy; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		ret = layout_line(&l, line, &why);
		if (ret < 0) {
			strbuf_addf(err, "%s:%d: %s", path, lineno, why.buf);
			goto out;
		}
	}
	ret = -EINVAL;
	if (part != EVEMU_EVENTS && l.stage < 1)
		strbuf_addf(err, "%s: no device description (N: and I: lines): not an evemu recording "
			    "of a device", path);
	else if (part != EVEMU_DESC && l.n_events == 0)
		strbuf_addf(err, "%s: no events (E: lines): nothing to play", path);
	else
		ret = 0;
out:
	strbuf_release(&why);
	free(copy);
	return ret;
}

int evemu_load_play(struct evemu_recording *r, const char *path, enum evemu_part part,
		    struct strbuf *err)
{
	char *buf;
	int ret = read_text(path, &buf, err);

	if (ret < 0)
		return ret;
	ret = evemu_check_play(r, path, buf, part, err);
	free(buf);
	return ret;
}
