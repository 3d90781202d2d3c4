/*
 * hitchbench-sampler: samples the machine's sensors (temperatures, fans,
 * CPU frequency, throttling, load, memory, stall) beside a run, every 0.5 s
 * by default, into a zstd-compressed TSV (docs/formats.md, "Sensor samples,
 * format 1"). It runs niced so it does not compete with the game, and
 * measures its own CPU time per sample, which it writes into the file's
 * trailer and prints on stderr when it ends (SIGTERM or SIGINT end it
 * cleanly, with exit 0). It also offers the thermal guard (--wait-below)
 * and a one-shot look at the sensors for people (--once).
 */
#include "base/message.h"
#include "base/exitcodes.h"
#include "system/fsroot.h"
#include "system/sandbox.h"
#include "formats/sensorlog.h"
#include "system/sensors.h"
#include "system/thermalguard.h"
#include "base/timeutil.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hitchbench-sampler --out FILE [--period-ms N] [--duration S] [--nice N]\n"
		"       hitchbench-sampler --once [--period-ms N]\n"
		"       hitchbench-sampler --wait-below C [--wait-sensors PATTERN] [--wait-timeout S]\n"
		"\n"
		"  --out FILE        write the samples there, zstd-compressed TSV (sensors.tsv.zst)\n"
		"  --period-ms N     one sample every N ms (default 500)\n"
		"  --duration S      stop after S seconds (default: at SIGTERM or SIGINT)\n"
		"  --nice N          scheduling niceness (default 10)\n"
		"  --once            print one sample as text (rates over one period) and exit\n"
		"  --wait-below C    thermal guard: first wait until the temperatures matching\n"
		"                    --wait-sensors (default 'temp.*') are at most C degrees, or\n"
		"                    --wait-timeout S (default 600) passed; prints the outcome as\n"
		"                    key=value lines; exit 1 on timeout; then samples if --out\n"
		"\n"
		"Files under /proc and /sys are read below $HITCHBENCH_ROOT (default /).\n");
}

static int parse_seconds(const char *opt, const char *arg, double *out)
{
	if (safe_atod(arg, out) < 0 || !(*out >= 0) || *out > 1e7) {
		error_msg("%s: not a number of seconds: '%s'", opt, arg);
		return HB_EXIT_USAGE;
	}
	return 0;
}

static int print_once(struct sensors *s, double *values, uint64_t period_ns)
{
	sensors_sample(s, values);
	sleep_ms((unsigned)(period_ns / NSEC_PER_MSEC));
	sensors_sample(s, values);
	printf("# %zu channels under %s; rates over %.0f ms\n", s->n, fsroot(),
	       (double)(s->t_ns - s->prev_t_ns) / 1e6);
	for (size_t i = 0; i < s->n; i++) {
		if (isfinite(values[i]))
			printf("%-40s %12.3f %-5s %s\n", s->ch[i].name, values[i], s->ch[i].unit,
			       s->ch[i].source);
		else
			printf("%-40s %12s %-5s %s\n", s->ch[i].name, "-", s->ch[i].unit, s->ch[i].source);
	}
	if (fflush(stdout) || ferror(stdout)) {
		error_msg("cannot write to stdout: %s", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

/* The sampling loop: on absolute deadlines, a missed one skipped, not bunched. */
static int sample_loop(struct sensors *s, double *values, struct sensor_log *log, uint64_t period_ns,
		       double duration_s)
{
	struct sensor_self self = { 0 };
	uint64_t start = mono_ns(), next = start, last_flush = start;
	uint64_t end = duration_s > 0 ? start + (uint64_t)(duration_s * 1e9) : UINT64_MAX;
	char line[160];
	int r = 0;

	while (!stop) {
		uint64_t c0 = thread_cpu_ns(), cost, now;

		sensors_sample(s, values);
		r = sensor_log_row(log, s->t_ns, values);
		if (r == 0 && s->t_ns - last_flush >= 2 * NSEC_PER_SEC) {
			r = sensor_log_flush(log);
			last_flush = s->t_ns;
		}
		cost = thread_cpu_ns() - c0;
		self.samples++;
		self.cpu_ns_total += cost;
		if (cost > self.cpu_ns_max)
			self.cpu_ns_max = cost;
		if (r < 0)
			break;
		next += period_ns;
		now = mono_ns();
		if (next <= now)
			next += ((now - next) / period_ns + 1) * period_ns;
		if (next >= end)
			break;
		sleep_until(next, &stop);
	}
	if (r == 0)
		r = sensor_log_close(log, &self);
	else
		sensor_log_release(log);
	sensor_self_format(&self, line, sizeof(line));
	fprintf(stderr, "%s\n", line);
	return r;
}

struct args {
	const char *out, *pattern;
	double duration_s, wait_below, wait_timeout;
	int period_ms, niceness, once;
};

/* One option into a. The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_one(int c, struct args *a)
{
	switch (c) {
	case 'o': a->out = optarg; return 0;
	case 'p':
		if (safe_atoi(optarg, &a->period_ms) < 0 || a->period_ms < 1 || a->period_ms > 3600000) {
			error_msg("--period-ms: not 1..3600000: '%s'", optarg);
			return HB_EXIT_USAGE;
		}
		return 0;
	case 'd': return parse_seconds("--duration", optarg, &a->duration_s);
	case 'n':
		if (safe_atoi(optarg, &a->niceness) < 0 || a->niceness < -20 || a->niceness > 19) {
			error_msg("--nice: not -20..19: '%s'", optarg);
			return HB_EXIT_USAGE;
		}
		return 0;
	case '1': a->once = 1; return 0;
	case 'w':
		if (safe_atod(optarg, &a->wait_below) < 0 || !isfinite(a->wait_below)) {
			error_msg("--wait-below: not a temperature: '%s'",
				optarg);
			return HB_EXIT_USAGE;
		}
		return 0;
	case 's': a->pattern = optarg; return 0;
	case 't': return parse_seconds("--wait-timeout", optarg, &a->wait_timeout);
	case 'h': usage(stdout); return HB_ARGS_DONE;
	default: usage(stderr); return HB_EXIT_USAGE;
	}
}

/* The parser contract (exitcodes.h): HB_EXIT_OK, HB_ARGS_DONE or the exit code. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "nice", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ "wait-below", required_argument, NULL, 'w' },
		{ "wait-sensors", required_argument, NULL, 's' },
		{ "wait-timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	*a = (struct args){ .pattern = "temp.*", .wait_below = NAN, .wait_timeout = 600,
			    .period_ms = 500, .niceness = 10 };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if ((r = parse_one(c, a)) != 0)
			return r;
	if (optind < argc || (!a->out && !a->once && isnan(a->wait_below)) || (a->out && a->once)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	return 0;
}

/* --wait-below: the guard's outcome as key=value lines on stdout, and the
 * exit status so far in *status (1 on a timeout). 0 to go on (sampling if
 * asked), or -1 to end now with *status. */
static int thermal_guard(const struct args *a, int *status)
{
	struct thermal_guard_result res;
	struct kvfile kf;

	if (thermal_guard_wait(a->pattern, a->wait_below, a->wait_timeout, &stop, &res) < 0) {
		error_msg("thermal guard interrupted");
		*status = HB_EXIT_INTERRUPTED;
		return -1;
	}
	kvfile_init(&kf);
	thermal_guard_record(&res, a->pattern, a->wait_below, &kf);
	for (size_t i = 0; i < kf.n; i++)
		printf("%s=%s\n", kf.items[i].key, kf.items[i].value);
	kvfile_release(&kf);
	if (fflush(stdout) || ferror(stdout)) {
		*status = HB_EXIT_FAILURE;
		return -1;
	}
	*status = res.outcome == THERMAL_GUARD_TIMEOUT ? HB_EXIT_FAILURE : HB_EXIT_OK;
	return !a->out && !a->once ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int r, status = HB_EXIT_OK;
	struct sensor_log log;
	struct sensors s;
	struct args a;
	uint64_t period_ns;
	double *values;

	msg_program("hitchbench-sampler");

	r = parse_args(argc, argv, &a);
	if (r != 0)
		return hb_args_exit(r);
	period_ns = (uint64_t)a.period_ms * NSEC_PER_MSEC;
	if (setpriority(PRIO_PROCESS, 0, a.niceness) < 0)
		warn_msg("cannot set nice %d: %s", a.niceness,
			strerror(errno));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!isnan(a.wait_below) && thermal_guard(&a, &status) < 0)
		return status;
	sensors_open(&s);
	values = zalloc((s.n ? s.n : 1) * sizeof(*values));
	if (a.once) {
		r = print_once(&s, values, period_ns);
		free(values);
		sensors_release(&s);
		return r != HB_EXIT_OK ? r : status;
	}
	/* the file exists before the first sample: a bad path fails now */
	r = sensor_log_open(&log, a.out, s.ch, s.n, period_ns, fsroot());
	/* every sensor file and its output are open: its loop rereads them
	 * with no capability (measured: the same rows, no empty field;
	 * docs/man/hitchbench-sampler.1, PRIVILEGES) */
	if (r == 0 && sandbox_narrow(NULL, 0, NULL, msg_lines) < 0)
		status = HB_EXIT_FAILURE;
	else if (r < 0 || (r = sample_loop(&s, values, &log, period_ns, a.duration_s)) < 0) {
		error_msg("cannot write '%s': %s", a.out, strerror(-r));
		status = HB_EXIT_FAILURE;
	}
	free(values);
	sensors_release(&s);
	return status;
}
