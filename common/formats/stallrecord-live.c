/*
 * The stall record's live layout: the file in /dev/shm the recorder maps
 * and fills in place while the game runs, and reading one back (see
 * stallrecord.h and docs/formats.md, "Stall record").
 */
#include "formats/stallrecord.h"
#include "base/hash.h"
#include "formats/stallrecord-internal.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the live layout ---- */

static size_t live_row_bytes(uint32_t n_cols)
{
	return (size_t)n_cols * sizeof(int64_t);
}

int stallrec_live_create(struct stallrec_live *l, const char *path, const char *const *names,
			 const uint8_t *enc, size_t n_cols, uint64_t capacity, uint32_t str_cap,
			 uint32_t stack_cap, const char *meta, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct stallrec_live_header h;
	size_t len;
	int fd;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (str_cap >= ARRAY_SIZE(l->str_hash))
		str_cap = ARRAY_SIZE(l->str_hash) - 1;
	strbuf_addstr(&text, meta ? meta : "");
	if (text.len && text.buf[text.len - 1] != '\n')
		strbuf_addch(&text, '\n');
	strbuf_addstr(&text, "columns=");
	for (size_t c = 0; c < n_cols; c++)
		strbuf_addf(&text, "%s%s", c ? " " : "", names[c]);
	strbuf_addstr(&text, "\nencodings=");
	for (size_t c = 0; c < n_cols; c++)
		strbuf_addf(&text, "%s%u", c ? " " : "", enc ? enc[c] : 0);
	strbuf_addch(&text, '\n');
	if (sizeof(h) + text.len >= HB_STALLREC_LIVE_HDR) {
		strbuf_addf(err, "%s: the record's header text is too long (%zu bytes)", path,
			    text.len);
		strbuf_release(&text);
		return -E2BIG;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HB_STALLREC_LIVE_MAGIC, 8);
	h.version = HB_STALLREC_VERSION;
	h.n_cols = (uint32_t)n_cols;
	h.capacity = capacity;
	h.str_cap = str_cap;
	h.stack_cap = stack_cap;
	h.rows_off = HB_STALLREC_LIVE_HDR;
	h.str_off = h.rows_off + capacity * live_row_bytes(h.n_cols);
	h.stack_off = h.str_off + (uint64_t)str_cap * HB_STALLREC_STR_LEN;
	h.meta_len = (uint32_t)text.len;
	len = (size_t)(h.stack_off + (uint64_t)stack_cap * (16 + HB_STALLREC_STACK_LEN));
	/* never through a symlink: the recorder makes it as root in the game's
	 * staging directory, where the game user could have put one */
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		int e = errno;

		strbuf_addf(err, "cannot create '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		strbuf_release(&text);
		return -e;
	}
	l->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (l->map == MAP_FAILED) {
		int e = errno;

		strbuf_addf(err, "cannot map '%s': %s", path, strerror(e));
		close(fd);
		strbuf_release(&text);
		l->map = NULL;
		return -e;
	}
	l->fd = fd;
	l->map_len = len;
	l->h = l->map;
	memcpy(l->h, &h, sizeof(h));
	memcpy((char *)l->map + sizeof(h), text.buf, text.len);
	l->rows = (int64_t *)((char *)l->map + h.rows_off);
	l->str = (char *)l->map + h.str_off;
	l->stack = (unsigned char *)l->map + h.stack_off;
	strbuf_release(&text);
	return 0;
}

int64_t *stallrec_live_row(struct stallrec_live *l)
{
	uint64_t i = l->h->count;

	if (i >= l->h->capacity)
		return NULL;
	/* the pages are fresh zeroes the first time round: nothing to clear */
	return l->rows + i * l->h->n_cols;
}

void stallrec_live_commit(struct stallrec_live *l)
{
	atomic_store_explicit((_Atomic uint64_t *)&l->h->count, l->h->count + 1,
			      memory_order_release);
}

uint32_t stallrec_live_intern(struct stallrec_live *l, const char *s, size_t len)
{
	const size_t cap = ARRAY_SIZE(l->str_hash);
	uint32_t h, slot;
	char *dst;

	if (len == 0)
		return 0;
	if (len >= HB_STALLREC_STR_LEN)
		len = HB_STALLREC_STR_LEN - 1;
	h = fnv1a_32(s, len);
	for (size_t k = 0, i = h % cap; k < cap; k++, i = (i + 1) % cap) {
		uint32_t e = l->str_hash[i];

		if (e == 0) {
			if (l->h->n_str >= l->h->str_cap)
				return 0;
			/* slot 0 of the table is never used: string 0 is "" */
			slot = ++l->h->n_str;
			dst = l->str + (size_t)(slot - 1) * HB_STALLREC_STR_LEN;
			memcpy(dst, s, len);
			dst[len] = '\0';
			l->str_hash[i] = (h << 12) | slot;
			return slot;
		}
		slot = e & 0xfff;
		if ((e >> 12) == (h & 0xfffff)) {
			dst = l->str + (size_t)(slot - 1) * HB_STALLREC_STR_LEN;
			if (strncmp(dst, s, len) == 0 && dst[len] == '\0')
				return slot;
		}
	}
	return 0;
}

bool stallrec_live_stack(struct stallrec_live *l, int64_t t_us, uint32_t tid, const char *text,
			 size_t len)
{
	unsigned char *p;
	uint64_t t = (uint64_t)t_us;

	if (l->h->n_stack >= l->h->stack_cap)
		return false;
	if (len >= HB_STALLREC_STACK_LEN)
		len = HB_STALLREC_STACK_LEN - 1;
	p = l->stack + (size_t)l->h->n_stack * (16 + HB_STALLREC_STACK_LEN);
	memcpy(p, &t, 8);
	memcpy(p + 8, &tid, 4);
	memcpy(p + 16, text, len);
	p[16 + len] = '\0';
	l->h->n_stack++;
	return true;
}

void stallrec_live_close(struct stallrec_live *l)
{
	if (l->map)
		munmap(l->map, l->map_len);
	if (l->fd >= 0)
		close(l->fd);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

int sr_load_live(const char *path, const unsigned char *data, size_t len,
		     struct stallrec *out, struct strbuf *err)
{
	struct stallrec_live_header h;
	struct stallrec r;
	char *text;
	uint64_t rows;
	int ret;

	uint64_t rows_bytes, str_end, stack_bytes, file_end;

	memset(&h, 0, sizeof(h));
	memcpy(&h, data, len < sizeof(h) ? len : sizeof(h));
	/* the live layout is this machine's order and never leaves it: the
	 * recorder (or the runner, for a killed one) packs it */
	if (h.version != HB_STALLREC_VERSION && __builtin_bswap32(h.version) == HB_STALLREC_VERSION) {
		strbuf_addf(err, "%s: a live stall record of a machine of the other byte order "
			    "(only the packed %s travels)", path, HB_STALLREC_FILE);
		return -EINVAL;
	}
	/* every offset and size from the header checked against the file,
	 * in arithmetic that cannot wrap */
	if (len < HB_STALLREC_LIVE_HDR || h.version != HB_STALLREC_VERSION ||
	    sizeof(h) + h.meta_len >= HB_STALLREC_LIVE_HDR || h.rows_off != HB_STALLREC_LIVE_HDR ||
	    __builtin_mul_overflow(h.capacity, (uint64_t)live_row_bytes(h.n_cols), &rows_bytes) ||
	    __builtin_add_overflow(h.rows_off, rows_bytes, &str_end) || h.str_off != str_end ||
	    __builtin_add_overflow(h.str_off, (uint64_t)h.str_cap * HB_STALLREC_STR_LEN, &str_end) ||
	    h.stack_off != str_end ||
	    __builtin_mul_overflow((uint64_t)h.stack_cap, (uint64_t)(16 + HB_STALLREC_STACK_LEN),
				   &stack_bytes) ||
	    __builtin_add_overflow(h.stack_off, stack_bytes, &file_end) || len < file_end ||
	    h.count > h.capacity || (h.n_cols == 0 && h.count > 0) || h.n_str > h.str_cap ||
	    h.n_stack > h.stack_cap) {
		strbuf_addf(err, "%s: a live stall record with an inconsistent header", path);
		return -EINVAL;
	}
	stallrec_init(&r);
	text = zalloc((size_t)h.meta_len + 1);
	memcpy(text, data + sizeof(h), h.meta_len);
	ret = sr_parse_header(&r, text, err);
	free(text);
	if (ret < 0 || r.n_cols != h.n_cols) {
		stallrec_release(&r);
		if (ret == 0)
			strbuf_addstr(err, "the column count does not match");
		return -EINVAL;
	}
	rows = h.count;
	sr_reserve_rows(&r, (size_t)rows);
	for (uint64_t i = 0; i < rows; i++) {
		const unsigned char *row = data + h.rows_off + i * live_row_bytes(h.n_cols);

		for (size_t c = 0; c < r.n_cols; c++)
			memcpy(&r.v[c * r.rows_alloc + i], row + c * 8, 8);
	}
	r.n_rows = (size_t)rows;
	for (uint32_t i = 0; i < h.n_str; i++) {
		const char *s = (const char *)data + h.str_off + (size_t)i * HB_STALLREC_STR_LEN;

		sr_add_str(&r, xstrndup(s, HB_STALLREC_STR_LEN - 1));
	}
	for (uint32_t i = 0; i < h.n_stack; i++) {
		const unsigned char *p = data + h.stack_off + (size_t)i * (16 + HB_STALLREC_STACK_LEN);
		uint64_t t;
		uint32_t tid;
		char *s = xstrndup((const char *)p + 16, HB_STALLREC_STACK_LEN - 1);

		memcpy(&t, p, 8);
		memcpy(&tid, p + 8, 4);
		stallrec_add_stack(&r, (int64_t)t, tid, s);
		free(s);
	}
	*out = r;
	return 0;
}
