/*
 * The relay record (docs/formats.md "relay.txt"; docs/metrics.md "Relay"):
 * what each run of a relay or a duet writes beside its frames. A relay is
 * two runs, A and B, loaded at once, each with its own X server, HOME and
 * frame file, that play in turns: the time from the epoch is cut into
 * turns of turn_s seconds, turn 0 is `first`'s and the sides alternate;
 * outside its turns a side's game is stopped (SIGSTOP of its whole
 * process tree) and after each resume its frames count only from settle_ms
 * on. A duet is the two played at once, each game on its own CPUs (no
 * turns, no events); the CPUs swap from round to round.
 *
 * The record: a header of key=value lines, then one line per stop and
 * resume, appended as they happen (a runner killed mid-write leaves a last
 * line without its newline, which the reader leaves out):
 *   stop=TURN DUE_NS APPLIED_NS    the game stopped for turn TURN (the
 *                                  partner's), due at the turn's start
 *   resume=TURN DUE_NS APPLIED_NS  the game resumed for its turn TURN
 * All times CLOCK_MONOTONIC ns, the frame hook's clock. Format 1.
 */
#ifndef HB_RELAYFILE_H
#define HB_RELAYFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define HB_RELAY_FORMAT 1
#define HB_RELAY_FILE "relay.txt"

enum relay_mode {
	RELAY_MODE_RELAY,   /* one side plays at a time, in turns */
	RELAY_MODE_DUET,    /* both play at once, each on its own CPUs */
};

struct relay_event {
	bool resume;            /* a resume (else a stop) */
	int turn;               /* the turn it begins */
	uint64_t due_ns;        /* the turn's start on the shared grid */
	uint64_t applied_ns;    /* when the signals were sent (>= due_ns) */
};

struct relay_record {
	unsigned format;
	char *id;               /* the relay's id, the same in both runs */
	enum relay_mode mode;
	char role;              /* 'A' or 'B': this run's side */
	char first;             /* the side that plays turn 0 */
	double turn_s;          /* relay: a turn's length */
	double settle_ms;       /* relay: after a resume, frames this long count for neither side */
	uint64_t epoch_ns;      /* turn k is [epoch + k turn_s, epoch + (k+1) turn_s) */
	char *cpus;             /* duet: the game's CPUs ("0", "1-3"); "-" in a relay */
	struct relay_event *ev;
	size_t n_ev, alloc_ev;
};

void relay_record_init(struct relay_record *r);
void relay_record_release(struct relay_record *r);
const char *relay_mode_name(enum relay_mode m);
/* "relay" or "duet" into *m: 0, or -EINVAL. */
int relay_mode_parse(const char *s, enum relay_mode *m);

/* The turn at time t (t >= epoch), and whether it is side's turn. */
int relay_turn_at(const struct relay_record *r, uint64_t t);
bool relay_turn_is(const struct relay_record *r, int turn, char side);
/* Turn k's start on the grid. */
uint64_t relay_turn_start(const struct relay_record *r, int turn);

void relay_record_header(const struct relay_record *r, struct strbuf *out);
void relay_event_line(const struct relay_event *e, struct strbuf *out);

/* Parses text into r (initialised by the caller); name is for errors. 0,
 * or -EINVAL with "name:line: what" in err. A last line without its
 * newline is left out (*cut set when cut is not NULL). */
int relay_record_parse(const char *text, size_t len, const char *name, struct relay_record *r,
		       bool *cut, struct strbuf *err);
/* Reads PATH. 0, -ENOENT (no such file), or -errno / -EINVAL with err. */
int relay_record_load(const char *path, struct relay_record *r, struct strbuf *err);

#endif
