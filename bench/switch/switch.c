/*
 * The switch registry and the token grammar (see switch.h), and what the
 * runner offers every switch: helpers it starts and stops, the invalid
 * mark. A new switch is a file of its own and one line in registry[].
 */
#include "switch/switch.h"
#include "system/helperproc.h"
#include "system/wakeplan.h"
#include "system/cpulist.h"
#include "system/fsroot.h"
#include "runner/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/timeutil.h"
#include "formats/tabrecord.h"

extern const struct switch_def switch_gameenv, switch_gamecpu, switch_slowdown, switch_slowdown_us,
	switch_sensors, switch_stalls, switch_waker, switch_probe, switch_prefetch, switch_intf, switch_knob,
	switch_shadercache, switch_profile;

/* Hooks run in this order: the interference watcher last, so that it
 * starts just before the game. */
static const struct switch_def *const registry[] = {
	&switch_gameenv,
	&switch_gamecpu,
	&switch_slowdown,
	&switch_slowdown_us,
	&switch_knob,
	&switch_shadercache,
	&switch_sensors,
	&switch_stalls,
	&switch_profile,
	&switch_waker,
	&switch_probe,
	&switch_prefetch,
	&switch_intf,
};

static const struct switch_def *find_switch(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

/* The switch whose parameter name is, and the parameter's index. */
static const struct switch_def *find_param(const char *name, int *idx)
{
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++)
		for (int k = 0; k < SWITCH_MAX_PARAMS && registry[i]->params[k].name; k++)
			if (strcmp(registry[i]->params[k].name, name) == 0) {
				*idx = k;
				return registry[i];
			}
	return NULL;
}

static struct switch_on *set_find(struct switch_set *set, const struct switch_def *def)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->on[i].def == def)
			return &set->on[i];
	return NULL;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Checks one value with a checker, prefixing the term to the reason. */
static int check_value(int (*check)(const char *, struct strbuf *), const char *name,
		       const char *value, const char *token, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int r = 0;

	if (check && check(value, &why) < 0) {
		strbuf_addf(err, "switch token '%s': %s=%s: %s", token, name, value,
			    why.len ? why.buf : "bad value");
		r = -EINVAL;
	}
	strbuf_release(&why);
	return r;
}

static int parse_term(struct switch_set *set, char *term, const char *token, struct strbuf *err)
{
	char *eq = strchr(term, '=');
	const struct switch_def *def;
	struct switch_on *on;
	int idx;

	if (!eq || eq == term) {
		strbuf_addf(err, "switch token '%s': '%s' is not NAME=VALUE", token, term);
		return -EINVAL;
	}
	*eq = '\0';
	if (!valid_name(term)) {
		strbuf_addf(err, "switch token '%s': '%s' is not a switch name (A-Z, 0-9, _)", token, term);
		return -EINVAL;
	}
	def = find_switch(term);
	if (def) {
		on = set_find(set, def);
		if (on && on->value) {
			strbuf_addf(err, "switch token '%s': %s is set twice", token, term);
			return -EINVAL;
		}
		if (!on) {
			if (set->n == SWITCH_MAX_ON) {
				strbuf_addf(err, "switch token '%s': too many switches", token);
				return -EINVAL;
			}
			on = &set->on[set->n++];
			on->def = def;
		}
		on->value = eq + 1;
		on->explicit = true;
		return check_value(def->check, term, on->value, token, err);
	}
	def = find_param(term, &idx);
	if (!def) {
		strbuf_addf(err, "switch token '%s': no switch or parameter '%s' "
			    "('hitchbench run --help' lists them)", token, term);
		return -EINVAL;
	}
	on = set_find(set, def);
	if (!on) {
		if (set->n == SWITCH_MAX_ON) {
			strbuf_addf(err, "switch token '%s': too many switches", token);
			return -EINVAL;
		}
		on = &set->on[set->n++];
		on->def = def; /* its own term must follow or precede: checked below */
	}
	if (on->params[idx]) {
		strbuf_addf(err, "switch token '%s': %s is set twice", token, term);
		return -EINVAL;
	}
	on->params[idx] = eq + 1;
	on->params_explicit = true;
	return check_value(def->params[idx].check, term, eq + 1, token, err);
}

static void make_label(struct switch_set *set)
{
	struct strbuf sb = STRBUF_INIT, one = STRBUF_INIT;

	for (size_t i = 0; i < set->n; i++) {
		const struct switch_on *on = &set->on[i];

		if (!on->explicit)
			continue;
		/* an observer at its default changes nothing in the name */
		if (on->def->default_value && strcmp(on->value, on->def->default_value) == 0 &&
		    !on->params_explicit)
			continue;
		strbuf_reset(&one);
		if (!switch_on_is_on(on))
			strbuf_addf(&one, "no%s", on->def->name);
		else if (on->def->label)
			on->def->label(on, &one);
		else
			strbuf_addf(&one, "%s%s", on->def->name, on->value);
		for (char *c = one.buf; c && *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		if (one.len)
			strbuf_addf(&sb, "%s%s", sb.len ? "+" : "", one.buf);
	}
	strbuf_release(&one);
	set->label = strbuf_detach(&sb);
}

int switch_set_parse(const char *token, struct switch_set *set, struct strbuf *err)
{
	char *save = NULL;
	int r = 0;

	memset(set, 0, sizeof(*set));
	set->token = xstrdup(token);
	set->buf = xstrdup(token);
	if (strcmp(token, "-") != 0) {
		if (!*token || token[0] == '+' || token[strlen(token) - 1] == '+' || strstr(token, "++")) {
			strbuf_addf(err, "switch token '%s': empty term (terms are joined by one '+')", token);
			return -EINVAL;
		}
		for (char *t = strtok_r(set->buf, "+", &save); t && r == 0; t = strtok_r(NULL, "+", &save))
			r = parse_term(set, t, token, err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < set->n; i++)
		if (!set->on[i].value) {
			strbuf_addf(err, "switch token '%s': a parameter of %s without %s=VALUE itself",
				    token, set->on[i].def->name, set->on[i].def->name);
			return -EINVAL;
		}
	/* observers that run with every run, unless the token set them */
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++) {
		if (!registry[i]->default_value || set_find(set, registry[i]))
			continue;
		if (set->n == SWITCH_MAX_ON) {
			strbuf_addf(err, "switch token '%s': too many switches", token);
			return -EINVAL;
		}
		set->on[set->n].def = registry[i];
		set->on[set->n++].value = registry[i]->default_value;
	}
	for (size_t i = 0; i < set->n; i++)
		for (int k = 0; k < SWITCH_MAX_PARAMS && set->on[i].def->params[k].name; k++)
			if (!set->on[i].params[k])
				set->on[i].params[k] = set->on[i].def->params[k].default_value;
	make_label(set);
	return 0;
}

void switch_set_release(struct switch_set *set)
{
	free(set->token);
	free(set->label);
	free(set->buf);
	memset(set, 0, sizeof(*set));
}

int switch_tokens_parse(const char *list, struct switch_set **sets, size_t *n, struct strbuf *err)
{
	struct argv_list words;
	struct switch_set *v;
	const char *why = NULL;
	size_t count;
	int r = 0;

	argv_init(&words);
	if (argv_split(&words, list ? list : "", &why) < 0) {
		strbuf_addf(err, "switch tokens '%s': %s", list, why);
		argv_release(&words);
		return -EINVAL;
	}
	if (words.n == 0)
		argv_push(&words, "-");
	count = words.n;
	v = zalloc(sizeof(*v) * count);
	for (size_t i = 0; i < count && r == 0; i++) {
		r = switch_set_parse(words.v[i], &v[i], err);
		for (size_t j = 0; j < i && r == 0; j++)
			if (strcmp(v[i].label, v[j].label) == 0) {
				strbuf_addf(err, "switch tokens '%s' and '%s' name the same runs ('%s')",
					    v[j].token, v[i].token, *v[i].label ? v[i].label : "-");
				r = -EINVAL;
			}
	}
	argv_release(&words);
	for (size_t k = 0; k < ARRAY_SIZE(registry) && r == 0; k++)
		if (registry[k]->check_tokens)
			r = registry[k]->check_tokens(v, count, err);
	if (r < 0) {
		switch_sets_free(v, count);
		return r;
	}
	*sets = v;
	*n = count;
	return 0;
}

void switch_sets_free(struct switch_set *sets, size_t n)
{
	for (size_t i = 0; sets && i < n; i++)
		switch_set_release(&sets[i]);
	free(sets);
}

int switch_sets_ready(const struct switch_set *sets, size_t n, const char *helper_dir,
		      struct strbuf *err)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sets[i].n; k++) {
			const struct switch_on *on = &sets[i].on[k];
			char *path;
			bool ok;

			if (!on->def->program || !switch_on_is_on(on))
				continue;
			path = xasprintf("%s/%s", helper_dir, on->def->program);
			ok = access(path, X_OK) == 0;
			if (!ok)
				strbuf_addf(err, "switch %s needs '%s', which is not there (build it with "
					    "'make', or turn the switch off with %s=%s)", on->def->name, path,
					    on->def->name, on->def->off_value ? on->def->off_value : "0");
			free(path);
			if (!ok)
				return -ENOENT;
		}
	return 0;
}

const struct switch_on *switch_set_find(const struct switch_set *set, const char *name)
{
	for (size_t k = 0; k < set->n; k++)
		if (strcmp(set->on[k].def->name, name) == 0)
			return &set->on[k];
	return NULL;
}

const char *switch_param(const struct switch_on *on, const char *name)
{
	for (int k = 0; k < SWITCH_MAX_PARAMS && on->def->params[k].name; k++)
		if (strcmp(on->def->params[k].name, name) == 0)
			return on->params[k];
	return NULL;
}

bool switch_sets_journal(const struct switch_set *sets, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sets[i].n; k++)
			if (sets[i].on[k].def->journals)
				return true;
	return false;
}

void switch_names(struct strbuf *out, bool flip_only)
{
	bool first = true;

	for (size_t i = 0; i < ARRAY_SIZE(registry); i++)
		if (!flip_only || registry[i]->flip) {
			strbuf_addf(out, "%s%s", first ? "" : ", ", registry[i]->name);
			first = false;
		}
}

void switch_help(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++) {
		const struct switch_def *d = registry[i];

		fprintf(out, "  %-14s %s%s%s%s%s\n", d->name, d->help, d->default_value ? " (on by default: " : "",
			d->default_value ? d->name : "", d->default_value ? "=0 turns it off)" : "",
			d->flip ? " (flips while the game runs)" : "");
		for (int k = 0; k < SWITCH_MAX_PARAMS && d->params[k].name; k++)
			fprintf(out, "    %-12s %s%s%s%s\n", d->params[k].name, d->params[k].help,
				d->params[k].default_value ? " (default " : "",
				d->params[k].default_value ? d->params[k].default_value : "",
				d->params[k].default_value ? ")" : "");
	}
}

/* ---- what the runner offers ---- */

/* Starts argv (in ctx->helper_dir when argv[0] has no '/') as a helper
 * of the run, --ready READY appended when ready is not NULL. */
static int spawn_helper(struct switch_ctx *ctx, const struct switch_helper_start *hs,
			const char *const *argv, const char *ready, const char *log_path,
			struct strbuf *err)
{
	extern char **environ;
	struct switch_helper *h;
	char *prog = NULL;
	const char **args = NULL;
	int log_fd = -1, r;
	size_t n = 0;
	pid_t pid;

	if (ctx->n_helpers == ARRAY_SIZE(ctx->helpers)) {
		strbuf_addf(err, "too many helpers");
		return -ENOSPC;
	}
	while (argv[n])
		n++;
	args = zalloc(sizeof(*args) * (n + 3));
	memcpy(args, argv, sizeof(*args) * n);
	if (!strchr(argv[0], '/')) {
		prog = xasprintf("%s/%s", ctx->helper_dir, argv[0]);
		args[0] = prog;
	}
	if (ready) {
		args[n++] = "--ready";
		args[n++] = ready;
	}
	if (log_path) {
		log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			r = -errno;
			strbuf_addf(err, "cannot create '%s': %s", log_path, strerror(errno));
			goto out;
		}
	}
	{
		struct spawn_opts o = {
			.argv = (char *const *)args, .envp = environ,
			.in_fd = -1, .out_fd = log_fd, .err_fd = log_fd,
			.user = hs->as_game_user ? ctx->user : NULL, .new_session = true,
			.parent_death_signal = SIGKILL,
		};

		r = spawn_process(&o, &pid);
	}
	if (r < 0) {
		strbuf_addf(err, "cannot start %s ('%s'): %s", hs->name, args[0], strerror(-r));
		goto out;
	}
	h = &ctx->helpers[ctx->n_helpers++];
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(hs->name);
	h->pid = pid;
	footprint_init(&h->fp);
	h->grace_s = hs->grace_s;
	h->prog = xstrdup(strrchr(args[0], '/') ? strrchr(args[0], '/') + 1 : args[0]);
	h->log = log_path ? xstrdup(log_path) : NULL;
out:
	if (log_fd >= 0)
		close(log_fd);
	free(prog);
	free(args);
	return r;
}

void switch_ctx_invalid(struct switch_ctx *ctx, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (ctx->invalid)
		strbuf_release(&sb);
	else
		ctx->invalid = strbuf_detach(&sb);
}

void switch_ctx_interfered(struct switch_ctx *ctx, const char *summary)
{
	if (!ctx->interfered)
		ctx->interfered = xstrdup(summary);
}

/* Waits until the helper just started creates its ready file (it set up
 * its signal handlers and opened what it watches). */
static int wait_ready(struct switch_ctx *ctx, const char *name, const char *ready,
		      const char *log_name, double timeout_s, struct strbuf *err)
{
	struct switch_helper *h = switch_ctx_helper(ctx, name);
	uint64_t until = mono_ns() + (uint64_t)(timeout_s * 1e9);
	struct stat st;
	struct rusage ru;
	int status;

	while (stat(ready, &st) < 0) {
		if (h && wait4(h->pid, &status, WNOHANG, &ru) == h->pid) {
			h->exited = true;
			h->status = status;
			footprint_add(&h->fp, &ru);
			strbuf_addf(err, "%s exited before it was ready (see %s/%s)", name, ctx->run_dir,
				    log_name);
			return -ECHILD;
		}
		if (mono_ns() > until) {
			strbuf_addf(err, "%s was not ready after %g s (see %s/%s)", name, timeout_s,
				    ctx->run_dir, log_name);
			return -ETIMEDOUT;
		}
		sleep_ms(2);
	}
	return 0;
}

int switch_ctx_start_helper(struct switch_ctx *ctx, const struct switch_helper_start *hs,
			    const char *const *argv, struct strbuf *err)
{
	char *log = hs->log_name ? xasprintf("%s/%s", ctx->run_dir, hs->log_name) : NULL;
	char *ready = hs->wait_ready ? xasprintf("%s/%s.ready", ctx->stage_dir, hs->name) : NULL;
	int r;

	r = spawn_helper(ctx, hs, argv, ready, log, err);
	if (r == 0 && ready)
		r = wait_ready(ctx, hs->name, ready, hs->ready_log ? hs->ready_log : hs->log_name,
			       SWITCH_READY_WAIT_S, err);
	free(log);
	free(ready);
	return r;
}

void switch_ctx_send_pid(struct switch_ctx *ctx, const char *name, pid_t pid)
{
	struct switch_helper *h = switch_ctx_helper(ctx, name);
	union sigval v = { .sival_int = pid };

	if (h && !h->exited)
		sigqueue(h->pid, SIGUSR1, v);
}

int switch_ctx_pause_helper(struct switch_ctx *ctx, const char *name, bool pause, struct strbuf *err)
{
	struct switch_helper *h = switch_ctx_helper(ctx, name);
	union sigval v = { .sival_int = pause ? HELPER_PAUSE : HELPER_RESUME };

	if (!h || h->exited) {
		strbuf_addf(err, "the %s helper is not running", name);
		return -ESRCH;
	}
	if (sigqueue(h->pid, SIGUSR2, v) < 0) {
		strbuf_addf(err, "cannot signal the %s helper: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}

bool switch_on_is_on(const struct switch_on *on)
{
	return on && !(on->def->off_value && strcmp(on->value, on->def->off_value) == 0);
}

void switch_ctx_setenv(struct switch_ctx *ctx, const char *name_value)
{
	size_t n = (size_t)(strchrnul(name_value, '=') - name_value) + 1;
	struct argv_list *env = ctx->game_env;

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name_value, n) == 0) {
			free(env->v[i]);
			env->v[i] = xstrdup(name_value);
			return;
		}
	argv_push(env, name_value);
}

void switch_ctx_note(struct switch_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&ctx->notes, fmt, ap);
	va_end(ap);
	strbuf_addch(&ctx->notes, '\n');
}

void switch_keep_tabrecord(struct switch_ctx *ctx, const char *key, const char *file, const char *live_name,
			   const char *none_why)
{
	char *out = xasprintf("%s/%s", ctx->run_dir, file);
	char *live = xasprintf("%s/%s", ctx->stage_dir, live_name);
	struct strbuf err = STRBUF_INIT;
	struct kvfile t;
	struct stat st;

	kvfile_init(&t);
	if (stat(out, &st) == 0) {
		kvfile_add(ctx->bench, key, file);
	} else if (stat(live, &st) == 0) {
		kvfile_add(&t, "stop", "the recorder did not end cleanly: packed by the runner");
		if (tabrec_pack(live, out, &t, &err) == 0)
			kvfile_addf(ctx->bench, key, "%s (packed by the runner from the live record: the "
				    "recorder did not end cleanly)", file);
		else
			kvfile_addf(ctx->bench, key, "none (%s)", err.buf);
	} else {
		kvfile_addf(ctx->bench, key, "none (%s)", none_why);
	}
	unlink(live);
	kvfile_release(&t);
	strbuf_release(&err);
	free(out);
	free(live);
}

char *switch_log_said(const char *log_path, const char *prefix)
{
	char *text = NULL, *line, *found = NULL, *save;
	size_t len;

	if (read_file(log_path, &text, &len) < 0)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (str_startswith(line, prefix))
			found = line + strlen(prefix);
	found = xstrdup(found);
	free(text);
	return found;
}

struct switch_helper *switch_ctx_helper(struct switch_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->n_helpers; i++)
		if (strcmp(ctx->helpers[i].name, name) == 0)
			return &ctx->helpers[i];
	return NULL;
}

bool switch_ctx_reaped(struct switch_ctx *ctx, pid_t pid, int status, const struct rusage *ru)
{
	for (size_t i = 0; i < ctx->n_helpers; i++)
		if (ctx->helpers[i].pid == pid && !ctx->helpers[i].exited) {
			ctx->helpers[i].exited = true;
			ctx->helpers[i].status = status;
			footprint_add(&ctx->helpers[i].fp, ru);
			return true;
		}
	return false;
}

static bool reap_helpers(struct switch_ctx *ctx)
{
	bool all = true;

	for (size_t i = 0; i < ctx->n_helpers; i++) {
		struct switch_helper *h = &ctx->helpers[i];
		struct rusage ru;
		int st;

		if (!h->exited && wait4(h->pid, &st, WNOHANG, &ru) == h->pid) {
			h->exited = true;
			h->status = st;
			footprint_add(&h->fp, &ru);
		}
		all = all && h->exited;
	}
	return all;
}

/* What a helper kept after its setup, as its log said it
 * (common/system/sandbox.h): helper.NAME.sandbox in bench.txt. */
static void note_sandbox(struct switch_ctx *ctx, const struct switch_helper *h)
{
	char *prefix, *said, key[96];

	if (!h->log)
		return;
	prefix = xasprintf("%s: sandbox: ", h->prog);
	said = switch_log_said(h->log, prefix);
	if (said) {
		snprintf(key, sizeof(key), "helper.%s.sandbox", h->name);
		kvfile_set(ctx->bench, key, said);
	}
	free(said);
	free(prefix);
}

void switch_ctx_stop_helpers(struct switch_ctx *ctx, double grace_s)
{
	uint64_t now = mono_ns(), deadline, resend = 0;
	bool killed = false;
	double longest = grace_s;

	/* a helper with work to finish after the game (the prefetch's
	 * learner) may ask for more; none is given after a second Ctrl-C */
	for (size_t i = 0; grace_s > 0 && i < ctx->n_helpers; i++)
		if (!ctx->helpers[i].exited && ctx->helpers[i].grace_s > longest)
			longest = ctx->helpers[i].grace_s;
	deadline = now + (uint64_t)(longest * 1e9);
	/* the program's own peak, while it still has its memory */
	for (size_t i = 0; i < ctx->n_helpers; i++)
		if (!ctx->helpers[i].exited)
			footprint_read_hwm(&ctx->helpers[i].fp, ctx->helpers[i].pid);

	/* SIGTERM again every 250 ms of the grace: a helper that checks its
	 * stop flag and then sleeps to an absolute deadline (the waker, up
	 * to a minute) misses a signal that lands between the two, and its
	 * handlers only set a flag, so a second one is harmless. */
	while (!reap_helpers(ctx)) {
		now = mono_ns();
		if (!killed && now >= resend && now <= deadline) {
			for (size_t i = 0; i < ctx->n_helpers; i++)
				if (!ctx->helpers[i].exited)
					kill(ctx->helpers[i].pid, SIGTERM);
			resend = now + 250 * 1000000ULL;
		}
		if (!killed && now > deadline) {
			for (size_t i = 0; i < ctx->n_helpers; i++)
				if (!ctx->helpers[i].exited)
					kill(-ctx->helpers[i].pid, SIGKILL);
			killed = true;
		}
		sleep_ms(5);
	}
	for (size_t i = 0; i < ctx->n_helpers; i++) {
		char key[96], desc[64];

		describe_wait_status(ctx->helpers[i].status, desc, sizeof(desc));
		snprintf(key, sizeof(key), "helper.%s", ctx->helpers[i].name);
		kvfile_set(ctx->bench, key, desc);
		note_sandbox(ctx, &ctx->helpers[i]);
	}
}

void switch_ctx_release(struct switch_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_helpers; i++) {
		if (!ctx->helpers[i].exited) {
			kill(-ctx->helpers[i].pid, SIGKILL);
			waitpid(ctx->helpers[i].pid, NULL, 0);
		}
		free(ctx->helpers[i].name);
		free(ctx->helpers[i].prog);
		free(ctx->helpers[i].log);
	}
	ctx->n_helpers = 0;
	free(ctx->invalid);
	ctx->invalid = NULL;
	free(ctx->interfered);
	ctx->interfered = NULL;
	strbuf_release(&ctx->notes);
}

/* ---- checkers ---- */

int switch_check_bool(const char *value, struct strbuf *err)
{
	if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)
		return 0;
	strbuf_addstr(err, "wants 0 or 1");
	return -EINVAL;
}

int switch_check_ms(const char *value, struct strbuf *err)
{
	int v;

	if (safe_atoi(value, &v) == 0 && v >= 1 && v <= 60000)
		return 0;
	strbuf_addstr(err, "wants milliseconds from 1 to 60000");
	return -EINVAL;
}

int switch_check_period(const char *value, struct strbuf *err)
{
	uint64_t ns;

	if (waker_period_parse(value, &ns) == 0)
		return 0;
	strbuf_addf(err, "wants a period in ms, %g..%g (fractions allowed: 1.37)", WAKER_PERIOD_MIN_MS,
		    WAKER_PERIOD_MAX_MS);
	return -EINVAL;
}

int switch_check_cpus(const char *value, struct strbuf *err)
{
	cpu_set_t want, online;
	char buf[256];

	if (cpu_list_parse(value, &want) < 0) {
		strbuf_addstr(err, "wants a CPU list such as 0, 1-3 or 0,2");
		return -EINVAL;
	}
	if (fsroot_read_line("sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    cpu_list_parse(buf, &online) < 0)
		return 0; /* cannot tell which are online: let the kernel say */
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &want) && !CPU_ISSET(c, &online)) {
			strbuf_addf(err, "CPU %d is not online (online: %s)", c, buf);
			return -EINVAL;
		}
	return 0;
}
