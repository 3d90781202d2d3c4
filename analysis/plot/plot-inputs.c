/*
 * Reading the inputs of plot matrix and plot trend (see plot-inputs.h):
 * both through the one CSV reader, the trend TSV in its blank-separated
 * mode, every field parsed strictly.
 */
#include "plot/plot-inputs.h"
#include "text/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *plot_metric_of(const char *path, const char *ext)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t len = strlen(base), el = strlen(ext);

	if (len > el && !strcmp(base + len - el, ext))
		len -= el;
	return xasprintf("%.*s", (int)len, base);
}

static const char *const cell_parts[4] = { ".median", ".min", ".max", ".n" };

static int parse_cell(char **f, struct plot_matrix_cell *cell)
{
	int empty = 0;

	for (int k = 0; k < 4; k++)
		empty += !*f[k];
	if (empty == 4) {
		memset(cell, 0, sizeof(*cell));
		return 0;
	}
	if (empty || safe_atod(f[0], &cell->median) < 0 || safe_atod(f[1], &cell->min) < 0 ||
	    safe_atod(f[2], &cell->max) < 0 || safe_atoi(f[3], &cell->n) < 0 || cell->n < 1)
		return -EINVAL;
	return 0;
}

/* The header's columns: game,run,<col>.median,<col>.min,<col>.max,<col>.n,... */
static int matrix_header(const char *path, const struct csv_record *rec, struct plot_matrix *m,
			 struct strbuf *err)
{
	char **f = rec->f;
	size_t nf = rec->n;

	if (nf < 6 || (nf - 2) % 4 || strcmp(f[0], "game") || strcmp(f[1], "run")) {
		strbuf_addf(err, "%s:%d: the header is not game,run,<col>.median,<col>.min,"
			    "<col>.max,<col>.n,...", path, rec->line);
		return -EINVAL;
	}
	m->n_cols = (nf - 2) / 4;
	m->cols = zalloc(m->n_cols * sizeof(*m->cols));
	for (size_t c = 0; c < m->n_cols; c++) {
		const char *h = f[2 + 4 * c];
		size_t hl = strlen(h), pl = strlen(cell_parts[0]);

		if (hl <= pl || strcmp(h + hl - pl, cell_parts[0])) {
			strbuf_addf(err, "%s:%d: column %zu is '%s', not <col>.median", path, rec->line,
				    3 + 4 * c, h);
			return -EINVAL;
		}
		m->cols[c] = xasprintf("%.*s", (int)(hl - pl), h);
		for (int k = 1; k < 4; k++) {
			char *want = xasprintf("%s%s", m->cols[c], cell_parts[k]);
			bool ok = !strcmp(f[2 + 4 * c + k], want);

			free(want);
			if (!ok) {
				strbuf_addf(err, "%s:%d: column %zu is '%s', not '%s%s'", path, rec->line,
					    3 + 4 * c + k, f[2 + 4 * c + k], m->cols[c], cell_parts[k]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int matrix_row(const char *path, const struct csv_record *rec, struct plot_matrix *m,
		      struct strbuf *err)
{
	char **f = rec->f;

	if (rec->n != 2 + 4 * m->n_cols) {
		strbuf_addf(err, "%s:%d: %zu fields, the header has %zu", path, rec->line, rec->n,
			    2 + 4 * m->n_cols);
		return -EINVAL;
	}
	m->games = xrealloc(m->games, (m->n_rows + 1) * sizeof(*m->games));
	m->runs = xrealloc(m->runs, (m->n_rows + 1) * sizeof(*m->runs));
	m->cells = xrealloc(m->cells, (m->n_rows + 1) * m->n_cols * sizeof(*m->cells));
	m->games[m->n_rows] = xstrdup(f[0]);
	m->runs[m->n_rows] = xstrdup(f[1]);
	m->n_rows++;
	for (size_t c = 0; c < m->n_cols; c++) {
		if (parse_cell(f + 2 + 4 * c, &m->cells[(m->n_rows - 1) * m->n_cols + c]) < 0) {
			strbuf_addf(err, "%s:%d: column '%s' is not a number, min, max and count "
				    "(or four empty fields)", path, rec->line, m->cols[c]);
			return -EINVAL;
		}
	}
	return 0;
}

int plot_matrix_parse(const char *path, const char *buf, struct plot_matrix *out, struct strbuf *err)
{
	struct plot_matrix m;
	struct csv_record rec;
	struct csv c;
	int r;

	memset(&m, 0, sizeof(m));
	m.metric = plot_metric_of(path, ".csv");
	csv_init(&c, buf, strlen(buf), CSV_SKIP_EMPTY);
	while ((r = csv_next(&c, &rec)) > 0) {
		if (rec.open_quote) {
			strbuf_addf(err, "%s:%d: a quote is not closed", path, rec.line);
			r = -EINVAL;
			goto out;
		}
		r = m.cols ? matrix_row(path, &rec, &m, err) : matrix_header(path, &rec, &m, err);
		if (r < 0)
			goto out;
	}
	if (r < 0) {
		strbuf_addf(err, "%s:%d: %s", path, c.err_line, c.why);
		goto out;
	}
	r = -EINVAL;
	if (!m.cols) {
		strbuf_addf(err, "%s: empty: no header", path);
		goto out;
	}
	if (!m.n_rows) {
		strbuf_addf(err, "%s: no rows under the header", path);
		goto out;
	}
	r = 0;
	*out = m;
out:
	csv_release(&c);
	if (r < 0) {
		plot_matrix_release(&m);
		r = -EINVAL;
	}
	return r;
}

void plot_matrix_release(struct plot_matrix *m)
{
	if (!m)
		return;
	for (size_t c = 0; c < m->n_cols && m->cols; c++)
		free(m->cols[c]);
	for (size_t i = 0; i < m->n_rows; i++) {
		free(m->games[i]);
		free(m->runs[i]);
	}
	free(m->metric);
	free(m->cols);
	free(m->games);
	free(m->runs);
	free(m->cells);
	memset(m, 0, sizeof(*m));
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true"))
		*out = true;
	else if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* p and magnitude: a number, or "-"/"" (NAN) where no change is. */
static int parse_opt_num(const char *s, double *out)
{
	if (!s || !*s || !strcmp(s, "-")) {
		*out = NAN;
		return 0;
	}
	return safe_atod(s, out);
}

int plot_trend_parse(const char *path, const char *buf, struct plot_trend_point **out,
		     size_t *n_out, struct strbuf *err)
{
	struct plot_trend_point *pts = NULL;
	struct csv_record rec;
	struct csv c;
	size_t n = 0;
	bool first = true;
	int r;

	csv_init(&c, buf, strlen(buf), CSV_BLANKS | CSV_SKIP_EMPTY);
	while ((r = csv_next(&c, &rec)) > 0) {
		char **f = rec.f;
		size_t nf = rec.n;
		int line = rec.line;
		struct plot_trend_point p;

		if (f[0][0] == '#')
			continue;
		if (first && !strcmp(f[0], "kernel")) {
			first = false;
			continue;
		}
		first = false;
		memset(&p, 0, sizeof(p));
		if (nf < 6 || nf > 8) {
			strbuf_addf(err, "%s:%d: want 'kernel median min max n change p magnitude', "
				    "got %zu field%s", path, line, nf, nf == 1 ? "" : "s");
			goto fail;
		}
		if (safe_atod(f[1], &p.median) < 0 || safe_atod(f[2], &p.min) < 0 ||
		    safe_atod(f[3], &p.max) < 0) {
			strbuf_addf(err, "%s:%d: median, min and max must be numbers", path, line);
			goto fail;
		}
		if (safe_atoi(f[4], &p.n) < 0 || p.n < 0) {
			strbuf_addf(err, "%s:%d: n '%s' is not a count", path, line, f[4]);
			goto fail;
		}
		if (parse_bool(f[5], &p.change) < 0) {
			strbuf_addf(err, "%s:%d: change '%s' is not 0/1, yes/no or true/false", path,
				    line, f[5]);
			goto fail;
		}
		if (parse_opt_num(nf > 6 ? f[6] : NULL, &p.p) < 0 ||
		    parse_opt_num(nf > 7 ? f[7] : NULL, &p.magnitude) < 0 ||
		    (p.change && (isnan(p.p) || isnan(p.magnitude)))) {
			strbuf_addf(err, "%s:%d: p and magnitude must be numbers%s", path, line,
				    p.change ? " at a change point" : " or '-'");
			goto fail;
		}
		p.kernel = xstrdup(f[0]);
		pts = xrealloc(pts, (n + 1) * sizeof(*pts));
		pts[n++] = p;
	}
	if (r < 0) {
		strbuf_addf(err, "%s:%d: %s", path, c.err_line, c.why);
		goto fail;
	}
	if (!n) {
		strbuf_addf(err, "%s: no kernels in it", path);
		goto fail;
	}
	csv_release(&c);
	*out = pts;
	*n_out = n;
	return 0;
fail:
	csv_release(&c);
	plot_trend_release(pts, n);
	return -EINVAL;
}

void plot_trend_release(struct plot_trend_point *pts, size_t n)
{
	for (size_t i = 0; i < n && pts; i++)
		free((char *)pts[i].kernel);
	free(pts);
}
