/*
 * The stall record in memory, its packed layout (stalls.rec.zst) and its
 * live layout (the recorder's file in /dev/shm). See stallrec.h and
 * docs/formats.md ("Stall record").
 */
#include "stallrec.h"
#include "unzstd.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define PACKED_MAGIC "HBSTALLS"

const char *const sr_col_names[SR_COUNT] = {
	[SR_T_US] = "t_us",
	[SR_RT_US] = "rt_us",
	[SR_PID] = "pid",
	[SR_FRAMES] = "frames",
	[SR_STATE] = "main.state",
	[SR_WCHAN] = "main.wchan",
	[SR_SYSCALL] = "main.syscall",
	[SR_FD] = "main.fd",
	[SR_MAIN_MINFLT] = "main.minflt",
	[SR_MAIN_MAJFLT] = "main.majflt",
	[SR_MAIN_UTIME] = "main.utime",
	[SR_MAIN_STIME] = "main.stime",
	[SR_MAIN_RUN_US] = "main.run_us",
	[SR_MAIN_RUNQ_US] = "main.runq_us",
	[SR_MAIN_CPU] = "main.cpu",
	[SR_PROC_MINFLT] = "proc.minflt",
	[SR_PROC_MAJFLT] = "proc.majflt",
	[SR_PROC_CPU_US] = "proc.cpu_us",
	[SR_PROC_THREADS] = "proc.threads",
	[SR_DLY_CPU_US] = "delay.cpu_us",
	[SR_DLY_BLKIO_US] = "delay.blkio_us",
	[SR_DLY_SWAPIN_US] = "delay.swapin_us",
	[SR_DLY_RECLAIM_US] = "delay.reclaim_us",
	[SR_DLY_THRASH_US] = "delay.thrashing_us",
	[SR_DLY_COMPACT_US] = "delay.compact_us",
	[SR_PSI_CPU_SOME] = "psi.cpu_some_us",
	[SR_PSI_IO_SOME] = "psi.io_some_us",
	[SR_PSI_IO_FULL] = "psi.io_full_us",
	[SR_PSI_MEM_SOME] = "psi.mem_some_us",
	[SR_PSI_MEM_FULL] = "psi.mem_full_us",
	[SR_VM_PSWPIN] = "vm.pswpin",
	[SR_VM_PSWPOUT] = "vm.pswpout",
	[SR_VM_PGMAJFAULT] = "vm.pgmajfault",
	[SR_VM_ALLOCSTALL] = "vm.allocstall",
	[SR_VM_PGSCAN_KSWAPD] = "vm.pgscan_kswapd",
	[SR_VM_PGSCAN_DIRECT] = "vm.pgscan_direct",
	[SR_VM_PGSCAN_KHUGEPAGED] = "vm.pgscan_khugepaged",
	[SR_VM_PGSCAN_ANON] = "vm.pgscan_anon",
	[SR_VM_PGSCAN_FILE] = "vm.pgscan_file",
	[SR_VM_PGSTEAL_KSWAPD] = "vm.pgsteal_kswapd",
	[SR_VM_PGSTEAL_DIRECT] = "vm.pgsteal_direct",
	[SR_VM_COMPACT_STALL] = "vm.compact_stall",
	[SR_VM_COMPACT_FAIL] = "vm.compact_fail",
	[SR_VM_COMPACT_SUCCESS] = "vm.compact_success",
	[SR_VM_PGMIGRATE_SUCCESS] = "vm.pgmigrate_success",
	[SR_VM_WORKINGSET_REFAULT] = "vm.workingset_refault",
	[SR_VM_WORKINGSET_ACTIVATE] = "vm.workingset_activate",
	[SR_VM_WORKINGSET_RESTORE] = "vm.workingset_restore",
	[SR_VM_CMA_ALLOC_SUCCESS] = "vm.cma_alloc_success",
	[SR_VM_CMA_ALLOC_FAIL] = "vm.cma_alloc_fail",
	[SR_VM_THP_FAULT_ALLOC] = "vm.thp_fault_alloc",
	[SR_VM_NR_FREE_PAGES] = "vm.nr_free_pages",
	[SR_VM_NR_DIRTY] = "vm.nr_dirty",
	[SR_VM_NR_WRITEBACK] = "vm.nr_writeback",
	[SR_X_PID] = "x.pid",
	[SR_X_STATE] = "x.state",
	[SR_X_MAJFLT] = "x.majflt",
	[SR_X_CPU_TICKS] = "x.cpu_ticks",
	[SR_X_WCHAN] = "x.wchan",
	[SR_KSWAPD_STATE] = "kswapd.state",
	[SR_KSWAPD_CPU_TICKS] = "kswapd.cpu_ticks",
	[SR_GPU_MEM_KIB] = "gpu.mem_kib",
	[SR_FULL] = "full",
};

const char *const sr_disk_field_names[SR_DISK_FIELDS] = {
	[SR_DISK_RD_IOS] = "rd_ios",
	[SR_DISK_RD_SECTORS] = "rd_sectors",
	[SR_DISK_WR_IOS] = "wr_ios",
	[SR_DISK_WR_SECTORS] = "wr_sectors",
	[SR_DISK_IN_FLIGHT] = "in_flight",
	[SR_DISK_IO_MS] = "io_ms",
};

/* ---- in memory ---- */

void stallrec_init(struct stallrec *r)
{
	memset(r, 0, sizeof(*r));
	r->version = HB_STALLREC_VERSION;
	kvfile_init(&r->meta);
	kvfile_init(&r->trailer);
	for (int c = 0; c < SR_COUNT; c++)
		r->known[c] = -1;
}

/* Appends a string the record owns (str[0], the empty string, first). */
static void add_str(struct stallrec *r, char *s)
{
	if (r->n_str == 0) {
		r->str = zalloc(sizeof(*r->str));
		r->str[0] = xstrdup("");
		r->n_str = 1;
	}
	r->str = xrealloc(r->str, (r->n_str + 1) * sizeof(*r->str));
	r->str[r->n_str++] = s;
}

void stallrec_release(struct stallrec *r)
{
	if (!r)
		return;
	kvfile_release(&r->meta);
	kvfile_release(&r->trailer);
	for (size_t c = 0; c < r->n_cols; c++)
		free(r->col_name[c]);
	free(r->col_name);
	free(r->col_enc);
	free(r->v);
	for (size_t i = 0; i < r->n_str; i++)
		free(r->str[i]);
	free(r->str);
	for (size_t i = 0; i < r->n_stack; i++)
		free(r->stack[i].text);
	free(r->stack);
	memset(r, 0, sizeof(*r));
}

int stallrec_set_columns(struct stallrec *r, const char *const *names, const uint8_t *enc,
			 size_t n)
{
	if (r->n_cols || r->n_rows)
		return -EINVAL;
	for (size_t c = 0; c < n; c++) {
		if (!names[c] || !*names[c] || (enc && enc[c] > SR_ENC_DELTA2))
			return -EINVAL;
		for (size_t d = 0; d < c; d++)
			if (strcmp(names[c], names[d]) == 0)
				return -EINVAL;
	}
	r->col_name = zalloc((n ? n : 1) * sizeof(*r->col_name));
	r->col_enc = zalloc(n ? n : 1);
	for (size_t c = 0; c < n; c++) {
		r->col_name[c] = xstrdup(names[c]);
		r->col_enc[c] = enc ? enc[c] : SR_ENC_DELTA;
		for (int k = 0; k < SR_COUNT; k++)
			if (strcmp(names[c], sr_col_names[k]) == 0)
				r->known[k] = (int)c;
	}
	r->n_cols = n;
	return 0;
}

/* Grows every column to hold rows rows. */
static void reserve_rows(struct stallrec *r, size_t rows)
{
	int64_t *v;
	size_t bytes;

	if (rows <= r->rows_alloc)
		return;
	if (rows < 2 * r->rows_alloc)
		rows = 2 * r->rows_alloc;
	if (rows < 256)
		rows = 256;
	/* callers bound rows by what a file holds; a product that wraps is a bug */
	if (__builtin_mul_overflow(r->n_cols ? r->n_cols : 1, rows, &bytes) ||
	    __builtin_mul_overflow(bytes, sizeof(*v), &bytes))
		abort();
	v = zalloc(bytes);
	for (size_t c = 0; r->n_rows && c < r->n_cols; c++)
		memcpy(v + c * rows, r->v + c * r->rows_alloc, r->n_rows * sizeof(*v));
	free(r->v);
	r->v = v;
	r->rows_alloc = rows;
}

void stallrec_add_row(struct stallrec *r, const int64_t *values)
{
	reserve_rows(r, r->n_rows + 1);
	for (size_t c = 0; c < r->n_cols; c++)
		r->v[c * r->rows_alloc + r->n_rows] = values[c];
	r->n_rows++;
}

uint32_t stallrec_intern(struct stallrec *r, const char *s)
{
	if (!s || !*s)
		return 0;
	for (size_t i = 1; i < r->n_str; i++)
		if (strcmp(r->str[i], s) == 0)
			return (uint32_t)i;
	add_str(r, xstrdup(s));
	return (uint32_t)(r->n_str - 1);
}

void stallrec_add_stack(struct stallrec *r, int64_t t_us, uint32_t tid, const char *text)
{
	r->stack = xrealloc(r->stack, (r->n_stack + 1) * sizeof(*r->stack));
	r->stack[r->n_stack].t_us = t_us;
	r->stack[r->n_stack].tid = tid;
	r->stack[r->n_stack].text = xstrdup(text ? text : "");
	r->n_stack++;
}

int stallrec_find(const struct stallrec *r, const char *name)
{
	for (size_t c = 0; c < r->n_cols; c++)
		if (strcmp(r->col_name[c], name) == 0)
			return (int)c;
	return -1;
}

const int64_t *stallrec_col(const struct stallrec *r, int c)
{
	if (c < 0 || (size_t)c >= r->n_cols)
		return NULL;
	return r->v + (size_t)c * r->rows_alloc;
}

int64_t stallrec_at(const struct stallrec *r, enum sr_col c, size_t i)
{
	int k = (unsigned)c < SR_COUNT ? r->known[c] : -1;

	if (k < 0 || i >= r->n_rows)
		return 0;
	return r->v[(size_t)k * r->rows_alloc + i];
}

const char *stallrec_str(const struct stallrec *r, int64_t id)
{
	if (id <= 0 || (uint64_t)id >= r->n_str)
		return "";
	return r->str[id];
}

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
static int parse_header(struct stallrec *r, const char *text, struct strbuf *err)
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
	ret = parse_header(&r, text, err);
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
	reserve_rows(&r, (size_t)rows);
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
		add_str(&r, s);
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

static int load_live(const char *path, const unsigned char *data, size_t len,
		     struct stallrec *out, struct strbuf *err);

/* A live record: mapped, not read, since most of its file is room for
 * rows never written. */
static int load_live_file(const char *path, struct stallrec *out, struct strbuf *err)
{
	struct stat st;
	void *map;
	int fd = open_regular(path), r;

	if (fd < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (st.st_size < HB_STALLREC_LIVE_HDR) {
		close(fd);
		strbuf_addf(err, "%s: a live stall record cut short", path);
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		strbuf_addf(err, "cannot map '%s': %s", path, strerror(errno));
		return -errno;
	}
	r = load_live(path, map, (size_t)st.st_size, out, err);
	munmap(map, (size_t)st.st_size);
	return r;
}

int stallrec_parse_bytes(const void *data, size_t len, const char *path, struct stallrec *out,
			 struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT, why = STRBUF_INIT;
	const char *zwhy = NULL;
	int r;

	if (len >= 8 && memcmp(data, HB_STALLREC_LIVE_MAGIC, 8) == 0)
		return load_live(path, data, len, out, err);
	r = unzstd(data, len, HB_STALLREC_MAX_PACKED, &raw, &zwhy);
	if (r < 0) {
		strbuf_addf(err, "%s: not a stall record (%s)", path, zwhy);
		goto out;
	}
	r = stallrec_parse_packed(raw.buf, raw.len, out, &why);
	if (r < 0)
		strbuf_addf(err, "%s: %s", path, why.buf);
out:
	strbuf_release(&why);
	strbuf_release(&raw);
	return r;
}

int stallrec_load(const char *path, struct stallrec *out, struct strbuf *err)
{
	unsigned char magic[8];
	char *data = NULL;
	size_t len = 0;
	ssize_t n;
	int r, fd;

	fd = open_regular(path);
	if (fd < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-fd));
		return fd;
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n == (ssize_t)sizeof(magic) && memcmp(magic, HB_STALLREC_LIVE_MAGIC, 8) == 0)
		return load_live_file(path, out, err);
	r = read_file(path, &data, &len);
	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	r = stallrec_parse_bytes(data, len, path, out, err);
	free(data);
	return r;
}

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
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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

/* FNV-1a, 32 bits: the string table's index. */
static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
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
	h = str_hash(s, len);
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

static int load_live(const char *path, const unsigned char *data, size_t len,
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
	ret = parse_header(&r, text, err);
	free(text);
	if (ret < 0 || r.n_cols != h.n_cols) {
		stallrec_release(&r);
		if (ret == 0)
			strbuf_addstr(err, "the column count does not match");
		return -EINVAL;
	}
	rows = h.count;
	reserve_rows(&r, (size_t)rows);
	for (uint64_t i = 0; i < rows; i++) {
		const unsigned char *row = data + h.rows_off + i * live_row_bytes(h.n_cols);

		for (size_t c = 0; c < r.n_cols; c++)
			memcpy(&r.v[c * r.rows_alloc + i], row + c * 8, 8);
	}
	r.n_rows = (size_t)rows;
	for (uint32_t i = 0; i < h.n_str; i++) {
		const char *s = (const char *)data + h.str_off + (size_t)i * HB_STALLREC_STR_LEN;

		add_str(&r, xstrndup(s, HB_STALLREC_STR_LEN - 1));
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
