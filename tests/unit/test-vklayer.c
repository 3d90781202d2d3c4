/*
 * The Vulkan layer's manifest (bench/runner/vklayer.c) and where the runner puts
 * it (stage_vulkan_layer, bench/runner/stage.c): the manifest's exact text (the
 * names the layer and the loader agree on), the data home the game's
 * environment gives the loader, the file written with its mode, a hook
 * without the layer's entry point left without a manifest, a manifest
 * outside HOME removed with the stage, and HITCHBENCH_VULKAN=1 beside
 * LD_PRELOAD only.
 */
#include "test.h"

#include "formats/frames.h"
#include "recipe/recipe.h"
#include "runner/stage.h"
#include "runner/vklayer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(manifest_text)
{
	char *m = vklayer_manifest("/dev/shm/hitchbench-Ab12/hitchbench-hook.so");

	ck_assert_str_eq(m,
		"{\n"
		"  \"file_format_version\": \"1.1.2\",\n"
		"  \"layer\": {\n"
		"    \"name\": \"VK_LAYER_HITCHBENCH_frames\",\n"
		"    \"type\": \"INSTANCE\",\n"
		"    \"library_path\": \"/dev/shm/hitchbench-Ab12/hitchbench-hook.so\",\n"
		"    \"api_version\": \"1.3.239\",\n"
		"    \"implementation_version\": \"1\",\n"
		"    \"description\": \"hitchbench: every vkQueuePresentKHR stamped into the run's "
		"frame file\",\n"
		"    \"functions\": {\n"
		"      \"vkNegotiateLoaderLayerInterfaceVersion\": "
		"\"vkNegotiateLoaderLayerInterfaceVersion\"\n"
		"    },\n"
		"    \"enable_environment\": {\n"
		"      \"HITCHBENCH_VULKAN\": \"1\"\n"
		"    },\n"
		"    \"disable_environment\": {\n"
		"      \"HITCHBENCH_VULKAN_DISABLE\": \"1\"\n"
		"    }\n"
		"  }\n"
		"}\n");
	free(m);
}
END_TEST

/* A path is bytes: a quote, a backslash and a control character would
 * break the JSON, so they are escaped. */
START_TEST(manifest_escapes_path)
{
	char *m = vklayer_manifest("/a\"b\\c\td/hook.so");

	ck_assert_ptr_nonnull(strstr(m, "\"library_path\": \"/a\\\"b\\\\c\\u0009d/hook.so\",\n"));
	free(m);
}
END_TEST

START_TEST(data_home_from_env)
{
	const char *none[] = { "LANG=C", NULL };
	const char *two[] = { "XDG_DATA_HOME=/srv/a", "LANG=C", "XDG_DATA_HOME=/srv/b", NULL };
	const char *near[] = { "XDG_DATA_HOME_X=/srv/a", "XDG_DATA=/srv/b", NULL };

	ck_assert_ptr_null(vklayer_env_data_home(none));
	ck_assert_ptr_null(vklayer_env_data_home(NULL));
	ck_assert_str_eq(vklayer_env_data_home(two), "/srv/b"); /* the later wins, as in the env */
	ck_assert_ptr_null(vklayer_env_data_home(near));
}
END_TEST

START_TEST(manifest_dir_rules)
{
	int e = 0;
	char *d;

	d = vklayer_manifest_dir("/s/home", NULL, &e);
	ck_assert_str_eq(d, "/s/home/.local/share/vulkan/implicit_layer.d");
	free(d);
	d = vklayer_manifest_dir("/s/home", "", &e); /* empty: unset */
	ck_assert_str_eq(d, "/s/home/.local/share/vulkan/implicit_layer.d");
	free(d);
	d = vklayer_manifest_dir("/s/home", "/srv/data", &e);
	ck_assert_str_eq(d, "/srv/data/vulkan/implicit_layer.d");
	free(d);
	ck_assert_int_eq(e, 0);
	ck_assert_ptr_null(vklayer_manifest_dir("/s/home", "share", &e));
	ck_assert_int_eq(e, -EINVAL);
}
END_TEST

START_TEST(write_manifest_file)
{
	char *tmp = test_tmpdir();
	char *dir = xasprintf("%s/a/b/vulkan/implicit_layer.d", tmp);
	char *path = NULL, *text = NULL, *want = vklayer_manifest("/x/hook.so");
	struct stat st;

	ck_assert_int_eq(vklayer_write_manifest(dir, "x/hook.so", &path), -EINVAL);
	ck_assert_ptr_null(path);
	ck_assert_int_eq(vklayer_write_manifest(dir, "/x/hook.so", &path), 0);
	ck_assert_str_eq(path + strlen(dir), "/" HB_VK_MANIFEST_NAME);
	ck_assert_int_eq(read_file(path, &text, NULL), 0);
	ck_assert_str_eq(text, want);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	/* again: replaced, not appended */
	ck_assert_int_eq(vklayer_write_manifest(dir, "/x/hook.so", NULL), 0);
	free(text);
	ck_assert_int_eq(read_file(path, &text, NULL), 0);
	ck_assert_str_eq(text, want);
	free(text);
	free(want);
	free(path);
	free(dir);
	remove_tree(tmp);
	free(tmp);
}
END_TEST

/* A stage with a HOME and a hook, as stage_create leaves it (without
 * the frame file and the game user, which the manifest does not need);
 * stage_release frees the names, and with dir NULL removes no tree. */
static void fake_stage(struct stage *st, const char *tmp, bool with_entry)
{
	static const char layer[] = "\x7f" "ELF...vkNegotiateLoaderLayerInterfaceVersion\0...";
	static const char gl_only[] = "\x7f" "ELF...glXSwapBuffers\0vkNegotiate\0...";

	memset(st, 0, sizeof(*st));
	st->home = xasprintf("%s/home", tmp);
	st->hook = xasprintf("%s/hitchbench-hook.so", tmp);
	ck_assert_int_eq(mkdir_p(st->home, 0700), 0);
	if (with_entry)
		ck_assert_int_eq(write_file_atomic(st->hook, layer, sizeof(layer), 0755), 0);
	else
		ck_assert_int_eq(write_file_atomic(st->hook, gl_only, sizeof(gl_only), 0755), 0);
}

/* The end of a stage test: everything released, the files removed. */
static void done(struct stage *st, struct kvfile *bench, struct recipe *r, struct strbuf *err,
		 char *tmp)
{
	kvfile_release(bench);
	recipe_release(r);
	stage_release(st); /* st->dir NULL: the files stay, for remove_tree */
	strbuf_release(err);
	remove_tree(tmp);
	free(tmp);
}

static void parse(struct recipe *r, const char *text)
{
	struct strbuf err = STRBUF_INIT;

	recipe_init(r);
	ck_assert_msg(recipe_parse_string(text, "recipes/x.ini", r, &err) == 0, "%s", err.buf);
	strbuf_release(&err);
}

START_TEST(stage_writes_into_home)
{
	char *tmp = test_tmpdir(), *hook, *text = NULL, *want;
	struct strbuf err = STRBUF_INIT;
	struct kvfile bench;
	struct recipe r;
	struct stage st;

	fake_stage(&st, tmp, true);
	hook = realpath(st.hook, NULL);
	parse(&r, "[recipe]\ncommand = vkcube\n");
	kvfile_init(&bench);
	ck_assert_msg(stage_vulkan_layer(&st, &r, NULL, &bench, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&bench, "vulkan_layer"),
			 ".local/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json");
	ck_assert(!st.vk_manifest_outside);
	ck_assert_int_eq(read_file(st.vk_manifest, &text, NULL), 0);
	want = vklayer_manifest(hook); /* the hook the game preloads, resolved */
	ck_assert_str_eq(text, want);
	free(want);
	free(text);
	free(hook);
	done(&st, &bench, &r, &err, tmp);
}
END_TEST

/* The variant's XDG_DATA_HOME over the recipe's: the one the game gets.
 * Outside HOME the manifest is the runner's to remove. */
START_TEST(stage_follows_data_home)
{
	char *tmp = test_tmpdir();
	char *text = xasprintf("[recipe]\ncommand = vkcube\nenv = XDG_DATA_HOME=%s/r\n"
			       "[variant v]\nenv = XDG_DATA_HOME=%s/v\n", tmp, tmp);
	char *want = xasprintf("%s/v/vulkan/implicit_layer.d/VkLayer_hitchbench.json", tmp);
	struct strbuf err = STRBUF_INIT;
	struct kvfile bench;
	struct recipe r;
	struct stage st;

	fake_stage(&st, tmp, true);
	parse(&r, text);
	kvfile_init(&bench);
	ck_assert_msg(stage_vulkan_layer(&st, &r, recipe_find_variant(&r, "v"), &bench, &err) == 0,
		      "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&bench, "vulkan_layer"), want);
	ck_assert(st.vk_manifest_outside);
	ck_assert_int_eq(access(want, R_OK), 0);
	stage_release(&st);
	ck_assert_int_eq(access(want, F_OK), -1);
	kvfile_release(&bench);

	/* the recipe's alone */
	free(want);
	want = xasprintf("%s/r/vulkan/implicit_layer.d/VkLayer_hitchbench.json", tmp);
	fake_stage(&st, tmp, true);
	kvfile_init(&bench);
	ck_assert_msg(stage_vulkan_layer(&st, &r, NULL, &bench, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(kvfile_get(&bench, "vulkan_layer"), want);
	stage_release(&st);
	kvfile_release(&bench);
	recipe_release(&r);
	strbuf_release(&err);
	free(want);
	free(text);
	remove_tree(tmp);
	free(tmp);
}
END_TEST

/* A hook built before the layer: no manifest, and bench.txt says why. */
START_TEST(stage_hook_without_layer)
{
	char *tmp = test_tmpdir(), *dir;
	struct strbuf err = STRBUF_INIT;
	struct kvfile bench;
	struct recipe r;
	struct stage st;

	fake_stage(&st, tmp, false);
	parse(&r, "[recipe]\ncommand = glxgears\n");
	kvfile_init(&bench);
	ck_assert_int_eq(stage_vulkan_layer(&st, &r, NULL, &bench, &err), 0);
	ck_assert_str_eq(kvfile_get(&bench, "vulkan_layer"),
			 "none (the frame hook has no vkNegotiateLoaderLayerInterfaceVersion: built "
			 "before the Vulkan layer)");
	ck_assert_ptr_null(st.vk_manifest);
	dir = xasprintf("%s/.local", st.home);
	ck_assert_int_eq(access(dir, F_OK), -1);
	free(dir);
	/* a hook that is not there fails the run */
	unlink(st.hook);
	ck_assert_int_lt(stage_vulkan_layer(&st, &r, NULL, &bench, &err), 0);
	ck_assert(str_startswith(err.buf, "cannot resolve the frame hook"));
	done(&st, &bench, &r, &err, tmp);
}
END_TEST

static const char *env_value(const struct argv_list *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

START_TEST(env_enables_layer_with_hook)
{
	struct stage st = { .dir = NULL, .home = "/s/home", .frames = "/s/frames.bin",
			    .hook = "/s/hitchbench-hook.so" };
	struct game_user u = { .name = "player" };
	struct recipe r;
	struct argv_list env;
	struct game_env_opts o = { .stage = &st, .user = &u, .display = ":7", .run_dir = "/r",
				   .recipe = &r };

	parse(&r, "[recipe]\ncommand = vkcube\n");
	argv_init(&env);
	game_env_build(&env, &o);
	ck_assert_ptr_null(env_value(&env, HB_VK_ENABLE_ENV)); /* prepare, the GL probe */
	o.with_hook = true;
	game_env_build(&env, &o);
	ck_assert_str_eq(env_value(&env, HB_VK_ENABLE_ENV), "1");
	ck_assert_str_eq(env_value(&env, "LD_PRELOAD"), "/s/hitchbench-hook.so");
	argv_release(&env);
	recipe_release(&r);
}
END_TEST

TEST_SUITE(vklayer_suite)
{
	Suite *s = suite_create("vklayer");
	TCase *tc = tcase_create("manifest");

	tcase_add_test(tc, manifest_text);
	tcase_add_test(tc, manifest_escapes_path);
	tcase_add_test(tc, data_home_from_env);
	tcase_add_test(tc, manifest_dir_rules);
	tcase_add_test(tc, write_manifest_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("stage");
	tcase_add_test(tc, stage_writes_into_home);
	tcase_add_test(tc, stage_follows_data_home);
	tcase_add_test(tc, stage_hook_without_layer);
	tcase_add_test(tc, env_enables_layer_with_hook);
	suite_add_tcase(s, tc);
	return s;
}
