/*
 * Host noise snapshots and their difference (see hostnoise.h).
 */
#include "system/hostnoise.h"
#include "system/fsroot.h"
#include "system/procparse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/timeutil.h"

/* Room for the cpu lines of this many CPUs more than the machine had when
 * the reader opened (CPUs brought online later). */
#define CPU_SLACK 4
/* The children of a thread, and a process's threads read at once. */
#define CHILDREN_BUF 4096
#define DENTS_BUF 8192

uint64_t noise_ticks_total(const struct noise_ticks *t)
{
	uint64_t sum = 0;

	for (int i = NF_USER; i <= NF_STEAL; i++)
		sum += t->f[i];
	return sum;
}

uint64_t noise_ticks_busy(const struct noise_ticks *t)
{
	return t->f[NF_USER] + t->f[NF_NICE] + t->f[NF_SYSTEM] + t->f[NF_IRQ] + t->f[NF_SOFTIRQ];
}

/* ---- the parse layer ---- */

/* The numbers after a cpu line's name, up to the newline. The line must
 * end in a newline (a cut buffer is -EOVERFLOW). */
static int parse_cpu_fields(const char **pp, struct noise_ticks *t)
{
	const char *p = *pp;
	int n = 0;

	memset(t, 0, sizeof(*t));
	for (;;) {
		char *end;

		while (*p == ' ')
			p++;
		if (*p == '\n')
			break;
		if (*p == '\0')
			return -EOVERFLOW;
		if (!isdigit((unsigned char)*p) || n == NOISE_NFIELDS)
			return -EINVAL;
		errno = 0;
		t->f[n++] = strtoull(p, &end, 10);
		if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -EINVAL;
		p = end;
	}
	if (n < 4) /* user nice system idle at least */
		return -EINVAL;
	*pp = p + 1;
	return 0;
}

int noise_stat_parse(const char *buf, struct noise_ticks *all, struct noise_ticks *cpu, int *id,
		     size_t max, size_t *ncpu)
{
	const char *p = buf;
	struct noise_ticks t, first;
	size_t n = 0;
	int r;

	if (strncmp(p, "cpu ", 4) != 0)
		return -ENOENT;
	p += 3;
	r = parse_cpu_fields(&p, &first);
	if (r < 0)
		return r;
	while (strncmp(p, "cpu", 3) == 0) {
		char *end;
		long k;

		if (!isdigit((unsigned char)p[3])) {
			/* a cut "cpu" with nothing after it */
			if (p[3] == '\0')
				return -EOVERFLOW;
			return -EINVAL;
		}
		errno = 0;
		k = strtol(p + 3, &end, 10);
		if (errno || k < 0 || k > 1 << 20)
			return -EINVAL;
		if (*end == '\0')
			return -EOVERFLOW;
		if (*end != ' ')
			return -EINVAL;
		p = end;
		r = parse_cpu_fields(&p, &t);
		if (r < 0)
			return r;
		if (n < max) {
			cpu[n] = t;
			id[n] = (int)k;
		}
		n++;
	}
	/* a buffer cut inside the next line's "cpu" is cut, not the end */
	if (*p && strlen(p) < 3 && !strncmp(p, "cpu", strlen(p)))
		return -EOVERFLOW;
	*all = first;
	*ncpu = n;
	return 0;
}

int noise_cpuinfo_hypervisor(const char *buf)
{
	bool have_flags = false;

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *colon, *eol = strchrnul(p, '\n');
		size_t len;

		if (strncmp(p, "flags", 5) != 0 || (p[5] != '\t' && p[5] != ' ' && p[5] != ':'))
			continue;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon)
			continue;
		have_flags = true;
		len = strlen("hypervisor");
		for (const char *w = colon + 1; w < eol;) {
			size_t wl;

			while (w < eol && *w == ' ')
				w++;
			wl = strcspn(w, " \n");
			if (wl == len && !strncmp(w, "hypervisor", len))
				return 1;
			w += wl;
		}
	}
	return have_flags ? 0 : -ENOENT;
}

int noise_pid_ticks(const char *buf, uint64_t *ticks)
{
	struct pstat st;

	if (pstat_parse(buf, &st) < 0 || st.cutime < 0 || st.cstime < 0)
		return -EINVAL;
	*ticks = st.utime + st.stime + (uint64_t)st.cutime + (uint64_t)st.cstime;
	return 0;
}

int noise_children_parse(const char *buf, pid_t *out, size_t max)
{
	const char *p = buf;
	size_t n = 0;

	for (;;) {
		char *end;
		long v;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > INT32_MAX || (*end != ' ' && *end != '\n' && *end))
			return -EINVAL;
		if (n < max)
			out[n] = (pid_t)v;
		n++;
		p = end;
	}
	return n > INT32_MAX ? -EINVAL : (int)n;
}

/* ---- reading ---- */

/* Reads rel (relative to the root) into r->buf, NUL-terminated. Bytes or
 * -errno; a file longer than the buffer is cut (callers parse prefixes). */
ssize_t noise_read_rel(struct noise_reader *r, const char *rel)
{
	int fd = openat(r->root_fd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, r->buf, r->size - 1, 0);
	if (n < 0)
		n = -errno;
	else
		r->buf[n] = '\0';
	close(fd);
	return n;
}

/* proc/stat into r->buf and its cpu lines parsed. -EOVERFLOW only when
 * the read filled the buffer (more may follow: a bigger one may do); a cpu
 * line cut by the file's end is -EINVAL. */
static int read_stat(struct noise_reader *r, struct noise_ticks *all, struct noise_ticks *cpu,
		     int *id, size_t max, size_t *ncpu)
{
	ssize_t n = pread(r->stat_fd, r->buf, r->size - 1, 0);
	int ret;

	if (n < 0)
		return -errno;
	r->buf[n] = '\0';
	ret = noise_stat_parse(r->buf, all, cpu, id, max, ncpu);
	if (ret == -EOVERFLOW && (size_t)n < r->size - 1)
		return -EINVAL;
	return ret;
}

int noise_reader_open(struct noise_reader *r)
{
	struct noise_ticks all;
	char *cpuinfo = NULL;
	size_t ncpu;
	int ret;

	memset(r, 0, sizeof(*r));
	r->stat_fd = -1;
	r->root_fd = open(fsroot(), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->root_fd < 0)
		return -errno;
	r->hz = sysconf(_SC_CLK_TCK);
	if (r->hz <= 0)
		r->hz = 100;
	ret = fsroot_read_all("proc/cpuinfo", &cpuinfo);
	r->hypervisor = ret < 0 ? ret : noise_cpuinfo_hypervisor(cpuinfo);
	free(cpuinfo);
	r->stat_fd = openat(r->root_fd, "proc/stat", O_RDONLY | O_CLOEXEC);
	if (r->stat_fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* first with room for 64 CPUs, then as many as there are, up to the
	 * kernel's most (a file that still does not fit is no /proc/stat) */
	r->size = 64 * NOISE_CPU_LINE_MAX;
	r->buf = xrealloc(NULL, r->size);
	while ((ret = read_stat(r, &all, NULL, NULL, 0, &ncpu)) == -EOVERFLOW &&
	       r->size < NOISE_STAT_MAX) {
		r->size = r->size * 2 < NOISE_STAT_MAX ? r->size * 2 : NOISE_STAT_MAX;
		r->buf = xrealloc(r->buf, r->size);
	}
	if (ret == -EOVERFLOW)
		ret = -EFBIG;
	if (ret < 0)
		goto fail;
	r->cpu_max = ncpu + CPU_SLACK;
	if ((r->cpu_max + 1) * NOISE_CPU_LINE_MAX > r->size) {
		r->size = (r->cpu_max + 1) * NOISE_CPU_LINE_MAX;
		r->buf = xrealloc(r->buf, r->size);
	}
	if (r->size < CHILDREN_BUF)
		r->size = CHILDREN_BUF;
	r->buf = xrealloc(r->buf, r->size);
	return 0;
fail:
	noise_reader_close(r);
	return ret;
}

void noise_reader_close(struct noise_reader *r)
{
	if (r->stat_fd >= 0)
		close(r->stat_fd);
	if (r->root_fd >= 0)
		close(r->root_fd);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->stat_fd = r->root_fd = -1;
}

void noise_snapshot_init(struct noise_snapshot *s, const struct noise_reader *r)
{
	memset(s, 0, sizeof(*s));
	s->cpu = zalloc((r->cpu_max ? r->cpu_max : 1) * sizeof(*s->cpu));
	s->cpu_id = zalloc((r->cpu_max ? r->cpu_max : 1) * sizeof(*s->cpu_id));
}

void noise_snapshot_release(struct noise_snapshot *s)
{
	free(s->cpu);
	free(s->cpu_id);
	memset(s, 0, sizeof(*s));
}

static uint64_t ticks_ns(uint64_t ticks, long hz)
{
	/* exact for the usual 100 and 1000; no overflow before 5.8e8 days */
	return ticks / (uint64_t)hz * NSEC_PER_SEC + ticks % (uint64_t)hz * NSEC_PER_SEC / (uint64_t)hz;
}

/* The CPU time of the processes, since they began; how many were read
 * into *procs. */
static uint64_t pids_cpu_ns(struct noise_reader *r, const pid_t *pid, size_t n, size_t *procs)
{
	uint64_t sum = 0;

	*procs = 0;
	for (size_t i = 0; i < n; i++) {
		char rel[48];
		uint64_t ticks;

		snprintf(rel, sizeof(rel), "proc/%d/stat", (int)pid[i]);
		if (noise_read_rel(r, rel) <= 0 || noise_pid_ticks(r->buf, &ticks) < 0)
			continue; /* gone meanwhile */
		sum += ticks;
		(*procs)++;
	}
	return sum;
}

int noise_each_entry(struct noise_reader *r, const char *rel, int (*fn)(struct noise_reader *r, int id, void *arg),
		     void *arg)
{
	char dents[DENTS_BUF];
	ssize_t len;
	int dfd, ret = 0;

	dfd = openat(r->root_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	while (ret == 0 && (len = getdents64(dfd, dents, sizeof(dents))) > 0) {
		for (ssize_t off = 0; ret == 0 && off < len;) {
			struct dirent64 *de = (struct dirent64 *)(dents + off);
			int id;

			off += de->d_reclen;
			if (safe_atoi(de->d_name, &id) == 0 && id > 0)
				ret = fn(r, id, arg);
		}
	}
	if (ret == 0 && len < 0)
		ret = -errno;
	close(dfd);
	return ret;
}

struct runq_walk {
	pid_t pid;
	struct noise_snapshot *s;
};

static int add_runq(struct noise_reader *r, int tid, void *arg)
{
	struct runq_walk *w = arg;
	struct pschedstat st;
	char path[96];

	snprintf(path, sizeof(path), "proc/%d/task/%d/schedstat", (int)w->pid, tid);
	if (noise_read_rel(r, path) > 0 && pschedstat_parse(r->buf, &st) == 0) {
		w->s->game_runq_ns += st.runq_ns;
		w->s->game_threads++;
	}
	return 0;
}

/* The run-queue delay of every thread of pid, added to *s. */
static void pid_runq(struct noise_reader *r, pid_t pid, struct noise_snapshot *s)
{
	struct runq_walk w = { pid, s };
	char rel[48];

	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	noise_each_entry(r, rel, add_runq, &w);
}

int noise_snapshot_take(struct noise_reader *r, const pid_t *run, size_t nrun, const pid_t *game,
			size_t ngame, struct noise_snapshot *s)
{
	int ret;

	s->t_ns = mono_ns();
	ret = read_stat(r, &s->all, s->cpu, s->cpu_id, r->cpu_max, &s->ncpu);
	if (ret < 0)
		return ret;
	if (s->ncpu > r->cpu_max)
		s->ncpu = r->cpu_max;
	s->run_cpu_ns = ticks_ns(pids_cpu_ns(r, run, nrun, &s->run_procs), r->hz);
	s->game_cpu_ns = ticks_ns(pids_cpu_ns(r, game, ngame, &s->game_procs), r->hz);
	s->game_runq_ns = 0;
	s->game_threads = 0;
	for (size_t i = 0; i < ngame; i++)
		pid_runq(r, game[i], s);
	s->have_schedstat = s->game_threads > 0 || s->game_procs == 0;
	return 0;
}

struct children_walk {
	pid_t pid;
	pid_t *out;
	size_t *n, max;
	bool any;
	bool none;   /* the kernel has no children files */
};

static int add_thread_children(struct noise_reader *r, int tid, void *arg)
{
	struct children_walk *w = arg;
	char path[96];
	ssize_t got;
	int k;

	snprintf(path, sizeof(path), "proc/%d/task/%d/children", (int)w->pid, tid);
	got = noise_read_rel(r, path);
	if (got < 0) {
		if (got == -ENOENT && !w->any) {
			w->none = true;
			return -ECANCELED;
		}
		return 0;
	}
	w->any = true;
	k = noise_children_parse(r->buf, *w->n < w->max ? w->out + *w->n : w->out,
				 *w->n < w->max ? w->max - *w->n : 0);
	if (k > 0)
		*w->n += (size_t)k;
	return 0;
}

/* The children of every thread of pid, appended to out[*n ..] (up to max).
 * 0 (a pid gone meanwhile has none), -ENOENT: no children files. */
static int add_children(struct noise_reader *r, pid_t pid, pid_t *out, size_t *n, size_t max)
{
	struct children_walk w = { .pid = pid, .out = out, .n = n, .max = max };
	char rel[48];

	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	noise_each_entry(r, rel, add_thread_children, &w);
	return w.none ? -ENOENT : 0;
}

int noise_descendants(struct noise_reader *r, pid_t pid, pid_t *out, size_t max)
{
	size_t n = 0;

	if (max > 0)
		out[0] = pid;
	n = 1;
	/* breadth first: out[] is the queue; past max the tree is only counted */
	for (size_t i = 0; i < n && i < max; i++) {
		int ret = add_children(r, out[i], out, &n, max);

		if (ret < 0 && i == 0)
			return ret;
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

/* ---- the figures ---- */

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

int noise_diff(const struct noise_snapshot *a, const struct noise_snapshot *b, int hypervisor,
	       long hz, struct noise_figures *out)
{
	struct noise_figures f;
	uint64_t total = delta(noise_ticks_total(&a->all), noise_ticks_total(&b->all));
	uint64_t steal_boot = 0;
	double interval_s, busy_ns, run_ns, worst = -1;
	int worst_id = -1;

	if (b->t_ns <= a->t_ns || total == 0 || hz <= 0)
		return -EINVAL;
	memset(&f, 0, sizeof(f));
	f.t0_ns = a->t_ns;
	f.t1_ns = b->t_ns;
	f.cpus = b->ncpu;
	interval_s = (double)(b->t_ns - a->t_ns) / 1e9;
	f.irq_pct = 100.0 * (double)(delta(a->all.f[NF_IRQ], b->all.f[NF_IRQ]) +
				     delta(a->all.f[NF_SOFTIRQ], b->all.f[NF_SOFTIRQ])) / (double)total;
	f.softirq_pct = 100.0 * (double)delta(a->all.f[NF_SOFTIRQ], b->all.f[NF_SOFTIRQ]) / (double)total;
	f.run_cpu_ms = (double)delta(a->run_cpu_ns, b->run_cpu_ns) / 1e6;
	f.game_cpu_ms = (double)delta(a->game_cpu_ns, b->game_cpu_ns) / 1e6;
	busy_ns = (double)delta(noise_ticks_busy(&a->all), noise_ticks_busy(&b->all)) * 1e9 / (double)hz;
	run_ns = f.run_cpu_ms * 1e6;
	f.foreign_cpu_pct = busy_ns > run_ns && f.cpus > 0 ?
			    100.0 * (busy_ns - run_ns) / ((double)f.cpus * interval_s * 1e9) : 0;

	for (size_t i = 0; i < b->ncpu; i++) {
		steal_boot += b->cpu[i].f[NF_STEAL];
		for (size_t j = 0; j < a->ncpu; j++) {
			uint64_t t;
			double pct;

			if (a->cpu_id[j] != b->cpu_id[i])
				continue;
			t = delta(noise_ticks_total(&a->cpu[j]), noise_ticks_total(&b->cpu[i]));
			pct = t ? 100.0 * (double)delta(a->cpu[j].f[NF_STEAL], b->cpu[i].f[NF_STEAL]) / (double)t : 0;
			if (pct > worst) {
				worst = pct;
				worst_id = b->cpu_id[i];
			}
			break;
		}
	}
	if (b->ncpu == 0)
		steal_boot = b->all.f[NF_STEAL];
	if (hypervisor == 0) {
		snprintf(f.steal, sizeof(f.steal),
			 "no steal clock: bare metal (no hypervisor flag in /proc/cpuinfo)");
	} else if (steal_boot == 0) {
		snprintf(f.steal, sizeof(f.steal), "no steal clock: %s",
			 hypervisor > 0 ? "a guest whose steal counter is 0 on every CPU since boot"
					: "steal is 0 on every CPU since boot");
	} else {
		f.steal_known = true;
		f.steal_pct = 100.0 * (double)delta(a->all.f[NF_STEAL], b->all.f[NF_STEAL]) / (double)total;
		if (worst_id >= 0)
			snprintf(f.steal, sizeof(f.steal), "proc/stat steal; worst cpu%d %.2f%%", worst_id,
				 worst);
		else
			snprintf(f.steal, sizeof(f.steal), "proc/stat steal");
	}

	if (!a->have_schedstat || !b->have_schedstat || b->game_threads == 0) {
		snprintf(f.runq_why, sizeof(f.runq_why), "%s",
			 b->game_procs == 0 ? "no game process at the window's end"
					    : "no proc/PID/task/TID/schedstat (CONFIG_SCHEDSTATS)");
	} else {
		f.have_runq = true;
		f.game_runq_ms = (double)delta(a->game_runq_ns, b->game_runq_ns) / 1e6;
		f.game_runq_ms_per_s = f.game_runq_ms / interval_s;
	}
	*out = f;
	return 0;
}

void noise_figures_write(const struct noise_figures *f, struct kvfile *kf)
{
	kvfile_addf(kf, "noise.t0_ns", "%llu", (unsigned long long)f->t0_ns);
	kvfile_addf(kf, "noise.t1_ns", "%llu", (unsigned long long)f->t1_ns);
	kvfile_addf(kf, "noise.cpus", "%zu", f->cpus);
	if (f->steal_known)
		kvfile_addf(kf, "noise.steal_pct", "%.2f", f->steal_pct);
	else
		kvfile_add(kf, "noise.steal_pct", "-");
	kvfile_add(kf, "noise.steal", f->steal);
	kvfile_addf(kf, "noise.irq_pct", "%.2f", f->irq_pct);
	kvfile_addf(kf, "noise.softirq_pct", "%.2f", f->softirq_pct);
	kvfile_addf(kf, "noise.foreign_cpu_pct", "%.2f", f->foreign_cpu_pct);
	kvfile_addf(kf, "noise.run_cpu_ms", "%.3f", f->run_cpu_ms);
	kvfile_addf(kf, "noise.game_cpu_ms", "%.3f", f->game_cpu_ms);
	if (f->have_runq) {
		kvfile_addf(kf, "noise.game_runq_ms", "%.3f", f->game_runq_ms);
		kvfile_addf(kf, "noise.game_runq_ms_per_s", "%.3f", f->game_runq_ms_per_s);
	} else {
		kvfile_add(kf, "noise.game_runq", f->runq_why);
	}
}

void noise_figures_brief(const struct noise_figures *f, struct strbuf *sb)
{
	if (f->steal_known)
		strbuf_addf(sb, "steal %.2f%%", f->steal_pct);
	else
		strbuf_addstr(sb, "steal -");
	strbuf_addf(sb, " foreign %.2f%% irq %.2f%%", f->foreign_cpu_pct, f->irq_pct);
	if (f->have_runq)
		strbuf_addf(sb, " runq %.1f ms/s", f->game_runq_ms_per_s);
}

bool noise_limits_any(const struct noise_limits *l)
{
	return l->steal_pct_max >= 0 || l->foreign_cpu_pct_max >= 0 || l->irq_pct_max >= 0 ||
	       l->game_runq_ms_per_s_max >= 0;
}

void noise_limits_describe(const struct noise_limits *l, struct strbuf *sb)
{
	const struct {
		const char *name;
		double v;
	} k[] = {
		{ "steal_pct_max", l->steal_pct_max },
		{ "foreign_cpu_pct_max", l->foreign_cpu_pct_max },
		{ "irq_pct_max", l->irq_pct_max },
		{ "game_runq_ms_per_s_max", l->game_runq_ms_per_s_max },
	};
	const char *sep = "";

	for (size_t i = 0; i < ARRAY_SIZE(k); i++) {
		if (k[i].v < 0)
			continue;
		strbuf_addf(sb, "%s%s=%g", sep, k[i].name, k[i].v);
		sep = " ";
	}
	if (!*sep)
		strbuf_addstr(sb, "none");
}

bool noise_over_limits(const struct noise_figures *f, const struct noise_limits *l,
		       struct strbuf *err)
{
	if (f->steal_known && l->steal_pct_max >= 0 && f->steal_pct > l->steal_pct_max) {
		strbuf_addf(err, "noise: steal %.2f%% over the profile's %g%%", f->steal_pct,
			    l->steal_pct_max);
		return true;
	}
	if (l->foreign_cpu_pct_max >= 0 && f->foreign_cpu_pct > l->foreign_cpu_pct_max) {
		strbuf_addf(err, "noise: foreign CPU %.2f%% over the profile's %g%%", f->foreign_cpu_pct,
			    l->foreign_cpu_pct_max);
		return true;
	}
	if (l->irq_pct_max >= 0 && f->irq_pct > l->irq_pct_max) {
		strbuf_addf(err, "noise: irq %.2f%% over the profile's %g%%", f->irq_pct, l->irq_pct_max);
		return true;
	}
	if (f->have_runq && l->game_runq_ms_per_s_max >= 0 &&
	    f->game_runq_ms_per_s > l->game_runq_ms_per_s_max) {
		strbuf_addf(err, "noise: game run-queue delay %.1f ms/s over the profile's %g ms/s",
			    f->game_runq_ms_per_s, l->game_runq_ms_per_s_max);
		return true;
	}
	return false;
}
