/*
 * SENSORS: the sensor sampler (hitchbench-sampler) beside every run, on
 * by default (SENSORS=0 turns it off, and the run's name says so):
 * temperatures, CPU frequencies and throttle counters, CPU busy and
 * iowait, memory, swap and PSI every SENSORS_MS, into the run directory
 * as sensors.tsv.zst, summarised into bench.txt (sensors.*) when the run
 * ends. SENSORS_THROTTLE=invalid marks a run during which a CPU throttled
 * as invalid: its numbers measured a machine that was not the one asked.
 */
#include "metrics/sensorstats.h"
#include "switch/switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define SAMPLER "hitchbench-sampler"
#define SAMPLES_FILE "sensors.tsv.zst"

static int check_throttle(const char *value, struct strbuf *err)
{
	if (strcmp(value, "ignore") == 0 || strcmp(value, "invalid") == 0)
		return 0;
	strbuf_addstr(err, "wants ignore or invalid");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addf(out, "sens%s", switch_param(on, "SENSORS_MS"));
	if (strcmp(switch_param(on, "SENSORS_THROTTLE"), "invalid") == 0)
		strbuf_addstr(out, "thr");
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	static const struct switch_helper_start hs = { .name = "sampler", .log_name = "sampler.log" };
	char *out;
	int r;

	if (strcmp(on->value, "0") == 0) {
		kvfile_add(ctx->bench, "sensors", "off (SENSORS=0)");
		return 0;
	}
	out = xasprintf("%s/%s", ctx->run_dir, SAMPLES_FILE);
	{
		const char *argv[] = {
			SAMPLER, "--out", out, "--period-ms", switch_param(on, "SENSORS_MS"), NULL,
		};

		r = switch_ctx_start_helper(ctx, &hs, argv, err);
	}
	free(out);
	return r;
}

/* The first throttle counter that moved, into err; false if none did. */
static bool throttled(const struct kvfile *kf, struct strbuf *err)
{
	for (size_t i = 0; i < kf->n; i++) {
		const char *k = kf->items[i].key;
		size_t n = strlen(k);
		double d;

		if (strncmp(k, "sensors.throttle.", 17) == 0 && n > 6 &&
		    strcmp(k + n - 6, ".delta") == 0 && safe_atod(kf->items[i].value, &d) == 0 && d > 0) {
			strbuf_addf(err, "a CPU throttled during the run (%.*s +%g)", (int)(n - 14),
				    k + 8, d);
			return true;
		}
	}
	return false;
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "sampler");
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	struct kvfile sum;
	char *path;

	if (!h)
		return;
	kvfile_init(&sum);
	path = xasprintf("%s/%s", ctx->run_dir, SAMPLES_FILE);
	if (!WIFEXITED(h->status) || WEXITSTATUS(h->status) != 0)
		kvfile_add(ctx->bench, "sensors", "the sampler failed: see sampler.log");
	else if (sensors_summarize(path, &sum, &err) < 0)
		kvfile_addf(ctx->bench, "sensors", "unreadable: %s", err.buf);
	else
		kvfile_addf(ctx->bench, "sensors", "%s every %s ms (summary: sensors.*)", SAMPLES_FILE,
			    switch_param(on, "SENSORS_MS"));
	for (size_t i = 0; i < sum.n; i++)
		kvfile_add(ctx->bench, sum.items[i].key, sum.items[i].value);
	if (strcmp(switch_param(on, "SENSORS_THROTTLE"), "invalid") == 0 && throttled(&sum, &why))
		switch_ctx_invalid(ctx, "%s", why.buf);
	kvfile_release(&sum);
	strbuf_release(&err);
	strbuf_release(&why);
	free(path);
}

const struct switch_def switch_sensors = {
	.name = "SENSORS",
	.help = "1: the sensor sampler beside the game (temperatures, clocks, throttling, load, PSI)",
	.default_value = "1",
	.off_value = "0",
	.program = SAMPLER,
	.check = switch_check_bool,
	.params = {
		{ "SENSORS_MS", "500", "sampling period in ms", switch_check_ms },
		{ "SENSORS_THROTTLE", "ignore", "ignore, or invalid: a CPU that throttled invalidates the run",
		  check_throttle },
	},
	.label = label,
	.start = start,
	.finish = finish,
};
