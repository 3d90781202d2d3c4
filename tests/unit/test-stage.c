/*
 * bench/runner/stage.c: the game's environment holds the runner's defaults, then
 * the recipe's env, then the variant's, a later NAME replacing an earlier
 * one; the hook only when asked; nothing of the invoking user's. The
 * staging directory itself (as the invoking user: no user switch) holds
 * a HOME with the seeded files, a frame file and a copy of the hook.
 */
#include "formats/frames.h"
#include "recipe/recipe.h"
#include "runner/stage.h"
#include "test.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *env_get(const struct argv_list *env, const char *name)
{
	size_t n = strlen(name);
	const char *found = NULL;

	for (size_t i = 0; i < env->n; i++) {
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=') {
			ck_assert_msg(!found, "%s appears twice", name);
			found = env->v[i] + n + 1;
		}
	}
	return found;
}

START_TEST(env_order_and_override)
{
	struct stage st = { .dir = "/dev/shm/hb-x", .home = "/dev/shm/hb-x/home",
			    .frames = "/dev/shm/hb-x/frames.bin", .xauth = "/dev/shm/hb-x/Xauthority",
			    .hook = "/dev/shm/hb-x/hitchbench-hook.so" };
	struct game_user user = { .name = "player" };
	struct recipe r;
	struct recipe_variant v = { .name = "gl" };
	struct argv_list env;
	struct game_env_opts o = { .stage = &st, .user = &user, .display = ":7",
				   .run_dir = "/r/.x.tmp", .recipe = &r, .variant = &v };

	recipe_init(&r); /* its env list is ready */
	argv_init(&v.set.env);
	argv_push(&r.set.env, "SDL_AUDIODRIVER=dummy");
	argv_push(&r.set.env, "LANG=de_DE.UTF-8");
	argv_push(&v.set.env, "SDL_AUDIODRIVER=pulse");
	argv_init(&env);
	setenv("HB_TEST_LEAK", "1", 1);

	game_env_build(&env, &o);
	ck_assert_str_eq(env_get(&env, "HOME"), "/dev/shm/hb-x/home");
	ck_assert_str_eq(env_get(&env, "USER"), "player");
	ck_assert_str_eq(env_get(&env, "DISPLAY"), ":7");
	ck_assert_str_eq(env_get(&env, "XAUTHORITY"), "/dev/shm/hb-x/Xauthority");
	ck_assert_str_eq(env_get(&env, "TMPDIR"), "/dev/shm/hb-x/tmp");
	ck_assert_str_eq(env_get(&env, "XDG_RUNTIME_DIR"), "/dev/shm/hb-x/run");
	ck_assert_str_eq(env_get(&env, "SDL_VIDEODRIVER"), "x11");
	ck_assert_str_eq(env_get(&env, "HITCHBENCH_RUN_DIR"), "/r/.x.tmp");
	ck_assert(str_startswith(env_get(&env, "PATH"), "/dev/shm/hb-x/bin:"));
	ck_assert_str_eq(env_get(&env, "LANG"), "de_DE.UTF-8");       /* recipe over default */
	ck_assert_str_eq(env_get(&env, "SDL_AUDIODRIVER"), "pulse");  /* variant over recipe */
	ck_assert_ptr_null(env_get(&env, "LD_PRELOAD"));              /* not asked */
	ck_assert_ptr_null(env_get(&env, "HB_TEST_LEAK"));            /* nothing of ours */

	o.with_hook = true;
	game_env_build(&env, &o);
	ck_assert_str_eq(env_get(&env, "LD_PRELOAD"), "/dev/shm/hb-x/hitchbench-hook.so");
	ck_assert_str_eq(env_get(&env, HB_FRAMES_ENV), "/dev/shm/hb-x/frames.bin");

	argv_release(&env);
	argv_release(&v.set.env);
	recipe_release(&r);
}
END_TEST

START_TEST(workdir_rules)
{
	struct stage st = { .home = "/s/home" };
	struct recipe r;
	char *w;

	recipe_init(&r);
	w = stage_workdir(&st, &r);
	ck_assert_str_eq(w, "/s/home");
	free(w);
	r.workdir = xstrdup("games/doom");
	w = stage_workdir(&st, &r);
	ck_assert_str_eq(w, "/s/home/games/doom");
	free(w);
	free(r.workdir);
	r.workdir = xstrdup("/usr/share/games");
	w = stage_workdir(&st, &r);
	ck_assert_str_eq(w, "/usr/share/games");
	free(w);
	recipe_release(&r);
}
END_TEST

START_TEST(stage_made_and_removed)
{
	char *dir = test_tmpdir();
	char *hook = xasprintf("%s/hook.so", dir);
	char *cfg = xasprintf("%s/game.cfg", dir);
	struct game_user user = { .name = "me" }; /* no switch: we stay who we are */
	struct recipe_file f = { .dest = ".config/game/game.cfg", .src = cfg };
	struct recipe_settings set = { .files = &f, .n_files = 1 };
	struct recipe r;
	struct stage st;
	struct kvfile bench;
	struct strbuf err = STRBUF_INIT;
	struct hb_frames frames;
	const char *why;
	struct stat sb;
	char *seeded, *kept;
	int seq = 0;

	recipe_init(&r);
	r.workdir = xstrdup("run");
	kvfile_init(&bench);
	ck_assert_int_eq(write_file_atomic(hook, "ELF", 3, 0644), 0);
	ck_assert_int_eq(write_file_atomic(cfg, "fullscreen 0\n", 13, 0644), 0);
	ck_assert_int_eq(stage_create(&st, hook, NULL, true, &user, &err), 0);
	ck_assert_int_eq(stage_seed(&st, &set, &bench, &seq, &err), 0);
	ck_assert_int_eq(stage_finish_home(&st, &r, &user, &err), 0);

	/* the staging directory is the runner's: the game may pass through
	 * it, not list it or make names in it (docs/security.md) */
	ck_assert_int_eq(stat(st.dir, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0711);
	ck_assert_int_eq(sb.st_uid, geteuid());
	seeded = xasprintf("%s/.config/game/game.cfg", st.home);
	ck_assert_int_eq(access(seeded, R_OK), 0);
	free(seeded);
	seeded = xasprintf("%s/run", st.home);
	ck_assert_int_eq(stat(seeded, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	free(seeded);
	ck_assert_int_eq(access(st.hook, R_OK), 0);
	ck_assert_int_eq(access(st.xauth, R_OK), 0);
	ck_assert_int_eq(hb_frames_load(st.frames, &frames, &why), 0);
	ck_assert_uint_eq(frames.n, 0);
	hb_frames_release(&frames);
	/* file.1=DEST SHA256 of what was seeded */
	ck_assert(str_startswith(kvfile_get(&bench, "file.1"), ".config/game/game.cfg "));
	ck_assert_uint_eq(strlen(kvfile_get(&bench, "file.1")), strlen(".config/game/game.cfg ") + 64);

	kept = xstrdup(st.dir);
	stage_release(&st);
	ck_assert_int_ne(access(kept, F_OK), 0);
	free(kept);
	kvfile_release(&bench);
	recipe_release(&r);
	strbuf_release(&err);
	remove_tree(dir);
	free(dir);
	free(hook);
	free(cfg);
}
END_TEST

TEST_SUITE(stage_suite)
{
	Suite *s = suite_create("stage");
	TCase *tc = tcase_create("stage");

	tcase_add_test(tc, env_order_and_override);
	tcase_add_test(tc, workdir_rules);
	tcase_add_test(tc, stage_made_and_removed);
	suite_add_tcase(s, tc);
	return s;
}
