-- X-Moto 0.6.1 keeps a profile's settings in its database (xm.db, table
-- profiles_configs), not in config.dat. recipes/xmoto.ini's prepare step
-- reads this file into the database xmoto has just made, for the profile
-- xmoto runs with when no profile exists (the empty name): what every
-- variant shares. The graphics level is in gfx-LEVEL.sql, read after it.
INSERT OR REPLACE INTO profiles_configs (id_profile, key, value) VALUES
  -- no web: no highscore, level or theme checks, no upload
  ('', 'WebHighscores', '0'),
  ('', 'CheckNewLevelsAtStartup', '0'),
  ('', 'CheckHighscoresAtStartup', '0'),
  ('', 'WebConfAtInit', '0'),
  ('', 'NotifyAtInit', '0'),
  -- no zoom over the level before the ride (3-4 s of other frames)
  ('', 'InitZoom', '0'),
  -- no sound, no ghost of an earlier run beside the replayed rider
  ('', 'AudioEnable', '0'),
  ('', 'EngineSoundEnable', '0'),
  ('', 'MenuMusic', '0'),
  ('', 'GameMusic', '0'),
  ('', 'EnableGhost', '0');
