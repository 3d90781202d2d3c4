/*
 * `hitchbench report --format markdown` (report.h): the table as a
 * GitHub-flavoured Markdown table to paste into an issue or a commit
 * message, the same columns and rows as the text table (report.c), then
 * the runs left out and the definitions as short lists (no definitions
 * with --no-notes).
 *
 *   | run | frames | fps | ... |
 *   | :--- | ---: | ---: | ... |
 *   | 20261130T113353Z-dsda-doom-software | 890 | 111.2 | ... |
 *   | median dsda-doom software (n=1) | 890 | 111.2 | ... |
 *
 *   Excluded from the groups:
 *   - RUN: WHY
 *
 *   Definitions:
 *   - frame time = interval between consecutive presents
 *
 * Numbers have the metric's decimals, "-" where a value is missing; '|'
 * in a cell is written "\|" and a line break as a blank, so no label
 * breaks the table.
 */
#include "report/report-internal.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for "st100.0 fg100.0 rq1000000" and more. */
#define MD_NOISE_MAX 64

static void md_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

static void md_line(FILE *out, const struct report_columns *c, const char *label,
		    const struct metrics *m, bool why)
{
	fputs("| ", out);
	md_text(out, label ? label : "-");
	for (size_t k = 0; k < c->n_col; k++) {
		enum metric_id id = c->col[k];

		if (m->have[id] && isfinite(m->v[id]))
			fprintf(out, " | %.*f", metric_defs[id].decimals, m->v[id]);
		else
			fputs(" | -", out);
	}
	if (c->noise) {
		char buf[MD_NOISE_MAX];

		metrics_noise_summary(m, buf, sizeof(buf));
		fputs(" | ", out);
		md_text(out, buf);
	}
	if (why) {
		const char *w = metrics_stall_why(m);

		fprintf(out, " | %s", w ? w : "-");
	}
	fputs(" |\n", out);
}

static void md_heading(FILE *out, const struct report_columns *c, bool why)
{
	fputs("| run", out);
	for (size_t k = 0; k < c->n_col; k++)
		fprintf(out, " | %s", metric_defs[c->col[k]].column);
	fputs(c->noise ? " | noise" : "", out);
	fputs(why ? " | why |\n| :---" : " |\n| :---", out);
	for (size_t k = 0; k < c->n_col; k++)
		fputs(" | ---:", out);
	fputs(c->noise ? " | :---" : "", out);
	fputs(why ? " | :--- |\n" : " |\n", out);
}

void report_print_markdown(FILE *out, const struct report_row *rows, size_t n,
			   const struct report_group *grp, size_t n_grp, const struct report_opts *opts)
{
	bool inc = opts->include_interfered, any = false;
	struct report_columns c;

	report_columns_choose(&c, rows, n, opts);
	md_heading(out, &c, opts->stall_why);
	for (size_t i = 0; i < n; i++)
		if (!report_row_excluded(&rows[i], inc))
			md_line(out, &c, rows[i].run, &rows[i].m, opts->stall_why);
	for (size_t g = 0; g < n_grp; g++) {
		for (int k = 0; k < 3; k++) {
			char *label = report_group_label(&grp[g], k);

			md_line(out, &c, label, report_group_stat(&grp[g], k), opts->stall_why);
			free(label);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const char *why = report_row_excluded(&rows[i], inc);

		if (!why)
			continue;
		fputs(any ? "- " : "\nExcluded from the groups:\n- ", out);
		any = true;
		md_text(out, rows[i].run ? rows[i].run : "-");
		fputs(why == rows[i].invalid ? ": invalid: " : ": ", out);
		md_text(out, why);
		fputc('\n', out);
	}
	if (opts->no_notes)
		return;
	fputs("\nDefinitions:\n", out);
	report_print_notes(out, "- ", &c, rows, n, opts);
}
