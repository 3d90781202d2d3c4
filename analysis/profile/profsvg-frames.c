/*
 * The frames picture (prof_svg_frames(), profsvg.h): where in each frame
 * a run's samples fell, as FlameScope draws a profile's seconds, so that
 * work on a cue (a shader compile in the frames that stall) stands out
 * from the steady work of every frame.
 *
 * The samples are counted into a grid of cells, never drawn one by one:
 * columns of consecutive frames (PROF_SVG_FRAMES_COLS at most across the
 * plot) and rows of a round duration (PROF_SVG_FRAMES_ROWS at most up to
 * the axis' top). A cell is one <rect> with its tooltip, so the picture
 * stays under 4 MB whatever the number of samples.
 */
#include "profile/profsvg-internal.h"
#include "report/report-html.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_X 70.0                                     /* room for the y axis' labels */
#define PLOT_W (PSVG_WIDTH - PLOT_X - PSVG_MARGIN)
#define PLOT_H 360.0
#define STALL_FILL "#d62020"

struct grid {
	const struct prof_frames_pic *p;
	size_t per_col, n_cols, rows;
	uint64_t row_ns, top_ns;        /* a row's duration; the axis' top (rows x row_ns) */
	double col_w, row_h, y_top, y_bottom;
	size_t dropped;                 /* samples at or past top_ns */
	bool *present;                  /* categories that colour a cell */
};

struct cell {
	size_t col, row;
	uint32_t count;
	uint8_t category;               /* the most common (the lowest index on a tie) */
	uint32_t category_count;
};

/* The round durations (1, 2, 2.5, 5 times a power of ten ns): the
 * smallest with at most max steps up to v. */
static uint64_t round_step(uint64_t v, size_t max)
{
	static const uint64_t mult[] = { 10, 20, 25, 50 };

	for (uint64_t decade = 1;; decade *= 10)
		for (size_t i = 0; i < ARRAY_SIZE(mult); i++) {
			uint64_t s = mult[i] * decade / 10;

			if (s && (v + s - 1) / s <= max)
				return s;
			if (decade > UINT64_MAX / 100)
				return v ? v : 1;
		}
}

/* The axis' top before rounding (profsvg.h: max_offset_ns). */
static uint64_t wanted_top(const struct prof_frames_pic *p)
{
	uint64_t top = 0;

	if (p->max_offset_ns)
		return p->max_offset_ns;
	for (size_t i = 0; p->start_ns && p->end_ns && i < p->n_frames; i++)
		if (p->end_ns[i] > p->start_ns[i] && p->end_ns[i] - p->start_ns[i] > top)
			top = p->end_ns[i] - p->start_ns[i];
	if (top)
		return top;
	for (size_t i = 0; i < p->n_samples; i++)
		if (p->offset_ns[i] + 1 > top)
			top = p->offset_ns[i] + 1;
	return top ? top : 1000000;
}

static void grid_init(struct grid *g, const struct prof_frames_pic *p, double y_top)
{
	uint64_t top = wanted_top(p);

	*g = (struct grid){ .p = p, .y_top = y_top, .y_bottom = y_top + PLOT_H };
	g->per_col = (p->n_frames + PROF_SVG_FRAMES_COLS - 1) / PROF_SVG_FRAMES_COLS;
	if (g->per_col == 0)
		g->per_col = 1;
	g->n_cols = (p->n_frames + g->per_col - 1) / g->per_col;
	g->col_w = PLOT_W / (double)(g->n_cols ? g->n_cols : 1);
	g->row_ns = round_step(top, PROF_SVG_FRAMES_ROWS);
	g->rows = (size_t)((top + g->row_ns - 1) / g->row_ns);
	g->top_ns = g->rows * g->row_ns;
	g->row_h = PLOT_H / (double)g->rows;
	g->present = zalloc(p->n_category ? p->n_category : 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The cells holding samples, in column then row order; *n of them, the
 * fullest's count in *max. */
static struct cell *grid_cells(struct grid *g, size_t *n, uint32_t *max)
{
	const struct prof_frames_pic *p = g->p;
	uint64_t *key = zalloc(sizeof(*key) * (p->n_samples ? p->n_samples : 1));
	struct cell *cells = zalloc(sizeof(*cells) * (p->n_samples ? p->n_samples : 1));
	size_t k = 0, nc = 0;

	for (size_t i = 0; i < p->n_samples; i++) {
		if (p->offset_ns[i] >= g->top_ns) {
			g->dropped++;
			continue;
		}
		key[k++] = ((uint64_t)(p->frame[i] / g->per_col) * g->rows + p->offset_ns[i] / g->row_ns) << 8 |
			   p->category[i];
	}
	qsort(key, k, sizeof(*key), cmp_u64);
	*max = 0;
	for (size_t i = 0; i < k;) {
		struct cell *c = &cells[nc++];
		uint64_t at = key[i] >> 8;

		c->col = (size_t)(at / g->rows);
		c->row = (size_t)(at % g->rows);
		while (i < k && key[i] >> 8 == at) {
			size_t j = i;

			while (j < k && key[j] == key[i])
				j++;
			if (j - i > c->category_count) {
				c->category_count = (uint32_t)(j - i);
				c->category = (uint8_t)(key[i] & 0xff);
			}
			c->count += (uint32_t)(j - i);
			i = j;
		}
		g->present[c->category] = true;
		if (c->count > *max)
			*max = c->count;
	}
	free(key);
	*n = nc;
	return cells;
}

/* "frame 12" or "frames 12-15": column col's frames. */
static char *col_frames(const struct grid *g, size_t col)
{
	size_t first = col * g->per_col, last = first + g->per_col - 1;

	if (last >= g->p->n_frames)
		last = g->p->n_frames - 1;
	return last == first ? xasprintf("frame %zu", first) : xasprintf("frames %zu-%zu", first, last);
}

static void draw_cells(FILE *out, const struct grid *g, const struct cell *cells, size_t n, uint32_t max)
{
	for (size_t i = 0; i < n; i++) {
		const struct cell *c = &cells[i];
		const char *cat = c->category < g->p->n_category && g->p->category_names &&
				  g->p->category_names[c->category] ? g->p->category_names[c->category] : "?";
		char *fr = col_frames(g, c->col);

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			     "fill-opacity=\"%.2f\"><title>",
			PLOT_X + (double)c->col * g->col_w, g->y_bottom - (double)(c->row + 1) * g->row_h, g->col_w,
			g->row_h, psvg_category_fill(c->category), 0.4 + 0.6 * sqrt((double)c->count / max));
		fprintf(out, "%s, %g-%g ms: %u samples, most ", fr, (double)(c->row * g->row_ns) / 1e6,
			(double)((c->row + 1) * g->row_ns) / 1e6, c->count);
		html_escape(out, cat);
		fprintf(out, " (%u)</title></rect>\n", c->category_count);
		free(fr);
	}
}

/* Under the x axis, a red tick under each column holding a stall frame;
 * above, the grey line of each column's longest frame. */
static void draw_stalls_lengths(FILE *out, const struct grid *g)
{
	const struct prof_frames_pic *p = g->p;

	for (size_t col = 0; p->stall && col < g->n_cols; col++) {
		size_t stalls = 0;
		char *fr;

		for (size_t f = col * g->per_col; f < (col + 1) * g->per_col && f < p->n_frames; f++)
			stalls += p->stall[f];
		if (!stalls)
			continue;
		fr = col_frames(g, col);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"%s\"><title>%s: %zu stall "
			     "frame%s</title></rect>\n",
			PLOT_X + (double)col * g->col_w, g->y_bottom + 2, fmax(g->col_w, 1.5), STALL_FILL, fr, stalls,
			stalls == 1 ? "" : "s");
		free(fr);
	}
	if (!p->start_ns || !p->end_ns)
		return;
	fputs("<path fill=\"none\" stroke=\"#777777\" stroke-width=\"1\" d=\"", out);
	for (size_t col = 0; col < g->n_cols; col++) {
		uint64_t len = 0;
		double y;

		for (size_t f = col * g->per_col; f < (col + 1) * g->per_col && f < p->n_frames; f++)
			if (p->end_ns[f] > p->start_ns[f] && p->end_ns[f] - p->start_ns[f] > len)
				len = p->end_ns[f] - p->start_ns[f];
		y = g->y_bottom - PLOT_H * (double)(len < g->top_ns ? len : g->top_ns) / (double)g->top_ns;
		if (col)
			fprintf(out, "V%.1fH%.1f", y, PLOT_X + (double)(col + 1) * g->col_w);
		else
			fprintf(out, "M%.1f %.1fH%.1f", PLOT_X, y, PLOT_X + g->col_w);
	}
	fputs("\"><title>the longest frame of each column</title></path>\n", out);
}

/* The axes, their ticks and labels. */
static void draw_axes(FILE *out, const struct grid *g)
{
	uint64_t ystep = round_step(g->top_ns, 6);
	size_t xstep = (size_t)round_step(g->p->n_frames, 10);
	char *attrs;

	fprintf(out, "<path fill=\"none\" stroke=\"#333333\" stroke-width=\"1\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n",
		PLOT_X, g->y_top, g->y_bottom, PLOT_X + PLOT_W);
	for (uint64_t v = 0; v <= g->top_ns; v += ystep) {
		double y = g->y_bottom - PLOT_H * (double)v / (double)g->top_ns;
		char *label = xasprintf("%g", (double)v / 1e6);

		fprintf(out, "<path stroke=\"#333333\" d=\"M%.1f %.1fh-5\"/>\n", PLOT_X, y);
		psvg_text(out, PLOT_X - 8, y + 4, "text-anchor=\"end\"", label);
		free(label);
	}
	for (size_t f = 0; f < g->p->n_frames; f += xstep) {
		double x = PLOT_X + ((double)f + 0.5) * g->col_w / (double)g->per_col;
		char *label = xasprintf("%zu", f);

		fprintf(out, "<path stroke=\"#333333\" d=\"M%.1f %.1fv12\"/>\n", x, g->y_bottom);
		psvg_text(out, x, g->y_bottom + 24, "text-anchor=\"middle\"", label);
		free(label);
	}
	psvg_text(out, PLOT_X + PLOT_W / 2, g->y_bottom + 42, "text-anchor=\"middle\"", "frame");
	attrs = xasprintf("text-anchor=\"middle\" transform=\"rotate(-90 20 %.1f)\"", g->y_top + PLOT_H / 2);
	psvg_text(out, 20, g->y_top + PLOT_H / 2, attrs, "ms into the frame");
	free(attrs);
}

/* What the marks mean, and what was left out, from y on. */
static void draw_notes(FILE *out, const struct grid *g, double y)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "A cell: %zu frame%s by %g ms, coloured by its most common category, the more samples the "
		    "more opaque.", g->per_col, g->per_col == 1 ? "" : "s", (double)g->row_ns / 1e6);
	if (g->p->stall)
		strbuf_addstr(&sb, " Red tick: a stall frame.");
	if (g->p->start_ns && g->p->end_ns)
		strbuf_addstr(&sb, " Grey line: the longest frame.");
	if (g->dropped)
		strbuf_addf(&sb, " %zu samples past %g ms not drawn.", g->dropped, (double)g->top_ns / 1e6);
	psvg_text(out, PSVG_MARGIN, y + 12, "fill=\"#444444\"", sb.buf);
	strbuf_release(&sb);
}

static int check_pic(const struct prof_frames_pic *p)
{
	if (!p || (p->n_samples && (!p->frame || !p->offset_ns || !p->category)))
		return -EINVAL;
	for (size_t i = 0; i < p->n_samples; i++)
		if (p->frame[i] >= p->n_frames || p->category[i] >= p->n_category)
			return -EINVAL;
	return 0;
}

int prof_svg_frames(FILE *out, const struct prof_frames_pic *p, const char *title, const char *subtitle)
{
	double y = psvg_header_height(subtitle), legend_h;
	struct grid g;
	struct cell *cells;
	size_t n;
	uint32_t max;
	int r = check_pic(p);

	if (r < 0)
		return r;
	if (p->n_frames == 0) {
		psvg_open(out, y + 30, title, subtitle);
		psvg_text(out, PSVG_MARGIN, y + 16, "fill=\"#444444\"", "No frames.");
		return psvg_close(out);
	}
	grid_init(&g, p, y + 8);
	cells = grid_cells(&g, &n, &max);
	legend_h = psvg_legend(NULL, 0, g.present, p->category_names, p->n_category);
	psvg_open(out, g.y_bottom + 52 + legend_h + 24 + PSVG_MARGIN, title, subtitle);
	draw_cells(out, &g, cells, n, max);
	draw_stalls_lengths(out, &g);
	draw_axes(out, &g);
	psvg_legend(out, g.y_bottom + 52, g.present, p->category_names, p->n_category);
	draw_notes(out, &g, g.y_bottom + 52 + legend_h);
	free(cells);
	free(g.present);
	return psvg_close(out);
}
