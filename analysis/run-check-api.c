/*
 * Which graphics API a run's frames came from, from its frame file: each
 * record names the function that presented (hb_present_source), and the
 * frames of the measured window, counted by source, say whether the game
 * rendered through OpenGL, Vulkan or SDL's renderer. The runner records
 * the answer in bench.txt (frames_api, window_sources), and a recipe's
 * `frames = vulkan` (bench.txt frame_source=vulkan) makes it a rule of run
 * integrity (run_check()): a run whose window holds a present that was no
 * vkQueuePresentKHR measured another API than the recipe asked for, say a
 * game that fell back to OpenGL, and is invalid. Read from frames.bin
 * each time (the loaded frames keep the times only), so the rule holds
 * for every reader of the run directory alike.
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(HB_SRC_MAX <= RUN_SOURCES, "RUN_SOURCES holds every present source");

/* Where the records start: after the header (version 1), after the
 * header and the event slots (version 2). 0 when the header says nothing
 * this reader can use. */
static uint64_t records_offset(const struct hb_frames_header *h, const char **why)
{
	if (h->record_size != sizeof(struct hb_frame_record)) {
		*why = "frames.bin: a record size this hitchbench cannot read";
		return 0;
	}
	if (h->version == 1)
		return h->header_size;
	if (h->version == 2 && h->records_offset >= h->header_size)
		return h->records_offset;
	if (h->version == 2) {
		*why = "frames.bin: its records start inside its header";
		return 0;
	}
	*why = "frames.bin: a frame file version this hitchbench cannot read";
	return 0;
}

int run_window_sources(const char *frames_path, uint64_t start_ns, uint64_t end_ns,
		       struct run_window_sources *out, const char **why)
{
	struct run_window_sources ws = { 0 };
	struct hb_frames_header h;
	char *data = NULL;
	size_t len = 0;
	uint64_t off, n;
	int r = read_file(frames_path, &data, &len);

	if (r < 0) {
		*why = "frames.bin cannot be read";
		return r;
	}
	r = -EINVAL;
	if (len < sizeof(h)) {
		*why = "frames.bin: shorter than the frame file header";
		goto out;
	}
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0) {
		*why = "frames.bin: not a hitchbench frame file (bad magic)";
		goto out;
	}
	off = records_offset(&h, why);
	if (!off)
		goto out;
	/* the records the header says, as far as the file holds them */
	n = h.count < h.capacity ? h.count : h.capacity;
	if (off > len)
		n = 0;
	else if (n > (len - off) / sizeof(struct hb_frame_record))
		n = (len - off) / sizeof(struct hb_frame_record);
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, data + off + i * sizeof(rec), sizeof(rec));
		/* a frame ends at its present: those in (start, end], as the
		 * window's frames are counted; 0 is an unfinished slot */
		if (rec.t_ns == 0 || rec.t_ns <= start_ns || rec.t_ns > end_ns)
			continue;
		ws.n++;
		ws.per_source[rec.source < RUN_SOURCES ? rec.source : HB_SRC_UNKNOWN]++;
	}
	*out = ws;
	r = 0;
out:
	free(data);
	return r;
}

char *run_frames_api(const struct run_window_sources *ws)
{
	uint64_t per_api[8] = { 0 };
	unsigned order[8], n = 0;
	struct strbuf sb = STRBUF_INIT;

	if (!ws->n)
		return xstrdup("none");
	for (unsigned s = 0; s < RUN_SOURCES; s++) {
		unsigned api = hb_present_source_api(s);

		per_api[api < ARRAY_SIZE(per_api) ? api : HB_API_UNKNOWN] += ws->per_source[s];
	}
	/* the APIs that presented, most presents first (ties in API order) */
	for (unsigned a = 0; a < ARRAY_SIZE(per_api); a++) {
		unsigned k;

		if (!per_api[a])
			continue;
		for (k = n++; k > 0 && per_api[order[k - 1]] < per_api[a]; k--)
			order[k] = order[k - 1];
		order[k] = a;
	}
	if (n == 1)
		return xstrdup(hb_api_name(order[0]));
	strbuf_addstr(&sb, "mixed(");
	for (unsigned i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s %llu", i ? ", " : "", hb_api_name(order[i]),
			    (unsigned long long)per_api[order[i]]);
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb);
}

void run_window_sources_describe(const struct run_window_sources *ws, bool skip_vulkan,
				 struct strbuf *out)
{
	bool first = true;

	for (unsigned s = 0; s < RUN_SOURCES; s++) {
		if (!ws->per_source[s] || (skip_vulkan && s == HB_SRC_VK_QUEUE_PRESENT))
			continue;
		strbuf_addf(out, "%s%s %llu", first ? "" : ", ", hb_present_source_name(s),
			    (unsigned long long)ws->per_source[s]);
		first = false;
	}
}

/* The non-Vulkan sources, for the reason: "glXSwapBuffers" when there is
 * one, "glXSwapBuffers 3000, SDL_RenderPresent 12" when several. */
static void others(const struct run_window_sources *ws, struct strbuf *out)
{
	unsigned kinds = 0, only = 0;

	for (unsigned s = 0; s < RUN_SOURCES; s++)
		if (ws->per_source[s] && s != HB_SRC_VK_QUEUE_PRESENT) {
			kinds++;
			only = s;
		}
	if (kinds == 1)
		strbuf_addstr(out, hb_present_source_name(only));
	else
		run_window_sources_describe(ws, true, out);
}

int run_check_api(const struct run *run, struct strbuf *why)
{
	const char *source = kvfile_get(&run->bench, "frame_source");
	const char *err = NULL;
	struct run_window_sources ws;
	struct strbuf from = STRBUF_INIT;
	char *path;
	uint64_t vk;
	int r;

	if (!source || strcmp(source, "vulkan") != 0)
		return 0;
	path = xasprintf("%s/frames.bin", run->dir);
	r = run_window_sources(path, run->window_start_ns, run->window_end_ns, &ws, &err);
	free(path);
	if (r < 0) {
		strbuf_addf(why, "frames = vulkan, but the presents' sources are unknown: %s", err);
		return -EINVAL;
	}
	vk = ws.per_source[HB_SRC_VK_QUEUE_PRESENT];
	if (ws.n == vk && vk > 0)
		return 0;
	others(&ws, &from);
	if (!ws.n)
		strbuf_addstr(why, "frames = vulkan, but the window holds no present");
	else if (!vk)
		strbuf_addf(why, "frames = vulkan, but the window's %llu presents came from %s: the "
			    "game did not render through Vulkan", (unsigned long long)ws.n, from.buf);
	else
		strbuf_addf(why, "frames = vulkan, but %llu of the window's %llu presents came from "
			    "%s, not vkQueuePresentKHR", (unsigned long long)(ws.n - vk),
			    (unsigned long long)ws.n, from.buf);
	strbuf_release(&from);
	return -EINVAL;
}
