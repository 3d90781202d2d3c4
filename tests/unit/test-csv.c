/*
 * common/text/csv.c: records and fields as RFC 4180 has them (quotes, doubled
 * quotes, separators and line breaks inside quotes), the line ends and
 * byte order mark of Windows tools, a last record cut short, the blank-
 * separated mode of the trend TSV, and what is refused with its line;
 * and that the writer's fields read back as they were written.
 */
#include "text/csv.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* All records of text, as "a|b|c" lines joined by '\n', into out; the
 * return of the last csv_next(). */
static int read_all(const char *text, size_t len, unsigned flags, struct strbuf *out,
		    struct csv *c)
{
	struct csv_record rec;
	int r;

	csv_init(c, text, len, flags);
	while ((r = csv_next(c, &rec)) > 0) {
		strbuf_addf(out, "%d:", rec.line);
		for (size_t i = 0; i < rec.n; i++)
			strbuf_addf(out, "%s%s", i ? "|" : "", rec.f[i]);
		if (rec.cut)
			strbuf_addstr(out, rec.open_quote ? "<cut in quote>" : "<cut>");
		strbuf_addch(out, '\n');
	}
	return r;
}

static void expect(const char *text, unsigned flags, const char *want)
{
	struct strbuf out = STRBUF_INIT;
	struct csv c;

	ck_assert_int_eq(read_all(text, strlen(text), flags, &out, &c), 0);
	ck_assert_str_eq(out.buf ? out.buf : "", want);
	csv_release(&c);
	strbuf_release(&out);
}

static void refused(const char *text, size_t len, unsigned flags, int err, int line, const char *why)
{
	struct strbuf out = STRBUF_INIT;
	struct csv c;

	ck_assert_int_eq(read_all(text, len, flags, &out, &c), err);
	ck_assert_int_eq(c.err_line, line);
	ck_assert_str_eq(c.why, why);
	csv_release(&c);
	strbuf_release(&out);
}

START_TEST(plain)
{
	expect("a,b,c\n1,2,3\n", 0, "1:a|b|c\n2:1|2|3\n");
	expect("a,,c\n,\n", 0, "1:a||c\n2:|\n");
	/* an empty line is a record of one empty field, unless skipped */
	expect("a\n\nb\n", 0, "1:a\n2:\n3:b\n");
	expect("a\n  \n\nb\n", CSV_SKIP_EMPTY | CSV_TRIM, "1:a\n4:b\n");
	expect("", 0, "");
}
END_TEST

START_TEST(quotes)
{
	/* a comma, a doubled quote, a line break inside quotes */
	expect("\"a,b\",c\n", 0, "1:a,b|c\n");
	expect("\"say \"\"hi\"\"\",x\n", 0, "1:say \"hi\"|x\n");
	expect("\"two\nlines\",x\r\nnext,y\n", 0, "1:two\nlines|x\n3:next|y\n");
	expect("\"cr\r\nlf\"\n", 0, "1:cr\r\nlf\n");
	expect("\"\",\"\"\n", 0, "1:|\n");
	/* a quote inside an unquoted field is data */
	expect("5\" disk,x\n", 0, "1:5\" disk|x\n");
	/* blanks after a closing quote are not part of anything */
	expect("\"a\"  ,b\n", 0, "1:a|b\n");
}
END_TEST

START_TEST(line_ends_bom)
{
	expect("\xef\xbb\xbf" "a,b\r\n1,2\r\n", 0, "1:a|b\n2:1|2\n");
	/* a CR that ends the buffer ends the line; one in a line is data */
	expect("a,b\r", 0, "1:a|b\n");
	expect("a\rb,c\n", 0, "1:a\rb|c\n");
	/* a BOM is skipped only at the start */
	expect("x\n\xef\xbb\xbfy\n", 0, "1:x\n2:\xef\xbb\xbfy\n");
}
END_TEST

START_TEST(cut)
{
	/* what a crashed writer leaves: no line break after the last record */
	expect("a,b,c\n1,2", 0, "1:a|b|c\n2:1|2<cut>\n");
	expect("a,b\n1,\"unfinished", 0, "1:a|b\n2:1|unfinished<cut in quote>\n");
	expect("a,b\n1,\"two\nlines", 0, "1:a|b\n2:1|two\nlines<cut in quote>\n");
}
END_TEST

START_TEST(trim)
{
	/* FrameView pads its values; quoted blanks stay */
	expect(" a , b ,\" c \"\n", CSV_TRIM, "1:a|b| c \n");
	expect(" a , b \n", 0, "1: a | b \n");
}
END_TEST

START_TEST(blanks)
{
	expect("kernel median\tmin\n  6.1  1.5\t\t2  \r\n\n", CSV_BLANKS,
	       "1:kernel|median|min\n2:6.1|1.5|2\n3:\n");
	expect("a \"b c\" d\n", CSV_BLANKS, "1:a|b c|d\n");
	expect("\n   \na\n", CSV_BLANKS | CSV_SKIP_EMPTY, "3:a\n");
}
END_TEST

START_TEST(refusals)
{
	refused("a,b\n\"x\"y,z\n", 11, 0, -EINVAL, 2, "something after a closing quote");
	refused("a b\n\"x\"y d\n", 11, CSV_BLANKS, -EINVAL, 2, "something after a closing quote");
	refused("a,b\nc,d\0e\n", 10, 0, -EINVAL, 2, "a NUL byte");
	refused("a\n\"x\ny\0\"\n", 9, 0, -EINVAL, 3, "a NUL byte");
}
END_TEST

START_TEST(limits)
{
	size_t len = CSV_MAX_FIELDS + 1;
	char *t = zalloc(CSV_MAX_RECORD + 16);
	struct strbuf out = STRBUF_INIT;
	struct csv c;

	/* CSV_MAX_FIELDS commas make one field too many ... */
	memset(t, ',', len - 1);
	t[len - 1] = '\n';
	refused(t, len, 0, -E2BIG, 1, "more than CSV_MAX_FIELDS fields");
	/* ... one fewer is the most a record has */
	ck_assert_int_eq(read_all(t + 1, len - 1, 0, &out, &c), 0);
	ck_assert_uint_eq(out.len, strlen("1:") + CSV_MAX_FIELDS - 1 + 1);
	csv_release(&c);
	strbuf_release(&out);
	/* a record of more than CSV_MAX_RECORD bytes, quoted or not */
	memset(t, 'x', CSV_MAX_RECORD + 8);
	refused(t, CSV_MAX_RECORD + 8, 0, -E2BIG, 1, "a record longer than CSV_MAX_RECORD bytes");
	t[0] = '"';
	refused(t, CSV_MAX_RECORD + 8, 0, -E2BIG, 1, "a record longer than CSV_MAX_RECORD bytes");
	free(t);
}
END_TEST

START_TEST(fields_stay)
{
	/* every field of a record stays valid while the record is read, and
	 * the buffer is reused for the next (no allocation per record) */
	const char *text = "alpha,beta,gamma\nd,e,f\n";
	struct csv_record rec;
	struct csv c;
	char *first;

	csv_init(&c, text, strlen(text), 0);
	ck_assert_int_eq(csv_next(&c, &rec), 1);
	ck_assert_str_eq(rec.f[0], "alpha");
	ck_assert_str_eq(rec.f[2], "gamma");
	first = c.buf;
	ck_assert_int_eq(csv_next(&c, &rec), 1);
	ck_assert_ptr_eq(c.buf, first);
	ck_assert_str_eq(rec.f[1], "e");
	ck_assert_int_eq(csv_next(&c, &rec), 0);
	ck_assert_int_eq(csv_next(&c, &rec), 0);
	csv_release(&c);
}
END_TEST

/* Fields that need no quotes are written as they are; the others are
 * quoted, and every one of them reads back unchanged. */
START_TEST(write_reads_back)
{
	static const char *const fields[] = {
		"plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", "\"", " pad ",
	};
	size_t nf = sizeof(fields) / sizeof(fields[0]), len = 0;
	struct csv_record rec;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	struct csv c;

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < nf; i++) {
		if (i)
			fputc(',', f);
		csv_write_field(f, fields[i]);
	}
	fputc(',', f);
	csv_write_field(f, NULL);
	fputc('\n', f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(buf, "plain,,\"a,b\",\"say \"\"hi\"\"\","));
	ck_assert_ptr_nonnull(strstr(buf, ",\"\"\"\", pad ,\n"));

	csv_init(&c, buf, len, 0);
	ck_assert_int_eq(csv_next(&c, &rec), 1);
	ck_assert_uint_eq(rec.n, nf + 1);
	for (size_t i = 0; i < nf; i++)
		ck_assert_str_eq(rec.f[i], fields[i]);
	ck_assert_str_eq(rec.f[nf], "");
	ck_assert_int_eq(csv_next(&c, &rec), 0);
	csv_release(&c);
	free(buf);
}
END_TEST

TEST_SUITE(csv_suite)
{
	Suite *su = suite_create("csv");
	TCase *tc = tcase_create("csv");

	tcase_add_test(tc, plain);
	tcase_add_test(tc, quotes);
	tcase_add_test(tc, line_ends_bom);
	tcase_add_test(tc, cut);
	tcase_add_test(tc, trim);
	tcase_add_test(tc, blanks);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, write_reads_back);
	tcase_add_test(tc, fields_stay);
	suite_add_tcase(su, tc);
	return su;
}
