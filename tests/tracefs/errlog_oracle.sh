#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# errlog_oracle.sh - the kernel's tracefs as the oracle of error_log: each
# bad filter of errlog_filters.txt is written to signal:signal_generate's
# filter in an instance of the kernel's tracefs and in "ringtrace mount"
# of the fixture (hist_fixture, whose signal_generate has the kernel's
# fields), and the three lines error_log gains must be the same (the
# command, the error, the caret under the same character), but for the
# time stamp. A filter the kernel takes must be taken too. Needs root and
# the kernel's signal_generate event; skipped (77) otherwise.
# Environment: RTT_TOOL (ringtrace), RTT_SAMPLE (the fixture).
set -u
export LC_ALL=C
NAME=errlog_oracle
T=${RTT_TOOL:?RTT_TOOL is not set}
S=${RTT_SAMPLE:?RTT_SAMPLE is not set}
HERE=$(cd "$(dirname "$0")" && pwd)
LIST=$HERE/errlog_filters.txt
EV=events/signal/signal_generate

[ "$(id -u)" = 0 ] || { echo "SKIP ($NAME): the kernel's tracefs needs root"; exit 77; }
K=/sys/kernel/tracing
[ -e "$K/instances" ] || mount -t tracefs nodev "$K" 2>/dev/null
[ -d "$K/$EV" ] || { echo "SKIP ($NAME): no $EV in the kernel's tracefs"; exit 77; }
KI=$K/instances/rtt-errlog-$$
mkdir "$KI" 2>/dev/null || { echo "SKIP ($NAME): cannot make an instance of the kernel's tracefs"; exit 77; }

. "$HERE/mount_sample.sh"
trap 'rmdir "$KI" 2>/dev/null; cleanup' EXIT
mount_sample --seconds 600 --gap-ms 100 --burst 1 --no-markers
[ -d "$MNT/$EV" ] || { echo "FAIL ($NAME): no $EV in the mount"; exit 1; }

# the lines error_log gained from writing $1 to the filter of tracefs $2,
# time stamps cut; and whether the write was taken
try() {
	local f=$1 fs=$2 rc
	echo >"$fs/error_log"
	printf '%s' "$f" >"$fs/$EV/filter" 2>/dev/null
	rc=$?
	echo "write: $([ $rc = 0 ] && echo taken || echo refused)"
	sed 's/^\[[ 0-9.]*\] //' "$fs/error_log"
	echo 0 >"$fs/$EV/filter" 2>/dev/null
}

n=0 bad=0
while IFS= read -r f; do
	case $f in '#'*|'') continue ;; esac
	n=$((n + 1))
	try "$f" "$KI" >"$W/k"
	try "$f" "$MNT" >"$W/r"
	if ! cmp -s "$W/k" "$W/r"; then
		bad=$((bad + 1))
		echo "--- [$f]: the kernel's (-), ringtrace's (+)"
		diff "$W/k" "$W/r" | grep '^[<>]' | sed 's/^</-/; s/^>/+/'
	fi
done <"$LIST"
[ "$n" -ge 20 ] || { echo "FAIL ($NAME): $n filters read from $LIST"; exit 1; }
if [ "$bad" != 0 ]; then
	echo "FAIL ($NAME): $bad of $n filters differ"
	exit 1
fi
echo "PASS ($NAME): $n filters, error_log as the kernel's"
