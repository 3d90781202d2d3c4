/*
 * Tests of the recipe parser (bench/recipe/recipe*.c): a full recipe and the
 * defaults parse to the expected fields, every kind of mistake gives its
 * exact "file:line: what is wrong" message, names resolve to files, and
 * the recipes shipped in recipes/ parse.
 */
#include "test.h"
#include "recipe/recipe.h"
#include "base/util.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEAD "[recipe]\ncommand = true\n"

static char *write_text(const char *dir, const char *rel, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", dir, rel);
	char *parent = xstrdup(path);

	*strrchr(parent, '/') = '\0';
	ck_assert_int_eq(mkdir_p(parent, 0755), 0);
	ck_assert_int_eq(write_file_atomic(path, text, len, 0644), 0);
	free(parent);
	return path;
}

static char *write_str(const char *dir, const char *rel, const char *text)
{
	return write_text(dir, rel, text, strlen(text));
}

static char *cwd_join(const char *rel)
{
	char *cwd = get_current_dir_name();
	char *s;

	ck_assert_ptr_nonnull(cwd);
	s = xasprintf("%s/%s", cwd, rel);
	free(cwd);
	return s;
}

START_TEST(test_full_recipe)
{
	char *dir = test_tmpdir();
	char *cfg = write_str(dir, "cfg/demo.cfg", "screenblocks 10\n");
	char *abs_cfg = write_str(dir, "elsewhere/gl.cfg", "gl 1\n");
	char *path = xasprintf("%s/demo.ini", dir);
	char *text = xasprintf(
		"; a comment\n"
		"# another one\n"
		"[recipe]\n"
		"name = demo-game\n"
		"description = A demo;with a semicolon ; and a comment\n"
		"command = /usr/games/demo -iwad \"/usr/share/games/doom/free doom2.wad\" -nosound\n"
		"packages = demo-game freedoom\n"
		"prepare = hitchbench-wadlump freedoom2.wad DEMO1 demo1.lmp\n"
		"prepare = mkdir -p .config/demo\n"
		"workdir = .config/demo\n"
		"frames = hook\n"
		"warmup = 2.5\n"
		"window = 30\n"
		"end = line\n"
		"end_line = ^Timed [0-9]+ gametics\n"
		"start_line = ^\\[L\\] NEW_ROUND\n"
		"relaunch = yes\n"
		"load_timeout = 90\n"
		"stop_grace = 0\n"
		"screen = 640x480x16\n"
		"default_variant = gl\n"
		"args = -window -geom 1280x720\n"
		"env = SDL_AUDIODRIVER=dummy\n"
		"env = LIBGL_ALWAYS_SOFTWARE=1\n"
		"file = .config/demo/demo.cfg cfg/demo.cfg\n"
		"\n"
		"[variant software]\n"
		"description = Software renderer\n"
		"\n"
		"[variant gl]\n"
		"description = OpenGL renderer\n"
		"args = -vidmode gl\n"
		"env = MESA_GL_VERSION_OVERRIDE=4.5\n"
		"env = SDL_AUDIODRIVER=disk\n"
		"file = .config/demo/gl.cfg %s\n", abs_cfg);
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	const struct recipe_variant *v;

	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(text, path, &r, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(r.path, path);
	ck_assert_str_eq(r.dir, dir);
	ck_assert_str_eq(r.name, "demo-game");
	ck_assert_str_eq(r.description, "A demo;with a semicolon");
	ck_assert_int_eq(r.command.n, 4);
	ck_assert_str_eq(r.command.v[0], "/usr/games/demo");
	ck_assert_str_eq(r.command.v[2], "/usr/share/games/doom/free doom2.wad");
	ck_assert_ptr_null(r.command.v[4]);
	ck_assert_int_eq(r.packages.n, 2);
	ck_assert_str_eq(r.packages.v[1], "freedoom");
	ck_assert_int_eq(r.prepare.n, 2);
	ck_assert_str_eq(r.prepare.v[0], "hitchbench-wadlump freedoom2.wad DEMO1 demo1.lmp");
	ck_assert_str_eq(r.prepare.v[1], "mkdir -p .config/demo");
	ck_assert_str_eq(r.workdir, ".config/demo");
	ck_assert_int_eq(r.frames, FRAMES_HOOK);
	ck_assert_double_eq(r.warmup_s, 2.5);
	ck_assert_double_eq(r.window_s, 30);
	ck_assert_int_eq(r.end, END_LINE);
	ck_assert_str_eq(r.end_line, "^Timed [0-9]+ gametics");
	ck_assert_str_eq(r.start_line, "^\\[L\\] NEW_ROUND");
	ck_assert(r.relaunch);
	ck_assert_double_eq(r.load_timeout_s, 90);
	ck_assert_double_eq(r.stop_grace_s, 0);
	ck_assert_str_eq(r.screen, "640x480x16");
	ck_assert_str_eq(r.default_variant, "gl");
	ck_assert_int_eq(r.set.args.n, 3);
	ck_assert_str_eq(r.set.args.v[2], "1280x720");
	ck_assert_int_eq(r.set.env.n, 2);
	ck_assert_str_eq(r.set.env.v[0], "SDL_AUDIODRIVER=dummy");
	ck_assert_str_eq(r.set.env.v[1], "LIBGL_ALWAYS_SOFTWARE=1");
	ck_assert_int_eq(r.set.n_files, 1);
	ck_assert_str_eq(r.set.files[0].dest, ".config/demo/demo.cfg");
	ck_assert_str_eq(r.set.files[0].src, cfg);

	ck_assert_int_eq(r.n_variants, 2);
	v = recipe_find_variant(&r, "software");
	ck_assert_ptr_eq(v, &r.variants[0]);
	ck_assert_str_eq(v->description, "Software renderer");
	ck_assert_int_eq(v->set.args.n, 0);
	ck_assert_int_eq(v->set.env.n, 0);
	ck_assert_int_eq(v->set.n_files, 0);
	v = recipe_find_variant(&r, "gl");
	ck_assert_ptr_eq(v, &r.variants[1]);
	ck_assert_str_eq(v->name, "gl");
	ck_assert_str_eq(v->description, "OpenGL renderer");
	ck_assert_int_eq(v->set.args.n, 2);
	ck_assert_str_eq(v->set.args.v[1], "gl");
	ck_assert_int_eq(v->set.env.n, 2);
	ck_assert_str_eq(v->set.env.v[1], "SDL_AUDIODRIVER=disk");
	ck_assert_int_eq(v->set.n_files, 1);
	ck_assert_str_eq(v->set.files[0].dest, ".config/demo/gl.cfg");
	ck_assert_str_eq(v->set.files[0].src, abs_cfg);
	ck_assert_ptr_null(recipe_find_variant(&r, "base"));

	recipe_release(&r);
	recipe_release(&r);
	strbuf_release(&err);
	free(text);
	free(path);
	free(abs_cfg);
	free(cfg);
	remove_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_defaults)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	char *dir = cwd_join("recipes");

	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(HEAD, "recipes/mygame.ini", &r, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(r.path, "recipes/mygame.ini");
	ck_assert_str_eq(r.dir, dir);
	ck_assert_str_eq(r.name, "mygame");
	ck_assert_ptr_null(r.description);
	ck_assert_int_eq(r.command.n, 1);
	ck_assert_str_eq(r.command.v[0], "true");
	ck_assert_int_eq(r.packages.n, 0);
	ck_assert_int_eq(r.prepare.n, 0);
	ck_assert_ptr_null(r.workdir);
	ck_assert_int_eq(r.frames, FRAMES_HOOK);
	ck_assert_double_eq(r.warmup_s, 10);
	ck_assert_double_eq(r.window_s, 60);
	ck_assert_int_eq(r.end, END_WINDOW);
	ck_assert_ptr_null(r.end_line);
	ck_assert_ptr_null(r.start_line);
	ck_assert(!r.relaunch);
	ck_assert_double_eq(r.load_timeout_s, 60);
	ck_assert_double_eq(r.stop_grace_s, 5);
	ck_assert_str_eq(r.screen, "1280x720x24");
	ck_assert_str_eq(r.default_variant, "base");
	ck_assert_int_eq(r.set.args.n, 0);
	ck_assert_int_eq(r.set.env.n, 0);
	ck_assert_int_eq(r.set.n_files, 0);
	ck_assert_int_eq(r.n_variants, 0);
	recipe_release(&r);

	/* With variants, the first one is the default. */
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD "[variant b]\n[variant a]\n", "x.ini", &r, &err), 0);
	ck_assert_str_eq(r.default_variant, "b");
	ck_assert_str_eq(r.name, "x");
	recipe_release(&r);

	/* "base" names the recipe alone even when there are variants. */
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD "default_variant = base\n[variant a]\n",
					     "x.ini", &r, &err), 0);
	ck_assert_str_eq(r.default_variant, "base");
	recipe_release(&r);

	free(dir);
	strbuf_release(&err);
}
END_TEST

static const struct {
	const char *text;
	const char *message;
} bad[] = {
	{ HEAD "windw = 5\n", "recipes/x.ini:3: unknown key 'windw'" },
	{ HEAD "Window = 5\n", "recipes/x.ini:3: unknown key 'Window'" },
	{ "[recipes]\ncommand = true\n", "recipes/x.ini:1: unknown section 'recipes'" },
	{ HEAD "window = ten\n", "recipes/x.ini:3: bad number 'ten' for 'window'" },
	{ HEAD "window = 1e3\n", "recipes/x.ini:3: bad number '1e3' for 'window'" },
	{ HEAD "load_timeout = 5.\n", "recipes/x.ini:3: bad number '5.' for 'load_timeout'" },
	{ HEAD "window = -5\n", "recipes/x.ini:3: 'window' must be more than 0, not '-5'" },
	{ HEAD "window = 0\n", "recipes/x.ini:3: 'window' must be more than 0, not '0'" },
	{ HEAD "warmup = -1\n", "recipes/x.ini:3: 'warmup' must be at least 0, not '-1'" },
	{ HEAD "stop_grace = 999999999\n",
	  "recipes/x.ini:3: 'stop_grace' must be at most 604800, not '999999999'" },
	{ HEAD "end = line\n", "recipes/x.ini:3: 'end = line' needs 'end_line'" },
	{ HEAD "end_line = ^done$\n", "recipes/x.ini:3: 'end_line' needs 'end = line'" },
	{ HEAD "end = sometimes\n",
	  "recipes/x.ini:3: unknown end 'sometimes' (expected window, exit or line)" },
	{ HEAD "env = LD_PRELOAD=/tmp/x.so\n",
	  "recipes/x.ini:3: environment variable 'LD_PRELOAD' is set by the runner" },
	{ HEAD "env = HITCHBENCH_FRAMES=/tmp/f\n",
	  "recipes/x.ini:3: environment variable 'HITCHBENCH_FRAMES' is set by the runner" },
	{ HEAD "[variant a]\nenv = HOME=/root\n",
	  "recipes/x.ini:4: environment variable 'HOME' is set by the runner" },
	{ HEAD "env = DISPLAY=:0\n",
	  "recipes/x.ini:3: environment variable 'DISPLAY' is set by the runner" },
	{ HEAD "env = XAUTHORITY=/x\n",
	  "recipes/x.ini:3: environment variable 'XAUTHORITY' is set by the runner" },
	{ HEAD "env = 1X=y\n", "recipes/x.ini:3: bad environment variable name '1X'" },
	{ HEAD "env = A-B=y\n", "recipes/x.ini:3: bad environment variable name 'A-B'" },
	{ HEAD "env = NOVALUE\n", "recipes/x.ini:3: bad env 'NOVALUE' (expected NAME=VALUE)" },
	{ HEAD "env = A=1\nenv = A=2\n", "recipes/x.ini:4: duplicate env 'A'" },
	{ HEAD "file = ../x /etc/hostname\n",
	  "recipes/x.ini:3: file destination '../x' must not contain '..'" },
	{ HEAD "[variant a]\nfile = a/../../x /etc/hostname\n",
	  "recipes/x.ini:4: file destination 'a/../../x' must not contain '..'" },
	{ HEAD "file = /etc/x /etc/hostname\n",
	  "recipes/x.ini:3: file destination '/etc/x' must be relative to HOME" },
	{ HEAD "file = a//b /etc/hostname\n", "recipes/x.ini:3: bad file destination 'a//b'" },
	{ HEAD "file = only-one\n", "recipes/x.ini:3: bad file 'only-one' (expected 'DEST SRC')" },
	{ HEAD "file = a /etc/hostname\nfile = a /etc/hostname\n",
	  "recipes/x.ini:4: duplicate file destination 'a'" },
	{ HEAD "window = 5\nwindow = 6\n",
	  "recipes/x.ini:4: duplicate key 'window' (first set on line 3)" },
	{ HEAD "[variant a]\nargs = -x\nargs = -y\n",
	  "recipes/x.ini:5: duplicate key 'args' (first set on line 4)" },
	{ HEAD "[variant a]\n\n[variant a]\n",
	  "recipes/x.ini:5: duplicate variant 'a' (first on line 3)" },
	{ "[recipe]\nname = x\n", "recipes/x.ini: missing 'command' in [recipe]" },
	{ "", "recipes/x.ini: missing 'command' in [recipe]" },
	{ HEAD "frames = fraps\n", "recipes/x.ini:3: unknown frame source 'fraps' "
	  "(expected 'hook', 'vulkan', 'mangohud' or 'gallium-hud')" },
	{ HEAD "frames = MangoHud\n", "recipes/x.ini:3: unknown frame source 'MangoHud' "
	  "(expected 'hook', 'vulkan', 'mangohud' or 'gallium-hud')" },
	{ "command = true\n",
	  "recipes/x.ini:1: key 'command' outside any section (expected [recipe] first)" },
	{ HEAD "[variant a]\nwindow = 5\n",
	  "recipes/x.ini:4: key 'window' belongs in [recipe], not in a [variant]" },
	{ HEAD "[variant a]\nwindw = 5\n", "recipes/x.ini:4: unknown key 'windw'" },
	{ HEAD "[variant a]\nenv = XDG_DATA_HOME=share\n",
	  "recipes/x.ini:4: XDG_DATA_HOME must be an absolute path, not 'share' (the XDG base "
	  "directory spec; the Vulkan loader would take it relative to the game's working "
	  "directory)" },
	{ HEAD "this is not a pair\n", "recipes/x.ini:3: expected 'key = value' or '[section]'" },
	{ HEAD "= 5\n", "recipes/x.ini:3: missing key name before '='" },
	{ "[recipe\ncommand = true\n", "recipes/x.ini:1: missing ']' in section header" },
	{ "[recipe] junk\ncommand = true\n", "recipes/x.ini:1: unexpected text after section header" },
	{ HEAD "[recipe]\n", "recipes/x.ini:3: duplicate section '[recipe]' (first on line 1)" },
	{ HEAD "[variant]\n", "recipes/x.ini:3: missing variant name in '[variant]'" },
	{ HEAD "[variant a/b]\n",
	  "recipes/x.ini:3: bad variant name 'a/b' (letters, digits, '.', '_' and '-' only)" },
	{ HEAD "[variants a]\n", "recipes/x.ini:3: unknown section 'variants a'" },
	{ HEAD "screen = 1280x720\n",
	  "recipes/x.ini:3: bad screen '1280x720' (expected WIDTHxHEIGHTxDEPTH like 1280x720x24, "
	  "depth 8, 15, 16, 24 or 30)" },
	{ HEAD "screen = 0x720x24\n",
	  "recipes/x.ini:3: bad screen '0x720x24' (expected WIDTHxHEIGHTxDEPTH like 1280x720x24, "
	  "depth 8, 15, 16, 24 or 30)" },
	{ HEAD "screen = 1280x720x23\n",
	  "recipes/x.ini:3: bad screen '1280x720x23' (expected WIDTHxHEIGHTxDEPTH like 1280x720x24, "
	  "depth 8, 15, 16, 24 or 30)" },
	{ HEAD "relaunch = maybe\n",
	  "recipes/x.ini:3: bad boolean 'maybe' for 'relaunch' (expected yes or no)" },
	{ HEAD "default_variant = fast\n[variant slow]\n",
	  "recipes/x.ini:3: default_variant 'fast' is not a [variant] of this recipe" },
	{ "[recipe]\ncommand = game 'oops\n",
	  "recipes/x.ini:2: cannot split 'command': unclosed single quote" },
	{ "[recipe]\ncommand = '' x\n", "recipes/x.ini:2: 'command' starts with an empty word" },
	{ "[recipe]\ncommand = ; only a comment\n", "recipes/x.ini:2: empty value for 'command'" },
	{ HEAD "prepare = \"oops\n", "recipes/x.ini:3: cannot split 'prepare': unclosed double quote" },
	{ HEAD "packages = Foo_Bar\n", "recipes/x.ini:3: bad package name 'Foo_Bar'" },
	{ HEAD "packages = foo foo\n", "recipes/x.ini:3: duplicate package 'foo'" },
	{ HEAD "name = my game\n",
	  "recipes/x.ini:3: bad recipe name 'my game' (letters, digits, '.', '_' and '-' only)" },
	{ HEAD "workdir = ../x\n", "recipes/x.ini:3: workdir '../x' must not contain '..'" },
	{ HEAD "window =\n", "recipes/x.ini:3: empty value for 'window'" },
	{ HEAD "window = 5 ; five seconds\nwindow = 6\n",
	  "recipes/x.ini:4: duplicate key 'window' (first set on line 3)" },
	/* the first error wins, whoever finds it */
	{ HEAD "windw = 1\nwarmup = x\n", "recipes/x.ini:3: unknown key 'windw'" },
	{ HEAD "oops\nwindw = 1\n", "recipes/x.ini:3: expected 'key = value' or '[section]'" },
	{ "[nope]\n[recipe]\n", "recipes/x.ini:1: unknown section 'nope'" },
};

/* The frame sources a recipe may name, and their names back. */
START_TEST(test_frame_sources)
{
	static const struct {
		const char *value;
		enum frame_source f;
	} ok[] = { { "hook", FRAMES_HOOK }, { "mangohud", FRAMES_MANGOHUD },
		   { "gallium-hud", FRAMES_GALLIUM_HUD }, { "vulkan", FRAMES_VULKAN } };

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct strbuf err = STRBUF_INIT;
		struct recipe r;
		char *text = xasprintf(HEAD "frames = %s\n", ok[i].value);

		recipe_init(&r);
		ck_assert_msg(recipe_parse_string(text, "recipes/x.ini", &r, &err) == 0, "%s", err.buf);
		ck_assert_int_eq(r.frames, ok[i].f);
		ck_assert_str_eq(frame_source_name(r.frames), ok[i].value);
		recipe_release(&r);
		strbuf_release(&err);
		free(text);
	}
}
END_TEST

START_TEST(test_error_messages)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(bad[_i].text, "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, bad[_i].message);
	/* nothing of the bad recipe is left behind */
	ck_assert_ptr_null(r.path);
	ck_assert_ptr_null(r.name);
	ck_assert_int_eq(r.command.n, 0);
	ck_assert_int_eq(r.n_variants, 0);
	ck_assert_ptr_null(r.variants);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_bad_regex)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	regex_t re;
	char why[256], *want;
	int e = regcomp(&re, "(unclosed", REG_EXTENDED | REG_NOSUB);

	ck_assert_int_ne(e, 0);
	regerror(e, &re, why, sizeof(why));
	want = xasprintf("recipes/x.ini:4: bad regex '(unclosed' for 'end_line': %s", why);
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD "end = line\nend_line = (unclosed\n",
					     "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, want);
	recipe_release(&r);
	free(want);
	want = xasprintf("recipes/x.ini:3: bad regex '(unclosed' for 'start_line': %s", why);
	recipe_init(&r);
	strbuf_reset(&err);
	ck_assert_int_eq(recipe_parse_string(HEAD "start_line = (unclosed\n", "recipes/x.ini", &r, &err),
			 -EINVAL);
	ck_assert_str_eq(err.buf, want);
	recipe_release(&r);
	strbuf_release(&err);
	free(want);
}
END_TEST

START_TEST(test_file_sources)
{
	char *dir = test_tmpdir();
	char *path = xasprintf("%s/game.ini", dir);
	char *text, *want;
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	text = xasprintf(HEAD "file = a.cfg missing.cfg\n");
	want = xasprintf("%s:3: cannot use file source '%s/missing.cfg': No such file or directory",
			 path, dir);
	ck_assert_int_eq(recipe_parse_string(text, path, &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, want);
	free(text);
	free(want);

	want = xasprintf("%s/sub", dir);
	ck_assert_int_eq(mkdir_p(want, 0755), 0);
	free(want);
	text = xasprintf(HEAD "[variant v]\nfile = a.cfg %s/sub\n", dir);
	want = xasprintf("%s:4: file source '%s/sub' is not a regular file", path, dir);
	ck_assert_int_eq(recipe_parse_string(text, path, &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, want);
	free(text);
	free(want);

	ck_assert_int_eq(r.command.n, 0);
	recipe_release(&r);
	strbuf_release(&err);
	free(path);
	remove_tree(dir);
	free(dir);
}
END_TEST

/* What inih does on its own must not leak through: comments, CRLF, a BOM,
 * indented lines (inih would take them as continuation lines), ':' as the
 * separator, and lines longer than inih's 200-byte buffer. */
START_TEST(test_syntax)
{
	struct strbuf err = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	struct recipe r;
	char *variant_name;

	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(
		"\xef\xbb\xbf[recipe]\r\n"
		"  command = game --x\r\n"
		"  window = 5 ; inline comment\r\n"
		"\t; indented comment\r\n"
		"   # and another\r\n"
		"warmup: 1\r\n"
		"  [ variant   fast ]   ; comment\r\n"
		"    args = -fast\r\n"
		"    description = quick\r\n",
		"recipes/x.ini", &r, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(r.command.n, 2);
	ck_assert_double_eq(r.window_s, 5);
	ck_assert_double_eq(r.warmup_s, 1);
	ck_assert_int_eq(r.n_variants, 1);
	ck_assert_str_eq(r.variants[0].name, "fast");
	ck_assert_str_eq(r.variants[0].description, "quick");
	ck_assert_int_eq(r.variants[0].set.args.n, 1);
	recipe_release(&r);

	/* a 1000-character command line, its comment cut as on short lines */
	strbuf_addstr(&text, "[recipe]\ncommand = game");
	for (int i = 0; i < 99; i++)
		strbuf_addf(&text, " --opt%03d", i);
	strbuf_addstr(&text, "   ; a comment\nwindow = 7\n");
	/* a variant name longer than inih's 50-character section buffer */
	variant_name = xasprintf("%0100d", 7);
	strbuf_addf(&text, "[variant %s]\nargs = -v\n", variant_name);
	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(text.buf, "recipes/x.ini", &r, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(r.command.n, 100);
	ck_assert_str_eq(r.command.v[99], "--opt098");
	ck_assert_double_eq(r.window_s, 7);
	ck_assert_ptr_nonnull(recipe_find_variant(&r, variant_name));
	recipe_release(&r);

	/* a long line's errors still name the line */
	strbuf_reset(&text);
	strbuf_addstr(&text, "[recipe]\ncommand = true\nenv = A=");
	for (int i = 0; i < 300; i++)
		strbuf_addch(&text, 'x');
	strbuf_addstr(&text, "\nenv = A=1\n");
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(text.buf, "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "recipes/x.ini:4: duplicate env 'A'");
	strbuf_reset(&text);
	strbuf_addstr(&text, "[recipe]\ncommand = true\n");
	for (int i = 0; i < 300; i++)
		strbuf_addch(&text, 'x');
	ck_assert_int_eq(recipe_parse_string(text.buf, "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "recipes/x.ini:3: expected 'key = value' or '[section]'");
	recipe_release(&r);

	/* a file name that cannot be a recipe name needs 'name' */
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD, "recipes/my game.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "recipes/my game.ini: recipe name 'my game' (from the file name) "
			 "is not made of letters, digits, '.', '_' and '-': set 'name'");
	ck_assert_int_eq(recipe_parse_string(HEAD "name = my-game\n", "recipes/my game.ini", &r, &err), 0);
	ck_assert_str_eq(r.name, "my-game");
	recipe_release(&r);

	free(variant_name);
	strbuf_release(&text);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_untouched_on_error)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD "window = 9\n", "a.ini", &r, &err), 0);
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = other\nwindow = -1\n", "b.ini",
					     &r, &err), -EINVAL);
	ck_assert_str_eq(r.path, "a.ini");
	ck_assert_str_eq(r.command.v[0], "true");
	ck_assert_double_eq(r.window_s, 9);
	/* and a second load replaces the first */
	ck_assert_int_eq(recipe_parse_string("[recipe]\ncommand = other\n", "b.ini", &r, &err), 0);
	ck_assert_str_eq(r.path, "b.ini");
	ck_assert_str_eq(r.command.v[0], "other");
	ck_assert_double_eq(r.window_s, 60);
	recipe_release(&r);
	ck_assert_int_eq(recipe_parse_string("[recipe]\nwindw = 1\n", "c.ini", &r, NULL), -EINVAL);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_resolve)
{
	char *dir = test_tmpdir();
	char *d1 = xasprintf("%s/one", dir), *d2 = xasprintf("%s/two", dir);
	char *game = write_str(dir, "two/game.ini", HEAD);
	char *both1 = write_str(dir, "one/both.ini", HEAD);
	char *both2 = write_str(dir, "two/both.ini", HEAD);
	const char *dirs[] = { d1, "", d2, NULL };
	char *s;

	s = xasprintf("%s/one/adir.ini", dir);
	ck_assert_int_eq(mkdir_p(s, 0755), 0);
	free(s);
	s = recipe_resolve("game", dirs);
	ck_assert_str_eq(s, game);
	free(s);
	s = recipe_resolve("both", dirs);
	ck_assert_str_eq(s, both1);
	free(s);
	ck_assert_ptr_null(recipe_resolve("missing", dirs));
	ck_assert_ptr_null(recipe_resolve("adir", dirs)); /* a directory is no recipe */
	ck_assert_ptr_null(recipe_resolve("a b", dirs));
	ck_assert_ptr_null(recipe_resolve("", dirs));
	ck_assert_ptr_null(recipe_resolve("game", NULL));
	/* paths are taken as they are */
	s = recipe_resolve(game, dirs);
	ck_assert_str_eq(s, game);
	free(s);
	s = recipe_resolve("nowhere.ini", dirs);
	ck_assert_str_eq(s, "nowhere.ini");
	free(s);
	s = recipe_resolve("../x", NULL);
	ck_assert_str_eq(s, "../x");
	free(s);

	remove_tree(dir);
	free(game);
	free(both1);
	free(both2);
	free(d1);
	free(d2);
	free(dir);
}
END_TEST

START_TEST(test_load_from_disk)
{
	char *dir = test_tmpdir();
	char *cfg = write_str(dir, "files/game.cfg", "x 1\n");
	char *good = write_str(dir, "good.ini",
			       "[recipe]\ncommand = game\nfile = .game/game.cfg files/game.cfg\n");
	char *bad = write_str(dir, "bad.ini", "# comment\n[recipe]\ncommand = game\nwindw = 60\n");
	static const char nul[] = "[recipe]\ncommand = game\0\nwindow = 5\n";
	char *nulpath = write_text(dir, "nul.ini", nul, sizeof(nul) - 1);
	char *missing = xasprintf("%s/none.ini", dir);
	char *want;
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_msg(recipe_load(good, &r, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(r.path, good);
	ck_assert_str_eq(r.dir, dir);
	ck_assert_str_eq(r.name, "good");
	ck_assert_str_eq(r.set.files[0].src, cfg);

	want = xasprintf("%s:4: unknown key 'windw'", bad);
	ck_assert_int_eq(recipe_load(bad, &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, want);
	free(want);

	want = xasprintf("%s:2: NUL byte in a recipe", nulpath);
	ck_assert_int_eq(recipe_load(nulpath, &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, want);
	free(want);

	want = xasprintf("cannot read '%s': No such file or directory", missing);
	ck_assert_int_eq(recipe_load(missing, &r, &err), -ENOENT);
	ck_assert_str_eq(err.buf, want);
	free(want);

	ck_assert_str_eq(r.path, good); /* still the good one */
	recipe_release(&r);
	strbuf_release(&err);
	remove_tree(dir);
	free(cfg);
	free(good);
	free(bad);
	free(nulpath);
	free(missing);
	free(dir);
}
END_TEST

/* The recipe the project ships for `make demo`: a checkout without it is
 * broken, not a machine the test cannot run on. */
START_TEST(test_shipped_dsda_doom)
{
	const char *path = srcdir_path("recipes/dsda-doom.ini");
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	ck_assert_msg(access(path, R_OK) == 0, "%s: %s", path, strerror(errno));
	recipe_init(&r);
	ck_assert_msg(recipe_load(path, &r, &err) == 0, "%s", err.buf);
	ck_assert_str_eq(r.name, "dsda-doom");
	ck_assert_int_gt(r.command.n, 0);
	ck_assert(!strcmp(r.default_variant, "base") ||
		  recipe_find_variant(&r, r.default_variant));
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(recipe_suite)
{
	Suite *s = suite_create("recipe");
	TCase *tc = tcase_create("recipe");

	tcase_add_test(tc, test_full_recipe);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_frame_sources);
	tcase_add_loop_test(tc, test_error_messages, 0, (int)ARRAY_SIZE(bad));
	tcase_add_test(tc, test_bad_regex);
	tcase_add_test(tc, test_file_sources);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_untouched_on_error);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_load_from_disk);
	tcase_add_test(tc, test_shipped_dsda_doom);
	suite_add_tcase(s, tc);
	return s;
}
