/*
 * GAMEPREFETCH: the learning game prefetch (hitchbench-prefetch) beside
 * the game, off unless a token turns it on.
 *
 *   learn   learns the game's list (the files it maps or opens, its data
 *           directory) and reads nothing. Such a run is not measured: it
 *           is marked invalid ("a learning run"), listed, never counted.
 *   fetch   reads the list back while the game loads and learns nothing,
 *           so every measured run reads the same list.
 *   on      both; in a batch the learning is left to the batch's own
 *           learn runs (bench/batch/batch-run.c: one unmeasured learn run per
 *           variant before the first run), so measured "on" runs read the
 *           same list as "fetch" runs and never change it.
 *
 * GAMEPREFETCH_MB, _RESERVE_MB and _IO set the fetch's budget, the memory
 * it leaves free and its I/O class. The game's executable (the list's
 * key) is the recipe's command, wrappers such as stdbuf skipped. What the
 * fetch read and why it stopped goes into bench.txt (prefetch=,
 * prefetch.mb=, prefetch.stop=). docs/switches.md.
 */
#include "prefetch/prefetch.h"
#include "runner/spawn.h"
#include "switch/switch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEARN_GRACE_S 30.0
#define PREFETCHER "hitchbench-prefetch"
#define FETCH_LOG "prefetch.log"
#define LEARN_LOG "prefetch-learn.log"
/* bench.txt key the batch sets on its measured runs: they do not learn */
#define BATCH_LEARNT_KEY "prefetch_batch_learnt"

static int check_mode(const char *value, struct strbuf *err)
{
	if (strcmp(value, "learn") == 0 || strcmp(value, "fetch") == 0 || strcmp(value, "on") == 0 ||
	    strcmp(value, "0") == 0)
		return 0;
	strbuf_addstr(err, "wants learn, fetch or on");
	return -EINVAL;
}

static int check_mb(const char *value, struct strbuf *err)
{
	int n;

	if (safe_atoi(value, &n) == 0 && n >= 0 && n <= 65536)
		return 0;
	strbuf_addstr(err, "wants megabytes in 0..65536");
	return -EINVAL;
}

static int check_io(const char *value, struct strbuf *err)
{
	if (strcmp(value, "idle") == 0 ||
	    (strlen(value) == 3 && str_startswith(value, "be") && value[2] >= '0' && value[2] <= '7'))
		return 0;
	strbuf_addstr(err, "wants be0..be7 or idle");
	return -EINVAL;
}

static bool fetches(const struct switch_on *on)
{
	return strcmp(on->value, "fetch") == 0 || strcmp(on->value, "on") == 0;
}

static bool learns(const struct switch_on *on, const struct switch_ctx *ctx)
{
	if (strcmp(on->value, "learn") == 0)
		return true;
	return strcmp(on->value, "on") == 0 && !kvfile_get(ctx->bench, BATCH_LEARNT_KEY);
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	const char *reserve = switch_param(on, "GAMEPREFETCH_RESERVE_MB");
	const char *io = switch_param(on, "GAMEPREFETCH_IO");

	if (strcmp(on->value, "learn") == 0) {
		strbuf_addstr(out, "pflearn");
		return;
	}
	strbuf_addf(out, "pf%s%s", strcmp(on->value, "on") == 0 ? "on" : "",
		    switch_param(on, "GAMEPREFETCH_MB"));
	if (strcmp(reserve, "48") != 0)
		strbuf_addf(out, "r%s", reserve);
	if (strcmp(io, "be7") != 0)
		strbuf_addf(out, "%s", io);
}

/* The program the command runs, wrappers skipped: "stdbuf -oL
 * /usr/games/armagetronad -w" is armagetronad. */
static char *game_exe(char *const *argv, char *const *envp)
{
	char real[PATH_MAX], *found;
	size_t i;

	if (!argv)
		return NULL;
	i = pf_command_start(argv);
	if (!argv[i])
		return NULL;
	found = spawn_find_program(argv[i], envp);
	if (!found)
		return NULL;
	if (realpath(found, real)) {
		free(found);
		return xstrdup(real);
	}
	return found;
}

static int start(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	/* root's: it reads whatever the game may read, at a low priority */
	static const struct switch_helper_start fetch = {
		.name = "prefetch", .log_name = FETCH_LOG, .wait_ready = true,
	};
	/* root's: the game's /proc/PID/maps and fd need it; after the game it
	 * still walks the data, maps the pages and merges: more than the
	 * runner's few seconds on a big game */
	static const struct switch_helper_start learn = {
		.name = "pflearn", .log_name = LEARN_LOG, .wait_ready = true, .grace_s = LEARN_GRACE_S,
	};
	char *exe, *data = NULL;
	const char *argv[24], *base;
	struct stat st;
	size_t n;
	int r = 0;

	if (strcmp(on->value, "0") == 0)
		return 0;
	exe = game_exe(ctx->game_argv, ctx->game_env ? ctx->game_env->v : NULL);
	if (!exe) {
		strbuf_addf(err, "GAMEPREFETCH: cannot tell the game's executable from its command '%s'",
			    ctx->game_argv && ctx->game_argv[0] ? ctx->game_argv[0] : "");
		return -ENOENT;
	}
	kvfile_add(ctx->bench, "prefetch.exe", exe);
	if (fetches(on)) {
		n = 0;
		argv[n++] = PREFETCHER;
		argv[n++] = "fetch";
		argv[n++] = "--exe";
		argv[n++] = exe;
		argv[n++] = "--mb";
		argv[n++] = switch_param(on, "GAMEPREFETCH_MB");
		argv[n++] = "--reserve-mb";
		argv[n++] = switch_param(on, "GAMEPREFETCH_RESERVE_MB");
		argv[n++] = "--io";
		argv[n++] = switch_param(on, "GAMEPREFETCH_IO");
		argv[n] = NULL;
		r = switch_ctx_start_helper(ctx, &fetch, argv, err);
	}
	if (r == 0 && learns(on, ctx)) {
		base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		n = 0;
		argv[n++] = PREFETCHER;
		argv[n++] = "learn";
		argv[n++] = "--exe";
		argv[n++] = exe;
		data = xasprintf("/usr/share/games/%s", base);
		if (stat(data, &st) == 0 && S_ISDIR(st.st_mode)) {
			argv[n++] = "--data";
			argv[n++] = data;
		}
		argv[n] = NULL;
		r = switch_ctx_start_helper(ctx, &learn, argv, err);
		free(data);
	} else if (strcmp(on->value, "on") == 0) {
		kvfile_add(ctx->bench, "prefetch.learn", "no: the batch learnt the list before its "
			   "first run, measured runs read it unchanged");
	}
	free(exe);
	return r;
}

static void pass(const struct switch_on *on, struct switch_ctx *ctx, pid_t game_pid)
{
	if (fetches(on))
		switch_ctx_send_pid(ctx, "prefetch", game_pid);
	if (switch_ctx_helper(ctx, "pflearn"))
		switch_ctx_send_pid(ctx, "pflearn", game_pid);
}

/* The last line of log starting with prefix, or NULL. */
static char *last_line(const char *log, const char *prefix)
{
	char *text = NULL, *line, *found = NULL, *save;
	size_t len;

	if (read_file(log, &text, &len) < 0)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (str_startswith(line, prefix))
			found = line;
	found = xstrdup(found);
	free(text);
	return found;
}

static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	struct switch_helper *h;
	char *log, *line;

	if (strcmp(on->value, "0") == 0)
		return;
	if (fetches(on) && (h = switch_ctx_helper(ctx, "prefetch")) != NULL) {
		const char *p;
		double mb;

		log = xasprintf("%s/%s", ctx->run_dir, FETCH_LOG);
		line = last_line(log, "prefetch ");
		if (!line) {
			kvfile_add(ctx->bench, "prefetch", "the fetch failed: see " FETCH_LOG);
			kvfile_add(ctx->bench, "prefetch.stop", "failed");
			switch_ctx_note(ctx, "prefetch: the fetch failed (see %s)", FETCH_LOG);
		} else {
			kvfile_add(ctx->bench, "prefetch", line);
			p = strstr(line, ": read ");
			if (p && sscanf(p + 7, "%lf", &mb) == 1)
				kvfile_addf(ctx->bench, "prefetch.mb", "%.1f", mb);
			p = strstr(line, ", stopped: ");
			if (p) {
				char why[32];

				if (sscanf(p + 11, "%31[^;]", why) == 1)
					kvfile_add(ctx->bench, "prefetch.stop", why);
			}
			switch_ctx_note(ctx, "%s", line);
		}
		free(line);
		free(log);
	}
	if ((h = switch_ctx_helper(ctx, "pflearn")) != NULL) {
		log = xasprintf("%s/%s", ctx->run_dir, LEARN_LOG);
		line = last_line(log, "prefetch learn ");
		kvfile_add(ctx->bench, "prefetch.learn", line ? line : "failed: see " LEARN_LOG);
		switch_ctx_note(ctx, "%s", line ? line : "prefetch: learning failed (see " LEARN_LOG ")");
		free(line);
		free(log);
	}
	if (strcmp(on->value, "learn") == 0)
		switch_ctx_invalid(ctx, "a learning run (GAMEPREFETCH=learn): not measured");
}

/* A batch that learns the list (learn) and reads it (fetch, on): its learn
 * runs would change the list between the measured runs. */
static int check_tokens(const struct switch_set *sets, size_t n, struct strbuf *err)
{
	const struct switch_set *learn = NULL, *reads = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct switch_on *on = switch_set_find(&sets[i], "GAMEPREFETCH");
		const char *v = on ? on->value : NULL;

		if (v && strcmp(v, "learn") == 0)
			learn = learn ? learn : &sets[i];
		else if (v)
			reads = reads ? reads : &sets[i];
	}
	if (!learn || !reads)
		return 0;
	strbuf_addf(err, "switch tokens '%s' and '%s': a batch's learn runs would change the list "
		    "between the runs that read it; GAMEPREFETCH=on learns it once before the first run",
		    learn->token, reads->token);
	return -EINVAL;
}

const struct switch_def switch_prefetch = {
	.name = "GAMEPREFETCH",
	.help = "learn|fetch|on: the learning game prefetch (learn the files the game uses; "
		"read them back in disk order while it loads)",
	.off_value = "0",
	.program = PREFETCHER,
	.check = check_mode,
	.check_tokens = check_tokens,
	.params = {
		{ "GAMEPREFETCH_MB", "64", "the most the fetch reads (MB not in memory yet)", check_mb },
		{ "GAMEPREFETCH_RESERVE_MB", "48", "MemAvailable the fetch leaves free (MB)", check_mb },
		{ "GAMEPREFETCH_IO", "be7", "the fetch's I/O class: be0..be7 or idle", check_io },
	},
	.label = label,
	.start = start,
	.pass = pass,
	.finish = finish,
};
