/*
 * PROFILE: the profile recorder (hitchbench-profrec) beside the game, off
 * unless a token turns it on. It samples where the game's threads spend
 * their CPU time, PROFILE_HZ times a second of a thread's CPU time (999),
 * with call chains of PROFILE_STACK frames at most (64), into
 * profile.rec.zst; `hitchbench profile` and the stall table then say what
 * a CPU-bound stall was doing (docs/profile.md).
 *
 * Runs with it are named after it ("prof", "prof4000") so that a report
 * never pools them with runs without it: the sampling interrupt is the
 * game's cost. A flip run turns it off and on while the game plays (the
 * events disabled, not closed), which is how its cost on fps is measured.
 *
 * The recorder is root's (the game's threads are another user's); it
 * starts before the game, learns each pass's pid by sigqueue(SIGUSR1),
 * and says at the end what it recorded and cost: bench.txt `profile=`.
 */
#include "formats/profilerecord.h"
#include "switch/switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define RECORDER "hitchbench-profrec"
#define PROFILE_HZ_DEFAULT "999"

static int check_value(const char *value, struct strbuf *err)
{
	if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)
		return 0;
	strbuf_addstr(err, "wants 0 or 1 (the profile recorder beside the game)");
	return -EINVAL;
}

static int check_hz(const char *value, struct strbuf *err)
{
	int n;

	if (safe_atoi(value, &n) == 0 && n >= 10 && n <= 20000)
		return 0;
	strbuf_addstr(err, "wants samples a second of CPU time in 10..20000");
	return -EINVAL;
}

static int check_stack(const char *value, struct strbuf *err)
{
	int n;

	if (safe_atoi(value, &n) == 0 && n >= 1 && n <= HB_PROFREC_MAX_FRAMES)
		return 0;
	strbuf_addf(err, "wants frames in 1..%d", HB_PROFREC_MAX_FRAMES);
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addstr(out, "prof");
	if (strcmp(switch_param(on, "PROFILE_HZ"), PROFILE_HZ_DEFAULT) != 0)
		strbuf_addstr(out, switch_param(on, "PROFILE_HZ"));
	if (strcmp(switch_param(on, "PROFILE_STACK"), "64") != 0)
		strbuf_addf(out, "s%s", switch_param(on, "PROFILE_STACK"));
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	/* root's: the game's threads belong to the game user */
	static const struct switch_helper_start hs = {
		.name = "profrec", .log_name = "profrec.log", .wait_ready = true,
	};
	char *out, *live;
	const char *argv[16];
	size_t n = 0;
	int r;

	if (!switch_on_is_on(on)) {
		kvfile_add(ctx->bench, "profile", "off (PROFILE=0)");
		return 0;
	}
	out = xasprintf("%s/%s", ctx->run_dir, HB_PROFREC_FILE);
	live = xasprintf("%s/profile.live", ctx->stage_dir);
	argv[n++] = RECORDER;
	argv[n++] = "--out";
	argv[n++] = out;
	argv[n++] = "--live";
	argv[n++] = live;
	argv[n++] = "--hz";
	argv[n++] = switch_param(on, "PROFILE_HZ");
	argv[n++] = "--max-stack";
	argv[n++] = switch_param(on, "PROFILE_STACK");
	argv[n] = NULL;
	r = switch_ctx_start_helper(ctx, &hs, argv, err);
	free(out);
	free(live);
	return r;
}

static void pass(const struct switch_on *on, struct switch_ctx *ctx, pid_t game_pid)
{
	if (switch_on_is_on(on))
		switch_ctx_send_pid(ctx, "profrec", game_pid);
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "profrec");
	char *log, *cost;

	if (!switch_on_is_on(on) || !h)
		return;
	log = xasprintf("%s/profrec.log", ctx->run_dir);
	cost = switch_log_said(log, "profrec: ");
	if (!WIFEXITED(h->status) || WEXITSTATUS(h->status) != 0 || !cost) {
		kvfile_add(ctx->bench, "profile", "the recorder failed: see profrec.log");
		switch_ctx_note(ctx, "profrec: the recorder failed (see profrec.log)");
	} else {
		kvfile_add(ctx->bench, "profile", cost);
		switch_ctx_note(ctx, "profrec: %s", cost);
	}
	switch_keep_tabrecord(ctx, "profile_record", HB_PROFREC_FILE, "profile.live",
			      "the recorder left no record");
	free(cost);
	free(log);
}

/* A flip run: the events disabled on the side without it, enabled on the
 * side with it; the record's pause and resume lines say when. */
static int flip(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	return switch_ctx_pause_helper(ctx, "profrec", !switch_on_is_on(on), err);
}

const struct switch_def switch_profile = {
	.name = "PROFILE",
	.help = "1: the profile recorder beside the game (where its threads spent their CPU time; "
		"hitchbench profile)",
	.off_value = "0",
	.program = RECORDER,
	.check = check_value,
	.params = {
		{ "PROFILE_HZ", PROFILE_HZ_DEFAULT, "samples a second of a thread's CPU time", check_hz },
		{ "PROFILE_STACK", "64", "frames a call chain keeps (kernel and user)", check_stack },
	},
	.label = label,
	.start = start,
	.pass = pass,
	.finish = finish,
	.flip = flip,
	.flip_pauses = true,
	/* the signal ends the recorder's sleep: the events are disabled
	 * within microseconds (a signal landing just before its sleep
	 * begins waits for the next drain, 100 ms: rare) */
	.flip_act_ms = 5,
};
