/*
 * PROBE: hitchbench-waker -m probe beside the game: one SCHED_FIFO
 * sleeper pinned to each online CPU, timing how late its absolute-
 * deadline wakeups fire, every PROBE_MS (1.37 ms by default: the
 * standalone probe's period, so figures compare, and not a multiple of a
 * 1, 4 or 10 ms tick, so the deadlines do not ride along with one).
 * Every wakeup later than PROBE_LATE_US (1000) is listed with its
 * CLOCK_MONOTONIC time in probe.txt, whose clock pair puts it on the
 * run's frames. /dev/cpu_dma_latency is never touched.
 *
 * Label: probe, or probe<ms> at another period (probe20). bench.txt gets
 * probe=, probe.cpu_ms and, per CPU, probe.cpuN.worst_us, .p999_us (the
 * nearest-rank 99.9th percentile, docs/metrics.md), .wakeups and .late;
 * the same worst and p99.9 per CPU go onto the terminal with the run's
 * other notes. A probe that failed makes the run invalid: it was named
 * after a probe that was not there.
 */
#include "switch/switch.h"
#include "formats/probefile.h"
#include "system/wakeplan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define PROBE_PROG "hitchbench-waker"
#define PROBE_FILE "probe.txt"
#define LOG "probe.log"
#define DEFAULT_MS "1.37"
#define PROBE_FLIP_ACT_MS 20

static int check_us(const char *value, struct strbuf *err)
{
	int us;

	if (safe_atoi(value, &us) == 0 && us >= 1 && us <= 10000000)
		return 0;
	strbuf_addstr(err, "wants microseconds, 1..10000000");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	const char *ms = switch_param(on, "PROBE_MS");

	strbuf_addf(out, "probe%s", strcmp(ms, DEFAULT_MS) == 0 ? "" : ms);
	if (strcmp(switch_param(on, "PROBE_LATE_US"), "1000") != 0)
		strbuf_addf(out, "l%s", switch_param(on, "PROBE_LATE_US"));
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	/* root's: SCHED_FIFO and mlockall */
	static const struct switch_helper_start hs = {
		.name = "probe", .log_name = LOG, .wait_ready = true,
	};
	char *out;
	const char *argv[16];
	size_t n = 0;
	int r;

	if (!switch_on_is_on(on))
		return 0;
	out = xasprintf("%s/%s", ctx->run_dir, PROBE_FILE);
	argv[n++] = PROBE_PROG;
	argv[n++] = "-m";
	argv[n++] = "probe";
	argv[n++] = "-i";
	argv[n++] = switch_param(on, "PROBE_MS");
	argv[n++] = "-t";
	argv[n++] = "0";
	argv[n++] = "--threshold-us";
	argv[n++] = switch_param(on, "PROBE_LATE_US");
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	r = switch_ctx_start_helper(ctx, &hs, argv, err);
	free(out);
	return r;
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "probe");
	char *path;
	struct probe_result res;
	struct strbuf why = STRBUF_INIT, note = STRBUF_INIT;

	if (!switch_on_is_on(on))
		return;
	path = xasprintf("%s/%s", ctx->run_dir, PROBE_FILE);
	if (!h || !WIFEXITED(h->status) || WEXITSTATUS(h->status) != 0 ||
	    probe_result_read(path, &res, &why) < 0) {
		kvfile_addf(ctx->bench, "probe", "failed: %s (see " LOG ")",
			    why.len ? why.buf : "the probe did not end cleanly");
		switch_ctx_invalid(ctx, "the probe failed: the run was not probed (see " LOG ")");
		goto out;
	}
	kvfile_addf(ctx->bench, "probe", "every %s ms, SCHED_FIFO %d, late past %s us (" PROBE_FILE ")",
		    switch_param(on, "PROBE_MS"), res.fifo_prio, switch_param(on, "PROBE_LATE_US"));
	kvfile_addf(ctx->bench, "probe.cpu_ms", "%.3f", (double)res.self_cpu_ns / 1e6);
	strbuf_addstr(&note, "probe: lateness worst / p99.9");
	for (size_t i = 0; i < res.n_cpus; i++) {
		const struct probe_cpu *c = &res.cpus[i];
		uint64_t p999 = 0;
		int over = lat_hist_percentile(&c->hist, 999000, &p999);
		char key[64];

		snprintf(key, sizeof(key), "probe.cpu%d.worst_us", c->cpu);
		kvfile_addf(ctx->bench, key, "%.1f", (double)c->hist.worst_ns / 1e3);
		snprintf(key, sizeof(key), "probe.cpu%d.p999_us", c->cpu);
		if (over < 0)
			kvfile_add(ctx->bench, key, "-");
		else
			kvfile_addf(ctx->bench, key, "%s%" PRIu64, over == 1 ? ">=" : "", p999);
		snprintf(key, sizeof(key), "probe.cpu%d.wakeups", c->cpu);
		kvfile_addf(ctx->bench, key, "%" PRIu64, c->hist.n);
		snprintf(key, sizeof(key), "probe.cpu%d.late", c->cpu);
		kvfile_addf(ctx->bench, key, "%" PRIu64, (uint64_t)c->n_late + c->late_dropped);
		if (over < 0)
			strbuf_addf(&note, "%s cpu%d no wakeup", i ? "," : "", c->cpu);
		else
			strbuf_addf(&note, "%s cpu%d %.2f / %s%.2f ms", i ? "," : "", c->cpu,
				    (double)c->hist.worst_ns / 1e6, over == 1 ? ">=" : "", (double)p999 / 1e3);
	}
	strbuf_addf(&note, " (probe.cpu_ms %.1f)", (double)res.self_cpu_ns / 1e6);
	switch_ctx_note(ctx, "%s", note.buf);
	probe_result_release(&res);
out:
	strbuf_release(&why);
	strbuf_release(&note);
	free(path);
}

/* A flip run: paused on the side without it (every probe thread waits,
 * no wakeups), resumed on the side with it; a thread sees a pause at its
 * next wakeup. probe.txt's counts are the probed time's. */
static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	return switch_ctx_pause_helper(ctx, "probe", !switch_on_is_on(on), err);
}

static int flip_check(const struct switch_on *a, const struct switch_on *b, struct strbuf *err)
{
	const struct switch_on *on = switch_on_is_on(a) ? a : b;

	if (switch_on_is_on(on) && strtod(switch_param(on, "PROBE_MS"), NULL) > PROBE_FLIP_ACT_MS) {
		strbuf_addf(err, "the probe pauses at its next wakeup: a flip wants PROBE_MS at most %d, not %s",
			    PROBE_FLIP_ACT_MS, switch_param(on, "PROBE_MS"));
		return -EINVAL;
	}
	return 0;
}

const struct switch_def switch_probe = {
	.name = "PROBE",
	.help = "1: a wakeup-lateness probe beside the game (hitchbench-waker -m probe): a SCHED_FIFO "
		"sleeper per CPU; probe.txt, and each CPU's worst and p99.9 lateness",
	.off_value = "0",
	.program = PROBE_PROG,
	.check = switch_check_bool,
	.params = {
		{ "PROBE_MS", DEFAULT_MS, "the probe's period, ms (fractions allowed)", switch_check_period },
		{ "PROBE_LATE_US", "1000", "list every wakeup later than this, us", check_us },
	},
	.label = label,
	.start = start,
	.finish = finish,
	.flip = flip,
	.flip_check = flip_check,
	.flip_pauses = true,
	.flip_act_ms = PROBE_FLIP_ACT_MS,
};
