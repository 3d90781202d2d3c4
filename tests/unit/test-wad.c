/*
 * common/formats/wad.c: finding a lump in WADs built here byte by byte, refusing
 * what is not a WAD or points outside itself, and, where Debian's
 * freedoom package is installed, finding the demo the dsda-doom recipe
 * plays in the real IWAD.
 */
#include "test.h"
#include "base/util.h"
#include "formats/wad.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FREEDOOM2 "/usr/share/games/doom/freedoom2.wad"

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void dir_entry(unsigned char *e, uint32_t off, uint32_t size, const char *name)
{
	put32(e, off);
	put32(e + 4, size);
	memset(e + 8, 0, 8);
	memcpy(e + 8, name, strlen(name) < 8 ? strlen(name) : 8);
}

/*
 * An IWAD: header, two lumps' data, then the directory.
 *   0  "IWAD" count=2 dir=28
 *  12  "MAP01 data" (10 bytes) as lump MAP01
 *  22  "demo!!" (6 bytes) as lump DEMOLUMP (8 characters, no NUL)
 *  28  directory
 */
static unsigned char wad[12 + 10 + 6 + 2 * 16];

static void build_wad(void)
{
	memcpy(wad, "IWAD", 4);
	put32(wad + 4, 2);
	put32(wad + 8, 28);
	memcpy(wad + 12, "MAP01 data", 10);
	memcpy(wad + 22, "demo!!", 6);
	dir_entry(wad + 28, 12, 10, "MAP01");
	dir_entry(wad + 44, 22, 6, "DEMOLUMP");
}

START_TEST(find)
{
	size_t off = 0, size = 0;
	const char *why = NULL;

	build_wad();
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP01", &off, &size, &why), 0);
	ck_assert_uint_eq(off, 12);
	ck_assert_uint_eq(size, 10);
	ck_assert_int_eq(memcmp(wad + off, "MAP01 data", size), 0);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "DEMOLUMP", &off, &size, &why), 0);
	ck_assert_uint_eq(off, 22);
	ck_assert_uint_eq(size, 6);
	/* names compare without regard to case */
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "map01", &off, &size, &why), 0);
	ck_assert_uint_eq(off, 12);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "DemoLump", &off, &size, &why), 0);
	ck_assert_uint_eq(off, 22);
	/* a PWAD is read the same way */
	memcpy(wad, "PWAD", 4);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP01", &off, &size, &why), 0);
}
END_TEST

START_TEST(first_of_duplicates)
{
	size_t off = 0, size = 0;
	const char *why = NULL;

	build_wad();
	dir_entry(wad + 44, 22, 6, "MAP01");
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP01", &off, &size, &why), 0);
	ck_assert_uint_eq(off, 12);
	ck_assert_uint_eq(size, 10);
}
END_TEST

START_TEST(missing_lump)
{
	size_t off = 77, size = 77;
	const char *why = NULL;

	build_wad();
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "DEMO1", &off, &size, &why), -ENOENT);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP0", &off, &size, &why), -ENOENT);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "DEMOLUM", &off, &size, &why), -ENOENT);
	/* an empty directory */
	put32(wad + 4, 0);
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP01", &off, &size, &why), -ENOENT);
	ck_assert_uint_eq(off, 77);
	ck_assert_uint_eq(size, 77);
}
END_TEST

static void expect_einval(const void *data, size_t len, const char *name, const char *what)
{
	size_t off = 77, size = 77;
	const char *why = NULL;

	ck_assert_msg(wad_find_lump(data, len, name, &off, &size, &why) == -EINVAL, "%s: accepted",
		      what);
	ck_assert_msg(why && *why, "%s: no reason", what);
	ck_assert_uint_eq(off, 77);
	ck_assert_uint_eq(size, 77);
}

START_TEST(names_refused)
{
	build_wad();
	expect_einval(wad, sizeof(wad), "DEMOLUMPS", "9-character name");
	expect_einval(wad, sizeof(wad), "", "empty name");
}
END_TEST

START_TEST(not_a_wad)
{
	static const char zip[] = "PK\003\004 not a wad at all";

	build_wad();
	expect_einval(zip, sizeof(zip), "MAP01", "zip");
	expect_einval(wad, 11, "MAP01", "shorter than a header");
	expect_einval(wad, 0, "MAP01", "empty");
	memcpy(wad, "iwad", 4);
	expect_einval(wad, sizeof(wad), "MAP01", "lower-case magic");
}
END_TEST

START_TEST(directory_out_of_range)
{
	build_wad();
	/* the directory starts past the end */
	put32(wad + 8, sizeof(wad) + 1);
	expect_einval(wad, sizeof(wad), "MAP01", "directory offset past the end");
	/* the directory starts inside but runs past the end */
	build_wad();
	put32(wad + 4, 3);
	expect_einval(wad, sizeof(wad), "MAP01", "directory one entry too long");
	/* a count that would overflow 32-bit arithmetic */
	build_wad();
	put32(wad + 4, 0x10000001);
	expect_einval(wad, sizeof(wad), "MAP01", "huge count");
	build_wad();
	put32(wad + 8, 0xffffffff);
	expect_einval(wad, sizeof(wad), "MAP01", "huge directory offset");
	/* the same WAD cut short by one byte */
	build_wad();
	expect_einval(wad, sizeof(wad) - 1, "MAP01", "truncated");
}
END_TEST

START_TEST(lump_out_of_range)
{
	size_t off = 0, size = 0;
	const char *why = NULL;

	build_wad();
	dir_entry(wad + 44, 22, sizeof(wad) - 22 + 1, "DEMOLUMP"); /* one byte too many */
	expect_einval(wad, sizeof(wad), "DEMOLUMP", "lump past the end");
	dir_entry(wad + 44, 0xfffffff0, 0x20, "DEMOLUMP");          /* offset + size wraps */
	expect_einval(wad, sizeof(wad), "DEMOLUMP", "lump wrapping around");
	dir_entry(wad + 44, 22, 0xffffffff, "DEMOLUMP");
	expect_einval(wad, sizeof(wad), "DEMOLUMP", "huge lump");
	dir_entry(wad + 44, sizeof(wad) + 1, 0, "DEMOLUMP");
	expect_einval(wad, sizeof(wad), "DEMOLUMP", "empty lump past the end");
	/* up to the last byte is fine, and so is an empty marker lump */
	dir_entry(wad + 44, 22, sizeof(wad) - 22, "DEMOLUMP");
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "DEMOLUMP", &off, &size, &why), 0);
	dir_entry(wad + 44, 0, 0, "F_START");
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "f_start", &off, &size, &why), 0);
	ck_assert_uint_eq(size, 0);
	/* a bad entry that is not the one asked for does not matter */
	dir_entry(wad + 44, 0xfffffff0, 0x20, "BROKEN");
	ck_assert_int_eq(wad_find_lump(wad, sizeof(wad), "MAP01", &off, &size, &why), 0);
}
END_TEST

START_TEST(freedoom2_demo)
{
	size_t off = 0, size = 0, len = 0;
	const char *why = NULL;
	char *data;

	if (access(FREEDOOM2, R_OK) < 0)
		test_skip("no %s (Debian package freedoom): %s", FREEDOOM2, strerror(errno));
	ck_assert_int_eq(read_file(FREEDOOM2, &data, &len), 0);
	ck_assert_int_eq(wad_find_lump(data, len, "DEMO2", &off, &size, &why), 0);
	/* freedoom 0.12.1-2 (Debian 12) */
	ck_assert_uint_eq(size, 19154);
	ck_assert_uint_le(off + size, len);
	ck_assert_int_eq(wad_find_lump(data, len, "demo2", &off, &size, &why), 0);
	ck_assert_uint_eq(size, 19154);
	ck_assert_int_eq(wad_find_lump(data, len, "NOSUCHLU", &off, &size, &why), -ENOENT);
	free(data);
}
END_TEST

TEST_SUITE(wad_suite)
{
	Suite *s = suite_create("wad");
	TCase *tc = tcase_create("wad");

	tcase_add_test(tc, find);
	tcase_add_test(tc, first_of_duplicates);
	tcase_add_test(tc, missing_lump);
	tcase_add_test(tc, names_refused);
	tcase_add_test(tc, not_a_wad);
	tcase_add_test(tc, directory_out_of_range);
	tcase_add_test(tc, lump_out_of_range);
	tcase_add_test(tc, freedoom2_demo);
	suite_add_tcase(s, tc);
	return s;
}
