/*
 * hitchbench profile: where the game's CPU time went, from the profile
 * record of runs made with PROFILE=1 (docs/profile.md): per stall frame
 * its categories and hottest functions, for the window the stall frames
 * against the others, for two groups of runs (RUNDIR... --vs RUNDIR...)
 * the difference; as a table, folded stacks (one "frame;frame;... count"
 * a line, what flame graph tools read), JSON, or an SVG picture (a flame
 * graph, a differential one with --vs, or the window's frames with
 * --picture frames). The analysis is analysis/profile/; this parses,
 * loads and prints.
 */
#include "cmd/cmd.h"
#include "cmd/cmdargs.h"
#include "base/exitcodes.h"
#include "base/message.h"
#include "text/jsonout.h"
#include "run/run.h"
#include "profile/profile.h"
#include "profile/profsvg.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char profile_usage[] =
	"usage: hitchbench profile [--frames stalls|all|A..B] [--format table|folded|svg|json]\n"
	"                          [--picture flame|frames] [--span window|run] [--stall-ms MS]\n"
	"                          [--top N]\n"
	"                          RUNDIR... [--vs RUNDIR...]\n"
	"\n"
	"  RUNDIR          a run directory with a profile record (PROFILE=1), or a directory of them\n"
	"  --vs RUNDIR     a run of the second group (repeat it, or give a directory of runs): the\n"
	"                  table and the picture compare the two groups\n"
	"  --frames WHICH  the frames read: the window's stall frames (the default), all the\n"
	"                  window's frames, or presents A..B of the frame file\n"
	"  --format F      table (the default), folded (one 'frame;...;frame COUNT' a line, root\n"
	"                  first), svg (a picture), json (format 1)\n"
	"  --picture P     with svg: flame (a flame graph; with --vs a differential one, shaped\n"
	"                  by the second group) or frames (the window's frames along x, the time\n"
	"                  into each frame along y, shaded by category; the first run)\n"
	"  --span S        window: the measured window's frames (the default); run: every frame\n"
	"                  from the first present, the load's and the warm-up's too (where a\n"
	"                  game compiles most of its shaders)\n"
	"  --stall-ms MS   a frame over MS is a stall (default 100)\n"
	"  --top N         functions listed per stall and per comparison (default 8)\n";

enum prof_format { PF_TABLE, PF_FOLDED, PF_SVG, PF_JSON };

struct prof_opts {
	enum prof_format format;
	bool picture_frames;
	bool whole;                     /* --span run */
	enum { SEL_STALLS, SEL_ALL, SEL_RANGE } sel;
	uint64_t from, to;              /* SEL_RANGE: presents */
	double stall_ms;
	int top;
	struct prof_rules rules;
	struct json_out j;
};

/* One run loaded: its frames and its profile. */
struct prof_run {
	struct run run;
	struct profile p;
	struct prof_frames fr;
	uint64_t *sel;                  /* per stack: samples of the selected frames */
	uint64_t *stall, *other;        /* per stack: of the window's stall frames, of the rest */
	uint64_t n_sel, n_stall, n_other;
};

static bool frame_selected(const struct prof_opts *o, const struct prof_frames *fr, size_t i)
{
	switch (o->sel) {
	case SEL_STALLS: return fr->stall[i];
	case SEL_ALL: return true;
	default: return fr->index[i] >= o->from && fr->index[i] <= o->to;
	}
}

static int load_one(const char *dir, struct prof_opts *o, struct prof_run *r, struct strbuf *err)
{
	size_t ns;
	int ret;

	memset(r, 0, sizeof(*r));
	if ((ret = run_load(dir, &r->run, err)) < 0)
		return ret;
	ret = profile_load(dir, &o->rules, &r->p, err);
	if (ret == -ENOENT) {
		strbuf_addf(err, "%s: no profile record (%s): make runs with PROFILE=1", dir, HB_PROFREC_FILE);
		return ret;
	}
	if (ret < 0)
		return ret;
	if (prof_frames_of(&r->run, o->stall_ms, o->whole, &r->fr) < 0) {
		strbuf_addf(err, "%s: no frames%s to read the profile by", dir, o->whole ? "" : " in a window");
		return -ENODATA;
	}
	ns = r->p.rec.n_stack + 1;
	r->sel = zalloc(ns * sizeof(*r->sel));
	r->stall = zalloc(ns * sizeof(*r->stall));
	r->other = zalloc(ns * sizeof(*r->other));
	for (size_t i = 0; i < r->fr.n; i++) {
		uint64_t *to = r->fr.stall[i] ? r->stall : r->other;
		uint64_t n = profile_count(&r->p, r->fr.start_ns[i], r->fr.end_ns[i], to);

		*(r->fr.stall[i] ? &r->n_stall : &r->n_other) += n;
		if (frame_selected(o, &r->fr, i))
			r->n_sel += profile_count(&r->p, r->fr.start_ns[i], r->fr.end_ns[i], r->sel);
	}
	return 0;
}

static void release_one(struct prof_run *r)
{
	free(r->sel);
	free(r->stall);
	free(r->other);
	prof_frames_release(&r->fr);
	profile_release(&r->p);
	run_release(&r->run);
}

static double pct(uint64_t a, uint64_t n)
{
	return n ? 100.0 * (double)a / (double)n : 0.0;
}

/* Frame i's samples: per stack into one (zeroed first), per category
 * added to pc (zeroed by the caller); returns how many. */
static uint64_t frame_tally(const struct prof_run *r, size_t i, uint64_t *one, uint64_t *pc)
{
	uint64_t n;

	memset(one, 0, (r->p.rec.n_stack + 1) * sizeof(*one));
	n = profile_count(&r->p, r->fr.start_ns[i], r->fr.end_ns[i], one);
	profile_categories(&r->p, one, pc);
	return n;
}

/* --- the table --- */

static void print_functions(const struct profile *p, const uint64_t *per_stack, uint64_t n, int top,
			    const char *indent)
{
	size_t nf;
	struct prof_fn *f = profile_functions(p, per_stack, &nf);

	printf("%s  self  total  function\n", indent);
	for (size_t i = 0; i < nf && (int)i < top; i++)
		printf("%s%5.1f%% %5.1f%%  %s\n", indent, pct(f[i].self, n), pct(f[i].total, n), f[i].name);
	free(f);
}

static void print_run(struct prof_opts *o, struct prof_run *r)
{
	const struct profile *p = &r->p;
	uint64_t cs[PROF_MAX_CATEGORIES] = { 0 }, co[PROF_MAX_CATEGORIES] = { 0 };
	uint64_t *one = zalloc((p->rec.n_stack + 1) * sizeof(*one));

	printf("run %s (%s)\n", r->run.name, r->run.dir);
	printf("  profile: %zu samples of the game's threads on a CPU, each %.3f ms of a thread's CPU time "
	       "(meta hz=%s), %" PRIu64 " lost, %zu threads\n", p->n, p->sample_s * 1e3,
	       kvfile_get(&p->rec.meta, "hz") ? kvfile_get(&p->rec.meta, "hz") : "?", p->rec.lost,
	       p->rec.n_thread);
	printf("  %s: %zu frames, %zu stalls over %.0f ms; categories of all the game's threads' samples "
	       "(gamedb/%s)\n", o->whole ? "run (from the first present)" : "window", r->fr.n, r->fr.n_stall,
	       o->stall_ms, PROF_RULES_FILE);
	profile_categories(p, r->stall, cs);
	profile_categories(p, r->other, co);
	printf("    %-20s %18s %18s\n", "category", "stall frames", "other frames");
	for (size_t c = 0; c < o->rules.n; c++) {
		if (!cs[c] && !co[c])
			continue;
		printf("    %-20s %6.1f%% %8.0f ms %6.1f%% %8.0f ms\n", o->rules.names[c], pct(cs[c], r->n_stall),
		       (double)cs[c] * p->sample_s * 1e3, pct(co[c], r->n_other),
		       (double)co[c] * p->sample_s * 1e3);
	}
	if (o->sel == SEL_STALLS && !r->fr.n_stall)
		printf("  no stall frame in the window\n");
	for (size_t i = 0; i < r->fr.n; i++) {
		uint64_t pc[PROF_MAX_CATEGORIES] = { 0 }, n;
		struct strbuf what = STRBUF_INIT;

		if (!frame_selected(o, &r->fr, i))
			continue;
		n = frame_tally(r, i, one, pc);
		profile_categories_describe(p, pc, n, 1.0, 4, &what);
		printf("  frame %" PRIu64 "%s (%+.3f s, %.1f ms): %" PRIu64 " samples, %.0f ms of CPU%s%s\n",
		       r->fr.index[i], r->fr.stall[i] ? " stall" : "",
		       ((double)r->fr.end_ns[i] - (double)r->run.window_start_ns) / 1e9,
		       (double)(r->fr.end_ns[i] - r->fr.start_ns[i]) / 1e6, n, (double)n * p->sample_s * 1e3,
		       n ? ": " : "", what.buf);
		if (n && (o->sel != SEL_ALL))
			print_functions(p, one, n, o->top, "      ");
		strbuf_release(&what);
	}
	if (r->n_stall) {
		printf("  hottest functions of the stall frames (self and total, of their %" PRIu64 " samples):\n",
		       r->n_stall);
		print_functions(p, r->stall, r->n_stall, o->top, "    ");
	}
	if (p->notes->len) {
		printf("  not named:\n");
		for (char *s = p->notes->buf, *nl; s && *s; s = nl ? nl + 1 : NULL) {
			nl = strchr(s, '\n');
			printf("    %.*s\n", nl ? (int)(nl - s) : (int)strlen(s), s);
		}
	}
	free(one);
}

/* --- groups: the trees --- */

static void add_group(struct prof_run *runs, size_t n, struct prof_tree *t, int side)
{
	for (size_t i = 0; i < n; i++)
		profile_tree_add(&runs[i].p, runs[i].sel, t, side);
}

static void folded_walk(const struct prof_tree *t, uint32_t node, struct strbuf *path)
{
	size_t len = path->len;

	if (node) {
		if (path->len)
			strbuf_addch(path, ';');
		strbuf_addstr(path, t->name[t->node[node].name]);
		if (t->node[node].self[0])
			printf("%s %" PRIu64 "\n", path->buf, t->node[node].self[0]);
	}
	prof_tree_for_children(t, node, c)
		folded_walk(t, c, path);
	path->len = len;
	if (path->buf)
		path->buf[len] = '\0';
}

static void compare_groups(struct prof_opts *o, struct prof_run *a, size_t na, struct prof_run *b, size_t nb)
{
	uint64_t ca[PROF_MAX_CATEGORIES] = { 0 }, cb[PROF_MAX_CATEGORIES] = { 0 }, sa = 0, sb = 0;

	for (size_t i = 0; i < na; i++) {
		profile_categories(&a[i].p, a[i].sel, ca);
		sa += a[i].n_sel;
	}
	for (size_t i = 0; i < nb; i++) {
		profile_categories(&b[i].p, b[i].sel, cb);
		sb += b[i].n_sel;
	}
	printf("groups: A %zu run(s), %" PRIu64 " samples; B %zu run(s), %" PRIu64 " samples (the %s frames)\n",
	       na, sa, nb, sb, o->sel == SEL_STALLS ? "stall" : o->sel == SEL_ALL ? (o->whole ? "run's" : "window's") : "given");
	printf("    %-20s %8s %8s %9s\n", "category", "A", "B", "B-A");
	for (size_t c = 0; c < o->rules.n; c++)
		if (ca[c] || cb[c])
			printf("    %-20s %7.1f%% %7.1f%% %+8.1fpp\n", o->rules.names[c], pct(ca[c], sa), pct(cb[c], sb),
			       pct(cb[c], sb) - pct(ca[c], sa));
}

/* --- JSON --- */

static void json_categories(struct json_out *j, const char *key, const struct prof_rules *rules, const uint64_t *per_cat,
			    uint64_t n, double sample_s)
{
	json_object_begin(j, key);
	for (size_t c = 0; c < rules->n; c++) {
		if (!per_cat[c])
			continue;
		json_object_begin_inline(j, rules->names[c]);
		json_uint(j, "samples", per_cat[c]);
		json_number(j, "share", true, n ? (double)per_cat[c] / (double)n : 0.0);
		json_number(j, "cpu_ms", true, (double)per_cat[c] * sample_s * 1e3);
		json_object_end(j);
	}
	json_object_end(j);
}

static void json_functions(struct json_out *j, const char *key, const struct profile *p, const uint64_t *per_stack,
			   uint64_t n, int top)
{
	size_t nf;
	struct prof_fn *f = profile_functions(p, per_stack, &nf);

	json_array_begin(j, key);
	for (size_t i = 0; i < nf && (int)i < top; i++) {
		json_object_begin(j, NULL);
		json_string(j, "function", f[i].name);
		json_number(j, "self", true, pct(f[i].self, n) / 100.0);
		json_number(j, "total", true, pct(f[i].total, n) / 100.0);
		json_object_end(j);
	}
	json_array_end(j);
	free(f);
}

static void json_run(struct prof_opts *o, struct prof_run *r)
{
	struct json_out *j = &o->j;
	const struct profile *p = &r->p;
	uint64_t cs[PROF_MAX_CATEGORIES] = { 0 }, co[PROF_MAX_CATEGORIES] = { 0 };
	uint64_t *one = zalloc((p->rec.n_stack + 1) * sizeof(*one));

	profile_categories(p, r->stall, cs);
	profile_categories(p, r->other, co);
	json_object_begin(j, NULL);
	json_string(j, "run", r->run.name);
	json_string(j, "dir", r->run.dir);
	json_uint(j, "samples", p->n);
	json_number(j, "sample_ms", true, p->sample_s * 1e3);
	json_uint(j, "lost", p->rec.lost);
	json_uint(j, "frames", r->fr.n);
	json_uint(j, "stall_frames", r->fr.n_stall);
	json_categories(j, "stall_categories", &o->rules, cs, r->n_stall, p->sample_s);
	json_categories(j, "other_categories", &o->rules, co, r->n_other, p->sample_s);
	json_array_begin(j, "selected");
	for (size_t i = 0; i < r->fr.n; i++) {
		uint64_t pc[PROF_MAX_CATEGORIES] = { 0 }, n;

		if (!frame_selected(o, &r->fr, i))
			continue;
		n = frame_tally(r, i, one, pc);
		json_object_begin(j, NULL);
		json_uint(j, "present", r->fr.index[i]);
		json_bool(j, "stall", r->fr.stall[i]);
		json_number(j, "ms", true, (double)(r->fr.end_ns[i] - r->fr.start_ns[i]) / 1e6);
		json_uint(j, "samples", n);
		json_categories(j, "categories", &o->rules, pc, n, p->sample_s);
		json_functions(j, "functions", p, one, n, o->top);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	free(one);
}

/* --- the picture --- */

static int frames_picture(const struct prof_opts *o, struct prof_run *r)
{
	const struct profile *p = &r->p;
	struct prof_frames_pic pic = { 0 };
	size_t n = 0, cap = 0;
	uint32_t *frame = NULL;
	uint64_t *off = NULL, longest = 0;
	uint8_t *cat = NULL;
	struct strbuf sub = STRBUF_INIT;
	int ret;

	for (size_t i = 0; i < r->fr.n; i++) {
		uint64_t len = r->fr.end_ns[i] - r->fr.start_ns[i];

		longest = len > longest ? len : longest;
		for (size_t s = profile_first(p, r->fr.start_ns[i] + 1); s < p->n &&
		     p->by_time[s].ns <= r->fr.end_ns[i]; s++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				frame = xrealloc(frame, cap * sizeof(*frame));
				off = xrealloc(off, cap * sizeof(*off));
				cat = xrealloc(cat, cap);
			}
			frame[n] = (uint32_t)i;
			off[n] = p->by_time[s].ns - r->fr.start_ns[i];
			cat[n] = p->path[p->by_time[s].stack - 1].category;
			n++;
		}
	}
	pic = (struct prof_frames_pic){ .n_frames = r->fr.n, .start_ns = r->fr.start_ns, .end_ns = r->fr.end_ns,
					.stall = r->fr.stall, .n_samples = n, .frame = frame, .offset_ns = off,
					.category = cat, .category_names = p->rules->names,
					.n_category = p->rules->n, .max_offset_ns = longest };
	strbuf_addf(&sub, "%s: the %s %zu frames along x, the time into each frame up, each sample of "
		    "the game's threads (%.3f ms of CPU) shaded by its category; %zu stall frames over %.0f ms "
		    "marked", r->run.name, o->whole ? "run's" : "window's", r->fr.n, p->sample_s * 1e3,
		    r->fr.n_stall, o->stall_ms);
	ret = prof_svg_frames(stdout, &pic, "Where each frame's CPU time went", sub.buf);
	strbuf_release(&sub);
	free(frame);
	free(off);
	free(cat);
	return ret;
}

static int picture(struct prof_opts *o, struct prof_run *a, size_t na, struct prof_run *b, size_t nb)
{
	struct prof_tree t;
	struct strbuf sub = STRBUF_INIT;
	const char *what = o->sel == SEL_STALLS ? "stall frames" : o->sel == SEL_ALL ?
			   (o->whole ? "run's frames" : "window's frames") : "given frames";
	int ret;

	if (o->picture_frames)
		return frames_picture(o, &a[0]);
	prof_tree_init(&t, o->rules.names, o->rules.n);
	add_group(a, na, &t, 0);
	t.sample_s[0] = t.sample_s[1] = a[0].p.sample_s;
	t.side_name[0] = "A";
	t.side_name[1] = "B";
	if (nb) {
		add_group(b, nb, &t, 1);
		strbuf_addf(&sub, "the %s' CPU samples of %zu run(s) (A: %s) against %zu (B: %s): shaped by B, "
			    "red where B spends a larger share, blue a smaller", what, na, a[0].run.name, nb,
			    b[0].run.name);
		ret = prof_svg_diff(stdout, &t, "Where the CPU went: B against A", sub.buf);
	} else {
		strbuf_addf(&sub, "the %s' CPU samples (%.3f ms each) of %zu run(s) (%s), all the game's threads; "
			    "coloured by category", what, a[0].p.sample_s * 1e3, na, a[0].run.name);
		ret = prof_svg_flame(stdout, &t, 0, "Where the CPU went", sub.buf);
	}
	strbuf_release(&sub);
	prof_tree_release(&t);
	return ret;
}

/* --- the command --- */

static int parse_frames(const char *s, struct prof_opts *o)
{
	const char *dots = strstr(s, "..");
	char *a;
	int r;

	if (strcmp(s, "stalls") == 0) {
		o->sel = SEL_STALLS;
		return 0;
	}
	if (strcmp(s, "all") == 0) {
		o->sel = SEL_ALL;
		return 0;
	}
	if (!dots)
		return -EINVAL;
	a = xstrndup(s, (size_t)(dots - s));
	r = safe_atou64(a, &o->from) < 0 || safe_atou64(dots + 2, &o->to) < 0 || o->to < o->from ? -EINVAL : 0;
	free(a);
	o->sel = SEL_RANGE;
	return r;
}

static int load_group(struct argv_list *dirs, struct prof_opts *o, struct prof_run **runs, size_t *n)
{
	struct strbuf err = STRBUF_INIT;
	int ret = HB_EXIT_OK;

	*runs = zalloc((dirs->n + 1) * sizeof(**runs));
	*n = 0;
	for (size_t i = 0; i < dirs->n; i++) {
		if (load_one(dirs->v[i], o, &(*runs)[*n], &err) < 0) {
			error_msg("%s", err.buf);
			strbuf_reset(&err);
			release_one(&(*runs)[*n]);
			ret = HB_EXIT_FAILURE;
			continue;
		}
		(*n)++;
	}
	strbuf_release(&err);
	return ret;
}

static int parse_args(int argc, char **argv, struct prof_opts *o, struct argv_list *vs)
{
	static const struct option opts[] = {
		{ "frames", required_argument, NULL, 'F' },
		{ "format", required_argument, NULL, 'f' },
		{ "picture", required_argument, NULL, 'p' },
		{ "stall-ms", required_argument, NULL, 's' },
		{ "span", required_argument, NULL, 'S' },
		{ "top", required_argument, NULL, 't' },
		{ "vs", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (parse_frames(optarg, o) < 0)
				return usage_error(profile_usage, "--frames wants stalls, all or A..B (presents, "
						   "A <= B), not '%s'", optarg);
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				o->format = PF_TABLE;
			else if (strcmp(optarg, "folded") == 0)
				o->format = PF_FOLDED;
			else if (strcmp(optarg, "svg") == 0)
				o->format = PF_SVG;
			else if (strcmp(optarg, "json") == 0)
				o->format = PF_JSON;
			else
				return usage_error(profile_usage, "--format wants table, folded, svg or json, not "
						   "'%s'", optarg);
			break;
		case 'p':
			if (strcmp(optarg, "flame") != 0 && strcmp(optarg, "frames") != 0)
				return usage_error(profile_usage, "--picture wants flame or frames, not '%s'", optarg);
			o->picture_frames = strcmp(optarg, "frames") == 0;
			break;
		case 'S':
			if (strcmp(optarg, "window") != 0 && strcmp(optarg, "run") != 0)
				return usage_error(profile_usage, "--span wants window or run, not '%s'", optarg);
			o->whole = strcmp(optarg, "run") == 0;
			break;
		case 's':
			if (safe_atod(optarg, &o->stall_ms) < 0 || o->stall_ms <= 0)
				return usage_error(profile_usage, "--stall-ms wants milliseconds > 0, not '%s'",
						   optarg);
			break;
		case 't':
			if (safe_atoi(optarg, &o->top) < 0 || o->top < 1)
				return usage_error(profile_usage, "--top wants a count of 1 or more, not '%s'", optarg);
			break;
		case 'B':
			argv_push(vs, optarg);
			break;
		case 'h':
			fputs(profile_usage, stdout);
			return HB_ARGS_DONE;
		default:
			fputs(profile_usage, stderr);
			return HB_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error(profile_usage, "profile wants run directories");
	if (o->picture_frames && o->format != PF_SVG)
		return usage_error(profile_usage, "--picture is for --format svg");
	if (o->picture_frames && vs->n)
		return usage_error(profile_usage, "--picture frames draws one run: no --vs");
	return HB_EXIT_OK;
}

int cmd_profile(int argc, char **argv, struct context *ctx)
{
	struct prof_opts o = { .stall_ms = 100, .top = 8 };
	struct argv_list vs_args, a_dirs, b_dirs;
	struct prof_run *a = NULL, *b = NULL;
	struct strbuf err = STRBUF_INIT;
	size_t na = 0, nb = 0;
	int ret;

	argv_init(&vs_args);
	argv_init(&a_dirs);
	argv_init(&b_dirs);
	ret = parse_args(argc, argv, &o, &vs_args);
	if (ret != HB_EXIT_OK)
		goto out_args;
	if (prof_rules_find((const char *const *)ctx->gamedb_dirs, &o.rules, &err) < 0) {
		error_msg("%s", err.buf);
		ret = HB_EXIT_FAILURE;
		goto out_args;
	}
	ret = rundir_args_expand(argv + optind, argc - optind, &a_dirs);
	if (ret == HB_EXIT_OK && vs_args.n)
		ret = rundir_args_expand(vs_args.v, (int)vs_args.n, &b_dirs);
	if (ret != HB_EXIT_OK)
		goto out_rules;
	ret = load_group(&a_dirs, &o, &a, &na);
	if (load_group(&b_dirs, &o, &b, &nb) != HB_EXIT_OK)
		ret = HB_EXIT_FAILURE;
	if (!na || (b_dirs.n && !nb)) {
		ret = HB_EXIT_FAILURE;
		goto out;
	}
	switch (o.format) {
	case PF_TABLE:
		for (size_t i = 0; i < na; i++)
			print_run(&o, &a[i]);
		for (size_t i = 0; i < nb; i++)
			print_run(&o, &b[i]);
		if (nb)
			compare_groups(&o, a, na, b, nb);
		break;
	case PF_FOLDED: {
		struct prof_tree t;
		struct strbuf path = STRBUF_INIT;

		prof_tree_init(&t, o.rules.names, o.rules.n);
		add_group(a, na, &t, 0);
		add_group(b, nb, &t, 0);
		folded_walk(&t, 0, &path);
		strbuf_release(&path);
		prof_tree_release(&t);
		break;
	}
	case PF_SVG:
		if (picture(&o, a, na, b, nb) < 0)
			ret = HB_EXIT_FAILURE;
		break;
	case PF_JSON:
		json_out_init(&o.j, stdout);
		json_object_begin(&o.j, NULL);
		json_uint(&o.j, "format", 1);
		json_number(&o.j, "stall_ms", true, o.stall_ms);
		json_array_begin(&o.j, "runs");
		for (size_t i = 0; i < na; i++)
			json_run(&o, &a[i]);
		json_array_end(&o.j);
		json_array_begin(&o.j, "vs");
		for (size_t i = 0; i < nb; i++)
			json_run(&o, &b[i]);
		json_array_end(&o.j);
		json_object_end(&o.j);
		break;
	}
out:
	for (size_t i = 0; i < na; i++)
		release_one(&a[i]);
	for (size_t i = 0; i < nb; i++)
		release_one(&b[i]);
	free(a);
	free(b);
out_rules:
	prof_rules_release(&o.rules);
out_args:
	argv_release(&vs_args);
	argv_release(&a_dirs);
	argv_release(&b_dirs);
	strbuf_release(&err);
	return ret == HB_ARGS_DONE ? HB_EXIT_OK : ret;
}
