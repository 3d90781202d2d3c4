/*
 * INI files: the one reader under every INI format of ours (recipes, quiet
 * profiles, gamedb's analysis.ini and interference.ini). inih splits
 * "key = value" and strips "; comments"; this adapter feeds it one line at
 * a time and does what Debian's inih cannot: it counts lines (so every
 * error names one), takes "[section]" lines itself (inih says nothing of a
 * section without keys and cuts names at 50 characters), skips a UTF-8
 * BOM, strips leading blanks (no line becomes an inih continuation line),
 * hands a line longer than inih's buffer over whole, and refuses a NUL
 * byte with its line. CRLF line ends are taken.
 *
 * A format says what its callbacks are and how its messages read; the
 * callbacks check what they are given and report with ini_fail(). The
 * first error wins and stops the reading, and ends up in err as
 * "PATH:LINE: what is wrong" ("PATH: what is wrong" when no line is at
 * fault).
 *
 * Nothing but common/text/inifile.c includes inih's <ini.h>: every format goes
 * through this adapter.
 */
#ifndef HB_INIFILE_H
#define HB_INIFILE_H

#include <stddef.h>

#include "base/util.h"

struct ini;

struct ini_format {
	/* the file as a noun: "PATH:LINE: NUL byte in a recipe" */
	const char *what;
	/* a line that is neither "key = value" nor a comment or a section:
	 * "expected 'key = value' or '[section]'" */
	const char *expected;
	/* the longest line taken (leading blanks and the line end not
	 * counted), 0 for any length; a longer one is "line too long (at most
	 * N characters)" with too_long_hint (may be NULL) before the ')' */
	size_t max_line;
	const char *too_long_hint;
	/* "[name]", name without the blanks around it. NULL: the format has
	 * no sections, a '[' line is an expected-line error */
	int (*section)(struct ini *ini, void *user, const char *name);
	/* "key = value": key and value stripped, value may be empty; section
	 * is the last section's name, NULL before the first */
	int (*key)(struct ini *ini, void *user, const char *section, const char *key,
		   const char *value);
	/* after the last line, when nothing failed (may be NULL): the checks
	 * of the whole file */
	int (*end)(struct ini *ini, void *user);
};

/* The callbacks' report: the error at the line being read (ini_fail) or
 * at a given one (ini_fail_at; 0 when no single line is at fault). Only
 * the first error of a parse is kept. Both return -EINVAL, which a
 * callback returns in turn (any other negative value fails the parse as
 * well). */
int ini_fail(struct ini *ini, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ini_fail_at(struct ini *ini, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The line being read, from 1 (in end: the number of lines). */
int ini_line(const struct ini *ini);

/* Parses len bytes of text as the format f, calling its callbacks with
 * user. path names the text in messages. 0; -EINVAL with the message
 * appended to err (may be NULL), a NUL byte being one; -ENOMEM. */
int ini_parse_text(const struct ini_format *f, const char *text, size_t len, const char *path,
		   void *user, struct strbuf *err);
/* The same for a file: 0; -errno with "cannot read 'PATH': why" in err
 * when it cannot be read; what ini_parse_text returns. */
int ini_load(const struct ini_format *f, const char *path, void *user, struct strbuf *err);

/* The reading half alone, for a line format that is not INI (results/
 * interfered.txt): the whole file, NUL-terminated, into *text (freed by
 * the caller) and its length into *len (may be NULL). 0; -errno with
 * "cannot read 'PATH': why" in err; -EINVAL with "PATH:LINE: NUL byte in
 * WHAT". */
int ini_file_read(const char *path, const char *what, char **text, size_t *len,
		  struct strbuf *err);

#endif
