/*
 * The lab's pure parts (bench/lab/lab.h): the machines file read and refused
 * line by line, slurm.conf written from it, Slurm's outputs read back
 * from what a real Slurm 22.05 printed (tests/fixtures/lab/, made by its
 * capture.sh), the words of each state, a job's batch found again after
 * a requeue, the options a resume keeps, the job script, and the matrix
 * file.
 */
#include "lab/lab.h"
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

static const char good_machines[] =
	"# a lab\n"
	"hitchbench-machines 1\n"
	"controller ctl 10.0.0.1\r\n"
	"  node ps3 10.0.0.10 ps3,ppc64 6 256   # the console\n"
	"node pc pc.lan - 16 32768\n";

START_TEST(machines_parse)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_machines m;

	lab_machines_init(&m);
	ck_assert_int_eq(lab_machines_parse(&m, good_machines, "m", &err), 0);
	ck_assert_str_eq(m.controller.name, "ctl");
	ck_assert_str_eq(m.controller.address, "10.0.0.1");
	ck_assert_uint_eq(m.n_nodes, 2);
	ck_assert_str_eq(m.nodes[0].name, "ps3");
	ck_assert_str_eq(m.nodes[0].features, "ps3,ppc64");
	ck_assert_int_eq(m.nodes[0].cpus, 6);
	ck_assert_int_eq(m.nodes[0].memory_mb, 256);
	ck_assert_str_eq(m.nodes[1].address, "pc.lan");
	ck_assert_ptr_null(m.nodes[1].features);
	ck_assert_uint_eq(err.len, 0);
	lab_machines_release(&m);
	strbuf_release(&err);
}
END_TEST

/* Each bad text and the one message it gets; m is left untouched. */
START_TEST(machines_refused)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ "", "m: empty: the first line must be 'hitchbench-machines 1'" },
		{ "node a b - 1 1\n", "m:1: the first line must be 'hitchbench-machines 1'" },
		{ "hitchbench-machines 1 2\n", "m:1: the first line must be 'hitchbench-machines 1'" },
		{ "hitchbench-machines x\n", "m:1: machines format 'x' is not one this hitchbench reads (1)" },
		{ "hitchbench-machines 1\ncontroller c\n", "m:2: a controller line is 'controller NAME ADDRESS'" },
		{ "hitchbench-machines 1\ncontroller c a\nnode n a - 1 -5\n",
		  "m:3: MEMORY_MB wants megabytes over 0, not '-5'" },
		{ "hitchbench-machines 1\ncontroller c a\nnode n a - 0 5\n",
		  "m:3: CPUs wants a count from 1 to 65536, not '0'" },
		{ "hitchbench-machines 1\ncontroller c a\nnode n a,b - 1 5\n",
		  "m:3: address 'a,b' is not a host name or an IP address" },
		{ "hitchbench-machines 1\ncontroller c a\nnode -n a - 1 5\n",
		  "m:3: node name '-n' is not a name Slurm takes (letters, digits, '-', '_', '.')" },
		{ "hitchbench-machines 1\ncontroller c a\nnode n a x, 1 5\n",
		  "m:3: features 'x,' are not a comma list of names (or '-' for none)" },
		{ "hitchbench-machines 1\ncontroller c a\nnode n a - 1 5\n", NULL },
	};
	struct lab_machines m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf err = STRBUF_INIT;
		int r;

		lab_machines_init(&m);
		m.n_nodes = 99;   /* a sentinel: a refused parse writes nothing */
		r = lab_machines_parse(&m, bad[i].text, "m", &err);
		if (!bad[i].message) {
			ck_assert_int_eq(r, 0);
			lab_machines_release(&m);
		} else {
			ck_assert_int_eq(r, -EINVAL);
			ck_assert_uint_eq(m.n_nodes, 99);
			ck_assert_str_eq(err.buf, bad[i].message);
		}
		strbuf_release(&err);
	}
}
END_TEST

START_TEST(conf_written)
{
	struct lab_conf_opts o = { "lab1", "slurm", 6817, NULL, NULL, "/usr/lib/hitchbench/hitchbench-reboot" };
	struct strbuf err = STRBUF_INIT, conf = STRBUF_INIT, steps = STRBUF_INIT;
	struct lab_machines m;

	lab_machines_init(&m);
	ck_assert_int_eq(lab_machines_parse(&m, good_machines, "m", &err), 0);
	lab_conf_write(&conf, &m, &o);
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nSlurmctldHost=ctl(10.0.0.1)\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nNodeName=ps3 NodeAddr=10.0.0.10 CPUs=6 RealMemory=256 "
					       "Features=ps3,ppc64 State=UNKNOWN\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nNodeName=pc NodeAddr=pc.lan CPUs=16 RealMemory=32768 State=UNKNOWN\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nRebootProgram=/usr/lib/hitchbench/hitchbench-reboot\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nJobAcctGatherType=jobacct_gather/none\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nHealthCheckInterval=0\n"));
	ck_assert_ptr_nonnull(strstr(conf.buf, "\nJobCompLoc=/var/log/slurm/jobcomp.txt\n"));
	ck_assert_ptr_null(strstr(conf.buf, "AuthInfo"));   /* munge's own socket */
	/* every setting line follows a comment block or another setting:
	 * nothing unexplained at the top of a group */
	for (const char *p = conf.buf; (p = strstr(p, "\n\n")); p += 2)
		ck_assert(p[2] == '#' || p[2] == '\0');
	lab_conf_instructions(&steps, &m, &o, "/x/conf");
	ck_assert_ptr_nonnull(strstr(steps.buf, "slurmd on each node: ps3 pc.\n"));
	ck_assert_ptr_nonnull(strstr(steps.buf, "/x/conf/slurm.conf goes to /etc/slurm/slurm.conf"));
	lab_machines_release(&m);
	strbuf_release(&err);
	strbuf_release(&conf);
	strbuf_release(&steps);
}
END_TEST

static char *fixture_text(const char *rel)
{
	char *text = NULL;

	ck_assert_msg(read_file(fixture_path(rel), &text, NULL) == 0, "cannot read fixture %s", rel);
	return text;
}

/* squeue's lines of a real cluster (capture.sh: jobs 1..6, jobs.txt). */
START_TEST(squeue_real)
{
	struct lab_slurm_jobs l;
	char *text = fixture_text("lab/squeue.txt");
	struct lab_slurm_job *j;
	bool fin;
	int bad = 0;

	lab_slurm_jobs_init(&l);
	ck_assert_int_eq(lab_squeue_parse(&l, text, &bad), 0);
	ck_assert_uint_eq(l.n, 6);
	j = lab_slurm_jobs_find(&l, "3");
	ck_assert_str_eq(j->state, "RUNNING");
	ck_assert_str_eq(j->nodes, "node1");
	ck_assert_str_eq(j->name, "hb:dsda-doom");
	ck_assert_str_eq(lab_state_words(j, &fin), "running");
	ck_assert(!fin);
	j = lab_slurm_jobs_find(&l, "4");
	ck_assert_ptr_null(j->nodes);
	ck_assert_str_eq(lab_state_words(j, &fin), "waiting for a node");
	ck_assert_str_eq(lab_state_words(lab_slurm_jobs_find(&l, "2"), &fin), "failed");
	ck_assert(fin);
	ck_assert_str_eq(lab_state_words(lab_slurm_jobs_find(&l, "6"), &fin), "cancelled");
	ck_assert_ptr_null(lab_slurm_jobs_find(&l, "7"));
	lab_slurm_jobs_release(&l);
	free(text);

	lab_slurm_jobs_init(&l);
	ck_assert_int_eq(lab_squeue_parse(&l, "1|RUNNING|n|None|x\n2|RUNNING|n\n", &bad), -EINVAL);
	ck_assert_int_eq(bad, 2);
	ck_assert_int_eq(lab_squeue_parse(&l, "x|RUNNING|n|None|y\n", &bad), -EINVAL);
	ck_assert_int_eq(bad, 1);
	lab_slurm_jobs_release(&l);
}
END_TEST

/* The completion log of the same cluster: job 3's NODE_FAIL record is its
 * requeue; a later record of it would count it. */
START_TEST(jobcomp_real)
{
	struct lab_slurm_jobs l;
	char *text = fixture_text("lab/jobcomp.txt"), *more;
	struct lab_slurm_job *j;
	bool fin;
	int bad = 0;

	lab_slurm_jobs_init(&l);
	ck_assert_int_eq(lab_jobcomp_parse(&l, text, &bad), 0);
	ck_assert_uint_eq(l.n, 4);
	j = lab_slurm_jobs_find(&l, "2");
	ck_assert_str_eq(j->state, "FAILED");
	ck_assert_str_eq(j->exit_code, "3:0");
	ck_assert_str_eq(j->name, "hb:fake");
	j = lab_slurm_jobs_find(&l, "3");
	ck_assert_str_eq(j->state, "NODE_FAIL");
	ck_assert_int_eq(j->requeues, 0);
	ck_assert_str_eq(lab_state_words(j, &fin), "its node failed");
	lab_slurm_jobs_release(&l);

	/* job 3 ends after its requeue: one requeue, finished */
	more = xasprintf("%sJobId=3 UserId=root(0) Name=hb:dsda-doom JobState=COMPLETED NodeList=node1 ExitCode=0:0\n",
			 text);
	lab_slurm_jobs_init(&l);
	ck_assert_int_eq(lab_jobcomp_parse(&l, more, &bad), 0);
	j = lab_slurm_jobs_find(&l, "3");
	ck_assert_int_eq(j->requeues, 1);
	ck_assert_str_eq(lab_state_words(j, &fin), "finished");
	ck_assert(fin);
	ck_assert_int_eq(lab_jobcomp_parse(&l, "JobId=9 Name=x\n", &bad), -EINVAL);
	ck_assert_int_eq(bad, 1);
	lab_slurm_jobs_release(&l);
	free(more);
	free(text);
}
END_TEST

/* sacct -n -P -X -o LAB_SACCT_FIELDS, as its manual describes it: made by
 * hand (no slurmdbd here to record from, tests/fixtures/lab/README.md). */
START_TEST(sacct_lines)
{
	struct lab_slurm_jobs l;
	struct lab_slurm_job *j;
	bool fin;
	int bad = 0;

	lab_slurm_jobs_init(&l);
	ck_assert_int_eq(lab_sacct_parse(&l, "7|COMPLETED|node1|0:0|hb:fake\n"
					     "8|CANCELLED by 0|None assigned|0:0|hb:fake\n"
					     "9|FAILED|ps3|1:0|hb:dsda-doom\n", &bad), 0);
	ck_assert_uint_eq(l.n, 3);
	j = lab_slurm_jobs_find(&l, "8");
	ck_assert_str_eq(j->state, "CANCELLED");
	ck_assert_ptr_null(j->nodes);
	j = lab_slurm_jobs_find(&l, "9");
	ck_assert_str_eq(j->exit_code, "1:0");
	ck_assert_ptr_null(j->reason);
	ck_assert_str_eq(lab_state_words(j, &fin), "failed");
	lab_slurm_jobs_release(&l);
}
END_TEST

START_TEST(config_value)
{
	char *text = fixture_text("lab/config.txt"), *v;

	v = lab_slurm_config_value(text, "JobCompType");
	ck_assert_str_eq(v, "jobcomp/filetxt");
	free(v);
	v = lab_slurm_config_value(text, "AccountingStorageType");
	ck_assert_str_eq(v, "accounting_storage/none");
	free(v);
	v = lab_slurm_config_value(text, "JobCompLoc");
	ck_assert_str_eq(v, "/tmp/t/slurm/state/log/jobcomp.txt");
	free(v);
	v = lab_slurm_config_value(text, "SlurmdTimeout");
	ck_assert_str_eq(v, "3600 sec");
	free(v);
	ck_assert_ptr_null(lab_slurm_config_value(text, "NoSuchKey"));
	free(text);
}
END_TEST

START_TEST(requeue_words)
{
	struct lab_slurm_job j = { .id = "1", .state = "PENDING", .reason = "BeginTime" };
	bool fin;

	ck_assert_str_eq(lab_state_words(&j, &fin), "waiting to start again (Slurm holds a requeued job for a while)");
	j.requeues = 1;
	ck_assert_str_eq(lab_state_words(&j, &fin), "requeued after its node failed, waiting to start again");
	j.reason = "Resources";
	ck_assert_str_eq(lab_state_words(&j, &fin), "requeued after its node failed, waiting to start again");
	j.state = NULL;
	ck_assert_str_eq(lab_state_words(&j, &fin), "unknown to Slurm");
	j.state = "NEW_STATE";
	ck_assert_str_eq(lab_state_words(&j, &fin), "NEW_STATE");
}
END_TEST

/* A requeued job finds the one batch its first start made. */
START_TEST(find_batch)
{
	char *dir = test_tmpdir(), *jobs = xasprintf("%s/12", dir), *found = NULL;

	ck_assert_int_eq(lab_job_find_batch(jobs, &found), -ENOENT);
	ck_assert_int_eq(mkdir_p(jobs, 0755), 0);
	ck_assert_int_eq(lab_job_find_batch(jobs, &found), -ENOENT);
	test_put(jobs, "B1/runs.txt", "");                /* no batch.txt: not a batch */
	test_put(jobs, ".B0.tmp/batch.txt", "format=1\n"); /* hidden: not one */
	ck_assert_int_eq(lab_job_find_batch(jobs, &found), -ENOENT);
	test_put(jobs, "B2/batch.txt", "format=1\n");
	ck_assert_int_eq(lab_job_find_batch(jobs, &found), 0);
	ck_assert(str_startswith(found, jobs) && !strcmp(found + strlen(jobs), "/B2"));
	free(found);
	found = NULL;
	test_put(jobs, "B3/batch.txt", "format=1\n");
	ck_assert_int_eq(lab_job_find_batch(jobs, &found), -EEXIST);
	ck_assert_ptr_null(found);
	remove_tree(dir);
	free(jobs);
	free(dir);
}
END_TEST

START_TEST(resume_options)
{
	char *run[] = { "--warmup=1", "--db=postgresql://h/db", "--no-quieting", "--window=2", "--display=:99",
			"--switches=A=1", "--profile=quiet", "--verbose", "--dbx", "--quiet", NULL };
	struct argv_list out;
	char *joined;

	argv_init(&out);
	lab_resume_options(run, &out);
	joined = argv_join(out.v);
	ck_assert_str_eq(joined, "--db=postgresql://h/db --no-quieting --display=:99 --profile=quiet --verbose --quiet");
	free(joined);
	argv_release(&out);
}
END_TEST

START_TEST(job_name_script)
{
	char *s;

	s = lab_job_name("/x/y/fake.ini");
	ck_assert_str_eq(s, "hb:fake");
	free(s);
	s = lab_job_name("dsda-doom");
	ck_assert_str_eq(s, "hb:dsda-doom");
	free(s);
	s = lab_job_script("/opt/it's/hitchbench");
	ck_assert(str_startswith(s, "#!/bin/sh\n"));
	ck_assert_ptr_nonnull(strstr(s, "\nexec '/opt/it'\\''s/hitchbench' lab job \"$@\"\n"));
	ck_assert_ptr_nonnull(strstr(s, "with --site refreshes the lab's site"));
	free(s);
}
END_TEST

/* The job record's pairs, in the documented order, a site among them. */
START_TEST(job_record)
{
	struct lab_job_record rec = { .job_id = "12", .submitted_utc = "2026-12-06T08:00:00Z", .game = "dsda-doom",
				      .variants = "software gl", .rounds = 3, .db = "postgresql://bench@lab/hb",
				      .batches_dir = "/r/lab/jobs/12", .site = "/srv/lab-site", .sbatch = "sbatch x" };
	struct kvfile kf;
	char *text;

	kvfile_init(&kf);
	lab_job_record_fill(&kf, &rec);
	text = kvfile_format(&kf);
	ck_assert_str_eq(text, "format=1\njob_id=12\nsubmitted_utc=2026-12-06T08:00:00Z\ngame=dsda-doom\n"
			       "variants=software gl\nrounds=3\ntokens=\nkernel=\nnodes=\nconstraint=\n"
			       "db=postgresql://bench@lab/hb\nbatches_dir=/r/lab/jobs/12\nsite=/srv/lab-site\n"
			       "sbatch=sbatch x\n");
	free(text);
	kvfile_release(&kf);
	/* without a site: the key is there, empty */
	rec.site = NULL;
	kvfile_init(&kf);
	lab_job_record_fill(&kf, &rec);
	ck_assert_str_eq(kvfile_get(&kf, "site"), "");
	kvfile_release(&kf);
}
END_TEST

/* --site: an absolute directory, not the root; the job's database is its
 * run's last --db=. */
START_TEST(site_options)
{
	char *run[] = { "--warmup=1", "--db=/a.db", "--dbx=y", "--db=postgresql://h/db", "--quiet", NULL };
	char *none[] = { "--warmup=1", "--db", "/b.db", NULL }, *empty[] = { "--db=", NULL };
	const char *why = NULL;

	ck_assert_int_eq(lab_site_dir_check("/srv/lab-site", &why), 0);
	ck_assert_int_eq(lab_site_dir_check("/srv/lab site/", &why), 0);
	ck_assert_int_eq(lab_site_dir_check("site", &why), -EINVAL);
	ck_assert_str_eq(why, "an absolute directory (the job runs elsewhere)");
	ck_assert_int_eq(lab_site_dir_check("./site", &why), -EINVAL);
	ck_assert_int_eq(lab_site_dir_check("", &why), -EINVAL);
	ck_assert_int_eq(lab_site_dir_check(NULL, &why), -EINVAL);
	ck_assert_int_eq(lab_site_dir_check("//", &why), -EINVAL);
	ck_assert_str_eq(why, "a directory of its own, not the root");
	ck_assert_str_eq(lab_job_db(run), "postgresql://h/db");
	ck_assert_ptr_null(lab_job_db(none));   /* submit passes --db=DB, one word */
	ck_assert_ptr_null(lab_job_db(empty));
}
END_TEST

/* Why the site command failed, from its stderr: its last error message,
 * not a database's lines after it, nor a warning. */
START_TEST(site_error)
{
	char *e;

	e = lab_site_error("hitchbench: warning: batch B has no end\n"
			   "hitchbench: cannot build the site in '/s': cannot list batches in 'postgresql:///hb': "
			   "ERROR:  UNION types bigint and text cannot be matched\n"
			   "LINE 1: ..., NULL, NULL FROM ...\n"
			   "                            ^\n");
	ck_assert_str_eq(e, "cannot build the site in '/s': cannot list batches in 'postgresql:///hb': "
			    "ERROR:  UNION types bigint and text cannot be matched");
	free(e);
	e = lab_site_error("hitchbench: note: one\nhitchbench: warning: two  \n\n");
	ck_assert_str_eq(e, "warning: two");
	free(e);
	e = lab_site_error("Segmentation fault\n   \n");
	ck_assert_str_eq(e, "Segmentation fault");
	free(e);
	ck_assert_ptr_null(lab_site_error(" \n\n"));
	ck_assert_ptr_null(lab_site_error(""));
	ck_assert_ptr_null(lab_site_error(NULL));
}
END_TEST

/* JOBID.site written and read back in lab status's words. */
START_TEST(site_refresh)
{
	struct lab_site_refresh rr = { .job_id = "12", .site = "/srv/s", .db = "/r/lab.db",
				       .finished_utc = "2026-12-06T08:00:00Z", .exit_code = 0,
				       .summary = "site /srv/s: 9 pages, 2 written, 7 unchanged, 0 removed; "
						  "1 change points (1 new); 0.4 s" };
	struct strbuf sb = STRBUF_INIT;
	struct kvfile kf, back;
	char *text, *path;

	path = lab_job_site_path("/r/lab", "12");
	ck_assert_str_eq(path, "/r/lab/jobs/12.site");
	free(path);
	kvfile_init(&kf);
	lab_site_refresh_fill(&kf, &rr);
	text = kvfile_format(&kf);
	ck_assert_str_eq(text, "format=1\njob_id=12\nsite=/srv/s\ndb=/r/lab.db\nfinished_utc=2026-12-06T08:00:00Z\n"
			       "status=refreshed\nexit=0\nsummary=site /srv/s: 9 pages, 2 written, 7 unchanged, "
			       "0 removed; 1 change points (1 new); 0.4 s\nerror=\n");
	kvfile_init(&back);
	ck_assert_int_eq(kvfile_parse(&back, text, NULL), 0);
	ck_assert_int_eq(lab_site_refresh_words(&back, &sb), 0);
	ck_assert_str_eq(sb.buf, "site /srv/s refreshed");
	free(text);
	kvfile_release(&kf);
	kvfile_release(&back);

	/* the site command failed: its exit status and its last word */
	rr.exit_code = 1;
	rr.summary = NULL;
	rr.error = "cannot make '/srv/s': Not a directory";
	kvfile_init(&kf);
	lab_site_refresh_fill(&kf, &rr);
	ck_assert_str_eq(kvfile_get(&kf, "status"), "failed");
	strbuf_reset(&sb);
	ck_assert_int_eq(lab_site_refresh_words(&kf, &sb), 0);
	ck_assert_str_eq(sb.buf, "site /srv/s refresh failed (exit 1: cannot make '/srv/s': Not a directory)");
	kvfile_release(&kf);
	/* it did not run, or a signal ended it: no exit status */
	rr.exit_code = -1;
	rr.error = "cannot run 'hitchbench site': No such file or directory";
	kvfile_init(&kf);
	lab_site_refresh_fill(&kf, &rr);
	strbuf_reset(&sb);
	ck_assert_int_eq(lab_site_refresh_words(&kf, &sb), 0);
	ck_assert_str_eq(sb.buf, "site /srv/s refresh failed (cannot run 'hitchbench site': No such file or directory)");
	kvfile_release(&kf);

	/* not one: another format, no site, an unknown status */
	strbuf_reset(&sb);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "format=2\nsite=/s\nstatus=refreshed\n", NULL), 0);
	ck_assert_int_eq(lab_site_refresh_words(&kf, &sb), -EINVAL);
	kvfile_release(&kf);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "format=1\nstatus=refreshed\n", NULL), 0);
	ck_assert_int_eq(lab_site_refresh_words(&kf, &sb), -EINVAL);
	kvfile_release(&kf);
	kvfile_init(&kf);
	ck_assert_int_eq(kvfile_parse(&kf, "format=1\nsite=/s\nstatus=maybe\n", NULL), 0);
	ck_assert_int_eq(lab_site_refresh_words(&kf, &sb), -EINVAL);
	kvfile_release(&kf);
	ck_assert_uint_eq(sb.len, 0);
	strbuf_release(&sb);
}
END_TEST

START_TEST(matrix)
{
	struct strbuf err = STRBUF_INIT;
	struct lab_matrix m;
	char *shipped = NULL;

	ck_assert(!lab_matrix_is("[recipe]\nname = x\n"));
	ck_assert(lab_matrix_is("# c\n  [matrix]\n"));
	ck_assert(lab_matrix_is("[game x]\n"));
	/* the shipped matrix: 8 games, rounds 2 from [matrix] */
	ck_assert_int_eq(read_file(srcdir_path("recipes/matrix.ini"), &shipped, NULL), 0);
	ck_assert(lab_matrix_is(shipped));
	ck_assert_int_eq(lab_matrix_parse(&m, shipped, "matrix.ini", &err), 0);
	ck_assert_uint_eq(m.n, 8);
	ck_assert_str_eq(m.v[0].game, "dsda-doom");
	ck_assert_str_eq(m.v[0].variants, "software gl");
	ck_assert_str_eq(m.v[0].tokens, "-");
	ck_assert_int_eq(m.v[0].rounds, 2);
	lab_matrix_release(&m);
	free(shipped);

	ck_assert_int_eq(lab_matrix_parse(&m, "[game a]\nvariants = x\nrounds = 3\n[game ./b.ini]\nvariants = y z\n"
					  "tokens = A=1 -\n", "m", &err), 0);
	ck_assert_int_eq(m.v[0].rounds, 3);
	ck_assert_int_eq(m.v[1].rounds, 5);   /* bench-matrix.sh's default */
	ck_assert_str_eq(m.v[1].game, "./b.ini");
	ck_assert_str_eq(m.v[1].tokens, "A=1 -");
	lab_matrix_release(&m);

	ck_assert_int_eq(lab_matrix_parse(&m, "[matrix]\nrounds = 2\n[game a]\nrounds = 1\n", "m", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "m:3: game a has no variants");
	strbuf_reset(&err);
	ck_assert_int_eq(lab_matrix_parse(&m, "[matrix]\nrounds = 0\n", "m", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "m:2: rounds wants a whole number > 0, not \"0\"");
	strbuf_reset(&err);
	ck_assert_int_eq(lab_matrix_parse(&m, "[games a]\n", "m", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "m:1: unknown section [games a] (want [matrix] or [game NAME])");
	strbuf_reset(&err);
	ck_assert_int_eq(lab_matrix_parse(&m, "[game a]\nvariants = x\nkernel = 6\n", "m", &err), -EINVAL);
	ck_assert_str_eq(err.buf, "m:3: unknown key \"kernel\" in [game a]");
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(lab_suite)
{
	Suite *s = suite_create("lab");
	TCase *tc = tcase_create("lab");

	tcase_add_test(tc, machines_parse);
	tcase_add_test(tc, machines_refused);
	tcase_add_test(tc, conf_written);
	tcase_add_test(tc, squeue_real);
	tcase_add_test(tc, jobcomp_real);
	tcase_add_test(tc, sacct_lines);
	tcase_add_test(tc, config_value);
	tcase_add_test(tc, requeue_words);
	tcase_add_test(tc, find_batch);
	tcase_add_test(tc, resume_options);
	tcase_add_test(tc, job_name_script);
	tcase_add_test(tc, job_record);
	tcase_add_test(tc, site_options);
	tcase_add_test(tc, site_error);
	tcase_add_test(tc, site_refresh);
	tcase_add_test(tc, matrix);
	suite_add_tcase(s, tc);
	return s;
}
