/*
 * The stall record's packed layout, the run directory's stalls.rec.zst:
 * written once when the recorder ends, read by the analysis (see
 * stallrecord.h and docs/formats.md, "Stall record").
 */
#include "formats/stallrecord.h"
#include "formats/stallrecord-internal.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PACKED_MAGIC "HBSTALLS"

/* ---- the packed layout ---- */

static void put_u32(struct strbuf *sb, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };

	strbuf_add(sb, b, 4);
}

static void put_u64(struct strbuf *sb, uint64_t v)
{
	put_u32(sb, (uint32_t)v);
	put_u32(sb, (uint32_t)(v >> 32));
}

static void put_varint(struct strbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (unsigned char)v;
	strbuf_add(sb, b, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void put_text(struct strbuf *sb, const char *text)
{
	put_u32(sb, (uint32_t)strlen(text));
	strbuf_addstr(sb, text);
}

/* The header text: the meta pairs, then the columns and their encodings. */
static char *header_text(const struct stallrec *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct kvfile meta;
	char *text;

	/* a loaded record's meta holds the columns line it was read with */
	kvfile_init(&meta);
	for (size_t i = 0; i < r->meta.n; i++)
		if (strcmp(r->meta.items[i].key, "columns") != 0 &&
		    strcmp(r->meta.items[i].key, "encodings") != 0)
			kvfile_add(&meta, r->meta.items[i].key, r->meta.items[i].value);
	text = kvfile_format(&meta);
	strbuf_addstr(&sb, text);
	free(text);
	kvfile_release(&meta);
	strbuf_addstr(&sb, "columns=");
	for (size_t c = 0; c < r->n_cols; c++)
		strbuf_addf(&sb, "%s%s", c ? " " : "", r->col_name[c]);
	strbuf_addstr(&sb, "\nencodings=");
	for (size_t c = 0; c < r->n_cols; c++)
		strbuf_addf(&sb, "%s%u", c ? " " : "", r->col_enc[c]);
	strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb);
}

static void pack(const struct stallrec *r, struct strbuf *sb)
{
	char *text = header_text(r);

	strbuf_add(sb, PACKED_MAGIC, 8);
	put_u32(sb, HB_STALLREC_VERSION);
	put_text(sb, text);
	free(text);
	put_u64(sb, r->n_rows);
	put_u32(sb, (uint32_t)r->n_cols);
	for (size_t c = 0; c < r->n_cols; c++) {
		const int64_t *v = stallrec_col(r, (int)c);
		int64_t prev = 0, prev_d = 0;

		for (size_t i = 0; i < r->n_rows; i++) {
			int64_t d = (int64_t)((uint64_t)v[i] - (uint64_t)prev);

			put_varint(sb, zigzag(r->col_enc[c] == SR_ENC_DELTA2 ?
					      (int64_t)((uint64_t)d - (uint64_t)prev_d) : d));
			prev = v[i];
			prev_d = d;
		}
	}
	put_u32(sb, (uint32_t)(r->n_str ? r->n_str - 1 : 0));
	for (size_t i = 1; i < r->n_str; i++)
		put_text(sb, r->str[i]);
	put_u32(sb, (uint32_t)r->n_stack);
	for (size_t i = 0; i < r->n_stack; i++) {
		put_u64(sb, (uint64_t)r->stack[i].t_us);
		put_u32(sb, r->stack[i].tid);
		put_text(sb, r->stack[i].text);
	}
	text = kvfile_format(&r->trailer);
	put_text(sb, text);
	free(text);
}

int stallrec_write(const struct stallrec *r, const char *path, struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT;
	size_t cap, n;
	void *z;
	int ret;

	pack(r, &raw);
	cap = ZSTD_compressBound(raw.len);
	z = zalloc(cap ? cap : 1);
	/* level 19 packs a 5-minute record (2 MB of varints) in about 0.1 s
	 * and saves a tenth over level 9; hours of samples take level 9, so
	 * that packing stays within the seconds a recorder is given to stop */
	n = ZSTD_compress(z, cap, raw.buf, raw.len, raw.len <= (16u << 20) ? 19 : 9);
	if (ZSTD_isError(n)) {
		strbuf_addf(err, "%s: zstd: %s", path, ZSTD_getErrorName(n));
		ret = -EIO;
	} else {
		ret = write_file_atomic(path, z, n, 0644);
		if (ret < 0)
			strbuf_addf(err, "cannot write '%s': %s", path, strerror(-ret));
	}
	free(z);
	strbuf_release(&raw);
	return ret;
}

/* A bounds-checked reader of the packed bytes. */
struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t get_u32(struct cursor *c)
{
	uint32_t v;

	if (c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
	    (uint32_t)c->p[3] << 24;
	c->p += 4;
	return v;
}

static uint64_t get_u64(struct cursor *c)
{
	uint64_t lo = get_u32(c);

	return lo | (uint64_t)get_u32(c) << 32;
}

static uint64_t get_varint(struct cursor *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* A length-prefixed text, copied; NULL when it overruns. */
static char *get_text(struct cursor *c)
{
	uint32_t n = get_u32(c);
	char *s;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	s = zalloc((size_t)n + 1);
	memcpy(s, c->p, n);
	c->p += n;
	return s;
}

/* Splits the header text's columns and encodings lines off into r. */
int sr_parse_header(struct stallrec *r, const char *text, struct strbuf *err)
{
	const char *cols, *encs;
	char **names = NULL;
	uint8_t *enc = NULL;
	size_t n = 0, ne = 0;
	char *dup, *tok, *save;
	int line, ret;

	if (kvfile_parse(&r->meta, text, &line) < 0) {
		strbuf_addf(err, "header line %d is not key=value", line);
		return -EINVAL;
	}
	cols = kvfile_get(&r->meta, "columns");
	encs = kvfile_get(&r->meta, "encodings");
	if (!cols || !encs) {
		strbuf_addstr(err, "the header has no columns or encodings line");
		return -EINVAL;
	}
	dup = xstrdup(cols);
	for (tok = strtok_r(dup, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = tok;
	}
	enc = zalloc(n ? n : 1);
	{
		char *edup = xstrdup(encs), *s2;
		int v;

		for (tok = strtok_r(edup, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
			if (ne >= n || safe_atoi(tok, &v) < 0 || v < 0 || v > SR_ENC_DELTA2) {
				ne = n + 1;
				break;
			}
			enc[ne++] = (uint8_t)v;
		}
		free(edup);
	}
	ret = ne == n ? stallrec_set_columns(r, (const char *const *)names, enc, n) : -EINVAL;
	if (ret < 0)
		strbuf_addstr(err, "the header's columns or encodings are malformed");
	free(names);
	free(enc);
	free(dup);
	return ret;
}

int stallrec_parse_packed(const void *data, size_t len, struct stallrec *out, struct strbuf *err)
{
	struct cursor c = { data, (const unsigned char *)data + len, false };
	struct stallrec r;
	uint64_t rows;
	uint32_t ncols, n;
	char *text;
	int ret = -EINVAL;

	stallrec_init(&r);
	if (len < 12 || memcmp(data, PACKED_MAGIC, 8) != 0) {
		strbuf_addstr(err, "not a stall record (no HBSTALLS magic)");
		goto out;
	}
	c.p += 8;
	r.version = get_u32(&c);
	if (r.version != HB_STALLREC_VERSION) {
		strbuf_addf(err, "stall record version %u; this hitchbench reads version %d",
			    r.version, HB_STALLREC_VERSION);
		goto out;
	}
	text = get_text(&c);
	if (!text)
		goto truncated;
	ret = sr_parse_header(&r, text, err);
	free(text);
	if (ret < 0)
		goto out;
	ret = -EINVAL;
	rows = get_u64(&c);
	ncols = get_u32(&c);
	/* every value takes a byte at least: rows x columns bytes must be
	 * there (a product that cannot wrap), and rows need a column */
	if (c.bad || ncols != r.n_cols || (r.n_cols == 0 && rows > 0) ||
	    (r.n_cols && rows > (uint64_t)(c.end - c.p) / r.n_cols)) {
		strbuf_addstr(err, "the row or column count does not match the data");
		goto out;
	}
	sr_reserve_rows(&r, (size_t)rows);
	r.n_rows = (size_t)rows;
	for (size_t col = 0; col < r.n_cols; col++) {
		int64_t *v = r.v + col * r.rows_alloc, prev = 0, prev_d = 0;

		for (size_t i = 0; i < r.n_rows; i++) {
			int64_t x = unzigzag(get_varint(&c));
			int64_t d = r.col_enc[col] == SR_ENC_DELTA2 ?
				    (int64_t)((uint64_t)prev_d + (uint64_t)x) : x;

			v[i] = (int64_t)((uint64_t)prev + (uint64_t)d);
			prev = v[i];
			prev_d = d;
		}
	}
	n = get_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		char *s = get_text(&c);

		if (!s)
			break;
		sr_add_str(&r, s);
	}
	n = get_u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		int64_t t = (int64_t)get_u64(&c);
		uint32_t tid = get_u32(&c);
		char *s = get_text(&c);

		if (!s)
			break;
		stallrec_add_stack(&r, t, tid, s);
		free(s);
	}
	text = get_text(&c);
	if (!text)
		goto truncated;
	if (kvfile_parse(&r.trailer, text, NULL) < 0) {
		free(text);
		strbuf_addstr(err, "the trailer is not key=value text");
		goto out;
	}
	free(text);
	if (c.bad)
		goto truncated;
	*out = r;
	return 0;
truncated:
	strbuf_addstr(err, "the record is truncated");
	ret = -EINVAL;
out:
	stallrec_release(&r);
	return ret;
}
