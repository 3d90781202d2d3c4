/*
 * hitchbench lab: batches on a small Slurm cluster (issue 21, docs/lab.md).
 * This file is the subcommand table and the short ones: init (slurm.conf
 * from a machines file), cancel, and job (what the job script runs on the
 * node: the kernel, then the batch, started or resumed). submit is in
 * cmd-lab-submit.c, status and results in cmd-lab-status.c.
 */
#include "cmd/cmd-lab.h"
#include "base/exitcodes.h"
#include "lab/lab.h"
#include "cmd/lab-kernel.h"
#include "runner/spawn.h"
#include "db/sqldb.h"
#include "base/timeutil.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char lab_usage[] =
	"usage: hitchbench lab init MACHINES-FILE [--out DIR] [--port N] [--state-dir DIR]\n"
	"                           [--munge-socket PATH] [--slurm-user USER] [--cluster NAME]\n"
	"   or: hitchbench lab submit MATRIX|GAME [\"VARIANT...\" [ROUNDS]] [--nodes LIST |\n"
	"                           --constraint FEATURES] [--kernels \"K...\"] [--db DB] [--site DIR\n"
	"                           [--site-minutes M]] [run options]\n"
	"   or: hitchbench lab status [JOB...]\n"
	"   or: hitchbench lab cancel JOB... | --all\n"
	"   or: hitchbench lab results [JOB...] [--db DB]\n"
	"   or: hitchbench lab ensure-kernel [--kexec] [--no-requeue] KERNEL   (in a job)\n"
	"\n"
	"Batches as Slurm jobs, one batch a job on a node of its own (docs/lab.md).\n"
	"init writes slurm.conf for the machines of MACHINES-FILE into DIR (default\n"
	"results/lab/conf) and prints the steps that bring the cluster up. submit\n"
	"turns a matrix file or one game's batch into jobs (each kernel of --kernels\n"
	"its own jobs), each 'hitchbench run ... --db DB' on its node; a job its node\n"
	"lost is requeued and resumes its batch. With --site DIR (an absolute path)\n"
	"each job then refreshes the lab's site in DIR from DB ('hitchbench site'),\n"
	"killed after --site-minutes M (default 30).\n"
	"status, cancel and results say what the jobs do, stop them, and print their\n"
	"batches' report from the database. The jobs' records and batches:\n"
	"results/lab/jobs/.\n";

void lab_usage_print(FILE *out)
{
	fputs(lab_usage, out);
}

int lab_usage_error(const char *fmt, const char *arg)
{
	return usage_error(lab_usage, fmt, arg);
}

int lab_site_usage(const char *dir)
{
	const char *why = NULL;
	char *fmt;
	int r;

	if (lab_site_dir_check(dir, &why) == 0)
		return 0;
	fmt = xasprintf("--site wants %s, not '%%s'", why);
	r = lab_usage_error(fmt, dir);
	free(fmt);
	return r;
}

int lab_site_minutes_usage(const char *arg, double *minutes)
{
	if (safe_atod(arg, minutes) == 0 && *minutes > 0 && *minutes <= LAB_SITE_MINUTES_MAX)
		return 0;
	return lab_usage_error("--site-minutes wants minutes over 0, at most a day, not '%s'", arg);
}

char *lab_dir(const struct context *ctx)
{
	char abs[PATH_MAX], *dir = xasprintf("%s/lab", ctx->results_dir);

	if (realpath(ctx->results_dir, abs)) {
		free(dir);
		dir = xasprintf("%s/lab", abs);
	}
	return dir;
}

/* ---- init ---- */

struct init_args {
	const char *machines, *out;
	struct lab_conf_opts conf;
};

static int init_parse(int argc, char **argv, struct init_args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' }, { "port", required_argument, NULL, 'p' },
		{ "state-dir", required_argument, NULL, 's' }, { "munge-socket", required_argument, NULL, 'm' },
		{ "slurm-user", required_argument, NULL, 'u' }, { "cluster", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case 's': a->conf.state_dir = optarg; break;
		case 'm': a->conf.munge_socket = optarg; break;
		case 'u': a->conf.slurm_user = optarg; break;
		case 'c': a->conf.cluster = optarg; break;
		case 'p':
			if (safe_atoi(optarg, &a->conf.port) < 0 || a->conf.port < 1 || a->conf.port > 65534)
				return lab_usage_error("--port wants a port from 1 to 65534, not '%s'", optarg);
			break;
		case 'h':
			fputs(lab_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(lab_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		return lab_usage_error("lab init wants one machines file%s", "");
	if (a->conf.state_dir && a->conf.state_dir[0] != '/')
		return lab_usage_error("--state-dir wants an absolute path, not '%s'", a->conf.state_dir);
	a->machines = argv[optind];
	return 0;
}

static int lab_init(int argc, char **argv, struct context *ctx)
{
	struct init_args a = { .conf = { "hitchbench", "slurm", 6817, NULL, NULL, NULL } };
	struct strbuf err = STRBUF_INIT, conf = STRBUF_INIT, steps = STRBUF_INIT;
	struct lab_machines m;
	char *text = NULL, *out = NULL, *path = NULL, *libdir = xstrdup(ctx->hook_path), abs[PATH_MAX];
	int ret = init_parse(argc, argv, &a), r;

	lab_machines_init(&m);
	if (ret != 0)
		goto out;
	*strrchr(libdir, '/') = '\0';   /* the hook's directory is LIBDIR (the build's: build/) */
	a.conf.reboot_program = xasprintf("%s/hitchbench-reboot", realpath(libdir, abs) ? abs : libdir);
	if ((r = read_file(a.machines, &text, NULL)) < 0) {
		error_msg("cannot read '%s': %s", a.machines, strerror(-r));
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (lab_machines_parse(&m, text, a.machines, &err) < 0) {
		fprintf(stderr, "%s\n", err.buf);
		ret = HB_EXIT_USAGE;
		goto out;
	}
	if (a.out) {
		out = xstrdup(a.out);
	} else {
		char *lab = lab_dir(ctx);

		out = xasprintf("%s/conf", lab);
		free(lab);
	}
	path = xasprintf("%s/slurm.conf", out);
	lab_conf_write(&conf, &m, &a.conf);
	if ((r = mkdir_p(out, 0755)) < 0 || (r = write_file_atomic(path, conf.buf, conf.len, 0644)) < 0) {
		error_msg("cannot write '%s': %s", path, strerror(-r));
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	printf("wrote %s (%zu node(s), controller %s)\n\n", path, m.n_nodes, m.controller.name);
	lab_conf_instructions(&steps, &m, &a.conf, out);
	fputs(steps.buf, stdout);
	ret = HB_EXIT_OK;
out:
	free((char *)a.conf.reboot_program);
	free(libdir);
	free(text);
	free(out);
	free(path);
	strbuf_release(&err);
	strbuf_release(&conf);
	strbuf_release(&steps);
	lab_machines_release(&m);
	return hb_args_exit(ret);
}

/* ---- job: on the node, in the job ---- */

/* Runs `hitchbench lab ensure-kernel K` (another process of ours: its
 * exit code is the contract, bench/cmd/lab-kernel.h): HB_EXIT_OK to go on,
 * HB_EXIT_REBOOTING when the node reboots into K, else a failure. */
static int ensure_kernel(const char *self, const char *kernel)
{
	char *argv[] = { (char *)self, "lab", "ensure-kernel", (char *)kernel, NULL };
	struct spawn_opts o = { .argv = argv, .envp = environ, .in_fd = -1, .out_fd = 1, .err_fd = 2 };
	struct utsname u;
	int status = 0, r;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	r = spawn_process(&o, &pid);
	if (r == 0 && waitpid(pid, &status, 0) < 0)
		r = -errno;
	if (r < 0) {
		error_msg("cannot run 'hitchbench lab ensure-kernel %s': %s", kernel, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == HB_EXIT_REBOOTING) {
		note_msg("the node reboots into kernel %s and the job was requeued: the batch waits for it", kernel);
		return HB_EXIT_REBOOTING;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error_msg("'hitchbench lab ensure-kernel %s' failed (exit %d): the batch does not run", kernel,
			  WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return HB_EXIT_FAILURE;
	}
	/* the batch checks the kernel it got, whatever ensure-kernel said */
	if (uname(&u) < 0 || strcmp(u.release, kernel) != 0) {
		error_msg("the job wants kernel %s, the node runs %s: the batch does not run", kernel, u.release);
		return HB_EXIT_FAILURE;
	}
	setenv("HITCHBENCH_KERNEL_WANTED", kernel, 1);
	return HB_EXIT_OK;
}

/* The run command line of the job: a fresh batch into the job's
 * directory, or the resume of the batch found there. */
static int job_argv(const char *self, const char *batches, char **run, int n_run, struct argv_list *av,
		    const char *job_id)
{
	const char *restarts = getenv("SLURM_RESTART_COUNT");
	char *found = NULL;
	int r = lab_job_find_batch(batches, &found);

	argv_push(av, self);
	argv_push(av, "run");
	if (r == 0) {
		fprintf(stderr, "hitchbench: lab job %s (restart %s): resuming batch %s\n", job_id,
			restarts ? restarts : "0", found);
		argv_pushf(av, "--resume=%s", found);
		/* the options the batch's first start had that a resume takes */
		lab_resume_options(run, av);
		free(found);
		return 0;
	}
	if (r != -ENOENT) {
		error_msg("cannot find the batch of job %s in '%s': %s", job_id, batches,
			  r == -EEXIST ? "several batches there" : strerror(-r));
		return HB_EXIT_FAILURE;
	}
	fprintf(stderr, "hitchbench: lab job %s: a new batch in %s\n", job_id, batches);
	for (int i = 0; i < n_run; i++)
		argv_push(av, run[i]);
	argv_pushf(av, "--out=%s", batches);
	return 0;
}

/* A stop signal that reached lab job while its batch ran (lab job --site). */
static volatile sig_atomic_t job_stopped;

static void note_stop(int sig)
{
	job_stopped = sig;
}

/* The batch's runner as the job's child, waited for: 0 with its wait
 * status, or -errno when it could not be started or waited for. Slurm
 * signals every process of the job (ProctrackType=proctrack/linuxproc),
 * the runner too: a stop signal is only noted here, never passed on (a
 * second SIGTERM would cut the runner's grace short). */
static int run_batch(char *const *av, int *status)
{
	static const int stops[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa = { .sa_handler = note_stop, .sa_flags = SA_RESTART };
	struct spawn_opts o = { .argv = av, .envp = environ, .in_fd = 0, .out_fd = 1, .err_fd = 2 };
	pid_t pid;
	int r;

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stops); i++)
		sigaction(stops[i], &sa, NULL);
	fflush(stdout);
	fflush(stderr);
	if ((r = spawn_process(&o, &pid)) < 0)
		return r;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The last line of text with something on it, stripped; a new string or NULL. */
static char *last_line(const char *text)
{
	char *copy = xstrdup(text ? text : ""), *line = NULL, *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (*str_strip(l))
			line = l;
	line = line ? xstrdup(str_strip(line)) : NULL;
	free(copy);
	return line;
}

/* The lab's site refreshed from the database the batch stored into, once
 * the batch ended (docs/lab.md, "The lab's site"): `hitchbench site --db
 * DB --out SITE`, killed after minutes. Its line and messages go to the
 * job's log, how it went to results/lab/jobs/JOBID.site. A failed refresh
 * is the site's, not the job's: the batch is stored, and the next job's
 * refresh catches up. */
static void refresh_site(const char *self, const char *lab, const char *job_id, const char *site, const char *db,
			 double minutes)
{
	char *argv[] = { (char *)self, "site", "--db", (char *)db, "--out", (char *)site, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char iso[32], *public_db = sqldb_public_name(db), *path = lab_job_site_path(lab, job_id);
	char *summary = NULL, *why = NULL;
	struct lab_site_refresh rr = { .job_id = job_id, .site = site, .db = public_db, .finished_utc = iso,
				       .exit_code = -1 };
	struct kvfile kf;
	int status = 0, r;

	fflush(stdout);
	fflush(stderr);
	r = spawn_capture_until(argv, NULL, &out, &err, mono_ns() + (uint64_t)(minutes * 60e9), &status);
	if (err.len)
		fputs(err.buf, stderr);   /* the site's own messages, into the job's log */
	summary = last_line(out.buf);
	if (r == -ETIMEDOUT) {
		why = xasprintf("'hitchbench site' had not ended after %g minute(s) (--site-minutes): killed", minutes);
	} else if (r < 0) {
		why = xasprintf("cannot run 'hitchbench site': %s", strerror(-r));
	} else if (!WIFEXITED(status)) {
		char words[64];

		describe_wait_status(status, words, sizeof(words));
		why = xasprintf("'hitchbench site' ended by %s", words);
	} else {
		rr.exit_code = WEXITSTATUS(status);
		if (rr.exit_code != 0 && !(why = lab_site_error(err.buf)))
			why = xstrdup("'hitchbench site' said nothing");
	}
	utc_iso8601(time(NULL), iso, sizeof(iso));
	rr.summary = summary;   /* exit 1 may come with it: a page that lacks a part */
	rr.error = why;
	kvfile_init(&kf);
	lab_site_refresh_fill(&kf, &rr);
	if ((r = kvfile_write(&kf, path)) < 0)
		warn_msg("lab job %s: cannot write '%s': %s", job_id, path, strerror(-r));
	if (rr.exit_code == 0)
		info_msg("lab job %s: %s", job_id, summary ? summary : "the site was refreshed");
	else if (rr.exit_code > 0)
		warn_msg("lab job %s: the refresh of the site %s failed (exit %d: %s): the batch is stored, the next "
			 "job's refresh catches up", job_id, site, rr.exit_code, why);
	else
		warn_msg("lab job %s: the refresh of the site %s failed (%s): the batch is stored, the next job's "
			 "refresh catches up", job_id, site, why);
	kvfile_release(&kf);
	free(summary);
	free(why);
	free(path);
	free(public_db);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* hitchbench lab job --lab-dir DIR [--kernel K] [--site SITE [--site-minutes M]] -- RUN-ARGS...:
 * what the job script runs (lab_job_script). It execs the batch's runner,
 * so the runner is the job's own process (slurmstepd's child), and exits 0
 * without a batch when the node is to reboot into the job's kernel. With
 * --site it stays the runner's parent instead, and refreshes the site once
 * the runner has ended; the job's exit status is the runner's all the
 * same. */
static int lab_job(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "lab-dir", required_argument, NULL, 'l' }, { "kernel", required_argument, NULL, 'k' },
		{ "site", required_argument, NULL, 's' }, { "site-minutes", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	double site_minutes = LAB_SITE_MINUTES;
	const char *dir = NULL, *kernel = NULL, *site = NULL, *db = NULL, *job_id = getenv("SLURM_JOB_ID");
	struct argv_list av;
	char *batches, self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int c, r, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c == 'l')
			dir = optarg;
		else if (c == 'k')
			kernel = optarg;
		else if (c == 's' && (r = lab_site_usage(optarg)) != 0)
			return r;
		else if (c == 's')
			site = optarg;
		else if (c == 'm' && (r = lab_site_minutes_usage(optarg, &site_minutes)) != 0)
			return r;
		else if (c != 'm')
			return lab_usage_error("lab job: unknown option%s", "");
	}
	if (!dir || optind >= argc)
		return lab_usage_error("lab job wants --lab-dir DIR and the run's arguments%s", "");
	if (site && !(db = lab_job_db(argv + optind)))
		return lab_usage_error("lab job --site wants the run's --db=DB: the site is made from it%s", "");
	if (!job_id || !*job_id)
		return lab_usage_error("lab job runs in a Slurm job (no SLURM_JOB_ID)%s", "");
	if (n <= 0)
		snprintf(self, sizeof(self), "/proc/self/exe");
	else
		self[n] = '\0';
	if (kernel && (r = ensure_kernel(self, kernel)) != HB_EXIT_OK)
		return r == HB_EXIT_REBOOTING ? HB_EXIT_OK : r;
	batches = lab_job_batches_dir(dir, job_id);
	if ((r = mkdir_p(batches, 0755)) < 0) {
		error_msg("cannot make '%s': %s", batches, strerror(-r));
		free(batches);
		return HB_EXIT_FAILURE;
	}
	argv_init(&av);
	r = job_argv(self, batches, argv + optind, argc - optind, &av, job_id);
	if (r == 0 && !site) {
		fflush(stdout);
		fflush(stderr);
		execv(self, av.v);
		error_msg("cannot run hitchbench run: %s", strerror(errno));
		r = HB_EXIT_FAILURE;
	} else if (r == 0 && (r = run_batch(av.v, &status)) < 0) {
		error_msg("cannot run hitchbench run: %s", strerror(-r));
		r = HB_EXIT_FAILURE;
	} else if (r == 0) {
		/* a cancel or a requeue: the job ends now, the next job refreshes */
		if (job_stopped)
			note_msg("lab job %s: stopped (signal %d, %s): the site %s is left to the next job's refresh",
				 job_id, (int)job_stopped, strsignal(job_stopped), site);
		else
			refresh_site(self, dir, job_id, site, db, site_minutes);
		r = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	(void)ctx;
	argv_release(&av);
	free(batches);
	return r;
}

/* ---- cancel ---- */

static int lab_cancel(int argc, char **argv, struct context *ctx)
{
	struct argv_list ids, cmd;
	struct strbuf err = STRBUF_INIT;
	bool all = argc == 2 && !strcmp(argv[1], "--all");
	int status = 0, ret = HB_EXIT_OK, r;

	if (argc < 2)
		return lab_usage_error("lab cancel wants job ids or --all%s", "");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(lab_usage, stdout);
		return HB_EXIT_OK;
	}
	argv_init(&ids);
	if (all && lab_jobs_active(ctx, &ids) < 0) {
		argv_release(&ids);
		return HB_EXIT_FAILURE;
	}
	if (!all)
		for (int i = 1; i < argc; i++) {
			int id;

			if (safe_atoi(argv[i], &id) < 0 || id < 1) {
				argv_release(&ids);
				return lab_usage_error("lab cancel wants job ids (numbers), not '%s'", argv[i]);
			}
			argv_push(&ids, argv[i]);
		}
	if (all && ids.n == 0) {
		printf("no job of the lab is pending or running\n");
		argv_release(&ids);
		return HB_EXIT_OK;
	}
	argv_init(&cmd);
	argv_push(&cmd, "scancel");
	for (size_t i = 0; i < ids.n; i++)
		argv_push(&cmd, ids.v[i]);
	r = spawn_capture_io(cmd.v, NULL, NULL, &err, &status);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error_msg("scancel failed: %s", r < 0 ? strerror(-r) : err.len ? str_strip(err.buf) : "no reason given");
		ret = HB_EXIT_FAILURE;
	} else {
		for (size_t i = 0; i < ids.n; i++)
			printf("cancelled job %s: its batch stops, the finished runs stay ('hitchbench lab results %s')\n",
			       ids.v[i], ids.v[i]);
	}
	argv_release(&cmd);
	argv_release(&ids);
	strbuf_release(&err);
	return ret;
}

/* The subcommands; ensure-kernel is bench/cmd/lab-kernel.c's. */
static const struct subcommand subcommands[] = {
	{ "init", lab_init },
	{ "submit", cmd_lab_submit },
	{ "status", cmd_lab_status },
	{ "cancel", lab_cancel },
	{ "results", cmd_lab_results },
	{ "job", lab_job },
	{ "ensure-kernel", cmd_lab_ensure_kernel },
};

int cmd_lab(int argc, char **argv, struct context *ctx)
{
	return run_subcommand("lab", lab_usage, subcommands, ARRAY_SIZE(subcommands), argc, argv, ctx);
}
