/*
 * The game's output through a pseudo-terminal into game.log (see
 * gameout.h).
 */
#include "runner/gameout.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int open_terminal(struct game_output *o)
{
	struct termios tio;
	char name[128];

	o->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (o->master < 0)
		return -errno;
	if (grantpt(o->master) < 0 || unlockpt(o->master) < 0 ||
	    ptsname_r(o->master, name, sizeof(name)) != 0)
		return -errno;
	o->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (o->slave < 0)
		return -errno;
	/* raw: no "\n" -> "\r\n", no echo, no line discipline in the way */
	if (tcgetattr(o->slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(o->slave, TCSANOW, &tio);
	}
	if (fcntl(o->master, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int line_match_init(struct line_match *m, const char *regex)
{
	if (!regex)
		return 0;
	if (regcomp(&m->re, regex, REG_EXTENDED | REG_NOSUB) != 0)
		return -EINVAL;
	m->have_re = true;
	return 0;
}

/* Lines are still matched against m. */
static bool line_match_waiting(const struct line_match *m)
{
	return m->have_re && !m->matched;
}

static void line_match_feed(struct line_match *m, const char *line, uint64_t t)
{
	if (line_match_waiting(m) && regexec(&m->re, line, 0, NULL, 0) == 0) {
		m->matched = true;
		m->matched_ns = t;
	}
}

static void line_match_release(struct line_match *m)
{
	if (m->have_re)
		regfree(&m->re);
}

int game_output_open(struct game_output *o, const char *log_path, const char *start_line,
		     const char *end_line)
{
	memset(o, 0, sizeof(*o));
	o->master = o->slave = o->log_fd = -1;
	strbuf_init(&o->line);
	if (line_match_init(&o->start, start_line) < 0 || line_match_init(&o->end, end_line) < 0)
		return -EINVAL;
	o->log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->log_fd < 0)
		return -errno;
	return open_terminal(o);
}

static void emit(struct game_output *o, const char *text, size_t len, uint64_t t)
{
	char stamp[32];
	int n = snprintf(stamp, sizeof(stamp), "%llu.%06llu\t", (unsigned long long)(t / NSEC_PER_SEC),
			 (unsigned long long)(t % NSEC_PER_SEC / 1000));
	char *copy;

	if ((write(o->log_fd, stamp, (size_t)n) < 0 || write(o->log_fd, text, len) < 0 ||
	     write(o->log_fd, "\n", 1) < 0) && !o->write_error)
		o->write_error = errno;
	if (!line_match_waiting(&o->start) && !line_match_waiting(&o->end))
		return;
	copy = strndup(text, len);
	if (copy) {
		line_match_feed(&o->start, copy, t);
		line_match_feed(&o->end, copy, t);
	}
	free(copy);
}

void game_output_drain(struct game_output *o, bool flush)
{
	char buf[4096];
	uint64_t t = mono_ns();
	size_t start = 0;
	ssize_t n;

	while ((n = read(o->master, buf, sizeof(buf))) > 0) {
		strbuf_add(&o->line, buf, (size_t)n);
		for (;;) {
			char *nl = memchr(o->line.buf + start, '\n', o->line.len - start);
			size_t len;

			if (!nl && o->line.len - start < GAMEOUT_MAX_LINE)
				break;
			len = nl ? (size_t)(nl - o->line.buf) - start : GAMEOUT_MAX_LINE;
			if (nl && len > 0 && o->line.buf[start + len - 1] == '\r')
				emit(o, o->line.buf + start, len - 1, t);
			else
				emit(o, o->line.buf + start, len, t);
			start += len + (nl ? 1 : 0);
		}
		/* keep only the unfinished line */
		memmove(o->line.buf, o->line.buf + start, o->line.len - start);
		o->line.len -= start;
		o->line.buf[o->line.len] = '\0';
		start = 0;
	}
	if (flush && o->line.len > 0) {
		emit(o, o->line.buf, o->line.len, t);
		strbuf_reset(&o->line);
	}
}

void game_output_close(struct game_output *o)
{
	if (o->master >= 0)
		close(o->master);
	if (o->slave >= 0)
		close(o->slave);
	if (o->log_fd >= 0)
		close(o->log_fd);
	line_match_release(&o->start);
	line_match_release(&o->end);
	strbuf_release(&o->line);
	memset(o, 0, sizeof(*o));
	o->master = o->slave = o->log_fd = -1;
}
