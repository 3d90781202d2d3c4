/*
 * Names for the user addresses of a profile record, after the run: each
 * address through the map that held it to a file offset, to the file's own
 * address, to the function there (elfutils' libdwfl: the file's symbol
 * table, or its separate debug file found by build id or debuglink under
 * /usr/lib/debug, where a -dbgsym package put one). A file whose build id
 * is not the one the recorder saw (replaced since) names nothing, and says
 * so; code in anonymous memory (JIT) is named by its mapping.
 */
#ifndef HB_SYMBOLIZE_H
#define HB_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/profilerecord.h"

struct strbuf;
struct symbolizer;

/* One user frame named. */
struct sym_frame {
	const char *library;    /* the file's name ("libc.so.6"), "[jit]", "[vdso]"... or "[unknown]" (no map) */
	const char *function;   /* NULL: not named */
	uint64_t offset;        /* into the file (the map's page offset added), for unnamed frames */
	bool jit, unknown;
};

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* Names addr of process pid by rec's maps; caller says whether it is a
 * return address (every frame but the innermost: the call is the byte
 * before). The strings live as long as s. */
void symbolizer_name(struct symbolizer *s, const struct profrec *rec, int32_t pid, uint64_t addr, bool ret,
		     struct sym_frame *out);
/* What it could not name, for the report ("libfoo.so: build id differs
 * (replaced since the run)"), one line each. */
void symbolizer_notes(const struct symbolizer *s, struct strbuf *out);

#endif
