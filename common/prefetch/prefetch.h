/*
 * The learning game prefetch (hitchbench-prefetch, the GAMEPREFETCH
 * switch): which parts of which files a game had in the page cache, kept
 * as a list per game, and read back in disk order while the game loads.
 *
 *   prefetch-ranges.c  page residency (cachestat, mincore) into ranges,
 *                      small holes filled; each range's disk address (FIEMAP)
 *   prefetch-list.c    the list: its file format (docs/formats.md), its key
 *                      (the executable's path, size and mtime), a session
 *                      merged into it
 *   prefetch-fetch.c   the budget and the order of the reads, the reading
 *                      loop and its early stops (/proc through the fsroot)
 *
 * Offsets and lengths are bytes, always multiples of the page size except a
 * range's end, which may be cut at the file's end.
 */
#ifndef HB_PREFETCH_H
#define HB_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/util.h"

#define PREFETCH_FORMAT 1
/* Holes between resident runs smaller than this are read too: one read
 * across a short hole costs less than a second seek. */
#define PREFETCH_HOLE_BYTES (128 * 1024)
/* A file with no page in memory for this many sessions leaves the list. */
#define PREFETCH_MAX_MISSES 3
/* One pread at a time, of at most this many bytes. */
#define PREFETCH_READ_BYTES (256 * 1024)
#define PREFETCH_DIR_ENV "HITCHBENCH_PREFETCH_DIR"
#define PREFETCH_DIR_DEFAULT "/var/tmp/hitchbench/prefetch"

/* ---- ranges (prefetch-ranges.c) ---- */

struct pf_range {
	uint64_t off, len;
	uint64_t phys;          /* disk address of its first byte; 0: unknown */
};

/* Runs of resident pages in vec (one byte a page, bit 0 = resident, as
 * mincore writes it) as byte ranges; holes shorter than hole_bytes between
 * two runs are filled. The last range is cut at file_size. *out is
 * allocated (NULL when none). 0 or -errno. */
int pf_ranges_from_pages(const unsigned char *vec, size_t npages, size_t page_size,
			 uint64_t file_size, uint64_t hole_bytes, struct pf_range **out, size_t *n);
/* Merges two sorted range lists into their union (touching or overlapping
 * ranges join; the first's disk address stays). */
void pf_ranges_union(const struct pf_range *a, size_t na, const struct pf_range *b, size_t nb,
		     struct pf_range **out, size_t *n);
/* The page vector of an open file by mincore on a shared read-only
 * mapping. *vec allocated, *npages pages. 0 or -errno (an empty file: 0,
 * NULL); -EACCES where mincore would not tell the truth (a file this
 * process neither owns nor may write, unless root: mincore then calls
 * every page resident). */
int pf_mincore(int fd, uint64_t size, unsigned char **vec, size_t *npages);
/* The same, falling back on cachestat (halving the pieces partly in
 * memory) where mincore would not tell; -EACCES when neither can (no
 * cachestat, or one that keeps mincore's rule: newer kernels). */
int pf_page_vec(int fd, uint64_t size, unsigned char **vec, size_t *npages);
/* How many pages of each of n ranges are in memory, into pages[]:
 * cachestat per range, else one page vector of the file. 0 or -errno. */
int pf_ranges_resident(int fd, uint64_t size, const struct pf_range *ranges, size_t n,
		       uint64_t *pages);
/* Pages of [off, off+len) in the page cache: cachestat(2) where the kernel
 * has it (-ENOSYS otherwise, also when force_mincore). */
int pf_cachestat(int fd, uint64_t off, uint64_t len, uint64_t *pages);
/* The same, with pf_page_vec when cachestat is missing. 0 or -errno. */
int pf_resident_pages(int fd, uint64_t size, uint64_t off, uint64_t len, uint64_t *pages);
/* The disk address of byte off (FIEMAP): the physical offset of the
 * extent holding it, plus off's place in that extent. -ENODATA for a
 * hole, -EOPNOTSUPP/-ENOTTY where the filesystem has no FIEMAP. */
int pf_fiemap_phys(int fd, uint64_t off, uint64_t *phys);
/* Every range of a file: its resident pages and their disk addresses.
 * 0 or -errno. */
int pf_file_ranges(int fd, uint64_t size, struct pf_range **out, size_t *n);
/* Opens a listed file to look at or read, *st its stat: O_NOATIME where
 * allowed, and O_NONBLOCK so that a FIFO put in its place (the paths come
 * from the game user's processes, the reader may be root) never blocks:
 * anything but a regular file is refused (-EINVAL). The fd or -errno. */
int pf_open(const char *path, struct stat *st);
/* Tests: pretend cachestat is missing. */
extern bool pf_force_mincore;

/* ---- the list (prefetch-list.c) ---- */

struct pf_file {
	char *path;
	uint64_t size;
	int64_t mtime;          /* seconds */
	int first;              /* the session it was first seen in (1: the first) */
	int misses;             /* sessions in a row with no page in memory */
	struct pf_range *ranges;
	size_t n;
};

struct pf_list {
	char *exe;              /* the game's executable (a real path) */
	uint64_t exe_size;
	int64_t exe_mtime;
	int sessions;           /* sessions learnt into it */
	struct pf_file *files;  /* in first-use order */
	size_t n, alloc;
};

void pf_list_init(struct pf_list *l);
void pf_list_release(struct pf_list *l);
/* Appends a file (path copied, ranges taken over); the index. */
size_t pf_list_add(struct pf_list *l, const char *path, uint64_t size, int64_t mtime,
		   struct pf_range *ranges, size_t n);
ssize_t pf_list_find(const struct pf_list *l, const char *path);
uint64_t pf_list_bytes(const struct pf_list *l);

/* The text format (docs/formats.md). Parse: 0, or -EINVAL with the line
 * in *err_line. */
int pf_list_parse(const char *text, struct pf_list *l, int *err_line);
void pf_list_format(const struct pf_list *l, struct strbuf *out);
int pf_list_read(const char *path, struct pf_list *l, int *err_line);
int pf_list_write(const struct pf_list *l, const char *path);

/* Where the program of a command line starts, after the wrappers that
 * exec it (stdbuf, env, nice, ionice, nohup, taskset), their options, the
 * arguments of those options and taskset's mask: "nice -n 5 taskset -c 1
 * env A=1 /usr/games/x -w" starts at /usr/games/x. The index of argv's
 * NULL when nothing is left. */
size_t pf_command_start(char *const *argv);
/* The files a /proc/PID/maps text maps, each line's path in order (the
 * caller removes repeats): fn(path, arg) for each path worth learning. */
void pf_maps_paths(const char *maps, void (*fn)(const char *path, void *arg), void *arg);
/* Whether a path names something the prefetch may learn: absolute, not
 * under /proc, /sys or /dev, not deleted, no newline. */
bool pf_path_learnable(const char *path);

/* A list's key: the executable's base name and a hash of its path
 * ("neverball-3f2a9c0d1e4b5a67"); the list is KEY.list in the directory. */
void pf_key(const char *exe, char *buf, size_t size);
/* The directory: HITCHBENCH_PREFETCH_DIR or PREFETCH_DIR_DEFAULT. */
const char *pf_dir(void);
/* Whether l was learnt from this executable as it is now (its size and
 * mtime): false means the game was upgraded and the list is stale. */
bool pf_list_current(const struct pf_list *l, uint64_t exe_size, int64_t exe_mtime);

/*
 * A session into the list. old (may be NULL or stale: then ignored) holds
 * what earlier sessions learnt, seen what this one found: each file with
 * its size, mtime and resident ranges (none: not in memory). The result:
 * old's files first in their order, then seen's new files in its order.
 * A file with ranges now gets the union of its ranges (only the new ones
 * when its size or mtime changed) and misses 0; a file of old without
 * ranges now gets one more miss and leaves at PREFETCH_MAX_MISSES. out
 * takes exe, size and mtime from seen.
 */
void pf_list_merge(const struct pf_list *old, const struct pf_list *seen, struct pf_list *out);

/* ---- learning (prefetch-learn.c) ---- */

#define PF_LEARN_MAX_PIDS 512
#define PF_LEARN_MAX_FILES 50000

/* A session being learnt: the game's processes and the files seen, in
 * first-seen order (their ranges filled in at the end). */
struct pf_learner {
	pid_t pids[PF_LEARN_MAX_PIDS];
	size_t n_pids;
	struct pf_list seen;
	char **sorted;          /* seen's paths, sorted, during the walk */
	size_t n_sorted;
};

void pf_learner_init(struct pf_learner *L);
void pf_learner_release(struct pf_learner *L);
void pf_learner_add_pid(struct pf_learner *L, pid_t pid);
/* A file, if learnable, regular and not empty, and not seen yet. */
void pf_learner_add_path(struct pf_learner *L, const char *path);
/* One look at the game under the root: new children of its processes,
 * then the maps and open files of each one alive. How many are alive. */
size_t pf_learner_sample(struct pf_learner *L);
/* Every regular file under the directories (symlinks not followed), after
 * what was seen, up to PF_LEARN_MAX_FILES files in all. */
void pf_learner_walk(struct pf_learner *L, char *const *dirs, size_t n);
/* Each file's size, mtime and resident ranges as they are now (files that
 * cannot be opened keep none). How many files' pages could not be told
 * (no cachestat, and mincore would not tell this user): they keep none. */
size_t pf_list_residency(struct pf_list *l);

/* ---- fetching (prefetch-fetch.c) ---- */

/* One read planned: a piece of a file's range. */
struct pf_read {
	size_t file;            /* index in the list */
	uint64_t off, len, phys;
};

/*
 * The budget (pages to bring in, not counting those already in memory)
 * filled in first-use order: resident[i][j] says how many pages of file
 * i's range j are in memory already (NULL: none). A range that does not
 * fit is cut to what does. Then sorted by disk address (unknown addresses
 * last, in list order). skip[i] (may be NULL) leaves file i out.
 */
void pf_plan(const struct pf_list *l, uint64_t *const *resident, const bool *skip,
	     uint64_t budget_pages, size_t page_size, struct pf_read **out, size_t *n,
	     uint64_t *listed_pages, uint64_t *chosen_pages);

/* The budget in pages: min(mb, MemAvailable - reserve_mb), never below 0.
 * MemAvailable from the root's proc/meminfo. 0 or -errno. */
int pf_budget_pages(uint64_t mb, uint64_t reserve_mb, size_t page_size, uint64_t *pages);

enum pf_stop {
	PF_STOP_DONE,           /* everything planned was read */
	PF_STOP_PRESSURE,       /* direct reclaim rose */
	PF_STOP_SWAP,           /* pages were swapped out */
	PF_STOP_TIMEOUT,
	PF_STOP_GAME_EXIT,
	PF_STOP_SIGNAL,
	PF_STOP_NO_LIST,
	PF_STOP_STALE,
	PF_STOP_NO_BUDGET,      /* nothing fits: memory short (MemAvailable under the reserve) */
	PF_STOP_IN_MEMORY,      /* the whole list was in memory already */
};
const char *pf_stop_name(enum pf_stop s);

/* The counters the early stops watch, from the root's proc/vmstat. */
struct pf_pressure {
	uint64_t direct;        /* allocstall* + pgscan_direct */
	uint64_t pswpout;
};
int pf_pressure_parse(const char *vmstat, struct pf_pressure *p);

struct pf_fetch {
	/* in */
	const struct pf_list *list;
	const struct pf_read *reads;
	size_t n_reads;
	pid_t game;             /* 0: none to watch */
	uint64_t timeout_ns;    /* counted from t0 */
	uint64_t t0;            /* when the fetch began (its planning); 0: pf_fetch_run's start */
	uint64_t (*now)(void *arg);     /* NULL: mono_ns */
	void *now_arg;
	/* polled each read: true stops with PF_STOP_SIGNAL (NULL: never) */
	bool (*stop)(void *arg);
	void *stop_arg;
	/* out */
	uint64_t bytes, ns;
	uint64_t cached;        /* bytes not read: in memory already when their turn came */
	size_t files, preads, failed;
	enum pf_stop why;
};
/* Reads the planned pieces in order, one pread of at most
 * PREFETCH_READ_BYTES at a time on descriptors with readahead off,
 * skipping a piece whose pages are all in memory (cachestat), checking
 * before each read: the time, the game, the pressure counters
 * against their values at the start. 0 or -errno (files that cannot be
 * read are counted in failed, not errors). */
int pf_fetch_run(struct pf_fetch *f);
/* Whether the root has proc/PID and it is not a zombie. */
bool pf_pid_alive(pid_t pid);

#endif
