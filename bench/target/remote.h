/*
 * Batches on a target (docs/targets.md "Running on a target", "Pulling"):
 * what the host asks of the target's prefix over one ssh_conn, and what it
 * keeps of a batch it started there. The command line of the start, the
 * listing of the target's batches (batch.txt, runs.txt and whether the
 * detached runner is alive, in one remote command), the host's record of a
 * remote batch (results/targets/NAME/BATCH.remote) and the pull of one
 * finished batch into results/targets/NAME/BATCH/, verified by its
 * SHA256SUMS before it is renamed into place. Nothing here prints: the
 * commands (remote-run.c, cmd-pull.c, cmd-target-status.c) say what
 * happened.
 */
#ifndef HB_REMOTE_H
#define HB_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "text/argv.h"
#include "text/kvfile.h"
#include "target/ssh.h"
#include "target/targets.h"
#include "base/util.h"

/* The remote command's exit status when the prefix holds no pushed harness
 * (no PREFIX/push.txt, or no PREFIX at all). */
#define REMOTE_NO_HARNESS 97
#define REMOTE_RECORD_FORMAT 1

/* The target NAME of the config ($HITCHBENCH_TARGETS, ...): 0 with *t
 * pointing into l (which the caller releases), or -errno with err saying
 * what is wrong (-ENOENT: no such target). */
int remote_target_find(const char *name, struct target_list *l, const struct ssh_target **t,
		       struct strbuf *err);

/* The target's prefix as a path for its shell and its rsync: relative to
 * the login's home (where both start) when the config says ~/... or
 * nothing (~/hitchbench), else as it is. The caller frees. */
char *remote_prefix(const struct ssh_target *t);

/* A batch id (a directory name of results/runs): no '/', not starting with
 * '.', not empty. */
bool remote_batch_id_valid(const char *id);

/* The remote command line that starts `hitchbench run --detach ARGS` in
 * the prefix, with the harness's marker for the exec chain (so the
 * runner's own environment carries it: the watcher exempts it and what it
 * forks), refusing with REMOTE_NO_HARNESS when there is no push.txt. */
char *remote_start_command(const struct ssh_target *t, const char *const *args);

/* Parses the start's "batch ID expected_s N dir PATH" line (the last such
 * line of out). 0 or -EINVAL. */
int remote_start_parse(const char *out, char **id, double *expected_s, char **dir);

enum remote_state {
	REMOTE_RUNNING,    /* its detached runner is alive (no end in batch.txt yet, or its
			    * last files being written), or no end and no runner.pid */
	REMOTE_ENDED,      /* batch.txt has its status and no runner of it is alive: pull it */
	REMOTE_ABANDONED,  /* no end, and no runner of it alive: killed; resume it */
};

struct remote_batch {
	char *id;
	char *dir;                 /* on the target, as listed (relative to the prefix or absolute) */
	struct kvfile info;        /* its batch.txt */
	size_t planned, done;      /* slots; those whose last runs.txt event is done or invalid */
	const char *status;        /* batch.txt's status (in info); NULL while not ended */
	enum remote_state state;
};

struct remote_list {
	struct remote_batch *v;
	size_t n, alloc;
};

void remote_list_init(struct remote_list *l);
void remote_list_release(struct remote_list *l);

/* The remote command that lists the batches in dirs (paths relative to
 * the prefix, or absolute; NULL or empty: every batch in results/runs):
 * batch.txt, runs.txt, runner.pid and that pid's /proc stat, in sections
 * remote_list_parse() reads. Exits REMOTE_NO_HARNESS without the prefix. */
char *remote_list_command(const struct ssh_target *t, const char *const *dirs, size_t n);
/* Appends the batches of the listing's text to l. 0 or -EINVAL (a damaged
 * section: *why says which). */
int remote_list_parse(const char *text, struct remote_list *l, const char **why);
/* Lists them over c: 0, REMOTE_NO_HARNESS (> 0), another exit status of
 * the remote command (> 0, err holds its stderr), or -errno. */
int remote_list(struct ssh_conn *c, const char *const *dirs, size_t n, struct remote_list *l,
		struct strbuf *err);
const char *remote_state_name(enum remote_state s);

/* The host's record of a batch started on a target:
 * results/targets/NAME/BATCH.remote, key=value (format, target, batch,
 * dir, started_utc, started_s, expected_s, expected_end_utc,
 * expected_end_s, then what the last look saw: looked_utc, state,
 * runs_done, runs_planned). */
char *remote_record_path(const char *results_dir, const char *target, const char *batch);
int remote_record_write(const char *results_dir, const char *target, const char *batch, const char *dir,
			time_t started, double expected_s);
/* The last look's state in the record (a missing record is no error). */
int remote_record_look(const char *results_dir, const char *target, const struct remote_batch *b);
/* Reads a record: 0, -ENOENT, or -errno / -EINVAL. */
int remote_record_read(const char *results_dir, const char *target, const char *batch, struct kvfile *kf);
/* The records of target NAME whose batch may be measuring now: not seen
 * ended by a look, and now before their expected end. Each is appended to
 * out as "BATCH EXPECTED_END_UTC". 0 or -errno. */
int remote_records_measuring(const char *results_dir, const char *target, time_t now, struct argv_list *out);

/* What a pull of one batch did. */
struct remote_pull {
	size_t runs;               /* run directories in the batch */
	uint64_t bytes;            /* the batch's files, as pulled */
	uint64_t copied;           /* what came over the connection (rsync --stats' "Total bytes received") */
	double copy_s, verify_s;
	char *local;               /* results/targets/NAME/BATCH */
	struct strbuf why;         /* a failed verification or copy: what */
};

void remote_pull_init(struct remote_pull *p);
void remote_pull_release(struct remote_pull *p);
/* Copies batch b of c's target into results_dir/targets/NAME/.BATCH.tmp
 * (rsync --partial; a copy already there, or a pulled batch, is what it
 * starts from), its runner.log beside as BATCH.runner.log, checks it
 * against its SHA256SUMS (the batch's and, through it, each run's) and
 * renames it to results_dir/targets/NAME/BATCH. 0; 1 when it fails
 * verification (p->why names the file; the .tmp copy is kept for the next
 * pull); -errno when the copy failed (p->why says what rsync said). */
int remote_pull_batch(struct ssh_conn *c, const char *results_dir, const struct remote_batch *b,
		      struct remote_pull *p);
/* Removes batch b on the target (an ended batch, after a verified pull). 0,
 * the remote command's exit status, or -errno. */
int remote_delete_batch(struct ssh_conn *c, const struct remote_batch *b, struct strbuf *err);

#endif
