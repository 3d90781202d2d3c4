/*
 * Recipes: one INI file per game in recipes/ (read by the INI adapter,
 * common/text/inifile.h), saying how to run the game unattended and how the run
 * ends. Every key is documented in recipes/README.md. A bad recipe is
 * refused before anything starts: "recipes/x.ini:12: unknown key 'windw'".
 */
#ifndef HB_RECIPE_H
#define HB_RECIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "text/argv.h"
#include "input/inputsteps.h"
#include "run/reload.h"
#include "base/util.h"

/* The recipe format this parser reads (recipes/README.md). Unknown keys
 * are errors, so a newer recipe fails loudly on an older hitchbench. */
#define RECIPE_FORMAT 1

enum end_mode {
	END_WINDOW,  /* the measured window is full: the runner stops the game */
	END_EXIT,    /* the game exits by itself (the window is cut short there) */
	END_LINE,    /* a line of the game's output matches end_line */
};

enum frame_source {
	FRAMES_HOOK,        /* hitchbench's LD_PRELOAD frame hook */
	FRAMES_MANGOHUD,    /* MangoHud's CSV log (the hook still runs: it times the window) */
	FRAMES_GALLIUM_HUD, /* Mesa's GALLIUM_HUD frame-time dump (likewise) */
	FRAMES_VULKAN,      /* the hook as for FRAMES_HOOK (its Vulkan layer in every run),
	                     * and the run is invalid unless the window's frames came
	                     * from vkQueuePresentKHR (analysis/run/run-check-api.c) */
};

/* "hook", "mangohud", "gallium-hud", "vulkan". */
const char *frame_source_name(enum frame_source f);

/* A file seeded into the game's fresh HOME before the run. */
struct recipe_file {
	char *dest;  /* relative to HOME, no "..", no leading '/' */
	char *src;   /* absolute, resolved against the recipe's directory */
};

/* Settings a recipe and each of its variants can carry. */
struct recipe_settings {
	struct argv_list args;      /* appended to the command */
	struct argv_list env;       /* NAME=VALUE */
	struct recipe_file *files;
	size_t n_files;
};

/* [input]: steps the harness plays into the game (n_steps 0: none). */
struct recipe_input {
	enum input_driver driver;   /* default xtest */
	struct input_step *steps;
	size_t n_steps;
};

struct recipe_variant {
	char *name;
	char *description;
	struct recipe_settings set;
};

struct recipe {
	char *path;                 /* as loaded */
	char *dir;                  /* its directory, absolute (file sources resolve here) */
	char *name;                 /* [recipe] name, default: file name without .ini */
	char *description;
	struct argv_list command;   /* [recipe] command, split into words */
	struct argv_list packages;  /* Debian packages the game needs (versions recorded) */
	struct argv_list prepare;   /* one command line per entry, run in HOME before the first launch */
	char *workdir;              /* relative to HOME (default: HOME) or absolute */
	enum frame_source frames;
	double warmup_s;            /* after the first frame, or after start_line's */
	double window_s;            /* measured, after the warm-up */
	enum end_mode end;
	char *end_line;             /* POSIX extended regex, for END_LINE */
	char *start_line;           /* POSIX extended regex: the warm-up counts from
	                             * the first matching output line (after the
	                             * first frame); NULL: from the first frame */
	bool relaunch;              /* start the game again when it exits before the window is full */
	double load_timeout_s;      /* most seconds from a launch to its first frame */
	double stop_grace_s;        /* SIGTERM, then this long, then SIGKILL */
	char *screen;               /* Xvfb screen, WxHxDEPTH */
	char *default_variant;      /* default: the first [variant], else "base";
	                             * "base" without a [variant base] means the
	                             * recipe alone (recipe_find_variant: NULL) */
	struct recipe_settings set; /* [recipe]-level args/env/files, before the variant's */
	struct recipe_variant *variants;
	size_t n_variants;
	struct recipe_input input;  /* [input], checked against its driver */
	struct reload_rule reload;  /* [reload]: wins over gamedb/<game>/analysis.ini
	                             * when analysing; kind RELOAD_UNSET without one */
};

/* recipe_init makes an empty recipe holding the defaults (its lists are
 * empty, NULL-terminated). recipe_release frees everything and leaves r
 * zeroed: releasing again is safe, as is recipe_release(NULL), and a
 * released recipe can be loaded into. */
void recipe_init(struct recipe *r);
void recipe_release(struct recipe *r);

/* Parses a recipe file. 0; -errno when it cannot be read; -EINVAL when it
 * is wrong, with "PATH:LINE: what is wrong" (or "PATH: what is wrong" when
 * no single line is at fault) in err. The first error wins. r must have
 * been through recipe_init or recipe_release (or be zeroed): on success
 * its old content is released and replaced, on error it is untouched. err
 * (may be NULL) gets the message of every failure, replacing what it
 * held. File sources are checked (readable regular files) while parsing. */
int recipe_load(const char *path, struct recipe *r, struct strbuf *err);
/* The same from a string, for the tests; path is used for messages, for
 * the default name and to resolve file sources (it need not exist). */
int recipe_parse_string(const char *text, const char *path, struct recipe *r, struct strbuf *err);

/* The variant of this name, or NULL. */
const struct recipe_variant *recipe_find_variant(const struct recipe *r, const char *name);

/* A RECIPE argument: a path when it contains '/' or ends in ".ini"
 * (returned as it is, existing or not, so that loading it says what is
 * wrong), else a name ([A-Za-z0-9._-]+) looked up as DIR/NAME.ini in the
 * directories (NULL-terminated, searched in order; the first regular file
 * wins). Returns a new string, or NULL when nothing matched or the name is
 * not valid. */
char *recipe_resolve(const char *arg, const char *const *dirs);

/* The names a RECIPE argument can take in the directories (NULL-terminated):
 * every DIR/NAME.ini with a valid name that is a recipe (a matrix file,
 * recipes/README.md's "The matrix file", is not), each once (the first
 * directory's, as recipe_resolve finds it), appended to out, sorted. The
 * files are not parsed: a broken recipe is listed, and refused when
 * loaded. */
void recipe_names(const char *const *dirs, struct argv_list *out);

#endif
