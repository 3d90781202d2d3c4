/*
 * Fuzz target: the frame file, frames.bin (common/formats/frames.c
 * hb_frames_parse): a 128-byte header and 16-byte records.
 */
#include "formats/frames.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hb_frames f;
	const char *why = NULL;

	memset(&f, 0, sizeof(f));
	if (hb_frames_parse(data, size, &f, &why) == 0) {
		for (uint64_t i = 1; i < f.n; i++)
			if (f.t_ns[i] < f.t_ns[i - 1])
				abort(); /* promised sorted */
		hb_frames_release(&f);
	}
	return 0;
}
