/*
 * Named daemons' cost over a run's window (see daemoncost.h).
 */
#include "system/daemoncost.h"
#include "system/procparse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int daemon_names_parse(const char *list, struct daemon_names *names, struct strbuf *err)
{
	const char *p = list;

	memset(names, 0, sizeof(*names));
	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		if (!*p)
			return 0;
		n = strcspn(p, " \t,");
		if (n > 15) {
			strbuf_addf(err, "'%.*s' is longer than a process name (15)", (int)n, p);
			return -EINVAL;
		}
		if (names->n == DAEMON_NAMES_MAX) {
			strbuf_addf(err, "more than %d names", DAEMON_NAMES_MAX);
			return -EINVAL;
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)p[i];

			if (c < 0x20 || c == 0x7f) {
				strbuf_addf(err, "'%.*s' has a control byte (0x%02x)", (int)n, p, c);
				return -EINVAL;
			}
		}
		memcpy(names->name[names->n], p, n);
		names->name[names->n][n] = '\0';
		for (size_t i = 0; i < names->n; i++) {
			if (!strcmp(names->name[i], names->name[names->n])) {
				strbuf_addf(err, "'%s' is named twice", names->name[i]);
				return -EINVAL;
			}
		}
		names->n++;
		p += n;
	}
}

/* The number after "key:" on the line starting with key (then blanks or
 * ':'), in a /proc file of "key: value" lines. 0, -ENOENT, -EINVAL. */
static int line_value(const char *buf, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char num[32];
		const char *v;
		size_t n;

		if (strncmp(p, key, klen) || (p[klen] != ':' && p[klen] != ' ' && p[klen] != '\t'))
			continue;
		v = p + klen + strspn(p + klen, " \t");
		if (*v++ != ':')
			continue;
		v += strspn(v, " \t");
		n = strcspn(v, " \t\n");
		if (n == 0 || n >= sizeof(num))
			return -EINVAL;
		memcpy(num, v, n);
		num[n] = '\0';
		return safe_atou64(num, out) < 0 ? -EINVAL : 0;
	}
	return -ENOENT;
}

int daemon_status_switches(const char *buf, uint64_t *switches)
{
	uint64_t vol = 0, invol = 0;
	int a = line_value(buf, "voluntary_ctxt_switches", &vol);
	int b = line_value(buf, "nonvoluntary_ctxt_switches", &invol);

	if (a == -ENOENT && b == -ENOENT)
		return -ENOENT;
	/* one line without the other is not a kernel's status: the missing
	 * one is unknown, not 0 */
	if (a < 0 || b < 0 || __builtin_add_overflow(vol, invol, switches))
		return -EINVAL;
	return 0;
}

int daemon_sched_wakeups(const char *buf, uint64_t *wakeups)
{
	/* the line's name by kernel: 4.x "se.statistics.nr_wakeups", 5.19 on
	 * "stats.nr_wakeups", and "nr_wakeups" alone (never the
	 * nr_wakeups_sync, _local, ... beside it) */
	static const char *const keys[] = { "stats.nr_wakeups", "se.statistics.nr_wakeups", "nr_wakeups" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		int r = line_value(buf, keys[i], wakeups);

		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}

static bool pid_in(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

static int name_index(const struct daemon_names *names, const char *comm)
{
	for (size_t i = 0; i < names->n; i++)
		if (!strcmp(names->name[i], comm))
			return (int)i;
	return -1;
}

struct daemon_walk {
	const struct daemon_names *names;
	const pid_t *exempt;
	size_t nexempt;
	struct daemon_snapshot *s;
	pid_t pid;   /* the process whose threads are walked */
	int name;
};

/* One thread of w->pid. */
static int take_thread(struct noise_reader *r, int tid, void *arg)
{
	struct daemon_walk *w = arg;
	struct daemon_snapshot *s = w->s;
	struct daemon_thread *t;
	char path[96];

	if (s->nthr == DAEMON_THREADS_MAX) {
		s->truncated = true;
		return 1;
	}
	t = &s->thr[s->nthr];
	/* one read a thread (two with schedstats): a thread is known by its
	 * tid alone, within a process known by its pid and start time */
	t->starttime = 0;
	snprintf(path, sizeof(path), "proc/%d/task/%d/status", (int)w->pid, tid);
	if (noise_read_rel(r, path) <= 0 || daemon_status_switches(r->buf, &t->switches) < 0)
		return 0; /* gone meanwhile */
	snprintf(path, sizeof(path), "proc/%d/task/%d/sched", (int)w->pid, tid);
	t->have_wakeups = !s->skip_sched && noise_read_rel(r, path) > 0 &&
			  daemon_sched_wakeups(r->buf, &t->wakeups) == 0;
	if (!t->have_wakeups)
		t->wakeups = 0;
	t->tid = tid;
	t->name = w->name;
	s->nthr++;
	return 0;
}

/* One pid of proc/: kept, with its threads, when its name is on the list
 * and it is not exempt. */
static int take_pid(struct noise_reader *r, int pid, void *arg)
{
	struct daemon_walk *w = arg;
	struct daemon_snapshot *s = w->s;
	struct daemon_proc *p;
	struct pstat st;
	char rel[48];
	int name;

	if (pid_in(w->exempt, w->nexempt, pid))
		return 0;
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	if (noise_read_rel(r, rel) <= 0 || pstat_parse(r->buf, &st) < 0)
		return 0;
	name = name_index(w->names, st.comm);
	if (name < 0)
		return 0;
	if (s->nproc == DAEMON_PROCS_MAX) {
		s->truncated = true;
		return 0;
	}
	p = &s->proc[s->nproc++];
	p->pid = pid;
	p->starttime = st.starttime;
	p->ticks = st.utime + st.stime;
	p->name = name;
	w->pid = pid;
	w->name = name;
	snprintf(rel, sizeof(rel), "proc/%d/task", pid);
	noise_each_entry(r, rel, take_thread, w);
	return 0;
}

int daemon_snapshot_take(struct noise_reader *r, const struct daemon_names *names, const pid_t *exempt,
			 size_t nexempt, struct daemon_snapshot *s)
{
	struct daemon_walk w = { .names = names, .exempt = exempt, .nexempt = nexempt, .s = s };

	s->nproc = 0;
	s->nthr = 0;
	s->truncated = false;
	if (names->n == 0)
		return 0;
	return noise_each_entry(r, "proc", take_pid, &w);
}

int daemon_snapshot_take_pids(struct noise_reader *r, const struct daemon_names *names, const pid_t *pids,
			      size_t npids, const pid_t *exempt, size_t nexempt, struct daemon_snapshot *s)
{
	struct daemon_walk w = { .names = names, .exempt = exempt, .nexempt = nexempt, .s = s };

	s->nproc = 0;
	s->nthr = 0;
	s->truncated = false;
	for (size_t i = 0; i < npids; i++)
		take_pid(r, pids[i], &w);
	return 0;
}

size_t daemon_ancestors(struct noise_reader *r, pid_t pid, pid_t *out, size_t max)
{
	size_t n = 0;

	for (int depth = 0; pid > 1 && depth < 128 && n < max; depth++) {
		struct pstat st;
		char rel[48];

		out[n++] = pid;
		snprintf(rel, sizeof(rel), "proc/%d/stat", (int)pid);
		if (noise_read_rel(r, rel) <= 0 || pstat_parse(r->buf, &st) < 0)
			break;
		pid = st.ppid;
	}
	return n;
}

static const struct daemon_proc *find_proc(const struct daemon_snapshot *s, const struct daemon_proc *p)
{
	for (size_t i = 0; i < s->nproc; i++)
		if (s->proc[i].pid == p->pid && s->proc[i].starttime == p->starttime)
			return &s->proc[i];
	return NULL;
}

static const struct daemon_thread *find_thread(const struct daemon_snapshot *s, const struct daemon_thread *t)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == t->tid && s->thr[i].starttime == t->starttime)
			return &s->thr[i];
	return NULL;
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* The pids of name at the end into f->pids. */
static void list_pids(const struct daemon_snapshot *b, int name, struct daemon_figure *f)
{
	size_t len = 0;

	f->pids[0] = '\0';
	for (size_t i = 0; i < b->nproc; i++) {
		char one[16];
		int n;

		if (b->proc[i].name != name)
			continue;
		n = snprintf(one, sizeof(one), "%s%d", len ? " " : "", (int)b->proc[i].pid);
		if (len + (size_t)n + 4 >= sizeof(f->pids)) {
			snprintf(f->pids + len, sizeof(f->pids) - len, " ...");
			break;
		}
		memcpy(f->pids + len, one, (size_t)n + 1);
		len += (size_t)n;
	}
	if (!len)
		snprintf(f->pids, sizeof(f->pids), "none");
}

void daemon_cost_diff(const struct daemon_names *names, const struct daemon_snapshot *a,
		      const struct daemon_snapshot *b, long hz, struct daemon_cost *out)
{
	memset(out, 0, sizeof(*out));
	out->names = *names;
	out->truncated = a->truncated || b->truncated;
	for (size_t i = 0; i < names->n; i++)
		out->d[i].have_wakeups = true;
	for (size_t i = 0; i < b->nproc; i++) {
		const struct daemon_proc *p = &b->proc[i], *was = find_proc(a, p);
		struct daemon_figure *f = &out->d[p->name];

		f->cpu_ms += (double)since(p->ticks, was ? was->ticks : 0) * 1000.0 / (double)(hz > 0 ? hz : 100);
		f->procs++;
	}
	for (size_t i = 0; i < a->nproc; i++)
		if (!find_proc(b, &a->proc[i]))
			out->d[a->proc[i].name].gone++;
	for (size_t i = 0; i < b->nthr; i++) {
		const struct daemon_thread *t = &b->thr[i], *was = find_thread(a, t);
		struct daemon_figure *f = &out->d[t->name];

		f->switches += since(t->switches, was ? was->switches : 0);
		if (!t->have_wakeups || (was && !was->have_wakeups))
			f->have_wakeups = false;
		else
			f->wakeups += since(t->wakeups, was ? was->wakeups : 0);
	}
	for (size_t i = 0; i < names->n; i++) {
		if (out->d[i].procs == 0 && out->d[i].gone == 0)
			out->d[i].have_wakeups = false; /* nothing to tell */
		list_pids(b, (int)i, &out->d[i]);
	}
}

void daemon_key_name(const char *name, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p && n + 4 <= size; p++) {
		unsigned char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-') {
			out[n++] = (char)c;
		} else {
			out[n++] = '_';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	if (size)
		out[n < size ? n : size - 1] = '\0';
}

void daemon_cost_write(const struct daemon_cost *c, const char *source, struct kvfile *kf)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < c->names.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", c->names.name[i]);
	kvfile_addf(kf, "noise.daemon.format", "%d", DAEMON_COST_FORMAT);
	kvfile_addf(kf, "noise.daemon.names", "%s (%s)", c->names.n ? sb.buf : "none", source);
	if (c->truncated)
		kvfile_addf(kf, "noise.daemon.truncated", "more than %d processes or %d threads: the rest not counted",
			    DAEMON_PROCS_MAX, DAEMON_THREADS_MAX);
	for (size_t i = 0; i < c->names.n; i++) {
		const struct daemon_figure *f = &c->d[i];
		char n[DAEMON_KEY_NAME_MAX], key[96];

		daemon_key_name(c->names.name[i], n, sizeof(n));
		snprintf(key, sizeof(key), "noise.daemon.%s.cpu_ms", n);
		kvfile_addf(kf, key, "%.0f", f->cpu_ms);
		snprintf(key, sizeof(key), "noise.daemon.%s.wakeups", n);
		kvfile_addf(kf, key, "%llu", (unsigned long long)f->switches);
		if (f->have_wakeups) {
			snprintf(key, sizeof(key), "noise.daemon.%s.sched_wakeups", n);
			kvfile_addf(kf, key, "%llu", (unsigned long long)f->wakeups);
		}
		snprintf(key, sizeof(key), "noise.daemon.%s.pids", n);
		kvfile_add(kf, key, f->pids);
		if (f->gone) {
			snprintf(key, sizeof(key), "noise.daemon.%s.gone", n);
			kvfile_addf(kf, key, "%zu", f->gone);
		}
	}
	strbuf_release(&sb);
}
