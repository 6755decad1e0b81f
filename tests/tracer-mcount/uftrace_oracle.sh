#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# uftrace_oracle.sh RINGTRACE LIBRINGTRACE PROGRAM [--oracle PROGRAM2]
#	[UFTRACE-OPTION...] - the function_graph call tree ringtrace
# records of PROGRAM (built -pg -mfentry -mrecord-mcount or
# -fpatchable-function-entry=5, libringtrace preloaded) must be uftrace's
# recording of the same binary, call for call (uftrace --no-libcall;
# "-P ." for the patchable build); with --oracle, uftrace records
# PROGRAM2, the same source built for it (-mnop-mcount code has no call
# for uftrace to hook).
# Exit status: 0 the same, 1 not, 77 skipped (no uftrace).
set -u
export LC_ALL=C
T=$1 LIB=$2 PROG=$3 ORACLE=$3
shift 3
if [ "${1:-}" = --oracle ]; then
	ORACLE=$2
	shift 2
fi
command -v uftrace > /dev/null || { echo "SKIP: no uftrace"; exit 77; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# "DEPTH:text" from the text after the bar, the depth from its indentation
tree() {
	awk '{ match($0, /^ */); printf "%d:%s\n", RLENGTH / 2, substr($0, RLENGTH + 1) }'
}

uftrace record --no-libcall --no-event --no-sched "$@" -d "$W/uftrace.data" "$ORACLE" > "$W/u.out" 2>&1 ||
	{ echo "SKIP: uftrace cannot record here"; cat "$W/u.out"; exit 77; }
# (a line left empty is an event's comment: none are recorded, but be sure)
uftrace replay -d "$W/uftrace.data" | sed '1d; s/^[^|]*| //; s/ *\/\*.*\*\/$//; /^ *$/d' |
	tree > "$W/uftrace.tree"
"$T" record -q --preload="$LIB" -p function_graph -o "$W/rt.dat" -- "$PROG" > "$W/r.out" 2>&1 ||
	{ echo "FAIL: ringtrace record"; cat "$W/r.out"; exit 1; }
"$T" report "$W/rt.dat" | grep -v '^#' | sed 's/^[^|]*|  //' | tree > "$W/ringtrace.tree"
[ -s "$W/uftrace.tree" ] || { echo "FAIL: uftrace recorded nothing"; exit 1; }
if ! diff -u "$W/uftrace.tree" "$W/ringtrace.tree"; then
	echo "FAIL: the call trees differ (- uftrace, + ringtrace)"
	exit 1
fi
echo "PASS: $(wc -l < "$W/ringtrace.tree") lines, the same tree"
