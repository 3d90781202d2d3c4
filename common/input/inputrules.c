/*
 * The interference watcher's input rules (the rules themselves are in
 * inputrules.h). Called for every kernel input event of every watched
 * device, so nothing here allocates, prints or reads a file; the state of
 * one device is one fixed-size struct.
 */
#include "input/inputrules.h"

#include <stdio.h>
#include <string.h>

void input_caps_init(struct input_caps *c)
{
	memset(c, 0, sizeof(*c));
}

static uint8_t *caps_bits(struct input_caps *c, unsigned type, unsigned *max)
{
	switch (type) {
	case EV_KEY: *max = KEY_MAX; return c->keys;
	case EV_REL: *max = REL_MAX; return c->rels;
	case EV_ABS: *max = ABS_MAX; return c->abss;
	default: return NULL;
	}
}

bool input_caps_has(const struct input_caps *c, unsigned type, unsigned code)
{
	unsigned max;
	const uint8_t *bits = caps_bits((struct input_caps *)c, type, &max);

	if (type > EV_MAX || !(c->types[type / 8] & (1u << (type % 8))))
		return false;
	if (!bits)
		return true;
	return code <= max && (bits[code / 8] & (1u << (code % 8)));
}

void input_caps_set(struct input_caps *c, unsigned type, unsigned code)
{
	unsigned max;
	uint8_t *bits = caps_bits(c, type, &max);

	if (type > EV_MAX)
		return;
	c->types[type / 8] |= 1u << (type % 8);
	if (bits && code <= max)
		bits[code / 8] |= 1u << (code % 8);
}

static bool input_caps_has_prop(const struct input_caps *c, unsigned prop)
{
	return prop <= INPUT_PROP_MAX && (c->props[prop / 8] & (1u << (prop % 8)));
}

const char *input_kind_name(enum input_kind k)
{
	static const char *const names[INPUT_N_KINDS] = {
		[INPUT_KEY] = "key",         [INPUT_BUTTON] = "button", [INPUT_TOUCH] = "touch",
		[INPUT_WHEEL] = "wheel",     [INPUT_STICK] = "stick",   [INPUT_TRIGGER] = "trigger",
		[INPUT_HAT] = "hat",         [INPUT_MOTION] = "motion", [INPUT_BUMP] = "bump",
	};
	return (unsigned)k < INPUT_N_KINDS ? names[k] : "?";
}

enum input_kind input_key_kind(unsigned code)
{
	if (code == KEY_RESERVED || code > KEY_MAX)
		return INPUT_N_KINDS;
	if (code == BTN_TOUCH)
		return INPUT_TOUCH;
	/* a tool coming into range goes with a touch or is a pen hovering */
	if ((code >= BTN_TOOL_PEN && code <= BTN_TOOL_QUINTTAP) ||
	    (code >= BTN_TOOL_DOUBLETAP && code <= BTN_TOOL_QUADTAP))
		return INPUT_N_KINDS;
	if ((code >= BTN_MISC && code < KEY_OK) ||
	    (code >= BTN_DPAD_UP && code <= BTN_DPAD_RIGHT) ||
	    (code >= BTN_TRIGGER_HAPPY && code <= BTN_TRIGGER_HAPPY40))
		return INPUT_BUTTON;
	return INPUT_KEY;
}

static enum input_axis_class axis_class(const struct input_caps *caps, bool abs_pointer,
					unsigned code)
{
	bool xbox_layout = input_caps_has(caps, EV_ABS, ABS_RX) || input_caps_has(caps, EV_ABS, ABS_RY);

	if (code >= ABS_HAT0X && code <= ABS_HAT3Y)
		return AXIS_HAT;
	if (abs_pointer)
		return code == ABS_X || code == ABS_Y ? AXIS_POINTER : AXIS_IGNORED;
	switch (code) {
	case ABS_X: case ABS_Y: case ABS_RX: case ABS_RY: case ABS_RUDDER: case ABS_WHEEL:
		return AXIS_STICK;
	case ABS_Z: case ABS_RZ:
		return xbox_layout ? AXIS_TRIGGER : AXIS_STICK;
	case ABS_THROTTLE: case ABS_GAS: case ABS_BRAKE:
		return AXIS_TRIGGER;
	default:
		return AXIS_IGNORED;
	}
}

static void axis_init(struct input_axis_state *a, enum input_axis_class cls,
		      const struct input_axis_info *ai)
{
	int64_t range = (int64_t)ai->max - ai->min;

	memset(a, 0, sizeof(*a));
	a->cls = cls;
	if (cls == AXIS_HAT) {
		a->armed = true;
		return;
	}
	if (range <= 0) {
		/* no range known: the rest and the quarter cannot be told */
		a->cls = AXIS_IGNORED;
		return;
	}
	a->range = range;
	if (cls == AXIS_POINTER)
		return;
	a->rest2 = cls == AXIS_STICK ? (int64_t)ai->min + ai->max : 2 * (int64_t)ai->min;
	a->armed = true;
	if (ai->has_value) {
		int64_t off2 = 2 * (int64_t)ai->value - a->rest2;

		/* within an eighth: 8 |value - rest| < range */
		a->armed = 4 * (off2 < 0 ? -off2 : off2) < range;
	}
}

void input_rules_init(struct input_dev_state *d, const struct input_caps *caps, uint64_t t_us)
{
	bool abs_pointer;

	memset(d, 0, sizeof(*d));
	d->last_us = t_us;
	d->ignored = input_caps_has_prop(caps, INPUT_PROP_ACCELEROMETER);
	d->touch = input_caps_has(caps, EV_KEY, BTN_TOUCH);
	abs_pointer = !d->touch && input_caps_has(caps, EV_KEY, BTN_LEFT) &&
		      input_caps_has(caps, EV_ABS, ABS_X);
	for (unsigned code = 0; code <= ABS_MAX; code++) {
		enum input_axis_class cls = AXIS_IGNORED;

		/* a touch device's axes say where the touch is, not that
		 * there is one (BTN_TOUCH does) */
		if (input_caps_has(caps, EV_ABS, code) && !d->touch)
			cls = axis_class(caps, abs_pointer, code);
		axis_init(&d->axis[code], cls, &caps->abs[code]);
	}
}

static struct input_verdict *verdict(struct input_verdict *out, size_t *n_out, bool counted,
				     enum input_kind kind, uint64_t t_us, unsigned n)
{
	struct input_verdict *v = &out[(*n_out)++];

	v->counted = counted;
	v->kind = kind;
	v->t_us = t_us;
	v->n = n;
	v->detail[0] = '\0';
	return v;
}

/* --- pointer motion: bursts and the 10 s window ----------------------------------- */

static void window_clear(struct input_dev_state *d)
{
	memset(d->bucket, 0, sizeof(d->bucket));
	d->window_sum = 0;
	d->window_started = false;
}

/* Moves the window so its newest bucket holds time t. */
static void window_advance(struct input_dev_state *d, uint64_t t_us)
{
	uint64_t epoch = t_us / INPUT_BUCKET_US;

	if (!d->window_started) {
		d->bucket_epoch = epoch;
		d->window_started = true;
		return;
	}
	if (epoch <= d->bucket_epoch)
		return;
	if (epoch - d->bucket_epoch >= INPUT_N_BUCKETS) {
		window_clear(d);
		d->bucket_epoch = epoch;
		d->window_started = true;
		return;
	}
	while (d->bucket_epoch < epoch) {
		uint32_t *b = &d->bucket[++d->bucket_epoch % INPUT_N_BUCKETS];

		d->window_sum -= *b;
		*b = 0;
	}
}

static void burst_close(struct input_dev_state *d, struct input_verdict *out, size_t *n_out)
{
	uint64_t len = d->burst_last_us - d->burst_start_us;
	struct input_verdict *v;

	if (!d->burst_open)
		return;
	d->burst_open = false;
	if (len >= INPUT_BURST_LONG_US)
		d->burst_deliberate = true;
	v = verdict(out, n_out, d->burst_deliberate, d->burst_deliberate ? INPUT_MOTION : INPUT_BUMP,
		    d->burst_start_us, 1);
	snprintf(v->detail, sizeof(v->detail), "mouse motion %.2f s, %llu counts%s",
		 (double)len / 1e6, (unsigned long long)d->burst_counts,
		 len >= INPUT_BURST_LONG_US ? ""
		 : d->burst_by_window ? " (1500 counts within 10 s)"
		 : " (a bump: under 2 s and 1500 counts in 10 s)");
	if (d->burst_deliberate)
		window_clear(d);
}

static void motion(struct input_dev_state *d, uint64_t t_us, uint64_t counts,
		   struct input_verdict *out, size_t *n_out)
{
	if (d->burst_open && t_us > d->burst_last_us + INPUT_BURST_GAP_US)
		burst_close(d, out, n_out);
	if (!d->burst_open) {
		d->burst_open = true;
		d->burst_deliberate = false;
		d->burst_by_window = false;
		d->burst_start_us = t_us;
		d->burst_counts = 0;
	}
	d->burst_last_us = t_us;
	d->burst_counts += counts;
	window_advance(d, t_us);
	d->bucket[d->bucket_epoch % INPUT_N_BUCKETS] += (uint32_t)(counts > UINT32_MAX ? UINT32_MAX : counts);
	d->window_sum += counts > UINT32_MAX ? UINT32_MAX : counts;
	if (d->window_sum >= INPUT_WINDOW_COUNTS && !d->burst_deliberate) {
		d->burst_deliberate = true;
		d->burst_by_window = true;
	}
}

/* --- the event handler ------------------------------------------------------------ */

static void key_event(struct input_dev_state *d, uint64_t t_us, unsigned code, int value,
		      struct input_verdict *out, size_t *n_out)
{
	enum input_kind kind = input_key_kind(code);
	struct input_verdict *v;

	if (value != 1 || kind == INPUT_N_KINDS)
		return;
	v = verdict(out, n_out, true, kind, t_us, 1);
	snprintf(v->detail, sizeof(v->detail), "%s",
		 kind == INPUT_KEY ? "key press" : kind == INPUT_BUTTON ? "button press" : "touch");
}

static void wheel_steps(uint64_t t_us, unsigned code, unsigned steps, struct input_verdict *out,
			size_t *n_out)
{
	struct input_verdict *v = verdict(out, n_out, true, INPUT_WHEEL, t_us, steps);

	snprintf(v->detail, sizeof(v->detail), "%s %u step%s",
		 code == REL_DIAL ? "dial" : code == REL_HWHEEL ? "horizontal wheel" : "wheel", steps,
		 steps == 1 ? "" : "s");
}

static void rel_event(struct input_dev_state *d, uint64_t t_us, unsigned code, int value,
		      struct input_verdict *out, size_t *n_out)
{
	unsigned mag = value < 0 ? 0u - (unsigned)value : (unsigned)value;
	int w;

	switch (code) {
	case REL_X: case REL_Y: case REL_Z: case REL_RX: case REL_RY: case REL_RZ:
		if (mag)
			motion(d, t_us, mag, out, n_out);
		return;
	case REL_WHEEL: case REL_HWHEEL:
		d->lowres_in_frame[code == REL_HWHEEL] = true;
		/* fall through */
	case REL_DIAL:
		if (mag)
			wheel_steps(t_us, code, mag, out, n_out);
		return;
	case REL_WHEEL_HI_RES: case REL_HWHEEL_HI_RES:
		w = code == REL_HWHEEL_HI_RES;
		/* a change of direction starts the count afresh */
		if ((value < 0) != (d->hires_acc[w] < 0))
			d->hires_acc[w] = 0;
		d->hires_acc[w] += value;
		while (d->hires_acc[w] >= INPUT_HIRES_NOTCH || d->hires_acc[w] <= -INPUT_HIRES_NOTCH) {
			d->hires_frame_steps[w]++;
			d->hires_acc[w] += d->hires_acc[w] > 0 ? -INPUT_HIRES_NOTCH : INPUT_HIRES_NOTCH;
		}
		return;
	default:
		return;
	}
}

/* The end of a SYN frame: hi-res steps count unless the frame carried the
 * low-resolution event for the same notches. */
static void frame_end(struct input_dev_state *d, uint64_t t_us, struct input_verdict *out,
		      size_t *n_out)
{
	for (int w = 0; w < 2; w++) {
		if (d->lowres_in_frame[w]) {
			d->hires_acc[w] = 0;
		} else if (d->hires_frame_steps[w]) {
			struct input_verdict *v = verdict(out, n_out, true, INPUT_WHEEL, t_us,
							  (unsigned)d->hires_frame_steps[w]);

			snprintf(v->detail, sizeof(v->detail), "%s %d step%s (high resolution)",
				 w ? "horizontal wheel" : "wheel", d->hires_frame_steps[w],
				 d->hires_frame_steps[w] == 1 ? "" : "s");
		}
		d->hires_frame_steps[w] = 0;
		d->lowres_in_frame[w] = false;
	}
}

static const char *abs_name(unsigned code)
{
	static const char *const names[] = {
		[ABS_X] = "ABS_X",           [ABS_Y] = "ABS_Y",     [ABS_Z] = "ABS_Z",
		[ABS_RX] = "ABS_RX",         [ABS_RY] = "ABS_RY",   [ABS_RZ] = "ABS_RZ",
		[ABS_THROTTLE] = "ABS_THROTTLE", [ABS_RUDDER] = "ABS_RUDDER",
		[ABS_WHEEL] = "ABS_WHEEL",   [ABS_GAS] = "ABS_GAS", [ABS_BRAKE] = "ABS_BRAKE",
	};
	return code < sizeof(names) / sizeof(names[0]) && names[code] ? names[code] : "ABS_?";
}

static void abs_event(struct input_dev_state *d, uint64_t t_us, unsigned code, int value,
		      struct input_verdict *out, size_t *n_out)
{
	struct input_axis_state *a;
	struct input_verdict *v;
	int64_t off2;

	if (code > ABS_MAX)
		return;
	a = &d->axis[code];
	switch (a->cls) {
	case AXIS_HAT: {
		unsigned hat = (code - ABS_HAT0X) / 2;
		bool pressed;

		a->value = value;
		pressed = d->axis[ABS_HAT0X + 2 * hat].value || d->axis[ABS_HAT0Y + 2 * hat].value;
		if (pressed && !d->hat_pressed[hat]) {
			v = verdict(out, n_out, true, INPUT_HAT, t_us, 1);
			snprintf(v->detail, sizeof(v->detail), "hat %u pressed", hat);
		}
		d->hat_pressed[hat] = pressed;
		return;
	}
	case AXIS_POINTER: {
		int64_t delta = a->has_last ? (int64_t)value - a->last : 0;

		a->last = value;
		a->has_last = true;
		if (delta < 0)
			delta = -delta;
		delta = delta * INPUT_ABS_POINTER_SCALE / a->range;
		if (delta)
			motion(d, t_us, (uint64_t)delta, out, n_out);
		return;
	}
	case AXIS_STICK:
	case AXIS_TRIGGER:
		a->value = value;
		off2 = 2 * (int64_t)value - a->rest2;
		if (off2 < 0)
			off2 = -off2;
		/* a quarter or more away, 4 |value - rest| >= range, leaves
		 * rest; within an eighth, 8 |value - rest| < range, is back */
		if (a->armed && 2 * off2 >= a->range) {
			a->armed = false;
			v = verdict(out, n_out, true, a->cls == AXIS_STICK ? INPUT_STICK : INPUT_TRIGGER,
				    t_us, 1);
			snprintf(v->detail, sizeof(v->detail), "%s %s left rest (quarter of range)",
				 a->cls == AXIS_STICK ? "stick" : "trigger", abs_name(code));
		} else if (!a->armed && 4 * off2 < a->range) {
			a->armed = true;
		}
		return;
	default:
		return;
	}
}

void input_rules_event(struct input_dev_state *d, uint64_t t_us, unsigned type, unsigned code,
		       int value, struct input_verdict *out, size_t *n_out)
{
	*n_out = 0;
	if (d->ignored)
		return;
	/* a burst whose gap has passed ends before anything later is judged */
	if (d->burst_open && t_us > d->burst_last_us + INPUT_BURST_GAP_US)
		burst_close(d, out, n_out);
	d->last_us = t_us;
	switch (type) {
	case EV_SYN:
		if (code == SYN_REPORT)
			frame_end(d, t_us, out, n_out);
		return;
	case EV_KEY:
		key_event(d, t_us, code, value, out, n_out);
		return;
	case EV_REL:
		rel_event(d, t_us, code, value, out, n_out);
		return;
	case EV_ABS:
		abs_event(d, t_us, code, value, out, n_out);
		return;
	default:
		return;
	}
}

void input_rules_tick(struct input_dev_state *d, uint64_t t_us, struct input_verdict *out,
		      size_t *n_out)
{
	*n_out = 0;
	if (d->burst_open && t_us > d->burst_last_us + INPUT_BURST_GAP_US)
		burst_close(d, out, n_out);
}

void input_rules_end(struct input_dev_state *d, uint64_t t_us, struct input_verdict *out,
		     size_t *n_out)
{
	*n_out = 0;
	/* a frame cut short (no SYN_REPORT yet) still had its hi-res steps */
	frame_end(d, t_us, out, n_out);
	burst_close(d, out, n_out);
}
