/*
 * The interference watcher's input rules (common/input/inputrules.c) fed with
 * the real evemu recordings of tests/fixtures/testdata/evemu (MANIFEST.md
 * section 4) through the evemu reader (common/input/evemurec.c), the same handler
 * the live devices feed; then hand-made event sequences for the edges the
 * recordings lack, and broken recordings.
 *
 * How the expected counts of the recordings were established, without
 * this implementation: keys, buttons, touches and wheel steps by counting
 * E: lines (grep/awk per recording, the command next to each), and motion
 * bursts by tests/tools/evemu-counts.awk, a second, plain reading of the
 * rules (exact 10 s window over every event, where the C code keeps 50 ms
 * buckets), run as
 *     awk -f tests/tools/evemu-counts.awk $HB_TESTDATA/evemu/FILE
 * which prints every burst (start, length, counts, why) and the totals.
 */
#include "input/evemurec.h"
#include "input/inputrules.h"
#include "test.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tally {
	unsigned counted[INPUT_N_KINDS];   /* sum of n of the '!' verdicts per kind */
	unsigned passed[INPUT_N_KINDS];    /* sum of n of the '-' verdicts per kind */
	size_t verdicts;
};

static void take(struct tally *t, const struct input_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_lt(v[i].kind, INPUT_N_KINDS);
		/* '!' for everything but a bump */
		ck_assert_int_eq(v[i].counted, v[i].kind != INPUT_BUMP);
		ck_assert(v[i].detail[0]);
		if (v[i].counted)
			t->counted[v[i].kind] += v[i].n;
		else
			t->passed[v[i].kind] += v[i].n;
		t->verdicts++;
	}
}

static void feed(struct input_dev_state *d, struct tally *t, uint64_t t_us, unsigned type,
		 unsigned code, int value)
{
	struct input_verdict v[INPUT_VERDICTS_MAX];
	size_t n = 99;

	input_rules_event(d, t_us, type, code, value, v, &n);
	ck_assert_uint_le(n, INPUT_VERDICTS_MAX);
	take(t, v, n);
}

static void finish(struct input_dev_state *d, struct tally *t, uint64_t t_us)
{
	struct input_verdict v[INPUT_VERDICTS_MAX];
	size_t n = 99;

	input_rules_end(d, t_us, v, &n);
	ck_assert_uint_le(n, INPUT_VERDICTS_MAX);
	take(t, v, n);
}

static void load(struct evemu_recording *r, const char *rel)
{
	struct strbuf err = STRBUF_INIT;
	int ret = evemu_load(r, testdata_path(rel), &err);

	ck_assert_msg(ret == 0, "%s", err.buf ? err.buf : "?");
	strbuf_release(&err);
}

/* Loads a description (NULL: none, or it is in the events file) and a
 * recording's events and replays them all. */
static struct tally replay(const char *desc, const char *events)
{
	struct evemu_recording r;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };

	evemu_init(&r);
	if (desc)
		load(&r, desc);
	load(&r, events);
	ck_assert(r.has_desc);
	ck_assert_uint_gt(r.n, 0);
	input_rules_init(&d, &r.caps, r.events[0].t_us);
	for (size_t i = 0; i < r.n; i++)
		feed(&d, &t, r.events[i].t_us, r.events[i].type, r.events[i].code, r.events[i].value);
	finish(&d, &t, r.events[r.n - 1].t_us + 1000000);
	evemu_release(&r);
	return t;
}

static void expect(const struct tally *t, const unsigned counted[INPUT_N_KINDS], unsigned bumps)
{
	for (int k = 0; k < INPUT_N_KINDS; k++)
		ck_assert_msg(t->counted[k] == counted[k], "%s: %u counted, expected %u",
			      input_kind_name(k), t->counted[k], counted[k]);
	ck_assert_uint_eq(t->passed[INPUT_BUMP], bumps);
}

/* --- keyboards: presses count, releases and repeats do not --------------------------- */

START_TEST(keyboard_bad_enter)
{
	/* grep '^E:' FILE | awk '$3=="0001" && $5==1' | wc -l  -> 4
	 * (b, a, d, Enter: 4 presses, 4 releases) */
	struct tally t = replay("evemu/chromiumos-autotest_keyboard.prop",
				"evemu/chromiumos-autotest_keyboard_b+a+d+enter");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_KEY] = 4 }, 0);
	/* nothing but the presses produced a verdict */
	ck_assert_uint_eq(t.verdicts, 4);
}
END_TEST

START_TEST(keyboard_repeats)
{
	/* awk '$3=="0001"{print $5+0}' FILE | sort | uniq -c: 10 presses (value
	 * 1), 13 repeats (value 2) and 8 releases; only the presses count */
	struct tally t = replay("evemu/chromiumos-autotest_keyboard.prop",
				"evemu/chromiumos-autotest_keyboard_ctrl+shift+c");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_KEY] = 10 }, 0);
	ck_assert_uint_eq(t.verdicts, 10);
}
END_TEST

START_TEST(keyboard_evemu13)
{
	/* Both files hold description and events (EVEMU 1.3).
	 * Lenovo: KEY_ENTER 0 (the release of the Enter that started the
	 * recording), KEY_LEFTCTRL 1, KEY_C 1 -> 2.
	 * K400: KEY_ENTER 0, KEY_LEFTCTRL 1, three repeats (2) with SYN_REPORT
	 * value 1, KEY_C 1 -> 2. */
	struct tally t = replay(NULL, "evemu/evemu-devices_lenovo_compact_keyboard.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_KEY] = 2 }, 0);
	t = replay(NULL, "evemu/evemu-devices_logitech_k400plus_keyboard.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_KEY] = 2 }, 0);
}
END_TEST

/* The detail text never says which key: the same text for every code. */
START_TEST(no_key_logging)
{
	struct input_caps caps;
	struct input_dev_state d;
	struct input_verdict v[INPUT_VERDICTS_MAX];
	size_t n;

	input_caps_init(&caps);
	input_rules_init(&d, &caps, 0);
	for (unsigned code = 1; code <= KEY_MAX; code++) {
		enum input_kind k = input_key_kind(code);

		input_rules_event(&d, code, EV_KEY, code, 1, v, &n);
		if (k == INPUT_N_KINDS) {
			ck_assert_uint_eq(n, 0);
			continue;
		}
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(v[0].detail, k == INPUT_KEY ? "key press"
				 : k == INPUT_BUTTON ? "button press" : "touch");
	}
	/* spot checks of the classes */
	ck_assert_int_eq(input_key_kind(KEY_A), INPUT_KEY);
	ck_assert_int_eq(input_key_kind(KEY_OK), INPUT_KEY);
	ck_assert_int_eq(input_key_kind(BTN_LEFT), INPUT_BUTTON);
	ck_assert_int_eq(input_key_kind(BTN_SOUTH), INPUT_BUTTON);
	ck_assert_int_eq(input_key_kind(BTN_DPAD_UP), INPUT_BUTTON);
	ck_assert_int_eq(input_key_kind(BTN_TRIGGER_HAPPY1), INPUT_BUTTON);
	ck_assert_int_eq(input_key_kind(BTN_STYLUS), INPUT_BUTTON);
	ck_assert_int_eq(input_key_kind(BTN_TOUCH), INPUT_TOUCH);
	ck_assert_int_eq(input_key_kind(BTN_TOOL_FINGER), INPUT_N_KINDS);
	ck_assert_int_eq(input_key_kind(BTN_TOOL_QUADTAP), INPUT_N_KINDS);
}
END_TEST

/* --- buttons, touches -------------------------------------------------------------- */

START_TEST(wiimote_button)
{
	/* E: lines: 0001 0110 1 then 0001 0110 0 (BTN_LEFT-coded button) -> 1 */
	struct tally t = replay("evemu/evemu-devices_nintendo_wiimote.desc",
				"evemu/evemu-devices_nintendo_wiimote.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_BUTTON] = 1 }, 0);
}
END_TEST

START_TEST(touchscreen)
{
	/* awk '$3=="0001" && $4=="014a"' FILE: BTN_TOUCH 11 times 1, 11 times
	 * 0 -> 11 touches; the ABS_X/Y and ABS_MT_* positions between them
	 * count nothing more (EVEMU 1.1, comments after the events) */
	struct tally t = replay(NULL, "evemu/evemu-repo_wetab_touchscreen_evemu1.1.event");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_TOUCH] = 11 }, 0);
}
END_TEST

/* --- gamepads: jitter quiet, hats, throws ------------------------------------------- */

START_TEST(xbox_pad_jitter_quiet)
{
	/* awk '$3=="0003"{print $4, $5+0}' FILE, per code min..max:
	 * ABS_X -938..-860, ABS_Y -471..-314, ABS_RY -1490..-1412: a few
	 * hundred units of a -32768..32767 range whose quarter is 16384 ->
	 * no stick. ABS_HAT0Y 1,0,-1,0,-1,0 -> 3 hat presses. BTN_EAST
	 * (0x131) 1 then 0 -> 1 button. */
	struct tally t = replay(NULL, "evemu/evemu-devices_madcatz_xbox360_gamepad.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_BUTTON] = 1, [INPUT_HAT] = 3 }, 0);
}
END_TEST

static void load_desc(struct input_caps *caps, const char *rel)
{
	struct evemu_recording r;

	evemu_init(&r);
	load(&r, rel);
	*caps = r.caps;
	evemu_release(&r);
}

/* A real throw of the Xbox 360 pad's left stick (its description's
 * ranges), with jitter before and after: one count per excursion. */
START_TEST(xbox_pad_throw)
{
	static const int throw[] = { 0, 3000, -2500, 9000, 16000, 24000, 32767, 32767, 20000,
				     16500, 15000, 16500, 9000, 2000, -300, 400 };
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	uint64_t now = 0;

	load_desc(&caps, "evemu/evemu-devices_microsoft_xbox360_pad.desc");
	ck_assert_str_eq(caps.name, "Microsoft X-Box 360 pad");
	input_rules_init(&d, &caps, 0);
	/* one throw: 24000 is the first value a quarter (16384) or more from
	 * the centre; the way back hovers at the quarter (16500, 15000,
	 * 16500) without coming within an eighth (8192): still one */
	for (size_t i = 0; i < ARRAY_SIZE(throw); i++) {
		feed(&d, &t, now += 8000, EV_ABS, ABS_X, throw[i]);
		feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	}
	ck_assert_uint_eq(t.counted[INPUT_STICK], 1);
	/* back within an eighth (400 above): the next throw, the other way, counts */
	feed(&d, &t, now += 8000, EV_ABS, ABS_X, -16385);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 2);
	/* exactly a quarter: -16384 is 16383.5 from the centre -0.5, under the quarter 16383.75 */
	feed(&d, &t, now += 8000, EV_ABS, ABS_Y, -16384);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 2);
	feed(&d, &t, now += 8000, EV_ABS, ABS_Y, -16385);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 3);
	/* the triggers (ABS_Z, ABS_RZ 0..255 beside RX/RY): rest at 0, a
	 * quarter is 63.75 */
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 63);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 0);
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 64);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 1);
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 255);
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 32);      /* 32 >= 255/8: not back yet */
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 200);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 1);
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 31);      /* back */
	feed(&d, &t, now += 8000, EV_ABS, ABS_Z, 100);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 2);
	/* a trigger at its minimum is at rest, not a quarter from a centre */
	feed(&d, &t, now += 8000, EV_ABS, ABS_RZ, 0);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 2);
	/* a hat held diagonally is one press */
	feed(&d, &t, now += 8000, EV_ABS, ABS_HAT0X, 1);
	feed(&d, &t, now, EV_ABS, ABS_HAT0Y, -1);
	feed(&d, &t, now += 8000, EV_ABS, ABS_HAT0X, 0);
	feed(&d, &t, now += 8000, EV_ABS, ABS_HAT0Y, 0);
	feed(&d, &t, now += 8000, EV_ABS, ABS_HAT0Y, 1);
	ck_assert_uint_eq(t.counted[INPUT_HAT], 2);
	finish(&d, &t, now);
	ck_assert_uint_eq(t.verdicts, 7);  /* 3 sticks, 2 triggers, 2 hats */
}
END_TEST

/* The DualShock 3's old description: 0..255 axes, ABS_Z/ABS_RZ the right
 * stick (no ABS_RX/RY), a few units of jitter quiet; its pressure axes
 * (ABS_MISC...) and motion sensors (0x3b-0x3e) not watched. */
START_TEST(ds3_sticks)
{
	static const int jitter[] = { 128, 131, 125, 133, 122, 128, 140, 118 };
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	uint64_t now = 0;

	load_desc(&caps, "evemu/evemu-devices_sony_ps3_controller.desc");
	/* grep -c '^A:' FILE -> 27 axes; A: 00 0 255 0 15 (no resolution) */
	ck_assert(input_caps_has(&caps, EV_ABS, ABS_X));
	ck_assert(input_caps_has(&caps, EV_ABS, 0x3e));
	ck_assert_int_eq(caps.abs[ABS_X].max, 255);
	ck_assert_int_eq(caps.abs[ABS_X].flat, 15);
	ck_assert_int_eq(caps.abs[0x3b].max, 1023);
	input_rules_init(&d, &caps, 0);
	for (size_t i = 0; i < ARRAY_SIZE(jitter); i++)
		for (unsigned code = ABS_X; code <= ABS_RZ; code++)
			feed(&d, &t, now += 5000, EV_ABS, code, jitter[i]);
	ck_assert_uint_eq(t.verdicts, 0);
	/* a right-stick throw on ABS_RZ: a quarter from 127.5 is 63.75 */
	feed(&d, &t, now += 5000, EV_ABS, ABS_RZ, 191);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 0);
	feed(&d, &t, now += 5000, EV_ABS, ABS_RZ, 192);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 1);
	feed(&d, &t, now += 5000, EV_ABS, ABS_Z, 0);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 2);
	/* pressure of a button, accelerometer axes */
	feed(&d, &t, now += 5000, EV_ABS, ABS_MISC, 255);
	feed(&d, &t, now += 5000, EV_ABS, 0x3c, 1000);
	ck_assert_uint_eq(t.verdicts, 2);
}
END_TEST

/* An axis that starts away from rest (libevdev knows the value) waits
 * until it has been back before counting. */
START_TEST(start_out_of_rest)
{
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };

	input_caps_init(&caps);
	input_caps_set(&caps, EV_ABS, ABS_GAS);
	caps.abs[ABS_GAS] = (struct input_axis_info){ .min = 0, .max = 1023, .value = 900,
						    .has_value = true };
	input_rules_init(&d, &caps, 0);
	feed(&d, &t, 1000, EV_ABS, ABS_GAS, 1000);
	ck_assert_uint_eq(t.verdicts, 0);
	feed(&d, &t, 2000, EV_ABS, ABS_GAS, 10);
	feed(&d, &t, 3000, EV_ABS, ABS_GAS, 800);
	ck_assert_uint_eq(t.counted[INPUT_TRIGGER], 1);
}
END_TEST

START_TEST(accelerometer_ignored)
{
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };

	input_caps_init(&caps);
	caps.props[INPUT_PROP_ACCELEROMETER / 8] |= 1u << (INPUT_PROP_ACCELEROMETER % 8);
	input_caps_set(&caps, EV_ABS, ABS_X);
	caps.abs[ABS_X] = (struct input_axis_info){ .min = -512, .max = 511 };
	input_rules_init(&d, &caps, 0);
	feed(&d, &t, 1000, EV_ABS, ABS_X, 511);
	feed(&d, &t, 1000, EV_KEY, BTN_SOUTH, 1);
	ck_assert_uint_eq(t.verdicts, 0);
}
END_TEST

/* --- wheels ------------------------------------------------------------------------ */

START_TEST(wheel_recordings)
{
	/* awk '$3=="0002" && $4=="0008"{s+=($5<0?-$5:$5)} END{print s}' FILE
	 * -> 213 (MouseScrollTest: 213 events of +-1), 2478 (ScrollPoint:
	 * 51 events up to +-40), 39 (Ultrathin: 32 events). Motion bursts
	 * from evemu-counts.awk:
	 *   MouseScrollTest: one burst 2.136 s (1266 counts) -> MOTION, 9 bumps
	 *   ScrollPoint: 8 bursts of 1 to 11 counts -> 8 bumps
	 *   Ultrathin: burst 0.000 s, 1.474 s long, 2104 counts -> MOTION by
	 *   the 10 s window; then bumps of 11, 573, 463 and 323 counts, and a
	 *   burst of 130 that brings the 10 s to exactly 1500 -> MOTION; 3
	 *   more bumps: 2 MOTION, 7 bumps. Buttons: BTN_LEFT 4 x 1 and
	 *   BTN_RIGHT 2 x 1 (31 repeats of value 2 not counted) -> 6. */
	struct tally t = replay("evemu/chromiumos-autotest_platform_MouseScrollTest_mouse.prop",
				"evemu/chromiumos-autotest_platform_MouseScrollTest_mouse_event");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_WHEEL] = 213, [INPUT_MOTION] = 1 }, 9);
	t = replay("evemu/evemu-devices_ibm_scrollpoint_mouse.desc",
		   "evemu/evemu-devices_ibm_scrollpoint_mouse.scroll.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_WHEEL] = 2478 }, 8);
	t = replay(NULL, "evemu/evemu-devices_logitech_ultrathin_touch_mouse.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_BUTTON] = 6, [INPUT_WHEEL] = 39,
					      [INPUT_MOTION] = 2 }, 7);
}
END_TEST

static void hires_caps(struct input_caps *caps, bool lowres)
{
	input_caps_init(caps);
	input_caps_set(caps, EV_REL, REL_X);
	input_caps_set(caps, EV_REL, REL_Y);
	input_caps_set(caps, EV_REL, REL_WHEEL_HI_RES);
	if (lowres)
		input_caps_set(caps, EV_REL, REL_WHEEL);
}

/* A notch sends REL_WHEEL_HI_RES 120 and REL_WHEEL 1 in one frame: one
 * step. A high-resolution wheel sends 30s and a REL_WHEEL 1 every fourth:
 * one step. A device with only the hi-res axis: a step per 120. */
START_TEST(wheel_hires)
{
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	uint64_t now = 0;

	hires_caps(&caps, true);
	input_rules_init(&d, &caps, 0);
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, 120);
	feed(&d, &t, now, EV_REL, REL_WHEEL, 1);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 1);
	for (int i = 0; i < 4; i++) {
		feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, -30);
		if (i == 3)
			feed(&d, &t, now, EV_REL, REL_WHEEL, -1);
		feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	}
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 2);
	ck_assert_uint_eq(t.verdicts, 2);

	memset(&t, 0, sizeof(t));
	hires_caps(&caps, false);
	input_rules_init(&d, &caps, now);
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, 60);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 0);
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, 60);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 1);
	/* turning back starts afresh: 60 down after 60 up is no step */
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, 60);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, -60);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 1);
	/* -300 after that -60: 360 down, 3 steps */
	feed(&d, &t, now += 10000, EV_REL, REL_WHEEL_HI_RES, -300);
	feed(&d, &t, now, EV_SYN, SYN_REPORT, 0);
	ck_assert_uint_eq(t.counted[INPUT_WHEEL], 4);
	/* one verdict a frame, n = steps */
	ck_assert_uint_eq(t.verdicts, 2);
}
END_TEST

/* --- mouse motion ------------------------------------------------------------------ */

START_TEST(motion_recordings)
{
	/* evemu-counts.awk:
	 * center_cursor_gesture: a burst of 0.896 s with 3710 counts (the
	 *   10 s window's 1500 reached within it) and one of 2.768 s -> 2
	 *   MOTION, no bump.
	 * PS/2 mouse: 6 bursts of 3.7 to 12.7 s -> 6 MOTION; bumps of 3, 1
	 *   and 44 counts -> 3.
	 * Saitek R.A.T.5: 8 bursts, the longest 1.198 s, together 1390
	 *   counts (913+10+2+410+17+22+12+4) in 9.5 s: under 1500 -> 8 bumps;
	 *   BTN_LEFT twice, BTN_RIGHT once (value 1) -> 3 buttons (a lone
	 *   BTN_SIDE 0x118 release is not a press). */
	struct tally t = replay("evemu/chromiumos-autotest_mouse.prop",
				"evemu/chromiumos-autotest_mouse_center_cursor_gesture");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_MOTION] = 2 }, 0);
	t = replay("evemu/evemu-devices_ps2_generic_mouse.desc",
		   "evemu/evemu-devices_ps2_generic_mouse.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_MOTION] = 6 }, 3);
	t = replay("evemu/evemu-devices_saitek_rat5_mouse.desc",
		   "evemu/evemu-devices_saitek_rat5_mouse.events");
	expect(&t, (unsigned[INPUT_N_KINDS]){ [INPUT_BUTTON] = 3 }, 8);
}
END_TEST

static void mouse(struct input_dev_state *d)
{
	struct input_caps caps;

	hires_caps(&caps, true);
	input_rules_init(d, &caps, 0);
}

/* Motion every `step_us` from t0 for `len_us`, `per` counts an event;
 * returns the time of the last event. */
static uint64_t move(struct input_dev_state *d, struct tally *t, uint64_t t0, uint64_t len_us,
		     uint64_t step_us, int per)
{
	uint64_t now = t0;

	for (; now <= t0 + len_us; now += step_us) {
		feed(d, t, now, EV_REL, REL_X, per);
		feed(d, t, now, EV_SYN, SYN_REPORT, 0);
	}
	return now - step_us;
}

START_TEST(burst_boundaries)
{
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	struct input_verdict v[INPUT_VERDICTS_MAX];
	size_t n;
	uint64_t last;

	mouse(&d);
	/* 2 s exactly, an event every 250 ms (a gap of 250 ms does not end a burst) */
	last = move(&d, &t, 1000000, 2000000, 250000, 1);
	ck_assert_uint_eq(last, 3000000);
	/* not judged before the gap has passed ... */
	input_rules_tick(&d, last + 250000, v, &n);
	ck_assert_uint_eq(n, 0);
	/* ... and then at once, dated at its start */
	input_rules_tick(&d, last + 250001, v, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(v[0].counted);
	ck_assert_int_eq(v[0].kind, INPUT_MOTION);
	ck_assert_uint_eq(v[0].t_us, 1000000);
	ck_assert_str_eq(v[0].detail, "mouse motion 2.00 s, 9 counts");

	/* 1.99 s (100 Hz, 200 counts): a bump */
	last = move(&d, &t, 10000000, 1990000, 10000, 1);
	input_rules_tick(&d, last + 300000, v, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(!v[0].counted);
	ck_assert_int_eq(v[0].kind, INPUT_BUMP);
	ck_assert_str_eq(v[0].detail,
			 "mouse motion 1.99 s, 200 counts (a bump: under 2 s and 1500 counts in 10 s)");

	/* a gap of 251 ms splits 3 s of motion into two bumps; the first is
	 * judged by the first event after the gap */
	memset(&t, 0, sizeof(t));
	mouse(&d);
	move(&d, &t, 100000000, 1500000, 251000 / 2, 1);
	last = move(&d, &t, 101500000 + 251000 + 1, 1400000, 100000, 1);
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 1);
	finish(&d, &t, last);
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 2);
	ck_assert_uint_eq(t.counted[INPUT_MOTION], 0);

	/* a key press after the gap closes the burst first: two verdicts */
	mouse(&d);
	move(&d, &t, 200000000, 100000, 10000, 2);
	input_rules_event(&d, 201000000, EV_KEY, KEY_SPACE, 1, v, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].kind, INPUT_BUMP);
	ck_assert_int_eq(v[1].kind, INPUT_KEY);
}
END_TEST

/* 1500 counts within 10 s without a burst of 2 s: four strokes of 400
 * counts (0.5 s each, 2 s apart); the fourth crosses 1500 and counts,
 * the first three are bumps. The window then starts empty: a fifth stroke
 * is a bump again. Strokes 6 s apart never have 1500 within 10 s. */
START_TEST(window_1500)
{
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	struct input_verdict v[INPUT_VERDICTS_MAX];
	size_t n;
	uint64_t start = 5000000, last = 0;

	mouse(&d);
	for (int i = 0; i < 4; i++)
		last = move(&d, &t, start + i * 2000000ull, 490000, 10000, 8);  /* 50 x 8 */
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 3);
	input_rules_tick(&d, last + 300000, v, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(v[0].kind, INPUT_MOTION);
	ck_assert_str_eq(v[0].detail, "mouse motion 0.49 s, 400 counts (1500 counts within 10 s)");
	last = move(&d, &t, last + 1000000, 490000, 10000, 8);
	finish(&d, &t, last);
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 4);

	memset(&t, 0, sizeof(t));
	mouse(&d);
	for (int i = 0; i < 5; i++)
		last = move(&d, &t, 50000000 + i * 6000000ull, 490000, 10000, 12);  /* 600 */
	finish(&d, &t, last);
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 5);
	ck_assert_uint_eq(t.counted[INPUT_MOTION], 0);
	/* 3 x 600 within 10 s (4.5 s apart) do count, once */
	for (int i = 0; i < 3; i++)
		last = move(&d, &t, 200000000 + i * 4500000ull, 490000, 10000, 12);
	finish(&d, &t, last);
	ck_assert_uint_eq(t.counted[INPUT_MOTION], 1);
	ck_assert_uint_eq(t.passed[INPUT_BUMP], 7);
}
END_TEST

/* A VM's tablet: absolute pointer, the full range is 1000 counts. */
START_TEST(absolute_pointer)
{
	struct input_caps caps;
	struct input_dev_state d;
	struct tally t = { { 0 }, { 0 }, 0 };
	uint64_t now = 0;

	input_caps_init(&caps);
	input_caps_set(&caps, EV_KEY, BTN_LEFT);
	input_caps_set(&caps, EV_ABS, ABS_X);
	input_caps_set(&caps, EV_ABS, ABS_Y);
	caps.abs[ABS_X] = (struct input_axis_info){ .min = 0, .max = 32767 };
	caps.abs[ABS_Y] = (struct input_axis_info){ .min = 0, .max = 32767 };
	input_rules_init(&d, &caps, 0);
	/* the first position is no motion; then 20 moves of 3277 (100 counts) */
	for (int i = 0; i <= 20; i++)
		feed(&d, &t, now += 20000, EV_ABS, ABS_X, (i % 2) * 3277 + 10000);
	finish(&d, &t, now);
	ck_assert_uint_eq(t.counted[INPUT_STICK], 0);
	ck_assert_uint_eq(t.counted[INPUT_MOTION], 1);  /* 2000 counts in 0.4 s */
}
END_TEST

/* --- the reader -------------------------------------------------------------------- */

START_TEST(descriptions)
{
	struct evemu_recording r;

	/* no events, every header shape: no # line (Chicony, DS3, Wiimote),
	 * EVEMU 1.2 (Xbox, ScrollPoint, ROCCAT .evemu, Saitek's FF_STATUS_STOPPED
	 * name bug in the comments) */
	static const char *const descs[] = {
		"evemu/evemu-devices_chicony_usb_keyboard.desc",
		"evemu/evemu-devices_roccat_kone_xtd_mouse.evemu",
		"evemu/evemu-devices_saitek_rat5_mouse.desc",
		"evemu/evemu-devices_ibm_scrollpoint_mouse.desc",
		"evemu/evemu-repo_wetab_touchscreen_evemu1.1.prop",
	};
	for (size_t i = 0; i < ARRAY_SIZE(descs); i++) {
		evemu_init(&r);
		load(&r, descs[i]);
		ck_assert(r.has_desc);
		ck_assert_uint_eq(r.n, 0);
		evemu_release(&r);
	}
	evemu_init(&r);
	load(&r, "evemu/evemu-devices_roccat_kone_xtd_mouse.evemu");
	/* I: 0003 1e7d 2e22 0100; B: 02 43 ... has REL_X, REL_Y, REL_WHEEL;
	 * A: 20 0 572 0 0 0 (ABS_VOLUME) */
	ck_assert_str_eq(r.caps.name, "ROCCAT ROCCAT Kone XTD");
	ck_assert_uint_eq(r.caps.vendor, 0x1e7d);
	ck_assert_uint_eq(r.caps.product, 0x2e22);
	ck_assert(input_caps_has(&r.caps, EV_REL, REL_WHEEL));
	ck_assert(input_caps_has(&r.caps, EV_KEY, BTN_LEFT));
	ck_assert_int_eq(r.caps.abs[ABS_VOLUME].max, 572);
	evemu_release(&r);
	/* the wetab .prop and the description inside its .event agree */
	{
		struct evemu_recording a, b;

		evemu_init(&a);
		evemu_init(&b);
		load(&a, "evemu/evemu-repo_wetab_touchscreen_evemu1.1.prop");
		load(&b, "evemu/evemu-repo_wetab_touchscreen_evemu1.1.event");
		ck_assert(memcmp(&a.caps, &b.caps, sizeof(a.caps)) == 0);
		ck_assert(input_caps_has(&a.caps, EV_KEY, BTN_TOUCH));
		/* grep -c '^E:' -> 170 */
		ck_assert_uint_eq(b.n, 170);
		evemu_release(&a);
		evemu_release(&b);
	}
}
END_TEST

START_TEST(event_shapes)
{
	struct evemu_recording r;
	struct strbuf err = STRBUF_INIT;

	evemu_init(&r);
	ck_assert_int_eq(evemu_parse(&r, "x",
				     "E: 1329846856.201613 0002 0001 -1\n"
				     "E: 0.000001 0001 001d 0001\t# EV_KEY / KEY_LEFTCTRL 1\n"
				     "E: 0.000002 0002 0000 -013\n"
				     "E: 0.000002 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms\n",
				     &err), -EINVAL);
	/* the second line is earlier than the first: a broken recording */
	ck_assert_str_eq(err.buf, "x:2: E: time 0.000001 is earlier than the event before it (line 1)");
	evemu_release(&r);
	strbuf_reset(&err);
	evemu_init(&r);
	ck_assert_int_eq(evemu_parse(&r, "x",
				     "# EVEMU 1.3\n\n"
				     "E: 0.000001 0001 001d 0001\t# EV_KEY / KEY_LEFTCTRL 1\n"
				     "E: 0.000002 0002 0000 -013\r\n"
				     "L: 00 1\nS: 05 0\n"
				     "E: 3.000002 0000 0000 0000 # ---- SYN_REPORT (0) ---- +0ms",
				     &err), 0);
	ck_assert_uint_eq(r.n, 3);
	ck_assert_uint_eq(r.events[0].t_us, 1);
	ck_assert_uint_eq(r.events[0].code, KEY_LEFTCTRL);
	ck_assert_int_eq(r.events[1].value, -13);
	ck_assert_uint_eq(r.events[2].t_us, 3000002);
	ck_assert_int_eq(r.events[2].line, 7);
	ck_assert(!r.has_desc);
	evemu_release(&r);
	strbuf_release(&err);
}
END_TEST

START_TEST(malformed)
{
	static const struct {
		const char *text, *error;
	} cases[] = {
		{ "N: pad\nE: 1.5 0001 001e 1\n",
		  "bad.events:2: E: time '1.5' is not seconds.microseconds (6 digits)" },
		{ "E: 0.000001 0001 001e 1x\n", "bad.events:1: E: value '1x' is not a number" },
		{ "E: 0.000001 0001 001e\n", "bad.events:1: E: wants sec.usec type code value, not 3 fields" },
		{ "E: 0.000001 0020 0000 1\n",
		  "bad.events:1: E: type '0020' or code '0000' is not hex (type up to EV_MAX)" },
		{ "E: 0.000001 0001 00g1 1\n",
		  "bad.events:1: E: type '0001' or code '00g1' is not hex (type up to EV_MAX)" },
		{ "# fine\nX: what\n", "bad.events:2: unknown line type 'X:'" },
		{ "^[OPE: 0.000001 0001 001e 1\n",
		  "bad.events:1: not an evemu line (N:, I:, P:, B:, A:, L:, S:, E: or # comment)" },
		{ "I: 0003 046d\n", "bad.events:1: I: wants bus vendor product version, four hex numbers" },
		{ "A: 00 0\n", "bad.events:1: A: wants code min max fuzz flat [resolution], not 2 fields" },
		{ "A: 00 10 0 0 0\n", "bad.events:1: A: axis 00 has max 0 below min 10" },
		{ "A: 40 0 1 0 0\n", "bad.events:1: A: axis '40' is not a hex code up to ABS_MAX" },
		{ "B: 01 zz\n", "bad.events:1: B: byte 'zz' is not two hex digits" },
		{ "B: 02 00 00 01\n", "bad.events:1: B: 02 sets a bit beyond the kernel's last code" },
		{ "P: 00 00 00 00 01\n", "bad.events:1: P: byte '01' is not a hex byte of known properties" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct evemu_recording r;
		struct strbuf err = STRBUF_INIT;

		evemu_init(&r);
		ck_assert_int_eq(evemu_parse(&r, "bad.events", cases[i].text, &err), -EINVAL);
		ck_assert_str_eq(err.buf, cases[i].error);
		evemu_release(&r);
		strbuf_release(&err);
	}
	{
		struct evemu_recording r;
		struct strbuf err = STRBUF_INIT;

		evemu_init(&r);
		ck_assert_int_eq(evemu_load(&r, "/nonexistent/x.events", &err), -ENOENT);
		ck_assert_str_eq(err.buf, "cannot read '/nonexistent/x.events': No such file or directory");
		evemu_release(&r);
		strbuf_release(&err);
	}
}
END_TEST

TEST_SUITE(inputrules_suite)
{
	Suite *s = suite_create("inputrules");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, keyboard_bad_enter);
	tcase_add_test(tc, keyboard_repeats);
	tcase_add_test(tc, keyboard_evemu13);
	tcase_add_test(tc, no_key_logging);
	tcase_add_test(tc, wiimote_button);
	tcase_add_test(tc, touchscreen);
	tcase_add_test(tc, xbox_pad_jitter_quiet);
	tcase_add_test(tc, xbox_pad_throw);
	tcase_add_test(tc, ds3_sticks);
	tcase_add_test(tc, start_out_of_rest);
	tcase_add_test(tc, accelerometer_ignored);
	tcase_add_test(tc, wheel_recordings);
	tcase_add_test(tc, wheel_hires);
	tcase_add_test(tc, motion_recordings);
	tcase_add_test(tc, burst_boundaries);
	tcase_add_test(tc, window_1500);
	tcase_add_test(tc, absolute_pointer);
	tcase_add_test(tc, descriptions);
	tcase_add_test(tc, event_shapes);
	tcase_add_test(tc, malformed);
	suite_add_tcase(s, tc);
	return s;
}
