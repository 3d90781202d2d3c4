/*
 * The stall record in memory, and loading a record of either layout from
 * a file or from bytes (see stallrecord.h and docs/formats.md, "Stall
 * record"). The layouts themselves are stallrecord-packed.c and
 * stallrecord-live.c.
 */
#include "formats/stallrecord.h"
#include "formats/stallrecord-internal.h"
#include "base/unzstd.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
void sr_add_str(struct stallrec *r, char *s)
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
void sr_reserve_rows(struct stallrec *r, size_t rows)
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
	sr_reserve_rows(r, r->n_rows + 1);
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
	sr_add_str(r, xstrdup(s));
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
	r = sr_load_live(path, map, (size_t)st.st_size, out, err);
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
		return sr_load_live(path, data, len, out, err);
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
	struct strbuf raw = STRBUF_INIT, why = STRBUF_INIT;
	unsigned char magic[8];
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
	r = read_maybe_zstd(path, "a stall record", HB_STALLREC_MAX_PACKED, false, &raw, err);
	if (r == 0) {
		r = stallrec_parse_packed(raw.buf, raw.len, out, &why);
		if (r < 0)
			strbuf_addf(err, "%s: %s", path, why.buf);
	}
	strbuf_release(&why);
	strbuf_release(&raw);
	return r;
}
