/*
 * The schema of a recipe's [recipe] and [variant] keys and the check of
 * each value (every key in recipes/README.md; the family in
 * recipe-internal.h).
 */
#include "recipe/recipe-internal.h"
#include "text/regexlimit.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
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

enum key_flags {
	KEY_VARIANT = 1 << 0,  /* also allowed in [variant NAME] */
	KEY_REPEAT = 1 << 1,   /* each occurrence adds one more entry */
	KEY_EMPTY_OK = 1 << 2, /* "key =" is a value */
};

struct key_def {
	const char *name;
	unsigned flags;
	int (*set)(struct parser *p, const char *value);
};

static const char *const runner_env[] = {
	"LD_PRELOAD", "HOME", "DISPLAY", "XAUTHORITY",
};

bool recipe_valid_name(const char *s)
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
	if (!recipe_valid_name(value))
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
	[FRAMES_VULKAN] = "vulkan",
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
	return fail(p, "unknown frame source '%s' (expected 'hook', 'vulkan', 'mangohud' or "
		    "'gallium-hud')", value);
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
	if (!recipe_valid_name(value))
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
	/* the runner writes the Vulkan layer's manifest into the game's data
	 * home (bench/runner/vklayer.h): a relative one has no place it would be
	 * found in */
	if (n == strlen("XDG_DATA_HOME") && !strncmp(value, "XDG_DATA_HOME", n) && eq[1] &&
	    eq[1] != '/')
		return fail(p, "XDG_DATA_HOME must be an absolute path, not '%s' (the XDG base "
			    "directory spec; the Vulkan loader would take it relative to the game's "
			    "working directory)", eq + 1);
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], value, n + 1))
			return fail(p, "duplicate env '%.*s'", (int)n, value);
	argv_push(env, value);
	return 0;
}

char *recipe_resolve_source(const struct recipe *r, const char *src)
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
	src = recipe_resolve_source(p->r, words.v[1]);
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

int recipe_set_key(struct parser *p, const char *name, const char *value)
{
	const struct key_def *k = NULL;
	int *seen;
	size_t id;

	for (id = 0; id < N_KEYS; id++) {
		if (!strcmp(keys[id].name, name)) {
			k = &keys[id];
			break;
		}
	}
	if (!k)
		return fail(p, "unknown key '%s'", name);
	if (p->section == SECTION_VARIANT && !(k->flags & KEY_VARIANT))
		return fail(p, "key '%s' belongs in [recipe], not in a [variant]", name);
	seen = p->section == SECTION_RECIPE ? p->recipe_seen : p->variant_seen;
	if (seen[id] && !(k->flags & KEY_REPEAT))
		return fail(p, "duplicate key '%s' (first set on line %d)", name, seen[id]);
	if (!seen[id])
		seen[id] = ini_line(p->ini);
	if (!*value && !(k->flags & KEY_EMPTY_OK))
		return fail(p, "empty value for '%s'", name);
	return k->set(p, value);
}
