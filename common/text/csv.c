/*
 * The CSV reader of csv.h: one pass over the caller's buffer, a record at
 * a time, copying the unquoted bytes of its fields into one buffer that is
 * grown before the record (to what its bytes could need at most), so the
 * field pointers handed out never move while the record is read; and the
 * writer, which quotes a field only when the reader needs it to.
 */
#include "text/csv.h"
#include "base/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void csv_init(struct csv *c, const char *text, size_t len, unsigned flags)
{
	memset(c, 0, sizeof(*c));
	c->p = text;
	c->end = text + len;
	c->flags = flags & CSV_BLANKS ? flags | CSV_TRIM : flags;
	c->line = 1;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		c->p += 3;
}

void csv_release(struct csv *c)
{
	free(c->buf);
	free(c->f);
	c->buf = NULL;
	c->f = NULL;
	c->alloc = c->alloc_f = 0;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Whether p is at a line break: LF, CRLF, or a CR that ends the buffer. */
static size_t line_break(const struct csv *c, const char *p)
{
	if (p >= c->end)
		return 0;
	if (*p == '\n')
		return 1;
	if (*p == '\r')
		return p + 1 == c->end ? 1 : p[1] == '\n' ? 2 : 0;
	return 0;
}

static int fail(struct csv *c, int err, int line, const char *why)
{
	c->why = why;
	c->err_line = line;
	c->p = c->end;
	return err;
}

/* Room for a record starting at c->p: its bytes, one NUL per field (at
 * most one per byte, and one more), and the field pointers. */
static void reserve(struct csv *c)
{
	size_t left = (size_t)(c->end - c->p);
	size_t need = 2 * (left < CSV_MAX_RECORD ? left : CSV_MAX_RECORD) + 2;

	if (need > c->alloc) {
		c->alloc = need;
		c->buf = xrealloc(c->buf, need);
	}
	if (!c->f) {
		c->alloc_f = 16;
		c->f = xrealloc(NULL, c->alloc_f * sizeof(*c->f));
	}
}

static int add_field(struct csv *c, size_t *n, char *start)
{
	if (*n == CSV_MAX_FIELDS)
		return -E2BIG;
	if (*n == c->alloc_f) {
		c->alloc_f *= 2;
		c->f = xrealloc(c->f, c->alloc_f * sizeof(*c->f));
	}
	c->f[(*n)++] = start;
	return 0;
}

static int read_record(struct csv *c, struct csv_record *rec)
{
	const char *p = c->p, *start = c->p;
	const bool blanks = c->flags & CSV_BLANKS, trim = c->flags & CSV_TRIM;
	char *w = c->buf;
	size_t n = 0, brk;

	memset(rec, 0, sizeof(*rec));
	rec->line = c->line;
	if (blanks)
		while (p < c->end && is_blank(*p))
			p++;
	for (;;) {
		char *field = w;
		const char *q;

		if (trim)
			while (p < c->end && is_blank(*p))
				p++;
		if (blanks && (p == c->end || line_break(c, p)))
			break; /* blanks at the end of a record separate nothing */
		if (p < c->end && *p == '"') {
			for (p++;; p++) {
				if (p == c->end) {
					rec->open_quote = true;
					break;
				}
				if (*p == '"') {
					if (p + 1 < c->end && p[1] == '"') {
						*w++ = '"';
						p++;
						continue;
					}
					p++;
					break;
				}
				if (*p == '\0')
					return fail(c, -EINVAL, c->line, "a NUL byte");
				if (*p == '\n')
					c->line++;
				if ((size_t)(p - start) >= CSV_MAX_RECORD)
					return fail(c, -E2BIG, rec->line, "a record longer than CSV_MAX_RECORD bytes");
				*w++ = *p;
			}
			q = p;
			while (p < c->end && is_blank(*p))
				p++;
			if (p < c->end && !line_break(c, p) && !(blanks ? p > q : *p == ','))
				return fail(c, -EINVAL, c->line, "something after a closing quote");
		} else {
			while (p < c->end && !(blanks ? is_blank(*p) : *p == ',') && !line_break(c, p)) {
				if (*p == '\0')
					return fail(c, -EINVAL, c->line, "a NUL byte");
				if ((size_t)(p - start) >= CSV_MAX_RECORD)
					return fail(c, -E2BIG, rec->line, "a record longer than CSV_MAX_RECORD bytes");
				*w++ = *p++;
			}
			if (trim)
				while (w > field && is_blank(w[-1]))
					w--;
		}
		*w++ = '\0';
		if (add_field(c, &n, field) < 0)
			return fail(c, -E2BIG, rec->line, "more than CSV_MAX_FIELDS fields");
		if (p == c->end || line_break(c, p))
			break;
		if (!blanks)
			p++; /* the comma; blanks are skipped as the next field starts */
	}
	rec->last_line = c->line;
	if ((brk = line_break(c, p))) {
		p += brk;
		c->line++;
	} else {
		rec->cut = true;
	}
	c->p = p;
	rec->f = c->f;
	rec->n = n;
	return 1;
}

int csv_next(struct csv *c, struct csv_record *rec)
{
	for (;;) {
		int r;

		if (c->p >= c->end)
			return 0;
		reserve(c);
		r = read_record(c, rec);
		if (r <= 0)
			return r;
		if (!(c->flags & CSV_SKIP_EMPTY) || rec->n > 1 || (rec->n == 1 && *rec->f[0]) ||
		    rec->open_quote)
			return 1;
	}
}

void csv_write_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
