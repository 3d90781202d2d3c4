/*
 * Sensor discovery and sampling (sensors.h). Discovery walks the sysfs and
 * procfs directories under the root once and opens one file per source;
 * sampling only preads. The column naming rules are in docs/formats.md.
 */
#include "system/sensors.h"
#include "system/sensors-parse.h"
#include "system/fsroot.h"
#include "system/hostnoise.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum source_type {
	SRC_VALUE,   /* one integer, times scale */
	SRC_STAT,    /* proc/stat: field 0 busy %, 1 iowait %, 2 steal %, 3 irq %, 4 softirq %,
		      * then STAT_CPU_FIELD(k, 0..2): steal, irq, softirq % of the k-th cpuN line */
	SRC_MEMINFO, /* proc/meminfo: field 0 available MiB, 1 swap used MiB */
	SRC_PSI,     /* proc/pressure/X: field 0 some %, 1 full % */
};

struct sensor_source {
	int fd;
	enum source_type type;
	double scale;
	size_t ch0, nch; /* its channels, contiguous in s->ch */
	bool have_prev;
	struct cpu_ticks prev_ticks;
	struct psi_totals prev_psi;
	/* SRC_STAT: every cpu line, as the last sample read them and now */
	struct noise_ticks prev_all, cur_all;
	struct noise_ticks *prev_cpu, *cur_cpu;
	int *prev_id, *cur_id;
	size_t ncpu;        /* room in the arrays (the cpuN lines at discovery) */
};

#define STAT_CPU_FIELD(k, i) (5 + 3 * (int)(k) + (i))

static const char *sensor_kind_name(enum sensor_kind kind)
{
	static const char *const names[] = { "temp", "fan", "freq", "throttle", "cpu", "mem", "psi" };

	return (size_t)kind < ARRAY_SIZE(names) ? names[kind] : "?";
}

/* ---- discovery ---- */

static bool fits(int n, size_t size)
{
	return n >= 0 && (size_t)n < size;
}

/* Copies src into dst, cut short where it does not fit. */
static void copy_part(char *dst, size_t size, const char *src)
{
	size_t len = strnlen(src, size - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* name is prefix, a decimal number, then exactly suffix: 1 and *idx, else 0. */
static int indexed_name(const char *name, const char *prefix, const char *suffix, unsigned *idx)
{
	size_t plen = strlen(prefix);
	char *end;
	unsigned long v;

	if (strncmp(name, prefix, plen) || !isdigit((unsigned char)name[plen]))
		return 0;
	errno = 0;
	v = strtoul(name + plen, &end, 10);
	if (errno || v > UINT_MAX || strcmp(end, suffix))
		return 0;
	*idx = (unsigned)v;
	return 1;
}

/* The entries of a directory under the root in version order ("hwmon2"
 * before "hwmon10"); 0 entries when it cannot be listed. Caller frees. */
static int list_dir(const char *rel, struct dirent ***list)
{
	char *path = xasprintf("%s/%s", fsroot(), rel);
	int n = scandir(path, list, NULL, versionsort);

	free(path);
	if (n < 0) {
		*list = NULL;
		return 0;
	}
	return n;
}

static void free_list(struct dirent **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Opens rel under the root and checks that it parses as type: the source's
 * index, or -1 (left out). */
static int add_source(struct sensors *s, const char *rel, enum source_type type, double scale)
{
	struct sensor_source *src;
	int fd = fsroot_open(rel, O_RDONLY);
	ssize_t n;
	int ok = 0;

	if (fd < 0)
		return -1;
	n = pread(fd, s->buf, sizeof(s->buf) - 1, 0);
	if (n >= 0) {
		int64_t v;
		struct cpu_ticks t;
		struct mem_kb m;
		struct psi_totals p;

		s->buf[n] = '\0';
		switch (type) {
		case SRC_VALUE: ok = sensor_parse_int(s->buf, &v) == 0; break;
		case SRC_STAT: ok = sensor_parse_stat(s->buf, &t) == 0; break;
		case SRC_MEMINFO: ok = sensor_parse_meminfo(s->buf, &m) == 0; break;
		case SRC_PSI: ok = sensor_parse_psi(s->buf, &p) == 0; break;
		}
	}
	if (!ok) {
		close(fd);
		return -1;
	}
	if (s->nsrc == s->src_alloc) {
		s->src_alloc = s->src_alloc ? 2 * s->src_alloc : 16;
		s->src = xrealloc(s->src, s->src_alloc * sizeof(*s->src));
	}
	src = &s->src[s->nsrc];
	memset(src, 0, sizeof(*src));
	src->fd = fd;
	src->type = type;
	src->scale = scale;
	src->ch0 = s->n;
	return (int)s->nsrc++;
}

/* Appends a channel of source src (which must be the last source added). */
static void add_channel(struct sensors *s, int src, int field, enum sensor_kind kind,
			const char *unit, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void add_channel(struct sensors *s, int src, int field, enum sensor_kind kind,
			const char *unit, const char *rel, const char *fmt, ...)
{
	struct sensor_channel *c;
	va_list ap;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 32;
		s->ch = xrealloc(s->ch, s->alloc * sizeof(*s->ch));
	}
	c = &s->ch[s->n++];
	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	snprintf(c->source, sizeof(c->source), "%s", rel);
	c->unit = unit;
	c->kind = kind;
	c->src = src;
	c->field = field;
	s->src[src].nch++;
}

/* A one-value file as a channel of its own. */
static void add_value(struct sensors *s, const char *rel, double scale, enum sensor_kind kind,
		      const char *unit, const char *name)
{
	int src = add_source(s, rel, SRC_VALUE, scale);

	if (src >= 0)
		add_channel(s, src, 0, kind, unit, rel, "%s", name);
}

static void discover_thermal(struct sensors *s)
{
	struct dirent **list;
	int n = list_dir("sys/class/thermal", &list);

	for (int i = 0; i < n; i++) {
		char rel[SENSOR_PATH_MAX], type[64], name[SENSOR_NAME_MAX];
		unsigned zone;

		if (!indexed_name(list[i]->d_name, "thermal_zone", "", &zone))
			continue;
		/* the zone number is its name: thermal_zoneN is all d_name holds */
		snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u/type", zone);
		if (fsroot_read_line(rel, type, sizeof(type)) < 0)
			type[0] = '\0';
		sensor_name_part(type);
		snprintf(name, sizeof(name), "temp.zone%u%s%s", zone, *type ? "." : "", type);
		snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u/temp", zone);
		add_value(s, rel, 0.001, SENSOR_TEMP, "C", name);
	}
	free_list(list, n);
}

struct chip {
	char dir[64];    /* sys/class/hwmon/hwmonN */
	char name[48];   /* its name part, before any instance number */
	char *real;      /* the resolved directory: orders chips of the same name */
	unsigned inst;   /* instance among chips of the same name */
	bool shared;     /* another chip has the same name */
};

static int chip_cmp(const void *a, const void *b)
{
	const struct chip *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : strcmp(x->real, y->real);
}

/* The chip's name: its `name` file; without one, the bus and device its
 * `device` link points to ("platform_applesmc_768"); without that, its
 * directory ("hwmon4"). The resolved path of the chip directory is kept in
 * c->real. 0, or -1 when the entry is no directory. */
static int chip_identify(struct chip *c, const char *entry)
{
	char *path, *dev;
	char rel[128], buf[128];

	if (!fits(snprintf(c->dir, sizeof(c->dir), "sys/class/hwmon/%s", entry), sizeof(c->dir)))
		return -1;
	path = xasprintf("%s/%s", fsroot(), c->dir);
	c->real = realpath(path, NULL);
	free(path);
	if (!c->real)
		return -1;
	{
		DIR *d = opendir(c->real);

		if (!d)
			return -1;
		closedir(d);
	}
	snprintf(rel, sizeof(rel), "%s/name", c->dir);
	if (fsroot_read_line(rel, buf, sizeof(buf)) == 0 && *sensor_name_part(buf)) {
		copy_part(c->name, sizeof(c->name), buf);
		return 0;
	}
	path = xasprintf("%s/device", c->real);
	dev = realpath(path, NULL);
	free(path);
	if (dev) {
		char *base = strrchr(dev, '/');

		if (base && base != dev) {
			char *bus;

			*base++ = '\0';
			bus = strrchr(dev, '/');
			snprintf(buf, sizeof(buf), "%s_%s", bus ? bus + 1 : dev, base);
			if (*sensor_name_part(buf)) {
				copy_part(c->name, sizeof(c->name), buf);
				free(dev);
				return 0;
			}
		}
		free(dev);
	}
	copy_part(c->name, sizeof(c->name), strrchr(c->real, '/') + 1);
	sensor_name_part(c->name);
	return 0;
}

/* The temp*_input or fan*_input of one chip, labelled by their *_label;
 * a label two inputs share gets the input's own name appended. */
static void discover_chip_inputs(struct sensors *s, const struct chip *c, const char *chipname,
				 struct dirent **list, int n, const char *what, enum sensor_kind kind,
				 const char *unit, double scale)
{
	char (*labels)[48] = zalloc((size_t)n * sizeof(*labels));
	unsigned *idx = zalloc((size_t)n * sizeof(*idx));
	int m = 0;

	for (int i = 0; i < n; i++) {
		char rel[SENSOR_PATH_MAX];

		if (!indexed_name(list[i]->d_name, what, "_input", &idx[m]))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s%u_label", c->dir, what, idx[m]);
		if (fsroot_read_line(rel, labels[m], sizeof(labels[m])) < 0)
			labels[m][0] = '\0';
		sensor_name_part(labels[m]);
		if (!labels[m][0])
			snprintf(labels[m], sizeof(labels[m]), "%s%u", what, idx[m]);
		m++;
	}
	for (int i = 0; i < m; i++) {
		char rel[SENSOR_PATH_MAX], name[SENSOR_NAME_MAX];
		bool dup = false;

		for (int j = 0; j < m; j++)
			dup |= j != i && !strcmp(labels[i], labels[j]);
		snprintf(rel, sizeof(rel), "%s/%s%u_input", c->dir, what, idx[i]);
		if (dup)
			snprintf(name, sizeof(name), "%s.%s.%s_%s%u", sensor_kind_name(kind), chipname,
				 labels[i], what, idx[i]);
		else
			snprintf(name, sizeof(name), "%s.%s.%s", sensor_kind_name(kind), chipname,
				 labels[i]);
		add_value(s, rel, scale, kind, unit, name);
	}
	free(labels);
	free(idx);
}

static void discover_hwmon(struct sensors *s)
{
	struct dirent **list;
	int n = list_dir("sys/class/hwmon", &list);
	struct chip *chips = zalloc((size_t)(n ? n : 1) * sizeof(*chips));
	int m = 0;

	for (int i = 0; i < n; i++) {
		unsigned k;

		if (!indexed_name(list[i]->d_name, "hwmon", "", &k))
			continue;
		if (chip_identify(&chips[m], list[i]->d_name) == 0)
			m++;
		else
			free(chips[m].real);
	}
	free_list(list, n);
	/* hwmonN numbers follow module load order; name and device path do not */
	qsort(chips, (size_t)m, sizeof(*chips), chip_cmp);
	for (int i = 0; i < m; i++) {
		bool prev = i > 0 && !strcmp(chips[i - 1].name, chips[i].name);
		bool next = i + 1 < m && !strcmp(chips[i + 1].name, chips[i].name);

		chips[i].shared = prev || next;
		chips[i].inst = prev ? chips[i - 1].inst + 1 : 0;
	}
	for (int i = 0; i < m; i++) {
		struct dirent **files;
		int nf = list_dir(chips[i].dir, &files);
		char chipname[64];

		if (chips[i].shared)
			snprintf(chipname, sizeof(chipname), "%s%u", chips[i].name, chips[i].inst);
		else
			snprintf(chipname, sizeof(chipname), "%s", chips[i].name);
		discover_chip_inputs(s, &chips[i], chipname, files, nf, "temp", SENSOR_TEMP, "C", 0.001);
		discover_chip_inputs(s, &chips[i], chipname, files, nf, "fan", SENSOR_FAN, "rpm", 1);
		free_list(files, nf);
		free(chips[i].real);
	}
	free(chips);
}

static void discover_cpus(struct sensors *s)
{
	static const char *const throttles[] = { "core", "package" };
	struct dirent **list;
	int n = list_dir("sys/devices/system/cpu", &list);

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			char rel[SENSOR_PATH_MAX], name[SENSOR_NAME_MAX];
			unsigned cpu;

			if (!indexed_name(list[i]->d_name, "cpu", "", &cpu))
				continue;
			if (pass == 0) {
				snprintf(rel, sizeof(rel),
					 "sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq", cpu);
				snprintf(name, sizeof(name), "freq.cpu%u_mhz", cpu);
				add_value(s, rel, 0.001, SENSOR_FREQ, "MHz", name);
				continue;
			}
			for (size_t t = 0; t < ARRAY_SIZE(throttles); t++) {
				snprintf(rel, sizeof(rel),
					 "sys/devices/system/cpu/cpu%u/thermal_throttle/%s_throttle_count",
					 cpu, throttles[t]);
				snprintf(name, sizeof(name), "throttle.cpu%u.%s", cpu, throttles[t]);
				add_value(s, rel, 1, SENSOR_THROTTLE, "count", name);
			}
		}
	}
	free_list(list, n);
}

/* proc/stat's channels: busy and iowait, steal, irq and softirq of all
 * CPUs, then steal, irq and softirq of each (add_source left the file in
 * s->buf). */
static void discover_stat(struct sensors *s, int src)
{
	static const char *const what[] = { "steal", "irq", "softirq" };
	struct sensor_source *so = &s->src[src];
	struct noise_ticks all;
	size_t n = 0;

	add_channel(s, src, 0, SENSOR_CPU, "%", "proc/stat", "cpu.busy_pct");
	add_channel(s, src, 1, SENSOR_CPU, "%", "proc/stat", "cpu.iowait_pct");
	if (noise_stat_parse(s->buf, &all, NULL, NULL, 0, &n) < 0)
		return; /* cut short (a machine of hundreds of CPUs): the aggregate line alone */
	for (size_t i = 0; i < ARRAY_SIZE(what); i++)
		add_channel(s, src, 2 + (int)i, SENSOR_CPU, "%", "proc/stat", "cpu.%s_pct", what[i]);
	so->ncpu = n;
	so->prev_cpu = zalloc((n ? n : 1) * sizeof(*so->prev_cpu));
	so->cur_cpu = zalloc((n ? n : 1) * sizeof(*so->cur_cpu));
	so->prev_id = zalloc((n ? n : 1) * sizeof(*so->prev_id));
	so->cur_id = zalloc((n ? n : 1) * sizeof(*so->cur_id));
	noise_stat_parse(s->buf, &all, so->cur_cpu, so->cur_id, n, &n);
	for (size_t k = 0; k < so->ncpu; k++)
		for (size_t i = 0; i < ARRAY_SIZE(what); i++)
			add_channel(s, src, STAT_CPU_FIELD(k, i), SENSOR_CPU, "%", "proc/stat",
				    "cpu.cpu%d.%s_pct", so->cur_id[k], what[i]);
}

static void discover_proc(struct sensors *s)
{
	static const char *const psi[] = { "cpu", "io", "memory" };
	int src = add_source(s, "proc/stat", SRC_STAT, 1);

	if (src >= 0)
		discover_stat(s, src);
	src = add_source(s, "proc/meminfo", SRC_MEMINFO, 1);
	if (src >= 0) {
		struct mem_kb m;

		/* add_source left the file in s->buf, and it parsed */
		sensor_parse_meminfo(s->buf, &m);
		if (m.available >= 0)
			add_channel(s, src, 0, SENSOR_MEM, "MiB", "proc/meminfo", "mem.avail_mib");
		if (m.swap_total >= 0 && m.swap_free >= 0)
			add_channel(s, src, 1, SENSOR_MEM, "MiB", "proc/meminfo", "swap.used_mib");
		if (!s->src[src].nch) {
			close(s->src[src].fd);
			s->nsrc--;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(psi); i++) {
		char rel[64];
		struct psi_totals p;

		snprintf(rel, sizeof(rel), "proc/pressure/%s", psi[i]);
		src = add_source(s, rel, SRC_PSI, 1);
		if (src < 0)
			continue;
		sensor_parse_psi(s->buf, &p);
		if (p.some_us >= 0)
			add_channel(s, src, 0, SENSOR_PSI, "%", rel, "psi.%s.some_pct", psi[i]);
		if (!s->src[src].nch) {
			close(s->src[src].fd);
			s->nsrc--;
		}
	}
}

int sensors_open(struct sensors *s)
{
	memset(s, 0, sizeof(*s));
	discover_thermal(s);
	discover_hwmon(s);
	discover_cpus(s);
	discover_proc(s);
	return 0;
}

void sensors_release(struct sensors *s)
{
	for (size_t i = 0; i < s->nsrc; i++) {
		close(s->src[i].fd);
		free(s->src[i].prev_cpu);
		free(s->src[i].cur_cpu);
		free(s->src[i].prev_id);
		free(s->src[i].cur_id);
	}
	free(s->src);
	free(s->ch);
	memset(s, 0, sizeof(*s));
}

int sensors_find(const struct sensors *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ch[i].name, name))
			return (int)i;
	return -1;
}

/* ---- sampling ---- */

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : NAN;
}

/* A share of a cpu line's ticks over the interval: field f (NF_STEAL,
 * NF_IRQ with softirq added, NF_SOFTIRQ). */
static double ticks_pct(const struct noise_ticks *a, const struct noise_ticks *b, int f)
{
	uint64_t ta = noise_ticks_total(a), tb = noise_ticks_total(b), part;

	if (tb <= ta || b->f[f] < a->f[f] || b->f[NF_SOFTIRQ] < a->f[NF_SOFTIRQ])
		return NAN;
	part = b->f[f] - a->f[f];
	if (f == NF_IRQ)
		part += b->f[NF_SOFTIRQ] - a->f[NF_SOFTIRQ];
	return pct(part, tb - ta);
}

/* The steal, irq and softirq channels of proc/stat (fields 2 and up). */
static double stat_field(const struct sensor_source *src, int field)
{
	static const int which[] = { NF_STEAL, NF_IRQ, NF_SOFTIRQ };
	size_t k;

	if (field < 5)
		return ticks_pct(&src->prev_all, &src->cur_all, which[field - 2]);
	k = (size_t)(field - 5) / 3;
	/* the same CPU at the same place in both readings (none went offline) */
	if (k >= src->ncpu || src->prev_id[k] != src->cur_id[k])
		return NAN;
	return ticks_pct(&src->prev_cpu[k], &src->cur_cpu[k], which[(field - 5) % 3]);
}

/* proc/stat's per-CPU part: the cpu lines of this sample, and whether the
 * last sample had them too. */
static bool stat_cpus(struct sensor_source *src, const char *buf, bool had_prev)
{
	struct noise_ticks *t;
	int *id;
	size_t n;
	bool ok;

	if (!src->ncpu)
		return false;
	t = src->prev_cpu, src->prev_cpu = src->cur_cpu, src->cur_cpu = t;
	id = src->prev_id, src->prev_id = src->cur_id, src->cur_id = id;
	src->prev_all = src->cur_all;
	ok = noise_stat_parse(buf, &src->cur_all, src->cur_cpu, src->cur_id, src->ncpu, &n) == 0;
	if (!ok)
		n = 0;
	for (size_t k = n; k < src->ncpu; k++)
		src->cur_id[k] = -1; /* fewer CPUs now, or none read: no value */
	return ok && had_prev;
}

static void sample_source(struct sensors *s, struct sensor_source *src, double *values)
{
	ssize_t n = pread(src->fd, s->buf, sizeof(s->buf) - 1, 0);
	double v[2] = { NAN, NAN };
	bool have_cpus = false;
	double dt_us = (double)(s->t_ns - s->prev_t_ns) / 1000.0;
	int64_t i64;
	struct cpu_ticks t;
	struct mem_kb m;
	struct psi_totals p;

	s->buf[n < 0 ? 0 : n] = '\0';
	switch (src->type) {
	case SRC_VALUE:
		if (n > 0 && sensor_parse_int(s->buf, &i64) == 0)
			v[0] = (double)i64 * src->scale;
		break;
	case SRC_STAT:
		if (n <= 0 || sensor_parse_stat(s->buf, &t) < 0) {
			src->have_prev = false;
			break;
		}
		/* fields 2 and up: from the cpu lines, here */
		have_cpus = stat_cpus(src, s->buf, src->have_prev);
		for (size_t c = src->ch0; c < src->ch0 + src->nch; c++)
			if (s->ch[c].field >= 2)
				values[c] = have_cpus ? stat_field(src, s->ch[c].field) : NAN;
		if (src->have_prev && t.total > src->prev_ticks.total && t.idle >= src->prev_ticks.idle &&
		    t.iowait >= src->prev_ticks.iowait) {
			uint64_t dt = t.total - src->prev_ticks.total;
			uint64_t didle = t.idle - src->prev_ticks.idle;

			v[0] = didle <= dt ? pct(dt - didle, dt) : NAN;
			v[1] = pct(t.iowait - src->prev_ticks.iowait, dt);
		}
		src->prev_ticks = t;
		src->have_prev = true;
		break;
	case SRC_MEMINFO:
		if (n <= 0 || sensor_parse_meminfo(s->buf, &m) < 0)
			break;
		if (m.available >= 0)
			v[0] = (double)m.available / 1024.0;
		if (m.swap_total >= 0 && m.swap_free >= 0)
			v[1] = (double)(m.swap_total - m.swap_free) / 1024.0;
		break;
	case SRC_PSI:
		if (n <= 0 || sensor_parse_psi(s->buf, &p) < 0) {
			src->have_prev = false;
			break;
		}
		if (src->have_prev && s->prev_t_ns && dt_us > 0) {
			if (p.some_us >= src->prev_psi.some_us && src->prev_psi.some_us >= 0)
				v[0] = 100.0 * (double)(p.some_us - src->prev_psi.some_us) / dt_us;
			if (p.full_us >= src->prev_psi.full_us && src->prev_psi.full_us >= 0)
				v[1] = 100.0 * (double)(p.full_us - src->prev_psi.full_us) / dt_us;
		}
		src->prev_psi = p;
		src->have_prev = true;
		break;
	}
	for (size_t c = src->ch0; c < src->ch0 + src->nch; c++)
		if (s->ch[c].field < 2)
			values[c] = v[s->ch[c].field];
		else if (!have_cpus)
			values[c] = NAN;
}

int sensors_sample(struct sensors *s, double *values)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return -errno;
	s->prev_t_ns = s->t_ns;
	s->t_ns = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	for (size_t i = 0; i < s->nsrc; i++)
		sample_source(s, &s->src[i], values);
	return 0;
}
