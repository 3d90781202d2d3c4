/*
 * The stall table as `hitchbench stalls --format json` writes it
 * (stalltable.h; the document: docs/formats.md, "hitchbench stalls
 * --format json"): per run every stall with its section, time, length,
 * cause, decider, shares, evidence and waits, and the seconds per cause.
 */
#include "stalls/stalltable.h"
#include "text/jsonout.h"

void stall_table_json_begin(struct json_out *j, FILE *out, double stall_ms)
{
	json_out_init(j, out);
	json_object_begin(j, NULL);
	json_int(j, "format", STALL_TABLE_JSON_FORMAT);
	json_number(j, "stall_ms", true, stall_ms);
	json_array_begin(j, "runs");
}

static void json_row(struct json_out *j, const struct stall_table_row *row)
{
	json_object_begin_inline(j, NULL);
	json_string(j, "section", stall_section_name(row->section));
	json_number(j, "when_s", true, row->when_s);
	json_number(j, "ms", true, row->ms);
	json_string(j, "cause", stall_cause_name(row->cause));
	json_string(j, "decided", stall_decider_name(row->decided));
	json_object_begin_inline(j, "share_s");
	for (int c = 0; c < SC_COUNT; c++)
		if (row->share_s[c] > 0)
			json_number(j, stall_cause_name((enum stall_cause)c), true, row->share_s[c]);
	json_object_end(j);
	json_string(j, "evidence", row->evidence);
	json_array_begin_inline(j, "waits");
	for (size_t i = 0; i < row->n_waits; i++)
		json_string(j, NULL, row->waits[i]);
	json_array_end(j);
	json_object_end(j);
}

void stall_table_json_run(struct json_out *j, const struct stall_table *t)
{
	bool shown = t->none == STN_SHOWN;

	json_object_begin(j, NULL);
	json_string(j, "run", t->run_name);
	json_string(j, "dir", t->run_dir);
	json_string(j, "no_stalls_because", t->none == STN_NO_RECORD ? "no stall record nor wait record: "
		    "the run was made without STALLS=1 or STALLS=bpf" : t->none == STN_NO_FRAMES ?
		    "no frames or window to place stalls in" : NULL);
	json_bool(j, "stall_record", t->have_stallrec);
	json_bool(j, "wait_record", t->have_waitrec);
	json_array_begin(j, "stalls");
	for (size_t k = 0; k < t->n_row; k++)
		json_row(j, &t->row[k]);
	json_array_end(j);
	json_object_begin(j, "seconds_per_cause");
	for (int s = 0; shown && s < SS_COUNT; s++) {
		json_object_begin_inline(j, stall_section_name((enum stall_section)s));
		for (int c = 0; c < SC_COUNT; c++)
			if (t->seconds[s][c] > 0)
				json_number(j, stall_cause_name((enum stall_cause)c), true, t->seconds[s][c]);
		json_object_end(j);
	}
	json_object_end(j);
	json_object_end(j);
}

void stall_table_json_end(struct json_out *j)
{
	json_array_end(j);
	json_object_begin(j, "definitions");
	json_string(j, "when_s", "seconds after the run's first present");
	json_string(j, "share_s", "the stall's seconds by cause: the sampled split, or the exact "
		    "counters' of the source that decided (docs/stalls.md)");
	json_string(j, "cause", "the cause with the largest share");
	json_string(j, "waits", "decided by bpf: the main thread's waits inside the stall, from "
		    "the wait record, for people (docs/stalls.md)");
	json_object_end(j);
	json_object_end(j);
}
