/*
 * What fuzzing the parsers found (tests/fuzz, `make fuzz`), each with the
 * input that showed it, inline or under tests/fixtures/fuzz/NAME/ (its
 * README says what each file is): a reader that hung, read out of bounds,
 * allocated what a header claimed, lost what followed a NUL byte, blocked
 * on a FIFO, or compiled a regex for seconds, must now refuse the input
 * quickly with its reason. A test that hangs fails by Check's time-out.
 */
#include "test.h"
#include "formats/frames.h"
#include "text/kvfile.h"
#include "text/regexlimit.h"
#include "run/reload.h"
#include "formats/stallrecord.h"
#include "base/unzstd.h"
#include "base/util.h"
#include "formats/probefile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

/* kvfile: a last line ending in a carriage return, no newline, looped
 * for ever (the step past it was its length, which the \r made one short) */
START_TEST(kvfile_cr_at_end)
{
	struct kvfile kf;
	int line = 0;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "format=1\r\nstatus=ok\r", &line), 0);
	ck_assert_uint_eq(kf.n, 2);
	ck_assert_str_eq(kvfile_get(&kf, "status"), "ok");
	kvfile_release(&kf);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "\r", &line), 0);
	ck_assert_uint_eq(kf.n, 0);
	kvfile_release(&kf);
}
END_TEST

/* kvfile: everything after a NUL byte was ignored, so an appended
 * invalid=1 was lost and the run counted. Now the line is refused. */
START_TEST(kvfile_nul_byte)
{
	static const char text[] = "format=1\nrun_id=x\nstatus=ok\nga\0me=doom\ninvalid=1\n";
	struct strbuf err = STRBUF_INIT;
	struct kvfile kf;
	const char *why = NULL;
	char *dir = test_tmpdir(), *path = xasprintf("%s/bench.txt", dir);
	int line = 0;

	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse_len(&kf, text, sizeof(text) - 1, &line, &why), -EINVAL);
	ck_assert_int_eq(line, 4);
	ck_assert_str_eq(why, "NUL byte");
	kvfile_release(&kf);
	ck_assert_int_eq(write_file_atomic(path, text, sizeof(text) - 1, 0644), 0);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_load(&kf, path, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "bench.txt:4: NUL byte"));
	kvfile_release(&kf);
	strbuf_release(&err);
	remove_tree(dir);
	free(path);
	free(dir);
}
END_TEST

/* Every reader of a run directory: a FIFO in a file's place blocked the
 * open for ever. Now it is refused at once, as a directory is. */
START_TEST(fifo_refused)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = test_tmpdir(), *fifo = xasprintf("%s/frames.bin", dir), *text = NULL;
	struct stallrec sr;
	struct hb_frames f;
	struct kvfile kf;
	const char *why = NULL;
	size_t len;

	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(read_file(fifo, &text, &len), -EINVAL);
	ck_assert_int_eq(read_file(dir, &text, &len), -EISDIR);
	ck_assert_ptr_null(text);
	ck_assert_int_lt(open_regular(fifo), 0);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(hb_frames_load(fifo, &f, &why), -EINVAL);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_load(&kf, fifo, &err), -EINVAL);
	kvfile_release(&kf);
	stallrec_init(&sr);
	ck_assert_int_eq(stallrec_load(fifo, &sr, &err), -EINVAL);
	strbuf_release(&err);
	remove_tree(dir);
	free(fifo);
	free(dir);
}
END_TEST

/* An integer of a packed stall record: little-endian, on any machine. */
static void put_le(struct strbuf *sb, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		strbuf_addch(sb, (char)(v >> (8 * i)));
}

/* A packed stall record of header text, then rows and columns. */
static void packed_head(struct strbuf *sb, const char *header, uint64_t rows, uint32_t cols)
{
	strbuf_add(sb, "HBSTALLS", 8);
	put_le(sb, HB_STALLREC_VERSION, 4);
	put_le(sb, strlen(header), 4);
	strbuf_addstr(sb, header);
	put_le(sb, rows, 8);
	put_le(sb, cols, 4);
}

/* stallrec: the row count was checked against the bytes left alone: with
 * no column it allocated rows x 8 bytes (80 GB for 10^10 rows), with
 * columns rows x columns could exceed what the file holds. */
START_TEST(stallrec_packed_sizes)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct stallrec r;

	packed_head(&sb, "columns=\nencodings=\n", 10000000000ULL, 0);
	strbuf_add(&sb, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	stallrec_init(&r);
	ck_assert_int_eq(stallrec_parse_packed(sb.buf, sb.len, &r, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "row or column count"));
	strbuf_reset(&sb);
	strbuf_reset(&err);
	/* 3 columns of 10 rows need 30 bytes; 20 are there */
	packed_head(&sb, "columns=a b c\nencodings=0 0 0\n", 10, 3);
	for (int i = 0; i < 20; i++)
		strbuf_addch(&sb, 0);
	ck_assert_int_eq(stallrec_parse_packed(sb.buf, sb.len, &r, &err), -EINVAL);
	strbuf_release(&sb);
	strbuf_release(&err);
}
END_TEST

/* stallrec, live layout: capacity x row size wrapped round to pass the
 * offsets check, and rows were then read past the end of the file. */
START_TEST(stallrec_live_wrap)
{
	struct strbuf err = STRBUF_INIT;
	struct stallrec_live_header h;
	static const char meta[] = "columns=a b\nencodings=0 0\n";
	unsigned char *data = zalloc(HB_STALLREC_LIVE_HDR);
	struct stallrec r;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HB_STALLREC_LIVE_MAGIC, 8);
	h.version = HB_STALLREC_VERSION;
	h.n_cols = 2;
	h.capacity = 1ULL << 60; /* x 16 bytes a row: 2^64, 0 once wrapped */
	h.count = 1000;
	h.rows_off = HB_STALLREC_LIVE_HDR;
	h.str_off = h.rows_off;  /* what the wrapped product gives */
	h.stack_off = h.str_off;
	h.meta_len = sizeof(meta) - 1;
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), meta, sizeof(meta) - 1);
	stallrec_init(&r);
	ck_assert_int_eq(stallrec_parse_bytes(data, HB_STALLREC_LIVE_HDR, "stalls.live", &r, &err),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "inconsistent header"));
	strbuf_release(&err);
	free(data);
}
END_TEST

/* zstd: the frame's content size was trusted up to 16 GiB and allocated
 * before a byte was decompressed. Now the buffer grows with the output,
 * to a documented maximum. */
START_TEST(zstd_bounded)
{
	/* a frame header claiming 16 GiB (single segment, 8-byte size), then
	 * one raw last block of 3 bytes */
	static const unsigned char claim[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
		0x19, 0x00, 0x00, 'a', 'b', 'c',
	};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *why = NULL;
	size_t n = 1 << 20, cap = ZSTD_compressBound(n);
	char *zeros = zalloc(n), *z = zalloc(cap);
	struct stallrec r;
	size_t zn;

	ck_assert_uint_eq(ZSTD_getFrameContentSize(claim, sizeof(claim)), 16ULL << 30);
	ck_assert_int_eq(unzstd(claim, sizeof(claim), HB_STALLREC_MAX_PACKED, &out, &why), -EINVAL);
	ck_assert_uint_lt(out.alloc, 1 << 20);
	stallrec_init(&r);
	ck_assert_int_eq(stallrec_parse_bytes(claim, sizeof(claim), "stalls.rec.zst", &r, &err),
			 -EINVAL);
	/* 1 MiB of zeros in a few bytes: refused past a maximum of 64 KiB */
	zn = ZSTD_compress(z, cap, zeros, n, 3);
	ck_assert(!ZSTD_isError(zn));
	strbuf_reset(&out);
	ck_assert_int_eq(unzstd(z, zn, 64 << 10, &out, &why), -EFBIG);
	ck_assert_uint_le(out.len, 64 << 10);
	strbuf_reset(&out);
	ck_assert_int_eq(unzstd(z, zn, n, &out, &why), 0);
	ck_assert_uint_eq(out.len, n);
	strbuf_release(&out);
	strbuf_release(&err);
	free(zeros);
	free(z);
}
END_TEST

/* Regexes: what took regcomp() seconds and gigabytes, or overflowed its
 * stack, is refused before it gets there; patterns of real size pass. */
START_TEST(regex_limits)
{
	static const char *const refused[] = {
		"(((a{1,255}){1,255}){1,255})",
		"a{256}",
		"^Com_TouchMe+++++++++++++++++++++++",
		"S++*+++++",
		"a**",
		"(a)\\1",
		"((((((((((((((((((a))))))))))))))))))",
	};
	static const char *const fine[] = {
		"^R_Init: Init DOOM refresh daemon",
		"[0-9]{1,3}(\\.[0-9]{1,3}){3}",
		"(a{1,255}){1,16}",
		"^(Loading|Loaded) .* in [0-9]+(\\.[0-9]+)? ?ms$",
		"[]a]+x{2}",
	};
	struct strbuf err = STRBUF_INIT;
	const char *why;
	char pat[HB_REGEX_MAX_LEN + 2];
	regex_t re;

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		ck_assert_msg(regex_check(refused[i], &why) == -EINVAL, "took %s", refused[i]);
	for (size_t i = 0; i < ARRAY_SIZE(fine); i++) {
		ck_assert_msg(regex_compile(&re, fine[i], &err) == 0, "%s: %s", fine[i], err.buf);
		regfree(&re);
	}
	memset(pat, 'a', sizeof(pat) - 1);
	pat[sizeof(pat) - 1] = '\0';
	ck_assert_int_eq(regex_check(pat, &why), -EINVAL);
	ck_assert_int_eq(regex_compile(&re, "a{2", &err), -EINVAL); /* regcomp's own refusal */
	strbuf_release(&err);
}
END_TEST

/* The fuzzers' own inputs, through the parsers they were found in. */
START_TEST(regex_fuzz_inputs)
{
	static const char *const files[] = {
		"fuzz/reload/stacked-plus.ini",
		"fuzz/intfactions/stacked-plus.ini",
		"fuzz/intfactions/repeated-repetition.ini",
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		const char *line, *why;
		char *text = NULL, *pat, *nl;
		size_t len;

		ck_assert_int_eq(read_file(fixture_path(files[i]), &text, &len), 0);
		line = strstr(text, "line = ") ? strstr(text, "line = ") : strstr(text, "action = ");
		ck_assert_ptr_nonnull(line);
		pat = xstrdup(strchr(line, '=') + 2);
		if ((nl = strchr(pat, '\n')))
			*nl = '\0';
		ck_assert_msg(regex_check(pat, &why) == -EINVAL, "%s: took '%s'", files[i], pat);
		free(pat);
		free(text);
	}
}
END_TEST

/* probe.txt: each "cpu" line allocated a 160 KB histogram, so a file of
 * short lines took a gigabyte. CPUs past CPU_SETSIZE are refused, and a
 * histogram holds the bins the file lists. */
START_TEST(probe_many_cpus)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct probe_result r;
	uint64_t us;

	strbuf_addstr(&sb, "format 1\ncpu 1024 wakeups 0\nend\n");
	ck_assert_int_eq(probe_result_parse(sb.buf, &r, &err), -EINVAL);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "format 1\n");
	for (int c = 0; c < CPU_SETSIZE; c++)
		strbuf_addf(&sb, "cpu %d wakeups 3\nhist %d 19999 2\nhist %d 7 1\n", c, c, c);
	strbuf_addstr(&sb, "end\n");
	ck_assert_int_eq(probe_result_parse(sb.buf, &r, &err), 0);
	ck_assert_uint_eq(r.n_cpus, CPU_SETSIZE);
	ck_assert_ptr_null(r.cpus[5].hist.bins);
	ck_assert_uint_eq(r.cpus[5].hist.n_sparse, 2);
	ck_assert_int_eq(lat_hist_percentile(&r.cpus[5].hist, 500000, &us), 0);
	ck_assert_uint_eq(us, 19999);
	ck_assert_int_eq(lat_hist_percentile(&r.cpus[5].hist, 300000, &us), 0);
	ck_assert_uint_eq(us, 7);
	probe_result_release(&r);
	strbuf_release(&sb);
	strbuf_release(&err);
}
END_TEST

/* Numbers: one strict set. strtod's hex floats, inf and nan are refused;
 * seconds are plain decimals converted exactly, in range. */
START_TEST(numbers_one_way)
{
	static const char *const not_doubles[] = { "0x1p3", "0X10", "inf", "-inf", "nan", "infinity",
						   "1e", "" };
	uint64_t ns = 7;
	double d;

	for (size_t i = 0; i < ARRAY_SIZE(not_doubles); i++)
		ck_assert_msg(safe_atod(not_doubles[i], &d) < 0, "took '%s'", not_doubles[i]);
	ck_assert_int_eq(safe_atod("-1.5e-3", &d), 0);
	ck_assert_int_eq(safe_atosec_ns("2.5", UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, 2500000000ULL);
	ck_assert_int_eq(safe_atosec_ns("0.000000001", UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, 1);
	ck_assert_int_eq(safe_atosec_ns("1.0000000000", UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, 1000000000ULL);
	ck_assert_int_eq(safe_atosec_ns("1.0000000001", UINT64_MAX, &ns), -EINVAL);
	ck_assert_int_eq(safe_atosec_ns("18446744073.709551615", UINT64_MAX, &ns), 0);
	ck_assert_uint_eq(ns, UINT64_MAX);
	ck_assert_int_eq(safe_atosec_ns("18446744073.709551616", UINT64_MAX, &ns), -ERANGE);
	ck_assert_int_eq(safe_atosec_ns("99999999999999999999999", UINT64_MAX, &ns), -ERANGE);
	ck_assert_int_eq(safe_atosec_ns("11", 10000000000ULL, &ns), -ERANGE);
	ck_assert_int_eq(safe_atosec_ns("1e308", UINT64_MAX, &ns), -EINVAL);
	ck_assert_int_eq(safe_atosec_ns("-1", UINT64_MAX, &ns), -EINVAL);
	ck_assert_int_eq(safe_atosec_ns("1.", UINT64_MAX, &ns), -EINVAL);
	ck_assert_int_eq(safe_atosec_ns(" 1", UINT64_MAX, &ns), -EINVAL);
	ck_assert_int_eq(safe_atosec("604800", &d), 0);
	ck_assert_int_eq(safe_atosec("604800.000000001", &d), -ERANGE);
}
END_TEST

/* Times from files near 2^64 (a game.log stamp, a pass start): a reload
 * segment's end was start + margin, which wrapped round to before its
 * start. It saturates now. */
START_TEST(reload_end_saturates)
{
	struct reload_rule rule;
	struct reload_pass pass = { 1, UINT64_MAX - 1000 };
	uint64_t line = UINT64_MAX - 500, t[] = { UINT64_MAX - 900, UINT64_MAX - 100 };
	struct reload_segment *seg = NULL;
	size_t n = 0;

	reload_rule_init(&rule);
	rule.kind = RELOAD_LINE;
	rule.margin_s = 2.0;
	ck_assert_int_eq(reload_segments(&rule, &pass, 1, &line, 1, t, 2, UINT64_MAX - 2000,
					 UINT64_MAX - 1, &seg, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_ge(seg[0].end_ns, seg[0].start_ns);
	ck_assert_uint_eq(seg[0].end_ns, UINT64_MAX);
	free(seg);
	reload_rule_release(&rule);
}
END_TEST

TEST_SUITE(fuzzfound_suite)
{
	Suite *s = suite_create("fuzzfound");
	TCase *t = tcase_create("found");

	tcase_add_test(t, kvfile_cr_at_end);
	tcase_add_test(t, kvfile_nul_byte);
	tcase_add_test(t, fifo_refused);
	tcase_add_test(t, stallrec_packed_sizes);
	tcase_add_test(t, stallrec_live_wrap);
	tcase_add_test(t, zstd_bounded);
	tcase_add_test(t, regex_limits);
	tcase_add_test(t, regex_fuzz_inputs);
	tcase_add_test(t, probe_many_cpus);
	tcase_add_test(t, numbers_one_way);
	tcase_add_test(t, reload_end_saturates);
	suite_add_tcase(s, t);
	return s;
}
