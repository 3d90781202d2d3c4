/*
 * Why the game stalled, from the kernel's own events: the wait record
 * (common/formats/waitrecord.h, written by the STALLS=bpf recorder) holds every
 * off-CPU interval of the game's threads over a threshold, with its state,
 * kernel stack and waker, the thread's cumulative run, run-queue and sleep
 * times and delay accounting, and the block requests they issued. A stall
 * of the main thread is split over enum stall_cause from those: each wait
 * by its stack and state, the time it then waited for a CPU as runq, the
 * time between recorded waits by the differences of the cumulative
 * counters. The rules and their reasons: docs/stalls.md, "Decided by the
 * kernel's events (STALLS=bpf)". Used by stall_run_load()
 * (stallcause-run.c), which lets it decide where the record covers a stall.
 */
#ifndef HB_STALLWAITS_H
#define HB_STALLWAITS_H

#include <stddef.h>
#include <stdint.h>

#include "stalls/stallcause.h"
#include "formats/waitrecord.h"

struct argv_list;

/* A line of the record found by thread and time. */
struct stall_waits_key {
	int32_t tid;
	uint32_t i;             /* its index in w->off or w->bio */
	uint64_t t_ns;          /* OFF_NS, or a bio's START_NS */
};

/* A wait record indexed for attribution. */
struct stall_waits {
	const struct waitrec *w;
	const char *swaps;              /* the stall record's meta swaps, or NULL */
	struct stall_waits_key *off, *bio; /* by (tid, time) */
	uint64_t bio_max_ns;            /* the longest block request */
};

/* Indexes w, which must outlive b; swaps (meta "swaps=NAME:KIND ..." of the
 * run's stall record, NULL without one) names the swap devices and their
 * kinds, and must outlive b too. */
void stall_waits_init(struct stall_waits *b, const struct waitrec *w, const char *swaps);
void stall_waits_release(struct stall_waits *b);

/* Splits (start_ns, end_ns] (CLOCK_MONOTONIC) of main thread tid over
 * causes: st->share_s and st->exact_s get the split (adding up to the
 * length), st->cause the largest, st->decided SD_BPF; its sampled_s are
 * left alone. lines (NULL: none) gets the waits for people, one string
 * each ("futex, woken by llvmpipe-3 (4243) after 212 ms, runnable 3 ms").
 * Returns the seconds no line of the record speaks for (in share_s[SC_UNKNOWN]
 * with any other unknown time). */
double stall_waits_attribute(const struct stall_waits *b, int32_t tid, uint64_t start_ns, uint64_t end_ns,
			   struct stall *st, struct argv_list *lines);

#endif
