/*
 * PresentMon CSV (Intel, GameTechDev/PresentMon) and NVIDIA FrameView,
 * which writes PresentMon's columns and its own (GPU, CPU, Resolution,
 * per-core `CPUCoreUtil%[ 0]`, values padded with blanks). A row is a
 * present; the frame time is the interval from the previous present of the
 * same swap chain: `msBetweenPresents` (1.x, and 2.x with --v1_metrics),
 * `MsBetweenPresents` (1.x late, 2.x, FrameView) or `FrameTime` (2.x with
 * --v2_metrics). One file holds every process that presented (dwm.exe,
 * browsers, the game): one process is kept, the one asked for or the one
 * with the most presents that is not a compositor, and in it the swap
 * chain with the most. Windows files come with a UTF-8 BOM and CRLF, and
 * quote a field that holds a comma; `NA` marks a value not known (the
 * first present of a swap chain). Processes and swap chains are found
 * through hash tables: a file of many processes reads in linear time.
 *
 * AMD's OCAT writes PresentMon 1.x's columns and, after them, the system's
 * (Motherboard, OS, Processor, System RAM, Base Driver Version, Driver
 * Package, GPU #, GPU, clocks, memory), filled in on the first data row
 * only: the later rows are shorter than the header. They become the log's
 * info. FrameView's summary file beside its logs (FrameView_Summary.csv, a
 * row per log named in `Log Name`) is read by import_read(), as other
 * tools' summaries are.
 */
#include "import/import-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* PresentMon and FrameView trace Windows (ETW), where one program
 * composes the desktop: the Desktop Window Manager. It presents all the
 * time (often more than a game that stutters), and is never the game. */
static const char *const import_presentmon_compositors[] = { "dwm.exe", NULL };

struct pm_proc {
	char *app, *pid;
	size_t rows;
};

struct pm_chain {
	size_t proc;
	char *addr, *runtime, *mode;
	size_t rows;
};

struct pm_row {
	size_t chain;
	int line;
	double ms;              /* NAN: not known (NA) */
};

/* Open addressing over indices into procs or chains (0 = empty, else
 * index + 1), at most half full. */
struct pm_map {
	size_t *slot;
	size_t cap, n;
};

struct pm {
	struct pm_proc *procs;
	size_t n_procs, alloc_procs;
	struct pm_chain *chains;
	size_t n_chains, alloc_chains;
	struct pm_map proc_map, chain_map;
	struct pm_row *rows;
	size_t n_rows, alloc_rows;
	char *first_gpu, *first_cpu, *first_res;   /* FrameView's, of its first row */
	bool system_read;       /* OCAT's system columns taken from the first row */
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	/* FNV-1a, the terminating NUL included so "ab"+"c" != "a"+"bc" */
	do
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	while (*s++);
	return h;
}

#define HASH_SEED 0xcbf29ce484222325ull

static uint64_t proc_hash(const char *app, const char *pid)
{
	return hash_str(hash_str(HASH_SEED, app), pid);
}

static uint64_t chain_hash(size_t proc, const char *addr)
{
	return hash_str(HASH_SEED ^ ((uint64_t)proc * 0x9e3779b97f4a7c15ull), addr);
}

static uint64_t entry_hash(const struct pm *pm, const struct pm_map *m, size_t i)
{
	if (m == &pm->proc_map)
		return proc_hash(pm->procs[i].app, pm->procs[i].pid);
	return chain_hash(pm->chains[i].proc, pm->chains[i].addr);
}

static void map_grow(struct pm *pm, struct pm_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	size_t *slot = zalloc(cap * sizeof(*slot));

	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->slot[i])
			continue;
		for (h = entry_hash(pm, m, m->slot[i] - 1) & (cap - 1); slot[h]; h = (h + 1) & (cap - 1))
			;
		slot[h] = m->slot[i];
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
}

static void *grow(void *v, size_t *alloc, size_t n, size_t size)
{
	if (n < *alloc)
		return v;
	*alloc = *alloc ? 2 * *alloc : 16;
	return xrealloc(v, *alloc * size);
}

/* What a process or a chain is found by: app and pid, or proc and addr. */
struct pm_key {
	size_t proc;
	const char *s1, *s2;
};

static bool key_matches(const struct pm *pm, const struct pm_map *m, size_t i, const struct pm_key *k)
{
	if (m == &pm->proc_map)
		return !strcmp(pm->procs[i].app, k->s1) && !strcmp(pm->procs[i].pid, k->s2);
	return pm->chains[i].proc == k->proc && !strcmp(pm->chains[i].addr, k->s1);
}

/* The slot holding the entry of key k (*found set), or the empty slot
 * where it goes (the map grown first, so it has room for one more). */
static size_t *map_slot(struct pm *pm, struct pm_map *m, uint64_t hash, const struct pm_key *k,
			bool *found)
{
	size_t h;

	if (2 * (m->n + 1) > m->cap)
		map_grow(pm, m);
	for (h = hash & (m->cap - 1); m->slot[h]; h = (h + 1) & (m->cap - 1)) {
		if (key_matches(pm, m, m->slot[h] - 1, k)) {
			*found = true;
			return &m->slot[h];
		}
	}
	*found = false;
	m->n++;
	return &m->slot[h];
}

static size_t find_proc(struct pm *pm, const char *app, const char *pid)
{
	struct pm_key k = { 0, app, pid };
	bool found;
	size_t *slot = map_slot(pm, &pm->proc_map, proc_hash(app, pid), &k, &found);

	if (found)
		return *slot - 1;
	pm->procs = grow(pm->procs, &pm->alloc_procs, pm->n_procs, sizeof(*pm->procs));
	pm->procs[pm->n_procs] = (struct pm_proc){ xstrdup(app), xstrdup(pid), 0 };
	*slot = ++pm->n_procs;
	return pm->n_procs - 1;
}

static size_t find_chain(struct pm *pm, size_t proc, const char *addr, const char *runtime,
			 const char *mode)
{
	struct pm_key k = { proc, addr, NULL };
	bool found;
	size_t *slot = map_slot(pm, &pm->chain_map, chain_hash(proc, addr), &k, &found);

	if (found)
		return *slot - 1;
	pm->chains = grow(pm->chains, &pm->alloc_chains, pm->n_chains, sizeof(*pm->chains));
	pm->chains[pm->n_chains] = (struct pm_chain){ proc, xstrdup(addr), xstrdup(runtime),
						      xstrdup(mode), 0 };
	*slot = ++pm->n_chains;
	return pm->n_chains - 1;
}

static void pm_release(struct pm *pm)
{
	for (size_t i = 0; i < pm->n_procs; i++) {
		free(pm->procs[i].app);
		free(pm->procs[i].pid);
	}
	for (size_t i = 0; i < pm->n_chains; i++) {
		free(pm->chains[i].addr);
		free(pm->chains[i].runtime);
		free(pm->chains[i].mode);
	}
	free(pm->procs);
	free(pm->chains);
	free(pm->proc_map.slot);
	free(pm->chain_map.slot);
	free(pm->first_gpu);
	free(pm->first_cpu);
	free(pm->first_res);
	free(pm->rows);
}

static int column(char **f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(f[i], name) == 0)
			return (int)i;
	return -1;
}

static bool has_prefix_column(char **f, size_t n, const char *prefix)
{
	for (size_t i = 0; i < n; i++)
		if (str_startswith(f[i], prefix))
			return true;
	return false;
}

/* OCAT's system columns, as log info keys. */
static const struct { const char *column, *key; } ocat_system[] = {
	{ "Motherboard", "motherboard" },
	{ "OS", "os" },
	{ "Processor", "cpu" },
	{ "System RAM", "ram" },
	{ "Base Driver Version", "driver" },
	{ "Driver Package", "driver_package" },
	{ "GPU #", "gpu_count" },
	{ "GPU", "gpu" },
	{ "GPU Core Clock (MHz)", "gpu_core_clock_mhz" },
	{ "GPU Memory Clock (MHz)", "gpu_memory_clock_mhz" },
	{ "GPU Memory (MB)", "gpu_memory_mb" },
};

static enum import_format pm_tool(char **f, size_t n)
{
	if (column(f, n, "Resolution") >= 0 || has_prefix_column(f, n, "CPUCoreUtil") ||
	    has_prefix_column(f, n, "GPU0Clk"))
		return IMPORT_FRAMEVIEW;
	if (column(f, n, "Motherboard") >= 0 || column(f, n, "Base Driver Version") >= 0)
		return IMPORT_OCAT;
	return IMPORT_PRESENTMON;
}

static const char *pm_version(char **f, size_t n, bool *frameview)
{
	enum import_format tool = pm_tool(f, n);

	*frameview = tool == IMPORT_FRAMEVIEW;
	if (*frameview)
		return "FrameView";
	if (tool == IMPORT_OCAT)
		return "OCAT (PresentMon 1.x columns, the system's on the first row)";
	if (column(f, n, "CPUStartTime") >= 0 && column(f, n, "MsBetweenPresents") >= 0 &&
	    column(f, n, "TimeInSeconds") >= 0)
		return "2.x (capture app, or the console tool with times in seconds)";
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i], "msBetweenPresents") == 0)
			return "1.x column names (PresentMon 1.x, or 2.x --v1_metrics)";
	if (column(f, n, "MsBetweenPresents") < 0)
		return "2.x --v2_metrics (FrameTime)";
	if (column(f, n, "PresentRuntime") >= 0 || column(f, n, "FrameType") >= 0)
		return "2.x";
	return "1.x";
}

static bool is_compositor(const char *app)
{
	for (const char *const *c = import_presentmon_compositors; *c; c++)
		if (!strcasecmp(app, *c))
			return true;
	return false;
}

/* Process indices by presents, most first (ties: first seen first). */
static int by_rows(const void *a, const void *b, void *arg)
{
	const struct pm *pm = arg;
	const struct pm_proc *x = &pm->procs[*(const size_t *)a];
	const struct pm_proc *y = &pm->procs[*(const size_t *)b];

	if (x->rows != y->rows)
		return x->rows > y->rows ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static size_t *procs_by_rows(struct pm *pm)
{
	size_t *order = xrealloc(NULL, pm->n_procs * sizeof(*order));

	for (size_t i = 0; i < pm->n_procs; i++)
		order[i] = i;
	qsort_r(order, pm->n_procs, sizeof(*order), by_rows, pm);
	return order;
}

#define LIST_PROCS 20 /* processes named in a message or bench.txt; the rest counted */

static void list_procs(const struct pm *pm, const size_t *order, struct strbuf *sb)
{
	for (size_t k = 0; k < pm->n_procs && k < LIST_PROCS; k++) {
		const struct pm_proc *pr = &pm->procs[order[k]];

		strbuf_addf(sb, "%s%s (%s): %zu", k ? ", " : "", pr->app, pr->pid, pr->rows);
	}
	if (pm->n_procs > LIST_PROCS)
		strbuf_addf(sb, ", and %zu more", pm->n_procs - LIST_PROCS);
}

/* The process to keep: asked for by name or id, else the one with the
 * most rows that is not a compositor (a compositor only if nothing else
 * presented). Says which in notes. */
static int pick_process(const struct pm *pm, const size_t *order, const char *want,
			const char *path, struct import_series *out, size_t *pick, struct strbuf *err)
{
	const struct pm_proc *pr;

	if (want) {
		for (size_t i = 0; i < pm->n_procs; i++) {
			if (!strcasecmp(pm->procs[i].app, want) || !strcmp(pm->procs[i].pid, want)) {
				*pick = i;
				kvfile_add(&out->info, "process_choice", "--process");
				return 0;
			}
		}
		strbuf_addf(err, "%s: expected a process '%s' (by Application or ProcessID); the log has ",
			    path, want);
		list_procs(pm, order, err);
		return -EINVAL;
	}
	*pick = order[0];
	for (size_t k = 0; k < pm->n_procs; k++) {
		if (!is_compositor(pm->procs[order[k]].app)) {
			*pick = order[k];
			break;
		}
	}
	pr = &pm->procs[*pick];
	if (is_compositor(pr->app)) {
		kvfile_add(&out->info, "process_choice", "the compositor: no other process presented");
		strbuf_addf(&out->notes, "%s: only the compositor %s (%s) presented: kept it\n", path, pr->app,
			    pr->pid);
		return 0;
	}
	kvfile_add(&out->info, "process_choice", "the most presents, compositors left out");
	if (pm->n_procs > 1)
		strbuf_addf(&out->notes, "%s: kept %s (%s), the process with the most presents (%zu of %zu) "
			    "that is not a compositor; --process NAME or PID keeps another\n", path, pr->app,
			    pr->pid, pr->rows, out->rows);
	return 0;
}

struct pm_cols {
	int app, pid, chain, ms, rt, mode, gpu, cpu, res;
	int need;               /* the highest of app .. mode: a row has more fields
	                         * (gpu, cpu, res and OCAT's system columns may be
	                         * missing from a row: OCAT fills them on row 1 only) */
	int system[sizeof(ocat_system) / sizeof(ocat_system[0])];
};

static int header(const struct csv_record *rec, const char *path, struct pm_cols *c,
		  struct import_series *out, bool *frameview, struct strbuf *err)
{
	char **f = rec->f;
	size_t nh = rec->n;
	int idx[6];

	c->app = column(f, nh, "Application");
	c->pid = column(f, nh, "ProcessID");
	c->chain = column(f, nh, "SwapChainAddress");
	c->ms = column(f, nh, "MsBetweenPresents");
	if (c->ms < 0)
		c->ms = column(f, nh, "FrameTime");
	c->rt = column(f, nh, "PresentRuntime");
	if (c->rt < 0)
		c->rt = column(f, nh, "Runtime");
	c->mode = column(f, nh, "PresentMode");
	c->gpu = column(f, nh, "GPU");
	c->cpu = column(f, nh, "CPU");
	c->res = column(f, nh, "Resolution");
	if (c->app < 0 || c->ms < 0) {
		strbuf_addf(err, "%s:%d: expected PresentMon's column header (Application,ProcessID,..."
			    "MsBetweenPresents or FrameTime), found '%.60s'", path, rec->line, f[0]);
		return -EINVAL;
	}
	kvfile_add(&out->info, "version", pm_version(f, nh, frameview));
	out->format = import_format_name(pm_tool(f, nh));
	for (size_t k = 0; k < sizeof(ocat_system) / sizeof(ocat_system[0]); k++)
		c->system[k] = *frameview ? -1 : column(f, nh, ocat_system[k].column);
	if (!*frameview)
		c->gpu = c->cpu = c->res = -1;   /* OCAT's GPU is a system column */
	memcpy(idx, (int[]){ c->app, c->pid, c->chain, c->ms, c->rt, c->mode }, sizeof(idx));
	c->need = 0;
	for (int k = 0; k < 6; k++)
		if (idx[k] > c->need)
			c->need = idx[k];
	return 0;
}

static const char *col(const struct csv_record *rec, int i)
{
	return i >= 0 && (size_t)i < rec->n ? rec->f[i] : "";
}

/* OCAT's system columns of the first row that has them, into info. */
static void read_system(struct pm *pm, const struct pm_cols *cl, const struct csv_record *rec,
			struct import_series *out)
{
	bool any = false;

	for (size_t k = 0; k < sizeof(ocat_system) / sizeof(ocat_system[0]); k++) {
		const char *v = col(rec, cl->system[k]);

		if (*v) {
			kvfile_add(&out->info, ocat_system[k].key, v);
			any = true;
		}
	}
	pm->system_read = any;
}

/* The kept chain's rows into frames. */
static void keep_frames(const struct pm *pm, size_t chain, struct import_series *out)
{
	for (size_t i = 0; i < pm->n_rows; i++) {
		char text[32];

		if (pm->rows[i].chain != chain || isnan(pm->rows[i].ms))
			continue;
		snprintf(text, sizeof(text), "%g ms", pm->rows[i].ms);
		import_frame_ms(out, pm->rows[i].line, pm->rows[i].ms, text);
	}
}

/* One row after the header into pm: 1 when it was kept, 0 when dropped
 * (cut short by a crash: noted in out), -EINVAL with err set. */
static int read_row(struct pm *pm, const struct pm_cols *cl, bool frameview, size_t nh,
		    const struct csv_record *rec, const char *path, struct import_series *out,
		    struct strbuf *err)
{
	double ms = NAN;
	const char *ft;
	size_t proc, chain;

	if (rec->cut && rec->n < nh) {
		char what[64];

		snprintf(what, sizeof(what), "%zu of %zu fields", rec->n, nh);
		import_drop_cut(out, path, rec->line, what);
		return 0;
	}
	if ((int)rec->n <= cl->need) {
		strbuf_addf(err, "%s:%d: expected %zu fields as the header says, found %zu",
			    path, rec->line, nh, rec->n);
		return -EINVAL;
	}
	ft = rec->f[cl->ms];
	if (strcmp(ft, "NA") != 0 && *ft && import_parse_value(ft, &ms) < 0) {
		if (rec->cut) {
			char *what = xasprintf("'%.20s' as the frame time", ft);

			import_drop_cut(out, path, rec->line, what);
			free(what);
			return 0;
		}
		strbuf_addf(err, "%s:%d: expected a number or NA as the frame time, found '%.40s'",
			    path, rec->line, ft);
		return -EINVAL;
	}
	proc = find_proc(pm, rec->f[cl->app], col(rec, cl->pid));
	pm->procs[proc].rows++;
	chain = find_chain(pm, proc, col(rec, cl->chain), col(rec, cl->rt), col(rec, cl->mode));
	pm->chains[chain].rows++;
	pm->rows = grow(pm->rows, &pm->alloc_rows, pm->n_rows, sizeof(*pm->rows));
	pm->rows[pm->n_rows++] = (struct pm_row){ chain, rec->line, ms };
	if (!frameview && !pm->system_read)
		read_system(pm, cl, rec, out);
	if (frameview && !pm->first_gpu) {
		pm->first_gpu = xstrdup(col(rec, cl->gpu));
		pm->first_cpu = xstrdup(col(rec, cl->cpu));
		pm->first_res = xstrdup(col(rec, cl->res));
	}
	return 1;
}

/* The picked process's busiest chain (the first of a tie). */
static size_t busiest_chain(const struct pm *pm, size_t proc)
{
	size_t chain = 0;

	for (size_t i = 0, best = 0; i < pm->n_chains; i++) {
		if (pm->chains[i].proc != proc)
			continue;
		if (!best++ || pm->chains[i].rows > pm->chains[chain].rows)
			chain = i;
	}
	return chain;
}

/* What was kept, for the import's info: the process, its chain, the
 * processes seen, and FrameView's GPU, CPU and resolution. */
static void describe(const struct pm *pm, const struct pm_cols *cl, const size_t *order,
		     size_t proc, size_t chain, struct import_series *out)
{
	struct strbuf procs = STRBUF_INIT;

	kvfile_add(&out->info, "application", pm->procs[proc].app);
	if (cl->pid >= 0)
		kvfile_add(&out->info, "process_id", pm->procs[proc].pid);
	if (cl->chain >= 0)
		kvfile_add(&out->info, "swap_chain", pm->chains[chain].addr);
	if (cl->rt >= 0)
		kvfile_add(&out->info, "runtime", pm->chains[chain].runtime);
	if (cl->mode >= 0)
		kvfile_add(&out->info, "present_mode", pm->chains[chain].mode);
	list_procs(pm, order, &procs);
	kvfile_add(&out->info, "processes", procs.buf);
	strbuf_release(&procs);
	if (pm->first_gpu && *pm->first_gpu)
		kvfile_add(&out->info, "gpu", pm->first_gpu);
	if (pm->first_cpu && *pm->first_cpu)
		kvfile_add(&out->info, "cpu", pm->first_cpu);
	if (pm->first_res && *pm->first_res)
		kvfile_add(&out->info, "resolution", pm->first_res);
}

int import_presentmon_parse(const char *text, size_t len, const char *path,
			    const struct import_opts *o, struct import_series *out,
			    struct strbuf *err)
{
	struct pm pm;
	struct pm_cols cl;
	struct csv c;
	struct csv_record rec;
	size_t nh, proc, chain, *order = NULL;
	bool frameview;
	int r;

	memset(&pm, 0, sizeof(pm));
	out->format = import_format_name(IMPORT_PRESENTMON);
	csv_init(&c, text, len, IMPORT_CSV_FLAGS);
	if ((r = csv_next(&c, &rec)) <= 0) {
		if (r < 0)
			import_csv_error(&c, path, err);
		else
			strbuf_addf(err, "%s:%d: expected PresentMon's column header, found the end", path, c.line);
		r = -EINVAL;
		goto out;
	}
	nh = rec.n;
	if ((r = header(&rec, path, &cl, out, &frameview, err)) < 0)
		goto out;
	while ((r = csv_next(&c, &rec)) > 0) {
		r = read_row(&pm, &cl, frameview, nh, &rec, path, out, err);
		if (r < 0)
			goto out;
		out->rows++;
	}
	if (r < 0) {
		import_csv_error(&c, path, err);
		goto out;
	}
	if (!pm.n_rows) {
		strbuf_addf(err, "%s:%d: expected presents after the header, found the end", path, c.line);
		r = -EINVAL;
		goto out;
	}
	order = procs_by_rows(&pm);
	r = pick_process(&pm, order, o ? o->process : NULL, path, out, &proc, err);
	if (r < 0)
		goto out;
	chain = busiest_chain(&pm, proc);
	keep_frames(&pm, chain, out);
	describe(&pm, &cl, order, proc, chain, out);
	r = import_finish(out, path, err);
out:
	free(order);
	pm_release(&pm);
	csv_release(&c);
	return r;
}
