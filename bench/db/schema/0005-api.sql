-- 0005-api.sql: the graphics API each run's frames came from.
--
-- What hitchbench report prints in its api column (docs/formats.md,
-- "report"): the API of the measured window's frames (the whole frame
-- file's for a run without a window), in bench.txt frames_api's words:
-- "opengl", "vulkan", "sdl-renderer", "log", "unknown", "none",
-- "mixed(vulkan 3000, opengl 12)". Computed from frames.bin at import, as
-- the report computes it from a run directory, so that a report from the
-- database says what one from the directories says. NULL for a run
-- without frames, or imported before schema 5 (import it again).

ALTER TABLE runs ADD COLUMN api TEXT;
