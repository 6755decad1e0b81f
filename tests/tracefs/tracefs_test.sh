#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tracefs_test.sh CASE.tc - run one tracefs case against "ringtrace
# mount" of the sample program, as ftracetest runs a case against
# tracefs: the case runs under "sh -e" in the mounted directory, after
# functions.sh; its "# requires:" files must exist in the mount, else
# it is unsupported (skipped).
#
# Environment (set by tests/tracefs/CMakeLists.txt):
#   RTT_TOOL     the ringtrace program
#   RTT_SAMPLE   the traced sample program
#
# The case sees: MNT (the mount), WORK (a scratch directory), SAMPLE_PID,
# RTT_TOOL, and the helpers of functions.sh. Exit status: 0 pass, 1
# fail, 77 skipped (the reason is printed).
set -u
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
S=${RTT_SAMPLE:?RTT_SAMPLE is not set}
CASE=${1:?usage: tracefs_test.sh CASE.tc}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=$(basename "$CASE" .tc)

. "$HERE/mount_sample.sh"
# the sample outlives the case: its --seconds, a guard against a sample
# left behind, are more than the case's ctest timeout (60 s, stretched by
# RB_TIMEOUT_MULT; a case on a slow machine took 200 s of the TSan build's
# 240, and its sample, given 200, ended under it); it is killed at the end
mount_sample --seconds $((150 * ${RB_TIMEOUT_MULT:-1})) --gap-ms 20

# requires: FILE... (relative to the mount)
req=$(sed -n 's/^# requires: *//p' "$CASE" | head -1)
for f in $req; do
	[ -e "$MNT/$f" ] || skip "UNSUPPORTED: requires $f"
done

export MNT WORK="$W" SAMPLE_PID="$SP" RTT_TOOL="$T"
(cd "$MNT" && sh -e -c ". '$HERE/functions.sh'; . '$CASE'")
rc=$?
if [ $rc = 0 ]; then
	echo "PASS ($NAME): $(sed -n 's/^# description: *//p' "$CASE")"
elif [ $rc = 77 ]; then
	exit 77
else
	echo "FAIL ($NAME): exit $rc" >&2
	exit 1
fi
