/*
 * Creating, trimming and reading frame files (format in frames.h and
 * docs/formats.md). The writer side lives in the hook, which must not link
 * this library.
 */
#include "formats/frames.h"
#include "formats/frames-internal.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const source_names[HB_SRC_MAX] = {
	[HB_SRC_UNKNOWN] = "unknown",
	[HB_SRC_GLX_SWAP_BUFFERS] = "glXSwapBuffers",
	[HB_SRC_EGL_SWAP_BUFFERS] = "eglSwapBuffers",
	[HB_SRC_SDL_GL_SWAP_WINDOW] = "SDL_GL_SwapWindow",
	[HB_SRC_SDL_RENDER_PRESENT] = "SDL_RenderPresent",
	[HB_SRC_SDL_GL_SWAP_BUFFERS] = "SDL_GL_SwapBuffers",
	[HB_SRC_MANGOHUD] = "mangohud",
	[HB_SRC_GALLIUM_HUD] = "gallium-hud",
	[HB_SRC_PRESENTMON] = "presentmon",
	[HB_SRC_VK_QUEUE_PRESENT] = "vkQueuePresentKHR",
	[HB_SRC_OCAT] = "ocat",
	[HB_SRC_FRAMEVIEW] = "frameview",
	[HB_SRC_CAPFRAMEX] = "capframex",
};

static const unsigned char source_apis[HB_SRC_MAX] = {
	[HB_SRC_GLX_SWAP_BUFFERS] = HB_API_OPENGL,
	[HB_SRC_EGL_SWAP_BUFFERS] = HB_API_OPENGL,
	[HB_SRC_SDL_GL_SWAP_WINDOW] = HB_API_OPENGL,
	[HB_SRC_SDL_RENDER_PRESENT] = HB_API_SDL_RENDERER,
	[HB_SRC_SDL_GL_SWAP_BUFFERS] = HB_API_OPENGL,
	[HB_SRC_MANGOHUD] = HB_API_LOG,
	[HB_SRC_GALLIUM_HUD] = HB_API_LOG,
	[HB_SRC_PRESENTMON] = HB_API_LOG,
	[HB_SRC_VK_QUEUE_PRESENT] = HB_API_VULKAN,
	[HB_SRC_OCAT] = HB_API_LOG,
	[HB_SRC_FRAMEVIEW] = HB_API_LOG,
	[HB_SRC_CAPFRAMEX] = HB_API_LOG,
};

static const char *const api_names[HB_API_MAX] = {
	[HB_API_UNKNOWN] = "unknown",
	[HB_API_OPENGL] = "opengl",
	[HB_API_VULKAN] = "vulkan",
	[HB_API_SDL_RENDERER] = "sdl-renderer",
	[HB_API_LOG] = "log",
};

/* VkPresentModeKHR's core and KHR values (vulkan_core.h) */
static const char *const present_mode_names[] = { "immediate", "mailbox", "fifo", "fifo-relaxed" };

const char *hb_present_source_name(unsigned source)
{
	return source < HB_SRC_MAX ? source_names[source] : "unknown";
}

unsigned hb_present_source_api(unsigned source)
{
	return source < HB_SRC_MAX ? source_apis[source] : HB_API_UNKNOWN;
}

const char *hb_api_name(unsigned api)
{
	return api < HB_API_MAX ? api_names[api] : "unknown";
}

const char *hb_present_mode_name(uint32_t mode, char buf[24])
{
	if (mode < sizeof(present_mode_names) / sizeof(present_mode_names[0]))
		return present_mode_names[mode];
	snprintf(buf, 24, "mode-%" PRIu32, mode);
	return buf;
}

/* ---- byte order ---- */

static bool host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* header_size in the order it is read in: at least the version 1 and 2
 * header, and below 64 KiB in any version (docs/formats.md) */
static bool header_size_plausible(uint32_t size)
{
	return size >= sizeof(struct hb_frames_header) && size < 65536;
}

void frames_header_bswap(struct hb_frames_header *h)
{
	h->version = __builtin_bswap32(h->version);
	h->header_size = __builtin_bswap32(h->header_size);
	h->record_size = __builtin_bswap32(h->record_size);
	h->clock_id = __builtin_bswap32(h->clock_id);
	h->capacity = __builtin_bswap64(h->capacity);
	h->count = __builtin_bswap64(h->count);
	h->dropped = __builtin_bswap64(h->dropped);
	h->cost_ns = __builtin_bswap64(h->cost_ns);
	h->cost_samples = __builtin_bswap64(h->cost_samples);
	h->hooked_procs = __builtin_bswap64(h->hooked_procs);
	h->spin_ns = __builtin_bswap64(h->spin_ns);
	h->spin_presents = __builtin_bswap64(h->spin_presents);
	h->records_offset = __builtin_bswap64(h->records_offset);
	h->event_size = __builtin_bswap32(h->event_size);
	h->event_capacity = __builtin_bswap32(h->event_capacity);
	h->event_count = __builtin_bswap64(h->event_count);
	h->vk_instances = __builtin_bswap64(h->vk_instances);
}

void frames_record_bswap(struct hb_frame_record *r)
{
	r->t_ns = __builtin_bswap64(r->t_ns);
	r->pid = __builtin_bswap32(r->pid);
	r->source = __builtin_bswap16(r->source);
	r->present_us = __builtin_bswap16(r->present_us);
}

static void event_bswap(struct hb_frame_event *e)
{
	e->t_ns = __builtin_bswap64(e->t_ns);
	e->pid = __builtin_bswap32(e->pid);
	e->kind = __builtin_bswap16(e->kind);
	e->api = __builtin_bswap16(e->api);
	e->object = __builtin_bswap64(e->object);
	e->old_object = __builtin_bswap64(e->old_object);
	e->surface = __builtin_bswap64(e->surface);
	e->width = __builtin_bswap32(e->width);
	e->height = __builtin_bswap32(e->height);
	e->present_mode = __builtin_bswap32(e->present_mode);
	e->min_image_count = __builtin_bswap32(e->min_image_count);
	e->image_count = __builtin_bswap32(e->image_count);
	e->format = __builtin_bswap32(e->format);
}

/* Brings a header as read from a file into this machine's order; true
 * when its bytes were in the other order. A header plausible in neither
 * order is left as it is, for header_check() to refuse. */
bool frames_header_to_host(struct hb_frames_header *h)
{
	if (header_size_plausible(h->header_size) ||
	    !header_size_plausible(__builtin_bswap32(h->header_size)))
		return false;
	frames_header_bswap(h);
	return true;
}

/* Where a header's records start: after the header in version 1, after
 * the event slots in version 2. */
static uint64_t records_offset(const struct hb_frames_header *h)
{
	return h->version >= 2 ? h->records_offset : h->header_size;
}

static void header_init(struct hb_frames_header *h, uint64_t capacity, uint32_t event_capacity)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, HB_FRAMES_MAGIC, 8);
	h->version = HB_FRAMES_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(struct hb_frame_record);
	h->clock_id = CLOCK_MONOTONIC;
	h->capacity = capacity;
	h->event_size = sizeof(struct hb_frame_event);
	h->event_capacity = event_capacity;
	h->records_offset = sizeof(*h) + (uint64_t)event_capacity * sizeof(struct hb_frame_event);
}

int hb_frames_create(const char *path, uint64_t capacity, int mode)
{
	struct hb_frames_header h;
	int fd, r = 0;

	header_init(&h, capacity, HB_FRAMES_EVENT_CAPACITY);
	if (capacity > (UINT64_MAX - h.records_offset) / sizeof(struct hb_frame_record) ||
	    h.records_offset + capacity * sizeof(struct hb_frame_record) > (uint64_t)INT64_MAX)
		return -EFBIG;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		r = errno ? -errno : -EIO;
	else if (ftruncate(fd, (off_t)(h.records_offset + capacity * sizeof(struct hb_frame_record))) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlink(path);
	return r;
}

int hb_frames_write(const char *path, const uint64_t *t_ns, size_t n, unsigned source, int mode)
{
	return hb_frames_write_pids(path, t_ns, NULL, n, source, mode);
}

int hb_frames_write_pids(const char *path, const uint64_t *t_ns, const uint32_t *pid, size_t n,
			 unsigned source, int mode)
{
	size_t len = sizeof(struct hb_frames_header) + n * sizeof(struct hb_frame_record);
	unsigned char *buf = zalloc(len);
	struct hb_frames_header *h = (struct hb_frames_header *)buf;
	struct hb_frame_record *rec = (struct hb_frame_record *)(buf + sizeof(*h));
	int r;

	header_init(h, n, 0);
	h->count = n;
	for (size_t i = 0; i < n; i++) {
		rec[i].t_ns = t_ns[i];
		rec[i].pid = pid ? pid[i] : 0;
		rec[i].source = (uint16_t)source;
	}
	if (host_big_endian())
		hb_frames_swap(buf, len); /* a finished file is little-endian */
	r = write_file_atomic(path, buf, len, mode);
	free(buf);
	return r;
}

int hb_frames_trim(const char *path)
{
	struct hb_frames_header h;
	uint64_t n;
	int fd, r = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		r = -EINVAL;
		goto out;
	}
	frames_header_to_host(&h);
	if (memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0 || h.version < HB_FRAMES_VERSION_MIN ||
	    h.version > HB_FRAMES_VERSION || h.record_size == 0 || records_offset(&h) > (uint64_t)INT64_MAX) {
		r = -EINVAL;
		goto out;
	}
	n = h.count < h.capacity ? h.count : h.capacity;
	if (n > ((uint64_t)INT64_MAX - records_offset(&h)) / h.record_size) {
		r = -EINVAL;
		goto out;
	}
	if (ftruncate(fd, (off_t)(records_offset(&h) + n * h.record_size)) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}

/* The checks of a header's sizes; NULL when they hold, else why not. */
static const char *header_check(const struct hb_frames_header *h, size_t len)
{
	if (memcmp(h->magic, HB_FRAMES_MAGIC, 8) != 0)
		return "not a hitchbench frame file (bad magic)";
	if (h->version < HB_FRAMES_VERSION_MIN || h->version > HB_FRAMES_VERSION)
		return "frame file version not supported by this hitchbench";
	if (h->header_size < sizeof(*h) || h->record_size < sizeof(struct hb_frame_record) ||
	    h->header_size > len)
		return "frame file header has impossible sizes";
	if (h->version >= 2 &&
	    ((h->event_capacity && h->event_size < sizeof(struct hb_frame_event)) ||
	     h->records_offset != h->header_size + (uint64_t)h->event_capacity * h->event_size))
		return "frame file header has impossible sizes";
	return NULL;
}

/* A present, its source and its pid, sorted together. */
struct stamp {
	uint64_t t_ns;
	uint32_t pid;
	uint16_t source;
};

static int stamp_cmp(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* Orders the presents by time, each keeping its source. 0 or -ENOMEM. */
static int sort_stamps(struct hb_frames *f)
{
	struct stamp *v = malloc((f->n ? f->n : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint64_t i = 0; i < f->n; i++) {
		v[i].t_ns = f->t_ns[i];
		v[i].source = f->source[i];
		v[i].pid = f->pid[i];
	}
	qsort(v, (size_t)f->n, sizeof(*v), stamp_cmp);
	for (uint64_t i = 0; i < f->n; i++) {
		f->t_ns[i] = v[i].t_ns;
		f->source[i] = v[i].source;
		f->pid[i] = v[i].pid;
	}
	free(v);
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	const struct hb_frame_event *x = a, *y = b;

	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* The finished events of a version 2 file, as far as the file holds them. */
static int parse_events(const unsigned char *p, size_t len, const struct hb_frames_header *h,
			bool swapped, struct hb_frames *f)
{
	uint64_t n, avail;

	if (h->version < 2 || h->event_capacity == 0)
		return 0;
	n = h->event_count < h->event_capacity ? h->event_count : h->event_capacity;
	avail = (len - h->header_size) / h->event_size;
	if (n > avail)
		n = avail; /* cut short inside the events: records_offset is past the end too */
	f->events_dropped = h->event_count > h->event_capacity ? h->event_count - h->event_capacity : 0;
	f->events = malloc((n ? n : 1) * sizeof(*f->events));
	if (!f->events)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_event ev;

		memcpy(&ev, p + h->header_size + i * h->event_size, sizeof(ev));
		if (swapped)
			event_bswap(&ev);
		if (ev.t_ns == 0)
			f->events_unfinished++;
		else
			f->events[f->n_events++] = ev;
	}
	qsort(f->events, (size_t)f->n_events, sizeof(*f->events), event_cmp);
	return 0;
}

int hb_frames_parse(const void *data, size_t len, struct hb_frames *out, const char **why)
{
	struct hb_frames_header h;
	const unsigned char *p = data;
	struct hb_frames f;
	uint64_t n, avail, off;
	bool sorted = true, swapped;

	if (len < sizeof(h)) {
		*why = "shorter than the frame file header";
		return -EINVAL;
	}
	memcpy(&h, p, sizeof(h));
	swapped = frames_header_to_host(&h);
	if ((*why = header_check(&h, len)))
		return -EINVAL;
	memset(&f, 0, sizeof(f));
	f.version = h.version;
	f.big_endian = swapped != host_big_endian();
	off = records_offset(&h);
	n = h.count < h.capacity ? h.count : h.capacity;
	avail = off < len ? (len - off) / h.record_size : 0;
	f.header_records = n;
	f.file_records = avail;
	if (n > avail)
		n = avail; /* a file cut short: read what is there, the caller is told */
	f.t_ns = malloc((n ? n : 1) * sizeof(uint64_t));
	f.source = malloc((n ? n : 1) * sizeof(uint16_t));
	f.pid = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!f.t_ns || !f.source || !f.pid || parse_events(p, len, &h, swapped, &f) < 0) {
		hb_frames_release(&f);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, p + off + i * h.record_size, sizeof(rec));
		if (swapped)
			frames_record_bswap(&rec);
		if (rec.t_ns == 0) {
			f.unfinished++;
			continue;
		}
		if (f.n > 0 && rec.t_ns < f.t_ns[f.n - 1])
			sorted = false;
		f.source[f.n] = rec.source < HB_SRC_MAX ? rec.source : HB_SRC_UNKNOWN;
		f.pid[f.n] = rec.pid;
		f.t_ns[f.n++] = rec.t_ns;
		f.per_source[rec.source < HB_SRC_MAX ? rec.source : HB_SRC_UNKNOWN]++;
	}
	/* Two threads or processes may reserve slots in one order and stamp in
	 * the other: order by time. */
	if (!sorted && sort_stamps(&f) < 0) {
		hb_frames_release(&f);
		return -ENOMEM;
	}
	/* the hook counts each present past the capacity in dropped; a count
	 * past the capacity says the same (e.g. a writer killed before it
	 * counted): the larger of the two, never their sum */
	f.dropped = h.count > h.capacity ? h.count - h.capacity : 0;
	if (h.dropped > f.dropped)
		f.dropped = h.dropped;
	f.cost_ns = h.cost_ns;
	f.cost_samples = h.cost_samples;
	f.hooked_procs = h.hooked_procs;
	f.spin_ns = h.spin_ns;
	f.spin_presents = h.spin_presents;
	if (h.version >= 2)
		f.vk_instances = h.vk_instances;
	*out = f;
	return 0;
}

int hb_frames_big_endian(const void *data, size_t len)
{
	struct hb_frames_header h;
	bool swapped;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, data, sizeof(h));
	swapped = frames_header_to_host(&h);
	if (header_check(&h, len))
		return -EINVAL;
	return swapped != host_big_endian();
}

int hb_frames_swap(void *data, size_t len)
{
	unsigned char *p = data;
	struct hb_frames_header h;
	uint64_t n, off;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, p, sizeof(h));
	frames_header_to_host(&h);
	if (header_check(&h, len))
		return -EINVAL;
	/* each slot's known fields; a larger slot's rest is not ours to turn */
	n = h.version >= 2 && h.event_capacity ? (len - h.header_size) / h.event_size : 0;
	if (n > h.event_capacity)
		n = h.event_capacity;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_event ev;
		unsigned char *slot = p + h.header_size + i * h.event_size;

		memcpy(&ev, slot, sizeof(ev));
		event_bswap(&ev);
		memcpy(slot, &ev, sizeof(ev));
	}
	off = records_offset(&h);
	n = off < len ? (len - off) / h.record_size : 0;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;
		unsigned char *slot = p + off + i * h.record_size;

		memcpy(&rec, slot, sizeof(rec));
		frames_record_bswap(&rec);
		memcpy(slot, &rec, sizeof(rec));
	}
	/* the header last: its fields above were read in this machine's order */
	memcpy(&h, p, sizeof(h));
	frames_header_bswap(&h);
	memcpy(p, &h, sizeof(h));
	return 0;
}

int hb_frames_to_le(const char *path)
{
	unsigned char head[sizeof(struct hb_frames_header)];
	struct stat st;
	void *map;
	int fd, r;

	fd = open_regular(path);
	if (fd < 0)
		return fd;
	/* the header alone tells: a little-endian file is not mapped */
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (st.st_size < (off_t)sizeof(head) || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		r = -EINVAL;
		goto out;
	}
	r = hb_frames_big_endian(head, sizeof(head));
	if (r <= 0)
		goto out;
	close(fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		goto out;
	}
	r = hb_frames_swap(map, (size_t)st.st_size);
	if (munmap(map, (size_t)st.st_size) < 0 && r == 0)
		r = -errno;
out:
	close(fd);
	return r;
}

int hb_frames_load(const char *path, struct hb_frames *out, const char **why)
{
	struct stat st;
	char *data;
	void *map;
	size_t len;
	int fd, r;

	/* A regular file is mapped, not copied (a long run's file is tens of
	 * MB): readers load finished files (trimmed, or copied into a run
	 * directory), which nobody truncates under them. */
	fd = open_regular(path); /* a FIFO in its place must not block */
	if (fd < 0) {
		*why = "cannot read the frame file";
		return fd;
	}
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (map != MAP_FAILED) {
			close(fd);
			r = hb_frames_parse(map, (size_t)st.st_size, out, why);
			munmap(map, (size_t)st.st_size);
			return r;
		}
	}
	close(fd);
	r = read_file(path, &data, &len);
	if (r < 0) {
		*why = "cannot read the frame file";
		return r;
	}
	r = hb_frames_parse(data, len, out, why);
	free(data);
	return r;
}

bool hb_frames_cut(const struct hb_frames *f)
{
	return f->file_records < f->header_records;
}

void hb_frames_release(struct hb_frames *f)
{
	if (!f)
		return;
	free(f->t_ns);
	free(f->source);
	free(f->pid);
	free(f->events);
	memset(f, 0, sizeof(*f));
}
