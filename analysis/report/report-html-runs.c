/*
 * The HTML report's groups and runs (report-html.h): per group its runs'
 * percentile curves and the histogram of their frame times; per run its
 * frames over time (stalls, warm-up, reloads) and, when it has a stall
 * record or a wait record, its stall table as `hitchbench stalls` gives
 * it (stalltable.h, laid out by report-html-stalls.c). The runs are read
 * again from their directories: the report's rows keep their numbers,
 * not their frames.
 */
#include "report/report-html-internal.h"
#include "stalls/stalltable.h"
#include "run/runflip.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The row's run directory, loaded; false (said on the page) when not. A
 * run that does not load is a problem once, at its own section (mine);
 * elsewhere a note. */
static bool load_row(struct html_page *p, const struct report_row *r, struct run *run, bool mine)
{
	struct strbuf err = STRBUF_INIT;
	bool ok = false;

	if (!r->dir) {
		fputs("<p class=\"note\">No run directory is known for this run: no frames to draw.</p>\n",
		      p->out);
	} else if (run_load(r->dir, run, &err) < 0) {
		if (!p->o->from_db && mine)
			html_problem(p, "%s", err.buf);
		else if (!p->o->from_db)
			html_note(p, "%s: left out of the pictures (said below)", err.buf);
		else
			html_note(p, "The run directory is not at hand (%s): the numbers are the "
				  "database's, the pictures need its frames.", err.buf);
	} else if (!run->have_frames || run->frames.n < 2) {
		html_note(p, "The run has no frames to draw.");
		run_release(run);
	} else {
		ok = true;
	}
	strbuf_release(&err);
	return ok;
}

static void group_pictures(struct html_page *p, size_t gi, const size_t *idx, size_t k)
{
	const struct report_group *g = &p->grp[gi];
	struct run *runs = zalloc((k ? k : 1) * sizeof(*runs));
	const struct run **ptrs = zalloc((k ? k : 1) * sizeof(*ptrs));
	struct strbuf err = STRBUF_INIT;
	char *caption;
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		if (load_row(p, &p->rows[idx[i]], &runs[n], false)) {
			ptrs[n] = &runs[n];
			n++;
		}
	if (!n)
		html_note(p, "No counted run of the group has frames to draw.");
	caption = xasprintf("Percentile curves of %s %s: one per counted run (%zu), over its measured "
			    "window's frames; x is the percentile on an axis that stretches the tail "
			    "(90, 99, 99.9 equally apart), y the frame time in ms at it.",
			    g->game, g->run_name, n);
	if (n && html_figure_percentiles(p, ptrs, n, (unsigned)gi, caption, &err) < 0)
		html_problem(p, "cannot draw the percentiles of %s %s: %s", g->game, g->run_name, err.buf);
	strbuf_reset(&err);
	free(caption);
	caption = xasprintf("Histogram of the frame times of %s %s's counted runs' measured windows, "
			    "pooled (%zu runs): the share of the frames in each bin.", g->game,
			    g->run_name, n);
	if (n && html_figure_histogram(p, ptrs, n, (unsigned)gi, caption, &err) < 0)
		html_problem(p, "cannot draw the histogram of %s %s: %s", g->game, g->run_name, err.buf);
	for (size_t i = 0; i < n; i++)
		run_release(&runs[i]);
	free(runs);
	free(ptrs);
	free(caption);
	strbuf_release(&err);
}

void html_groups(struct html_page *p)
{
	size_t *idx = zalloc((p->n ? p->n : 1) * sizeof(*idx));

	html_section(p, "groups", "Groups");
	fputs("<p>A group is a game and a run name (variant@switches); its numbers are over its "
	      "counted runs.</p>\n", p->out);
	for (size_t g = 0; g < p->n_grp; g++) {
		const struct report_group *gr = &p->grp[g];
		size_t k = html_group_runs(p, gr, idx);

		fprintf(p->out, "<h3 id=\"group-%zu\">", g);
		html_escapef(p->out, "%s %s (n=%zu)", gr->game ? gr->game : "-",
			     gr->run_name ? gr->run_name : "-", k);
		fputs("</h3>\n", p->out);
		if (!k || !gr->game || !gr->run_name) {
			html_note(p, "No counted run: nothing to draw.");
			continue;
		}
		group_pictures(p, g, idx, k);
	}
	fputs("</section>\n", p->out);
	free(idx);
}

/* Why the run stalled, when it has a stall record (STALLS=1) or a wait
 * record (STALLS=bpf): its stall table (report-html-stalls.c). */
static void run_stalls(struct html_page *p, const struct run *run)
{
	struct strbuf err = STRBUF_INIT;
	struct stall_table t;

	if (stall_table_build(run, &p->ro->metric, &t, &err) < 0) {
		fputs("<h4>Why it stalled</h4>\n", p->out);
		html_problem(p, "%s", err.buf);
	} else {
		html_stall_table(p, &t);
		stall_table_release(&t);
	}
	strbuf_release(&err);
}

/* A flip run: its own figures and its picture (docs/metrics.md "Flip");
 * nothing for another run. */
static void run_flip(struct html_page *p, const struct run *run)
{
	struct strbuf err = STRBUF_INIT;
	struct run_flip f;
	char *caption;

	if (!kvfile_get(&run->bench, "flip"))
		return;
	fputs("<h4>Flip</h4>\n", p->out);
	run_flip_init(&f);
	f.stall_ms = p->ro->metric.stall_ms;
	if (run_flip_analyse(run, &f, &err) < 0) {
		html_problem(p, "%s", err.buf);
		goto out;
	}
	fputs("<p>", p->out);
	html_escapef(p->out, "%s flipped between A %s and B %s in %zu segments (%zu counted); %zu pairs in %zu "
		     "blocks of %zu", f.rec.switch_name, f.rec.a, f.rec.b, f.n_segs, f.counted, f.n_pairs, f.n_blocks, f.block_size);
	if (f.n_blocks > 1)
		html_escapef(p->out, ": ln(B/A) of fps %+.2f%%, standard error %.2f%% (B/A %.4f)", f.estimate * 100,
			     f.se * 100, exp(f.estimate));
	html_escapef(p->out, "; stalls over %g ms in paired segments A %llu of %llu frames, B %llu of %llu. "
		     "The run's fps in the table mixes both sides.", f.stall_ms, (unsigned long long)f.stalls_a,
		     (unsigned long long)f.frames_a, (unsigned long long)f.stalls_b, (unsigned long long)f.frames_b);
	fputs("</p>\n", p->out);
	caption = xasprintf("Flip of %s: above, each counted segment's fps (its frames over their time, after "
			    "the settle) at the time of its switch, A and B apart; below, the estimate of B/A - 1 "
			    "after each block of segment pairs, exp of the blocks' mean, with mean +- 1.96 "
			    "standard errors (a normal interval as the blocks come in, not the sequential test's "
			    "confidence sequence).", run->name);
	if (html_figure_flip(p, run, &f, caption, &err) < 0)
		html_problem(p, "cannot draw the flip of %s: %s", run->name, err.buf);
	free(caption);
out:
	run_flip_release(&f);
	strbuf_release(&err);
}

static void run_facts(struct html_page *p, const struct report_row *r)
{
	const char *why = report_row_excluded(r, p->ro->include_interfered);

	fputs("<p>", p->out);
	html_escapef(p->out, "%s %s, started %s, status %s; ", r->game ? r->game : "-",
		     r->run_name ? r->run_name : "-", r->started_utc ? r->started_utc : "-",
		     r->status ? r->status : "-");
	if (why)
		html_escapef(p->out, "not counted: %s", why);
	else
		html_escape(p->out, r->disturbed ? "counted, though marked disturbed" : "counted");
	fputs(".</p>\n", p->out);
}

/* The page's group of a row (its game and run name), 0 when none. */
static unsigned row_group(const struct html_page *p, const struct report_row *r)
{
	for (size_t g = 0; g < p->n_grp; g++)
		if (p->grp[g].game && r->game && p->grp[g].run_name && r->run_name &&
		    !strcmp(p->grp[g].game, r->game) && !strcmp(p->grp[g].run_name, r->run_name))
			return (unsigned)g;
	return 0;
}

void html_runs(struct html_page *p)
{
	html_section(p, "runs", "Runs");
	fputs("<p>Each run's frames over time: every frame's time at its end, frames over the "
	      "stall threshold marked, the warm-up, reloads and what came after the window "
	      "shaded.</p>\n", p->out);
	for (size_t i = 0; i < p->n; i++) {
		const struct report_row *r = &p->rows[i];
		struct strbuf err = STRBUF_INIT;
		struct run run;
		char *caption;

		fprintf(p->out, "<h3 id=\"run-%zu\">", i);
		html_escape(p->out, r->run);
		fputs("</h3>\n", p->out);
		run_facts(p, r);
		if (!load_row(p, r, &run, true))
			continue;
		caption = xasprintf("Frame times of %s over the whole run (seconds from its first "
				    "present); frames over %g ms are stalls, counted (filled) in the "
				    "measured window only, drawn hollow outside it.", run.name,
				    p->ro->metric.stall_ms);
		if (html_figure_frames(p, &run, row_group(p, r), caption, &err) < 0)
			html_problem(p, "cannot draw the frames of %s: %s", run.name, err.buf);
		run_flip(p, &run);
		run_stalls(p, &run);
		free(caption);
		strbuf_release(&err);
		run_release(&run);
	}
	fputs("</section>\n", p->out);
}
