/*
 * Fuzz target: a run's sensor samples (analysis/metrics/sensorstats.c), as text
 * (sensors_summarize_text) and, for input that is zstd, through the
 * bounded decompression sensors_summarize() reads sensors.tsv.zst with.
 */
#include "metrics/sensorstats.h"
#include "base/unzstd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct kvfile kf;
	const char *why;
	char *s = fuzz_text(data, size);

	kvfile_init(&kf);
	sensors_summarize_text("sensors.tsv", s, &kf, &err);
	kvfile_release(&kf);
	if (unzstd(data, size, HB_SENSORS_MAX_TEXT, &text, &why) == 0 && text.buf) {
		kvfile_init(&kf);
		sensors_summarize_text("sensors.tsv.zst", text.buf, &kf, &err);
		kvfile_release(&kf);
	}
	strbuf_release(&text);
	strbuf_release(&err);
	free(s);
	return 0;
}
