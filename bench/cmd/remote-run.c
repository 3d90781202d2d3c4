/*
 * hitchbench run --target NAME: the batch started detached on the target
 * over one connection, which is closed at once; then the target is left
 * alone (a login during a measured window is interference there) until the
 * batch is expected to have ended, when one connection looks, and pulls
 * the batch if it has ended; a batch not ended yet is looked at again
 * later, each look one connection, further apart each time.
 */
#include "cmd/remote-run.h"
#include "base/exitcodes.h"
#include "base/timeutil.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The start: one connection, the batch line read, closed. */
static int start(const struct ssh_target *t, char *const *args, char **id, double *expected, char **dir)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *cmd = remote_start_command(t, (const char *const *)args);
	struct ssh_conn c;
	int r = ssh_open(&c, t), ret = HB_EXIT_OK;

	if (r < 0) {
		error_msg("cannot connect to '%s' (%s): %s", t->name, t->url, c.err.len ? c.err.buf : strerror(-r));
		ssh_close(&c);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	r = ssh_exec(&c, cmd, NULL, &out, &err);
	ssh_close(&c);
	if (err.len)   /* the target's runner: its progress line, or what is wrong */
		fputs(err.buf, stderr);
	if (r == REMOTE_NO_HARNESS) {
		error_msg("'%s' has no pushed harness in '%s' (no push.txt): 'hitchbench push %s' first", t->name,
			  t->prefix ? t->prefix : "~/hitchbench", t->name);
		ret = HB_EXIT_FAILURE;
	} else if (r != 0) {
		if (r < 0)
			error_msg("cannot start the batch on '%s': %s", t->name, strerror(-r));
		ret = r == HB_EXIT_USAGE ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
	} else if (remote_start_parse(out.len ? out.buf : "", id, expected, dir) < 0) {
		error_msg("the target's runner said no 'batch ID expected_s N dir PATH' line: '%s'",
			  out.len ? out.buf : "");
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

static int wait_and_pull(struct context *ctx, const struct ssh_target *t, const struct run_args *a,
			 const char *id, const char *dir, time_t started, double expected)
{
	time_t next = started + (time_t)(expected + 0.5);
	double backoff = FIRST_BACKOFF_S;
	struct remote_list l;
	int ret = HB_EXIT_FAILURE;

	remote_list_init(&l);
	for (;;) {
		char iso[32];
		int pulled = -1;

		utc_iso8601(next, iso, sizeof(iso));
		fprintf(stderr, "hitchbench: batch %s on '%s': looking at %s (in %lld s), not before: no connection "
			"while it runs (Ctrl-C leaves it running there)\n", id, t->name, iso,
			(long long)(next - time(NULL) > 0 ? next - time(NULL) : 0));
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
	char *id = NULL, *dir = NULL;
	double expected = 0;
	time_t started;
	int ret;

	target_list_init(&targets);
	argv_init(&args);
	if (remote_target_find(a->target, &targets, &t, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	target_args(argc, argv, &args);
	started = time(NULL);
	ret = start(t, args.v, &id, &expected, &dir);
	if (ret != HB_EXIT_OK)
		goto out;
	if (remote_record_write(ctx->results_dir, t->name, id, dir, started, expected) < 0)
		warn_msg("cannot write the record of batch %s under '%s/targets/%s'", id, ctx->results_dir, t->name);
	printf("batch %s started on %s, expected to take %.0f s (%s)\n", id, t->name, expected, dir);
	fflush(stdout);
	if (a->no_wait) {
		say_later(t, id);
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = wait_and_pull(ctx, t, a, id, dir, started, expected);
out:
	free(id);
	free(dir);
	argv_release(&args);
	target_list_release(&targets);
	strbuf_release(&err);
	return ret;
}
