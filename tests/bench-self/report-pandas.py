#!/usr/bin/python3
# report-pandas.py: what `hitchbench report --format csv RUNDIR` computes for
# one run, written as a pandas user would, for bench-self to time against
# hitchbench on the same frames. Not part of hitchbench.
#
#   report-pandas.py BENCH_TXT FRAMES_CSV
#
# BENCH_TXT is the run's bench.txt (window_start_ns, window_end_ns: the
# same window hitchbench reads); FRAMES_CSV has a header "t_ns" and one
# present time (ns) a line (`mkframes --synth N --csv`). Prints name=value
# lines in hitchbench's metric order, with its digits after the point
# (analysis/metrics/metrics.c metric_defs), stall threshold 100 ms.
#
# The same numbers the same way (docs/metrics.md):
# - a frame is t[i] - t[i-1] (integer ns) for every present t[i] in
#   (window_start, window_end]; the first present has no frame
# - ms = ns / 1e6 as a double, sums (stall_s, smooth) in integer ns, then
#   divided by 1e9: the same IEEE operations as metrics.c, so the same bits
# - percentiles are nearest-rank: numpy.percentile(method="inverted_cdf")
#   is Hyndman and Fan's definition 1, the inverse of the empirical CDF: the
#   smallest frame time whose rank r satisfies r / N >= p, i.e. rank
#   ceil(p * N), which is hitchbench's nearest-rank. numpy computes p * N
#   in doubles, so p must be given as a fraction to numpy.quantile:
#   numpy.percentile(..., 99.9) divides by 100 first, 99.9 / 100 is
#   0.9990000000000001, and p99.9 of 1,000,000 frames becomes rank 999001,
#   one off. With 1,000,000 frames 0.5, 0.99 and 0.999 times N are exact.
#   (pandas' own Series.quantile offers only interpolations on (N-1) * p:
#   its "lower" and "nearest" are not nearest-rank.)
import sys

import numpy as np
import pandas as pd

STALL_MS = 100.0

DECIMALS = [("frames", 0), ("window_s", 3), ("fps", 1), ("steady_fps", 1), ("smooth_fps", 1),
            ("stalls", 0), ("stall_s", 2), ("longest_ms", 1), ("p50_ms", 2), ("p99_ms", 2),
            ("p999_ms", 2), ("low1", 1), ("low01", 1)]


def window(bench_txt):
    kv = {}
    with open(bench_txt) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                kv[key] = value
    return int(kv["window_start_ns"]), int(kv["window_end_ns"])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report-pandas.py BENCH_TXT FRAMES_CSV")
    start, end = window(sys.argv[1])
    t = pd.read_csv(sys.argv[2], dtype={"t_ns": "int64"})["t_ns"]
    d = t.diff()                                   # float64, NaN first: exact below 2^53
    in_window = (t > start) & (t <= end) & d.notna()
    ns = d[in_window].astype("int64")
    ms = ns / 1e6
    stall = ms > STALL_MS

    m = {}
    m["frames"] = len(ns)
    m["window_s"] = (end - start) / 1e9
    m["fps"] = m["frames"] / m["window_s"]
    m["stalls"] = int(stall.sum())
    m["stall_s"] = int(ns[stall].sum()) / 1e9
    smooth_ns = int(ns[~stall].sum())
    m["smooth_fps"] = int((~stall).sum()) / (smooth_ns / 1e9)
    m["longest_ms"] = int(ns.max()) / 1e6
    p50, p99, p999 = np.quantile(ms.to_numpy(), [0.5, 0.99, 0.999], method="inverted_cdf")
    m["p50_ms"], m["p99_ms"], m["p999_ms"] = p50, p99, p999
    m["steady_fps"] = 1000 / p50
    m["low1"] = 1000 / p99
    m["low01"] = 1000 / p999
    for name, dec in DECIMALS:
        print("%s=%.*f" % (name, dec, m[name]))


main()
