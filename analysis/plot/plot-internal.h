/*
 * What the units drawing pictures share (analysis/plot/plot.c: scripts, the
 * matrix and trend, running gnuplot; analysis/plot/plot-frames.c: the
 * frame-time pictures). Not for use outside analysis/plot/plot*.c.
 */
#ifndef HB_PLOT_INTERNAL_H
#define HB_PLOT_INTERNAL_H

#include "plot/plot.h"

#define PLOT_WIDTH 1200
#define PLOT_HEIGHT 675
#define PLOT_FONT "DejaVu Sans,11"

/* A gnuplot double-quoted string ("\n" is a line break in it). */
void plot_add_str(struct strbuf *sb, const char *s);
/* Writes dir/NAME+suffix. 0 or -errno. */
int plot_write_text(const char *dir, const char *name, const char *suffix, const struct strbuf *sb);
/* Opens the script: the PNG terminal (width x height pixels) and what every
 * picture shares. */
void plot_script_begin(struct strbuf *gp, const struct plot_out *out, int width, int height);
/* Closes the script: the same picture again as SVG (no mouse scripts:
 * the file is self-contained). */
void plot_script_end(struct strbuf *gp, const struct plot_out *out, int width, int height);
/* The same with `again` drawing the picture a second time (replot cannot
 * draw a multiplot again: a picture of several plots loads its body). */
void plot_script_end_with(struct strbuf *gp, const struct plot_out *out, int width, int height,
			  const char *again);

typedef int (*plot_writer)(const struct plot_out *out, const char *workdir, const void *arg);
/* Makes the output directory and a work directory, has write() put the
 * script and data there, runs gnuplot and checks that NAME.png and
 * NAME.svg came out. 0 or -errno with the reason in err. */
int plot_draw(const struct plot_out *given, plot_writer write, const void *arg, struct strbuf *err);

#endif
