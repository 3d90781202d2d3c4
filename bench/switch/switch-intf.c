/*
 * INTF: the interference watcher (hitchbench-intfwatch) beside every run,
 * on by default; INTF=0 turns it off, and the run's name ("nointf") and
 * bench.txt say so. It starts just before the game (the last switch to
 * start) and stops after it. Whatever it counts (a key press, a VT
 * switch, a login, a process outside the run: docs/interference.md)
 * makes the run interfered: bench.txt interfered=1 and interference=
 * with the watcher's one-line summary, a loud line on the terminal and in
 * result.txt, and the run is left out of every median. A watcher that
 * failed leaves the run unwatched, which is no proof of a quiet machine:
 * such a run is marked invalid.
 *
 * Which processes are the run's: the game's passes (their pids, sent as
 * the stall recorder gets them) and everything carrying the run's marker
 * HITCHBENCH_RUN=<run id>, which the game's environment holds (in a
 * relay, also HITCHBENCH_RELAY=<relay id>, which both games hold). The
 * harness's: the runner and its ancestors, and everything carrying
 * HITCHBENCH_HARNESS (the runner sets it for itself, so its helpers and
 * its X server inherit it).
 */
#include "procwatch/procwatch.h"
#include "switch/switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WATCHER "hitchbench-intfwatch"
#define LOG_NAME "interference.log"

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addstr(out, "intf");
	if (strcmp(switch_param(on, "INTF_SCAN"), "1") == 0)
		strbuf_addstr(out, "scan");
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	const char *id = kvfile_get(ctx->bench, "run_id"), *relay = kvfile_get(ctx->bench, "relay.id");
	static const struct switch_helper_start hs = {
		/* root's: every input device, the proc connector, the kernel log */
		.name = "intfwatch", .log_name = "intfwatch.log", .ready_log = LOG_NAME, .wait_ready = true,
	};
	char *log, harness[24];
	const char *argv[16];
	size_t n = 0;
	int r;

	if (!switch_on_is_on(on)) {
		kvfile_add(ctx->bench, "interference", "not watched (INTF=0)");
		switch_ctx_note(ctx, "interference: not watched (INTF=0)");
		return 0;
	}
	log = xasprintf("%s/%s", ctx->run_dir, LOG_NAME);
	snprintf(harness, sizeof(harness), "%d", (int)getpid());
	argv[n++] = WATCHER;
	argv[n++] = "--log";
	argv[n++] = log;
	argv[n++] = "--harness";
	argv[n++] = harness;
	if (id) {
		argv[n++] = "--run-id";
		argv[n++] = id;
	}
	if (relay) { /* the partner's game is the run's own (docs/metrics.md "Relay") */
		argv[n++] = "--relay-id";
		argv[n++] = relay;
	}
	if (strcmp(switch_param(on, "INTF_SCAN"), "1") == 0)
		argv[n++] = "--scan";
	argv[n] = NULL;
	r = switch_ctx_start_helper(ctx, &hs, argv, err);
	free(log);
	return r;
}

static void pass(const struct switch_on *on, struct switch_ctx *ctx, pid_t game_pid)
{
	if (switch_on_is_on(on))
		switch_ctx_send_pid(ctx, "intfwatch", game_pid);
}

/* The watcher's "# summary interfered=N: TEXT" and "# self ..." lines
 * (docs/interference.md, "The watcher's log"). */
struct watch_end {
	int interfered;         /* -1: no summary line */
	char *summary, *self, *sources;
};

static void read_end(const char *path, struct watch_end *e)
{
	char *text = NULL, *save, *line;
	size_t len;

	memset(e, 0, sizeof(*e));
	e->interfered = -1;
	if (read_file(path, &text, &len) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int k = 0;

		if (sscanf(line, "# summary interfered=%d: %n", &e->interfered, &k) == 1 && k > 0) {
			free(e->summary);
			e->summary = xstrdup(line + k);
		} else if (str_startswith(line, "# self ")) {
			free(e->self);
			e->self = xstrdup(line + 7);
		} else if (str_startswith(line, "# sources ")) {
			free(e->sources);
			e->sources = xstrdup(line + 10);
		}
	}
	free(text);
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h = switch_ctx_helper(ctx, "intfwatch");
	char *log;
	struct watch_end e;
	int code;

	if (!switch_on_is_on(on) || !h)
		return;
	log = xasprintf("%s/%s", ctx->run_dir, LOG_NAME);
	read_end(log, &e);
	code = WIFEXITED(h->status) ? WEXITSTATUS(h->status) : -1;
	if (e.sources)
		kvfile_add(ctx->bench, "interference_sources", e.sources);
	if (e.self)
		kvfile_add(ctx->bench, "interference_cost", e.self);
	if (e.interfered < 0 || (code != 0 && code != 3)) {
		kvfile_add(ctx->bench, "interference", "unknown: the watcher failed (see intfwatch.log)");
		switch_ctx_invalid(ctx, "the interference watcher failed: the run was not watched "
				   "(see intfwatch.log)");
	} else {
		kvfile_addf(ctx->bench, "interfered", "%d", e.interfered ? 1 : 0);
		kvfile_add(ctx->bench, "interference", e.summary);
		if (e.interfered) {
			kvfile_add(ctx->bench, "interfered_reason", e.summary);
			switch_ctx_interfered(ctx, e.summary);
		}
		switch_ctx_note(ctx, "interference: %s%s%s%s", e.summary, e.self ? " (watcher: " : "",
				e.self ? e.self : "", e.self ? ")" : "");
	}
	free(e.summary);
	free(e.self);
	free(e.sources);
	free(log);
}

const struct switch_def switch_intf = {
	.name = "INTF",
	.help = "1: the interference watcher beside the game (input, devices, VT switches, logins, "
		"processes outside the run); a disturbed run is marked and never counted",
	.default_value = "1",
	.off_value = "0",
	.program = WATCHER,
	.check = switch_check_bool,
	.params = {
		{ "INTF_SCAN", "0", "1: find new processes by scanning /proc, not the proc connector",
		  switch_check_bool },
	},
	.label = label,
	.start = start,
	.pass = pass,
	.finish = finish,
};
