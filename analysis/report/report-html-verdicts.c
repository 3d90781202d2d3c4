/*
 * The HTML report's verdicts (report-html.h): every two groups of one
 * game compared on each of the table's metrics that has a better
 * direction, by stats_compare() with `hitchbench compare`'s defaults
 * (STATS_COMPARE_DEFAULT: the same seeds, so the same verdict compare
 * gives for those runs), over the groups' counted runs. As compare does,
 * runs of two machines or two boots are not compared: the page says so.
 */
#include "report/report-html-internal.h"
#include "text/kvfile.h"
#include "stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How many distinct values of key the runs idx[0..n) have (a run
 * without it counts as a value of its own, as compare's "unknown"), and
 * two of them. */
static size_t distinct(const struct html_page *p, const size_t *idx, size_t n, const char *key,
		       const char **v1, const char **v2)
{
	size_t k = 0;

	*v1 = *v2 = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct kvfile *kv = p->rows[idx[i]].provenance;
		const char *v = kv ? kvfile_get(kv, key) : NULL;

		if (!v)
			v = "unknown";
		if (k == 0) {
			*v1 = v;
			k = 1;
		} else if (strcmp(*v1, v) && (k == 1 || strcmp(*v2, v))) {
			if (k == 1)
				*v2 = v;
			k++;
		}
	}
	return k;
}

/* The values of metric id of the runs idx[0..n) that have it. */
static size_t values(const struct html_page *p, const size_t *idx, size_t n, enum metric_id id,
		     double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (p->rows[idx[i]].m.have[id] && isfinite(p->rows[idx[i]].m.v[id]))
			x[k++] = p->rows[idx[i]].m.v[id];
	return k;
}

static void verdict_row(struct html_page *p, enum metric_id id, const struct stats_comparison *c)
{
	const int d = metric_defs[id].decimals + 1;
	const enum metric_better better = metric_defs[id].better;
	const char *v = stats_verdict_name(c->verdict);

	fprintf(p->out, "<tr><td>%s</td><td class=\"num\">%zu / %zu</td><td class=\"num\">%.*f</td>"
		"<td class=\"num\">%.*f</td><td class=\"num\">", metric_defs[id].name, c->na, c->nb, d,
		c->median_a, d, c->median_b);
	/* B / A has no value when A's median is 0 */
	if (isfinite(c->ratio))
		fprintf(p->out, "%.4f", c->ratio);
	else
		fputc('-', p->out);
	fprintf(p->out, "</td><td class=\"num\">%.*f .. %.*f</td><td class=\"num\">%.4g (U %.4g, "
		"D %.4g)</td><td class=\"num\">%.4g / %.4g</td><td class=\"v-%s\">%s</td><td>", d,
		c->ci_lo, d, c->ci_hi, c->p, c->mwu.p, c->ks.p, c->low_threshold, c->high_threshold, v, v);
	if (c->verdict == VERDICT_DIFFERENT && better != BETTER_NEITHER && c->median_a != c->median_b)
		fprintf(p->out, "%s is better (%s %s)",
			(c->median_b < c->median_a) == (better == BETTER_LOWER) ? "B" : "A",
			better == BETTER_LOWER ? "lower" : "higher", metric_defs[id].name);
	else if (c->verdict == VERDICT_UNKNOWN && c->rounds_needed == SIZE_MAX)
		fputs("more runs needed: over 200 of each", p->out);
	else if (c->verdict == VERDICT_UNKNOWN)
		fprintf(p->out, "about %zu more runs of each needed", c->rounds_needed);
	fputs("</td></tr>\n", p->out);
}

/* Groups a and b (one game) on every metric of the table that has a
 * direction. */
static void compare_groups(struct html_page *p, const struct report_group *a,
			   const struct report_group *b, size_t *ia, size_t *ib)
{
	const struct stats_compare_opts o = STATS_COMPARE_DEFAULT;
	size_t na = html_group_runs(p, a, ia), nb = html_group_runs(p, b, ib);
	double *xa = zalloc((na + 1) * sizeof(*xa)), *xb = zalloc((nb + 1) * sizeof(*xb));
	const char *v1, *v2, *w1, *w2;
	bool any = false;

	fputs("<h3>", p->out);
	html_escapef(p->out, "%s: A = %s, B = %s", a->game, a->run_name, b->run_name);
	fputs("</h3>\n", p->out);
	if (distinct(p, ia, na, "machine_id", &v1, &v2) + distinct(p, ib, nb, "machine_id", &w1, &w2) > 2 ||
	    (v1 && w1 && strcmp(v1, w1))) {
		html_note(p, "Not compared: the runs come from more than one machine; two machines "
			  "differ by more than A and B.");
		goto out;
	}
	if (distinct(p, ia, na, "boot_id", &v1, &v2) + distinct(p, ib, nb, "boot_id", &w1, &w2) > 2 ||
	    (v1 && w1 && strcmp(v1, w1))) {
		html_note(p, "Not compared: the runs come from different boots (%s and %s); a reboot can "
			  "make a difference of its own (hitchbench compare --cross-boot compares them "
			  "anyway).", v1, v2 ? v2 : w1);
		goto out;
	}
	for (size_t c = 0; c < p->n_cols; c++) {
		enum metric_id id = p->cols[c];
		size_t ka = values(p, ia, na, id, xa), kb = values(p, ib, nb, id, xb);
		struct stats_comparison cmp;

		if (metric_defs[id].better == BETTER_NEITHER || !ka || !kb ||
		    stats_compare(xa, ka, xb, kb, &o, &cmp) < 0)
			continue;
		if (!any)
			fputs("<div class=\"wide\"><table>\n<tr><th>metric</th><th>runs A / B</th>"
			      "<th>median A</th><th>median B</th><th>B / A</th><th>B - A, 95% interval</th>"
			      "<th>p (Mann-Whitney, KS)</th><th>thresholds low / high</th><th>verdict</th>"
			      "<th>better, or runs needed</th></tr>\n", p->out);
		any = true;
		verdict_row(p, id, &cmp);
	}
	if (any)
		fputs("</table></div>\n", p->out);
	else
		html_note(p, "No metric of the table has values on both sides.");
out:
	free(xa);
	free(xb);
}

void html_verdicts(struct html_page *p)
{
	const struct stats_compare_opts o = STATS_COMPARE_DEFAULT;
	size_t *ia = zalloc((p->n + 1) * sizeof(*ia)), *ib = zalloc((p->n + 1) * sizeof(*ib));
	size_t pairs = 0;

	html_section(p, "verdicts", "Verdicts between groups");
	fprintf(p->out, "<p>Every two groups of a game, on each metric of the table that has a better "
		"direction, as <code>hitchbench compare GAME A B --metric M</code> decides "
		"(docs/metrics.md, \"Comparing runs\"): p is the smaller of the two-sided "
		"Mann-Whitney and Kolmogorov-Smirnov p-values over the groups' counted runs; "
		"DIFFERENT when p &lt;= %g, SAME when p is over the high threshold (the p-value 99%% "
		"of samples of this size %.2f interquartile ranges apart stay under: %u simulations), "
		"UNKNOWN in between. The interval is a %.0f%% percentile bootstrap of the difference "
		"of the medians (%u resamples). Each line is one test: over many metrics one can be "
		"DIFFERENT by chance (<code>hitchbench calibrate</code> measures how often on this "
		"machine).</p>\n", STATS_LOW_THRESHOLD, o.magnitude, o.simulations,
		o.bootstrap.confidence * 100, o.bootstrap.resamples);
	for (size_t a = 0; a < p->n_grp; a++)
		for (size_t b = a + 1; b < p->n_grp; b++) {
			const struct report_group *ga = &p->grp[a], *gb = &p->grp[b];

			if (!ga->game || !gb->game || strcmp(ga->game, gb->game) || !ga->s.n || !gb->s.n ||
			    !ga->run_name || !gb->run_name)
				continue;
			compare_groups(p, ga, gb, ia, ib);
			pairs++;
		}
	if (!pairs)
		html_note(p, "No game has two groups with counted runs: nothing to compare.");
	for (size_t i = 0; i < p->o->n_paired; i++) {
		fputs("<h3>", p->out);
		html_escape(p->out, p->o->paired[i].title);
		fputs("</h3>\n<p>Each round's two runs as a pair, ln(B/A) of the metric, a sequential "
		      "probability ratio test over the pairs in round order (docs/metrics.md, \"A paired "
		      "A/B that stops when it knows\"): what <code>hitchbench compare --paired</code> "
		      "prints.</p>\n<pre>", p->out);
		html_escape(p->out, p->o->paired[i].text);
		fputs("</pre>\n", p->out);
	}
	fputs("</section>\n", p->out);
	free(ia);
	free(ib);
}
