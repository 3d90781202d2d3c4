/*
 * Tests of a recipe's [input] play: the recordings a replay may be given
 * (common/input/evemurec.c, evemu_check_play: every real recording of the repo
 * with events passes, alone or as description and events, and each layout
 * libevemu's reader would misread is refused with its line), the play step
 * (common/input/inputsteps.c) and the play key of a recipe (bench/recipe/recipe-sections.c:
 * paths from the recipe's directory, errors as "file:line: what").
 */
#include "test.h"
#include "input/evemurec.h"
#include "input/inputsteps.h"
#include "recipe/recipe.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "[recipe]\ncommand = true\n"
#define ID "N: pad\nI: 0003 045e 028e 0110\n"
#define EV "E: 0.000001 0001 0130 1\nE: 0.000001 0000 0000 0\n"

/* Each real recording with events, as a replay is given it: the file
 * alone, or its description and then its events; the events counted by
 * grep -c '^E:' on the events' file. */
static const struct {
	const char *desc, *events;
	size_t n;
} playable[] = {
	{ NULL, "evemu/evemu-devices_madcatz_xbox360_gamepad.events", 500 },
	{ NULL, "evemu/evemu-devices_lenovo_compact_keyboard.events", 9 },
	{ NULL, "evemu/evemu-devices_logitech_k400plus_keyboard.events", 15 },
	{ NULL, "evemu/evemu-devices_logitech_ultrathin_touch_mouse.events", 1109 },
	{ NULL, "evemu/evemu-repo_wetab_touchscreen_evemu1.1.event", 170 },
	{ "evemu/evemu-devices_nintendo_wiimote.desc", "evemu/evemu-devices_nintendo_wiimote.events", 4 },
	{ "evemu/evemu-devices_ps2_generic_mouse.desc", "evemu/evemu-devices_ps2_generic_mouse.events", 7147 },
	{ "evemu/evemu-devices_saitek_rat5_mouse.desc", "evemu/evemu-devices_saitek_rat5_mouse.events", 1838 },
	{ "evemu/evemu-devices_ibm_scrollpoint_mouse.desc",
	  "evemu/evemu-devices_ibm_scrollpoint_mouse.scroll.events", 144 },
	{ "evemu/chromiumos-autotest_keyboard.prop", "evemu/chromiumos-autotest_keyboard_b+a+d+enter", 24 },
	{ "evemu/chromiumos-autotest_keyboard.prop", "evemu/chromiumos-autotest_keyboard_ctrl+shift+c", 93 },
	{ "evemu/chromiumos-autotest_mouse.prop", "evemu/chromiumos-autotest_mouse_center_cursor_gesture", 1263 },
	{ "evemu/chromiumos-autotest_platform_MouseScrollTest_mouse.prop",
	  "evemu/chromiumos-autotest_platform_MouseScrollTest_mouse_event", 1008 },
};

START_TEST(test_real_recordings_play)
{
	struct strbuf err = STRBUF_INIT;
	struct evemu_recording r;
	char desc[PATH_MAX];

	evemu_init(&r);
	if (playable[_i].desc) {
		snprintf(desc, sizeof(desc), "%s", testdata_path(playable[_i].desc));
		ck_assert_msg(evemu_load_play(&r, desc, EVEMU_DESC, &err) == 0, "%s", err.buf);
		ck_assert_uint_eq(r.n, 0);
		ck_assert_msg(evemu_load_play(&r, testdata_path(playable[_i].events), EVEMU_EVENTS, &err) == 0,
			      "%s", err.buf);
	} else {
		ck_assert_msg(evemu_load_play(&r, testdata_path(playable[_i].events), EVEMU_WHOLE, &err) == 0,
			      "%s", err.buf);
	}
	ck_assert(r.has_desc);
	ck_assert_uint_eq(r.n, playable[_i].n);
	evemu_release(&r);
	strbuf_release(&err);
}
END_TEST

/* What libevemu's reader would misread or refuse, by line. */
static const struct {
	enum evemu_part part;
	const char *text, *message;
} bad_layouts[] = {
	{ EVEMU_WHOLE, "# EVEMU 1.3\n" EV, "x:2: events without a description: give the description's "
	  "file first (play = DESC EVENTS)" },
	{ EVEMU_WHOLE, "I: 0003 045e 028e 0110\nN: pad\n" EV,
	  "x:1: a recording starts with its N: line (libevemu reads N:, then I:)" },
	{ EVEMU_WHOLE, "N: pad\nB: 00 0b 00 00 00 00 00 00 00\nI: 0003 045e 028e 0110\n",
	  "x:2: the N: line is followed by the I: line (libevemu reads N:, then I:)" },
	{ EVEMU_WHOLE, ID "N: pad2\n", "x:3: a second N: line" },
	{ EVEMU_WHOLE, ID "B: 00 0b 00 00 00 00 00 00 00\nP: 00 00 00 00 00 00 00 00\n" EV,
	  "x:4: a 'P:' line after the 'B:' lines: libevemu reads N:, I:, P:, B:, A:, L:, S:, then E:, "
	  "in that order, and leaves out what comes late" },
	{ EVEMU_WHOLE, ID EV "B: 00 0b 00 00 00 00 00 00 00\n",
	  "x:5: a 'B:' line after the 'E:' lines: libevemu reads N:, I:, P:, B:, A:, L:, S:, then E:, "
	  "in that order, and leaves out what comes late" },
	{ EVEMU_WHOLE, ID "P: 00 00\n" EV, "x:3: a P: line of 2 bytes: libevemu reads 8 a line" },
	{ EVEMU_WHOLE, ID "B: 01 00 00\n" EV, "x:3: a B: line of 2 bytes: libevemu reads 8 a line" },
	{ EVEMU_WHOLE, "# EVEMU 1.2\n" ID "A: 00 0 255 0 0\n" EV, "x:4: an A: line of 5 fields where this "
	  "file's version has 6 (the resolution from EVEMU 1.2 on, none before)" },
	{ EVEMU_WHOLE, ID "A: 00 0 255 0 0 0\n" EV, "x:3: an A: line of 6 fields where this file's "
	  "version has 5 (the resolution from EVEMU 1.2 on, none before)" },
	{ EVEMU_WHOLE, ID "L: 00 1 2\n" EV, "x:3: a L: line of 3 fields: libevemu reads code and state" },
	{ EVEMU_WHOLE, ID "E: 0.000001 0001 00130 1\n",
	  "x:3: an event's type or code of more than 4 hex digits" },
	{ EVEMU_WHOLE, ID "E: 0.000001 0001 0130 1\n \nE: 0.000002 0000 0000 0\n",
	  "x:4: a line of blanks: libevemu's reader ends the events there" },
	{ EVEMU_WHOLE, ID, "x: no events (E: lines): nothing to play" },
	{ EVEMU_DESC, ID EV, "x:3: an event in a description: its events go in a file of their own, "
	  "given second" },
	{ EVEMU_DESC, "# only a comment\n", "x: no device description (N: and I: lines): not an evemu "
	  "recording of a device" },
	{ EVEMU_EVENTS, ID EV, "x:1: a 'N:' line in an events file: its description goes in a file of "
	  "its own, given first" },
	{ EVEMU_EVENTS, "# nothing\n", "x: no events (E: lines): nothing to play" },
	/* what evemu_parse refuses comes first, as it is */
	{ EVEMU_WHOLE, ID "E: 0.000002 0001 0130 1\nE: 0.000001 0000 0000 0\n",
	  "x:4: E: time 0.000001 is earlier than the event before it (line 3)" },
};

START_TEST(test_bad_layouts)
{
	struct strbuf err = STRBUF_INIT;
	struct evemu_recording r;

	evemu_init(&r);
	ck_assert_int_eq(evemu_check_play(&r, "x", bad_layouts[_i].text, bad_layouts[_i].part, &err),
			 -EINVAL);
	ck_assert_str_eq(err.buf, bad_layouts[_i].message);
	evemu_release(&r);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_play_step)
{
	struct strbuf why = STRBUF_INIT;
	struct input_step s, back;

	ck_assert_int_eq(input_step_parse("play /r/pad.evemu", &s, &why), 0);
	ck_assert_int_eq(s.kind, STEP_PLAY);
	ck_assert_uint_eq(s.n_paths, 1);
	ck_assert_str_eq(s.paths[0], "/r/pad.evemu");
	ck_assert_str_eq(s.text, "play /r/pad.evemu");
	input_step_release(&s);

	/* a path with a blank is quoted in the text, which parses back the same */
	ck_assert_int_eq(input_step_parse("play '/my games/pad.desc' \"/my games/pad.events\"", &s, &why), 0);
	ck_assert_uint_eq(s.n_paths, 2);
	ck_assert_str_eq(s.paths[1], "/my games/pad.events");
	ck_assert_str_eq(s.text, "play '/my games/pad.desc' '/my games/pad.events'");
	ck_assert_int_eq(input_step_parse(s.text, &back, &why), 0);
	ck_assert_str_eq(back.paths[0], "/my games/pad.desc");
	ck_assert_str_eq(back.paths[1], "/my games/pad.events");
	input_step_release(&back);
	input_step_release(&s);

	ck_assert_int_eq(input_step_parse("play a b c", &s, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "'play' takes a recording, or a description and its events, not 3 words: "
			 "'a b c'");
	strbuf_reset(&why);
	ck_assert_int_eq(input_step_parse("play 'a", &s, &why), -EINVAL);
	ck_assert(str_startswith(why.buf, "bad 'play 'a': "));
	/* a play's files are read by the check, whatever the driver */
	strbuf_reset(&why);
	ck_assert_int_eq(input_step_parse("play /nonexistent/pad.evemu", &s, &why), 0);
	ck_assert_int_eq(input_step_check(&s, INPUT_UINPUT, &why), -ENOENT);
	ck_assert_str_eq(why.buf, "cannot read '/nonexistent/pad.evemu': No such file or directory");
	input_step_release(&s);
	strbuf_release(&why);
}
END_TEST

/* A recipe in the testdata directory: its play paths start there. */
static int parse_in_testdata(const char *text, struct recipe *r, struct strbuf *err, char *path,
			     size_t size)
{
	snprintf(path, size, "%s", testdata_path("x.ini"));
	return recipe_parse_string(text, path, r, err);
}

START_TEST(test_recipe_play)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	char path[PATH_MAX], *want;

	recipe_init(&r);
	ck_assert_msg(parse_in_testdata(HEAD "[input]\nstep = wait_line ^ready\n"
					"play = evemu/evemu-devices_madcatz_xbox360_gamepad.events\n"
					"step = key Escape\n"
					"play = evemu/evemu-devices_nintendo_wiimote.desc "
					"evemu/evemu-devices_nintendo_wiimote.events\n",
					&r, &err, path, sizeof(path)) == 0, "%s", err.buf);
	/* in the order written, steps and plays alike; paths absolute */
	ck_assert_uint_eq(r.input.n_steps, 4);
	ck_assert_int_eq(r.input.steps[0].kind, STEP_WAIT_LINE);
	ck_assert_int_eq(r.input.steps[1].kind, STEP_PLAY);
	ck_assert_int_eq(r.input.steps[2].kind, STEP_KEY);
	ck_assert_int_eq(r.input.steps[3].kind, STEP_PLAY);
	want = xasprintf("%s/evemu/evemu-devices_madcatz_xbox360_gamepad.events", r.dir);
	ck_assert_str_eq(r.input.steps[1].paths[0], want);
	ck_assert(r.input.steps[1].paths[0][0] == '/');
	free(want);
	ck_assert_uint_eq(r.input.steps[3].n_paths, 2);
	recipe_release(&r);

	/* a play alone is an [input] */
	recipe_init(&r);
	ck_assert_msg(parse_in_testdata(HEAD "[input]\nplay = evemu/evemu-devices_logitech_k400plus_keyboard.events\n",
					&r, &err, path, sizeof(path)) == 0, "%s", err.buf);
	ck_assert_uint_eq(r.input.n_steps, 1);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

/* The message after the recipe's "x.ini:LINE: ", the recipe's directory
 * written as DIR. */
static const struct {
	const char *text, *message;
} bad_plays[] = {
	{ HEAD "[input]\nplay = evemu/nope.evemu\n",
	  "x.ini:4: cannot read 'DIR/evemu/nope.evemu': No such file or directory" },
	{ HEAD "[input]\nplay = evemu/evemu-devices_sony_ps3_controller.desc\n",
	  "x.ini:4: DIR/evemu/evemu-devices_sony_ps3_controller.desc: no events (E: lines): nothing to play" },
	{ HEAD "[input]\nstep = wait 1\nplay = evemu/evemu-devices_ps2_generic_mouse.events\n",
	  "x.ini:5: DIR/evemu/evemu-devices_ps2_generic_mouse.events:1: events without a description: give "
	  "the description's file first (play = DESC EVENTS)" },
	{ HEAD "[input]\nplay = evemu/evemu-devices_ps2_generic_mouse.desc "
	  "evemu/evemu-devices_madcatz_xbox360_gamepad.events\n",
	  "x.ini:4: DIR/evemu/evemu-devices_madcatz_xbox360_gamepad.events:100: a 'N:' line in an events file: "
	  "its description goes in a file of its own, given first" },
	{ HEAD "[input]\nplay = a b c\n",
	  "x.ini:4: play takes a recording, or a description and its events (two files), not 3 words: 'a b c'" },
	{ HEAD "[input]\nstep = play pad.evemu\n",
	  "x.ini:4: a recording is played with 'play = FILE' (relative to the recipe), not 'step = play'" },
	{ HEAD "[input]\nplay =\n", "x.ini:4: empty value for 'play'" },
};

START_TEST(test_recipe_play_errors)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct recipe r;
	char path[PATH_MAX], *dir, *slash;

	recipe_init(&r);
	ck_assert_int_eq(parse_in_testdata(bad_plays[_i].text, &r, &err, path, sizeof(path)), -EINVAL);
	/* the recipe's directory as the reader makes it absolute */
	ck_assert_int_eq(recipe_parse_string(HEAD, path, &r, NULL), 0);
	dir = xstrdup(r.dir);
	slash = strrchr(path, '/');
	strbuf_addf(&want, "%.*s", slash ? (int)(slash + 1 - path) : 0, path);
	for (const char *m = bad_plays[_i].message; *m; m++) {
		if (!strncmp(m, "DIR", 3)) {
			strbuf_addstr(&want, dir);
			m += 2;
		} else {
			strbuf_addch(&want, *m);
		}
	}
	ck_assert_str_eq(err.buf, want.buf);
	free(dir);
	recipe_release(&r);
	strbuf_release(&want);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_too_many_plays)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct recipe r;
	char path[PATH_MAX];

	strbuf_addstr(&text, HEAD "[input]\n");
	for (int i = 0; i <= INPUT_MAX_PLAYS; i++)
		strbuf_addstr(&text, "play = evemu/evemu-devices_lenovo_compact_keyboard.events\n");
	recipe_init(&r);
	ck_assert_int_eq(parse_in_testdata(text.buf, &r, &err, path, sizeof(path)), -EINVAL);
	ck_assert_msg(strstr(err.buf, "x.ini:12: more than 8 play keys in [input] (a recorded device "
				   "each)"), "%s", err.buf);
	recipe_release(&r);
	strbuf_release(&text);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(inputplay_suite)
{
	Suite *s = suite_create("inputplay");
	TCase *tc = tcase_create("inputplay");

	tcase_add_loop_test(tc, test_real_recordings_play, 0, (int)ARRAY_SIZE(playable));
	tcase_add_loop_test(tc, test_bad_layouts, 0, (int)ARRAY_SIZE(bad_layouts));
	tcase_add_test(tc, test_play_step);
	tcase_add_test(tc, test_recipe_play);
	tcase_add_loop_test(tc, test_recipe_play_errors, 0, (int)ARRAY_SIZE(bad_plays));
	tcase_add_test(tc, test_too_many_plays);
	suite_add_tcase(s, tc);
	return s;
}
