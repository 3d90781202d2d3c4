/*
 * What the parts of the recipe reader share (not for other units):
 *   recipe.c           the loader: the INI format, the whole-file checks,
 *                      init and release, finding recipes
 *   recipe-keys.c      the schema of the [recipe] and [variant] keys and
 *                      the check of each value
 *   recipe-sections.c  section headers ([recipe], [variant NAME], [input],
 *                      [reload]) and the keys of [input] and [reload]
 * A file is read by the INI adapter (common/text/inifile.h); the recipe is built
 * in a struct of the loader's and handed over only when whole.
 */
#ifndef HB_RECIPE_INTERNAL_H
#define HB_RECIPE_INTERNAL_H

#include "text/inifile.h"
#include "recipe/recipe.h"

enum key_id {
	K_NAME,
	K_DESCRIPTION,
	K_COMMAND,
	K_PACKAGES,
	K_PREPARE,
	K_WORKDIR,
	K_FRAMES,
	K_WARMUP,
	K_WINDOW,
	K_END,
	K_END_LINE,
	K_START_LINE,
	K_RELAUNCH,
	K_LOAD_TIMEOUT,
	K_STOP_GRACE,
	K_SCREEN,
	K_DEFAULT_VARIANT,
	K_ARGS,
	K_ENV,
	K_FILE,
	N_KEYS
};

enum section_kind {
	SECTION_NONE,
	SECTION_RECIPE,
	SECTION_VARIANT,
	SECTION_RELOAD,             /* the analysis's reload rule (analysis/run/reload.h) */
	SECTION_INPUT,              /* steps played into the game (inputsteps.h) */
};

/* A recipe being read. */
struct parser {
	struct recipe *r;
	struct ini *ini;            /* the file being read (its line, its errors) */
	enum section_kind section;
	size_t variant;             /* r->variants index in SECTION_VARIANT */
	int recipe_line;            /* where [recipe] was, 0 before */
	int *variant_lines;         /* where each [variant] was */
	int reload_line;            /* where [reload] was, 0 before */
	int input_line;             /* where [input] was, 0 before */
	int driver_line;            /* where [input] driver was set, 0 before */
	int *step_lines;            /* where each [input] step (or play) was */
	size_t n_plays;             /* [input] play keys so far */
	int recipe_seen[N_KEYS];    /* line where a [recipe] key was first set */
	int variant_seen[N_KEYS];   /* the same for the current [variant] */
};

/* The error at the line being read; -EINVAL. */
#define fail(p, ...) ini_fail((p)->ini, __VA_ARGS__)

/* Recipe and variant names: letters, digits, '.', '_' and '-' (they
 * become file and directory names). */
bool recipe_valid_name(const char *s);

/* A file the recipe names (file's SRC, [input]'s play) as an absolute
 * path: a relative one starts from the recipe's directory. New string. */
char *recipe_resolve_source(const struct recipe *r, const char *src);

/* recipe-keys.c: a key of [recipe] or of the current [variant], checked
 * against the schema and set. 0 or -EINVAL (reported). */
int recipe_set_key(struct parser *p, const char *name, const char *value);

/* recipe-sections.c: a section header (name without its brackets and
 * blanks), a key of [reload], a key of [input]. 0 or -EINVAL (reported). */
int recipe_begin_section(struct parser *p, const char *name);
int recipe_reload_key(struct parser *p, const char *name, const char *value);
int recipe_input_key(struct parser *p, const char *name, const char *value);

#endif
