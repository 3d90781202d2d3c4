/*
 * The live view of a frame file (frames.h, struct hb_frames_view): the
 * game's file as root's runner and stall recorder read it while the game
 * writes it. Nothing in the file is trusted after open; every read is a
 * pread into a copy that is checked (docs/formats.md, "What a reader of
 * the live file trusts"). hb_frames_keep() keeps a dead runner's file the
 * same way.
 */
#include "formats/frames.h"
#include "formats/frames-internal.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where the header's fixed fields are: everything but the counters the
 * writers add to (and slowdown_live, which the runner writes). */
#define FIXED_A_END offsetof(struct hb_frames_header, count)
#define FIXED_B_START offsetof(struct hb_frames_header, records_offset)
#define FIXED_B_END offsetof(struct hb_frames_header, event_count)
#define VIEW_EVENT_CAPACITY_MAX (1u << 20) /* event slots a live file may have: 64 MiB */
/* Reserved slots above the last stamped one that a writer can leave: one
 * per thread between its reserve and its stamp (nanoseconds), or killed
 * there. More is a count that was written, not added to. */
#define VIEW_LAST_SCAN 64u

static uint64_t view_u64(const struct hb_frames_view *v, uint64_t x)
{
	return v->swapped ? __builtin_bswap64(x) : x;
}

/* The first reason is the one kept. */
static void view_distrust(struct hb_frames_view *v, const char *why)
{
	if (!v->tampered)
		v->tampered = why;
}

/* len bytes at off, into buf: true when all of them were read. A short
 * read is the file cut under the view: it distrusts the file. */
static bool view_pread(struct hb_frames_view *v, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(v->fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len)
		return true;
	view_distrust(v, n < 0 ? "the frame file cannot be read any more"
			       : "the frame file was cut shorter than its header says");
	return false;
}

/* The header now, into h, its fixed fields compared with those at open. */
static bool view_read_header(struct hb_frames_view *v, struct hb_frames_header *h)
{
	if (!view_pread(v, h, sizeof(*h), 0))
		return false;
	if (memcmp(h, v->fixed, FIXED_A_END) != 0 ||
	    memcmp((const char *)h + FIXED_B_START, v->fixed + FIXED_B_START, FIXED_B_END - FIXED_B_START) != 0) {
		view_distrust(v, "the frame file's header was rewritten (its layout is not the one at open)");
		return false;
	}
	return true;
}

/* The checks of a live file's header, in this machine's order, against
 * the file's size; NULL when they hold. */
static const char *view_header_check(const struct hb_frames_header *h, uint64_t size)
{
	if (memcmp(h->magic, HB_FRAMES_MAGIC, 8) != 0)
		return "not a hitchbench frame file (bad magic)";
	if (h->version != HB_FRAMES_VERSION)
		return "not a live frame file of this version";
	if (h->header_size != sizeof(*h) || h->record_size != sizeof(struct hb_frame_record) ||
	    h->event_size != sizeof(struct hb_frame_event) || h->clock_id != CLOCK_MONOTONIC ||
	    h->event_capacity > VIEW_EVENT_CAPACITY_MAX ||
	    h->records_offset != sizeof(*h) + (uint64_t)h->event_capacity * sizeof(struct hb_frame_event))
		return "the frame file's header has impossible sizes";
	if (h->records_offset > size ||
	    h->capacity > (size - h->records_offset) / sizeof(struct hb_frame_record))
		return "the frame file is smaller than its header's capacity";
	return NULL;
}

static int view_open_fd(struct hb_frames_view *v, int fd, const char **why)
{
	struct hb_frames_header h;
	struct stat st;
	const char *bad = NULL;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		bad = "the frame file is not a regular file";
	else if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		bad = "shorter than the frame file header";
	if (!bad) {
		memcpy(v->fixed, &h, sizeof(h));
		v->swapped = frames_header_to_host(&h);
		bad = view_header_check(&h, (uint64_t)st.st_size);
	}
	if (bad) {
		if (why)
			*why = bad;
		return -EINVAL;
	}
	v->fd = fd;
	v->is_open = true;
	v->capacity = h.capacity;
	v->records_offset = h.records_offset;
	v->size = (uint64_t)st.st_size;
	v->raw_count = h.count;
	v->count = h.count < h.capacity ? h.count : h.capacity;
	return 0;
}

int hb_frames_view_open(struct hb_frames_view *v, const char *path, const char **why)
{
	/* a FIFO in its place must not block, a link must not lead elsewhere */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY), r;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	if (fd < 0)
		return -errno;
	r = view_open_fd(v, fd, why);
	if (r < 0)
		close(fd);
	return r;
}

void hb_frames_view_close(struct hb_frames_view *v)
{
	if (v->is_open)
		close(v->fd);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

const char *hb_frames_view_tampered(const struct hb_frames_view *v)
{
	return v->tampered;
}

uint64_t hb_frames_view_count(struct hb_frames_view *v)
{
	struct hb_frames_header h;
	uint64_t n;

	if (!v->is_open || v->tampered || !view_read_header(v, &h))
		return v->count;
	n = view_u64(v, h.count);
	if (n < v->raw_count) {
		/* a writer only adds: once more, then it is believed */
		if (!view_read_header(v, &h))
			return v->count;
		n = view_u64(v, h.count);
		if (n < v->raw_count) {
			view_distrust(v, "the frame file's count went backwards");
			return v->count;
		}
	}
	v->raw_count = n;
	v->count = n < v->capacity ? n : v->capacity;
	return v->count;
}

/* A stamp as read: 0 (not stamped), or one that cannot be in the future
 * of this machine's monotonic clock (the writers' clock). */
static uint64_t view_stamp(struct hb_frames_view *v, uint64_t t_ns)
{
	struct timespec ts;

	t_ns = view_u64(v, t_ns);
	if (t_ns == 0 || clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return t_ns;
	if (t_ns > (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) {
		view_distrust(v, "a present in the frame file is stamped in the future");
		return 0;
	}
	return t_ns;
}

uint64_t hb_frames_view_time(struct hb_frames_view *v, uint64_t i)
{
	uint64_t t;

	if (!v->is_open || i >= v->capacity ||
	    !view_pread(v, &t, sizeof(t), v->records_offset + i * sizeof(struct hb_frame_record)))
		return 0;
	return view_stamp(v, t);
}

int hb_frames_view_latest(struct hb_frames_view *v, struct hb_frame_record *out)
{
	struct hb_frame_record rec[VIEW_LAST_SCAN];
	uint64_t n = v->count, k, t;

	if (!v->is_open || n == 0)
		return -ENOENT;
	/* the top slots below the trusted count in one read: a bounded walk,
	 * whatever the file says (and safe once the view distrusts it) */
	k = n < VIEW_LAST_SCAN ? n : VIEW_LAST_SCAN;
	if (!view_pread(v, rec, (size_t)k * sizeof(rec[0]), v->records_offset + (n - k) * sizeof(rec[0])))
		return -EIO;
	for (uint64_t i = k; i-- > 0;) {
		t = view_stamp(v, rec[i].t_ns);
		if (t) {
			if (t > v->last_t)
				v->last_t = t;
			*out = rec[i];
			if (v->swapped)
				frames_record_bswap(out);
			out->t_ns = t;
			return 0;
		}
	}
	if (k == VIEW_LAST_SCAN)
		view_distrust(v, "the frame file's count runs far ahead of its stamped presents");
	return -ENOENT;
}

uint64_t hb_frames_view_last(struct hb_frames_view *v)
{
	struct hb_frame_record rec;

	hb_frames_view_count(v);
	return hb_frames_view_latest(v, &rec) == 0 ? rec.t_ns : v->last_t;
}

int hb_frames_view_header(struct hb_frames_view *v, struct hb_frames_header *out)
{
	struct hb_frames_header h;

	if (!v->is_open || !view_read_header(v, &h)) {
		memcpy(out, v->fixed, sizeof(*out));
		if (v->swapped)
			frames_header_bswap(out);
		return -EIO;
	}
	if (v->swapped)
		frames_header_bswap(&h);
	*out = h;
	return 0;
}

const char *hb_frames_view_check(struct hb_frames_view *v)
{
	struct stat st;

	if (!v->is_open)
		return v->tampered;
	if (fstat(v->fd, &st) < 0 || (uint64_t)st.st_size < v->size)
		view_distrust(v, "the frame file was cut shorter than its header says");
	hb_frames_view_count(v);
	hb_frames_view_last(v);
	return v->tampered;
}

int hb_frames_view_set_slowdown(struct hb_frames_view *v, const char *path, uint32_t live)
{
	struct stat mine, theirs;
	int fd, r = 0;

	if (!v->is_open)
		return -EBADF;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(v->fd, &mine) < 0 || fstat(fd, &theirs) < 0)
		r = -errno;
	else if (mine.st_dev != theirs.st_dev || mine.st_ino != theirs.st_ino)
		r = -ESTALE; /* the game put another file in its place */
	if (v->swapped)
		live = __builtin_bswap32(live);
	errno = 0;
	if (r == 0 && pwrite(fd, &live, sizeof(live), offsetof(struct hb_frames_header, slowdown_live)) !=
			      (ssize_t)sizeof(live))
		r = errno ? -errno : -EIO;
	close(fd);
	return r;
}

int hb_frames_view_keep(struct hb_frames_view *v, const char *dst, int mode)
{
	struct hb_frames_header h;
	unsigned char *buf = NULL;
	uint64_t n, off, end, count;
	size_t chunk = 64 * 1024;
	int out, r = 0;

	if (!v->is_open)
		return -EBADF;
	/* the counters as they are now, the layout as it was at open; a view
	 * that stopped trusting the file keeps its last trusted count */
	if (!view_pread(v, &h, sizeof(h), 0))
		memcpy(&h, v->fixed, sizeof(h));
	memcpy(&h, v->fixed, FIXED_A_END);
	memcpy((char *)&h + FIXED_B_START, v->fixed + FIXED_B_START, FIXED_B_END - FIXED_B_START);
	count = v->tampered ? v->raw_count : view_u64(v, h.count);
	h.count = view_u64(v, count);
	n = count < v->capacity ? count : v->capacity;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (out < 0)
		return -errno;
	r = write_all(out, &h, sizeof(h));
	buf = zalloc(chunk);
	/* the event slots and the records, as far as the file holds them */
	end = v->records_offset + n * sizeof(struct hb_frame_record);
	for (off = sizeof(h); r == 0 && off < end;) {
		size_t len = end - off < chunk ? (size_t)(end - off) : chunk;
		ssize_t got = pread(v->fd, buf, len, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			break;
		}
		if (got == 0) {
			view_distrust(v, "the frame file was cut shorter than its header says");
			break;
		}
		r = write_all(out, buf, (size_t)got);
		off += (uint64_t)got;
	}
	free(buf);
	if (close(out) < 0 && r == 0)
		r = -errno;
	return r;
}

int hb_frames_keep(const char *live, const char *dst, int mode)
{
	struct hb_frames_view v;
	int r = hb_frames_view_open(&v, live, NULL);

	if (r == 0) {
		r = hb_frames_view_keep(&v, dst, mode);
		hb_frames_view_close(&v);
	}
	if (r == 0)
		r = hb_frames_to_le(dst);
	return r;
}
