/*
 * sensors_summarize (sensorstats.h): decompresses a sensors.tsv.zst, checks
 * it line by line against format 1 and reduces each column to a few numbers.
 */
#include "metrics/sensorstats.h"
#include "formats/sensorlog.h"
#include "base/unzstd.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct column {
	char *name;
	size_t n;
	double sum, min, max, first, last;
};

/* 55 -> "55", 12.3760 -> "12.376": three decimals at most, no trailing zeros. */
static void add_number(struct kvfile *kf, const char *col, const char *stat, double v)
{
	char key[256], val[64];
	char *p;

	snprintf(val, sizeof(val), "%.3f", v);
	p = val + strlen(val) - 1;
	while (*p == '0')
		*p-- = '\0';
	if (*p == '.')
		*p = '\0';
	if (!strcmp(val, "-0"))
		strcpy(val, "0");
	snprintf(key, sizeof(key), "sensors.%s.%s", col, stat);
	kvfile_add(kf, key, val);
}

static void summarize_column(struct kvfile *kf, const struct column *c)
{
	size_t plen = strcspn(c->name, ".");
	double mean = c->sum / (double)c->n;

	if (!c->n)
		return;
	if (!strncmp(c->name, "temp", plen) || !strncmp(c->name, "fan", plen)) {
		add_number(kf, c->name, "max", c->max);
		add_number(kf, c->name, "mean", mean);
	} else if (!strncmp(c->name, "throttle", plen)) {
		add_number(kf, c->name, "delta", c->last - c->first);
	} else if (!strncmp(c->name, "cpu", plen) || !strncmp(c->name, "psi", plen)) {
		add_number(kf, c->name, "mean", mean);
		add_number(kf, c->name, "max", c->max);
	} else { /* freq, mem, swap and columns of later versions */
		add_number(kf, c->name, "min", c->min);
		add_number(kf, c->name, "mean", mean);
		add_number(kf, c->name, "max", c->max);
	}
}

/* A value of "# self samples=N ...", or NULL. */
static const char *self_field(const char *line, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = line; (p = strstr(p, key)); p += len)
		if ((p == line || p[-1] == ' ') && p[len] == '=')
			return p + len + 1;
	return NULL;
}

static int field_double(const char *p, double *out)
{
	char tmp[64];
	size_t len = strcspn(p, " \t");

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	return safe_atod(tmp, out);
}

static bool valid_column(const char *name)
{
	if (!*name || strlen(name) > 200 || !strcmp(name, "t_ns"))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._-", *p)))
			return false;
	return true;
}

/* What has been read of a sensors file so far: line by line, each line
 * checked against what may come at that point. */
struct sensors_reader {
	const char *path;
	struct strbuf *err;
	struct column *cols;
	size_t ncol, rows;
	int lineno;
	bool header, trailer;
	double period_ms, cost, self_samples;
	uint64_t last_t;
};

/* The first line: "# hitchbench sensors VERSION", a version we read. */
static int read_version(struct sensors_reader *rd, const char *line)
{
	int version;

	if (!str_startswith(line, "# hitchbench sensors ") ||
	    safe_atoi(line + strlen("# hitchbench sensors "), &version) < 0) {
		strbuf_addf(rd->err, "%s:1: not a hitchbench sensors file", rd->path);
		return -EINVAL;
	}
	if (version > SENSOR_LOG_VERSION) {
		strbuf_addf(rd->err, "%s:1: sensors format %d is newer than this hitchbench reads (%d)",
			    rd->path, version, SENSOR_LOG_VERSION);
		return -EINVAL;
	}
	return 0;
}

/* "# column NAME ...", before the header row. */
static int read_column_decl(struct sensors_reader *rd, char *line)
{
	char *name = line + strlen("# column ");
	size_t len = strcspn(name, " ");

	if (rd->header) {
		strbuf_addf(rd->err, "%s:%d: a column declared after the header row", rd->path,
			    rd->lineno);
		return -EINVAL;
	}
	name[len] = '\0';
	if (!valid_column(name)) {
		strbuf_addf(rd->err, "%s:%d: bad column name '%s'", rd->path, rd->lineno, name);
		return -EINVAL;
	}
	rd->cols = xrealloc(rd->cols, (rd->ncol + 1) * sizeof(*rd->cols));
	memset(&rd->cols[rd->ncol], 0, sizeof(*rd->cols));
	rd->cols[rd->ncol++].name = xstrdup(name);
	return 0;
}

/* "# self samples=N us_per_sample=U ...", after the rows, counting them. */
static int read_self(struct sensors_reader *rd, const char *line)
{
	const char *n = self_field(line, "samples"), *u = self_field(line, "us_per_sample");

	if (!rd->header || !n || !u || field_double(n, &rd->self_samples) < 0 ||
	    field_double(u, &rd->cost) < 0) {
		strbuf_addf(rd->err, "%s:%d: bad '# self' trailer", rd->path, rd->lineno);
		return -EINVAL;
	}
	if (rd->self_samples != (double)rd->rows) {
		strbuf_addf(rd->err, "%s:%d: the trailer counts %.0f samples but the file has %zu rows",
			    rd->path, rd->lineno, rd->self_samples, rd->rows);
		return -EINVAL;
	}
	rd->trailer = true;
	return 0;
}

/* "t_ns" and the declared columns, tab-separated, in their order. */
static int read_header_row(struct sensors_reader *rd, const char *line)
{
	const char *f = line;

	if (!str_startswith(line, "t_ns")) {
		strbuf_addf(rd->err, "%s:%d: expected the header row (t_ns and the columns)", rd->path,
			    rd->lineno);
		return -EINVAL;
	}
	f += 4;
	for (size_t i = 0; i < rd->ncol; i++) {
		size_t len = strlen(rd->cols[i].name);

		if (*f != '\t' || strncmp(f + 1, rd->cols[i].name, len) ||
		    (f[1 + len] != '\t' && f[1 + len] != '\0'))
			break;
		f += 1 + len;
		if (i + 1 == rd->ncol && !*f)
			rd->header = true;
	}
	if (rd->ncol == 0 && !*f)
		rd->header = true;
	if (!rd->header) {
		strbuf_addf(rd->err, "%s:%d: the header row does not match the '# column' lines",
			    rd->path, rd->lineno);
		return -EINVAL;
	}
	return 0;
}

/* Cuts the tab-separated field at f; the next one, or NULL after the last. */
static char *cut_field(char *f)
{
	char *end = f + strcspn(f, "\t");

	if (!*end)
		return NULL;
	*end++ = '\0';
	return end;
}

/* A sample: t_ns (increasing), then a value or "-" per column. */
static int read_row(struct sensors_reader *rd, char *line)
{
	char *f = line, *end = cut_field(line);
	uint64_t t;
	size_t i;

	if (safe_atou64(f, &t) < 0 || (rd->rows && t <= rd->last_t)) {
		strbuf_addf(rd->err, "%s:%d: bad or out-of-order t_ns '%s'", rd->path, rd->lineno, f);
		return -EINVAL;
	}
	rd->last_t = t;
	for (i = 0, f = end; f && i < rd->ncol; i++, f = end) {
		struct column *c = &rd->cols[i];
		double v;

		end = cut_field(f);
		if (!strcmp(f, "-"))
			continue;
		if (safe_atod(f, &v) < 0 || !isfinite(v)) {
			strbuf_addf(rd->err, "%s:%d: column '%s': bad value '%s'", rd->path, rd->lineno,
				    c->name, f);
			return -EINVAL;
		}
		if (!c->n++)
			c->first = c->min = c->max = v;
		c->sum += v;
		c->min = fmin(c->min, v);
		c->max = fmax(c->max, v);
		c->last = v;
	}
	if (i < rd->ncol || f) {
		strbuf_addf(rd->err, "%s:%d: expected %zu values after t_ns", rd->path, rd->lineno,
			    rd->ncol);
		return -EINVAL;
	}
	rd->rows++;
	return 0;
}

/* One line after the first, by what it starts with. */
static int read_line(struct sensors_reader *rd, char *line)
{
	if (rd->trailer) {
		strbuf_addf(rd->err, "%s:%d: text after the '# self' trailer", rd->path, rd->lineno);
		return -EINVAL;
	}
	if (str_startswith(line, "# column "))
		return read_column_decl(rd, line);
	if (str_startswith(line, "# period_ms ")) {
		const char *v = line + strlen("# period_ms ");

		if (safe_atod(v, &rd->period_ms) < 0 || !(rd->period_ms > 0)) {
			strbuf_addf(rd->err, "%s:%d: bad period '%s'", rd->path, rd->lineno, v);
			return -EINVAL;
		}
		return 0;
	}
	if (str_startswith(line, "# self "))
		return read_self(rd, line);
	if (line[0] == '#')
		return 0; /* clock_pair, root, and comments of later versions */
	if (!rd->header)
		return read_header_row(rd, line);
	return read_row(rd, line);
}

/* At the end: the parts a whole file has. */
static int check_complete(const struct sensors_reader *rd)
{
	const char *path = rd->path;

	if (rd->lineno == 0)
		strbuf_addf(rd->err, "%s: empty", path);
	else if (!rd->header)
		strbuf_addf(rd->err, "%s: no header row", path);
	else if (!rd->trailer)
		strbuf_addf(rd->err, "%s: no '# self' trailer (the sampler was stopped before it finished)",
			    path);
	else if (isnan(rd->period_ms))
		strbuf_addf(rd->err, "%s: no '# period_ms' line", path);
	else
		return 0;
	return -EINVAL;
}

int sensors_summarize_text(const char *path, const char *text, struct kvfile *out,
			   struct strbuf *err)
{
	struct sensors_reader rd = {
		.path = path, .err = err, .period_ms = NAN, .cost = NAN, .self_samples = NAN,
	};
	char *copy = xstrdup(text), *line, *next;
	int r = 0;
	struct kvfile kf;

	kvfile_init(&kf);
	for (line = copy; r == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			strbuf_addf(err, "%s:%d: the last line has no newline (file cut short?)", path,
				    rd.lineno + 1);
			r = -EINVAL;
			break;
		}
		*next++ = '\0';
		rd.lineno++;
		r = rd.lineno == 1 ? read_version(&rd, line) : read_line(&rd, line);
	}
	if (r == 0)
		r = check_complete(&rd);
	if (r == 0) {
		kvfile_addf(&kf, "sensors.samples", "%zu", rd.rows);
		kvfile_addf(&kf, "sensors.period_ms", "%g", rd.period_ms);
		kvfile_addf(&kf, "sensors.cost_us_per_sample", "%.2f", rd.cost);
		for (size_t i = 0; i < rd.ncol; i++)
			summarize_column(&kf, &rd.cols[i]);
		for (size_t i = 0; i < kf.n; i++)
			kvfile_add(out, kf.items[i].key, kf.items[i].value);
	}
	kvfile_release(&kf);
	for (size_t i = 0; i < rd.ncol; i++)
		free(rd.cols[i].name);
	free(rd.cols);
	free(copy);
	return r;
}

int sensors_summarize(const char *path, struct kvfile *out, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = read_maybe_zstd(path, "a sensor log", HB_SENSORS_MAX_TEXT, false, &text, err);

	if (r == 0)
		r = sensors_summarize_text(path, text.buf ? text.buf : "", out, err);
	strbuf_release(&text);
	return r;
}
