#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job: trace a running program live with the ringtrace tool.
#
# A sample program (worker threads writing events of two systems, events
# from signal handlers, a few functions compiled with
# -finstrument-functions) starts untraced; ringtrace attaches to it,
# enables events, sets a filter (and shows a bad one with its caret),
# streams trace_pipe, mounts the program's tracing directory (FUSE) and
# reads trace_pipe there too, switches to function_graph, prints the per-CPU
# statistics, records a trace.dat, and reads it back with its own report
# and with trace-cmd.
#
# Usage: bash scripts/demo.sh [-s SECONDS per step] [--ringbuf [ringbuf-demo options]]
#   --ringbuf runs the ring buffer demo instead (writers, signal handlers
#   and a consumer on libringbuf alone; see its -h).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
ringtrace_install_deps trace-cmd
build=${BUILD_DIR:-$top/build/release}
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target ringtrace-tool sample_app \
	ringbuf-demo >/dev/null

if [ "${1:-}" = "--ringbuf" ]; then
	shift
	exec "$build/ringbuf/demo/ringbuf-demo" "$@"
fi
secs=2
if [ "${1:-}" = "-s" ] && [ -n "${2:-}" ]; then
	secs=$2
fi

rt=$build/tracer/tool/ringtrace
app=$build/tracer/demo/sample_app
work=$(mktemp -d /tmp/ringtrace-demo.XXXXXX)
export RINGTRACE_DIR=$work/run
mkdir -m 700 "$RINGTRACE_DIR"
pid=
cleanup() {
	if grep -q " $work/tracing " /proc/self/mountinfo 2>/dev/null; then
		"$build/tracer/tool/ringtrace" umount "$work/tracing" || true
	fi
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

bold=$(tput bold 2>/dev/null || true)
plain=$(tput sgr0 2>/dev/null || true)
say() { printf '\n%s# %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }
# run a streaming command for $secs seconds, showing its first lines
stream() {
	printf '%s$ %s%s   (for %ss, first %s lines)\n' "$bold" "${*:2}" \
		"$plain" "$secs" "$1"
	timeout -s INT "$secs" "${@:2}" >"$work/out" 2>"$work/err" || true
	head -n "$1" "$work/out"
	echo "... ($(wc -l <"$work/out") lines)"
	cat "$work/err" >&2
}

say "a program that links libringtrace, started without any tracing"
"$app" --threads 4 --seconds 600 --gap-ms 150 --timer-us 20000 \
	--counts "$work/counts" --ready "$work/ready" &
pid=$!
for _ in $(seq 100); do [ -e "$work/ready" ] && break; sleep 0.05; done
run "$rt" list

say "attach: enable two systems, a filter on one event"
run "$rt" enable "$pid" app:work app:tick io:request
run "$rt" filter "$pid" app:work 'worker == 0 || value < 100'
say "a filter with a typo: the caret points at it"
run "$rt" filter "$pid" app:work 'worker == 0 || valeu < 100' || true

say "trace_pipe, merged across the cpu buffers"
stream 25 "$rt" pipe "$pid"

say "the same trace as files: ringtrace mount (tracefs over FUSE)"
mnt=$work/tracing
mkdir "$mnt"
printf '%s$ %s%s\n' "$bold" "ringtrace mount $pid $mnt" "$plain"
if [ -c /dev/fuse ] && "$rt" mount "$pid" "$mnt" 2>"$work/err"; then
	run ls "$mnt"
	run cat "$mnt/set_event"
	printf '%s$ %s%s\n' "$bold" "echo 'worker == 1' > $mnt/events/app/work/filter" "$plain"
	echo 'worker == 1' >"$mnt/events/app/work/filter"
	printf '%s$ %s%s\n' "$bold" "echo 'wroker == 1' > $mnt/events/app/work/filter" "$plain"
	{ echo 'wroker == 1' >"$mnt/events/app/work/filter"; } 2>&1 || true
	run cat "$mnt/error_log"
	say "cat trace_pipe from the mount, next to ringtrace pipe: the same lines"
	stream 8 cat "$mnt/trace_pipe"
	stream 8 "$rt" pipe "$pid"
	run "$rt" umount "$mnt"
else
	echo "(skipped: FUSE cannot mount here: $(head -n 1 "$work/err"))"
fi

say "function_graph on the instrumented functions"
run "$rt" disable "$pid" app:work app:tick io:request
run "$rt" tracer "$pid" function_graph
stream 30 "$rt" pipe "$pid"
run "$rt" tracer "$pid" nop

say "per-cpu statistics (tracefs per_cpu/cpuN/stats)"
run "$rt" stat "$pid" >"$work/out"
head -n 10 "$work/out"

say "record a trace.dat while the program runs"
printf '%s$ %s%s\n' "$bold" "ringtrace record -o trace.dat -e app:* -e io:* -P $pid" "$plain"
timeout -s INT "$secs" "$rt" record -o "$work/trace.dat" -e 'app:*' -e 'io:*' \
	-P "$pid" || true
ls -l "$work/trace.dat"
say "read it back: ringtrace report"
run "$rt" report "$work/trace.dat" >"$work/out"
head -n 16 "$work/out"
if command -v trace-cmd >/dev/null; then
	say "and trace-cmd report, on the same file"
	printf '%s$ %s%s\n' "$bold" "trace-cmd report -i trace.dat" "$plain"
	trace-cmd report -i "$work/trace.dat" >"$work/out" 2>&1 || true
	head -n 12 "$work/out"
fi

say "the program exits cleanly: its files go with it"
kill -TERM "$pid"
wait "$pid" || true
pid=
run "$rt" list
echo
echo "demo done"
