/*
 * Which two switch tokens a flip run can turn between (switch.h,
 * switch_flip_pair()): they must differ in one switch alone, and that
 * switch must be one that changes while the game plays (a flip hook).
 */
#include "switch/switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Whether two settings of one switch are the same (value and parameters). */
static bool same_on(const struct switch_on *x, const struct switch_on *y)
{
	if (!x || !y)
		return x == y;
	if (strcmp(x->value ? x->value : "", y->value ? y->value : "") != 0)
		return false;
	for (int k = 0; k < SWITCH_MAX_PARAMS; k++)
		if (strcmp(x->params[k] ? x->params[k] : "", y->params[k] ? y->params[k] : "") != 0)
			return false;
	return true;
}

/* The switches that can flip, for a message. */
static void flippable(struct strbuf *out)
{
	switch_names(out, true);
}

int switch_flip_pair(const struct switch_set *a, const struct switch_set *b, const struct switch_on **on_a,
		     const struct switch_on **on_b, struct strbuf *err)
{
	const struct switch_def *def = NULL;
	const struct switch_set *sets[2] = { a, b };

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < sets[s]->n; k++) {
			const struct switch_def *d = sets[s]->on[k].def;

			if (same_on(switch_set_find(a, d->name), switch_set_find(b, d->name)) || d == def)
				continue;
			if (def) {
				strbuf_addf(err, "'%s' and '%s' differ in %s and in %s: a flip run turns one switch",
					    a->token, b->token, def->name, d->name);
				return -EINVAL;
			}
			def = d;
		}
	if (!def) {
		strbuf_addf(err, "'%s' and '%s' set the same: nothing to flip", a->token, b->token);
		return -EINVAL;
	}
	if (!def->flip) {
		strbuf_addf(err, "%s cannot be changed while the game runs (switches that can: ", def->name);
		flippable(err);
		strbuf_addstr(err, "); compare it by runs (ab --design runs)");
		return -EINVAL;
	}
	*on_a = switch_set_find(a, def->name);
	*on_b = switch_set_find(b, def->name);
	return def->flip_check ? def->flip_check(*on_a, *on_b, err) : 0;
}

/* A switch that flips by pausing (def->flip_pauses) is on on one side and
 * off on the other; the run starts it as the side that has it on, so A's
 * set takes that side's setting (its terms point into b's, which outlives
 * the run) and the side that has it off is NULL. */
static int run_with_on(struct switch_set *a, const struct switch_def *def, const struct switch_on **on_a,
		       const struct switch_on **on_b, struct strbuf *err)
{
	size_t k;

	if (switch_on_is_on(*on_a) == switch_on_is_on(*on_b)) {
		strbuf_addf(err, "%s flips by pausing it: one side has it on, the other off ('-' or %s=%s)",
			    def->name, def->name, def->off_value ? def->off_value : "0");
		return -EINVAL;
	}
	if (switch_on_is_on(*on_a)) {
		*on_b = NULL;
		return 0;
	}
	for (k = 0; k < a->n && a->on[k].def != def; k++)
		;
	if (k == a->n) {
		if (a->n == SWITCH_MAX_ON) {
			strbuf_addf(err, "'%s' sets %d switches already", a->token, SWITCH_MAX_ON);
			return -EINVAL;
		}
		a->n++;
	}
	a->on[k] = **on_b;
	*on_a = NULL;
	*on_b = &a->on[k];
	return 0;
}

int switch_flip_plan(struct switch_set *a, const struct switch_set *b, struct flip_plan *p,
		     struct strbuf *err)
{
	const struct switch_on *on_a, *on_b;
	const struct switch_def *def;
	char *label;

	if (switch_flip_pair(a, b, &on_a, &on_b, err) < 0)
		return -EINVAL;
	def = on_a ? on_a->def : on_b->def;
	if (p->settle_s * 2 >= p->segment_s) {
		strbuf_addf(err, "--settle %g s leaves nothing of a %g s segment to measure (at most half of it)",
			    p->settle_s, p->segment_s);
		return -EINVAL;
	}
	if (def->flip_act_ms > p->settle_s * 1e3) {
		strbuf_addf(err, "%s takes %g ms to act: --settle must be at least that", def->name,
			    def->flip_act_ms);
		return -EINVAL;
	}
	if (def->flip_pauses && run_with_on(a, def, &on_a, &on_b, err) < 0)
		return -EINVAL;
	label = xasprintf("%s~%s", *a->label ? a->label : "none", *b->label ? b->label : "none");
	free(a->label);
	a->label = label;
	p->a = on_a;
	p->b = on_b;
	p->a_term = a->token;
	p->b_term = b->token;
	return 0;
}
