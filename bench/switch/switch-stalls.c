/*
 * STALLS: the stall recorder (hitchbench-stallrec) beside the game, off
 * unless a token turns it on. STALLS_MS sets its period (10 ms), STALLS_CPU
 * pins it, STALLS_NICE sets its priority (10: below the game) and
 * STALLS_NOWRITE=1 samples without writing the record, to see what the
 * writing itself costs. Runs with the recorder are named after it
 * ("base@rec10") so that a report never pools them with runs without it:
 * an observer that wakes 100 times a second can change what it observes.
 *
 * The recorder starts before the game and learns each pass's pid through
 * sigqueue(SIGUSR1); when the run ends it packs its record into the run
 * directory (stalls.rec.zst) and says what it cost, which goes into
 * bench.txt (stallrec=) and onto the terminal.
 *
 * STALLS=bpf adds the kernel's own events (every wait of the game's
 * threads, its cause and its waker: waits.rec.zst) and samples at
 * STALLS_BPF_MS (100) for what they do not cover; runs are named "bpf".
 * Where BPF cannot start, the recorder samples at STALLS_MS as STALLS=1
 * would, and bench.txt (stallbpf=fallback: WHY) and the terminal say why.
 */
#include "system/gamecgroup.h"
#include "formats/stallrecord.h"
#include "switch/switch.h"
#include "formats/waitrecord.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORDER "hitchbench-stallrec"
#define STALLS_FLIP_ACT_MS 20

static int check_nice(const char *value, struct strbuf *err)
{
	int n;

	if (safe_atoi(value, &n) == 0 && n >= -20 && n <= 19)
		return 0;
	strbuf_addstr(err, "wants a niceness in -20..19");
	return -EINVAL;
}

static bool is_bpf(const struct switch_on *on)
{
	return strcmp(on->value, "bpf") == 0;
}

static int check_value(const char *value, struct strbuf *err)
{
	if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0 || strcmp(value, "bpf") == 0)
		return 0;
	strbuf_addstr(err, "wants 0, 1 (the sampling recorder) or bpf (the kernel's events)");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	const char *cpu = switch_param(on, "STALLS_CPU");
	const char *nice = switch_param(on, "STALLS_NICE");

	if (is_bpf(on)) {
		strbuf_addstr(out, "bpf");
		if (strcmp(switch_param(on, "STALLS_BPF_MS"), "100") != 0)
			strbuf_addf(out, "%s", switch_param(on, "STALLS_BPF_MS"));
	} else {
		strbuf_addf(out, "rec%s", switch_param(on, "STALLS_MS"));
	}
	if (strcmp(switch_param(on, "STALLS_NOWRITE"), "1") == 0)
		strbuf_addstr(out, "nw");
	if (cpu)
		strbuf_addf(out, "c%s", cpu);
	if (strcmp(nice, "10") != 0)
		strbuf_addf(out, "n%s", nice);
	if (strcmp(switch_param(on, "STALLS_CGROUP"), "0") == 0)
		strbuf_addstr(out, "ncg");
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	/* root's: the game's wait channel, system call and kernel stack need it */
	static const struct switch_helper_start hs = {
		.name = "stallrec", .log_name = "stallrec.log", .wait_ready = true,
	};
	char *out, *live, *cgroup = NULL, *waits = NULL, *waits_live = NULL;
	const char *argv[32];
	size_t n = 0;
	int r;

	if (!switch_on_is_on(on)) {
		kvfile_add(ctx->bench, "stallrec", "off (STALLS=0)");
		return 0;
	}
	out = xasprintf("%s/%s", ctx->run_dir, HB_STALLREC_FILE);
	live = xasprintf("%s/stalls.live", ctx->stage_dir);
	/* the game's own cgroup, for PSI that counts the game alone */
	if (strcmp(switch_param(on, "STALLS_CGROUP"), "1") == 0) {
		struct strbuf why = STRBUF_INIT;

		if (game_cgroup_create(&cgroup, &why) == 0)
			kvfile_add(ctx->bench, "stallrec_cgroup", cgroup);
		else
			kvfile_addf(ctx->bench, "stallrec_cgroup", "none (%s)", why.buf);
		strbuf_release(&why);
	} else {
		kvfile_add(ctx->bench, "stallrec_cgroup", "none (STALLS_CGROUP=0)");
	}
	argv[n++] = RECORDER;
	argv[n++] = "--out";
	argv[n++] = out;
	argv[n++] = "--live";
	argv[n++] = live;
	argv[n++] = "--period-ms";
	argv[n++] = switch_param(on, "STALLS_MS");
	argv[n++] = "--nice";
	argv[n++] = switch_param(on, "STALLS_NICE");
	if (ctx->frames_path) {
		argv[n++] = "--frames";
		argv[n++] = ctx->frames_path;
	}
	if (switch_param(on, "STALLS_CPU")) {
		argv[n++] = "--cpu";
		argv[n++] = switch_param(on, "STALLS_CPU");
	}
	if (strcmp(switch_param(on, "STALLS_NOWRITE"), "1") == 0)
		argv[n++] = "--nowrite";
	if (cgroup) {
		argv[n++] = "--cgroup";
		argv[n++] = cgroup;
	}
	if (is_bpf(on)) {
		waits = xasprintf("%s/%s", ctx->run_dir, HB_WAITREC_FILE);
		waits_live = xasprintf("%s/waits.live", ctx->stage_dir);
		argv[n++] = "--bpf";
		argv[n++] = waits;
		argv[n++] = "--bpf-live";
		argv[n++] = waits_live;
		argv[n++] = "--bpf-period-ms";
		argv[n++] = switch_param(on, "STALLS_BPF_MS");
	}
	argv[n] = NULL;
	r = switch_ctx_start_helper(ctx, &hs, argv, err);
	free(out);
	free(live);
	free(waits);
	free(waits_live);
	free(cgroup);
	return r;
}

/* The game's cgroup, when start made one. */
static const char *game_cgroup(const struct switch_ctx *ctx)
{
	const char *p = kvfile_get(ctx->bench, "stallrec_cgroup");

	return p && *p == '/' ? p : NULL;
}

static void pass(const struct switch_on *on, struct switch_ctx *ctx, pid_t game_pid)
{
	if (!switch_on_is_on(on))
		return;
	/* into its cgroup before the recorder looks at it */
	if (game_cgroup(ctx)) {
		int r = game_cgroup_add(game_cgroup(ctx), game_pid);

		if (r < 0)
			kvfile_addf(ctx->bench, "stallrec_cgroup_add", "pid %d: %s", (int)game_pid,
				    strerror(-r));
	}
	switch_ctx_send_pid(ctx, "stallrec", game_pid);
}

/* The record, into bench.txt; a recorder that was killed before it could
 * pack (SIGKILL after the grace period, a crash) left its live record in
 * the staging directory: packed here, so its samples are not lost. */
static void keep_record(struct switch_ctx *ctx)
{
	char *out = xasprintf("%s/%s", ctx->run_dir, HB_STALLREC_FILE);
	char *live = xasprintf("%s/stalls.live", ctx->stage_dir);
	struct strbuf err = STRBUF_INIT;
	struct stallrec r;
	struct stat st;

	if (stat(out, &st) == 0) {
		kvfile_add(ctx->bench, "stallrec_record", HB_STALLREC_FILE);
	} else if (stat(live, &st) == 0 && stallrec_load(live, &r, &err) == 0) {
		kvfile_add(&r.trailer, "stop", "the recorder did not end cleanly: packed by the runner");
		if (stallrec_write(&r, out, &err) == 0)
			kvfile_addf(ctx->bench, "stallrec_record", "%s (packed by the runner from the "
				    "live record: the recorder did not end cleanly)", HB_STALLREC_FILE);
		else
			kvfile_addf(ctx->bench, "stallrec_record", "none (%s)", err.buf);
		stallrec_release(&r);
	} else {
		kvfile_addf(ctx->bench, "stallrec_record", "none (%s)",
			    err.len ? err.buf : "the recorder left no record");
	}
	/* the recorder, narrowed (its man page, PRIVILEGES), cannot remove it
	 * from the staging directory itself */
	unlink(live);
	strbuf_release(&err);
	free(out);
	free(live);
}

static void finish_bpf(struct switch_ctx *ctx, const char *log)
{
	char *cost = switch_log_said(log, "stallbpf: ");

	if (!cost) {
		kvfile_add(ctx->bench, "stallbpf", "the recorder said nothing of BPF: see stallrec.log");
	} else {
		kvfile_add(ctx->bench, "stallbpf", cost);
		switch_ctx_note(ctx, "stallbpf: %s", cost);
	}
	switch_keep_tabrecord(ctx, "stallbpf_record", HB_WAITREC_FILE, "waits.live", cost &&
			      str_startswith(cost, "fallback: ") ? "BPF fell back to sampling" :
			      "the recorder left no record");
	free(cost);
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "stallrec");
	char *log, *cost;

	if (!switch_on_is_on(on) || !h)
		return;
	if (game_cgroup(ctx)) {
		int r = game_cgroup_remove(game_cgroup(ctx));

		if (r < 0)
			kvfile_addf(ctx->bench, "stallrec_cgroup_removed", "no: %s", strerror(-r));
	}
	log = xasprintf("%s/stallrec.log", ctx->run_dir);
	/* the recorder found the game's frame file tampered with: the run
	 * does not count (the runner's own view says so too, if it saw it) */
	cost = switch_log_said(log, "stallrec-frames: tampered: ");
	if (cost)
		switch_ctx_invalid(ctx, "the stall recorder: the game tampered with its frame file: %s", cost);
	free(cost);
	cost = switch_log_said(log, "stallrec: ");
	if (!WIFEXITED(h->status) || WEXITSTATUS(h->status) != 0 || !cost) {
		kvfile_add(ctx->bench, "stallrec", "the recorder failed: see stallrec.log");
		switch_ctx_note(ctx, "stallrec: the recorder failed (see stallrec.log)");
	} else {
		kvfile_add(ctx->bench, "stallrec", cost);
		switch_ctx_note(ctx, "stallrec: %s", cost);
	}
	if (strcmp(switch_param(on, "STALLS_NOWRITE"), "1") == 0)
		kvfile_add(ctx->bench, "stallrec_record", "none (STALLS_NOWRITE=1)");
	else
		keep_record(ctx);
	if (is_bpf(on))
		finish_bpf(ctx, log);
	free(cost);
	free(log);
}

/* A flip run: the recorder paused on the side without it (every BPF
 * program detached, no sampling) and resumed on the side with it; this
 * answers whether the recorder itself changes what it records. */
static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	return switch_ctx_pause_helper(ctx, "stallrec", !switch_on_is_on(on), err);
}

/* The sampling recorder pauses at its next sample: a period within the
 * flip's act time. */
static int flip_check(const struct switch_on *a, const struct switch_on *b, struct strbuf *err)
{
	const struct switch_on *on = switch_on_is_on(a) ? a : b;
	int ms;

	if (switch_on_is_on(on) && !is_bpf(on) && safe_atoi(switch_param(on, "STALLS_MS"), &ms) == 0 &&
	    ms > STALLS_FLIP_ACT_MS) {
		strbuf_addf(err, "STALLS=1 pauses at its next sample: a flip wants STALLS_MS at most %d, "
			    "not %d", STALLS_FLIP_ACT_MS, ms);
		return -EINVAL;
	}
	return 0;
}

const struct switch_def switch_stalls = {
	.name = "STALLS",
	.help = "1: the stall recorder beside the game (what it waited for in every stall; "
		"hitchbench stalls); bpf: every wait of its threads from the kernel's events too",
	.off_value = "0",
	.program = RECORDER,
	.check = check_value,
	.params = {
		{ "STALLS_MS", "10", "sampling period in ms", switch_check_ms },
		{ "STALLS_BPF_MS", "100", "with STALLS=bpf: the sampling period beside the kernel's "
		  "events, for memory counters and PSI", switch_check_ms },
		{ "STALLS_CPU", NULL, "CPUs the recorder runs on (default: any)", switch_check_cpus },
		{ "STALLS_NICE", "10", "the recorder's niceness (10 keeps it below the game)", check_nice },
		{ "STALLS_NOWRITE", "0", "1: sample without writing the record", switch_check_bool },
		{ "STALLS_CGROUP", "1", "1: the game in a cgroup of its own (v2, no controllers), "
		  "so that PSI counts its stalls alone", switch_check_bool },
	},
	.label = label,
	.start = start,
	.pass = pass,
	.finish = finish,
	.flip = flip,
	.flip_check = flip_check,
	.flip_pauses = true,
	/* the sampling recorder's next sample, or the BPF programs attached
	 * again (a few ms: the trailer's pauses= says how long it took) */
	.flip_act_ms = STALLS_FLIP_ACT_MS,
};
