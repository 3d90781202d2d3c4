/*
 * SLOWDOWN=PCT and SLOWDOWN_US=N: a known effect, a test instrument. The
 * frame hook busy-waits at every present (GL or Vulkan) for PCT% of the
 * game's time in the frame before it, or for N microseconds
 * (harness/framehook-record.c), so a batch carries a change of a size
 * known in advance: what `hitchbench calibrate` and `hitchbench ab` are
 * checked against. SLOWDOWN=0 spins nothing and is a token of its own,
 * the A/A partner of SLOWDOWN=PCT.
 *
 * The figure reaches the hook through the game's environment; what the
 * hook spun is in the frame file's header, read back into bench.txt. In a
 * flip run the runner changes the figure while the game plays: it writes
 * it into the frame file's header (slowdown_live), which the hook loads at
 * every present, so it acts from the next present on.
 */
#include "formats/frames.h"
#include "switch/switch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_pct(const char *value, struct strbuf *err)
{
	double v;

	if (safe_atod(value, &v) == 0 && v >= 0 && v <= 100)
		return 0;
	strbuf_addstr(err, "wants a percentage from 0 to 100 (decimals allowed: 2.5)");
	return -EINVAL;
}

static int check_us(const char *value, struct strbuf *err)
{
	uint64_t v;

	if (safe_atou64(value, &v) == 0 && v <= HB_SLOWDOWN_US_MAX)
		return 0;
	strbuf_addf(err, "wants whole microseconds from 0 to %u", HB_SLOWDOWN_US_MAX);
	return -EINVAL;
}

/* The value as the hook and the run's name get it: "3" for "3.0" or
 * "03", so that two spellings of one figure are one run name. */
static void pct_text(const char *value, struct strbuf *out)
{
	double v = 0;

	safe_atod(value, &v);
	strbuf_addf(out, "%.6g", v);
}

static void label_pct(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addstr(out, "slow");
	pct_text(on->value, out);
}

static void label_us(const struct switch_on *on, struct strbuf *out)
{
	uint64_t v = 0;

	safe_atou64(on->value, &v);
	strbuf_addf(out, "slow%" PRIu64 "us", v);
}

/* One token spins one way: both in a token is refused. */
static int check_tokens(const struct switch_set *sets, size_t n, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++)
		if (switch_set_find(&sets[i], "SLOWDOWN") && switch_set_find(&sets[i], "SLOWDOWN_US")) {
			strbuf_addf(err, "switch token '%s': SLOWDOWN and SLOWDOWN_US spin two ways; "
				    "a token takes one", sets[i].token);
			return -EINVAL;
		}
	return 0;
}

static int prepare_pct(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	struct strbuf v = STRBUF_INIT;

	strbuf_addstr(&v, HB_SLOWDOWN_PCT_ENV "=");
	pct_text(on->value, &v);
	switch_ctx_setenv(ctx, v.buf);
	kvfile_add(ctx->bench, "slowdown.pct", v.buf + strlen(HB_SLOWDOWN_PCT_ENV "="));
	strbuf_release(&v);
	return 0;
}

static int prepare_us(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	uint64_t us = 0;
	char v[64];
	size_t name_len = strlen(HB_SLOWDOWN_US_ENV "=");

	safe_atou64(on->value, &us);
	snprintf(v, sizeof(v), "%s=%" PRIu64, HB_SLOWDOWN_US_ENV, us);
	switch_ctx_setenv(ctx, v);
	kvfile_add(ctx->bench, "slowdown.us", v + name_len);
	return 0;
}

/* What the hook spun, from the frame file's header (a copy, through the
 * runner's view): every process of the game adds to the same two counters. */
static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct hb_frames_header h;

	if (!ctx->frames || !ctx->frames->is_open || hb_frames_view_header(ctx->frames, &h) < 0) {
		kvfile_add(ctx->bench, "slowdown.spin", "unknown: the frame file's header could not be read");
		switch_ctx_note(ctx, "slowdown: what the hook spun is unknown (no frame file header)");
		return;
	}
	kvfile_addf(ctx->bench, "slowdown.spin_ms", "%.3f", (double)h.spin_ns / 1e6);
	kvfile_addf(ctx->bench, "slowdown.presents", "%" PRIu64, h.spin_presents);
	switch_ctx_note(ctx, "slowdown: the hook spun %.1f ms at %" PRIu64 " presents",
			(double)h.spin_ns / 1e6, h.spin_presents);
}

/* A flip: the figure into the header's slowdown_live (one pwrite of four
 * bytes into the page the game maps: the hook sees it at its next present),
 * into the file the view opened and no other (frames.h). */
static int flip_pct(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	double v = 0;
	uint32_t live;
	int r;

	if (on)
		safe_atod(on->value, &v);
	live = HB_SLOWDOWN_LIVE | (uint32_t)(v * 1000 + 0.5);
	r = ctx->frames && ctx->frames_path ? hb_frames_view_set_slowdown(ctx->frames, ctx->frames_path, live)
					    : -ENOENT; /* no frame file at all */
	if (r < 0)
		strbuf_addf(err, "cannot write the frame file's live SLOWDOWN figure: %s", strerror(-r));
	return r;
}

const struct switch_def switch_slowdown = {
	.name = "SLOWDOWN",
	.help = "PCT: a known effect (a test instrument): the hook spins PCT% of each frame",
	.check = check_pct,
	.check_tokens = check_tokens,
	.label = label_pct,
	.prepare = prepare_pct,
	.finish = finish,
	.flip = flip_pct,
	.flip_act_ms = 0, /* the next present */
};

const struct switch_def switch_slowdown_us = {
	.name = "SLOWDOWN_US",
	.help = "N: the same, a fixed N us at each present",
	.check = check_us,
	.label = label_us,
	.prepare = prepare_us,
	.finish = finish,
};
