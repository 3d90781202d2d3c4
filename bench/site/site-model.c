/*
 * The site's model: the database's runs, batches and machines read once
 * (resultsdb-site.h), then placed: each run in its batch (or with the
 * runs of no batch of its machine and kernel), each counted run in the
 * series of its game, run name and machine, as a point per batch in
 * kernel version order. The change points of a series are found here.
 */
#include "site/site-internal.h"
#include "db/resultsdb-query.h"
#include "stats/stats.h"
#include "base/hash.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_KEPT 120
#define NAME_HEAD 96

char *site_file_name(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[HB_SHA256_HEX_LEN + 1];

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    *p == '-' || *p == '_' || (*p == '.' && p != (const unsigned char *)name);

		if (keep)
			strbuf_addch(&sb, (char)*p);
		else
			strbuf_addf(&sb, "~%02x", *p);
	}
	if (sb.len == 0)
		strbuf_addch(&sb, '~');
	if (sb.len > NAME_MAX_KEPT) {
		sha256_hex(name, strlen(name), hex);
		sb.len = NAME_HEAD;
		/* not inside a ~XX */
		while (sb.len > 0 && (sb.buf[sb.len - 1] == '~' || (sb.len > 1 && sb.buf[sb.len - 2] == '~')))
			sb.len--;
		sb.buf[sb.len] = '\0';
		strbuf_addf(&sb, "~~%.16s", hex);
	}
	return strbuf_detach(&sb);
}

char *site_trend_href(const char *game, const char *run_name, const char *metric)
{
	char *g = site_file_name(game), *r = site_file_name(run_name), *m = site_file_name(metric);
	char *href = xasprintf("trend/%s/%s/%s.html", g, r, m);

	free(g);
	free(r);
	free(m);
	return href;
}

/* The machine key of run r (resultsdb_machine_key()). */
static const char *site_run_machine(const struct resultsdb_site_run *r)
{
	return resultsdb_machine_key(r->machine_id, r->host);
}

static int cmp_version(const void *a, const void *b)
{
	return stats_version_cmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_machine(const void *a, const void *b)
{
	return strcmp(((const struct site_machine *)a)->key, ((const struct site_machine *)b)->key);
}

const struct site_machine *site_model_machine(const struct site_model *m, const char *key)
{
	struct site_machine k = { .key = (char *)key };

	return m->n_machines ? bsearch(&k, m->machines, m->n_machines, sizeof(k), cmp_machine) : NULL;
}

/* Adds s to the set list[0..*n) (unsorted; the caller sorts). */
static void set_add(char ***list, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return;
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

/* The machines, from the runs. */
static void make_machines(struct site_model *m)
{
	for (size_t i = 0; i < m->n_runs; i++) {
		const struct resultsdb_site_run *r = &m->runs[i];
		const char *key = site_run_machine(r);
		struct site_machine *mach = NULL;

		/* runs come by row id, machines few: the last one found is
		 * most often the next one's */
		for (size_t k = m->n_machines; k-- > 0;)
			if (!strcmp(m->machines[k].key, key)) {
				mach = &m->machines[k];
				break;
			}
		if (!mach) {
			char *name = site_file_name(key);

			m->machines = xrealloc(m->machines, (m->n_machines + 1) * sizeof(*m->machines));
			mach = &m->machines[m->n_machines++];
			memset(mach, 0, sizeof(*mach));
			mach->key = xstrdup(key);
			if (r->machine_id && r->host)
				mach->label = xasprintf("%s (%.8s)", r->host, r->machine_id);
			else
				mach->label = xstrdup(key);
			mach->href_from_root = xasprintf("machine/%s.html", name);
			free(name);
		}
		mach->runs++;
		mach->counted += r->counts;
		if (r->kernel_release)
			set_add(&mach->kernels, &mach->n_kernels, r->kernel_release);
	}
	if (m->n_machines)
		qsort(m->machines, m->n_machines, sizeof(*m->machines), cmp_machine);
	/* listed by label (host name), as a person looks for them */
	m->shown = zalloc(sizeof(*m->shown) * (m->n_machines + 1));
	for (size_t k = 0; k < m->n_machines; k++) {
		for (size_t j = 0; j < m->n_machines; j++) {
			int c = strcmp(m->machines[j].label, m->machines[k].label);

			m->machines[k].shown += c < 0 || (c == 0 && j < k);
		}
		m->shown[m->machines[k].shown] = &m->machines[k];
	}
	for (size_t k = 0; k < m->n_machines; k++)
		if (m->machines[k].n_kernels)
			qsort(m->machines[k].kernels, m->machines[k].n_kernels, sizeof(char *), cmp_version);
}

/* Whether a batch's command line is `hitchbench ab`: its first word
 * that is not an option is "ab" (batch.txt harness_command; the global
 * options before it take their value after '='). */
static bool batch_is_ab(const char *command)
{
	char *copy, *save = NULL;
	bool ab = false;
	int word = 0;

	if (!command)
		return false;
	copy = xstrdup(command);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (word++ == 0 || w[0] == '-')
			continue;
		ab = !strcmp(w, "ab");
		break;
	}
	free(copy);
	return ab;
}

struct batch_key {
	const char *uuid;
	size_t index;
};

static int cmp_batch_key(const void *a, const void *b)
{
	return strcmp(((const struct batch_key *)a)->uuid, ((const struct batch_key *)b)->uuid);
}

/* A loose group (runs of no batch): machine and kernel. */
struct loose_key {
	const char *machine, *kernel;
	size_t run;
};

static int cmp_loose(const void *a, const void *b)
{
	const struct loose_key *x = a, *y = b;
	int c = strcmp(x->machine, y->machine);

	if (!c)
		c = strcmp(x->kernel, y->kernel);
	return c ? c : (x->run > y->run) - (x->run < y->run);
}

static void batch_add_run(struct site_batch *b, size_t run)
{
	b->runs = xrealloc(b->runs, (b->n_runs + 1) * sizeof(*b->runs));
	b->runs[b->n_runs++] = run;
}

/* The batches and loose groups, and each run's (-1: none) in run_batch. */
static void make_batches(struct site_model *m, ssize_t *run_batch)
{
	struct batch_key *keys = zalloc(sizeof(*keys) * (m->n_db_batches + 1));
	struct loose_key *loose = zalloc(sizeof(*loose) * (m->n_runs + 1));
	size_t n_loose = 0;

	m->batches = zalloc(sizeof(*m->batches) * (m->n_db_batches + m->n_runs + 1));
	for (size_t i = 0; i < m->n_db_batches; i++) {
		struct resultsdb_site_batch *db = &m->db_batches[i];
		struct site_batch *b = &m->batches[i];
		char *name = site_file_name(db->uuid);

		b->b = db;
		b->href_from_root = xasprintf("batch/%s.html", name);
		if (batch_is_ab(db->harness_command))
			b->ab_href_from_root = xasprintf("batch/%s.ab.html", name);
		/* a batch row that names no machine takes its runs' (below) */
		if (db->machine_id || db->host)
			b->machine = xstrdup(resultsdb_machine_key(db->machine_id, db->host));
		b->kernel = xstrdup(db->kernel_release);
		b->started = db->started_utc;
		keys[i] = (struct batch_key){ db->uuid, i };
		free(name);
	}
	m->n_batches = m->n_db_batches;
	if (m->n_db_batches)
		qsort(keys, m->n_db_batches, sizeof(*keys), cmp_batch_key);
	for (size_t i = 0; i < m->n_runs; i++) {
		const struct resultsdb_site_run *r = &m->runs[i];
		struct batch_key k = { r->batch, 0 }, *found;

		run_batch[i] = -1;
		if (!r->batch) {
			if (r->kernel_release)
				loose[n_loose++] = (struct loose_key){ site_run_machine(r), r->kernel_release, i };
			continue;
		}
		found = m->n_db_batches ? bsearch(&k, keys, m->n_db_batches, sizeof(k), cmp_batch_key) : NULL;
		if (!found)
			continue;       /* imported between the two queries */
		run_batch[i] = (ssize_t)found->index;
		batch_add_run(&m->batches[found->index], i);
	}
	if (n_loose)
		qsort(loose, n_loose, sizeof(*loose), cmp_loose);
	for (size_t i = 0; i < n_loose; i++) {
		struct site_batch *b = &m->batches[m->n_batches - 1];

		if (i == 0 || strcmp(loose[i].machine, loose[i - 1].machine) ||
		    strcmp(loose[i].kernel, loose[i - 1].kernel)) {
			char *mn = site_file_name(loose[i].machine), *kn = site_file_name(loose[i].kernel);

			b = &m->batches[m->n_batches++];
			b->machine = xstrdup(loose[i].machine);
			b->kernel = xstrdup(loose[i].kernel);
			b->href_from_root = xasprintf("loose/%s/%s.html", mn, kn);
			free(mn);
			free(kn);
		}
		batch_add_run(b, loose[i].run);
		run_batch[loose[i].run] = (ssize_t)(b - m->batches);
	}
	/* what the database's batch row does not say, its runs do */
	for (size_t i = 0; i < m->n_batches; i++) {
		struct site_batch *b = &m->batches[i];

		for (size_t k = 0; k < b->n_runs; k++) {
			const struct resultsdb_site_run *r = &m->runs[b->runs[k]];

			if (!b->machine)
				b->machine = xstrdup(site_run_machine(r));
			if (!b->kernel && r->kernel_release)
				b->kernel = xstrdup(r->kernel_release);
			if (r->started_utc && (!b->started || (!b->b && strcmp(r->started_utc, b->started) < 0)))
				b->started = r->started_utc;
		}
	}
	/* a machine's batches, as its page lists them (loose groups aside) */
	for (size_t i = 0; i < m->n_batches; i++) {
		const char *key = m->batches[i].machine;
		struct site_machine *mach = key ? (struct site_machine *)site_model_machine(m, key) : NULL;

		if (mach && m->batches[i].b)
			mach->batches++;
	}
	free(keys);
	free(loose);
}

/* Counted runs of a game and run name, ordered by series and point. */
struct placed {
	const struct resultsdb_site_run *r;
	size_t run;
	const struct site_batch *batch;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	int c = strcmp(x->r->game, y->r->game);

	if (!c)
		c = strcmp(x->r->run_name, y->r->run_name);
	if (!c)
		c = strcmp(site_run_machine(x->r), site_run_machine(y->r));
	if (!c)
		c = (x->batch > y->batch) - (x->batch < y->batch);
	return c ? c : (x->run > y->run) - (x->run < y->run);
}

static int cmp_point(const void *a, const void *b)
{
	const struct site_point *x = a, *y = b;
	int c = stats_version_cmp(x->kernel, y->kernel);

	if (c)
		return c;
	if (!x->started || !y->started)
		c = !!x->started - !!y->started;
	else
		c = strcmp(x->started, y->started);
	return c ? c : strcmp(x->href_from_root, y->href_from_root);
}

static void make_series(struct site_model *m, const ssize_t *run_batch, size_t **slots)
{
	struct placed *pl = zalloc(sizeof(*pl) * (m->n_runs + 1));
	size_t n = 0;

	for (size_t i = 0; i < m->n_runs; i++) {
		const struct resultsdb_site_run *r = &m->runs[i];

		if (r->counts && r->game && r->run_name)
			pl[n++] = (struct placed){ r, i, run_batch[i] >= 0 ? &m->batches[run_batch[i]] : NULL };
	}
	if (n)
		qsort(pl, n, sizeof(*pl), cmp_placed);
	*slots = zalloc(sizeof(**slots) * (n + 1));
	for (size_t i = 0; i < n; i++)
		(*slots)[i] = pl[i].run;
	for (size_t i = 0; i < n; i++) {
		struct site_series *s;
		struct site_point *p;

		if (i == 0 || strcmp(pl[i].r->game, pl[i - 1].r->game) ||
		    strcmp(pl[i].r->run_name, pl[i - 1].r->run_name) ||
		    strcmp(site_run_machine(pl[i].r), site_run_machine(pl[i - 1].r))) {
			m->series = xrealloc(m->series, (m->n_series + 1) * sizeof(*m->series));
			s = &m->series[m->n_series++];
			memset(s, 0, sizeof(*s));
			s->game = pl[i].r->game;
			s->run_name = pl[i].r->run_name;
			s->machine = site_run_machine(pl[i].r);
		}
		s = &m->series[m->n_series - 1];
		if (!pl[i].batch || !pl[i].r->kernel_release) {
			s->without_kernel++;    /* no kernel: no place on the trend */
			continue;
		}
		p = s->n_points ? &s->points[s->n_points - 1] : NULL;
		if (!p || p->href_from_root != pl[i].batch->href_from_root) {
			s->points = xrealloc(s->points, (s->n_points + 1) * sizeof(*s->points));
			p = &s->points[s->n_points++];
			*p = (struct site_point){ .batch = pl[i].batch->b ? pl[i].batch->b->uuid : NULL,
						  .kernel = pl[i].r->kernel_release,
						  .started = pl[i].batch->started,
						  .href_from_root = pl[i].batch->href_from_root,
						  .runs = &(*slots)[i] };
		}
		p->n_runs++;
	}
	for (size_t k = 0; k < m->n_series; k++)
		if (m->series[k].n_points)
			qsort(m->series[k].points, m->series[k].n_points, sizeof(struct site_point), cmp_point);
	free(pl);
}

int site_model_load(struct site_model *m, struct resultsdb *db, const struct site_opts *o,
		    struct strbuf *err)
{
	ssize_t *run_batch;
	int r;

	memset(m, 0, sizeof(*m));
	m->o = o;
	m->n_values = o->n_metrics + SITE_NOISE_METRICS;
	m->metric_names = zalloc(sizeof(*m->metric_names) * m->n_values);
	for (size_t i = 0; i < o->n_metrics; i++)
		m->metric_names[i] = metric_defs[o->metrics[i]].name;
	m->metric_names[o->n_metrics] = metric_defs[M_STEAL_PCT].name;
	m->metric_names[o->n_metrics + 1] = metric_defs[M_FOREIGN_CPU_PCT].name;
	r = resultsdb_site_runs(db, m->metric_names, m->n_values, &m->runs, &m->n_runs, err);
	if (r == 0)
		r = resultsdb_site_batches(db, &m->db_batches, &m->n_db_batches, err);
	if (r == 0)
		r = resultsdb_site_machines(db, &m->db_machines, &m->n_db_machines, err);
	if (r < 0)
		return r;
	make_machines(m);
	run_batch = zalloc(sizeof(*run_batch) * (m->n_runs + 1));
	make_batches(m, run_batch);
	make_series(m, run_batch, &m->slots);
	free(run_batch);
	return 0;
}

void site_model_release(struct site_model *m)
{
	for (size_t i = 0; i < m->n_machines; i++) {
		free(m->machines[i].key);
		free(m->machines[i].label);
		free(m->machines[i].href_from_root);
		for (size_t k = 0; k < m->machines[i].n_kernels; k++)
			free(m->machines[i].kernels[k]);
		free(m->machines[i].kernels);
	}
	for (size_t i = 0; i < m->n_batches; i++) {
		free(m->batches[i].machine);
		free(m->batches[i].kernel);
		free(m->batches[i].href_from_root);
		free(m->batches[i].ab_href_from_root);
		free(m->batches[i].runs);
	}
	for (size_t i = 0; i < m->n_series; i++)
		free(m->series[i].points);
	free(m->machines);
	free(m->shown);
	free(m->batches);
	free(m->series);
	free(m->slots);
	resultsdb_site_runs_free(m->runs, m->n_runs);
	resultsdb_site_batches_free(m->db_batches, m->n_db_batches);
	resultsdb_site_machines_free(m->db_machines, m->n_db_machines);
	free(m->metric_names);
	memset(m, 0, sizeof(*m));
}

static void point_stats(const struct site_model *m, const struct site_point *p, size_t v,
			struct site_point_stats *out)
{
	double *x = zalloc(sizeof(*x) * (p->n_runs + 1));
	size_t n = 0;

	for (size_t i = 0; i < p->n_runs; i++) {
		const struct resultsdb_site_run *r = &m->runs[p->runs[i]];

		if (r->have[v])
			x[n++] = r->v[v];
	}
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n) {
		out->median = stats_median(x, n);
		out->min = out->max = x[0];
		for (size_t i = 1; i < n; i++) {
			out->min = fmin(out->min, x[i]);
			out->max = fmax(out->max, x[i]);
		}
	}
	free(x);
}

struct site_point_stats *site_series_stats(const struct site_model *m, const struct site_series *s, size_t v)
{
	struct site_point_stats *ps = zalloc(sizeof(*ps) * (s->n_points + 1));

	for (size_t i = 0; i < s->n_points; i++)
		point_stats(m, &s->points[i], v, &ps[i]);
	return ps;
}

#define SITE_BOOTSTRAP { 2000, 0.95, 0x73697465ULL }

int site_series_changes(const struct site_model *m, const struct site_series *s,
			const struct site_point_stats *ps, size_t v, const char *page,
			struct site_change **out, size_t *n)
{
	struct changepoint_opts co = CHANGEPOINT_OPTS_DEFAULT;
	const struct stats_bootstrap bo = SITE_BOOTSTRAP;
	size_t *used = zalloc(sizeof(*used) * (s->n_points + 1)), nu = 0, first = 0, ncps = 0;
	double *x = zalloc(sizeof(*x) * (s->n_points + 1));
	bool *may = zalloc(sizeof(*may) * (s->n_points + 1));
	struct changepoint *cps = NULL;
	int r = 0;

	if (m->o->seed)
		co.seed = m->o->seed;
	for (size_t i = 0; i < s->n_points; i++)
		if (ps[i].n)
			x[nu] = ps[i].median, used[nu++] = i;
	/* the newest points, when there are more than the statistic takes */
	if (nu > CHANGEPOINT_MAX_VALUES)
		first = nu - CHANGEPOINT_MAX_VALUES;
	for (size_t i = first; i < nu; i++)
		may[i] = i == first || strcmp(s->points[used[i]].kernel, s->points[used[i - 1]].kernel) != 0;
	if (nu - first >= 2 * co.min_size)
		r = changepoint_edivisive(x + first, nu - first, may + first, &co, &cps, &ncps);
	for (size_t k = 0; r == 0 && k < ncps; k++) {
		size_t at = first + cps[k].index;
		size_t from = k ? first + cps[k - 1].index : first;
		size_t to = k + 1 < ncps ? first + cps[k + 1].index : nu;
		const struct site_point *before = &s->points[used[at - 1]], *after = &s->points[used[at]];
		const struct site_machine *mach = site_model_machine(m, s->machine);
		struct site_change c = {
			.page = xstrdup(page), .machine = xstrdup(s->machine),
			.label = xstrdup(mach ? mach->label : s->machine), .game = xstrdup(s->game),
			.run_name = xstrdup(s->run_name), .metric = xstrdup(m->metric_names[v]),
			.kernel_before = xstrdup(before->kernel), .kernel_after = xstrdup(after->kernel),
			.batch_after = xstrdup(after->href_from_root), .p = cps[k].p,
			.before = cps[k].median_before, .after = cps[k].median_after,
			.percent = NAN, .lo = NAN, .hi = NAN,
		};
		double lo, hi;

		if (cps[k].median_before != 0.0) {
			c.percent = 100.0 * cps[k].magnitude / cps[k].median_before;
			if (stats_bootstrap_median_diff(x + from, at - from, x + at, to - at, &bo, &lo, &hi) == 0) {
				c.lo = 100.0 * lo / fabs(cps[k].median_before);
				c.hi = 100.0 * hi / fabs(cps[k].median_before);
			}
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = c;
	}
	free(cps);
	free(used);
	free(x);
	free(may);
	return r;
}
