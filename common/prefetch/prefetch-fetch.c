/*
 * The fetch side of the game prefetch (prefetch.h): which pieces of a
 * list fit the budget, in what order they are read, and the reading loop
 * that gives way as soon as the machine needs its memory or the game is
 * gone. /proc is read through the swappable root, so every early stop is
 * tested on made-up numbers.
 */
#include "prefetch/prefetch.h"
#include "system/fsroot.h"
#include "system/procparse.h"
#include "base/timeutil.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMSTAT_BUF 32768

const char *pf_stop_name(enum pf_stop s)
{
	static const char *const names[] = {
		[PF_STOP_DONE] = "done",
		[PF_STOP_PRESSURE] = "memory-pressure",
		[PF_STOP_SWAP] = "swapping",
		[PF_STOP_TIMEOUT] = "timeout",
		[PF_STOP_GAME_EXIT] = "game-exit",
		[PF_STOP_SIGNAL] = "signal",
		[PF_STOP_NO_LIST] = "no-list",
		[PF_STOP_STALE] = "stale-list",
		[PF_STOP_NO_BUDGET] = "no-budget",
		[PF_STOP_IN_MEMORY] = "in-memory",
	};

	return (size_t)s < ARRAY_SIZE(names) ? names[s] : "?";
}

/* qsort's order for the planned reads: disk address, unknown ones last in
 * the order they were chosen (kept in .phys's place by seq). */
struct planned {
	struct pf_read r;
	size_t seq;
};

static int by_disk(const void *a, const void *b)
{
	const struct planned *x = a, *y = b;

	if (!x->r.phys != !y->r.phys)
		return x->r.phys ? -1 : 1;
	if (x->r.phys != y->r.phys)
		return x->r.phys < y->r.phys ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pf_plan(const struct pf_list *l, uint64_t *const *resident, const bool *skip,
	     uint64_t budget_pages, size_t page_size, struct pf_read **out, size_t *n,
	     uint64_t *listed_pages, uint64_t *chosen_pages)
{
	struct planned *p = NULL;
	size_t np = 0, alloc = 0;
	uint64_t left = budget_pages, listed = 0, chosen = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct pf_file *f = &l->files[i];

		if (skip && skip[i])
			continue;
		for (size_t j = 0; j < f->n; j++) {
			uint64_t pages = (f->ranges[j].len + page_size - 1) / page_size;
			uint64_t res = resident && resident[i] ? resident[i][j] : 0, need, len;

			listed += pages;
			if (res > pages)
				res = pages;
			need = pages - res;
			if (need == 0 || left == 0)
				continue;
			len = f->ranges[j].len;
			if (need > left) {
				/* what fits, from the range's start */
				len = left * page_size;
				need = left;
			}
			left -= need;
			chosen += need;
			if (np == alloc) {
				alloc = alloc ? alloc * 2 : 32;
				p = xrealloc(p, alloc * sizeof(*p));
			}
			p[np].r.file = i;
			p[np].r.off = f->ranges[j].off;
			p[np].r.len = len;
			p[np].r.phys = f->ranges[j].phys;
			p[np].seq = np;
			np++;
		}
	}
	if (np)
		qsort(p, np, sizeof(*p), by_disk);
	*out = np ? xrealloc(NULL, np * sizeof(**out)) : NULL;
	for (size_t k = 0; k < np; k++)
		(*out)[k] = p[k].r;
	*n = np;
	free(p);
	if (listed_pages)
		*listed_pages = listed;
	if (chosen_pages)
		*chosen_pages = chosen;
}

int pf_budget_pages(uint64_t mb, uint64_t reserve_mb, size_t page_size, uint64_t *pages)
{
	char buf[8192];
	uint64_t avail_kb, bytes;
	const char *p;
	ssize_t r = fsroot_read("proc/meminfo", buf, sizeof(buf));

	if (r < 0 && r != -EOVERFLOW)
		return (int)r;
	p = strstr(buf, "MemAvailable:");
	if (!p || sscanf(p + 13, "%" SCNu64, &avail_kb) != 1)
		return -ENODATA;
	bytes = mb << 20;
	if (avail_kb / 1024 <= reserve_mb)
		bytes = 0;
	else if ((avail_kb / 1024 - reserve_mb) << 20 < bytes)
		bytes = (avail_kb / 1024 - reserve_mb) << 20;
	*pages = bytes / page_size;
	return 0;
}

int pf_pressure_parse(const char *vmstat, struct pf_pressure *p)
{
	const char *line = vmstat;
	bool any = false;

	memset(p, 0, sizeof(*p));
	while (line && *line) {
		unsigned long long v;
		char name[64];

		if (sscanf(line, "%63s %llu", name, &v) == 2) {
			/* allocstall_dma32, allocstall_normal, ... and the old single
			 * allocstall; pgscan_direct (and pgscan_direct_throttle is not
			 * reclaim) */
			if (str_startswith(name, "allocstall") || strcmp(name, "pgscan_direct") == 0) {
				p->direct += v;
				any = true;
			} else if (strcmp(name, "pswpout") == 0) {
				p->pswpout = v;
				any = true;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return any ? 0 : -ENODATA;
}

static int pf_pressure_read(struct pf_pressure *p)
{
	char *buf = NULL;
	int r = fsroot_read_all("proc/vmstat", &buf);

	if (r == 0)
		r = pf_pressure_parse(buf, p);
	free(buf);
	return r;
}

bool pf_pid_alive(pid_t pid)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st) < 0)
		return false;
	return st.state != 'Z' && st.state != 'X';
}

static uint64_t now_of(struct pf_fetch *f)
{
	return f->now ? f->now(f->now_arg) : mono_ns();
}

/* The file's descriptor, opened at its first read; -1 when it cannot be
 * read or no longer is the file the list knew (its size or mtime). */
static int file_fd(struct pf_fetch *f, int *fds, size_t i)
{
	const struct pf_file *pf = &f->list->files[i];
	struct stat st;
	int fd;

	if (fds[i] != -2)
		return fds[i];
	fds[i] = -1;
	fd = pf_open(pf->path, &st);
	if (fd < 0)
		return -1;
	if ((uint64_t)st.st_size != pf->size || st.st_mtim.tv_sec != pf->mtime) {
		close(fd);
		return -1;
	}
	/* our reads are the whole of what we want: no readahead around them */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	fds[i] = fd;
	f->files++;
	return fd;
}

int pf_fetch_run(struct pf_fetch *f)
{
	struct pf_pressure p0, p;
	bool have_pressure;
	size_t nf = f->list->n;
	int *fds = xrealloc(NULL, (nf ? nf : 1) * sizeof(int));
	/* each file's last planned read, after which its descriptor is closed:
	 * the reads go in disk order across files, and a list may hold more
	 * files than a process may keep open */
	size_t *last = xrealloc(NULL, (nf ? nf : 1) * sizeof(size_t));
	char *buf = xrealloc(NULL, PREFETCH_READ_BYTES);
	uint64_t t0 = f->t0 ? f->t0 : now_of(f);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < nf; i++)
		fds[i] = -2;
	for (size_t k = 0; k < f->n_reads; k++)
		last[f->reads[k].file] = k;
	f->bytes = f->cached = 0;
	f->files = f->preads = f->failed = 0;
	f->why = PF_STOP_DONE;
	have_pressure = pf_pressure_read(&p0) == 0;
	for (size_t k = 0; k < f->n_reads && f->why == PF_STOP_DONE; k++) {
		const struct pf_read *rd = &f->reads[k];
		uint64_t off = rd->off, end = rd->off + rd->len;
		int fd = file_fd(f, fds, rd->file);

		if (fd < 0) {
			f->failed++;
			continue;
		}
		while (off < end) {
			size_t want = end - off > PREFETCH_READ_BYTES ? PREFETCH_READ_BYTES : end - off;
			uint64_t cached;
			ssize_t got;

			if (now_of(f) - t0 >= f->timeout_ns) {
				f->why = PF_STOP_TIMEOUT;
				break;
			}
			if (f->stop && f->stop(f->stop_arg)) {
				f->why = PF_STOP_SIGNAL;
				break;
			}
			if (f->game > 0 && !pf_pid_alive(f->game)) {
				f->why = PF_STOP_GAME_EXIT;
				break;
			}
			if (have_pressure && pf_pressure_read(&p) == 0) {
				if (p.pswpout > p0.pswpout) {
					f->why = PF_STOP_SWAP;
					break;
				}
				if (p.direct > p0.direct) {
					f->why = PF_STOP_PRESSURE;
					break;
				}
			}
			/* all in memory already (the game read it, or a range
			 * chosen for its other pages): nothing to read */
			if (pf_cachestat(fd, off, want, &cached) == 0 &&
			    cached >= (want + page - 1) / page) {
				f->cached += want;
				off += want;
				continue;
			}
			got = pread(fd, buf, want, (off_t)off);
			f->preads++;
			if (got <= 0) {
				f->failed++;
				break;
			}
			f->bytes += (uint64_t)got;
			off += (uint64_t)got;
		}
		if (last[rd->file] == k) {
			close(fd);
			fds[rd->file] = -1;
		}
	}
	f->ns = now_of(f) - t0;
	for (size_t i = 0; i < nf; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(last);
	free(buf);
	return 0;
}
