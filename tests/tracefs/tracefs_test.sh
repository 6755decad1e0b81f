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

skip() {
	echo "SKIP ($NAME): $*"
	exit 77
}

[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not usable here"
if [ "$(id -u)" != 0 ] && ! command -v fusermount3 >/dev/null; then
	skip "no fusermount3"
fi
"$T" mount --help >/dev/null 2>&1 || skip "ringtrace has no mount verb"

W=$(mktemp -d /tmp/rtt-tracefs.XXXXXX)
export RINGTRACE_DIR=$W/pub
MNT=$W/mnt
mkdir "$MNT"
SP=

cleanup() {
	[ -n "$SP" ] && kill -9 "$SP" 2>/dev/null
	wait 2>/dev/null
	if grep -q " $MNT " /proc/self/mountinfo 2>/dev/null; then
		"$T" umount "$MNT" 2>/dev/null
	fi
	rm -rf "$W"
}
trap cleanup EXIT

"$S" --ready "$W/ready" --seconds 50 --gap-ms 20 >"$W/sample.out" \
	2>"$W/sample.err" &
SP=$!
for i in $(seq 1 500); do
	[ -s "$W/ready" ] && break
	kill -0 "$SP" 2>/dev/null || { cat "$W/sample.err"; echo "FAIL ($NAME): the sample exited early"; exit 1; }
	sleep 0.01
done
[ -s "$W/ready" ] || { echo "FAIL ($NAME): the sample did not start"; exit 1; }

"$T" mount "$SP" "$MNT" 2>"$W/mount.err"
rc=$?
case $rc in
0) ;;
1|4) cat "$W/mount.err"; skip "mounting is not permitted here (rc $rc)" ;;
*) cat "$W/mount.err"; echo "FAIL ($NAME): mount exited with $rc"; exit 1 ;;
esac

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
