/*
 * Creating, trimming and reading frame files (format in frames.h and
 * docs/formats.md). The writer side lives in the hook, which must not link
 * this library.
 */
#include "frames.h"
#include "sort.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
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
};

const char *hb_present_source_name(unsigned source)
{
	return source < HB_SRC_MAX ? source_names[source] : "unknown";
}

int hb_frames_view_open(struct hb_frames_view *v, const char *path)
{
	struct hb_frames_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	memset(v, 0, sizeof(*v));
	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0 || h.version != HB_FRAMES_VERSION) {
		close(fd);
		return -EINVAL;
	}
	v->map_len = sizeof(h) + (size_t)h.capacity * sizeof(struct hb_frame_record);
	p = mmap(NULL, v->map_len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	v->hdr = p;
	v->rec = (const struct hb_frame_record *)((const char *)p + sizeof(h));
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

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, HB_FRAMES_MAGIC, 8);
	h.version = HB_FRAMES_VERSION;
	h.header_size = sizeof(h);
	h.record_size = sizeof(struct hb_frame_record);
	h.clock_id = CLOCK_MONOTONIC;
	h.capacity = capacity;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		r = errno ? -errno : -EIO;
	else if (ftruncate(fd, (off_t)(sizeof(h) + capacity * sizeof(struct hb_frame_record))) < 0)
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

	memcpy(h->magic, HB_FRAMES_MAGIC, 8);
	h->version = HB_FRAMES_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = sizeof(*rec);
	h->clock_id = CLOCK_MONOTONIC;
	h->capacity = h->count = n;
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
	    memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0) {
		r = -EINVAL;
		goto out;
	}
	n = h.count < h.capacity ? h.count : h.capacity;
	if (ftruncate(fd, (off_t)(h.header_size + n * h.record_size)) < 0)
		r = -errno;
out:
	close(fd);
	return r;
}

int hb_frames_parse(const void *data, size_t len, struct hb_frames *out, const char **why)
{
	struct hb_frames_header h;
	const unsigned char *p = data;
	struct hb_frames f;
	uint64_t n, avail;
	bool sorted = true;

	if (len < sizeof(h)) {
		*why = "shorter than the frame file header";
		return -EINVAL;
	}
	memcpy(&h, p, sizeof(h));
	if (memcmp(h.magic, HB_FRAMES_MAGIC, 8) != 0) {
		*why = "not a hitchbench frame file (bad magic)";
		return -EINVAL;
	}
	if (h.version != HB_FRAMES_VERSION) {
		*why = "frame file version not supported by this hitchbench";
		return -EINVAL;
	}
	if (h.header_size < sizeof(h) || h.record_size < sizeof(struct hb_frame_record) ||
	    h.header_size > len) {
		*why = "frame file header has impossible sizes";
		return -EINVAL;
	}
	memset(&f, 0, sizeof(f));
	n = h.count < h.capacity ? h.count : h.capacity;
	avail = (len - h.header_size) / h.record_size;
	f.header_records = n;
	f.file_records = avail;
	if (n > avail)
		n = avail; /* a file cut short: read what is there, the caller is told */
	f.t_ns = malloc((n ? n : 1) * sizeof(uint64_t));
	if (!f.t_ns)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		struct hb_frame_record rec;

		memcpy(&rec, p + h.header_size + i * h.record_size, sizeof(rec));
		if (rec.t_ns == 0) {
			f.unfinished++;
			continue;
		}
		if (f.n > 0 && rec.t_ns < f.t_ns[f.n - 1])
			sorted = false;
		f.t_ns[f.n++] = rec.t_ns;
		f.per_source[rec.source < HB_SRC_MAX ? rec.source : HB_SRC_UNKNOWN]++;
	}
	/* Two threads or processes may reserve slots in one order and stamp in
	 * the other: order by time. */
	if (!sorted)
		sort_u64(f.t_ns, f.n);
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
	memset(f, 0, sizeof(*f));
}
