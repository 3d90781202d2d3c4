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

-- What "hitchbench db push --to URL" has sent: one row per run and lab
-- database (the URL without its password). A run imported again here
-- loses its rows (it changed), so the next push sends it again. Only a
-- machine's local database fills it; in a lab's database it stays empty.
CREATE TABLE pushes (
	lab        TEXT NOT NULL,
	run_uuid   TEXT NOT NULL,
	pushed_utc TEXT NOT NULL,
	PRIMARY KEY (lab, run_uuid)
) WITHOUT ROWID;
