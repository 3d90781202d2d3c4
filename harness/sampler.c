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
#include "exitcodes.h"
#include "fsroot.h"
#include "sensorlog.h"
#include "sensors.h"
#include "thermalguard.h"
#include "timeutil.h"
#include "util.h"

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
		fprintf(stderr, "hitchbench-sampler: %s: not a number of seconds: '%s'\n", opt, arg);
		return -1;
	}
	return 0;
}

static int print_once(struct sensors *s, double *values, uint64_t period_ns)
{
	struct timespec ts = { (time_t)(period_ns / NSEC_PER_SEC), (long)(period_ns % NSEC_PER_SEC) };

	sensors_sample(s, values);
	nanosleep(&ts, NULL);
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
		fprintf(stderr, "hitchbench-sampler: cannot write to stdout: %s\n", strerror(errno));
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

int main(int argc, char **argv)
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
	const char *out = NULL, *pattern = "temp.*";
	double duration_s = 0, wait_below = NAN, wait_timeout = 600;
	int period_ms = 500, niceness = 10, once = 0, c, r, status = HB_EXIT_OK;
	struct sigaction sa = { .sa_handler = on_signal };
	struct sensor_log log;
	struct sensors s;
	double *values;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'p':
			if (safe_atoi(optarg, &period_ms) < 0 || period_ms < 1 || period_ms > 3600000) {
				fprintf(stderr, "hitchbench-sampler: --period-ms: not 1..3600000: '%s'\n",
					optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'd':
			if (parse_seconds("--duration", optarg, &duration_s) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'n':
			if (safe_atoi(optarg, &niceness) < 0 || niceness < -20 || niceness > 19) {
				fprintf(stderr, "hitchbench-sampler: --nice: not -20..19: '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case '1': once = 1; break;
		case 'w':
			if (safe_atod(optarg, &wait_below) < 0 || !isfinite(wait_below)) {
				fprintf(stderr, "hitchbench-sampler: --wait-below: not a temperature: '%s'\n",
					optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 's': pattern = optarg; break;
		case 't':
			if (parse_seconds("--wait-timeout", optarg, &wait_timeout) < 0)
				return HB_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return HB_EXIT_OK;
		default: usage(stderr); return HB_EXIT_USAGE;
		}
	}
	if (optind < argc || (!out && !once && isnan(wait_below)) || (out && once)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	if (setpriority(PRIO_PROCESS, 0, niceness) < 0)
		fprintf(stderr, "hitchbench-sampler: warning: cannot set nice %d: %s\n", niceness,
			strerror(errno));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (!isnan(wait_below)) {
		struct thermal_guard_result res;
		struct kvfile kf;

		r = thermal_guard_wait(pattern, wait_below, wait_timeout, &stop, &res);
		if (r < 0) {
			fprintf(stderr, "hitchbench-sampler: thermal guard interrupted\n");
			return HB_EXIT_INTERRUPTED;
		}
		kvfile_init(&kf);
		thermal_guard_record(&res, pattern, wait_below, &kf);
		for (size_t i = 0; i < kf.n; i++)
			printf("%s=%s\n", kf.items[i].key, kf.items[i].value);
		kvfile_release(&kf);
		if (fflush(stdout) || ferror(stdout))
			return HB_EXIT_FAILURE;
		if (res.outcome == THERMAL_GUARD_TIMEOUT)
			status = HB_EXIT_FAILURE;
		if (!out && !once)
			return status;
	}

	sensors_open(&s);
	values = zalloc((s.n ? s.n : 1) * sizeof(*values));
	if (once) {
		r = print_once(&s, values, (uint64_t)period_ms * NSEC_PER_MSEC);
		free(values);
		sensors_release(&s);
		return r != HB_EXIT_OK ? r : status;
	}
	/* the file exists before the first sample: a bad path fails now */
	r = sensor_log_open(&log, out, s.ch, s.n, (uint64_t)period_ms * NSEC_PER_MSEC, fsroot());
	if (r < 0) {
		fprintf(stderr, "hitchbench-sampler: cannot write '%s': %s\n", out, strerror(-r));
		status = HB_EXIT_FAILURE;
	} else if ((r = sample_loop(&s, values, &log, (uint64_t)period_ms * NSEC_PER_MSEC,
				    duration_s)) < 0) {
		fprintf(stderr, "hitchbench-sampler: cannot write '%s': %s\n", out, strerror(-r));
		status = HB_EXIT_FAILURE;
	}
	free(values);
	sensors_release(&s);
	return status;
}
