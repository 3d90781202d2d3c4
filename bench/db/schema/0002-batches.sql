-- 0002-batches.sql: batches, and which batch, round and switches each run had.
--
-- A batch is one "hitchbench run" invocation (docs/formats.md, "Batch
-- directory"): every variant with every switch token once per round, in one
-- boot. Comparisons are made within a batch, so the database keeps which
-- runs belong together. Like runs, a batch row is an index of its directory
-- (batch.txt) and is rebuilt from it by "hitchbench db import".

CREATE TABLE batches (
	id               INTEGER PRIMARY KEY,
	-- batch.txt batch_id: the batch's name everywhere ("20261130T130000Z-dsda-doom").
	batch_uuid       TEXT NOT NULL UNIQUE,
	-- The batch directory, absolute, as last imported. NULL until the batch
	-- itself is imported (a run of it may be imported first).
	path             TEXT,
	game             TEXT,
	-- The variants and switch tokens, space-separated as batch.txt has them.
	variants         TEXT,
	tokens           TEXT,
	rounds           INTEGER,
	-- "rotate" or "shuffle", and the shuffle's seed (decimal text: 64 bits).
	order_kind       TEXT,
	seed             TEXT,
	-- "complete", "incomplete", "interrupted", "failed"; NULL while it runs.
	status           TEXT,
	started_utc      TEXT,
	ended_utc        TEXT,
	boot_id          TEXT,
	host             TEXT,
	kernel_release   TEXT,
	kernel_version   TEXT,
	harness_version  TEXT,
	harness_command  TEXT,
	imported_utc     TEXT NOT NULL
);

-- Batches of one kernel: regression tracking compares them.
CREATE INDEX batches_kernel_release ON batches (kernel_release, started_utc);

-- bench.txt batch_id; NULL for runs made before batches existed.
ALTER TABLE runs ADD COLUMN batch_uuid TEXT REFERENCES batches (batch_uuid) ON DELETE SET NULL;
-- bench.txt batch_round and batch_position: the round and the place in it.
ALTER TABLE runs ADD COLUMN batch_round INTEGER;
ALTER TABLE runs ADD COLUMN batch_position INTEGER;
-- bench.txt run_name ("software@rec10": variant@switch labels) and switches
-- (the token as given, "-" for none).
ALTER TABLE runs ADD COLUMN run_name TEXT;
ALTER TABLE runs ADD COLUMN switches TEXT;
-- bench.txt invalid: 1 when an observer marked the run disturbed (such runs
-- are never counted), 0 when none did, NULL when the run predates the mark.
ALTER TABLE runs ADD COLUMN invalid INTEGER;

CREATE INDEX runs_batch ON runs (batch_uuid, batch_round, batch_position);
