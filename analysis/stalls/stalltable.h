/*
 * The stall table: what is shown of a run's stalls, built once from its
 * records (stallcause.h: the stall record and the wait record, either
 * alone or both) and then written by each output that shows it, so that
 * they cannot drift apart: `hitchbench stalls` as text and as JSON
 * (stalltable-text.c, stalltable-json.c, called by bench/cmd/cmd-stalls.c)
 * and the HTML report's "Why it stalled" (analysis/report/report-html-stalls.c).
 * The model holds the records' own lines (their sources, costs and
 * alignments), one row a stall by section (load, warm-up, window) with its
 * time, length, cause, shares, evidence, its waits where the wait record
 * decided and the samples that cover it (for `-v`), and the seconds per
 * cause of each section. docs/stalls.md says what each figure means.
 */
#ifndef HB_STALLTABLE_H
#define HB_STALLTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stalls/stallcause.h"
#include "text/kvfile.h"

struct json_out;
struct run;

/* The version of `hitchbench stalls --format json` (docs/formats.md). */
#define STALL_TABLE_JSON_FORMAT 1

/* Whether the run has stalls to show, and why not. */
enum stall_table_none {
	STN_SHOWN,              /* it has: the sources and the rows */
	STN_NO_RECORD,          /* neither a stall record nor a wait record */
	STN_NO_FRAMES,          /* a record, but no frames or window to place stalls in */
};

/* A record's clock pair (meta clock_pair=MONO_NS RT_NS) against bench.txt's. */
struct stall_table_t0 {
	bool known;             /* both pairs read */
	bool bench_lacks;       /* not known because bench.txt has no pair (else the record's is missing) */
	double ms;              /* known: the difference of their realtime - monotonic offsets */
};

/* A part of a full row and its mean cost (trailer cost.PART_ns). */
struct stall_table_cost {
	char *part;
	double us;              /* NAN when not a number */
};

/* The stall record: its samples, sources, the sampler's own cost and how
 * its frames and its clock agree with the run's. Strings are the
 * record's own (NULL when absent), numbers NAN when absent. */
struct stall_table_stallrec {
	size_t samples;                 /* its rows */
	double span_s;                  /* its first row to its last */
	double period_ms;               /* meta period_us, else the median step */
	struct kvfile sources;          /* meta sources.NAME=VALUE, as NAME=VALUE */
	const char *trailer_samples;    /* NULL: no trailer (the recorder did not end cleanly) */
	double cpu_s;
	const char *cpu_pct, *us_per_sample;
	const char *work_us, *work_us_light, *work_us_full;   /* work_us NULL: not recorded */
	struct stall_table_cost *cost;
	size_t n_cost;
	/* frames: each stall frame's first sample counting its present,
	 * minus the present */
	size_t n_aligned;
	double align_median_ms, align_max_ms;
	struct stall_table_t0 t0;
};

/* The wait record: what it holds and what the BPF recorder cost. */
struct stall_table_waitrec {
	size_t n_off, n_bio, n_thread;  /* waits, block requests, threads */
	uint64_t lost;                  /* events the kernel could not hand over */
	bool cut;                       /* its last line cut */
	const char *min_off_ns;         /* meta; NULL when absent */
	bool have_cost;                 /* trailer ns_per_event: the recorder ended cleanly */
	double ns_per_event, cpu_pct, wall_s;
	const char *kernel_cpu_pct, *user_cpu_pct;
	const char *stop;               /* why it stopped; NULL when not said */
	struct stall_table_t0 t0;
};

/* A sample of the stall record inside a stall (`stalls -v`). */
struct stall_table_sample {
	double t_s;                     /* seconds after the first present */
	char state;                     /* the main thread's, '?' when unknown */
	const char *syscall, *target;   /* target: its fd's, else its wait channel */
	enum stall_cause cause;
	long long majflt;               /* major faults since the sample before */
};

/* One stall, as a row of its section's table. */
struct stall_table_row {
	enum stall_section section;
	double when_s;                  /* its start, seconds after the first present */
	double ms;                      /* its length */
	enum stall_cause cause;
	enum stall_decider decided;
	double share_s[SC_COUNT];       /* its seconds by cause */
	char *shares;                   /* the largest shares for people, "disk 80% wait 15%" */
	char *evidence;
	char *const *waits;             /* decided by bpf: its waits, for people */
	size_t n_waits;
	struct stall_table_sample *sample;      /* with a stall record: the samples covering it */
	size_t n_sample;
};

struct profile;
struct prof_rules;

struct stall_table {
	char *run_name, *run_dir;
	enum stall_table_none none;
	bool have_stallrec, have_waitrec;
	struct stall_table_stallrec rec;        /* have_stallrec */
	struct stall_table_waitrec waits;       /* have_waitrec */
	struct stall_table_row *row;            /* loads first, then by time */
	size_t n_row;
	size_t n_in[SS_COUNT];                  /* rows by section */
	double seconds[SS_COUNT][SC_COUNT];     /* the rows' shares summed by section */
	struct stall_run sr;                    /* what the rows point into (so a table is never copied) */
	/* with a profile record (PROFILE=1): a stall with CPU time says what
	 * it ran ("cpu: shader compile 62%, game 30%", its evidence's head) */
	struct profile *prof;
	struct prof_rules *rules;
};

/* Builds t from run's records (stall_run_load(), frames over
 * opts->stall_ms; opts NULL: the defaults). 0, t->none saying whether
 * there are stalls to show; or -errno with why in err (a record that does
 * not read), t zeroed (stall_table_release() may take it). */
int stall_table_build(const struct run *run, const struct metric_opts *opts, struct stall_table *t,
		      struct strbuf *err);
void stall_table_release(struct stall_table *t);

/* What a section's rows are: "each pass's launch to its first present",
 * "frames over the threshold". */
const char *stall_table_section_words(enum stall_section sec);

/* The text of `hitchbench stalls` (stalltable-text.c). The line naming a
 * run, written before its records are read. */
void stall_table_text_heading(FILE *out, const char *run_name, const char *run_dir);

enum stall_table_text_flags {
	STT_VERBOSE = 1 << 0,   /* each stall's samples under it */
	STT_NO_NOTES = 1 << 1,  /* without the closing line saying what the columns are */
};

/* The run's sources, alignments and a table per section, then a blank line. */
void stall_table_text(FILE *out, const struct stall_table *t, enum stall_table_text_flags flags);

/* The JSON of `hitchbench stalls --format json` (stalltable-json.c,
 * docs/formats.md): the document's start on out (j initialised), a run's
 * object in its "runs", and its end (the definitions). */
void stall_table_json_begin(struct json_out *j, FILE *out, double stall_ms);
void stall_table_json_run(struct json_out *j, const struct stall_table *t);
void stall_table_json_end(struct json_out *j);

#endif
