/*
 * hitchbench target: the machines hitchbench pushes to and runs on.
 * add, list and remove edit the targets config (bench/target/targets.h); check
 * logs in once and asks the target what it has (bench/target/targets-check.h),
 * keeping the architecture it saw for push. A subcommand is a line of the
 * table below.
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "cmd/cmdtarget.h"
#include "target/targets-check.h"
#include "target/targets.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char target_usage[] =
	"usage: hitchbench target add NAME ssh://[user@]host[:port] [--prefix DIR] [--ssh-config FILE]\n"
	"   or: hitchbench target list\n"
	"   or: hitchbench target remove NAME\n"
	"   or: hitchbench target check [-v] NAME\n"
	"   or: hitchbench target status NAME [BATCH...] [--now]\n"
	"\n"
	"The targets are kept in $HITCHBENCH_TARGETS, else\n"
	"$XDG_CONFIG_HOME/hitchbench/targets.ini, else ~/.config/hitchbench/targets.ini\n"
	"(docs/targets.md). --prefix is where the harness goes on the target\n"
	"(default ~/hitchbench there); --ssh-config is given to ssh as -F.\n"
	"check logs in once (BatchMode: keys only; the host must be in known_hosts)\n"
	"and prints what the target has; exit 0 reachable, 1 not.\n";

/* Options every subcommand takes: --help, and its own. Leaves optind at
 * the first argument. The parser contract (exitcodes.h): HB_EXIT_OK,
 * HB_ARGS_DONE, or HB_EXIT_USAGE after the usage. */
static int sub_options(int argc, char **argv, const char *shortopts, const struct option *opts,
		       int (*take)(int c, const char *arg, void *user), void *user)
{
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(target_usage, stdout);
			return HB_ARGS_DONE;
		}
		if (c == '?' || !take || take(c, optarg, user) < 0) {
			fputs(target_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	return 0;
}

static int load_config(struct target_list *l, char **path)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	*path = targets_default_path();
	r = targets_load(*path, l, &err);
	if (r < 0)
		error_msg("%s", err.buf);
	strbuf_release(&err);
	return r < 0 ? (r == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_FAILURE) : HB_EXIT_OK;
}

static int save_config(struct target_list *l)
{
	struct strbuf err = STRBUF_INIT;
	int r = targets_save(l, &err);

	if (r < 0)
		error_msg("%s", err.buf);
	strbuf_release(&err);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

struct add_opts {
	const char *prefix, *ssh_config;
};

static int add_take(int c, const char *arg, void *user)
{
	struct add_opts *o = user;

	if (c == 'p')
		o->prefix = arg;
	else if (c == 'F')
		o->ssh_config = arg;
	else
		return -1;
	return 0;
}

static int target_add(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "prefix", required_argument, NULL, 'p' },
		{ "ssh-config", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct add_opts o = { 0 };
	struct target_list l;
	char *path = NULL, *cfg = NULL;
	const char *why = "";
	int r;

	r = sub_options(argc, argv, "hp:F:", opts, add_take, &o);
	if (r != HB_EXIT_OK)
		return hb_args_exit(r);
	if (argc - optind != 2)
		return usage_error(target_usage, "target add wants a name and an ssh:// address");
	target_list_init(&l);
	if (o.ssh_config) {
		/* kept absolute: the config is read from anywhere */
		cfg = realpath(o.ssh_config, NULL);
		if (!cfg) {
			error_msg("cannot use ssh config '%s': %s", o.ssh_config, strerror(errno));
			r = HB_EXIT_USAGE;
			goto out;
		}
	}
	r = load_config(&l, &path);
	if (r != HB_EXIT_OK)
		goto out;
	r = targets_add(&l, argv[optind], argv[optind + 1], o.prefix, cfg, NULL, &why);
	if (r < 0) {
		if (r == -EEXIST)
			error_msg("target '%s' exists already (in %s); 'hitchbench target remove %s' first",
				  argv[optind], path, argv[optind]);
		else if (!targets_name_valid(argv[optind]))
			error_msg("'%s' is %s", argv[optind], why);
		else
			error_msg("'%s' %s", argv[optind + 1], why);
		r = HB_EXIT_USAGE;
		goto out;
	}
	r = save_config(&l);
	if (r == HB_EXIT_OK)
		printf("target %s: %s, added to %s\n", argv[optind], argv[optind + 1], path);
out:
	free(cfg);
	free(path);
	target_list_release(&l);
	return r;
}

/* The start of a subcommand with no options but --help and nargs
 * arguments: the config loaded. HB_EXIT_OK to go on; else *done is set
 * and the value is the exit code. */
static int plain_start(int argc, char **argv, int nargs, const char *complaint, struct target_list *l,
		       char **path, bool *done)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 } };
	int r = sub_options(argc, argv, "h", opts, NULL, NULL);

	*done = true;
	if (r != HB_EXIT_OK)
		return hb_args_exit(r);
	if (argc - optind != nargs)
		return usage_error(target_usage, "%s", complaint);
	r = load_config(l, path);
	*done = r != HB_EXIT_OK;
	return r;
}

static int target_list_cmd(int argc, char **argv, struct context *ctx)
{
	struct target_list l;
	char *path = NULL;
	bool done;
	int r;

	target_list_init(&l);
	r = plain_start(argc, argv, 0, "target list takes no arguments", &l, &path, &done);
	if (!done) {
		if (!l.n)
			printf("# no targets in %s ('hitchbench target add NAME ssh://...')\n", path);
		else
			printf("%-16s %-36s %-8s %s\n", "# name", "url", "arch", "prefix");
		for (size_t i = 0; i < l.n; i++) {
			const struct target_entry *e = &l.v[i];

			printf("%-16s %-36s %-8s %s%s%s\n", e->ssh.name, e->ssh.url, e->arch ? e->arch : "-",
			       e->ssh.prefix ? e->ssh.prefix : "~/hitchbench", e->ssh.ssh_config ? "  -F " : "",
			       e->ssh.ssh_config ? e->ssh.ssh_config : "");
		}
	}
	free(path);
	target_list_release(&l);
	return r;
}

static int target_remove(int argc, char **argv, struct context *ctx)
{
	struct target_list l;
	char *path = NULL;
	bool done;
	int r;

	target_list_init(&l);
	r = plain_start(argc, argv, 1, "target remove wants one name", &l, &path, &done);
	if (!done && targets_remove(&l, argv[optind]) < 0) {
		error_msg("no target '%s' in %s", argv[optind], path);
		r = HB_EXIT_USAGE;
	} else if (!done) {
		r = save_config(&l);
		if (r == HB_EXIT_OK)
			printf("target %s removed (nothing on it was touched)\n", argv[optind]);
	}
	free(path);
	target_list_release(&l);
	return r;
}

static const char *get(const struct kvfile *kv, const char *key)
{
	const char *v = kvfile_get(kv, key);

	return v && *v ? v : NULL;
}

/* "12.3 GiB" from a count of KiB (a string from the target) */
static void kib_words(char *buf, size_t size, const char *kib)
{
	uint64_t v;

	if (!kib || safe_atou64(kib, &v) < 0) {
		snprintf(buf, size, "?");
		return;
	}
	if (v >= 1024 * 1024)
		snprintf(buf, size, "%.1f GiB", (double)v / (1024.0 * 1024.0));
	else
		snprintf(buf, size, "%.0f MiB", (double)v / 1024.0);
}

static void print_row(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void print_row(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%-12s ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define OR(v, d) ((v) ? (v) : (d))

static void print_check(const struct ssh_target *t, const struct kvfile *kv, const struct check_games *games)
{
	char total[32], avail[32], disk[32];
	const char *inst = get(kv, "installed_version");

	kib_words(total, sizeof(total), get(kv, "mem_total_kb"));
	kib_words(avail, sizeof(avail), get(kv, "mem_available_kb"));
	kib_words(disk, sizeof(disk), get(kv, "disk_free_kb"));
	print_row("target", "%s (%s)", t->name, t->url);
	print_row("reachable", "yes, as %s", OR(get(kv, "user"), "?"));
	print_row("machine", "%s, Debian arch %s, %s CPU(s)", OR(get(kv, "machine"), "?"),
		  OR(get(kv, "arch"), "unknown (no dpkg)"), OR(get(kv, "nproc"), "?"));
	print_row("kernel", "%s", OR(get(kv, "kernel"), "?"));
	print_row("boot id", "%s", OR(get(kv, "boot_id"), "?"));
	print_row("os", "%s", OR(get(kv, "os"), "?"));
	print_row("X", "Xorg %s, Xvfb %s, running: %s", OR(get(kv, "xorg"), "?"), OR(get(kv, "xvfb"), "?"),
		  OR(get(kv, "x_displays"), "none"));
	print_row("quieting", "%s", !strcmp(OR(get(kv, "quieting"), "no"), "root") ? "yes (root)"
				    : !strcmp(OR(get(kv, "quieting"), "no"), "sudo")
					    ? "yes (passwordless sudo)"
					    : "no (neither root nor passwordless sudo: runs cannot quieten it)");
	print_row("memory", "%s total, %s available", total, avail);
	print_row("prefix", "%s (%s free)", OR(get(kv, "prefix"), "?"), disk);
	if (inst)
		print_row("installed", "hitchbench %s (%s, %s, pushed %s)", inst, OR(get(kv, "installed_arch"), "?"),
			  OR(get(kv, "installed_how"), "?"), OR(get(kv, "installed_utc"), "?"));
	else
		print_row("installed", "nothing ('hitchbench push %s')", t->name);
	print_row("build deps", "%s%s", get(kv, "build_missing") ? "missing: " : "all there",
		  OR(get(kv, "build_missing"), ""));
	for (size_t i = 0; i < games->n; i++) {
		char *key = xasprintf("game.%s", games->v[i].name);
		const char *v = OR(get(kv, key), "?");

		print_row(i ? "" : "games", "%-16s %s%s", games->v[i].name, strcmp(v, "ok") ? "missing: " : "",
			  strcmp(v, "ok") ? v : "installed");
		free(key);
	}
}

static int check_take(int c, const char *arg, void *user)
{
	if (c != 'v')
		return -1;
	*(bool *)user = true;
	return 0;
}

static int target_check(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct target_list l;
	const struct ssh_target *t;
	struct ssh_conn c;
	struct check_games games;
	struct kvfile kv;
	struct strbuf err = STRBUF_INIT;
	bool verbose = false, opened = false;
	const char *arch;
	int r;

	r = sub_options(argc, argv, "hv", opts, check_take, &verbose);
	if (r != HB_EXIT_OK)
		return hb_args_exit(r);
	if (argc - optind != 1)
		return usage_error(target_usage, "target check wants one name");
	target_list_init(&l);
	kvfile_init(&kv);
	check_games_collect(&games, ctx->recipe_dirs, ARRAY_SIZE(ctx->recipe_dirs));
	r = targets_lookup(argv[optind], &l, &t);
	if (r != HB_EXIT_OK)
		goto out;
	r = ssh_open(&c, t);
	opened = true;
	if (r < 0) {
		targets_say_unreachable(t, &c, r);
		r = HB_EXIT_FAILURE;
		goto out;
	}
	r = check_run(&c, t->prefix, &games, &kv, &err);
	if (verbose)
		targets_say_connections(&c);
	if (r < 0) {
		error_msg("target '%s': %s", t->name, err.buf);
		r = HB_EXIT_FAILURE;
		goto out;
	}
	print_check(t, &kv, &games);
	arch = get(&kv, "arch");
	r = HB_EXIT_OK;
	if (arch) {
		struct target_entry *e = targets_entry(&l, t->name);

		if (!e->arch || strcmp(e->arch, arch) != 0) {
			targets_set_arch(&l, argv[optind], arch);
			if (save_config(&l) != HB_EXIT_OK)
				r = HB_EXIT_FAILURE;
			/* the save reloaded the list (the changed target is in it) */
			t = c.target = targets_find(&l, argv[optind]);
		}
	}
out:
	if (opened)
		ssh_close(&c);
	strbuf_release(&err);
	kvfile_release(&kv);
	check_games_release(&games);
	target_list_release(&l);
	return r;
}

/* The subcommands; `target status` (bench/target/remote*.c) joins with a line */
static const struct subcommand subcommands[] = {
	{ "add", target_add },
	{ "list", target_list_cmd },
	{ "remove", target_remove },
	{ "check", target_check },
	{ "status", cmd_target_status },
};

int cmd_target(int argc, char **argv, struct context *ctx)
{
	return run_subcommand("target", target_usage, subcommands, ARRAY_SIZE(subcommands), argc, argv, ctx);
}
