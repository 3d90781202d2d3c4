/*
 * Tests of a recipe's [input] steps (common/input/inputsteps.c) and of the
 * [input] section of a recipe (bench/recipe/recipe-sections.c): each kind of step parses
 * to its fields, key names resolve as each driver resolves them (the
 * codes are those of X11/keysymdef.h and linux/input-event-codes.h), and
 * every mistake gives its exact "file:line: what is wrong".
 */
#include "test.h"
#include "input/inputsteps.h"
#include "recipe/recipe.h"
#include "base/util.h"

#include <errno.h>
#include <linux/input-event-codes.h>
#include <string.h>

#define HEAD "[recipe]\ncommand = true\n"

static void parse_ok(const char *text, struct input_step *s)
{
	struct strbuf why = STRBUF_INIT;

	ck_assert_msg(input_step_parse(text, s, &why) == 0, "%s: %s", text, why.buf);
	strbuf_release(&why);
}

START_TEST(test_parse_steps)
{
	struct input_step s;

	parse_ok("wait_line ^Timed [0-9]+ gametics", &s);
	ck_assert_int_eq(s.kind, STEP_WAIT_LINE);
	ck_assert_str_eq(s.arg, "^Timed [0-9]+ gametics");
	ck_assert_str_eq(s.text, "wait_line ^Timed [0-9]+ gametics");
	input_step_release(&s);

	parse_ok("  wait   2.5 ", &s);
	ck_assert_int_eq(s.kind, STEP_WAIT);
	ck_assert(s.seconds == 2.5);
	ck_assert_str_eq(s.text, "wait 2.5");
	input_step_release(&s);

	parse_ok("key Return", &s);
	ck_assert_int_eq(s.kind, STEP_KEY);
	ck_assert_int_eq(s.n_keys, 1);
	ck_assert_str_eq(s.keys[0], "Return");
	input_step_release(&s);

	parse_ok("keys ctrl+shift+q", &s);
	ck_assert_int_eq(s.kind, STEP_KEYS);
	ck_assert_int_eq(s.n_keys, 3);
	ck_assert_str_eq(s.keys[0], "ctrl");
	ck_assert_str_eq(s.keys[1], "shift");
	ck_assert_str_eq(s.keys[2], "q");
	input_step_release(&s);

	parse_ok("type hello world", &s);
	ck_assert_int_eq(s.kind, STEP_TYPE);
	ck_assert_str_eq(s.arg, "hello world");
	input_step_release(&s);

	parse_ok("move 100 -200", &s);
	ck_assert_int_eq(s.kind, STEP_MOVE);
	ck_assert_int_eq(s.x, 100);
	ck_assert_int_eq(s.y, -200);
	input_step_release(&s);

	parse_ok("click 3", &s);
	ck_assert_int_eq(s.kind, STEP_CLICK);
	ck_assert_int_eq(s.button, 3);
	input_step_release(&s);
	input_step_release(&s); /* twice is safe */
}
END_TEST

static const struct {
	const char *text, *why;
} bad_steps[] = {
	{ "press Return", "unknown step 'press' (expected wait_line, wait, key, keys, type, move, click or play)" },
	{ "key", "step 'key' needs an argument" },
	{ "wait", "step 'wait' needs an argument" },
	{ "wait -1", "bad number '-1' for 'wait' (seconds, 0 to 604800, like 2.5)" },
	{ "wait 1e3", "bad number '1e3' for 'wait' (seconds, 0 to 604800, like 2.5)" },
	{ "wait 2.", "bad number '2.' for 'wait' (seconds, 0 to 604800, like 2.5)" },
	{ "wait 604801", "bad number '604801' for 'wait' (seconds, 0 to 604800, like 2.5)" },
	{ "wait_line (unclosed", NULL }, /* regerror's words are the C library's */
	{ "key Return Escape", "'key' takes one key name, not 'Return Escape'" },
	{ "keys ctrl+", "empty key name in chord 'ctrl+'" },
	{ "keys +q", "empty key name in chord '+q'" },
	{ "keys a+b+c+d+e+f+g+h+i", "chord 'a+b+c+d+e+f+g+h+i' has more than 8 keys" },
	{ "type caf\xc3\xa9", "'type' takes printable ASCII only (byte 0xc3 in 'caf\xc3\xa9')" },
	{ "move 10", "bad 'move 10' (expected two whole numbers: move X Y)" },
	{ "move 10 20 30", "bad 'move 10 20 30' (expected two whole numbers: move X Y)" },
	{ "move 1.5 2", "bad 'move 1.5 2' (expected two whole numbers: move X Y)" },
	{ "move 70000 2", "bad 'move 70000 2' (expected two whole numbers: move X Y)" },
	{ "click 4", "bad button '4' for 'click' (1 left, 2 middle, 3 right)" },
	{ "click 0", "bad button '0' for 'click' (1 left, 2 middle, 3 right)" },
	{ "click left", "bad button 'left' for 'click' (1 left, 2 middle, 3 right)" },
};

START_TEST(test_bad_steps)
{
	struct strbuf why = STRBUF_INIT;
	struct input_step s;

	ck_assert_int_eq(input_step_parse(bad_steps[_i].text, &s, &why), -EINVAL);
	if (bad_steps[_i].why)
		ck_assert_str_eq(why.buf, bad_steps[_i].why);
	else
		ck_assert_msg(str_startswith(why.buf, "bad regex '(unclosed' for 'wait_line': "), "%s", why.buf);
	/* nothing is left to free */
	ck_assert_ptr_null(s.text);
	ck_assert_ptr_null(s.arg);
	ck_assert_int_eq(s.n_keys, 0);
	strbuf_release(&why);
}
END_TEST

START_TEST(test_key_codes)
{
	unsigned code;
	bool shift;

	/* xtest: keysyms (X11/keysymdef.h: XK_Return 0xff0d, XK_F12 0xffc9,
	 * XK_q 0x71, XK_Control_L 0xffe3) */
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "Return", &code), 0);
	ck_assert_uint_eq(code, 0xff0d);
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "F12", &code), 0);
	ck_assert_uint_eq(code, 0xffc9);
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "q", &code), 0);
	ck_assert_uint_eq(code, 0x71);
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "ctrl", &code), 0);
	ck_assert_uint_eq(code, 0xffe3);
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "KEY_ENTER", &code), -ENOENT);
	ck_assert_int_eq(input_key_code(INPUT_XTEST, "NoSuchKeysym", &code), -ENOENT);
	/* uinput: Linux key codes (linux/input-event-codes.h) */
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "KEY_ENTER", &code), 0);
	ck_assert_uint_eq(code, KEY_ENTER);
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "ctrl", &code), 0);
	ck_assert_uint_eq(code, KEY_LEFTCTRL);
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "alt", &code), 0);
	ck_assert_uint_eq(code, KEY_LEFTALT);
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "Return", &code), -ENOENT);
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "BTN_LEFT", &code), -ENOENT);
	ck_assert_int_eq(input_key_code(INPUT_UINPUT, "KEY_NOPE", &code), -ENOENT);

	/* characters: a US keyboard for uinput, keysyms for xtest */
	ck_assert_int_eq(input_char_code(INPUT_UINPUT, 'a', &code, &shift), 0);
	ck_assert_uint_eq(code, KEY_A);
	ck_assert(!shift);
	ck_assert_int_eq(input_char_code(INPUT_UINPUT, 'A', &code, &shift), 0);
	ck_assert_uint_eq(code, KEY_A);
	ck_assert(shift);
	ck_assert_int_eq(input_char_code(INPUT_UINPUT, '!', &code, &shift), 0);
	ck_assert_uint_eq(code, KEY_1);
	ck_assert(shift);
	ck_assert_int_eq(input_char_code(INPUT_UINPUT, ' ', &code, &shift), 0);
	ck_assert_uint_eq(code, KEY_SPACE);
	ck_assert_int_eq(input_char_code(INPUT_UINPUT, '"', &code, &shift), 0);
	ck_assert_uint_eq(code, KEY_APOSTROPHE);
	ck_assert(shift);
	ck_assert_int_eq(input_char_code(INPUT_XTEST, '!', &code, &shift), 0);
	ck_assert_uint_eq(code, 0x21);
	ck_assert_int_eq(input_char_code(INPUT_XTEST, '\n', &code, &shift), -ENOENT);
}
END_TEST

START_TEST(test_check_by_driver)
{
	struct strbuf why = STRBUF_INIT;
	struct input_step s;

	parse_ok("move -5 10", &s);
	ck_assert_int_eq(input_step_check(&s, INPUT_UINPUT, &why), 0);
	ck_assert_int_eq(input_step_check(&s, INPUT_XTEST, &why), -EINVAL);
	ck_assert_str_eq(why.buf, "'move -5 10': xtest moves to a point on the screen, not below 0");
	input_step_release(&s);

	strbuf_reset(&why);
	parse_ok("keys ctrl+KEY_Q", &s);
	ck_assert_int_eq(input_step_check(&s, INPUT_UINPUT, &why), 0);
	ck_assert_int_eq(input_step_check(&s, INPUT_XTEST, &why), -EINVAL);
	ck_assert(str_startswith(why.buf, "unknown key 'KEY_Q' (an X keysym name"));
	input_step_release(&s);
	strbuf_release(&why);
}
END_TEST

START_TEST(test_recipe_input)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(HEAD "[input]\n"
					  "step = wait_line ^ready ; a comment\n"
					  "step = key Escape\n"
					  "step = wait 1\n",
					  "recipes/x.ini", &r, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(r.input.driver, INPUT_XTEST);
	ck_assert_int_eq(r.input.n_steps, 3);
	ck_assert_str_eq(r.input.steps[0].text, "wait_line ^ready");
	ck_assert_str_eq(r.input.steps[1].text, "key Escape");
	ck_assert_int_eq(r.input.steps[2].kind, STEP_WAIT);
	recipe_release(&r);

	/* the driver may come after the steps: keys are checked against it */
	recipe_init(&r);
	ck_assert_msg(recipe_parse_string(HEAD "[input]\nstep = key KEY_ENTER\ndriver = uinput\n",
					  "recipes/x.ini", &r, &err) == 0, "%s", err.buf);
	ck_assert_int_eq(r.input.driver, INPUT_UINPUT);
	recipe_release(&r);

	/* none */
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(HEAD, "recipes/x.ini", &r, &err), 0);
	ck_assert_int_eq(r.input.n_steps, 0);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

static const struct {
	const char *text, *message;
} bad_recipes[] = {
	{ HEAD "[input]\nstep = press x\n",
	  "recipes/x.ini:4: unknown step 'press' (expected wait_line, wait, key, keys, type, move, click or play)" },
	{ HEAD "[input]\nstep = wait 1\nstep = key NoSuchKeysym\n",
	  "recipes/x.ini:5: unknown key 'NoSuchKeysym' (an X keysym name like Return, Escape, F12, q; "
	  "or ctrl, shift, alt, super)" },
	{ HEAD "[input]\nstep = key Return\ndriver = uinput\n",
	  "recipes/x.ini:4: unknown key 'Return' (a Linux key name like KEY_ENTER, KEY_ESC, KEY_Q; "
	  "or ctrl, shift, alt, super)" },
	{ HEAD "[input]\nstep = type tab\there\n",
	  "recipes/x.ini:4: 'type' takes printable ASCII only (byte 0x09 in 'tab\there')" },
	{ HEAD "[input]\ndriver = evdev\nstep = wait 1\n",
	  "recipes/x.ini:4: unknown input driver 'evdev' (expected xtest or uinput)" },
	{ HEAD "[input]\ndriver = xtest\ndriver = xtest\nstep = wait 1\n",
	  "recipes/x.ini:5: duplicate key 'driver' in [input] (first set on line 4)" },
	{ HEAD "[input]\nsteps = wait 1\n",
	  "recipes/x.ini:4: unknown key 'steps' in [input] (expected step, play or driver)" },
	{ HEAD "[input]\nstep =\n", "recipes/x.ini:4: empty value for 'step'" },
	{ HEAD "[input]\ndriver = uinput\n", "recipes/x.ini:3: [input] has no 'step' or 'play'" },
	{ HEAD "[input]\nstep = wait 1\n[input]\nstep = wait 2\n",
	  "recipes/x.ini:5: duplicate section '[input]' (first on line 3)" },
	{ HEAD "[input]\nstep = click 1\n[variant a]\n[input]\n",
	  "recipes/x.ini:6: duplicate section '[input]' (first on line 3)" },
};

START_TEST(test_recipe_errors)
{
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(bad_recipes[_i].text, "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, bad_recipes[_i].message);
	ck_assert_int_eq(r.input.n_steps, 0);
	recipe_release(&r);
	strbuf_release(&err);
}
END_TEST

START_TEST(test_too_many_steps)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct recipe r;

	strbuf_addstr(&text, HEAD "[input]\n");
	for (int i = 0; i <= INPUT_MAX_STEPS; i++)
		strbuf_addstr(&text, "step = wait 0\n");
	recipe_init(&r);
	ck_assert_int_eq(recipe_parse_string(text.buf, "recipes/x.ini", &r, &err), -EINVAL);
	ck_assert_str_eq(err.buf, "recipes/x.ini:260: more than 256 steps in [input]");
	recipe_release(&r);
	strbuf_release(&text);
	strbuf_release(&err);
}
END_TEST

TEST_SUITE(inputsteps_suite)
{
	Suite *s = suite_create("inputsteps");
	TCase *tc = tcase_create("inputsteps");

	tcase_add_test(tc, test_parse_steps);
	tcase_add_loop_test(tc, test_bad_steps, 0, (int)ARRAY_SIZE(bad_steps));
	tcase_add_test(tc, test_key_codes);
	tcase_add_test(tc, test_check_by_driver);
	tcase_add_test(tc, test_recipe_input);
	tcase_add_loop_test(tc, test_recipe_errors, 0, (int)ARRAY_SIZE(bad_recipes));
	tcase_add_test(tc, test_too_many_steps);
	suite_add_tcase(s, tc);
	return s;
}
