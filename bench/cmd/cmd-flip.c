/*
 * hitchbench flip RUNDIR...: what flip runs measured (docs/metrics.md
 * "Flip"): each run's schedule, its segments (with --segments, one a
 * line), its pairs and blocks and its own estimate of ln(B/A), then the
 * sequential test over every run's blocks in the order given. It reads a
 * run whatever its status, a run killed in its window too (its pairs up to
 * its last switch): the status is said, and a run whose data fails a check
 * is said and left out of the test.
 */
#include "batch/abtest.h"
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "run/run.h"
#include "run/runflip.h"
#include "stats/sequential.h"
#include "text/jsonout.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HB_FLIP_JSON_FORMAT 1

static const char flip_usage[] =
	"usage: hitchbench flip [--segments] [--format table|json] [--stall-ms MS] [--effect PCT]\n"
	"                       [--alpha A] [--beta B] RUNDIR...\n"
	"\n"
	"What flip runs (made by run and by ab's flip design) measured: each run's schedule,\n"
	"its segments counted and left out (and why), its pairs of adjacent segments in\n"
	"blocks, its own estimate of ln(B/A) of fps with the standard error of its\n"
	"blocks; then the sequential test over every run's blocks, in the order given\n"
	"(docs/metrics.md \"Flip\"). A run killed in its window is read up to its last\n"
	"switch.\n"
	"\n"
	"  --segments      also every segment: pass, index, side, frames, fps, or why not counted\n"
	"  --format json   one JSON document (format 1)\n"
	"  --stall-ms MS   a stall is a frame interval over MS (default 100): each side's\n"
	"                  stalls, and B - A per 1000 frames over the same pairs and blocks\n"
	"  --effect, --alpha, --beta  the test's, as ab takes them (default 3, 0.05, 0.05)\n"
	"\n"
	"exit status: 0 SAME, 3 DIFFERENT, 4 UNKNOWN, 1 a run could not be read, 2 usage\n";

struct flip_cmd {
	struct ab_test test;    /* the options and the verdict (its pairs unused) */
	bool segments, json;
	double stall_ms;
	double *blocks;
	size_t n_blocks;
};

static void print_run(struct flip_cmd *c, const struct run *run, const struct run_flip *f)
{
	const struct flip_record *r = &f->rec;

	printf("%s (status %s)\n", run->name, run->status);
	printf("  flip %s: A %s, B %s; order %s, segments of %g s", r->switch_name, r->a, r->b,
	       r->order == FLIP_ORDER_PASSES ? "passes" : "pairs", r->segment_s);
	if (r->unit == FLIP_UNIT_FRAMES)
		printf(" (%u presents)", r->segment_frames);
	printf(", settle %g ms\n", r->settle_ms);
	printf("  segments: %zu switched, %zu counted; left out %zu late (over %g ms), %zu failed, %zu with too "
	       "few frames, %zu outside the window\n", f->n_segs, f->counted, f->late, r->late_ms, f->failed,
	       f->thin, f->outside);
	if (c->segments)
		for (size_t i = 0; i < f->n_segs; i++) {
			const struct flip_seg *g = &f->segs[i];

			if (g->counted)
				printf("    pass %d seg %d %c: %u frames, %.2f fps, %u stalls\n", r->ev[i].pass, g->seg,
				       g->side, g->frames, 1000.0 / exp(g->log_ft), g->stalls);
			else
				printf("    pass %d seg %d %c: not counted: %s\n", r->ev[i].pass, g->seg, g->side,
				       f->left_out[i]);
		}
	if (!f->n_blocks) {
		printf("  no pair of segments counts\n");
		return;
	}
	printf("  pairs %zu (lag-one r %+.2f), blocks %zu of %zu (lag-one r %+.2f): ln(B/A) of fps %+.2f%%, "
	       "standard error %.2f%% (B/A %.4f)\n", f->n_pairs, f->r1_pairs, f->n_blocks, f->block_size,
	       f->r1_blocks, f->estimate * 100, f->se * 100, exp(f->estimate));
	printf("  stalls (frame intervals over %g ms in the paired segments): A %llu in %llu frames, B %llu in "
	       "%llu frames", f->stall_ms, (unsigned long long)f->stalls_a, (unsigned long long)f->frames_a,
	       (unsigned long long)f->stalls_b, (unsigned long long)f->frames_b);
	if (f->n_stall_blocks > 1 && f->stalls_a + f->stalls_b)
		printf("; B - A %+.3f per 1000 frames, standard error %.3f (the same pairs and blocks)",
		       f->stall_diff, f->stall_se);
	printf("\n");
	if (f->n_ft[0] && f->n_ft[1])
		printf("  p99 frame time (nearest-rank, each side's paired segments pooled; no interval): A %.2f ms, "
		       "B %.2f ms (B/A %.3f)\n", f->p99_a, f->p99_b, f->p99_b / f->p99_a);
}

static void json_run(struct json_out *j, const struct run *run, const struct run_flip *f)
{
	json_object_begin_inline(j, NULL);
	json_string(j, "run", run->name);
	json_string(j, "status", run->status);
	json_string(j, "switch", f->rec.switch_name);
	json_string(j, "a", f->rec.a);
	json_string(j, "b", f->rec.b);
	json_uint(j, "segments", f->n_segs);
	json_uint(j, "late", f->late);
	json_uint(j, "failed", f->failed);
	json_uint(j, "thin", f->thin);
	json_uint(j, "outside", f->outside);
	json_uint(j, "pairs", f->n_pairs);
	json_uint(j, "block_size", f->block_size);
	json_uint(j, "blocks", f->n_blocks);
	json_number(j, "r1_pairs", true, f->r1_pairs);
	json_number(j, "r1_blocks", true, f->r1_blocks);
	json_number(j, "log_ratio", f->n_blocks > 0, f->estimate);
	json_number(j, "se", f->n_blocks > 1, f->se);
	json_number(j, "stall_ms", true, f->stall_ms);
	json_uint(j, "stalls_a", f->stalls_a);
	json_uint(j, "frames_a", f->frames_a);
	json_uint(j, "stalls_b", f->stalls_b);
	json_uint(j, "frames_b", f->frames_b);
	json_number(j, "stall_diff_per_1000", f->n_stall_blocks > 0, f->stall_diff);
	json_number(j, "stall_diff_se", f->n_stall_blocks > 1, f->stall_se);
	json_number(j, "p99_ms_a", f->n_ft[0] > 0, f->p99_a);
	json_number(j, "p99_ms_b", f->n_ft[1] > 0, f->p99_b);
	json_object_end(j);
}

/* One run read, printed and its blocks added: 0, or -1 (said). */
static int one_run(struct flip_cmd *c, const char *dir, struct json_out *j)
{
	struct strbuf err = STRBUF_INIT;
	struct run run;
	struct run_flip f;
	int r;

	run_flip_init(&f);
	if (run_load(dir, &run, &err) < 0) {
		error_msg("%s", err.buf);
		strbuf_release(&err);
		return -1;
	}
	f.stall_ms = c->stall_ms;
	r = run_flip_analyse(&run, &f, &err);
	if (r == -ENOENT)
		error_msg("%s: not a flip run (no flip.txt)", dir);
	else if (r < 0)
		error_msg("%s", err.buf);
	if (r == 0) {
		if (c->json)
			json_run(j, &run, &f);
		else
			print_run(c, &run, &f);
		c->blocks = xrealloc(c->blocks, sizeof(*c->blocks) * (c->n_blocks + f.n_blocks + 1));
		memcpy(c->blocks + c->n_blocks, f.blocks, sizeof(*f.blocks) * f.n_blocks);
		c->n_blocks += f.n_blocks;
	}
	run_flip_release(&f);
	run_release(&run);
	strbuf_release(&err);
	return r == 0 ? 0 : -1;
}

int cmd_flip(int argc, char **argv, struct context *ctx)
{
	static const struct option opts[] = {
		{ "segments", no_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "effect", required_argument, NULL, 'e' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "beta", required_argument, NULL, 'b' },
		{ "stall-ms", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct flip_cmd c = { .blocks = NULL, .stall_ms = FLIP_STALL_MS_DEFAULT };
	struct seq_result res;
	struct json_out j;
	enum report_format fmt;
	int o, ret = HB_EXIT_OK, failed = 0;

	ab_test_init(&c.test);
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			c.segments = true;
			break;
		case 'f':
			if (format_arg(flip_usage, optarg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON),
				       &fmt) != HB_EXIT_OK)
				return HB_EXIT_USAGE;
			c.json = fmt == REPORT_JSON;
			break;
		case 'S':
			if (safe_atod(optarg, &c.stall_ms) < 0 || !(c.stall_ms > 0))
				return usage_error(flip_usage, "--stall-ms wants milliseconds > 0, not '%s'", optarg);
			break;
		case 'e':
		case 'a':
		case 'b':
			ret = ab_test_option(&c.test, flip_usage, o == 'e' ? "effect" : o == 'a' ? "alpha" : "beta",
					     optarg);
			if (ret != HB_EXIT_OK)
				return ret;
			break;
		case 'h':
			fputs(flip_usage, stdout);
			return HB_EXIT_OK;
		default:
			fputs(flip_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(flip_usage, "flip wants one or more run directories");
	c.test.opts.max_pairs = AB_FLIP_MAX_BLOCKS;
	if (c.json) {
		json_out_init(&j, stdout);
		json_object_begin(&j, NULL);
		json_int(&j, "format", HB_FLIP_JSON_FORMAT);
		json_array_begin(&j, "runs");
	}
	for (int i = optind; i < argc; i++)
		failed += one_run(&c, argv[i], &j) < 0;
	seq_run(c.blocks, c.n_blocks, &c.test.opts, &res);
	c.test.result = res;
	c.test.flip = true;
	if (c.json) {
		json_array_end(&j);
		json_string(&j, "verdict", stats_verdict_name(res.verdict));
		json_int(&j, "sign", res.sign);
		json_uint(&j, "blocks", res.pairs);
		json_number(&j, "llr", true, res.llr);
		json_number(&j, "estimate", res.pairs > 0, res.estimate);
		json_number(&j, "ci_lo", res.pairs > 0, res.ci_lo);
		json_number(&j, "ci_hi", res.pairs > 0, res.ci_hi);
		json_object_begin(&j, "definitions");
		json_string(&j, "log_ratio", "a run's mean over its blocks of ln(B/A) of the fps of adjacent segments "
			    "(docs/metrics.md \"Flip\")");
		json_string(&j, "se", "the standard error of that mean, from the run's blocks");
		json_string(&j, "estimate", "B/A from the sequential test over every run's blocks, with its "
			    "confidence sequence ci_lo..ci_hi");
		json_object_end(&j);
		json_object_end(&j);
	} else {
		putchar('\n');
		ab_print_verdict(stdout, &c.test);
	}
	free(c.blocks);
	ab_test_release(&c.test);
	(void)ctx;
	return failed ? HB_EXIT_FAILURE : ab_exit_code(&c.test);
}
