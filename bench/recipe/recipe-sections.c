/*
 * A recipe's sections: the headers ([recipe], [variant NAME], [reload],
 * [input]) and the keys of [reload] and [input], which are not the
 * recipe's schema but the analysis's (analysis/run/reload.h) and the input
 * steps' (inputsteps.h). The family is in recipe-internal.h.
 */
#include "recipe/recipe-internal.h"
#include "text/argv.h"

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

/* One more step, parsed (its key names are checked against the driver,
 * and a play's files read, once the file is whole). */
static int add_step(struct parser *p, const char *text)
{
	struct recipe_input *in = &p->r->input;
	struct strbuf why = STRBUF_INIT;
	struct input_step s;

	if (in->n_steps == INPUT_MAX_STEPS)
		return fail(p, "more than %d steps in [input]", INPUT_MAX_STEPS);
	if (input_step_parse(text, &s, &why) < 0) {
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

/* "play = RECORDING" or "play = DESC EVENTS" (words, relative to the
 * recipe's directory): a play step with the paths made absolute. */
static int add_play(struct parser *p, const char *value)
{
	struct argv_list words, paths;
	const char *bad = NULL;
	char *joined, *text;
	int e;

	argv_init(&words);
	argv_init(&paths);
	if (argv_split(&words, value, &bad) < 0)
		e = fail(p, "bad play '%s': %s", value, bad);
	else if (words.n > 2)
		e = fail(p, "play takes a recording, or a description and its events (two files), not "
			 "%zu words: '%s'", words.n, value);
	else if (p->n_plays == INPUT_MAX_PLAYS)
		e = fail(p, "more than %d play keys in [input] (a recorded device each)",
			 INPUT_MAX_PLAYS);
	else
		e = 0;
	for (size_t i = 0; e == 0 && i < words.n; i++) {
		char *abs = recipe_resolve_source(p->r, words.v[i]);

		argv_push(&paths, abs);
		free(abs);
	}
	if (e == 0) {
		joined = argv_join(paths.v);
		text = xasprintf("play %s", joined);
		e = add_step(p, text);
		p->n_plays += e == 0;
		free(text);
		free(joined);
	}
	argv_release(&words);
	argv_release(&paths);
	return e;
}

/* The driver, one more step, or one more recording to play. */
int recipe_input_key(struct parser *p, const char *name, const char *value)
{
	struct recipe_input *in = &p->r->input;

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
	if (!strcmp(name, "play"))
		return add_play(p, value);
	if (strcmp(name, "step"))
		return fail(p, "unknown key '%s' in [input] (expected step, play or driver)", name);
	if (!strncmp(value, "play", 4) && (!value[4] || value[4] == ' ' || value[4] == '\t'))
		return fail(p, "a recording is played with 'play = FILE' (relative to the recipe), "
			    "not 'step = play'");
	return add_step(p, value);
}
