/*
 * The paired sequential test's figures (bench-self): for each noise model
 * and scale, simulated A/A sequences (no change) and A/B sequences (a
 * change of exactly the effect), the verdicts' rates and the pairs it took
 * to stop: mean, median, 90th percentile. A benchmark of the procedure's
 * cost in pairs, not of the machine; deterministic (a fixed seed).
 *
 * usage: seqsim [SEQUENCES [EFFECT [MAX_PAIRS]]]
 */
#include "stats/sequential.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *noise_name(enum seq_noise n)
{
	return n == SEQ_NOISE_T3 ? "t3" : n == SEQ_NOISE_OUTLIERS ? "normal+30%-outliers(5%)"
	       : n == SEQ_NOISE_BIMODAL ? "two-states(+-sd)" : "normal";
}

int main(int argc, char **argv)
{
	struct seq_opts o = SEQ_OPTS_DEFAULT;
	static const double sds[] = { 0.01, 0.03, 0.05, 0.10, 0.18 };
	static const enum seq_noise noises[] = { SEQ_NOISE_NORMAL, SEQ_NOISE_T3, SEQ_NOISE_OUTLIERS,
						   SEQ_NOISE_BIMODAL };
	int sequences = 2000;
	int max_pairs = 200;

	if (argc > 1 && (safe_atoi(argv[1], &sequences) < 0 || sequences < 1))
		return 2;
	if (argc > 2 && safe_atod(argv[2], &o.effect) < 0)
		return 2;
	if (argc > 3 && safe_atoi(argv[3], &max_pairs) < 0)
		return 2;
	o.max_pairs = (size_t)max_pairs;
	printf("# paired sequential test: effect %.3g, alpha %.3g, beta %.3g, pairs %zu..%zu, %u sequences each\n",
	       o.effect, o.alpha, o.beta, o.min_pairs, o.max_pairs, (unsigned)sequences);
	printf("# %-24s %5s %4s %7s %7s %7s %7s %8s %8s %6s %9s\n", "noise", "sd", "H", "same", "diff",
	       "unknown", "covered", "mean", "median", "p90", "(pairs)");
	for (size_t n = 0; n < ARRAY_SIZE(noises); n++)
		for (size_t i = 0; i < ARRAY_SIZE(sds); i++)
			for (int h = 0; h < 2; h++) {
				struct seq_sim s = { .noise = noises[n], .sd = sds[i], .outlier_p = 0.05,
						     .mu = h ? seq_delta(&o) : 0, .sequences = (unsigned)sequences,
						     .seed = 0x5e9ULL ^ (n << 8 | i << 4 | (size_t)h) };
				struct seq_sim_result r;

				if (seq_simulate(&o, &s, &r) < 0)
					return 1;
				printf("  %-24s %5.2f %4s %7.4f %7.4f %7.4f %7.4f %8.1f %8.1f %6.0f\n",
				       noise_name(noises[n]), sds[i], h ? "H1" : "H0",
				       (double)r.same / sequences, (double)(r.faster + r.slower) / sequences,
				       (double)r.unknown / sequences, (double)r.covered / sequences,
				       r.mean_pairs, r.median_pairs, r.p90_pairs);
			}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
