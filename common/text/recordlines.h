/*
 * The line walk of the records a process appends to while another may
 * read them (flip.txt, relay.txt): one key=value a line, '#' comments and
 * empty lines skipped, a NUL byte refused, and a last line without its
 * newline (a writer killed mid-write) left out and said.
 */
#ifndef HB_RECORDLINES_H
#define HB_RECORDLINES_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* One whole line (its own copy, NUL-terminated, which it may change) into
 * rec; seen: the header keys met so far, a bit each, for fn to keep. 0,
 * or -EINVAL with *why (a static string). */
typedef int (*record_line_fn)(char *line, void *rec, unsigned *seen, const char **why);

/* Each line of text to fn, *seen from 0. 0, or -EINVAL with
 * "name:LINE: why" in err; *cut (may be NULL) says whether a last line
 * was left out. */
int record_lines(const char *text, size_t len, const char *name, record_line_fn fn, void *rec, unsigned *seen,
		 bool *cut, struct strbuf *err);

/* A record file read whole and parsed: 0, -ENOENT (no such file, nothing
 * said), or -errno / -EINVAL with err. */
typedef int (*record_parse_fn)(const char *text, size_t len, const char *name, void *rec, bool *cut,
			       struct strbuf *err);
int record_load(const char *path, record_parse_fn parse, void *rec, struct strbuf *err);

#endif
