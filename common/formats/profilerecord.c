/*
 * The profile record's lines, written and read (profilerecord.h; the
 * format in docs/formats.md "Profile record"). Every line is checked
 * whole: its field count, numbers that are numbers, stack ids that exist,
 * samples of threads named, maps whose end follows their start; the first
 * wrong line stops the read with file:line.
 */
#include "formats/profilerecord.h"
#include "base/unzstd.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS (3 + HB_PROFREC_MAX_FRAMES)  /* a stack line's, the most of any */

static void profrec_init(struct profrec *p)
{
	memset(p, 0, sizeof(*p));
	kvfile_init(&p->meta);
	kvfile_init(&p->trailer);
}

void profrec_release(struct profrec *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_stack; i++) {
		for (uint32_t k = 0; k < p->stack[i].nk; k++)
			free(p->stack[i].kfn[k]);
		free(p->stack[i].kfn);
		free(p->stack[i].ip);
	}
	for (size_t i = 0; i < p->n_map; i++)
		free(p->map[i].path);
	free(p->stack);
	free(p->map);
	free(p->fork);
	free(p->thread);
	free(p->sample);
	free(p->pause);
	kvfile_release(&p->meta);
	kvfile_release(&p->trailer);
	profrec_init(p);
}

/* --- writing --- */

void profrec_put_header(struct strbuf *sb)
{
	strbuf_addf(sb, "hbprofile\t%d\n", HB_PROFREC_VERSION);
}

void profrec_put_meta(struct strbuf *sb, const char *key, const char *value)
{
	tabrec_put_kv(sb, "meta", key, value);
}

void profrec_put_thread(struct strbuf *sb, const struct prof_thread *t)
{
	strbuf_addstr(sb, "thread");
	tabrec_put_i64(sb, t->tid);
	tabrec_put_i64(sb, t->pid);
	strbuf_addch(sb, '\t');
	tabrec_put_text(sb, t->comm[0] ? t->comm : "?", sizeof(t->comm));
	strbuf_addch(sb, '\n');
}

void profrec_put_map(struct strbuf *sb, const struct prof_map *m)
{
	strbuf_addstr(sb, "map");
	tabrec_put_i64(sb, m->pid);
	tabrec_put_num(sb, m->start, false, 16);
	tabrec_put_num(sb, m->end, false, 16);
	tabrec_put_num(sb, m->pgoff, false, 16);
	strbuf_addch(sb, '\t');
	if (!m->build_id_len)
		strbuf_addch(sb, '-');
	for (uint8_t i = 0; i < m->build_id_len; i++)
		strbuf_addf(sb, "%02x", m->build_id[i]);
	strbuf_addch(sb, '\t');
	tabrec_put_text(sb, m->path && *m->path ? m->path : "?", SIZE_MAX);
	strbuf_addch(sb, '\n');
}

void profrec_put_stack(struct strbuf *sb, uint32_t id, const char *const *kfn, uint32_t nk, const uint64_t *ip,
		       uint32_t nu)
{
	strbuf_addstr(sb, "stack");
	tabrec_put_u64(sb, id);
	tabrec_put_u64(sb, nk);
	for (uint32_t i = 0; i < nk; i++) {
		strbuf_addch(sb, '\t');
		tabrec_put_text(sb, kfn[i] && *kfn[i] ? kfn[i] : "?", SIZE_MAX);
	}
	for (uint32_t i = 0; i < nu; i++)
		tabrec_put_num(sb, ip[i], false, 16);
	strbuf_addch(sb, '\n');
}

void profrec_put_sample(struct strbuf *sb, const struct prof_sample *s)
{
	strbuf_addch(sb, 's');
	tabrec_put_u64(sb, s->ns);
	tabrec_put_i64(sb, s->tid);
	tabrec_put_u64(sb, s->stack);
	strbuf_addch(sb, '\n');
}

void profrec_put_follow(struct strbuf *sb, int32_t pid, uint64_t ns, uint64_t threads)
{
	strbuf_addstr(sb, "follow");
	tabrec_put_i64(sb, pid);
	tabrec_put_u64(sb, ns);
	tabrec_put_u64(sb, threads);
	strbuf_addch(sb, '\n');
}

void profrec_put_fork(struct strbuf *sb, int32_t pid, int32_t ppid)
{
	strbuf_addstr(sb, "fork");
	tabrec_put_i64(sb, pid);
	tabrec_put_i64(sb, ppid);
	strbuf_addch(sb, '\n');
}

void profrec_put_exec(struct strbuf *sb, int32_t pid)
{
	strbuf_addstr(sb, "exec");
	tabrec_put_i64(sb, pid);
	strbuf_addch(sb, '\n');
}

void profrec_put_lost(struct strbuf *sb, uint64_t n)
{
	strbuf_addstr(sb, "lost");
	tabrec_put_u64(sb, n);
	strbuf_addch(sb, '\n');
}

void profrec_put_pause(struct strbuf *sb, bool pause, uint64_t ns)
{
	strbuf_addstr(sb, pause ? "pause" : "resume");
	tabrec_put_u64(sb, ns);
	strbuf_addch(sb, '\n');
}

int profrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer, struct strbuf *err)
{
	return tabrec_pack(live_path, out_path, trailer, err);
}

/* --- reading --- */

static int tid_field(const struct tabline *l, int i, int32_t *out, struct strbuf *err)
{
	int64_t v;

	if (tabrec_i64(l, i, 0, INT32_MAX, &v, err) < 0)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

static int parse_thread(struct profrec *p, const struct tabline *l, struct strbuf *err)
{
	struct prof_thread t = { 0 };

	if (l->n != 4)
		return tabrec_bad(l, err, "a thread line wants TID PID COMM");
	if (tid_field(l, 1, &t.tid, err) < 0 || tid_field(l, 2, &t.pid, err) < 0)
		return -EINVAL;
	snprintf(t.comm, sizeof(t.comm), "%s", l->f[3]);
	p->thread = xrealloc(p->thread, (p->n_thread + 1) * sizeof(*p->thread));
	p->thread[p->n_thread++] = t;
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int parse_build_id(const struct tabline *l, const char *s, struct prof_map *m, struct strbuf *err)
{
	size_t len = strlen(s);

	if (strcmp(s, "-") == 0)
		return 0;
	if (len == 0 || len % 2 || len / 2 > HB_PROFREC_MAX_BUILD_ID)
		return tabrec_bad(l, err, "BUILD_ID is '-' or up to 20 bytes in lowercase hexadecimal");
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return tabrec_bad(l, err, "BUILD_ID is '-' or up to 20 bytes in lowercase hexadecimal");
		m->build_id[i] = (uint8_t)(hi << 4 | lo);
	}
	m->build_id_len = (uint8_t)(len / 2);
	return 0;
}

static int parse_map(struct profrec *p, const struct tabline *l, struct strbuf *err)
{
	struct prof_map m = { 0 };

	if (l->n != 7)
		return tabrec_bad(l, err, "a map line wants PID START END PGOFF BUILD_ID PATH");
	if (tid_field(l, 1, &m.pid, err) < 0 || tabrec_u64(l, 2, &m.start, err) < 0 ||
	    tabrec_u64(l, 3, &m.end, err) < 0 || tabrec_u64(l, 4, &m.pgoff, err) < 0 ||
	    parse_build_id(l, l->f[5], &m, err) < 0)
		return -EINVAL;
	if (m.end <= m.start)
		return tabrec_bad(l, err, "a map's END is after its START");
	if (!l->f[6][0])
		return tabrec_bad(l, err, "a map without a PATH");
	m.path = xstrdup(l->f[6]);
	p->map = xrealloc(p->map, (p->n_map + 1) * sizeof(*p->map));
	p->map[p->n_map++] = m;
	return 0;
}

static int parse_stack(struct profrec *p, const struct tabline *l, struct strbuf *err)
{
	struct prof_stack s = { 0 };
	int64_t id, nk;
	uint32_t nu;

	if (l->n < 3)
		return tabrec_bad(l, err, "a stack line wants ID NK and its frames");
	if (tabrec_i64(l, 1, 1, INT32_MAX, &id, err) < 0 || tabrec_i64(l, 2, 0, l->n - 3, &nk, err) < 0)
		return -EINVAL;
	if ((uint64_t)id != p->n_stack + 1)
		return tabrec_bad(l, err, "stack ids count from 1 in the order written");
	s.n = (uint32_t)(l->n - 3);
	s.nk = (uint32_t)nk;
	nu = s.n - s.nk;
	s.kfn = zalloc((s.nk + 1) * sizeof(*s.kfn));
	s.ip = zalloc((nu + 1) * sizeof(*s.ip));
	for (uint32_t i = 0; i < s.nk; i++)
		s.kfn[i] = xstrdup(l->f[3 + i]);
	for (uint32_t i = 0; i < nu; i++) {
		if (tabrec_u64(l, 3 + (int)s.nk + (int)i, &s.ip[i], err) < 0) {
			for (uint32_t k = 0; k < s.nk; k++)
				free(s.kfn[k]);
			free(s.kfn);
			free(s.ip);
			return -EINVAL;
		}
	}
	p->stack = xrealloc(p->stack, (p->n_stack + 1) * sizeof(*p->stack));
	p->stack[p->n_stack++] = s;
	return 0;
}

static int parse_sample(struct profrec *p, const struct tabline *l, struct strbuf *err)
{
	struct prof_sample s = { 0 };
	int64_t id;

	if (l->n != 4)
		return tabrec_bad(l, err, "a sample line wants NS TID STACK");
	if (tabrec_u64(l, 1, &s.ns, err) < 0 || tid_field(l, 2, &s.tid, err) < 0 ||
	    tabrec_i64(l, 3, 1, (int64_t)p->n_stack, &id, err) < 0)
		return -EINVAL;
	s.stack = (uint32_t)id;
	if (!profrec_thread(p, s.tid))
		return tabrec_bad(l, err, "a sample of a thread no thread line named");
	if (p->n_sample % 4096 == 0)
		p->sample = xrealloc(p->sample, (p->n_sample + 4096) * sizeof(*p->sample));
	p->sample[p->n_sample++] = s;
	return 0;
}

static int parse_line(struct tabline *l, void *rec, struct strbuf *err)
{
	struct profrec *p = rec;
	const char *k = l->f[0];
	uint64_t n;

	if (l->no == 1) {
		if (l->n == 2 && strcmp(k, "hbprofile") == 0 && strcmp(l->f[1], "1") == 0)
			return 0;
		return tabrec_bad(l, err, "not a profile record of version 1 (want 'hbprofile<TAB>1')");
	}
	if (strcmp(k, "s") == 0)
		return parse_sample(p, l, err);
	if (strcmp(k, "meta") == 0) {
		if (p->n_sample || p->n_stack || p->n_map || p->n_thread)
			return tabrec_bad(l, err, "a meta line after the data began");
		return tabrec_kv(&p->meta, l, err);
	}
	if (strcmp(k, "trailer") == 0)
		return tabrec_kv(&p->trailer, l, err);
	if (p->trailer.n)
		return tabrec_bad(l, err, "a data line after the trailer");
	if (strcmp(k, "thread") == 0)
		return parse_thread(p, l, err);
	if (strcmp(k, "map") == 0)
		return parse_map(p, l, err);
	if (strcmp(k, "stack") == 0)
		return parse_stack(p, l, err);
	if (strcmp(k, "follow") == 0) {
		int32_t pid;

		if (l->n != 4 || tid_field(l, 1, &pid, err) < 0 || tabrec_u64(l, 2, &n, err) < 0 ||
		    tabrec_u64(l, 3, &n, err) < 0)
			return tabrec_bad(l, err, "a follow line wants PID NS THREADS");
		return 0;
	}
	if (strcmp(k, "fork") == 0) {
		struct prof_fork f;

		if (l->n != 3 || tid_field(l, 1, &f.pid, err) < 0 || tid_field(l, 2, &f.ppid, err) < 0)
			return tabrec_bad(l, err, "a fork line wants PID PPID");
		p->fork = xrealloc(p->fork, (p->n_fork + 1) * sizeof(*p->fork));
		p->fork[p->n_fork++] = f;
		return 0;
	}
	if (strcmp(k, "exec") == 0) {
		int32_t pid;

		if (l->n != 2 || tid_field(l, 1, &pid, err) < 0)
			return tabrec_bad(l, err, "an exec line wants PID");
		for (size_t i = 0; i < p->n_map; i++)
			if (p->map[i].pid == pid)
				p->map[i].gone = true;
		return 0;
	}
	if (strcmp(k, "pause") == 0 || strcmp(k, "resume") == 0)
		return tabrec_pause(l, &p->pause, &p->n_pause, err);
	if (strcmp(k, "lost") == 0) {
		if (l->n != 2 || tabrec_u64(l, 1, &n, err) < 0)
			return tabrec_bad(l, err, "a lost line wants N");
		p->lost += n;
		return 0;
	}
	return tabrec_bad(l, err, "not a line the format has (meta thread map follow fork exec stack s pause resume lost trailer)");
}

int profrec_parse(const char *text, size_t len, const char *name, struct profrec *p, struct strbuf *err)
{
	const char *period;
	int r;

	profrec_init(p);
	r = tabrec_walk(text, len, name, "a profile record", MAX_FIELDS, parse_line, p, &p->cut, err);
	if (r == 0) {
		period = kvfile_get(&p->meta, "period_ns");
		if (!period || safe_atou64(period, &p->period_ns) < 0 || p->period_ns == 0) {
			strbuf_addf(err, "%s: no meta period_ns (a whole number of ns above 0)", name);
			r = -EINVAL;
		}
	}
	if (r < 0)
		profrec_release(p);
	return r;
}

int profrec_load(const char *path, struct profrec *p, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	int r;

	profrec_init(p);
	r = read_maybe_zstd(path, "a profile record", HB_PROFREC_MAX, true, &text, &why);
	if (r < 0 && r != -ENOENT)
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
	if (r == 0)
		r = profrec_parse(text.buf ? text.buf : "", text.len, path, p, err);
	strbuf_release(&text);
	return r;
}

const struct prof_thread *profrec_thread(const struct profrec *p, int32_t tid)
{
	for (size_t i = p->n_thread; i-- > 0;)
		if (p->thread[i].tid == tid)
			return &p->thread[i];
	return NULL;
}

const struct prof_map *profrec_map(const struct profrec *p, int32_t pid, uint64_t addr)
{
	/* a fork chain is short; 16 steps bounds a record that loops */
	for (int depth = 0; depth < 16; depth++) {
		int32_t parent = 0;

		for (size_t i = p->n_map; i-- > 0;)
			if (p->map[i].pid == pid && !p->map[i].gone && addr >= p->map[i].start &&
			    addr < p->map[i].end)
				return &p->map[i];
		for (size_t i = 0; i < p->n_fork && !parent; i++)
			if (p->fork[i].pid == pid)
				parent = p->fork[i].ppid;
		if (!parent)
			return NULL;
		pid = parent;
	}
	return NULL;
}
