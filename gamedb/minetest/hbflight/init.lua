-- hbflight: the scripted flight of hitchbench's minetest recipe
-- (gamedb/minetest/README.md). The client flies by itself: the recipe's
-- minetest.conf turns on free_move, noclip and continuous_forward, so the
-- player moves forward at a constant speed without anyone at the keys.
-- This server-side mod fixes everything else the run depends on: where the
-- flight starts, where it looks, how fast it goes, the time of day, and
-- when it ends (a shutdown, so a game started outside the harness does not
-- fly forever).

-- The start: above the spawn, 20-40 nodes over most of mapgen v7's
-- ground with seed 1234 (noclip passes through the hills that are higher;
-- at 80 the 100-node view reached the ground only in the lower half).
local start = {x = 0, y = 50, z = 0}
-- Yaw 0 looks north (+z); pitch 0.5 rad (29 degrees) looks down at the
-- ground 10-60 nodes ahead (nearer the map generator's work than the
-- horizon). Fly mode without pitch_move keeps the flight level.
local yaw = 0
local pitch = 0.5
-- Fly speed is movement_speed_walk (4 nodes/s) times this: 4 nodes/s.
-- At 8 nodes/s the map generator (one emerge thread) fell behind on this
-- 2-core machine and the view was mostly sky.
local speed = 1
-- Seconds from joining to the shutdown: longer than a load, the recipe's
-- 10 s warm-up and 60 s window together, with room for a slow load.
local seconds = tonumber(minetest.settings:get("hbflight_seconds")) or 120

local function aim(player)
	if not player:is_player() then
		return
	end
	player:set_look_horizontal(yaw)
	player:set_look_vertical(pitch)
end

minetest.register_on_joinplayer(function(player)
	local name = player:get_player_name()
	-- fly and noclip are not given to singleplayer by default; without
	-- them the client's free_move and noclip settings do nothing
	local privs = minetest.get_player_privs(name)
	privs.fly = true
	privs.noclip = true
	minetest.set_player_privs(name, privs)
	minetest.set_timeofday(0.5)
	player:set_physics_override({speed = speed})
	player:set_pos(start)
	aim(player)
	-- the client may move the view once as its mouse is first centred:
	-- aim again once it runs
	minetest.after(1, function()
		local p = minetest.get_player_by_name(name)
		if p then
			aim(p)
		end
	end)
	minetest.log("action", "hbflight: flight started at " ..
		minetest.pos_to_string(start) .. ", " .. seconds .. " s")
	-- where the player is every 10 s, in game.log: two runs can be
	-- compared, and a flight that stalls or turns shows
	local function report(n)
		local p = minetest.get_player_by_name(name)
		if p then
			minetest.log("action", "hbflight: at " ..
				minetest.pos_to_string(vector.round(p:get_pos())) .. " after " .. n .. " s")
		end
		if n + 10 < seconds then
			minetest.after(10, report, n + 10)
		end
	end
	minetest.after(10, report, 10)
	minetest.after(seconds, function()
		minetest.log("action", "hbflight: flight over")
		minetest.request_shutdown("hbflight: flight over", false, 0)
	end)
end)
