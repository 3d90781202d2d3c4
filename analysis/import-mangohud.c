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
 */
#include "import-internal.h"

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
	bool newer_cols;        /* columns of 0.7+ (swap_used, process_rss, cpu_power, cpu_mhz) */
	bool gpu_power;         /* 0.6.5+ */
	bool headerless;        /* rows without a column header: 0.4 */
	double *fps, *ft, *elapsed;
	size_t n, alloc;
};

struct mparser {
	const char *path;
	struct import_series *out;
	struct strbuf *err;
	struct block b;
	int version;            /* the last version line seen, 0 if none */
	int blocks;
	bool have_system;
	char *system_header;    /* the os,cpu,... line, waiting for its values */
	char *units;            /* frame time units per block, "us,ms" */
	char *versions;
};

static int parse_version(const char *s)
{
	unsigned a = 0, b = 0, c = 0;
	int n = 0;

	if (*s == 'v')
		s++;
	if (!isdigit((unsigned char)*s) || sscanf(s, "%u.%u.%u%n", &a, &b, &c, &n) != 3 ||
	    (s[n] != '\0' && s[n] != '-'))
		return 0;
	return VERSION((int)a, (int)b, (int)c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void append_list(char **list, const char *item)
{
	char *s = *list ? xasprintf("%s,%s", *list, item) : xstrdup(item);

	free(*list);
	*list = s;
}

/* The block's rows into frames, once its unit and kind are known. */
static void block_flush(struct mparser *p)
{
	struct block *b = &p->b;
	struct import_series *out = p->out;
	double scale_ms;        /* frametime value -> ms */
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
	} else if (b->newer_cols) {
		ver = xstrdup("0.7 or newer (inferred from the columns)");
		scale_ms = 1;
	} else {
		double *prod = xrealloc(NULL, (b->n + 1) * sizeof(*prod));
		size_t k = 0;

		for (size_t i = 0; i < b->n; i++)
			if (b->fps[i] > 0 && b->ft[i] > 0)
				prod[k++] = b->fps[i] * b->ft[i];
		/* ms: fps x ft ~ 1e3; us: ~ 1e6; split at the geometric middle */
		scale_ms = k && median(prod, k) > 31623 ? 1e-3 : 1;
		free(prod);
		ver = xasprintf("%s (inferred from the columns and fps x frametime)",
				scale_ms < 1 ? (b->gpu_power ? "0.6.5-0.6.8" : "0.6.0-0.6.4")
					     : "0.6.9");
	}
	append_list(&p->versions, ver);
	free(ver);
	append_list(&p->units, b->i_ft < 0 ? "none" : scale_ms < 1 ? "us" : "ms");

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
		interval = median(step, k) > 2 * median(ft, k);
		free(step);
		free(ft);
	}
	if (interval)
		out->interval = true;

	for (size_t i = 0; i < b->n; i++) {
		double ms = b->i_ft < 0 ? (b->fps[i] > 0 ? 1000 / b->fps[i] : -1) : b->ft[i] * scale_ms;
		uint64_t ns;

		if (import_ms_to_ns(ms, &ns) == 0)
			import_push_frame(out, ns);
	}
	free(b->fps);
	free(b->ft);
	free(b->elapsed);
	memset(b, 0, sizeof(*b));
}

static void block_start(struct mparser *p, int line)
{
	block_flush(p);
	p->b.first_line = line;
	p->b.version = p->version;
	p->b.i_fps = p->b.i_ft = p->b.i_elapsed = -1;
}

static int column_header(struct mparser *p, char *line, int no)
{
	char *f[CSV_MAX_FIELDS];
	size_t n = csv_split(line, f, CSV_MAX_FIELDS);

	block_start(p, no);
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
		else if (!strcmp(f[i], "swap_used") || !strcmp(f[i], "process_rss") ||
			 !strcmp(f[i], "cpu_power") || !strcmp(f[i], "cpu_mhz"))
			p->b.newer_cols = true;
	}
	if (p->b.i_elapsed < 0) {
		strbuf_addf(p->err, "%s:%d: expected MangoHud's column header with an 'elapsed' column",
			    p->path, no);
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

static int data_row(struct mparser *p, char *line, int no)
{
	struct block *b = &p->b;
	static const char *const names[] = { "fps", "frametime", "elapsed" };
	char *f[CSV_MAX_FIELDS];
	size_t n = csv_split(line, f, CSV_MAX_FIELDS);
	int idx[3];
	double v[3] = { 0, 0, 0 };

	if (!b->ncols) {
		/* before 0.5 there was no column header: fps,cpu_load,gpu_load,elapsed */
		if (n != 4 || !all_numbers(f, n)) {
			strbuf_addf(p->err, "%s:%d: expected MangoHud's column header (fps,frametime,...,elapsed)"
				    " or a row of 4 numbers (fps,cpu_load,gpu_load,elapsed: MangoHud 0.4)",
				    p->path, no);
			return -EINVAL;
		}
		if (b->first_line == 0)
			block_start(p, no);
		b->ncols = 4;
		b->headerless = true;
		b->i_fps = 0;
		b->i_elapsed = 3;
	}
	if (n != b->ncols) {
		strbuf_addf(p->err, "%s:%d: expected %zu fields as the header on line %d says, found %zu",
			    p->path, no, b->ncols, b->first_line, n);
		return -EINVAL;
	}
	idx[0] = b->i_fps;
	idx[1] = b->i_ft;
	idx[2] = b->i_elapsed;
	for (int i = 0; i < 3; i++) {
		if (idx[i] >= 0 && safe_atod(f[idx[i]], &v[i]) < 0) {
			strbuf_addf(p->err, "%s:%d: expected a number in column '%s', found '%s'",
				    p->path, no, names[i], f[idx[i]]);
			return -EINVAL;
		}
	}
	/* elapsed is us before 0.6 (no frametime column), ns since */
	if (b->i_ft < 0)
		v[2] *= 1e3;
	if (b->n == b->alloc) {
		b->alloc = b->alloc ? 2 * b->alloc : 256;
		b->fps = xrealloc(b->fps, b->alloc * sizeof(double));
		b->ft = xrealloc(b->ft, b->alloc * sizeof(double));
		b->elapsed = xrealloc(b->elapsed, b->alloc * sizeof(double));
	}
	b->fps[b->n] = v[0];
	b->ft[b->n] = v[1];
	b->elapsed[b->n] = v[2];
	b->n++;
	p->out->rows++;
	return 0;
}

static void system_values(struct mparser *p, char *line)
{
	char *hf[CSV_MAX_FIELDS], *vf[CSV_MAX_FIELDS];
	size_t nh = csv_split(p->system_header, hf, CSV_MAX_FIELDS);
	size_t nv = csv_split(line, vf, CSV_MAX_FIELDS);

	/* the first block's machine is the log's; the values may hold commas
	 * no more often than a CPU name does: the last field takes the rest */
	for (size_t i = 0; !p->have_system && i < nh; i++) {
		if (!kvfile_valid_key(hf[i]) || i >= nv || !*vf[i])
			continue;
		kvfile_add(&p->out->info, hf[i], vf[i]);
	}
	p->have_system = true;
	free(p->system_header);
	p->system_header = NULL;
}

int import_mangohud_parse(const char *text, size_t len, const char *path,
			  struct import_series *out, struct strbuf *err)
{
	struct mparser p;
	struct lines l;
	char *line;
	int r = 0;

	memset(&p, 0, sizeof(p));
	p.path = path;
	p.out = out;
	p.err = err;
	p.b.i_fps = p.b.i_ft = p.b.i_elapsed = -1;
	out->format = import_format_name(IMPORT_MANGOHUD);
	lines_init(&l, text, len);
	while ((line = lines_next(&l))) {
		if (p.system_header) {
			system_values(&p, line);
			continue;
		}
		if (!*line || str_startswith(line, "---"))
			continue; /* the banners around the system info */
		if (strcmp(line, "v1") == 0)
			continue; /* log_versioning's format line */
		if (parse_version(line)) {
			p.version = parse_version(line);
			continue;
		}
		if (str_startswith(line, "os,")) {
			block_flush(&p);
			p.b.i_fps = p.b.i_ft = p.b.i_elapsed = -1;
			p.system_header = xstrdup(line);
			continue;
		}
		if (str_startswith(line, "fps,"))
			r = column_header(&p, line, l.no);
		else
			r = data_row(&p, line, l.no);
		if (r < 0)
			goto out;
	}
	if (p.system_header) {
		strbuf_addf(err, "%s:%d: expected the system values after MangoHud's system header, found the end",
			    path, l.no);
		r = -EINVAL;
		goto out;
	}
	block_flush(&p);
	if (!p.blocks) {
		strbuf_addf(err, "%s:%d: expected MangoHud's column header (fps,...,elapsed), found the end",
			    path, l.no);
		r = -EINVAL;
		goto out;
	}
	kvfile_add(&out->info, "version", p.versions);
	kvfile_add(&out->info, "frametime_unit", p.units);
	kvfile_addf(&out->info, "blocks", "%d", p.blocks);
	import_finish(out);
out:
	if (p.b.fps) {
		free(p.b.fps);
		free(p.b.ft);
		free(p.b.elapsed);
	}
	free(p.system_header);
	free(p.units);
	free(p.versions);
	lines_release(&l);
	return r;
}
