/*
 * The runs of a relay or a duet read back (docs/metrics.md "Relay").
 *
 * One run of a relay: its game was stopped outside its turns. Its gaps
 * are each stop's due time to the next resume plus the settle time (to the
 * window's end when no resume followed): a frame interval that touches a
 * gap is the relay's, never the game's, and is left out of every metric of
 * the run, which are taken over its played frames laid end to end (fps is
 * frames over the time they took; a stop is never a stall).
 *
 * The two runs of one relay compared (run_relay_compare()):
 *   - a looping demo (bench.txt relaunch=yes; both sides render the same
 *     frames in the same order): blocks of K frames at the same place in
 *     the demo, frame index within the pass, pass by pass; the block's
 *     value is ln(B/A) of fps over its counted intervals (each side's
 *     mean frame time), when each side counted at least half of its K.
 *     K is the frames A plays in a turn (its counted rate times turn_s),
 *     at least RELAY_BLOCK_LEAST;
 *   - otherwise, by adjacent turns in time: each of A's turns against the
 *     mean of ln fps of B's turns before and after it (a drift linear
 *     over three turns cancels); in a duet, which has no turns, the same
 *     stretch of time (turn_s each) of both sides.
 * The values, in order, go into blocks as a flip run's pairs do
 * (stats/flip.h: block size from the measured lag-one correlation), and
 * the run's estimate is the blocks' mean with its standard error.
 */
#ifndef HB_RUNRELAY_H
#define HB_RUNRELAY_H

#include <stddef.h>
#include <stdint.h>

#include "formats/relayfile.h"
#include "run/run.h"

#define RELAY_BLOCK_LEAST 10

/* A run's relay record and its gaps; NULL / 0 when it is not of a relay. */
struct run_relay_gaps {
	uint64_t *from, *to;        /* the gaps, in time order, [from, to) */
	size_t n;
	uint64_t gap_ns;            /* of them, the time inside the window */
};

/* The gaps of a loaded run (run->relay set), within its window. */
void run_relay_gaps(const struct run *run, struct run_relay_gaps *g);
void run_relay_gaps_release(struct run_relay_gaps *g);
/* Whether frame interval (a, b] touches a gap (from the gap *k on: the
 * frames come in order). */
bool run_relay_in_gap(const struct run_relay_gaps *g, size_t *k, uint64_t a, uint64_t b);

enum relay_pairing {
	RELAY_BY_FRAME,             /* the same frame index in the same pass */
	RELAY_BY_TURN,              /* adjacent turns (a relay), the same stretch (a duet) */
};

struct run_relay_cmp {
	enum relay_mode mode;
	enum relay_pairing pairing;
	unsigned block_frames;      /* RELAY_BY_FRAME: K */
	double fps_a, fps_b;        /* each side's counted frames over their time */
	double *d;                  /* the values, ln(B/A) of fps, in order */
	size_t n_d;
	size_t block_size;          /* values a block */
	double r1_blocks;           /* the blocks' lag-one autocorrelation */
	double *blocks;
	size_t n_blocks;
	double estimate, se;        /* the blocks' mean and its standard error (NAN under two) */
};

void run_relay_cmp_init(struct run_relay_cmp *c);
void run_relay_cmp_release(struct run_relay_cmp *c);
/* Compares A's run with B's (both loaded, with frames and windows, of one
 * relay). 0, or -EINVAL with err (not one relay's two sides, no frames). */
int run_relay_compare(const struct run *a, const struct run *b, struct run_relay_cmp *c, struct strbuf *err);

#endif
