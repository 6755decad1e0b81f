#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# exit_wake.sh RINGTRACE LIBRINGTRACE PROGRAM - a thread asleep inside a
# traced call when the process ends (mc_exitwake.c): recorded by
# function_graph, the program ends as untraced (status 0: its wait is
# not interrupted), and
#   sleep: the call's entry, held back, is in the trace once;
#   wake:  the thread, woken inside the exit handler between its take of
#          the entry and its second look, writes the exit alone, and no
#          entry of the call follows (the exit handler saw it run).
# Exit status: 0 pass, 1 fail.
set -u
export LC_ALL=C
T=$1 LIB=$2 PROG=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
status=0
fail() { echo "FAIL ($mode): $*"; cat "$W/$mode.err"; status=1; }
for mode in sleep wake; do
	"$T" record -q --preload="$LIB" -p function_graph -o "$W/$mode.dat" \
		-- "$PROG" "$mode" >/dev/null 2>"$W/$mode.err" ||
		{ fail "the run"; continue; }
	if grep -q "exited with status\|terminated by signal" "$W/$mode.err"; then
		fail "the traced program did not end as untraced"
		continue
	fi
	"$T" report "$W/$mode.dat" >"$W/$mode.txt" 2>>"$W/$mode.err" ||
		{ fail "report"; continue; }
	entries=$(grep -c 'mc_xw_wait() {\|mc_xw_wait();' "$W/$mode.txt")
	exits=$(grep -c '} /\* mc_xw_wait \*/' "$W/$mode.txt")
	case $mode in
	sleep)
		[ "$entries" = 1 ] && [ "$exits" = 0 ] ||
			fail "mc_xw_wait: $entries entries, $exits exits (1 and 0 wanted)" ;;
	wake)
		grep -q "woke the worker inside the exit (returned 1)" "$W/$mode.err" ||
			{ fail "the worker was not woken inside the exit"; continue; }
		[ "$entries" = 0 ] && [ "$exits" = 1 ] ||
			fail "mc_xw_wait: $entries entries, $exits exits (0 and 1 wanted: no entry after its exit)" ;;
	esac
done
[ $status = 0 ] && echo "PASS: sleep: the entry written once; wake: no entry after the exit"
exit $status
