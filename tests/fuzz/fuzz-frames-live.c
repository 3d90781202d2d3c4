/*
 * Fuzz target: the live view of a frame file (common/formats/frames-live.c),
 * what root's runner and stall recorder read while the game writes the
 * file. The input's first 10 bytes are what the game does after the view
 * opened (byte 0: bit 0 rewrites 8 bytes of the header, at byte 9's offset
 * (a multiple of 8 below 128) with bytes 1-8; bit 1 cuts the file to bytes
 * 1-8 modulo its size plus one); the rest is the file. The view is read
 * before and after: its count must stay within the capacity it validated
 * at open and never go back, and what it keeps must be no larger than that
 * capacity's records and must load.
 */
#include "formats/frames.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char live[4096], kept[4096];

static void paths(void)
{
	const char *dir = getenv("TMPDIR");

	if (live[0])
		return;
	snprintf(live, sizeof(live), "%s/fuzz-frames-live.%d", dir && *dir ? dir : "/tmp", (int)getpid());
	snprintf(kept, sizeof(kept), "%s.kept", live);
}

/* Reads the view as its callers do; the count it returns, checked. */
static uint64_t read_view(struct hb_frames_view *v, uint64_t before)
{
	struct hb_frames_header h;
	struct hb_frame_record rec;
	uint64_t n = hb_frames_view_count(v);

	if (n > v->capacity || n < before)
		abort(); /* past what was validated, or backwards */
	hb_frames_view_last(v);
	hb_frames_view_latest(v, &rec);
	hb_frames_view_time(v, 0);
	hb_frames_view_time(v, n ? n - 1 : 0);
	hb_frames_view_time(v, v->capacity);
	hb_frames_view_time(v, UINT64_MAX);
	hb_frames_view_header(v, &h);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_frames_view v;
	struct hb_frames f;
	struct stat st;
	const char *why = NULL;
	uint64_t val, n, cap, off;
	int fd;

	if (size < 10)
		return 0;
	paths();
	memcpy(&val, data + 1, sizeof(val));
	fd = open(live, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data + 10, size - 10) != (ssize_t)(size - 10))
		abort();
	if (hb_frames_view_open(&v, live, &why) == 0) {
		cap = v.capacity;
		off = v.records_offset;
		n = read_view(&v, 0);
		if ((data[0] & 1) && pwrite(fd, &val, sizeof(val), (off_t)((data[9] % 16) * 8)) != sizeof(val))
			abort();
		if ((data[0] & 2) && ftruncate(fd, (off_t)(val % (size - 10 + 1))) < 0)
			abort();
		n = read_view(&v, n);
		hb_frames_view_check(&v);
		read_view(&v, n);
		if (hb_frames_view_keep(&v, kept, 0600) == 0) {
			if (stat(kept, &st) < 0 || (uint64_t)st.st_size > off + cap * sizeof(struct hb_frame_record))
				abort(); /* more than the validated capacity's records */
			if (hb_frames_load(kept, &f, &why) == 0)
				hb_frames_release(&f);
		}
		hb_frames_view_close(&v);
	}
	close(fd);
	unlink(live);
	unlink(kept);
	return 0;
}
