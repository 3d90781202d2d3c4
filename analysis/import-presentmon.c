/*
 * PresentMon CSV (Intel, GameTechDev/PresentMon) and NVIDIA FrameView,
 * which writes PresentMon's columns and its own (GPU, CPU, Resolution,
 * per-core `CPUCoreUtil%[ 0]`, values padded with blanks). A row is a
 * present; the frame time is the interval from the previous present of the
 * same swap chain: `msBetweenPresents` (1.x, and 2.x with --v1_metrics),
 * `MsBetweenPresents` (1.x late, 2.x, FrameView) or `FrameTime` (2.x with
 * --v2_metrics). One file holds every process that presented (dwm.exe,
 * browsers, the game): one process is kept, the one asked for or the one
 * with the most presents, and in it the swap chain with the most. Windows
 * files come with a UTF-8 BOM and CRLF; `NA` marks a value not known (the
 * first present of a swap chain).
 */
#include "import-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	double ms;              /* NAN: not known */
};

struct pm {
	struct pm_proc *procs;
	size_t n_procs;
	struct pm_chain *chains;
	size_t n_chains;
	struct pm_row *rows;
	size_t n_rows, alloc_rows;
};

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

static size_t find_proc(struct pm *pm, const char *app, const char *pid)
{
	for (size_t i = 0; i < pm->n_procs; i++)
		if (!strcmp(pm->procs[i].app, app) && !strcmp(pm->procs[i].pid, pid))
			return i;
	pm->procs = xrealloc(pm->procs, (pm->n_procs + 1) * sizeof(*pm->procs));
	pm->procs[pm->n_procs] = (struct pm_proc){ xstrdup(app), xstrdup(pid), 0 };
	return pm->n_procs++;
}

static size_t find_chain(struct pm *pm, size_t proc, const char *addr, const char *runtime,
			 const char *mode)
{
	for (size_t i = 0; i < pm->n_chains; i++)
		if (pm->chains[i].proc == proc && !strcmp(pm->chains[i].addr, addr))
			return i;
	pm->chains = xrealloc(pm->chains, (pm->n_chains + 1) * sizeof(*pm->chains));
	pm->chains[pm->n_chains] = (struct pm_chain){ proc, xstrdup(addr), xstrdup(runtime),
						      xstrdup(mode), 0 };
	return pm->n_chains++;
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
	free(pm->rows);
}

static const char *pm_version(char **f, size_t n, bool *frameview)
{
	*frameview = column(f, n, "Resolution") >= 0 || has_prefix_column(f, n, "CPUCoreUtil") ||
		     has_prefix_column(f, n, "GPU0Clk");
	if (*frameview)
		return "FrameView";
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i], "msBetweenPresents") == 0)
			return "1.x column names (PresentMon 1.x, or 2.x --v1_metrics)";
	if (column(f, n, "MsBetweenPresents") < 0)
		return "2.x --v2_metrics (FrameTime)";
	if (column(f, n, "PresentRuntime") >= 0 || column(f, n, "FrameType") >= 0)
		return "2.x";
	return "1.x";
}

/* The process to keep: asked for by name or id, else the one with most rows. */
static int pick_process(struct pm *pm, const char *want, const char *path, size_t *out,
			struct strbuf *err)
{
	size_t best = 0;

	for (size_t i = 0; i < pm->n_procs; i++) {
		struct pm_proc *pr = &pm->procs[i];

		if (want) {
			if (!strcasecmp(pr->app, want) || !strcmp(pr->pid, want)) {
				*out = i;
				return 0;
			}
		} else if (pr->rows > pm->procs[best].rows) {
			best = i;
		}
	}
	if (!want) {
		*out = best;
		return 0;
	}
	strbuf_addf(err, "%s: expected a process '%s' (by Application or ProcessID); the log has", path, want);
	for (size_t i = 0; i < pm->n_procs; i++)
		strbuf_addf(err, "%s %s (%s)", i ? "," : "", pm->procs[i].app, pm->procs[i].pid);
	return -EINVAL;
}

int import_presentmon_parse(const char *text, size_t len, const char *path,
			    const struct import_opts *o, struct import_series *out,
			    struct strbuf *err)
{
	struct pm pm;
	struct lines l;
	struct strbuf procs = STRBUF_INIT;
	char *f[CSV_MAX_FIELDS], *line;
	size_t nh, proc, chain = 0;
	int i_app, i_pid, i_chain, i_ms, i_rt, i_mode, i_gpu, i_cpu, i_res, need;
	bool frameview;
	char *first_gpu = NULL, *first_cpu = NULL, *first_res = NULL;
	int r = 0;

	memset(&pm, 0, sizeof(pm));
	out->format = import_format_name(IMPORT_PRESENTMON);
	lines_init(&l, text, len);
	while ((line = lines_next(&l)) && !*str_strip(line))
		;
	if (!line) {
		strbuf_addf(err, "%s:%d: expected PresentMon's column header, found the end", path, l.no);
		r = -EINVAL;
		goto out;
	}
	nh = csv_split(line, f, CSV_MAX_FIELDS);
	i_app = column(f, nh, "Application");
	i_pid = column(f, nh, "ProcessID");
	i_chain = column(f, nh, "SwapChainAddress");
	i_ms = column(f, nh, "MsBetweenPresents");
	if (i_ms < 0)
		i_ms = column(f, nh, "FrameTime");
	i_rt = column(f, nh, "PresentRuntime");
	if (i_rt < 0)
		i_rt = column(f, nh, "Runtime");
	i_mode = column(f, nh, "PresentMode");
	i_gpu = column(f, nh, "GPU");
	i_cpu = column(f, nh, "CPU");
	i_res = column(f, nh, "Resolution");
	if (i_app < 0 || i_ms < 0) {
		strbuf_addf(err, "%s:%d: expected PresentMon's column header (Application,ProcessID,..."
			    "MsBetweenPresents or FrameTime), found '%.60s'", path, l.no, f[0]);
		r = -EINVAL;
		goto out;
	}
	kvfile_add(&out->info, "version", pm_version(f, nh, &frameview));
	need = i_app;
	for (int k = 0; k < 9; k++) {
		int idx[] = { i_pid, i_chain, i_ms, i_rt, i_mode, i_gpu, i_cpu, i_res, i_app };

		if (idx[k] > need)
			need = idx[k];
	}

	while ((line = lines_next(&l))) {
		size_t n;
		double ms = NAN;

		if (!*line)
			continue;
		n = csv_split(line, f, CSV_MAX_FIELDS);
		if ((int)n <= need) {
			strbuf_addf(err, "%s:%d: expected %zu fields as the header says, found %zu",
				    path, l.no, nh, n);
			r = -EINVAL;
			goto out;
		}
		if (strcmp(f[i_ms], "NA") != 0 && *f[i_ms] && safe_atod(f[i_ms], &ms) < 0) {
			strbuf_addf(err, "%s:%d: expected a number or NA as the frame time, found '%s'",
				    path, l.no, f[i_ms]);
			r = -EINVAL;
			goto out;
		}
		proc = find_proc(&pm, f[i_app], i_pid >= 0 ? f[i_pid] : "");
		pm.procs[proc].rows++;
		chain = find_chain(&pm, proc, i_chain >= 0 ? f[i_chain] : "",
				   i_rt >= 0 ? f[i_rt] : "", i_mode >= 0 ? f[i_mode] : "");
		pm.chains[chain].rows++;
		if (pm.n_rows == pm.alloc_rows) {
			pm.alloc_rows = pm.alloc_rows ? 2 * pm.alloc_rows : 1024;
			pm.rows = xrealloc(pm.rows, pm.alloc_rows * sizeof(*pm.rows));
		}
		pm.rows[pm.n_rows++] = (struct pm_row){ chain, ms };
		if (frameview && !first_gpu) {
			first_gpu = xstrdup(i_gpu >= 0 ? f[i_gpu] : "");
			first_cpu = xstrdup(i_cpu >= 0 ? f[i_cpu] : "");
			first_res = xstrdup(i_res >= 0 ? f[i_res] : "");
		}
		out->rows++;
	}
	if (!pm.n_rows) {
		strbuf_addf(err, "%s:%d: expected presents after the header, found the end", path, l.no);
		r = -EINVAL;
		goto out;
	}
	r = pick_process(&pm, o ? o->process : NULL, path, &proc, err);
	if (r < 0)
		goto out;
	for (size_t i = 0, best = 0; i < pm.n_chains; i++) {
		if (pm.chains[i].proc != proc)
			continue;
		if (!best++ || pm.chains[i].rows > pm.chains[chain].rows)
			chain = i;
	}
	for (size_t i = 0; i < pm.n_rows; i++) {
		uint64_t ns;

		if (pm.rows[i].chain == chain && !isnan(pm.rows[i].ms) &&
		    import_ms_to_ns(pm.rows[i].ms, &ns) == 0)
			import_push_frame(out, ns);
	}
	kvfile_add(&out->info, "application", pm.procs[proc].app);
	if (i_pid >= 0)
		kvfile_add(&out->info, "process_id", pm.procs[proc].pid);
	if (i_chain >= 0)
		kvfile_add(&out->info, "swap_chain", pm.chains[chain].addr);
	if (i_rt >= 0)
		kvfile_add(&out->info, "runtime", pm.chains[chain].runtime);
	if (i_mode >= 0)
		kvfile_add(&out->info, "present_mode", pm.chains[chain].mode);
	for (size_t i = 0; i < pm.n_procs; i++)
		strbuf_addf(&procs, "%s%s (%s): %zu", i ? ", " : "", pm.procs[i].app,
			    pm.procs[i].pid, pm.procs[i].rows);
	kvfile_add(&out->info, "processes", procs.buf);
	if (first_gpu && *first_gpu)
		kvfile_add(&out->info, "gpu", first_gpu);
	if (first_cpu && *first_cpu)
		kvfile_add(&out->info, "cpu", first_cpu);
	if (first_res && *first_res)
		kvfile_add(&out->info, "resolution", first_res);
	import_finish(out);
out:
	free(first_gpu);
	free(first_cpu);
	free(first_res);
	strbuf_release(&procs);
	pm_release(&pm);
	lines_release(&l);
	return r;
}
