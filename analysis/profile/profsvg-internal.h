/*
 * What the profile's pictures share (profsvg.h): the page's frame (size,
 * title and subtitle, the closing and the stream's check), escaped and
 * elided text, and the categories' legend. All text is monospace or
 * sans-serif, widths are estimated from the character count (no font is
 * measured), and nothing gets an id, so pictures inline side by side.
 */
#ifndef HB_PROFSVG_INTERNAL_H
#define HB_PROFSVG_INTERNAL_H

#include "profile/profsvg.h"

#define PSVG_WIDTH 1200                 /* every picture's width, px */
#define PSVG_MARGIN 10
#define PSVG_LEGEND_H 20                /* one line of the legend */

/* The header's height: the title and the subtitle wrapped to the width. */
double psvg_header_height(const char *subtitle);
/* Opens the <svg> of height px (white ground) and writes the header;
 * what is drawn next starts at psvg_header_height(). */
void psvg_open(FILE *out, double height, const char *title, const char *subtitle);
/* Closes the <svg>; 0 or -errno of the stream. */
int psvg_close(FILE *out);
/* A <text> at (x, y) with attrs (ours, as they are), s escaped. */
void psvg_text(FILE *out, double x, double y, const char *attrs, const char *s);
/* s in a box label's font (11 px monospace) cut to width px ("..." where
 * cut); nothing when not three characters fit. */
/* The legend of the categories with present[i] set, from (x, y) on, in
 * lines across the picture; with out NULL only measured. Its height. */
double psvg_legend(FILE *out, double y, const bool *present, const char *const *names, size_t n);
/* A category's fill (the palette, by index). */
const char *psvg_category_fill(size_t category);

#endif
