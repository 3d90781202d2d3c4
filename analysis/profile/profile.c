/*
 * A run's profile loaded and named (profile.h).
 */
#include "profile/profile.h"
#include "profile/symbolize.h"
#include "run/run.h"
#include "metrics/metrics.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_ns(const void *a, const void *b)
{
	const struct prof_sample *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* The pid of a sample's thread (the record's thread lines). */
static int32_t pid_of(const struct profrec *rec, int32_t tid)
{
	const struct prof_thread *t = profrec_thread(rec, tid);

	return t ? t->pid : tid;
}

static const char *intern(struct profile *p, const char *s)
{
	/* the index first: adding a name may move the array */
	uint32_t i = prof_tree_name(&p->names, s);

	return p->names.name[i];
}

/* A user frame's name and category. */
static void name_user(struct profile *p, struct symbolizer *sy, int32_t pid, uint64_t addr, bool ret,
		      const char **name, uint8_t *cat)
{
	struct sym_frame f;
	struct prof_frame_desc d;
	char buf[512];

	symbolizer_name(sy, &p->rec, pid, addr, ret, &f);
	if (f.function)
		snprintf(buf, sizeof(buf), "%s`%s", f.library, f.function);
	else if (f.jit || f.unknown)
		snprintf(buf, sizeof(buf), "%s", f.library);
	else
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, f.library, f.offset);
	*name = intern(p, buf);
	d = (struct prof_frame_desc){ .library = f.unknown ? NULL : f.library, .function = f.function,
				      .jit = f.jit };
	*cat = prof_rules_frame(p->rules, &d);
}

/* Runs of "[unknown]" frames made one: where code keeps no frame pointer
 * the walk past it reads garbage, frame after frame, which says nothing
 * more than one "[unknown]" does and makes a flame graph a tower. */
static void collapse_unknown(struct prof_path *pp)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < pp->n; i++) {
		if (k && pp->name[i] == pp->name[k - 1] && strcmp(pp->name[i], "[unknown]") == 0)
			continue;
		pp->name[k] = pp->name[i];
		pp->cat[k] = pp->cat[i];
		k++;
	}
	pp->n = k;
}

/* Every stack named, with the pid of the first sample that uses it (a
 * stack's user addresses are of one process: the pid of any sample of it;
 * two processes sharing a stack id map the same code there). */
static void name_stacks(struct profile *p, struct symbolizer *sy)
{
	int32_t *pid = zalloc((p->rec.n_stack + 1) * sizeof(*pid));
	uint8_t inner[HB_PROFREC_MAX_FRAMES];

	for (size_t i = 0; i < p->rec.n_sample; i++)
		if (!pid[p->rec.sample[i].stack])
			pid[p->rec.sample[i].stack] = pid_of(&p->rec, p->rec.sample[i].tid);
	p->path = zalloc((p->rec.n_stack + 1) * sizeof(*p->path));
	for (size_t k = 0; k < p->rec.n_stack; k++) {
		const struct prof_stack *st = &p->rec.stack[k];
		struct prof_path *pp = &p->path[k];
		uint32_t nu = st->n - st->nk;

		pp->n = st->n;
		pp->name = zalloc((st->n + 1) * sizeof(*pp->name));
		pp->cat = zalloc(st->n + 1);
		/* root first: the user frames outermost to innermost, then the
		 * kernel's likewise (the user's code called into the kernel) */
		for (uint32_t i = 0; i < nu; i++) {
			uint32_t at = nu - 1 - i;   /* innermost user frame is ip[0] */

			name_user(p, sy, pid[k + 1], st->ip[at], at > 0, &pp->name[i], &pp->cat[i]);
		}
		for (uint32_t i = 0; i < st->nk; i++) {
			char buf[300];
			struct prof_frame_desc d = { .library = "kernel", .kernel = true };
			uint32_t at = st->nk - 1 - i;

			snprintf(buf, sizeof(buf), "kernel`%s", st->kfn[at]);
			pp->name[nu + i] = intern(p, buf);
			d.function = st->kfn[at];
			pp->cat[nu + i] = prof_rules_frame(p->rules, &d);
		}
		collapse_unknown(pp);
		for (uint32_t i = 0; i < pp->n; i++)
			inner[i] = pp->cat[pp->n - 1 - i];
		pp->category = prof_rules_stack(p->rules, inner, pp->n);
	}
	free(pid);
}

int profile_load(const char *dir, const struct prof_rules *rules, struct profile *p, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", dir, HB_PROFREC_FILE);
	struct symbolizer *sy;
	int r;

	memset(p, 0, sizeof(*p));
	r = profrec_load(path, &p->rec, err);
	free(path);
	if (r < 0)
		return r;
	p->rules = rules;
	prof_tree_init(&p->names, rules->names, rules->n);
	p->notes = zalloc(sizeof(*p->notes));
	strbuf_init(p->notes);
	p->sample_s = (double)p->rec.period_ns / 1e9;
	p->n = p->rec.n_sample;
	p->by_time = xrealloc(NULL, (p->n + 1) * sizeof(*p->by_time));
	memcpy(p->by_time, p->rec.sample, p->n * sizeof(*p->by_time));
	qsort(p->by_time, p->n, sizeof(*p->by_time), by_ns);
	sy = symbolizer_new();
	name_stacks(p, sy);
	symbolizer_notes(sy, p->notes);
	symbolizer_free(sy);
	return 0;
}

void profile_release(struct profile *p)
{
	if (!p->path && !p->by_time) {
		profrec_release(&p->rec);
		return;
	}
	for (size_t k = 0; k < p->rec.n_stack; k++) {
		free(p->path[k].name);
		free(p->path[k].cat);
	}
	free(p->path);
	free(p->by_time);
	if (p->notes) {
		strbuf_release(p->notes);
		free(p->notes);
	}
	prof_tree_release(&p->names);
	profrec_release(&p->rec);
	memset(p, 0, sizeof(*p));
}

size_t profile_first(const struct profile *p, uint64_t ns)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->by_time[mid].ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t profile_count(const struct profile *p, uint64_t start_ns, uint64_t end_ns, uint64_t *per_stack)
{
	uint64_t n = 0;

	for (size_t i = profile_first(p, start_ns + 1); i < p->n && p->by_time[i].ns <= end_ns; i++) {
		per_stack[p->by_time[i].stack - 1]++;
		n++;
	}
	return n;
}

void profile_categories(const struct profile *p, const uint64_t *per_stack, uint64_t *per_cat)
{
	for (size_t k = 0; k < p->rec.n_stack; k++)
		per_cat[p->path[k].category] += per_stack[k];
}

void profile_tree_add(const struct profile *p, const uint64_t *per_stack, struct prof_tree *t, int side)
{
	uint32_t names[HB_PROFREC_MAX_FRAMES];

	for (size_t k = 0; k < p->rec.n_stack; k++) {
		const struct prof_path *pp = &p->path[k];

		if (!per_stack[k])
			continue;
		for (uint32_t i = 0; i < pp->n; i++)
			names[i] = prof_tree_name(t, pp->name[i]);
		prof_tree_add(t, side, names, pp->cat, pp->n, per_stack[k]);
	}
}

void profile_categories_describe(const struct profile *p, const uint64_t *per_cat, uint64_t n, double min_pct,
				 size_t max, struct strbuf *out)
{
	bool used[PROF_MAX_CATEGORIES] = { false };

	for (size_t k = 0; k < max && n; k++) {
		size_t best = SIZE_MAX;

		for (size_t c = 0; c < p->rules->n; c++)
			if (!used[c] && per_cat[c] && (best == SIZE_MAX || per_cat[c] > per_cat[best]))
				best = c;
		if (best == SIZE_MAX || 100.0 * (double)per_cat[best] / (double)n < min_pct)
			break;
		used[best] = true;
		strbuf_addf(out, "%s%s %.0f%%", k ? ", " : "", p->rules->names[best],
			    100.0 * (double)per_cat[best] / (double)n);
	}
}

int prof_frames_of(const struct run *run, double stall_ms, bool whole, struct prof_frames *out)
{
	const struct hb_frames *f = &run->frames;

	memset(out, 0, sizeof(*out));
	if (!run->have_frames || !run->have_window || f->n < 2)
		return -ENODATA;
	out->start_ns = xrealloc(NULL, f->n * sizeof(*out->start_ns));
	out->end_ns = xrealloc(NULL, f->n * sizeof(*out->end_ns));
	out->index = xrealloc(NULL, f->n * sizeof(*out->index));
	out->stall = zalloc(f->n * sizeof(*out->stall));
	for (uint64_t i = 1; i < f->n; i++) {
		size_t k = out->n;

		if (!whole && (f->t_ns[i - 1] < run->window_start_ns || f->t_ns[i] > run->window_end_ns))
			continue;
		out->start_ns[k] = f->t_ns[i - 1];
		out->end_ns[k] = f->t_ns[i];
		out->index[k] = i;
		out->stall[k] = (double)(f->t_ns[i] - f->t_ns[i - 1]) / 1e6 > stall_ms;
		out->n_stall += out->stall[k];
		out->n++;
	}
	return out->n ? 0 : -ENODATA;
}

void prof_frames_release(struct prof_frames *f)
{
	free(f->start_ns);
	free(f->end_ns);
	free(f->index);
	free(f->stall);
	memset(f, 0, sizeof(*f));
}

static int by_self(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct prof_fn *profile_functions(const struct profile *p, const uint64_t *per_stack, size_t *n)
{
	struct prof_tree ix;
	struct prof_fn *f;
	uint32_t *seen;

	prof_tree_init(&ix, NULL, 0);
	f = NULL;
	*n = 0;
	for (size_t k = 0; k < p->rec.n_stack; k++) {
		const struct prof_path *pp = &p->path[k];

		if (!per_stack[k] || !pp->n)
			continue;
		seen = zalloc(pp->n * sizeof(*seen));
		for (uint32_t i = 0; i < pp->n; i++) {
			uint32_t id = prof_tree_name(&ix, pp->name[i]);
			bool dup = false;

			for (uint32_t j = 0; j < i; j++)
				dup = dup || seen[j] == id;
			seen[i] = id;
			if (id >= *n) {
				f = xrealloc(f, (id + 1) * sizeof(*f));
				memset(f + *n, 0, (id + 1 - *n) * sizeof(*f));
				*n = id + 1;
			}
			f[id].name = pp->name[i];
			if (!dup)
				f[id].total += per_stack[k];
			if (i == pp->n - 1)
				f[id].self += per_stack[k];
		}
		free(seen);
	}
	/* id 0 is the pool's "all", never a frame: dropped with every id
	 * no stack counted */
	if (*n)
		f[0] = (struct prof_fn){ .name = "all" };
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++)
		if (f[i].total)
			f[kept++] = f[i];
	*n = kept;
	qsort(f, *n, sizeof(*f), by_self);
	prof_tree_release(&ix);
	return f;
}

int profile_load_run(const char *dir, const char *const *gamedb_dirs, struct prof_rules *rules,
		     struct profile *p, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", dir, HB_PROFREC_FILE);
	bool have = access(path, F_OK) == 0;
	int r;

	free(path);
	if (!have)
		return -ENOENT;
	if ((r = prof_rules_find(gamedb_dirs, rules, err)) < 0)
		return r;
	if ((r = profile_load(dir, rules, p, err)) < 0)
		prof_rules_release(rules);
	return r;
}

/* The words for the samples of per_stack (n of them): their categories
 * of at least 5%, three at most, largest first. */
static void describe_what(const struct profile *p, const uint64_t *per_stack, uint64_t n, uint64_t *cat,
			  struct strbuf *out)
{
	profile_categories(p, per_stack, cat);
	profile_categories_describe(p, cat, n, 5.0, 3, out);
}

void profile_what_in(const struct profile *p, uint64_t start_ns, uint64_t end_ns, struct strbuf *out)
{
	uint64_t *one = zalloc((p->rec.n_stack + 1) * sizeof(*one)), cat[PROF_MAX_CATEGORIES] = { 0 };
	uint64_t n = profile_count(p, start_ns, end_ns, one);
	struct prof_fn *fn;
	size_t n_fn;

	size_t big = 0;

	describe_what(p, one, n, cat, out);
	/* the function most of the largest category's samples ended in */
	for (size_t c = 1; c < p->rules->n; c++)
		if (cat[c] > cat[big])
			big = c;
	for (size_t k = 0; k < p->rec.n_stack; k++)
		if (p->path[k].category != big)
			one[k] = 0;
	fn = profile_functions(p, one, &n_fn);
	if (n_fn && n)
		strbuf_addf(out, " (most: %s %.0f%%)", fn[0].name, 100.0 * (double)fn[0].self / (double)n);
	free(fn);
	free(one);
}

char *profile_stall_cpu_what(const struct run *run, const struct metric_opts *opts)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct prof_rules rules;
	struct prof_frames fr;
	struct profile p;

	if (!opts || profile_load_run(run->dir, opts->gamedb_dirs, &rules, &p, &err) < 0) {
		strbuf_release(&err);
		return NULL;
	}
	if (prof_frames_of(run, opts->stall_ms, false, &fr) == 0) {
		uint64_t *per = zalloc((p.rec.n_stack + 1) * sizeof(*per)), cat[PROF_MAX_CATEGORIES] = { 0 }, n = 0;

		for (size_t i = 0; i < fr.n; i++)
			if (fr.stall[i])
				n += profile_count(&p, fr.start_ns[i], fr.end_ns[i], per);
		describe_what(&p, per, n, cat, &out);
		free(per);
		prof_frames_release(&fr);
	}
	profile_release(&p);
	prof_rules_release(&rules);
	strbuf_release(&err);
	if (!out.buf)
		return xstrdup("");
	return strbuf_detach(&out);
}
