/*
 * A run's sensor samples (sensors.tsv.zst, docs/formats.md) summarised as
 * key=value metrics for its bench.txt: the hottest and mean temperature of
 * each sensor, the frequency range, how often the CPU throttled, the load,
 * memory and stall, and what the sampler cost.
 *
 * (Named sensorstats, not sensors: common/system/sensors.h is on the same include
 * path, and a second "sensors.h" would shadow it in this directory.)
 */
#ifndef HB_SENSORSTATS_H
#define HB_SENSORSTATS_H

#include "text/kvfile.h"
#include "base/util.h"

/* Reads path and appends to out: sensors.samples, sensors.period_ms,
 * sensors.cost_us_per_sample, then per column (where it has a value):
 *   temp.* fan.*          .max .mean
 *   freq.*                .min .mean .max
 *   throttle.*            .delta (last - first)
 *   cpu.* psi.*           .mean .max
 *   mem.* swap.*          .mean .min .max
 * each key prefixed "sensors.". 0; -EINVAL for a broken file, with
 * "path:line: what is wrong" (or "path: ...") in err; -errno when it cannot
 * be read. out is left untouched on failure. */
int sensors_summarize(const char *path, struct kvfile *out, struct strbuf *err);
/* The most the samples may decompress to (a file past it is refused): 256
 * MiB, days of samples every 100 ms. */
#define HB_SENSORS_MAX_TEXT ((size_t)256 << 20)
/* The same from the decompressed text (tests; path only names it in errors). */
int sensors_summarize_text(const char *path, const char *text, struct kvfile *out,
			   struct strbuf *err);

#endif
