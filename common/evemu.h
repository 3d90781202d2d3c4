/*
 * evemu recordings: a device's description and the events it sent, as
 * evemu-describe and evemu-record write them. The interference watcher's
 * tests replay them through the same input rules the live devices feed
 * (common/inputrules.h); nothing here runs during a benchmark, so it may
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
 */
#ifndef HB_EVEMU_H
#define HB_EVEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inputrules.h"

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
/* Reads the file and parses it; -errno with "cannot read 'path': ..." */
int evemu_load(struct evemu_recording *r, const char *path, struct strbuf *err);

#endif
