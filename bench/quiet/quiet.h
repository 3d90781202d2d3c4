/*
 * Quieting the machine before a run: the steps a profile file lists
 * (recipes/quiet/NAME.ini, every key in recipes/README.md), each change
 * journaled first (thaw.h) so that thawing puts everything back, then a
 * wait until the machine is idle. Every step is recorded as quiet.* keys
 * for the run's bench.txt. Nothing here prints.
 */
#ifndef HB_QUIET_H
#define HB_QUIET_H

#include <stdbool.h>

#include "text/argv.h"
#include "system/hostnoise.h"
#include "text/kvfile.h"
#include "system/sensors-parse.h"
#include "quiet/thaw.h"
#include "base/util.h"

/* When the machine counts as idle. A threshold < 0 is not checked. */
struct idle_limits {
	double psi_cpu_some_avg10; /* percent, /proc/pressure/cpu "some avg10" */
	double psi_io_some_avg10;  /* percent, /proc/pressure/io */
	double cpu_busy_pct;       /* percent of all CPUs busy over a poll (/proc/stat) */
	double load1;              /* /proc/loadavg's first field */
	double settle_s;           /* all of them must hold this long */
	double timeout_s;          /* then give up waiting (recorded, not fatal); 0: no wait */
};

struct quiet_profile {
	char *path;
	/* [quiet] */
	struct argv_list services;
	bool sync;
	int drop_caches;           /* 0 (no), 1, 2, 3 */
	bool compact_memory;
	char *governor;            /* NULL: leave the governor alone */
	bool delayacct;
	int banner_vt;             /* 0: no banner */
	/* [idle] */
	struct idle_limits idle;
	/* [thermal]: parsed here, used by the thermal guard (thermalguard.h):
	 * before each run, wait until every matching temperature is at or
	 * under max_c, at most timeout_s; the outcome is quiet.thermal. */
	char *thermal_sensors;     /* fnmatch(3) glob on temperature column names
				    * (docs/formats.md, "Sensor samples"), checked to
				    * be able to match one: "temp.*", "temp.coretemp0.*".
				    * NULL: all temperatures (the guard wants "temp.*") */
	double thermal_max_c;      /* 0: off */
	double thermal_timeout_s;
	/* [noise]: a run whose window's host noise (runnoise.h) is over one
	 * of these is marked invalid; < 0 (the key absent or empty): no limit */
	struct noise_limits noise;
	/* [noise] daemons: the daemons whose cost over the window is recorded
	 * (noise.daemon.*, daemoncost.h); NULL: DAEMON_NAMES_DEFAULT, "": none */
	char *noise_daemons;
	/* No [sampler]: the sampler's settings are the SENSORS switch's
	 * parameters (docs/switches.md); a profile with one is an error. */
};

/* The defaults (those of recipes/quiet/default.ini). */
void quiet_profile_init(struct quiet_profile *p);
void quiet_profile_release(struct quiet_profile *p);
/* Reads a profile over the defaults. 0, or -errno / -EINVAL with
 * "file:line: what is wrong" in err; p is changed only on success. The
 * parse, from a buffer, is the tests'. */
int quiet_profile_load(const char *path, struct quiet_profile *p, struct strbuf *err);
int quiet_profile_parse(const char *text, const char *path, struct quiet_profile *p,
			struct strbuf *err);
/* "--profile NAME|PATH": a path (has a '/' or ends in .ini) as it is, a
 * NAME as quiet/NAME.ini in the first recipe directory that has it
 * (recipe_dirs NULL-terminated or n entries). A new string or NULL. */
char *quiet_profile_find(const char *arg, char *const *recipe_dirs, size_t n);

/* ---- idle (quiet-idle.c) ---- */

struct idle_sample {
	bool have_psi;
	double psi_cpu, psi_io;
	double busy_pct;           /* < 0: not known yet (needs two /proc/stat reads) */
	double load1;              /* < 0: unknown */
};

/* Parsers of the files' text. 0 or -EINVAL. */
int quiet_psi_some_avg10(const char *text, double *out);
int quiet_loadavg_load1(const char *text, double *out);
/* Busy percent between two readings of /proc/stat (sensor_parse_stat());
 * -1 when no time passed. */
double quiet_cpu_busy_pct(const struct cpu_ticks *before, const struct cpu_ticks *after);

/* The settle logic, apart from clocks and files: feed it samples with the
 * seconds since the wait began. 1 when the limits have held for settle_s,
 * else 0. */
struct idle_state {
	double quiet_since;        /* < 0: not quiet now */
};
void quiet_idle_init(struct idle_state *st);
bool quiet_idle_sample_is_quiet(const struct idle_limits *l, const struct idle_sample *s);
int quiet_idle_step(struct idle_state *st, const struct idle_limits *l, const struct idle_sample *s,
		    double now_s);

struct idle_result {
	bool reached;
	double waited_s;
	struct idle_sample last;
};

/* Waits until idle or timeout (a timeout is a result, not an error).
 * poll_s: seconds between samples (0: 1 s); wake_fd: stop waiting when
 * readable (the runner's signalfd; -1: none). 0, or -EINTR when woken. */
int quiet_wait_idle(const struct idle_limits *l, double poll_s, int wake_fd,
		    struct idle_result *res);
/* "reached after 3.2 s (psi cpu 0.40 io 0.00, cpu busy 1.2 %, load1 0.31)". */
void quiet_idle_describe(const struct idle_limits *l, const struct idle_result *r,
			 struct strbuf *sb);

/* ---- the steps ---- */

struct quiet_opts {
	const char *what;   /* what runs, for the banner ("dsda-doom software, round 2") */
	double poll_s;      /* idle poll; 0: 1 s */
	int wake_fd;        /* see quiet_wait_idle; -1: none */
};

/* Runs the profile's steps in order (services, sync, drop_caches,
 * compact_memory, governor, delayacct, banner, idle wait), journaling
 * every change first and recording each step into record as quiet.* keys.
 * Safe to call before every run: what is journaled already is not
 * journaled again. Steps that need root are skipped for other users, and
 * steps that do not apply here are recorded as such. 0; -EIO when a step
 * failed (recorded; the other steps were done); -EINTR when woken during
 * the wait; another -errno when the journal could not be written (message
 * in err; nothing was changed after that). */
int quiet_apply(const struct quiet_profile *p, struct thaw_journal *j, const struct quiet_opts *o,
		struct kvfile *record, struct strbuf *err);

#endif
