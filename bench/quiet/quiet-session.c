/*
 * Quieting for a batch (see quiet-session.h).
 */
#include "quiet/quiet-session.h"
#include "system/thermalguard.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/timeutil.h"

/* One line per restored setting, as "hitchbench thaw" prints them. */
static void describe_report(const struct thaw_report *rep, struct strbuf *out)
{
	if (rep->notes.len)
		strbuf_addstr(out, rep->notes.buf);
	for (size_t i = 0; i < rep->n; i++)
		thaw_result_describe(&rep->r[i], out);
}

int quiet_session_start(struct quiet_session *q, const char *profile, char *const *recipe_dirs,
			size_t n_dirs, struct strbuf *notes, struct strbuf *err)
{
	struct thaw_report rep;
	char *path;
	int r;

	memset(q, 0, sizeof(*q));
	quiet_profile_init(&q->profile);
	thaw_journal_init(&q->journal);
	path = profile ? quiet_profile_find(profile, recipe_dirs, n_dirs) : NULL;
	if (!profile)
		goto journal; /* the journal alone: a switch that changes a setting */
	if (!path) {
		strbuf_addf(err, "no quiet profile '%s' (a path, or a name in the recipe directories' quiet/)",
			    profile);
		return -EINVAL;
	}
	r = quiet_profile_load(path, &q->profile, err);
	free(path);
	if (r < 0) {
		quiet_profile_release(&q->profile);
		return -EINVAL;
	}
journal:
	r = thaw_journal_open(&q->journal, NULL, THAW_BATCH, err);
	if (r == -EBUSY && !err->len)
		strbuf_addstr(err, "another batch is quieting this machine (its journal is locked)");
	if (r < 0) {
		quiet_profile_release(&q->profile);
		return r;
	}
	thaw_report_init(&rep);
	r = thaw_recover(&q->journal, &rep, err);
	describe_report(&rep, notes);
	thaw_report_release(&rep);
	if (r < 0) {
		/* not ours to thaw (another batch's, a manual session's) */
		thaw_journal_release(&q->journal);
		quiet_profile_release(&q->profile);
		return r;
	}
	q->open = true;
	return 0;
}

/* The thermal guard, a second at a time so that a signal is not kept
 * waiting for the whole timeout. */
static int thermal_guard(const struct quiet_profile *p, struct kvfile *record, int signal_fd)
{
	const char *pattern = p->thermal_sensors && *p->thermal_sensors ? p->thermal_sensors : "temp.*";
	struct thermal_guard_result res;
	uint64_t t0 = mono_ns();
	double waited = 0;

	if (p->thermal_max_c <= 0)
		return 0;
	for (;;) {
		struct pollfd pfd = { .fd = signal_fd, .events = POLLIN };
		double left = p->thermal_timeout_s - waited;

		thermal_guard_wait_every(pattern, p->thermal_max_c, left < 1 ? left : 1, 0.25, &res);
		waited = (double)(mono_ns() - t0) / 1e9;
		if (res.outcome != THERMAL_GUARD_TIMEOUT || waited >= p->thermal_timeout_s)
			break;
		if (signal_fd >= 0 && poll(&pfd, 1, 0) > 0)
			return -EINTR;
	}
	res.waited_s = waited;
	thermal_guard_record(&res, pattern, p->thermal_max_c, record);
	if (res.outcome == THERMAL_GUARD_NO_SENSORS)
		kvfile_addf(record, "quiet.thermal", "no sensor matches '%s': not waited", pattern);
	else
		kvfile_addf(record, "quiet.thermal", "%s after %.1f s (hottest %s %.1f C, limit %g C)",
			    thermal_guard_outcome_name(res.outcome), waited, res.hottest, res.hottest_c,
			    p->thermal_max_c);
	return 0;
}

int quiet_session_before_run(struct quiet_session *q, const char *what, struct kvfile *record,
			     int signal_fd, struct strbuf *err)
{
	struct quiet_opts o = { .what = what, .wake_fd = signal_fd };
	int r;

	/* quiet_apply() records quiet.profile: once (a second copy made
	 * bench.txt a file that does not read) */
	r = quiet_apply(&q->profile, &q->journal, &o, record, err);
	if (r == -EIO) {
		strbuf_reset(err); /* a failed step is recorded; the run goes on */
		r = 0;
	}
	if (r == 0)
		r = thermal_guard(&q->profile, record, signal_fd);
	return r;
}

int quiet_session_end(struct quiet_session *q, struct strbuf *out)
{
	struct thaw_report rep;
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	if (!q->open)
		goto out;
	thaw_report_init(&rep);
	r = thaw_restore(&q->journal, &rep, &err);
	describe_report(&rep, out);
	if (err.len)
		strbuf_addf(out, "%s\n", err.buf);
	thaw_report_release(&rep);
	thaw_journal_release(&q->journal);
	q->open = false;
	quiet_profile_release(&q->profile);
out:
	strbuf_release(&err);
	return r;
}
