/*
 * The interference watcher's input rules: which kernel input events are a
 * person touching the machine during a run. The live watcher (libevdev on
 * every /dev/input/event*) and the tests (evemu recordings, common/input/evemurec.c)
 * feed the same handler, input_rules_event(), one event at a time; it
 * allocates nothing and never prints, and answers with verdicts: '!' lines
 * (counted: the run is interfered) and '-' lines (seen and let pass).
 * docs/interference.md says the same for users.
 *
 * What counts (each '!' verdict has a kind and a count n):
 *   KEY      an EV_KEY press (value 1) of a keyboard key: every code that is
 *            not one of the buttons below. Releases (0) and auto-repeats (2)
 *            say nothing new and are not reported at all.
 *   BUTTON   a press of a mouse, joystick, gamepad, d-pad, stylus or
 *            "trigger happy" button: BTN_MISC..BTN_GEAR_UP (0x100-0x151,
 *            except the touch codes below), BTN_DPAD_* (0x220-0x223),
 *            BTN_TRIGGER_HAPPY* (0x2c0-0x2e7).
 *   TOUCH    a finger or pen coming down on a touch screen, touchpad or
 *            tablet: BTN_TOUCH going to 1. One per touch, however many
 *            fingers follow and however far they slide; the positions
 *            (ABS_X/Y, ABS_MT_*, pressure) and the BTN_TOOL_* codes that
 *            go with a touch are not counted again.
 *   WHEEL    REL_WHEEL, REL_HWHEEL and REL_DIAL: |value| steps (n). The
 *            high-resolution axes (REL_*_HI_RES, 120 a notch) describe the
 *            same notches, so they count only on a device that sends them
 *            alone: hi-res units are added up per direction and every 120
 *            is a step, and a SYN frame that also carries the low-resolution
 *            event drops its hi-res part.
 *   STICK    ABS_X, ABS_Y, ABS_RX, ABS_RY, ABS_RUDDER, ABS_WHEEL (and ABS_Z,
 *            ABS_RZ on a pad without ABS_RX/ABS_RY: the DualShock 3's and
 *            many HID pads' right stick) leaving the centre of its range
 *            by a quarter of the range or more.
 *   TRIGGER  ABS_Z, ABS_RZ (on a pad that has ABS_RX/ABS_RY: the Xbox
 *            layout), ABS_THROTTLE, ABS_GAS, ABS_BRAKE moving up from the
 *            minimum by a quarter of the range or more.
 *            A stick or trigger counts once per excursion: it is re-armed
 *            when it comes back within an eighth of the range of its rest
 *            (the gap between the two thresholds keeps a value hovering at
 *            the quarter from counting twice). Jitter inside the quarter,
 *            such as a worn stick's few units, stays quiet. An axis without
 *            a known range (no A: line, no absinfo) is not judged. An axis
 *            whose known starting value (input_caps.abs[].has_value) is
 *            already out of rest starts disarmed: a trigger resting on
 *            something counts only once it has been back at rest.
 *   HAT      ABS_HAT0X..ABS_HAT3Y: a hat (an X/Y pair) leaving its centre,
 *            once per press: re-armed when both its axes are 0 again.
 *   MOTION   deliberate pointer motion (see below); the '-' kind BUMP is
 *            the motion that was not.
 * Not watched: EV_MSC (scan codes), EV_SW, EV_LED, EV_SND, EV_REP, EV_FF,
 * EV_PWR, SYN_DROPPED (libevdev resynchronises and hands us the changes),
 * ABS_PRESSURE..ABS_TOOL_WIDTH and ABS_VOLUME..ABS_MISC+ (pen and pressure
 * details, volume and profile knobs, the DualShock 3's pressure-sensitive
 * buttons, whose presses already count as buttons), and a whole device
 * with INPUT_PROP_ACCELEROMETER (a pad's motion sensors, which move when
 * the pad lies on a table that someone bumps).
 *
 * Pointer motion: REL_X and REL_Y (and REL_Z, REL_RX, REL_RY, REL_RZ: 3D
 * mice), sum of |value|; on an absolute pointer (ABS_X and BTN_LEFT, no
 * BTN_TOUCH: a VM's tablet) the change of ABS_X/ABS_Y, scaled so that the
 * full range is 1000 counts. Motion events form a burst; a burst ends when
 * no motion came for more than INPUT_BURST_GAP_US (250 ms). A mouse in a
 * moving hand reports every 1-10 ms, and even a slow, careful move sends
 * an event well within 100 ms, while a bump is a few events within tens of
 * milliseconds; 250 ms is long enough that a steady move is one burst and
 * short enough that two separate bumps are two. A burst is deliberate when
 *   - it lasted 2 s or more (first to last motion event), or
 *   - the counts of the last 10 s (all bursts, this one included) reached
 *     1500 while it was going on: a hand moving in short strokes with
 *     pauses. The window is kept in 50 ms buckets (allocation-free), so
 *     "10 s" is 9.95 to 10 s.
 * A burst is judged when it ends: one verdict, at the burst's start time,
 * '!' MOTION if deliberate, '-' BUMP otherwise, with its length and counts.
 * The 10 s window is emptied after a deliberate burst, so a stretch of
 * strokes counts once, not once per stroke. A burst ends on the first
 * event (of any kind) later than the gap, on input_rules_tick() (the live
 * watcher's poll timeout) and on input_rules_end().
 *
 * A verdict's detail never names the key or button: the watcher is not a
 * key logger. Axes are named ("stick ABS_X"): which stick moved says
 * nothing anyone typed.
 *
 * Times are microseconds on one monotonic clock (the events' own
 * timestamps); they must not go backwards for one device.
 */
#ifndef HB_INPUTRULES_H
#define HB_INPUTRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/input-event-codes.h>

#define INPUT_BURST_GAP_US    250000u   /* a longer pause ends a motion burst */
#define INPUT_BURST_LONG_US   2000000u  /* a burst this long is deliberate */
#define INPUT_WINDOW_COUNTS   1500u     /* this many counts ... */
#define INPUT_WINDOW_US       10000000u /* ... within this long is deliberate */
#define INPUT_BUCKET_US       50000u    /* the window's resolution */
#define INPUT_N_BUCKETS       (INPUT_WINDOW_US / INPUT_BUCKET_US)
#define INPUT_ABS_POINTER_SCALE 1000u   /* counts for an absolute pointer's full range */
#define INPUT_HIRES_NOTCH     120       /* REL_*_HI_RES units a notch */

/* What a device has, from its evemu description or from libevdev. */
struct input_axis_info {
	int min, max, fuzz, flat, resolution;
	int value;       /* where the axis is when watching starts ... */
	bool has_value;  /* ... if known (libevdev knows; a recording does not) */
};

struct input_caps {
	char name[128];
	unsigned bustype, vendor, product, version;
	uint8_t props[(INPUT_PROP_MAX + 8) / 8];
	uint8_t types[(EV_MAX + 8) / 8];
	uint8_t keys[(KEY_MAX + 8) / 8];
	uint8_t rels[(REL_MAX + 8) / 8];
	uint8_t abss[(ABS_MAX + 8) / 8];
	struct input_axis_info abs[ABS_MAX + 1];
};

void input_caps_init(struct input_caps *c);
/* Whether the device has event type `type` (code ignored) or code `code`
 * of EV_KEY, EV_REL or EV_ABS; other types answer for the type alone. */
bool input_caps_has(const struct input_caps *c, unsigned type, unsigned code);
/* Sets a type or code bit; ignored when out of range. */
void input_caps_set(struct input_caps *c, unsigned type, unsigned code);

enum input_kind {
	INPUT_KEY,
	INPUT_BUTTON,
	INPUT_TOUCH,
	INPUT_WHEEL,
	INPUT_STICK,
	INPUT_TRIGGER,
	INPUT_HAT,
	INPUT_MOTION,
	INPUT_BUMP,
	INPUT_N_KINDS
};

/* "key", "button", ... "bump": lower case, for log lines. */
const char *input_kind_name(enum input_kind k);

struct input_verdict {
	bool counted;          /* '!' (interference) or '-' (let pass) */
	enum input_kind kind;
	uint64_t t_us;         /* the event's time; a burst's: its first event */
	unsigned n;            /* how many: wheel steps; 1 for everything else */
	char detail[80];       /* "key press", "mouse motion 2.40 s, 1830 counts" */
};

/* input_rules_event() and the others write at most this many verdicts: a
 * motion burst that ended and a SYN frame's two hi-res wheels. */
#define INPUT_VERDICTS_MAX 3

/* What the rules keep per axis and per device. No pointers: a copy is a
 * copy, and nothing is allocated. */
enum input_axis_class {
	AXIS_IGNORED,
	AXIS_STICK,     /* rest at the centre */
	AXIS_TRIGGER,   /* rest at the minimum */
	AXIS_HAT,
	AXIS_POINTER,   /* absolute pointer position */
};

struct input_axis_state {
	uint8_t cls;          /* enum input_axis_class */
	bool armed;           /* at rest: the next excursion counts */
	bool has_last;        /* AXIS_POINTER: last is valid */
	int value;            /* last value seen */
	int64_t rest2;        /* twice the rest position (the centre of an odd range is a half) */
	int last;             /* AXIS_POINTER: previous position */
	int64_t range;        /* max - min */
};

struct input_dev_state {
	bool ignored;                 /* accelerometer: nothing counts */
	bool touch;                   /* has BTN_TOUCH */
	struct input_axis_state axis[ABS_MAX + 1];
	bool hat_pressed[4];
	/* hi-res wheels: units added up in the current direction, and whether
	 * the current SYN frame carried the low-resolution event */
	int hires_acc[2];
	int hires_frame_steps[2];
	bool lowres_in_frame[2];
	/* the motion burst now open */
	bool burst_open;
	bool burst_deliberate;
	bool burst_by_window;
	uint64_t burst_start_us, burst_last_us;
	uint64_t burst_counts;
	/* counts per INPUT_BUCKET_US of the last INPUT_WINDOW_US */
	uint32_t bucket[INPUT_N_BUCKETS];
	uint64_t bucket_epoch;        /* index (t / INPUT_BUCKET_US) of the newest bucket */
	uint64_t window_sum;
	bool window_started;
	uint64_t last_us;
};

/*
 * Starts watching a device whose capabilities are `caps` at time t_us.
 * caps is read here only (its classification is copied into d).
 */
void input_rules_init(struct input_dev_state *d, const struct input_caps *caps, uint64_t t_us);

/*
 * One kernel event. Writes up to INPUT_VERDICTS_MAX verdicts to out and
 * their number to *n_out (0 for most events). out must have room for
 * INPUT_VERDICTS_MAX.
 */
void input_rules_event(struct input_dev_state *d, uint64_t t_us, unsigned type, unsigned code,
		       int value, struct input_verdict *out, size_t *n_out);

/* Time passes with no event (the live watcher's poll timeout): closes a
 * motion burst whose gap has elapsed by t_us. */
void input_rules_tick(struct input_dev_state *d, uint64_t t_us, struct input_verdict *out,
		      size_t *n_out);

/* Watching ends (the run ended or the device went away): closes an open
 * motion burst as it stands. */
void input_rules_end(struct input_dev_state *d, uint64_t t_us, struct input_verdict *out,
		     size_t *n_out);

/* Which kind an EV_KEY code is: INPUT_KEY, INPUT_BUTTON, INPUT_TOUCH, or
 * INPUT_N_KINDS for codes that are not counted (BTN_TOOL_*, KEY_RESERVED). */
enum input_kind input_key_kind(unsigned code);

#endif
