/*
 * common/text/jsonout.c: strings escaped so any bytes make valid JSON (quote,
 * backslash, control characters, bytes that are not UTF-8 as U+FFFD, the
 * UTF-8 that is kept as it is), numbers that read back as the same double
 * and null for what is missing, and the member-by-member writer's commas,
 * indents and one-line objects.
 */
#include "text/jsonout.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What stmts wrote on the stream f_, into out (the caller frees it). */
#define CAPTURE(out, stmts)                                           \
	do {                                                          \
		size_t len_;                                          \
		FILE *f_ = open_memstream(&(out), &len_);            \
		ck_assert_ptr_nonnull(f_);                           \
		stmts;                                                \
		ck_assert_int_eq(fclose(f_), 0);                     \
	} while (0)

static void assert_string(const char *in, const char *want)
{
	char *got;

	CAPTURE(got, json_write_string(f_, in));
	ck_assert_str_eq(got, want);
	free(got);
}

static void assert_number(bool have, double v, const char *want)
{
	char *got;

	CAPTURE(got, json_write_number(f_, have, v));
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(strings)
{
	assert_string("plain", "\"plain\"");
	assert_string(NULL, "null");
	assert_string("", "\"\"");
	assert_string("a\"b\\c", "\"a\\\"b\\\\c\"");
	assert_string("tab\there\nnl\x01", "\"tab\\u0009here\\u000anl\\u0001\"");
	/* UTF-8 kept: é (2 bytes), € (3), 😀 (4) */
	assert_string("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* not UTF-8: a lone continuation byte, an overlong '/', a surrogate,
	 * past U+10FFFF, a sequence cut short at the end */
	assert_string("a\x80z", "\"a\\ufffdz\"");
	assert_string("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	assert_string("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	assert_string("x\xe2\x82", "\"x\\ufffd\\ufffd\"");
}
END_TEST

START_TEST(numbers)
{
	double third = 1.0 / 3.0, v;
	char *got;

	assert_number(true, 8, "8");
	assert_number(true, 0.1, "0.1");
	assert_number(true, 121.83333333333333, "121.83333333333333");
	assert_number(true, -2.5e-7, "-2.5e-07");
	assert_number(false, 3, "null");
	assert_number(true, NAN, "null");
	assert_number(true, INFINITY, "null");
	/* full precision: it reads back as the same double */
	CAPTURE(got, json_write_number(f_, true, third));
	v = strtod(got, NULL);
	ck_assert(v == third);
	ck_assert_str_eq(got, "0.3333333333333333");
	free(got);
}
END_TEST

START_TEST(document)
{
	struct json_out j;
	char *got;

	CAPTURE(got, {
		json_out_init(&j, f_);
		json_object_begin(&j, NULL);
		json_int(&j, "format", 1);
		json_string(&j, "name", "a\"b");
		json_object_begin_inline(&j, "pair");
		json_uint(&j, "a", 2);
		json_number(&j, "b", true, 0.5);
		json_null(&j, "c");
		json_object_end(&j);
		json_array_begin(&j, "list");
		json_bool(&j, NULL, true);
		json_array_begin_inline(&j, NULL);
		json_int(&j, NULL, -1);
		json_int(&j, NULL, 2);
		json_array_end(&j);
		json_array_end(&j);
		json_array_begin(&j, "empty");
		json_array_end(&j);
		json_object_begin(&j, "nested");
		json_object_begin_inline(&j, "inner");
		json_object_end(&j);
		json_object_end(&j);
		json_object_end(&j);
	});
	ck_assert_str_eq(got, "{\n"
			      "  \"format\": 1,\n"
			      "  \"name\": \"a\\\"b\",\n"
			      "  \"pair\": {\"a\": 2, \"b\": 0.5, \"c\": null},\n"
			      "  \"list\": [\n"
			      "    true,\n"
			      "    [-1, 2]\n"
			      "  ],\n"
			      "  \"empty\": [],\n"
			      "  \"nested\": {\n"
			      "    \"inner\": {}\n"
			      "  }\n"
			      "}\n");
	free(got);
}
END_TEST

TEST_SUITE(jsonout_suite)
{
	Suite *su = suite_create("jsonout");
	TCase *tc = tcase_create("jsonout");

	tcase_add_test(tc, strings);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, document);
	suite_add_tcase(su, tc);
	return su;
}
