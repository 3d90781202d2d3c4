/*
 * The one reader and the one writer of comma-separated files (RFC 4180).
 *
 * The reader is for every CSV hitchbench reads from elsewhere: the frame
 * logs of MangoHud and PresentMon/FrameView (analysis/import/import-*.c), and the
 * matrix CSV and trend TSV that `hitchbench plot` draws
 * (analysis/plot/plot-inputs.c). Windows tools quote fields that hold a
 * comma, write CRLF and start with a UTF-8 byte order mark; a game that
 * crashed leaves its last record cut short. The reader knows all
 * of these and says which line a record came from, so a caller can write
 * "path:line: what is wrong".
 *
 * It walks a buffer the caller keeps (a whole file): each csv_next()
 * returns the next record, its fields unquoted and NUL-terminated in one
 * buffer the reader owns and reuses, so nothing is allocated per field or
 * per record once the buffer has grown to the longest record.
 *
 * What is read:
 *   - records end at LF or CRLF (a CR before the end of the buffer too);
 *     a record may end at the end of the buffer without one (cut is set);
 *   - a field starting with '"' is quoted: it runs to the next lone '"',
 *     "" inside is one '"', and commas, CR and LF inside are data (the
 *     record then spans several lines);
 *   - a '"' inside an unquoted field is data (as Excel reads it);
 *   - a UTF-8 byte order mark at the start of the buffer is skipped.
 * What is refused (csv_next() < 0, why and line say what and where):
 *   - a NUL byte anywhere in a record;
 *   - anything but blanks between a closing quote and the separator;
 *   - more than CSV_MAX_FIELDS fields or more than CSV_MAX_RECORD bytes
 *     in a record: no file these readers take comes near either, so a
 *     record past them is not one of those files.
 *
 * The writer is csv_write_field(), for every CSV hitchbench writes (the
 * report's CSV, the matrices): the reader reads back what it wrote.
 */
#ifndef HB_CSV_H
#define HB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CSV_MAX_FIELDS 4096
#define CSV_MAX_RECORD (1u << 20) /* bytes, as read (quotes and line ends included) */

enum csv_flags {
	CSV_TRIM = 1 << 0,       /* blanks (space, tab) around a field are not part of it
	                          * (FrameView pads its values); inside quotes they are */
	CSV_BLANKS = 1 << 1,     /* fields are separated by runs of blanks, not by commas
	                          * (the trend TSV); implies CSV_TRIM */
	CSV_SKIP_EMPTY = 1 << 2, /* records of nothing but blanks are skipped */
};

struct csv_record {
	char **f;                /* n fields, each NUL-terminated; valid until the next csv_next() */
	size_t n;
	int line;                /* the line the record starts on, from 1 */
	int last_line;           /* the line it ends on (> line when a quoted field held a line break) */
	bool cut;                /* it ended at the end of the buffer, with no line break after it */
	bool open_quote;         /* ... inside a quoted field (cut is set too) */
};

struct csv {
	const char *p, *end;
	unsigned flags;
	int line;                /* the line p is on */
	const char *why;         /* after an error: what is wrong (a static string) */
	int err_line;            /* ... and on which line */
	char *buf;               /* the fields of the record last returned */
	size_t alloc;
	char **f;
	size_t alloc_f;
};

/* Starts reading len bytes of text (which need not be NUL-terminated). */
void csv_init(struct csv *c, const char *text, size_t len, unsigned flags);
void csv_release(struct csv *c);
/* 1 and the next record in *rec, 0 at the end, or -EINVAL / -E2BIG with
 * c->why and c->err_line set. After an error the reader stays at the end. */
int csv_next(struct csv *c, struct csv_record *rec);

/* Writes s as one CSV field (no separator): as it is, or quoted when it
 * holds a comma, a quote, CR or LF, each '"' doubled. NULL writes nothing
 * (an empty field). The stream's ferror() tells whether it was written. */
void csv_write_field(FILE *out, const char *s);

#endif
