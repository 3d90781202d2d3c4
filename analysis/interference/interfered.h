/*
 * results/interfered.txt: runs known to be disturbed from evidence outside
 * the run (a backup that ran at the time, a host under load, a note in a
 * log), kept beside the results so that every report and matrix leaves
 * them out the same way. The format (docs/formats.md):
 *
 *   # comment
 *   RUN  REASON...
 *
 * one run a line: RUN is a run_id (bench.txt run_id=) or a run directory's
 * name, REASON the evidence in words (required: a run is never set aside
 * without saying why). Blank lines and lines whose first non-blank
 * character is '#' are skipped; RUN and REASON are separated by blanks.
 */
#ifndef HB_INTERFERED_H
#define HB_INTERFERED_H

#include <stddef.h>

#include "base/util.h"

struct interfered_entry {
	char *run;              /* a run_id or a run directory's name */
	char *reason;
	char *why;              /* "FILE:LINE: REASON", for reports */
	int line;
};

struct interfered_list {
	struct interfered_entry *v;
	size_t n;
};

void interfered_init(struct interfered_list *list);
void interfered_release(struct interfered_list *list);
/* Appends the entries of text (read from path, which only names it in
 * messages and in each entry's why). 0, or -EINVAL with "path:line: what
 * is wrong" in err, and nothing appended. */
int interfered_parse(struct interfered_list *list, const char *text, const char *path,
		     struct strbuf *err);
/* Reads a file. A missing file is an empty list when missing_ok (the
 * default file need not exist); else -ENOENT. 0 or -errno with err. */
int interfered_read(struct interfered_list *list, const char *path, int missing_ok,
		    struct strbuf *err);
/* The entry naming the run by id or by directory name (either may be
 * NULL), or NULL. */
const struct interfered_entry *interfered_find(const struct interfered_list *list,
					       const char *run_id, const char *name);

/* Marks each row the list names (by run_id or run directory name) as
 * disturbed, with the entry's why, unless the row already says it is. */
struct report_row;
void interfered_mark(const struct interfered_list *list, struct report_row *rows, size_t n);

#endif
