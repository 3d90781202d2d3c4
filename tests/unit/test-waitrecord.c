/*
 * common/formats/waitrecord.c and common/system/ksyms.c: every line kind written and read
 * back to the same values, a packed record loaded from disk with its
 * trailer, the reader's file:line on each kind of bad line, a cut last
 * line forgiven and said; kallsyms named by the last text symbol at or
 * below an address, hidden addresses refused.
 */
#include "system/ksyms.h"
#include "test.h"
#include "base/util.h"
#include "formats/waitrecord.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct wr_off sample_off = {
	.tid = 4242, .state = 'D', .off_ns = 1000000000, .on_ns = 1250000000, .wake_ns = 1240000000,
	.stack = 1, .waker_tid = 0, .waker_stack = 2, .run_ns = 77, .runq_ns = 5, .sleep_ns = 9,
	.faults = 12, .fault_addr = 0x7f00deadbeefull, .blkio_ns = 230000000, .swapin_ns = 0,
	.reclaim_ns = 3, .thrash_ns = -1, .compact_ns = -1, .syscall = "read",
};

static const struct wr_bio sample_bio = {
	.tid = 4242, .start_ns = 1001000000, .done_ns = 1239000000, .major = 254, .minor = 0,
	.op = 'R', .bytes = 131072, .error = 0,
};

/* A record with one of everything, as the recorder writes it. */
static void whole_record(struct strbuf *sb)
{
	static const char *const s1[] = { "io_schedule", "folio_wait_bit_common", "filemap_fault" };
	static const char *const s2[] = { "try_to_wake_up", "blk_mq_end_request" };
	struct wr_thread t = { 4242, 4242, "game\tmain" };

	waitrec_put_header(sb);
	waitrec_put_meta(sb, "min_off_ns", "1000000");
	waitrec_put_meta(sb, "dev.254.0", "vda");
	strbuf_addstr(sb, "follow\t4242\t999\n");
	waitrec_put_thread(sb, &t);
	waitrec_put_stack(sb, 1, s1, 3);
	waitrec_put_stack(sb, 2, s2, 2);
	waitrec_put_bio(sb, &sample_bio);
	waitrec_put_off(sb, &sample_off);
	waitrec_put_lost(sb, 3);
	waitrec_put_lost(sb, 4);
}

START_TEST(round_trip)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct waitrec w;

	whole_record(&sb);
	ck_assert_msg(waitrec_parse(sb.buf, sb.len, "w", &w, &err) == 0, "%s", err.buf);
	ck_assert_uint_eq(w.n_off, 1);
	ck_assert_mem_eq(&w.off[0], &sample_off, sizeof(sample_off));
	ck_assert_uint_eq(w.n_bio, 1);
	ck_assert_mem_eq(&w.bio[0], &sample_bio, sizeof(sample_bio));
	ck_assert_uint_eq(w.lost, 7);
	ck_assert(!w.cut);
	/* a tab in a name cannot split its line */
	ck_assert_str_eq(waitrec_thread(&w, 4242)->comm, "game?main");
	ck_assert_ptr_null(waitrec_thread(&w, 1));
	ck_assert_uint_eq(waitrec_stack(&w, 1)->n, 3);
	ck_assert_str_eq(waitrec_stack(&w, 1)->fn[2], "filemap_fault");
	ck_assert_ptr_null(waitrec_stack(&w, 0));
	ck_assert_ptr_null(waitrec_stack(&w, 3));
	ck_assert_str_eq(waitrec_dev_name(&w, 254, 0), "vda");
	ck_assert_ptr_null(waitrec_dev_name(&w, 8, 0));
	ck_assert_str_eq(kvfile_get(&w.meta, "min_off_ns"), "1000000");
	waitrec_release(&w);
	strbuf_release(&sb);
	strbuf_release(&err);
}
END_TEST

START_TEST(packed_on_disk)
{
	char live[] = "/tmp/hb-waitrec-XXXXXX";
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	char *out;
	struct kvfile t;
	struct waitrec w;
	int fd = mkstemp(live);

	ck_assert_int_ge(fd, 0);
	whole_record(&sb);
	/* the writer died mid-line: packing cuts the unfinished line */
	strbuf_addstr(&sb, "off\t4242\t12");
	ck_assert_int_eq(write_all(fd, sb.buf, sb.len), 0);
	close(fd);
	out = xasprintf("%s.zst", live);
	kvfile_init(&t);
	kvfile_add(&t, "stop", "SIGTERM");
	ck_assert_int_eq(waitrec_pack(live, out, &t, &err), 0);
	ck_assert_int_eq(waitrec_load(out, &w, &err), 0);
	ck_assert_uint_eq(w.n_off, 1);
	ck_assert(!w.cut);
	ck_assert_str_eq(kvfile_get(&w.trailer, "stop"), "SIGTERM");
	waitrec_release(&w);
	/* the live text itself reads too, its cut line forgiven and said */
	ck_assert_int_eq(waitrec_load(live, &w, &err), 0);
	ck_assert(w.cut);
	ck_assert_uint_eq(w.n_off, 1);
	waitrec_release(&w);
	unlink(out);
	ck_assert_int_eq(waitrec_load(out, &w, &err), -ENOENT);
	unlink(live);
	kvfile_release(&t);
	free(out);
	strbuf_release(&sb);
	strbuf_release(&err);
}
END_TEST

/* text must be refused with "name:LINE: ..." containing what */
static void refused(const char *text, int line, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	struct waitrec w;
	char *want = xasprintf("w:%d: ", line);

	ck_assert_int_eq(waitrec_parse(text, strlen(text), "w", &w, &err), -EINVAL);
	ck_assert_msg(str_startswith(err.buf, want) && strstr(err.buf, what),
		      "'%s' wanted '%s...%s'", err.buf, want, what);
	free(want);
	strbuf_release(&err);
}

#define HDR "hbwaits\t1\n"
#define HDR2 "hbwaits\t2\n"
#define OFF_OK "off\t7\t10\t20\t15\tS\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n"

/* Version 2's pauses: the intervals a flip run had the recorder off */
START_TEST(pauses)
{
	static const char text[] = HDR2 "pause\t100\n" OFF_OK "resume\t200\npause\t300\n";
	struct strbuf err = STRBUF_INIT;
	struct waitrec w;

	ck_assert_int_eq(waitrec_parse(text, strlen(text), "w", &w, &err), 0);
	ck_assert_int_eq(w.version, 2);
	ck_assert_uint_eq(w.n_pause, 2);
	ck_assert(!waitrec_paused_in(&w, 50, 100));
	ck_assert(waitrec_paused_in(&w, 50, 101));
	ck_assert(waitrec_paused_in(&w, 199, 200));
	ck_assert(!waitrec_paused_in(&w, 200, 300));
	ck_assert(waitrec_paused_in(&w, 250, 301));
	ck_assert(waitrec_paused_in(&w, 1000000, 1000001));     /* still paused at the end */
	ck_assert_uint_eq(w.n_off, 1);
	waitrec_release(&w);
	strbuf_release(&err);
}
END_TEST

START_TEST(bad_lines)
{
	struct strbuf err = STRBUF_INIT;
	struct waitrec w;

	ck_assert_int_eq(waitrec_parse(HDR OFF_OK, strlen(HDR OFF_OK), "w", &w, &err), 0);
	waitrec_release(&w);
	refused("hbwaits\t3\n", 1, "version 1 or 2");
	refused("", 1, "empty");
	refused(HDR "nonsense\t1\n", 2, "not a line version 1 has");
	refused(HDR "pause\t5\n", 2, "not a line version 1 has");
	refused(HDR2 "nonsense\t1\n", 2, "not a line the format has");
	refused(HDR2 "resume\t5\n", 2, "a resume without a pause");
	refused(HDR2 "pause\t5\npause\t6\n", 3, "a pause while paused");
	refused(HDR2 "pause\t5\nresume\t4\n", 3, "a resume before its pause");
	refused(HDR2 "pause\t5\nresume\t9\npause\t8\n", 4, "a pause before the last resume");
	refused(HDR2 "pause\tsoon\n", 2, "a pause line wants NS");
	refused(HDR OFF_OK "meta\tk=v\n", 3, "after the data began");
	refused(HDR "meta\tnovalue\n", 2, "KEY=VALUE");
	refused(HDR "off\t7\t10\n", 2, "19 fields");
	refused(HDR "off\t7\t10\t5\t0\tS\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n", 2,
		"ON_NS before OFF_NS");
	refused(HDR "off\t7\t10\t20\t25\tS\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n", 2,
		"WAKE_NS outside");
	refused(HDR "off\t7\t10\t20\t15\tQ\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n", 2,
		"STATE");
	refused(HDR "off\t7\t10\t20\t15\tS\t3\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n", 2,
		"field 7 '3'");
	refused(HDR "off\t7\tten\t20\t15\tS\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tfutex\n", 2,
		"field 3 'ten'");
	refused(HDR "stack\t2\tf\n", 2, "count from 1");
	refused(HDR "off\t7\t10\t20\t15\tS\t0\t-1\t0\t1\t2\t3\t4\t0x0\t-1\t-1\t-1\t-1\t-1\tFu tex\n", 2,
		"SYSCALL");
	refused(HDR "bio\t7\t10\t20\tvda\tR\t4096\t0\n", 2, "MAJ:MIN");
	/* the strict parsers: sscanf's %u wrapped -1 and 2^32 */
	refused(HDR "bio\t7\t10\t20\t-1:0\tR\t4096\t0\n", 2, "MAJ:MIN");
	refused(HDR "bio\t7\t10\t20\t4294967296:0\tR\t4096\t0\n", 2, "MAJ:MIN");
	refused(HDR "bio\t7\t10\t20\t254:0x\tR\t4096\t0\n", 2, "MAJ:MIN");
	refused(HDR "bio\t7\t30\t20\t254:0\tR\t4096\t0\n", 2, "DONE_NS before START_NS");
	refused(HDR "bio\t7\t10\t20\t254:0\tX\t4096\t0\n", 2, "OP is one of");
	refused(HDR "trailer\tstop=x\n" OFF_OK, 3, "after the trailer");
	refused(HDR "thread\t7\tgame\n", 2, "TID TGID COMM");
	refused(HDR "lost\tmany\n", 2, "lost line");
	strbuf_release(&err);
}
END_TEST

START_TEST(kernel_symbols)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 t futex_wait\n"
		"ffffffff81002000 d some_data\n"
		"ffffffff81003000 T filemap_fault\t[ext4]\n"
		"garbage line\n"
		"ffffffff81000800 T early\n";
	struct strbuf err = STRBUF_INIT;
	struct ksyms k;

	ck_assert_int_eq(ksyms_parse(&k, text, &err), 0);
	ck_assert_uint_eq(k.n, 4);
	ck_assert_ptr_null(ksyms_name(&k, 0xffffffff80000000ull));
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81000000ull), "_stext");
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81000900ull), "early");
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81001234ull), "futex_wait");
	/* data symbols are not functions: the text one below stands */
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81002100ull), "futex_wait");
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81009999ull), "filemap_fault");
	ksyms_release(&k);
	ck_assert_int_eq(ksyms_parse(&k, "0000000000000000 T a\n0000000000000000 T b\n", &err), -EPERM);
	ck_assert(strstr(err.buf, "kptr_restrict") != NULL);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(waitrecord_suite)
{
	Suite *s = suite_create("waitrecord");
	TCase *tc = tcase_create("lines");

	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, packed_on_disk);
	tcase_add_test(tc, pauses);
	tcase_add_test(tc, bad_lines);
	tcase_add_test(tc, kernel_symbols);
	suite_add_tcase(s, tc);
	return s;
}
