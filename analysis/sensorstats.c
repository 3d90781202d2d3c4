/*
 * sensors_summarize (sensorstats.h): decompresses a sensors.tsv.zst, checks
 * it line by line against format 1 and reduces each column to a few numbers.
 */
#include "sensorstats.h"
#include "sensorlog.h"
#include "unzstd.h"

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

int sensors_summarize_text(const char *path, const char *text, struct kvfile *out,
			   struct strbuf *err)
{
	struct column *cols = NULL;
	size_t ncol = 0, rows = 0;
	char *copy = xstrdup(text), *line, *next;
	int lineno = 0, r = -EINVAL;
	bool header = false, trailer = false;
	double period_ms = NAN, cost = NAN, self_samples = NAN;
	uint64_t last_t = 0;
	struct kvfile kf;

	kvfile_init(&kf);
	for (line = copy; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else {
			strbuf_addf(err, "%s:%d: the last line has no newline (file cut short?)", path,
				    lineno + 1);
			goto out;
		}
		lineno++;
		if (lineno == 1) {
			int version;

			if (!str_startswith(line, "# hitchbench sensors ") ||
			    safe_atoi(line + strlen("# hitchbench sensors "), &version) < 0) {
				strbuf_addf(err, "%s:1: not a hitchbench sensors file", path);
				goto out;
			}
			if (version > SENSOR_LOG_VERSION) {
				strbuf_addf(err, "%s:1: sensors format %d is newer than this hitchbench reads (%d)",
					    path, version, SENSOR_LOG_VERSION);
				goto out;
			}
			continue;
		}
		if (trailer) {
			strbuf_addf(err, "%s:%d: text after the '# self' trailer", path, lineno);
			goto out;
		}
		if (str_startswith(line, "# column ")) {
			char *name = line + strlen("# column ");
			size_t len = strcspn(name, " ");

			if (header) {
				strbuf_addf(err, "%s:%d: a column declared after the header row", path, lineno);
				goto out;
			}
			name[len] = '\0';
			if (!valid_column(name)) {
				strbuf_addf(err, "%s:%d: bad column name '%s'", path, lineno, name);
				goto out;
			}
			cols = xrealloc(cols, (ncol + 1) * sizeof(*cols));
			memset(&cols[ncol], 0, sizeof(*cols));
			cols[ncol++].name = xstrdup(name);
		} else if (str_startswith(line, "# period_ms ")) {
			if (safe_atod(line + strlen("# period_ms "), &period_ms) < 0 || !(period_ms > 0)) {
				strbuf_addf(err, "%s:%d: bad period '%s'", path, lineno,
					    line + strlen("# period_ms "));
				goto out;
			}
		} else if (str_startswith(line, "# self ")) {
			const char *n = self_field(line, "samples"), *u = self_field(line, "us_per_sample");

			if (!header || !n || !u || field_double(n, &self_samples) < 0 ||
			    field_double(u, &cost) < 0) {
				strbuf_addf(err, "%s:%d: bad '# self' trailer", path, lineno);
				goto out;
			}
			if (self_samples != (double)rows) {
				strbuf_addf(err, "%s:%d: the trailer counts %.0f samples but the file has %zu rows",
					    path, lineno, self_samples, rows);
				goto out;
			}
			trailer = true;
		} else if (line[0] == '#') {
			continue; /* clock_pair, root, and comments of later versions */
		} else if (!header) {
			char *f = line;

			if (!str_startswith(line, "t_ns")) {
				strbuf_addf(err, "%s:%d: expected the header row (t_ns and the columns)", path,
					    lineno);
				goto out;
			}
			f += 4;
			for (size_t i = 0; i < ncol; i++) {
				size_t len = strlen(cols[i].name);

				if (*f != '\t' || strncmp(f + 1, cols[i].name, len) ||
				    (f[1 + len] != '\t' && f[1 + len] != '\0'))
					break;
				f += 1 + len;
				if (i + 1 == ncol && !*f)
					header = true;
			}
			if (ncol == 0 && !*f)
				header = true;
			if (!header) {
				strbuf_addf(err, "%s:%d: the header row does not match the '# column' lines",
					    path, lineno);
				goto out;
			}
		} else {
			char *f = line, *end;
			uint64_t t;
			size_t i;

			end = f + strcspn(f, "\t");
			if (*end)
				*end++ = '\0';
			else
				end = NULL;
			if (safe_atou64(f, &t) < 0 || (rows && t <= last_t)) {
				strbuf_addf(err, "%s:%d: bad or out-of-order t_ns '%s'", path, lineno, f);
				goto out;
			}
			last_t = t;
			for (i = 0, f = end; f && i < ncol; i++, f = end) {
				double v;

				end = f + strcspn(f, "\t");
				if (*end)
					*end++ = '\0';
				else
					end = NULL;
				if (!strcmp(f, "-"))
					continue;
				if (safe_atod(f, &v) < 0 || !isfinite(v)) {
					strbuf_addf(err, "%s:%d: column '%s': bad value '%s'", path, lineno,
						    cols[i].name, f);
					goto out;
				}
				if (!cols[i].n++) {
					cols[i].first = cols[i].min = cols[i].max = v;
				}
				cols[i].sum += v;
				cols[i].min = fmin(cols[i].min, v);
				cols[i].max = fmax(cols[i].max, v);
				cols[i].last = v;
			}
			if (i < ncol || f) {
				strbuf_addf(err, "%s:%d: expected %zu values after t_ns", path, lineno, ncol);
				goto out;
			}
			rows++;
		}
	}
	if (lineno == 0) {
		strbuf_addf(err, "%s: empty", path);
		goto out;
	}
	if (!header) {
		strbuf_addf(err, "%s: no header row", path);
		goto out;
	}
	if (!trailer) {
		strbuf_addf(err, "%s: no '# self' trailer (the sampler was stopped before it finished)",
			    path);
		goto out;
	}
	if (isnan(period_ms)) {
		strbuf_addf(err, "%s: no '# period_ms' line", path);
		goto out;
	}
	kvfile_addf(&kf, "sensors.samples", "%zu", rows);
	kvfile_addf(&kf, "sensors.period_ms", "%g", period_ms);
	kvfile_addf(&kf, "sensors.cost_us_per_sample", "%.2f", cost);
	for (size_t i = 0; i < ncol; i++)
		summarize_column(&kf, &cols[i]);
	for (size_t i = 0; i < kf.n; i++)
		kvfile_add(out, kf.items[i].key, kf.items[i].value);
	r = 0;
out:
	kvfile_release(&kf);
	for (size_t i = 0; i < ncol; i++)
		free(cols[i].name);
	free(cols);
	free(copy);
	return r;
}

int sensors_summarize(const char *path, struct kvfile *out, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *why = NULL;
	char *data;
	size_t len;
	int r = read_file(path, &data, &len);

	if (r < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	r = unzstd(data, len, HB_SENSORS_MAX_TEXT, &text, &why);
	free(data);
	if (r < 0)
		strbuf_addf(err, "%s: %s", path, why);
	else
		r = sensors_summarize_text(path, text.buf ? text.buf : "", out, err);
	strbuf_release(&text);
	return r;
}
