/*
 * mkframes: the frame file from the command line, for bench-self.sh and
 * the hook's tests, which run the hook without the runner.
 *
 *   mkframes [--capacity N] FILE   create an empty frame file, as the runner does
 *   mkframes --stat FILE           what hb_frames_load() reads from it, key=value per line,
 *                                  then its events, event.I=create|destroy and their fields
 *   mkframes --dump FILE           every reserved slot in slot order:
 *                                  t_ns pid source present_us (t_ns 0: unfinished)
 *   mkframes --keep LIVE DST       what the runner keeps of a live file
 *                                  (hb_frames_keep: trimmed, copied, little-endian)
 *   mkframes --text TXT FILE      a finished frame file of the presents TXT lists,
 *                                  "T_NS PID" a line (blank lines and # comments
 *                                  skipped): a hand-made run with the pids that presented
 *   mkframes --synth N [--seed S] [--csv CSV] FILE
 *                                  a made-up run of N presents (bench-self's report
 *                                  benchmark): FILE as a run directory holds it
 *                                  (little-endian), and CSV with the same present
 *                                  times, "t_ns" then one a line
 *
 * The file made without an action is a live one, in this machine's byte
 * order, as the runner's; --stat and --dump read either order.
 *
 * --synth draws frame times from a fixed seed (the same file every time on
 * one machine): about 60 fps, each frame 16.667 ms times exp(0.08 * a
 * standard normal) (a log-normal jitter of about 8%); one frame in 500 a
 * hitch of 30 to 80 ms; one in 20000 a stall of 100 to 600 ms (uniform).
 */
#include "base/exitcodes.h"
#include "formats/frames.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MKFRAMES_DEFAULT_CAPACITY (1u << 20)
#define SYNTH_T0_NS 1000000000000ull  /* the first present: 1000 s after boot */
#define SYNTH_BASE_NS 16666667.0       /* 60 fps */
#define SYNTH_CHUNK 4096               /* records written at a time */

enum mkframes_action { ACTION_CREATE, ACTION_STAT, ACTION_DUMP, ACTION_KEEP, ACTION_SYNTH, ACTION_TEXT };

static int cmd_create(const char *path, uint64_t capacity)
{
	int r = hb_frames_create(path, capacity, 0644);

	if (r < 0) {
		fprintf(stderr, "mkframes: cannot create '%s': %s\n", path, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

/* One event a line: event.I=KIND then its fields as key=value. */
static void print_event(uint64_t i, const struct hb_frame_event *e)
{
	char buf[24];

	printf("event.%" PRIu64 "=%s t_ns=%" PRIu64 " pid=%" PRIu32 " api=%s swapchain=0x%" PRIx64, i,
	       e->kind == HB_EV_SWAPCHAIN_CREATE ? "create" :
	       e->kind == HB_EV_SWAPCHAIN_DESTROY ? "destroy" : "unknown",
	       e->t_ns, e->pid, hb_api_name(e->api), e->object);
	if (e->kind == HB_EV_SWAPCHAIN_CREATE)
		printf(" old=0x%" PRIx64 " surface=0x%" PRIx64 " extent=%" PRIu32 "x%" PRIu32
		       " mode=%s min_images=%" PRIu32 " images=%" PRIu32 " format=%" PRIu32,
		       e->old_object, e->surface, e->width, e->height,
		       hb_present_mode_name(e->present_mode, buf), e->min_image_count, e->image_count,
		       e->format);
	putchar('\n');
}

static int cmd_stat(const char *path)
{
	struct hb_frames f;
	const char *why = "";
	int r = hb_frames_load(path, &f, &why);

	if (r < 0) {
		fprintf(stderr, "mkframes: '%s': %s (%s)\n", path, why, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	printf("version=%u\n", f.version);
	printf("byte_order=%s\n", f.big_endian ? "big" : "little");
	printf("records=%" PRIu64 "\n", f.n);
	printf("unfinished=%" PRIu64 "\n", f.unfinished);
	printf("dropped=%" PRIu64 "\n", f.dropped);
	printf("hooked_procs=%" PRIu64 "\n", f.hooked_procs);
	printf("cost_ns=%" PRIu64 "\n", f.cost_ns);
	printf("cost_samples=%" PRIu64 "\n", f.cost_samples);
	printf("spin_ns=%" PRIu64 "\n", f.spin_ns);
	printf("spin_presents=%" PRIu64 "\n", f.spin_presents);
	printf("cost_ns_per_sample=%.1f\n", f.cost_samples ? (double)f.cost_ns / (double)f.cost_samples : 0.0);
	if (f.n > 0) {
		printf("first_ns=%" PRIu64 "\n", f.t_ns[0]);
		printf("last_ns=%" PRIu64 "\n", f.t_ns[f.n - 1]);
	}
	for (unsigned s = 0; s < HB_SRC_MAX; s++)
		if (f.per_source[s])
			printf("src_%s=%" PRIu64 "\n", hb_present_source_name(s), f.per_source[s]);
	printf("vk_instances=%" PRIu64 "\n", f.vk_instances);
	printf("events=%" PRIu64 "\n", f.n_events);
	printf("events_unfinished=%" PRIu64 "\n", f.events_unfinished);
	printf("events_dropped=%" PRIu64 "\n", f.events_dropped);
	for (uint64_t i = 0; i < f.n_events; i++)
		print_event(i, &f.events[i]);
	hb_frames_release(&f);
	return HB_EXIT_OK;
}

/* The records as the hook left them, which hb_frames_load() sorts. */
static int cmd_dump(const char *path)
{
	struct hb_frames_header h;
	struct hb_frames check;
	const char *why = "";
	uint64_t n, off;
	size_t len;
	char *data;
	int r;

	r = read_file(path, &data, &len);
	if (r < 0) {
		fprintf(stderr, "mkframes: cannot read '%s': %s\n", path, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	r = hb_frames_parse(data, len, &check, &why);
	if (r < 0) {
		fprintf(stderr, "mkframes: '%s': %s\n", path, why);
		free(data);
		return HB_EXIT_FAILURE;
	}
	hb_frames_release(&check);
	/* in this machine's order, to read its fields as they are */
	if (hb_frames_big_endian(data, len) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		hb_frames_swap(data, len);
	memcpy(&h, data, sizeof(h));
	off = h.version >= 2 ? h.records_offset : h.header_size; /* checked by the parse */
	n = h.count < h.capacity ? h.count : h.capacity;
	if (off > len)
		n = 0;
	else if (n > (len - off) / h.record_size)
		n = (len - off) / h.record_size;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, data + off + i * h.record_size, sizeof(rec));
		printf("%" PRIu64 " %" PRIu32 " %s %u\n", rec.t_ns, rec.pid,
		       hb_present_source_name(rec.source), (unsigned)rec.present_us);
	}
	free(data);
	return HB_EXIT_OK;
}

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): small, and the same stream everywhere. */
static uint64_t synth_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): the top 53 bits, never 0 (log() below). */
static double synth_uniform(uint64_t *state)
{
	return ((double)(synth_next(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* One frame time, ns (the distribution is in the comment at the top). */
static uint64_t synth_frame_ns(uint64_t *state)
{
	double u = synth_uniform(state);
	double g;

	if (u < 1.0 / 20000)
		return (uint64_t)(100e6 + 500e6 * synth_uniform(state));
	if (u < 1.0 / 20000 + 1.0 / 500)
		return (uint64_t)(30e6 + 50e6 * synth_uniform(state));
	/* Box-Muller: a standard normal from two uniforms */
	g = sqrt(-2.0 * log(synth_uniform(state))) * cos(2.0 * M_PI * synth_uniform(state));
	return (uint64_t)(SYNTH_BASE_NS * exp(0.08 * g));
}

static int cmd_synth(const char *path, uint64_t n, uint64_t seed, const char *csv_path)
{
	struct hb_frames_header h;
	struct hb_frame_record *rec = zalloc(SYNTH_CHUNK * sizeof(*rec));
	FILE *csv = NULL;
	uint64_t t = SYNTH_T0_NS;
	int fd = -1, r, ret = HB_EXIT_FAILURE;

	r = hb_frames_create(path, n, 0644);
	if (r < 0) {
		fprintf(stderr, "mkframes: cannot create '%s': %s\n", path, strerror(-r));
		goto out;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		fprintf(stderr, "mkframes: cannot reopen '%s': %s\n", path, strerror(errno));
		goto out;
	}
	if (csv_path && (!(csv = fopen(csv_path, "w")) || fputs("t_ns\n", csv) == EOF)) {
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", csv_path, strerror(errno));
		goto out;
	}
	for (uint64_t i = 0; i < n; i += SYNTH_CHUNK) {
		size_t k = n - i < SYNTH_CHUNK ? (size_t)(n - i) : SYNTH_CHUNK;

		for (size_t j = 0; j < k; j++) {
			if (i + j > 0)
				t += synth_frame_ns(&seed);
			rec[j].t_ns = t;
			rec[j].pid = 4242;
			rec[j].source = HB_SRC_SDL_GL_SWAP_WINDOW;
			rec[j].present_us = 150;
			if (csv)
				fprintf(csv, "%" PRIu64 "\n", t);
		}
		if (pwrite(fd, rec, k * sizeof(*rec), (off_t)(h.records_offset + i * sizeof(*rec))) !=
		    (ssize_t)(k * sizeof(*rec))) {
			fprintf(stderr, "mkframes: cannot write '%s': %s\n", path, strerror(errno));
			goto out;
		}
	}
	h.count = n;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", path, strerror(errno));
		goto out;
	}
	r = hb_frames_to_le(path);
	if (r < 0) {
		fprintf(stderr, "mkframes: cannot make '%s' little-endian: %s\n", path, strerror(-r));
		goto out;
	}
	if (csv && (fflush(csv) != 0 || ferror(csv))) {
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", csv_path, strerror(errno));
		goto out;
	}
	ret = HB_EXIT_OK;
out:
	if (csv && fclose(csv) != 0 && ret == HB_EXIT_OK) {
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", csv_path, strerror(errno));
		ret = HB_EXIT_FAILURE;
	}
	if (fd >= 0 && close(fd) < 0 && ret == HB_EXIT_OK) {
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", path, strerror(errno));
		ret = HB_EXIT_FAILURE;
	}
	free(rec);
	return ret;
}

static int cmd_keep(const char *live, const char *dst)
{
	int r = hb_frames_keep(live, dst, 0644);

	if (r < 0) {
		fprintf(stderr, "mkframes: cannot keep '%s' as '%s': %s\n", live, dst, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
}

static int cmd_text(const char *txt, const char *path)
{
	char *text = NULL, *line, *save = NULL;
	uint64_t *t = NULL, v[2];
	uint32_t *pid = NULL;
	size_t len, n = 0, cap = 0;
	int r, no = 0;

	if ((r = read_file(txt, &text, &len)) < 0) {
		fprintf(stderr, "mkframes: cannot read '%s': %s\n", txt, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char a[32], b[32], extra;

		no++;
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		if (sscanf(line, "%31s %31s %c", a, b, &extra) != 2 || safe_atou64(a, &v[0]) < 0 ||
		    safe_atou64(b, &v[1]) < 0 || v[0] == 0 || v[1] > UINT32_MAX) {
			fprintf(stderr, "%s:%d: not \"T_NS PID\"\n", txt, no);
			r = -EINVAL;
			goto out;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			t = xrealloc(t, cap * sizeof(*t));
			pid = xrealloc(pid, cap * sizeof(*pid));
		}
		t[n] = v[0];
		pid[n++] = (uint32_t)v[1];
	}
	r = hb_frames_write_pids(path, t, pid, n, 0, 0644);
	if (r < 0)
		fprintf(stderr, "mkframes: cannot write '%s': %s\n", path, strerror(-r));
out:
	free(text);
	free(t);
	free(pid);
	return r == -EINVAL ? HB_EXIT_USAGE : r < 0 ? HB_EXIT_FAILURE : HB_EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mkframes [--capacity N] FILE\n"
		   "       mkframes --stat FILE\n"
		   "       mkframes --dump FILE\n"
		   "       mkframes --keep LIVE DST\n"
		   "       mkframes --text TXT FILE\n"
		   "       mkframes --synth N [--seed S] [--csv CSV] FILE\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "stat", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, 'k' },
		{ "text", no_argument, NULL, 't' },
		{ "synth", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "csv", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum mkframes_action action = ACTION_CREATE;
	uint64_t capacity = MKFRAMES_DEFAULT_CAPACITY;
	uint64_t synth_n = 0, seed = 1;
	const char *csv = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (safe_atou64(optarg, &capacity) < 0 || capacity == 0) {
				fprintf(stderr, "mkframes: --capacity wants a positive number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 's':
			action = ACTION_STAT;
			break;
		case 'd':
			action = ACTION_DUMP;
			break;
		case 'k':
			action = ACTION_KEEP;
			break;
		case 't':
			action = ACTION_TEXT;
			break;
		case 'n':
			if (safe_atou64(optarg, &synth_n) < 0 || synth_n == 0) {
				fprintf(stderr, "mkframes: --synth wants a positive number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			action = ACTION_SYNTH;
			break;
		case 'S':
			if (safe_atou64(optarg, &seed) < 0) {
				fprintf(stderr, "mkframes: --seed wants a number, not '%s'\n", optarg);
				return HB_EXIT_USAGE;
			}
			break;
		case 'C':
			csv = optarg;
			break;
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind != argc - (action == ACTION_KEEP || action == ACTION_TEXT ? 2 : 1)) {
		usage(stderr);
		return HB_EXIT_USAGE;
	}
	switch (action) {
	case ACTION_STAT:
		r = cmd_stat(argv[optind]);
		break;
	case ACTION_DUMP:
		r = cmd_dump(argv[optind]);
		break;
	case ACTION_KEEP:
		r = cmd_keep(argv[optind], argv[optind + 1]);
		break;
	case ACTION_TEXT:
		r = cmd_text(argv[optind], argv[optind + 1]);
		break;
	case ACTION_SYNTH:
		r = cmd_synth(argv[optind], synth_n, seed, csv);
		break;
	default:
		r = cmd_create(argv[optind], capacity);
		break;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "mkframes: cannot write to stdout: %s\n", strerror(errno));
		return HB_EXIT_FAILURE;
	}
	return r;
}
