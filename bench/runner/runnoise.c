/*
 * Host noise for one run (see runnoise.h).
 */
#include "runner/runnoise.h"
#include "base/timeutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A run's tree is the runner, Xvfb, a few helpers and the game's
 * processes: past this many the rest is left out (and said). */
#define RUN_PIDS_MAX 4096
/* The runner's ancestors: a login, a job's slurmstepd and script, sudo */
#define ANCESTORS_MAX 64

void run_noise_init(struct run_noise *n)
{
	memset(n, 0, sizeof(*n));
	n->open_err = noise_reader_open(&n->rd);
	if (n->open_err < 0)
		return;
	n->ready = true;
	noise_snapshot_init(&n->s[0], &n->rd);
	noise_snapshot_init(&n->s[1], &n->rd);
	n->run_max = RUN_PIDS_MAX;
	n->run_pids = xrealloc(NULL, n->run_max * sizeof(*n->run_pids));
	n->ds = zalloc(2 * sizeof(*n->ds));
	n->exempt_max = ANCESTORS_MAX + RUN_PIDS_MAX;
	n->exempt = xrealloc(NULL, n->exempt_max * sizeof(*n->exempt));
	run_noise_daemons(n, NULL, NULL);
}

static bool any_sched(const struct daemon_snapshot *s)
{
	for (size_t i = 0; i < s->nthr; i++)
		if (s->thr[i].have_wakeups)
			return true;
	return false;
}

void run_noise_daemons(struct run_noise *n, const char *list, const char *profile)
{
	struct strbuf why = STRBUF_INIT;

	if (daemon_names_parse(list ? list : DAEMON_NAMES_DEFAULT, &n->daemons, &why) < 0)
		memset(&n->daemons, 0, sizeof(n->daemons));
	if (list)
		snprintf(n->daemons_source, sizeof(n->daemons_source), "profile %s", profile ? profile : "(defaults)");
	else
		snprintf(n->daemons_source, sizeof(n->daemons_source), "default list");
	strbuf_release(&why);
	if (!n->ready)
		return;
	n->nancestors = daemon_ancestors(&n->rd, getppid(), n->exempt, ANCESTORS_MAX);
	n->nknown = 0;
	n->daemon_err = daemon_snapshot_take(&n->rd, &n->daemons, n->exempt, n->nancestors, &n->ds[0]);
	for (size_t i = 0; i < n->ds[0].nproc; i++)
		n->known[n->nknown++] = n->ds[0].proc[i].pid;
	/* a kernel without schedstats: no sched file to read at the edges */
	n->ds[0].skip_sched = n->ds[1].skip_sched = n->ds[0].nthr > 0 && !any_sched(&n->ds[0]);
}

void run_noise_release(struct run_noise *n)
{
	if (n->ready) {
		noise_snapshot_release(&n->s[0]);
		noise_snapshot_release(&n->s[1]);
		noise_reader_close(&n->rd);
	}
	free(n->run_pids);
	free(n->ds);
	free(n->exempt);
	memset(n, 0, sizeof(*n));
}

void run_noise_reaped(struct run_noise *n, const struct rusage *ru)
{
	n->reaped_game_ns += (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * NSEC_PER_SEC +
			     (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000;
}

/* The daemons' snapshot which, all but the runner's ancestors and the
 * nrun processes of its tree (in run_pids): at the start those the scan
 * before the window found, at the end a scan of proc/. */
static void take_daemons(struct run_noise *n, int which, size_t nrun)
{
	size_t k = n->nancestors;
	uint64_t c0 = thread_cpu_ns();
	int r;

	if (n->daemon_err < 0)
		return;
	memcpy(n->exempt + k, n->run_pids, nrun * sizeof(*n->exempt));
	if (which == 0)
		r = daemon_snapshot_take_pids(&n->rd, &n->daemons, n->known, n->nknown, n->exempt, k + nrun,
					      &n->ds[0]);
	else
		r = daemon_snapshot_take(&n->rd, &n->daemons, n->exempt, k + nrun, &n->ds[1]);
	if (r < 0)
		n->daemon_err = r;
	n->daemon_cost_ns[which] = thread_cpu_ns() - c0;
}

void run_noise_take(struct run_noise *n, int which, const struct pid_list *game)
{
	uint64_t c0 = thread_cpu_ns();
	int k, r;

	if (which == 0 || n->asked[0])
		n->asked[which] = true;
	if (!n->ready || n->take_err < 0 || n->have[which] || (which == 1 && !n->have[0]))
		return;
	k = noise_descendants(&n->rd, n->root > 0 ? n->root : getpid(), n->run_pids, n->run_max);
	if (k < 0) {
		/* no children files: the runner alone, and the game's */
		n->run_pids[0] = getpid();
		k = 1;
	}
	r = noise_snapshot_take(&n->rd, n->run_pids, (size_t)k < n->run_max ? (size_t)k : n->run_max,
				game->v, game->n, &n->s[which]);
	if (r < 0) {
		n->take_err = r;
	} else {
		n->s[which].game_cpu_ns += n->reaped_game_ns;
		n->have[which] = true;
		take_daemons(n, which, (size_t)k < n->run_max ? (size_t)k : n->run_max);
	}
	n->cost_ns += thread_cpu_ns() - c0;
}

bool run_noise_finish(struct run_noise *n, const struct noise_limits *limits, const char *profile,
		      struct kvfile *bench, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	bool over = false;
	int r;

	if (!n->asked[0])
		return false; /* no window: no keys */
	if (!n->ready) {
		if (n->open_err == -EINVAL)
			kvfile_add(bench, "noise", "not measured: proc/stat's cpu lines do not parse");
		else if (n->open_err == -EFBIG)
			kvfile_addf(bench, "noise", "not measured: proc/stat's cpu lines are longer than %zu bytes "
				    "(%d CPUs')", NOISE_STAT_MAX, NOISE_CPUS_MAX);
		else
			kvfile_addf(bench, "noise", "not measured: cannot read proc/stat: %s",
				    strerror(-n->open_err));
		return false;
	}
	if (n->take_err < 0) {
		kvfile_addf(bench, "noise", "not measured: a snapshot failed: %s", strerror(-n->take_err));
		return false;
	}
	if (!n->have[0] || !n->have[1])
		return false;
	r = noise_diff(&n->s[0], &n->s[1], n->rd.hypervisor, n->rd.hz, &n->fig);
	if (r < 0) {
		kvfile_add(bench, "noise", "not measured: proc/stat did not move over the window");
		return false;
	}
	n->have_fig = true;
	noise_figures_write(&n->fig, bench);
	if (n->daemon_err < 0) {
		kvfile_addf(bench, "noise.daemon.format", "%d", DAEMON_COST_FORMAT);
		kvfile_addf(bench, "noise.daemon.names", "not measured: cannot read proc/: %s",
			    strerror(-n->daemon_err));
	} else {
		struct daemon_cost dc;

		daemon_cost_diff(&n->daemons, &n->ds[0], &n->ds[1], n->rd.hz, &dc);
		daemon_cost_write(&dc, n->daemons_source, bench);
		kvfile_addf(bench, "noise.daemon.cost_us", "%.0f %.0f", (double)n->daemon_cost_ns[0] / 1e3,
			    (double)n->daemon_cost_ns[1] / 1e3);
	}
	kvfile_addf(bench, "noise.cost_us", "%.0f", (double)n->cost_ns / 1e3);
	if (!limits) {
		kvfile_add(bench, "noise.limits", "none (no quiet profile: --no-quieting)");
	} else {
		noise_limits_describe(limits, &sb);
		kvfile_addf(bench, "noise.limits", "%s (profile %s)", sb.buf, profile ? profile : "(defaults)");
		over = noise_over_limits(&n->fig, limits, err);
	}
	strbuf_release(&sb);
	return over;
}
