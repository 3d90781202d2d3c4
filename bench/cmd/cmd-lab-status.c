/*
 * hitchbench lab status and lab results: the lab's jobs in the harness's
 * words. Slurm says where a job is (squeue while it knows it; then sacct
 * where accounting is stored, else the job completion log), the job's
 * record says what it is (results/lab/jobs/JOBID.txt), its batch's
 * runs.txt how far it got, and JOBID.site how its refresh of the lab's
 * site went. results prints the report of the job's batches as the
 * database holds them.
 */
#include "batch/batch.h"
#include "cmd/cmd-lab.h"
#include "base/exitcodes.h"
#include "lab/lab.h"
#include "cmd/reportrows.h"
#include "runner/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* A Slurm command's standard output: 0, or -1 after saying why not. */
static int slurm_output(char *const *argv, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	int status = 0, r = spawn_capture_io(argv, NULL, out, &err, &status);

	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error_msg("%s failed: %s", argv[0], r < 0 ? strerror(-r) : err.len ? str_strip(err.buf) : "no reason");
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	return 0;
}

/* What Slurm knows of the jobs: squeue's, and for the ones it forgot,
 * sacct's (accounting stored) or the completion log's; the log's
 * requeues are counted either way. 0, or -1 after saying why not. */
static int slurm_jobs(struct lab_slurm_jobs *jobs)
{
	char *sq[] = { "squeue", "-h", "-t", "all", "-o", LAB_SQUEUE_FORMAT, NULL };
	char *conf[] = { "scontrol", "show", "config", NULL };
	struct strbuf out = STRBUF_INIT, cfg = STRBUF_INIT;
	struct lab_slurm_jobs log, q;
	char *acct = NULL, *comp = NULL, *loc = NULL, *text = NULL;
	int bad = 0, ret = 0;

	lab_slurm_jobs_init(&log);
	lab_slurm_jobs_init(&q);
	if (slurm_output(conf, &cfg) < 0 || slurm_output(sq, &out) < 0) {
		ret = -1;
		goto out;
	}
	if (lab_squeue_parse(&q, out.buf ? out.buf : "", &bad) < 0) {
		error_msg("squeue's line %d is not '%s'", bad, LAB_SQUEUE_FORMAT);
		ret = -1;
		goto out;
	}
	acct = lab_slurm_config_value(cfg.buf, "AccountingStorageType");
	comp = lab_slurm_config_value(cfg.buf, "JobCompType");
	loc = lab_slurm_config_value(cfg.buf, "JobCompLoc");
	if (comp && !strcmp(comp, "jobcomp/filetxt") && loc && read_file(loc, &text, NULL) == 0 &&
	    lab_jobcomp_parse(&log, text, &bad) < 0)
		warn_msg("%s:%d: not a line of Slurm's job completion log", loc, bad);
	if (acct && strcmp(acct, "accounting_storage/none") != 0) {
		char *sa[] = { "sacct", "-n", "-P", "-X", "-o", LAB_SACCT_FIELDS, NULL };

		strbuf_reset(&out);
		if (slurm_output(sa, &out) == 0 && lab_sacct_parse(&log, out.buf ? out.buf : "", &bad) < 0)
			warn_msg("sacct's line %d is not '%s'", bad, LAB_SACCT_FIELDS);
	}
	/* squeue's view wins while it has one; the requeues come from the log */
	for (size_t i = 0; i < log.n; i++) {
		struct lab_slurm_job *j = lab_slurm_jobs_find(&q, log.v[i].id);

		/* a job Slurm still holds whose last record is a requeue's was
		 * requeued once more than the log's earlier records say */
		if (!j)
			continue;
		j->requeues = log.v[i].requeues + (!strcmp(log.v[i].state, "NODE_FAIL") ||
						   !strcmp(log.v[i].state, "REQUEUED") ||
						   !strcmp(log.v[i].state, "PREEMPTED"));
		/* squeue has no exit code: the log's, of a job that ended */
		if (!j->exit_code && log.v[i].exit_code && strcmp(j->state, log.v[i].state) == 0)
			j->exit_code = xstrdup(log.v[i].exit_code);
	}
	*jobs = q;
	lab_slurm_jobs_init(&q);
	for (size_t i = 0; i < log.n; i++)
		if (!lab_slurm_jobs_find(jobs, log.v[i].id)) {
			jobs->v = xrealloc(jobs->v, sizeof(*jobs->v) * (jobs->n + 1));
			jobs->v[jobs->n++] = log.v[i];
			memset(&log.v[i], 0, sizeof(log.v[i]));
			log.v[i].id = xstrdup("");
		}
out:
	free(acct);
	free(comp);
	free(loc);
	free(text);
	strbuf_release(&out);
	strbuf_release(&cfg);
	lab_slurm_jobs_release(&q);
	lab_slurm_jobs_release(&log);
	return ret;
}

/* The job ids of the records under LAB/jobs, in number order. */
static void recorded_jobs(const char *lab, struct argv_list *ids)
{
	char *dir = xasprintf("%s/jobs", lab);
	DIR *d = opendir(dir);
	struct dirent *de;
	int *v = NULL;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		int id;
		char *num;

		if (len < 5 || strcmp(de->d_name + len - 4, ".txt") != 0)
			continue;
		num = xstrndup(de->d_name, len - 4);
		if (safe_atoi(num, &id) == 0 && id > 0) {
			v = xrealloc(v, sizeof(*v) * (n + 1));
			v[n++] = id;
		}
		free(num);
	}
	if (d)
		closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && v[k - 1] > v[k]; k--) {
			int t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		argv_pushf(ids, "%d", v[i]);
	free(v);
	free(dir);
}

/* The job's ids from the arguments, else every recorded one (the parser
 * contract, exitcodes.h). */
static int job_ids(int argc, char **argv, const char *lab, struct argv_list *ids)
{
	for (int i = 1; i < argc; i++) {
		int id;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			lab_usage_print(stdout);
			return HB_ARGS_DONE;
		}
		if (safe_atoi(argv[i], &id) < 0 || id < 1)
			return lab_usage_error("a job id is a number, not '%s'", argv[i]);
		argv_push(ids, argv[i]);
	}
	if (argc < 2)
		recorded_jobs(lab, ids);
	return 0;
}

/* "run 4 of 6" / "4 of 6 runs done": the job's batch as its runs.txt says. */
static void progress(const char *batches, bool running, struct strbuf *sb)
{
	struct strbuf err = STRBUF_INIT;
	struct batch b;
	char *dir = NULL;
	size_t done;

	if (lab_job_find_batch(batches, &dir) < 0) {
		if (running)
			strbuf_addstr(sb, ", its batch not started yet");
		return;
	}
	batch_init(&b);
	if (batch_open(&b, dir, NULL, &err) == 0) {
		done = b.n_slots - batch_pending(&b);
		if (running && done < b.n_slots)
			strbuf_addf(sb, ", run %zu of %zu", done + 1, b.n_slots);
		else
			strbuf_addf(sb, ", %zu of %zu run(s) done", done, b.n_slots);
	}
	batch_release(&b);
	strbuf_release(&err);
	free(dir);
}

/* "; site /srv/lab-site refreshed": how the job's refresh of the site went
 * (results/lab/jobs/JOBID.site, written by the job at its end), when it
 * has one. */
static void site_refresh(const char *lab, const char *id, struct strbuf *sb)
{
	char *path = lab_job_site_path(lab, id);
	struct strbuf words = STRBUF_INIT;
	struct kvfile kf;
	int r;

	kvfile_init(&kf);
	r = kvfile_read(&kf, path, NULL);
	if (r == -EINVAL || (r == 0 && lab_site_refresh_words(&kf, &words) < 0))
		warn_msg("'%s' is not a job's refresh of the site (format %d)", path, LAB_SITE_REFRESH_FORMAT);
	else if (r == 0)
		strbuf_addf(sb, "; %s", words.buf);
	strbuf_release(&words);
	kvfile_release(&kf);
	free(path);
}

/* One job's line: `job 12 dsda-doom "software gl" x3 on node1: running, run 4 of 6`. */
static void job_line(const char *lab, const char *id, struct lab_slurm_jobs *jobs, struct strbuf *sb)
{
	struct lab_slurm_job *j = lab_slurm_jobs_find(jobs, id), none = { 0 };
	char *path = lab_job_record_path(lab, id), *batches = lab_job_batches_dir(lab, id);
	struct kvfile rec;
	const char *kernel, *words;
	bool finished;

	kvfile_init(&rec);
	strbuf_addf(sb, "job %s", id);
	if (kvfile_read(&rec, path, NULL) == 0 && kvfile_get(&rec, "game")) {
		const char *v = kvfile_get(&rec, "variants");

		strbuf_addf(sb, " %s \"%s\" x%s", kvfile_get(&rec, "game"), v && *v ? v : "(default)",
			    kvfile_get(&rec, "rounds") ? kvfile_get(&rec, "rounds") : "?");
		kernel = kvfile_get(&rec, "kernel");
		if (kernel && *kernel)
			strbuf_addf(sb, " kernel %s", kernel);
	} else {
		strbuf_addstr(sb, " (no record of it here)");
	}
	if (!j)
		j = &none;
	if (j->nodes && *j->nodes)
		strbuf_addf(sb, " on %s", j->nodes);
	words = lab_state_words(j, &finished);
	strbuf_addf(sb, ": %s", words);
	if (j->exit_code && finished && strcmp(j->exit_code, "0:0") != 0)
		strbuf_addf(sb, " (exit %s)", j->exit_code);
	if (j->requeues && strcmp(j->state, "PENDING") != 0)   /* a pending one's words say it */
		strbuf_addf(sb, ", requeued %d time(s) after its node failed", j->requeues);
	progress(batches, j->state && !strcmp(j->state, "RUNNING"), sb);
	site_refresh(lab, id, sb);
	strbuf_addch(sb, '\n');
	kvfile_release(&rec);
	free(path);
	free(batches);
}

int cmd_lab_status(int argc, char **argv, struct context *ctx)
{
	struct lab_slurm_jobs jobs;
	struct argv_list ids;
	struct strbuf sb = STRBUF_INIT;
	char *lab = lab_dir(ctx);
	int ret;

	argv_init(&ids);
	lab_slurm_jobs_init(&jobs);
	ret = job_ids(argc, argv, lab, &ids);
	if (ret != 0)
		goto out;
	if (slurm_jobs(&jobs) < 0) {
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	if (!ids.n)
		printf("no job was submitted from here (%s/jobs)\n", lab);
	for (size_t i = 0; i < ids.n; i++)
		job_line(lab, ids.v[i], &jobs, &sb);
	fputs(sb.buf ? sb.buf : "", stdout);
out:
	strbuf_release(&sb);
	lab_slurm_jobs_release(&jobs);
	argv_release(&ids);
	free(lab);
	return hb_args_exit(ret);
}

int lab_jobs_active(struct context *ctx, struct argv_list *ids)
{
	struct lab_slurm_jobs jobs;
	struct argv_list all;
	char *lab = lab_dir(ctx);
	bool finished;

	argv_init(&all);
	lab_slurm_jobs_init(&jobs);
	recorded_jobs(lab, &all);
	if (slurm_jobs(&jobs) < 0) {
		free(lab);
		argv_release(&all);
		return -1;
	}
	for (size_t i = 0; i < all.n; i++) {
		struct lab_slurm_job *j = lab_slurm_jobs_find(&jobs, all.v[i]);

		if (j && j->state && (lab_state_words(j, &finished), !finished))
			argv_push(ids, all.v[i]);
	}
	lab_slurm_jobs_release(&jobs);
	argv_release(&all);
	free(lab);
	return 0;
}

/* The batch ids of a job: its batch directory's batch.txt. */
static void job_batch_ids(const char *lab, const char *id, struct argv_list *out)
{
	char *batches = lab_job_batches_dir(lab, id), *dir = NULL, *info;
	struct kvfile kf;

	if (lab_job_find_batch(batches, &dir) == 0) {
		kvfile_init(&kf);
		info = xasprintf("%s/batch.txt", dir);
		if (kvfile_read(&kf, info, NULL) == 0 && kvfile_get(&kf, "batch_id"))
			argv_push(out, kvfile_get(&kf, "batch_id"));
		kvfile_release(&kf);
		free(info);
		free(dir);
	}
	free(batches);
}

/* One job's report: the rows of its batch, under a line naming it. */
static int job_report(const char *lab, const char *id, const struct report_rows *rr, const struct report_opts *ro,
		      const char *db)
{
	struct argv_list batches;
	struct report_row *rows = zalloc(sizeof(*rows) * (rr->n ? rr->n : 1));
	size_t n = 0;
	int ret = HB_EXIT_OK;

	argv_init(&batches);
	job_batch_ids(lab, id, &batches);
	for (size_t i = 0; i < rr->n; i++)
		for (size_t k = 0; k < batches.n; k++)
			if (rr->db_runs[i].batch_id && !strcmp(rr->db_runs[i].batch_id, batches.v[k]))
				rows[n++] = rr->rows[i];
	if (!batches.n)
		printf("# job %s: no batch in %s/jobs/%s yet\n", id, lab, id);
	else
		printf("# job %s: %zu run(s) of batch %s in %s\n", id, n, batches.v[0], db);
	if (n && report_print(stdout, rows, n, ro) < 0)
		ret = HB_EXIT_FAILURE;
	free(rows);
	argv_release(&batches);
	return ret;
}

/* Each job's report on its own: a job is one batch on one node, and a
 * report's groups must not mix machines (the lab's database holds them all). */
int cmd_lab_results(int argc, char **argv, struct context *ctx)
{
	struct report_opts ro = { .format = REPORT_TABLE, .metric = METRIC_OPTS_DEFAULT,
				  .window_note = "as stored: frames ending in each run's measured window" };
	struct argv_list ids;
	struct report_rows rr;
	char *lab = lab_dir(ctx);
	int ret;

	argv_init(&ids);
	ro.metric.gamedb_dirs = (const char *const *)ctx->gamedb_dirs;
	ret = job_ids(argc, argv, lab, &ids);
	if (ret != 0)
		goto out;
	if (!ids.n) {
		printf("no job was submitted from here (%s/jobs)\n", lab);
		goto out;
	}
	ret = report_rows_from_db(&rr, ctx, NULL, NULL, NULL, 0, NULL);
	if (ret != HB_EXIT_OK)
		goto out;
	for (size_t i = 0; i < ids.n; i++) {
		if (i)
			putchar('\n');
		if (job_report(lab, ids.v[i], &rr, &ro, ctx->db_path) != HB_EXIT_OK)
			ret = HB_EXIT_FAILURE;
	}
	report_rows_release(&rr);
out:
	argv_release(&ids);
	free(lab);
	return hb_args_exit(ret);
}
