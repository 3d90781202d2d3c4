#!/bin/sh
# site-demo: the lab's site of a demonstration database, and the pictures
# of it in docs/img (docs/site.md says what they show).
#
#   sh scripts/site-demo.sh OUTDIR [--shots]
#
# The database is the three recorded runs of tests/fixtures/runs copied
# by SQL into a lab of two machines (lab-1, lab-2), six kernels
# (6.18.36 .. 6.18.46), three batches a kernel and machine, six runs a
# batch (the software and gl runs, three each), the third batch of each
# kernel an A/B batch. Each copy's fps and lows are the recorded run's
# times a spread of +-1.25% (a fixed function of the run, no random
# numbers: the same database every time) and, on lab-2 from 6.18.44 on,
# the software runs' times 0.939: a 6.1% fall for the site to find. The
# noise figures (steal, foreign CPU) are made the same way; the recorded
# runs themselves are then taken out. Nothing of it
# was measured: it shows what the pages hold, not what a kernel did. The
# site is built with SOURCE_DATE_EPOCH fixed; --shots draws the index and
# the software fps trend with headless Chromium into docs/img.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
HB=${HB:-$top/build/hitchbench}
out=${1:?usage: site-demo.sh OUTDIR [--shots]}
R=$top/tests/fixtures/runs
db=$out/demo.db
mkdir -p "$out"
rm -f "$db"
rm -rf "$out/site"
"$HB" db import --db "$db" "$R"/2026* >/dev/null
sqlite3 "$db" <<'SQL'
CREATE TEMP TABLE k (i INTEGER, rel TEXT);
INSERT INTO k VALUES (0, '6.18.36'), (1, '6.18.38'), (2, '6.18.40'), (3, '6.18.42'), (4, '6.18.44'), (5, '6.18.46');
CREATE TEMP TABLE h (j INTEGER, host TEXT);
INSERT INTO h VALUES (0, 'lab-1'), (1, 'lab-2');
CREATE TEMP TABLE b (n INTEGER);
INSERT INTO b VALUES (0), (1), (2);
CREATE TEMP TABLE q (q INTEGER);
INSERT INTO q VALUES (0), (1), (2), (3), (4), (5);
INSERT INTO batches (batch_uuid, path, game, variants, tokens, rounds, status, started_utc, host,
		     kernel_release, harness_command, imported_utc)
	SELECT printf('202612%02dT%02d%02d00Z-dsda-doom', 1 + k.i, 8 + b.n, h.j),
	       '/lab/' || h.host || printf('/202612%02dT%02d%02d00Z-dsda-doom', 1 + k.i, 8 + b.n, h.j),
	       'dsda-doom', 'software gl', '-', 3, 'complete',
	       printf('2026-12-%02dT%02d:%02d:00Z', 1 + k.i, 8 + b.n, h.j), h.host, k.rel,
	       CASE WHEN b.n = 2 THEN 'hitchbench ab --metric fps dsda-doom software gl'
		    ELSE 'hitchbench run dsda-doom "software gl" 3' END, '2026-12-06T00:00:00Z'
	FROM k, h, b;
INSERT INTO runs (run_uuid, name, path, format, game, variant, status, started_utc, kernel_release, host,
		  imported_utc, batch_uuid, batch_round, batch_position, run_name, invalid)
	SELECT printf('demo-%d-%d-%d-%d', k.i, h.j, b.n, q.q),
	       printf('202612%02dT%02d%02d%02dZ-dsda-doom-%s', 1 + k.i, 8 + b.n, h.j, q.q,
		      CASE WHEN q.q % 2 = 0 THEN 'software' ELSE 'gl' END),
	       '/lab/' || h.host || '/runs', 1, 'dsda-doom', CASE WHEN q.q % 2 = 0 THEN 'software' ELSE 'gl' END,
	       'ok', printf('2026-12-%02dT%02d:%02d:%02dZ', 1 + k.i, 8 + b.n, h.j, q.q), k.rel, h.host,
	       '2026-12-06T00:00:00Z', printf('202612%02dT%02d%02d00Z-dsda-doom', 1 + k.i, 8 + b.n, h.j),
	       q.q / 2, q.q % 2, CASE WHEN q.q % 2 = 0 THEN 'software' ELSE 'gl' END, 0
	FROM k, h, b, q;
-- a fixed spread: ((id * 7919) % 1001 - 500) / 40000, within +-1.25%
INSERT INTO metrics (run_id, name, value)
	SELECT n.id, m.name, m.value *
	       CASE WHEN m.name IN ('fps', 'low1') THEN
		    (1.0 + ((n.id * 7919) % 1001 - 500) / 40000.0) *
		    (CASE WHEN n.host = 'lab-2' AND n.variant = 'software' AND n.kernel_release >= '6.18.44'
			  THEN 0.939 ELSE 1.0 END)
		    ELSE 1.0 END
	FROM runs AS n JOIN runs AS o ON n.run_uuid LIKE 'demo-%'
	     AND o.id = CASE WHEN n.variant = 'software' THEN 1 ELSE 2 END
	JOIN metrics AS m ON m.run_id = o.id AND m.name NOT IN ('steal_pct', 'foreign_cpu_pct');
INSERT INTO metrics (run_id, name, value)
	SELECT id, 'steal_pct', 0.5 + ((id * 104729) % 400) / 100.0 FROM runs WHERE run_uuid LIKE 'demo-%';
INSERT INTO metrics (run_id, name, value)
	SELECT id, 'foreign_cpu_pct', 1.0 + ((id * 1299709) % 500) / 100.0 FROM runs WHERE run_uuid LIKE 'demo-%';
-- the recorded runs were the copies' source only
DELETE FROM runs WHERE run_uuid NOT LIKE 'demo-%';
SQL
SOURCE_DATE_EPOCH=1796536800 "$HB" site --db "$db" --out "$out/site"
[ "${2:-}" = --shots ] || exit 0
check="python3 $top/tests/tools/chromium-check.py"
$check --shot "$top/docs/img/site-index.png" --shot-height 1500 "$out/site/index.html"
$check --shot "$top/docs/img/site-trend.png" --shot-height 1400 "$out/site/trend/dsda-doom/software/fps.html"
