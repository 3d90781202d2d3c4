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
#include "run/runrelay.h"
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

/* p counted with a round's figures (fig's, its round kept) and the
 * round's fig->flip_blocks values appended to the test's. */
static void count_round(struct ab_pair *p, const struct ab_pair *fig, const double *values, double **blocks,
			size_t *n_blocks)
{
	int round = p->round;

	*p = *fig;
	p->round = round;
	p->counted = true;
	*blocks = xrealloc(*blocks, sizeof(**blocks) * (*n_blocks + fig->flip_blocks + 1));
	memcpy(*blocks + *n_blocks, values, sizeof(**blocks) * fig->flip_blocks);
	*n_blocks += fig->flip_blocks;
}

/* The run in dir loaded and checked as a report checks it: 0, or -errno
 * with p->why (the run loaded all the same unless it could not be). */
static int load_counted(const struct ab_test *t, const char *dir, struct run *run, struct ab_pair *p)
{
	struct strbuf err = STRBUF_INIT;
	int r = run_load(dir, run, &err);

	if (r < 0) {
		memset(run, 0, sizeof(*run));
		p->why = xasprintf("cannot load: %s", err.buf);
		strbuf_release(&err);
		return r;
	}
	strbuf_release(&err);
	run_validate(run, &t->mo);
	if (strcmp(run->status, "ok") != 0)
		p->why = xasprintf("%s: %s", run->name, run->status);
	else if (run->invalid || run->disturbed)
		p->why = xasprintf("%s: invalid: %s", run->name, run->invalid ? run->invalid : run->disturbed);
	return p->why ? -EINVAL : 0;
}

/* The run's analysis into p and its blocks appended; or p->why. */
static void read_run(const struct ab_test *t, const char *dir, struct ab_pair *p, double **blocks,
		     size_t *n_blocks)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;
	struct run_flip f;

	run_flip_init(&f);
	if (load_counted(t, dir, &run, p) < 0) {
		run_release(&run);
		return;
	}
	if (run_flip_analyse(&run, &f, &err) < 0)
		p->why = xasprintf("%s: %s", run.name, err.len ? err.buf : "not a flip run (no flip.txt)");
	else if (f.n_blocks == 0)
		p->why = xasprintf("%s: no pair of segments counts (%zu segments: %zu late, %zu failed, %zu too "
				   "thin, %zu outside the window)", run.name, f.n_segs, f.late, f.failed, f.thin,
				   f.outside);
	if (!p->why)
		count_round(p, &(struct ab_pair){ .a = side_fps(&f, 'A'), .b = side_fps(&f, 'B'), .d = f.estimate,
						 .se = f.se, .flip_pairs = f.n_pairs, .flip_blocks = f.n_blocks,
						 .block_size = f.block_size, .r1 = f.r1_blocks,
						 .wall_s = run_wall_seconds(&run) },
			    f.blocks, blocks, n_blocks);
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

/* The slot of round's cell (0: A, 1: B), or SIZE_MAX. */
static size_t cell_slot(const struct batch *b, int round, size_t cell)
{
	for (size_t i = 0; i < b->n_slots; i++)
		if (b->slots[i].round == round &&
		    (size_t)b->slots[i].token * b->variants.n + (size_t)b->slots[i].variant == cell)
			return i;
	return SIZE_MAX;
}

/* A relay's side loaded and checked: 0, or p->why set. */
static int load_side(const struct ab_test *t, const struct batch *b, size_t slot, struct run *run,
		     struct ab_pair *p)
{
	char *dir;
	int r;

	if (!b->run_dir[slot]) {
		p->why = xstrdup("no run directory");
		return -ENOENT;
	}
	dir = ab_slot_dir(b, slot);
	r = load_counted(t, dir, run, p);
	free(dir);
	return r;
}

bool ab_relay_read_round(const struct ab_test *t, const struct batch *b, int round, struct ab_pair *p,
			 double **blocks, size_t *n_blocks)
{
	size_t slot[2] = { cell_slot(b, round, 0), cell_slot(b, round, 1) };
	struct run run[2];
	struct run_relay_cmp c;
	struct strbuf err = STRBUF_INIT;
	int loaded = 0;

	for (int k = 0; k < 2; k++)
		if (slot[k] == SIZE_MAX || b->state[slot[k]] != SLOT_DONE)
			return false;
	memset(p, 0, sizeof(*p));
	memset(run, 0, sizeof(run));
	p->round = round;
	run_relay_cmp_init(&c);
	while (loaded < 2 && load_side(t, b, slot[loaded], &run[loaded], p) == 0)
		loaded++;
	if (loaded == 2 && run_relay_compare(&run[0], &run[1], &c, &err) < 0)
		p->why = xasprintf("%s", err.buf);
	else if (loaded == 2 && c.n_blocks == 0)
		p->why = xasprintf("no block of the two runs counts (%zu pairs)", c.n_d);
	if (loaded == 2 && !p->why)
		count_round(p, &(struct ab_pair){ .a = c.fps_a, .b = c.fps_b, .d = c.estimate, .se = c.se,
						 .flip_pairs = c.n_d, .flip_blocks = c.n_blocks,
						 .block_size = c.block_size, .r1 = c.r1_blocks,
						 .wall_s = fmax(run_wall_seconds(&run[0]), run_wall_seconds(&run[1])) },
			    c.blocks, blocks, n_blocks);
	for (int k = 0; k < 2; k++)
		run_release(&run[k]);
	run_relay_cmp_release(&c);
	strbuf_release(&err);
	return true;
}
