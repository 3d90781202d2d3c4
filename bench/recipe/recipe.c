/*
 * Reading recipes (contract in recipe.h, every key in recipes/README.md):
 * the loader. A recipe is an INI format read by the adapter (common/text/inifile.h);
 * the keys' schema is recipe-keys.c, the sections recipe-sections.c (the
 * family in recipe-internal.h).
 *
 * Everything is checked while reading, the first error wins and stops the
 * reading; the recipe is built in a local struct and handed over only when
 * it is whole.
 */
#include "recipe/recipe-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A "key = value" line, to its section's reader. */
static int on_key(struct ini *ini, void *user, const char *section, const char *name,
		  const char *value)
{
	struct parser *p = user;

	p->ini = ini;
	if (!*name)
		return fail(p, "missing key name before '='");
	switch (p->section) {
	case SECTION_NONE:
		return fail(p, "key '%s' outside any section (expected [recipe] first)", name);
	case SECTION_RELOAD:
		return recipe_reload_key(p, name, value);
	case SECTION_INPUT:
		return recipe_input_key(p, name, value);
	case SECTION_RECIPE:
	case SECTION_VARIANT:
		break;
	}
	return recipe_set_key(p, name, value);
}

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct parser *p = user;

	p->ini = ini;
	return recipe_begin_section(p, name);
}

/* The recipe's directory as an absolute path (file sources resolve
 * there), without touching the file system beyond the current directory. */
static int recipe_dir(const char *path, char **out)
{
	const char *slash = strrchr(path, '/');
	const char *d = path;
	size_t n = slash ? (size_t)(slash - path) : 0;
	char *cwd;

	if (path[0] == '/') {
		*out = n == 0 ? xstrdup("/") : xasprintf("%.*s", (int)n, path);
		return 0;
	}
	cwd = get_current_dir_name();
	if (!cwd)
		return -errno;
	while (n >= 2 && d[0] == '.' && d[1] == '/') {
		d += 2;
		n -= 2;
	}
	if (n == 0 || (n == 1 && d[0] == '.'))
		*out = xstrdup(cwd);
	else
		*out = xasprintf("%s%s%.*s", cwd, strcmp(cwd, "/") ? "/" : "", (int)n, d);
	free(cwd);
	return 0;
}

/* The name from the file name when the recipe sets none. */
static int default_name(struct parser *p)
{
	struct recipe *r = p->r;
	const char *base = strrchr(r->path, '/');
	size_t n;

	base = base ? base + 1 : r->path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	r->name = xstrndup(base, n);
	if (!recipe_valid_name(r->name))
		return ini_fail_at(p->ini, 0, "recipe name '%s' (from the file name) is not made of "
				   "letters, digits, '.', '_' and '-': set 'name'", r->name);
	return 0;
}

/* [reload] and [input] as a whole: the rule complete, the steps' keys
 * those of the driver. */
static int check_sections(struct parser *p)
{
	struct recipe *r = p->r;
	struct strbuf why = STRBUF_INIT;
	int e = 0;

	if (p->reload_line) {
		if (reload_rule_check(&r->reload, &why) < 0)
			e = ini_fail_at(p->ini, p->reload_line, "%s", why.buf);
		else
			r->reload.source = xasprintf("%s:%d", r->path, p->reload_line);
	}
	if (e == 0 && p->input_line && r->input.n_steps == 0)
		e = ini_fail_at(p->ini, p->input_line, "[input] has no 'step' or 'play'");
	for (size_t i = 0; e == 0 && i < r->input.n_steps; i++) {
		strbuf_reset(&why);
		if (input_step_check(&r->input.steps[i], r->input.driver, &why) < 0)
			e = ini_fail_at(p->ini, p->step_lines[i], "%s", why.buf);
	}
	strbuf_release(&why);
	return e;
}

/* After the last line: what cannot be checked line by line, and the
 * defaults that depend on the whole file. */
static int on_end(struct ini *ini, void *user)
{
	struct parser *p = user;
	struct recipe *r = p->r;

	p->ini = ini;
	if (!r->command.n)
		return ini_fail_at(ini, 0, "missing 'command' in [recipe]");
	if (r->end == END_LINE && !r->end_line)
		return ini_fail_at(ini, p->recipe_seen[K_END], "'end = line' needs 'end_line'");
	if (r->end != END_LINE && r->end_line)
		return ini_fail_at(ini, p->recipe_seen[K_END_LINE], "'end_line' needs 'end = line'");
	if (r->default_variant && strcmp(r->default_variant, "base") &&
	    !recipe_find_variant(r, r->default_variant))
		return ini_fail_at(ini, p->recipe_seen[K_DEFAULT_VARIANT],
				   "default_variant '%s' is not a [variant] of this recipe",
				   r->default_variant);
	if (!r->name && default_name(p) < 0)
		return -EINVAL;
	if (check_sections(p) < 0)
		return -EINVAL;
	if (!r->screen)
		r->screen = xstrdup("1280x720x24");
	if (!r->default_variant)
		r->default_variant = xstrdup(r->n_variants ? r->variants[0].name : "base");
	return 0;
}

static const struct ini_format recipe_format = {
	.what = "a recipe",
	.expected = "expected 'key = value' or '[section]'",
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

void recipe_init(struct recipe *r)
{
	memset(r, 0, sizeof(*r));
	argv_init(&r->command);
	argv_init(&r->packages);
	argv_init(&r->prepare);
	argv_init(&r->set.args);
	argv_init(&r->set.env);
	r->frames = FRAMES_HOOK;
	r->warmup_s = 10;
	r->window_s = 60;
	r->end = END_WINDOW;
	r->relaunch = false;
	r->load_timeout_s = 60;
	r->stop_grace_s = 5;
}

static void settings_release(struct recipe_settings *set)
{
	argv_release(&set->args);
	argv_release(&set->env);
	for (size_t i = 0; i < set->n_files; i++) {
		free(set->files[i].dest);
		free(set->files[i].src);
	}
	free(set->files);
	set->files = NULL;
	set->n_files = 0;
}

/* Leaves r zeroed, not initialized: recipe_init would allocate again, and
 * a recipe released at the end of its life would leak that. */
void recipe_release(struct recipe *r)
{
	if (!r)
		return;
	free(r->path);
	free(r->dir);
	free(r->name);
	free(r->description);
	argv_release(&r->command);
	argv_release(&r->packages);
	argv_release(&r->prepare);
	free(r->workdir);
	free(r->end_line);
	free(r->start_line);
	free(r->screen);
	free(r->default_variant);
	settings_release(&r->set);
	for (size_t i = 0; i < r->n_variants; i++) {
		free(r->variants[i].name);
		free(r->variants[i].description);
		settings_release(&r->variants[i].set);
	}
	free(r->variants);
	for (size_t i = 0; i < r->input.n_steps; i++)
		input_step_release(&r->input.steps[i]);
	free(r->input.steps);
	reload_rule_release(&r->reload);
	memset(r, 0, sizeof(*r));
}

/* Reads the recipe at path (text NULL) or the text into r when it is
 * whole; err (may be NULL) gets the message of a failure in place of what
 * it held. */
static int recipe_read(const char *text, const char *path, struct recipe *r, struct strbuf *err)
{
	struct parser p = { 0 };
	struct recipe tmp;
	struct strbuf msg = STRBUF_INIT;
	int e;

	recipe_init(&tmp);
	p.r = &tmp;
	tmp.path = xstrdup(path);
	e = recipe_dir(path, &tmp.dir);
	if (e < 0)
		strbuf_addf(&msg, "%s: cannot get the current directory: %s", path, strerror(-e));
	else if (text)
		e = ini_parse_text(&recipe_format, text, strlen(text), path, &p, &msg);
	else
		e = ini_load(&recipe_format, path, &p, &msg);
	if (e == 0) {
		recipe_release(r);
		*r = tmp;
		memset(&tmp, 0, sizeof(tmp));
	} else if (err) {
		strbuf_reset(err);
		strbuf_addstr(err, msg.buf ? msg.buf : "");
	}
	recipe_release(&tmp);
	free(p.variant_lines);
	free(p.step_lines);
	strbuf_release(&msg);
	return e;
}

int recipe_parse_string(const char *text, const char *path, struct recipe *r, struct strbuf *err)
{
	return recipe_read(text, path, r, err);
}

int recipe_load(const char *path, struct recipe *r, struct strbuf *err)
{
	return recipe_read(NULL, path, r, err);
}

const struct recipe_variant *recipe_find_variant(const struct recipe *r, const char *name)
{
	for (size_t i = 0; i < r->n_variants; i++)
		if (!strcmp(r->variants[i].name, name))
			return &r->variants[i];
	return NULL;
}

char *recipe_resolve(const char *arg, const char *const *dirs)
{
	size_t n;

	if (!arg || !*arg)
		return NULL;
	n = strlen(arg);
	if (strchr(arg, '/') || (n > 4 && !strcmp(arg + n - 4, ".ini")))
		return xstrdup(arg);
	if (!recipe_valid_name(arg) || !dirs)
		return NULL;
	for (size_t i = 0; dirs[i]; i++) {
		struct stat st;
		char *candidate;

		if (!dirs[i][0])
			continue;
		candidate = xasprintf("%s/%s.ini", dirs[i], arg);
		if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode))
			return candidate;
		free(candidate);
	}
	return NULL;
}
