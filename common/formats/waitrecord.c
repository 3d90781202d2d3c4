/*
 * The wait record's lines, written and read (waitrecord.h; the format in
 * docs/formats.md "Wait record"). Every line is checked whole: a field
 * count, numbers that are numbers, stack ids that exist, a state letter
 * the format names, times in order; the first wrong line stops the read
 * with file:line. Only a last line without its newline is forgiven (a
 * live file read while, or after, its writer died mid-line), and said.
 */
#include "formats/waitrecord.h"
#include "base/unzstd.h"
#include "formats/tabrecord.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SPLIT (2 + HB_WAITREC_MAX_FRAMES + 1)    /* a stack line's fields, the most of any */
#define OFF_FIELDS 20
#define BIO_FIELDS 8

void waitrec_init(struct waitrec *w)
{
	memset(w, 0, sizeof(*w));
	kvfile_init(&w->meta);
	kvfile_init(&w->trailer);
}

void waitrec_release(struct waitrec *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_stack; i++) {
		for (size_t k = 0; k < w->stack[i].n; k++)
			free(w->stack[i].fn[k]);
		free(w->stack[i].fn);
	}
	free(w->stack);
	free(w->thread);
	free(w->off);
	free(w->bio);
	free(w->pause);
	kvfile_release(&w->meta);
	kvfile_release(&w->trailer);
	waitrec_init(w);
}

/* --- writing --- */

void waitrec_put_header(struct strbuf *sb)
{
	strbuf_addf(sb, "hbwaits\t%d\n", HB_WAITREC_VERSION);
}

void waitrec_put_meta(struct strbuf *sb, const char *key, const char *value)
{
	tabrec_put_kv(sb, "meta", key, value);
}

void waitrec_put_thread(struct strbuf *sb, const struct wr_thread *t)
{
	strbuf_addf(sb, "thread\t%" PRId32 "\t%" PRId32 "\t", t->tid, t->tgid);
	tabrec_put_text(sb, t->comm, sizeof(t->comm));
	strbuf_addch(sb, '\n');
}

void waitrec_put_stack(struct strbuf *sb, uint32_t id, const char *const *fn, size_t n)
{
	strbuf_addf(sb, "stack\t%" PRIu32, id);
	for (size_t i = 0; i < n; i++) {
		strbuf_addch(sb, '\t');
		tabrec_put_text(sb, fn[i], SIZE_MAX);
	}
	strbuf_addch(sb, '\n');
}

void waitrec_put_off(struct strbuf *sb, const struct wr_off *o)
{
	strbuf_addstr(sb, "off");
	tabrec_put_i64(sb, o->tid);
	tabrec_put_u64(sb, o->off_ns);
	tabrec_put_u64(sb, o->on_ns);
	tabrec_put_u64(sb, o->wake_ns);
	strbuf_addch(sb, '\t');
	strbuf_addch(sb, o->state);
	tabrec_put_u64(sb, o->stack);
	tabrec_put_i64(sb, o->waker_tid);
	tabrec_put_u64(sb, o->waker_stack);
	tabrec_put_u64(sb, o->run_ns);
	tabrec_put_u64(sb, o->runq_ns);
	tabrec_put_u64(sb, o->sleep_ns);
	tabrec_put_u64(sb, o->faults);
	tabrec_put_num(sb, o->fault_addr, false, 16);
	tabrec_put_i64(sb, o->blkio_ns);
	tabrec_put_i64(sb, o->swapin_ns);
	tabrec_put_i64(sb, o->reclaim_ns);
	tabrec_put_i64(sb, o->thrash_ns);
	tabrec_put_i64(sb, o->compact_ns);
	strbuf_addch(sb, '\t');
	tabrec_put_text(sb, o->syscall[0] ? o->syscall : "?", sizeof(o->syscall));
	strbuf_addch(sb, '\n');
}

void waitrec_put_bio(struct strbuf *sb, const struct wr_bio *b)
{
	strbuf_addf(sb, "bio\t%" PRId32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 ":%" PRIu32
		    "\t%c\t%" PRIu64 "\t%" PRId32 "\n", b->tid, b->start_ns, b->done_ns, b->major,
		    b->minor, b->op, b->bytes, b->error);
}

void waitrec_put_lost(struct strbuf *sb, uint64_t n)
{
	strbuf_addf(sb, "lost\t%" PRIu64 "\n", n);
}

/* --- reading --- */

static int tid_field(const struct tabline *l, int i, int32_t lo, int32_t *out, struct strbuf *err)
{
	int64_t v;

	if (tabrec_i64(l, i, lo, INT32_MAX, &v, err) < 0)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

static int stack_field(const struct waitrec *w, const struct tabline *l, int i, uint32_t *out,
		       struct strbuf *err)
{
	int64_t v;

	if (tabrec_i64(l, i, 0, (int64_t)w->n_stack, &v, err) < 0)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_thread(struct waitrec *w, const struct tabline *l, struct strbuf *err)
{
	struct wr_thread t = { 0 };

	if (l->n != 4)
		return tabrec_bad(l, err, "a thread line wants TID TGID COMM");
	if (tid_field(l, 1, 0, &t.tid, err) < 0 || tid_field(l, 2, 0, &t.tgid, err) < 0)
		return -EINVAL;
	snprintf(t.comm, sizeof(t.comm), "%s", l->f[3]);
	w->thread = xrealloc(w->thread, (w->n_thread + 1) * sizeof(*w->thread));
	w->thread[w->n_thread++] = t;
	return 0;
}

static int parse_stack(struct waitrec *w, const struct tabline *l, struct strbuf *err)
{
	struct wr_stack s = { 0 };
	int64_t id;

	if (l->n < 2)
		return tabrec_bad(l, err, "a stack line wants ID and its functions");
	if (tabrec_i64(l, 1, 1, INT32_MAX, &id, err) < 0)
		return -EINVAL;
	if ((uint64_t)id != w->n_stack + 1)
		return tabrec_bad(l, err, "stack ids count from 1 in the order written");
	if (l->n - 2 > HB_WAITREC_MAX_FRAMES)
		return tabrec_bad(l, err, "a stack of more functions than the format keeps");
	s.n = (size_t)(l->n - 2);
	s.fn = zalloc((s.n + 1) * sizeof(*s.fn));
	for (size_t i = 0; i < s.n; i++)
		s.fn[i] = xstrdup(l->f[2 + i]);
	w->stack = xrealloc(w->stack, (w->n_stack + 1) * sizeof(*w->stack));
	w->stack[w->n_stack++] = s;
	return 0;
}

static int parse_delays(const struct tabline *l, struct wr_off *o, struct strbuf *err)
{
	int64_t *d[] = { &o->blkio_ns, &o->swapin_ns, &o->reclaim_ns, &o->thrash_ns, &o->compact_ns };

	for (int i = 0; i < 5; i++)
		if (tabrec_i64(l, 14 + i, -1, INT64_MAX, d[i], err) < 0)
			return -EINVAL;
	return 0;
}

static int parse_off(struct waitrec *w, const struct tabline *l, struct strbuf *err)
{
	struct wr_off o = { 0 };

	if (l->n != OFF_FIELDS)
		return tabrec_bad(l, err, "an off line wants 19 fields (docs/formats.md)");
	if (tid_field(l, 1, 1, &o.tid, err) < 0 || tabrec_u64(l, 2, &o.off_ns, err) < 0 ||
	    tabrec_u64(l, 3, &o.on_ns, err) < 0 || tabrec_u64(l, 4, &o.wake_ns, err) < 0 ||
	    stack_field(w, l, 6, &o.stack, err) < 0 || tid_field(l, 7, -1, &o.waker_tid, err) < 0 ||
	    stack_field(w, l, 8, &o.waker_stack, err) < 0 || tabrec_u64(l, 9, &o.run_ns, err) < 0 ||
	    tabrec_u64(l, 10, &o.runq_ns, err) < 0 || tabrec_u64(l, 11, &o.sleep_ns, err) < 0 ||
	    tabrec_u64(l, 12, &o.faults, err) < 0 || tabrec_u64(l, 13, &o.fault_addr, err) < 0 ||
	    parse_delays(l, &o, err) < 0)
		return -EINVAL;
	if (strlen(l->f[5]) != 1 || !strchr("RSDITX?", l->f[5][0]))
		return tabrec_bad(l, err, "STATE is one of R S D I T X ?");
	if (!l->f[19][0] || strlen(l->f[19]) >= sizeof(o.syscall) ||
	    strspn(l->f[19], "abcdefghijklmnopqrstuvwxyz0123456789_-?") != strlen(l->f[19]))
		return tabrec_bad(l, err, "SYSCALL is a system call's name, - or ?");
	snprintf(o.syscall, sizeof(o.syscall), "%s", l->f[19]);
	o.state = l->f[5][0];
	if (o.on_ns < o.off_ns)
		return tabrec_bad(l, err, "ON_NS before OFF_NS");
	if (o.wake_ns && (o.wake_ns < o.off_ns || o.wake_ns > o.on_ns))
		return tabrec_bad(l, err, "WAKE_NS outside OFF_NS..ON_NS");
	w->off = xrealloc(w->off, (w->n_off + 1) * sizeof(*w->off));
	w->off[w->n_off++] = o;
	return 0;
}


/* "MAJ:MIN", each a decimal that fits 32 bits (sscanf's %u wrapped "-1"). */
static int parse_dev(const char *s, uint32_t *major, uint32_t *minor)
{
	char *dup = xstrdup(s), *colon = strchr(dup, ':');
	uint64_t ma, mi;
	int r = -EINVAL;

	if (colon) {
		*colon = '\0';
		if (safe_atou64(dup, &ma) == 0 && safe_atou64(colon + 1, &mi) == 0 && ma <= UINT32_MAX &&
		    mi <= UINT32_MAX) {
			*major = (uint32_t)ma;
			*minor = (uint32_t)mi;
			r = 0;
		}
	}
	free(dup);
	return r;
}
static int parse_bio(struct waitrec *w, const struct tabline *l, struct strbuf *err)
{
	struct wr_bio b = { 0 };
	int64_t e;

	if (l->n != BIO_FIELDS)
		return tabrec_bad(l, err, "a bio line wants TID START_NS DONE_NS MAJ:MIN OP BYTES ERROR");
	if (tid_field(l, 1, 1, &b.tid, err) < 0 || tabrec_u64(l, 2, &b.start_ns, err) < 0 ||
	    tabrec_u64(l, 3, &b.done_ns, err) < 0 || tabrec_u64(l, 6, &b.bytes, err) < 0 ||
	    tabrec_i64(l, 7, INT32_MIN, INT32_MAX, &e, err) < 0)
		return -EINVAL;
	b.error = (int32_t)e;
	if (parse_dev(l->f[4], &b.major, &b.minor) < 0)
		return tabrec_bad(l, err, "the device is MAJ:MIN");
	if (strlen(l->f[5]) != 1 || !strchr("RWFD?", l->f[5][0]))
		return tabrec_bad(l, err, "OP is one of R W F D ?");
	b.op = l->f[5][0];
	if (b.done_ns < b.start_ns)
		return tabrec_bad(l, err, "DONE_NS before START_NS");
	w->bio = xrealloc(w->bio, (w->n_bio + 1) * sizeof(*w->bio));
	w->bio[w->n_bio++] = b;
	return 0;
}

bool waitrec_paused_in(const struct waitrec *w, uint64_t s, uint64_t e)
{
	return rec_paused_in(w->pause, w->n_pause, s, e);
}

static int parse_line(struct waitrec *w, struct tabline *l, bool *data_seen, struct strbuf *err)
{
	const char *k = l->f[0];
	uint64_t n;

	if (l->no == 1) {
		if (l->n == 2 && strcmp(k, "hbwaits") == 0 &&
		    (strcmp(l->f[1], "1") == 0 || strcmp(l->f[1], "2") == 0)) {
			w->version = l->f[1][0] - '0';
			return 0;
		}
		return tabrec_bad(l, err, "not a wait record of version 1 or 2 (want 'hbwaits<TAB>2')");
	}
	if (strcmp(k, "meta") == 0) {
		if (*data_seen)
			return tabrec_bad(l, err, "a meta line after the data began");
		return tabrec_kv(&w->meta, l, err);
	}
	*data_seen = true;
	if (strcmp(k, "trailer") == 0)
		return tabrec_kv(&w->trailer, l, err);
	if (w->trailer.n)
		return tabrec_bad(l, err, "a data line after the trailer");
	if (strcmp(k, "thread") == 0)
		return parse_thread(w, l, err);
	if (strcmp(k, "stack") == 0)
		return parse_stack(w, l, err);
	if (strcmp(k, "off") == 0)
		return parse_off(w, l, err);
	if (strcmp(k, "bio") == 0)
		return parse_bio(w, l, err);
	if (strcmp(k, "follow") == 0) {
		int32_t pid;

		if (l->n != 3 || tid_field(l, 1, 1, &pid, err) < 0 || tabrec_u64(l, 2, &n, err) < 0)
			return tabrec_bad(l, err, "a follow line wants PID NS");
		return 0;
	}
	if (w->version >= 2 && (strcmp(k, "pause") == 0 || strcmp(k, "resume") == 0))
		return tabrec_pause(l, &w->pause, &w->n_pause, err);
	if (strcmp(k, "lost") == 0) {
		if (l->n != 2 || tabrec_u64(l, 1, &n, err) < 0)
			return tabrec_bad(l, err, "a lost line wants N");
		w->lost += n;
		return 0;
	}
	return tabrec_bad(l, err, w->version >= 2 ? "not a line the format has (meta thread stack off bio follow "
		   "pause resume lost trailer)" : "not a line version 1 has (meta thread stack off bio follow "
		   "lost trailer)");
}

struct parse {
	struct waitrec *w;
	bool data_seen;
};

static int parse_one(struct tabline *l, void *rec, struct strbuf *err)
{
	struct parse *p = rec;

	return parse_line(p->w, l, &p->data_seen, err);
}

int waitrec_parse(const char *text, size_t len, const char *name, struct waitrec *w,
		  struct strbuf *err)
{
	struct parse p = { .w = w };
	int r;

	waitrec_init(w);
	r = tabrec_walk(text, len, name, "a wait record", MAX_SPLIT, parse_one, &p, &w->cut, err);
	if (r < 0)
		waitrec_release(w);
	return r;
}

int waitrec_load(const char *path, struct waitrec *w, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	int r;

	waitrec_init(w);
	r = read_maybe_zstd(path, "a wait record", HB_WAITREC_MAX, true, &text, &why);
	if (r < 0 && r != -ENOENT)  /* none is not an error: the caller decides */
		strbuf_addstr(err, why.buf);
	strbuf_release(&why);
	if (r == 0)
		r = waitrec_parse(text.buf ? text.buf : "", text.len, path, w, err);
	strbuf_release(&text);
	return r;
}

const struct wr_thread *waitrec_thread(const struct waitrec *w, int32_t tid)
{
	/* the last line of a thread is its newest name */
	for (size_t i = w->n_thread; i-- > 0;)
		if (w->thread[i].tid == tid)
			return &w->thread[i];
	return NULL;
}

const struct wr_stack *waitrec_stack(const struct waitrec *w, uint32_t id)
{
	return id >= 1 && id <= w->n_stack ? &w->stack[id - 1] : NULL;
}

const char *waitrec_dev_name(const struct waitrec *w, uint32_t major, uint32_t minor)
{
	char key[40];

	snprintf(key, sizeof(key), "dev.%" PRIu32 ".%" PRIu32, major, minor);
	return kvfile_get(&w->meta, key);
}

int waitrec_pack(const char *live_path, const char *out_path, const struct kvfile *trailer,
		 struct strbuf *err)
{
	return tabrec_pack(live_path, out_path, trailer, err);
}
