/*
 * probe.txt written and read back (see probefile.h; the format:
 * docs/formats.md, "Probe file").
 */
#include "formats/probefile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void probe_result_init(struct probe_result *r, const cpu_set_t *set, size_t cap_late)
{
	size_t i = 0;

	memset(r, 0, sizeof(*r));
	r->n_cpus = (size_t)CPU_COUNT(set);
	r->cpus = zalloc((r->n_cpus ? r->n_cpus : 1) * sizeof(*r->cpus));
	for (int c = 0; c < CPU_SETSIZE && i < r->n_cpus; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		r->cpus[i].cpu = c;
		lat_hist_init(&r->cpus[i].hist);
		r->cpus[i].cap_late = cap_late;
		r->cpus[i].late = zalloc((cap_late ? cap_late : 1) * sizeof(*r->cpus[i].late));
		i++;
	}
}

void probe_result_release(struct probe_result *r)
{
	for (size_t i = 0; i < r->n_cpus; i++) {
		lat_hist_release(&r->cpus[i].hist);
		free(r->cpus[i].late);
	}
	free(r->cpus);
	memset(r, 0, sizeof(*r));
}

static void pct_field(FILE *out, const char *name, const struct lat_hist *h, uint32_t ppm)
{
	uint64_t us = 0;
	int r = lat_hist_percentile(h, ppm, &us);

	if (r < 0)
		fprintf(out, " %s -", name);
	else
		fprintf(out, " %s %s%" PRIu64, name, r == 1 ? ">=" : "", us);
}

int probe_result_write(const struct probe_result *r, FILE *out)
{
	fprintf(out, "# hitchbench probe: how late each CPU's timer wakeups were (docs/formats.md, "
		"\"Probe file\")\n");
	fprintf(out, "format %d\n", PROBE_FORMAT);
	fprintf(out, "period_ns %" PRIu64 "\n", r->period_ns);
	fprintf(out, "threshold_ns %" PRIu64 "\n", r->threshold_ns);
	fprintf(out, "fifo_prio %d\n", r->fifo_prio);
	fprintf(out, "dma_latency %d\n", r->dma_latency ? 1 : 0);
	fprintf(out, "clock_pair %" PRIu64 " %" PRIu64 "\n", r->mono0_ns, r->real0_ns);
	fprintf(out, "start_ns %" PRIu64 "\n", r->start_ns);
	fprintf(out, "end_ns %" PRIu64 "\n", r->end_ns);
	fprintf(out, "self_cpu_ns %" PRIu64 "\n", r->self_cpu_ns);
	fprintf(out, "bins %d %" PRIu64 "\n", LAT_BINS, (uint64_t)LAT_BIN_NS);
	fprintf(out, "percentile nearest-rank\n");
	for (size_t i = 0; i < r->n_cpus; i++) {
		const struct probe_cpu *c = &r->cpus[i];

		fprintf(out, "cpu %d wakeups %" PRIu64 " missed %" PRIu64 " overflow %" PRIu64
			" late %zu late_dropped %" PRIu64 " worst_ns %" PRIu64 " mean_ns %" PRIu64,
			c->cpu, c->hist.n, c->missed, c->hist.overflow, c->n_late, c->late_dropped,
			c->hist.worst_ns, c->hist.n ? c->hist.sum_ns / c->hist.n : 0);
		pct_field(out, "p50_us", &c->hist, 500000);
		pct_field(out, "p99_us", &c->hist, 990000);
		pct_field(out, "p999_us", &c->hist, 999000);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->n_cpus; i++) {
		const struct probe_cpu *c = &r->cpus[i];

		for (size_t b = 0; b < LAT_BINS; b++)
			if (lat_hist_bin(&c->hist, b))
				fprintf(out, "hist %d %zu %" PRIu64 "\n", c->cpu, b,
					lat_hist_bin(&c->hist, b));
	}
	for (size_t i = 0; i < r->n_cpus; i++) {
		const struct probe_cpu *c = &r->cpus[i];

		for (size_t k = 0; k < c->n_late; k++)
			fprintf(out, "late %d %" PRIu64 " %" PRIu64 "\n", c->cpu, c->late[k].mono_ns,
				c->late[k].late_ns);
	}
	fprintf(out, "end\n");
	if (fflush(out) == EOF || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- the reader ---- */

#define MAX_FIELDS 32

static int split(char *line, char **f)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t", &save); t && n < MAX_FIELDS; t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	return n;
}

static int u64_of(const char *s, uint64_t *out)
{
	return safe_atou64(s, out);
}

static struct probe_cpu *find_cpu(struct probe_result *r, const char *s)
{
	int cpu;

	if (safe_atoi(s, &cpu) < 0)
		return NULL;
	for (size_t i = 0; i < r->n_cpus; i++)
		if (r->cpus[i].cpu == cpu)
			return &r->cpus[i];
	return NULL;
}

/* "cpu N key value ...": a new CPU, its counts (the percentiles are
 * derived, and rebuilt from the histogram). */
static int parse_cpu(struct probe_result *r, char **f, int n)
{
	struct probe_cpu *c;
	int cpu;

	/* the probe takes its CPUs from a cpu_set_t: none past CPU_SETSIZE,
	 * each once, so no more than CPU_SETSIZE of them */
	if (n < 2 || n % 2 || safe_atoi(f[1], &cpu) < 0 || cpu < 0 || cpu >= CPU_SETSIZE ||
	    find_cpu(r, f[1]))
		return -EINVAL;
	r->cpus = xrealloc(r->cpus, (r->n_cpus + 1) * sizeof(*r->cpus));
	c = &r->cpus[r->n_cpus++];
	memset(c, 0, sizeof(*c)); /* the histogram sparse: what the file lists */
	c->cpu = cpu;
	for (int i = 2; i < n; i += 2) {
		uint64_t v;

		if (strcmp(f[i], "missed") == 0 && u64_of(f[i + 1], &v) == 0)
			c->missed = v;
		else if (strcmp(f[i], "late_dropped") == 0 && u64_of(f[i + 1], &v) == 0)
			c->late_dropped = v;
		else if (strcmp(f[i], "worst_ns") == 0 && u64_of(f[i + 1], &v) == 0)
			c->hist.worst_ns = v;
		else if (strcmp(f[i], "overflow") == 0 && u64_of(f[i + 1], &v) == 0)
			c->hist.overflow = v;
		else if (strcmp(f[i], "wakeups") == 0 && u64_of(f[i + 1], &v) == 0)
			c->hist.n = v;  /* checked against the bins at the end */
		else if (strcmp(f[i], "mean_ns") == 0 && u64_of(f[i + 1], &v) == 0)
			c->hist.sum_ns = v; /* times n at the end */
		else if (!str_startswith(f[i], "p") && strcmp(f[i], "late") != 0)
			return -EINVAL;
	}
	return 0;
}

static int parse_line(struct probe_result *r, char *line, bool *ended, const char **what)
{
	char *f[MAX_FIELDS];
	int n = split(line, f);
	struct probe_cpu *c;
	uint64_t a, b;

	*what = "bad line";
	if (n == 0 || f[0][0] == '#')
		return 0;
	if (*ended) {
		*what = "text after 'end'";
		return -EINVAL;
	}
	if (strcmp(f[0], "format") == 0) {
		if (n != 2 || strcmp(f[1], "1") != 0) {
			*what = "format is not 1";
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(f[0], "end") == 0 && n == 1) {
		*ended = true;
		return 0;
	}
	if (strcmp(f[0], "cpu") == 0)
		return parse_cpu(r, f, n);
	if (strcmp(f[0], "hist") == 0 || strcmp(f[0], "late") == 0) {
		if (n != 4 || !(c = find_cpu(r, f[1])) || u64_of(f[2], &a) < 0 || u64_of(f[3], &b) < 0) {
			*what = "wants CPU (one of the 'cpu' lines before) and two numbers";
			return -EINVAL;
		}
		if (f[0][0] == 'h') {
			if (a >= LAT_BINS) {
				*what = "bin beyond the histogram";
				return -EINVAL;
			}
			c->hist.sparse = xrealloc(c->hist.sparse,
						  (c->hist.n_sparse + 1) * sizeof(*c->hist.sparse));
			c->hist.sparse[c->hist.n_sparse].bin = (uint32_t)a;
			c->hist.sparse[c->hist.n_sparse++].count = b;
		} else {
			if (c->n_late == c->cap_late) {
				c->cap_late = c->cap_late ? c->cap_late * 2 : 64;
				c->late = xrealloc(c->late, c->cap_late * sizeof(*c->late));
			}
			c->late[c->n_late].mono_ns = a;
			c->late[c->n_late].late_ns = b;
			c->n_late++;
		}
		return 0;
	}
	if (strcmp(f[0], "clock_pair") == 0) {
		if (n != 3 || u64_of(f[1], &r->mono0_ns) < 0 || u64_of(f[2], &r->real0_ns) < 0)
			return -EINVAL;
		return 0;
	}
	if (strcmp(f[0], "bins") == 0) {
		if (n != 3 || u64_of(f[1], &a) < 0 || u64_of(f[2], &b) < 0 || a != LAT_BINS ||
		    b != LAT_BIN_NS) {
			*what = "a histogram this reader does not know (bins)";
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(f[0], "percentile") == 0 && n == 2)
		return 0;
	if (n != 2 || u64_of(f[1], &a) < 0)
		return 0;  /* a key a later writer added: not ours to refuse */
	if (strcmp(f[0], "period_ns") == 0)
		r->period_ns = a;
	else if (strcmp(f[0], "threshold_ns") == 0)
		r->threshold_ns = a;
	else if (strcmp(f[0], "fifo_prio") == 0)
		r->fifo_prio = (int)a;
	else if (strcmp(f[0], "dma_latency") == 0)
		r->dma_latency = a != 0;
	else if (strcmp(f[0], "start_ns") == 0)
		r->start_ns = a;
	else if (strcmp(f[0], "end_ns") == 0)
		r->end_ns = a;
	else if (strcmp(f[0], "self_cpu_ns") == 0)
		r->self_cpu_ns = a;
	return 0;
}

static int cmp_bin(const void *a, const void *b)
{
	uint32_t x = ((const struct lat_bin *)a)->bin, y = ((const struct lat_bin *)b)->bin;

	return x < y ? -1 : x > y;
}

/* Sorts a histogram read from a file by bin, a bin listed twice summed
 * into one. true when a sum wrapped. */
static bool sparse_merge(struct lat_hist *h)
{
	size_t k = 0;
	bool wrapped = false;

	if (!h->n_sparse)
		return false;
	qsort(h->sparse, h->n_sparse, sizeof(*h->sparse), cmp_bin);
	for (size_t i = 1; i < h->n_sparse; i++) {
		if (h->sparse[i].bin == h->sparse[k].bin)
			wrapped |= __builtin_add_overflow(h->sparse[k].count, h->sparse[i].count,
							  &h->sparse[k].count);
		else
			h->sparse[++k] = h->sparse[i];
	}
	h->n_sparse = k + 1;
	return wrapped;
}

int probe_result_parse(const char *text, struct probe_result *r, struct strbuf *err)
{
	char *copy = xstrdup(text), *line, *next;
	bool ended = false, format = false;
	int lineno = 0, ret = 0;
	const char *what = "";

	memset(r, 0, sizeof(*r));
	for (line = copy; line && ret == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (str_startswith(line, "format "))
			format = true;
		ret = parse_line(r, line, &ended, &what);
	}
	if (ret < 0) {
		strbuf_addf(err, "line %d: %s", lineno, what);
	} else if (!format) {
		strbuf_addstr(err, "no 'format' line: not a probe file");
		ret = -EINVAL;
	} else if (!ended) {
		strbuf_addstr(err, "no 'end' line: the file is cut short");
		ret = -EINVAL;
	}
	for (size_t i = 0; i < r->n_cpus && ret == 0; i++) {
		struct probe_cpu *c = &r->cpus[i];
		uint64_t sum = c->hist.overflow;
		bool wrapped = sparse_merge(&c->hist);

		for (size_t b = 0; b < c->hist.n_sparse; b++)
			wrapped |= __builtin_add_overflow(sum, c->hist.sparse[b].count, &sum);
		if (wrapped || sum != c->hist.n) {
			strbuf_addf(err, "cpu %d: %" PRIu64 " wakeups, but its histogram holds %" PRIu64,
				    c->cpu, c->hist.n, sum);
			ret = -EINVAL;
		}
		c->hist.sum_ns *= c->hist.n;
	}
	free(copy);
	if (ret < 0)
		probe_result_release(r);
	return ret;
}

int probe_result_read(const char *path, struct probe_result *r, struct strbuf *err)
{
	char *text = NULL;
	size_t len;
	int ret = read_file(path, &text, &len);

	if (ret < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	}
	ret = probe_result_parse(text, r, err);
	free(text);
	return ret;
}
