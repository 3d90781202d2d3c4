/*
 * hitchbench db: the results database is an index of run directories.
 * "import" (re)indexes them, idempotently, making the database if need be;
 * "info" says what it holds, read-only; "upgrade" migrates an existing one
 * to this hitchbench's schema (which no reader does).
 */
#include "cmd/cmd.h"
#include "cmd/cmd-db.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "text/jsonout.h"
#include "db/resultsdb.h"
#include "run/run.h"
#include "cmd/reportrows.h"
#include "cmd/rundirs.h"
#include "db/sqldb.h"
#include "text/suggest.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char db_usage[] =
	"usage: hitchbench db import [--db PATH|URL] [--stall-ms MS] [--percentile D]\n"
	"                            [--min-frames N] RUNDIR...\n"
	"   or: hitchbench db info [--db PATH|URL] [--machine M] [--format table|json]\n"
	"   or: hitchbench db upgrade [--db PATH|URL]\n"
	"   or: hitchbench db push [--db PATH] --to URL\n"
	"\n"
	"  import   index run directories (or directories of them); importing a run\n"
	"           again updates it in place, so the database can always be rebuilt;\n"
	"           a missing database is made\n"
	"           a run whose data fails a check is stored with status invalid and\n"
	"           why (--min-frames N: fewer frames in its window, default 50)\n"
	"  info     the schema version and how many runs and metric values it holds\n"
	"           (read-only: a missing database is an error, none is made)\n"
	"  upgrade  migrate an existing database to this hitchbench's schema\n"
	"  push     send the runs this machine's database has not sent to the lab's\n"
	"           (--to postgresql://...: each run one transaction there, keyed by\n"
	"           its run id; what was sent is recorded here, so a push cut short\n"
	"           loses nothing and the next one sends the rest)\n"
	"  --db     the database (default results/hitchbench.db), an SQLite file or a\n"
	"           lab's PostgreSQL database (postgresql://user@host/db)\n"
	"  --machine  info counts only the runs of this host name or machine id\n"
	"  --format json  info as a JSON document (format 1), the same keys as the table's\n";

/* The version of db info's JSON document (docs/formats.md). */
#define HB_DB_INFO_JSON_FORMAT 1

/* The batches the runs belong to (their parent directories with a
 * batch.txt), each imported once. */
static int import_batches(struct resultsdb *db, const struct argv_list *runs, bool verbose)
{
	struct argv_list seen;
	int ret = 0;

	argv_init(&seen);
	for (size_t i = 0; i < runs->n; i++) {
		char *dir = xstrdup(runs->v[i]), *slash = strrchr(dir, '/'), *info;
		struct kvfile kf;
		struct strbuf err = STRBUF_INIT;
		bool dup = false;
		int line = 0;

		if (!slash) {
			free(dir);
			continue;
		}
		*slash = '\0';
		for (size_t k = 0; k < seen.n && !dup; k++)
			dup = strcmp(seen.v[k], dir) == 0;
		info = xasprintf("%s/batch.txt", dir);
		kvfile_init(&kf);
		if (!dup && access(info, F_OK) == 0) {
			argv_push(&seen, dir);
			if (kvfile_read(&kf, info, &line) < 0) {
				error_msg("cannot read '%s' (line %d)", info, line);
				ret = -EINVAL;
			} else if (resultsdb_import_batch(db, &kf, dir, &err) < 0) {
				error_msg("%s", err.buf);
				strbuf_release(&err);
				ret = -EIO;
			} else if (verbose) {
				printf("imported batch %s\n", kvfile_get(&kf, "batch_id"));
			}
		}
		kvfile_release(&kf);
		free(info);
		free(dir);
	}
	argv_release(&seen);
	return ret;
}

int db_import_dirs(struct resultsdb *db, char **args, int n, const struct metric_opts *mo, bool verbose,
		   size_t *imported)
{
	struct argv_list list;
	struct strbuf err = STRBUF_INIT;
	int ret = HB_EXIT_OK;
	size_t done = 0;

	argv_init(&list);
	ret = rundir_args_expand(args, n, &list);
	if (ret != HB_EXIT_OK)
		goto out;
	for (size_t i = 0; i < list.n; i++) {
		struct run run;
		struct metrics m;
		bool have;

		strbuf_reset(&err);
		if (run_load(list.v[i], &run, &err) < 0) {
			error_msg("%s", err.buf);
			ret = HB_EXIT_FAILURE;
			continue;
		}
		/* checked as report checks it: an invalid run is kept, and why */
		run_validate(&run, mo);
		have = run_metrics(&run, mo, &m) == 0;
		if (resultsdb_import(db, &run, have ? &m : NULL, mo, &err) < 0) {
			error_msg("cannot import '%s': %s", run.dir, err.buf);
			ret = HB_EXIT_FAILURE;
		} else {
			if (verbose && run.invalid)
				printf("imported %s (invalid: %s)\n", run.name, run.invalid);
			else if (verbose)
				printf("imported %s\n", run.name);
			done++;
		}
		run_release(&run);
	}
	if (verbose)
		printf("# %zu run(s) indexed\n", done);
	if (imported)
		*imported = done;
	if (import_batches(db, &list, verbose) < 0)
		ret = HB_EXIT_FAILURE;
out:
	argv_release(&list);
	strbuf_release(&err);
	return ret;
}

static int db_info(struct resultsdb *db, const char *machine, bool json)
{
	const char *path = resultsdb_name(db);
	struct resultsdb_run *runs = NULL;
	size_t n = 0, values = 0;
	struct strbuf err = STRBUF_INIT;

	if (resultsdb_list(db, NULL, NULL, machine, &runs, &n, &err) < 0) {
		error_msg("cannot read '%s': %s", path, err.buf);
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < M_COUNT; k++)
			values += runs[i].m.have[k];
	if (json) {
		struct json_out j;

		json_out_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_int(&j, "format", HB_DB_INFO_JSON_FORMAT);
		json_string(&j, "database", path);
		json_string(&j, "engine", resultsdb_is_lab(db) ? "postgresql" : "sqlite");
		json_int(&j, "schema_version", resultsdb_schema_version(db));
		json_string(&j, "machine", machine);
		json_uint(&j, "runs", n);
		json_uint(&j, "metric_values", values);
		json_object_end(&j);
	} else {
		printf("database=%s\nengine=%s\nschema_version=%d\n", path,
		       resultsdb_is_lab(db) ? "postgresql" : "sqlite", resultsdb_schema_version(db));
		if (machine)
			printf("machine=%s\n", machine);
		printf("runs=%zu\nmetric_values=%zu\n", n, values);
	}
	resultsdb_runs_free(runs, n);
	return HB_EXIT_OK;
}

/* db push: the local database (which must exist) to the lab's at url
 * (made and migrated when new). */
static int db_push(struct resultsdb *local, const char *url)
{
	struct resultsdb_push_stats stats;
	struct resultsdb *lab = NULL;
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (resultsdb_open(url, &lab, &err) < 0) {
		error_msg("%s", err.buf);
		error_msg("nothing sent: the runs stay in '%s' and the next push sends them",
			  resultsdb_name(local));
		strbuf_release(&err);
		return HB_EXIT_FAILURE;
	}
	ret = resultsdb_push(local, lab, &stats, &err);
	printf("pushed %zu of %zu run(s) not sent before, and %zu batch(es), from %s to %s\n", stats.sent,
	       stats.pending, stats.batches, resultsdb_name(local), resultsdb_name(lab));
	if (ret < 0) {
		error_msg("%s", err.buf);
		error_msg("%zu run(s) not sent: the next push sends them", stats.pending - stats.sent);
	}
	strbuf_release(&err);
	resultsdb_close(lab);
	return ret < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

/* The subcommands and the database mode each opens it in. */
static const struct {
	const char *name;
	enum resultsdb_mode mode;
} subs[] = {
	{ "import", RESULTSDB_WRITE }, { "info", RESULTSDB_READ }, { "upgrade", RESULTSDB_UPGRADE },
	{ "push", RESULTSDB_UPGRADE },
};

/* The subcommand's index in *k, or a usage error (with a guess). */
static int db_sub_find(const char *sub, size_t *k)
{
	char *hint;
	int r;

	for (*k = 0; *k < ARRAY_SIZE(subs); (*k)++)
		if (strcmp(sub, subs[*k].name) == 0)
			return HB_EXIT_OK;
	hint = suggest_or(sub, &subs[0].name, ARRAY_SIZE(subs), sizeof(subs[0]), "");
	r = usage_error(db_usage, "unknown db subcommand '%s'%s%s", sub, *hint ? ";" : "", hint);
	free(hint);
	return r;
}

int cmd_db(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "stall-ms", required_argument, NULL, 's' },
		{ "percentile", required_argument, NULL, 'p' },
		{ "min-frames", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *to = NULL;
	enum report_format format = REPORT_TABLE;
	struct metric_opts mo = METRIC_OPTS_DEFAULT;
	const char *sub;
	struct resultsdb *db;
	struct argv_list dirs;
	size_t k;
	int c, ret;

	mo.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (safe_atod(optarg, &mo.stall_ms) < 0 || mo.stall_ms <= 0)
				return usage_error(db_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'p':
			if (percentile_def_parse(optarg, &mo.pct) < 0)
				return usage_error(db_usage, "unknown percentile definition '%s'", optarg);
			break;
		case 'F':
			if (min_frames_parse(optarg, &mo.min_frames) < 0)
				return usage_error(db_usage, "--min-frames wants a whole number, not '%s'", optarg);
			break;
		case 't':
			to = optarg;
			break;
		case 'f':
			if (format_arg(db_usage, optarg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON),
				       &format) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			break;
		case 'h':
			fputs(db_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(db_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(db_usage, "db wants a subcommand: import, info, upgrade or push");
	sub = argv[optind++];
	if (db_sub_find(sub, &k) != HB_EXIT_OK)
		return HB_EXIT_USAGE;
	if (subs[k].mode == RESULTSDB_WRITE && optind >= argc)
		return usage_error(db_usage, "db import wants run directories");
	if (subs[k].mode != RESULTSDB_WRITE && optind < argc)
		return usage_error(db_usage, "db %s takes no arguments", sub);
	if (format != REPORT_TABLE && strcmp(sub, "info") != 0)
		return usage_error(db_usage, "--format goes with db info");
	if ((strcmp(sub, "push") == 0) != (to != NULL))
		return usage_error(db_usage, to ? "--to goes with db push" : "db push wants --to URL");
	if (to && !sqldb_is_url(to))
		return usage_error(db_usage, "--to wants a lab database's URL (postgresql://...), not '%s'", to);
	if (to && sqldb_is_url(ctx->db_path))
		return usage_error(db_usage, "db push sends this machine's database (--db PATH), not a lab's");
	/* the run directories are checked first: a typo makes no database */
	argv_init(&dirs);
	ret = subs[k].mode == RESULTSDB_WRITE ? rundir_args_expand(argv + optind, argc - optind, &dirs)
					      : HB_EXIT_OK;
	argv_release(&dirs);
	if (ret != HB_EXIT_OK)
		return ret;
	ctx->db_mode = subs[k].mode;
	ret = cmd_db_open(ctx, &db);
	if (ret != HB_EXIT_OK)
		return ret;
	if (subs[k].mode == RESULTSDB_WRITE)
		ret = db_import_dirs(db, argv + optind, argc - optind, &mo, true, NULL);
	else if (subs[k].mode == RESULTSDB_READ)
		ret = db_info(db, ctx->machine, format == REPORT_JSON);
	else if (to)
		ret = db_push(db, to);
	else
		printf("database=%s\nschema_version=%d\n", resultsdb_name(db), resultsdb_schema_version(db));
	return ret;
}
