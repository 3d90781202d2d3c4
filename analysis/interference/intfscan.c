/*
 * Interference in old runs: the log matchers, the games' action patterns
 * and the scan of a run directory (contract and log formats in
 * intfscan.h; what it finds in docs/interference.md, "Old runs").
 */
#include "interference/intfscan.h"
#include "base/timeutil.h"
#include "text/inifile.h"
#include "text/kvfile.h"
#include "text/regexlimit.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *intf_kind_name(enum intf_kind kind)
{
	static const char *const names[INTF_N_KINDS] = {
		[INTF_VT_AWAY] = "VT switch away",
		[INTF_VT_BACK] = "VT switch back",
		[INTF_INPUT_ADDED] = "input device added",
		[INTF_INPUT_REMOVED] = "input device removed",
		[INTF_USB_CONNECT] = "USB connect",
		[INTF_USB_DISCONNECT] = "USB disconnect",
		[INTF_KERNEL_INPUT] = "new input device",
		[INTF_BLUETOOTH_HID] = "Bluetooth HID device",
		[INTF_PLAYER_ACTION] = "player action",
	};

	return kind < INTF_N_KINDS ? names[kind] : "?";
}

/* "SEC[.FRACTION]" of exactly len bytes into ns (fraction digits past the
 * ninth are dropped). 0 or -EINVAL. */
static int parse_seconds_ns(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	size_t i = 0, digits = 0;

	for (; i < len && isdigit((unsigned char)s[i]); i++, digits++) {
		if (sec > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (!digits)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		}
	}
	if (i != len)
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

const char *intf_stamp_bracket(const char *line, uint64_t *ns, bool *have)
{
	const char *s = line, *close;

	*have = false;
	if (*s != '[')
		return line;
	s++;
	while (*s == ' ')
		s++;
	close = strchr(s, ']');
	if (!close || parse_seconds_ns(s, (size_t)(close - s), ns) < 0)
		return line;
	*have = true;
	s = close + 1;
	if (*s == ' ')
		s++;
	return s;
}

const char *intf_stamp_kmsg(const char *line, uint64_t *ns, bool *have)
{
	const char *s = line, *semi = strchr(line, ';'), *usec = NULL;
	char *digits;
	uint64_t v;
	int r;

	*have = false;
	if (!semi)
		return line;
	/* PRIORITY,SEQUENCE,USEC,FLAGS[,...]; (the kernel's
	 * Documentation/ABI/testing/dev-kmsg): three numbers, each before a ',' */
	for (int field = 0; field < 3; field++) {
		const char *start = s;

		while (s < semi && isdigit((unsigned char)*s))
			s++;
		if (s == start || *s != ',')
			return line;
		if (field == 2)
			usec = start;
		s++;
	}
	digits = xstrndup(usec, (size_t)(s - 1 - usec));
	r = safe_atou64(digits, &v);
	free(digits);
	if (r < 0 || v > UINT64_MAX / 1000)
		return line;
	*ns = v * 1000;
	*have = true;
	return semi + 1;
}

const char *intf_stamp_kernel(const char *line, uint64_t *ns, bool *have)
{
	const char *k = strstr(line, " kernel: "), *msg;

	if (k)
		line = k + strlen(" kernel: ");
	msg = intf_stamp_bracket(line, ns, have);
	return *have ? msg : intf_stamp_kmsg(line, ns, have);
}

static void set_detail(struct intf_line *m, const char *s, size_t len)
{
	if (len >= sizeof(m->detail))
		len = sizeof(m->detail) - 1;
	memcpy(m->detail, s, len);
	m->detail[len] = '\0';
}

/* After "config/BACKEND: " (udev, and the older hal), the rest. */
static const char *config_message(const char *msg)
{
	const char *s = strstr(msg, "config/");

	if (!s)
		return NULL;
	s += strlen("config/");
	while (isalpha((unsigned char)*s))
		s++;
	return str_startswith(s, ": ") ? s + 2 : NULL;
}

/* Formats: xorg-server's config/udev.c device_added() ("Adding input device
 * %s (%s)"), config/config.c remove_device() ("config/%s: removing device
 * %s"), glx's AIGLX suspend/resume lines and hw/xfree86/os-support/linux/
 * systemd-logind.c ("systemd-logind: got pause for %u:%u", "got resume"). */
int intf_match_xserver(const char *msg, struct intf_line *m)
{
	const char *rest = config_message(msg);

	memset(m, 0, sizeof(*m));
	if (strstr(msg, "Suspending AIGLX clients for VT switch") ||
	    strstr(msg, "systemd-logind: got pause for ")) {
		m->kind = INTF_VT_AWAY;
		return 1;
	}
	if (strstr(msg, "Resuming AIGLX clients after VT switch") ||
	    strstr(msg, "systemd-logind: got resume for ")) {
		m->kind = INTF_VT_BACK;
		return 1;
	}
	if (!rest)
		return 0;
	if (str_startswith(rest, "Adding input device ")) {
		const char *name = rest + strlen("Adding input device ");
		const char *paren = strrchr(name, '(');
		size_t len = strlen(name);

		if (paren && paren > name && paren[-1] == ' ')
			len = (size_t)(paren - 1 - name);
		m->kind = INTF_INPUT_ADDED;
		set_detail(m, name, len);
	} else if (str_startswith(rest, "removing device ")) {
		const char *name = rest + strlen("removing device ");

		m->kind = INTF_INPUT_REMOVED;
		set_detail(m, name, strlen(name));
	} else {
		return 0;
	}
	m->exempt = str_startswith(m->detail, INTF_HARNESS_DEVICE);
	return 1;
}

/* "usb PORT: " at the start: PORT, or NULL. */
static const char *usb_port(const char *msg, size_t *len)
{
	const char *s;

	if (!str_startswith(msg, "usb "))
		return NULL;
	s = msg + 4;
	*len = strcspn(s, ": ");
	return *len && s[*len] == ':' && s[*len + 1] == ' ' ? s : NULL;
}

/* Formats: drivers/usb/core/hub.c hub_port_init() ("%s %s USB device number
 * %d using %s", "new" or "reset") and usb_disconnect() ("USB disconnect,
 * device number %d"), both through dev_info as "usb PORT: ...";
 * drivers/input/input.c input_register_device() ("input: %s as %s");
 * drivers/hid/hid-core.c hid_connect() ("%s: %s HID v%x.%02x %s [%s] on
 * %s", the bus "BLUETOOTH"). */
int intf_match_kernel(const char *msg, struct intf_line *m)
{
	const char *port, *s;
	size_t len;

	memset(m, 0, sizeof(*m));
	if ((port = usb_port(msg, &len))) {
		s = port + len + 2;
		if (str_startswith(s, "new ") && strstr(s, " USB device number "))
			m->kind = INTF_USB_CONNECT;
		else if (str_startswith(s, "USB disconnect, device number "))
			m->kind = INTF_USB_DISCONNECT;
		else
			return 0;
		set_detail(m, port, len);
		return 1;
	}
	if (str_startswith(msg, "input: ")) {
		const char *name = msg + strlen("input: ");
		const char *as = strstr(name, " as /");

		if (!as)
			return 0;
		m->kind = INTF_KERNEL_INPUT;
		set_detail(m, name, (size_t)(as - name));
		m->exempt = str_startswith(as + 4, "/devices/virtual/input/") ||
			    str_startswith(m->detail, INTF_HARNESS_DEVICE);
		return 1;
	}
	if ((s = strstr(msg, ": BLUETOOTH HID v"))) {
		const char *open = strchr(s, '['), *close = open ? strrchr(open, ']') : NULL;

		m->kind = INTF_BLUETOOTH_HID;
		if (open && close)
			set_detail(m, open + 1, (size_t)(close - open - 1));
		m->exempt = str_startswith(m->detail, INTF_HARNESS_DEVICE);
		return 1;
	}
	return 0;
}

/* ---- the games' action patterns ---- */

void intf_actions_init(struct intf_actions *a)
{
	memset(a, 0, sizeof(*a));
}

static void actions_free(struct intf_action *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].pattern);
		free(v[i].why);
		regfree(&v[i].re);
	}
	free(v);
}

void intf_actions_release(struct intf_actions *a)
{
	if (!a)
		return;
	actions_free(a->v, a->n);
	free(a->source);
	intf_actions_init(a);
}

/* interference.ini as an INI format: no sections, 'action' and 'why'. */
struct actions_ini {
	struct intf_action *v;
	size_t n;
};

/* The last action needs its why before another action or the end. */
static int check_last_why(struct ini *ini, const struct actions_ini *ai)
{
	if (ai->n && !ai->v[ai->n - 1].why)
		return ini_fail_at(ini, ai->v[ai->n - 1].line, "the action has no 'why' (each "
				   "action says why it is a player's doing)");
	return 0;
}

static int on_action_key(struct ini *ini, void *user, const char *section, const char *key,
			 const char *value)
{
	struct actions_ini *ai = user;
	struct intf_action *last;
	char *joined;

	if (!*value)
		return ini_fail(ini, "empty value for '%s'", key);
	if (!strcmp(key, "action")) {
		struct strbuf why = STRBUF_INIT;
		int e = check_last_why(ini, ai);

		if (e < 0)
			return e;
		ai->v = xrealloc(ai->v, (ai->n + 1) * sizeof(*ai->v));
		last = &ai->v[ai->n];
		memset(last, 0, sizeof(*last));
		if (regex_compile(&last->re, value, &why) < 0) {
			e = ini_fail(ini, "bad action pattern '%s': %s", value, why.buf);
			strbuf_release(&why);
			return e;
		}
		last->pattern = xstrdup(value);
		last->line = ini_line(ini);
		ai->n++;
		return 0;
	}
	if (strcmp(key, "why"))
		return ini_fail(ini, "unknown key '%s' (interference.ini has 'action' and 'why')", key);
	if (!ai->n)
		return ini_fail(ini, "'why' before any 'action'");
	last = &ai->v[ai->n - 1];
	joined = last->why ? xasprintf("%s %s", last->why, value) : xstrdup(value);
	free(last->why);
	last->why = joined;
	return 0;
}

static int on_actions_end(struct ini *ini, void *user)
{
	return check_last_why(ini, user);
}

static const struct ini_format actions_format = {
	.what = "an interference.ini",
	.expected = "expected 'action = PATTERN' or 'why = TEXT'",
	.key = on_action_key,
	.end = on_actions_end,
};

/* Hands the actions of a parse (result e) over to a when it went well. */
static int actions_done(int e, struct actions_ini *ai, const char *path, struct intf_actions *a)
{
	if (e < 0) {
		actions_free(ai->v, ai->n);
		return e;
	}
	intf_actions_release(a);
	a->v = ai->v;
	a->n = ai->n;
	a->source = xstrdup(path);
	return 0;
}

int intf_actions_parse(struct intf_actions *a, const char *text, const char *path,
		       struct strbuf *err)
{
	struct actions_ini ai = { NULL, 0 };
	int e = ini_parse_text(&actions_format, text, strlen(text), path, &ai, err);

	return actions_done(e, &ai, path, a);
}

/* DIR/GAME/interference.ini in the first of dirs (n of them, NULLs
 * skipped) that has one. 0 read; -ENOENT none (a untouched); -EINVAL or -errno
 * with err. */
static int intf_actions_load(struct intf_actions *a, const char *const *dirs, size_t n_dirs,
			     const char *game, struct strbuf *err)
{
	for (size_t i = 0; i < n_dirs; i++) {
		struct actions_ini ai = { NULL, 0 };
		struct strbuf why = STRBUF_INIT;
		char *path;
		int e;

		if (!dirs[i])
			continue;
		path = xasprintf("%s/%s/%s", dirs[i], game, INTF_ACTIONS_FILE);
		e = ini_load(&actions_format, path, &ai, &why);
		/* a game without the file in this directory: the next one */
		if (e != -ENOENT && why.buf)
			strbuf_addstr(err, why.buf);
		if (e != -ENOENT)
			e = actions_done(e, &ai, path, a);
		strbuf_release(&why);
		free(path);
		if (e != -ENOENT)
			return e;
	}
	return -ENOENT;
}

int intf_actions_match(const struct intf_actions *a, const char *text)
{
	for (size_t i = 0; i < a->n; i++)
		if (regexec(&a->v[i].re, text, 0, NULL, 0) == 0)
			return (int)i;
	return -1;
}

/* ---- the scan ---- */

void intf_scan_init(struct intf_scan *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->logs_read);
}

static void evidence_free(struct intf_evidence *e)
{
	free(e->log);
	free(e->detail);
	free(e->why);
	free(e->text);
}

void intf_scan_release(struct intf_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		evidence_free(&s->v[i]);
	free(s->v);
	free(s->name);
	free(s->run_id);
	free(s->game);
	strbuf_release(&s->logs_read);
	intf_scan_init(s);
}

/* The run's clocks from bench.txt (all CLOCK_MONOTONIC ns). */
struct run_clock {
	bool have_base, have_range, have_window;
	uint64_t base_ns;               /* what times count from */
	uint64_t start_ns, end_ns;      /* the run's time: log lines outside it are not its */
	uint64_t window_start_ns, window_end_ns;
	bool base_is_first_frame;
};

static bool get_u64(const struct kvfile *kf, const char *key, uint64_t *out)
{
	const char *v = kvfile_get(kf, key);

	return v && safe_atou64(v, out) == 0;
}

static bool get_utc(const struct kvfile *kf, const char *key, time_t *out)
{
	return utc_iso8601_parse(kvfile_get(kf, key), out) == 0;
}

/* The run's time: from the clock pair (read as the run started) or pass 1's
 * start, whichever is earlier, to the latest of the window's end, the last
 * present and the start plus ended_utc - started_utc + 1 s (the UTC times
 * are whole seconds). */
static void run_clock_read(const struct kvfile *bench, struct run_clock *c)
{
	uint64_t v, pair = 0, pass1 = 0;
	bool have_pair = false, have_pass1 = get_u64(bench, "pass.1.start_ns", &pass1);
	const char *cp = kvfile_get(bench, "clock_pair");
	time_t t0, t1;

	memset(c, 0, sizeof(*c));
	if (cp) {
		char *first = xstrndup(cp, strcspn(cp, " "));

		have_pair = safe_atou64(first, &pair) == 0;
		free(first);
	}
	if (have_pair || have_pass1) {
		c->have_range = true;
		c->start_ns = have_pair && (!have_pass1 || pair < pass1) ? pair : pass1;
		c->end_ns = c->start_ns;
		if (get_utc(bench, "started_utc", &t0) && get_utc(bench, "ended_utc", &t1) && t1 >= t0)
			c->end_ns = u64_add_sat(c->start_ns,
						 u64_mul_sat((uint64_t)(t1 - t0) + 1, 1000000000ULL));
		if (get_u64(bench, "window_end_ns", &v) && v > c->end_ns)
			c->end_ns = v;
		if (get_u64(bench, "last_present_ns", &v) && v > c->end_ns)
			c->end_ns = v;
	}
	if (get_u64(bench, "first_frame_ns", &c->base_ns)) {
		c->have_base = c->base_is_first_frame = true;
	} else if (c->have_range) {
		c->have_base = true;
		c->base_ns = c->start_ns;
	}
	c->have_window = get_u64(bench, "window_start_ns", &c->window_start_ns) &&
			 get_u64(bench, "window_end_ns", &c->window_end_ns);
}

struct scan_state {
	struct intf_scan *out;
	struct run_clock clock;
	const struct intf_actions *actions;
};

static const char *phase_of(const struct run_clock *c, uint64_t ns)
{
	if (!c->base_is_first_frame)
		return NULL;
	if (ns < c->base_ns)
		return "load";
	if (!c->have_window)
		return NULL;
	if (ns < c->window_start_ns)
		return "warm-up";
	return ns <= c->window_end_ns ? "window" : "after the window";
}

/* Adds a line's evidence, or merges it into the burst it continues. */
static void add_evidence(struct scan_state *st, const char *log, int line, enum intf_kind kind,
			 const char *detail, const char *why, bool have_ns, uint64_t ns,
			 const char *text)
{
	struct intf_scan *out = st->out;
	bool timed = have_ns && st->clock.have_base;
	double t = timed ? ((double)ns - (double)st->clock.base_ns) / 1e9 : 0;
	struct intf_evidence *e;

	for (size_t i = out->n; i-- > 0;) {
		e = &out->v[i];
		if (e->kind != kind || strcmp(e->log, log) || strcmp(e->detail, detail))
			continue;
		if (e->timed != timed)
			break;
		if (timed ? t - e->t_last_s <= INTF_BURST_S : line == e->line + e->lines) {
			e->lines++;
			e->t_last_s = t;
			return;
		}
		break;
	}
	out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
	e = &out->v[out->n++];
	*e = (struct intf_evidence){
		.kind = kind,
		.log = xstrdup(log),
		.line = line,
		.lines = 1,
		.timed = timed,
		.t_s = t,
		.t_last_s = t,
		.phase = timed ? phase_of(&st->clock, ns) : NULL,
		.detail = xstrdup(detail),
		.why = why ? xstrdup(why) : NULL,
		.text = xstrdup(text),
	};
}

enum log_type { LOG_XSERVER, LOG_KERNEL, LOG_GAME };

/* game.log: "SECONDS.MICROSECONDS<TAB>LINE" (docs/formats.md). */
static const char *game_stamp(const char *line, uint64_t *ns, bool *have)
{
	const char *tab = strchr(line, '\t');

	*have = tab && parse_seconds_ns(line, (size_t)(tab - line), ns) == 0;
	return *have ? tab + 1 : line;
}

static int scan_log(struct scan_state *st, const char *dir, const char *log, enum log_type type,
		    struct strbuf *err)
{
	char *path = xasprintf("%s/%s", dir, log), *text = NULL, *s;
	size_t len;
	int e = read_file(path, &text, &len), line = 0;

	if (e == -ENOENT) {
		e = 0;
		goto out;
	}
	if (e < 0) {
		strbuf_addf(err, "cannot read '%s': %s", path, strerror(-e));
		goto out;
	}
	e = 1;
	for (s = text; s < text + len;) {
		char *end = memchr(s, '\n', (size_t)(text + len - s));
		const char *msg;
		struct intf_line m;
		const char *why = NULL;
		uint64_t ns = 0;
		bool have = false;
		int matched;

		if (!end)
			end = text + len;
		*end = '\0';
		if (end > s && end[-1] == '\r')
			end[-1] = '\0';
		line++;
		if (type == LOG_XSERVER) {
			msg = intf_stamp_bracket(s, &ns, &have);
			matched = intf_match_xserver(msg, &m);
		} else if (type == LOG_KERNEL) {
			msg = intf_stamp_kernel(s, &ns, &have);
			matched = intf_match_kernel(msg, &m);
		} else {
			int i;

			msg = game_stamp(s, &ns, &have);
			if (!have && *s) {
				strbuf_addf(err, "%s:%d: expected 'SECONDS.MICROSECONDS<TAB>LINE'", path,
					    line);
				e = -EINVAL;
				goto out;
			}
			i = intf_actions_match(st->actions, msg);
			matched = i >= 0;
			if (matched) {
				memset(&m, 0, sizeof(m));
				m.kind = INTF_PLAYER_ACTION;
				set_detail(&m, st->actions->v[i].pattern, strlen(st->actions->v[i].pattern));
				why = st->actions->v[i].why;
			}
		}
		s = end + 1;
		if (!matched)
			continue;
		if (m.exempt) {
			st->out->exempt++;
			continue;
		}
		/* game.log is the run's own from its first line to its last */
		if (type != LOG_GAME && have && st->clock.have_range &&
		    (ns < st->clock.start_ns || ns > st->clock.end_ns)) {
			st->out->outside++;
			continue;
		}
		add_evidence(st, log, line, m.kind, m.detail, why, have, ns, msg);
	}
out:
	free(text);
	free(path);
	return e;
}

static void note_log(struct intf_scan *out, const char *log)
{
	if (out->logs_read.len)
		strbuf_addstr(&out->logs_read, ", ");
	strbuf_addstr(&out->logs_read, log);
}

int intf_scan_run(const char *dir, const char *const *gamedb_dirs, size_t n_dirs,
		  struct intf_scan *out, struct strbuf *err)
{
	static const char *const kernel_logs[] = { "kernel.log", "dmesg.log" };
	struct scan_state st = { .out = out };
	struct intf_actions actions;
	struct kvfile bench;
	char *path = xasprintf("%s/bench.txt", dir), *pattern = NULL, *trimmed = xstrdup(dir);
	const char *base, *v;
	glob_t g = { 0 };
	int e;
	size_t len = strlen(trimmed);

	kvfile_init_repeats(&bench, kvfile_bench_repeats);
	intf_actions_init(&actions);
	intf_scan_release(out);
	while (len > 1 && trimmed[len - 1] == '/')
		trimmed[--len] = '\0';
	base = strrchr(trimmed, '/');
	out->name = xstrdup(base ? base + 1 : trimmed);
	e = kvfile_load(&bench, path, err);
	if (e < 0)
		goto out;
	if ((v = kvfile_get(&bench, "run_id")))
		out->run_id = xstrdup(v);
	out->game = xstrdup((v = kvfile_get(&bench, "game")) ? v : "");
	run_clock_read(&bench, &st.clock);
	out->base = !st.clock.have_base ? NULL : st.clock.base_is_first_frame ? "the first frame" :
		    "the run's start";

	/* the X server's logs: the runner's own, then Xorg's copied beside it */
	e = scan_log(&st, dir, "xserver.log", LOG_XSERVER, err);
	if (e < 0)
		goto out;
	if (e > 0) {
		out->logs |= INTF_LOG_XSERVER;
		note_log(out, "xserver.log");
	}
	pattern = xasprintf("%s/Xorg.*.log", dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *name = strrchr(g.gl_pathv[i], '/') + 1;

			e = scan_log(&st, dir, name, LOG_XSERVER, err);
			if (e < 0)
				goto out;
			out->logs |= INTF_LOG_XSERVER;
			note_log(out, name);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(kernel_logs); i++) {
		e = scan_log(&st, dir, kernel_logs[i], LOG_KERNEL, err);
		if (e < 0)
			goto out;
		if (e > 0) {
			out->logs |= INTF_LOG_KERNEL;
			note_log(out, kernel_logs[i]);
		}
	}
	e = *out->game ? intf_actions_load(&actions, gamedb_dirs, n_dirs, out->game, err) : -ENOENT;
	if (e == -ENOENT) {
		e = 0;
	} else if (e < 0) {
		goto out;
	} else {
		st.actions = &actions;
		e = scan_log(&st, dir, "game.log", LOG_GAME, err);
		if (e < 0)
			goto out;
		if (e > 0) {
			out->logs |= INTF_LOG_GAME;
			note_log(out, "game.log");
			strbuf_addf(&out->logs_read, " (%s)", actions.source);
		}
	}
	e = 0;
out:
	globfree(&g);
	free(pattern);
	free(path);
	free(trimmed);
	kvfile_release(&bench);
	intf_actions_release(&actions);
	return e;
}

void intf_evidence_describe(const struct intf_evidence *e, struct strbuf *out)
{
	char first[32], last[32];

	strbuf_addstr(out, intf_kind_name(e->kind));
	if (*e->detail)
		strbuf_addf(out, " '%s'", e->detail);
	if (e->lines > 1)
		strbuf_addf(out, " x%d", e->lines);
	if (!e->timed) {
		strbuf_addstr(out, " (time unknown)");
		return;
	}
	snprintf(first, sizeof(first), "%.1f", e->t_s);
	snprintf(last, sizeof(last), "%.1f", e->t_last_s);
	strbuf_addf(out, " at %s%s%s s", first, strcmp(first, last) ? "-" : "",
		    strcmp(first, last) ? last : "");
	if (e->phase)
		strbuf_addf(out, " (%s)", e->phase);
}

char *intf_scan_summary(const struct intf_scan *s, size_t max_items)
{
	struct strbuf sb = STRBUF_INIT;
	const char *log = NULL;
	size_t shown = 0;

	for (size_t i = 0; i < s->n && shown < max_items; i++, shown++) {
		const struct intf_evidence *e = &s->v[i];

		if (!log || strcmp(log, e->log)) {
			strbuf_addf(&sb, "%s%s: ", log ? "; " : "", e->log);
			log = e->log;
		} else {
			strbuf_addstr(&sb, ", ");
		}
		intf_evidence_describe(e, &sb);
	}
	if (shown < s->n)
		strbuf_addf(&sb, "; %zu more", s->n - shown);
	return strbuf_detach(&sb);
}
