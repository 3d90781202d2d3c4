#!/bin/sh
# make install into a prefix gives a working, relocatable tree: the
# program finds its hook and recipes from where it is installed. The
# Vulkan layer's manifest (which names the hook by its installed path, as
# the loader wants) goes where the loader looks under the prefix.
. "$(dirname "$0")/../lib.sh"
need_game_user
cd "$HB_SRCDIR"
make -s install PREFIX=/opt/hb DESTDIR="$T/dest" >"$T/log" 2>&1 || { cat "$T/log"; fail "make install failed"; }
P="$T/dest/opt/hb"
for f in bin/hitchbench bin/hitchbench-wadlump bin/hitchbench-waker bin/hitchbench-prefetch lib/hitchbench/hitchbench-hook.so lib/hitchbench/hitchbench-reboot \
	share/hitchbench/recipes/dsda-doom.ini share/hitchbench/recipes/README.md share/hitchbench/gamedb/dsda-doom/README.md; do
	[ -e "$P/$f" ] || fail "make install did not install $f"
done
# the Vulkan layer's manifest, where the loader looks under the prefix, naming
# the installed hook by its absolute path
m=$P/share/vulkan/implicit_layer.d/VkLayer_hitchbench.json
[ -e "$m" ] || fail "make install did not install the Vulkan layer's manifest"
grep -q '"library_path": "/opt/hb/lib/hitchbench/hitchbench-hook.so"' "$m" ||
	fail "the installed manifest does not name the installed hook: $(grep library_path "$m")"
grep -q '"name": "VK_LAYER_HITCHBENCH_frames"' "$m" || fail "the installed manifest names another layer"
if command -v python3 >/dev/null; then
	python3 -m json.tool "$m" >/dev/null || fail "the installed manifest is not JSON"
fi
# moved elsewhere, it still works: the recipe is found, the hook is used
mv "$P" "$T/moved"
cd "$T"
"$T/moved/bin/hitchbench" run --help >/dev/null || fail "installed run --help"
rc=0; "$T/moved/bin/hitchbench" run --no-quieting dsda-doom no-such-variant --no-db 2>"$T/err" || rc=$?
expect_eq "installed recipe lookup" 2 "$rc"
grep -q "has no variant 'no-such-variant'" "$T/err" || fail "installed program did not find its recipes: $(cat "$T/err")"
fake_setup
fake_recipe inst "--fps 100" "warmup = 0" "window = 1" "stop_grace = 0.5"
"$T/moved/bin/hitchbench" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/inst.ini" >"$T/out" 2>"$T/err" ||
	{ cat "$T/err"; fail "installed run failed"; }
rundir=$(run_dirs "$T/runs" | tail -n 1)
[ "$(value frames_recorded "$rundir/bench.txt")" -gt 50 ] || fail "the installed hook recorded no frames"
exit 0
