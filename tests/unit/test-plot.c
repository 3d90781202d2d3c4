/*
 * analysis/plot/plot.c without gnuplot: the scripts name their axes, units and
 * legend entries, the data files hold the rows the pictures are drawn
 * from, and the matrix CSV and trend TSV parsers take what the matrix and
 * regress commands write and refuse the rest with file:line messages.
 */
#include "plot/plot.h"
#include "plot/plot-inputs.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;

static void setup(void)
{
	tmp = test_tmpdir();
}

static void teardown(void)
{
	remove_tree(tmp);
	free(tmp);
}

static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name), *buf = NULL;
	size_t len;

	ck_assert_msg(read_file(path, &buf, &len) == 0, "cannot read %s", path);
	free(path);
	return buf;
}

static int count_lines(const char *buf, const char *prefix)
{
	int n = 0;

	for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (*p != '#' && *p != '\n' && (!prefix || str_startswith(p, prefix)))
			n++;
	return n;
}

START_TEST(metric_units)
{
	ck_assert_str_eq(plot_metric_unit("p99_ms"), "ms");
	ck_assert_str_eq(plot_metric_unit("window_s"), "s");
	ck_assert_str_eq(plot_metric_unit("steady_fps"), "frames/s");
	ck_assert_str_eq(plot_metric_unit("low01"), "frames/s");
	ck_assert_str_eq(plot_metric_unit("stalls"), "count");
	ck_assert_str_eq(plot_metric_unit("mystery"), "");
}
END_TEST

/* A flip run's picture: two plots in one (the body loaded for the PNG and
 * again for the SVG, since replot cannot redraw a multiplot), the
 * segments by side, the running estimate from its second block with an
 * interval (the first has none: drawn as a point of its own). */
START_TEST(flip_script)
{
	const struct plot_flip_seg segs[] = { { 10.5, 130, 'A' }, { 11, 126.5, 'B' }, { 11.5, 131, 'B' },
					      { 12, 129, 'A' } };
	const double est[] = { -1.5, -1.2 }, lo[] = { NAN, -2.5 }, hi[] = { NAN, 0.1 };
	struct plot_flip f = { .title = "run: flip of STALLS", .label_a = "A: STALLS=0", .label_b = "B: STALLS=bpf",
			       .segs = segs, .n_segs = 4, .est_pct = est, .lo_pct = lo, .hi_pct = hi, .n_est = 2 };
	struct plot_out out = { "/out", "fl", NULL };
	char *gp, *body, *seg, *es;

	ck_assert_int_eq(plot_flip_write(&out, tmp, &f), 0);
	gp = slurp("fl.gp");
	body = slurp("fl-body.gp");
	seg = slurp("fl-seg.dat");
	es = slurp("fl-est.dat");
	/* loaded once for the PNG, then again for the SVG */
	ck_assert_ptr_nonnull(strstr(gp, "set output \"/out/fl.png\""));
	ck_assert_ptr_nonnull(strstr(gp, "load 'fl-body.gp'\nset terminal svg"));
	ck_assert_ptr_nonnull(strstr(gp, "set output \"/out/fl.svg\"\nload 'fl-body.gp'"));
	ck_assert_ptr_null(strstr(gp, "replot"));
	ck_assert_ptr_nonnull(strstr(body, "set multiplot layout 2,1 title \"run: flip of STALLS\""));
	ck_assert_ptr_nonnull(strstr(body, "title \"A: STALLS=0\""));
	ck_assert_ptr_nonnull(strstr(body, "title \"B: STALLS=bpf\""));
	ck_assert_ptr_nonnull(strstr(body, "unset multiplot"));
	ck_assert_ptr_nonnull(strstr(seg, "10.5000\t130\t0\n11.0000\t126.5\t1\n"));
	ck_assert_int_eq(count_lines(seg, NULL), 4);
	ck_assert_ptr_nonnull(strstr(es, "1\t-1.5\t-1.5\t-1.5\n2\t-1.2\t-2.5\t0.1\n"));
	/* nothing to draw: refused */
	f.n_segs = 0;
	ck_assert_int_eq(plot_flip_write(&out, tmp, &f), -EINVAL);
	free(gp);
	free(body);
	free(seg);
	free(es);
}
END_TEST

START_TEST(frames_script)
{
	const double t[] = { 0.01, 0.02, 0.15, 0.16, 2.5 };
	const double ms[] = { 10, 10, 130, 10, 2340 };
	const struct plot_segment seg[] = { { 0, 2, "warm-up" }, { 1, 1.2, "reload" },
					    { 1.5, 1.6, "reload" } };
	/* the window is (2, 3]: the 2340 ms frame is in it, the 130 ms one not */
	struct plot_run run = { .label = "doom gl: run \"7\"", .t_s = t, .ms = ms, .n = 5,
				.window_t0_s = 2, .window_t1_s = 3, .segments = seg, .n_segments = 3 };
	struct plot_frames f = { "doom gl", &run, 1, 100 };
	struct plot_out out = { "/out", "frames-x", NULL };
	char *gp, *dat, *st, *ot;

	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), 0);
	gp = slurp("frames-x.gp");
	dat = slurp("frames-x-0.dat");
	st = slurp("frames-x-0-stalls.dat");
	ot = slurp("frames-x-0-outside.dat");
	ck_assert_ptr_nonnull(strstr(gp, "set output \"/out/frames-x.png\""));
	ck_assert_ptr_nonnull(strstr(gp, "set output \"/out/frames-x.svg\""));
	ck_assert_ptr_nonnull(strstr(gp, "title \"doom gl: run \\\"7\\\"\""));
	ck_assert_ptr_nonnull(strstr(gp, "time since the run's first frame (s)"));
	/* 2340 ms against a 10 ms median: the axis goes logarithmic, 1-2-5 tics */
	ck_assert_ptr_nonnull(strstr(gp, "frame time (ms), log scale"));
	ck_assert_ptr_nonnull(strstr(gp, "set yrange [8:2925]"));
	ck_assert_ptr_nonnull(strstr(gp, "'10' 10, '20' 20, '50' 50, '100' 100"));
	/* the threshold is within the axis: a line across, not a plotted curve */
	ck_assert_ptr_nonnull(strstr(gp, "set arrow from graph 0, first 100 to graph 1, first 100 nohead"));
	ck_assert_ptr_nonnull(strstr(gp, "title 'stall threshold 100 ms'"));
	/* filled: the window's stall, hollow: the warm-up's */
	ck_assert_ptr_nonnull(strstr(gp, "'frames-x-0-stalls.dat' using 1:2 with points pt 7"));
	ck_assert_ptr_nonnull(strstr(gp, "'frames-x-0-outside.dat' using 1:2 with points pt 6"));
	ck_assert_ptr_nonnull(strstr(gp, "drawn, not counted"));
	/* three bands, two legend entries (reload once) */
	ck_assert_ptr_nonnull(strstr(gp, "set object 3 rectangle from 1.500000"));
	ck_assert_int_eq(count_lines(gp, "set object"), 3);
	ck_assert_ptr_nonnull(strstr(gp, "title \"warm-up\""));
	ck_assert_ptr_nonnull(strstr(gp, "title \"reload\""));
	ck_assert_ptr_null(strstr(strstr(gp, "title \"reload\"") + 1, "title \"reload\""));
	ck_assert_int_eq(count_lines(dat, NULL), 5);
	ck_assert_ptr_nonnull(strstr(dat, "0.150000\t130.000\n"));
	ck_assert_int_eq(count_lines(st, NULL), 1);
	ck_assert_ptr_nonnull(strstr(st, "2.500000\t2340.000\n"));
	ck_assert_int_eq(count_lines(ot, NULL), 1);
	ck_assert_ptr_nonnull(strstr(ot, "0.150000\t130.000\n"));
	free(gp);
	free(dat);
	free(st);
	free(ot);
}
END_TEST

/* A smooth run (10-30 ms): the axis fits it (0 to 31.5 ms), the 100 ms
 * threshold is named above it, not drawn into it. */
START_TEST(frames_smooth_axis)
{
	const double t[] = { 0.01, 0.02, 0.03 };
	const double ms[] = { 10, 12, 30 };
	struct plot_run run = { .label = "smooth", .t_s = t, .ms = ms, .n = 3 };
	struct plot_frames f = { "t", &run, 1, 100 };
	struct plot_out out = { "/out", "f", NULL };
	char *gp;

	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), 0);
	gp = slurp("f.gp");
	ck_assert_ptr_nonnull(strstr(gp, "set ylabel 'frame time (ms)'"));
	ck_assert_ptr_nonnull(strstr(gp, "set yrange [0:31.5]"));
	ck_assert_ptr_null(strstr(gp, "first 100"));
	ck_assert_ptr_nonnull(strstr(gp, "set label 'stall threshold 100 ms: above this axis'"));
	ck_assert_ptr_nonnull(strstr(gp, "stall threshold 100 ms (above the axis: no frame reached it)"));
	ck_assert_ptr_null(strstr(gp, "f-0-stalls.dat"));
	free(gp);
	run.n = 0;
	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), -EINVAL);
	f.n_runs = 0;
	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), -EINVAL);
}
END_TEST

/* Two runs of one group and one of another: drawn over each other, a
 * data file each, the group's hue shared, its second run another shade
 * and dash; the other group another hue. */
START_TEST(frames_overlay_groups)
{
	const double t[] = { 0.5, 1.0 };
	const double a[] = { 7, 8 }, b[] = { 9, 6 }, c[] = { 16, 15 };
	struct plot_run runs[] = {
		{ .label = "doom software 2026-11-30 12:07:07: A", .style = { 0, 0 }, .t_s = t, .ms = a, .n = 2 },
		{ .label = "doom gl 2026-11-30 12:07:15: B", .style = { 1, 0 }, .t_s = t, .ms = c, .n = 2 },
		{ .label = "doom software 2026-11-30 12:07:24: C", .style = { 0, 1 }, .t_s = t, .ms = b, .n = 2 },
	};
	struct plot_frames f = { "3 runs", runs, 3, 100 };
	struct plot_out out = { "/out", "o", NULL };
	struct plot_style s00 = { 0, 0 }, s01 = { 0, 1 }, s10 = { 1, 0 }, s80 = { 8, 0 };
	char *gp, *want;

	ck_assert_int_eq(plot_frames_write(&out, tmp, &f), 0);
	gp = slurp("o.gp");
	for (int k = 0; k < 3; k++) {
		char *d = xasprintf("o-%d.dat", k), *body = slurp(d);

		ck_assert_int_eq(count_lines(body, NULL), 2);
		free(body);
		free(d);
	}
	want = xasprintf("'o-0.dat' using 1:2 with fsteps lw 1.2 dt 1 lc rgb '%s' title \"doom software "
			 "2026-11-30 12:07:07: A\"", plot_style_colour(&s00));
	ck_assert_msg(strstr(gp, want), "no %s in %s", want, gp);
	free(want);
	want = xasprintf("'o-2.dat' using 1:2 with fsteps lw 1.2 dt 2 lc rgb '%s' title", plot_style_colour(&s01));
	ck_assert_ptr_nonnull(strstr(gp, want));
	free(want);
	want = xasprintf("'o-1.dat' using 1:2 with fsteps lw 1.2 dt 1 lc rgb '%s' title", plot_style_colour(&s10));
	ck_assert_ptr_nonnull(strstr(gp, want));
	free(want);
	/* one hue per group, shades of it within; the palette wraps */
	ck_assert_str_ne(plot_style_colour(&s00), plot_style_colour(&s01));
	ck_assert_str_ne(plot_style_colour(&s00), plot_style_colour(&s10));
	ck_assert_str_eq(plot_style_colour(&s00), plot_style_colour(&s80));
	ck_assert_int_eq(plot_style_dash(&s00), 1);
	ck_assert_int_ne(plot_style_dash(&s01), 1);
	/* the axis fits the three runs: 0 to 16 * 1.05 */
	ck_assert_ptr_nonnull(strstr(gp, "set yrange [0:16.8]"));
	free(gp);
}
END_TEST

START_TEST(percentile_curves)
{
	double a[1000], b[10];
	struct plot_series s[] = { { "software: 1000 frames", { 0, 0 }, a, 1000 },
				   { "gl: 10 frames", { 1, 0 }, b, 10 } };
	struct plot_out out = { "/out", "pct", NULL };
	char *gp, *dat;

	/* 1..1000 ms: the nearest-rank percentile p is ceil(p/100*1000) ms */
	for (int i = 0; i < 1000; i++)
		a[999 - i] = i + 1;
	for (int i = 0; i < 10; i++)
		b[i] = 5;
	ck_assert_int_eq(plot_percentiles_write(&out, tmp, "title", s, 2, 100), 0);
	gp = slurp("pct.gp");
	dat = slurp("pct-pct.dat");
	ck_assert_ptr_nonnull(strstr(gp, "title \"software: 1000 frames\""));
	ck_assert_ptr_nonnull(strstr(gp, "'pct-pct.dat' index 1 using 1:3"));
	ck_assert_ptr_nonnull(strstr(gp, "'99.9' 3"));
	ck_assert_ptr_nonnull(strstr(gp, "frame time (ms), log scale"));
	ck_assert_ptr_nonnull(strstr(gp, "set arrow from graph 0, first 100 to graph 1, first 100"));
	/* x = 1 is p90, x = 2 p99, x = 3 p99.9, each an actual frame */
	ck_assert_ptr_nonnull(strstr(dat, "1.000\t90.00000\t900.000\n"));
	ck_assert_ptr_nonnull(strstr(dat, "2.000\t99.00000\t990.000\n"));
	ck_assert_ptr_nonnull(strstr(dat, "3.000\t99.90000\t999.000\n"));
	ck_assert_ptr_nonnull(strstr(dat, "0.000\t0.00000\t1.000\n"));
	/* two blocks of 801 points */
	ck_assert_int_eq(count_lines(dat, NULL), 2 * 801);
	free(gp);
	free(dat);
	/* a smooth curve: the axis to its top, the threshold named above */
	ck_assert_int_eq(plot_percentiles_write(&out, tmp, "title", s + 1, 1, 100), 0);
	gp = slurp("pct.gp");
	ck_assert_ptr_nonnull(strstr(gp, "set yrange [0:5.25]"));
	ck_assert_ptr_nonnull(strstr(gp, "stall threshold 100 ms: above this axis"));
	free(gp);
	ck_assert_int_eq(plot_percentiles_write(&out, tmp, "t", s, 0, 100), -EINVAL);
}
END_TEST

/* Linear bins of a round width over a smooth series; logarithmic ones,
 * 20 a decade, once a stall spans the range; each series a block whose
 * shares add up to 100 %. */
START_TEST(histogram_bins)
{
	double a[100], b[4] = { 10, 10, 10, 1000 };
	struct plot_series s[] = { { "software: 100 frames", { 0, 0 }, a, 100 },
				   { "gl: 4 frames", { 1, 0 }, b, 4 } };
	struct plot_out out = { "/out", "h", NULL };
	char *gp, *tab, *line, *want;
	double sum = 0, from, to, share;
	size_t frames;
	const char *p;

	for (int i = 0; i < 100; i++)
		a[i] = 5 + (i % 20); /* 5..24 ms, five of each */
	ck_assert_int_eq(plot_histogram_write(&out, tmp, "hist", s, 1, 100), 0);
	gp = slurp("h.gp");
	tab = slurp("h-hist.dat");
	/* 24 / 50 = 0.48: bins of 0.5 ms from 5 */
	ck_assert_ptr_nonnull(strstr(gp, "bins of 0.5 ms"));
	ck_assert_ptr_nonnull(strstr(tab, "5\t5.5\t5\t5.0000\n"));
	ck_assert_ptr_nonnull(strstr(tab, "5.5\t6\t0\t0.0000\n"));
	ck_assert_ptr_nonnull(strstr(gp, "stall threshold 100 ms: right of this axis"));
	ck_assert_ptr_null(strstr(gp, "logscale"));
	for (p = tab; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "%lf\t%lf\t%zu\t%lf", &from, &to, &frames, &share) == 4)
			sum += share;
	ck_assert_msg(fabs(sum - 100) < 0.01, "shares add up to %g", sum);
	free(gp);
	free(tab);

	ck_assert_int_eq(plot_histogram_write(&out, tmp, "hist", s, 2, 100), 0);
	gp = slurp("h.gp");
	tab = slurp("h-hist.dat");
	line = slurp("h-outline.dat");
	ck_assert_ptr_nonnull(strstr(gp, "set logscale x"));
	ck_assert_ptr_nonnull(strstr(gp, "bins of 1/20 decade"));
	ck_assert_ptr_nonnull(strstr(gp, "set arrow from first 100, graph 0 to first 100, graph 1"));
	/* the 1000 ms frame: a quarter of gl's frames in the bin from 10^3 */
	ck_assert_ptr_nonnull(strstr(tab, "1000\t1122.02\t1\t25.0000\n"));
	want = xasprintf("'h-outline.dat' index 1 using 1:2 with lines lw 2 dt 1 lc rgb '%s' title \"gl: 4 frames\"",
			 plot_style_colour(&s[1].style));
	ck_assert_msg(strstr(gp, want), "no %s in %s", want, gp);
	free(want);
	ck_assert_ptr_nonnull(strstr(line, "# gl: 4 frames\n"));
	free(gp);
	free(tab);
	free(line);
	ck_assert_int_eq(plot_histogram_write(&out, tmp, "hist", s, 0, 100), -EINVAL);
}
END_TEST

static const char matrix_csv[] =
	"game,run,b1.median,b1.min,b1.max,b1.n,\"k 6.1.median\",\"k 6.1.min\",k 6.1.max,\"k 6.1.n\"\r\n"
	"doom,software,25.5,24,27,3,,,,\n"
	"\"doom, the game\",gl,18,17.5,19,2,19,19,19,1\n";

START_TEST(matrix_parse_and_script)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { "/out", "m", NULL };
	struct plot_matrix m;
	char *gp, *dat, *lab;

	ck_assert_int_eq(plot_matrix_parse("results/matrix/p99_ms.csv", matrix_csv, &m, &err), 0);
	ck_assert_str_eq(m.metric, "p99_ms");
	ck_assert_uint_eq(m.n_cols, 2);
	ck_assert_uint_eq(m.n_rows, 2);
	ck_assert_str_eq(m.cols[1], "k 6.1");
	ck_assert_str_eq(m.games[1], "doom, the game");
	ck_assert_int_eq(m.cells[0].n, 3);
	ck_assert_int_eq(m.cells[1].n, 0);
	ck_assert(m.cells[3].median == 19 && m.cells[2].min == 17.5);

	ck_assert_int_eq(plot_matrix_write(&out, tmp, &m), 0);
	gp = slurp("m.gp");
	dat = slurp("m-matrix.dat");
	lab = slurp("m-labels.dat");
	ck_assert_ptr_nonnull(strstr(gp, "set ylabel \"p99_ms (ms)\""));
	ck_assert_ptr_nonnull(strstr(gp, "using 2:3:4:xtic(1)"));
	ck_assert_ptr_nonnull(strstr(gp, "using 6:7:8 lc rgb"));
	ck_assert_ptr_nonnull(strstr(gp, "title \"k 6.1\""));
	ck_assert_ptr_nonnull(strstr(gp, "whiskers from min to max"));
	ck_assert_ptr_nonnull(strstr(dat, "\"doom / software\"\t25.5\t24\t27\t3\t?\t?\t?\t0\n"));
	ck_assert_int_eq(count_lines(dat, NULL), 2);
	/* bars a third wide (two columns + gap 1), centred on the row */
	ck_assert_ptr_nonnull(strstr(lab, "-0.1667\t27\t\"n=3\"\n"));
	ck_assert_ptr_nonnull(strstr(lab, "0.1667\t0\t\"no runs\"\n"));
	ck_assert_ptr_nonnull(strstr(lab, "1.1667\t19\t\"n=1\"\n"));
	free(gp);
	free(dat);
	free(lab);
	plot_matrix_release(&m);
	plot_matrix_release(NULL);
	strbuf_release(&err);
}
END_TEST

static void matrix_refused(const char *csv, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_matrix m;

	ck_assert_int_eq(plot_matrix_parse("m.csv", csv, &m, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, msg), "'%s' does not say '%s'", err.buf, msg);
	strbuf_release(&err);
}

START_TEST(matrix_bad)
{
	matrix_refused("", "m.csv: empty");
	matrix_refused("game,run,a.median,a.min,a.max\n", "m.csv:1: the header");
	matrix_refused("game,run,a.median,a.min,a.max,a.count\n", "m.csv:1: column 6 is 'a.count', not 'a.n'");
	matrix_refused("game,run,a.median,a.min,a.max,a.n\n", "m.csv: no rows");
	matrix_refused("game,run,a.median,a.min,a.max,a.n\ndoom,sw,1,2\n", "m.csv:2: 4 fields");
	matrix_refused("game,run,a.median,a.min,a.max,a.n\ndoom,sw,1,x,3,3\n", "m.csv:2: column 'a'");
	matrix_refused("game,run,a.median,a.min,a.max,a.n\ndoom,sw,1,,3,3\n", "m.csv:2: column 'a'");
	matrix_refused("game,run,a.median,a.min,a.max,a.n\n\"doom,sw,1,1,1,1\n", "m.csv:2: a quote");
	/* RFC 4180: a field is quoted whole or not at all */
	matrix_refused("game,run,\"a\".median,a.min,a.max,a.n\n", "m.csv:1: something after a closing quote");
}
END_TEST

static const char trend_tsv[] =
	"# hitchbench regress p99_ms\n"
	"kernel\tmedian\tmin\tmax\tn\tchange\tp\tmagnitude\n"
	"6.1.0\t25.3\t24.9\t26.4\t5\t0\t-\t-\n"
	"6.8.12\t29.8\t28.7\t31.2\t5\t1\t0.0079\t4.4\n"
	"6.12.9 26 25.1 27.3 4 yes 0.01 -3.8\n";

START_TEST(trend_parse_and_script)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_out out = { "/out", "tr", NULL };
	struct plot_trend_point *pts;
	char *gp, *dat;
	size_t n;

	ck_assert_int_eq(plot_trend_parse("p99_ms.tsv", trend_tsv, &pts, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(pts[1].kernel, "6.8.12");
	ck_assert(pts[1].change && pts[2].change && !pts[0].change);
	ck_assert(isnan(pts[0].p) && pts[2].magnitude == -3.8 && pts[2].n == 4);

	ck_assert_int_eq(plot_trend_write(&out, tmp, "p99_ms", pts, n), 0);
	gp = slurp("tr.gp");
	dat = slurp("tr-trend.dat");
	ck_assert_ptr_nonnull(strstr(gp, "set ylabel \"p99_ms (ms)\""));
	ck_assert_ptr_nonnull(strstr(gp, "set xlabel 'kernel (in the order given)'"));
	/* change points between the kernels, with their size and p */
	ck_assert_ptr_nonnull(strstr(gp, "set arrow 1 from 0.5, graph 0 to 0.5, graph 1"));
	ck_assert_ptr_nonnull(strstr(gp, "set arrow 2 from 1.5, graph 0"));
	ck_assert_ptr_nonnull(strstr(gp, "set label 1 \"+4.4 ms\\np = 0.0079\""));
	ck_assert_ptr_nonnull(strstr(gp, "set label 2 \"-3.8 ms\\np = 0.01\""));
	ck_assert_ptr_nonnull(strstr(gp, "title 'change point"));
	ck_assert_ptr_nonnull(strstr(gp, "sprintf('n=%d', $6)"));
	ck_assert_ptr_nonnull(strstr(dat, "1\t\"6.8.12\"\t29.8\t28.7\t31.2\t5\n"));
	ck_assert_int_eq(count_lines(dat, NULL), 3);
	free(gp);
	free(dat);
	plot_trend_release(pts, n);
	strbuf_release(&err);
}
END_TEST

static void trend_refused(const char *tsv, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct plot_trend_point *pts;
	size_t n;

	ck_assert_int_eq(plot_trend_parse("t.tsv", tsv, &pts, &n, &err), -EINVAL);
	ck_assert_msg(strstr(err.buf, msg), "'%s' does not say '%s'", err.buf, msg);
	strbuf_release(&err);
}

START_TEST(trend_bad)
{
	trend_refused("kernel median min max n change p magnitude\n", "t.tsv: no kernels");
	trend_refused("\n6.1 1 1 1\n", "t.tsv:2: want");
	trend_refused("6.1 1 x 1 3 0\n", "t.tsv:1: median, min and max");
	trend_refused("6.1 1 1 1 -3 0\n", "t.tsv:1: n '-3'");
	trend_refused("6.1 1 1 1 3 maybe\n", "t.tsv:1: change 'maybe'");
	trend_refused("6.1 1 1 1 3 1 - -\n", "t.tsv:1: p and magnitude must be numbers at a change point");
	trend_refused("6.1 1 1 1 3 0 - - 9\n", "t.tsv:1: want 'kernel median min max n change p magnitude', got 9");
}
END_TEST

TEST_SUITE(plot_suite)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("plot");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, metric_units);
	tcase_add_test(tc, frames_script);
	tcase_add_test(tc, flip_script);
	tcase_add_test(tc, frames_smooth_axis);
	tcase_add_test(tc, frames_overlay_groups);
	tcase_add_test(tc, percentile_curves);
	tcase_add_test(tc, histogram_bins);
	tcase_add_test(tc, matrix_parse_and_script);
	tcase_add_test(tc, matrix_bad);
	tcase_add_test(tc, trend_parse_and_script);
	tcase_add_test(tc, trend_bad);
	suite_add_tcase(s, tc);
	return s;
}
