/*
 * What the frame-log parsers (analysis/import-*.c) share: a line reader
 * that knows the BOM and CRLF of Windows tools, a comma splitter, and the
 * series being built. Not for use outside analysis/import*.c.
 */
#ifndef HB_IMPORT_INTERNAL_H
#define HB_IMPORT_INTERNAL_H

#include "import.h"

struct lines {
	const char *p, *end;
	int no;                 /* the number of the line last returned, from 1 */
	char *buf;              /* the line last returned, NUL-terminated, no CR/LF */
	size_t alloc;
};

/* Starts reading text; a UTF-8 byte order mark at its start is skipped. */
void lines_init(struct lines *l, const char *text, size_t len);
void lines_release(struct lines *l);
/* The next line (owned by l, valid until the next call), or NULL at the end. */
char *lines_next(struct lines *l);

#define CSV_MAX_FIELDS 512
/* Splits line in place at commas; fields are stripped of blanks at both ends
 * (FrameView pads its values). Returns the field count (at most max). */
size_t csv_split(char *line, char **fields, size_t max);

/* Appends a frame time; ns must be > 0. */
void import_push_frame(struct import_series *s, uint64_t ns);
/* Frame time in ms (a logged number) to ns: 0 or -ERANGE (negative, NaN, too long). */
int import_ms_to_ns(double ms, uint64_t *ns);
/* Builds t_ns from the frame times pushed. */
void import_finish(struct import_series *s);

#endif
