/*
 * Tests for analysis/profile/profsvg*.c, the profile's pictures: each is
 * well-formed XML (a small checker below: tags nest, attributes quoted,
 * entities known, one root), a flame graph's boxes are as wide as their
 * share and coloured by category, a diff's red where a path grew and blue
 * where it shrank with what B lost listed, the frames picture's cells hold
 * the samples they should, and a big profile stays a small file.
 */
#include "test.h"
#include "profile/profsvg.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cats[] = { "shader compile", "rasterizer", "driver", "game" };

/* Whether s is one well-formed XML element (with text, comments and
 * blanks around it): enough XML to hold the pictures to. */
static bool entity_ok(const char **s)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	const char *p = *s;

	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		if (!strncmp(p, named[i], strlen(named[i]))) {
			*s = p + strlen(named[i]);
			return true;
		}
	if (strncmp(p, "&#", 2))
		return false;
	p += 2;
	if (*p == 'x')
		p++;
	if (!isxdigit((unsigned char)*p))
		return false;
	while (isxdigit((unsigned char)*p))
		p++;
	if (*p != ';')
		return false;
	*s = p + 1;
	return true;
}

static size_t name_len(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == ':' || s[n] == '-' || s[n] == '_' || s[n] == '.')
		n++;
	return n;
}

/* A start tag at *s ('<' read): its attributes; *empty for "/>". */
static bool start_tag_ok(const char **s, bool *empty)
{
	const char *p = *s;

	for (;;) {
		char q;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == '>' || !strncmp(p, "/>", 2)) {
			*empty = *p == '/';
			*s = p + (*empty ? 2 : 1);
			return true;
		}
		if (!name_len(p) || !isspace((unsigned char)p[-1]))
			return false;
		p += name_len(p);
		if (*p++ != '=' || (*p != '"' && *p != '\''))
			return false;
		q = *p++;
		while (*p != q) {
			if (!*p || *p == '<' || (*p == '&' && !entity_ok(&p)))
				return false;
			if (*p != q && *p != '&')
				p++;
		}
		p++;
	}
}

static bool xml_ok(const char *s)
{
	const char *stack[64];
	size_t depth = 0, roots = 0;

	while (*s) {
		if (!strncmp(s, "<!--", 4)) {
			if (!(s = strstr(s, "-->")))
				return false;
			s += 3;
		} else if (!strncmp(s, "</", 2)) {
			size_t n = name_len(s + 2);

			if (!depth || !n || strncmp(stack[depth - 1], s + 2, n) || name_len(stack[depth - 1]) != n ||
			    s[2 + n] != '>')
				return false;
			depth--;
			s += 3 + n;
		} else if (*s == '<') {
			const char *name = s + 1;
			bool empty;

			s = name + name_len(name);
			if (!name_len(name) || !start_tag_ok(&s, &empty) || depth == ARRAY_SIZE(stack))
				return false;
			if (depth == 0)
				roots++;
			if (!empty)
				stack[depth++] = name;
		} else if (*s == '&') {
			if (!entity_ok(&s))
				return false;
		} else {
			if (depth == 0 && !isspace((unsigned char)*s))
				return false;
			s++;
		}
	}
	return depth == 0 && roots == 1;
}

START_TEST(xml_checker)
{
	ck_assert(xml_ok("<svg a=\"1\"><g><title>x &amp; y</title><rect x='2'/></g></svg>\n"));
	ck_assert(!xml_ok("<svg><g></svg></g>"));
	ck_assert(!xml_ok("<svg a=1/>"));
	ck_assert(!xml_ok("<svg>a & b</svg>"));
	ck_assert(!xml_ok("<svg/><svg/>"));
	ck_assert(!xml_ok("<svg><t>"));
	ck_assert(!xml_ok("<svg x=\"a<b\"/>"));
}
END_TEST

/* The picture a call writes, as a string checked well-formed (the call
 * returns 0); the call writes to OUT, the stream PICTURE opens. */
#define PICTURE(buf, call)                                        \
	do {                                                      \
		size_t len_;                                      \
		FILE *f_ = open_memstream(&(buf), &len_);         \
		ck_assert_ptr_nonnull(f_);                        \
		ck_assert_int_eq((call), 0);                      \
		fclose(f_);                                       \
		ck_assert_msg(xml_ok(buf), "not well-formed XML");   \
	} while (0)
#define OUT f_

/* A path of names (split on ';'), each frame of category cat. */
static void add(struct prof_tree *t, int side, const char *path, uint8_t cat, uint64_t count)
{
	uint32_t names[16];
	uint8_t c[16];
	size_t n = 0;
	char *copy = xstrdup(path), *save = NULL;

	for (char *s = strtok_r(copy, ";", &save); s && n < 16; s = strtok_r(NULL, ";", &save)) {
		c[n] = cat;
		names[n++] = prof_tree_name(t, s);
	}
	prof_tree_add(t, side, names, c, n, count);
	free(copy);
}

/* The box whose tooltip starts with tip: its x, width and fill. */
static bool find_box(const char *svg, const char *tip, double *x, double *w, char fill[8])
{
	char *key = xasprintf("<title>%s", tip);
	const char *at = strstr(svg, key), *rect;

	free(key);
	if (!at || !(rect = strstr(at, "<rect ")))
		return false;
	ck_assert_ptr_nonnull(strstr(rect, " x=\""));
	*x = strtod(strstr(rect, " x=\"") + 4, NULL);
	*w = strtod(strstr(rect, " width=\"") + 8, NULL);
	memcpy(fill, strstr(rect, " fill=\"") + 7, 7);
	fill[7] = '\0';
	return true;
}

/* "#rrggbb" into its channels. */
static void rgb(const char *fill, int *r, int *g, int *b)
{
	ck_assert_int_eq(sscanf(fill, "#%2x%2x%2x", (unsigned *)r, (unsigned *)g, (unsigned *)b), 3);
}

START_TEST(flame)
{
	struct prof_tree t;
	char *svg = NULL, fill_a[8], fill_c[8], fill_b[8];
	double x, w, xc, wc;

	prof_tree_init(&t, cats, ARRAY_SIZE(cats));
	/* c first: the picture sorts by name */
	add(&t, 0, "c", 1, 3999);
	add(&t, 0, "a", 0, 3000);
	add(&t, 0, "a;b<x>", 0, 3000);
	add(&t, 0, "d", 3, 1);                  /* 0.01%: left out */
	add(&t, 1, "a", 0, 7);                  /* the other side: not drawn */
	PICTURE(svg, prof_svg_flame(OUT, &t, 0, "Flame of <A & B>", "sampled at 997 Hz, \"all\" threads"));
	ck_assert_ptr_nonnull(strstr(svg, "Flame of &lt;A &amp; B&gt;"));
	ck_assert_ptr_nonnull(strstr(svg, "sampled at 997 Hz, &quot;all&quot; threads"));
	ck_assert_ptr_null(strstr(svg, "<script"));
	ck_assert_ptr_null(strstr(svg, " id="));
	/* widths: share of 10000 samples across 1180 px */
	ck_assert(find_box(svg, "all: 10000 samples, 100.00% (self 0.00%)", &x, &w, fill_a));
	ck_assert_double_eq_tol(w, 1180, 0.01);
	ck_assert(find_box(svg, "a: 6000 samples, 60.00% (self 30.00%)", &x, &w, fill_a));
	ck_assert_double_eq_tol(x, 10, 0.01);
	ck_assert_double_eq_tol(w, 708, 0.01);
	ck_assert(find_box(svg, "b&lt;x&gt;: 3000 samples, 30.00% (self 30.00%)", &x, &w, fill_b));
	ck_assert_double_eq_tol(w, 354, 0.01);
	ck_assert(find_box(svg, "c: 3999 samples, 39.99% (self 39.99%)", &xc, &wc, fill_c));
	ck_assert_double_eq_tol(xc, 718, 0.01);
	ck_assert_double_eq_tol(wc, 471.88, 0.01);
	ck_assert_ptr_null(strstr(svg, "<title>d:"));
	/* colour by category, the palette's */
	ck_assert_str_eq(fill_a, prof_svg_palette[0]);
	ck_assert_str_eq(fill_b, prof_svg_palette[0]);
	ck_assert_str_eq(fill_c, prof_svg_palette[1]);
	ck_assert_str_ne(fill_a, fill_c);
	/* the legend: the categories drawn, not the one left out */
	ck_assert_ptr_nonnull(strstr(svg, ">shader compile</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">rasterizer</text>"));
	ck_assert_ptr_null(strstr(svg, ">game</text>"));
	free(svg);
	/* side B: its own shares */
	PICTURE(svg, prof_svg_flame(OUT, &t, 1, "B", ""));
	ck_assert(find_box(svg, "a: 7 samples, 100.00% (self 100.00%)", &x, &w, fill_a));
	ck_assert_double_eq_tol(w, 1180, 0.01);
	free(svg);
	prof_tree_release(&t);
}
END_TEST

START_TEST(flame_edges)
{
	struct prof_tree t;
	char *svg = NULL, *name;
	double x, w;
	char fill[8];
	FILE *full;

	prof_tree_init(&t, cats, ARRAY_SIZE(cats));
	/* nothing sampled: a picture saying so */
	PICTURE(svg, prof_svg_flame(OUT, &t, 0, "empty", NULL));
	ck_assert_ptr_nonnull(strstr(svg, "No samples."));
	free(svg);
	/* a long name in a narrow box: cut, with its whole name in the tooltip */
	name = xasprintf("%0200d", 7);
	add(&t, 0, name, 2, 10);
	add(&t, 0, "z", 2, 10);
	PICTURE(svg, prof_svg_flame(OUT, &t, 0, "long", "x"));
	ck_assert(find_box(svg, name, &x, &w, fill));
	ck_assert_double_eq_tol(w, 590, 0.01);
	ck_assert_ptr_nonnull(strstr(svg, "00000000..</text>"));
	free(svg);
	free(name);
	ck_assert_int_eq(prof_svg_flame(stdout, &t, 2, "x", "y"), -EINVAL);
	/* a write that fails is the stream's error */
	full = fopen("/dev/full", "w");
	if (!full) {
		prof_tree_release(&t);
		test_skip("no /dev/full");
	}
	ck_assert_int_eq(prof_svg_flame(full, &t, 0, "x", "y"), -ENOSPC);
	fclose(full);
	prof_tree_release(&t);
}
END_TEST

START_TEST(diff)
{
	struct prof_tree t;
	char *svg = NULL, fill[8];
	double x, w;
	int r, g, b;
	const char *gone, *g1, *g2;

	prof_tree_init(&t, cats, ARRAY_SIZE(cats));
	/* A: a 50% (a;z 5% of it), c 40%, g;h 10%. B: a 75%, c 25% */
	add(&t, 0, "a", 0, 45);
	add(&t, 0, "a;z", 0, 5);
	add(&t, 0, "c", 1, 40);
	add(&t, 0, "g;h", 3, 10);
	add(&t, 1, "a", 0, 150);
	add(&t, 1, "c", 1, 50);
	PICTURE(svg, prof_svg_diff(OUT, &t, "A vs B", "shares of each side's samples"));
	/* the shape is B's */
	ck_assert(find_box(svg, "a: 150 samples, 75.00% (self 75.00%); A 50.00% -&gt; B 75.00%, +25.00 pp", &x, &w,
			   fill));
	ck_assert_double_eq_tol(w, 885, 0.01);
	/* the largest change: full red */
	rgb(fill, &r, &g, &b);
	ck_assert_int_gt(r, 200);
	ck_assert_int_lt(g, 100);
	ck_assert_int_lt(b, 100);
	/* shrank by 15 of 25 pp: blue, less saturated */
	ck_assert(find_box(svg, "c: 50 samples, 25.00% (self 25.00%); A 40.00% -&gt; B 25.00%, -15.00 pp", &x, &w,
			   fill));
	rgb(fill, &r, &g, &b);
	ck_assert_int_gt(b, r + 60);
	ck_assert_int_gt(r, 60);
	/* unchanged: white */
	ck_assert(find_box(svg, "all: 200 samples, 100.00% (self 0.00%); A 100.00% -&gt; B 100.00%, +0.00 pp", &x,
			   &w, fill));
	ck_assert_str_eq(fill, "#fafafa");
	/* what B lost: no box, a line each, largest first */
	ck_assert_ptr_null(strstr(svg, "<title>h:"));
	gone = strstr(svg, "Gone in B");
	ck_assert_ptr_nonnull(gone);
	ck_assert(strstr(svg, "<title>g:") > gone);
	g1 = strstr(gone, "<title>g: 10 samples in A, 10.00% of A (self 0.00%), 0 in B</title>");
	g2 = strstr(gone, "<title>a;z: 5 samples in A, 5.00% of A (self 5.00%), 0 in B</title>");
	ck_assert_ptr_nonnull(g1);
	ck_assert_ptr_nonnull(g2);
	ck_assert(g1 < g2);
	ck_assert_ptr_nonnull(strstr(svg, ">a;z</text>"));
	/* the key: the largest change both ways */
	ck_assert_ptr_nonnull(strstr(svg, ">+25.00 pp</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">-25.00 pp</text>"));
	free(svg);
	prof_tree_release(&t);
}
END_TEST

/* The cell whose tooltip is tip: its x, y, width, height. */
static void find_cell(const char *svg, const char *tip, double v[4])
{
	char *key = xasprintf("<title>%s</title>", tip);
	const char *at = strstr(svg, key), *rect;

	ck_assert_msg(at != NULL, "no cell '%s'", tip);
	free(key);
	for (rect = at; rect > svg && strncmp(rect, "<rect ", 6); rect--)
		;
	ck_assert_int_eq(sscanf(rect, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &v[0], &v[1], &v[2],
				&v[3]), 4);
}

START_TEST(frames)
{
	uint64_t start[10], end[10];
	bool stall[10] = { [3] = true };
	uint32_t frame[7] = { 2, 2, 2, 2, 3, 3, 4 };
	uint64_t off[7] = { 1500000, 1600000, 1700000, 1800000, 25000000, 25500000, 35000000 };
	uint8_t cat[7] = { 0, 0, 1, 0, 1, 1, 2 };
	struct prof_frames_pic p = { .n_frames = 10, .start_ns = start, .end_ns = end, .stall = stall,
				     .n_samples = 7, .frame = frame, .offset_ns = off, .category = cat,
				     .category_names = cats, .n_category = ARRAY_SIZE(cats) };
	char *svg = NULL;
	double v[4], bottom;

	for (size_t i = 0; i < 10; i++) {
		start[i] = 1000000000 + i * 40000000;
		end[i] = start[i] + (i == 3 ? 30000000 : 10000000);
	}
	/* the top: the longest frame, 30 ms, in rows of 1 ms */
	PICTURE(svg, prof_svg_frames(OUT, &p, "Frames <1>", "samples into their frames"));
	ck_assert_ptr_nonnull(strstr(svg, "Frames &lt;1&gt;"));
	ck_assert_ptr_nonnull(strstr(svg, "samples into their frames"));
	find_cell(svg, "frame 2, 1-2 ms: 4 samples, most shader compile (3)", v);
	ck_assert_double_eq_tol(v[0], 70 + 2 * 112, 0.05);
	ck_assert_double_eq_tol(v[2], 112, 0.05);
	ck_assert_double_eq_tol(v[3], 12, 0.05);
	bottom = v[1] + 2 * v[3];
	find_cell(svg, "frame 3, 25-26 ms: 2 samples, most rasterizer (2)", v);
	ck_assert_double_eq_tol(v[1], bottom - 26 * 12, 0.05);
	ck_assert_ptr_nonnull(strstr(svg, "fill-opacity=\"1.00\"><title>frame 2,"));
	ck_assert_ptr_nonnull(strstr(svg, "fill-opacity=\"0.82\"><title>frame 3,"));
	/* the sample at 35 ms: not drawn, said */
	ck_assert_ptr_null(strstr(svg, "<title>frame 4,"));
	ck_assert_ptr_nonnull(strstr(svg, "1 samples past 30 ms not drawn."));
	ck_assert_ptr_nonnull(strstr(svg, "<title>frame 3: 1 stall frame</title>"));
	ck_assert_ptr_nonnull(strstr(svg, ">ms into the frame</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">frame</text>"));
	/* the legend: the categories colouring a cell (driver's only sample was dropped) */
	ck_assert_ptr_nonnull(strstr(svg, ">rasterizer</text>"));
	ck_assert_ptr_null(strstr(svg, ">driver</text>"));
	free(svg);
	/* a cap of its own */
	p.max_offset_ns = 40000000;
	PICTURE(svg, prof_svg_frames(OUT, &p, "t", "s"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>frame 4, 35-36 ms: 1 samples, most driver (1)</title>"));
	free(svg);
	frame[0] = 10;
	ck_assert_int_eq(prof_svg_frames(stdout, &p, "t", "s"), -EINVAL);
}
END_TEST

START_TEST(frames_binned)
{
	enum { N = 1000 };
	uint32_t frame[5] = { 0, 1, 2, 3, 999 };
	uint64_t off[5] = { 200000, 300000, 400000, 100000, 100000 };
	uint8_t cat[5] = { 3, 3, 0, 1, 2 };
	struct prof_frames_pic p = { .n_frames = N, .n_samples = 5, .frame = frame, .offset_ns = off,
				     .category = cat, .category_names = cats, .n_category = ARRAY_SIZE(cats),
				     .max_offset_ns = 16600000 };
	char *svg = NULL;
	double v[4];

	/* 1000 frames into columns of 3 (334 of them), 16.6 ms into 0.5 ms rows (34) */
	PICTURE(svg, prof_svg_frames(OUT, &p, "binned", "s"));
	find_cell(svg, "frames 0-2, 0-0.5 ms: 3 samples, most game (2)", v);
	ck_assert_double_eq_tol(v[0], 70, 0.05);
	ck_assert_double_eq_tol(v[2], 1120.0 / 334, 0.05);
	find_cell(svg, "frames 3-5, 0-0.5 ms: 1 samples, most rasterizer (1)", v);
	ck_assert_double_eq_tol(v[0], 70 + 1120.0 / 334, 0.05);
	find_cell(svg, "frame 999, 0-0.5 ms: 1 samples, most driver (1)", v);
	ck_assert_ptr_nonnull(strstr(svg, "A cell: 3 frames by 0.5 ms"));
	free(svg);
}
END_TEST

START_TEST(frames_big)
{
	enum { FRAMES = 20000, SAMPLES = 100000 };
	uint32_t *frame = zalloc(sizeof(*frame) * SAMPLES);
	uint64_t *off = zalloc(sizeof(*off) * SAMPLES), *start = zalloc(sizeof(*start) * FRAMES);
	uint64_t *end = zalloc(sizeof(*end) * FRAMES);
	uint8_t *cat = zalloc(SAMPLES);
	bool *stall = zalloc(FRAMES);
	struct prof_frames_pic p = { .n_frames = FRAMES, .start_ns = start, .end_ns = end, .stall = stall,
				     .n_samples = SAMPLES, .frame = frame, .offset_ns = off, .category = cat,
				     .category_names = cats, .n_category = ARRAY_SIZE(cats) };
	char *svg = NULL;
	uint32_t seed = 1;

	for (size_t i = 0; i < FRAMES; i++) {
		start[i] = i * 17000000;
		end[i] = start[i] + 16000000 + (i % 97 == 0 ? 40000000 : 0);
		stall[i] = i % 97 == 0;
	}
	/* spread as evenly as can be: every cell filled, the worst case */
	for (size_t i = 0; i < SAMPLES; i++) {
		seed = seed * 1103515245 + 12345;
		frame[i] = (uint32_t)(i % FRAMES);
		off[i] = (seed >> 8) % 56000000;
		cat[i] = (uint8_t)((seed >> 4) % ARRAY_SIZE(cats));
	}
	PICTURE(svg, prof_svg_frames(OUT, &p, "big", "100000 samples"));
	ck_assert_uint_lt(strlen(svg), 4u << 20);
	free(svg);
	free(frame);
	free(off);
	free(start);
	free(end);
	free(cat);
	free(stall);
}
END_TEST

TEST_SUITE(profsvg_suite)
{
	Suite *s = suite_create("profsvg");
	TCase *tc = tcase_create("profsvg");

	tcase_add_test(tc, xml_checker);
	tcase_add_test(tc, flame);
	tcase_add_test(tc, flame_edges);
	tcase_add_test(tc, diff);
	tcase_add_test(tc, frames);
	tcase_add_test(tc, frames_binned);
	tcase_add_test(tc, frames_big);
	suite_add_tcase(s, tc);
	return s;
}
