/*
 * The CPU categories' rules (profrules.h), read through the INI adapter.
 */
#include "profile/profrules.h"
#include "text/inifile.h"
#include "base/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void split_globs(const char *value, char ***out, size_t *n)
{
	char *copy = xstrdup(value), *save = NULL;

	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = xstrdup(w);
	}
	free(copy);
}

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct prof_rules *r = user;

	if (r->n + 1 >= PROF_MAX_CATEGORIES)
		return ini_fail(ini, "more than %d categories", PROF_MAX_CATEGORIES - 1);
	if (!*name || strcmp(name, "other") == 0)
		return ini_fail(ini, "a category needs a name other than 'other' (what nothing matches)");
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->cat[i].name, name) == 0)
			return ini_fail(ini, "category '%s' given twice", name);
	r->cat[r->n].name = xstrdup(name);
	r->names[r->n] = r->cat[r->n].name;
	r->n++;
	return 0;
}

static int yes(struct ini *ini, const char *key, const char *value, bool *out)
{
	if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0) {
		*out = strcmp(value, "yes") == 0;
		return 0;
	}
	return ini_fail(ini, "%s wants yes or no, not '%s'", key, value);
}

static int on_key(struct ini *ini, void *user, const char *section, const char *key, const char *value)
{
	struct prof_rules *r = user;
	struct prof_category *c;

	if (!section || !r->n)
		return ini_fail(ini, "'%s' before the first [category]", key);
	c = &r->cat[r->n - 1];
	if (strcmp(key, "function") == 0)
		split_globs(value, &c->function, &c->n_function);
	else if (strcmp(key, "library") == 0)
		split_globs(value, &c->library, &c->n_library);
	else if (strcmp(key, "jit") == 0)
		return yes(ini, key, value, &c->jit);
	else if (strcmp(key, "kernel") == 0)
		return yes(ini, key, value, &c->kernel);
	else if (strcmp(key, "pass") == 0)
		return yes(ini, key, value, &c->pass);
	else
		return ini_fail(ini, "unknown key '%s' (function, library, jit, kernel, pass)", key);
	return 0;
}

static int on_end(struct ini *ini, void *user)
{
	struct prof_rules *r = user;

	if (!r->n)
		return ini_fail_at(ini, 0, "no category");
	r->cat[r->n].name = xstrdup("other");
	r->names[r->n] = r->cat[r->n].name;
	r->n++;
	return 0;
}

static const struct ini_format rules_format = {
	.what = "CPU categories file",
	.expected = "expected 'key = value' or '[category]'",
	.section = on_section,
	.key = on_key,
	.end = on_end,
};

int prof_rules_parse(const char *text, size_t len, const char *path, struct prof_rules *r, struct strbuf *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = xstrdup(path);
	ret = ini_parse_text(&rules_format, text, len, path, r, err);
	if (ret < 0)
		prof_rules_release(r);
	return ret;
}

static int prof_rules_load(const char *path, struct prof_rules *r, struct strbuf *err)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->path = xstrdup(path);
	ret = ini_load(&rules_format, path, r, err);
	if (ret < 0)
		prof_rules_release(r);
	return ret;
}

int prof_rules_find(const char *const *gamedb_dirs, struct prof_rules *r, struct strbuf *err)
{
	for (size_t i = 0; gamedb_dirs && gamedb_dirs[i]; i++) {
		char *path = xasprintf("%s/%s", gamedb_dirs[i], PROF_RULES_FILE);
		int ret = access(path, F_OK) == 0 ? prof_rules_load(path, r, err) : -ENOENT;

		free(path);
		if (ret != -ENOENT)
			return ret;
	}
	strbuf_addf(err, "no gamedb directory has %s (the CPU categories)", PROF_RULES_FILE);
	return -ENOENT;
}

void prof_rules_release(struct prof_rules *r)
{
	for (size_t i = 0; i < PROF_MAX_CATEGORIES; i++) {
		struct prof_category *c = &r->cat[i];

		for (size_t k = 0; k < c->n_function; k++)
			free(c->function[k]);
		for (size_t k = 0; k < c->n_library; k++)
			free(c->library[k]);
		free(c->function);
		free(c->library);
		free(c->name);
	}
	free(r->path);
	memset(r, 0, sizeof(*r));
}

static bool any(char *const *globs, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], s, 0) == 0)
			return true;
	return false;
}

uint8_t prof_rules_frame(const struct prof_rules *r, const struct prof_frame_desc *f)
{
	for (size_t i = 0; i + 1 < r->n; i++) {
		const struct prof_category *c = &r->cat[i];

		if ((f->kernel && c->kernel) || (f->jit && c->jit) ||
		    (f->function && any(c->function, c->n_function, f->function)) ||
		    (!f->kernel && !f->jit && f->library && any(c->library, c->n_library, f->library)))
			return (uint8_t)i;
	}
	return (uint8_t)(r->n - 1);
}

uint8_t prof_rules_stack(const struct prof_rules *r, const uint8_t *cats, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!r->cat[cats[i]].pass)
			return cats[i];
	return n ? cats[0] : (uint8_t)(r->n - 1);
}
