-- 0003-run-checks.sql: why a run's data failed an integrity check.
--
-- A run directory whose bench.txt says status=ok may still not be whole:
-- a frame file cut short, a number in bench.txt that does not parse, a
-- window outside the recorded frames or with too few frames in it
-- (docs/formats.md, "Run integrity"). "hitchbench db import" checks every
-- run as report does; one that fails is stored with status 'invalid' and
-- the reason here, so that every query counting runs by status = 'ok'
-- leaves it out and can still say why. bench.txt's own status stays in
-- provenance.

-- The first check the run failed ("frames.bin: 7841 records in the header,
-- 54 in the file"); NULL when it passed them all, or was imported before
-- schema 3 (import it again to check it).
ALTER TABLE runs ADD COLUMN check_failed TEXT;
