/*
 * Tests for analysis/report-html*.c: the escaping of text from files, the
 * SVG made fit to sit in a page (prolog gone, ids prefixed), and the page
 * of rows without run directories or a gnuplot (no picture to draw: each
 * one missing is said, the page stays whole). The pictures and the page
 * in a browser: tests/cli/t0380 and t0381.
 */
#include "test.h"
#include "report/report-html.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What html_escape() makes of s. */
static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	html_escape(f, s);
	fclose(f);
	return buf;
}

START_TEST(escape)
{
	char *e = escaped("<script>alert(\"x\")</script> & 'y'");

	ck_assert_str_eq(e, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;");
	free(e);
	/* control characters cannot break the page: U+FFFD; tab and newline stay */
	e = escaped("a\x01" "b\tc\nd\x7f");
	ck_assert_str_eq(e, "a\xef\xbf\xbd" "b\tc\nd\xef\xbf\xbd");
	free(e);
	/* UTF-8 passes as it is */
	e = escaped("r\xc3\xa9sum\xc3\xa9");
	ck_assert_str_eq(e, "r\xc3\xa9sum\xc3\xa9");
	free(e);
	e = escaped(NULL);
	ck_assert_str_eq(e, "-");
	free(e);
}
END_TEST

START_TEST(svg_inline)
{
	/* gnuplot's shape: prolog, doctype, ids in both quotes, xlink:href, url(#) */
	const char *svg = "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
			  "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n"
			  "<svg \n width=\"600\" height=\"400\">\n<g id=\"gnuplot_canvas\">\n"
			  "<defs><circle id='gpDot' r='0.5'/></defs>\n"
			  "<use xlink:href='#gpDot' x='1'/><rect fill=\"url(#grad)\" x=\"1\"/>\n"
			  "<text>width='5' and id='not an attribute'</text>\n</g>\n</svg>\n\n";
	char *s = html_svg_inline(svg, "f3-");

	ck_assert_ptr_nonnull(s);
	ck_assert(strncmp(s, "<svg ", 5) == 0);
	ck_assert(strcmp(s + strlen(s) - 6, "</svg>") == 0);
	ck_assert_ptr_null(strstr(s, "<?xml"));
	ck_assert_ptr_null(strstr(s, "DOCTYPE"));
	ck_assert_ptr_nonnull(strstr(s, "<g id=\"f3-gnuplot_canvas\">"));
	ck_assert_ptr_nonnull(strstr(s, "<circle id='f3-gpDot'"));
	ck_assert_ptr_nonnull(strstr(s, "xlink:href='#f3-gpDot'"));
	ck_assert_ptr_nonnull(strstr(s, "url(#f3-grad)"));
	/* a label's text is left as it says */
	ck_assert_ptr_nonnull(strstr(s, "<text>width='5' and id='not an attribute'</text>"));
	free(s);
	ck_assert_ptr_null(html_svg_inline("<?xml version=\"1.0\"?>\n<p>no picture</p>", "f1-"));
	ck_assert_ptr_null(html_svg_inline("<svg width=\"1\">never closed", "f1-"));
}
END_TEST

static struct report_row row(const char *run, const char *variant, double fps)
{
	struct report_row r = { .run = run, .game = "dsda-doom", .run_name = variant, .status = "ok",
				.dir = "/nonexistent/run" };

	r.m.v[M_FRAMES] = 600;
	r.m.have[M_FRAMES] = true;
	r.m.v[M_FPS] = fps;
	r.m.have[M_FPS] = true;
	return r;
}

/* Rows whose directories are gone: the page has the table, the notes,
 * the verdicts, and says each run's frames are missing (a problem each:
 * they came from directories, not the database). */
START_TEST(page_without_pictures)
{
	struct report_row rows[3] = { row("r1<b>", "sw", 100.0), row("r2", "sw", 101.0),
				      row("r3", "gl", 50.0) };
	struct report_opts ro = { .format = REPORT_HTML, .metric = METRIC_OPTS_DEFAULT,
				  .window_note = REPORT_WINDOW_RUNDIR };
	struct report_html_opts ho = { .report = &ro, .command = "hitchbench report --format html x",
				       .tmpdir = getenv("TMPDIR"), .gnuplot = "/nonexistent/gnuplot" };
	struct strbuf problems = STRBUF_INIT;
	size_t n_problems = 99, len;
	char *page = NULL;
	FILE *f = open_memstream(&page, &len);

	ck_assert_int_eq(report_html_write(f, rows, 3, &ho, &problems, &n_problems), 0);
	fclose(f);
	/* the three runs' directories: nothing drawn, said three times */
	ck_assert_uint_eq(n_problems, 3);
	ck_assert_ptr_nonnull(strstr(problems.buf, "/nonexistent/run"));
	ck_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0);
	ck_assert_ptr_nonnull(strstr(page, "</html>\n"));
	ck_assert_ptr_nonnull(strstr(page, "<a href=\"#run-0\">r1&lt;b&gt;</a>"));
	ck_assert_ptr_null(strstr(page, "r1<b>"));
	ck_assert_ptr_nonnull(strstr(page, "<li>fps = frames / window seconds</li>"));
	ck_assert_ptr_nonnull(strstr(page, "dsda-doom: A = sw, B = gl"));
	ck_assert_ptr_nonnull(strstr(page, "class=\"v-UNKNOWN\">UNKNOWN"));
	ck_assert_ptr_null(strstr(page, "<figure"));
	ck_assert_ptr_null(strstr(page, "<script"));
	free(page);
	strbuf_release(&problems);
}
END_TEST

TEST_SUITE(report_html_suite)
{
	Suite *s = suite_create("report-html");
	TCase *tc = tcase_create("report-html");

	tcase_add_test(tc, escape);
	tcase_add_test(tc, svg_inline);
	tcase_add_test(tc, page_without_pictures);
	suite_add_tcase(s, tc);
	return s;
}
