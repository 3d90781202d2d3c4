/*
 * Where a file's cached pages are and where they sit on the disk: the
 * prefetch learns a game's files as ranges of pages it had in memory and
 * reads them back in the order of their disk addresses (prefetch.h).
 * cachestat(2) counts cached pages without mapping the file (Linux 6.5+);
 * mincore on a private mapping gives the page map itself, which is what
 * ranges need, and the count where cachestat is missing.
 */
#include "prefetch/prefetch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

bool pf_force_mincore;

/* The kernel's uapi structures of cachestat (linux/mman.h on 6.5+ headers;
 * Debian 12's headers predate them). */
struct pf_cachestat_range {
	uint64_t off, len;
};
struct pf_cachestat_out {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

static void range_push(struct pf_range **v, size_t *n, size_t *alloc, uint64_t off, uint64_t len,
		       uint64_t phys)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		*v = xrealloc(*v, *alloc * sizeof(**v));
	}
	(*v)[*n].off = off;
	(*v)[*n].len = len;
	(*v)[*n].phys = phys;
	(*n)++;
}

int pf_ranges_from_pages(const unsigned char *vec, size_t npages, size_t page_size,
			 uint64_t file_size, uint64_t hole_bytes, struct pf_range **out, size_t *n)
{
	struct pf_range *v = NULL;
	size_t nv = 0, alloc = 0, i = 0;

	if (!page_size)
		return -EINVAL;
	while (i < npages) {
		size_t start, end;

		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		start = i;
		while (i < npages && (vec[i] & 1))
			i++;
		end = i;
		/* a short hole before the next run: the run goes on */
		for (;;) {
			size_t j = end;

			while (j < npages && !(vec[j] & 1))
				j++;
			if (j == npages || (uint64_t)(j - end) * page_size >= hole_bytes)
				break;
			while (j < npages && (vec[j] & 1))
				j++;
			end = j;
		}
		i = end;
		{
			uint64_t off = (uint64_t)start * page_size, stop = (uint64_t)end * page_size;

			if (file_size && stop > file_size)
				stop = file_size;
			if (stop > off)
				range_push(&v, &nv, &alloc, off, stop - off, 0);
		}
	}
	*out = v;
	*n = nv;
	return 0;
}

void pf_ranges_union(const struct pf_range *a, size_t na, const struct pf_range *b, size_t nb,
		     struct pf_range **out, size_t *n)
{
	struct pf_range *v = NULL;
	size_t nv = 0, alloc = 0, i = 0, j = 0;

	while (i < na || j < nb) {
		const struct pf_range *r;

		if (j >= nb || (i < na && a[i].off <= b[j].off))
			r = &a[i++];
		else
			r = &b[j++];
		if (nv && r->off <= v[nv - 1].off + v[nv - 1].len) {
			uint64_t end = r->off + r->len;

			if (end > v[nv - 1].off + v[nv - 1].len)
				v[nv - 1].len = end - v[nv - 1].off;
			if (!v[nv - 1].phys && r->off == v[nv - 1].off)
				v[nv - 1].phys = r->phys;
		} else {
			range_push(&v, &nv, &alloc, r->off, r->len, r->phys);
		}
	}
	*out = v;
	*n = nv;
}

/* Whether mincore tells this process the truth about a file's pages:
 * since Linux 5.0 it reports every page of a file mapping as resident
 * unless the caller owns the file, may write it, or has CAP_FOWNER (root
 * is taken to have it), so that it leaks nothing of other users' reads. */
static bool mincore_truthful(int fd)
{
	struct stat st;
	char self[64];

	if (geteuid() == 0)
		return true;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid())
		return true;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	return faccessat(AT_FDCWD, self, W_OK, AT_EACCESS) == 0;
}

int pf_mincore(int fd, uint64_t size, unsigned char **vec, size_t *npages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), np;
	unsigned char *v;
	void *map;

	*vec = NULL;
	*npages = 0;
	if (size == 0)
		return 0;
	if (!mincore_truthful(fd))
		return -EACCES;
	np = (size + page - 1) / page;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	v = zalloc(np);
	if (mincore(map, size, v) < 0) {
		int e = errno;

		munmap(map, size);
		free(v);
		return -e;
	}
	munmap(map, size);
	*vec = v;
	*npages = np;
	return 0;
}

int pf_open(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME | O_NONBLOCK);

	if (fd < 0 && errno == EPERM)   /* O_NOATIME: only on one's own files */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int pf_cachestat(int fd, uint64_t off, uint64_t len, uint64_t *pages)
{
	struct pf_cachestat_range r = { off, len };
	struct pf_cachestat_out cs;

	if (pf_force_mincore)
		return -ENOSYS;
	memset(&cs, 0, sizeof(cs));
	if (syscall(__NR_cachestat, fd, &r, &cs, 0) < 0)
		return -errno;
	*pages = cs.nr_cache;
	return 0;
}

/* vec[first, first + np) from cachestat: a piece all in memory or all out
 * is filled at once, one partly in is halved, so the calls grow with the
 * edges between cached and uncached runs, not with the pages. */
static int cachestat_fill(int fd, size_t page, size_t first, size_t np, unsigned char *vec)
{
	uint64_t cached;
	int r = pf_cachestat(fd, (uint64_t)first * page, (uint64_t)np * page, &cached);

	if (r < 0)
		return r;
	if (cached == 0 || cached >= np || np == 1) {
		memset(vec + first, cached ? 1 : 0, np);
		return 0;
	}
	r = cachestat_fill(fd, page, first, np / 2, vec);
	return r < 0 ? r : cachestat_fill(fd, page, first + np / 2, np - np / 2, vec);
}

int pf_page_vec(int fd, uint64_t size, unsigned char **vec, size_t *npages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), np;
	int r = pf_mincore(fd, size, vec, npages);

	if (r != -EACCES)
		return r;
	np = (size + page - 1) / page;
	*vec = zalloc(np);
	r = cachestat_fill(fd, page, 0, np, *vec);
	if (r < 0) {
		free(*vec);
		*vec = NULL;
		/* neither can tell: no cachestat, or one that keeps the same
		 * rule as mincore (newer kernels) */
		return r == -ENOSYS || r == -EPERM ? -EACCES : r;
	}
	*npages = np;
	return 0;
}

int pf_ranges_resident(int fd, uint64_t size, const struct pf_range *ranges, size_t n,
		       uint64_t *pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), np;
	unsigned char *vec;
	int r = n ? pf_cachestat(fd, ranges[0].off, ranges[0].len, &pages[0]) : 0;

	if (r == 0) {
		for (size_t j = 1; j < n && r == 0; j++)
			r = pf_cachestat(fd, ranges[j].off, ranges[j].len, &pages[j]);
		return r;
	}
	if (r != -ENOSYS)
		return r;
	/* no cachestat: one page map of the file for all its ranges */
	r = pf_page_vec(fd, size, &vec, &np);
	if (r < 0)
		return r;
	for (size_t j = 0; j < n; j++) {
		size_t first = ranges[j].off / page, last = (ranges[j].off + ranges[j].len + page - 1) / page;

		pages[j] = 0;
		for (size_t i = first; i < last && i < np; i++)
			pages[j] += vec[i] & 1;
	}
	free(vec);
	return 0;
}

int pf_resident_pages(int fd, uint64_t size, uint64_t off, uint64_t len, uint64_t *pages)
{
	struct pf_range r = { .off = off, .len = len };

	if (len == 0) {
		*pages = 0;
		return 0;
	}
	return pf_ranges_resident(fd, size, &r, 1, pages);
}

int pf_fiemap_phys(int fd, uint64_t off, uint64_t *phys)
{
	/* struct fiemap and room for one extent after it (its flexible array) */
	uint64_t buf[(sizeof(struct fiemap) + sizeof(struct fiemap_extent)) / sizeof(uint64_t) + 1];
	struct fiemap *fm = (struct fiemap *)buf;
	struct fiemap_extent *ext = fm->fm_extents;

	memset(buf, 0, sizeof(buf));
	fm->fm_start = off;
	fm->fm_length = 1;
	fm->fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return -errno;
	if (fm->fm_mapped_extents == 0)
		return -ENODATA;
	/* no place on the disk of its own: not written yet, or kept inside
	 * the inode */
	if (ext[0].fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_DATA_INLINE |
			       FIEMAP_EXTENT_DATA_TAIL))
		return -ENODATA;
	if (off < ext[0].fe_logical)
		/* off lies in a hole before this extent */
		return -ENODATA;
	*phys = ext[0].fe_physical;
	/* an encoded (compressed) extent's bytes are not laid out in file
	 * order: its start is the best address there is */
	if (!(ext[0].fe_flags & FIEMAP_EXTENT_ENCODED))
		*phys += off - ext[0].fe_logical;
	return 0;
}

int pf_file_ranges(int fd, uint64_t size, struct pf_range **out, size_t *n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), np;
	unsigned char *vec;
	uint64_t cached;
	int r;

	*out = NULL;
	*n = 0;
	/* nothing cached: no mapping needed */
	if (size == 0 || (pf_cachestat(fd, 0, size, &cached) == 0 && cached == 0))
		return 0;
	r = pf_page_vec(fd, size, &vec, &np);
	if (r < 0)
		return r;
	r = pf_ranges_from_pages(vec, np, page, size, PREFETCH_HOLE_BYTES, out, n);
	free(vec);
	for (size_t i = 0; r == 0 && i < *n; i++) {
		uint64_t phys;

		if (pf_fiemap_phys(fd, (*out)[i].off, &phys) == 0)
			(*out)[i].phys = phys;
	}
	return r;
}
