-- The graphics level of recipes/xmoto.ini's variant, read into xm.db after
-- settings.sql, for the profile xmoto runs with (the empty name): High.
INSERT OR REPLACE INTO profiles_configs (id_profile, key, value) VALUES
  ('', 'GameGraphics', 'High'),
  ('', 'MenuGraphics', 'High');
