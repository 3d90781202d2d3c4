/*
 * Running a batch: every pending slot of its plan, in order, each a run of
 * the runner with its variant and switch token; the machine quieted before
 * each run; a run an observer marks invalid run once more at once when
 * asked; every event noted in runs.txt; each finished run indexed in the
 * results database; a line per run start and end with the time left.
 */
#ifndef HB_BATCH_RUN_H
#define HB_BATCH_RUN_H

#include <stdbool.h>

#include "base/message.h"
#include "batch/batch.h"
#include "report/report.h"
#include "db/labsync.h"
#include "db/resultsdb.h"
#include "runner/runner.h"
#include "switch/switch.h"

struct quiet_session;

/* A batch whose rounds are relays or duets (docs/metrics.md "Relay"): its
 * two cells run at once each round, A and B in turns of turn_s seconds
 * (the first side alternating from round to round), or both playing on
 * halves of the CPUs that swap from round to round. */
#define RELAY_TURN_S_DEFAULT 0.5
#define RELAY_SETTLE_S_DEFAULT 0.05
struct batch_relay {
	enum relay_mode mode;
	double turn_s, settle_s;
};

struct batch_run {
	struct batch *batch;
	const struct recipe *recipe;
	const struct switch_set *sets;  /* one per batch->tokens entry */
	struct run_request req;         /* the template: everything but the variant and switches */
	struct resultsdb *db;           /* NULL: no database */
	const char *db_path;
	struct lab_sync *lab;           /* NULL: no lab's database to send runs to */
	bool rerun_invalid;
	bool silent;                    /* --quiet: no progress lines */
	/* Prints what the batch says, each line of text one message at level:
	 * each run's start and end (MSG_INFO, none when silent), a run found
	 * invalid and the lab's database refusing runs (MSG_ERROR). The
	 * command's printer (message.h's msg_lines); the batch never prints.
	 * NULL: nothing is said. */
	void (*say)(enum msg_level level, const char *text);
	struct quiet_session *quiet;    /* NULL: the machine is not quieted */
	const struct batch_relay *relay; /* NULL: one run at a time */
	int stop_fd;                    /* readable on SIGINT/SIGTERM/SIGHUP (never read) */
	/* Called when a round's last run has its result (not when a rerun of
	 * it is owed), with the round (from 1): > 0 stops the batch there
	 * (hitchbench ab's test has its verdict), < 0 is an error (message in
	 * err), 0 goes on. NULL: none. Rounds that ended before a --resume are
	 * not called again: the caller looks at them before. */
	int (*after_round)(struct batch_run *br, int round, void *data, struct strbuf *err);
	void *round_data;

	/* out */
	size_t runs_done, runs_failed, runs_invalid;
	bool interrupted;
	bool stopped;                   /* after_round stopped it */
};

/* Runs what is pending. 0, -EINTR when interrupted (the run in progress
 * was stopped and noted aborted), or -errno when the batch could not go on
 * (message in err). */
int batch_run_pending(struct batch_run *br, struct strbuf *err);

#endif
