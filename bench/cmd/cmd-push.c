/*
 * hitchbench push TARGET: installs this checkout's harness (the runner,
 * the helpers, the hook and its Vulkan manifest, recipes, gamedb) into the
 * target's prefix, in one SSH connection: the check script (the target's
 * architecture, its prefix made absolute, what it lacks), then the build
 * that fits (push.h), then rsync of only what changed, then the pushed
 * hitchbench run there and PREFIX/push.txt written. docs/targets.md says
 * what is copied where and why checksums decide it.
 */
#include "cmd/cmd.h"
#include "base/exitcodes.h"
#include "target/push.h"
#include "cmd/cmdtarget.h"
#include "target/targets-check.h"
#include "target/targets.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static const char push_usage[] =
	"usage: hitchbench push [-v] TARGET [--arch ARCH] [--build-on-target] [--dry-run]\n"
	"\n"
	"Installs this checkout's harness into the target's prefix (target add\n"
	"--prefix; default ~/hitchbench there): the host's build when the target's\n"
	"Debian architecture is the host's, else the cross build make ARCH=<arch>;\n"
	"--arch names the architecture to build for (a target without dpkg);\n"
	"--build-on-target copies the source (git archive HEAD) and builds it there.\n"
	"Only files whose checksum changed are copied (rsync -c); PREFIX/results is\n"
	"never touched. --dry-run builds and stages here but changes nothing there\n"
	"(rsync -n lists what would be copied). One SSH login for all of it.\n";

#define OR_DASH(v) ((v) ? (v) : "-")

struct push_opts {
	const char *arch;
	bool on_target, dry_run, verbose;
};

/* The state of one push, for the steps below. */
struct push {
	struct push_opts o;
	struct context *ctx;
	const struct ssh_target *t;
	struct ssh_conn c;
	struct kvfile kv;
	const char *prefix;   /* absolute, on the target */
	char *arch;           /* built for */
	enum push_how how;
	bool runnable;        /* the pushed program can run there (its arch is the target's) */
	char *work;           /* build/push/NAME on the host */
	struct push_stats st;
	char *version;
};

static const char *kv_get(const struct kvfile *kv, const char *key)
{
	const char *v = kvfile_get(kv, key);

	return v && *v ? v : NULL;
}

/* The last lines of a log, for a failure's message. */
static void print_log_tail(const char *path, int lines)
{
	char *text = NULL;
	size_t len = 0;
	const char *p;
	int n = 0;

	if (read_file(path, &text, &len) < 0)
		return;
	p = text + len;
	while (p > text && n <= lines)
		if (*--p == '\n')
			n++;
	fprintf(stderr, "%s", p == text ? p : p + 1);
	free(text);
}

/* The source tree's version as the Makefile names it (scripts/version.sh);
 * with dirty false, HEAD's (what git archive HEAD holds). */
static char *source_version(const char *srcdir, bool dirty)
{
	char *script = xasprintf("%s/scripts/version.sh", srcdir);
	char *argv[] = { "sh", script, dirty ? (char *)srcdir : "--head", (char *)srcdir, NULL };
	char *out = push_output_line(argv);

	free(script);
	return out ? out : xstrdup("unknown");
}

static int rsync_to(struct push *p, struct argv_list *args, const char *what)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	if (p->o.dry_run)
		argv_push(args, "--dry-run");
	r = ssh_rsync(&p->c, (const char *const *)args->v, &out, &err);
	if (r != 0) {
		error_msg("rsync of %s to '%s' failed (%s %d): %s", what, p->t->name, r < 0 ? "error" : "exit",
			  r < 0 ? -r : r, err.buf);
		r = -1;
	} else if (push_stats_parse(out.buf, &p->st) < 0) {
		error_msg("rsync said no --stats: %s", out.buf);
		r = -1;
	}
	if (r == 0 && (p->o.verbose || p->o.dry_run)) {
		/* the itemized lines: what was (or would be) copied or deleted */
		for (char *l = out.buf, *nl; l && *l; l = nl) {
			nl = strchr(l, '\n');
			if (nl)
				*nl++ = '\0';
			if ((l[0] == '<' || l[0] == '>' || l[0] == '*' || l[0] == 'c') && strchr(l, ' '))
				printf("  %s\n", l);
		}
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}

/* The CPUs this process may run on (its affinity, as nproc counts them). */
static int usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
}

/* The push's work directory (its stage, its source copy) to this push
 * alone: a second push of the same target name from this build waits, as
 * it would stage into the same directory. The lock's descriptor, or -1. */
static int work_lock(const char *work, const char *name)
{
	char *path = xasprintf("%s/lock", work);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error_msg("cannot open '%s': %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			note_msg("another push of '%s' is using %s: waiting for it", name, work);
			if (flock(fd, LOCK_EX) == 0)
				goto out;
		}
		error_msg("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
out:
	free(path);
	return fd;
}

/* make install of the host's or the cross build into build/push/NAME/stage,
 * then rsync of the harness's own directories of it to the prefix. */
static int push_staged(struct push *p)
{
	char *stage = xasprintf("%s/stage", p->work), *log = xasprintf("%s/make.log", p->work);
	char *root = xasprintf("%s%s", stage, p->prefix);
	struct argv_list a;
	int r;

	remove_tree(stage);
	argv_init(&a);
	argv_push(&a, "make");
	argv_push(&a, "-C");
	argv_push(&a, p->ctx->srcdir);
	/* make's own MAKEFLAGS decides the jobs when set (MAKEFLAGS=-j1 for a
	 * build beside other work); else one a CPU this process may run on */
	if (!getenv("MAKEFLAGS") || !*getenv("MAKEFLAGS"))
		argv_pushf(&a, "-j%d", usable_cpus());
	if (p->how == PUSH_CROSS)
		argv_pushf(&a, "ARCH=%s", p->arch);
	argv_push(&a, "install");
	argv_pushf(&a, "PREFIX=%s", p->prefix);
	argv_pushf(&a, "DESTDIR=%s", stage);
	{
		char *line = argv_join(a.v);

		printf("staging: %s (output: %s)\n", line, log);
		free(line);
	}
	fflush(stdout);
	r = push_run_logged(a.v, NULL, log);
	argv_release(&a);
	if (r != 0) {
		error_msg("the %s failed (%s %d); the end of %s:", p->how == PUSH_CROSS ? "cross build" : "build",
			  r < 0 ? "error" : "exit", r < 0 ? -r : r, log);
		print_log_tail(log, 15);
		r = -1;
		goto out;
	}
	/* -R: each directory lands at the same place under the prefix; a
	 * deletion happens only inside the directories sent */
	argv_init(&a);
	argv_push(&a, "-rlpcR");
	argv_push(&a, "--delete-after");
	argv_push(&a, "--stats");
	argv_push(&a, "-i");
	argv_pushf(&a, "%s/./bin", root);
	argv_pushf(&a, "%s/./lib/hitchbench", root);
	argv_pushf(&a, "%s/./share/hitchbench", root);
	argv_pushf(&a, "%s/./share/vulkan/implicit_layer.d/VkLayer_hitchbench.json", root);
	{
		char *dest = xasprintf("%s/", p->prefix), *spec = ssh_remote_spec(&p->c, dest);

		argv_push(&a, spec);
		free(spec);
		free(dest);
	}
	r = rsync_to(p, &a, "the staged tree");
	argv_release(&a);
out:
	free(root);
	free(log);
	free(stage);
	return r;
}

/* The source tree as build/push/NAME/src: git archive HEAD, or the tree
 * itself (without build/ and results/) when it is not a git checkout. */
static int source_tree(struct push *p, const char *src)
{
	char *log = xasprintf("%s/source.log", p->work), *qs = sh_quote(p->ctx->srcdir), *qd = sh_quote(src);
	char *git = xasprintf("%s/.git", p->ctx->srcdir), *cmd;
	char *argv[] = { "sh", "-c", NULL, NULL };
	int r;

	remove_tree(src);
	mkdir_p(src, 0755);
	if (access(git, F_OK) == 0)
		cmd = xasprintf("git -C %s archive --format=tar HEAD | tar -x -C %s", qs, qd);
	else
		cmd = xasprintf("tar -C %s --exclude=./build --exclude=./results -cf - . | tar -x -C %s", qs, qd);
	argv[2] = cmd;
	r = push_run_logged(argv, NULL, log);
	if (r != 0) {
		error_msg("cannot make the source archive (%s): see %s", cmd, log);
		print_log_tail(log, 5);
		r = -1;
	}
	free(cmd);
	free(git);
	free(qs);
	free(qd);
	free(log);
	return r;
}

/* The source copied to PREFIX/src (only what changed: its build/ there is
 * kept, so the build is incremental) and built there. */
static int push_target_build(struct push *p)
{
	const char *missing = kv_get(&p->kv, "build_missing");
	char *src = xasprintf("%s/src", p->work), *dest, *spec, *cmd, *qp, *qsrc, *qv;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct argv_list a;
	int r;

	if (missing) {
		error_msg("target '%s' lacks what a build there needs: %s (apt-get install %s)", p->t->name, missing,
			  missing);
		free(src);
		return -1;
	}
	r = source_tree(p, src);
	if (r < 0)
		goto out0;
	argv_init(&a);
	argv_push(&a, "-rlpc");
	argv_push(&a, "--delete-after");
	argv_push(&a, "--exclude=/build/");
	argv_push(&a, "--stats");
	argv_push(&a, "-i");
	argv_pushf(&a, "%s/", src);
	dest = xasprintf("%s/src/", p->prefix);
	spec = ssh_remote_spec(&p->c, dest);
	argv_push(&a, spec);
	r = rsync_to(p, &a, "the source");
	argv_release(&a);
	free(spec);
	if (r < 0 || p->o.dry_run)
		goto out1;
	qp = sh_quote(p->prefix);
	qsrc = sh_quote(dest);
	qv = sh_quote(p->version);
	/* MAKEFLAGS there decides the jobs when set, as for the build here */
	cmd = xasprintf("cd %s && j= && { [ -n \"${MAKEFLAGS:-}\" ] || j=-j\"$(nproc 2>/dev/null || echo 1)\"; } && "
			"make $j install PREFIX=%s "
			"VERSION=%s </dev/null 2>&1",
			qsrc, qp, qv);
	printf("building on %s: make install PREFIX=%s\n", p->t->name, p->prefix);
	fflush(stdout);
	r = ssh_exec(&p->c, cmd, NULL, &out, &err);
	if (r != 0) {
		const char *tail = out.buf ? out.buf + (out.len > 3000 ? out.len - 3000 : 0) : "";

		error_msg("the build on '%s' failed (%s %d); the end of its output:\n%s%s", p->t->name,
			  r < 0 ? "error" : "exit", r < 0 ? -r : r, tail, err.buf ? err.buf : "");
		r = -1;
	}
	free(cmd);
	free(qv);
	free(qsrc);
	free(qp);
out1:
	free(dest);
out0:
	free(src);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}

/* The pushed hitchbench run there (it must run where it landed), then
 * push.txt written beside it: one remote command. */
static int push_finish(struct push *p)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *qp = sh_quote(p->prefix), *cmd, *txt;
	int r;

	if (p->runnable) {
		cmd = xasprintf("P=%s; \"$P/bin/hitchbench\" --version && \"$P/bin/hitchbench\" target --help >/dev/null", qp);
		r = ssh_exec(&p->c, cmd, NULL, &out, &err);
		free(cmd);
		if (r != 0) {
			error_msg("the pushed hitchbench does not run on '%s' (exit %d): %s%s", p->t->name, r, out.buf ? out.buf : "",
				  err.buf ? err.buf : "");
			r = -1;
			goto out;
		}
		str_strip(out.buf);
		if (str_startswith(out.buf, "hitchbench ")) {
			free(p->version);
			p->version = xstrdup(out.buf + strlen("hitchbench "));
		}
		printf("runs there: %s\n", out.buf);
	} else {
		printf("not run there: built for %s, the target is %s\n", p->arch, OR_DASH(kv_get(&p->kv, "arch")));
	}
	{
		char host[256] = "";

		gethostname(host, sizeof(host) - 1);
		txt = push_txt_format(p->version, p->arch, p->how, time(NULL), host);
	}
	cmd = xasprintf("P=%s; cat >\"$P/push.txt.tmp\" && mv \"$P/push.txt.tmp\" \"$P/push.txt\"", qp);
	strbuf_reset(&err);
	r = ssh_exec(&p->c, cmd, txt, NULL, &err);
	free(cmd);
	free(txt);
	if (r != 0) {
		error_msg("cannot write %s/push.txt on '%s': %s", p->prefix, p->t->name, err.buf ? err.buf : "");
		r = -1;
	}
out:
	free(qp);
	strbuf_release(&out);
	strbuf_release(&err);
	return r;
}

/* The target's answers: where the prefix is, which build it gets. */
static int push_plan(struct push *p)
{
	const char *tarch = kv_get(&p->kv, "arch");
	char *host = push_host_arch();
	int r = 0;

	p->prefix = kv_get(&p->kv, "prefix");
	if (!p->prefix || p->prefix[0] != '/') {
		error_msg("target '%s' named no absolute prefix", p->t->name);
		r = -1;
		goto out;
	}
	if (strcmp(OR_DASH(kv_get(&p->kv, "rsync")), "yes") != 0) {
		error_msg("target '%s' has no rsync (apt-get install rsync there)", p->t->name);
		r = -1;
		goto out;
	}
	if (!p->o.arch && !tarch) {
		error_msg("target '%s' does not say its Debian architecture (no dpkg there); give --arch", p->t->name);
		r = -1;
		goto out;
	}
	p->arch = xstrdup(p->o.arch ? p->o.arch : tarch);
	p->how = push_decide(host, p->arch, p->o.on_target);
	p->runnable = p->how == PUSH_TARGET_BUILD || !tarch || !strcmp(p->arch, tarch);
	if (p->how == PUSH_TARGET_BUILD && p->o.arch && tarch && strcmp(p->o.arch, tarch) != 0) {
		error_msg("--arch %s and --build-on-target: the target builds for itself (%s)", p->o.arch, tarch);
		r = -1;
		goto out;
	}
	if (p->how == PUSH_CROSS && !push_arch_triplet(p->arch)) {
		error_msg("no cross compiler known for Debian architecture '%s'", p->arch);
		r = -1;
		goto out;
	}
	printf("push %s: %s for %s (host %s) into %s:%s\n", p->t->name, push_how_name(p->how), p->arch,
	       OR_DASH(host), p->t->host, p->prefix);
	if (!p->runnable)
		warn_msg("target '%s' is %s: a %s build pushed there as asked will not run there", p->t->name, tarch,
			 p->arch);
out:
	free(host);
	return r;
}

/* The architecture the check saw, kept in the config as target check
 * keeps it (a failure to write it is said, and the push goes on). A save
 * reloads l: pointers into it are stale after. */
static void keep_arch(struct target_list *l, const char *name, const char *arch)
{
	struct target_entry *e = targets_entry(l, name);
	struct strbuf err = STRBUF_INIT;

	if (!arch || !e || (e->arch && !strcmp(e->arch, arch)))
		return;
	targets_set_arch(l, name, arch);
	if (targets_save(l, &err) < 0)
		warn_msg("%s", err.buf);
	strbuf_release(&err);
}

static int push_take(int argc, char **argv, struct push_opts *o, const char **name)
{
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "build-on-target", no_argument, NULL, 'b' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "hnv", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->arch = optarg;
			break;
		case 'b':
			o->on_target = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(push_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(push_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return usage_error(push_usage, "push wants one target");
	if (o->arch && (!*o->arch || strspn(o->arch, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(o->arch)))
		return usage_error(push_usage, "--arch wants a Debian architecture (amd64, s390x, ppc64), not '%s'",
				   o->arch);
	*name = argv[optind];
	return HB_EXIT_OK;
}

int cmd_push(int argc, char **argv, struct context *ctx)
{
	struct push p = { .ctx = ctx };
	struct target_list l;
	struct check_games games = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *name = NULL;
	bool opened = false;
	uint64_t t0 = mono_ns();
	int r, work_fd = -1;

	r = push_take(argc, argv, &p.o, &name);
	if (r != HB_EXIT_OK)
		return hb_args_exit(r);
	target_list_init(&l);
	kvfile_init(&p.kv);
	r = targets_lookup(name, &l, &p.t);
	if (r != HB_EXIT_OK)
		goto out;
	if (!ctx->srcdir) {
		error_msg("a push needs the source tree: run the hitchbench of a checkout's build/ (this one is "
			  "installed in %s)",
			  ctx->exe_dir);
		r = HB_EXIT_FAILURE;
		goto out;
	}
	r = ssh_open(&p.c, p.t);
	opened = true;
	if (r < 0) {
		targets_say_unreachable(p.t, &p.c, r);
		r = HB_EXIT_FAILURE;
		goto out;
	}
	r = check_run(&p.c, p.t->prefix, &games, &p.kv, &err);
	if (r < 0) {
		error_msg("target '%s': %s", p.t->name, err.buf);
		r = HB_EXIT_FAILURE;
		goto out;
	}
	r = HB_EXIT_FAILURE;
	keep_arch(&l, name, kv_get(&p.kv, "arch"));
	/* the save reloaded the list: the target and the connection's view of it anew */
	p.t = p.c.target = targets_find(&l, name);
	if (push_plan(&p) < 0)
		goto out;
	p.version = source_version(ctx->srcdir, p.how != PUSH_TARGET_BUILD);
	if (p.how == PUSH_TARGET_BUILD) {
		char *dirty = source_version(ctx->srcdir, true);

		if (strcmp(dirty, p.version) != 0)
			warn_msg("%s has uncommitted changes: the target builds HEAD (%s) without them", ctx->srcdir,
				 p.version);
		free(dirty);
	}
	p.work = xasprintf("%s/push/%s", ctx->exe_dir, p.t->name);
	if (mkdir_p(p.work, 0755) < 0) {
		error_msg("cannot make '%s': %s", p.work, strerror(errno));
		goto out;
	}
	work_fd = work_lock(p.work, p.t->name);
	if (work_fd < 0)
		goto out;
	if (!p.o.dry_run) {
		char *q = sh_quote(p.prefix), *cmd = xasprintf("mkdir -p %s", q);
		struct strbuf e = STRBUF_INIT;
		int m = ssh_exec(&p.c, cmd, NULL, NULL, &e);

		free(cmd);
		free(q);
		if (m != 0) {
			error_msg("cannot make %s on '%s': %s", p.prefix, p.t->name, e.buf ? e.buf : "");
			strbuf_release(&e);
			goto out;
		}
		strbuf_release(&e);
	}
	if ((p.how == PUSH_TARGET_BUILD ? push_target_build(&p) : push_staged(&p)) < 0)
		goto out;
	if (!p.o.dry_run && push_finish(&p) < 0)
		goto out;
	printf("%s: %" PRIu64 " file(s) copied, %" PRIu64 " deleted, %" PRIu64 " bytes sent, %.1f s\n",
	       p.o.dry_run ? "dry run (nothing changed there)" : "pushed", p.st.files, p.st.deleted,
	       p.st.bytes_sent, (double)(mono_ns() - t0) / 1e9);
	r = HB_EXIT_OK;
out:
	if (work_fd >= 0)
		close(work_fd);
	if (p.o.verbose && opened)
		targets_say_connections(&p.c);
	if (opened)
		ssh_close(&p.c);
	free(p.arch);
	free(p.work);
	free(p.version);
	strbuf_release(&err);
	kvfile_release(&p.kv);
	target_list_release(&l);
	return r;
}
