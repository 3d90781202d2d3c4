/*
 * The parts of running a batch that batch-run.c (one run at a time) and
 * batch-relay.c (a round's two runs at once, in a relay or a duet) share.
 */
#ifndef HB_BATCH_RUN_INTERNAL_H
#define HB_BATCH_RUN_INTERNAL_H

#include "batch/batch-run.h"

/* How long a run takes, for the time left: a guess, then the mean so far. */
struct batch_pace {
	double per_run_s, spent_s;
	size_t timed;
};

/* Hands the command a line to print at level; progress (MSG_INFO) only
 * when it is not --quiet. */
void say(const struct batch_run *br, enum msg_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "42 s", "12 min", "1.5 h" */
void time_left(double s, char *buf, size_t size);
/* The bench.txt pairs of slot i's run: where it stands in the batch. */
void slot_extra(const struct batch_run *br, size_t i, struct kvfile *extra);
/* The machine quieted before slot i's run (its steps into extra). */
int slot_quiet(struct batch_run *br, size_t i, const char *name, const char *prefix, struct kvfile *extra,
	       struct strbuf *err);
/* Slot i's finished run taken into the batch (*again: run it once more). */
int slot_outcome(struct batch_run *br, size_t i, struct run_outcome *o, const char *prefix, bool *again,
		 struct strbuf *err);

/* batch-relay.c: slot i's round, its two runs at once (br->relay). 0,
 * -EINTR, or -errno with err. */
int slot_relay(struct batch_run *br, size_t i, struct batch_pace *pace, struct strbuf *err);

#endif
