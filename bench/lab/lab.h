/*
 * The lab: batches run as Slurm jobs on a small cluster of machines
 * (issue 21, docs/lab.md). The pure parts live here, away from the
 * commands (cmd-lab*.c) so the unit tests reach them: the machines file
 * and the slurm.conf made from it, Slurm's own outputs read back (squeue,
 * sacct, the job completion log), what a submitted job records, and the
 * matrix file turned into batches.
 *
 * Library functions: 0 or -errno, never print; a file's error is
 * "PATH:LINE: what is wrong" in the caller's strbuf.
 */
#ifndef HB_LAB_H
#define HB_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include "text/argv.h"
#include "text/kvfile.h"
#include "base/util.h"

/* ---- the machines file (docs/lab.md, "The machines file", format 1) ---- */

#define LAB_MACHINES_FORMAT 1

struct lab_machine {
	char *name;       /* Slurm's NodeName (the controller's: its short host name) */
	char *address;    /* NodeAddr: a host name or an IP address */
	char *features;   /* "ps3,ppc64", or NULL for none ('-') */
	int cpus;
	long memory_mb;
};

struct lab_machines {
	struct lab_machine controller;   /* features, cpus, memory unused */
	struct lab_machine *nodes;
	size_t n_nodes;
};

void lab_machines_init(struct lab_machines *m);
void lab_machines_release(struct lab_machines *m);
/* Parses the text of a machines file; path names it in the error
 * ("PATH:LINE: what is wrong", appended to err). 0 or -EINVAL; m is
 * filled only on success. */
int lab_machines_parse(struct lab_machines *m, const char *text, const char *path, struct strbuf *err);

/* ---- slurm.conf (lab-conf.c) ---- */

struct lab_conf_opts {
	const char *cluster;       /* ClusterName */
	const char *slurm_user;    /* SlurmUser (Debian's package makes "slurm") */
	int port;                  /* SlurmctldPort; SlurmdPort is port + 1 */
	/* NULL: Debian's places (/var/spool/slurmctld, /var/spool/slurmd,
	 * /var/log/slurm, /run); else every state, spool, pid and log file
	 * under this directory (a test's private cluster) */
	const char *state_dir;
	const char *munge_socket;  /* NULL: munge's default socket */
	const char *reboot_program;/* RebootProgram: LIBDIR/hitchbench-reboot */
};

/* slurm.conf for the machines, each setting with why it is there, into
 * out. */
void lab_conf_write(struct strbuf *out, const struct lab_machines *m, const struct lab_conf_opts *o);
/* The steps to bring the cluster up from the files written in conf_dir,
 * as text for the command's output (docs/lab.md says the same). */
void lab_conf_instructions(struct strbuf *out, const struct lab_machines *m, const struct lab_conf_opts *o,
			   const char *conf_dir);

/* ---- Slurm's outputs read back (lab-slurm.c) ---- */

/* One job as Slurm tells it. Strings are owned. */
struct lab_slurm_job {
	char *id;        /* "12" */
	char *state;     /* RUNNING, PENDING, COMPLETED, NODE_FAIL, ... */
	char *nodes;     /* "node1", or NULL/empty while pending */
	char *reason;    /* squeue's reason ("None", "BeginTime", ...), NULL for the others */
	char *name;      /* the job's name */
	char *exit_code; /* "0:0", from sacct or the completion log; NULL from squeue */
	int requeues;    /* completion-log records of the job that ended in a requeue */
};

struct lab_slurm_jobs {
	struct lab_slurm_job *v;
	size_t n;
};

void lab_slurm_jobs_init(struct lab_slurm_jobs *l);
void lab_slurm_jobs_release(struct lab_slurm_jobs *l);
/* The job with that id, or NULL. */
struct lab_slurm_job *lab_slurm_jobs_find(struct lab_slurm_jobs *l, const char *id);

/* The squeue format lab uses, and its reader: one line a job,
 * "ID|STATE|NODES|REASON|NAME". A line that is not one is -EINVAL
 * (*bad_line set, from 1). */
#define LAB_SQUEUE_FORMAT "%i|%T|%N|%r|%j"
int lab_squeue_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line);
/* sacct -n -P -X -o LAB_SACCT_FIELDS: "ID|STATE|NODES|EXITCODE|NAME". */
#define LAB_SACCT_FIELDS "JobID,State,NodeList,ExitCode,JobName"
int lab_sacct_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line);
/* jobcomp/filetxt's log: "JobId=12 ... JobState=COMPLETED ... NodeList=node1
 * ... ExitCode=0:0" a line, a record each time a job ends or is requeued
 * (a requeued job's record says NODE_FAIL or REQUEUED). The last record of
 * a job wins; the earlier ones that were requeues are counted. */
int lab_jobcomp_parse(struct lab_slurm_jobs *l, const char *text, int *bad_line);
/* A "Key = value" line's value of `scontrol show config` (NULL when the
 * key is not there); a new string. */
char *lab_slurm_config_value(const char *text, const char *key);

/* The job in the harness's words (without "job ID ... on NODE: "):
 * "running", "waiting for a node", "requeued after a node failure,
 * waiting to start again", "finished", "failed (exit 1:0)", ... */
const char *lab_state_words(const struct lab_slurm_job *j, bool *finished);

/* ---- what a submission records (lab-job.c; docs/lab.md, "The job record") ---- */

#define LAB_JOB_FORMAT 1

/* results/lab/jobs/JOBID.txt: what the job is. The directory of its
 * batches: results/lab/jobs/JOBID/. */
char *lab_job_record_path(const char *lab_dir, const char *job_id);
char *lab_job_batches_dir(const char *lab_dir, const char *job_id);

/* What a submitted job records. NULL strings are written empty; db is the
 * database's public name (a URL without its password). */
struct lab_job_record {
	const char *job_id, *submitted_utc;
	const char *game, *variants, *tokens;
	int rounds;
	const char *kernel;              /* the kernel the job boots into */
	const char *nodes, *constraint;  /* where it may run, as given */
	const char *db, *batches_dir;
	const char *site;                /* the site the job refreshes at its end */
	const char *sbatch;              /* the sbatch command line */
};

/* The record's pairs, in their documented order, appended to kf. */
void lab_job_record_fill(struct kvfile *kf, const struct lab_job_record *r);

/* ---- the site a job refreshes (lab-job.c; docs/lab.md, "The lab's site") ---- */

/* Whether dir may be a job's site (submit --site, lab job --site): 0, or
 * -EINVAL with *why, the end of "--site wants ..., not 'DIR'". The job
 * runs on another machine, in another directory: the site's path must be
 * absolute. */
int lab_site_dir_check(const char *dir, const char **why);

/* How long a job's refresh of the site may take before it is killed
 * (--site-minutes; docs/lab.md "The lab's site"): a hung refresh would
 * hold the node until Slurm's time limit. The bounds --site-minutes takes. */
#define LAB_SITE_MINUTES 30.0
#define LAB_SITE_MINUTES_MAX (24 * 60.0)

/* The database a job's batch stores into: the value of the last "--db="
 * among the run's arguments (submit passes one always), or NULL. Points
 * into run_args. */
const char *lab_job_db(char *const *run_args);

#define LAB_SITE_REFRESH_FORMAT 1

/* results/lab/jobs/JOBID.site: how the job's refresh of the site went. */
char *lab_job_site_path(const char *lab_dir, const char *job_id);

/* A refresh as the job saw it. exit_code is the site command's exit
 * status; -1 when it could not be started or ended by a signal. */
struct lab_site_refresh {
	const char *job_id, *site, *db, *finished_utc;
	int exit_code;
	const char *summary;   /* its line on stdout, when it printed one */
	const char *error;     /* why it failed: lab_site_error(), or why it did not run */
};

/* Why the site command failed, from what it said on stderr: its last
 * message ("hitchbench: WHY", the program's name taken off) that is not a
 * warning or a note, else its last message, else its last line with
 * something on it (a database's own lines follow a message: "LINE 1:
 * ...", "^"). A new string, or NULL when it said nothing. */
char *lab_site_error(const char *stderr_text);

/* The pairs of JOBID.site, appended to kf. */
void lab_site_refresh_fill(struct kvfile *kf, const struct lab_site_refresh *r);

/* A read JOBID.site in lab status's words, appended to out: "site DIR
 * refreshed", "site DIR refresh failed (exit 1: WHY)". -EINVAL (nothing
 * appended) when kf is not one. */
int lab_site_refresh_words(const struct kvfile *kf, struct strbuf *out);

/* The job's batch directory under batches_dir: the one directory holding
 * a batch.txt (a requeued job finds the batch its first start made).
 * 0 with *dir (new string); -ENOENT when there is none yet; -EEXIST when
 * there are several (not a job's). */
int lab_job_find_batch(const char *batches_dir, char **dir);

/* The run options of a job's command line that `run --resume` takes as
 * well (--db, --no-db, --display, --profile, --no-quieting, --quiet, -v),
 * in the form "--name=value" or "--name" submit writes them: pushed onto
 * out. */
void lab_resume_options(char *const *run_options, struct argv_list *out);

/* A job's name for Slurm: "hb:GAME" with GAME's base name, no ".ini". */
char *lab_job_name(const char *game);

/* The job script (format 1): Slurm runs it on the node; it hands over at
 * once to `HB lab job ...` with the script's arguments (submit's
 * --lab-dir, --kernel, --site, then "--" and the run's). */
char *lab_job_script(const char *hb);

/* ---- the matrix file (recipes/matrix.ini; recipes/README.md) ---- */

struct lab_matrix_batch {
	char *game;      /* a recipe name, or a path (relative ones from the matrix's directory) */
	char *variants;
	char *tokens;    /* "-" when none */
	int rounds;
};

struct lab_matrix {
	struct lab_matrix_batch *v;
	size_t n;
};

void lab_matrix_release(struct lab_matrix *m);
/* Whether the text is a matrix file: its first section is [matrix] or
 * [game NAME] (a recipe's is [recipe]). */
bool lab_matrix_is(const char *text);
/* Parses a matrix file's text: 0 or -EINVAL with "PATH:LINE: what is
 * wrong" in err. */
int lab_matrix_parse(struct lab_matrix *m, const char *text, const char *path, struct strbuf *err);

#endif
