/*
 * The bones of the tab-separated text records a recorder appends to while
 * a game runs (the wait record, the profile record): one item a line,
 * fields split at tabs, a kind in the first field, "meta"/"trailer"
 * KEY=VALUE lines, numbers written without printf, a live file packed into
 * one zstd frame with its trailer appended. Each record's own lines are
 * its own (waitrecord.c, profilerecord.c); what they share lives here once.
 */
#ifndef HB_TABRECORD_H
#define HB_TABRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/kvfile.h"

struct strbuf;

/* --- writing --- */

/* s (at most max bytes) as one field: tabs, newlines and CRs become '?'. */
void tabrec_put_text(struct strbuf *sb, const char *s, size_t max);
/* A "KIND<TAB>KEY=VALUE" line ("meta", "trailer"). */
void tabrec_put_kv(struct strbuf *sb, const char *kind, const char *key, const char *value);
/* A tab, then v in base 10 or 16 ("0x..."), '-' before it when neg:
 * without vsnprintf, whose parsing of a format was most of a line's cost
 * in a recorder writing hundreds of lines a second. */
void tabrec_put_num(struct strbuf *sb, uint64_t v, bool neg, unsigned base);
static inline void tabrec_put_u64(struct strbuf *sb, uint64_t v)
{
	tabrec_put_num(sb, v, false, 10);
}
static inline void tabrec_put_i64(struct strbuf *sb, int64_t v)
{
	tabrec_put_num(sb, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10);
}

/* --- reading --- */

/* One line split in place: f[0] is its kind. */
struct tabline {
	const char *name;       /* the file, for errors */
	int no;                 /* from 1 */
	char **f;
	int n;
};

/* "name:no: what" into err; -EINVAL. */
int tabrec_bad(const struct tabline *l, struct strbuf *err, const char *what);
/* Field i as a whole number: decimal, or hexadecimal after "0x". */
int tabrec_u64(const struct tabline *l, int i, uint64_t *out, struct strbuf *err);
/* Field i as a decimal number in lo..hi. */
int tabrec_i64(const struct tabline *l, int i, int64_t lo, int64_t hi, int64_t *out, struct strbuf *err);
/* A "KIND<TAB>KEY=VALUE" line into kf; a key already there is refused
 * (a key appears once). */
int tabrec_kv(struct kvfile *kf, const struct tabline *l, struct strbuf *err);

/* Called for each whole line; 0 goes on, -EINVAL stops with err. */
typedef int (*tabrec_line_fn)(struct tabline *l, void *rec, struct strbuf *err);
/* Walks text line by line: a NUL byte is refused, a line of more than
 * max_fields fields too, an empty text too ("empty: not WHAT"); a last
 * line without its newline is left out and *cut set (a live file read
 * while, or after, its writer died mid-line). 0 or -EINVAL with err. */
int tabrec_walk(const char *text, size_t len, const char *name, const char *what, int max_fields,
		tabrec_line_fn fn, void *rec, bool *cut, struct strbuf *err);

/* When a recorder was paused (a flip run's side without it): "pause NS"
 * to the next "resume NS" (to_ns UINT64_MAX: to the end). */
struct rec_pause {
	uint64_t from_ns, to_ns;
};
/* A "pause NS" or "resume NS" line appended to *pause: they alternate, a
 * pause first, in time order. 0 or -EINVAL with err. */
int tabrec_pause(const struct tabline *l, struct rec_pause **pause, size_t *n, struct strbuf *err);
/* Whether a pause overlaps [s, e). */
bool rec_paused_in(const struct rec_pause *pause, size_t n, uint64_t s, uint64_t e);

/* Packs the live text at live_path into out_path (one zstd frame, written
 * atomically), an unfinished last line cut and the trailer's lines
 * appended. 0 or -errno with why in err. */
int tabrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer,
		struct strbuf *err);

#endif
