#!/bin/sh
# What glxinfo -B says on an Xvfb of this machine today still parses into
# bench.txt's gl_* keys (the parser's unit tests use a recording; this
# catches a Mesa or mesa-utils update that changed the output), and the
# probe itself runs glxinfo and reads its answer.
. "$(dirname "$0")/../lib.sh"
command -v Xvfb >/dev/null || skip "Xvfb is not installed (sh scripts/deps.sh ensure)"
glxinfo=$(command -v glxinfo) || skip "glxinfo is not installed (mesa-utils; sh scripts/deps.sh ensure)"
P="$HB_BUILD/tests/glxparse"

start_xvfb

DISPLAY=":$n" "$glxinfo" -B >"$T/glxinfo.txt" 2>&1 || fail "glxinfo -B failed: $(cat "$T/glxinfo.txt")"
"$P" "$T/glxinfo.txt" >"$T/keys" || fail "glxinfo -B output does not parse: $(cat "$T/glxinfo.txt")"
for k in gl_vendor gl_renderer gl_version gl_core_version mesa_version gl_direct; do
	[ -n "$(value "$k" "$T/keys")" ] || fail "no $k from: $(cat "$T/glxinfo.txt")"
done
# Xvfb draws with Mesa's software rasteriser
case "$(value gl_renderer "$T/keys")" in
llvmpipe* | softpipe*) ;;
*) fail "unexpected renderer on Xvfb: $(value gl_renderer "$T/keys")" ;;
esac
# the Mesa glxinfo names is the Mesa dpkg has installed (upstream part)
if v=$(dpkg-query -W -f='${Version}' libgl1-mesa-dri 2>/dev/null); then
	v=${v#*:}
	expect_eq "mesa_version against libgl1-mesa-dri" "${v%%-*}" "$(value mesa_version "$T/keys")"
fi

# the probe as the runner calls it: the same answer
DISPLAY=":$n" "$P" --probe "$glxinfo" 10 >"$T/probe" || fail "probe failed: $(cat "$T/probe")"
diff "$T/keys" "$T/probe" >&2 || fail "the probe and the parser disagree"

# no X server there: the probe says so and fails
rc=0
DISPLAY=":$((n + 1000))" "$P" --probe "$glxinfo" 10 >"$T/probe" || rc=$?
expect_eq "probe without a server" 1 "$rc"
case "$(value gl_probe "$T/probe")" in
"failed: exit "*"unable to open display"*) ;;
*) fail "gl_probe without a server: '$(value gl_probe "$T/probe")'" ;;
esac
exit 0
