/*
 * WAKER: hitchbench-waker beside the game, waking CPUs every WAKER ms
 * (fractional: 1.37). WAKER_MODE=sleep (the default) is a bare
 * absolute-deadline sleep loop at nice -10, unpinned unless WAKER_CPU
 * pins it; WAKER_MODE=kick wakes a pinned sleeper on each CPU of
 * WAKER_CPU (default every online CPU) from another CPU every period.
 * It exists to tell apart what an observer's wakeups alone do to a game
 * (an idle CPU that would oversleep its timer is woken) from what its
 * reads do: runs with the stall recorder against runs with the waker.
 *
 * Labels: wk<mode><period>, then c<cpus> when WAKER_CPU is given:
 * wksleep10, wkkick10, wkkick10c1, wkkick10c0.2 (CPUs 0,2: the commas
 * become dots, as in GAMECPU's label), wksleep1.37c0. The waker's report
 * (docs/formats.md, "Waker report") stays in the run directory as
 * waker.txt; bench.txt gets waker=, waker.wakeups, waker.cpu_ms and, for
 * kick, each CPU's wakeups received. A waker that failed leaves the run
 * without the wakeups it is named after: the run is invalid.
 */
#include "switch/switch.h"
#include "system/wakeplan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define WAKER_PROG "hitchbench-waker"
#define REPORT "waker.txt"
#define LOG "waker.log"
#define WAKER_FLIP_ACT_MS 20

static int check_mode(const char *value, struct strbuf *err)
{
	if (strcmp(value, "sleep") == 0 || strcmp(value, "kick") == 0)
		return 0;
	strbuf_addstr(err, "wants sleep or kick");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	const char *cpu = switch_param(on, "WAKER_CPU");

	strbuf_addf(out, "wk%s%s", switch_param(on, "WAKER_MODE"), on->value);
	if (cpu) {
		/* as GAMECPU's label: a comma would split a list of names */
		strbuf_addch(out, 'c');
		for (; *cpu; cpu++)
			strbuf_addch(out, *cpu == ',' ? '.' : *cpu);
	}
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	/* root's: nice -10 */
	static const struct switch_helper_start hs = {
		.name = "waker", .log_name = LOG, .wait_ready = true,
	};
	char *report = xasprintf("%s/%s", ctx->run_dir, REPORT);
	const char *argv[16];
	size_t n = 0;
	int r;

	argv[n++] = WAKER_PROG;
	argv[n++] = "-m";
	argv[n++] = switch_param(on, "WAKER_MODE");
	argv[n++] = "-i";
	argv[n++] = on->value;
	argv[n++] = "-t";
	argv[n++] = "0";
	argv[n++] = "-o";
	argv[n++] = report;
	if (switch_param(on, "WAKER_CPU")) {
		argv[n++] = "-c";
		argv[n++] = switch_param(on, "WAKER_CPU");
	}
	argv[n] = NULL;
	r = switch_ctx_start_helper(ctx, &hs, argv, err);
	free(report);
	return r;
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "waker");
	char *report = xasprintf("%s/%s", ctx->run_dir, REPORT);
	const char *mode = switch_param(on, "WAKER_MODE"), *wakeups, *cpu_ms;
	struct kvfile kv;
	int line = 0;

	kvfile_init(&kv);
	if (!h || !WIFEXITED(h->status) || WEXITSTATUS(h->status) != 0 ||
	    kvfile_read(&kv, report, &line) < 0 || !(wakeups = kvfile_get(&kv, "wakeups")) ||
	    !(cpu_ms = kvfile_get(&kv, "self.cpu_ms"))) {
		kvfile_add(ctx->bench, "waker", "failed: see " LOG);
		switch_ctx_invalid(ctx, "the waker failed: the run had not the wakeups it is named after "
				   "(see " LOG ")");
		goto out;
	}
	kvfile_addf(ctx->bench, "waker", "%s every %s ms on CPUs %s", mode, on->value,
		    kvfile_get(&kv, "cpus") ? kvfile_get(&kv, "cpus") : "?");
	kvfile_add(ctx->bench, "waker.wakeups", wakeups);
	if (kvfile_get(&kv, "paused_ms") && strcmp(kvfile_get(&kv, "pauses"), "0") != 0) {
		kvfile_add(ctx->bench, "waker.pauses", kvfile_get(&kv, "pauses"));
		kvfile_add(ctx->bench, "waker.paused_ms", kvfile_get(&kv, "paused_ms"));
	}
	kvfile_add(ctx->bench, "waker.cpu_ms", cpu_ms);
	if (kvfile_get(&kv, "kicker_cpu"))
		kvfile_add(ctx->bench, "waker.kicker_cpu", kvfile_get(&kv, "kicker_cpu"));
	for (size_t i = 0; i < kv.n; i++) {
		const char *k = kv.items[i].key;

		if (str_startswith(k, "cpu") && strstr(k, ".received")) {
			char *key = xasprintf("waker.%s", k);

			kvfile_add(ctx->bench, key, kv.items[i].value);
			free(key);
		}
	}
	switch_ctx_note(ctx, "waker: %s every %s ms, %s wakeups, %s ms of CPU", mode, on->value, wakeups,
			cpu_ms);
out:
	kvfile_release(&kv);
	free(report);
}

/* A flip run: paused on the side without it, resumed on the side with it
 * (helperproc.h); it sees a pause at its next wakeup. */
static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	return switch_ctx_pause_helper(ctx, "waker", !switch_on_is_on(on), err);
}

static int flip_check(const struct switch_on *a, const struct switch_on *b, struct strbuf *err)
{
	const struct switch_on *on = a ? a : b;

	if (on && strtod(on->value, NULL) > WAKER_FLIP_ACT_MS) {
		strbuf_addf(err, "the waker pauses at its next wakeup: a flip wants a period of at most %d ms, "
			    "not %s", WAKER_FLIP_ACT_MS, on->value);
		return -EINVAL;
	}
	return 0;
}

const struct switch_def switch_waker = {
	.name = "WAKER",
	.help = "PERIOD_MS: a waker beside the game (hitchbench-waker): a bare sleep loop, or a "
		"cross-CPU wakeup of every CPU (WAKER_MODE=kick), each period",
	.program = WAKER_PROG,
	.check = switch_check_period,
	.params = {
		{ "WAKER_MODE", "sleep", "sleep: one sleeper, nice -10; kick: each CPU woken from another",
		  check_mode },
		{ "WAKER_CPU", NULL, "sleep: pin it to these CPUs; kick: the CPUs to wake (default: all)",
		  switch_check_cpus },
	},
	.label = label,
	.start = start,
	.finish = finish,
	.flip = flip,
	.flip_check = flip_check,
	.flip_pauses = true,
	.flip_act_ms = WAKER_FLIP_ACT_MS,
};
