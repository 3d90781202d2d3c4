/*
 * Reading recipes (contract in recipe.h, every key in recipes/README.md).
 *
 * inih splits "key = value" lines and strips their comments. The rest is
 * done here, because Debian's inih gives the handler no line number, cuts
 * section names at 50 characters, never tells the handler about a section
 * that has no keys, and cuts lines at 200 characters (a game's command is
 * often longer). So inih reads through our own line reader: it counts
 * lines (the handler always knows where it is), handles "[section]" lines
 * itself, strips leading blanks (no line ever becomes an inih
 * continuation line) and hands a "key = value" line too long for inih's
 * buffer over as "key =" while keeping the value aside for the handler.
 *
 * Everything is checked while reading, the first error wins and stops the
 * reading; the recipe is built in a local struct and handed over only when
 * it is whole.
 */
#include "recipe.h"
#include "regexlimit.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest duration a recipe may ask for: a week, far from any overflow
 * when the runner turns seconds into nanoseconds. */
#define MAX_SECONDS ((double)HB_MAX_DURATION_S)
#define MAX_SCREEN_SIDE 16384

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

enum key_flags {
	KEY_VARIANT = 1 << 0,  /* also allowed in [variant NAME] */
	KEY_REPEAT = 1 << 1,   /* each occurrence adds one more entry */
	KEY_EMPTY_OK = 1 << 2, /* "key =" is a value */
};

enum section_kind {
	SECTION_NONE,
	SECTION_RECIPE,
	SECTION_VARIANT,
	SECTION_RELOAD,             /* the analysis's reload rule (analysis/reload.h) */
	SECTION_INPUT,              /* steps played into the game (inputsteps.h) */
};

struct parser {
	struct recipe *r;
	const char *path;
	const char *text;           /* what is left to read */
	int line;                   /* the line inih is working on */
	enum section_kind section;
	size_t variant;             /* r->variants index in SECTION_VARIANT */
	int recipe_line;            /* where [recipe] was, 0 before */
	int *variant_lines;         /* where each [variant] was */
	int reload_line;            /* where [reload] was, 0 before */
	int input_line;             /* where [input] was, 0 before */
	int driver_line;            /* where [input] driver was set, 0 before */
	int *step_lines;            /* where each [input] step was */
	int recipe_seen[N_KEYS];    /* line where a [recipe] key was first set */
	int variant_seen[N_KEYS];   /* the same for the current [variant] */
	char *long_value;           /* this line's value, when inih got "key =" */
	bool failed;
	int err_line;               /* 0: the error is not on one line */
	struct strbuf msg;
};

struct key_def {
	const char *name;
	unsigned flags;
	int (*set)(struct parser *p, const char *value);
};

static const char *const runner_env[] = {
	"LD_PRELOAD", "HOME", "DISPLAY", "XAUTHORITY",
};

__attribute__((format(printf, 3, 4)))
static int fail_at(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -EINVAL;
	p->failed = true;
	p->err_line = line;
	va_start(ap, fmt);
	strbuf_vaddf(&p->msg, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define fail(p, ...) fail_at((p), (p)->line, __VA_ARGS__)

/* Recipe, variant names: they become file and directory names. */
static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

static bool valid_env_name(const char *s, size_t len)
{
	if (len == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* Debian policy 5.6.1: [a-z0-9][a-z0-9+.-]+ */
static bool valid_package_name(const char *s)
{
	if (strlen(s) < 2 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && !strchr("+.-", *s))
			return false;
	return true;
}

/* A relative path without "..": it stays inside the directory it is
 * relative to. 0, or 1 when it holds "..", or -1 when it is malformed
 * ("", "/x", "a//b", "./a", "a/"). */
static int check_relative_path(const char *s)
{
	bool dotdot = false;

	if (!*s || *s == '/')
		return -1;
	for (const char *c = s; ; ) {
		const char *slash = strchr(c, '/');
		size_t n = slash ? (size_t)(slash - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.'))
			return -1;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			dotdot = true;
		if (!slash)
			break;
		c = slash + 1;
	}
	return dotdot ? 1 : 0;
}

static struct recipe_settings *current_settings(struct parser *p)
{
	if (p->section == SECTION_VARIANT)
		return &p->r->variants[p->variant].set;
	return &p->r->set;
}

/* Splits value into a new list; the words are moved to *out only when the
 * whole value split. */
static int split_words(struct parser *p, const char *key, const char *value,
		       struct argv_list *out)
{
	struct argv_list words;
	const char *why = NULL;

	argv_init(&words);
	if (argv_split(&words, value, &why) < 0) {
		argv_release(&words);
		return fail(p, "cannot split '%s': %s", key, why);
	}
	for (size_t i = 0; i < words.n; i++)
		argv_push(out, words.v[i]);
	argv_release(&words);
	return 0;
}

/* Seconds as a plain decimal number ("10", "2.5"), min < value (or
 * min <= value with min_ok), at most MAX_SECONDS. */
static int parse_seconds(struct parser *p, const char *key, const char *value,
			 double min, bool min_ok, double *out)
{
	const char *s = value;
	double v;

	if (*s == '-')
		s++;
	if (!isdigit((unsigned char)*s))
		return fail(p, "bad number '%s' for '%s'", value, key);
	while (isdigit((unsigned char)*s))
		s++;
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return fail(p, "bad number '%s' for '%s'", value, key);
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s || safe_atod(value, &v) < 0)
		return fail(p, "bad number '%s' for '%s'", value, key);
	if (v < min || (v == min && !min_ok))
		return fail(p, "'%s' must be %s %g, not '%s'", key,
			    min_ok ? "at least" : "more than", min, value);
	if (v > MAX_SECONDS)
		return fail(p, "'%s' must be at most %g, not '%s'", key, MAX_SECONDS, value);
	*out = v == 0 ? 0 : v; /* no -0 */
	return 0;
}

static int set_name(struct parser *p, const char *value)
{
	if (!valid_name(value))
		return fail(p, "bad recipe name '%s' (letters, digits, '.', '_' and '-' only)", value);
	p->r->name = xstrdup(value);
	return 0;
}

static int set_description(struct parser *p, const char *value)
{
	char **d = p->section == SECTION_VARIANT ?
		&p->r->variants[p->variant].description : &p->r->description;

	*d = xstrdup(value);
	return 0;
}

static int set_command(struct parser *p, const char *value)
{
	int e = split_words(p, "command", value, &p->r->command);

	if (e == 0 && p->r->command.n == 0)
		return fail(p, "empty value for 'command'");
	if (e == 0 && !p->r->command.v[0][0])
		return fail(p, "'command' starts with an empty word");
	return e;
}

static int set_packages(struct parser *p, const char *value)
{
	struct argv_list *pk = &p->r->packages;
	size_t first = pk->n;
	int e = split_words(p, "packages", value, pk);

	if (e < 0)
		return e;
	for (size_t i = first; i < pk->n; i++) {
		if (!valid_package_name(pk->v[i]))
			return fail(p, "bad package name '%s'", pk->v[i]);
		for (size_t j = first; j < i; j++)
			if (!strcmp(pk->v[i], pk->v[j]))
				return fail(p, "duplicate package '%s'", pk->v[i]);
	}
	return 0;
}

static int set_prepare(struct parser *p, const char *value)
{
	struct argv_list words;
	int e;

	argv_init(&words);
	e = split_words(p, "prepare", value, &words);
	if (e == 0 && words.n == 0)
		e = fail(p, "empty value for 'prepare'");
	argv_release(&words);
	if (e == 0)
		argv_push(&p->r->prepare, value);
	return e;
}

static int set_workdir(struct parser *p, const char *value)
{
	if (value[0] != '/') {
		int c = check_relative_path(value);

		if (c > 0)
			return fail(p, "workdir '%s' must not contain '..'", value);
		if (c < 0 && strcmp(value, "."))
			return fail(p, "bad workdir '%s'", value);
	}
	p->r->workdir = xstrdup(value);
	return 0;
}

static const char *const frame_source_names[] = {
	[FRAMES_HOOK] = "hook",
	[FRAMES_MANGOHUD] = "mangohud",
	[FRAMES_GALLIUM_HUD] = "gallium-hud",
};

const char *frame_source_name(enum frame_source f)
{
	return (size_t)f < ARRAY_SIZE(frame_source_names) ? frame_source_names[f] : "unknown";
}

static int set_frames(struct parser *p, const char *value)
{
	for (size_t i = 0; i < ARRAY_SIZE(frame_source_names); i++) {
		if (!strcmp(value, frame_source_names[i])) {
			p->r->frames = (enum frame_source)i;
			return 0;
		}
	}
	return fail(p, "unknown frame source '%s' (expected 'hook', 'mangohud' or 'gallium-hud')",
		    value);
}

static int set_warmup(struct parser *p, const char *value)
{
	return parse_seconds(p, "warmup", value, 0, true, &p->r->warmup_s);
}

static int set_window(struct parser *p, const char *value)
{
	return parse_seconds(p, "window", value, 0, false, &p->r->window_s);
}

static int set_load_timeout(struct parser *p, const char *value)
{
	return parse_seconds(p, "load_timeout", value, 0, false, &p->r->load_timeout_s);
}

static int set_stop_grace(struct parser *p, const char *value)
{
	return parse_seconds(p, "stop_grace", value, 0, true, &p->r->stop_grace_s);
}

static int set_end(struct parser *p, const char *value)
{
	if (!strcmp(value, "window"))
		p->r->end = END_WINDOW;
	else if (!strcmp(value, "exit"))
		p->r->end = END_EXIT;
	else if (!strcmp(value, "line"))
		p->r->end = END_LINE;
	else
		return fail(p, "unknown end '%s' (expected window, exit or line)", value);
	return 0;
}

/* A POSIX extended regex for key, checked with regcomp, into *dest. */
static int set_regex(struct parser *p, const char *key, const char *value, char **dest)
{
	struct strbuf why = STRBUF_INIT;
	regex_t re;
	int e;

	if (regex_compile(&re, value, &why) < 0) {
		e = fail(p, "bad regex '%s' for '%s': %s", value, key, why.buf);
		strbuf_release(&why);
		return e;
	}
	regfree(&re);
	*dest = xstrdup(value);
	return 0;
}

static int set_end_line(struct parser *p, const char *value)
{
	return set_regex(p, "end_line", value, &p->r->end_line);
}

static int set_start_line(struct parser *p, const char *value)
{
	return set_regex(p, "start_line", value, &p->r->start_line);
}

static int set_relaunch(struct parser *p, const char *value)
{
	if (!strcasecmp(value, "yes") || !strcasecmp(value, "true") || !strcmp(value, "1"))
		p->r->relaunch = true;
	else if (!strcasecmp(value, "no") || !strcasecmp(value, "false") || !strcmp(value, "0"))
		p->r->relaunch = false;
	else
		return fail(p, "bad boolean '%s' for 'relaunch' (expected yes or no)", value);
	return 0;
}

/* One of the three numbers of WxHxD: digits only, no sign, no blank. */
static bool screen_number(const char *s, size_t len, int *out)
{
	char buf[16];

	if (len == 0 || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return safe_atoi(buf, out) == 0;
}

static int set_screen(struct parser *p, const char *value)
{
	const char *x1 = strchr(value, 'x');
	const char *x2 = x1 ? strchr(x1 + 1, 'x') : NULL;
	int w, h, d;

	if (!x2 || !screen_number(value, (size_t)(x1 - value), &w) ||
	    !screen_number(x1 + 1, (size_t)(x2 - x1 - 1), &h) ||
	    !screen_number(x2 + 1, strlen(x2 + 1), &d) ||
	    w < 1 || w > MAX_SCREEN_SIDE || h < 1 || h > MAX_SCREEN_SIDE ||
	    (d != 8 && d != 15 && d != 16 && d != 24 && d != 30))
		return fail(p, "bad screen '%s' (expected WIDTHxHEIGHTxDEPTH like 1280x720x24, "
			    "depth 8, 15, 16, 24 or 30)", value);
	p->r->screen = xasprintf("%dx%dx%d", w, h, d);
	return 0;
}

static int set_default_variant(struct parser *p, const char *value)
{
	if (!valid_name(value))
		return fail(p, "bad variant name '%s' (letters, digits, '.', '_' and '-' only)", value);
	p->r->default_variant = xstrdup(value);
	return 0;
}

static int set_args(struct parser *p, const char *value)
{
	return split_words(p, "args", value, &current_settings(p)->args);
}

static int set_env(struct parser *p, const char *value)
{
	struct argv_list *env = &current_settings(p)->env;
	const char *eq = strchr(value, '=');
	size_t n;

	if (!eq)
		return fail(p, "bad env '%s' (expected NAME=VALUE)", value);
	n = (size_t)(eq - value);
	if (!valid_env_name(value, n))
		return fail(p, "bad environment variable name '%.*s'", (int)n, value);
	for (size_t i = 0; i < ARRAY_SIZE(runner_env); i++)
		if (strlen(runner_env[i]) == n && !strncmp(value, runner_env[i], n))
			return fail(p, "environment variable '%.*s' is set by the runner", (int)n, value);
	if (n >= 11 && !strncmp(value, "HITCHBENCH_", 11))
		return fail(p, "environment variable '%.*s' is set by the runner", (int)n, value);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], value, n + 1))
			return fail(p, "duplicate env '%.*s'", (int)n, value);
	argv_push(env, value);
	return 0;
}

/* src as an absolute path: relative ones start from the recipe's directory. */
static char *resolve_source(const struct recipe *r, const char *src)
{
	if (src[0] == '/')
		return xstrdup(src);
	return xasprintf("%s/%s", r->dir, src);
}

static int set_file(struct parser *p, const char *value)
{
	struct recipe_settings *set = current_settings(p);
	struct argv_list words;
	struct recipe_file *f;
	struct stat st;
	char *src = NULL;
	int fd, c, e = 0;

	argv_init(&words);
	e = split_words(p, "file", value, &words);
	if (e < 0)
		goto out;
	if (words.n != 2) {
		e = fail(p, "bad file '%s' (expected 'DEST SRC')", value);
		goto out;
	}
	c = check_relative_path(words.v[0]);
	if (words.v[0][0] == '/')
		e = fail(p, "file destination '%s' must be relative to HOME", words.v[0]);
	else if (c > 0)
		e = fail(p, "file destination '%s' must not contain '..'", words.v[0]);
	else if (c < 0)
		e = fail(p, "bad file destination '%s'", words.v[0]);
	if (e < 0)
		goto out;
	for (size_t i = 0; i < set->n_files; i++) {
		if (!strcmp(set->files[i].dest, words.v[0])) {
			e = fail(p, "duplicate file destination '%s'", words.v[0]);
			goto out;
		}
	}

	/* Opened, not just stat'ed: an unreadable source fails here, not when
	 * the run starts. O_NONBLOCK so that a FIFO cannot hang us. */
	src = resolve_source(p->r, words.v[1]);
	fd = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		e = fail(p, "cannot use file source '%s': %s", src, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0)
		e = fail(p, "cannot use file source '%s': %s", src, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		e = fail(p, "file source '%s' is not a regular file", src);
	close(fd);
	if (e < 0)
		goto out;

	set->files = xrealloc(set->files, (set->n_files + 1) * sizeof(*set->files));
	f = &set->files[set->n_files++];
	f->dest = xstrdup(words.v[0]);
	f->src = src;
	src = NULL;
out:
	free(src);
	argv_release(&words);
	return e;
}

static const struct key_def keys[N_KEYS] = {
	[K_NAME] =            { "name", 0, set_name },
	[K_DESCRIPTION] =     { "description", KEY_VARIANT | KEY_EMPTY_OK, set_description },
	[K_COMMAND] =         { "command", 0, set_command },
	[K_PACKAGES] =        { "packages", KEY_EMPTY_OK, set_packages },
	[K_PREPARE] =         { "prepare", KEY_REPEAT, set_prepare },
	[K_WORKDIR] =         { "workdir", 0, set_workdir },
	[K_FRAMES] =          { "frames", 0, set_frames },
	[K_WARMUP] =          { "warmup", 0, set_warmup },
	[K_WINDOW] =          { "window", 0, set_window },
	[K_END] =             { "end", 0, set_end },
	[K_END_LINE] =        { "end_line", 0, set_end_line },
	[K_START_LINE] =      { "start_line", 0, set_start_line },
	[K_RELAUNCH] =        { "relaunch", 0, set_relaunch },
	[K_LOAD_TIMEOUT] =    { "load_timeout", 0, set_load_timeout },
	[K_STOP_GRACE] =      { "stop_grace", 0, set_stop_grace },
	[K_SCREEN] =          { "screen", 0, set_screen },
	[K_DEFAULT_VARIANT] = { "default_variant", 0, set_default_variant },
	[K_ARGS] =            { "args", KEY_VARIANT | KEY_EMPTY_OK, set_args },
	[K_ENV] =             { "env", KEY_VARIANT | KEY_REPEAT, set_env },
	[K_FILE] =            { "file", KEY_VARIANT | KEY_REPEAT, set_file },
};

/* A key of [reload]: the analysis's own keys (analysis/reload.c). */
static int on_reload_key(struct parser *p, const char *name, const char *value)
{
	struct strbuf msg = STRBUF_INIT;
	int e = reload_rule_set(&p->r->reload, name, value, &msg);

	if (e == -ENOENT)
		fail(p, "unknown key '%s' in [reload]", name);
	else if (e == -EEXIST)
		fail(p, "duplicate key '%s' in [reload]", name);
	else if (e < 0)
		fail(p, "%s", msg.buf);
	strbuf_release(&msg);
	return e == 0;
}

/* A key of [input]: the driver, or one more step (its syntax checked
 * here, its key names against the driver once the section is whole). */
static int on_input_key(struct parser *p, const char *name, const char *value)
{
	struct recipe_input *in = &p->r->input;
	struct strbuf why = STRBUF_INIT;
	struct input_step s;

	if (!strcmp(name, "driver")) {
		if (p->driver_line) {
			fail(p, "duplicate key 'driver' in [input] (first set on line %d)", p->driver_line);
			return 0;
		}
		p->driver_line = p->line;
		if (input_driver_parse(value, &in->driver) < 0) {
			fail(p, "unknown input driver '%s' (expected xtest or uinput)", value);
			return 0;
		}
		return 1;
	}
	if (strcmp(name, "step")) {
		fail(p, "unknown key '%s' in [input] (expected step or driver)", name);
		return 0;
	}
	if (in->n_steps == INPUT_MAX_STEPS) {
		fail(p, "more than %d steps in [input]", INPUT_MAX_STEPS);
		return 0;
	}
	if (input_step_parse(value, &s, &why) < 0) {
		fail(p, "%s", why.buf);
		strbuf_release(&why);
		return 0;
	}
	strbuf_release(&why);
	in->steps = xrealloc(in->steps, (in->n_steps + 1) * sizeof(*in->steps));
	p->step_lines = xrealloc(p->step_lines, (in->n_steps + 1) * sizeof(int));
	p->step_lines[in->n_steps] = p->line;
	in->steps[in->n_steps++] = s;
	return 1;
}

/* inih's handler, once per "key = value" line. The section inih passes is
 * not used: sections are tracked by read_line (inih never sees them). */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct parser *p = user;
	const struct key_def *k = NULL;
	int *seen;
	size_t id;

	if (p->failed)
		return 0;
	if (p->long_value)
		value = p->long_value;
	if (!value) {
		fail(p, "expected 'key = value' or '[section]'");
		return 0;
	}
	if (!*name) {
		fail(p, "missing key name before '='");
		return 0;
	}
	if (p->section == SECTION_NONE) {
		fail(p, "key '%s' outside any section (expected [recipe] first)", name);
		return 0;
	}
	if (p->section == SECTION_RELOAD)
		return on_reload_key(p, name, value);
	if (p->section == SECTION_INPUT) {
		if (!*value) {
			fail(p, "empty value for '%s'", name);
			return 0;
		}
		return on_input_key(p, name, value);
	}
	for (id = 0; id < N_KEYS; id++) {
		if (!strcmp(keys[id].name, name)) {
			k = &keys[id];
			break;
		}
	}
	if (!k) {
		fail(p, "unknown key '%s'", name);
		return 0;
	}
	if (p->section == SECTION_VARIANT && !(k->flags & KEY_VARIANT)) {
		fail(p, "key '%s' belongs in [recipe], not in a [variant]", name);
		return 0;
	}
	seen = p->section == SECTION_RECIPE ? p->recipe_seen : p->variant_seen;
	if (seen[id] && !(k->flags & KEY_REPEAT)) {
		fail(p, "duplicate key '%s' (first set on line %d)", name, seen[id]);
		return 0;
	}
	if (!seen[id])
		seen[id] = p->line;
	if (!*value && !(k->flags & KEY_EMPTY_OK)) {
		fail(p, "empty value for '%s'", name);
		return 0;
	}
	return k->set(p, value) == 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A "[...]" line (s starts with '['; len excludes the newline). */
static void begin_section(struct parser *p, const char *s, size_t len)
{
	const char *close = memchr(s, ']', len);
	const char *in, *in_end, *rest;
	struct recipe *r = p->r;
	char *inner, *name;

	if (!close) {
		fail(p, "missing ']' in section header");
		return;
	}
	for (rest = close + 1; rest < s + len && is_blank(*rest); rest++)
		;
	if (rest < s + len && *rest != ';' && *rest != '#') {
		fail(p, "unexpected text after section header");
		return;
	}
	for (in = s + 1; in < close && is_blank(*in); in++)
		;
	for (in_end = close; in_end > in && is_blank(in_end[-1]); in_end--)
		;
	inner = xasprintf("%.*s", (int)(in_end - in), in);

	if (!strcmp(inner, "recipe")) {
		if (p->recipe_line)
			fail(p, "duplicate section '[recipe]' (first on line %d)", p->recipe_line);
		p->recipe_line = p->line;
		p->section = SECTION_RECIPE;
		goto out;
	}
	if (!strcmp(inner, "reload")) {
		if (p->reload_line)
			fail(p, "duplicate section '[reload]' (first on line %d)", p->reload_line);
		p->reload_line = p->line;
		p->section = SECTION_RELOAD;
		goto out;
	}
	if (!strcmp(inner, "input")) {
		if (p->input_line)
			fail(p, "duplicate section '[input]' (first on line %d)", p->input_line);
		p->input_line = p->line;
		p->section = SECTION_INPUT;
		goto out;
	}
	if (strncmp(inner, "variant", 7) || (inner[7] && !is_blank(inner[7]))) {
		fail(p, "unknown section '%s'", inner);
		goto out;
	}
	for (name = inner + 7; is_blank(*name); name++)
		;
	if (!*name) {
		fail(p, "missing variant name in '[variant]'");
		goto out;
	}
	if (!valid_name(name)) {
		fail(p, "bad variant name '%s' (letters, digits, '.', '_' and '-' only)", name);
		goto out;
	}
	for (size_t i = 0; i < r->n_variants; i++) {
		if (!strcmp(r->variants[i].name, name)) {
			fail(p, "duplicate variant '%s' (first on line %d)", name, p->variant_lines[i]);
			goto out;
		}
	}
	r->variants = xrealloc(r->variants, (r->n_variants + 1) * sizeof(*r->variants));
	p->variant_lines = xrealloc(p->variant_lines, (r->n_variants + 1) * sizeof(int));
	p->variant = r->n_variants++;
	p->variant_lines[p->variant] = p->line;
	memset(&r->variants[p->variant], 0, sizeof(r->variants[p->variant]));
	r->variants[p->variant].name = xstrdup(name);
	argv_init(&r->variants[p->variant].set.args);
	argv_init(&r->variants[p->variant].set.env);
	memset(p->variant_seen, 0, sizeof(p->variant_seen));
	p->section = SECTION_VARIANT;
out:
	free(inner);
}

/* A "key = value" line longer than inih's buffer: inih gets "key =", the
 * value (found as inih would: blanks stripped, "; comment" after a blank
 * cut) waits in p->long_value for on_key. */
static char *pass_long_line(struct parser *p, char *buf, int num, const char *s, size_t len)
{
	const char *v, *v_end;
	size_t n;
	bool was_blank = false;

	for (n = 0; n < len; n++) {
		if (s[n] == '=' || s[n] == ':' || (was_blank && s[n] == ';'))
			break;
		was_blank = isspace((unsigned char)s[n]);
	}
	if (n == len || s[n] == ';') {
		fail(p, "expected 'key = value' or '[section]'");
		return NULL;
	}
	if (n + 3 > (size_t)num) {
		fail(p, "line too long");
		return NULL;
	}
	memcpy(buf, s, n);
	memcpy(buf + n, "=", 2);

	was_blank = false;
	for (v = s + n + 1, v_end = v; v_end < s + len; v_end++) {
		if (was_blank && *v_end == ';')
			break;
		was_blank = isspace((unsigned char)*v_end);
	}
	while (v < v_end && isspace((unsigned char)*v))
		v++;
	while (v_end > v && isspace((unsigned char)v_end[-1]))
		v_end--;
	p->long_value = xasprintf("%.*s", (int)(v_end - v), v);
	return buf;
}

/* inih's reader: one line of the text per call, like fgets. */
static char *read_line(char *buf, int num, void *stream)
{
	struct parser *p = stream;
	const char *s = p->text, *end;
	size_t len;

	free(p->long_value);
	p->long_value = NULL;
	if (p->failed || !*s)
		return NULL;
	if (num < 4) {
		fail(p, "inih's line buffer is too small (%d bytes)", num);
		return NULL;
	}
	end = strchrnul(s, '\n');
	p->text = *end ? end + 1 : end;
	p->line++;
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	while (s < end && isspace((unsigned char)*s))
		s++;
	len = (size_t)(end - s);

	if (len > 0 && *s == '[')
		begin_section(p, s, len);
	if (len == 0 || *s == '#' || *s == ';' || *s == '[') {
		memcpy(buf, "\n", 2);
		return buf;
	}
	if (len + 2 < (size_t)num) {
		memcpy(buf, s, len);
		memcpy(buf + len, "\n", 2);
		return buf;
	}
	return pass_long_line(p, buf, num, s, len);
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

/* What cannot be checked line by line, and the defaults that depend on
 * the whole file. */
static void finish(struct parser *p)
{
	struct recipe *r = p->r;

	if (!r->command.n) {
		fail_at(p, 0, "missing 'command' in [recipe]");
		return;
	}
	if (r->end == END_LINE && !r->end_line) {
		fail_at(p, p->recipe_seen[K_END], "'end = line' needs 'end_line'");
		return;
	}
	if (r->end != END_LINE && r->end_line) {
		fail_at(p, p->recipe_seen[K_END_LINE], "'end_line' needs 'end = line'");
		return;
	}
	if (r->default_variant && strcmp(r->default_variant, "base") &&
	    !recipe_find_variant(r, r->default_variant)) {
		fail_at(p, p->recipe_seen[K_DEFAULT_VARIANT],
			"default_variant '%s' is not a [variant] of this recipe", r->default_variant);
		return;
	}
	if (!r->name) {
		const char *base = strrchr(r->path, '/');
		size_t n;

		base = base ? base + 1 : r->path;
		n = strlen(base);
		if (n > 4 && !strcmp(base + n - 4, ".ini"))
			n -= 4;
		r->name = xasprintf("%.*s", (int)n, base);
		if (!valid_name(r->name)) {
			fail_at(p, 0, "recipe name '%s' (from the file name) is not made of letters, "
				"digits, '.', '_' and '-': set 'name'", r->name);
			return;
		}
	}
	if (p->reload_line) {
		struct strbuf msg = STRBUF_INIT;

		if (reload_rule_check(&r->reload, &msg) < 0)
			fail_at(p, p->reload_line, "%s", msg.buf);
		strbuf_release(&msg);
		if (p->failed)
			return;
		r->reload.source = xasprintf("%s:%d", r->path, p->reload_line);
	}
	if (p->input_line && r->input.n_steps == 0) {
		fail_at(p, p->input_line, "[input] has no 'step'");
		return;
	}
	for (size_t i = 0; i < r->input.n_steps; i++) {
		struct strbuf why = STRBUF_INIT;

		if (input_step_check(&r->input.steps[i], r->input.driver, &why) < 0)
			fail_at(p, p->step_lines[i], "%s", why.buf);
		strbuf_release(&why);
		if (p->failed)
			return;
	}
	if (!r->screen)
		r->screen = xstrdup("1280x720x24");
	if (!r->default_variant)
		r->default_variant = xstrdup(r->n_variants ? r->variants[0].name : "base");
}

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

int recipe_parse_string(const char *text, const char *path, struct recipe *r, struct strbuf *err)
{
	struct parser p;
	struct recipe tmp;
	int e, bad_line;

	recipe_init(&tmp);
	memset(&p, 0, sizeof(p));
	p.r = &tmp;
	p.path = path;
	p.text = text;
	strbuf_init(&p.msg);
	tmp.path = xstrdup(path);
	e = recipe_dir(path, &tmp.dir);
	if (e < 0) {
		if (err) {
			strbuf_reset(err);
			strbuf_addf(err, "%s: cannot get the current directory: %s", path, strerror(-e));
		}
		goto out;
	}

	bad_line = ini_parse_stream(read_line, &p, on_key, &p);
	free(p.long_value);
	if (bad_line == -2) {
		e = -ENOMEM;
		if (err) {
			strbuf_reset(err);
			strbuf_addf(err, "%s: %s", path, strerror(ENOMEM));
		}
		goto out;
	}
	/* inih reports lines without '=' itself, without calling on_key; an
	 * earlier such line wins over our own error. */
	if (bad_line > 0 && (!p.failed || bad_line < p.err_line)) {
		strbuf_reset(&p.msg);
		p.failed = false;
		fail_at(&p, bad_line, "expected 'key = value' or '[section]'");
	}
	if (!p.failed)
		finish(&p);
	if (p.failed) {
		e = -EINVAL;
		if (err) {
			strbuf_reset(err);
			if (p.err_line > 0)
				strbuf_addf(err, "%s:%d: %s", path, p.err_line, p.msg.buf);
			else
				strbuf_addf(err, "%s: %s", path, p.msg.buf);
		}
		goto out;
	}
	recipe_release(r);
	*r = tmp;
	memset(&tmp, 0, sizeof(tmp));
out:
	recipe_release(&tmp);
	free(p.variant_lines);
	free(p.step_lines);
	strbuf_release(&p.msg);
	return e;
}

int recipe_load(const char *path, struct recipe *r, struct strbuf *err)
{
	char *text = NULL;
	size_t len;
	int e = read_file(path, &text, &len);

	if (e < 0) {
		if (err) {
			strbuf_reset(err);
			strbuf_addf(err, "cannot read '%s': %s", path, strerror(-e));
		}
		return e;
	}
	/* inih would stop at a NUL byte and take the rest as missing. */
	if (strlen(text) != len) {
		int line = 1;

		for (const char *c = text; *c; c++)
			line += *c == '\n';
		if (err) {
			strbuf_reset(err);
			strbuf_addf(err, "%s:%d: NUL byte in a recipe", path, line);
		}
		free(text);
		return -EINVAL;
	}
	e = recipe_parse_string(text, path, r, err);
	free(text);
	return e;
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
	if (!valid_name(arg) || !dirs)
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
