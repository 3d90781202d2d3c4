-- 0004-machines.sql: which machine each run and batch ran on, and what a
-- machine's local database has sent to the lab's.
--
-- A lab's results database (PostgreSQL, docs/lab.md) holds the runs of
-- many machines; reports, matrices and comparisons are filtered by machine
-- (--machine), and a comparison is only ever made within one. host (0001)
-- names a machine as people do; these columns say what it is: its
-- systemd machine id (/etc/machine-id, stable across reboots and host
-- renames), its CPU (/proc/cpuinfo's model name) and its GPU (the PCI
-- vendor:device and kernel driver of each DRM card, else the GL renderer
-- the run drew with). NULL when bench.txt did not say (runs made before
-- hitchbench recorded them).

ALTER TABLE runs ADD COLUMN machine_id TEXT;
ALTER TABLE runs ADD COLUMN cpu_model TEXT;
ALTER TABLE runs ADD COLUMN gpu TEXT;
ALTER TABLE batches ADD COLUMN machine_id TEXT;

CREATE INDEX runs_machine ON runs (host, machine_id, game);

-- What "hitchbench db push --to URL" (and "run --db URL" after each run)
-- has sent to a lab's database (lab: its URL without a password). item is
-- a run's run_uuid, or "batch:" || batch_uuid || ":" || status || ":" ||
-- ended_utc for a batch as it was sent (a batch that ends later is sent
-- again). A run imported again here loses its row (it may have changed),
-- so the next push sends it again. Only a machine's local database fills
-- this table; in a lab's database it stays empty.
CREATE TABLE pushes (
	lab        TEXT NOT NULL,
	item       TEXT NOT NULL,
	pushed_utc TEXT NOT NULL,
	PRIMARY KEY (lab, item)
) WITHOUT ROWID;
