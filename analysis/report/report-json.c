/*
 * `hitchbench report --format json` (report.h, format 4 as report.c's
 * opening comment and docs/formats.md give it): the runs, the groups and
 * the excluded, every figure with its definition, laid out by hand with
 * the values of common/text/jsonout.h (escaped strings, exact numbers).
 */
#include "report/report-internal.h"
#include "text/jsonout.h"
#include "text/kvfile.h"
#include "base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#define FLIP_ROW_DEFINITION "a flip run's own figures (docs/metrics.md, Flip), null for other runs: the " \
	"switches SWITCH A B, segments switched and counted, pairs and blocks (of block_size pairs), log_ratio " \
	"= ln(B/A) of fps as the mean of the blocks and se its standard error, stalls (frames over stall_ms) " \
	"and frames of each side in its paired segments, p99_ms of each side's paired segments pooled"

static void json_metrics(FILE *out, const char *name, const struct metrics *m, bool ok)
{
	fprintf(out, "\"%s\": {", name);
	for (int id = 0; id < M_COUNT; id++) {
		fprintf(out, "%s\"%s\": ", id ? ", " : "", metric_defs[id].name);
		json_write_number(out, ok && m->have[id], m->v[id]);
	}
	fputc('}', out);
}

/* Every pair in file order; a key that repeats: an array of its values, at
 * its first place. */
static void json_provenance(FILE *out, const struct kvfile *kf)
{
	bool first = true;

	fputs("\"provenance\": ", out);
	if (!kf) {
		fputs("null", out);
		return;
	}
	fputc('{', out);
	for (size_t i = 0; i < kf->n; i++) {
		size_t count = 0;
		bool seen = false;

		for (size_t j = 0; j < kf->n; j++) {
			if (strcmp(kf->items[j].key, kf->items[i].key) != 0)
				continue;
			seen |= j < i;
			count++;
		}
		if (seen)
			continue;
		fputs(first ? "" : ", ", out);
		first = false;
		json_write_string(out, kf->items[i].key);
		fputs(": ", out);
		if (count == 1) {
			json_write_string(out, kf->items[i].value ? kf->items[i].value : "");
			continue;
		}
		fputc('[', out);
		for (size_t j = i, k = 0; j < kf->n; j++) {
			if (strcmp(kf->items[j].key, kf->items[i].key) != 0)
				continue;
			fputs(k++ ? ", " : "", out);
			json_write_string(out, kf->items[j].value ? kf->items[j].value : "");
		}
		fputc(']', out);
	}
	fputc('}', out);
}

/* The "definitions" object: what each figure means, with the options in force. */
static void json_definitions(FILE *out, const struct report_opts *opts)
{
	bool inc = opts->include_interfered;

	fputs("{\n  \"format\": 4,\n  \"definitions\": {\n", out);
	if (opts->window_note) {
		fputs("    \"window\": ", out);
		json_write_string(out, opts->window_note);
		fputs(",\n", out);
	}
	fputs("    \"frame\": \"" FRAME_DEFINITION "\",\n", out);
	for (int id = 0; id < M_COUNT; id++) {
		fprintf(out, "    \"%s\": ", metric_defs[id].name);
		json_write_string(out, metric_defs[id].definition);
		fputs(",\n", out);
	}
	fputs("    \"stall_why\": \"" STALL_WHY_DEFINITION "\",\n", out);
	fputs("    \"api\": \"" API_DEFINITION "\",\n", out);
	fputs("    \"stall_cpu_what\": \"with a profile record (PROFILE=1): the categories (gamedb/cpu-categories.ini) "
	      "of at least 5% of the CPU samples of all the game's threads in the window's stall frames, largest "
	      "first, at most three; empty: no stall frame or no sample in one; null: no profile record\",\n", out);
	fputs("    \"swapchain_events\": \"" SWAPCHAIN_EVENTS_DEFINITION "\",\n", out);
	fputs("    \"flip\": \"" FLIP_ROW_DEFINITION "\",\n", out);
	fputs("    \"percentile\": ", out);
	json_write_string(out, percentile_def_name(opts->metric.pct));
	fputs(",\n    \"percentile_formula\": ", out);
	json_write_string(out, percentile_def_formula(opts->metric.pct));
	fputs(",\n    \"mangohud_formula\": ", out);
	json_write_string(out, mangohud_formula_note(opts->metric.mangohud));
	fputs(",\n    \"stall_ms\": ", out);
	json_write_number(out, true, opts->metric.stall_ms);
	fprintf(out, ",\n    \"groups\": \"median, min and max %s\"\n  },\n",
		inc ? GROUP_DEFINITION_ALL : GROUP_DEFINITION);
}

/* A swapchain handle: its value in hex, as a string (64 bits do not fit
 * a JSON number that every reader reads exactly); null for 0. */
static void json_handle(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ", \"%s\": ", key);
	if (v)
		fprintf(out, "\"0x%" PRIx64 "\"", v);
	else
		fputs("null", out);
}

/* "swapchain_events": [...] and "swapchain_events_dropped" of a run. */
static void json_swapchains(FILE *out, const struct report_row *row)
{
	const struct swapchain_log *log = row->swapchains;
	char buf[24];

	fputs(", \"swapchain_events\": ", out);
	if (!log) {
		fputs("null, \"swapchain_events_dropped\": null", out);
		return;
	}
	fputc('[', out);
	for (size_t i = 0; i < log->n; i++) {
		const struct swapchain_event *e = &log->ev[i];
		const struct hb_frame_event *v = &e->ev;
		bool in = v->t_ns > row->window_start_ns && v->t_ns <= row->window_end_ns;

		fputs(i ? ", {\"t_s\": " : "{\"t_s\": ", out);
		/* one made before the first present is negative */
		json_write_number(out, true, (double)(int64_t)(v->t_ns - row->first_present_ns) / 1e9);
		fprintf(out, ", \"in_window\": %s, \"pid\": %" PRIu32 ", \"kind\": \"%s\"",
			in ? "true" : "false", v->pid,
			v->kind == HB_EV_SWAPCHAIN_CREATE ? "create" :
			v->kind == HB_EV_SWAPCHAIN_DESTROY ? "destroy" : "unknown");
		json_handle(out, "swapchain", v->object);
		json_handle(out, "surface", v->surface);
		if (v->kind == HB_EV_SWAPCHAIN_CREATE) {
			json_handle(out, "old_swapchain", v->old_object);
			fprintf(out, ", \"width\": %" PRIu32 ", \"height\": %" PRIu32 ", \"present_mode\": ",
				v->width, v->height);
			json_write_string(out, hb_present_mode_name(v->present_mode, buf));
			fprintf(out, ", \"min_images\": %" PRIu32 ", \"images\": ", v->min_image_count);
			json_write_number(out, v->image_count != 0, v->image_count);
			fprintf(out, ", \"format\": %" PRIu32 ", \"recreation\": %s", v->format,
				e->recreation ? "true" : "false");
			json_handle(out, "replaces", e->from >= 0 ? log->ev[e->from].ev.object : v->old_object);
		}
		fputc('}', out);
	}
	fprintf(out, "], \"swapchain_events_dropped\": %" PRIu64, log->dropped);
}

/* A flip run's own figures ("flip": null for other runs). */
static void json_flip(FILE *out, const struct report_flip *f)
{
	fputs(", \"flip\": ", out);
	if (!f->have) {
		fputs("null", out);
		return;
	}
	fputs("{\"flip\": ", out);
	json_write_string(out, f->what);
	fprintf(out, ", \"segments\": %zu, \"counted\": %zu, \"pairs\": %zu, \"blocks\": %zu, \"block_size\": %zu",
		f->segments, f->counted, f->pairs, f->blocks, f->block_size);
	fputs(", \"log_ratio\": ", out);
	json_write_number(out, f->blocks > 0, f->estimate);
	fputs(", \"se\": ", out);
	json_write_number(out, f->blocks > 1, f->se);
	fprintf(out, ", \"stalls_a\": %" PRIu64 ", \"frames_a\": %" PRIu64 ", \"stalls_b\": %" PRIu64
		", \"frames_b\": %" PRIu64, f->stalls_a, f->frames_a, f->stalls_b, f->frames_b);
	fputs(", \"p99_ms_a\": ", out);
	json_write_number(out, f->frames_a > 0, f->p99_a);
	fputs(", \"p99_ms_b\": ", out);
	json_write_number(out, f->frames_b > 0, f->p99_b);
	fputc('}', out);
}

/* One run of "runs" (first: the list's first, without a comma before it). */
static void json_run(FILE *out, const struct report_row *row, bool first, bool inc)
{
	fputs(first ? "\n    {\"run\": " : ",\n    {\"run\": ", out);
	json_write_string(out, row->run);
	fputs(", \"dir\": ", out);
	json_write_string(out, row->dir);
	fputs(", \"run_id\": ", out);
	json_write_string(out, row->run_id);
	fputs(", \"game\": ", out);
	json_write_string(out, row->game);
	fputs(", \"run_name\": ", out);
	json_write_string(out, row->run_name);
	fputs(", \"status\": ", out);
	json_write_string(out, row->status);
	fputs(", \"excluded\": ", out);
	json_write_string(out, report_row_excluded(row, inc));
	fputs(", ", out);
	json_provenance(out, row->provenance);
	fputs(", ", out);
	json_metrics(out, "metrics", &row->m, report_row_ok(row));
	fputs(", \"stall_why\": ", out);
	json_write_string(out, report_row_ok(row) ? metrics_stall_why(&row->m) : NULL);
	fputs(", \"stall_cpu_what\": ", out);
	json_write_string(out, row->cpu_what);
	fputs(", \"api\": ", out);
	json_write_string(out, row->api);

	json_swapchains(out, row);
	json_flip(out, &row->flip);
	fputc('}', out);
}

void report_print_json(FILE *out, const struct report_row *rows, size_t n,
		       const struct report_group *grp, size_t n_grp,
		       const struct report_opts *opts)
{
	bool inc = opts->include_interfered, any = false;

	json_definitions(out, opts);
	fprintf(out, "  \"include_interfered\": %s,\n", inc ? "true" : "false");

	fputs("  \"runs\": [", out);
	for (size_t i = 0; i < n; i++)
		json_run(out, &rows[i], i == 0, inc);
	fputs(n ? "\n  ],\n" : "],\n", out);

	fputs("  \"groups\": [", out);
	for (size_t g = 0; g < n_grp; g++) {
		fputs(g ? ",\n    {\"game\": " : "\n    {\"game\": ", out);
		json_write_string(out, grp[g].game);
		fputs(", \"run_name\": ", out);
		json_write_string(out, grp[g].run_name);
		fprintf(out, ", \"n\": %zu", grp[g].s.n);
		for (int k = 0; k < 3; k++) {
			fputs(", ", out);
			json_metrics(out, report_stat_name[k], report_group_stat(&grp[g], k), true);
		}
		fputs(", \"stall_why\": ", out);
		json_write_string(out, metrics_stall_why(&grp[g].s.median));
		fputc('}', out);
	}
	fputs(n_grp ? "\n  ],\n" : "],\n", out);

	fputs("  \"excluded\": [", out);
	for (size_t i = 0; i < n; i++) {
		const char *why = report_row_excluded(&rows[i], inc);

		if (!why)
			continue;
		fputs(any ? ",\n    {\"run\": " : "\n    {\"run\": ", out);
		any = true;
		json_write_string(out, rows[i].run);
		fputs(", \"why\": ", out);
		json_write_string(out, why);
		fputc('}', out);
	}
	fputs(any ? "\n  ]\n}\n" : "]\n}\n", out);
}
