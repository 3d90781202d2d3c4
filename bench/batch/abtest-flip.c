/*
 * A flip batch read as the sequential test's values (abtest.h): each
 * round is one flip run, analysed by analysis/run/runflip.h into blocks of
 * segment pairs, and every block is one value of the test, in the order
 * the runs ended. A run that failed, was disturbed or has no pairs is
 * left out with the reason.
 */
#include "batch/abtest.h"
#include "run/run.h"
#include "run/runflip.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The mean fps of one side's counted segments. */
static double side_fps(const struct run_flip *f, char side)
{
	double s = 0;
	size_t n = 0;

	for (size_t i = 0; i < f->n_segs; i++)
		if (f->segs[i].counted && f->segs[i].side == side) {
			s += 1000.0 / exp(f->segs[i].log_ft);
			n++;
		}
	return n ? s / (double)n : 0;
}

/* The run's analysis into p and its blocks appended; or p->why. */
static void read_run(const struct ab_test *t, const char *dir, struct ab_pair *p, double **blocks,
		     size_t *n_blocks)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;
	struct run_flip f;

	run_flip_init(&f);
	if (run_load(dir, &run, &err) < 0) {
		p->why = xasprintf("cannot load: %s", err.buf);
		strbuf_release(&err);
		return;
	}
	run_validate(&run, &t->mo);
	if (strcmp(run.status, "ok") != 0)
		p->why = xasprintf("%s: %s", run.name, run.status);
	else if (run.invalid || run.disturbed)
		p->why = xasprintf("%s: invalid: %s", run.name, run.invalid ? run.invalid : run.disturbed);
	else if (run_flip_analyse(&run, &f, &err) < 0)
		p->why = xasprintf("%s: %s", run.name, err.len ? err.buf : "not a flip run (no flip.txt)");
	else if (f.n_blocks == 0)
		p->why = xasprintf("%s: no pair of segments counts (%zu segments: %zu late, %zu failed, %zu too "
				   "thin, %zu outside the window)", run.name, f.n_segs, f.late, f.failed, f.thin,
				   f.outside);
	if (!p->why) {
		p->counted = true;
		p->a = side_fps(&f, 'A');
		p->b = side_fps(&f, 'B');
		p->d = f.estimate;
		p->se = f.se;
		p->flip_pairs = f.n_pairs;
		p->flip_blocks = f.n_blocks;
		p->block_size = f.block_size;
		p->r1 = f.r1_blocks;
		*blocks = xrealloc(*blocks, sizeof(**blocks) * (*n_blocks + f.n_blocks));
		memcpy(*blocks + *n_blocks, f.blocks, sizeof(**blocks) * f.n_blocks);
		*n_blocks += f.n_blocks;
	}
	run_flip_release(&f);
	run_release(&run);
	strbuf_release(&err);
}

bool ab_flip_read_round(const struct ab_test *t, const struct batch *b, int round, struct ab_pair *p,
			double **blocks, size_t *n_blocks)
{
	size_t slot = SIZE_MAX;
	char *dir;

	for (size_t i = 0; i < b->n_slots; i++)
		if (b->slots[i].round == round)
			slot = i;
	if (slot == SIZE_MAX || b->state[slot] != SLOT_DONE)
		return false;
	memset(p, 0, sizeof(*p));
	p->round = round;
	if (!b->run_dir[slot]) {
		p->why = xstrdup("no run directory");
		return true;
	}
	dir = ab_slot_dir(b, slot);
	read_run(t, dir, p, blocks, n_blocks);
	free(dir);
	return true;
}

void ab_flip_print_round(FILE *out, const struct ab_test *t, size_t i)
{
	const struct ab_pair *p = &t->pairs[i];
	struct seq_result r;
	size_t k;

	if (!p->counted) {
		fprintf(out, "  %5d left out: %s\n", p->round, p->why);
		return;
	}
	/* the test as it stood after this run's blocks */
	k = ab_values_through(t, i);
	seq_run(t->d, k, &t->opts, &r);
	fprintf(out, "  %5d %9.2f %9.2f %6zu %3zu x%-2zu %+7.2f %+8.2f%% %6.2f%% %7zu %8.3f %8.4f [%.4f, %.4f]\n",
		p->round, p->a, p->b, p->flip_pairs, p->flip_blocks, p->block_size, p->r1, p->d * 100,
		p->se * 100, k, r.llr, r.estimate, r.ci_lo, r.ci_hi);
}
