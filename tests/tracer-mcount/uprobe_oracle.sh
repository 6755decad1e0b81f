#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# uprobe_oracle.sh RINGTRACE LIBRINGTRACE PROGRAM UPROBE_COUNTS - the
# calls ringtrace's function_graph recording of PROGRAM (mc_oracle.cc,
# built -pg -mfentry -mrecord-mcount or -fpatchable-function-entry=5,
# libringtrace preloaded) holds must be the calls the kernel's uprobes
# count in the same run (UPROBE_COUNTS: bench/real/uprobe-counts.sh, a
# probe past each function's profiling site), function by function: in
# `report --stat` and in the call tree `report` prints. The program
# leaves traced frames by longjmp(), a C++ exception, pthread_exit() and
# a cancellation, calls traced functions from a signal handler, and ends
# with two threads inside traced calls, whose entries must be there, one
# of them in a poll() that must not be interrupted.
# Where uprobes cannot be used (not root, no perf or objdump, no uprobe
# events, a perf that cannot place one) the two are checked against each
# other alone, and said so.
# Exit status: 0 the same, 1 not.
set -u
export LC_ALL=C
T=$1 LIB=$2 PROG=$3 COUNTS=$4
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
why=
tr=/sys/kernel/tracing
if [ "$(id -u)" != 0 ]; then
	why="uprobes need root"
elif ! command -v perf >/dev/null || ! command -v objdump >/dev/null; then
	why="no perf or objdump"
else
	[ -e "$tr/uprobe_events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
	if [ ! -w "$tr/uprobe_events" ]; then
		why="no uprobe events"
	elif ! perf probe -q -x "$PROG" -a "rtck$$:main=main" >/dev/null 2>&1; then
		why="perf cannot place a uprobe here"
	else
		perf probe -q -d "rtck$$:*" >/dev/null 2>&1
	fi
fi
if [ -z "$why" ]; then
	"$COUNTS" "$PROG" "$T" record -q --preload="$LIB" -p function_graph \
		-o "$W/o.dat" -- "$PROG" >"$W/kernel" 2>"$W/run.err" ||
		{ echo "FAIL: the run"; cat "$W/run.err"; exit 1; }
	if grep -q "left out" "$W/run.err"; then
		echo "FAIL: a function took no uprobe"
		cat "$W/run.err"
		exit 1
	fi
	[ "$(wc -l <"$W/kernel")" -ge 10 ] ||
		{ echo "FAIL: uprobes counted $(wc -l <"$W/kernel") functions"; cat "$W/kernel"; exit 1; }
else
	"$T" record -q --preload="$LIB" -p function_graph -o "$W/o.dat" \
		-- "$PROG" >/dev/null 2>"$W/run.err" ||
		{ echo "FAIL: the run"; cat "$W/run.err"; exit 1; }
fi
grep -q '; 0 lost$' "$W/run.err" ||
	{ echo "FAIL: events lost"; cat "$W/run.err"; exit 1; }
# the program ends as it does untraced (the exit's writes of other
# threads' entries interrupt no wait of theirs: mc_o_park)
if grep -q "exited with status\|terminated by signal" "$W/run.err"; then
	echo "FAIL: the traced program did not end as untraced"
	cat "$W/run.err"
	exit 1
fi
# the summary's Calls column
"$T" report --stat "$W/o.dat" 2>"$W/err" |
	awk '$NF ~ /^[A-Za-z_]/ && $5 ~ /^[0-9]+$/ { print $NF, $5 }' |
	sort >"$W/stat" || { echo "FAIL: report --stat"; cat "$W/err"; exit 1; }
# the call tree's entries ("f() {" and "f();" of calltree.awk, beside
# UPROBE_COUNTS), counted as compare.sh counts them
"$T" report "$W/o.dat" 2>"$W/err" |
	awk -f "$(dirname "$COUNTS")/calltree.awk" |
	awk '/[;{]$/ { n = $2; sub(/[(].*/, "", n); c[n]++ }
		END { for (f in c) print f, c[f] }' | sort >"$W/tree" ||
	{ echo "FAIL: report"; cat "$W/err"; exit 1; }
status=0
# the calls other threads are inside when the process ends (written at
# its exit, for the sleeping one, at its request for the running one):
# there, whatever the kernel can count
for f in mc_o_park mc_o_spin; do
	grep -q "^$f 1\$" "$W/tree" ||
		{ echo "FAIL: $f, inside its call at the exit, is not in the call tree once"; status=1; }
done
[ $status = 0 ] || exit 1
if [ -n "$why" ]; then
	if ! diff -u "$W/tree" "$W/stat"; then
		echo "FAIL: report --stat's calls differ from the call tree's (- tree, + --stat)"
		exit 1
	fi
	echo "PASS: $(wc -l <"$W/tree") functions, the same calls in report --stat and in the call tree (no kernel count: $why)"
	exit 0
fi
for v in stat tree; do
	if ! diff -u "$W/kernel" "$W/$v" >"$W/diff"; then
		echo "FAIL: report's calls ($v) differ from the kernel's count (- uprobes, + ringtrace)"
		cat "$W/diff"
		status=1
	fi
done
[ $status = 0 ] &&
	echo "PASS: $(wc -l <"$W/kernel") functions, $(awk '{ s += $2 } END { print s }' "$W/kernel") calls, the same in report --stat and in the call tree"
exit $status
