/*
 * A run as a CapFrameX JSON capture: a session (its "Info") with one run
 * whose "CaptureData" holds one array a column, one entry a frame, as
 * CapFrameX's session classes (source/CapFrameX.Data.Session/Classes:
 * Session, SessionInfo, SessionRun, SessionCaptureData) name them.
 * CapFrameX reads every CaptureData array entry by entry beside
 * MsBetweenPresents, so each is written whole: what we know
 * (TimeInSeconds, MsBetweenPresents, QPCTime as the present's time in
 * seconds) and zeros, false and "Unknown" (PresentMode 0) for what we do
 * not. AppVersion is "0.0", what CapFrameX gives a capture it did not make.
 * Numbers are the shortest that read back as the same double, and the
 * frame times, whole ns, read back exactly.
 */
#include "export/export.h"
#include "text/jsonout.h"

#include <stdlib.h>
#include <string.h>

/* one array of n entries: the frames' times (what 0: since the first
 * present, s; 1: the frame's time, ms), or the same value n times */
enum cx_column { CX_TIME_S, CX_FRAME_MS, CX_ZERO, CX_INT_ZERO, CX_FALSE };

static void cx_array(struct json_out *j, const char *key, const struct export_input *in, enum cx_column c)
{
	json_array_begin_inline(j, key);
	for (size_t i = 1; i < in->n; i++) {
		switch (c) {
		case CX_TIME_S:
			json_number(j, NULL, true, (double)(in->t_ns[i] - in->t_ns[0]) / 1e9);
			break;
		case CX_FRAME_MS:
			json_number(j, NULL, true, (double)(in->t_ns[i] - in->t_ns[i - 1]) / 1e6);
			break;
		case CX_ZERO:
			json_number(j, NULL, true, 0.0);
			break;
		case CX_INT_ZERO:
			json_int(j, NULL, 0);
			break;
		case CX_FALSE:
			json_bool(j, NULL, false);
			break;
		}
	}
	json_array_end(j);
}

/* The run's id as a GUID (8-4-4-4-12 hex digits), or the zero GUID. */
static void cx_guid(const char *id, char out[37])
{
	static const char zero[] = "00000000000000000000000000000000";
	const char *h = id && strlen(id) == 32 ? id : zero;

	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}

static void cx_info(struct json_out *j, const struct export_input *in)
{
	char guid[37], *process = xasprintf("%s.exe", in->game);

	cx_guid(in->run_id, guid);
	json_object_begin(j, "Info");
	json_string(j, "AppVersion", "0.0");
	json_string(j, "Id", guid);
	json_string(j, "Processor", in->cpu);
	json_string(j, "GameName", in->game);
	json_string(j, "ProcessName", process);
	json_string(j, "CreationDate", *in->started_utc ? in->started_utc : "1970-01-01T00:00:00Z");
	json_string(j, "Motherboard", "");
	json_string(j, "OS", in->os);
	json_string(j, "SystemRam", in->ram);
	json_string(j, "BaseDriverVersion", "");
	json_string(j, "GPUDriverVersion", in->driver);
	json_string(j, "DriverPackage", "");
	json_string(j, "GPU", in->gpu);
	json_string(j, "GPUCount", "");
	json_string(j, "GpuCoreClock", "");
	json_string(j, "GpuMemoryClock", "");
	json_string(j, "Comment", in->kernel && *in->kernel ? in->kernel : "");
	json_string(j, "ApiInfo", "");
	json_string(j, "ResizableBar", "");
	json_string(j, "WinGameMode", "");
	json_string(j, "HAGS", "");
	json_string(j, "PresentationMode", "");
	json_string(j, "ResolutionInfo", "");
	json_object_end(j);
	free(process);
}

void export_capframex(FILE *out, const struct export_input *in)
{
	struct json_out j;

	json_out_init(&j, out);
	json_object_begin(&j, NULL);
	json_null(&j, "Hash");
	cx_info(&j, in);
	json_array_begin(&j, "Runs");
	json_object_begin(&j, NULL);
	json_null(&j, "Hash");
	json_string(&j, "PresentMonRuntime", "Other");
	json_object_begin(&j, "CaptureData");
	cx_array(&j, "TimeInSeconds", in, CX_TIME_S);
	cx_array(&j, "MsBetweenPresents", in, CX_FRAME_MS);
	cx_array(&j, "MsInPresentAPI", in, CX_ZERO);
	cx_array(&j, "MsBetweenDisplayChange", in, CX_ZERO);
	cx_array(&j, "MsUntilRenderComplete", in, CX_ZERO);
	cx_array(&j, "MsUntilDisplayed", in, CX_ZERO);
	cx_array(&j, "QPCTime", in, CX_TIME_S);
	cx_array(&j, "PresentMode", in, CX_INT_ZERO);
	cx_array(&j, "AllowsTearing", in, CX_INT_ZERO);
	cx_array(&j, "SyncInterval", in, CX_INT_ZERO);
	cx_array(&j, "Dropped", in, CX_FALSE);
	cx_array(&j, "PcLatency", in, CX_ZERO);
	cx_array(&j, "AnimationError", in, CX_ZERO);
	cx_array(&j, "GpuActive", in, CX_ZERO);
	cx_array(&j, "CpuActive", in, CX_ZERO);
	json_object_end(&j);
	json_null(&j, "SensorData");
	json_null(&j, "SensorData2");
	json_null(&j, "RTSSFrameTimes");
	json_int(&j, "SampleTime", 0);
	json_object_end(&j);
	json_array_end(&j);
	json_object_end(&j);
}
