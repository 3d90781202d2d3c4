/*
 * The one JSON writer: every JSON document hitchbench prints (report,
 * compare, regress, stalls, ab, db info; docs/formats.md) goes through it,
 * so each is valid whatever bytes a run directory holds. Strings are
 * escaped (quote, backslash, control characters as \u00XX) and bytes that
 * are not valid UTF-8 become U+FFFD; numbers print with the fewest
 * significant digits (15 to 17) that read back as the same double; a
 * missing or non-finite number is null.
 *
 * Two levels: json_write_string() and json_write_number() put one value on
 * a stream (report-json.c lays out its document by hand with them); struct
 * json_out writes a document member by member, putting the commas, the
 * line breaks and a two-space indent in, so a caller only says what comes
 * next. The writer never fails by itself: the stream's ferror() (checked
 * by the command table's flush) tells whether it was written.
 */
#ifndef HB_JSONOUT_H
#define HB_JSONOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* s as a JSON string; NULL as null. */
void json_write_string(FILE *out, const char *s);
/* v as a JSON number, or null when !have or v is not finite. */
void json_write_number(FILE *out, bool have, double v);

#define JSON_MAX_DEPTH 16

struct json_out {
	FILE *f;
	int depth;                       /* open objects and arrays */
	bool has_member[JSON_MAX_DEPTH]; /* the open one has a member: a comma before the next */
	bool inline_from[JSON_MAX_DEPTH]; /* written on one line (json_*_begin_inline) */
};

void json_out_init(struct json_out *j, FILE *f);

/* Each takes the member's key inside an object, NULL inside an array or
 * for the document itself. An object or array begun _inline is written on
 * one line, with all it holds. Ending the document's outermost value ends
 * its line. */
void json_object_begin(struct json_out *j, const char *key);
void json_object_begin_inline(struct json_out *j, const char *key);
void json_object_end(struct json_out *j);
void json_array_begin(struct json_out *j, const char *key);
void json_array_begin_inline(struct json_out *j, const char *key);
void json_array_end(struct json_out *j);

void json_string(struct json_out *j, const char *key, const char *s);
void json_number(struct json_out *j, const char *key, bool have, double v);
void json_int(struct json_out *j, const char *key, int64_t v);
void json_uint(struct json_out *j, const char *key, uint64_t v);
void json_bool(struct json_out *j, const char *key, bool v);
void json_null(struct json_out *j, const char *key);

#endif
