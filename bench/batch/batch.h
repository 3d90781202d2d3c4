/*
 * A batch: one invocation of "hitchbench run", every variant with every
 * switch token once per round, for ROUNDS rounds, in the same boot. Its
 * directory (results/runs/BATCH_ID/) holds batch.txt (what was asked, the
 * plan, where and when: rewritten atomically at the start and the end),
 * runs.txt (one line appended and synced per event of a run, so a batch
 * killed at any point knows what finished) and the run directories.
 * Formats: docs/formats.md.
 */
#ifndef HB_BATCH_H
#define HB_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "text/argv.h"
#include "text/kvfile.h"
#include "metrics/metrics.h"
#include "base/util.h"

#define HB_BATCH_FORMAT 1

enum batch_order {
	BATCH_ROTATE,   /* each round starts further along the cell list */
	BATCH_SHUFFLE,  /* each round in its own random order (a recorded seed) */
};

/* One run of the plan. Numbers count from 1. */
struct batch_slot {
	int index;       /* in the batch */
	int round;
	int position;    /* in its round */
	size_t variant;  /* index into the variant list */
	size_t token;    /* index into the token list */
};

/*
 * The order of a batch: rounds x (n_variants x n_tokens) slots. The cells
 * of a round are the tokens in order, each with the variants in order (so
 * variants alternate: A@- B@- A@S B@S), then rotated or shuffled per
 * round. Rotation moves the start of round r (from 0) by r*M/R cells when
 * there are no more rounds R than cells M (by r mod M otherwise), so no
 * cell always runs first and over M rounds each cell runs once in each
 * position. out has rounds * M slots.
 */
void batch_plan(size_t n_variants, size_t n_tokens, int rounds, enum batch_order order,
		uint64_t seed, struct batch_slot *out);
int batch_order_parse(const char *s, enum batch_order *out);
const char *batch_order_name(enum batch_order o);

/* The state of a slot, from runs.txt's last line about it. */
enum slot_state {
	SLOT_PENDING,   /* not run, or started and never finished: run it */
	SLOT_DONE,      /* finished (ok or failed: a failed run is a result) */
	SLOT_RERUN,     /* finished but invalid, a rerun owed */
};

struct batch {
	char *id;
	char *dir;
	struct kvfile info;      /* batch.txt */
	struct argv_list variants, tokens;
	int rounds;
	enum batch_order order;
	uint64_t seed;
	struct batch_slot *slots;
	size_t n_slots;
	enum slot_state *state;
	int *attempts;           /* how many runs each slot has had */
	char **run_dir;          /* the last run directory of each slot (or NULL) */
	int runs_fd;             /* runs.txt, append */
};

/* What a new batch is. info carries what the caller wants kept and read
 * back on --resume (recipe, windows, options). */
struct batch_spec {
	const char *game;
	const struct argv_list *variants, *tokens;
	int rounds;
	enum batch_order order;
	uint64_t seed;
	const struct kvfile *options;
};

void batch_init(struct batch *b);
/* Frees everything (batch_init() again before reusing b). */
void batch_release(struct batch *b);
/* Creates parent/ID/ with batch.txt and an empty runs.txt. 0 or -errno. */
int batch_create(struct batch *b, const char *parent, const struct batch_spec *spec,
		 struct strbuf *err);
/* One line of runs.txt ("INDEX EVENT [RUNDIR] [detail]", cut up in place)
 * applied to the states of n_slots slots (attempts and run_dir, when not
 * NULL, counted and kept too): how batch_open reads a batch, and how a
 * target's listing counts the runs done (bench/target/remote.c). 0, or -EINVAL
 * for a line that is not one (nothing changed). */
int batch_runs_line(char *line, size_t n_slots, enum slot_state *state, int *attempts, char **run_dir);
/* Opens an existing batch (a directory, or an ID under parent) and reads
 * what its runs.txt says. 0 or -errno (-EINVAL: damaged, message in err). */
int batch_open(struct batch *b, const char *arg, const char *parent, struct strbuf *err);
/* Appends "INDEX EVENT [RUNDIR] [detail]" to runs.txt and syncs it; updates
 * the slot's state. Events: started, done, invalid, rerun, aborted. */
int batch_note(struct batch *b, size_t slot, const char *event, const char *run_dir,
	       const char *detail);
/* Rewrites batch.txt with ended_utc and status ("complete", "interrupted",
 * "failed"). */
int batch_finish(struct batch *b, const char *status);
/* The batch's SHA256SUMS, written when the batch ends however it ends
 * (docs/formats.md "Checksums"): every regular file of its directory
 * (batch.txt, runs.txt, ab.txt, ...) and each finished run's
 * RUN/SHA256SUMS (written first for a run directory that has none, one
 * from before checksums); a hidden directory (a run's unfinished
 * `.NAME.tmp`) is left out, and so are a detached runner's own
 * BATCH_RUNNER_LOG and BATCH_RUNNER_PID (its log goes on after this).
 * 0 or -errno. */
int batch_write_checksums(const struct batch *b);

/* What run --detach's runner keeps in the batch directory (cmd-run.c). */
#define BATCH_RUNNER_LOG "runner.log"
#define BATCH_RUNNER_PID "runner.pid"
struct pstat;
/* BATCH_RUNNER_PID's line, "PID STARTTIME" (len bytes of text), into its
 * two numbers. 0, or -EINVAL when it is not that. */
int batch_runner_parse(const char *text, size_t len, int *pid, uint64_t *start);
/* Whether that line names the process whose stat is st, not a zombie:
 * the detached runner, still there. */
bool batch_runner_is(const char *text, size_t len, const struct pstat *st);
/* Removes the batch's SHA256SUMS when it runs again (--resume): the list
 * is there only while the batch is not running. 0 or -errno. */
int batch_drop_checksums(const struct batch *b);
/* Slots not yet done, counted. */
size_t batch_pending(const struct batch *b);
/* The metric options the batch's runs are analysed with (batch.txt
 * stall_ms, percentile, and min_frames where it has it: batches from
 * before --min-frames have not) into mo. 0, or -EINVAL with err. */
int batch_metric_opts(const struct batch *b, struct metric_opts *mo, struct strbuf *err);

/* "software@rec10" (variant@label), or the variant alone without a label. */
char *batch_run_name(const char *variant, const char *label);

#endif
