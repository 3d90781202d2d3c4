/*
 * hitchbench pull TARGET [BATCH...]: the target's finished batches copied
 * back over one connection into results/targets/NAME/BATCH/, each checked
 * against its SHA256SUMS before it is put in place and imported into the
 * host's database, and removed on the target only when asked (--delete)
 * after that check passed. A batch still running is left alone.
 */
#include "cmd/cmd.h"
#include "cmd/cmd-db.h"
#include "base/exitcodes.h"
#include "metrics/metrics.h"
#include "cmd/remote-run.h"
#include "base/timeutil.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char pull_usage[] =
	"usage: hitchbench pull TARGET [BATCH...] [--delete] [--no-import] [--now] [--db PATH]\n"
	"\n"
	"Copies the target's finished batches (all of them, or those named) into\n"
	"results/targets/TARGET/BATCH/, checks each against its SHA256SUMS and imports\n"
	"its runs into the database (again: updated in place). A batch still running is\n"
	"skipped. Nothing on the target is removed unless --delete, and then only a\n"
	"batch whose copy passed the check. While a batch started from here is expected\n"
	"to be measuring there, it is refused (a login then marks that run interfered).\n"
	"\n"
	"  --delete      remove each batch on the target once its copy is verified\n"
	"  --no-import   copy and verify only\n"
	"  --now         connect even while a batch is expected to be measuring\n"
	"  --db PATH     the database (default results/hitchbench.db)\n";

/* Imports the pulled batch: HB_EXIT_OK with the runs indexed in *n. */
static int import_batch(struct context *ctx, const char *local, size_t *n)
{
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	struct resultsdb *db;
	char *dirs[] = { (char *)local, NULL };
	int ret;

	mo.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	ctx->db_mode = RESULTSDB_WRITE;
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	return db_import_dirs(db, dirs, 1, &mo, false, n);
}

static void skip_note(const struct ssh_target *t, const struct remote_batch *b)
{
	if (b->state == REMOTE_RUNNING)
		note_msg("batch %s is still running on '%s' (%zu of %zu run(s) done): skipped", b->id, t->name,
			 b->done, b->planned);
	else
		note_msg("batch %s on '%s' has not ended and no runner of it is alive (%zu of %zu run(s) "
			 "done): 'hitchbench run --target %s --resume %s' finishes it", b->id, t->name, b->done,
			 b->planned, t->name, b->id);
}

static int pull_one(struct ssh_conn *c, struct context *ctx, const struct remote_batch *b,
		    const struct pull_opts *o)
{
	const struct ssh_target *t = c->target;
	struct remote_pull p;
	struct strbuf err = STRBUF_INIT;
	size_t imported = 0;
	double import_s = 0;
	int r, ret = HB_EXIT_OK;

	remote_pull_init(&p);
	r = remote_pull_batch(c, ctx->results_dir, b, &p);
	if (r > 0) {
		error_msg("batch %s from '%s' fails its check: %s (the copy so far is kept for the next pull; "
			  "nothing of it imported)", b->id, t->name, p.why.buf);
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (r < 0) {
		error_msg("cannot pull batch %s from '%s': %s", b->id, t->name, p.why.len ? p.why.buf : strerror(-r));
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (!o->no_import) {
		uint64_t t0 = mono_ns();

		ret = import_batch(ctx, p.local, &imported);
		import_s = (double)(mono_ns() - t0) / 1e9;
	}
	printf("pulled %s: %zu run(s), %llu bytes (%llu received), copy %.3f s, verify %.3f s, ", b->id, p.runs,
	       (unsigned long long)p.bytes, (unsigned long long)p.copied, p.copy_s, p.verify_s);
	if (o->no_import)
		printf("not imported\n");
	else
		printf("import %.3f s (%zu run(s) in %s)\n", import_s, imported, ctx->db_path);
	printf("  into %s\n", p.local);
	if (strcmp(b->status, "complete") != 0 && strcmp(b->status, "stopped") != 0)
		note_msg("batch %s ended %s with %zu of %zu run(s) done: 'hitchbench run --target %s --resume %s' "
			 "finishes it on the target", b->id, b->status, b->done, b->planned, t->name, b->id);
	if (ret == HB_EXIT_OK && o->delete_after) {
		r = remote_delete_batch(c, b, &err);
		if (r != 0) {
			error_msg("cannot remove batch %s on '%s': %s", b->id, t->name,
				  r < 0 ? strerror(-r) : err.len ? err.buf : "the remote rm failed");
			ret = HB_EXIT_FAILURE;
		} else {
			printf("  removed on %s\n", t->name);
		}
	}
out:
	strbuf_release(&err);
	remote_pull_release(&p);
	return ret;
}

/* 1, after saying so, when a record of the host's says a batch on target
 * name is expected to be measuring now (a login then marks the run being
 * measured interfered); else 0. */
static int measuring_refuse(const struct context *ctx, const char *name)
{
	struct argv_list busy;
	int ret = 0;

	argv_init(&busy);
	remote_records_measuring(ctx->results_dir, name, time(NULL), &busy);
	for (size_t i = 0; i < busy.n; i++) {
		char *sp = strchr(busy.v[i], ' ');

		if (sp)
			*sp = '\0';
		error_msg("batch %s on '%s' is expected to be measuring until %s: a connection now is a login on "
			  "the target, which marks the run being measured interfered ('--now' connects anyway)",
			  busy.v[i], name, sp ? sp + 1 : "?");
		ret = 1;
	}
	argv_release(&busy);
	return ret;
}

int remote_open_list(const struct context *ctx, const struct ssh_target *t, bool now, struct ssh_conn *conn,
		     const struct argv_list *dirs, struct remote_list *list)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!now && measuring_refuse(ctx, t->name))
		return HB_EXIT_FAILURE;
	r = ssh_open(conn, t);
	if (r < 0) {
		error_msg("cannot connect to '%s' (%s): %s", t->name, t->url, conn->err.len ? conn->err.buf : strerror(-r));
		ssh_close(conn);
		return HB_EXIT_FAILURE;
	}
	r = remote_list(conn, (const char *const *)dirs->v, dirs->n, list, &err);
	if (r == REMOTE_NO_HARNESS)
		error_msg("'%s' has no hitchbench prefix '%s'", t->name, t->prefix ? t->prefix : "~/hitchbench");
	else if (r != 0)
		error_msg("cannot list the batches of '%s': %s", t->name, r < 0 && !err.len ? strerror(-r) : err.buf);
	strbuf_release(&err);
	if (r != 0) {
		ssh_close(conn);
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

int pull_ended(struct ssh_conn *c, struct context *ctx, const struct remote_list *l, const struct pull_opts *o)
{
	int ret = HB_EXIT_OK;

	for (size_t i = 0; i < l->n; i++) {
		const struct remote_batch *b = &l->v[i];

		remote_record_look(ctx->results_dir, c->target->name, b);
		if (b->state != REMOTE_ENDED) {
			skip_note(c->target, b);
			continue;
		}
		if (pull_one(c, ctx, b, o) != HB_EXIT_OK)
			ret = HB_EXIT_FAILURE;
	}
	return ret;
}

/* The target's directories of the batches named: as the host's record of
 * each says (a batch started with --out elsewhere), else results/runs/ID. */
static int remote_batch_dirs(const struct context *ctx, const char *target, char **ids, int n,
			     struct argv_list *dirs, const char *usage)
{
	for (int i = 0; i < n; i++) {
		struct kvfile kf;
		const char *dir;

		if (!remote_batch_id_valid(ids[i]))
			return usage_error(usage, "'%s' is not a batch id (a directory name of results/runs)", ids[i]);
		kvfile_init(&kf);
		if (remote_record_read(ctx->results_dir, target, ids[i], &kf) == 0 && (dir = kvfile_get(&kf, "dir")))
			argv_push(dirs, dir);
		else
			argv_pushf(dirs, "results/runs/%s", ids[i]);
		kvfile_release(&kf);
	}
	return HB_EXIT_OK;
}

int remote_args(const struct context *ctx, int argc, char **argv, const char *usage, struct target_list *targets,
		const struct ssh_target **t, struct argv_list *dirs)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (optind >= argc)
		return usage_error(usage, "%s wants a target", argv[0]);
	ret = remote_batch_dirs(ctx, argv[optind], argv + optind + 1, argc - optind - 1, dirs, usage);
	if (ret == HB_EXIT_OK && remote_target_find(argv[optind], targets, t, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_USAGE;
	}
	strbuf_release(&err);
	return ret;
}

int cmd_pull(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "delete", no_argument, NULL, 'd' },
		{ "no-import", no_argument, NULL, 'n' },
		{ "now", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pull_opts o = { 0 };
	struct target_list targets;
	const struct ssh_target *t = NULL;
	struct remote_list list;
	struct argv_list dirs;
	struct ssh_conn conn;
	bool now = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o.delete_after = true; break;
		case 'n': o.no_import = true; break;
		case 'N': now = true; break;
		case 'h':
			fputs(pull_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(pull_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	target_list_init(&targets);
	remote_list_init(&list);
	argv_init(&dirs);
	ret = remote_args(ctx, argc, argv, pull_usage, &targets, &t, &dirs);
	if (ret != HB_EXIT_OK)
		goto out;
	ret = remote_open_list(ctx, t, now, &conn, &dirs, &list);
	if (ret != HB_EXIT_OK)
		goto out;
	if ((size_t)(argc - optind - 1) > list.n)
		error_msg("'%s' has %zu of the %d batch(es) named", t->name, list.n, argc - optind - 1);
	if (list.n == 0 && argc - optind == 1)
		note_msg("'%s' has no batches", t->name);
	ret = pull_ended(&conn, ctx, &list, &o);
	if ((size_t)(argc - optind - 1) > list.n)
		ret = HB_EXIT_FAILURE;
	ssh_close(&conn);
out:
	argv_release(&dirs);
	remote_list_release(&list);
	target_list_release(&targets);
	return ret;
}
