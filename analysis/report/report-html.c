/*
 * The HTML report's page (report-html.h): its head and style, the table
 * with its definitions, the provenance and noise, the runs left out; the
 * groups, runs and verdicts are report-html-runs.c's and
 * report-html-verdicts.c's, the pictures report-html-plots.c's.
 *
 * The table is the text report's: report_print() writes it into memory
 * and its header line says which columns report.c chose (the headline,
 * cpu_ms/f and noise when runs have the host's noise, the probe's, or the
 * --metric and --stalls ones), its '#' lines are the definitions shown
 * under the table, word for word. The page's cells are the rows' and
 * groups' metrics with the table's decimals.
 */
#include "report/report-html-internal.h"
#include "report/report-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void html_escape(FILE *out, const char *s)
{
	if (!s)
		s = "-";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\'')
			fputs("&#39;", out);
		else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			fputs("\xef\xbf\xbd", out);
		else
			fputc(c, out);
	}
}

void html_escapef(FILE *out, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	html_escape(out, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
}

/* A paragraph of class cls: a problem is added to the page's list too. */
static void html_para_v(struct html_page *p, const char *cls, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	fprintf(p->out, "<p class=\"%s\">", cls);
	html_escape(p->out, sb.buf);
	fputs("</p>\n", p->out);
	if (!strcmp(cls, "problem")) {
		strbuf_addf(p->problems, "%s\n", sb.buf);
		(*p->n_problems)++;
	}
	strbuf_release(&sb);
}

void html_problem(struct html_page *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	html_para_v(p, "problem", fmt, ap);
	va_end(ap);
}

void html_note(struct html_page *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	html_para_v(p, "note", fmt, ap);
	va_end(ap);
}

void html_section(struct html_page *p, const char *id, const char *heading)
{
	fprintf(p->out, "<section id=\"%s\">\n<h2>", id);
	html_escape(p->out, heading);
	fputs("</h2>\n", p->out);
}

void html_metric(FILE *out, const struct metrics *m, enum metric_id id)
{
	if (m->have[id])
		fprintf(out, "%.*f", metric_defs[id].decimals, m->v[id]);
	else
		fputc('-', out);
}

size_t html_group_runs(const struct html_page *p, const struct report_group *g, size_t *idx)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct report_row *r = &p->rows[i];

		if (report_row_excluded(r, p->ro->include_interfered) || !r->game || !r->run_name ||
		    !g->game || !g->run_name || strcmp(r->game, g->game) || strcmp(r->run_name, g->run_name))
			continue;
		idx[k++] = i;
	}
	return k;
}

/* Copies [s, s + len) with each id and reference to one prefixed: in
 * tags only (text has its '<' as "&lt;"), not in what a label says. */
static void svg_prefix_ids(struct strbuf *sb, const char *s, size_t len, const char *prefix)
{
	static const char *const marks[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	bool in_tag = false;
	size_t i = 0;

	while (i < len) {
		size_t k = ARRAY_SIZE(marks), m = 0;

		if (s[i] == '<' || s[i] == '>')
			in_tag = s[i] == '<';
		for (k = in_tag ? 0 : ARRAY_SIZE(marks); k < ARRAY_SIZE(marks); k++) {
			m = strlen(marks[k]);
			/* an attribute: "id=" after a blank or a ':' (xlink:href) */
			if (i + m <= len && !strncmp(s + i, marks[k], m) &&
			    (k == 4 || (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\n' || s[i - 1] == '\t' ||
						  s[i - 1] == ':'))))
				break;
		}
		if (k == ARRAY_SIZE(marks)) {
			strbuf_addch(sb, s[i++]);
			continue;
		}
		strbuf_add(sb, s + i, m);
		strbuf_addstr(sb, prefix);
		i += m;
	}
}

char *html_svg_inline(const char *svg, const char *prefix)
{
	const char *start = strstr(svg, "<svg"), *end;
	struct strbuf sb = STRBUF_INIT;

	if (!start || !(end = strstr(start, "</svg>")))
		return NULL;
	/* the last one closes the document */
	for (const char *q = end; (q = strstr(q + 1, "</svg>"));)
		end = q;
	end += strlen("</svg>");
	svg_prefix_ids(&sb, start, (size_t)(end - start), prefix);
	return strbuf_detach(&sb);
}

const char report_html_style[] =
	"body{font:15px/1.45 sans-serif;margin:0 auto;max-width:1240px;padding:0 16px 48px;"
	"color:#1a1a1a;background:#fff}\n"
	"h1{font-size:1.6em;margin:.8em 0 .2em}h2{border-bottom:2px solid #ccd;padding-bottom:.15em;"
	"margin-top:1.8em}h3{margin:1.4em 0 .4em}\n"
	"nav{margin:.6em 0;font-size:.95em}nav a{margin-right:1em}\n"
	".cmd{font-family:monospace;background:#f3f3f6;padding:.3em .5em;border-radius:3px;"
	"overflow-wrap:anywhere}\n"
	".wide{overflow-x:auto;max-width:100%}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.92em}\n"
	"th,td{border:1px solid #d4d4dc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"th{background:#eef0f6;position:sticky;top:0}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"tr.grp td{background:#f7f7ee}tr.median td{font-weight:bold}\n"
	"td.nowrap{white-space:nowrap}td.mono,code{font-family:monospace;font-size:.95em;overflow-wrap:anywhere}\n"
	".notes{font-size:.88em;color:#333;padding-left:1.2em}.notes li{margin:.15em 0}\n"
	"figure{margin:1em 0;border:1px solid #e0e0e8;padding:6px;background:#fff;max-width:1040px}\n"
	"figure svg{width:100%;height:auto;display:block}\n"
	"figcaption{font-size:.88em;color:#333;margin-top:.3em}\n"
	".problem{color:#8a1010;background:#fdecec;padding:.3em .5em;border-left:4px solid #c33}\n"
	".note{color:#444;background:#f3f3f6;padding:.3em .5em;border-left:4px solid #99a}\n"
	".v-SAME{color:#17602a;font-weight:bold}.v-DIFFERENT{color:#9a1c1c;font-weight:bold}\n"
	".v-UNKNOWN{color:#7a5a00;font-weight:bold}\n"
	"details{margin:.3em 0}summary{cursor:pointer}\n"
	"ul.waits{margin:0;padding-left:2em;font-family:monospace;font-size:.95em}\n"
	"pre{background:#f6f6f9;padding:.5em;overflow-x:auto;font-size:.88em}\n";

/* The text table's header ("run  frames  fps ... noise  why"): which
 * columns report.c chose. */
static void table_columns(struct html_page *p, char *header)
{
	char *save = NULL, *tok = strtok_r(header, " ", &save);

	for (tok = strtok_r(NULL, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "noise")) {
			p->noise_col = true;
			continue;
		}
		if (!strcmp(tok, "why")) {
			p->why_col = true;
			continue;
		}
		for (int id = 0; id < M_COUNT; id++)
			if (!strcmp(metric_defs[id].column, tok)) {
				p->cols[p->n_cols++] = (enum metric_id)id;
				break;
			}
	}
}

static void table_row(struct html_page *p, const char *cls, const char *label, const char *href,
		      const struct metrics *m)
{
	char noise[64];

	fprintf(p->out, "<tr%s%s%s><td>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	if (href)
		fprintf(p->out, "<a href=\"#%s\">", href);
	html_escape(p->out, label);
	fputs(href ? "</a></td>" : "</td>", p->out);
	for (size_t c = 0; c < p->n_cols; c++) {
		fputs("<td class=\"num\">", p->out);
		html_metric(p->out, m, p->cols[c]);
		fputs("</td>", p->out);
	}
	if (p->noise_col) {
		metrics_noise_summary(m, noise, sizeof(noise));
		fprintf(p->out, "<td class=\"mono\">%s</td>", noise);
	}
	if (p->why_col) {
		const char *w = metrics_stall_why(m);

		fprintf(p->out, "<td>%s</td>", w ? w : "-");
	}
	fputs("</tr>\n", p->out);
}

static void table_head(struct html_page *p)
{
	fputs("<div class=\"wide\"><table>\n<tr><th>run</th>", p->out);
	for (size_t c = 0; c < p->n_cols; c++) {
		fputs("<th title=\"", p->out);
		html_escape(p->out, metric_defs[p->cols[c]].definition);
		fprintf(p->out, "\">%s</th>", metric_defs[p->cols[c]].column);
	}
	fprintf(p->out, "%s%s</tr>\n", p->noise_col ? "<th>noise</th>" : "",
		p->why_col ? "<th>why</th>" : "");
}

/* The table: the counted runs, the groups, then the '#' lines. */
static int html_table(struct html_page *p, char *text)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);

	if (!line)
		return -EINVAL;
	table_columns(p, line);
	html_section(p, "table", "The numbers");
	table_head(p);
	for (size_t i = 0; i < p->n; i++) {
		char href[32];

		if (report_row_excluded(&p->rows[i], p->ro->include_interfered))
			continue;
		snprintf(href, sizeof(href), "run-%zu", i);
		table_row(p, NULL, p->rows[i].run, href, &p->rows[i].m);
	}
	for (size_t g = 0; g < p->n_grp; g++) {
		const struct report_group *gr = &p->grp[g];
		char href[32];

		snprintf(href, sizeof(href), "group-%zu", g);
		for (int k = 0; k < 3; k++) {
			char *label = k ? xasprintf("%s %s %s", report_stat_name[k], gr->game ? gr->game : "-",
						    gr->run_name ? gr->run_name : "-")
					: xasprintf("median %s %s (n=%zu)", gr->game ? gr->game : "-",
						    gr->run_name ? gr->run_name : "-", gr->s.n);

			table_row(p, k ? "grp" : "grp median", label, k ? NULL : href,
				  report_group_stat(gr, k));
			free(label);
		}
	}
	fputs("</table></div>\n<p>Runs left out of the groups are <a href=\"#excluded\">listed "
	      "below</a> with why. How each number is computed (the text report's notes; "
	      "docs/metrics.md):</p>\n<ul class=\"notes\">\n", p->out);
	for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# ", 2))
			continue;
		fputs("<li>", p->out);
		html_escape(p->out, line + 2);
		fputs("</li>\n", p->out);
	}
	fputs("</ul>\n</section>\n", p->out);
	return 0;
}

/* What the page is about, under its title. */
static void html_summary(struct html_page *p)
{
	size_t counted = 0;

	for (size_t i = 0; i < p->n; i++)
		counted += !report_row_excluded(&p->rows[i], p->ro->include_interfered);
	if (p->o->command) {
		fputs("<p class=\"cmd\">", p->out);
		html_escape(p->out, p->o->command);
		fputs("</p>\n", p->out);
	}
	fprintf(p->out, "<p>%zu runs, %zu counted, in %zu groups (game and run name). Every number "
		"is computed afresh from the runs' frames unless the runs come from a results "
		"database; how each is computed is said under the table.</p>\n", p->n, counted,
		p->n_grp);
	fputs("<nav><a href=\"#table\">numbers</a><a href=\"#verdicts\">verdicts</a>"
	      "<a href=\"#excluded\">interference and invalid runs</a><a href=\"#provenance\">"
	      "provenance and noise</a><a href=\"#groups\">groups</a><a href=\"#runs\">runs</a>"
	      "</nav>\n", p->out);
}

/* The text report (table and notes) in memory. */
static int text_table(const struct html_page *p, char **text)
{
	struct report_opts ro = *p->ro;
	size_t len;
	FILE *mem = open_memstream(text, &len);
	int r;

	if (!mem)
		return -errno;
	ro.format = REPORT_TABLE;
	r = report_print(mem, p->rows, p->n, &ro);
	if (fclose(mem) != 0 && r == 0)
		r = -errno;
	return r;
}

static int make_workdir(const char *tmpdir, char **out)
{
	const char *env = getenv("TMPDIR");
	char *dir = xasprintf("%s/hitchbench-html-XXXXXX", tmpdir ? tmpdir : env && *env ? env : "/tmp");

	if (!mkdtemp(dir)) {
		int e = errno;

		free(dir);
		return -e;
	}
	*out = dir;
	return 0;
}

int report_html_write(FILE *out, const struct report_row *rows, size_t n,
		      const struct report_html_opts *opts, struct strbuf *problems,
		      size_t *n_problems)
{
	struct html_page p = { .out = out, .rows = rows, .n = n, .o = opts, .ro = opts->report,
			       .problems = problems, .n_problems = n_problems };
	char *text = NULL;
	int r;

	*n_problems = 0;
	r = text_table(&p, &text);
	if (r == 0)
		r = make_workdir(opts->tmpdir, &p.workdir);
	if (r < 0)
		goto out;
	p.n_grp = report_groups(rows, n, p.ro->include_interfered, &p.grp);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>hitchbench report</title>\n<style>\n", out);
	fputs(report_html_style, out);
	fputs("</style>\n</head>\n<body>\n", out);
	if (opts->back_href) {
		fputs("<nav><a href=\"", out);
		html_escape(out, opts->back_href);
		fputs("\">", out);
		html_escape(out, opts->back_text ? opts->back_text : "back");
		fputs("</a></nav>\n", out);
	}
	fputs("<h1>hitchbench report</h1>\n", out);
	html_summary(&p);
	r = html_table(&p, text);
	if (r == 0) {
		html_verdicts(&p);
		html_excluded(&p);
		html_provenance(&p);
		html_groups(&p);
		html_runs(&p);
		fputs("</body>\n</html>\n", out);
	}
	remove_tree(p.workdir);
	free(p.grp);
out:
	free(p.workdir);
	free(text);
	if (r == 0 && fflush(out) != 0)
		r = errno ? -errno : -EIO;
	if (r == 0 && ferror(out))
		r = -EIO;
	return r;
}
