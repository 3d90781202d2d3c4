#!/bin/sh
# The SHADERCACHE switch in a batch (with the fake game, behind a wrapper
# that writes one "cache entry" where Mesa would): cold gives each run an
# empty directory of its own in the staging (gone after the run), warm one
# kept per recipe and variant that the next run finds as the last left it,
# off turns the caches off; every run's environment, bench.txt keys and
# name say which, and the directory is the game user's. A bad value is
# refused before anything starts.
. "$(dirname "$0")/../lib.sh"
need_game_user
fake_setup
export HITCHBENCH_SHADERCACHE_DIR="$T/sc"
cat >"$T/game/sc-game.sh" <<'EOF'
#!/bin/sh
# a game that leaves one entry in its shader cache, when it has one
if [ -n "${MESA_SHADER_CACHE_DIR:-}" ] && [ "${MESA_SHADER_CACHE_DISABLE:-}" = false ]; then
	mkdir -p "$MESA_SHADER_CACHE_DIR/mesa_shader_cache" &&
		echo "entry of $$" >"$MESA_SHADER_CACHE_DIR/mesa_shader_cache/entry-$$" ||
		echo "cannot write the cache" >&2
fi
exec "$(dirname "$0")/fakegame" "$@"
EOF
chmod a+rx "$T/game/sc-game.sh"
show=""
for v in MESA_SHADER_CACHE_DIR MESA_GLSL_CACHE_DIR DXVK_STATE_CACHE_PATH VKD3D_SHADER_CACHE_PATH \
	MESA_SHADER_CACHE_DISABLE MESA_GLSL_CACHE_DISABLE DXVK_STATE_CACHE; do
	show="$show --show-env $v"
done
fake_recipe sc "--fps 100$show" "warmup = 0" "window = 1" "stop_grace = 0.5"
sed -i "s|^command = $T/game/fakegame|command = $T/game/sc-game.sh|" "$T/sc.ini"
grep -q "sc-game.sh" "$T/sc.ini" || fail "the recipe's command: $(cat "$T/sc.ini")"

rc=0; "$HB" run --no-quieting --display :99 --out "$T/runs" --no-db "$T/sc.ini" base \
	--switches "SHADERCACHE=hot" 2>"$T/err0" || rc=$?
expect_eq "a bad value" 2 "$rc"
grep -q "wants cold, warm or off" "$T/err0" || fail "bad value message: $(cat "$T/err0")"
[ ! -d "$T/runs" ] || fail "a refused batch left runs"

hb_run "$T/sc.ini" base 2 --switches "SHADERCACHE=cold SHADERCACHE=warm SHADERCACHE=off"
[ "$rc" = 0 ] || { cat "$T/err"; fail "the batch failed ($rc)"; }
[ "$(run_dirs "$T/runs" | wc -l)" = 6 ] || fail "expected 6 runs: $(run_dirs "$T/runs")"
warm="$T/sc/sc/base"
cold_dirs="" n_warm=0
for d in $(run_dirs "$T/runs"); do
	b=$d/bench.txt
	mode=$(value shadercache "$b" | cut -d' ' -f1)
	dir=$(value shadercache "$b" | cut -d' ' -f2-)
	expect_eq "$d: run name" "base@sc-$mode" "$(value run_name "$b")"
	expect_eq "$d: valid" 0 "$(value invalid "$b")"
	log=$d/game.log
	# the game's lines, without game.log's time stamps
	sed 's/^[0-9.]*	//' "$d/game.log" >"$T/game.out"
	log=$T/game.out
	case $mode in
	off)
		expect_eq "$d: shadercache" off "$(value shadercache "$b")"
		for e in MESA_SHADER_CACHE_DISABLE=true MESA_GLSL_CACHE_DISABLE=true DXVK_STATE_CACHE=0 \
			VKD3D_SHADER_CACHE_PATH=0; do
			grep -qx "env $e" "$log" || fail "$d: no $e in the game's environment: $(cat "$log")"
		done
		[ -z "$(value shadercache.before "$b")" ] || fail "$d: an off run counted a cache"
		continue ;;
	cold)
		case $dir in
		"$(value staging "$b")"/hitchbench-*/shadercache) ;;
		*) fail "$d: the cold cache '$dir' is not in the staging ($(value staging "$b"))" ;;
		esac
		[ ! -e "$dir" ] || fail "$d: the cold cache outlived its run"
		case " $cold_dirs " in *" $dir "*) fail "two cold runs shared $dir" ;; esac
		cold_dirs="$cold_dirs $dir"
		expect_eq "$d: cold before" "0 files, 0 bytes" "$(value shadercache.before "$b")"
		value shadercache.after "$b" | grep -q "^1 files, [1-9][0-9]* bytes$" ||
			fail "$d: cold after: $(value shadercache.after "$b")" ;;
	warm)
		expect_eq "$d: the warm cache" "$warm" "$dir"
		n_warm=$((n_warm + 1))
		value shadercache.before "$b" | grep -q "^$((n_warm - 1)) files, " ||
			fail "$d: warm run $n_warm found $(value shadercache.before "$b")"
		value shadercache.after "$b" | grep -q "^$n_warm files, " ||
			fail "$d: warm run $n_warm left $(value shadercache.after "$b")"
		value shadercache.added "$b" | grep -q "^1 files, [1-9][0-9]* bytes$" ||
			fail "$d: warm added: $(value shadercache.added "$b")" ;;
	*) fail "$d: shadercache=$(value shadercache "$b")" ;;
	esac
	for e in MESA_SHADER_CACHE_DIR MESA_GLSL_CACHE_DIR DXVK_STATE_CACHE_PATH VKD3D_SHADER_CACHE_PATH; do
		grep -qx "env $e=$dir" "$log" || fail "$d: $e is not $dir: $(cat "$log")"
	done
	grep -qx "env MESA_SHADER_CACHE_DISABLE=false" "$log" || fail "$d: the cache is not on: $(cat "$log")"
	! grep -q "cannot write the cache" "$log" || fail "$d: the game could not write its cache"
done
expect_eq "warm runs" 2 "$n_warm"
# the warm cache stays, the game user's, with what both runs wrote
user=$(value user "$(run_dirs "$T/runs" | tail -n 1)/bench.txt")
expect_eq "the warm cache's owner" "$user" "$(stat -c %U "$warm")"
expect_eq "the warm cache's entries" 2 "$(ls "$warm/mesa_shader_cache" | wc -l)"
for f in "$warm"/mesa_shader_cache/*; do
	expect_eq "$f's owner" "$user" "$(stat -c %U "$f")"
done
no_fakegame_left
exit 0
