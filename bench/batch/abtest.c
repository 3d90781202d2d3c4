/*
 * A two-cell batch as pairs, tested as they come (see abtest.h).
 */
#include "batch/abtest.h"
#include "base/exitcodes.h"
#include "text/kvfile.h"
#include "run/run.h"
#include "report/report.h"
#include "text/jsonout.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ab_test_init(struct ab_test *t)
{
	memset(t, 0, sizeof(*t));
	t->opts = (struct seq_opts)SEQ_OPTS_DEFAULT;
	t->metric = M_FPS;
	t->mo = (struct metric_opts)METRIC_OPTS_DEFAULT;
}

void ab_test_release(struct ab_test *t)
{
	for (size_t i = 0; i < t->n_pairs; i++)
		free(t->pairs[i].why);
	free(t->pairs);
	free(t->d);
	t->pairs = NULL;
	t->d = NULL;
	t->n_pairs = t->n_d = 0;
}

int ab_batch_cells(const struct batch *b, struct strbuf *err)
{
	if (kvfile_get(&b->info, "flip")) {
		if (b->variants.n * b->tokens.n == 1)
			return 0;
		strbuf_addf(err, "flip batch '%s' has %zu cells, not one", b->id, b->variants.n * b->tokens.n);
		return -EINVAL;
	}
	if (b->variants.n * b->tokens.n != 2) {
		strbuf_addf(err, "batch '%s' has %zu cells (variants x switch tokens), not the two of an A/B",
			    b->id, b->variants.n * b->tokens.n);
		return -EINVAL;
	}
	return 0;
}

char *ab_cell_name(const struct batch *b, size_t cell)
{
	/* the plan's cells: the tokens in order, each with the variants in order */
	const char *variant = b->variants.v[cell % b->variants.n];
	const char *token = b->tokens.v[(cell / b->variants.n) % b->tokens.n];
	const char *flip = kvfile_get(&b->info, "flip");

	if (flip && cell == 1)
		token = flip;
	return strcmp(token, "-") == 0 ? xstrdup(variant) : xasprintf("%s@%s", variant, token);
}

char *ab_slot_dir(const struct batch *b, size_t slot)
{
	/* runs.txt names them inside the batch directory */
	return b->run_dir[slot][0] == '/' ? xstrdup(b->run_dir[slot]) :
	       xasprintf("%s/%s", b->dir, b->run_dir[slot]);
}

/* The metric of the slot's last run, or why there is none that counts. */
static int slot_value(const struct ab_test *t, const struct batch *b, size_t slot, double *v,
		      char **why)
{
	struct strbuf err = STRBUF_INIT;
	struct report_row row;
	struct run run;
	char *dir;
	int r = -EINVAL;

	if (!b->run_dir[slot]) {
		*why = xstrdup("no run directory");
		return -ENOENT;
	}
	dir = ab_slot_dir(b, slot);
	r = run_load(dir, &run, &err);
	free(dir);
	if (r < 0) {
		*why = xasprintf("cannot load: %s", err.buf);
		strbuf_release(&err);
		return -EINVAL;
	}
	r = -EINVAL;
	if (!run_report_row(&run, &t->mo, &row))
		*why = xasprintf("%s: no window", run.name);
	else if (strcmp(row.status, "ok") != 0)
		*why = xasprintf("%s: %s", run.name, row.status);
	else if (run.invalid || row.disturbed)
		*why = xasprintf("%s: invalid: %s", run.name, run.invalid ? run.invalid : "disturbed");
	else if (!row.m.have[t->metric] || !(row.m.v[t->metric] > 0) || !isfinite(row.m.v[t->metric]))
		*why = xasprintf("%s: no positive %s", run.name, metric_defs[t->metric].name);
	else {
		*v = row.m.v[t->metric];
		r = 0;
	}
	run_release(&run);
	strbuf_release(&err);
	return r;
}

/* Round `round`'s pair when both its runs have ended; false otherwise. */
static bool read_round(const struct ab_test *t, const struct batch *b, int round, struct ab_pair *p)
{
	size_t slot[2] = { SIZE_MAX, SIZE_MAX };
	double v[2] = { 0, 0 };

	for (size_t i = 0; i < b->n_slots; i++)
		if (b->slots[i].round == round) {
			size_t cell = b->slots[i].token * b->variants.n + b->slots[i].variant;

			if (b->state[i] != SLOT_DONE)
				return false;
			slot[cell] = i;
		}
	if (slot[0] == SIZE_MAX || slot[1] == SIZE_MAX)
		return false;
	memset(p, 0, sizeof(*p));
	p->round = round;
	for (int c = 0; c < 2; c++)
		if (slot_value(t, b, slot[c], &v[c], &p->why) < 0)
			return true;
	p->a = v[0];
	p->b = v[1];
	p->d = log(v[1] / v[0]);
	p->counted = true;
	return true;
}

static bool duet(const struct ab_test *t)
{
	return t->relay && strcmp(t->relay, "duet") == 0;
}

/* A duet's rounds count in swapped pairs (1 and 2, 3 and 4, ...: A on one
 * half of the CPUs, then on the other), so that a difference between the
 * halves cancels: an odd round's values wait for the even one; when either
 * of the two did not count, neither does. from: where round's values began. */
static void duet_swap(struct ab_test *t, int round, size_t from)
{
	struct ab_pair *p = &t->pairs[t->n_pairs - 1], *q;

	if (round % 2 == 1)
		return; /* t->n_d_test stays before it */
	q = &t->pairs[t->n_pairs - 2];
	if (p->counted != q->counted) {
		struct ab_pair *lone = p->counted ? p : q;

		lone->counted = false;
		lone->why = xasprintf("its CPU swap, round %d, did not count: a duet's rounds count in swapped "
				      "pairs", lone == p ? q->round : p->round);
		t->n_d = p->counted ? from : t->n_d_test;
	}
	t->n_d_test = t->n_d;
}

void ab_test_update(struct ab_test *t, const struct batch *b, size_t *added)
{
	size_t before = t->n_pairs;

	t->relay = kvfile_get(&b->info, "relay");
	t->flip = kvfile_get(&b->info, "flip") != NULL || t->relay;
	if (t->flip) /* the batch's rounds are the cap; the blocks are not */
		t->opts.max_pairs = AB_FLIP_MAX_BLOCKS;
	for (int round = (int)t->n_pairs + 1; round <= b->rounds; round++) {
		struct ab_pair p;

		if (t->flip) {
			size_t from = t->n_d;

			if (!(t->relay ? ab_relay_read_round(t, b, round, &p, &t->d, &t->n_d) :
					 ab_flip_read_round(t, b, round, &p, &t->d, &t->n_d)))
				break;
			t->pairs = xrealloc(t->pairs, sizeof(*t->pairs) * (t->n_pairs + 1));
			t->pairs[t->n_pairs++] = p;
			if (duet(t))
				duet_swap(t, round, from);
			else
				t->n_d_test = t->n_d;
			continue;
		}
		if (!read_round(t, b, round, &p))
			break;
		t->pairs = xrealloc(t->pairs, sizeof(*t->pairs) * (t->n_pairs + 1));
		t->pairs[t->n_pairs++] = p;
		if (p.counted) {
			t->d = xrealloc(t->d, sizeof(*t->d) * (t->n_d + 1));
			t->d[t->n_d++] = p.d;
		}
		t->n_d_test = t->n_d;
	}
	seq_run(t->d, t->n_d_test, &t->opts, &t->result);
	if (added)
		*added = t->n_pairs - before;
}

size_t ab_values_through(const struct ab_test *t, size_t i)
{
	size_t k = 0;

	for (size_t j = 0; j <= i; j++)
		if (t->pairs[j].counted)
			k += t->flip ? t->pairs[j].flip_blocks : 1;
	return k;
}

/* Rounds left out (not counted). */
static size_t left_out_rounds(const struct ab_test *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_pairs; i++)
		n += !t->pairs[i].counted;
	return n;
}

void ab_print_heading(FILE *out, const struct ab_test *t, const char *a_name, const char *b_name)
{
	const struct seq_opts *o = &t->opts;

	if (t->relay) {
		fprintf(out, "# %s rounds, A and B loaded at once%s: A = %s, B = %s (docs/metrics.md \"Relay\")\n",
			t->relay, strcmp(t->relay, "duet") == 0 ? ", both playing, the CPU halves swapped by round" :
			" and played in turns", a_name, b_name);
		fprintf(out, "# a pair = ln(B/A) of fps of a looping demo's same frames (blocks of a turn's frames, "
			"frame index within the pass), else of adjacent turns; stops and the settle after "
			"each resume left out; blocks of pairs are the test's values\n");
	} else if (t->flip) {
		fprintf(out, "# flip runs, A and B turned in one game run: A = %s, B = %s (docs/metrics.md \"Flip\")\n",
			a_name, b_name);
		fprintf(out, "# each segment's fps = its frames / their time, after the settle; a pair = ln(B/A) of "
			"two adjacent segments, a looping demo's averaged with the same two in the pass of the "
			"other order; blocks of pairs are the test's values\n");
	}
	if (t->flip) {
		fprintf(out, "# H1: a change of %.3g%% either way; alpha %.3g, beta %.3g; at least %zu blocks; "
			"SAME at LLR <= %.3f, DIFFERENT at LLR >= %.3f\n", o->effect * 100, o->alpha, o->beta,
			o->min_pairs, t->result.lower, t->result.upper);
		fprintf(out, "# %5s %9s %9s %6s %6s %7s %9s %7s %7s %8s %8s %s\n", "round", "A fps", "B fps",
			"pairs", "blocks", "lag-1", "ln(B/A)", "se", "blocks", "LLR", "B/A", "interval");
		return;
	}
	fprintf(out, "# paired sequential test of %s: A = %s, B = %s\n", metric_defs[t->metric].name,
		a_name, b_name);
	fprintf(out, "# H1: a change of %.3g%% either way; alpha %.3g, beta %.3g; pairs %zu..%zu; "
		"SAME at LLR <= %.3f, DIFFERENT at LLR >= %.3f\n", o->effect * 100, o->alpha, o->beta,
		o->min_pairs, o->max_pairs, t->result.lower, t->result.upper);
	fprintf(out, "# %4s %5s %12s %12s %9s %8s %8s %8s %8s %s\n", "pair", "round", "A", "B", "ln(B/A)",
		"LLR", "lower", "upper", "B/A", "interval");
}

void ab_print_pair(FILE *out, const struct ab_test *t, size_t i)
{
	const struct ab_pair *p = &t->pairs[i];
	const int dec = metric_defs[t->metric].decimals + 1;
	struct seq_result r;
	size_t k = 0;

	if (t->flip) {
		ab_flip_print_round(out, t, i);
		return;
	}
	if (!p->counted) {
		fprintf(out, "  %4s %5d left out: %s\n", "-", p->round, p->why);
		return;
	}
	/* the test as it stood after this pair */
	for (size_t j = 0; j <= i; j++)
		k += t->pairs[j].counted;
	seq_run(t->d, k, &t->opts, &r);
	fprintf(out, "  %4zu %5d %12.*f %12.*f %+9.4f %8.3f %8.3f %8.3f %8.4f [%.4f, %.4f]\n", k, p->round,
		dec, p->a, dec, p->b, p->d, r.llr, r.lower, r.upper, r.estimate, r.ci_lo, r.ci_hi);
}

/* What a higher value of the metric means, when it means speed. */
static const char *direction(int metric, int sign)
{
	const char *n = metric_defs[metric].name;
	size_t len = strlen(n);
	bool rate = strstr(n, "fps") || strncmp(n, "low", 3) == 0 || strncmp(n, "mangohud_", 9) == 0;
	bool per_frame = (len > 3 && strcmp(n + len - 3, "_ms") == 0) || strstr(n, "ms_per_frame");

	if (rate)
		return sign > 0 ? "faster" : "slower";
	if (per_frame)
		return sign > 0 ? "slower" : "faster";
	return sign > 0 ? "higher" : "lower";
}

void ab_print_all(FILE *out, const struct ab_test *t, const char *a_name, const char *b_name)
{
	size_t k = 0;

	ab_print_heading(out, t, a_name, b_name);
	/* the pairs up to where the test stopped */
	for (size_t i = 0; i < t->n_pairs; i++) {
		if (t->flip) {
			ab_print_pair(out, t, i);
			continue;
		}
		if (k == t->result.pairs && (t->pairs[i].counted || t->result.done))
			break;
		ab_print_pair(out, t, i);
		k += t->pairs[i].counted;
	}
	fputc('\n', out);
	ab_print_verdict(out, t);
}

/* A duet's CPU halves: ln(B/A) with A on the lower half (odd rounds) and
 * on the upper (even), each the mean of its rounds' own estimates; half
 * their difference is what the halves add to B/A, which the swaps cancel. */
static void print_duet_asymmetry(FILE *out, const struct ab_test *t)
{
	double s[2] = { 0, 0 };
	size_t n[2] = { 0, 0 };

	for (size_t i = 0; i < t->n_pairs; i++)
		if (t->pairs[i].counted) {
			s[t->pairs[i].round % 2 == 0] += t->pairs[i].d;
			n[t->pairs[i].round % 2 == 0]++;
		}
	if (!n[0] || !n[1])
		return;
	fprintf(out, "duet: ln(B/A) %+.2f%% with A on the lower CPUs (%zu round(s)), %+.2f%% on the upper (%zu); "
		"the halves' asymmetry (half the difference) %+.2f%%, cancelled by the swaps\n",
		100 * s[0] / (double)n[0], n[0], 100 * s[1] / (double)n[1], n[1],
		50 * (s[0] / (double)n[0] - s[1] / (double)n[1]));
}

void ab_print_verdict(FILE *out, const struct ab_test *t)
{
	const struct seq_result *r = &t->result;
	size_t left_out = t->n_pairs - t->n_d;

	if (t->flip)
		left_out = left_out_rounds(t);
	if (r->verdict == VERDICT_DIFFERENT)
		fprintf(out, "verdict DIFFERENT: B %s than A", direction(t->metric, r->sign));
	else
		fprintf(out, "verdict %s", stats_verdict_name(r->verdict));
	fprintf(out, " after %zu %s%s\n", r->pairs, t->relay ? "block(s) of relay pairs" : t->flip ? "block(s) of flip pairs" : "pair(s)",
		r->done ? "" : t->flip ? " (not finished: the test wants more blocks)" :
		" (not finished: the test wants more pairs)");
	if (r->pairs > 0)
		fprintf(out, "estimate B/A %.4f (%+.2f%%), %.0f%% interval [%.4f, %.4f] (a confidence sequence: "
			"valid where the test stopped)\n", r->estimate, (r->estimate - 1) * 100,
			(1 - t->opts.alpha) * 100, r->ci_lo, r->ci_hi);
	if (left_out)
		fprintf(out, "left out %zu round(s) whose runs did not both count\n", left_out);
	if (duet(t))
		print_duet_asymmetry(out, t);
}

void ab_print_json(FILE *out, const struct ab_test *t, const char *batch_id, const char *a_name,
		   const char *b_name)
{
	const struct seq_result *r = &t->result;
	struct json_out j;

	json_out_init(&j, out);
	json_object_begin(&j, NULL);
	json_int(&j, "format", HB_AB_JSON_FORMAT);
	json_string(&j, "batch_id", batch_id);
	json_string(&j, "metric", metric_defs[t->metric].name);
	json_string(&j, "a", a_name);
	json_string(&j, "b", b_name);
	json_object_begin_inline(&j, "options");
	json_number(&j, "effect", true, t->opts.effect);
	json_number(&j, "alpha", true, t->opts.alpha);
	json_number(&j, "beta", true, t->opts.beta);
	json_uint(&j, "min_pairs", t->opts.min_pairs);
	json_uint(&j, "max_pairs", t->opts.max_pairs);
	json_number(&j, "sd_floor", true, seq_sd_floor(&t->opts));
	json_object_end(&j);
	json_number(&j, "lower", true, r->lower);
	json_number(&j, "upper", true, r->upper);
	json_array_begin(&j, "rounds");
	for (size_t i = 0, k = 0; i < t->n_pairs; i++) {
		const struct ab_pair *p = &t->pairs[i];
		struct seq_result s;

		json_object_begin_inline(&j, NULL);
		json_int(&j, "round", p->round);
		json_bool(&j, "counted", p->counted);
		if (p->counted) {
			/* the test as it stood after this pair (a flip run: its blocks) */
			k = ab_values_through(t, i);
			seq_run(t->d, k, &t->opts, &s);
			json_uint(&j, t->flip ? "blocks_so_far" : "pair", k);
			if (t->flip) {
				json_uint(&j, "flip_pairs", p->flip_pairs);
				json_uint(&j, "blocks", p->flip_blocks);
				json_uint(&j, "block_size", p->block_size);
				json_number(&j, "r1_blocks", true, p->r1);
				json_number(&j, "se", p->flip_blocks > 1, p->se);
			}
			json_number(&j, "a", true, p->a);
			json_number(&j, "b", true, p->b);
			json_number(&j, "log_ratio", true, p->d);
			json_number(&j, "llr", true, s.llr);
			json_number(&j, "estimate", true, s.estimate);
			json_number(&j, "ci_lo", true, s.ci_lo);
			json_number(&j, "ci_hi", true, s.ci_hi);
		} else {
			json_string(&j, "why", p->why);
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_string(&j, "verdict", stats_verdict_name(r->verdict));
	json_bool(&j, "done", r->done);
	json_int(&j, "sign", r->sign);
	json_string(&j, "direction", r->verdict == VERDICT_DIFFERENT ? direction(t->metric, r->sign) : NULL);
	json_uint(&j, "pairs", r->pairs);
	json_number(&j, "llr", true, r->llr);
	json_number(&j, "estimate", r->pairs > 0, r->estimate);
	json_number(&j, "ci_lo", r->pairs > 0, r->ci_lo);
	json_number(&j, "ci_hi", r->pairs > 0, r->ci_hi);
	json_number(&j, "confidence", true, 1 - t->opts.alpha);
	json_uint(&j, "left_out", left_out_rounds(t));
	json_int(&j, "exit_status", ab_exit_code(t));
	json_object_begin(&j, "definitions");
	json_string(&j, "log_ratio", t->relay ? "a relay round's own estimate: the mean of its blocks of ln(B/A) "
		    "of fps of the same frames of a looping demo, else of adjacent turns (docs/metrics.md \"Relay\")" :
		    t->flip ? "a flip run's own estimate: the mean of its blocks of ln(B/A) of "
		    "adjacent segments' fps (docs/metrics.md \"Flip\")" : "ln(B/A) of the round's two runs' metric: a pair");
	json_string(&j, "llr", "the sequential test's log-likelihood ratio over the pairs so far "
		    "(docs/metrics.md, \"A paired A/B that stops when it knows\")");
	json_string(&j, "lower", "SAME once llr is at or under it");
	json_string(&j, "upper", "DIFFERENT once llr is at or over it");
	json_string(&j, "estimate", "B/A: exp of the robust mean of the log-ratios");
	json_string(&j, "ci_lo", "a confidence sequence for B/A at the confidence given, valid where the "
		    "test stopped");
	json_string(&j, "left_out", "rounds whose runs did not both count");
	json_object_end(&j);
	json_object_end(&j);
}

int ab_exit_code(const struct ab_test *t)
{
	return t->result.verdict == VERDICT_SAME ? 0 : t->result.verdict == VERDICT_DIFFERENT ? 3 : 4;
}

int ab_state_write(const struct ab_test *t, const struct batch *b, const char *a_name,
		   const char *b_name)
{
	const struct seq_result *r = &t->result;
	struct kvfile kf;
	char *path;
	int ret;

	kvfile_init(&kf);
	kvfile_addf(&kf, "format", "%d", HB_AB_FORMAT);
	kvfile_add(&kf, "batch_id", b->id);
	kvfile_add(&kf, "a", a_name);
	kvfile_add(&kf, "b", b_name);
	kvfile_add(&kf, "metric", metric_defs[t->metric].name);
	kvfile_addf(&kf, "effect", "%.17g", t->opts.effect);
	kvfile_addf(&kf, "alpha", "%.17g", t->opts.alpha);
	kvfile_addf(&kf, "beta", "%.17g", t->opts.beta);
	kvfile_addf(&kf, "min_pairs", "%zu", t->opts.min_pairs);
	kvfile_addf(&kf, "max_pairs", "%zu", t->opts.max_pairs);
	kvfile_addf(&kf, "sd_floor", "%.17g", seq_sd_floor(&t->opts));
	kvfile_addf(&kf, "lower", "%.6f", r->lower);
	kvfile_addf(&kf, "upper", "%.6f", r->upper);
	for (size_t i = 0, k = 0; i < t->n_pairs; i++) {
		const struct ab_pair *p = &t->pairs[i];
		char key[32];

		snprintf(key, sizeof(key), "round.%d", p->round);
		if (p->counted) {
			struct seq_result s;

			k = ab_values_through(t, i);
			seq_run(t->d, k, &t->opts, &s);
			kvfile_addf(&kf, key, "%s %zu a %.17g b %.17g d %.17g llr %.6f", t->flip ? "blocks" : "pair",
				    k, p->a, p->b, p->d, s.llr);
		} else {
			kvfile_addf(&kf, key, "left out: %s", p->why);
		}
	}
	kvfile_add(&kf, "state", r->done ? "done" : "running");
	kvfile_add(&kf, "verdict", stats_verdict_name(r->verdict));
	kvfile_addf(&kf, "sign", "%d", r->sign);
	kvfile_addf(&kf, "pairs", "%zu", r->pairs);
	kvfile_addf(&kf, "llr", "%.6f", r->llr);
	kvfile_addf(&kf, "estimate", "%.6f", r->estimate);
	kvfile_addf(&kf, "ci_lo", "%.6f", r->ci_lo);
	kvfile_addf(&kf, "ci_hi", "%.6f", r->ci_hi);
	path = xasprintf("%s/ab.txt", b->dir);
	ret = kvfile_write(&kf, path);
	free(path);
	kvfile_release(&kf);
	return ret;
}

static int get_double(const struct kvfile *kf, const char *key, double *out)
{
	const char *v = kvfile_get(kf, key);

	return v && safe_atod(v, out) == 0 ? 0 : -EINVAL;
}

static int get_size(const struct kvfile *kf, const char *key, size_t *out)
{
	const char *v = kvfile_get(kf, key);
	int x;

	if (!v || safe_atoi(v, &x) < 0 || x < 0)
		return -EINVAL;
	*out = (size_t)x;
	return 0;
}

int ab_state_read_opts(struct ab_test *t, const struct batch *b, struct strbuf *err)
{
	char *path = xasprintf("%s/ab.txt", b->dir);
	struct seq_opts o = t->opts;
	const char *v;
	struct kvfile kf;
	int r;

	kvfile_init(&kf);
	if (access(path, F_OK) < 0 && errno == ENOENT) {
		r = -ENOENT;
		goto out;
	}
	r = kvfile_load(&kf, path, err);
	if (r < 0)
		goto out;
	r = -EINVAL;
	v = kvfile_get(&kf, "format");
	if (!v || strcmp(v, "1") != 0) {
		strbuf_addf(err, "%s: format %s, not %d", path, v ? v : "missing", HB_AB_FORMAT);
		goto out;
	}
	v = kvfile_get(&kf, "metric");
	t->metric = -1;
	for (int m = 0; v && m < M_COUNT; m++)
		if (strcmp(metric_defs[m].name, v) == 0)
			t->metric = m;
	if (t->metric < 0 || get_double(&kf, "effect", &o.effect) < 0 ||
	    get_double(&kf, "alpha", &o.alpha) < 0 || get_double(&kf, "beta", &o.beta) < 0 ||
	    get_size(&kf, "min_pairs", &o.min_pairs) < 0 || get_size(&kf, "max_pairs", &o.max_pairs) < 0 ||
	    get_double(&kf, "sd_floor", &o.sd_floor) < 0 || seq_opts_check(&o) < 0) {
		strbuf_addf(err, "%s: metric, effect, alpha, beta, min_pairs, max_pairs or sd_floor "
			    "missing or bad", path);
		goto out;
	}
	t->opts = o;
	r = 0;
out:
	kvfile_release(&kf);
	free(path);
	return r;
}

int ab_test_open(struct ab_test *t, struct batch *b, const char *arg, const char *parent,
		 struct strbuf *err)
{
	int r = batch_open(b, arg, parent, err);

	if (r == 0 && ab_batch_cells(b, err) < 0)
		r = -EDOM;
	if (r == 0)
		r = batch_metric_opts(b, &t->mo, err);
	if (r == 0 && (r = ab_state_read_opts(t, b, err)) == -ENOENT)
		r = 0;
	return r;
}
