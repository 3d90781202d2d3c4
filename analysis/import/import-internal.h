/*
 * What the frame-log parsers (analysis/import/import-*.c) share: how a logged
 * frame time becomes a frame or a dropped row, and the series being built.
 * Their records come from common/text/csv.h. Not for use outside
 * analysis/import/import*.c.
 */
#ifndef HB_IMPORT_INTERNAL_H
#define HB_IMPORT_INTERNAL_H

#include "text/csv.h"
#include "import/import.h"

/* How every importer reads its file: blanks around fields are not data
 * (FrameView pads its values), blank lines are skipped. */
#define IMPORT_CSV_FLAGS (CSV_TRIM | CSV_SKIP_EMPTY)

/* "PATH:LINE: WHY" for a csv_next() that failed. */
void import_csv_error(const struct csv *c, const char *path, struct strbuf *err);

/* A logged value: a number as strtod reads it, "nan" and "inf" (what the
 * C library writes for a value that was none) and numbers past double's
 * range included, so the caller can count such a frame time as dropped
 * rather than refuse the file; hex is refused. 0 or -EINVAL. */
int import_parse_value(const char *s, double *out);

/* Counts a row of the kept process that is no frame: line is the row's,
 * why says what is wrong ("frame time -5 is not positive"). */
void import_drop(struct import_series *s, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A last record with no line break after it, fields fewer than want
 * (which the caller checked): dropped, counted, and warned of. */
void import_drop_cut(struct import_series *s, const char *path, int line, const char *what);

/* A frame time in ms, as logged at line (text: the value as the log has
 * it, for the message): pushed as a frame, or dropped and counted when it
 * is not positive, not a number, or over IMPORT_MAX_FRAME_MS. */
void import_frame_ms(struct import_series *s, int line, double ms, const char *text);

/* Builds t_ns from the frame times pushed and says what was dropped. 0, or
 * -ERANGE (message in err) when the present times would pass 2^64 ns. */
int import_finish(struct import_series *s, const char *path, struct strbuf *err);

#endif
