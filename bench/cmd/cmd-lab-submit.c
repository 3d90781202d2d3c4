/*
 * hitchbench lab submit: a matrix file's batches, or one game's, as Slurm
 * jobs (sbatch), one batch a job on a node of its own, each kernel of
 * --kernels its own jobs. Every job runs the job script (lab_job_script)
 * on its node: `hitchbench lab job`, which runs the batch into
 * results/lab/jobs/JOBID/ and stores it in the database given here,
 * passed on unchanged; with --site DIR, the job then refreshes the lab's
 * site in DIR from that database. What was submitted is kept in
 * results/lab/jobs/JOBID.txt (docs/lab.md, "The job record").
 */
#include "text/argv.h"
#include "cmd/cmd-lab.h"
#include "base/exitcodes.h"
#include "lab/lab.h"
#include "cmd/runargs.h"
#include "runner/spawn.h"
#include "db/sqldb.h"
#include "base/timeutil.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct submit_args {
	const char *nodes, *constraint, *kernels;
	const char *site;              /* --site: refreshed by each job at its end */
	const char *site_minutes;      /* --site-minutes: the refresh's limit (NULL: the job's default) */
	const char *switches;          /* --switches: a GAME's tokens (a matrix has its own) */
	int rounds;                    /* --rounds: every batch's rounds (0: as given) */
	struct argv_list run_opts;     /* "--name=value" / "--name", as run takes them */
	struct argv_list kernel_list;
	struct lab_matrix work;
	char *db;
};

/* What a lab job's runs cannot be given: the job decides them. */
static const char *const not_in_a_job[] = { "resume", "detach", "target", "no-wait", "no-pull", "plan", "out",
					    "no-db" };

static int take_run_option(struct submit_args *a, const struct run_option *o, const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(not_in_a_job); i++)
		if (!strcmp(o->name, not_in_a_job[i]))
			return lab_usage_error("--%s is not for a lab job: the job decides it", o->name);
	if (o->flags & RUN_OPT_HOOK)
		return lab_usage_error("--%s is an option of 'hitchbench ab', not of a batch", o->name);
	/* what the batch is, kept with the batch (its record, its words) */
	if (!strcmp(o->name, "switches")) {
		a->switches = arg;
		return 0;
	}
	if (!strcmp(o->name, "rounds")) {
		if (safe_atoi(arg, &a->rounds) < 0 || a->rounds < 1)
			return lab_usage_error("--rounds wants a count of 1 or more, not '%s'", arg);
		return 0;
	}
	if (o->flags & RUN_OPT_ARG)
		argv_pushf(&a->run_opts, "--%s=%s", o->name, arg);
	else
		argv_pushf(&a->run_opts, "--%s", o->name);
	return 0;
}

static int submit_options(int argc, char **argv, struct submit_args *a)
{
	struct option opts[58];
	size_t n = 0;
	int c, which = 0;
	double minutes;

	run_options_getopt(opts, &n, ARRAY_SIZE(opts) - 7, 0);
	opts[n++] = (struct option){ "nodes", required_argument, NULL, 'N' };
	opts[n++] = (struct option){ "constraint", required_argument, NULL, 'C' };
	opts[n++] = (struct option){ "kernels", required_argument, NULL, 'K' };
	opts[n++] = (struct option){ "site", required_argument, NULL, 'S' };
	opts[n++] = (struct option){ "site-minutes", required_argument, NULL, 'm' };
	opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	while ((c = getopt_long(argc, argv, "hqv", opts, &which)) != -1) {
		const struct run_option *o = run_option_of(c, opts[which].name);
		int r;

		if (o) {
			if ((r = take_run_option(a, o, optarg)) != 0)
				return r;
		} else if (c == 'N') {
			a->nodes = optarg;
		} else if (c == 'C') {
			a->constraint = optarg;
		} else if (c == 'K') {
			a->kernels = optarg;
		} else if (c == 'S') {
			if ((r = lab_site_usage(optarg)) != 0)
				return r;
			a->site = optarg;
		} else if (c == 'm') {
			if ((r = lab_site_minutes_usage(optarg, &minutes)) != 0)
				return r;
			a->site_minutes = optarg;
		} else if (c == 'h') {
			lab_usage_print(stdout);
			return HB_ARGS_DONE;
		} else {
			return lab_usage_error("see 'hitchbench lab --help'%s", "");
		}
	}
	if (a->nodes && a->constraint)
		return lab_usage_error("--nodes or --constraint, not both%s", "");
	if (a->site_minutes && !a->site)
		return lab_usage_error("--site-minutes wants --site: it limits the site's refresh%s", "");
	return 0;
}

/* The work: a matrix file's batches, or GAME ["VARIANTS" [ROUNDS]]. */
static int submit_work(int argc, char **argv, struct submit_args *a)
{
	struct strbuf err = STRBUF_INIT;
	char *text = NULL;
	int rounds = 1;

	if (argc - optind < 1 || argc - optind > 3)
		return lab_usage_error("lab submit wants a matrix file, or a game, its variants and rounds%s", "");
	if (argc - optind == 1 && read_file(argv[optind], &text, NULL) == 0 && lab_matrix_is(text)) {
		int r = lab_matrix_parse(&a->work, text, argv[optind], &err);

		free(text);
		if (r < 0) {
			fprintf(stderr, "%s\n", err.buf);
			strbuf_release(&err);
			return HB_EXIT_USAGE;
		}
		if (a->switches)
			return lab_usage_error("--switches is for a game: the matrix gives each batch its tokens%s", "");
		/* a recipe path in the matrix is relative to the matrix's directory;
		 * --rounds is every batch's (as bench-matrix.sh's QUICK=1 makes it 1) */
		for (size_t i = 0; i < a->work.n; i++) {
			if (a->rounds)
				a->work.v[i].rounds = a->rounds;
			char *g = a->work.v[i].game, *slash = strrchr(argv[optind], '/');

			if (strchr(g, '/') && g[0] != '/' && slash) {
				a->work.v[i].game = xasprintf("%.*s/%s", (int)(slash - argv[optind]), argv[optind], g);
				free(g);
			}
		}
		return 0;
	}
	free(text);
	if (argc - optind == 3 && (safe_atoi(argv[optind + 2], &rounds) < 0 || rounds < 1))
		return lab_usage_error("ROUNDS wants a count of 1 or more, not '%s'", argv[optind + 2]);
	if (argc - optind == 3 && a->rounds && a->rounds != rounds)
		return lab_usage_error("ROUNDS and --rounds disagree (%s)", argv[optind + 2]);
	a->work.v = zalloc(sizeof(*a->work.v));
	a->work.n = 1;
	a->work.v[0].game = xstrdup(argv[optind]);
	a->work.v[0].variants = argc - optind >= 2 ? xstrdup(argv[optind + 1]) : NULL;
	a->work.v[0].rounds = a->rounds ? a->rounds : rounds;
	a->work.v[0].tokens = a->switches ? xstrdup(a->switches) : NULL;
	return 0;
}

/* A recipe given as a path, or a database file, must be found on the
 * node at the same place: made absolute here. A name (a recipe's, when
 * !always) and a URL stay as they are. */
static char *absolute(const char *path, bool always)
{
	char abs[PATH_MAX];

	if ((!always && !strchr(path, '/')) || strstr(path, "://"))
		return xstrdup(path);
	if (realpath(path, abs))
		return xstrdup(abs);
	if (path[0] == '/' || !getcwd(abs, sizeof(abs)))
		return xstrdup(path);
	return xasprintf("%s/%s", abs, path);
}

/* --nodes LIST: one node is --nodelist; several, any of them: every
 * other node of the cluster excluded (sinfo says which there are). */
static int where_options(const struct submit_args *a, struct argv_list *sb)
{
	struct argv_list want, all, other;
	char *out = NULL, *list;
	const char *why = NULL;
	int status = 0, ret = 0;
	char *sinfo[] = { "sinfo", "-h", "-N", "-o", "%N", NULL };

	if (a->constraint)
		argv_pushf(sb, "--constraint=%s", a->constraint);
	if (!a->nodes)
		return 0;
	argv_init(&want);
	argv_init(&all);
	argv_init(&other);
	list = xstrdup(a->nodes);   /* "a,b" or "a b" */
	for (char *p = list; *p; p++)
		if (*p == ',')
			*p = ' ';
	if (argv_split(&want, list, &why) < 0 || want.n == 0) {
		ret = lab_usage_error("--nodes wants node names, not '%s'", a->nodes);
	} else if (want.n == 1) {
		argv_pushf(sb, "--nodelist=%s", want.v[0]);
	} else if (spawn_capture(sinfo, &out, &status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		   argv_split(&all, out, &why) < 0) {
		error_msg("sinfo failed: the cluster's nodes are not known (is slurmctld up?)");
		ret = HB_EXIT_FAILURE;
	} else {
		for (size_t i = 0; i < want.n && !ret; i++) {
			bool known = false;

			for (size_t k = 0; k < all.n; k++)
				known |= !strcmp(all.v[k], want.v[i]);
			if (!known)
				ret = lab_usage_error("--nodes: '%s' is not a node of the cluster", want.v[i]);
		}
		for (size_t k = 0; k < all.n; k++) {
			bool wanted = false;

			for (size_t i = 0; i < want.n; i++)
				wanted |= !strcmp(all.v[k], want.v[i]);
			if (!wanted)
				argv_push(&other, all.v[k]);
		}
		if (!ret && other.n) {
			char *ex = argv_join(other.v);

			for (char *p = ex; *p; p++)
				if (*p == ' ')
					*p = ',';
			argv_pushf(sb, "--exclude=%s", ex);
			free(ex);
		}
	}
	free(out);
	free(list);
	argv_release(&want);
	argv_release(&all);
	argv_release(&other);
	return ret;
}

/* The record of a submitted job (docs/lab.md, "The job record"). */
static int write_record(const char *lab, const char *job_id, const struct lab_matrix_batch *b,
			const char *kernel, const struct submit_args *a, char *const *cmd)
{
	struct kvfile kf;
	/* a database URL without its password, as batch.txt keeps it */
	char iso[32], *path = lab_job_record_path(lab, job_id), *line = sqldb_command_line(cmd);
	char *db = sqldb_public_name(a->db);
	char *batches = lab_job_batches_dir(lab, job_id);
	struct lab_job_record rec = {
		.job_id = job_id, .submitted_utc = iso, .game = b->game, .variants = b->variants,
		.tokens = b->tokens, .rounds = b->rounds, .kernel = kernel, .nodes = a->nodes,
		.constraint = a->constraint, .db = db, .batches_dir = batches, .site = a->site, .sbatch = line,
	};
	int r;

	kvfile_init(&kf);
	utc_iso8601(time(NULL), iso, sizeof(iso));
	lab_job_record_fill(&kf, &rec);
	r = kvfile_write(&kf, path);
	kvfile_release(&kf);
	free(db);
	free(batches);
	free(line);
	free(path);
	return r;
}

/* "12" or "12;cluster": sbatch --parsable's answer, the id alone. */
static char *job_id_of(const char *out)
{
	size_t n = strspn(out, "0123456789");

	return n && (!out[n] || strchr(";\n", out[n])) ? xstrndup(out, n) : NULL;
}

/* The words of a batch: `dsda-doom "software gl" x3`. */
static void describe(const struct lab_matrix_batch *b, const char *kernel)
{
	printf("%s \"%s\" x%d", b->game, b->variants ? b->variants : "(its default)", b->rounds);
	if (b->tokens && strcmp(b->tokens, "-") != 0)
		printf(" switches \"%s\"", b->tokens);
	if (kernel)
		printf(" on kernel %s", kernel);
}

/* One job: sbatch of the job script for batch b (and kernel). */
static int submit_one(const char *lab, const char *script, const struct lab_matrix_batch *b, const char *kernel,
		      const struct submit_args *a)
{
	struct argv_list cmd;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *name = lab_job_name(b->game), *game = absolute(b->game, false), *id = NULL;
	int status = 0, ret = HB_EXIT_OK, r;

	argv_init(&cmd);
	argv_push(&cmd, "sbatch");
	argv_push(&cmd, "--parsable");
	argv_pushf(&cmd, "--job-name=%s", name);
	/* the node alone (no job beside the batch), and again after a node failure */
	argv_push(&cmd, "--exclusive");
	argv_push(&cmd, "--requeue");
	argv_push(&cmd, "--nodes=1");
	/* the job's log goes on across a requeue rather than starting over */
	argv_pushf(&cmd, "--output=%s/jobs/%%j.log", lab);
	argv_push(&cmd, "--open-mode=append");
	if ((ret = where_options(a, &cmd)) != 0)
		goto out;
	argv_push(&cmd, script);
	argv_pushf(&cmd, "--lab-dir=%s", lab);
	if (kernel)
		argv_pushf(&cmd, "--kernel=%s", kernel);
	if (a->site)
		argv_pushf(&cmd, "--site=%s", a->site);
	if (a->site_minutes)
		argv_pushf(&cmd, "--site-minutes=%s", a->site_minutes);
	argv_push(&cmd, "--");
	argv_push(&cmd, game);
	if (b->variants)
		argv_push(&cmd, b->variants);
	argv_pushf(&cmd, "%d", b->rounds);
	if (b->tokens)
		argv_pushf(&cmd, "--switches=%s", b->tokens);
	for (size_t i = 0; i < a->run_opts.n; i++)
		argv_push(&cmd, a->run_opts.v[i]);
	argv_pushf(&cmd, "--db=%s", a->db);
	r = spawn_capture_io(cmd.v, NULL, &out, &err, &status);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(id = job_id_of(out.buf ? out.buf : ""))) {
		error_msg("sbatch refused the job of %s: %s", b->game,
			  r < 0 ? strerror(-r) : err.len ? str_strip(err.buf) : "no job id in its answer");
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if ((r = write_record(lab, id, b, kernel, a, cmd.v)) < 0)
		warn_msg("job %s runs, but its record in '%s/jobs' cannot be written: %s", id, lab, strerror(-r));
	printf("job %s: ", id);
	describe(b, kernel);
	printf(", its batch in %s/jobs/%s\n", lab, id);
out:
	free(id);
	free(game);
	free(name);
	strbuf_release(&out);
	strbuf_release(&err);
	argv_release(&cmd);
	return ret;
}

/* The job script, written anew (the same text unless hitchbench moved). */
static int write_script(const char *lab, char **path)
{
	char self[PATH_MAX], *text, *dir = xasprintf("%s/jobs", lab);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int r;

	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	text = lab_job_script(self);
	*path = xasprintf("%s/job.sh", lab);
	r = mkdir_p(dir, 0755);
	if (r == 0)
		r = write_file_atomic(*path, text, strlen(text), 0755);
	free(text);
	free(dir);
	return r;
}

int cmd_lab_submit(int argc, char **argv, struct context *ctx)
{
	struct submit_args a = { 0 };
	char *lab = lab_dir(ctx), *script = NULL;
	const char *why = NULL;
	size_t n = 0;
	int ret, r;

	argv_init(&a.run_opts);
	argv_init(&a.kernel_list);
	ret = submit_options(argc, argv, &a);
	if (ret == 0)
		ret = submit_work(argc, argv, &a);
	if (ret == 0 && a.kernels && (argv_split(&a.kernel_list, a.kernels, &why) < 0 || !a.kernel_list.n))
		ret = lab_usage_error("--kernels wants kernel releases, not '%s'", a.kernels);
	if (ret != 0)
		goto out;
	/* the database goes to the runs as given: a PostgreSQL URL unchanged,
	 * a file made absolute (the job runs elsewhere) */
	a.db = absolute(ctx->db_path, true);
	if ((r = write_script(lab, &script)) < 0) {
		error_msg("cannot write the job script '%s/job.sh': %s", lab, strerror(-r));
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	for (size_t i = 0; i < a.work.n; i++)
		for (size_t k = 0; k < (a.kernel_list.n ? a.kernel_list.n : 1); k++) {
			r = submit_one(lab, script, &a.work.v[i], a.kernel_list.n ? a.kernel_list.v[k] : NULL, &a);
			if (r != HB_EXIT_OK)
				ret = r;
			else
				n++;
		}
	printf("%zu job(s) submitted; 'hitchbench lab status' follows them\n", n);
out:
	free(a.db);
	free(script);
	free(lab);
	lab_matrix_release(&a.work);
	argv_release(&a.run_opts);
	argv_release(&a.kernel_list);
	return hb_args_exit(ret);
}
