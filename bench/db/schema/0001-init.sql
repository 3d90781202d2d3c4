-- 0001-init.sql: the first schema of the hitchbench results database.
--
-- The database is an index of run directories, never the source of truth:
-- every row here is computed from a run directory (its bench.txt and its
-- frames) by "hitchbench db import", and the whole database can be rebuilt
-- from the directories at any time.
--
-- Migrations: each bench/db/schema/NNNN-*.sql file is one migration, applied
-- in order of NNNN, each in its own transaction, after which PRAGMA
-- user_version is set to NNNN. This file is version 1. A migration file is
-- never edited once released: a change to the schema is a new file.
--
-- metrics and provenance are WITHOUT ROWID tables keyed by their natural
-- keys: there is no hidden rowid that would change when an import replaces
-- a run's rows, so importing the same run again leaves every table with the
-- same content. Their primary keys, led by run_id, also serve the foreign
-- keys' ON DELETE CASCADE.
--
-- Conventions: wall-clock times are ISO 8601 UTC text ("2026-11-30T10:00:00Z"),
-- which sorts in time order; NULL means "bench.txt did not say".

-- One row per run directory imported.
CREATE TABLE runs (
	-- Local row id: the key the other tables refer to. Kept when a run is
	-- imported again, so it stays stable for as long as the database lives,
	-- but it means nothing outside this database.
	id              INTEGER PRIMARY KEY,
	-- bench.txt run_id: the run's identity everywhere (a UUID-like string).
	-- Importing a run whose run_uuid is already here updates that row.
	run_uuid        TEXT NOT NULL UNIQUE,
	-- The run directory's base name, and the absolute path it was last
	-- imported from.
	name            TEXT NOT NULL,
	path            TEXT NOT NULL,
	-- bench.txt format= (the run directory format version).
	format          INTEGER NOT NULL,
	-- What ran: bench.txt game, variant, recipe and the recipe file's
	-- SHA-256 (hex).
	game            TEXT,
	variant         TEXT,
	recipe          TEXT,
	recipe_sha256   TEXT,
	-- "ok", or why the run failed. Failed runs are kept: they are results too.
	status          TEXT NOT NULL,
	started_utc     TEXT,
	ended_utc       TEXT,
	-- Where it ran: uname -r and uname -v, /proc/sys/kernel/random/boot_id,
	-- the host name, and the hitchbench version that ran it.
	kernel_release  TEXT,
	kernel_version  TEXT,
	boot_id         TEXT,
	host            TEXT,
	harness_version TEXT,
	-- How the numbers in metrics were computed: the stall threshold in
	-- milliseconds and the percentile definition ("nearest-rank",
	-- "linear"). NULL when the run was imported without metrics.
	stall_ms        REAL,
	percentile      TEXT,
	-- When this run was first imported into this database. Set once, never
	-- updated, so that importing again changes nothing.
	imported_utc    TEXT NOT NULL
);

-- Listing and comparing runs of one game and variant, in start order.
CREATE INDEX runs_game_variant ON runs (game, variant, started_utc);
-- Regression tracking across kernels: every run on one kernel release.
CREATE INDEX runs_kernel_release ON runs (kernel_release);

-- One row per metric value that was computed; a metric that could not be
-- computed for a run (no frames, undefined) has no row. Names are those of
-- analysis/metrics/metrics.h (metric_defs[].name): frames, fps, p99_ms, low1, ...
-- Rows are replaced as a whole on each import of their run.
CREATE TABLE metrics (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	name   TEXT NOT NULL,
	value  REAL NOT NULL,
	PRIMARY KEY (run_id, name)
) WITHOUT ROWID;

-- Every key=value pair of the run's bench.txt, in file order (seq counts
-- from 0), repeated keys included: package.<name>=<version>, command=,
-- pass.<n>.start_ns= and whatever later formats add. The runs columns above
-- are copies of some of these pairs, made queryable.
-- Rows are replaced as a whole on each import of their run.
CREATE TABLE provenance (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq    INTEGER NOT NULL,
	key    TEXT NOT NULL,
	value  TEXT NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
