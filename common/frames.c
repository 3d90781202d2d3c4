/*
 * Creating, trimming and reading frame files (format in frames.h and
 * docs/formats.md). The writer side lives in the hook, which must not link
 * this library.
 */
#include "frames.h"
#include "util.h"

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

int hb_frames_view_open(struct hb_frames_view *v, const char *path)
{
	struct hb_frames_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	memset(v, 0, sizeof(*v));
	if (fd < 0)
		return -errno;
	/* the runner's own files, of this version: the layout is as it made it */
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0 || h.version != HB_FRAMES_VERSION ||
	    h.header_size != sizeof(h) || h.record_size != sizeof(struct hb_frame_record) ||
	    h.event_size != sizeof(struct hb_frame_event) ||
	    h.records_offset != sizeof(h) + (uint64_t)h.event_capacity * h.event_size ||
	    h.capacity > (SIZE_MAX - h.records_offset) / sizeof(struct hb_frame_record)) {
		close(fd);
		return -EINVAL;
	}
	v->map_len = (size_t)h.records_offset + (size_t)h.capacity * sizeof(struct hb_frame_record);
	p = mmap(NULL, v->map_len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	v->hdr = p;
	v->ev = (const struct hb_frame_event *)((const char *)p + sizeof(h));
	v->rec = (const struct hb_frame_record *)((const char *)p + h.records_offset);
	return 0;
}

void hb_frames_view_close(struct hb_frames_view *v)
{
	if (v->hdr)
		munmap((void *)v->hdr, v->map_len);
	memset(v, 0, sizeof(*v));
}

uint64_t hb_frames_view_count(const struct hb_frames_view *v)
{
	uint64_t n = __atomic_load_n(&v->hdr->count, __ATOMIC_ACQUIRE);

	return n < v->hdr->capacity ? n : v->hdr->capacity;
}

uint64_t hb_frames_view_time(const struct hb_frames_view *v, uint64_t i)
{
	return __atomic_load_n(&v->rec[i].t_ns, __ATOMIC_ACQUIRE);
}

uint64_t hb_frames_view_last(const struct hb_frames_view *v)
{
	uint64_t n = hb_frames_view_count(v);

	while (n > 0 && hb_frames_view_time(v, n - 1) == 0)
		n--;
	return n ? hb_frames_view_time(v, n - 1) : 0;
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
	size_t len = sizeof(struct hb_frames_header) + n * sizeof(struct hb_frame_record);
	unsigned char *buf = zalloc(len);
	struct hb_frames_header *h = (struct hb_frames_header *)buf;
	struct hb_frame_record *rec = (struct hb_frame_record *)(buf + sizeof(*h));
	int r;

	header_init(h, n, 0);
	h->count = n;
	for (size_t i = 0; i < n; i++) {
		rec[i].t_ns = t_ns[i];
		rec[i].source = (uint16_t)source;
	}
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
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0 || h.version < HB_FRAMES_VERSION_MIN ||
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

/* A present and its source, sorted together. */
struct stamp {
	uint64_t t_ns;
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
	}
	qsort(v, (size_t)f->n, sizeof(*v), stamp_cmp);
	for (uint64_t i = 0; i < f->n; i++) {
		f->t_ns[i] = v[i].t_ns;
		f->source[i] = v[i].source;
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
			struct hb_frames *f)
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
	bool sorted = true;

	if (len < sizeof(h)) {
		*why = "shorter than the frame file header";
		return -EINVAL;
	}
	memcpy(&h, p, sizeof(h));
	if ((*why = header_check(&h, len)))
		return -EINVAL;
	memset(&f, 0, sizeof(f));
	f.version = h.version;
	off = records_offset(&h);
	n = h.count < h.capacity ? h.count : h.capacity;
	avail = off < len ? (len - off) / h.record_size : 0;
	f.header_records = n;
	f.file_records = avail;
	if (n > avail)
		n = avail; /* a file cut short: read what is there, the caller is told */
	f.t_ns = malloc((n ? n : 1) * sizeof(uint64_t));
	f.source = malloc((n ? n : 1) * sizeof(uint16_t));
	if (!f.t_ns || !f.source || parse_events(p, len, &h, &f) < 0) {
		hb_frames_release(&f);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, p + off + i * h.record_size, sizeof(rec));
		if (rec.t_ns == 0) {
			f.unfinished++;
			continue;
		}
		if (f.n > 0 && rec.t_ns < f.t_ns[f.n - 1])
			sorted = false;
		f.source[f.n] = rec.source < HB_SRC_MAX ? rec.source : HB_SRC_UNKNOWN;
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
	free(f->events);
	memset(f, 0, sizeof(*f));
}
