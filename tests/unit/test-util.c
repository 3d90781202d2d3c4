/*
 * common/base/util.c: the strict number parsers (whole string, in range, *out
 * untouched on error), str_strip, strbuf, and the file helpers every
 * program leans on (read/write round trip, mkdir -p, rm -rf that never
 * follows a symlink out of the tree, copy).
 */
#include "test.h"
#include "base/unzstd.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static char *tmp;

static void setup(void)
{
	tmp = test_tmpdir();
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
}

static char *tmp_path(const char *rel)
{
	return xasprintf("%s/%s", tmp, rel);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Inputs every parser must refuse with -EINVAL. */
static const char *const not_numbers[] = {
	"", " ", " 1", "1 ", "\t1", "1\t", "1\n", "\n1", "1\r", "1x", "x1", "0x10",
	"1.", "--1", "+-1", "1 2", "- 1",
};

START_TEST(atoi_accepts)
{
	int v;

	ck_assert_int_eq(safe_atoi("0", &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(safe_atoi("-17", &v), 0);
	ck_assert_int_eq(v, -17);
	ck_assert_int_eq(safe_atoi("+5", &v), 0);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(safe_atoi("007", &v), 0); /* decimal, not octal */
	ck_assert_int_eq(v, 7);
	ck_assert_int_eq(safe_atoi("2147483647", &v), 0);
	ck_assert_int_eq(v, INT_MAX);
	ck_assert_int_eq(safe_atoi("-2147483648", &v), 0);
	ck_assert_int_eq(v, INT_MIN);
}
END_TEST

START_TEST(atoi_refuses)
{
	int v = 42;

	for (size_t i = 0; i < ARRAY_SIZE(not_numbers); i++)
		ck_assert_msg(safe_atoi(not_numbers[i], &v) == -EINVAL,
			      "not_numbers[%zu] accepted", i);
	ck_assert_int_eq(safe_atoi(NULL, &v), -EINVAL);
	ck_assert_int_eq(safe_atoi("2147483648", &v), -ERANGE);
	ck_assert_int_eq(safe_atoi("-2147483649", &v), -ERANGE);
	ck_assert_int_eq(safe_atoi("99999999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(v, 42);
}
END_TEST

START_TEST(atoi64_range)
{
	int64_t v = 42;

	ck_assert_int_eq(safe_atoi64("9223372036854775807", &v), 0);
	ck_assert_int_eq(v, INT64_MAX);
	ck_assert_int_eq(safe_atoi64("-9223372036854775808", &v), 0);
	ck_assert_int_eq(v, INT64_MIN);
	v = 42;
	ck_assert_int_eq(safe_atoi64("9223372036854775808", &v), -ERANGE);
	ck_assert_int_eq(safe_atoi64("-9223372036854775809", &v), -ERANGE);
	for (size_t i = 0; i < ARRAY_SIZE(not_numbers); i++)
		ck_assert_msg(safe_atoi64(not_numbers[i], &v) == -EINVAL,
			      "not_numbers[%zu] accepted", i);
	ck_assert_int_eq(v, 42);
}
END_TEST

START_TEST(atou64_range)
{
	uint64_t v = 42;

	ck_assert_int_eq(safe_atou64("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(safe_atou64("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	v = 42;
	ck_assert_int_eq(safe_atou64("18446744073709551616", &v), -ERANGE);
	/* strtoull would take these as 2^64 - 1 and 2^64 - 5 */
	ck_assert_int_eq(safe_atou64("-1", &v), -EINVAL);
	ck_assert_int_eq(safe_atou64("-5", &v), -EINVAL);
	ck_assert_int_eq(safe_atou64("+1", &v), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(not_numbers); i++)
		ck_assert_msg(safe_atou64(not_numbers[i], &v) == -EINVAL,
			      "not_numbers[%zu] accepted", i);
	/* a leading blank strtoull skips must not smuggle a sign past the check */
	ck_assert_int_eq(safe_atou64("\n-1", &v), -EINVAL);
	ck_assert_int_eq(safe_atou64("\v-1", &v), -EINVAL);
	ck_assert_uint_eq(v, 42);
}
END_TEST

START_TEST(atod_values)
{
	double v = 42;

	ck_assert_int_eq(safe_atod("1.5", &v), 0);
	ck_assert_double_eq(v, 1.5);
	ck_assert_int_eq(safe_atod("-0.25", &v), 0);
	ck_assert_double_eq(v, -0.25);
	ck_assert_int_eq(safe_atod("1e3", &v), 0);
	ck_assert_double_eq(v, 1000);
	ck_assert_int_eq(safe_atod("7", &v), 0);
	ck_assert_double_eq(v, 7);
	v = 42;
	ck_assert_int_eq(safe_atod("1e999", &v), -ERANGE);
	ck_assert_int_eq(safe_atod("-1e999", &v), -ERANGE);
	ck_assert_int_eq(safe_atod("nan", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("NAN", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("-nan", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("inf", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("-Infinity", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("", &v), -EINVAL);
	ck_assert_int_eq(safe_atod(" 1.5", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("1.5 ", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("1.5ms", &v), -EINVAL);
	ck_assert_int_eq(safe_atod("1,5", &v), -EINVAL);
	ck_assert_int_eq(safe_atod(NULL, &v), -EINVAL);
	ck_assert_double_eq(v, 42);
}
END_TEST

START_TEST(strip)
{
	char a[] = "  \t hello world \r\n";
	char b[] = "\n\n";
	char c[] = "x";
	char d[] = "";
	char e[] = " inner  blanks\tstay ";

	ck_assert_ptr_eq(str_strip(a), a);
	ck_assert_str_eq(a, "hello world");
	ck_assert_str_eq(str_strip(b), "");
	ck_assert_str_eq(str_strip(c), "x");
	ck_assert_str_eq(str_strip(d), "");
	ck_assert_str_eq(str_strip(e), "inner  blanks\tstay");
}
END_TEST

START_TEST(startswith)
{
	ck_assert(str_startswith("format=1", "format="));
	ck_assert(str_startswith("abc", ""));
	ck_assert(!str_startswith("form", "format"));
}
END_TEST

START_TEST(strbuf_growth)
{
	struct strbuf sb = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	char *s;

	/* thousands of appends across many reallocations, checked against a
	 * string built one character at a time */
	for (int i = 0; i < 5000; i++) {
		char num[16];

		strbuf_addf(&sb, "%d,", i);
		snprintf(num, sizeof(num), "%d,", i);
		for (const char *p = num; *p; p++)
			strbuf_addch(&want, *p);
	}
	ck_assert_uint_eq(sb.len, want.len);
	ck_assert_uint_eq(strlen(sb.buf), sb.len);
	ck_assert_uint_gt(sb.alloc, sb.len);
	ck_assert_str_eq(sb.buf, want.buf);

	/* one append far larger than the buffer */
	strbuf_reset(&sb);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_str_eq(sb.buf, "");
	strbuf_addf(&sb, "%s|%s", want.buf, want.buf);
	ck_assert_uint_eq(sb.len, 2 * want.len + 1);
	ck_assert_int_eq(sb.buf[want.len], '|');

	strbuf_add(&sb, "ab\0cd", 5); /* binary: len counts the NUL */
	ck_assert_uint_eq(sb.len, 2 * want.len + 6);

	s = strbuf_detach(&sb);
	ck_assert_ptr_null(sb.buf);
	ck_assert_uint_eq(sb.len, 0);
	ck_assert_uint_eq(sb.alloc, 0);
	free(s);
	strbuf_release(&want);
	strbuf_release(&want); /* twice is fine */
}
END_TEST

/* Recycled heap memory full of 'x', so a buffer handed out without a
 * terminating NUL shows. */
static void dirty_heap(void)
{
	void *p[7];

	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = malloc(64);
		memset(p[i], 'x', 64);
	}
	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		free(p[i]);
}

START_TEST(strbuf_detach_empty)
{
	char *s[7];

	dirty_heap();
	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		struct strbuf sb = STRBUF_INIT;

		s[i] = strbuf_detach(&sb);
		ck_assert_ptr_nonnull(s[i]);
		ck_assert_msg(s[i][0] == '\0', "detach of an empty strbuf is not \"\"");
	}
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		free(s[i]);
}
END_TEST

START_TEST(xasprintf_formats)
{
	char *s = xasprintf("%s-%03d", "run", 7);

	ck_assert_str_eq(s, "run-007");
	free(s);
	s = xasprintf("%s", "");
	ck_assert_str_eq(s, "");
	free(s);
	ck_assert_ptr_null(xstrdup(NULL));
}
END_TEST

START_TEST(file_round_trip)
{
	char *path = tmp_path("bench.txt");
	char *tmpname = xasprintf("bench.txt.tmp.%d", (int)getpid());
	char *tmpfile = tmp_path(tmpname);
	char *victim = tmp_path("victim");
	char data[3000];
	char *back;
	size_t len = 0;
	struct stat st;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i % 251); /* includes NUL bytes */
	ck_assert_int_eq(write_file_atomic(path, data, sizeof(data), 0600), 0);
	ck_assert(!exists(tmpfile));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(read_file(path, &back, &len), 0);
	ck_assert_uint_eq(len, sizeof(data));
	ck_assert_int_eq(memcmp(back, data, len), 0);
	ck_assert_int_eq(back[len], '\0');
	free(back);

	/* replacing: the old content is gone, still no .tmp */
	ck_assert_int_eq(write_file_atomic(path, "new\n", 4, 0644), 0);
	ck_assert(!exists(tmpfile));
	ck_assert_int_eq(read_file(path, &back, NULL), 0);
	ck_assert_str_eq(back, "new\n");
	free(back);

	/* a symlink planted at the temporary name: the file it points to
	 * is left alone, the link goes */
	ck_assert_int_eq(write_file_atomic(victim, "keep\n", 5, 0644), 0);
	ck_assert_int_eq(symlink(victim, tmpfile), 0);
	ck_assert_int_eq(write_file_atomic(path, "third\n", 6, 0644), 0);
	ck_assert(!exists(tmpfile));
	ck_assert_int_eq(read_file(victim, &back, NULL), 0);
	ck_assert_str_eq(back, "keep\n");
	free(back);
	ck_assert_int_eq(read_file(path, &back, NULL), 0);
	ck_assert_str_eq(back, "third\n");
	free(back);
	free(path);
	free(tmpfile);
	free(tmpname);
	free(victim);
}
END_TEST

START_TEST(file_empty)
{
	char *path = tmp_path("empty");
	char *back[7];
	size_t len = 99;

	ck_assert_int_eq(write_file_atomic(path, "", 0, 0644), 0);
	dirty_heap();
	for (size_t i = 0; i < ARRAY_SIZE(back); i++) {
		ck_assert_int_eq(read_file(path, &back[i], &len), 0);
		ck_assert_uint_eq(len, 0);
		ck_assert_msg(back[i][0] == '\0', "an empty file reads as an unterminated buffer");
	}
	for (size_t i = 0; i < ARRAY_SIZE(back); i++)
		free(back[i]);
	free(path);
}
END_TEST

/* read_file sizes its buffer from fstat: sizes at and around powers of
 * two, and a /proc file, which says 0 and has content */
START_TEST(file_sizes)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 4095, 4096, 4097, 8191, 8192, 8193, 300000 };
	char *path = tmp_path("sized");
	char *data = zalloc(300000);
	char *back;
	size_t len;

	for (size_t i = 0; i < 300000; i++)
		data[i] = (char)('a' + i % 26);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		ck_assert_int_eq(write_file_atomic(path, data, sizes[i], 0644), 0);
		ck_assert_int_eq(read_file(path, &back, &len), 0);
		ck_assert_uint_eq(len, sizes[i]);
		ck_assert_int_eq(memcmp(back, data, len), 0);
		ck_assert_int_eq(back[len], '\0');
		free(back);
	}
	ck_assert_int_eq(read_file("/proc/self/status", &back, &len), 0);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(strlen(back), len);
	ck_assert_ptr_nonnull(strstr(back, "VmHWM"));
	free(back);
	free(data);
	free(path);
}
END_TEST

START_TEST(file_errors)
{
	char *missing = tmp_path("no/such/file");
	char *out = (char *)"untouched";
	size_t len = 7;

	ck_assert_int_eq(read_file(missing, &out, &len), -ENOENT);
	ck_assert_str_eq(out, "untouched");
	ck_assert_uint_eq(len, 7);
	ck_assert_int_eq(write_file_atomic(missing, "x", 1, 0644), -ENOENT);
	ck_assert_int_eq(read_file(tmp, &out, &len), -EISDIR);
	free(missing);
}
END_TEST

START_TEST(mkdir_nested)
{
	char *deep = tmp_path("a/b/c/d");
	char *slashy = tmp_path("e//f/");
	char *f = tmp_path("e/f");
	struct stat st;

	ck_assert_int_eq(mkdir_p(deep, 0755), 0);
	ck_assert_int_eq(stat(deep, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(mkdir_p(deep, 0755), 0);        /* existing */
	ck_assert_int_eq(mkdir_p(tmp, 0755), 0);         /* existing, absolute */
	ck_assert_int_eq(mkdir_p(slashy, 0755), 0);      /* doubled and trailing slash */
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	free(deep);
	free(slashy);
	free(f);
}
END_TEST

START_TEST(mkdir_file_in_the_way)
{
	char *file = tmp_path("file");
	char *below = tmp_path("file/sub");

	ck_assert_int_eq(write_file_atomic(file, "x", 1, 0644), 0);
	ck_assert_int_eq(mkdir_p(below, 0755), -ENOTDIR);
	/* as mkdir -p: a file where the directory should be is an error */
	ck_assert_int_lt(mkdir_p(file, 0755), 0);
	free(file);
	free(below);
}
END_TEST

/* What another user owns is opened without following a link anywhere:
 * open_regular_at (one name) and open_regular_beneath (a path). */
START_TEST(open_untrusted)
{
	char *dir = tmp_path("u");
	char *sub = tmp_path("u/sub");
	char *file = tmp_path("u/sub/f");
	char *outside = tmp_path("outside-f");
	char *linked = tmp_path("u/sub/link");
	char *dirlink = tmp_path("u/dirlink");
	char *fifo = tmp_path("u/fifo");
	char buf[8];
	struct stat st;
	int fd, dfd, in, out;

	ck_assert_int_eq(mkdir_p(sub, 0755), 0);
	ck_assert_int_eq(write_file_atomic(file, "game", 4, 0644), 0);
	ck_assert_int_eq(write_file_atomic(outside, "root", 4, 0600), 0);
	ck_assert_int_eq(symlink(outside, linked), 0);
	ck_assert_int_eq(symlink(sub, dirlink), 0);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);

	fd = open_regular_beneath(dir, "sub/f", &st);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	ck_assert_int_eq(open_regular_beneath(dir, "sub/link", NULL), -ELOOP);
	/* a link as a directory on the way: refused, not followed */
	ck_assert_int_eq(open_regular_beneath(dir, "dirlink/f", NULL), -ENOTDIR);
	ck_assert_int_eq(open_regular_beneath(dir, "sub/../sub/f", NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, "./sub/f", NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, "sub//f", NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, file, NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, "", NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, "fifo", NULL), -EINVAL);
	ck_assert_int_eq(open_regular_beneath(dir, "sub", NULL), -EISDIR);

	dfd = open(sub, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(open_regular_at(dfd, "link", NULL), -ELOOP);
	in = open_regular_at(dfd, "f", NULL);
	ck_assert_int_ge(in, 0);
	out = open("/dev/null", O_WRONLY);
	/* a file longer than the copy may be: -EFBIG, never more */
	ck_assert_int_eq(copy_fd(in, out, 3), -EFBIG);
	ck_assert_int_eq(lseek(in, 0, SEEK_SET), 0);
	ck_assert_int_eq(copy_fd(in, out, 4), 0);
	close(in);
	close(out);
	close(dfd);
	free(dir);
	free(sub);
	free(file);
	free(outside);
	free(linked);
	free(dirlink);
	free(fifo);
}
END_TEST

START_TEST(remove_keeps_link_targets)
{
	char *outside = tmp_path("outside");
	char *precious = tmp_path("outside/precious");
	char *tree = tmp_path("tree");
	char *deep = tmp_path("tree/a/b");
	char *leaf = tmp_path("tree/a/b/leaf");
	char *dirlink = tmp_path("tree/a/to-outside");
	char *filelink = tmp_path("tree/a/b/to-precious");
	char *toplink = tmp_path("toplink");
	char *back;

	ck_assert_int_eq(mkdir_p(outside, 0755), 0);
	ck_assert_int_eq(write_file_atomic(precious, "keep", 4, 0644), 0);
	ck_assert_int_eq(mkdir_p(deep, 0755), 0);
	ck_assert_int_eq(write_file_atomic(leaf, "x", 1, 0644), 0);
	ck_assert_int_eq(symlink(outside, dirlink), 0);
	ck_assert_int_eq(symlink(precious, filelink), 0);
	ck_assert_int_eq(symlink(outside, toplink), 0);

	ck_assert_int_eq(remove_tree(tree), 0);
	ck_assert(!exists(tree));
	ck_assert_int_eq(read_file(precious, &back, NULL), 0);
	ck_assert_str_eq(back, "keep");
	free(back);

	/* a symlink as the root itself: the link goes, the target stays */
	ck_assert_int_eq(remove_tree(toplink), 0);
	ck_assert(!exists(toplink));
	ck_assert(exists(precious));

	ck_assert_int_eq(remove_tree(tree), 0); /* already gone: nothing to do */
	free(outside);
	free(precious);
	free(tree);
	free(deep);
	free(leaf);
	free(dirlink);
	free(filelink);
	free(toplink);
}
END_TEST

START_TEST(copy)
{
	char *from = tmp_path("from");
	char *to = tmp_path("to");
	size_t size = 200000; /* over the copy buffer */
	char *data = zalloc(size);
	char *back;
	size_t len;
	struct stat st;

	for (size_t i = 0; i < size; i++)
		data[i] = (char)(i * 7);
	ck_assert_int_eq(write_file_atomic(from, data, size, 0644), 0);
	ck_assert_int_eq(copy_file(from, to, 0600), 0);
	ck_assert_int_eq(read_file(to, &back, &len), 0);
	ck_assert_uint_eq(len, size);
	ck_assert_int_eq(memcmp(back, data, size), 0);
	ck_assert_int_eq(stat(to, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	free(back);

	/* over a longer file: truncated, not overlaid */
	ck_assert_int_eq(write_file_atomic(from, "short", 5, 0644), 0);
	ck_assert_int_eq(copy_file(from, to, 0600), 0);
	ck_assert_int_eq(read_file(to, &back, &len), 0);
	ck_assert_str_eq(back, "short");
	free(back);

	free(from);
	from = tmp_path("missing");
	ck_assert_int_eq(copy_file(from, to, 0600), -ENOENT);
	free(from);
	free(to);
	free(data);
}
END_TEST

/* read_maybe_zstd: the one reader of a run's records that may be zstd */
START_TEST(maybe_zstd)
{
	static const char text[] = "# hitchbench waits 1\nw 1 2 3\n";
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *dir = test_tmpdir(), *plain = xasprintf("%s/plain", dir), *packed = xasprintf("%s/packed", dir);
	char z[256];
	size_t zn = ZSTD_compress(z, sizeof(z), text, strlen(text), 3);

	ck_assert(!ZSTD_isError(zn));
	ck_assert_int_eq(write_file_atomic(plain, text, strlen(text), 0644), 0);
	ck_assert_int_eq(write_file_atomic(packed, z, zn, 0644), 0);
	/* zstd or plain alike when plain is allowed */
	ck_assert_int_eq(read_maybe_zstd(packed, "a record", 1024, true, &out, &err), 0);
	ck_assert_str_eq(out.buf, text);
	strbuf_reset(&out);
	ck_assert_int_eq(read_maybe_zstd(plain, "a record", 1024, true, &out, &err), 0);
	ck_assert_str_eq(out.buf, text);
	ck_assert_uint_eq(err.len, 0);
	/* plain refused where only zstd is written, in zstd's words */
	strbuf_reset(&out);
	ck_assert_int_eq(read_maybe_zstd(plain, "a record", 1024, false, &out, &err), -EINVAL);
	ck_assert_msg(str_startswith(err.buf, plain) && strstr(err.buf, ": not a record (Unknown frame descriptor)"),
		      "%s", err.buf);
	/* bounded both ways: a plain file over max is not read, and no more
	 * than max is decompressed */
	strbuf_reset(&err);
	ck_assert_int_eq(read_maybe_zstd(plain, "a record", 8, true, &out, &err), -EFBIG);
	ck_assert_msg(strstr(err.buf, ": over 0 MiB: not read"), "%s", err.buf);
	strbuf_reset(&err);
	ck_assert_int_eq(read_maybe_zstd(packed, "a record", 8, true, &out, &err), -EFBIG);
	ck_assert_msg(strstr(err.buf, "decompresses to more than"), "%s", err.buf);
	/* a missing file, as every command says it */
	strbuf_reset(&err);
	ck_assert_int_eq(read_maybe_zstd("/nonexistent/w.zst", "a record", 8, true, &out, &err), -ENOENT);
	ck_assert_str_eq(err.buf, "cannot read '/nonexistent/w.zst': No such file or directory");
	strbuf_release(&out);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(plain);
	free(packed);
}
END_TEST

TEST_SUITE(util_suite)
{
	Suite *s = suite_create("util");
	TCase *parse = tcase_create("parse");
	TCase *str = tcase_create("strings");
	TCase *files = tcase_create("files");

	tcase_add_test(parse, atoi_accepts);
	tcase_add_test(parse, atoi_refuses);
	tcase_add_test(parse, atoi64_range);
	tcase_add_test(parse, atou64_range);
	tcase_add_test(parse, atod_values);
	suite_add_tcase(s, parse);

	tcase_add_test(str, strip);
	tcase_add_test(str, startswith);
	tcase_add_test(str, strbuf_growth);
	tcase_add_test(str, strbuf_detach_empty);
	tcase_add_test(str, xasprintf_formats);
	suite_add_tcase(s, str);

	tcase_add_checked_fixture(files, setup, teardown);
	tcase_add_test(files, file_round_trip);
	tcase_add_test(files, file_empty);
	tcase_add_test(files, file_sizes);
	tcase_add_test(files, file_errors);
	tcase_add_test(files, mkdir_nested);
	tcase_add_test(files, mkdir_file_in_the_way);
	tcase_add_test(files, remove_keeps_link_targets);
	tcase_add_test(files, open_untrusted);
	tcase_add_test(files, copy);
	tcase_add_test(files, maybe_zstd);
	suite_add_tcase(s, files);
	return s;
}
