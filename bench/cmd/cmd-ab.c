/*
 * hitchbench ab: an A/B that stops when it knows. One batch of
 * counterbalanced pairs of runs (A B, then B A, ...), and after each pair
 * the paired sequential test of analysis/stats/sequential.h: a line per pair,
 * and a stop at its verdict or at the cap. The batch is run's own
 * (batch_command(): the same options, directory, database, --resume), with
 * the test's state in its ab.txt.
 */
#include "batch/abtest.h"
#include "cmd/cmd-run.h"
#include "cmd/runargs.h"
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --design flip's defaults: a run's window (a few passes of a looping
 * demo), and the cap in minutes of game time. */
#define AB_FLIP_WINDOW_S 120
#define AB_FLIP_MINUTES 30

static const char ab_usage[] =
	"usage: hitchbench ab [run options] RECIPE A B [--metric M] [--effect PCT] [--alpha A]\n"
	"                     [--beta B] [--max-rounds N] [--format table|json]\n"
	"                     [--design runs|flip|relay|duet] [--max-minutes M]\n"
	"       hitchbench ab --resume BATCH [run options of a resume] [--format table|json]\n"
	"\n"
	"Runs A and B in counterbalanced pairs (A B, then B A) in one batch and after\n"
	"each pair updates a sequential test of the pair's log-ratio ln(B/A); stops at\n"
	"SAME or DIFFERENT, or at the cap with UNKNOWN (docs/metrics.md, \"A paired A/B\n"
	"that stops when it knows\").\n"
	"\n"
	"  A, B            run cells: VARIANT or VARIANT@TOKEN (a switch token as run takes,\n"
	"                  e.g. software@SLOWDOWN=3); they differ in the variant or in the\n"
	"                  token, not both\n"
	"  --metric M      the metric tested (default fps; names as in 'hitchbench report')\n"
	"  --effect PCT    the smallest change worth finding, percent (default 3)\n"
	"  --alpha A       false-positive rate (default 0.05)\n"
	"  --beta B        1 - power at the effect (default 0.05)\n"
	"  --max-rounds N  the cap: pairs at most (default 30)\n"
	"  --design flip   A and B turned while one game runs (docs/metrics.md \"Flip\"):\n"
	"                  flip runs (as run makes them) of A's variant, one a round, each of\n"
	"                  --window S (default 120), until the test decides or\n"
	"                  --max-minutes M of windows (default 30) are spent; A and B\n"
	"                  differ in one switch that flips (--segment, --settle as\n"
	"                  run takes them). --design relay: A and B loaded at once, each\n"
	"                  with its own X server, played in turns (--turn, --settle as a\n"
	"                  relay run takes them; docs/metrics.md \"Relay\"); --design duet: both\n"
	"                  playing at once on halves of the CPUs, swapped by round; each\n"
	"                  round a --window S (default 120) of both, until the test\n"
	"                  decides or --max-minutes M (default 30) are spent.\n"
	"                  --design runs: runs in pairs (the default)\n"
	"  --format json   stdout is one JSON document at the end (format 1: the options,\n"
	"                  every round, the verdict; as compare --paired --format json);\n"
	"                  the pair lines and the batch's report go to stderr\n"
	"  run options     --warmup, --window, --rerun-invalid, --db, --no-db, --out,\n"
	"                  --display, --stall-ms, --percentile, --min-frames, --profile, --no-quieting,\n"
	"                  --quiet, -v (see 'hitchbench run --help')\n"
	"\n"
	"exit status: 0 SAME, 3 DIFFERENT, 4 UNKNOWN, 1 failure, 2 usage, 130 interrupted\n"
	"\n"
	"switches:\n";

struct ab_session {
	struct ab_test test;
	bool opts_given;
	char *cell[2];           /* the cells as given (a new batch) */
	struct strbuf variants, tokens;
	char *a_name, *b_name;
	bool heading_printed;
	bool json;               /* --format json */
	bool flip;               /* --design flip */
	const char *relay;       /* --design relay|duet, else NULL */
	double max_minutes;      /* --max-minutes (flip: the cap, of game time) */
	char *batch_id;
	char *flip_token;        /* --design flip: B's token, the batch's flip */
};

static int ab_option(void *data, const char *name, const char *arg)
{
	struct ab_session *s = data;
	enum report_format f;

	if (strcmp(name, "design") == 0) {
		if (strcmp(arg, "flip") && strcmp(arg, "runs") && strcmp(arg, "relay") && strcmp(arg, "duet"))
			return usage_error(ab_usage, "--design wants runs, flip, relay or duet, not '%s'", arg);
		s->flip = strcmp(arg, "flip") == 0;
		s->relay = strcmp(arg, "relay") == 0 || strcmp(arg, "duet") == 0 ? arg : NULL;
		return HB_EXIT_OK;
	}
	if (strcmp(name, "max-minutes") == 0) {
		if (safe_atod(arg, &s->max_minutes) < 0 || !(s->max_minutes > 0 && s->max_minutes <= 24 * 60))
			return usage_error(ab_usage, "--max-minutes wants minutes over 0, at most a day, not '%s'",
					   arg);
		s->opts_given = true;
		return HB_EXIT_OK;
	}

	if (strcmp(name, "format") == 0) {
		if (format_arg(ab_usage, arg, FORMAT_BIT(REPORT_TABLE) | FORMAT_BIT(REPORT_JSON), &f) != HB_EXIT_OK)
			return HB_EXIT_USAGE;
		s->json = f == REPORT_JSON;
		return HB_EXIT_OK;
	}
	s->opts_given = true;
	return ab_test_option(&s->test, ab_usage, name, arg);
}

/* "software@SLOWDOWN=3" into the variant and the token ("-" for none). */
static void cell_split(const char *cell, char **variant, char **token)
{
	const char *at = strchr(cell, '@');

	*variant = at ? xstrndup(cell, (size_t)(at - cell)) : xstrdup(cell);
	*token = at && at[1] ? xstrdup(at + 1) : xstrdup("-");
}

/* The rounds of a design of windows (flip, relay, duet): each a --window
 * (default AB_FLIP_WINDOW_S), as many as fit in --max-minutes of windows
 * (default AB_FLIP_MINUTES), at least `least`. */
static void window_rounds(const struct ab_session *s, struct run_args *a, int least)
{
	double minutes = s->max_minutes > 0 ? s->max_minutes : AB_FLIP_MINUTES;

	if (a->window <= 0)
		a->window = AB_FLIP_WINDOW_S;
	a->rounds = (int)ceil(minutes * 60 / a->window);
	if (a->rounds < least)
		a->rounds = least;
}

/* --design flip: one variant, A's token the runs' own, B's the flip's; a
 * flip run a round (window_rounds()). */
static int flip_cells(struct ab_session *s, char *const v[2], char *const t[2], struct run_args *a)
{
	if (strcmp(v[0], v[1]) != 0)
		return usage_error(ab_usage, "--design flip turns a switch within one run of one variant: A "
				   "'%s' and B '%s' are two variants (compare them with --design runs)", v[0], v[1]);
	if (strcmp(t[0], t[1]) == 0)
		return usage_error(ab_usage, "A and B are the same cell '%s@%s': for an A/A by flip name two "
				   "spellings of one setting (SLOWDOWN=0 and SLOWDOWN=0.0)", v[0], t[0]);
	if (s->test.metric != M_FPS)
		return usage_error(ab_usage, "--design flip tests fps (each segment's frames over their time), "
				   "not %s", metric_defs[s->test.metric].name);
	strbuf_addstr(&s->variants, v[0]);
	strbuf_addstr(&s->tokens, t[0]);
	a->variants = s->variants.buf;
	a->tokens = s->tokens.buf;
	a->flip = xstrdup(t[1]);
	s->flip_token = (char *)a->flip;
	window_rounds(s, a, 1);
	return HB_EXIT_OK;
}

static int ab_cells(void *data, char **args, int n, struct run_args *a)
{
	struct ab_session *s = data;
	char *v[2], *t[2];
	int ret = HB_EXIT_OK;

	if (n != 2)
		return usage_error(ab_usage, "ab wants a recipe and two cells, A and B");
	for (int i = 0; i < 2; i++) {
		cell_split(args[i], &v[i], &t[i]);
		if (!v[i][0] || strchr(v[i], ' ') || strchr(t[i], ' ')) {
			ret = usage_error(ab_usage, "cell '%s' is not VARIANT or VARIANT@TOKEN", args[i]);
			goto out;
		}
	}
	if (s->flip) {
		ret = flip_cells(s, v, t, a);
		goto out;
	}
	if (s->relay && s->test.metric != M_FPS) {
		ret = usage_error(ab_usage, "--design %s tests fps (the same frames' times on both sides), not %s",
				  s->relay, metric_defs[s->test.metric].name);
		goto out;
	}
	if (s->max_minutes > 0 && !s->relay) {
		ret = usage_error(ab_usage, "--max-minutes is the cap of --design flip, relay and duet (runs: "
				  "--max-rounds)");
		goto out;
	}
	if (strcmp(v[0], v[1]) == 0 && strcmp(t[0], t[1]) == 0) {
		ret = usage_error(ab_usage, "A and B are the same cell '%s': a batch runs each cell once a "
				  "round; for an A/A name two cells that run the same (two variants with the "
				  "same settings)", args[0]);
		goto out;
	}
	if (strcmp(v[0], v[1]) != 0 && strcmp(t[0], t[1]) != 0) {
		ret = usage_error(ab_usage, "A '%s' and B '%s' differ in both the variant and the switches: "
				  "a pair must differ in one", args[0], args[1]);
		goto out;
	}
	/* one variant and two tokens, or two variants and one token */
	if (strcmp(v[0], v[1]) == 0) {
		strbuf_addstr(&s->variants, v[0]);
		strbuf_addf(&s->tokens, "%s %s", t[0], t[1]);
	} else {
		strbuf_addf(&s->variants, "%s %s", v[0], v[1]);
		strbuf_addstr(&s->tokens, t[0]);
	}
	a->variants = s->variants.buf;
	a->tokens = s->tokens.buf;
	a->rounds = (int)s->test.opts.max_pairs;
	if (s->relay) { /* the round's two cells at once; a duet swaps its CPUs once at least */
		a->relay = s->relay;
		window_rounds(s, a, strcmp(s->relay, "duet") == 0 ? 2 : 1);
	}
out:
	for (int i = 0; i < 2; i++) {
		free(v[i]);
		free(t[i]);
	}
	return ret;
}

/* The lines go to stdout, or to stderr when stdout is for the JSON document. */
static FILE *lines_out(const struct ab_session *s)
{
	return s->json ? stderr : stdout;
}

static void print_new_pairs(struct ab_session *s, size_t from)
{
	FILE *out = lines_out(s);

	if (!s->heading_printed) {
		ab_print_heading(out, &s->test, s->a_name, s->b_name);
		s->heading_printed = true;
	}
	for (size_t i = from; i < s->test.n_pairs; i++)
		ab_print_pair(out, &s->test, i);
	fflush(out);
}

static int ab_begin(void *data, struct batch *b, const struct metric_opts *metric, bool resumed)
{
	struct ab_session *s = data;
	struct strbuf err = STRBUF_INIT;
	int r = -EINVAL;

	if (ab_batch_cells(b, &err) < 0)
		goto fail;
	s->test.mo = *metric;
	s->a_name = ab_cell_name(b, 0);
	s->b_name = ab_cell_name(b, 1);
	s->batch_id = xstrdup(b->id);
	if (resumed) {
		if (s->opts_given) {
			strbuf_addstr(&err, "a resumed ab goes on with its test as it began: no --metric, "
				      "--effect, --alpha, --beta or --max-rounds with --resume");
			goto fail;
		}
		r = ab_state_read_opts(&s->test, b, &err);
		if (r == -ENOENT) {
			strbuf_addf(&err, "%s/ab.txt: no such file: not a batch of ab", b->dir);
			r = -EINVAL;
		}
		if (r < 0)
			goto fail;
	}
	ab_test_update(&s->test, b, NULL);
	if (s->test.n_pairs)
		print_new_pairs(s, 0);
	if (ab_state_write(&s->test, b, s->a_name, s->b_name) < 0) {
		strbuf_addf(&err, "cannot write '%s/ab.txt': %s", b->dir, strerror(errno));
		r = -EIO;
		goto fail;
	}
	strbuf_release(&err);
	return s->test.result.done ? 1 : 0;
fail:
	error_msg("%s", err.buf);
	strbuf_release(&err);
	return r < 0 ? r : -EINVAL;
}

static int ab_after_round(struct batch_run *br, int round, void *data, struct strbuf *err)
{
	struct ab_session *s = data;
	size_t before = s->test.n_pairs;
	int r;

	ab_test_update(&s->test, br->batch, NULL);
	print_new_pairs(s, before);
	r = ab_state_write(&s->test, br->batch, s->a_name, s->b_name);
	if (r < 0) {
		strbuf_addf(err, "cannot write '%s/ab.txt': %s", br->batch->dir, strerror(-r));
		return r;
	}
	return s->test.result.done ? 1 : 0;
}

static int ab_end(void *data, struct batch *b, int ret)
{
	struct ab_session *s = data;

	if (!s->a_name) /* it never began */
		return ret;
	fputc('\n', lines_out(s));
	if (!s->heading_printed)
		print_new_pairs(s, 0);
	ab_print_verdict(lines_out(s), &s->test);
	if (s->json)
		ab_print_json(stdout, &s->test, s->batch_id, s->a_name, s->b_name);
	if (ret != HB_EXIT_OK)
		return ret;
	return ab_exit_code(&s->test);
}

int cmd_ab(int argc, char **argv, struct context *ctx)
{
	struct ab_session s = { .variants = STRBUF_INIT, .tokens = STRBUF_INIT };
	struct batch_hooks hooks = {
		.name = "ab", .usage = ab_usage, .option = ab_option, .cells = ab_cells, .begin = ab_begin,
		.after_round = ab_after_round, .end = ab_end, .data = &s, .document = &s.json,
	};
	int ret;

	ab_test_init(&s.test);
	ret = batch_command(argc, argv, ctx, &hooks, NULL);
	ab_test_release(&s.test);
	strbuf_release(&s.variants);
	strbuf_release(&s.tokens);
	free(s.a_name);
	free(s.b_name);
	free(s.batch_id);
	free(s.flip_token);
	return ret;
}
