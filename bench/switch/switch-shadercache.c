/*
 * SHADERCACHE=cold|warm|off: which shader cache the game's drivers find,
 * so that a first-use compile stutter is measured on purpose, or kept out
 * on purpose, and runs of one never pool with runs of another.
 *
 *   cold   an empty directory of the run's own (STAGE/shadercache, gone
 *          with the staging directory): every shader is compiled
 *   warm   a directory kept between runs, one per recipe and variant
 *          (warm_root()/RECIPE/VARIANT), made on first use: the first run
 *          of a fresh one fills it
 *   off    the caches turned off: every shader compiled, nothing written
 *
 * Mesa (MESA_SHADER_CACHE_DIR, and the older MESA_GLSL_CACHE_DIR), DXVK's
 * state cache and vkd3d-proton's are pointed at the directory, or told to
 * keep none. The directory is the game user's: games never run as root.
 * bench.txt says which (shadercache=MODE DIR) and how full it was before
 * the game and after (shadercache.before, .after, .added), so a warm run
 * that found its cache empty shows as the cold run it was. docs/switches.md.
 */
#include "base/xdgdir.h"
#include "switch/switch.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* where warm caches go instead of the default (the tests' own place) */
#define SHADERCACHE_DIR_ENV "HITCHBENCH_SHADERCACHE_DIR"
/* root's: under /var/cache, which the game user may reach (root's HOME
 * is 0700) */
#define SHADERCACHE_SYSTEM_DIR "/var/cache/hitchbench/shadercache"

struct cache_tally {
	uint64_t files, bytes;
};

static int check_mode(const char *value, struct strbuf *err)
{
	if (strcmp(value, "cold") == 0 || strcmp(value, "warm") == 0 || strcmp(value, "off") == 0)
		return 0;
	strbuf_addstr(err, "wants cold, warm or off");
	return -EINVAL;
}

static void label(const struct switch_on *on, struct strbuf *out)
{
	strbuf_addf(out, "sc-%s", on->value);
}

/* The directory warm caches are kept in: $HITCHBENCH_SHADERCACHE_DIR,
 * else root's SHADERCACHE_SYSTEM_DIR, else the user's XDG cache
 * directory's hitchbench/shadercache. The caller frees it. */
static char *warm_root(void)
{
	const char *d = getenv(SHADERCACHE_DIR_ENV);
	char *base, *root;

	if (d && *d)
		return xstrdup(d);
	if (geteuid() == 0)
		return xstrdup(SHADERCACHE_SYSTEM_DIR);
	base = xdg_user_dir("XDG_CACHE_HOME", ".cache");
	root = xasprintf("%s/shadercache", base);
	free(base);
	return root;
}

/* A recipe's or variant's name as one safe path component: letters,
 * digits, '.', '-', '_' kept, anything else '_', never "", "." or "..". */
static void add_component(struct strbuf *sb, const char *name)
{
	if (!name || !*name || name[0] == '.')
		strbuf_addch(sb, '_');
	for (const char *c = name ? name : ""; *c; c++) {
		bool keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '_';

		strbuf_addch(sb, keep ? *c : '_');
	}
}

/* nftw passes no argument: the tally being counted (one walk at a time) */
static struct cache_tally *tally_now;

static int tally_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	if (type == FTW_F && S_ISREG(st->st_mode)) {
		tally_now->files++;
		tally_now->bytes += (uint64_t)st->st_size;
	}
	return 0;
}

/* The regular files under dir and their bytes (a directory that is not
 * there holds none). */
static void tally(const char *dir, struct cache_tally *t)
{
	memset(t, 0, sizeof(*t));
	tally_now = t;
	nftw(dir, tally_one, 16, FTW_PHYS);
	tally_now = NULL;
}

/* Makes dir (mode 0700, its parents 0755) for the game user, or takes the
 * one there: a directory, not a symlink, given to the user when root
 * runs the game as another (a cache an earlier user filled), refused when
 * it is someone else's and we cannot give it. 0, or -errno with err. */
static int make_user_dir(const char *dir, const struct game_user *u, struct strbuf *err)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/');
	struct stat st;
	int r = 0;

	if (slash && slash != parent) {
		*slash = '\0';
		r = mkdir_p(parent, 0755);
	}
	if (r == 0 && mkdir(dir, 0700) < 0 && errno != EEXIST)
		r = -errno;
	if (r < 0) {
		strbuf_addf(err, "SHADERCACHE: cannot make '%s': %s", dir, strerror(-r));
		goto out;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		r = -ENOTDIR;
		strbuf_addf(err, "SHADERCACHE: '%s' is not a directory", dir);
		goto out;
	}
	if (u && st.st_uid != u->uid) {
		r = u->switch_needed ? game_user_give(u, dir) : -EACCES;
		if (r < 0)
			strbuf_addf(err, "SHADERCACHE: cannot give '%s' (uid %u's) to the game user %s: %s",
				    dir, (unsigned)st.st_uid, u->name, strerror(-r));
	}
out:
	free(parent);
	return r;
}

static char *cache_dir(const struct switch_on *on, const struct switch_ctx *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	char *root;

	if (strcmp(on->value, "cold") == 0)
		return xasprintf("%s/shadercache", ctx->stage_dir);
	root = warm_root();
	strbuf_addf(&sb, "%s/", root);
	add_component(&sb, ctx->recipe_name);
	strbuf_addch(&sb, '/');
	add_component(&sb, ctx->variant_name);
	free(root);
	return strbuf_detach(&sb);
}

static void setenv_dir(struct switch_ctx *ctx, const char *name, const char *dir)
{
	char *nv = xasprintf("%s=%s", name, dir);

	switch_ctx_setenv(ctx, nv);
	free(nv);
}

static void add_tally(struct kvfile *bench, const char *key, const struct cache_tally *t)
{
	kvfile_addf(bench, key, "%" PRIu64 " files, %" PRIu64 " bytes", t->files, t->bytes);
}

static int prepare(const struct switch_on *on, struct switch_ctx *ctx, struct strbuf *err)
{
	struct cache_tally before;
	char *dir;
	int r;

	if (strcmp(on->value, "off") == 0) {
		switch_ctx_setenv(ctx, "MESA_SHADER_CACHE_DISABLE=true");
		switch_ctx_setenv(ctx, "MESA_GLSL_CACHE_DISABLE=true");
		switch_ctx_setenv(ctx, "DXVK_STATE_CACHE=0");
		switch_ctx_setenv(ctx, "VKD3D_SHADER_CACHE_PATH=0");
		kvfile_add(ctx->bench, "shadercache", "off");
		return 0;
	}
	dir = cache_dir(on, ctx);
	r = make_user_dir(dir, ctx->user, err);
	if (r < 0)
		goto out;
	switch_ctx_setenv(ctx, "MESA_SHADER_CACHE_DISABLE=false");
	switch_ctx_setenv(ctx, "MESA_GLSL_CACHE_DISABLE=false");
	setenv_dir(ctx, "MESA_SHADER_CACHE_DIR", dir);
	setenv_dir(ctx, "MESA_GLSL_CACHE_DIR", dir);
	setenv_dir(ctx, "DXVK_STATE_CACHE_PATH", dir);
	setenv_dir(ctx, "VKD3D_SHADER_CACHE_PATH", dir);
	kvfile_addf(ctx->bench, "shadercache", "%s %s", on->value, dir);
	tally(dir, &before);
	add_tally(ctx->bench, "shadercache.before", &before);
out:
	free(dir);
	return r;
}

/* How full the cache is after the game, and what the run added: a warm
 * run that added about as much as a cold one found nothing to use (an
 * empty cache, or a new driver build whose entries it does not match). */
static void finish(const struct switch_on *on, struct switch_ctx *ctx)
{
	const char *v = kvfile_get(ctx->bench, "shadercache");
	const char *b = kvfile_get(ctx->bench, "shadercache.before");
	struct cache_tally before, after;
	const char *dir = v ? strchr(v, ' ') : NULL;

	if (!dir || !b || sscanf(b, "%" SCNu64 " files, %" SCNu64 " bytes", &before.files,
				 &before.bytes) != 2)
		return; /* off, or prepare did not get as far */
	tally(dir + 1, &after);
	add_tally(ctx->bench, "shadercache.after", &after);
	kvfile_addf(ctx->bench, "shadercache.added", "%" PRId64 " files, %" PRId64 " bytes",
		    (int64_t)(after.files - before.files), (int64_t)(after.bytes - before.bytes));
	switch_ctx_note(ctx, "shadercache %s: %" PRIu64 " files before the game, %" PRIu64 " after%s",
			on->value, before.files, after.files,
			strcmp(on->value, "warm") == 0 && before.files == 0 ?
				" (it was empty: a cold run, which filled it)" : "");
}

const struct switch_def switch_shadercache = {
	.name = "SHADERCACHE",
	.help = "cold|warm|off: the game's shader cache (Mesa, DXVK, vkd3d-proton): an empty one "
		"of the run's own, one kept per recipe and variant, or none",
	.check = check_mode,
	.label = label,
	.prepare = prepare,
	.finish = finish,
};
