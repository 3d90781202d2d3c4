/*
 * mkframes: the frame file from the command line, for bench-self.sh and
 * the hook's tests, which run the hook without the runner.
 *
 *   mkframes [--capacity N] FILE   create an empty frame file, as the runner does
 *   mkframes --stat FILE           what hb_frames_load() reads from it, key=value per line
 *   mkframes --dump FILE           every reserved slot in slot order:
 *                                  t_ns pid source present_us (t_ns 0: unfinished)
 */
#include "exitcodes.h"
#include "frames.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MKFRAMES_DEFAULT_CAPACITY (1u << 20)

enum mkframes_action { ACTION_CREATE, ACTION_STAT, ACTION_DUMP };

static int cmd_create(const char *path, uint64_t capacity)
{
	int r = hb_frames_create(path, capacity, 0644);

	if (r < 0) {
		fprintf(stderr, "mkframes: cannot create '%s': %s\n", path, strerror(-r));
		return HB_EXIT_FAILURE;
	}
	return HB_EXIT_OK;
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
	printf("records=%" PRIu64 "\n", f.n);
	printf("unfinished=%" PRIu64 "\n", f.unfinished);
	printf("dropped=%" PRIu64 "\n", f.dropped);
	printf("hooked_procs=%" PRIu64 "\n", f.hooked_procs);
	printf("cost_ns=%" PRIu64 "\n", f.cost_ns);
	printf("cost_samples=%" PRIu64 "\n", f.cost_samples);
	printf("cost_ns_per_sample=%.1f\n", f.cost_samples ? (double)f.cost_ns / (double)f.cost_samples : 0.0);
	if (f.n > 0) {
		printf("first_ns=%" PRIu64 "\n", f.t_ns[0]);
		printf("last_ns=%" PRIu64 "\n", f.t_ns[f.n - 1]);
	}
	for (unsigned s = 0; s < HB_SRC_MAX; s++)
		if (f.per_source[s])
			printf("src_%s=%" PRIu64 "\n", hb_present_source_name(s), f.per_source[s]);
	hb_frames_release(&f);
	return HB_EXIT_OK;
}

/* The records as the hook left them, which hb_frames_load() sorts. */
static int cmd_dump(const char *path)
{
	struct hb_frames_header h;
	struct hb_frames check;
	const char *why = "";
	uint64_t n;
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
	memcpy(&h, data, sizeof(h));
	n = h.count < h.capacity ? h.count : h.capacity;
	if (n > (len - h.header_size) / h.record_size)
		n = (len - h.header_size) / h.record_size;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, data + h.header_size + i * h.record_size, sizeof(rec));
		printf("%" PRIu64 " %" PRIu32 " %s %u\n", rec.t_ns, rec.pid,
		       hb_present_source_name(rec.source), (unsigned)rec.present_us);
	}
	free(data);
	return HB_EXIT_OK;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mkframes [--capacity N] FILE\n"
		   "       mkframes --stat FILE\n"
		   "       mkframes --dump FILE\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "stat", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum mkframes_action action = ACTION_CREATE;
	uint64_t capacity = MKFRAMES_DEFAULT_CAPACITY;
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
		case 'h':
			usage(stdout);
			return HB_EXIT_OK;
		default:
			usage(stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
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
