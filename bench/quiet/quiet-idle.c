/*
 * Waiting until the machine is idle before a run (quiet.h). Three signs,
 * each optional: PSI "some avg10" of cpu and io (the share of the last
 * ~10 s in which some task waited; where the kernel has PSI), the CPU busy
 * share over each poll from /proc/stat (what happens now, on any kernel),
 * and load1 (off by default: it decays with a one-minute time constant, so
 * after a game kept both CPUs of a 2-core machine busy it stays above 0.3
 * for about two minutes of true idleness). All must hold for settle_s.
 *
 * A part of the quiet family (quiet.c the steps, quiet-profile.c the
 * profile, quiet-session.c a batch's session, this file the idle wait): they
 * share quiet.h, where these functions are declared under "idle".
 */
#include "quiet/quiet.h"
#include "system/fsroot.h"
#include "base/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int quiet_psi_some_avg10(const char *text, double *out)
{
	const char *s = text;

	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" is the first line
	 * of cpu and io; look for it anywhere in case that ever changes */
	for (;;) {
		const char *a;
		char num[32];
		size_t n;

		if (str_startswith(s, "some ") && (a = strstr(s, " avg10=")) &&
		    a < strchrnul(s, '\n')) {
			a += 7;
			n = strspn(a, "0123456789.");
			if (n == 0 || n >= sizeof(num))
				return -EINVAL;
			memcpy(num, a, n);
			num[n] = '\0';
			return safe_atod(num, out);
		}
		s = strchr(s, '\n');
		if (!s)
			return -EINVAL;
		s++;
	}
}

int quiet_loadavg_load1(const char *text, double *out)
{
	char num[32];
	size_t n = strspn(text, "0123456789.");

	if (n == 0 || n >= sizeof(num) || text[n] != ' ')
		return -EINVAL;
	memcpy(num, text, n);
	num[n] = '\0';
	return safe_atod(num, out);
}

double quiet_cpu_busy_pct(const struct cpu_ticks *before, const struct cpu_ticks *after)
{
	uint64_t busy0 = before->total - before->idle, busy1 = after->total - after->idle;

	if (after->total <= before->total || busy1 < busy0)
		return -1;
	return 100.0 * (double)(busy1 - busy0) / (double)(after->total - before->total);
}

void quiet_idle_init(struct idle_state *st)
{
	st->quiet_since = -1;
}

bool quiet_idle_sample_is_quiet(const struct idle_limits *l, const struct idle_sample *s)
{
	if (s->have_psi && l->psi_cpu_some_avg10 >= 0 && s->psi_cpu > l->psi_cpu_some_avg10)
		return false;
	if (s->have_psi && l->psi_io_some_avg10 >= 0 && s->psi_io > l->psi_io_some_avg10)
		return false;
	if (l->cpu_busy_pct >= 0 && (s->busy_pct < 0 || s->busy_pct > l->cpu_busy_pct))
		return false;
	if (l->load1 >= 0 && (s->load1 < 0 || s->load1 > l->load1))
		return false;
	return true;
}

int quiet_idle_step(struct idle_state *st, const struct idle_limits *l, const struct idle_sample *s,
		    double now_s)
{
	if (!quiet_idle_sample_is_quiet(l, s)) {
		st->quiet_since = -1;
		return 0;
	}
	if (st->quiet_since < 0)
		st->quiet_since = now_s;
	return now_s - st->quiet_since >= l->settle_s ? 1 : 0;
}

/* Only the first line of /proc/stat is needed: one read of the start. */
static int read_ticks(struct cpu_ticks *t)
{
	char buf[512];
	int fd = fsroot_open("proc/stat", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	do {
		n = read(fd, buf, sizeof(buf) - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return sensor_parse_stat(buf, t);
}

static void take_sample(struct idle_sample *s, struct cpu_ticks *prev, bool *have_prev)
{
	char buf[256];
	struct cpu_ticks now;

	s->have_psi = fsroot_read("proc/pressure/cpu", buf, sizeof(buf)) > 0 &&
		      quiet_psi_some_avg10(buf, &s->psi_cpu) == 0 &&
		      fsroot_read("proc/pressure/io", buf, sizeof(buf)) > 0 &&
		      quiet_psi_some_avg10(buf, &s->psi_io) == 0;
	s->busy_pct = -1;
	if (read_ticks(&now) == 0) {
		if (*have_prev)
			s->busy_pct = quiet_cpu_busy_pct(prev, &now);
		*prev = now;
		*have_prev = true;
	}
	if (fsroot_read("proc/loadavg", buf, sizeof(buf)) <= 0 || quiet_loadavg_load1(buf, &s->load1) < 0)
		s->load1 = -1;
}

/* Sleeps s seconds unless wake_fd becomes readable first (1 then). */
static int nap(double s, int wake_fd)
{
	struct pollfd pfd = { .fd = wake_fd, .events = POLLIN };
	int ms = (int)(s * 1000 + 0.5), r;

	do {
		r = poll(&pfd, wake_fd >= 0 ? 1 : 0, ms);
	} while (r < 0 && errno == EINTR);
	return r > 0 ? 1 : 0;
}

int quiet_wait_idle(const struct idle_limits *l, double poll_s, int wake_fd,
		    struct idle_result *res)
{
	struct idle_state st;
	struct cpu_ticks prev;
	bool have_prev = false;
	uint64_t start = mono_ns();

	memset(res, 0, sizeof(*res));
	quiet_idle_init(&st);
	if (poll_s <= 0)
		poll_s = 1;
	take_sample(&res->last, &prev, &have_prev);
	for (;;) {
		double now;

		if (nap(poll_s, wake_fd))
			return -EINTR;
		take_sample(&res->last, &prev, &have_prev);
		now = (double)(mono_ns() - start) / 1e9;
		res->waited_s = now;
		if (quiet_idle_step(&st, l, &res->last, now) == 1) {
			res->reached = true;
			return 0;
		}
		if (now >= l->timeout_s)
			return 0;
	}
}

void quiet_idle_describe(const struct idle_limits *l, const struct idle_result *r, struct strbuf *sb)
{
	const struct idle_sample *s = &r->last;

	if (r->reached)
		strbuf_addf(sb, "reached after %.1f s (", r->waited_s);
	else
		strbuf_addf(sb, "timeout after %.0f s (", r->waited_s);
	if (s->have_psi)
		strbuf_addf(sb, "psi cpu %.2f io %.2f", s->psi_cpu, s->psi_io);
	else
		strbuf_addstr(sb, "no psi");
	if (s->busy_pct >= 0)
		strbuf_addf(sb, ", cpu busy %.1f %%", s->busy_pct);
	if (s->load1 >= 0)
		strbuf_addf(sb, ", load1 %.2f", s->load1);
	strbuf_addch(sb, ')');
}
