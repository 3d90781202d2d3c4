/*
 * A hand-made run with a stall record: one 200 ms stall of each cause the
 * stall analysis knows (analysis/stalls/stallcause.h), including those this
 * machine cannot produce (fence waits, zram and VRAM swap-ins, GPU memory
 * growth, runnable without a CPU). Shared by tests/unit/test-stallcause.c
 * and tests/tools/mkstallrun.c (for tests/cli/t1000-stalls.sh).
 *
 * Two kinds of run:
 *   STALLRUN_SAMPLED  no delay accounting, no schedstat, the system's PSI
 *   STALLRUN_EXACT    schedstat, delay accounting without its CPU delay (as
 *                     /proc gives it), the game's cgroup's PSI
 * Both: 10 ms samples 3 ms after each 10 ms tick, presents every 20 ms on
 * the ticks, the pass launched at 1000 s, its first present 400 ms later
 * (a load waiting on the disk), a 1 s warm-up with one disk stall, then the
 * window with the stalls of stallrun_cases, 400 ms apart.
 */
#ifndef HB_TEST_STALLRUN_H
#define HB_TEST_STALLRUN_H

#include <stddef.h>

enum stallrun_kind { STALLRUN_SAMPLED, STALLRUN_EXACT };

struct stallrun_case {
	const char *name;       /* what the stall is made of */
	const char *cause;      /* the cause it must get (stall_cause_name) */
	const char *decided;    /* and what must decide it (stall_decider_name) */
	const char *section;    /* "warm-up" or "window" */
};

/* The stalls of a run of that kind, in time order. */
const struct stallrun_case *stallrun_cases(enum stallrun_kind kind, size_t *n);

/* The expected values the cases give (both kinds): */
#define STALLRUN_LOAD_DISK_S 0.397   /* the load's samples 3 ms after the launch to its end */
#define STALLRUN_WARM_DISK_S 0.197   /* the warm-up's stall less the 3 ms of the sample before it */
/* the same with delay.blkio's 197 ms deciding: the 3 ms it did not
 * measure split as the samples split the stall (197 of 200 ms disk) */
#define STALLRUN_WARM_DISK_EXACT_S (0.197 + 0.003 * 0.197 / 0.2)
#define STALLRUN_T0_OFFSET_MS 1.0    /* the record's clock pair against bench.txt's */
#define STALLRUN_ALIGN_MS 3.0        /* a sample 3 ms after each present */

/* Writes DIR/bench.txt, DIR/frames.bin and DIR/stalls.rec.zst (DIR must
 * exist). 0 or -errno. */
int stallrun_write(const char *dir, enum stallrun_kind kind);

#endif
