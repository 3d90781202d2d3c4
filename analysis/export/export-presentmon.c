/*
 * A run as PresentMon 2.x's console tool writes a capture with its
 * default columns and time unit (seconds): the column set of its own gold
 * output (tests/fixtures/testdata/presentmon/presentmon_gold_test_case_0.csv,
 * made with QPC times) with TimeInSeconds and CPUStartTimeInSeconds, as
 * PresentMon/CsvOutput.cpp names them without --qpc_time. Bytes as
 * PresentMon's "w,ccs=UTF-8" text stream on Windows gives them: a UTF-8 BOM,
 * CRLF line ends. Times carry 14 decimals (DBL_DIG - 1, as PresentMon's)
 * and are exact: our present times are whole ns.
 *
 * What is known: the present times, so TimeInSeconds, MsBetweenPresents
 * and, as PresentMon defines a frame's CPU start (the previous present),
 * CPUStartTimeInSeconds and MsBetweenAppStart. The process, swap chain and
 * present mode are not known: ProcessID 0, SwapChainAddress 0x0,
 * PresentRuntime Other, PresentMode Unknown; every measured column we
 * lack (display, GPU, latencies) is NA, PresentMon's word for a value it
 * has not got.
 */
#include "export/export.h"
#include "text/csv.h"

#include <inttypes.h>

static const char pm_header[] =
	"Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,AllowsTearing,"
	"PresentMode,FrameType,TimeInSeconds,MsBetweenSimulationStart,MsBetweenPresents,"
	"MsBetweenDisplayChange,MsInPresentAPI,MsRenderPresentLatency,MsUntilDisplayed,MsPCLatency,"
	"CPUStartTimeInSeconds,MsBetweenAppStart,MsCPUBusy,MsCPUWait,MsGPULatency,MsGPUTime,MsGPUBusy,"
	"MsGPUWait,MsVideoBusy,MsAnimationError,AnimationTime,MsFlipDelay,MsAllInputToPhotonLatency,"
	"MsClickToPhotonLatency,MsInstrumentedLatency\r\n";

/* ns as seconds with 14 decimals, exactly */
static void seconds(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%09" PRIu64 "00000", ns / 1000000000, ns % 1000000000);
}

void export_presentmon(FILE *out, const struct export_input *in)
{
	fputs("\xef\xbb\xbf", out);
	fputs(pm_header, out);
	for (size_t i = 1; i < in->n; i++) {
		char t[48], ms[48], cpu[48], app[48] = "NA";

		seconds(t, sizeof(t), in->t_ns[i] - in->t_ns[0]);
		export_ms(ms, sizeof(ms), in->t_ns[i] - in->t_ns[i - 1], 14);
		seconds(cpu, sizeof(cpu), in->t_ns[i - 1] - in->t_ns[0]);
		if (i >= 2)
			export_ms(app, sizeof(app), in->t_ns[i - 1] - in->t_ns[i - 2], 14);
		csv_write_field(out, in->game);
		fprintf(out, ",0,0x0,Other,0,0,0,Unknown,Application,%s,NA,%s,NA,NA,NA,NA,NA,%s,%s,"
			     "NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA\r\n",
			t, ms, cpu, app);
	}
}
