/*
 * Building the matrix of runs (see matrix.h) and writing it as CSV.
 */
#include "matrix.h"
#include "csv.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int matrix_by_parse(const char *s, enum matrix_by *out)
{
	if (s && strcmp(s, "batch") == 0)
		*out = MATRIX_BY_BATCH;
	else if (s && strcmp(s, "kernel") == 0)
		*out = MATRIX_BY_KERNEL;
	else
		return -EINVAL;
	return 0;
}

const char *matrix_by_name(enum matrix_by by)
{
	return by == MATRIX_BY_KERNEL ? "kernel" : "batch";
}

void matrix_init(struct matrix *m)
{
	memset(m, 0, sizeof(*m));
}

void matrix_release(struct matrix *m)
{
	if (!m)
		return;
	free(m->row_game);
	free(m->row_name);
	free(m->col);
	free(m->cell);
	matrix_init(m);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static const char *column_of(const struct report_row *row, enum matrix_by by)
{
	return by == MATRIX_BY_KERNEL ? row->kernel : row->batch;
}

/* A column and what orders it. */
struct col_key {
	const char *key;
	const char *first_start;    /* the earliest started_utc of its runs */
};

static int cmp_batch(const void *a, const void *b)
{
	const struct col_key *x = a, *y = b;
	int c;

	/* runs without a start time sort last within the order of ids */
	if (x->first_start && y->first_start && (c = strcmp(x->first_start, y->first_start)) != 0)
		return c;
	if (!x->first_start != !y->first_start)
		return x->first_start ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct col_key *x = a, *y = b;

	return strverscmp(x->key, y->key);
}

struct row_key {
	const char *game, *name;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;
	int c = cmp_str(x->game, y->game);

	return c ? c : cmp_str(x->name, y->name);
}

static size_t find_row(const struct matrix *m, const char *game, const char *name)
{
	for (size_t r = 0; r < m->n_rows; r++)
		if (cmp_str(m->row_game[r], game) == 0 && cmp_str(m->row_name[r], name) == 0)
			return r;
	return m->n_rows;
}

int matrix_build(struct matrix *m, const struct report_row *rows, size_t n, enum matrix_by by,
		 bool include_interfered)
{
	struct col_key *cols;
	struct row_key *keys;
	struct metrics *runs;
	size_t n_cols = 0, n_keys = 0, n_cells;

	if (!m || (n > 0 && !rows))
		return -EINVAL;
	cols = zalloc((n ? n : 1) * sizeof(*cols));
	keys = zalloc((n ? n : 1) * sizeof(*keys));
	runs = zalloc((n ? n : 1) * sizeof(*runs));
	matrix_init(m);
	m->by = by;

	/* the columns and rows some run has */
	for (size_t i = 0; i < n; i++) {
		const char *key = column_of(&rows[i], by);
		const char *start = rows[i].started_utc;
		size_t c, k;

		if (!key || !*key) {
			m->n_without++;
			continue;
		}
		for (c = 0; c < n_cols && strcmp(cols[c].key, key) != 0; c++)
			;
		if (c == n_cols)
			cols[n_cols++] = (struct col_key){ key, start };
		else if (start && (!cols[c].first_start || strcmp(start, cols[c].first_start) < 0))
			cols[c].first_start = start;
		for (k = 0; k < n_keys; k++)
			if (cmp_row(&keys[k], &(struct row_key){ rows[i].game, rows[i].run_name }) == 0)
				break;
		if (k == n_keys)
			keys[n_keys++] = (struct row_key){ rows[i].game, rows[i].run_name };
	}
	qsort(cols, n_cols, sizeof(*cols), by == MATRIX_BY_KERNEL ? cmp_kernel : cmp_batch);
	qsort(keys, n_keys, sizeof(*keys), cmp_row);

	m->n_rows = n_keys;
	m->n_cols = n_cols;
	m->row_game = zalloc((n_keys ? n_keys : 1) * sizeof(*m->row_game));
	m->row_name = zalloc((n_keys ? n_keys : 1) * sizeof(*m->row_name));
	m->col = zalloc((n_cols ? n_cols : 1) * sizeof(*m->col));
	n_cells = n_keys * n_cols;
	m->cell = zalloc((n_cells ? n_cells : 1) * sizeof(*m->cell));
	for (size_t k = 0; k < n_keys; k++) {
		m->row_game[k] = keys[k].game;
		m->row_name[k] = keys[k].name;
	}
	for (size_t c = 0; c < n_cols; c++)
		m->col[c] = cols[c].key;

	/* each cell over its counted runs */
	for (size_t r = 0; r < m->n_rows; r++) {
		for (size_t c = 0; c < m->n_cols; c++) {
			size_t k = 0;

			for (size_t i = 0; i < n; i++) {
				const char *key = column_of(&rows[i], by);

				if (!key || strcmp(key, m->col[c]) != 0 ||
				    find_row(m, rows[i].game, rows[i].run_name) != r ||
				    report_row_excluded(&rows[i], include_interfered))
					continue;
				runs[k++] = rows[i].m;
			}
			run_stats_compute(runs, k, &m->cell[r * m->n_cols + c]);
		}
	}
	free(cols);
	free(keys);
	free(runs);
	return 0;
}

bool matrix_has(const struct matrix *m, enum metric_id id)
{
	for (size_t i = 0; i < m->n_rows * m->n_cols; i++)
		if (m->cell[i].n_metric[id] > 0)
			return true;
	return false;
}

static void csv_number(FILE *out, bool have, double v, int decimals)
{
	fputc(',', out);
	if (have && isfinite(v))
		fprintf(out, "%.*f", decimals, v);
}

int matrix_write_csv(FILE *out, const struct matrix *m, enum metric_id id)
{
	static const char *const parts[] = { "median", "min", "max", "n" };
	int dec;

	if (!out || !m || (int)id < 0 || id >= M_COUNT)
		return -EINVAL;
	dec = metric_defs[id].decimals;
	fputs("game,run", out);
	for (size_t c = 0; c < m->n_cols; c++) {
		for (size_t p = 0; p < ARRAY_SIZE(parts); p++) {
			char *name = xasprintf("%s.%s", m->col[c], parts[p]);

			fputc(',', out);
			csv_write_field(out, name);
			free(name);
		}
	}
	fputc('\n', out);
	for (size_t r = 0; r < m->n_rows; r++) {
		csv_write_field(out, m->row_game[r]);
		fputc(',', out);
		csv_write_field(out, m->row_name[r]);
		for (size_t c = 0; c < m->n_cols; c++) {
			const struct run_stats *s = &m->cell[r * m->n_cols + c];

			if (s->n_metric[id] == 0) {
				fputs(",,,,", out);
				continue;
			}
			csv_number(out, s->median.have[id], s->median.v[id], dec);
			csv_number(out, s->min.have[id], s->min.v[id], dec);
			csv_number(out, s->max.have[id], s->max.v[id], dec);
			fprintf(out, ",%zu", s->n_metric[id]);
		}
		fputc('\n', out);
	}
	if (fflush(out) != 0)
		return errno ? -errno : -EIO;
	return ferror(out) ? -EIO : 0;
}
