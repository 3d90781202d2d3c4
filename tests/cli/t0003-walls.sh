#!/bin/sh
# cpu: heavy, about 40 s (parts of the tree built again, once per crossing)
# quick: no (a build of the tree: make check runs it)
# The layers are walled by the build (docs/layout.md): in a copy of the
# tree, each kind of crossing is tried on purpose and must fail, by name,
# where the Makefile says it does: an include across a wall at compile
# time, a call across one at link time. The same targets build without the
# intruder first, so a failure is the wall's and not something else's.
# Inside bench/, the runner's machinery (every room but cmd/) calls no
# command code and prints nothing: a call to the commands' database,
# their usage error or the message module fails the link of
# walls/runner.so; so does a call to the message module from the analysis.
. "$(dirname "$0")/../lib.sh"
plain_build_only
command -v make >/dev/null || skip "make is not installed"
S=$T/src
mkdir -p "$S"
cd "$HB_SRCDIR"
cp -R Makefile common analysis bench harness scripts "$S/"
cd "$S"
build() {
	make -s -j1 B=b CFLAGS=-O0 "$@" >"$T/log" 2>&1
}

build b/hitchbench-sampler b/hitchbench-hook.so b/walls/common.so b/walls/analysis.so b/walls/runner.so ||
	{ cat "$T/log"; fail "the copy does not build without an intruder"; }

# refused NAME TARGET PATTERN: building TARGET fails, saying PATTERN
refused() {
	if build "$2"; then fail "$1: $2 built"; fi
	grep -q "$3" "$T/log" || { cat "$T/log"; fail "$1: the build failed, but not with '$3'"; }
	rm -f harness/sampler-wall.c analysis/run/wall.c common/base/wall.c bench/runner/wall.c
}

# An include across a wall: the helpers and the analysis do not see bench/.
echo '#include "switch/switch.h"' >harness/sampler-wall.c
refused "harness includes bench" b/harness/sampler-wall.o "switch/switch.h: No such file"
echo '#include "recipe/recipe.h"' >analysis/run/wall.c
refused "analysis includes bench" b/analysis/run/wall.o "recipe/recipe.h: No such file"
echo '#include "metrics/metrics.h"' >common/base/wall.c
refused "common includes analysis" b/common/base/wall.o "metrics/metrics.h: No such file"

# A call across a wall, declared by hand so that it compiles.
call() {
	printf 'int %s(void);\nint wall_probe(void);\nint wall_probe(void) { return %s(); }\n' "$1" "$1"
}
call switch_ctx_setenv >harness/sampler-wall.c
refused "a helper calls the runner" b/hitchbench-sampler "undefined reference to .switch_ctx_setenv"
call recipe_load >analysis/run/wall.c
refused "analysis calls the runner" b/walls/analysis.so "undefined reference to .recipe_load"
call metrics_compute >common/base/wall.c
refused "common calls the analysis" b/walls/common.so "undefined reference to .metrics_compute"

# The runner's machinery calls no command, and library code prints nothing.
call cmd_db_open >bench/runner/wall.c
refused "the runner calls a command's database" b/walls/runner.so "undefined reference to .cmd_db_open"
call usage_error >bench/runner/wall.c
refused "the runner says a usage error" b/walls/runner.so "undefined reference to .usage_error"
call error_msg >bench/runner/wall.c
refused "the runner prints a message" b/walls/runner.so "undefined reference to .error_msg"
call warn_msg >analysis/run/wall.c
refused "the analysis prints a message" b/walls/analysis.so "undefined reference to .warn_msg"
build b/walls/runner.so b/hitchbench || { cat "$T/log"; fail "the runner does not build again"; }

# The hook calls nothing of ours: one call into common/ added to it fails.
cp harness/framehook-record.c "$T/framehook-record.c"
call mono_ns >>harness/framehook-record.c
refused "the hook calls common" b/hitchbench-hook.so "undefined reference to .mono_ns"
cp "$T/framehook-record.c" harness/framehook-record.c
build b/hitchbench-hook.so || { cat "$T/log"; fail "the hook does not build again"; }
exit 0
