/*
 * What the tab-separated records share (tabrecord.h): field writers, the
 * line walk with its checks, strict number fields, the packer.
 */
#include "formats/tabrecord.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

void tabrec_put_text(struct strbuf *sb, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++)
		strbuf_addch(sb, s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ? '?' : s[i]);
}

void tabrec_put_kv(struct strbuf *sb, const char *kind, const char *key, const char *value)
{
	strbuf_addstr(sb, kind);
	strbuf_addch(sb, '\t');
	tabrec_put_text(sb, key, SIZE_MAX);
	strbuf_addch(sb, '=');
	tabrec_put_text(sb, value, SIZE_MAX);
	strbuf_addch(sb, '\n');
}

void tabrec_put_num(struct strbuf *sb, uint64_t v, bool neg, unsigned base)
{
	char buf[28];
	size_t n = sizeof(buf);

	do {
		buf[--n] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (base == 16) {
		buf[--n] = 'x';
		buf[--n] = '0';
	}
	if (neg)
		buf[--n] = '-';
	buf[--n] = '\t';
	strbuf_add(sb, buf + n, sizeof(buf) - n);
}

int tabrec_bad(const struct tabline *l, struct strbuf *err, const char *what)
{
	strbuf_addf(err, "%s:%d: %s", l->name, l->no, what);
	return -EINVAL;
}

int tabrec_u64(const struct tabline *l, int i, uint64_t *out, struct strbuf *err)
{
	const char *s = l->f[i];

	if (str_startswith(s, "0x")) {
		char *end;

		errno = 0;
		*out = strtoull(s + 2, &end, 16);
		if (s[2] && s[2] != '-' && s[2] != '+' && s[2] != ' ' && !*end && !errno)
			return 0;
	} else if (safe_atou64(s, out) == 0) {
		return 0;
	}
	strbuf_addf(err, "%s:%d: field %d '%s' is not a whole number", l->name, l->no, i + 1, s);
	return -EINVAL;
}

int tabrec_i64(const struct tabline *l, int i, int64_t lo, int64_t hi, int64_t *out, struct strbuf *err)
{
	if (safe_atoi64(l->f[i], out) == 0 && *out >= lo && *out <= hi)
		return 0;
	strbuf_addf(err, "%s:%d: field %d '%s' is not a number in %" PRId64 "..%" PRId64, l->name,
		    l->no, i + 1, l->f[i], lo, hi);
	return -EINVAL;
}

int tabrec_kv(struct kvfile *kf, const struct tabline *l, struct strbuf *err)
{
	char *eq = l->n == 2 ? strchr(l->f[1], '=') : NULL;

	if (!eq)
		return tabrec_bad(l, err, "want KEY=VALUE");
	*eq = '\0';
	if (!kvfile_valid_key(l->f[1]))
		return tabrec_bad(l, err, "not a valid key");
	if (kvfile_get(kf, l->f[1]))
		return tabrec_bad(l, err, "a key given twice");
	kvfile_add(kf, l->f[1], eq + 1);
	return 0;
}

int tabrec_pause(const struct tabline *l, struct rec_pause **pause, size_t *n, struct strbuf *err)
{
	bool is_pause = strcmp(l->f[0], "pause") == 0;
	struct rec_pause *last = *n ? &(*pause)[*n - 1] : NULL;
	uint64_t ns;

	if (l->n != 2 || tabrec_u64(l, 1, &ns, err) < 0)
		return tabrec_bad(l, err, is_pause ? "a pause line wants NS" : "a resume line wants NS");
	if (is_pause) {
		if (last && (last->to_ns == UINT64_MAX || ns < last->to_ns))
			return tabrec_bad(l, err, last->to_ns == UINT64_MAX ? "a pause while paused" :
					  "a pause before the last resume");
		*pause = xrealloc(*pause, (*n + 1) * sizeof(**pause));
		(*pause)[(*n)++] = (struct rec_pause){ ns, UINT64_MAX };
		return 0;
	}
	if (!last || last->to_ns != UINT64_MAX || ns < last->from_ns)
		return tabrec_bad(l, err, !last || last->to_ns != UINT64_MAX ? "a resume without a pause" :
				  "a resume before its pause");
	last->to_ns = ns;
	return 0;
}

bool rec_paused_in(const struct rec_pause *pause, size_t n, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < n; i++)
		if (pause[i].from_ns < e && pause[i].to_ns > s)
			return true;
	return false;
}

/* Splits a line in place at tabs into l->f (max fields); -1 past it. */
static int split(char *s, struct tabline *l, int max)
{
	l->n = 0;
	for (;;) {
		if (l->n == max)
			return -1;
		l->f[l->n++] = s;
		s = strchr(s, '\t');
		if (!s)
			return 0;
		*s++ = '\0';
	}
}

int tabrec_walk(const char *text, size_t len, const char *name, const char *what, int max_fields,
		tabrec_line_fn fn, void *rec, bool *cut, struct strbuf *err)
{
	char *copy = xstrndup(text, len), *p = copy;
	struct tabline l = { .name = name };
	int r = 0;

	*cut = false;
	if (strlen(copy) != len) {
		free(copy);
		strbuf_addf(err, "%s: a NUL byte in a text record", name);
		return -EINVAL;
	}
	l.f = xrealloc(NULL, (size_t)max_fields * sizeof(*l.f));
	while (*p && r == 0) {
		char *nl = strchr(p, '\n');

		l.no++;
		if (!nl) {
			*cut = true;
			break;
		}
		*nl = '\0';
		if (split(p, &l, max_fields) < 0)
			r = tabrec_bad(&l, err, "too many fields");
		else
			r = fn(&l, rec, err);
		p = nl + 1;
	}
	if (r == 0 && l.no == 0) {
		strbuf_addf(err, "%s:1: empty: not %s", name, what);
		r = -EINVAL;
	}
	free(l.f);
	free(copy);
	return r;
}

int tabrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer,
		struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT;
	char *data, *z;
	size_t len, cap, n;
	int r;

	r = read_file(live_path, &data, &len);
	if (r < 0) {
		strbuf_addf(err, "%s: %s", live_path, strerror(-r));
		return r;
	}
	strbuf_add(&raw, data, len);
	free(data);
	/* a line the writer did not finish is not data: cut it */
	while (raw.len && raw.buf[raw.len - 1] != '\n')
		raw.buf[--raw.len] = '\0';
	for (size_t i = 0; trailer && i < trailer->n; i++)
		tabrec_put_kv(&raw, "trailer", trailer->items[i].key, trailer->items[i].value);
	cap = ZSTD_compressBound(raw.len);
	z = xrealloc(NULL, cap ? cap : 1);
	n = ZSTD_compress(z, cap, raw.buf ? raw.buf : "", raw.len, 9);
	if (ZSTD_isError(n)) {
		strbuf_addf(err, "%s: zstd: %s", out_path, ZSTD_getErrorName(n));
		r = -EIO;
	} else if ((r = write_file_atomic(out_path, z, n, 0644)) < 0) {
		strbuf_addf(err, "%s: %s", out_path, strerror(-r));
	}
	free(z);
	strbuf_release(&raw);
	return r;
}
