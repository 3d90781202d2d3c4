/*
 * MangoHud's CSV log, every version since 0.4 (checked against
 * flightlessmango/MangoHud src/logging.cpp at its tags; quirks collected
 * in docs/formats.md "MangoHud"):
 *
 *   [v1]                                    log_versioning (0.6.8+)
 *   [0.7.2]
 *   [---------SYSTEM INFO---------]
 *   os,cpu,gpu,ram,kernel,driver[,cpuscheduler]
 *   Debian GNU/Linux 12,AMD EPYC,,24683656,6.1.0,4.5 Mesa 22.3.6,
 *   [---------FRAME METRICS---------]
 *   fps,frametime,cpu_load,...,elapsed      no such header before 0.5
 *   56.56,17679,2.39,...,1385995042
 *
 * The frame time is in us from 0.6.0 to 0.6.8 and in ms (a float) since
 * 0.6.9; there is none before 0.6 (fps samples only, elapsed in us). Two
 * logs started in the same second go to the same file, one block after the
 * other: each block has its own columns and is read on its own. Without a
 * version line the version is inferred from the columns and, for the 0.6
 * column set, the unit from the numbers (fps x frametime is about 1e3 in
 * ms, 1e6 in us). A log made with log_interval > 0 holds samples: its
 * elapsed steps are much longer than its frame times.
 *
 * A log without a frametime column (before 0.6, or a header whose column
 * is misspelt) has no frames: it is read as samples only when the caller
 * asks (import_opts.interval). MangoHud ends every row with a line break,
 * so a last row without one was cut by a crash: it is dropped (counted and
 * warned of) when it lacks fields or a number in it was cut in two.
 */
#include "import/import-internal.h"
#include "metrics/mangohud-summary.h"
#include "stats/stats.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERSION(a, b, c) ((a) * 10000 + (b) * 100 + (c))

struct block {
	int first_line;         /* the block's header (or first row) line */
	int version;            /* from a version line, or 0 */
	size_t ncols;
	int i_fps, i_ft, i_elapsed;
	bool cols_07;           /* swap_used, process_rss: 0.7.0+ */
	bool cols_080;          /* cpu_power: 0.8.0+ */
	bool cols_082;          /* cpu_mhz: 0.8.2+ */
	bool gpu_power;         /* 0.6.5+ */
	bool headerless;        /* rows without a column header: 0.4 */
	double *fps, *ft, *elapsed;
	int *line;
	size_t n, alloc;
};

struct mparser {
	const char *path;
	const struct import_opts *o;
	struct import_series *out;
	struct strbuf *err;
	struct block b;
	int version;            /* the last version line seen, 0 if none */
	int blocks;
	bool have_system;
	bool have_frametime;    /* a block had frame times (0.6+) */
	char **system_header;   /* the os,cpu,... fields, waiting for their values */
	size_t n_system;
	struct strbuf units;    /* frame time units per block, "us,ms" */
	struct strbuf versions;
	struct strbuf versions_from; /* how each block's version was told */
};

/* A version line ("0.7.2", "v0.6.8", "0.7.2-1"): 1 with *out set; 0 for a
 * line that is no version; -EINVAL for one that looks like a version (a
 * digit, a dot, no comma) and is not MAJOR.MINOR.PATCH each of at most
 * three digits, minor and patch below 100, not all 0. */
static int parse_version(const char *s, int *out)
{
	const char *p = s + (*s == 'v');
	int part[3];

	if (!isdigit((unsigned char)*p) || !strchr(p, '.') || strchr(s, ','))
		return 0;
	for (int i = 0; i < 3; i++) {
		int v = 0, digits = 0;

		for (; isdigit((unsigned char)*p); p++) {
			if (++digits > 3)
				return -EINVAL;
			v = v * 10 + (*p - '0');
		}
		if (!digits || (i < 2 && *p != '.'))
			return -EINVAL;
		part[i] = v;
		p += i < 2;
	}
	if ((*p && *p != '-') || part[1] > 99 || part[2] > 99 || !(part[0] || part[1] || part[2]))
		return -EINVAL;
	*out = VERSION(part[0], part[1], part[2]);
	return 1;
}

#define LIST_BLOCKS 16 /* blocks whose version and unit bench.txt names; log.blocks counts all */

/* The version or unit of block number `block` (from 1) onto a list. A
 * strbuf, not a string copied at each block: a file of many tiny blocks
 * made that quadratic. */
static void append_list(struct strbuf *list, int block, const char *item)
{
	if (block > LIST_BLOCKS + 1)
		return;
	if (list->len)
		strbuf_addch(list, ',');
	strbuf_addstr(list, block > LIST_BLOCKS ? "..." : item);
}

static void block_free(struct block *b)
{
	free(b->fps);
	free(b->ft);
	free(b->elapsed);
	free(b->line);
	memset(b, 0, sizeof(*b));
}

/* The block's rows into frames, once its unit and kind are known. */
static void block_flush(struct mparser *p)
{
	struct block *b = &p->b;
	struct import_series *out = p->out;
	double scale_ms;        /* frametime value -> ms */
	const char *unit;
	char *ver = NULL;
	bool interval = false;

	if (!b->ncols && !b->n)
		return;
	p->blocks++;
	if (b->i_ft < 0) {
		/* before 0.6: fps averaged over the log interval, no frame times */
		ver = xstrdup(!b->headerless ? "0.5 (columns without frametime)" : "0.4 or older (no column header)");
		interval = true;
		scale_ms = 0;
	} else if (b->version) {
		ver = xasprintf("%d.%d.%d", b->version / 10000, b->version / 100 % 100, b->version % 100);
		scale_ms = b->version < VERSION(0, 6, 9) ? 1e-3 : 1;
	} else if (b->cols_07 || b->cols_080 || b->cols_082) {
		/* each release's writeFileHeaders added columns: 0.7.0
		 * swap_used and process_rss, 0.8.0 cpu_power, 0.8.2 cpu_mhz */
		ver = xstrdup(b->cols_082 ? "0.8.2 or newer (inferred from the columns)"
			      : b->cols_080 ? "0.8.0-0.8.1 (inferred from the columns)"
					    : "0.7.0-0.7.2 (inferred from the columns)");
		scale_ms = 1;
	} else {
		double *prod = xrealloc(NULL, (b->n + 1) * sizeof(*prod));
		size_t k = 0;

		for (size_t i = 0; i < b->n; i++)
			if (b->fps[i] > 0 && b->ft[i] > 0)
				prod[k++] = b->fps[i] * b->ft[i];
		/* ms: fps x ft ~ 1e3; us: ~ 1e6; split at the geometric middle */
		scale_ms = k && stats_median(prod, k) > 31623 ? 1e-3 : 1;
		free(prod);
		ver = xasprintf("%s (inferred from the columns and fps x frametime)",
				scale_ms < 1 ? (b->gpu_power ? "0.6.5-0.6.8" : "0.6.0-0.6.4")
					     : "0.6.9");
	}
	append_list(&p->versions, p->blocks, ver);
	append_list(&p->versions_from, p->blocks,
		    b->i_ft < 0 ? "columns" : b->version ? "version line"
		    : (b->cols_07 || b->cols_080 || b->cols_082) ? "columns" : "columns and fps x frametime");
	free(ver);
	unit = b->i_ft < 0 ? "none" : scale_ms < 1 ? "us" : "ms";
	p->have_frametime |= b->i_ft >= 0;
	append_list(&p->units, p->blocks, unit);

	/* Samples or frames: in a per-frame log, elapsed advances by about one
	 * frame time a row; with log_interval it advances by the interval. */
	if (!interval && b->i_elapsed >= 0 && b->n >= 3) {
		double *step = xrealloc(NULL, b->n * sizeof(*step));
		double *ft = xrealloc(NULL, b->n * sizeof(*ft));
		size_t k = 0;

		for (size_t i = 1; i < b->n; i++) {
			step[k] = (b->elapsed[i] - b->elapsed[i - 1]) / 1e6; /* ns -> ms */
			ft[k++] = b->ft[i] * scale_ms;
		}
		interval = stats_median(step, k) > 2 * stats_median(ft, k);
		free(step);
		free(ft);
	}
	if (interval)
		out->interval = true;

	for (size_t i = 0; i < b->n; i++) {
		char text[64];

		if (b->i_ft < 0 && !(b->fps[i] > 0)) {
			import_drop(out, b->line[i], "fps %g is not positive", b->fps[i]);
			continue;
		}
		if (b->i_ft < 0)
			snprintf(text, sizeof(text), "%g ms (1000 / fps %g)", 1000 / b->fps[i], b->fps[i]);
		else
			snprintf(text, sizeof(text), "%g %s", b->ft[i], unit);
		import_frame_ms(out, b->line[i], b->i_ft < 0 ? 1000 / b->fps[i] : b->ft[i] * scale_ms, text);
	}
	block_free(b);
}

static void block_start(struct mparser *p, int line)
{
	block_flush(p);
	p->b.first_line = line;
	p->b.version = p->version;
	p->b.i_fps = p->b.i_ft = p->b.i_elapsed = -1;
}

static int column_header(struct mparser *p, const struct csv_record *rec)
{
	char **f = rec->f;
	size_t n = rec->n;

	block_start(p, rec->line);
	p->b.ncols = n;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(f[i], "fps") == 0)
			p->b.i_fps = (int)i;
		else if (strcmp(f[i], "frametime") == 0)
			p->b.i_ft = (int)i;
		else if (strcmp(f[i], "elapsed") == 0)
			p->b.i_elapsed = (int)i;
		else if (strcmp(f[i], "gpu_power") == 0)
			p->b.gpu_power = true;
		else if (!strcmp(f[i], "swap_used") || !strcmp(f[i], "process_rss"))
			p->b.cols_07 = true;
		else if (strcmp(f[i], "cpu_power") == 0)
			p->b.cols_080 = true;
		else if (strcmp(f[i], "cpu_mhz") == 0)
			p->b.cols_082 = true;
	}
	if (p->b.i_elapsed < 0) {
		strbuf_addf(p->err, "%s:%d: expected MangoHud's column header with an 'elapsed' column",
			    p->path, rec->line);
		return -EINVAL;
	}
	if (p->b.i_ft < 0 && !p->o->interval) {
		strbuf_addf(p->err, "%s:%d: expected a 'frametime' column in MangoHud's column header; it has ",
			    p->path, rec->line);
		for (size_t i = 0; i < n && p->err->len < 400; i++)
			strbuf_addf(p->err, "%s%s", i ? "," : "", f[i]);
		strbuf_addstr(p->err, " (a log of fps samples, as MangoHud before 0.6 wrote, is imported "
			      "only as an interval log: --interval)");
		return -EINVAL;
	}
	return 0;
}

static bool all_numbers(char **f, size_t n)
{
	double d;

	for (size_t i = 0; i < n; i++)
		if (safe_atod(f[i], &d) < 0)
			return false;
	return true;
}

/* Before 0.5 there was no column header: fps,cpu_load,gpu_load,elapsed. */
static int headerless_block(struct mparser *p, const struct csv_record *rec)
{
	struct block *b = &p->b;

	if (rec->n != 4 || !all_numbers(rec->f, rec->n)) {
		strbuf_addf(p->err, "%s:%d: expected MangoHud's column header (fps,frametime,...,elapsed)"
			    " or a row of 4 numbers (fps,cpu_load,gpu_load,elapsed: MangoHud 0.4)",
			    p->path, rec->line);
		return -EINVAL;
	}
	if (!p->o->interval) {
		strbuf_addf(p->err, "%s:%d: expected MangoHud's column header; rows of 4 numbers without one "
			    "are MangoHud 0.4's fps samples, imported only as an interval log: --interval",
			    p->path, rec->line);
		return -EINVAL;
	}
	if (b->first_line == 0)
		block_start(p, rec->line);
	b->ncols = 4;
	b->headerless = true;
	b->i_fps = 0;
	b->i_elapsed = 3;
	return 0;
}

static int data_row(struct mparser *p, const struct csv_record *rec)
{
	struct block *b = &p->b;
	static const char *const names[] = { "fps", "frametime", "elapsed" };
	char **f = rec->f;
	int idx[3], r;
	double v[3] = { 0, 0, 0 };

	if (!b->ncols && (r = headerless_block(p, rec)) < 0)
		return r;
	if (rec->cut && rec->n < b->ncols) {
		char what[64];

		snprintf(what, sizeof(what), "%zu of %zu fields", rec->n, b->ncols);
		import_drop_cut(p->out, p->path, rec->line, what);
		p->out->rows++;
		return 0;
	}
	if (rec->n != b->ncols) {
		strbuf_addf(p->err, "%s:%d: expected %zu fields as the header on line %d says, found %zu",
			    p->path, rec->line, b->ncols, b->first_line, rec->n);
		return -EINVAL;
	}
	idx[0] = b->i_fps;
	idx[1] = b->i_ft;
	idx[2] = b->i_elapsed;
	for (int i = 0; i < 3; i++) {
		if (idx[i] < 0 || import_parse_value(f[idx[i]], &v[i]) == 0)
			continue;
		if (rec->cut) {
			char *what = xasprintf("'%.20s' in column '%s'", f[idx[i]], names[i]);

			import_drop_cut(p->out, p->path, rec->line, what);
			free(what);
			p->out->rows++;
			return 0;
		}
		strbuf_addf(p->err, "%s:%d: expected a number in column '%s', found '%.40s'",
			    p->path, rec->line, names[i], f[idx[i]]);
		return -EINVAL;
	}
	/* elapsed is us before 0.6 (no frametime column), ns since */
	if (b->i_ft < 0)
		v[2] *= 1e3;
	if (b->n == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 256;
		b->fps = xrealloc(b->fps, b->alloc * sizeof(double));
		b->ft = xrealloc(b->ft, b->alloc * sizeof(double));
		b->elapsed = xrealloc(b->elapsed, b->alloc * sizeof(double));
		b->line = xrealloc(b->line, b->alloc * sizeof(int));
	}
	b->fps[b->n] = v[0];
	b->ft[b->n] = v[1];
	b->elapsed[b->n] = v[2];
	b->line[b->n] = rec->line;
	b->n++;
	p->out->rows++;
	return 0;
}

static void free_fields(char **f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
}

static void system_header(struct mparser *p, const struct csv_record *rec)
{
	p->system_header = xrealloc(NULL, rec->n * sizeof(char *));
	for (size_t i = 0; i < rec->n; i++)
		p->system_header[i] = xstrdup(rec->f[i]);
	p->n_system = rec->n;
}

static void system_values(struct mparser *p, const struct csv_record *rec)
{
	/* the first block's machine is the log's */
	for (size_t i = 0; !p->have_system && i < p->n_system; i++) {
		if (!kvfile_valid_key(p->system_header[i]) || i >= rec->n || !*rec->f[i])
			continue;
		kvfile_add(&p->out->info, p->system_header[i], rec->f[i]);
	}
	p->have_system = true;
	free_fields(p->system_header, p->n_system);
	p->system_header = NULL;
	p->n_system = 0;
}

/* One record: banners, version lines, the system info, a column header or
 * a row. 0 or -EINVAL (message in err). */
static int record(struct mparser *p, const struct csv_record *rec)
{
	const char *f0 = rec->f[0];
	int r, version;

	if (p->system_header) {
		system_values(p, rec);
		return 0;
	}
	if (rec->n == 1 && (str_startswith(f0, "---") || strcmp(f0, "v1") == 0))
		return 0; /* the banners around the system info; log_versioning's format line */
	if (rec->n == 1 && (r = parse_version(f0, &version)) != 0) {
		if (r < 0) {
			strbuf_addf(p->err, "%s:%d: expected a MangoHud version (MAJOR.MINOR.PATCH), found '%.40s'",
				    p->path, rec->line, f0);
			return r;
		}
		p->version = version;
		return 0;
	}
	if (strcmp(f0, "os") == 0 && rec->n > 1) {
		block_flush(p);
		p->b.i_fps = p->b.i_ft = p->b.i_elapsed = -1;
		system_header(p, rec);
		return 0;
	}
	if (strcmp(f0, "fps") == 0 && rec->n > 1)
		return column_header(p, rec);
	return data_row(p, rec);
}

/* What the log's mangohud_* metrics reproduce, as a note: the summary
 * formula of the version told (the first block's, as run_metrics takes),
 * for a log of samples that MangoHud's summary came from those same
 * samples, and since 0.6.9 the row the summary holds and the log does not. */
static void summary_note(struct mparser *p)
{
	const char *version = p->versions.buf;
	size_t vlen = strcspn(version, ",");
	enum mangohud_formula f = mangohud_formula_for_version(version);
	bool unlogged = mangohud_summary_counts_unlogged_row(version);

	strbuf_addf(&p->out->notes, "%s: MangoHud %.*s: mangohud_* follow %s\n", p->path, (int)vlen,
		    version, mangohud_formula_note(f));
	if (p->out->interval && p->have_frametime && !p->out->rows_dropped)
		strbuf_addf(&p->out->notes, "%s: a log of samples (log_interval): MangoHud's _summary.csv "
			    "was computed from these same rows (each the frame time of the frame last "
			    "presented)%s; the metrics that need every frame are left out\n", p->path,
			    unlogged ? " and the first one, unwritten (below)" : ", so mangohud_* reproduce it");
	if (unlogged)
		strbuf_addf(&p->out->notes, "%s: MangoHud 0.6.9 and later count in the _summary.csv the first "
			    "row of the log, which they never write (Logger::writeToFile): mangohud_* lack "
			    "that frame, and their Average, and a figure it falls in, can differ from "
			    "MangoHud's\n", p->path);
	/* MangoHud's summary counted every row: one left out here is a frame
	 * time its figures hold and ours do not */
	if (p->out->rows_dropped)
		strbuf_addf(&p->out->notes, "%s: %zu row(s) MangoHud's summary counted are not frames here "
			    "(first: %s): mangohud_* leave them out and can differ from its _summary.csv\n",
			    p->path, p->out->rows_dropped,
			    p->out->first_dropped ? p->out->first_dropped : "?");
}

int import_mangohud_parse(const char *text, size_t len, const char *path,
			  const struct import_opts *o, struct import_series *out,
			  struct strbuf *err)
{
	static const struct import_opts defaults = IMPORT_OPTS_DEFAULT;
	struct csv_record rec;
	struct mparser p;
	struct csv c;
	int r = 0, last = 0;

	memset(&p, 0, sizeof(p));
	p.path = path;
	p.o = o ? o : &defaults;
	p.out = out;
	p.err = err;
	p.b.i_fps = p.b.i_ft = p.b.i_elapsed = -1;
	out->format = import_format_name(IMPORT_MANGOHUD);
	csv_init(&c, text, len, IMPORT_CSV_FLAGS);
	while ((r = csv_next(&c, &rec)) > 0) {
		last = rec.last_line;
		if ((r = record(&p, &rec)) < 0)
			goto out;
	}
	if (r < 0) {
		import_csv_error(&c, path, err);
		goto out;
	}
	if (p.system_header) {
		strbuf_addf(err, "%s:%d: expected the system values after MangoHud's system header, found the end",
			    path, last);
		r = -EINVAL;
		goto out;
	}
	block_flush(&p);
	if (!p.blocks) {
		strbuf_addf(err, "%s:%d: expected MangoHud's column header (fps,...,elapsed), found the end",
			    path, last);
		r = -EINVAL;
		goto out;
	}
	kvfile_add(&out->info, "version", p.versions.buf);
	kvfile_add(&out->info, "version_from", p.versions_from.buf);
	summary_note(&p);
	kvfile_add(&out->info, "frametime_unit", p.units.buf);
	kvfile_addf(&out->info, "blocks", "%d", p.blocks);
	r = import_finish(out, path, err);
out:
	block_free(&p.b);
	free_fields(p.system_header, p.n_system);
	strbuf_release(&p.units);
	strbuf_release(&p.versions);
	strbuf_release(&p.versions_from);
	csv_release(&c);
	return r;
}
