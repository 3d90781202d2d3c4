/*
 * common/prefetch/prefetch-*.c: the game prefetch's ranges (made-up page vectors,
 * then real files after POSIX_FADV_DONTNEED), FIEMAP on a real and a
 * sparse file, learning over made-up sessions, the budget and its order,
 * and each early stop of the reading loop on made-up /proc numbers under
 * the swappable root (the numbers change while the loop runs, through its
 * clock callback).
 */
#include "system/fsroot.h"
#include "prefetch/prefetch.h"
#include "test.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096

static void ranges_of(const char *pattern, uint64_t hole, struct pf_range **r, size_t *n)
{
	size_t np = strlen(pattern);
	unsigned char *vec = zalloc(np + 1);

	for (size_t i = 0; i < np; i++)
		vec[i] = pattern[i] == '#';
	ck_assert_int_eq(pf_ranges_from_pages(vec, np, PG, 0, hole, r, n), 0);
	free(vec);
}

START_TEST(ranges_and_holes)
{
	struct pf_range *r;
	size_t n;

	/* holes of 1 and 2 pages filled under a 3-page limit, 3 pages kept */
	ranges_of("##.#..##...#", 3 * PG, &r, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(r[0].off, 0);
	ck_assert_uint_eq(r[0].len, 8 * PG);
	ck_assert_uint_eq(r[1].off, 11 * PG);
	ck_assert_uint_eq(r[1].len, PG);
	free(r);
	/* nothing resident: no range; a leading hole is not a range */
	ranges_of("....", 3 * PG, &r, &n);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(r);
	ranges_of("..##", 3 * PG, &r, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].off, 2 * PG);
	free(r);
	/* no filling at all */
	ranges_of("#.#", 0, &r, &n);
	ck_assert_uint_eq(n, 2);
	free(r);
	/* the last page cut at the file's size */
	{
		unsigned char vec[2] = { 1, 1 };

		ck_assert_int_eq(pf_ranges_from_pages(vec, 2, PG, PG + 100, 0, &r, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(r[0].len, PG + 100);
		free(r);
	}
}
END_TEST

START_TEST(ranges_union)
{
	struct pf_range a[] = { { 0, 100, 7 }, { 500, 100, 9 } };
	struct pf_range b[] = { { 50, 100, 0 }, { 600, 10, 0 }, { 1000, 5, 3 } };
	struct pf_range *u;
	size_t n;

	pf_ranges_union(a, 2, b, 3, &u, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(u[0].off, 0);
	ck_assert_uint_eq(u[0].len, 150);
	ck_assert_uint_eq(u[0].phys, 7);
	ck_assert_uint_eq(u[1].off, 500);
	ck_assert_uint_eq(u[1].len, 110);  /* touching ranges join */
	ck_assert_uint_eq(u[2].phys, 3);
	free(u);
}
END_TEST

/* A file of npages pages under /var/tmp (a disk filesystem where there
 * is one: tmpfs has no FIEMAP), written and synced. */
static int real_file(size_t npages, char **path)
{
	char *p = xstrdup("/var/tmp/hb-prefetch-XXXXXX");
	char *buf = zalloc(PG);
	int fd = mkstemp(p);

	if (fd < 0) {
		free(p);
		p = xasprintf("%s/hb-prefetch-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		fd = mkstemp(p);
	}
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < npages; i++) {
		memset(buf, (int)(i + 1), PG);
		ck_assert_int_eq(write_all(fd, buf, PG), 0);
	}
	ck_assert_int_eq(fsync(fd), 0);
	free(buf);
	*path = p;
	return fd;
}

/* The made-up page numbers of the residency tests assume 4 KiB pages. */
static bool pages_are_4k(void)
{
	return (size_t)sysconf(_SC_PAGESIZE) == PG;
}

/* Returns false, having checked nothing, when cachestat is asked for and
 * this kernel has none (the mincore half covers such a kernel). */
static bool residency_after_dontneed(bool force_mincore)
{
	char *path, buf[8 * PG];
	int fd = real_file(64, &path);
	uint64_t pages = 99;
	struct pf_range *r;
	size_t n;
	bool ran = false;
	int rc;

	pf_force_mincore = force_mincore;
	rc = pf_cachestat(fd, 0, 64 * PG, &pages);
	if (!force_mincore && rc == -ENOSYS)
		goto out;
	ran = true;
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	ck_assert_int_eq(pf_resident_pages(fd, 64 * PG, 0, 64 * PG, &pages), 0);
	ck_assert_uint_eq(pages, 0);
	/* pages 8..15 back, and no readahead around them */
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf), 8 * PG), (ssize_t)sizeof(buf));
	ck_assert_int_eq(pf_resident_pages(fd, 64 * PG, 0, 64 * PG, &pages), 0);
	ck_assert_uint_eq(pages, 8);
	ck_assert_int_eq(pf_resident_pages(fd, 64 * PG, 12 * PG, 32 * PG, &pages), 0);
	ck_assert_uint_eq(pages, 4);
	ck_assert_int_eq(pf_file_ranges(fd, 64 * PG, &r, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(r[0].off, 8 * PG);
	ck_assert_uint_eq(r[0].len, 8 * PG);
	free(r);
out:
	pf_force_mincore = false;
	close(fd);
	unlink(path);
	free(path);
	return ran;
}

START_TEST(resident_mincore)
{
	if (!pages_are_4k())
		test_skip("pages of %ld bytes here, the test's numbers are for 4 KiB",
			  sysconf(_SC_PAGESIZE));
	residency_after_dontneed(true);
}
END_TEST

START_TEST(resident_cachestat)
{
	if (!pages_are_4k())
		test_skip("pages of %ld bytes here, the test's numbers are for 4 KiB",
			  sysconf(_SC_PAGESIZE));
	if (!residency_after_dontneed(false))
		test_skip("no cachestat(2) on this kernel (ENOSYS)");
}
END_TEST

START_TEST(fiemap_real_and_sparse)
{
	char *path, *sparse;
	int fd = real_file(16, &path), sfd;
	uint64_t phys = 0, phys2 = 0;
	int r = pf_fiemap_phys(fd, 0, &phys);
	char buf[PG];

	if (r == -EOPNOTSUPP || r == -ENOTTY) {
		close(fd);
		unlink(path);
		free(path);
		test_skip("FIEMAP: not on the filesystem of $TMPDIR (%s)", strerror(-r));
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_ne(phys, 0);
	/* a later byte of the same file lies further on (one extent, fresh file) */
	ck_assert_int_eq(pf_fiemap_phys(fd, PG, &phys2), 0);
	ck_assert_uint_ne(phys2, 0);
	close(fd);
	unlink(path);
	free(path);
	/* sparse: a hole at 0, data at 1 MiB */
	sfd = real_file(0, &sparse);
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(pwrite(sfd, buf, PG, 1 << 20), PG);
	ck_assert_int_eq(fsync(sfd), 0);
	ck_assert_int_eq(pf_fiemap_phys(sfd, 0, &phys), -ENODATA);
	ck_assert_int_eq(pf_fiemap_phys(sfd, 1 << 20, &phys), 0);
	ck_assert_uint_ne(phys, 0);
	close(sfd);
	unlink(sparse);
	free(sparse);
}
END_TEST

/* ---- lists ---- */

static struct pf_range *rg(uint64_t off, uint64_t len, uint64_t phys)
{
	struct pf_range *r = zalloc(sizeof(*r));

	r->off = off;
	r->len = len;
	r->phys = phys;
	return r;
}

static void session_init(struct pf_list *s, uint64_t exe_size)
{
	pf_list_init(s);
	s->exe = xstrdup("/usr/games/game");
	s->exe_size = exe_size;
	s->exe_mtime = 1000;
}

/* old <- merge(old, s), s released */
static void learn(struct pf_list *old, struct pf_list *s)
{
	struct pf_list out;

	pf_list_merge(old->exe ? old : NULL, s, &out);
	pf_list_release(old);
	pf_list_release(s);
	*old = out;
}

static const struct pf_file *file_of(const struct pf_list *l, const char *path)
{
	ssize_t i = pf_list_find(l, path);

	return i < 0 ? NULL : &l->files[i];
}

START_TEST(learn_sessions)
{
	struct pf_list l, s;
	const struct pf_file *f;

	pf_list_init(&l);
	/* 1: the program, a library, a map */
	session_init(&s, 500);
	pf_list_add(&s, "/usr/games/game", 500, 1000, rg(0, 8192, 100), 1);
	pf_list_add(&s, "/lib/libc.so", 900, 1000, rg(0, 4096, 200), 1);
	pf_list_add(&s, "/data/map1", 10000, 1000, rg(0, 4096, 300), 1);
	pf_list_add(&s, "/data/unused", 10000, 1000, NULL, 0);  /* seen, never in memory */
	learn(&l, &s);
	ck_assert_int_eq(l.sessions, 1);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_ptr_null(file_of(&l, "/data/unused"));
	/* 2: map1 again further on (union), a new map2, libc not in memory */
	session_init(&s, 500);
	pf_list_add(&s, "/usr/games/game", 500, 1000, rg(0, 8192, 100), 1);
	pf_list_add(&s, "/data/map2", 20000, 1000, rg(4096, 4096, 50), 1);
	pf_list_add(&s, "/data/map1", 10000, 1000, rg(4096, 4096, 301), 1);
	learn(&l, &s);
	ck_assert_int_eq(l.sessions, 2);
	ck_assert_uint_eq(l.n, 4);
	/* first-use order: the old files in their order, then the new */
	ck_assert_str_eq(l.files[0].path, "/usr/games/game");
	ck_assert_str_eq(l.files[1].path, "/lib/libc.so");
	ck_assert_str_eq(l.files[2].path, "/data/map1");
	ck_assert_str_eq(l.files[3].path, "/data/map2");
	f = file_of(&l, "/data/map1");
	ck_assert_uint_eq(f->n, 1);
	ck_assert_uint_eq(f->ranges[0].len, 8192);
	ck_assert_int_eq(f->first, 1);
	ck_assert_int_eq(file_of(&l, "/data/map2")->first, 2);
	f = file_of(&l, "/lib/libc.so");
	ck_assert_int_eq(f->misses, 1);
	ck_assert_uint_eq(f->n, 1);   /* kept while it misses */
	/* 3: libc misses again; map1 changed (a new mtime): only its new ranges */
	session_init(&s, 500);
	pf_list_add(&s, "/usr/games/game", 500, 1000, rg(0, 8192, 100), 1);
	pf_list_add(&s, "/data/map1", 12000, 2000, rg(8192, 4096, 400), 1);
	pf_list_add(&s, "/data/map2", 20000, 1000, rg(4096, 4096, 50), 1);
	learn(&l, &s);
	ck_assert_int_eq(file_of(&l, "/lib/libc.so")->misses, 2);
	f = file_of(&l, "/data/map1");
	ck_assert_uint_eq(f->size, 12000);
	ck_assert_int_eq(f->mtime, 2000);
	ck_assert_uint_eq(f->n, 1);
	ck_assert_uint_eq(f->ranges[0].off, 8192);
	ck_assert_int_eq(f->misses, 0);
	/* 4: the third miss in a row drops libc */
	session_init(&s, 500);
	pf_list_add(&s, "/usr/games/game", 500, 1000, rg(0, 8192, 100), 1);
	pf_list_add(&s, "/data/map1", 12000, 2000, rg(8192, 4096, 400), 1);
	pf_list_add(&s, "/data/map2", 20000, 1000, rg(4096, 4096, 50), 1);
	learn(&l, &s);
	ck_assert_ptr_null(file_of(&l, "/lib/libc.so"));
	ck_assert_uint_eq(l.n, 3);
	ck_assert_int_eq(l.sessions, 4);
	/* 5: the game upgraded (another size): the list is stale, learnt anew */
	ck_assert(!pf_list_current(&l, 600, 1000));
	session_init(&s, 600);
	pf_list_add(&s, "/usr/games/game", 600, 1000, rg(0, 4096, 700), 1);
	learn(&l, &s);
	ck_assert_int_eq(l.sessions, 1);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.exe_size, 600);
	ck_assert_uint_eq(l.files[0].ranges[0].phys, 700);
	pf_list_release(&l);
}
END_TEST

START_TEST(list_format)
{
	struct pf_list l, back;
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	int line = 0;

	session_init(&l, 5);
	l.sessions = 3;
	pf_list_add(&l, "/data/with space", 10, 20, rg(0, 10, 5), 1);
	l.files[0].misses = 1;
	l.files[0].first = 2;
	pf_list_format(&l, &sb);
	ck_assert_int_eq(pf_list_parse(sb.buf, &back, &line), 0);
	pf_list_format(&back, &sb2);
	ck_assert_str_eq(sb.buf, sb2.buf);
	ck_assert_str_eq(back.files[0].path, "/data/with space");
	ck_assert_int_eq(back.files[0].misses, 1);
	pf_list_release(&back);
	/* another version, junk, a range before any file */
	ck_assert_int_eq(pf_list_parse("format 2\nexe /x\n", &back, &line), -EINVAL);
	ck_assert_int_eq(line, 1);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\n\nrange 0 1 2\n", &back, &line), -EINVAL);
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 1 2 x 0 /p\n", &back, &line), -EINVAL);
	ck_assert_int_eq(pf_list_parse("format 1\n", &back, &line), -EINVAL);
	/* ranges: inside the file, not empty, each after the one before */
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 8192 2 1 0 /p\nrange 0 4096 0\n"
				       "range 4096 4096 0\n", &back, &line), 0);
	pf_list_release(&back);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 8192 2 1 0 /p\nrange 4096 8192 0\n",
				       &back, &line), -EINVAL);
	ck_assert_int_eq(line, 4);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 8192 2 1 0 /p\nrange 0 0 0\n",
				       &back, &line), -EINVAL);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 8192 2 1 0 /p\n"
				       "range 4096 18446744073709551615 0\n", &back, &line), -EINVAL);
	ck_assert_int_eq(pf_list_parse("format 1\nexe /x\nfile 8192 2 1 0 /p\nrange 4096 4096 0\n"
				       "range 0 4096 0\n", &back, &line), -EINVAL);
	ck_assert_int_eq(line, 5);
	pf_list_release(&l);
	strbuf_release(&sb);
	strbuf_release(&sb2);
}
END_TEST

static size_t start_of(const char *cmd)
{
	char *copy = xstrdup(cmd), *argv[16], *save = NULL;
	size_t n = 0, i;

	for (char *w = strtok_r(copy, " ", &save); w && n < 15; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	i = pf_command_start(argv);
	free(copy);
	return i;
}

START_TEST(command_start)
{
	ck_assert_uint_eq(start_of("/usr/games/x -w"), 0);
	ck_assert_uint_eq(start_of("stdbuf -oL /usr/games/x -w"), 2);
	ck_assert_uint_eq(start_of("stdbuf -o L x"), 3);
	ck_assert_uint_eq(start_of("nice -n 5 x"), 3);
	ck_assert_uint_eq(start_of("nice -5 x"), 2);
	ck_assert_uint_eq(start_of("nice --adjustment=5 x"), 2);
	ck_assert_uint_eq(start_of("env -u DISPLAY A=1 B=2 x"), 5);
	ck_assert_uint_eq(start_of("env -i -- x"), 3);
	ck_assert_uint_eq(start_of("ionice -c 3 x"), 3);
	ck_assert_uint_eq(start_of("taskset 0x3 x"), 2);
	ck_assert_uint_eq(start_of("taskset -c 1 x"), 3);
	ck_assert_uint_eq(start_of("/usr/bin/nice -n 5 taskset -c 1 nohup env A=1 x -n 5"), 9);
	/* nothing but wrappers: argv's end */
	ck_assert_uint_eq(start_of("nice -n 5"), 3);
}
END_TEST

START_TEST(keys)
{
	char a[128], b[128];

	pf_key("/usr/games/neverball", a, sizeof(a));
	pf_key("/opt/neverball", b, sizeof(b));
	ck_assert(str_startswith(a, "neverball-"));
	ck_assert_str_ne(a, b);
	ck_assert_uint_eq(strlen(a), strlen("neverball-") + 16);
}
END_TEST

static void collect(const char *path, void *arg)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, "%s|", path);
}

START_TEST(maps_paths)
{
	/* a game's maps as the kernel writes them (made up, in its layout) */
	const char *maps =
		"55d0c0a00000-55d0c0a2e000 r--p 00000000 fe:01 1311221                    /usr/games/neverball\n"
		"55d0c1c8b000-55d0c1cac000 rw-p 00000000 00:00 0                          [heap]\n"
		"7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n"
		"7f1c2b400000-7f1c2b6d3000 r--p 00000000 fe:01 1319045                    /usr/share/games/neverball/ttf/DejaVuSans Bold.ttf\n"
		"7f1c2c000000-7f1c2c100000 rw-s 00000000 00:01 4242                       /memfd:wayland-shm (deleted)\n"
		"7f1c2c200000-7f1c2c300000 r--p 00000000 fe:01 777                        /tmp/gone.dat (deleted)\n"
		"7f1c2d000000-7f1c2d001000 rw-s 100000000 00:06 530                       /dev/dri/renderD128\n"
		"7ffd6b9e2000-7ffd6ba03000 rw-p 00000000 00:00 0                          [stack]\n"
		"7f1c2e000000-7f1c2e100000 r-xp 00002000 fe:01 1311300                    /usr/lib/x86_64-linux-gnu/libc.so.6";
	struct strbuf sb = STRBUF_INIT;

	pf_maps_paths(maps, collect, &sb);
	ck_assert_str_eq(sb.buf, "/usr/games/neverball|/usr/share/games/neverball/ttf/DejaVuSans Bold.ttf|"
			 "/usr/lib/x86_64-linux-gnu/libc.so.6|");
	strbuf_release(&sb);
	ck_assert(pf_path_learnable("/usr/share/x"));
	ck_assert(!pf_path_learnable("relative"));
	ck_assert(!pf_path_learnable("/proc/1/maps"));
	ck_assert(!pf_path_learnable("/a\nb"));
}
END_TEST

/* ---- the budget and its order ---- */

START_TEST(plan_budget_order)
{
	struct pf_list l;
	struct pf_read *rd;
	size_t n;
	uint64_t listed, chosen;
	uint64_t res0[] = { 0 }, res1[] = { 2, 0 }, res2[] = { 0 };
	uint64_t *resident[] = { res0, res1, res2 };

	session_init(&l, 1);
	/* first use: A (4 pages), B (4 pages, 2 in memory; then 4 more), C (8 pages) */
	pf_list_add(&l, "/a", 1 << 20, 1, rg(0, 4 * PG, 900), 1);
	{
		struct pf_range *r = zalloc(2 * sizeof(*r));

		r[0] = (struct pf_range){ 0, 4 * PG, 100 };
		r[1] = (struct pf_range){ 8 * PG, 4 * PG, 0 };
		pf_list_add(&l, "/b", 1 << 20, 1, r, 2);
	}
	pf_list_add(&l, "/c", 1 << 20, 1, rg(0, 8 * PG, 500), 1);
	/* 4 + 2 + 4 = 10 pages fit, C is cut to 3 */
	pf_plan(&l, resident, NULL, 13, PG, &rd, &n, &listed, &chosen);
	ck_assert_uint_eq(listed, 20);
	ck_assert_uint_eq(chosen, 13);
	ck_assert_uint_eq(n, 4);
	/* disk order: B@100, C@500, A@900, then B's range of no known address */
	ck_assert_uint_eq(rd[0].file, 1);
	ck_assert_uint_eq(rd[0].phys, 100);
	ck_assert_uint_eq(rd[1].file, 2);
	ck_assert_uint_eq(rd[1].len, 3 * PG);
	ck_assert_uint_eq(rd[2].file, 0);
	ck_assert_uint_eq(rd[3].file, 1);
	ck_assert_uint_eq(rd[3].off, 8 * PG);
	free(rd);
	/* a small budget goes to the first used: A only */
	pf_plan(&l, resident, NULL, 4, PG, &rd, &n, &listed, &chosen);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(rd[0].file, 0);
	free(rd);
	/* a skipped (changed) file takes nothing */
	{
		bool skip[] = { true, false, false };

		pf_plan(&l, resident, skip, 4, PG, &rd, &n, &listed, &chosen);
		ck_assert_uint_eq(rd[0].file, 1);
		free(rd);
	}
	pf_list_release(&l);
}
END_TEST

/* Undoes a made-up root (budget_meminfo's, stop_tree()'s): the real
 * root again, the tree removed. */
static void fake_root_release(char *root)
{
	fsroot_set(NULL);
	remove_tree(root);
	free(root);
}

START_TEST(budget_meminfo)
{
	char *root = test_tmpdir();
	uint64_t pages;

	test_put(root, "proc/meminfo", "MemTotal: 2000000 kB\nMemFree: 10000 kB\n"
		 "MemAvailable:     102400 kB\n");
	fsroot_set(root);
	/* 100 MB available - 48 reserve = 52 < 64 */
	ck_assert_int_eq(pf_budget_pages(64, 48, PG, &pages), 0);
	ck_assert_uint_eq(pages, 52 * 256);
	ck_assert_int_eq(pf_budget_pages(16, 48, PG, &pages), 0);
	ck_assert_uint_eq(pages, 16 * 256);
	ck_assert_int_eq(pf_budget_pages(64, 100, PG, &pages), 0);
	ck_assert_uint_eq(pages, 0);
	fake_root_release(root);
}
END_TEST

/* ---- early stops ---- */

struct fake {
	const char *root;
	uint64_t t, step;       /* the clock: step ns a call */
	int calls, at;          /* at the at-th call, change */
	const char *rel, *text; /* ... this file to this (NULL text: remove it) */
};

static uint64_t fake_now(void *arg)
{
	struct fake *fk = arg;

	if (++fk->calls == fk->at && fk->rel) {
		if (fk->text) {
			test_put(fk->root, fk->rel, fk->text);
		} else {
			char *p = xasprintf("%s/%s", fk->root, fk->rel);

			unlink(p);
			free(p);
		}
	}
	fk->t += fk->step;
	return fk->t;
}

#define VMSTAT0 "nr_free_pages 1000\nallocstall_normal 5\nallocstall_movable 1\n" \
		"pgscan_direct 70\npswpin 3\npswpout 9\n"

/* Fetches a 2 MiB file (8 reads) with a fake clock; the stop and bytes. */
static enum pf_stop fetch_file(struct fake *fk, pid_t game, bool drop, uint64_t *bytes,
				uint64_t *cached)
{
	char *path;
	int fd = real_file(512, &path);
	struct stat st;
	struct pf_list l;
	struct pf_read rd = { 0, 0, 512 * PG, 0 };
	struct pf_fetch f;

	fstat(fd, &st);
	/* not in memory: every piece is read */
	if (drop)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	session_init(&l, 1);
	pf_list_add(&l, path, 512 * PG, st.st_mtim.tv_sec, rg(0, 512 * PG, 0), 1);
	memset(&f, 0, sizeof(f));
	f.list = &l;
	f.reads = &rd;
	f.n_reads = 1;
	f.game = game;
	f.timeout_ns = 60 * NSEC_PER_SEC;
	f.now = fake_now;
	f.now_arg = fk;
	ck_assert_int_eq(pf_fetch_run(&f), 0);
	*bytes = f.bytes;
	if (cached)
		*cached = f.cached;
	unlink(path);
	free(path);
	pf_list_release(&l);
	return f.why;
}

static enum pf_stop fetch_with(struct fake *fk, pid_t game, uint64_t *bytes)
{
	return fetch_file(fk, game, true, bytes, NULL);
}

static char *stop_tree(void)
{
	char *root = test_tmpdir();

	test_put(root, "proc/vmstat", VMSTAT0);
	test_put(root, "proc/4242/stat", "4242 (game) S 1 4242 4242 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 "
		 "100 0 0\n");
	fsroot_set(root);
	return root;
}

START_TEST(stop_done)
{
	char *root = stop_tree();
	struct fake fk = { root, 0, NSEC_PER_SEC / 100, 0, 0, NULL, NULL };
	uint64_t bytes;

	ck_assert_int_eq(fetch_with(&fk, 4242, &bytes), PF_STOP_DONE);
	ck_assert_uint_eq(bytes, 512 * PG);
	fake_root_release(root);
}
END_TEST

START_TEST(skip_in_memory)
{
	char *root = stop_tree();
	struct fake fk = { root, 0, 1000, 0, 0, NULL, NULL };
	uint64_t bytes, cached, probe;
	int fd = open("/proc/self/exe", O_RDONLY);

	/* the file was just written: every piece is in memory, none is read */
	if (pf_cachestat(fd, 0, 4096, &probe) == -ENOSYS) {
		close(fd);
		test_skipped("no cachestat(2) on this kernel (ENOSYS)");
		goto out;
	}
	close(fd);
	ck_assert_int_eq(fetch_file(&fk, 0, false, &bytes, &cached), PF_STOP_DONE);
	ck_assert_uint_eq(bytes, 0);
	ck_assert_uint_eq(cached, 512 * PG);
out:
	fake_root_release(root);
}
END_TEST

START_TEST(stop_pressure)
{
	char *root = stop_tree();
	/* direct reclaim rises before the 4th read (the 1st call is the start) */
	struct fake fk = { root, 0, 1000, 0, 4, "proc/vmstat",
			   "nr_free_pages 1000\nallocstall_normal 6\nallocstall_movable 1\n"
			   "pgscan_direct 70\npswpin 3\npswpout 9\n" };
	uint64_t bytes;

	ck_assert_int_eq(fetch_with(&fk, 0, &bytes), PF_STOP_PRESSURE);
	ck_assert_uint_eq(bytes, 2 * PREFETCH_READ_BYTES);
	/* pgscan_direct alone counts too */
	fk = (struct fake){ root, 0, 1000, 0, 2, "proc/vmstat",
			    "allocstall_normal 5\nallocstall_movable 1\npgscan_direct 71\npswpout 9\n" };
	test_put(root, "proc/vmstat", VMSTAT0);
	ck_assert_int_eq(fetch_with(&fk, 0, &bytes), PF_STOP_PRESSURE);
	ck_assert_uint_eq(bytes, 0);
	fake_root_release(root);
}
END_TEST

START_TEST(stop_swap)
{
	char *root = stop_tree();
	struct fake fk = { root, 0, 1000, 0, 3, "proc/vmstat",
			   "nr_free_pages 1000\nallocstall_normal 5\nallocstall_movable 1\n"
			   "pgscan_direct 70\npswpin 3\npswpout 10\n" };
	uint64_t bytes;

	ck_assert_int_eq(fetch_with(&fk, 4242, &bytes), PF_STOP_SWAP);
	ck_assert_uint_eq(bytes, PREFETCH_READ_BYTES);
	fake_root_release(root);
}
END_TEST

START_TEST(stop_timeout)
{
	char *root = stop_tree();
	/* 25 s a call: the start, then 25, 50 (two reads), then 75 >= 60 */
	struct fake fk = { root, 0, 25 * NSEC_PER_SEC, 0, 0, NULL, NULL };
	uint64_t bytes;

	ck_assert_int_eq(fetch_with(&fk, 4242, &bytes), PF_STOP_TIMEOUT);
	ck_assert_uint_eq(bytes, 2 * PREFETCH_READ_BYTES);
	fake_root_release(root);
}
END_TEST

START_TEST(stop_game_exit)
{
	char *root = stop_tree();
	struct fake fk = { root, 0, 1000, 0, 5, "proc/4242/stat", NULL };
	uint64_t bytes;

	ck_assert_int_eq(fetch_with(&fk, 4242, &bytes), PF_STOP_GAME_EXIT);
	ck_assert_uint_eq(bytes, 3 * PREFETCH_READ_BYTES);
	/* a zombie is gone too */
	test_put(root, "proc/4242/stat", "4242 (game) Z 1 4242 4242 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 "
		 "100 0 0\n");
	fk = (struct fake){ root, 0, 1000, 0, 0, NULL, NULL };
	ck_assert_int_eq(fetch_with(&fk, 4242, &bytes), PF_STOP_GAME_EXIT);
	ck_assert_uint_eq(bytes, 0);
	fake_root_release(root);
}
END_TEST

/* mincore calls every page of a file resident to a process that neither
 * owns it nor may write it: pf_mincore says it cannot tell, and
 * pf_page_vec asks cachestat instead, or says it cannot tell either where
 * cachestat is missing or keeps the same rule (newer kernels refuse such a
 * file with EPERM). Needs root to become another user. */
START_TEST(mincore_other_users)
{
	char *path, buf[8 * PG];
	int fd = real_file(64, &path), st = 0;
	uint64_t probe;
	pid_t child;

	if (geteuid() != 0) {
		test_skipped("not root: cannot become another user");
		goto out;
	}
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		unsigned char *vec;
		size_t np, in = 0;
		int r;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			_exit(11);
		if (pf_mincore(fd, 64 * PG, &vec, &np) != -EACCES)
			_exit(12);
		/* pages 8..15 in memory, read by this user */
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		if (pread(fd, buf, sizeof(buf), 8 * PG) != (ssize_t)sizeof(buf))
			_exit(13);
		r = pf_page_vec(fd, 64 * PG, &vec, &np);
		/* no cachestat, or one with mincore's rule: neither can
		 * tell, and it says so */
		if (pf_cachestat(fd, 0, PG, &probe) < 0)
			_exit(r == -EACCES ? 0 : 14);
		if (r != 0 || np != 64)
			_exit(15);
		for (size_t i = 0; i < np; i++)
			in += vec[i] & 1;
		_exit(in == 8 && vec[8] && vec[15] && !vec[7] && !vec[16] ? 0 : 16);
	}
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
out:
	unlink(path);
	free(path);
}
END_TEST

/* More files than the process may hold open, read in disk order across
 * them: each is closed after its last read, none fails. */
START_TEST(fetch_many_files)
{
	char *dir = xstrdup("/var/tmp/hb-prefetch-many-XXXXXX");
	enum { NFILES = 200 };
	struct pf_list l;
	struct pf_read rd[NFILES];
	struct pf_fetch f;
	int st = 0;
	pid_t child;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	session_init(&l, 1);
	for (size_t i = 0; i < NFILES; i++) {
		char *p = xasprintf("%s/f%zu", dir, i), page[PG];
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		struct stat sb;

		memset(page, 'a', sizeof(page));
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write_all(fd, page, PG), 0);
		ck_assert_int_eq(write_all(fd, page, PG), 0);
		fstat(fd, &sb);
		close(fd);
		pf_list_add(&l, p, 2 * PG, sb.st_mtim.tv_sec, rg(0, 2 * PG, 0), 1);
		rd[i] = (struct pf_read){ i, 0, 2 * PG, 0 };
		free(p);
	}
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct rlimit lim = { 64, 64 };

		if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
			_exit(10);
		memset(&f, 0, sizeof(f));
		f.list = &l;
		f.reads = rd;
		f.n_reads = NFILES;
		f.timeout_ns = 60 * NSEC_PER_SEC;
		if (pf_fetch_run(&f) != 0)
			_exit(11);
		_exit(f.failed == 0 && f.files == NFILES && f.why == PF_STOP_DONE ? 0 : 12);
	}
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	for (size_t i = 0; i < NFILES; i++)
		unlink(l.files[i].path);
	rmdir(dir);
	free(dir);
	pf_list_release(&l);
}
END_TEST

START_TEST(pressure_parse)
{
	struct pf_pressure p;

	ck_assert_int_eq(pf_pressure_parse(VMSTAT0, &p), 0);
	ck_assert_uint_eq(p.direct, 76);
	ck_assert_uint_eq(p.pswpout, 9);
	/* an old kernel's single allocstall */
	ck_assert_int_eq(pf_pressure_parse("allocstall 4\npgscan_direct 1\n", &p), 0);
	ck_assert_uint_eq(p.direct, 5);
	ck_assert_int_eq(pf_pressure_parse("nr_free_pages 1\n", &p), -ENODATA);
}
END_TEST

TEST_SUITE(prefetch_suite)
{
	Suite *s = suite_create("prefetch");
	TCase *tc = tcase_create("prefetch");

	tcase_add_test(tc, ranges_and_holes);
	tcase_add_test(tc, ranges_union);
	tcase_add_test(tc, resident_mincore);
	tcase_add_test(tc, resident_cachestat);
	tcase_add_test(tc, fiemap_real_and_sparse);
	tcase_add_test(tc, learn_sessions);
	tcase_add_test(tc, list_format);
	tcase_add_test(tc, keys);
	tcase_add_test(tc, command_start);
	tcase_add_test(tc, mincore_other_users);
	tcase_add_test(tc, fetch_many_files);
	tcase_add_test(tc, maps_paths);
	tcase_add_test(tc, plan_budget_order);
	tcase_add_test(tc, budget_meminfo);
	tcase_add_test(tc, stop_done);
	tcase_add_test(tc, skip_in_memory);
	tcase_add_test(tc, stop_pressure);
	tcase_add_test(tc, stop_swap);
	tcase_add_test(tc, stop_timeout);
	tcase_add_test(tc, stop_game_exit);
	tcase_add_test(tc, pressure_parse);
	suite_add_tcase(s, tc);
	return s;
}
