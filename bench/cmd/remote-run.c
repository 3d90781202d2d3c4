/*
 * hitchbench run --target NAME: the batch started detached on the target
 * over one connection, which stays open and follows the batch (run
 * --detach --follow there: a line at each run's start and end, and one at
 * the batch's end), so that nothing logs in while it runs (a login during a
 * measured window is interference there); once it has ended, one
 * connection pulls it. Should the followed connection drop, the target is
 * left alone until the batch is expected to have ended, when one
 * connection looks, and pulls the batch if it has ended; a batch not ended
 * yet is looked at again later, each look one connection, further apart
 * each time. With --no-wait the start's connection is closed at once.
 */
#include "cmd/remote-run.h"
#include "base/exitcodes.h"
#include "base/timeutil.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FIRST_BACKOFF_S 30
#define MAX_BACKOFF_S 3600

static volatile sig_atomic_t stopped;

static void on_stop(int sig)
{
	stopped = 1;
}

/* The option of run's table that "--NAME" (NAME up to '=') names as
 * getopt_long would take it: exactly, or as the only option it begins. */
static const struct option *find_long(const struct option *opts, const char *arg)
{
	size_t len = strcspn(arg, "=");
	const struct option *hit = NULL;

	for (size_t i = 0; opts[i].name; i++) {
		if (strncmp(opts[i].name, arg, len) != 0)
			continue;
		if (strlen(opts[i].name) == len)
			return &opts[i];
		if (hit)
			return NULL;
		hit = &opts[i];
	}
	return hit;
}

/* Run's arguments as written, for the target: --target NAME, --no-wait and
 * --no-pull are the controller's own and are left out. */
static void target_args(int argc, char **argv, struct argv_list *out)
{
	struct option opts[40];
	size_t n = 0;
	int i;

	run_options_getopt(opts, &n, ARRAY_SIZE(opts), 0);
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const struct option *o;
		bool ours;

		if (strcmp(arg, "--") == 0)
			break;
		if (!str_startswith(arg, "--") || !(o = find_long(opts, arg + 2))) {
			argv_push(out, arg);
			continue;
		}
		ours = !strcmp(o->name, "target") || !strcmp(o->name, "no-wait") || !strcmp(o->name, "no-pull");
		if (!ours)
			argv_push(out, arg);
		if (o->has_arg == required_argument && !strchr(arg, '=') && i + 1 < argc) {
			i++;
			if (!ours)
				argv_push(out, argv[i]);
		}
	}
	for (; i < argc; i++)
		argv_push(out, argv[i]);
}

static void say_later(const struct ssh_target *t, const char *id)
{
	fprintf(stderr, "hitchbench: batch %s goes on on '%s': 'hitchbench pull %s %s' gets it once it has ended "
		"('hitchbench target status %s' says whether it has; a connection while a run is measured "
		"marks that run interfered)\n", id, t->name, t->name, id, t->name);
}

/* What the start's connection said, line by line: the batch line first,
 * then (followed) the batch's events and its end. */
struct started {
	const struct ssh_target *t;
	const char *results_dir;
	time_t when;
	char *id, *dir, *ended;  /* ended: the end's status, NULL while it runs */
	double expected;
	bool bad;                /* no batch line first */
};

static int start_line(const char *text, void *data)
{
	struct started *s = data;

	if (!s->id) {
		if (remote_start_parse(text, &s->id, &s->expected, &s->dir) < 0) {
			error_msg("the target's runner said no 'batch ID expected_s N dir PATH' line: '%s'", text);
			s->bad = true;
			return 1;
		}
		if (remote_record_write(s->results_dir, s->t->name, s->id, s->dir, s->when, s->expected) < 0)
			warn_msg("cannot write the record of batch %s under '%s/targets/%s'", s->id, s->results_dir,
				 s->t->name);
		printf("batch %s started on %s, expected to take %.0f s (%s)\n", s->id, s->t->name, s->expected,
		       s->dir);
		fflush(stdout);
	} else if (str_startswith(text, "ended ")) {
		s->ended = xstrdup(text + 6);
		return 1;
	} else if (str_startswith(text, "run ")) {
		info_msg("batch %s on '%s': %s", s->id, s->t->name, text);
	}
	return stopped;
}

/* The start: one connection; the batch line read, then, when follow, the
 * batch followed over it to its end. */
static int start(struct started *s, char *const *args, bool follow)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *cmd = remote_start_command(s->t, (const char *const *)args);
	struct ssh_conn c;
	int r = ssh_open(&c, s->t), ret = HB_EXIT_OK;

	if (r < 0) {
		error_msg("cannot connect to '%s' (%s): %s", s->t->name, s->t->url,
			  c.err.len ? c.err.buf : strerror(-r));
		ssh_close(&c);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (follow) {
		/* the target's runner's own words (its progress, what is wrong) as they come */
		r = ssh_exec_lines(&c, cmd, STDERR_FILENO, start_line, s);
	} else {
		r = ssh_exec(&c, cmd, NULL, &out, &err);
		if (err.len)
			fputs(err.buf, stderr);
		if (r == 0)
			start_line(out.len ? out.buf : "", s);
	}
	ssh_close(&c);
	if (r == REMOTE_NO_HARNESS) {
		error_msg("'%s' has no pushed harness in '%s' (no push.txt): 'hitchbench push %s' first", s->t->name,
			  s->t->prefix ? s->t->prefix : "~/hitchbench", s->t->name);
		ret = HB_EXIT_FAILURE;
	} else if (!s->id && !s->bad) {
		if (r < 0)
			error_msg("cannot start the batch on '%s': %s", s->t->name, strerror(-r));
		else
			error_msg("the target's runner said no 'batch ID expected_s N dir PATH' line");
		ret = r == HB_EXIT_USAGE ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	} else if (s->bad) {
		ret = HB_EXIT_FAILURE;
	}
out:
	free(cmd);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* One look: one connection; the batch's state in *b (copied out of the
 * listing); when it has ended it is pulled over the same connection.
 * 0 looked (*pulled_ret set when it ended), -1 no look possible. */
static int look(struct context *ctx, const struct ssh_target *t, const char *dir, const struct run_args *a,
		struct remote_list *l, int *pulled_ret)
{
	const char *dirs[] = { dir };
	struct strbuf err = STRBUF_INIT;
	struct ssh_conn c;
	int r = ssh_open(&c, t);

	if (r < 0) {
		warn_msg("cannot connect to '%s' to look at the batch: %s", t->name,
			 c.err.len ? c.err.buf : strerror(-r));
		ssh_close(&c);
		strbuf_release(&err);
		return -1;
	}
	remote_list_release(l);
	r = remote_list(&c, dirs, 1, l, &err);
	if (r != 0 || l->n != 1) {
		warn_msg("cannot read the batch's state on '%s': %s", t->name,
			 r < 0 ? strerror(-r) : err.len ? err.buf : "not there");
		r = -1;
	} else if (l->v[0].state == REMOTE_ENDED) {
		struct pull_opts o = { 0 };

		remote_record_look(ctx->results_dir, t->name, &l->v[0]);
		if (a->no_pull) {
			printf("batch %s on %s ended %s (%zu of %zu run(s) done): 'hitchbench pull %s %s' gets it\n",
			       l->v[0].id, t->name, l->v[0].status, l->v[0].done, l->v[0].planned, t->name,
			       l->v[0].id);
			*pulled_ret = HB_EXIT_OK;
		} else {
			*pulled_ret = pull_ended(&c, ctx, l, &o);
		}
		if (*pulled_ret == HB_EXIT_OK && strcmp(l->v[0].status, "complete") != 0 &&
		    strcmp(l->v[0].status, "stopped") != 0)
			*pulled_ret = HB_EXIT_FAILURE;
	} else {
		remote_record_look(ctx->results_dir, t->name, &l->v[0]);
	}
	ssh_close(&c);
	strbuf_release(&err);
	return r == 0 ? 0 : -1;
}

/* Sleeps until the wall-clock second when, on the monotonic clock (a
 * step of the wall clock does not move it). 1 when interrupted. */
static int sleep_to(time_t when)
{
	time_t now = time(NULL);

	if (when <= now)
		return stopped ? 1 : 0;
	return sleep_until(mono_ns() + (uint64_t)(when - now) * 1000000000ull, &stopped) == 1 || stopped;
}

/* The batch pulled once it has ended: at once when the connection that
 * started it said so, else looked at when it is expected to have ended,
 * and again later until it has. */
static int wait_and_pull(struct context *ctx, const struct ssh_target *t, const struct run_args *a,
			 const struct started *s)
{
	const char *id = s->id, *dir = s->dir;
	time_t started = s->when, next = s->ended ? time(NULL) : started + (time_t)(s->expected + 0.5);
	double expected = s->expected;
	double backoff = FIRST_BACKOFF_S;
	struct remote_list l;
	int ret = HB_EXIT_FAILURE;

	remote_list_init(&l);
	for (;;) {
		char iso[32];
		int pulled = -1;

		utc_iso8601(next, iso, sizeof(iso));
		if (next > time(NULL))
			fprintf(stderr, "hitchbench: batch %s on '%s': looking at %s (in %lld s), not before: no "
				"connection while it runs (Ctrl-C leaves it running there)\n", id, t->name, iso,
				(long long)(next - time(NULL)));
		if (sleep_to(next)) {
			say_later(t, id);
			ret = HB_EXIT_INTERRUPTED;
			break;
		}
		if (look(ctx, t, dir, a, &l, &pulled) == 0) {
			const struct remote_batch *b = &l.v[0];
			double per_run, left;

			if (b->state == REMOTE_ENDED) {
				ret = pulled;
				break;
			}
			if (b->state == REMOTE_ABANDONED) {
				error_msg("batch %s on '%s' has not ended and its runner is gone (%zu of %zu run(s) "
					  "done): 'hitchbench run --target %s --resume %s' finishes it", id, t->name,
					  b->done, b->planned, t->name, id);
				break;
			}
			/* what is left at the rate planned, or at the rate seen when slower */
			per_run = b->planned ? expected / (double)b->planned : 0;
			if (b->done && (double)(time(NULL) - started) / (double)b->done > per_run)
				per_run = (double)(time(NULL) - started) / (double)b->done;
			left = (double)(b->planned - b->done) * per_run;
			fprintf(stderr, "hitchbench: batch %s on '%s' has not ended: %zu of %zu run(s) done\n", id,
				t->name, b->done, b->planned);
			next = time(NULL) + (time_t)(left > backoff ? left : backoff);
		} else {
			next = time(NULL) + (time_t)backoff;
		}
		if (stopped) {
			say_later(t, id);
			ret = HB_EXIT_INTERRUPTED;
			break;
		}
		backoff = backoff * 2 > MAX_BACKOFF_S ? MAX_BACKOFF_S : backoff * 2;
	}
	remote_list_release(&l);
	return ret;
}

int remote_run(int argc, char **argv, struct context *ctx, const struct run_args *a)
{
	struct target_list targets;
	const struct ssh_target *t;
	struct strbuf err = STRBUF_INIT;
	struct argv_list args;
	struct sigaction sa;
	struct started s = { 0 };
	int ret;

	target_list_init(&targets);
	argv_init(&args);
	if (remote_target_find(a->target, &targets, &t, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	target_args(argc, argv, &args);
	if (!a->no_wait)
		argv_push(&args, "--follow");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	s = (struct started){ .t = t, .results_dir = ctx->results_dir, .when = time(NULL) };
	ret = start(&s, args.v, !a->no_wait);
	if (ret != HB_EXIT_OK)
		goto out;
	if (a->no_wait || stopped) {
		say_later(t, s.id);
		ret = a->no_wait ? HB_EXIT_OK : HB_EXIT_INTERRUPTED;
		goto out;
	}
	if (s.ended)
		info_msg("batch %s on '%s' ended (%s), as the connection that started it says", s.id, t->name, s.ended);
	else
		warn_msg("the connection following batch %s on '%s' ended before the batch did: it is looked "
			 "at when it is expected to have ended", s.id, t->name);
	ret = wait_and_pull(ctx, t, a, &s);
out:
	free(s.id);
	free(s.dir);
	free(s.ended);
	argv_release(&args);
	target_list_release(&targets);
	strbuf_release(&err);
	return ret;
}
