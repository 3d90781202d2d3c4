/*
 * Frame logs written by other tools, read into a frame series the way
 * hitchbench's own frame file is read: present times in ns, ascending.
 * `hitchbench import` turns one into a run directory and the runner reads
 * a game's MangoHud or Gallium HUD log with the same parsers when a recipe
 * says `frames = mangohud` (bench/runner/framesource.c). Formats and their quirks:
 * docs/formats.md "Imported frame logs".
 *
 * The parsers take a buffer (a whole file) and its path for messages; they
 * never print. A file they cannot read is refused with -EINVAL and a
 * message "PATH:LINE: expected ..., found ..." in err.
 *
 * Present times: the logs give frame times (MangoHud `frametime`,
 * PresentMon `MsBetweenPresents`, Gallium `frametime_(ms)`), which is what
 * those tools compute their own numbers from, so the series is their
 * running sum: present 0 at IMPORT_T0_NS, present i+1 = present i + frame
 * time of row i. n rows give n frames (n + 1 presents), each frame time
 * exactly as logged (to the ns).
 *
 * Rows that are no frame are dropped and counted, never silently: a frame
 * time that is not positive, not a number or over IMPORT_MAX_FRAME_MS, and
 * a last row a crashed game left cut short (no line break after it and
 * fewer fields than the header, or a number cut in two). rows_dropped and
 * the first of them (its line and why) go into bench.txt as
 * log.rows_dropped and log.first_dropped; what the caller should say goes
 * into warnings and notes.
 */
#ifndef HB_IMPORT_H
#define HB_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/kvfile.h"
#include "base/util.h"

#define IMPORT_T0_NS 1000000000ull /* the first synthesized present: 1 s (0 means "unfinished") */
/* The longest frame time an importer takes: a minute. A game that drew
 * nothing for longer was not running; a number over it is a broken row or
 * a unit read wrong, and counting it would make one frame the whole run. */
#define IMPORT_MAX_FRAME_MS 60000.0

enum import_format {
	IMPORT_MANGOHUD,
	IMPORT_GALLIUM_HUD,
	IMPORT_PRESENTMON, /* PresentMon 1.x and 2.x (console tool and capture app) */
	IMPORT_HOOK,       /* hitchbench's own frame file (frames.bin) */
	IMPORT_OCAT,       /* AMD's OCAT: PresentMon's columns, system columns on row 1 */
	IMPORT_FRAMEVIEW,  /* NVIDIA FrameView: PresentMon's columns, padded, a summary file */
	IMPORT_CAPFRAMEX,  /* CapFrameX: its CSV (a "//" header) and its JSON captures */
	IMPORT_FORMAT_COUNT
};

/* "mangohud", "gallium-hud", "presentmon", "hook", "ocat", "frameview",
 * "capframex". */
const char *import_format_name(enum import_format f);
/* 0, or -EINVAL for an unknown name. */
int import_format_parse(const char *name, enum import_format *out);

struct import_opts {
	const char *process;     /* presentmon: Application name or ProcessID to keep;
	                          * NULL: the process with the most frames */
	double gallium_period_s; /* gallium-hud: the GALLIUM_HUD_PERIOD the log was made
	                          * with; 0 = a value per frame, > 0 = per-period samples */
	bool interval;           /* mangohud: a log without a frametime column (MangoHud
	                          * before 0.6, fps samples) is taken as samples; without
	                          * it such a log is refused (a misnamed column is not
	                          * a log of samples) */
	unsigned run;            /* capframex JSON: the run of the capture to read,
	                          * from 1; 0 = every run, one after the other (as
	                          * CapFrameX joins them for its own figures) */
};
#define IMPORT_OPTS_DEFAULT { NULL, 0.5, false, 0 }

struct import_series {
	uint64_t *t_ns;         /* n_presents present times, ascending */
	size_t n_presents;      /* frames + 1, or 0 for a log without rows */
	size_t rows;            /* data rows read from the log */
	size_t rows_kept;       /* rows that became frames (the others: other
	                         * processes, `NA` frame times, rows dropped) */
	size_t rows_dropped;    /* rows of the kept process that are no frame */
	char *first_dropped;    /* "LINE: why" of the first of them, or NULL */
	int first_dropped_line;
	struct strbuf warnings; /* lines to say as warnings ("PATH:LINE: ..."), '\n'-separated */
	struct strbuf notes;    /* lines to say as notes (what the importer chose) */
	bool cut_dropped;       /* one of the dropped rows is a last row cut short */
	bool interval;          /* rows are periodic samples, not every frame */
	const char *format;     /* import_format_name() */
	/* What the log says about itself and what the parser inferred, as
	 * bench.txt keys without the "log." prefix: version, cpu, gpu,
	 * kernel, driver, application, process_id, ... in the order found. */
	struct kvfile info;
	/* internal: frame times while parsing */
	uint64_t *ft_ns;
	size_t n_ft, alloc_ft;
};

void import_series_init(struct import_series *s);
void import_series_release(struct import_series *s);

/* One MangoHud CSV log (any version since 0.4; several appended logs in
 * one file are read one after the other). o may be NULL (the defaults). */
int import_mangohud_parse(const char *text, size_t len, const char *path,
			  const struct import_opts *o, struct import_series *out,
			  struct strbuf *err);
/* A PresentMon 1.x/2.x or FrameView CSV, filtered to one process and, in
 * it, its swap chain with the most presents. The process is o->process,
 * else the one with the most presents that is not a compositor (the
 * list: compositors in import-presentmon.c), said in notes. */
int import_presentmon_parse(const char *text, size_t len, const char *path,
			    const struct import_opts *o, struct import_series *out,
			    struct strbuf *err);
/* A CapFrameX capture: its CSV (`//Key=Value` lines, then PresentMon's
 * columns) or its JSON (Info, Runs[].CaptureData), told apart by the first
 * byte that is not a blank ('{': JSON). Frame times are MsBetweenPresents,
 * every row (CapFrameX keeps one process); of a JSON capture's runs, run
 * o->run, or all of them one after the other (o->run 0, as CapFrameX's own
 * figures join them), said in notes with how many there are. */
int import_capframex_parse(const char *text, size_t len, const char *path,
			   const struct import_opts *o, struct import_series *out,
			   struct strbuf *err);
/* A figure another tool printed for its own log in the summary file beside
 * it (import_read() keeps it as the info key) and the metric of ours that
 * reproduces it (docs/metrics.md "Other tools' 1% lows"). */
struct import_peer_figure {
	enum import_format format;
	const char *key;    /* "summary.low1_fps" */
	const char *label;  /* the tool's name for it, its column: "1% Low FPS" */
	const char *metric; /* ours: "frameview_low1"; NULL: none, kept only */
};
/* Every figure kept, each tool's in the order the import says them; *n set. */
const struct import_peer_figure *import_peer_figures(size_t *n);

/* A Gallium HUD dump file of frame times (`frametime_(ms)`), one value a line. */
int import_gallium_parse(const char *text, size_t len, const char *path,
			 const struct import_opts *o, struct import_series *out,
			 struct strbuf *err);

/* The format of the log at PATH, told from its first bytes (import-detect.c:
 * each tool's marks, docs/formats.md "Telling the formats apart"): 0 with
 * *f set and why (one line: the marks seen), -EINVAL when no format fits
 * (why says what the file opens with) or -errno; why says what went wrong. */
int import_detect(const char *path, enum import_format *f, struct strbuf *why);
/* The same for a file's first len bytes, head, and its name without
 * directories, base (Gallium's dump is told by its name): 0 or -EINVAL,
 * why as above without the path. No hook or directory here: those are
 * told before the text is read. Outside import_detect(), for the tests
 * and the fuzz harness (tests/fuzz/fuzz-detect.c), which have no file. */
int import_detect_text(const char *head, size_t len, const char *base, enum import_format *f,
		       struct strbuf *why);

/* Reads PATH in format f: a file, or for gallium-hud also the
 * GALLIUM_HUD_DUMP_DIR directory (its `frametime_(ms)` file is read).
 * *source is set to the file actually read (caller frees). The summary
 * a tool wrote beside its log (MangoHud's LOG_summary.csv, the PresentMon
 * capture app's LOG-stats.csv, FrameView's FrameView_Summary.csv row) goes
 * into out's info as summary.* and summary.file. 0, -EINVAL (bad file,
 * message in err) or -errno (message in err). */
int import_read(enum import_format f, const char *path, const struct import_opts *o,
		struct import_series *out, char **source, struct strbuf *err);

/* What a run directory's bench.txt says of a log read into s: frame_source
 * (s->format), frame_source_kind, source_file (as given), source_sha256 (of
 * the file at path, when it can be read), the log.* facts, log_rows, and
 * for a log (not the hook's file) log.rows_dropped and log.first_dropped;
 * keys already there are replaced. hitchbench import and the runner's
 * frame sources (bench/runner/framesource.c) share it. */
void import_series_describe(const struct import_series *s, const char *path,
			    const char *source_file, struct kvfile *bench);

#endif
