/*
 * Printing runs and their medians as a table (for people), CSV (for
 * spreadsheets) or JSON (for programs), from one list of rows, so the three
 * always show the same numbers. Called by the runner's report command after
 * it has loaded the runs and computed their metrics.
 *
 * Shared by all three forms:
 *  - a row whose status is not "ok" shows no numbers, even if the caller
 *    left some set: a failed run is not evidence;
 *  - after the runs, one median row per (game, variant), in order of first
 *    appearance, over that pair's "ok" rows (n may be 0: no numbers then).
 *
 * Table: the run column is as wide as the longest label, every number
 * column as wide as its heading or widest value, numbers right-aligned with
 * the metric's decimals, "-" where a value is missing; a failed run's status
 * follows its row. '#' lines at the end say how the numbers were computed.
 *
 * CSV (RFC 4180 quoting; lines end in "\n", not CRLF):
 *   run,game,variant,status,n,frames,window_s,...,low01
 * a run row has its run directory's name and status and an empty n; a
 * median row has run "median", an empty status and n, the number of runs it
 * is the median of. Values use the metric's decimals; a missing value is an
 * empty field.
 *
 * JSON (format 1): {"format":1,"definitions":{...},"runs":[...],
 * "medians":[...]}. Numbers are printed with the fewest significant digits
 * (15 to 17) that read back as the same double, so no precision is lost and
 * 8 ms prints as 8; a missing or non-finite value is null. Strings are
 * escaped (quote, backslash, control characters as \u00XX) and bytes that
 * are not valid UTF-8 become U+FFFD, so the output is always valid JSON.
 */
#include "report.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The table's number columns; CSV and JSON carry every metric. */
static const enum metric_id table_metrics[] = {
	M_FRAMES, M_FPS, M_STEADY_FPS, M_STALLS, M_STALL_S, M_LONGEST_MS, M_LOW1,
};

#define MEDIAN_DEFINITION \
	"middle value over runs with status ok (mean of the two middle values for an even count)"
#define FRAME_DEFINITION "interval between consecutive presents"

struct median_row {
	const char *game;
	const char *variant;
	size_t n;               /* "ok" runs the median is over */
	struct metrics m;
};

int report_format_parse(const char *s, enum report_format *out)
{
	if (!s)
		return -EINVAL;
	if (strcmp(s, "table") == 0)
		*out = REPORT_TABLE;
	else if (strcmp(s, "csv") == 0)
		*out = REPORT_CSV;
	else if (strcmp(s, "json") == 0)
		*out = REPORT_JSON;
	else
		return -EINVAL;
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool row_ok(const struct report_row *row)
{
	return row->status && strcmp(row->status, "ok") == 0;
}

static bool row_has(const struct report_row *row, enum metric_id id)
{
	return row_ok(row) && row->m.have[id] && isfinite(row->m.v[id]);
}

/* The median rows of rows[0..n), in order of first appearance; returns how
 * many (the caller frees *out). */
static size_t collect_medians(const struct report_row *rows, size_t n, struct median_row **out)
{
	struct median_row *med = zalloc((n ? n : 1) * sizeof(*med));
	struct metrics *ok = zalloc((n ? n : 1) * sizeof(*ok));
	size_t n_med = 0;

	for (size_t i = 0; i < n; i++) {
		size_t g;

		for (g = 0; g < n_med; g++)
			if (str_eq(med[g].game, rows[i].game) && str_eq(med[g].variant, rows[i].variant))
				break;
		if (g < n_med)
			continue;
		med[n_med].game = rows[i].game;
		med[n_med].variant = rows[i].variant;
		for (size_t j = i; j < n; j++) {
			if (!row_ok(&rows[j]) || !str_eq(rows[j].game, rows[i].game) ||
			    !str_eq(rows[j].variant, rows[i].variant))
				continue;
			ok[med[n_med].n++] = rows[j].m;
		}
		metrics_median(ok, med[n_med].n, &med[n_med].m);
		n_med++;
	}
	free(ok);
	*out = med;
	return n_med;
}

/* The shortest "%.*g" (15 to 17 digits) that reads back as v. */
static void format_exact(char *buf, size_t size, double v)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* ---- table ---- */

static int cell_width(bool have, double v, int decimals)
{
	return have ? snprintf(NULL, 0, "%.*f", decimals, v) : 1;
}

static void table_cells(FILE *out, const struct metrics *m, bool ok, const int *width)
{
	for (size_t c = 0; c < ARRAY_SIZE(table_metrics); c++) {
		enum metric_id id = table_metrics[c];

		if (ok && m->have[id] && isfinite(m->v[id]))
			fprintf(out, "  %*.*f", width[c], metric_defs[id].decimals, m->v[id]);
		else
			fprintf(out, "  %*s", width[c], "-");
	}
}

static void print_table(FILE *out, const struct report_row *rows, size_t n,
			const struct median_row *med, char **labels, size_t n_med,
			const struct report_opts *opts)
{
	int width[ARRAY_SIZE(table_metrics)];
	int run_width = (int)strlen("run");
	char threshold[32];

	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(rows[i].run ? rows[i].run : "-");

		if (w > run_width)
			run_width = w;
	}
	for (size_t g = 0; g < n_med; g++)
		if ((int)strlen(labels[g]) > run_width)
			run_width = (int)strlen(labels[g]);

	for (size_t c = 0; c < ARRAY_SIZE(table_metrics); c++) {
		enum metric_id id = table_metrics[c];
		int dec = metric_defs[id].decimals;

		width[c] = (int)strlen(metric_defs[id].column);
		for (size_t i = 0; i < n; i++) {
			int w = cell_width(row_has(&rows[i], id), rows[i].m.v[id], dec);

			if (w > width[c])
				width[c] = w;
		}
		for (size_t g = 0; g < n_med; g++) {
			int w = cell_width(med[g].m.have[id] && isfinite(med[g].m.v[id]),
					   med[g].m.v[id], dec);

			if (w > width[c])
				width[c] = w;
		}
	}

	fprintf(out, "%-*s", run_width, "run");
	for (size_t c = 0; c < ARRAY_SIZE(table_metrics); c++)
		fprintf(out, "  %*s", width[c], metric_defs[table_metrics[c]].column);
	fputc('\n', out);

	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%-*s", run_width, rows[i].run ? rows[i].run : "-");
		table_cells(out, &rows[i].m, row_ok(&rows[i]), width);
		if (!row_ok(&rows[i]))
			fprintf(out, "  %s", rows[i].status ? rows[i].status : "no status");
		fputc('\n', out);
	}
	for (size_t g = 0; g < n_med; g++) {
		fprintf(out, "%-*s", run_width, labels[g]);
		table_cells(out, &med[g].m, true, width);
		fputc('\n', out);
	}

	format_exact(threshold, sizeof(threshold), opts->metric.stall_ms);
	if (opts->window_note)
		fprintf(out, "# %s\n", opts->window_note);
	fprintf(out, "# frame time = " FRAME_DEFINITION "\n");
	fprintf(out, "# fps = frames / window seconds\n");
	fprintf(out, "# stall = a frame over %s ms (stalls: how many, stall_s: the seconds they took)\n",
		threshold);
	fprintf(out, "# percentiles: %s = %s\n", percentile_def_name(opts->metric.pct),
		percentile_def_formula(opts->metric.pct));
	fprintf(out, "# steady = 1000 / p50 frame time\n");
	fprintf(out, "# low1 = 1000 / p99 frame time\n");
	fprintf(out, "# median = " MEDIAN_DEFINITION "\n");
}

/* ---- CSV ---- */

static void csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_values(FILE *out, const struct metrics *m, bool ok)
{
	for (int id = 0; id < M_COUNT; id++) {
		fputc(',', out);
		if (ok && m->have[id] && isfinite(m->v[id]))
			fprintf(out, "%.*f", metric_defs[id].decimals, m->v[id]);
	}
	fputc('\n', out);
}

static void print_csv(FILE *out, const struct report_row *rows, size_t n,
		      const struct median_row *med, size_t n_med)
{
	fputs("run,game,variant,status,n", out);
	for (int id = 0; id < M_COUNT; id++)
		fprintf(out, ",%s", metric_defs[id].name);
	fputc('\n', out);

	for (size_t i = 0; i < n; i++) {
		csv_field(out, rows[i].run);
		fputc(',', out);
		csv_field(out, rows[i].game);
		fputc(',', out);
		csv_field(out, rows[i].variant);
		fputc(',', out);
		csv_field(out, rows[i].status);
		fputc(',', out);
		csv_values(out, &rows[i].m, row_ok(&rows[i]));
	}
	for (size_t g = 0; g < n_med; g++) {
		fputs("median,", out);
		csv_field(out, med[g].game);
		fputc(',', out);
		csv_field(out, med[g].variant);
		fprintf(out, ",,%zu", med[g].n);
		csv_values(out, &med[g].m, true);
	}
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does not
 * start one (overlong forms, surrogates and code points past U+10FFFF are
 * invalid). Never reads past a NUL. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*s) {
		size_t len = utf8_seq_len(s);

		if (*s == '"' || *s == '\\') {
			fputc('\\', out);
			fputc(*s, out);
		} else if (*s < 0x20) {
			fprintf(out, "\\u%04x", *s);
		} else if (len == 0) {
			fputs("\\ufffd", out);
			len = 1;
		} else {
			fwrite(s, 1, len, out);
		}
		s += len;
	}
	fputc('"', out);
}

static void json_number(FILE *out, bool have, double v)
{
	char buf[32];

	if (!have || !isfinite(v)) {
		fputs("null", out);
		return;
	}
	format_exact(buf, sizeof(buf), v);
	fputs(buf, out);
}

static void json_metrics(FILE *out, const struct metrics *m, bool ok)
{
	fputs("\"metrics\": {", out);
	for (int id = 0; id < M_COUNT; id++) {
		fprintf(out, "%s\"%s\": ", id ? ", " : "", metric_defs[id].name);
		json_number(out, ok && m->have[id], m->v[id]);
	}
	fputc('}', out);
}

static void print_json(FILE *out, const struct report_row *rows, size_t n,
		       const struct median_row *med, size_t n_med,
		       const struct report_opts *opts)
{
	fputs("{\n  \"format\": 1,\n  \"definitions\": {\n", out);
	if (opts->window_note) {
		fputs("    \"window\": ", out);
		json_string(out, opts->window_note);
		fputs(",\n", out);
	}
	fputs("    \"frame\": \"" FRAME_DEFINITION "\",\n", out);
	for (int id = 0; id < M_COUNT; id++) {
		fprintf(out, "    \"%s\": ", metric_defs[id].name);
		json_string(out, metric_defs[id].definition);
		fputs(",\n", out);
	}
	fputs("    \"percentile\": ", out);
	json_string(out, percentile_def_name(opts->metric.pct));
	fputs(",\n    \"percentile_formula\": ", out);
	json_string(out, percentile_def_formula(opts->metric.pct));
	fputs(",\n    \"mangohud_formula\": ", out);
	json_string(out, mangohud_formula_note(opts->metric.mangohud));
	fputs(",\n    \"stall_ms\": ", out);
	json_number(out, true, opts->metric.stall_ms);
	fputs(",\n    \"median\": \"" MEDIAN_DEFINITION "\"\n  },\n", out);

	fputs("  \"runs\": [", out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"run\": " : "\n    {\"run\": ", out);
		json_string(out, rows[i].run);
		fputs(", \"game\": ", out);
		json_string(out, rows[i].game);
		fputs(", \"variant\": ", out);
		json_string(out, rows[i].variant);
		fputs(", \"status\": ", out);
		json_string(out, rows[i].status);
		fputs(", ", out);
		json_metrics(out, &rows[i].m, row_ok(&rows[i]));
		fputc('}', out);
	}
	fputs(n ? "\n  ],\n" : "],\n", out);

	fputs("  \"medians\": [", out);
	for (size_t g = 0; g < n_med; g++) {
		fputs(g ? ",\n    {\"game\": " : "\n    {\"game\": ", out);
		json_string(out, med[g].game);
		fputs(", \"variant\": ", out);
		json_string(out, med[g].variant);
		fprintf(out, ", \"n\": %zu, ", med[g].n);
		json_metrics(out, &med[g].m, true);
		fputc('}', out);
	}
	fputs(n_med ? "\n  ]\n}\n" : "]\n}\n", out);
}

int report_print(FILE *out, const struct report_row *rows, size_t n,
		 const struct report_opts *opts)
{
	struct median_row *med;
	char **labels = NULL;
	size_t n_med;

	if (!out || !opts || (n > 0 && !rows))
		return -EINVAL;
	if (opts->format != REPORT_TABLE && opts->format != REPORT_CSV &&
	    opts->format != REPORT_JSON)
		return -EINVAL;

	n_med = collect_medians(rows, n, &med);
	switch (opts->format) {
	case REPORT_TABLE:
		labels = zalloc((n_med ? n_med : 1) * sizeof(*labels));
		for (size_t g = 0; g < n_med; g++)
			labels[g] = xasprintf("median %s %s (n=%zu)",
					      med[g].game ? med[g].game : "-",
					      med[g].variant ? med[g].variant : "-", med[g].n);
		print_table(out, rows, n, med, labels, n_med, opts);
		for (size_t g = 0; g < n_med; g++)
			free(labels[g]);
		free(labels);
		break;
	case REPORT_CSV:
		print_csv(out, rows, n, med, n_med);
		break;
	case REPORT_JSON:
		print_json(out, rows, n, med, n_med, opts);
		break;
	}
	free(med);

	if (fflush(out) != 0)
		return errno ? -errno : -EIO;
	if (ferror(out))
		return -EIO;
	return 0;
}
