/*
 * The arguments several commands share (see cmdargs.h).
 */
#include "cmd/cmdargs.h"
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "metrics/metrics.h"
#include "cmd/rundirs.h"
#include "batch/abtest.h"
#include "text/suggest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int input_arg_check(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return HB_EXIT_OK;
	error_msg("cannot open '%s': %s", path, strerror(errno));
	return HB_EXIT_USAGE;
}

int rundir_args_expand(char **args, int n, struct argv_list *out)
{
	for (int i = 0; i < n; i++) {
		int r = input_arg_check(args[i]);

		if (r != HB_EXIT_OK)
			return r;
		if (rundirs_expand(args[i], out) < 0) {
			error_msg("'%s' is not a run directory nor a directory of them", args[i]);
			return HB_EXIT_USAGE;
		}
	}
	return HB_EXIT_OK;
}

int rundir_arg_load(const char *dir, struct run *run)
{
	struct strbuf err = STRBUF_INIT;
	char *bench = xasprintf("%s/bench.txt", dir);
	struct stat st;
	int r = input_arg_check(dir);

	if (r == HB_EXIT_OK && stat(bench, &st) < 0) {
		error_msg("'%s' is not a run directory (no bench.txt)", dir);
		r = HB_EXIT_USAGE;
	}
	if (r == HB_EXIT_OK) {
		int lr = run_load(dir, run, &err);

		/* a file that is not what it should be is bad input (exit 2);
		 * one that cannot be read is a failure */
		if (lr < 0) {
			error_msg("%s", err.buf);
			r = lr == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE;
		}
	}
	free(bench);
	strbuf_release(&err);
	return r;
}

int metric_arg(const char *usage, const char *name, int *id)
{
	struct strbuf list = STRBUF_INIT, hint = STRBUF_INIT;
	const char *names[M_COUNT];
	size_t line = 0;
	int ret;

	*id = metric_lookup(name);
	if (*id >= 0)
		return HB_EXIT_OK;
	for (int i = 0; i < M_COUNT; i++)
		names[i] = metric_defs[i].name;
	suggest_append(&hint, name, names, M_COUNT);
	/* the names, wrapped as the usage text is */
	for (int i = 0; i < M_COUNT; i++) {
		size_t len = strlen(metric_defs[i].name);

		if (line && line + len + 1 > 78) {
			strbuf_addch(&list, '\n');
			line = 0;
		}
		strbuf_addf(&list, "%s%s", line ? " " : "  ", metric_defs[i].name);
		line += len + (line ? 1 : 2);
	}
	ret = usage_error(usage, "unknown metric '%s';%s the metrics are:\n%s", name,
			  hint.len ? hint.buf : "", list.buf);
	strbuf_release(&list);
	strbuf_release(&hint);
	return ret;
}

int format_arg(const char *usage, const char *name, unsigned allowed, enum report_format *out)
{
	struct strbuf list = STRBUF_INIT;
	enum report_format f;
	int ret;

	if (report_format_parse(name, &f) == 0 && (allowed & FORMAT_BIT(f))) {
		*out = f;
		return HB_EXIT_OK;
	}
	for (unsigned i = 0; i < 8 * sizeof(allowed); i++)
		if ((allowed & (1u << i)) && report_format_name((enum report_format)i))
			strbuf_addf(&list, "%s%s", list.len ? ", " : "",
				    report_format_name((enum report_format)i));
	ret = usage_error(usage, "unknown format '%s' (this command prints %s)", name, list.buf);
	strbuf_release(&list);
	return ret;
}

int ab_test_option(struct ab_test *t, const char *usage, const char *name, const char *arg)
{
	struct seq_opts *o = &t->opts;
	double v;
	int n;

	if (strcmp(name, "metric") == 0)
		return metric_arg(usage, arg, &t->metric);
	if (strcmp(name, "effect") == 0) {
		if (safe_atod(arg, &v) < 0 || !(v > 0 && v < 100))
			return usage_error(usage, "--effect wants a percentage over 0, under 100, not '%s'", arg);
		o->effect = v / 100;
	} else if (strcmp(name, "alpha") == 0 || strcmp(name, "beta") == 0) {
		if (safe_atod(arg, &v) < 0 || !(v > 0 && v < 0.5))
			return usage_error(usage, "--%s wants a probability over 0, under 0.5, not '%s'", name, arg);
		*(name[0] == 'a' ? &o->alpha : &o->beta) = v;
	} else if (strcmp(name, "max-rounds") == 0) {
		if (safe_atoi(arg, &n) < 0 || n < (int)o->min_pairs || n > 10000)
			return usage_error(usage, "--max-rounds wants a count from %zu to 10000, not '%s'",
					   o->min_pairs, arg);
		o->max_pairs = (size_t)n;
	} else {
		return usage_error(usage, "unknown option '--%s'", name);
	}
	return HB_EXIT_OK;
}
