/*
 * What report.c and report-json.c share: the definitions printed with every
 * report (under the table, in the JSON's "definitions"), and the helpers
 * both outputs take their rows' and groups' figures from.
 */
#ifndef HB_REPORT_INTERNAL_H
#define HB_REPORT_INTERNAL_H

#include "report/report.h"

#include <stdbool.h>
#include <stdio.h>

#define GROUP_DEFINITION \
	"over each group's valid runs (status ok, not marked disturbed); median: the middle " \
	"value, the mean of the two middle values for an even count"
#define GROUP_DEFINITION_ALL \
	"over each group's runs with status ok, those marked disturbed included " \
	"(--include-interfered); median: the middle value, the mean of the two middle values " \
	"for an even count"
#define FRAME_DEFINITION "interval between consecutive presents"
#define NOISE_DEFINITION "the host's noise over the same interval as cpu_ms/f (bench.txt " \
	"noise.*): st = steal_pct, % of all CPUs' ticks stolen by the hypervisor (st-: no steal " \
	"clock); fg = foreign_cpu_pct, % of all CPUs' time busy outside the run's processes; rq = " \
	"game_runq_ms_per_s, ms a second the game's threads waited for a CPU; - : the run has none " \
	"(imported, or made before hitchbench recorded it)"
#define STALL_WHY_DEFINITION "the stall_*_s column with the most seconds (disk, swap, reclaim, " \
	"gpu, cpu, io, wait or other; a group: of its medians)"
#define API_DEFINITION "the API the window's frames came from, by their present functions: " \
	"opengl, vulkan, sdl-renderer (SDL_RenderPresent, whatever SDL drew with), log (another " \
	"tool's log), unknown, mixed(vulkan 3000, opengl 12) (each API with its frames, most first), " \
	"none (no frame); empty (JSON null) when not known (from the database)"
#define FRAMES_NOTE_DEFINITION "where each run's frames came from: the API (the window's " \
	"presents by function) and, through Vulkan, the swapchain when the window starts (extent, present mode, " \
	"images) and its recreations (a resize, a present mode change), whose frames are not stalls; " \
	"times in seconds from the run's first present (as `hitchbench frames` prints them)"
#define SWAPCHAIN_EVENTS_DEFINITION "the run's Vulkan swapchains created and destroyed, in time " \
	"order (frames.bin version 2); t_s: seconds from the run's first present (negative before " \
	"it); a recreation (made with an oldSwapchain, or for a surface that had one before in its " \
	"process) is an event of the run, and the frame that spans it is not a stall; null: not " \
	"known (from the database)"

/* The table's number columns (the text table's and Markdown's): the
 * caller's (opts->table_metrics), or the headline ones, with cpu_ms/f
 * after fps and a noise column (noise) when a counted run has the host's
 * noise, and the probe's lateness when one has it (probe). */
struct report_columns {
	const enum metric_id *col;
	size_t n_col;
	bool noise, probe;
	enum metric_id own[M_COUNT];
};
void report_columns_choose(struct report_columns *c, const struct report_row *rows, size_t n,
			   const struct report_opts *opts);
/* The notes under a table, each line starting with lead ("# " under the
 * text table, "- " for Markdown's list): how each figure shown is defined,
 * what made a run invalid, interval logs, where Vulkan runs' frames came from. */
void report_print_notes(FILE *out, const char *lead, const struct report_columns *c,
			const struct report_row *rows, size_t n, const struct report_opts *opts);
/* A group's row label, k as report_group_stat(): "median GAME RUN (n=N)",
 * "min GAME RUN", "max GAME RUN" (the caller frees it). */
char *report_group_label(const struct report_group *g, int k);

/* A row whose run counts (status ok): its metrics are printed. */
bool report_row_ok(const struct report_row *row);
/* The group statistics, k = 0, 1, 2: "median", "min", "max". */
extern const char *const report_stat_name[3];
const struct metrics *report_group_stat(const struct report_group *g, int k);
/* The Markdown output of report_print() (report-markdown.c). */
void report_print_markdown(FILE *out, const struct report_row *rows, size_t n,
			   const struct report_group *grp, size_t n_grp, const struct report_opts *opts);
/* The JSON output of report_print(). */
void report_print_json(FILE *out, const struct report_row *rows, size_t n,
		       const struct report_group *grp, size_t n_grp, const struct report_opts *opts);

#endif
