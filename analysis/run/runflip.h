/*
 * A flip run read back (docs/metrics.md "Flip"): its record (flip.txt),
 * each segment's frames found from the recorded switch stamps (never
 * stored), the pairs and blocks of analysis/stats/flip.h, and the run's
 * own estimate of ln(B/A) of fps.
 *
 * A segment begins when its switch was applied plus the settle time (or
 * the switch's own act time, when longer) and ends when the next switch
 * was applied; only frame intervals between two presents of one process
 * inside it count (a relaunched pass's gap never does). It counts when it
 * lies inside the measured window, its switch was applied no later than
 * the record's late_ms after it was due, and it holds FLIP_SEG_LEAST
 * intervals.
 */
#ifndef HB_RUNFLIP_H
#define HB_RUNFLIP_H

#include <stddef.h>
#include <stdint.h>

#include "formats/flipfile.h"
#include "run/run.h"
#include "stats/flip.h"

#define FLIP_SEG_LEAST 3
#define FLIP_STALL_MS_DEFAULT 100.0

struct run_flip {
	struct flip_record rec;
	struct flip_seg *segs;      /* one an applied switch, in the record's order */
	const char **left_out;      /* beside segs: why each was not counted (NULL: counted) */
	size_t n_segs;
	struct flip_pair *pairs;
	size_t n_pairs;
	size_t block_size;
	double r1_pairs, r1_blocks; /* lag-one autocorrelation of the pairs, of the blocks */
	double *blocks;
	size_t n_blocks;
	double estimate, se;        /* mean of the blocks (ln(B/A) of fps), its standard error */
	/* Stalls: frame intervals over stall_ms (set after run_flip_init;
	 * default FLIP_STALL_MS_DEFAULT) in the paired segments of each side,
	 * and B - A in stalls per 1000 frames paired as fps is (the same
	 * pairs, blocks of the same size): the blocks' mean and its standard
	 * error (NAN under two blocks). */
	double stall_ms;
	uint64_t stalls_a, stalls_b, frames_a, frames_b;
	double stall_diff, stall_se;
	size_t n_stall_blocks;
	/* The 99th percentile frame time (ms, nearest-rank) of each side's
	 * frames in paired segments, pooled over the run: no interval (a segment holds
	 * too few frames for a p99 of its own); NAN without frames. */
	double p99_a, p99_b;
	double *ft[2];              /* the counted frame times, ms, of A [0] and B [1] */
	size_t n_ft[2], cap_ft[2];
	size_t counted;             /* segments counted */
	size_t late, failed, thin, outside; /* segments left out: why */
};

void run_flip_init(struct run_flip *f);
void run_flip_release(struct run_flip *f);

/* The flip analysis of a loaded run (its frames and window). 0; -ENOENT
 * when the run is not a flip run (no flip.txt); -EINVAL or -errno with
 * err (a bad record, a run without frames or window). */
int run_flip_analyse(const struct run *run, struct run_flip *f, struct strbuf *err);

#endif
