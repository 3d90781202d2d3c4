/*
 * A run written out as another tool's frame log, so a hitchbench run can
 * be opened where people already compare runs (MangoHud's log viewers,
 * CapFrameX, PresentMon's readers) and be imported back by hitchbench
 * itself. `hitchbench export` (bench/cmd/cmd-export.c) is the caller; the
 * layouts and what each leaves unknown: docs/formats.md "Exported logs".
 *
 * A writer takes a struct export_input (the frames and the facts bench.txt
 * holds), never a run directory, so the tests hand it a small series. Each
 * frame is one row: frame i lasts t_ns[i] - t_ns[i - 1], i = 1 .. n - 1.
 * Frame times are written exactly to the ns (decimals padded, never
 * rounded), so the importers give back the same frames.
 *
 * Writers put bytes on a stream they are given and never print; the
 * stream's ferror() tells whether it was written.
 */
#ifndef HB_EXPORT_H
#define HB_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

struct run;

enum export_format {
	EXPORT_MANGOHUD,   /* MangoHud 0.8 CSV log and its _summary.csv */
	EXPORT_PRESENTMON, /* PresentMon 2.x console tool CSV, default columns */
	EXPORT_CAPFRAMEX,  /* CapFrameX JSON capture (Info, Runs[].CaptureData) */
	EXPORT_FORMAT_COUNT
};

/* "mangohud", "presentmon", "capframex". */
const char *export_format_name(enum export_format f);
/* 0, or -EINVAL for an unknown name. */
int export_format_parse(const char *name, enum export_format *out);

enum export_span {
	EXPORT_SPAN_WINDOW, /* the measured window's frames (the default) */
	EXPORT_SPAN_RUN,    /* every frame of the run, load and warm-up too */
};

/* What a writer writes: present times and the run's facts. Strings are
 * "" when not known (never NULL once export_input_from_run() filled them). */
struct export_input {
	const uint64_t *t_ns; /* n present times, ascending; n - 1 frames */
	size_t n;
	const char *game;
	const char *run_id;      /* 32 hex digits, or "" */
	const char *started_utc; /* "2026-11-30T12:07:07Z" */
	const char *os, *cpu, *gpu, *ram, *kernel, *driver;
	/* internal: the strings export_input_from_run() made */
	char *own[1];
};

/* The run's frames of span and its facts (bench.txt: game, started_utc
 * or imported_utc, cpu_model, gpu or gl_renderer, kernel_release,
 * mesa_version, and an imported log's log.* of each). Points into run,
 * which must outlive it. 0, or -ENODATA when the span holds no frame. */
int export_input_from_run(const struct run *run, enum export_span span, struct export_input *out);
void export_input_release(struct export_input *in);

/* The file name the tool itself would give the log (MangoHud:
 * GAME_YYYY-MM-DD_HH-MM-SS.csv; PresentMon: PresentMon-YYYY-MM-DDTHHMMSS.csv;
 * CapFrameX: CapFrameX-GAME.exe-YYYY-MM-DDTHMS.json), from the run's
 * start; a new string. */
char *export_file_name(enum export_format f, const struct export_input *in);
/* MangoHud's summary file beside a log of that name: NAME_summary.csv. */
char *export_summary_name(const char *log_name);

/* The writers. Each writes the whole file on out. */
void export_mangohud_log(FILE *out, const struct export_input *in);
/* MangoHud 0.8's _summary.csv of the same frames (its formula:
 * analysis/metrics/mangohud-summary.h MH_08). */
void export_mangohud_summary(FILE *out, const struct export_input *in);
void export_presentmon(FILE *out, const struct export_input *in);
void export_capframex(FILE *out, const struct export_input *in);

/* ns as milliseconds with `decimals` digits after the point (at least 6:
 * exact), or, with decimals 0, with the trailing zeros taken off
 * ("16.666667", "20"); into buf. The writers' numbers; for the tests too. */
void export_ms(char *buf, size_t size, uint64_t ns, int decimals);

#endif
