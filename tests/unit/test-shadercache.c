/*
 * bench/switch/switch-shadercache.c: SHADERCACHE=cold|warm|off, its
 * values and labels, the game's environment each gives, where the cache
 * directory goes and whose it is, and the counts bench.txt gets.
 */
#include "switch/switch.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The value of NAME in env, or NULL. */
static const char *env_get(const struct argv_list *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/* One run's prepare and (with finish) finish of token in a fresh
 * environment and bench.txt; returns prepare's result, err its message. */
struct sc_run {
	struct argv_list env;
	struct kvfile bench;
	struct strbuf err;
	struct switch_ctx ctx;
	struct switch_set set;
};

static int sc_prepare(struct sc_run *r, const char *token, const char *stage, const char *recipe,
		      const char *variant, const struct game_user *u)
{
	const struct switch_on *on;

	memset(r, 0, sizeof(*r));
	argv_init(&r->env);
	kvfile_init(&r->bench);
	strbuf_init(&r->err);
	argv_push(&r->env, "HOME=/h");
	argv_push(&r->env, "MESA_SHADER_CACHE_DIR=/recipe/own");
	r->ctx.game_env = &r->env;
	r->ctx.bench = &r->bench;
	r->ctx.stage_dir = stage;
	r->ctx.recipe_name = recipe;
	r->ctx.variant_name = variant;
	r->ctx.user = u;
	ck_assert_int_eq(switch_set_parse(token, &r->set, &r->err), 0);
	on = switch_set_find(&r->set, "SHADERCACHE");
	ck_assert_ptr_nonnull(on);
	return on->def->prepare(on, &r->ctx, &r->err);
}

static void sc_finish(struct sc_run *r)
{
	const struct switch_on *on = switch_set_find(&r->set, "SHADERCACHE");

	on->def->finish(on, &r->ctx);
}

static void sc_release(struct sc_run *r)
{
	switch_set_release(&r->set);
	argv_release(&r->env);
	kvfile_release(&r->bench);
	strbuf_release(&r->err);
	switch_ctx_release(&r->ctx);
}

static void self_user(struct game_user *u)
{
	memset(u, 0, sizeof(*u));
	u->name = (char *)"self";
	u->uid = geteuid();
	u->gid = getegid();
}

START_TEST(values_and_labels)
{
	struct strbuf err = STRBUF_INIT;
	struct switch_set *sets = NULL, set;
	size_t n = 0;

	ck_assert_int_eq(switch_tokens_parse("- SHADERCACHE=cold SHADERCACHE=warm SHADERCACHE=off "
					     "SHADERCACHE=warm+GAMECPU=0", &sets, &n, &err), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(sets[0].label, "");
	ck_assert_str_eq(sets[1].label, "sc-cold");
	ck_assert_str_eq(sets[2].label, "sc-warm");
	ck_assert_str_eq(sets[3].label, "sc-off");
	ck_assert_str_eq(sets[4].label, "sc-warm+cpu0");
	switch_sets_free(sets, n);
	for (const char *const *bad = (const char *const[]){ "SHADERCACHE=hot", "SHADERCACHE=1",
							       "SHADERCACHE=", NULL }; *bad; bad++) {
		strbuf_reset(&err);
		ck_assert_int_eq(switch_set_parse(*bad, &set, &err), -EINVAL);
		ck_assert_ptr_nonnull(strstr(err.buf, "wants cold, warm or off"));
		switch_set_release(&set);
	}
	strbuf_release(&err);
}
END_TEST

START_TEST(off_env)
{
	struct game_user u;
	struct sc_run r;

	self_user(&u);
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=off", "/nonexistent", "doom", "gl", &u), 0);
	ck_assert_str_eq(env_get(&r.env, "MESA_SHADER_CACHE_DISABLE"), "true");
	ck_assert_str_eq(env_get(&r.env, "MESA_GLSL_CACHE_DISABLE"), "true");
	ck_assert_str_eq(env_get(&r.env, "DXVK_STATE_CACHE"), "0");
	ck_assert_str_eq(env_get(&r.env, "VKD3D_SHADER_CACHE_PATH"), "0");
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache"), "off");
	sc_finish(&r);
	ck_assert_ptr_null(kvfile_get(&r.bench, "shadercache.before"));
	ck_assert_ptr_null(kvfile_get(&r.bench, "shadercache.after"));
	sc_release(&r);
}
END_TEST

/* cold: an empty directory in the staging directory, every cache pointed
 * at it; what the game wrote counted after it */
START_TEST(cold_env_and_counts)
{
	char *stage = test_tmpdir(), *dir = xasprintf("%s/shadercache", stage), *want;
	struct game_user u;
	struct sc_run r;
	struct stat st;

	self_user(&u);
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=cold", stage, "doom", "gl", &u), 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	ck_assert_uint_eq(st.st_uid, geteuid());
	ck_assert_str_eq(env_get(&r.env, "MESA_SHADER_CACHE_DIR"), dir); /* the recipe's replaced */
	ck_assert_str_eq(env_get(&r.env, "MESA_GLSL_CACHE_DIR"), dir);
	ck_assert_str_eq(env_get(&r.env, "DXVK_STATE_CACHE_PATH"), dir);
	ck_assert_str_eq(env_get(&r.env, "VKD3D_SHADER_CACHE_PATH"), dir);
	ck_assert_str_eq(env_get(&r.env, "MESA_SHADER_CACHE_DISABLE"), "false");
	ck_assert_uint_eq(r.env.n, 7); /* HOME, the recipe's one replaced, five more */
	want = xasprintf("cold %s", dir);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache"), want);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.before"), "0 files, 0 bytes");
	test_put(dir, "mesa_shader_cache/index", "0123456789");
	test_put(dir, "mesa_shader_cache/ab/cdef", "xyz");
	sc_finish(&r);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.after"), "2 files, 13 bytes");
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.added"), "2 files, 13 bytes");
	ck_assert_ptr_nonnull(strstr(r.ctx.notes.buf, "shadercache cold: 0 files before the game, 2 after"));
	sc_release(&r);
	remove_tree(stage);
	free(want);
	free(dir);
	free(stage);
}
END_TEST

/* warm: ROOT/RECIPE/VARIANT, made once and found full the next time;
 * names made safe as path components */
START_TEST(warm_kept)
{
	char *tmp = test_tmpdir(), *root = xasprintf("%s/cache", tmp);
	char *dir = xasprintf("%s/_..doom/gl_x", root), *want = xasprintf("warm %s", dir);
	char *old = xstrdup(getenv("HITCHBENCH_SHADERCACHE_DIR"));
	struct game_user u;
	struct sc_run r;
	struct stat st;

	self_user(&u);
	setenv("HITCHBENCH_SHADERCACHE_DIR", root, 1);
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=warm", tmp, "..doom", "gl/x", &u), 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_str_eq(env_get(&r.env, "MESA_SHADER_CACHE_DIR"), dir);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache"), want);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.before"), "0 files, 0 bytes");
	test_put(dir, "mesa_shader_cache/index", "0123");
	sc_finish(&r);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.after"), "1 files, 4 bytes");
	ck_assert_ptr_nonnull(strstr(r.ctx.notes.buf, "it was empty: a cold run"));
	sc_release(&r);

	/* the next run finds it as the last left it */
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=warm", tmp, "..doom", "gl/x", &u), 0);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.before"), "1 files, 4 bytes");
	sc_finish(&r);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.added"), "0 files, 0 bytes");
	ck_assert_ptr_null(strstr(r.ctx.notes.buf, "it was empty"));
	sc_release(&r);

	/* a symlink where the cache should be is refused, not followed */
	remove_tree(dir);
	ck_assert_int_eq(symlink(tmp, dir), 0);
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=warm", tmp, "..doom", "gl/x", &u), -ENOTDIR);
	ck_assert_ptr_nonnull(strstr(r.err.buf, "is not a directory"));
	sc_release(&r);

	if (old)
		setenv("HITCHBENCH_SHADERCACHE_DIR", old, 1);
	else
		unsetenv("HITCHBENCH_SHADERCACHE_DIR");
	remove_tree(tmp);
	free(old);
	free(want);
	free(dir);
	free(root);
	free(tmp);
}
END_TEST

/* As root, the cache is given to the game user: a kept one another user
 * filled too. */
START_TEST(given_to_game_user)
{
	char *tmp, *root, *dir, *entry, *cold, *outside, *link, *precious;
	struct game_user u;
	struct sc_run r;
	struct stat st;

	if (geteuid() != 0)
		test_skip("not root: the cache is the caller's own");
	tmp = test_tmpdir();
	root = xasprintf("%s/c", tmp);
	dir = xasprintf("%s/recipe/base", root);
	entry = xasprintf("%s/old/entry", dir);
	cold = xasprintf("%s/shadercache", tmp);
	self_user(&u);
	u.uid = 65534;
	u.gid = 65534;
	u.switch_needed = true;
	setenv("HITCHBENCH_SHADERCACHE_DIR", root, 1);
	test_put(dir, "old/entry", "x"); /* root's: left by an earlier user */
	/* and links an earlier user planted: given as links, never followed
	 * (docs/security.md) */
	test_put(tmp, "outside/precious", "root's");
	outside = xasprintf("%s/outside", tmp);
	link = xasprintf("%s/old/to-outside", dir);
	ck_assert_int_eq(symlink(outside, link), 0);
	free(link);
	link = xasprintf("%s/old/to-precious", dir);
	precious = xasprintf("%s/precious", outside);
	ck_assert_int_eq(symlink(precious, link), 0);
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=warm", tmp, "recipe", "base", &u), 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_int_eq(stat(entry, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_int_eq(stat(precious, &st), 0);
	ck_assert_uint_eq(st.st_uid, 0);
	free(link);
	free(precious);
	free(outside);
	ck_assert_str_eq(kvfile_get(&r.bench, "shadercache.before"), "1 files, 1 bytes");
	sc_release(&r);
	/* cold: the run's own, the user's too */
	ck_assert_int_eq(sc_prepare(&r, "SHADERCACHE=cold", tmp, "recipe", "base", &u), 0);
	ck_assert_int_eq(stat(cold, &st), 0);
	ck_assert_uint_eq(st.st_uid, 65534);
	sc_release(&r);
	unsetenv("HITCHBENCH_SHADERCACHE_DIR");
	remove_tree(tmp);
	free(cold);
	free(entry);
	free(dir);
	free(root);
	free(tmp);
}
END_TEST

TEST_SUITE(shadercache_suite)
{
	Suite *s = suite_create("shadercache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, values_and_labels);
	tcase_add_test(tc, off_env);
	tcase_add_test(tc, cold_env_and_counts);
	tcase_add_test(tc, warm_kept);
	tcase_add_test(tc, given_to_game_user);
	suite_add_tcase(s, tc);
	return s;
}
