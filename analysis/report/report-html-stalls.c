/*
 * Why a run stalled, on the HTML report's page (report-html.h): the run's
 * stall table (analysis/stalls/stalltable.h), the model `hitchbench stalls`
 * prints as text and JSON, laid out as HTML: which records it comes
 * from, a table per section (load, warm-up, window) with each stall's
 * waits under it where the wait record decided, and the seconds per cause.
 * Everything read from the records (evidence, waits) is escaped.
 */
#include "report/report-html-internal.h"
#include "stalls/stalltable.h"

/* Which records the stalls come from, and how they decide. */
static void stall_sources(struct html_page *p, const struct stall_table *t)
{
	const struct stall_table_stallrec *r = &t->rec;
	const struct stall_table_waitrec *w = &t->waits;

	fputs("<p>From its ", p->out);
	if (t->have_stallrec)
		fprintf(p->out, "stall record (%zu samples over %.3f s, period %.1f ms)%s", r->samples,
			r->span_s, r->period_ms, t->have_waitrec ? " and its " : "");
	if (t->have_waitrec)
		fprintf(p->out, "wait record (%zu waits, %zu block requests, %zu threads, %llu events lost%s)",
			w->n_off, w->n_bio, w->n_thread, (unsigned long long)w->lost,
			w->cut ? ", its last line cut" : "");
	if (!t->have_stallrec)
		fputs("; no stall record (the sampler did not run): each stall's time split over causes "
		      "by the main thread's waits the kernel recorded, its waits listed under it", p->out);
	else
		fputs(": each stall's time split over causes by the main thread's state in the samples "
		      "that cover it, the kernel's exact counters deciding where they are recorded", p->out);
	if (t->have_stallrec && t->have_waitrec)
		fputs(", and the wait record's lines where they speak for at least half of the stall, "
		      "its waits then listed under it", p->out);
	fputs(" (docs/stalls.md; what <code>hitchbench stalls</code> prints). when_s: seconds after "
	      "the first present; shares: of the stall's time.</p>\n", p->out);
}

static void stall_row(struct html_page *p, const struct stall_table_row *row)
{
	fprintf(p->out, "<tr><td class=\"num\">%+.3f</td><td class=\"num\">%.1f</td><td>%s</td>"
		"<td>%s</td><td class=\"nowrap\">", row->when_s, row->ms, stall_cause_name(row->cause),
		stall_decider_name(row->decided));
	html_escape(p->out, row->shares);
	fputs("</td><td class=\"mono\">", p->out);
	html_escape(p->out, row->evidence);
	fputs("</td></tr>\n", p->out);
	if (!row->n_waits)
		return;
	fputs("<tr class=\"waits\"><td colspan=\"6\"><ul class=\"waits\">\n", p->out);
	for (size_t i = 0; i < row->n_waits; i++) {
		fputs("<li>", p->out);
		html_escape(p->out, row->waits[i]);
		fputs("</li>\n", p->out);
	}
	fputs("</ul></td></tr>\n", p->out);
}

static void stall_section(struct html_page *p, const struct stall_table *t, enum stall_section sec)
{
	fprintf(p->out, "<h4>%s (%s)</h4>\n", stall_section_name(sec), stall_table_section_words(sec));
	if (!t->n_in[sec]) {
		fputs("<p>none</p>\n", p->out);
		return;
	}
	fputs("<div class=\"wide\"><table>\n<tr><th>when_s</th><th>ms</th><th>cause</th>"
	      "<th>decided</th><th>shares</th><th>evidence</th></tr>\n", p->out);
	for (size_t k = 0; k < t->n_row; k++)
		if (t->row[k].section == sec)
			stall_row(p, &t->row[k]);
	fputs("</table></div>\n<p>Seconds per cause:", p->out);
	for (int c = 0; c < SC_COUNT; c++)
		if (t->seconds[sec][c] >= 0.0005)
			fprintf(p->out, " %s %.3f", stall_cause_name((enum stall_cause)c), t->seconds[sec][c]);
	fputs("</p>\n", p->out);
}

void html_stall_table(struct html_page *p, const struct stall_table *t)
{
	if (t->none == STN_NO_RECORD)
		return;
	fputs("<h4>Why it stalled</h4>\n", p->out);
	if (t->none == STN_NO_FRAMES) {
		html_note(p, "A stall record, but no frames or window to place stalls in.");
		return;
	}
	stall_sources(p, t);
	for (int s = 0; s < SS_COUNT; s++)
		stall_section(p, t, (enum stall_section)s);
}
