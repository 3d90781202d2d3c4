/*
 * A flip run's picture (plot.h, plot_flip): above, each counted segment's
 * fps at the time its switch was applied, A and B in two colours, so the
 * machine's drift and the demo's content show as what both sides share
 * and the effect as the gap between them; below, the running estimate of
 * B/A after each block of segment pairs with its normal 95% interval,
 * the way the run's figure settles as blocks come in.
 */
#include "plot/plot-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLIP_COLOUR_A "#1f5fa8"
#define FLIP_COLOUR_B "#d9730d"

int plot_flip_write(const struct plot_out *out, const char *workdir, const struct plot_flip *f)
{
	struct strbuf script = STRBUF_INIT, gp = STRBUF_INIT, seg = STRBUF_INIT, est = STRBUF_INIT;
	char *again;
	int r;

	if (!f->n_segs || !f->title)
		return -EINVAL;
	strbuf_addstr(&seg, "# t_s\tfps\tside (0 A, 1 B)\n");
	for (size_t i = 0; i < f->n_segs; i++)
		strbuf_addf(&seg, "%.4f\t%.6g\t%d\n", f->segs[i].t_s, f->segs[i].fps, f->segs[i].side == 'B');
	strbuf_addstr(&est, "# blocks\testimate_pct\tlo_pct\thi_pct\n");
	for (size_t k = 0; k < f->n_est; k++)
		if (isfinite(f->est_pct[k]))
			strbuf_addf(&est, "%zu\t%.6g\t%.6g\t%.6g\n", k + 1, f->est_pct[k],
				    isfinite(f->lo_pct[k]) ? f->lo_pct[k] : f->est_pct[k],
				    isfinite(f->hi_pct[k]) ? f->hi_pct[k] : f->est_pct[k]);

	strbuf_addstr(&gp, "set multiplot layout 2,1 title ");
	plot_add_str(&gp, f->title);
	strbuf_addstr(&gp, "\nset key inside top right horizontal\nset grid ytics\n");
	strbuf_addstr(&gp, "set xlabel 'seconds from the first present, at each segment switch'\n"
			   "set ylabel 'segment fps'\n");
	strbuf_addf(&gp, "plot '%s-seg.dat' using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.6 lc rgb '%s' title ",
		    out->name, FLIP_COLOUR_A);
	plot_add_str(&gp, f->label_a ? f->label_a : "A");
	strbuf_addf(&gp, ", \\\n     '' using 1:($3 == 1 ? $2 : 1/0) with points pt 5 ps 0.6 lc rgb '%s' title ",
		    FLIP_COLOUR_B);
	plot_add_str(&gp, f->label_b ? f->label_b : "B");
	strbuf_addch(&gp, '\n');
	strbuf_addstr(&gp, "set xlabel 'blocks of segment pairs so far'\n"
			   "set ylabel 'B/A - 1, % of fps'\n");
	if (est.len > strlen("# blocks\testimate_pct\tlo_pct\thi_pct\n"))
		strbuf_addf(&gp, "plot '%s-est.dat' using 1:3:4 with filledcurves lc rgb '#d8d8d8' "
			    "title '95%% interval (normal, mean +- 1.96 se of the blocks so far)', \\\n"
			    "     '' using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb '#333333' "
			    "title 'running estimate: exp(mean of the blocks) - 1', \\\n"
			    "     0 with lines dt 2 lc rgb '#888888' notitle\n", out->name);
	else
		strbuf_addstr(&gp, "set label 1 'no block of pairs: no estimate' at graph 0.5, graph 0.5 center\n"
				   "plot [0:1] [-1:1] 1/0 notitle\n");
	strbuf_addstr(&gp, "unset multiplot\n");
	/* two plots in one picture: the body loaded once for the PNG and
	 * again for the SVG */
	plot_script_begin(&script, out, PLOT_WIDTH, PLOT_HEIGHT);
	strbuf_addf(&script, "load '%s-body.gp'\n", out->name);
	again = xasprintf("load '%s-body.gp'", out->name);
	plot_script_end_with(&script, out, PLOT_WIDTH, PLOT_HEIGHT, again);
	free(again);
	r = plot_write_text(workdir, out->name, ".gp", &script);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-body.gp", &gp);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-seg.dat", &seg);
	if (r == 0)
		r = plot_write_text(workdir, out->name, "-est.dat", &est);
	strbuf_release(&script);
	strbuf_release(&gp);
	strbuf_release(&seg);
	strbuf_release(&est);
	return r;
}

static int write_cb(const struct plot_out *out, const char *workdir, const void *arg)
{
	return plot_flip_write(out, workdir, arg);
}

int plot_flip(const struct plot_out *out, const struct plot_flip *f, struct strbuf *err)
{
	return plot_draw(out, write_cb, f, err);
}
