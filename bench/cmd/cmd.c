/*
 * What every command's code shares with the dispatcher (cmd.h): the
 * database the command table opened for it, and a command made of
 * subcommands. Messages are common/base/message.h's. Here and not in main.c, so that the
 * runner's archive holds every function its units call.
 */
#include "cmd/cmd.h"
#include "base/message.h"
#include "base/exitcodes.h"
#include "db/resultsdb.h"
#include "text/suggest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int run_subcommand(const char *command, const char *usage, const struct subcommand *table, size_t n,
		   int argc, char **argv, struct context *ctx)
{
	char *hint;
	int r;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? HB_EXIT_USAGE : HB_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], table[i].name))
			return table[i].fn(argc - 1, argv + 1, ctx);
	hint = suggest_or(argv[1], &table[0].name, n, sizeof(table[0]), "");
	r = usage_error(usage, "'%s' is not a %s subcommand%s%s", argv[1], command, *hint ? ";" : "", hint);
	free(hint);
	return r;
}

int cmd_db_open(struct context *ctx, struct resultsdb **db)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!ctx->db) {
		r = resultsdb_open_mode(ctx->db_path, ctx->db_mode, &ctx->db, &err);
		if (r < 0) {
			/* the library's message names the path and what is wrong:
			 * "no such database: PATH", or how to upgrade an older one */
			error_msg("%s", err.len ? err.buf : strerror(-r));
			strbuf_release(&err);
			ctx->db = NULL;
			return r == -ENOENT ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
		}
	}
	*db = ctx->db;
	return HB_EXIT_OK;
}
