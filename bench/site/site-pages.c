/*
 * The site's pages made from the model alone: the trend of each game's run
 * name and metric (with the change points it finds or keeps), each
 * machine's page, and the index. Each is made in memory and written only
 * when it differs from the previous build's (site_put_page()).
 */
#include "site/site-internal.h"
#include "db/resultsdb-query.h"
#include "report/report-html.h"
#include "stats/stats.h"
#include "base/hash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Newest batches on the index. */
#define INDEX_BATCHES 25

static FILE *page_open(char **text, size_t *len, struct strbuf *err)
{
	FILE *f = open_memstream(text, len);

	if (!f)
		strbuf_addf(err, "cannot make a page in memory: %s", strerror(errno));
	return f;
}

/* The page made in f (open_memstream()'s, into *text and *len), kept. */
static int page_close(struct site_build *b, FILE *f, const char *path, const char *fingerprint, char **text,
		      size_t *len, struct strbuf *err)
{
	int r;

	if (fclose(f) != 0) {
		strbuf_addf(err, "cannot make the page '%s' in memory", path);
		free(*text);
		return -EIO;
	}
	if (fingerprint)
		r = site_put_page_fp(b, path, fingerprint, *text, *len, err);
	else
		r = site_put_page(b, path, *text, *len, err);
	free(*text);
	return r;
}

static int metric_decimals(const char *name)
{
	int id = metric_lookup(name);

	return id < 0 ? 2 : metric_defs[id].decimals + 1;
}

/* "-6.1% [-7.0, -5.2]" */
static void change_size(FILE *f, const struct site_change *c)
{
	if (!isfinite(c->percent)) {
		fputs("from 0", f);
		return;
	}
	fprintf(f, "%+.1f%%", c->percent);
	if (isfinite(c->lo) && isfinite(c->hi))
		fprintf(f, " [%+.1f, %+.1f]", c->lo, c->hi);
}

/* Whether the change is for the better, by the metric's direction. */
static const char *change_class(const struct site_change *c)
{
	int id = metric_lookup(c->metric);

	if (id < 0 || !isfinite(c->percent) || metric_defs[id].better == BETTER_NEITHER)
		return "";
	return (c->percent > 0) == (metric_defs[id].better == BETTER_HIGHER) ? "better" : "worse";
}

/* "GAME RUN_NAME METRIC" of a change, its size classed as better or worse. */
static void change_what(FILE *f, const struct site_change *c, const char *between)
{
	html_escape(f, c->game);
	fputs(" ", f);
	html_escape(f, c->run_name);
	fputs(" ", f);
	html_escape(f, c->metric);
	fprintf(f, "%s<span class=\"%s\">", between, change_class(c));
	change_size(f, c);
	fputs("</span>", f);
}

/* One change as a table row: found, what, size, kernels, machine, p. */
static void change_row(FILE *f, const struct site_change *c, const char *root)
{
	fputs("<tr><td class=\"nowrap\">", f);
	html_escape(f, c->found_utc);
	fprintf(f, "</td><td><a href=\"%s", root);
	html_escape(f, c->page);          /* a change kept may come from site.state */
	fputs("\">", f);
	change_what(f, c, "</a></td><td class=\"num\">");
	fputs("</td><td class=\"num\">", f);
	site_html_number(f, c->before, metric_decimals(c->metric));
	fputs(" &rarr; ", f);
	site_html_number(f, c->after, metric_decimals(c->metric));
	fputs("</td><td>between ", f);
	html_escape(f, c->kernel_before);
	fprintf(f, " and <a href=\"%s", root);
	html_escape(f, c->batch_after);
	fputs("\">", f);
	html_escape(f, c->kernel_after);
	fputs("</a></td><td>", f);
	html_escape(f, c->label);
	fprintf(f, "</td><td class=\"num\">%.3g</td></tr>\n", c->p);
}

static void change_table_head(FILE *f)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>found</th><th>game, run name, metric</th><th>size [95% "
	      "interval]</th><th>median before &rarr; after</th><th>kernels either side</th><th>machine</th>"
	      "<th>p</th></tr>\n", f);
}

static const char change_definitions[] =
	"<ul class=\"notes\">\n"
	"<li>A point: one batch's median of the metric over its runs of the run name that count (status ok, "
	"not marked invalid), as stored by <code>hitchbench db import</code>; its bar spans their min to "
	"max. Runs of no batch make one point per machine and kernel. Points in kernel version order, then "
	"start time.</li>\n"
	"<li>Change points: E-divisive (Matteson and James 2014, as <code>hitchbench regress</code>: "
	"exponent 1, minimum segment 2, 199 permutations, significant at p &le; 0.05) over the points' "
	"medians of one machine, splitting only between kernels (at most the newest 2000 points).</li>\n"
	"<li>Size: the median of the points from the change to the next minus the median from the previous "
	"one to it, in % of the latter; its interval: the 95% percentile bootstrap (2000 resamples) of that "
	"difference. Red: worse by the metric's direction; green: better.</li>\n"
	"<li>Found: the build of this site that first found it.</li>\n</ul>\n";

/* The changes of the series s (of page), among all. */
static size_t series_changes(const struct site_change *all, size_t n, const char *page, const char *machine,
			     struct site_change *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].page, page) && !strcmp(all[i].machine, machine))
			out[k++] = all[i];
	return k;
}

/* What a trend page is made from, hashed: its series' points. */
static void trend_fingerprint(const struct site_build *b, const struct site_series *s,
			      struct site_point_stats *const *ps, size_t n, size_t v, char out[HB_SHA256_HEX_LEN + 1])
{
	struct strbuf t = STRBUF_INIT;
	char num[3][64];

	strbuf_addf(&t, "trend\n%s\n%llu\n%s\n", b->o->generator, (unsigned long long)b->o->seed,
		    b->m.metric_names[v]);
	for (size_t k = 0; k < n; k++) {
		const struct site_machine *mach = site_model_machine(&b->m, s[k].machine);

		strbuf_addf(&t, "series %s\n%s\n%s\n%zu\n", s[k].machine, mach ? mach->label : "-",
			    mach ? mach->href_from_root : "-", s[k].without_kernel);
		for (size_t i = 0; i < s[k].n_points; i++) {
			format_double_exact(num[0], sizeof(num[0]), ps[k][i].median);
			format_double_exact(num[1], sizeof(num[1]), ps[k][i].min);
			format_double_exact(num[2], sizeof(num[2]), ps[k][i].max);
			strbuf_addf(&t, "%s\n%s\n%s\n%s %s %s %zu\n", s[k].points[i].href_from_root,
				    s[k].points[i].kernel, s[k].points[i].batch ? s[k].points[i].batch : "-",
				    num[0], num[1], num[2], ps[k][i].n);
		}
	}
	sha256_hex(t.buf, t.len, out);
	strbuf_release(&t);
}

/* The kernels of a series, each with its points' median. */
static void kernel_table(FILE *f, const struct site_model *m, const struct site_series *s,
			 const struct site_point_stats *ps, size_t v)
{
	const int d = metric_decimals(m->metric_names[v]);

	fputs("<details><summary>The kernels in numbers</summary>\n<table>\n<tr><th>kernel</th><th>batches"
	      "</th><th>runs</th><th>median of the batch medians</th></tr>\n", f);
	for (size_t i = 0; i < s->n_points;) {
		size_t j = i, runs = 0, n = 0;
		double *x = zalloc(sizeof(*x) * (s->n_points + 1));

		for (; j < s->n_points && !strcmp(s->points[j].kernel, s->points[i].kernel); j++) {
			runs += ps[j].n;
			if (ps[j].n)
				x[n++] = ps[j].median;
		}
		fputs("<tr><td>", f);
		html_escape(f, s->points[i].kernel);
		fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">", j - i, runs);
		site_html_number(f, n ? stats_median(x, n) : NAN, d);
		fputs("</td></tr>\n", f);
		free(x);
		i = j;
	}
	fputs("</table>\n</details>\n", f);
}

/* The machines' places where they are shown (by label). */
static size_t machine_shown(const struct site_model *m, const char *key)
{
	const struct site_machine *mach = site_model_machine(m, key);

	return mach ? mach->shown : m->n_machines;
}

/* The indexes of s[0..n) in the order their machines are shown. */
static size_t *series_shown(const struct site_model *m, const struct site_series *s, size_t n)
{
	size_t *order = zalloc(sizeof(*order) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j > 0 && machine_shown(m, s[order[j - 1]].machine) > machine_shown(m, s[i].machine); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return order;
}

static int trend_page(struct site_build *b, const struct site_series *s, struct site_point_stats *const *ps,
		      size_t n, size_t v, struct site_change *changes, size_t n_changes, const char *path,
		      const char *fp, struct strbuf *err)
{
	const char *metric = b->m.metric_names[v], *root = site_root(3);
	struct site_change *mine = zalloc(sizeof(*mine) * (n_changes + 1));
	char *title = xasprintf("%s %s: %s across kernels", s->game, s->run_name, metric), *text = NULL;
	int id = metric_lookup(metric);
	size_t len = 0, *order = series_shown(&b->m, s, n);
	FILE *f = page_open(&text, &len, err);

	if (!f) {
		free(mine);
		free(title);
		free(order);
		return -ENOMEM;
	}
	site_html_head(f, title, root, b->o);
	fputs("<p>", f);
	html_escape(f, metric);
	fputs(": ", f);
	html_escape(f, id >= 0 ? metric_defs[id].definition : "-");
	fputs(". One panel per machine: a kernel's effect is tracked on one machine at a time (two machines "
	      "differ by more than their kernels). Each point links to its batch.</p>\n", f);
	fputs(change_definitions, f);
	for (size_t i = 0; i < n; i++) {
		const size_t k = order[i];
		const struct site_machine *mach = site_model_machine(&b->m, s[k].machine);

		size_t nm = series_changes(changes, n_changes, path, s[k].machine, mine);

		fprintf(f, "<h2 id=\"m%zu\">On <a href=\"%s%s\">", k, root, mach ? mach->href_from_root : "index.html");
		html_escape(f, mach ? mach->label : s[k].machine);
		fprintf(f, "</a>: %zu point%s</h2>\n", s[k].n_points, s[k].n_points == 1 ? "" : "s");
		if (s[k].n_points)
			site_svg_trend(f, &b->m, &s[k], ps[k], v, mine, nm, root);
		if (s[k].without_kernel)
			fprintf(f, "<p class=\"note\">%zu run%s that count%s not placed: %s no kernel release or "
				   "no batch page.</p>\n", s[k].without_kernel, s[k].without_kernel == 1 ? "" : "s",
				s[k].without_kernel == 1 ? "s is" : " are", s[k].without_kernel == 1 ? "it has" : "they have");
		if (nm) {
			change_table_head(f);
			for (size_t c = 0; c < nm; c++)
				change_row(f, &mine[c], root);
			fputs("</table></div>\n", f);
		} else if (s[k].n_points) {
			fputs("<p>No change point.</p>\n", f);
		}
		if (s[k].n_points)
			kernel_table(f, &b->m, &s[k], ps[k], v);
	}
	site_html_foot(f, b->o);
	free(mine);
	free(title);
	free(order);
	return page_close(b, f, path, fp, &text, &len, err);
}

static bool same_change(const struct site_change *a, const struct site_change *b)
{
	return !strcmp(a->page, b->page) && !strcmp(a->machine, b->machine) &&
	       !strcmp(a->kernel_before, b->kernel_before) && !strcmp(a->kernel_after, b->kernel_after);
}

static void change_copy(struct site_change *to, const struct site_change *c)
{
	*to = *c;
	to->page = xstrdup(c->page), to->machine = xstrdup(c->machine), to->label = xstrdup(c->label);
	to->game = xstrdup(c->game), to->run_name = xstrdup(c->run_name), to->metric = xstrdup(c->metric);
	to->kernel_before = xstrdup(c->kernel_before), to->kernel_after = xstrdup(c->kernel_after);
	to->batch_after = xstrdup(c->batch_after), to->found_utc = xstrdup(c->found_utc);
	to->is_new = false;
}

/* One page's changes: kept from the previous build when its points are
 * the same, else found again (a change the previous build knew keeps the
 * time it was found). */
static int page_changes(struct site_build *b, const struct site_series *s, struct site_point_stats *const *ps,
			size_t n, size_t v, const char *path, bool fresh, struct site_change **all, size_t *n_all)
{
	size_t from = *n_all;
	int r = 0;

	if (fresh) {
		for (size_t i = 0; i < b->old.n_changes; i++)
			if (!strcmp(b->old.changes[i].page, path)) {
				*all = xrealloc(*all, (*n_all + 1) * sizeof(**all));
				change_copy(&(*all)[(*n_all)++], &b->old.changes[i]);
			}
		return 0;
	}
	for (size_t k = 0; r == 0 && k < n; k++)
		r = site_series_changes(&b->m, &s[k], ps[k], v, path, all, n_all);
	for (size_t i = from; i < *n_all; i++) {
		struct site_change *c = &(*all)[i];

		for (size_t k = 0; k < b->old.n_changes && !c->found_utc; k++)
			if (same_change(c, &b->old.changes[k]))
				c->found_utc = xstrdup(b->old.changes[k].found_utc);
		if (!c->found_utc) {
			c->found_utc = xstrdup(b->o->now_utc);
			c->is_new = true;
		}
	}
	return r;
}

int site_write_trends(struct site_build *b, struct site_change **changes, size_t *n_changes,
		      struct strbuf *err)
{
	const struct site_model *m = &b->m;
	int r = 0;

	for (size_t i = 0; r == 0 && i < m->n_series;) {
		size_t j = i;

		while (j < m->n_series && !strcmp(m->series[j].game, m->series[i].game) &&
		       !strcmp(m->series[j].run_name, m->series[i].run_name))
			j++;
		for (size_t v = 0; r == 0 && v < b->o->n_metrics; v++) {
			char *path = site_trend_href(m->series[i].game, m->series[i].run_name, m->metric_names[v]);
			struct site_point_stats **ps = zalloc(sizeof(*ps) * (j - i));
			char fp[HB_SHA256_HEX_LEN + 1];
			bool fresh;
			size_t from = *n_changes;

			for (size_t k = i; k < j; k++)
				ps[k - i] = site_series_stats(m, &m->series[k], v);
			trend_fingerprint(b, &m->series[i], ps, j - i, v, fp);
			fresh = site_page_fresh(b, path, fp);
			r = page_changes(b, &m->series[i], ps, j - i, v, path, fresh, changes, n_changes);
			if (r < 0)
				strbuf_addf(err, "cannot look for change points of %s: %s", path, strerror(-r));
			else if (!fresh)
				r = trend_page(b, &m->series[i], ps, j - i, v, *changes + from, *n_changes - from, path,
					       fp, err);
			for (size_t k = 0; k < j - i; k++)
				free(ps[k]);
			free(ps);
			free(path);
		}
		i = j;
	}
	return r;
}

static int cmp_change_found(const void *x, const void *y)
{
	const struct site_change *a = x, *b = y;
	int c = strcmp(b->found_utc, a->found_utc);      /* newest found first */

	if (!c)
		c = strcmp(a->page, b->page);
	if (!c)
		c = strcmp(a->machine, b->machine);
	return c ? c : stats_version_cmp(a->kernel_after, b->kernel_after);
}

static int cmp_batch_newest(const void *x, const void *y)
{
	const struct site_batch *a = *(const struct site_batch *const *)x, *b = *(const struct site_batch *const *)y;
	int c;

	if (!a->started || !b->started)
		c = !!b->started - !!a->started;
	else
		c = strcmp(b->started, a->started);
	return c ? c : strcmp(a->href_from_root, b->href_from_root);
}

/* The batches of a machine (NULL: of no machine known), newest first. */
static size_t batches_of(const struct site_model *m, const char *machine, const struct site_batch **out)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_batches; i++) {
		const char *bm = m->batches[i].machine;

		if (machine ? bm && !strcmp(bm, machine) : !bm || !site_model_machine(m, bm))
			out[n++] = &m->batches[i];
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_batch_newest);
	return n;
}

static void batch_table(FILE *f, const struct site_model *m, const struct site_batch **bs, size_t n,
			const char *root, bool with_machine)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>started</th><th>batch</th><th>game</th>", f);
	if (with_machine)
		fputs("<th>machine</th>", f);
	fputs("<th>kernel</th><th>status</th><th>runs</th><th>counted</th><th>A/B</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct site_batch *b = bs[i];
		const struct site_machine *mach = b->machine ? site_model_machine(m, b->machine) : NULL;
		size_t counted = 0;

		for (size_t k = 0; k < b->n_runs; k++)
			counted += m->runs[b->runs[k]].counts;
		fputs("<tr><td class=\"nowrap\">", f);
		html_escape(f, b->started);
		fprintf(f, "</td><td><a href=\"%s%s\">", root, b->href_from_root);
		if (b->b)
			html_escape(f, b->b->uuid);
		else
			fputs("runs of no batch", f);
		fputs("</a></td><td>", f);
		html_escape(f, b->b ? b->b->game : (b->n_runs ? m->runs[b->runs[0]].game : NULL));
		if (with_machine) {
			fputs("</td><td>", f);
			if (mach) {
				fprintf(f, "<a href=\"%s%s\">", root, mach->href_from_root);
				html_escape(f, mach->label);
				fputs("</a>", f);
			} else {
				html_escape(f, b->machine);
			}
		}
		fputs("</td><td>", f);
		html_escape(f, b->kernel);
		fputs("</td><td>", f);
		html_escape(f, b->b ? (b->b->status ? b->b->status : "running") : "-");
		fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td>", b->n_runs, counted);
		if (b->ab_href_from_root)
			fprintf(f, "<a href=\"%s%s\">verdict</a>", root, b->ab_href_from_root);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* The game's run names, each with its trend pages. */
static void games_list(FILE *f, const struct site_model *m, const char *machine, const char *root)
{
	const char *game = NULL, *name = NULL;

	fputs("<div class=\"wide\"><table>\n<tr><th>game</th><th>run name</th><th>points</th><th>trends</th>"
	      "</tr>\n", f);
	for (size_t i = 0; i < m->n_series; i++) {
		const struct site_series *s = &m->series[i];
		size_t points = 0;

		if (machine && strcmp(s->machine, machine))
			continue;
		if (!machine && name && game && !strcmp(s->game, game) && !strcmp(s->run_name, name))
			continue;       /* the index: one row per run name */
		for (size_t k = i; k < m->n_series && !strcmp(m->series[k].game, s->game) &&
				   !strcmp(m->series[k].run_name, s->run_name); k++)
			if (!machine || !strcmp(m->series[k].machine, machine))
				points += m->series[k].n_points;
		game = s->game, name = s->run_name;
		fputs("<tr><td>", f);
		html_escape(f, s->game);
		fputs("</td><td>", f);
		html_escape(f, s->run_name);
		fprintf(f, "</td><td class=\"num\">%zu</td><td>", points);
		for (size_t v = 0; v < m->o->n_metrics; v++) {
			char *href = site_trend_href(s->game, s->run_name, m->metric_names[v]);

			fprintf(f, "%s<a href=\"%s%s\">", v ? " &middot; " : "", root, href);
			html_escape(f, m->metric_names[v]);
			fputs("</a>", f);
			free(href);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* The index's change points: those the newest build that found any
 * found, as sentences, then all of them (sorted: newest found first). */
static void index_changes(FILE *f, const struct site_change *sorted, size_t n_changes)
{
	const char *newest_found = n_changes ? sorted[0].found_utc : NULL;
	size_t n_new = 0;

	for (size_t i = 0; i < n_changes && !strcmp(sorted[i].found_utc, newest_found); i++)
		n_new++;
	fputs("<h2 id=\"changes\">Change points</h2>\n", f);
	if (n_changes) {
		fputs("<h3>Found by the newest build that found any (", f);
		html_escape(f, newest_found);
		fprintf(f, "): %zu</h3>\n<ul>\n", n_new);
		for (size_t i = 0; i < n_new; i++) {
			const struct site_change *c = &sorted[i];

			fputs("<li><a href=\"", f);
			html_escape(f, c->page);
			fputs("\">", f);
			change_what(f, c, " ");
			fputs(" between ", f);
			html_escape(f, c->kernel_before);
			fputs(" and ", f);
			html_escape(f, c->kernel_after);
			fputs(" on ", f);
			html_escape(f, c->label);
			fputs("</a></li>\n", f);
		}
		fputs("</ul>\n<h3>Every change point, newest found first</h3>\n", f);
		change_table_head(f);
		for (size_t i = 0; i < n_changes; i++)
			change_row(f, &sorted[i], "");
		fputs("</table></div>\n", f);
	} else {
		fputs("<p>None: no trend has a change point.</p>\n", f);
	}
}

int site_write_index(struct site_build *b, const struct site_change *changes, size_t n_changes,
		     struct strbuf *err)
{
	const struct site_model *m = &b->m;
	const struct site_batch **bs = zalloc(sizeof(*bs) * (m->n_batches + 1));
	struct site_change *sorted = zalloc(sizeof(*sorted) * (n_changes + 1));
	size_t counted = 0, n_b, len = 0;
	char *text = NULL;
	FILE *f = page_open(&text, &len, err);

	if (!f) {
		free(bs);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n_runs; i++)
		counted += m->runs[i].counts;
	if (n_changes) {
		memcpy(sorted, changes, n_changes * sizeof(*changes));
		qsort(sorted, n_changes, sizeof(*sorted), cmp_change_found);
	}
	site_html_head(f, "hitchbench lab", "", b->o);
	fprintf(f, "<p>%zu runs (%zu of them count: status ok, not marked invalid) in %zu batches on %zu "
		   "machine%s, from the results database <code>", m->n_runs, counted, m->n_db_batches,
		m->n_machines, m->n_machines == 1 ? "" : "s");
	html_escape(f, resultsdb_name(b->db));
	fputs("</code>.</p>\n<nav><a href=\"#changes\">change points</a><a href=\"#machines\">machines</a>"
	      "<a href=\"#games\">games</a><a href=\"#batches\">newest batches</a></nav>\n", f);

	index_changes(f, sorted, n_changes);
	fputs(change_definitions, f);

	fputs("<h2 id=\"machines\">Machines</h2>\n<div class=\"wide\"><table>\n<tr><th>machine</th><th>runs</th>"
	      "<th>counted</th><th>batches</th><th>kernels</th></tr>\n", f);
	for (size_t i = 0; i < m->n_machines; i++) {
		const struct site_machine *mach = m->shown[i];

		fprintf(f, "<tr><td><a href=\"%s\">", mach->href_from_root);
		html_escape(f, mach->label);
		fprintf(f, "</a></td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td>",
			mach->runs, mach->counted, mach->batches);
		if (mach->n_kernels) {
			html_escape(f, mach->kernels[0]);
			if (mach->n_kernels > 1) {
				fputs(" .. ", f);
				html_escape(f, mach->kernels[mach->n_kernels - 1]);
			}
			fprintf(f, " (%zu)", mach->n_kernels);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n<h2 id=\"games\">Games</h2>\n", f);
	games_list(f, m, NULL, "");

	for (size_t i = 0; i < m->n_batches; i++)
		bs[i] = &m->batches[i];
	n_b = m->n_batches;
	if (n_b)
		qsort(bs, n_b, sizeof(*bs), cmp_batch_newest);
	fprintf(f, "<h2 id=\"batches\">Newest batches</h2>\n<p>The %zu newest of %zu (every batch is on its "
		   "machine's page).</p>\n", n_b < INDEX_BATCHES ? n_b : INDEX_BATCHES, n_b);
	batch_table(f, m, bs, n_b < INDEX_BATCHES ? n_b : INDEX_BATCHES, "", true);
	n_b = batches_of(m, NULL, bs);
	if (n_b) {
		fputs("<h2 id=\"nomachine\">Batches of no machine known</h2>\n", f);
		batch_table(f, m, bs, n_b, "", false);
	}
	site_html_foot(f, b->o);
	free(bs);
	free(sorted);
	return page_close(b, f, "index.html", NULL, &text, &len, err);
}

/* The rows of the database's machines table that are this machine. */
static void machine_provenance(FILE *f, const struct site_model *m, const struct site_machine *mach)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>host</th><th>machine id</th><th>CPU</th><th>GPU</th>"
	      "<th>first run</th><th>last run</th><th>runs</th></tr>\n", f);
	for (size_t i = 0; i < m->n_db_machines; i++) {
		const struct resultsdb_site_machine *d = &m->db_machines[i];
		if (strcmp(resultsdb_machine_key(d->machine_id, d->host), mach->key))
			continue;
		fputs("<tr><td>", f);
		html_escape(f, d->host);
		fputs("</td><td class=\"mono\">", f);
		html_escape(f, d->machine_id);
		fputs("</td><td>", f);
		html_escape(f, d->cpu_model);
		fputs("</td><td>", f);
		html_escape(f, d->gpu);
		fputs("</td><td class=\"nowrap\">", f);
		html_escape(f, d->first_utc);
		fputs("</td><td class=\"nowrap\">", f);
		html_escape(f, d->last_utc);
		fprintf(f, "</td><td class=\"num\">%lld</td></tr>\n", (long long)d->runs);
	}
	fputs("</table></div>\n<p>A row per CPU and GPU the runs said (a changed part is a new row). Kernels "
	      "run: ", f);
	for (size_t k = 0; k < mach->n_kernels; k++) {
		if (k)
			fputs(", ", f);
		html_escape(f, mach->kernels[k]);
	}
	fputs(mach->n_kernels ? ".</p>\n" : "none said.</p>\n", f);
}

int site_write_machines(struct site_build *b, struct strbuf *err)
{
	const struct site_model *m = &b->m;
	const struct site_batch **bs = zalloc(sizeof(*bs) * (m->n_batches + 1));
	int r = 0;

	for (size_t i = 0; r == 0 && i < m->n_machines; i++) {
		const struct site_machine *mach = &m->machines[i];
		char *title = xasprintf("Machine %s", mach->label), *text = NULL;
		size_t len = 0, n;
		FILE *f = page_open(&text, &len, err);

		if (!f) {
			free(title);
			r = -ENOMEM;
			break;
		}
		site_html_head(f, title, site_root(1), b->o);
		fprintf(f, "<p>%zu runs, %zu of them counted, in %zu batches.</p>\n<h2>What it is</h2>\n", mach->runs,
			mach->counted, mach->batches);
		machine_provenance(f, m, mach);
		fputs("<h2>What it ran</h2>\n", f);
		games_list(f, m, mach->key, site_root(1));
		fputs("<h2>Its noise over time</h2>\n<p>", f);
		for (size_t k = 0; k < SITE_NOISE_METRICS; k++) {
			int id = metric_lookup(m->metric_names[m->o->n_metrics + k]);

			fputs(k ? "; " : "", f);
			html_escape(f, m->metric_names[m->o->n_metrics + k]);
			fputs(": ", f);
			html_escape(f, metric_defs[id].definition);
		}
		fputs(". A point: the median over one batch's runs that say it (counted or not: the noise is "
		      "the machine's), in start order; each links to its batch.</p>\n", f);
		site_svg_noise(f, m, mach, site_root(1));
		n = batches_of(m, mach->key, bs);
		fprintf(f, "<h2>Its batches, newest first: %zu</h2>\n", n);
		batch_table(f, m, bs, n, site_root(1), false);
		site_html_foot(f, b->o);
		r = page_close(b, f, mach->href_from_root, NULL, &text, &len, err);
		free(title);
	}
	free(bs);
	return r;
}
