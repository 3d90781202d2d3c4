/*
 * A recipe's sections: the headers ([recipe], [variant NAME], [reload],
 * [input]) and the keys of [reload] and [input], which are not the
 * recipe's schema but the analysis's (analysis/reload.h) and the input
 * steps' (inputsteps.h). The family is in recipe-internal.h.
 */
#include "recipe-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A section that comes once: its line into *line, or the duplicate's
 * error. */
static int single_section(struct parser *p, const char *name, int *line, enum section_kind kind)
{
	if (*line)
		return fail(p, "duplicate section '[%s]' (first on line %d)", name, *line);
	*line = ini_line(p->ini);
	p->section = kind;
	return 0;
}

/* "[variant NAME]": one more variant, empty. */
static int begin_variant(struct parser *p, const char *name)
{
	struct recipe *r = p->r;
	struct recipe_variant *v;

	if (!*name)
		return fail(p, "missing variant name in '[variant]'");
	if (!recipe_valid_name(name))
		return fail(p, "bad variant name '%s' (letters, digits, '.', '_' and '-' only)", name);
	for (size_t i = 0; i < r->n_variants; i++)
		if (!strcmp(r->variants[i].name, name))
			return fail(p, "duplicate variant '%s' (first on line %d)", name,
				    p->variant_lines[i]);
	r->variants = xrealloc(r->variants, (r->n_variants + 1) * sizeof(*r->variants));
	p->variant_lines = xrealloc(p->variant_lines, (r->n_variants + 1) * sizeof(int));
	p->variant = r->n_variants++;
	p->variant_lines[p->variant] = ini_line(p->ini);
	v = &r->variants[p->variant];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	argv_init(&v->set.args);
	argv_init(&v->set.env);
	memset(p->variant_seen, 0, sizeof(p->variant_seen));
	p->section = SECTION_VARIANT;
	return 0;
}

int recipe_begin_section(struct parser *p, const char *name)
{
	if (!strcmp(name, "recipe"))
		return single_section(p, name, &p->recipe_line, SECTION_RECIPE);
	if (!strcmp(name, "reload"))
		return single_section(p, name, &p->reload_line, SECTION_RELOAD);
	if (!strcmp(name, "input"))
		return single_section(p, name, &p->input_line, SECTION_INPUT);
	if (strncmp(name, "variant", 7) || (name[7] && !is_blank(name[7])))
		return fail(p, "unknown section '%s'", name);
	for (name += 7; is_blank(*name); name++)
		;
	return begin_variant(p, name);
}

int recipe_reload_key(struct parser *p, const char *name, const char *value)
{
	struct strbuf msg = STRBUF_INIT;
	int e = reload_rule_set(&p->r->reload, name, value, &msg);

	if (e == -ENOENT)
		e = fail(p, "unknown key '%s' in [reload]", name);
	else if (e == -EEXIST)
		e = fail(p, "duplicate key '%s' in [reload]", name);
	else if (e < 0)
		e = fail(p, "%s", msg.buf);
	strbuf_release(&msg);
	return e;
}

/* The driver, or one more step (its syntax checked here, its key names
 * against the driver once the file is whole). */
int recipe_input_key(struct parser *p, const char *name, const char *value)
{
	struct recipe_input *in = &p->r->input;
	struct strbuf why = STRBUF_INIT;
	struct input_step s;

	if (!*value)
		return fail(p, "empty value for '%s'", name);
	if (!strcmp(name, "driver")) {
		if (p->driver_line)
			return fail(p, "duplicate key 'driver' in [input] (first set on line %d)",
				    p->driver_line);
		p->driver_line = ini_line(p->ini);
		if (input_driver_parse(value, &in->driver) < 0)
			return fail(p, "unknown input driver '%s' (expected xtest or uinput)", value);
		return 0;
	}
	if (strcmp(name, "step"))
		return fail(p, "unknown key '%s' in [input] (expected step or driver)", name);
	if (in->n_steps == INPUT_MAX_STEPS)
		return fail(p, "more than %d steps in [input]", INPUT_MAX_STEPS);
	if (input_step_parse(value, &s, &why) < 0) {
		fail(p, "%s", why.buf);
		strbuf_release(&why);
		return -EINVAL;
	}
	strbuf_release(&why);
	in->steps = xrealloc(in->steps, (in->n_steps + 1) * sizeof(*in->steps));
	p->step_lines = xrealloc(p->step_lines, (in->n_steps + 1) * sizeof(int));
	p->step_lines[in->n_steps] = ini_line(p->ini);
	in->steps[in->n_steps++] = s;
	return 0;
}
