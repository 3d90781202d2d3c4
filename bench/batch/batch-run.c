/*
 * Running a batch's pending slots (see batch-run.h).
 */
#include "batch/batch-run-internal.h"
#include "quiet/quiet-session.h"
#include "run/run.h"
#include "base/message.h"
#include "base/timeutil.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* Seconds a run takes besides its warm-up and window (X, prepare, load,
 * stop, writing): only the guess before the first run of this invocation
 * has ended. */
#define RUN_OVERHEAD_GUESS_S 15.0

void say(const struct batch_run *br, enum msg_level level, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!br->say || (level == MSG_INFO && br->silent))
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	br->say(level, sb.buf);
	strbuf_release(&sb);
}

void time_left(double s, char *buf, size_t size)
{
	if (s < 90)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 90 * 60)
		snprintf(buf, size, "%.0f min", s / 60);
	else
		snprintf(buf, size, "%.1f h", s / 3600);
}

/* A SIGINT/SIGTERM/SIGHUP waiting between runs (the runner reads the rest). */
static bool signal_pending(const struct batch_run *br)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(br->req.signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			stop = true;
	return stop;
}

/* The numbers a person looks at first, each saying what it is. */
static void headline(const struct report_row *row, bool have, double stall_ms, struct strbuf *sb)
{
	const struct metrics *m = &row->m;

	/* a disturbed run's numbers are no evidence: its line says invalid */
	if (!have || strcmp(row->status, "ok") != 0 || row->disturbed)
		return;
	strbuf_addf(sb, ": %.1f fps", m->v[M_FPS]);
	if (m->have[M_STALLS])
		strbuf_addf(sb, ", %.0f stalls >%g ms (%.2f s)", m->v[M_STALLS], stall_ms,
			    m->have[M_STALL_S] ? m->v[M_STALL_S] : 0.0);
	if (m->have[M_LONGEST_MS])
		strbuf_addf(sb, ", longest %.0f ms", m->v[M_LONGEST_MS]);
	if (m->have[M_LOW1])
		strbuf_addf(sb, ", 1%% low %.1f fps", m->v[M_LOW1]);
	strbuf_addstr(sb, " (measured window)");
}

/* Loads a finished run, indexes it, and says how it went. *check_failed
 * is why its data failed an integrity check (analysis/run/run-check.c), the
 * caller's to free, or NULL: such a run counts as invalid, like one an
 * observer marked. */
static int take_run(struct batch_run *br, const struct run_outcome *o, const char *prefix,
		    char **check_failed, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	struct report_row row;
	struct run run;
	struct strbuf dberr = STRBUF_INIT;
	bool have;
	int r;

	*check_failed = NULL;
	r = run_load(o->dir, &run, err);
	if (r < 0)
		return r;
	have = run_report_row(&run, &br->req.metric, &row);
	if (br->db && resultsdb_import(br->db, &run, have ? &row.m : NULL, &br->req.metric, &dberr) < 0) {
		strbuf_addf(err, "cannot store '%s' in '%s': %s", run.dir, br->db_path, dberr.buf);
		strbuf_release(&dberr);
		r = -EIO;
	} else if (br->db && br->lab) {
		/* stored here first: the lab's database down costs no run */
		struct strbuf why = STRBUF_INIT;

		if (lab_sync_push(br->lab, br->db, &why) < 0 && why.len)
			say(br, MSG_ERROR, "%s", why.buf);
		strbuf_release(&why);
	}
	strbuf_addf(&line, "%s %s", prefix, o->status);
	headline(&row, have, br->req.metric.stall_ms, &line);
	if (o->noise)
		strbuf_addf(&line, "; noise %s", o->noise);
	say(br, MSG_INFO, "%s", line.buf);
	if (o->interfered)
		say(br, MSG_ERROR, "!! INTERFERENCE: %s: %s: THIS RUN IS INVALID", run.name, o->interfered);
	if (o->invalid)
		say(br, MSG_ERROR, "!! %s: %s: THIS RUN IS INVALID", run.name, o->invalid);
	/* its data failed a check (run_report_row() validated it) */
	if (run.invalid) {
		say(br, MSG_ERROR, "!! %s: invalid: %s: THIS RUN IS NOT COUNTED", run.name, run.invalid);
		*check_failed = xstrdup(run.invalid);
	}
	strbuf_release(&line);
	run_release(&run);
	return r;
}

/* GAMEPREFETCH=on in a token: the batch learns the game's list itself
 * before its first run, in runs of their own that are never measured, so
 * that every measured run reads the same list (bench/switch/switch-prefetch.c,
 * docs/switches.md). The token's GAMEPREFETCH setting, or NULL. */
static const struct switch_on *prefetch_on(const struct switch_set *set)
{
	const struct switch_on *on = switch_set_find(set, "GAMEPREFETCH");

	return on && strcmp(on->value, "on") == 0 ? on : NULL;
}

/* One learn run per variant, with the first such token's settings and
 * GAMEPREFETCH=learn, when the batch starts afresh (a resumed batch keeps
 * the list its measured runs already read). Each is a run directory of the
 * batch marked invalid ("a learning run"), listed and never counted. */
static int prefetch_learn_runs(struct batch_run *br, struct strbuf *err)
{
	struct batch *b = br->batch;
	const struct switch_set *with = NULL;
	struct switch_set learn;
	struct strbuf token = STRBUF_INIT;
	const char *p, *end;
	int r = 0;

	for (size_t i = 0; i < b->n_slots; i++)
		if (b->state[i] != SLOT_PENDING || b->attempts[i] > 0)
			return 0;
	for (size_t t = 0; t < b->tokens.n && !with; t++)
		if (prefetch_on(&br->sets[t]))
			with = &br->sets[t];
	if (!with)
		return 0;
	/* the token with GAMEPREFETCH=on turned into GAMEPREFETCH=learn */
	p = strstr(with->token, "GAMEPREFETCH=on");
	end = p + strlen("GAMEPREFETCH=on");
	strbuf_add(&token, with->token, (size_t)(p - with->token));
	strbuf_addstr(&token, "GAMEPREFETCH=learn");
	strbuf_addstr(&token, end);
	if (switch_set_parse(token.buf, &learn, err) < 0) {
		strbuf_release(&token);
		return -EINVAL;
	}
	for (size_t v = 0; v < b->variants.n && r == 0; v++) {
		const char *variant = b->variants.v[v];
		struct run_request req = br->req;
		struct run_outcome o;
		struct kvfile extra;
		char *name = batch_run_name(variant, learn.label);
		char *prefix = xasprintf("[prefetch learn run %zu/%zu] %s %s", v + 1, b->variants.n,
					 br->recipe->name, name);

		if (signal_pending(br)) {
			free(name);
			free(prefix);
			r = -EINTR;
			break;
		}
		say(br, MSG_INFO, "%s: learning the game's prefetch list (not measured)", prefix);
		kvfile_init(&extra);
		kvfile_add(&extra, "batch_id", b->id);
		kvfile_add(&extra, "prefetch_learn_run", "1");
		req.variant_name = variant;
		req.variant = recipe_find_variant(br->recipe, variant);
		req.switches = &learn;
		req.run_name = name;
		req.extra = &extra;
		r = runner_run(&req, &o, err);
		if (r == 0) {
			char *check_failed;

			/* a learning run is never counted: its checks do not matter */
			r = take_run(br, &o, prefix, &check_failed, err);
			free(check_failed);
			run_outcome_release(&o);
		}
		kvfile_release(&extra);
		free(name);
		free(prefix);
	}
	switch_set_release(&learn);
	strbuf_release(&token);
	return r;
}

/* The bench.txt pairs of slot i's run: where it stands in the batch. */
void slot_extra(const struct batch_run *br, size_t i, struct kvfile *extra)
{
	const struct batch *b = br->batch;
	const struct batch_slot *s = &b->slots[i];

	kvfile_init(extra);
	kvfile_add(extra, "batch_id", b->id);
	kvfile_addf(extra, "batch_round", "%d", s->round);
	kvfile_addf(extra, "batch_rounds", "%d", b->rounds);
	kvfile_addf(extra, "batch_position", "%d", s->position);
	kvfile_addf(extra, "batch_index", "%d", s->index);
	kvfile_addf(extra, "batch_runs", "%zu", b->n_slots);
	kvfile_addf(extra, "batch_attempt", "%d", b->attempts[i] + 1);
	if (prefetch_on(&br->sets[s->token]))
		kvfile_add(extra, "prefetch_batch_learnt", "1");
}

/* The machine quieted before slot i's run (its steps into extra). */
int slot_quiet(struct batch_run *br, size_t i, const char *name, const char *prefix,
		      struct kvfile *extra, struct strbuf *err)
{
	const struct batch *b = br->batch;
	const struct batch_slot *s = &b->slots[i];
	char *what = xasprintf("%s %s, round %d/%d, run %d/%zu", br->recipe->name, name, s->round,
			       b->rounds, s->position, b->n_slots / (size_t)b->rounds);
	int r = quiet_session_before_run(br->quiet, what, extra, br->stop_fd, err);

	free(what);
	if (r == 0 && kvfile_get(extra, "quiet.idle"))
		say(br, MSG_INFO, "%s: quiet: idle %s", prefix, kvfile_get(extra, "quiet.idle"));
	return r;
}

/* Slot i's finished run taken into the batch: done, or invalid (an
 * observer, the interference watcher or the data's checks said so), and
 * then *again when it is to be run once more at once. */
int slot_outcome(struct batch_run *br, size_t i, struct run_outcome *o, const char *prefix,
			bool *again, struct strbuf *err)
{
	struct batch *b = br->batch;
	char *check_failed = NULL;
	int r;

	if (strncmp(o->status, "ok", 2) != 0)
		br->runs_failed++;
	br->runs_done++;
	r = take_run(br, o, prefix, &check_failed, err);
	if (o->invalid || o->interfered || check_failed) {
		char *why = o->invalid ? xstrdup(o->invalid) :
			    o->interfered ? xasprintf("interference: %s", o->interfered) :
			    xasprintf("data: %s", check_failed);
		char *with_noise = o->noise ? xasprintf("%s; noise %s", why, o->noise) : NULL;

		br->runs_invalid++;
		batch_note(b, i, "invalid", o->dir, with_noise ? with_noise : why);
		free(why);
		free(with_noise);
		if (br->rerun_invalid && !br->relay && b->attempts[i] < 2) {
			batch_note(b, i, "rerun", NULL, "invalid: run once more");
			say(br, MSG_INFO, "%s: %s, run once more now", prefix,
			    o->interfered && !o->invalid ? "interfered" : "invalid");
			*again = true;
		}
	} else {
		char *detail = o->noise ? xasprintf("%s; noise %s", o->status, o->noise) : NULL;

		batch_note(b, i, "done", o->dir, detail ? detail : o->status);
		free(detail);
	}
	free(check_failed);
	return r;
}


/* Slot i's run, quieting first; the outcome into the batch. */
static int slot_run(struct batch_run *br, size_t i, struct batch_pace *pace, bool *again,
		    struct strbuf *err)
{
	struct batch *b = br->batch;
	const struct batch_slot *s = &b->slots[i];
	const struct switch_set *set = &br->sets[s->token];
	const char *variant = b->variants.v[s->variant];
	char *name = batch_run_name(variant, set->label), left[32];
	char *prefix = xasprintf("[round %d/%d, run %zu/%zu] %s %s", s->round, b->rounds,
				 (size_t)s->position, b->n_slots / (size_t)b->rounds, br->recipe->name,
				 name);
	struct run_request req = br->req;
	struct run_outcome o;
	struct kvfile extra;
	uint64_t t0 = mono_ns();
	int r = 0;

	time_left(pace->per_run_s * (double)batch_pending(b), left, sizeof(left));
	say(br, MSG_INFO, "%s: starting (about %s left in the batch)", prefix, left);
	slot_extra(br, i, &extra);
	batch_note(b, i, "started", NULL, NULL);
	if (br->quiet)
		r = slot_quiet(br, i, name, prefix, &extra, err);
	if (r == 0) {
		req.variant_name = variant;
		req.variant = recipe_find_variant(br->recipe, variant);
		req.switches = set;
		req.run_name = name;
		req.extra = &extra;
		r = runner_run(&req, &o, err);
	}
	if (r < 0) {
		batch_note(b, i, "aborted", NULL, r == -EINTR ? "interrupted" : err->buf);
	} else {
		pace->spent_s += (double)(mono_ns() - t0) / 1e9;
		pace->per_run_s = pace->spent_s / (double)++pace->timed;
		r = slot_outcome(br, i, &o, prefix, again, err);
		run_outcome_release(&o);
	}
	kvfile_release(&extra);
	free(name);
	free(prefix);
	return r;
}

int batch_run_pending(struct batch_run *br, struct strbuf *err)
{
	struct batch *b = br->batch;
	size_t total = b->n_slots;
	struct batch_pace pace = {
		.per_run_s = br->req.warmup_s + br->req.window_s + RUN_OVERHEAD_GUESS_S,
	};
	int r = prefetch_learn_runs(br, err);

	for (size_t i = 0; i < total && r == 0; i++) {
		const struct batch_slot *s = &b->slots[i];
		bool again = false;

		if (b->state[i] == SLOT_DONE)
			continue;
		if (signal_pending(br)) {
			r = -EINTR;
			break;
		}
		if (br->relay)
			r = slot_relay(br, i, &pace, err);
		else
			r = slot_run(br, i, &pace, &again, err);
		if (again)
			i--; /* the same slot again, at once */
		/* a relay's round is run whole, at once */
		if (r == 0 && !again && br->after_round &&
		    (br->relay || i + 1 == total || b->slots[i + 1].round != s->round)) {
			r = br->after_round(br, s->round, br->round_data, err);
			if (r > 0) {
				br->stopped = true;
				r = 0;
				break;
			}
		}
	}
	if (r == -EINTR)
		br->interrupted = true;
	return r;
}
