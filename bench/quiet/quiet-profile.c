/*
 * Reading quiet profiles (recipes/quiet/NAME.ini; keys in recipes/README.md).
 *
 * Read by the INI adapter (common/text/inifile.h), as recipes are. Profiles have no
 * long values (a long 'services' list is written over several lines), so
 * a line is at most 197 characters. The first error wins; the profile is
 * handed over only when whole.
 */
#include "quiet/quiet.h"
#include "system/daemoncost.h"
#include "text/inifile.h"
#include "recipe/recipe.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum section {
	S_NONE,
	S_QUIET,
	S_IDLE,
	S_THERMAL,
	S_NOISE,
	N_SECTIONS
};

static const char *const section_names[N_SECTIONS] = {
	[S_QUIET] = "quiet", [S_IDLE] = "idle", [S_THERMAL] = "thermal", [S_NOISE] = "noise",
};

/* Sections profiles used to have: each gets its own error, so that an old
 * profile says where its settings went rather than "unknown section". */
static const struct {
	const char *name, *why;
} gone_sections[] = {
	{ "sampler", "the sampler's settings are the SENSORS switch's parameters "
		     "(SENSORS_MS, SENSORS_THROTTLE)" },
};

static const char *section_gone(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(gone_sections); i++)
		if (!strcmp(name, gone_sections[i].name))
			return gone_sections[i].why;
	return NULL;
}

struct parser {
	struct quiet_profile *p;
	struct ini *ini;        /* the file being read */
	enum section section;
	int section_line[N_SECTIONS];
	int seen[64];
};

#define fail(ps, ...) ini_fail((ps)->ini, __VA_ARGS__)

static int parse_bool(struct parser *ps, const char *key, const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return fail(ps, "'%s' wants yes or no, not '%s'", key, v);
	return 0;
}

static int parse_int(struct parser *ps, const char *key, const char *v, int min, int max, int *out)
{
	int n;

	if (safe_atoi(v, &n) < 0 || n < min || n > max)
		return fail(ps, "'%s' wants a whole number from %d to %d, not '%s'", key, min, max, v);
	*out = n;
	return 0;
}

/* A plain decimal number in [min, max]; empty means "not checked" (-1)
 * where empty_off. */
static int parse_num(struct parser *ps, const char *key, const char *v, double min, double max,
		     bool empty_off, double *out)
{
	double d;
	const char *c = v;

	if (!*v && empty_off) {
		*out = -1;
		return 0;
	}
	while (isdigit((unsigned char)*c) || *c == '.')
		c++;
	if (!*v || *c || safe_atod(v, &d) < 0 || d < min || d > max)
		return fail(ps, "'%s' wants a number from %g to %g%s, not '%s'", key, min, max,
			    empty_off ? " (or nothing: not checked)" : "", v);
	*out = d;
	return 0;
}

static bool valid_unit(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("@._-:\\", *s))
			return false;
	return true;
}

static int set_services(struct parser *ps, const char *v)
{
	struct argv_list words;
	const char *why;
	int r = 0;

	argv_init(&words);
	if (argv_split(&words, v, &why) < 0) {
		r = fail(ps, "cannot split 'services': %s", why);
		goto out;
	}
	for (size_t i = 0; i < words.n; i++) {
		if (!valid_unit(words.v[i])) {
			r = fail(ps, "bad unit name '%s'", words.v[i]);
			goto out;
		}
		argv_push(&ps->p->services, words.v[i]);
	}
out:
	argv_release(&words);
	return r;
}

static int set_governor(struct parser *ps, const char *v)
{
	free(ps->p->governor);
	ps->p->governor = NULL;
	if (!*v)
		return 0;
	for (const char *c = v; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return fail(ps, "bad governor name '%s'", v);
	ps->p->governor = xstrdup(v);
	return 0;
}

/* A character of a sensor column name (docs/formats.md, "Sensor samples"):
 * parts of [a-z0-9_-] joined by dots. */
static bool column_char(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c) || (c && strchr("_-.", c));
}

enum sensors_glob {
	GLOB_OK,
	GLOB_BAD,            /* not made of column characters, * ? and [set] */
	GLOB_NO_TEMPERATURE, /* cannot match a name that starts with "temp." */
};

/* The thermal guard fnmatch()es [thermal] sensors against temperature
 * column names, all "temp.<...>". A regex ('\\', '(', '+'), capitals, or a
 * fixed start other than "temp." would match nothing, and the guard would
 * silently watch no sensor: refuse those here. */
static enum sensors_glob sensors_glob_check(const char *v)
{
	static const char temp[] = "temp.";
	const size_t temp_len = sizeof(temp) - 1;
	size_t fixed = strcspn(v, "*?[");
	const char *c = v;

	while (*c) {
		if (*c != '[') {
			if (!column_char(*c) && *c != '*' && *c != '?')
				return GLOB_BAD;
			c++;
			continue;
		}
		/* [set], [!set], [^set]: not empty, closed */
		c++;
		if (*c == '!' || *c == '^')
			c++;
		if (*c == ']')
			return GLOB_BAD;
		while (*c && *c != ']')
			if (!column_char(*c++))
				return GLOB_BAD;
		if (!*c++)
			return GLOB_BAD;
	}
	if (strncmp(v, temp, fixed < temp_len ? fixed : temp_len) != 0)
		return GLOB_NO_TEMPERATURE;
	if (!v[fixed] && fixed <= temp_len) /* "temp", "temp.": no column is named that */
		return GLOB_NO_TEMPERATURE;
	return GLOB_OK;
}

static int set_sensors(struct parser *ps, const char *v)
{
	free(ps->p->thermal_sensors);
	ps->p->thermal_sensors = NULL;
	if (!*v)
		return 0;
	switch (sensors_glob_check(v)) {
	case GLOB_BAD:
		return fail(ps, "'sensors' wants a glob on column names such as 'temp.*' or "
			    "'temp.coretemp0.*' (a-z 0-9 _ - . and * ? [...]), not '%s'", v);
	case GLOB_NO_TEMPERATURE:
		return fail(ps, "'sensors' = '%s' matches no temperature: their column names "
			    "start with 'temp.'", v);
	case GLOB_OK:
		break;
	}
	ps->p->thermal_sensors = xstrdup(v);
	return 0;
}

static int set_daemons(struct parser *ps, const char *v)
{
	struct strbuf why = STRBUF_INIT;
	struct daemon_names names;
	int r = 0;

	if (daemon_names_parse(v, &names, &why) < 0)
		r = fail(ps, "'daemons' wants process names (comm, at most %d): %s", DAEMON_NAMES_MAX, why.buf);
	else {
		free(ps->p->noise_daemons);
		ps->p->noise_daemons = xstrdup(v);
	}
	strbuf_release(&why);
	return r;
}

enum key_flags {
	KEY_REPEAT = 1 << 0,
	KEY_EMPTY_OK = 1 << 1,
};

struct key_def {
	enum section section;
	const char *name;
	unsigned flags;
};

static const struct key_def keys[] = {
	{ S_QUIET, "services", KEY_REPEAT | KEY_EMPTY_OK },
	{ S_QUIET, "sync", 0 },
	{ S_QUIET, "drop_caches", 0 },
	{ S_QUIET, "compact_memory", 0 },
	{ S_QUIET, "governor", KEY_EMPTY_OK },
	{ S_QUIET, "delayacct", 0 },
	{ S_QUIET, "banner_vt", 0 },
	{ S_IDLE, "psi_cpu_some_avg10", KEY_EMPTY_OK },
	{ S_IDLE, "psi_io_some_avg10", KEY_EMPTY_OK },
	{ S_IDLE, "cpu_busy_pct", KEY_EMPTY_OK },
	{ S_IDLE, "load1", KEY_EMPTY_OK },
	{ S_IDLE, "settle_s", 0 },
	{ S_IDLE, "timeout_s", 0 },
	{ S_THERMAL, "sensors", KEY_EMPTY_OK },
	{ S_THERMAL, "max_c", 0 },
	{ S_THERMAL, "timeout_s", 0 },
	{ S_NOISE, "steal_pct_max", KEY_EMPTY_OK },
	{ S_NOISE, "foreign_cpu_pct_max", KEY_EMPTY_OK },
	{ S_NOISE, "irq_pct_max", KEY_EMPTY_OK },
	{ S_NOISE, "game_runq_ms_per_s_max", KEY_EMPTY_OK },
	{ S_NOISE, "daemons", KEY_EMPTY_OK },
};

#define DAY_S 86400.0

static int set_key(struct parser *ps, const struct key_def *k, const char *v)
{
	struct quiet_profile *p = ps->p;
	const char *n = k->name;

	switch (k->section) {
	case S_QUIET:
		if (!strcmp(n, "services"))
			return set_services(ps, v);
		if (!strcmp(n, "sync"))
			return parse_bool(ps, n, v, &p->sync);
		if (!strcmp(n, "drop_caches"))
			return parse_int(ps, n, v, 0, 3, &p->drop_caches);
		if (!strcmp(n, "compact_memory"))
			return parse_bool(ps, n, v, &p->compact_memory);
		if (!strcmp(n, "governor"))
			return set_governor(ps, v);
		if (!strcmp(n, "delayacct"))
			return parse_bool(ps, n, v, &p->delayacct);
		return parse_int(ps, n, v, 0, 63, &p->banner_vt);
	case S_IDLE:
		if (!strcmp(n, "psi_cpu_some_avg10"))
			return parse_num(ps, n, v, 0, 100, true, &p->idle.psi_cpu_some_avg10);
		if (!strcmp(n, "psi_io_some_avg10"))
			return parse_num(ps, n, v, 0, 100, true, &p->idle.psi_io_some_avg10);
		if (!strcmp(n, "cpu_busy_pct"))
			return parse_num(ps, n, v, 0, 100, true, &p->idle.cpu_busy_pct);
		if (!strcmp(n, "load1"))
			return parse_num(ps, n, v, 0, 1024, true, &p->idle.load1);
		if (!strcmp(n, "settle_s"))
			return parse_num(ps, n, v, 0, DAY_S, false, &p->idle.settle_s);
		return parse_num(ps, n, v, 0, DAY_S, false, &p->idle.timeout_s);
	case S_THERMAL:
		if (!strcmp(n, "sensors"))
			return set_sensors(ps, v);
		if (!strcmp(n, "max_c"))
			return parse_num(ps, n, v, 0, 200, false, &p->thermal_max_c);
		return parse_num(ps, n, v, 0, DAY_S, false, &p->thermal_timeout_s);
	case S_NOISE:
		if (!strcmp(n, "daemons"))
			return set_daemons(ps, v);
		if (!strcmp(n, "steal_pct_max"))
			return parse_num(ps, n, v, 0, 100, true, &p->noise.steal_pct_max);
		if (!strcmp(n, "foreign_cpu_pct_max"))
			return parse_num(ps, n, v, 0, 100, true, &p->noise.foreign_cpu_pct_max);
		if (!strcmp(n, "irq_pct_max"))
			return parse_num(ps, n, v, 0, 100, true, &p->noise.irq_pct_max);
		return parse_num(ps, n, v, 0, 1000, true, &p->noise.game_runq_ms_per_s_max);
	default:
		return -EINVAL;
	}
}

static int on_key(struct ini *ini, void *user, const char *section, const char *name,
		  const char *value)
{
	struct parser *ps = user;
	size_t id;

	ps->ini = ini;
	if (!*name)
		return fail(ps, "expected 'key = value' or '[section]'");
	if (ps->section == S_NONE)
		return fail(ps, "key '%s' outside any section", name);
	for (id = 0; id < ARRAY_SIZE(keys); id++)
		if (keys[id].section == ps->section && !strcmp(keys[id].name, name))
			break;
	if (id == ARRAY_SIZE(keys))
		return fail(ps, "unknown key '%s' in [%s]", name, section_names[ps->section]);
	if (ps->seen[id] && !(keys[id].flags & KEY_REPEAT))
		return fail(ps, "duplicate key '%s' (first set on line %d)", name, ps->seen[id]);
	if (!*value && !(keys[id].flags & KEY_EMPTY_OK))
		return fail(ps, "empty value for '%s'", name);
	/* the first 'services' line replaces the default list, later ones add */
	if (!ps->seen[id] && !strcmp(name, "services")) {
		argv_release(&ps->p->services);
		argv_init(&ps->p->services);
	}
	if (!ps->seen[id])
		ps->seen[id] = ini_line(ini);
	return set_key(ps, &keys[id], value);
}

static int on_section(struct ini *ini, void *user, const char *name)
{
	struct parser *ps = user;
	const char *gone;
	int i;

	for (i = 1; i < N_SECTIONS; i++)
		if (!strcmp(name, section_names[i]))
			break;
	if (i == N_SECTIONS && (gone = section_gone(name)))
		return ini_fail(ini, "[%s] is gone: %s", name, gone);
	if (i == N_SECTIONS)
		return ini_fail(ini, "unknown section '[%s]'", name);
	if (ps->section_line[i])
		return ini_fail(ini, "duplicate section '[%s]' (first on line %d)", name,
				ps->section_line[i]);
	ps->section = (enum section)i;
	ps->section_line[i] = ini_line(ini);
	return 0;
}

static const struct ini_format profile_format = {
	.what = "a profile",
	.expected = "expected 'key = value' or '[section]'",
	.max_line = 197,
	.too_long_hint = "; a long 'services' list can be split over several 'services =' lines",
	.section = on_section,
	.key = on_key,
};

void quiet_profile_init(struct quiet_profile *p)
{
	static const char *const services[] = {
		"display-manager.service", "apt-daily.timer", "apt-daily.service",
		"apt-daily-upgrade.timer", "apt-daily-upgrade.service", "man-db.timer",
		"man-db.service", "packagekit.service", "fstrim.timer", "e2scrub_all.timer",
		"plocate-updatedb.timer",
	};

	memset(p, 0, sizeof(*p));
	argv_init(&p->services);
	for (size_t i = 0; i < ARRAY_SIZE(services); i++)
		argv_push(&p->services, services[i]);
	p->sync = true;
	p->drop_caches = 3;
	p->compact_memory = true;
	p->governor = xstrdup("performance");
	p->delayacct = true;
	p->idle.psi_cpu_some_avg10 = 1.0;
	p->idle.psi_io_some_avg10 = 1.0;
	p->idle.cpu_busy_pct = 5.0;
	p->idle.load1 = -1;
	p->idle.settle_s = 5;
	p->idle.timeout_s = 120;
	p->thermal_sensors = xstrdup("temp.*");
	p->thermal_timeout_s = 300;
	p->noise = (struct noise_limits)NOISE_LIMITS_NONE;
	p->noise.steal_pct_max = 5;
	p->noise.foreign_cpu_pct_max = 10;
}

void quiet_profile_release(struct quiet_profile *p)
{
	if (!p)
		return;
	free(p->path);
	argv_release(&p->services);
	free(p->governor);
	free(p->thermal_sensors);
	free(p->noise_daemons);
	memset(p, 0, sizeof(*p));
}

/* Reads the profile at path (text NULL) or the text over the defaults,
 * into p when it is whole. */
static int profile_read(const char *text, const char *path, struct quiet_profile *p,
			struct strbuf *err)
{
	struct parser ps = { 0 };
	struct quiet_profile tmp;
	int r;

	quiet_profile_init(&tmp);
	tmp.path = xstrdup(path);
	ps.p = &tmp;
	if (text)
		r = ini_parse_text(&profile_format, text, strlen(text), path, &ps, err);
	else
		r = ini_load(&profile_format, path, &ps, err);
	if (r == 0) {
		quiet_profile_release(p);
		*p = tmp;
		memset(&tmp, 0, sizeof(tmp));
	}
	quiet_profile_release(&tmp);
	return r;
}

int quiet_profile_parse(const char *text, const char *path, struct quiet_profile *p,
			struct strbuf *err)
{
	return profile_read(text, path, p, err);
}

int quiet_profile_load(const char *path, struct quiet_profile *p, struct strbuf *err)
{
	return profile_read(NULL, path, p, err);
}

char *quiet_profile_find(const char *arg, char *const *recipe_dirs, size_t n)
{
	const char *dirs[8] = { NULL };
	char *owned[8] = { NULL };
	size_t k = 0;
	char *found;

	for (size_t i = 0; i < n && recipe_dirs[i] && k + 1 < ARRAY_SIZE(dirs); i++) {
		owned[k] = xasprintf("%s/quiet", recipe_dirs[i]);
		dirs[k] = owned[k];
		k++;
	}
	found = recipe_resolve(arg, dirs);
	for (size_t i = 0; i < k; i++)
		free(owned[i]);
	return found;
}
