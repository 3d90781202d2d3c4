/*
 * Building the matrix of runs (see matrix.h) and writing it as CSV.
 */
#include "report/matrix.h"
#include "text/csv.h"
#include "base/util.h"

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

/* A run's place while the matrix is built: its column's key and start,
 * its row's key, and where it is in the rows given. */
struct run_place {
	struct col_key col;
	struct row_key row;
	size_t index;
};

static int cmp_place_col(const void *a, const void *b)
{
	const struct run_place *x = a, *y = b;
	int c = strcmp(x->col.key, y->col.key);

	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_place_row(const void *a, const void *b)
{
	const struct run_place *x = a, *y = b;
	int c = cmp_row(&x->row, &y->row);

	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

/* The columns by their key, for finding a run's: the key and its place in
 * the matrix's order. */
struct col_index {
	const char *key;
	size_t c;
};

static int cmp_col_index(const void *a, const void *b)
{
	return strcmp(((const struct col_index *)a)->key, ((const struct col_index *)b)->key);
}

/*
 * Sorting, not searching: each run's column and row are found by sorting
 * the runs by key (the distinct keys fall out of the sort) and then by a
 * binary search, and the runs of each cell are gathered by counting, so a
 * lab's 100,000 runs in 1,000 batches take n log n, not n x columns
 * (docs/lab.md has the figures).
 */
int matrix_build(struct matrix *m, const struct report_row *rows, size_t n, enum matrix_by by,
		 bool include_interfered)
{
	struct run_place *places;
	struct col_key *cols;
	struct row_key *keys;
	struct col_index *by_key;
	struct metrics *runs;
	size_t *cell_of, *start, *fill, n_places = 0, n_cols = 0, n_keys = 0, n_cells;

	if (!m || (n > 0 && !rows))
		return -EINVAL;
	places = zalloc((n ? n : 1) * sizeof(*places));
	cols = zalloc((n ? n : 1) * sizeof(*cols));
	keys = zalloc((n ? n : 1) * sizeof(*keys));
	runs = zalloc((n ? n : 1) * sizeof(*runs));
	cell_of = zalloc((n ? n : 1) * sizeof(*cell_of));
	matrix_init(m);
	m->by = by;

	/* the columns and rows some run has: the distinct keys, sorted */
	for (size_t i = 0; i < n; i++) {
		const char *key = column_of(&rows[i], by);

		if (!key || !*key) {
			m->n_without++;
			continue;
		}
		places[n_places++] = (struct run_place){ { key, rows[i].started_utc },
							 { rows[i].game, rows[i].run_name }, i };
	}
	qsort(places, n_places, sizeof(*places), cmp_place_col);
	for (size_t i = 0; i < n_places; i++) {
		const char *st = places[i].col.first_start;

		if (n_cols == 0 || strcmp(cols[n_cols - 1].key, places[i].col.key) != 0)
			cols[n_cols++] = places[i].col;
		else if (st && (!cols[n_cols - 1].first_start || strcmp(st, cols[n_cols - 1].first_start) < 0))
			cols[n_cols - 1].first_start = st;
	}
	qsort(places, n_places, sizeof(*places), cmp_place_row);
	for (size_t i = 0; i < n_places; i++)
		if (n_keys == 0 || cmp_row(&keys[n_keys - 1], &places[i].row) != 0)
			keys[n_keys++] = places[i].row;
	qsort(cols, n_cols, sizeof(*cols), by == MATRIX_BY_KERNEL ? cmp_kernel : cmp_batch);

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
	by_key = zalloc((n_cols ? n_cols : 1) * sizeof(*by_key));
	for (size_t c = 0; c < n_cols; c++) {
		m->col[c] = cols[c].key;
		by_key[c] = (struct col_index){ cols[c].key, c };
	}
	qsort(by_key, n_cols, sizeof(*by_key), cmp_col_index);

	/* each counted run's cell (n_cells: none), then the runs of each cell
	 * together, in the order given */
	start = zalloc((n_cells + 1) * sizeof(*start));
	for (size_t i = 0; i < n; i++)
		cell_of[i] = n_cells;
	for (size_t i = 0; i < n_places; i++) {
		const struct run_place *p = &places[i];
		struct col_index want = { p->col.key, 0 };
		const struct col_index *c = bsearch(&want, by_key, n_cols, sizeof(*by_key), cmp_col_index);
		const struct row_key *r = bsearch(&p->row, keys, n_keys, sizeof(*keys), cmp_row);

		if (c && r && !report_row_excluded(&rows[p->index], include_interfered))
			cell_of[p->index] = (size_t)(r - keys) * n_cols + c->c;
	}
	for (size_t i = 0; i < n; i++)
		if (cell_of[i] < n_cells)
			start[cell_of[i] + 1]++;
	for (size_t c = 0; c < n_cells; c++)
		start[c + 1] += start[c];
	fill = zalloc((n_cells ? n_cells : 1) * sizeof(*fill));
	for (size_t i = 0; i < n; i++)
		if (cell_of[i] < n_cells)
			runs[start[cell_of[i]] + fill[cell_of[i]]++] = rows[i].m;
	free(fill);
	for (size_t c = 0; c < n_cells; c++)
		run_stats_compute(runs + start[c], start[c + 1] - start[c], &m->cell[c]);
	free(start);
	free(by_key);
	free(cell_of);
	free(places);
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
