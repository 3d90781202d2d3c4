/*
 * common/formats/frames.c's live view: the game's frame file read by root
 * (the runner, the stall recorder). Files made as the runner makes them,
 * written as the hook writes them, then attacked as a hostile game could:
 * its header rewritten after open (capacity and count huge), its count
 * set back, the file cut shorter than its header says, a present stamped in
 * the future, a count run far ahead of its stamps; and files refused at
 * open (capacity larger than the file, a symbolic link). The view must
 * never read past the file (the test would die of SIGBUS or SIGSEGV), must
 * say why it stopped trusting it, and must keep only what it validated.
 */
#include "formats/frames.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CAP 256u
#define RECS_OFF (128u + HB_FRAMES_EVENT_CAPACITY * 64u)

static char *tmp;
static char *path;

static void setup(void)
{
	tmp = test_tmpdir();
	path = xasprintf("%s/frames.bin", tmp);
	ck_assert_int_eq(hb_frames_create(path, CAP, 0600), 0);
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
	free(path);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the game's hook (or the game itself) writes, by pwrite. */
static void put(const void *data, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, data, len, off), (ssize_t)len);
	close(fd);
}

static void put_u64(size_t field, uint64_t v)
{
	put(&v, sizeof(v), (off_t)field);
}

/* n presents 1 ms apart, ending now, and the count. */
static void present(uint64_t n)
{
	uint64_t t0 = now_ns() - n * 1000000;

	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record r = { t0 + i * 1000000, 42, HB_SRC_GLX_SWAP_BUFFERS, 100 };

		put(&r, sizeof(r), (off_t)(RECS_OFF + i * sizeof(r)));
	}
	put_u64(offsetof(struct hb_frames_header, count), n);
}

static void cut(off_t len)
{
	ck_assert_int_eq(truncate(path, len), 0);
}

START_TEST(live_reads)
{
	struct hb_frames_view v;
	struct hb_frames_header h;
	struct hb_frame_record r;
	struct hb_frames f;
	char *kept = xasprintf("%s/kept.bin", tmp);
	const char *why = NULL;
	uint64_t last;

	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), 0);
	ck_assert_uint_eq(hb_frames_view_count(&v), 0);
	ck_assert_uint_eq(hb_frames_view_last(&v), 0);
	present(10);
	put_u64(offsetof(struct hb_frames_header, cost_samples), 3);
	ck_assert_uint_eq(hb_frames_view_count(&v), 10);
	last = hb_frames_view_last(&v);
	ck_assert_uint_eq(last, hb_frames_view_time(&v, 9));
	ck_assert_uint_gt(last, hb_frames_view_time(&v, 0));
	ck_assert_uint_eq(hb_frames_view_time(&v, 10), 0);
	ck_assert_uint_eq(hb_frames_view_time(&v, CAP), 0); /* past the capacity: not read */
	ck_assert_int_eq(hb_frames_view_latest(&v, &r), 0);
	ck_assert_uint_eq(r.pid, 42);
	ck_assert_uint_eq(r.t_ns, last);
	ck_assert_int_eq(hb_frames_view_header(&v, &h), 0);
	ck_assert_uint_eq(h.cost_samples, 3);
	/* an unstamped slot on top (a present between reserve and stamp) */
	put_u64(offsetof(struct hb_frames_header, count), 11);
	ck_assert_uint_eq(hb_frames_view_last(&v), last);
	ck_assert_ptr_null(hb_frames_view_check(&v));
	/* kept: its records only, the live file as it was */
	ck_assert_int_eq(hb_frames_view_keep(&v, kept, 0644), 0);
	hb_frames_view_close(&v);
	ck_assert_int_eq(hb_frames_load(kept, &f, &why), 0);
	ck_assert_uint_eq(f.n, 10);
	ck_assert_uint_eq(f.unfinished, 1);
	ck_assert(!hb_frames_cut(&f));
	ck_assert_uint_eq(f.t_ns[9], last);
	hb_frames_release(&f);
	free(kept);
}
END_TEST

/* The capacity and count rewritten huge after open: the view keeps its own
 * capacity, notices the change, and keeps the count it last trusted. */
START_TEST(header_rewritten)
{
	struct hb_frames_view v;
	struct hb_frames_header h;
	struct hb_frames f;
	char *kept = xasprintf("%s/kept.bin", tmp);
	const char *why = NULL;
	uint64_t last;

	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), 0);
	present(5);
	ck_assert_uint_eq(hb_frames_view_count(&v), 5);
	last = hb_frames_view_last(&v);
	put_u64(offsetof(struct hb_frames_header, capacity), UINT64_MAX / 2);
	put_u64(offsetof(struct hb_frames_header, count), UINT64_MAX / 4);
	ck_assert_uint_eq(hb_frames_view_count(&v), 5);
	ck_assert_ptr_nonnull(hb_frames_view_tampered(&v));
	ck_assert(strstr(hb_frames_view_tampered(&v), "header was rewritten"));
	ck_assert_uint_eq(hb_frames_view_time(&v, UINT64_MAX / 4 - 1), 0);
	ck_assert_uint_eq(hb_frames_view_last(&v), last); /* the last one it trusted */
	/* the header handed out is the one at open */
	ck_assert_int_eq(hb_frames_view_header(&v, &h), -EIO);
	ck_assert_uint_eq(h.capacity, CAP);
	/* the kept file has the layout validated at open, the trusted count */
	ck_assert_int_eq(hb_frames_view_keep(&v, kept, 0644), 0);
	hb_frames_view_close(&v);
	ck_assert_int_eq(hb_frames_load(kept, &f, &why), 0);
	ck_assert_uint_eq(f.n, 5);
	ck_assert_uint_eq(f.header_records, 5);
	hb_frames_release(&f);
	free(kept);
}
END_TEST

START_TEST(count_backwards)
{
	struct hb_frames_view v;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(20);
	ck_assert_uint_eq(hb_frames_view_count(&v), 20);
	put_u64(offsetof(struct hb_frames_header, count), 3);
	ck_assert_uint_eq(hb_frames_view_count(&v), 20);
	ck_assert(strstr(hb_frames_view_tampered(&v), "went backwards"));
	/* the count stays at the last trusted one, whatever comes later */
	put_u64(offsetof(struct hb_frames_header, count), 30);
	ck_assert_uint_eq(hb_frames_view_count(&v), 20);
	hb_frames_view_close(&v);
}
END_TEST

/* The file cut to nothing, then into its records: short reads, no signal. */
START_TEST(truncated)
{
	struct hb_frames_view v;
	struct hb_frame_record r;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(8);
	ck_assert_uint_eq(hb_frames_view_count(&v), 8);
	cut(0);
	ck_assert_uint_eq(hb_frames_view_count(&v), 8);
	ck_assert_uint_eq(hb_frames_view_time(&v, 7), 0);
	ck_assert_int_eq(hb_frames_view_latest(&v, &r), -EIO);
	hb_frames_view_last(&v);
	ck_assert(strstr(hb_frames_view_tampered(&v), "cut shorter"));
	hb_frames_view_close(&v);
}
END_TEST

START_TEST(truncated_in_records)
{
	struct hb_frames_view v;
	struct hb_frames f;
	char *kept = xasprintf("%s/kept.bin", tmp);
	const char *why = NULL;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(8);
	cut(RECS_OFF + 3 * 16 + 5);
	/* the header is still there: the last records are not */
	ck_assert_uint_eq(hb_frames_view_count(&v), 8);
	ck_assert_uint_ne(hb_frames_view_time(&v, 2), 0);
	ck_assert_uint_eq(hb_frames_view_time(&v, 5), 0);
	ck_assert_ptr_nonnull(hb_frames_view_tampered(&v));
	/* what is kept is a file cut short, which no run counts */
	ck_assert_int_eq(hb_frames_view_keep(&v, kept, 0644), 0);
	hb_frames_view_close(&v);
	ck_assert_int_eq(hb_frames_load(kept, &f, &why), 0);
	ck_assert(hb_frames_cut(&f));
	ck_assert_uint_eq(f.n, 3);
	hb_frames_release(&f);
	free(kept);
}
END_TEST

/* Cut past its records only: no read notices it, the check (fstat) does. */
START_TEST(truncated_past_count)
{
	struct hb_frames_view v;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(4);
	cut(RECS_OFF + 100 * 16);
	ck_assert_uint_eq(hb_frames_view_count(&v), 4);
	ck_assert_uint_ne(hb_frames_view_last(&v), 0);
	ck_assert_ptr_null(hb_frames_view_tampered(&v));
	ck_assert(strstr(hb_frames_view_check(&v), "cut shorter"));
	hb_frames_view_close(&v);
}
END_TEST

START_TEST(stamped_in_future)
{
	struct hb_frames_view v;
	uint64_t t = now_ns() + 3600ull * 1000000000u;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(2);
	put(&t, sizeof(t), RECS_OFF + 16);
	ck_assert_uint_eq(hb_frames_view_time(&v, 1), 0);
	ck_assert(strstr(hb_frames_view_tampered(&v), "future"));
	hb_frames_view_close(&v);
}
END_TEST

/* A count set far ahead of the stamped slots: the view looks at a bounded
 * number of slots, not at every one down to the last stamp. */
START_TEST(count_runs_ahead)
{
	struct hb_frames_view v;

	ck_assert_int_eq(hb_frames_view_open(&v, path, NULL), 0);
	present(2);
	ck_assert_uint_ne(hb_frames_view_last(&v), 0);
	put_u64(offsetof(struct hb_frames_header, count), CAP + 1000);
	ck_assert_uint_eq(hb_frames_view_count(&v), CAP);
	ck_assert_uint_ne(hb_frames_view_last(&v), 0); /* the last one it saw */
	ck_assert(strstr(hb_frames_view_tampered(&v), "runs far ahead"));
	hb_frames_view_close(&v);
}
END_TEST

START_TEST(refused_at_open)
{
	struct hb_frames_view v;
	char *link = xasprintf("%s/link.bin", tmp);
	const char *why = NULL;

	/* a capacity the file has no room for */
	put_u64(offsetof(struct hb_frames_header, capacity), CAP + 1);
	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), -EINVAL);
	ck_assert(strstr(why, "smaller than its header's capacity"));
	put_u64(offsetof(struct hb_frames_header, capacity), UINT64_MAX);
	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), -EINVAL);
	put_u64(offsetof(struct hb_frames_header, capacity), CAP);
	/* records placed elsewhere than after the event slots */
	put_u64(offsetof(struct hb_frames_header, records_offset), RECS_OFF + 16);
	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), -EINVAL);
	ck_assert(strstr(why, "impossible sizes"));
	put_u64(offsetof(struct hb_frames_header, records_offset), RECS_OFF);
	/* a header cut short */
	cut(100);
	ck_assert_int_eq(hb_frames_view_open(&v, path, &why), -EINVAL);
	/* a symbolic link is not followed */
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	ck_assert_int_eq(hb_frames_view_open(&v, link, &why), -ELOOP);
	ck_assert_int_eq(hb_frames_view_open(&v, tmp, &why), -EINVAL);
	/* a closed view, as the runner's is before its open: closed again */
	hb_frames_view_close(&v);
	ck_assert_ptr_null(hb_frames_view_check(&v));
	free(link);
}
END_TEST

/* hb_frames_keep() (a dead runner's file) leaves the live file as it was. */
START_TEST(keep_leaves_live)
{
	char *kept = xasprintf("%s/kept.bin", tmp);
	struct stat st;
	struct hb_frames f;
	const char *why = NULL;

	present(6);
	ck_assert_int_eq(hb_frames_keep(path, kept, 0644), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, RECS_OFF + CAP * 16);
	ck_assert_int_eq(stat(kept, &st), 0);
	ck_assert_int_eq(st.st_size, RECS_OFF + 6 * 16);
	ck_assert_int_eq(hb_frames_load(kept, &f, &why), 0);
	ck_assert_uint_eq(f.n, 6);
	hb_frames_release(&f);
	free(kept);
}
END_TEST

TEST_SUITE(frameslive_suite)
{
	Suite *s = suite_create("frameslive");
	TCase *tc = tcase_create("view");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, live_reads);
	tcase_add_test(tc, header_rewritten);
	tcase_add_test(tc, count_backwards);
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, truncated_in_records);
	tcase_add_test(tc, truncated_past_count);
	tcase_add_test(tc, stamped_in_future);
	tcase_add_test(tc, count_runs_ahead);
	tcase_add_test(tc, refused_at_open);
	tcase_add_test(tc, keep_leaves_live);
	suite_add_tcase(s, tc);
	return s;
}
