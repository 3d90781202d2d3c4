#!/bin/sh
# make install into a prefix by the FHS (docs/install.md) gives a working,
# relocatable tree: hitchbench alone in bin/, its helpers and hook in
# lib/hitchbench/ (found from where the program is), the recipes and gamedb
# in share/hitchbench/; man pages and completions where their variables
# name them. The installed program writes its results in the user's XDG
# data directory (root's: /var/lib/hitchbench), never the current one. The
# Vulkan layer's manifest (which names the hook by its installed path, as
# the loader wants) goes where the loader looks under the prefix.
# make uninstall removes what install put and nothing else.
. "$(dirname "$0")/../lib.sh"
need_game_user
cd "$HB_SRCDIR"
# stand-ins for the built man pages and the completion files: only where
# install puts them is tested here
mkdir -p "$T/man" "$T/comp"
for p in hitchbench.1 hitchbench-run.1 hitchbench-recipe.5; do echo ".TH $p" >"$T/man/$p"; done
echo "complete -F _hb hitchbench" >"$T/comp/hb.bash"
echo "#compdef hitchbench" >"$T/comp/_hb"
EXTRA="MAN_PAGES=$T/man/hitchbench.1 $T/man/hitchbench-run.1 $T/man/hitchbench-recipe.5"
make -s install PREFIX=/opt/hb DESTDIR="$T/dest" "$EXTRA" COMPLETION_BASH="$T/comp/hb.bash" \
	COMPLETION_ZSH="$T/comp/_hb" >"$T/log" 2>&1 || { cat "$T/log"; fail "make install failed"; }
P="$T/dest/opt/hb"
for f in bin/hitchbench lib/hitchbench/hitchbench-hook.so lib/hitchbench/hitchbench-wadlump \
	lib/hitchbench/hitchbench-sampler lib/hitchbench/hitchbench-stallrec lib/hitchbench/hitchbench-input \
	lib/hitchbench/hitchbench-intfwatch lib/hitchbench/hitchbench-waker lib/hitchbench/hitchbench-prefetch \
	lib/hitchbench/hitchbench-reboot share/hitchbench/recipes/dsda-doom.ini share/hitchbench/recipes/README.md \
	share/hitchbench/recipes/quiet/default.ini share/hitchbench/gamedb/dsda-doom/README.md \
	share/man/man1/hitchbench.1 share/man/man1/hitchbench-run.1 share/man/man5/hitchbench-recipe.5 \
	share/bash-completion/completions/hitchbench share/zsh/vendor-completions/_hitchbench; do
	[ -e "$P/$f" ] || fail "make install did not install $f"
done
expect_eq "bin/ holds hitchbench alone" hitchbench "$(ls "$P/bin")"
expect_eq "files of recipes/ and gamedb/ installed" "$(find recipes gamedb -type f | wc -l)" \
	"$(find "$P/share/hitchbench" -type f | wc -l)"
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
# the version compiled in is scripts/version.sh's
expect_eq "installed --version" "hitchbench $(sh scripts/version.sh)" "$("$P/bin/hitchbench" --version)"

# moved elsewhere, it still works: the recipe is found, the hook and the
# helpers (wadlump, the sampler) are used from lib/hitchbench
mv "$P" "$T/moved"
mkdir "$T/cwd"
cd "$T/cwd"
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
[ -f "$rundir/sensors.tsv.zst" ] ||
	fail "the installed sampler (lib/hitchbench) did not run: sensors=$(value sensors "$rundir/bench.txt")"
expect_eq "what the installed run left in the current directory" "" "$(ls -A "$T/cwd")"

# where an installed hitchbench keeps its results (the default database
# named by the read-only refusal): root's in /var/lib/hitchbench, a user's
# in $XDG_DATA_HOME/hitchbench, else ~/.local/share/hitchbench
unset HITCHBENCH_RESULTS
if [ "$(id -u)" = 0 ]; then
	rc=0; "$T/moved/bin/hitchbench" db info 2>"$T/err" || rc=$?
	[ -f /var/lib/hitchbench/hitchbench.db ] ||
		grep -q "no such database: /var/lib/hitchbench/hitchbench.db" "$T/err" ||
		fail "root's installed default database is not in /var/lib/hitchbench: $(cat "$T/err")"
	as_user() { setpriv --reuid=hitchbench --regid=hitchbench --clear-groups "$@"; }
	chmod 755 "$T" "$T/moved" "$T/cwd"
else
	as_user() { "$@"; }
fi
rc=0; as_user env HOME="$T/home" XDG_DATA_HOME= "$T/moved/bin/hitchbench" db info 2>"$T/err" || rc=$?
expect_eq "a user's default database, missing: exit" 2 "$rc"
grep -q "no such database: $T/home/.local/share/hitchbench/hitchbench.db" "$T/err" ||
	fail "a user's default database is not in ~/.local/share/hitchbench: $(cat "$T/err")"
rc=0; as_user env HOME="$T/home" XDG_DATA_HOME="$T/xdg" "$T/moved/bin/hitchbench" db info 2>"$T/err" || rc=$?
grep -q "no such database: $T/xdg/hitchbench/hitchbench.db" "$T/err" ||
	fail "XDG_DATA_HOME does not move a user's default database: $(cat "$T/err")"
# ... and run from the checkout's build, the checkout's results/ (the
# database named only when it is not there)
rc=0; HOME="$T/home" "$HB" db info >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 0 ] || grep -q "no such database: $HB_SRCDIR/results/hitchbench.db" "$T/err" ||
	fail "the checkout's build does not use the checkout's results/: $(cat "$T/err")"

# uninstall: exactly what install put; a file of the user's stays
cd "$HB_SRCDIR"
make -s install PREFIX=/opt/hb DESTDIR="$T/dest2" "$EXTRA" COMPLETION_BASH="$T/comp/hb.bash" \
	COMPLETION_ZSH="$T/comp/_hb" >"$T/log" 2>&1 || { cat "$T/log"; fail "make install (2) failed"; }
echo "[recipe]" >"$T/dest2/opt/hb/share/hitchbench/recipes/mine.ini"
make -s uninstall PREFIX=/opt/hb DESTDIR="$T/dest2" "$EXTRA" COMPLETION_BASH="$T/comp/hb.bash" \
	COMPLETION_ZSH="$T/comp/_hb" >"$T/log" 2>&1 || { cat "$T/log"; fail "make uninstall failed"; }
expect_eq "files left by uninstall" "$T/dest2/opt/hb/share/hitchbench/recipes/mine.ini" \
	"$(find "$T/dest2" ! -type d)"
rm "$T/dest2/opt/hb/share/hitchbench/recipes/mine.ini"
make -s uninstall PREFIX=/opt/hb DESTDIR="$T/dest2" >"$T/log" 2>&1 || { cat "$T/log"; fail "make uninstall (2) failed"; }
for d in lib/hitchbench share/hitchbench share/vulkan; do
	[ ! -e "$T/dest2/opt/hb/$d" ] || fail "uninstall left $d: $(find "$T/dest2/opt/hb/$d")"
done
exit 0
