/*
 * The profile's flame graphs (profsvg.h): one side's, and B against A,
 * drawn from the call-path tree in two walks, one measuring (how deep,
 * which categories, the largest change) and one drawing; and what the
 * pictures share (profsvg-internal.h). The frames picture is
 * profsvg-frames.c's.
 *
 * A picture is PSVG_WIDTH wide; a box is BOX_H high, one row a level of
 * the call path, the root's row at the bottom. A box's x and width are
 * its share of the root's total across the plot's width, children laid
 * left to right sorted by name (byte order), so two pictures of the same
 * tree are the same bytes.
 */
#include "profile/profsvg-internal.h"
#include "report/report-html.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BOX_H 16                        /* a box's height, px */
#define ROW_H 17                        /* a level: the box and a gap */
#define LABEL_CHAR_W 6.7                /* 11 px monospace, a character's advance (a little over) */
#define TEXT_CHAR_W 7.0                 /* 12 px sans-serif, at most, on average */
#define MIN_SHARE 0.001                 /* boxes under this share of the root are left out */
#define ROOT_FILL "#e0e0e0"
#define GONE_ROWS 20                    /* "Gone in B": the largest this many */

/* Warm first, then the rest of the wheel, all light enough for black
 * text; the last a warm grey. docs/profile.md lists them. */
const char *const prof_svg_palette[PROF_SVG_PALETTE] = {
	"#f08a3c",      /* orange */
	"#e8645a",      /* coral red */
	"#e6c84a",      /* yellow */
	"#8cc152",      /* green */
	"#6cc4c0",      /* teal */
	"#8fb0e8",      /* light blue */
	"#c49ad8",      /* lilac */
	"#b8b0a8",      /* warm grey */
};

const char *psvg_category_fill(size_t category)
{
	return prof_svg_palette[category % PROF_SVG_PALETTE];
}

/* The subtitle's lines: break at the last space before max characters. */
static size_t wrap_line(const char *s, size_t max)
{
	size_t len = strlen(s), cut;

	if (len <= max)
		return len;
	for (cut = max; cut > 0 && s[cut] != ' '; cut--)
		;
	return cut ? cut : max;
}

#define SUB_MAX ((size_t)((PSVG_WIDTH - 2 * PSVG_MARGIN) / TEXT_CHAR_W))

double psvg_header_height(const char *subtitle)
{
	size_t lines = 0;

	for (const char *s = subtitle ? subtitle : ""; *s; lines++) {
		s += wrap_line(s, SUB_MAX);
		while (*s == ' ')
			s++;
	}
	return 34 + 16.0 * (double)lines + 8;
}

void psvg_open(FILE *out, double height, const char *title, const char *subtitle)
{
	double y = 50;

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		     "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		PSVG_WIDTH, ceil(height), PSVG_WIDTH, ceil(height));
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"#ffffff\"/>\n", PSVG_WIDTH,
		ceil(height));
	psvg_text(out, PSVG_MARGIN, 24, "font-size=\"17\" font-weight=\"bold\"", title ? title : "");
	for (const char *s = subtitle ? subtitle : ""; *s; y += 16) {
		size_t n = wrap_line(s, SUB_MAX);
		char *line = xstrndup(s, n);

		psvg_text(out, PSVG_MARGIN, y, "fill=\"#444444\"", line);
		free(line);
		s += n;
		while (*s == ' ')
			s++;
	}
}

int psvg_close(FILE *out)
{
	fputs("</svg>\n", out);
	if (fflush(out) != 0)
		return errno ? -errno : -EIO;
	return ferror(out) ? -EIO : 0;
}

void psvg_text(FILE *out, double x, double y, const char *attrs, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs && *attrs ? " " : "", attrs ? attrs : "");
	html_escape(out, s);
	fputs("</text>\n", out);
}

static void psvg_label(FILE *out, double x, double y, double width, const char *s)
{
	long fit = (long)((width - 4) / LABEL_CHAR_W);
	size_t len = strlen(s), n;
	char *cut;

	if (fit < 3)
		return;
	if (len <= (size_t)fit) {
		psvg_text(out, x + 2, y, "font-family=\"monospace\" font-size=\"11\"", s);
		return;
	}
	n = (size_t)fit - 2;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)   /* not inside a UTF-8 character */
		n--;
	cut = xasprintf("%.*s..", (int)n, s);
	psvg_text(out, x + 2, y, "font-family=\"monospace\" font-size=\"11\"", cut);
	free(cut);
}

double psvg_legend(FILE *out, double y, const bool *present, const char *const *names, size_t n)
{
	double x = PSVG_MARGIN, h = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = names && names[i] ? names[i] : "?";
		double w = 18 + TEXT_CHAR_W * (double)strlen(name) + 16;

		if (!present[i])
			continue;
		if (h == 0)
			h = PSVG_LEGEND_H;
		if (x > PSVG_MARGIN && x + w > PSVG_WIDTH - PSVG_MARGIN) {
			x = PSVG_MARGIN;
			h += PSVG_LEGEND_H;
		}
		if (out) {
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
				     "stroke=\"#666666\" stroke-width=\"0.5\"/>\n",
				x, y + h - PSVG_LEGEND_H + 2, psvg_category_fill(i));
			psvg_text(out, x + 18, y + h - PSVG_LEGEND_H + 12, NULL, name);
		}
		x += w;
	}
	return h;
}

/* One walk over the drawn tree; measure: only find its depth and what
 * it holds. side: the shape's. */
struct flame {
	FILE *out;
	const struct prof_tree *t;
	int side;
	bool diff;
	uint64_t root[PROF_SIDES];
	double plot_w;
	double y_root;                  /* the root's box's top */
	unsigned depth;                 /* the deepest level drawn */
	bool *present;                  /* categories drawn (n_category) */
	double max_pp;                  /* diff: the largest change drawn, in percentage points */
};

static double share(const struct flame *f, uint64_t v, int side)
{
	return f->root[side] ? (double)v / (double)f->root[side] : 0;
}

static bool drawn(const struct flame *f, uint32_t node)
{
	uint64_t v = f->t->node[node].total[f->side];

	return v > 0 && share(f, v, f->side) >= MIN_SHARE;
}

/* The change of node's share from A to B, in percentage points. */
static double change_pp(const struct flame *f, uint32_t node)
{
	const struct prof_node *nd = &f->t->node[node];

	return 100.0 * (share(f, nd->total[1], 1) - share(f, nd->total[0], 0));
}

static int by_name(const void *a, const void *b, void *tree)
{
	const struct prof_tree *t = tree;

	return strcmp(t->name[t->node[*(const uint32_t *)a].name], t->name[t->node[*(const uint32_t *)b].name]);
}

/* node's children sorted by name (a new array; *n of them). */
static uint32_t *sorted_children(const struct prof_tree *t, uint32_t node, size_t *n)
{
	size_t k = 0;
	uint32_t *kids;

	prof_tree_for_children(t, node, c)
		k++;
	kids = zalloc(sizeof(*kids) * (k ? k : 1));
	k = 0;
	prof_tree_for_children(t, node, c)
		kids[k++] = c;
	qsort_r(kids, k, sizeof(*kids), by_name, (void *)t);
	*n = k;
	return kids;
}

/* A diff box's fill: white to red (grew) or blue (shrank). */
static void diff_fill(const struct flame *f, double pp, char buf[8])
{
	double s = f->max_pp > 0 ? fmin(fabs(pp) / f->max_pp, 1) : 0;
	int r = 250, g = 250, b = 250;

	if (pp > 0) {
		g = (int)lround(250 - s * (250 - 60));
		b = (int)lround(250 - s * (250 - 50));
		r = (int)lround(250 - s * (250 - 225));
	} else if (pp < 0) {
		r = (int)lround(250 - s * (250 - 50));
		g = (int)lround(250 - s * (250 - 95));
		b = (int)lround(250 - s * (250 - 225));
	}
	snprintf(buf, 8, "#%02x%02x%02x", r, g, b);
}

static void flame_box(struct flame *f, uint32_t node, unsigned depth, double x, double w)
{
	const struct prof_node *nd = &f->t->node[node];
	const char *name = f->t->name[nd->name];
	struct strbuf tip = STRBUF_INIT;
	char fill[8];
	double y = f->y_root - (double)depth * ROW_H;

	strbuf_addf(&tip, "%s: %llu samples, %.2f%% (self %.2f%%)", name,
		    (unsigned long long)nd->total[f->side], 100 * share(f, nd->total[f->side], f->side),
		    100 * share(f, nd->self[f->side], f->side));
	if (f->diff) {
		double pp = change_pp(f, node);

		strbuf_addf(&tip, "; A %.2f%% -> B %.2f%%, %+.2f pp", 100 * share(f, nd->total[0], 0),
			    100 * share(f, nd->total[1], 1), pp);
		diff_fill(f, pp, fill);
	} else {
		snprintf(fill, sizeof(fill), "%s", node ? psvg_category_fill(nd->category) : ROOT_FILL);
	}
	fputs("<g><title>", f->out);
	html_escape(f->out, tip.buf);
	fprintf(f->out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
			"stroke-width=\"0.5\"/>\n", x, y, w, BOX_H, fill, f->diff ? "#999999" : "#ffffff");
	psvg_label(f->out, x, y + 12, w, name);
	fputs("</g>\n", f->out);
	strbuf_release(&tip);
}

/* node and what is above it, from x on; out NULL: measure. */
static void flame_walk(struct flame *f, uint32_t node, unsigned depth, double x)
{
	const struct prof_node *nd = &f->t->node[node];
	double w = share(f, nd->total[f->side], f->side) * f->plot_w;
	size_t n;
	uint32_t *kids;

	if (!f->out) {
		if (depth > f->depth)
			f->depth = depth;
		if (node && nd->category < f->t->n_category)
			f->present[nd->category] = true;
		if (f->diff && fabs(change_pp(f, node)) > f->max_pp)
			f->max_pp = fabs(change_pp(f, node));
	} else {
		flame_box(f, node, depth, x, w);
	}
	kids = sorted_children(f->t, node, &n);
	for (size_t i = 0; i < n; i++) {
		if (drawn(f, kids[i]))
			flame_walk(f, kids[i], depth + 1, x);
		x += share(f, f->t->node[kids[i]].total[f->side], f->side) * f->plot_w;
	}
	free(kids);
}

static int flame_init(struct flame *f, const struct prof_tree *t, int side, bool diff)
{
	if (!t || !t->node || t->n_node == 0 || side < 0 || side >= PROF_SIDES)
		return -EINVAL;
	*f = (struct flame){ .t = t, .side = side, .diff = diff, .plot_w = PSVG_WIDTH - 2 * PSVG_MARGIN };
	f->present = zalloc(t->n_category ? t->n_category : 1);
	for (int s = 0; s < PROF_SIDES; s++)
		f->root[s] = t->node[0].total[s];
	if (f->root[side])
		flame_walk(f, 0, 0, PSVG_MARGIN);
	return 0;
}

/* The plot's height: its levels, or a line saying it is empty. */
static double flame_plot_h(const struct flame *f)
{
	return f->root[f->side] ? (double)(f->depth + 1) * ROW_H + 8 : 30;
}

/* Draws the plot from y on. */
static void flame_plot(struct flame *f, FILE *out, double y)
{
	f->out = out;
	if (!f->root[f->side]) {
		psvg_text(out, PSVG_MARGIN, y + 16, "fill=\"#444444\"",
			  f->diff ? "No samples in B." : "No samples.");
		return;
	}
	f->y_root = y + (double)f->depth * ROW_H;
	flame_walk(f, 0, 0, PSVG_MARGIN);
}

int prof_svg_flame(FILE *out, const struct prof_tree *t, int side, const char *title,
		   const char *subtitle)
{
	struct flame f;
	double y, h;
	int r = flame_init(&f, t, side, false);

	if (r < 0)
		return r;
	y = psvg_header_height(subtitle);
	h = y + flame_plot_h(&f) + psvg_legend(NULL, 0, f.present, t->category, t->n_category) + PSVG_MARGIN;
	psvg_open(out, h, title, subtitle);
	flame_plot(&f, out, y);
	y += flame_plot_h(&f);
	psvg_legend(out, y, f.present, t->category, t->n_category);
	free(f.present);
	return psvg_close(out);
}

/* The diff's key: five swatches from the largest shrink to the largest
 * growth, at y. Its height. */
static double diff_key(struct flame *f, FILE *out, double y)
{
	static const double steps[] = { -1, -0.5, 0, 0.5, 1 };
	double x = PSVG_MARGIN;

	if (!out)
		return PSVG_LEGEND_H;
	psvg_text(out, x, y + 12, NULL, "share of its side's samples, B - A:");
	x += 270;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		char fill[8], *label = xasprintf("%+.2f pp", steps[i] * f->max_pp);

		diff_fill(f, steps[i] * f->max_pp, fill);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\" "
			     "stroke=\"#666666\" stroke-width=\"0.5\"/>\n", x, y + 2, fill);
		psvg_text(out, x + 18, y + 12, NULL, label);
		free(label);
		x += 110;
	}
	return PSVG_LEGEND_H;
}

/* The larger A first, then by node index (first seen first). */
static int by_a_total(const void *a, const void *b, void *tree)
{
	const struct prof_tree *t = tree;
	const struct prof_node *x = &t->node[*(const uint32_t *)a];
	const struct prof_node *y = &t->node[*(const uint32_t *)b];

	if (x->total[0] != y->total[0])
		return x->total[0] < y->total[0] ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The paths B lost: each node with samples in A alone whose parent B
 * has (the first node missing on its path), largest first; *n of them. */
static uint32_t *gone_nodes(const struct prof_tree *t, size_t *n)
{
	uint32_t *g = zalloc(sizeof(*g) * t->n_node);
	size_t k = 0;

	for (uint32_t i = 1; i < t->n_node; i++) {
		const struct prof_node *nd = &t->node[i];

		if (nd->total[1] == 0 && nd->total[0] > 0 && (nd->parent == 0 || t->node[nd->parent].total[1] > 0))
			g[k++] = i;
	}
	qsort_r(g, k, sizeof(*g), by_a_total, (void *)t);
	*n = k;
	return g;
}

/* "a;b;c", the path from the root's child to node. */
static char *node_path(const struct prof_tree *t, uint32_t node)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t path[256];
	size_t n = 0;

	for (uint32_t at = node; at && n < ARRAY_SIZE(path); at = t->node[at].parent)
		path[n++] = at;
	while (n-- > 0)
		strbuf_addf(&sb, "%s%s", sb.len ? ";" : "", t->name[t->node[path[n]].name]);
	return strbuf_detach(&sb);
}

/* "Gone in B" from y on (out NULL: measured). Its height. */
static double gone_table(const struct flame *f, FILE *out, double y)
{
	size_t n, shown;
	uint32_t *g = gone_nodes(f->t, &n);
	double h = 0, rest = 0;

	if (n == 0)
		goto out;
	shown = n < GONE_ROWS ? n : GONE_ROWS;
	h = 8 + 18 + 16.0 * (double)shown + (n > shown ? 16 : 0);
	if (!out)
		goto out;
	psvg_text(out, PSVG_MARGIN, y + 22, "font-weight=\"bold\"", "Gone in B (paths with samples in A only):");
	for (size_t i = 0; i < shown; i++) {
		const struct prof_node *nd = &f->t->node[g[i]];
		char *path = node_path(f->t, g[i]), *pct = xasprintf("%6.2f%%", 100 * share(f, nd->total[0], 0));
		char *tip = xasprintf("%s: %llu samples in A, %.2f%% of A (self %.2f%%), 0 in B", path,
				      (unsigned long long)nd->total[0], 100 * share(f, nd->total[0], 0),
				      100 * share(f, nd->self[0], 0));
		double ty = y + 26 + 16.0 * (double)(i + 1) - 4;

		fputs("<g><title>", out);
		html_escape(out, tip);
		fputs("</title>", out);
		psvg_text(out, PSVG_MARGIN, ty, "font-family=\"monospace\" font-size=\"11\"", pct);
		psvg_label(out, PSVG_MARGIN + 70, ty, PSVG_WIDTH - 2 * PSVG_MARGIN - 70, path);
		fputs("</g>\n", out);
		free(path);
		free(pct);
		free(tip);
	}
	for (size_t i = shown; i < n; i++)
		rest += share(f, f->t->node[g[i]].total[0], 0);
	if (n > shown) {
		char *more = xasprintf("and %zu more, %.2f%% of A", n - shown, 100 * rest);

		psvg_text(out, PSVG_MARGIN, y + 26 + 16.0 * (double)(shown + 1) - 4, "fill=\"#444444\"", more);
		free(more);
	}
out:
	free(g);
	return h;
}

int prof_svg_diff(FILE *out, const struct prof_tree *t, const char *title, const char *subtitle)
{
	struct flame f;
	double y, h;
	int r = flame_init(&f, t, 1, true);

	if (r < 0)
		return r;
	y = psvg_header_height(subtitle);
	h = y + flame_plot_h(&f) + diff_key(&f, NULL, 0) + gone_table(&f, NULL, 0) + PSVG_MARGIN;
	psvg_open(out, h, title, subtitle);
	flame_plot(&f, out, y);
	y += flame_plot_h(&f);
	y += diff_key(&f, out, y);
	gone_table(&f, out, y);
	free(f.present);
	return psvg_close(out);
}
