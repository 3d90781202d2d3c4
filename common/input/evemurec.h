/*
 * evemu recordings: a device's description and the events it sent, as
 * evemu-describe and evemu-record write them. The interference watcher's
 * tests replay them through the same input rules the live devices feed
 * (common/input/inputrules.h); nothing here runs during a benchmark, so it may
 * allocate.
 *
 * Every version seen in the wild is read (docs/interference.md lists
 * them): description and events in one file (.evemu, evemu 1.2/1.3
 * recordings) or apart (.desc/.prop and .events/.event), the events with
 * or without a trailing "# EV_KEY / KEY_A 1" comment, absolute (epoch)
 * or relative timestamps, values zero-padded ("0008", "-013"), A: lines
 * with or without the resolution. Lines:
 *   # ...                        a comment (the header, the banners)
 *   N: name                      the device's name
 *   I: bus vendor product version   four hex numbers
 *   P: byte...                   INPUT_PROP_* bitmap, hex bytes, continued
 *                                by further P: lines
 *   B: type byte...              the code bitmap of one event type (type
 *                                00: the types), continued by further B:
 *                                lines of the same type
 *   A: code min max fuzz flat [resolution]   an absolute axis (code hex)
 *   L: / S:                      LED and switch state (evemu 1.3): skipped
 *   E: sec.usec type code value [# comment]  an event (type, code hex)
 *
 * Why this reader and not libevemu's (evemu_read, evemu_read_event), which
 * hitchbench-input does use to make a recorded device and play it
 * (harness/input-play.c):
 *  - it reads a buffer and makes nothing: the input rules' unit tests and
 *    the fuzzer go from a string to a struct, and the recipe reader checks
 *    a recording ([input] play) without linking libevemu into the runner
 *    or common/; libevemu reads a FILE into a device made for uinput;
 *  - it says which line is wrong (FILE:LINE: what), while libevemu prints
 *    "FATAL: ..." to stderr with the line's text, which for an event line
 *    names the key (the harness never logs one), and returns -1;
 *  - it is strict where libevemu's sscanf is not: junk after a number, a
 *    bit past the kernel's last code, and an event earlier than the one
 *    before it (libevemu's player would sleep the unsigned difference,
 *    about 71 minutes, and play on);
 *  - it reads what libevemu does not: a description in any order and
 *    events without one, as the old recordings of the tests are.
 * evemu_check_play adds the layout libevemu's reader needs, so that a
 * recording a recipe may play is one libevemu reads whole.
 */
#ifndef HB_EVEMUREC_H
#define HB_EVEMUREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/inputrules.h"

struct strbuf;

struct evemu_event {
	uint64_t t_us;       /* sec * 1000000 + usec, as recorded */
	unsigned type, code;
	int value;
	int line;            /* where it was in its file */
};

struct evemu_recording {
	struct input_caps caps;
	bool has_desc;       /* an N:, I:, B: or A: line was read */
	struct evemu_event *events;
	size_t n, alloc;
};

void evemu_init(struct evemu_recording *r);
void evemu_release(struct evemu_recording *r);

/*
 * Parses buf (NUL-terminated; path is only for messages) into r, adding to
 * what r already holds: a .desc then its .events load into one recording.
 * Returns 0, or -EINVAL with err set to "path:line: what is wrong" (r then
 * holds what came before the bad line).
 */
int evemu_parse(struct evemu_recording *r, const char *path, const char *buf, struct strbuf *err);
/* Reads the file and parses it, for the tests that replay the repo's
 * recordings; -errno with "cannot read 'path': ..." */
int evemu_load(struct evemu_recording *r, const char *path, struct strbuf *err);

/* What a file given to a replay holds. */
enum evemu_part {
	EVEMU_WHOLE,    /* a description, then its events (evemu-record's) */
	EVEMU_DESC,     /* a description alone (evemu-describe's) */
	EVEMU_EVENTS,   /* events alone (an older evemu-record's) */
};

/*
 * Parses buf as evemu_parse does, then checks that libevemu's reader takes
 * all of it as the part it is given as: the description's lines in the
 * order evemu_read reads them (N:, I:, then P:, B:, A:, L:, S:; one it
 * meets out of that order it leaves out of the device without a word),
 * whole P: and B: lines (8 bytes), A: lines with the resolution from
 * EVEMU 1.2 on and without before, no line of blanks (evemu_read_event
 * ends the events there), event types and codes of at most 4 hex digits,
 * and at least one event in a part that has them. 0, or -EINVAL with
 * "path:line: what is wrong" (or "path: ...") in err.
 */
int evemu_check_play(struct evemu_recording *r, const char *path, const char *buf,
		     enum evemu_part part, struct strbuf *err);
/* Reads the file and checks it; -errno with "cannot read 'path': ..." */
int evemu_load_play(struct evemu_recording *r, const char *path, enum evemu_part part,
		    struct strbuf *err);

#endif
