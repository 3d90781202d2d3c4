/*
 * hitchbench-input: plays a recipe's [input] steps into the game, beside
 * it, started by the runner just before the game's first launch and
 * stopped (SIGTERM) after the game.
 *
 *   hitchbench-input --driver xtest|uinput --game-log FILE [--display :N]
 *                    [--xauth FILE] [--name NAME] -- STEP...
 *   hitchbench-input --dry-run [--driver xtest|uinput] [--name NAME] -- STEP...
 *
 * Each STEP is one [input] step as the recipe writes it ("key Return"),
 * or a recipe's play as "play RECORDING" or "play DESC EVENTS" (paths
 * made absolute by the recipe reader; input-play.c plays them with
 * libevemu). Every recorded device is made at the start, before the game
 * launches, named "NAME play K" (K: its step's number), so the game finds
 * it as it would a pad plugged in; its events are played when its step
 * comes. The driver's own device or X connection is opened only when a
 * step needs it. --dry-run checks the steps, reads each recording with
 * libevemu and prints the plan (the devices it would make, their events
 * and length) without X, uinput or a game log.
 * wait_line reads the run's game.log (the runner stamps each line of the
 * game's output into it as it comes) through inotify: the game's output
 * stays the runner's, and nothing here runs as the game's user. The log
 * goes to stdout (the runner makes it input.log; docs/formats.md):
 *
 *   # hitchbench-input 1 driver=xtest steps=N
 *   # device SYSPATH NAME                         (uinput, and a device a play)
 *   # play K recorded "NAME" (bus B vendor V product P version X)   (a play)
 *   MONO_S.US<TAB>N<TAB>STEP<TAB>OUTCOME          (one a step played)
 *   # end played=N of M[: why it stopped early]
 *
 * Exit 0 when every step played (uinput: after SIGTERM, the device stays
 * until then so the game never sees it go away mid-run), or when stopped
 * by SIGTERM; 1 when a step failed; 2 for bad usage or a bad step.
 */
#include "base/message.h"
#include "base/exitcodes.h"
#include "input-internal.h"
#include "system/sandbox.h"
#include "text/regexlimit.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define HOLD_MS 40  /* a key or button held this long: games that poll key state see it */
#define GAP_MS 40   /* between the characters of a type step */

struct player {
	struct input_sink sink;
	struct input_step *steps;
	size_t n_steps;
	const char *game_log;
	int log_fd;                 /* game.log, read as it grows */
	int inotify_fd;
	int signal_fd;
	struct strbuf pending;      /* a game.log line not ended yet */
	bool stopped;               /* SIGTERM or SIGINT */
	bool sink_open;             /* a step needs the driver: it was opened */
	struct input_play *plays;   /* per step: a play's recorded device */
	size_t n_devices;           /* devices made: the driver's and the plays' */
};

int sink_key(struct input_sink *s, unsigned code, bool down, struct strbuf *err)
{
	return s->driver == INPUT_XTEST ? xtest_key(s, code, down, err) : uinput_key(s, code, down, err);
}

int sink_type_char(struct input_sink *s, char c, unsigned hold_ms, struct strbuf *err)
{
	unsigned code, shift_code;
	bool shift;
	int r;

	if (s->driver == INPUT_XTEST)
		return xtest_type_char(s, c, hold_ms, err);
	if (input_char_code(s->driver, c, &code, &shift) < 0 ||
	    input_key_code(s->driver, "shift", &shift_code) < 0) {
		strbuf_addf(err, "no key types '%c'", c);
		return -ENOENT;
	}
	r = shift ? uinput_key(s, shift_code, true, err) : 0;
	if (r == 0)
		r = uinput_key(s, code, true, err);
	sleep_ms(hold_ms);
	if (r == 0)
		r = uinput_key(s, code, false, err);
	if (r == 0 && shift)
		r = uinput_key(s, shift_code, false, err);
	return r;
}

int sink_move(struct input_sink *s, int x, int y, struct strbuf *err)
{
	return s->driver == INPUT_XTEST ? xtest_move(s, x, y, err) : uinput_move(s, x, y, err);
}

int sink_button(struct input_sink *s, int button, bool down, struct strbuf *err)
{
	return s->driver == INPUT_XTEST ? xtest_button(s, button, down, err) :
					  uinput_button(s, button, down, err);
}

void sink_close(struct input_sink *s)
{
	if (s->driver == INPUT_XTEST)
		xtest_close(s);
	else
		uinput_close(s);
}

/* Reads what game.log gained; true when a whole line of it matches re
 * (lines before it are used up, the rest stays for the next step). */
static bool read_lines(struct player *pl, const regex_t *re, char *matched, size_t size)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		char *nl;

		while (pl->pending.len && (nl = memchr(pl->pending.buf, '\n', pl->pending.len)) != NULL) {
			size_t len = (size_t)(nl - pl->pending.buf);
			char *line = xstrndup(pl->pending.buf, len);
			char *text = strchr(line, '\t');  /* after the runner's stamp */
			bool hit = re && regexec(re, text ? text + 1 : line, 0, NULL, 0) == 0;

			if (hit)
				snprintf(matched, size, "%s", line);
			free(line);
			memmove(pl->pending.buf, nl + 1, pl->pending.len - len - 1);
			pl->pending.len -= len + 1;
			pl->pending.buf[pl->pending.len] = '\0';
			if (hit)
				return true;
		}
		n = read(pl->log_fd, buf, sizeof(buf));
		if (n <= 0)
			return false;
		strbuf_add(&pl->pending, buf, (size_t)n);
	}
}

/* Sleeps until deadline_ns (0: none) or a line matches re (NULL: none);
 * false when stopped by a signal first. */
static bool wait_for(struct player *pl, uint64_t deadline_ns, const regex_t *re, char *matched,
		     size_t size)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = pl->signal_fd, .events = POLLIN },
			{ .fd = pl->inotify_fd, .events = POLLIN },
		};
		uint64_t now = mono_ns();
		struct timespec left;
		char ev[4096];

		if (re && read_lines(pl, re, matched, size))
			return true;
		if (deadline_ns) {
			if (now >= deadline_ns)
				return true;
			/* to the nanosecond: a recording's events are ms apart */
			left.tv_sec = (time_t)((deadline_ns - now) / NSEC_PER_SEC);
			left.tv_nsec = (long)((deadline_ns - now) % NSEC_PER_SEC);
		}
		if (ppoll(p, re ? 2 : 1, deadline_ns ? &left : NULL, NULL) < 0 && errno != EINTR)
			return false;
		if (p[0].revents) {
			pl->stopped = true;
			return false;
		}
		if (re && p[1].revents)
			while (read(pl->inotify_fd, ev, sizeof(ev)) > 0)
				;
	}
}

/* play_events' wait: to a deadline, or false when stopped. */
static bool wait_deadline(void *ctx, uint64_t deadline_ns)
{
	return wait_for(ctx, deadline_ns, NULL, NULL, 0);
}

/* The keys of a key or keys step, resolved (checked when parsed). */
static int step_codes(const struct player *pl, const struct input_step *s, unsigned *codes)
{
	for (size_t i = 0; i < s->n_keys; i++)
		if (input_key_code(pl->sink.driver, s->keys[i], &codes[i]) < 0)
			return -ENOENT;
	return 0;
}

/* Plays one step: 0 (outcome in out), 1 when stopped by a signal, -errno
 * when it failed (why in out). */
static int play(struct player *pl, const struct input_step *s, struct strbuf *out)
{
	unsigned codes[INPUT_MAX_CHORD];
	char matched[512] = "";
	regex_t re;
	int r = 0;

	switch (s->kind) {
	case STEP_WAIT_LINE:
		if (regex_compile(&re, s->arg, out) < 0)
			return -EINVAL;
		if (!wait_for(pl, 0, &re, matched, sizeof(matched)))
			r = 1;
		regfree(&re);
		if (r == 0)
			strbuf_addf(out, "ok: %s", matched);
		return r;
	case STEP_WAIT:
		if (!wait_for(pl, mono_ns() + (uint64_t)(s->seconds * 1e9), NULL, NULL, 0))
			return 1;
		break;
	case STEP_KEY:
	case STEP_KEYS:
		if (step_codes(pl, s, codes) < 0) {
			strbuf_addstr(out, "unknown key");
			return -ENOENT;
		}
		for (size_t i = 0; i < s->n_keys && r == 0; i++)
			r = sink_key(&pl->sink, codes[i], true, out);
		if (r == 0)
			sleep_ms(HOLD_MS);
		for (size_t i = s->n_keys; i-- > 0 && r == 0; )
			r = sink_key(&pl->sink, codes[i], false, out);
		break;
	case STEP_TYPE:
		for (const char *c = s->arg; *c && r == 0; c++) {
			r = sink_type_char(&pl->sink, *c, HOLD_MS, out);
			if (c[1])
				sleep_ms(GAP_MS);
		}
		break;
	case STEP_MOVE:
		r = sink_move(&pl->sink, s->x, s->y, out);
		break;
	case STEP_CLICK:
		r = sink_button(&pl->sink, s->button, true, out);
		if (r == 0) {
			sleep_ms(HOLD_MS);
			r = sink_button(&pl->sink, s->button, false, out);
		}
		break;
	case STEP_PLAY:
		return play_events(&pl->plays[s - pl->steps], wait_deadline, pl, out);
	}
	if (r == 0)
		strbuf_addstr(out, "ok");
	return r;
}

static void log_step(size_t n, const struct input_step *s, const char *outcome)
{
	uint64_t t = mono_ns();

	printf("%llu.%06llu\t%zu\t%s\t%s\n", (unsigned long long)(t / NSEC_PER_SEC),
	       (unsigned long long)(t % NSEC_PER_SEC / 1000), n, s->text, outcome);
}

/* Every step in order. HB_EXIT_OK or HB_EXIT_FAILURE. */
static int play_all(struct player *pl)
{
	size_t done = 0;
	int r = 0;

	for (; done < pl->n_steps; done++) {
		struct strbuf out = STRBUF_INIT;

		r = play(pl, &pl->steps[done], &out);
		if (r == 0)
			log_step(done + 1, &pl->steps[done], out.buf);
		else if (r < 0) {
			char *failed = xasprintf("failed: %s", out.buf);

			log_step(done + 1, &pl->steps[done], failed);
			free(failed);
		}
		strbuf_release(&out);
		if (r != 0)
			break;
	}
	if (r > 0)
		printf("# end played=%zu of %zu: stopped during step %zu (%s)\n", done, pl->n_steps,
		       done + 1, pl->steps[done].text);
	else if (r < 0)
		printf("# end played=%zu of %zu: step %zu failed (%s)\n", done, pl->n_steps, done + 1,
		       pl->steps[done].text);
	else
		printf("# end played=%zu of %zu\n", done, pl->n_steps);
	fflush(stdout);
	/* a uinput device stays until the runner stops us: a device that goes
	 * away mid-run is an event of its own to whatever reads /dev/input */
	if (r == 0 && pl->n_devices && !pl->stopped)
		wait_for(pl, 0, NULL, NULL, 0);
	return r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

/* Whether a step sends through the driver (not a wait, not a play). */
static bool needs_sink(const struct player *pl)
{
	for (size_t i = 0; i < pl->n_steps; i++)
		if (pl->steps[i].kind != STEP_WAIT_LINE && pl->steps[i].kind != STEP_WAIT &&
		    pl->steps[i].kind != STEP_PLAY)
			return true;
	return false;
}

/* The driver, when a step needs it, and every play's recorded device. */
static int open_devices(struct player *pl, const char *display, const char *name,
			struct strbuf *err)
{
	int r = 0;

	if (needs_sink(pl)) {
		r = pl->sink.driver == INPUT_XTEST ? xtest_open(&pl->sink, display, err) :
						     uinput_open(&pl->sink, name, err);
		pl->sink_open = r == 0;
		if (r == 0 && pl->sink.driver == INPUT_UINPUT) {
			printf("# device %s %s\n", pl->sink.syspath, name);
			pl->n_devices++;
		}
	}
	for (size_t i = 0; r == 0 && i < pl->n_steps; i++) {
		struct input_play *p = &pl->plays[i];
		struct strbuf what = STRBUF_INIT;
		char *dev_name;

		if (pl->steps[i].kind != STEP_PLAY)
			continue;
		dev_name = xasprintf("%s play %zu", name, i + 1);
		r = play_read(p, &pl->steps[i], err);
		if (r == 0)
			r = play_create(p, dev_name, err);
		if (r == 0) {
			play_describe(p, &what);
			printf("# device %s %s\n# play %zu %s\n", p->syspath, dev_name, i + 1, what.buf);
			pl->n_devices++;
		}
		strbuf_release(&what);
		free(dev_name);
	}
	return r;
}

static int setup(struct player *pl, const char *display, const char *name)
{
	struct strbuf err = STRBUF_INIT;
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pl->signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	pl->inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	pl->log_fd = open(pl->game_log, O_RDONLY | O_CLOEXEC);
	if (pl->signal_fd < 0 || pl->inotify_fd < 0 || pl->log_fd < 0 ||
	    inotify_add_watch(pl->inotify_fd, pl->game_log, IN_MODIFY) < 0) {
		error_msg("cannot watch '%s': %s", pl->game_log, strerror(errno));
		return -errno;
	}
	r = open_devices(pl, display, name, &err);
	if (r < 0) {
		printf("# end played=0 of %zu: %s\n", pl->n_steps, err.buf);
		error_msg("%s", err.buf);
	}
	fflush(stdout);
	strbuf_release(&err);
	return r;
}

/* --dry-run: what would be played, each recording read by libevemu.
 * HB_EXIT_OK, or HB_EXIT_FAILURE when libevemu cannot read one. */
static int plan_all(struct player *pl, const char *name)
{
	int rc = HB_EXIT_OK;

	for (size_t i = 0; i < pl->n_steps; i++) {
		struct input_play p;
		struct strbuf out = STRBUF_INIT;

		if (pl->steps[i].kind == STEP_PLAY) {
			strbuf_addf(&out, "plan: device \"%s play %zu\" as ", name, i + 1);
			if (play_read(&p, &pl->steps[i], &out) == 0) {
				play_describe(&p, &out);
				strbuf_addstr(&out, ", ");
				if (play_plan(&p, &out) < 0)
					rc = HB_EXIT_FAILURE;
			} else {
				rc = HB_EXIT_FAILURE;
			}
			play_close(&p);
		} else {
			strbuf_addstr(&out, "plan");
		}
		printf("%zu\t%s\t%s\n", i + 1, pl->steps[i].text, out.buf);
		strbuf_release(&out);
	}
	printf("# end planned=%zu of %zu%s\n", pl->n_steps, pl->n_steps,
	       rc == HB_EXIT_OK ? "" : ": libevemu could not read a recording");
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hitchbench-input --driver xtest|uinput --game-log FILE [--display :N]\n"
		   "                        [--xauth FILE] [--name NAME] -- STEP...\n"
		   "       hitchbench-input --dry-run [--driver xtest|uinput] [--name NAME] -- STEP...\n");
}

int main(int argc, char **argv)
{
	msg_program("hitchbench-input");
	static const struct option longopts[] = {
		{ "driver", required_argument, NULL, 'd' },
		{ "game-log", required_argument, NULL, 'g' },
		{ "display", required_argument, NULL, 'D' },
		{ "xauth", required_argument, NULL, 'x' },
		{ "name", required_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct player pl = { .log_fd = -1, .inotify_fd = -1, .signal_fd = -1 };
	const char *display = NULL, *name = "hitchbench input";
	bool dry_run = false;
	int c, rc = HB_EXIT_USAGE;

	strbuf_init(&pl.pending);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (input_driver_parse(optarg, &pl.sink.driver) < 0) {
				error_msg("unknown driver '%s' (xtest or uinput)", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'g':
			pl.game_log = optarg;
			break;
		case 'D':
			display = optarg;
			break;
		case 'x':
			setenv("XAUTHORITY", optarg, 1);
			break;
		case 'n':
			name = optarg;
			break;
		case 'p':
			dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if ((!pl.game_log && !dry_run) || optind == argc) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pl.n_steps = (size_t)(argc - optind);
	pl.steps = zalloc(pl.n_steps * sizeof(*pl.steps));
	pl.plays = zalloc(pl.n_steps * sizeof(*pl.plays));
	for (size_t i = 0; i < pl.n_steps; i++)
		pl.plays[i].fd = -1;
	for (size_t i = 0; i < pl.n_steps; i++) {
		struct strbuf why = STRBUF_INIT;

		if (input_step_parse(argv[optind + (int)i], &pl.steps[i], &why) < 0 ||
		    input_step_check(&pl.steps[i], pl.sink.driver, &why) < 0) {
			error_msg("step %zu '%s': %s", i + 1, argv[optind + (int)i],
				why.buf);
			strbuf_release(&why);
			goto out;
		}
		strbuf_release(&why);
	}
	printf("# hitchbench-input 1 driver=%s steps=%zu%s\n", input_driver_name(pl.sink.driver),
	       pl.n_steps, dry_run ? " dry-run" : "");
	if (dry_run) {
		rc = plan_all(&pl, name);
		goto out;
	}
	rc = HB_EXIT_FAILURE;
	/* after its setup: the game's log, its X connection or uinput device
	 * and every played device are open; its loop reads the log (the game's
	 * words) and writes into what it holds, with no capability (measured:
	 * the same steps played; docs/man/hitchbench-input.1, PRIVILEGES) */
	if (setup(&pl, display, name) == 0 && sandbox_narrow(NULL, 0, NULL, msg_lines) == 0)
		rc = play_all(&pl);
	if (pl.sink_open)
		sink_close(&pl.sink);
out:
	for (size_t i = 0; i < pl.n_steps; i++) {
		play_close(&pl.plays[i]);
		input_step_release(&pl.steps[i]);
	}
	free(pl.plays);
	free(pl.steps);
	strbuf_release(&pl.pending);
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = HB_EXIT_FAILURE;
	return rc;
}
