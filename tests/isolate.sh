#!/bin/sh
# Process 1 of a test's own PID namespace (tests/run.sh starts it with
# unshare --pid --fork --mount-proc): the namespace gets a private
# /dev/shm (the runner's staging directories), then the test runs as its
# child, with SIGTERM and SIGINT passed on to it (process 1 of a namespace
# gets no signal it has not asked for). When the test ends this ends, and
# the kernel kills whatever the test left in the namespace.
#
# What it guarantees: a watcher the test starts reads a /proc that holds
# the test's own processes and nothing else, so no other test's game,
# login or stranger can ever be counted as interference in its run, and
# none of its own can be counted in another's.
#
#   sh tests/isolate.sh CMD [ARG...]
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm ||
	{ echo "isolate.sh: cannot mount a private /dev/shm" >&2; exit 1; }
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM
trap 'kill -INT "$child" 2>/dev/null' INT
wait "$child"
rc=$?
# a wait a trapped signal cut short is waited again, until the test is gone
while kill -0 "$child" 2>/dev/null; do
	wait "$child"
	rc=$?
done
exit "$rc"
