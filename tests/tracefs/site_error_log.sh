#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# site_error_log.sh - a call site that cannot be patched is reported in
# the top error_log of the mount, in the kernel's three lines, and left
# alone: func_fixture's kf_short() (built -fpatchable-function-entry=3,
# three NOPs: too short for a call), reported when the library scans
# the program at start-up. Read before anything clears the log (the
# tracefs cases start by clearing it, so this is not one of them).
#
# Environment: RTT_TOOL, RTT_SAMPLE (func_fixture). Exit status: 0 pass,
# 1 fail, 77 skipped (no FUSE).
set -u
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
S=${RTT_SAMPLE:?RTT_SAMPLE is not set}
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=site_error_log

. "$HERE/mount_sample.sh"
mount_sample

fail() {
	echo "FAIL ($NAME): $*"
	echo "error_log:"
	cat "$MNT/error_log"
	exit 1
}

log=$(cat "$MNT/error_log")
printf '%s\n' "$log" | grep -Eq '^\[ *[0-9]+\.[0-9]{6}\] ftrace: error: Cannot patch the call site: the function is too short' ||
	fail "no error line for kf_short"
printf '%s\n' "$log" | grep -Eq '^  Command: kf_short\+0x0/0x[0-9a-f]+ \(0x[0-9a-f]+\) \[the program\]$' ||
	fail "no command line naming kf_short"
printf '%s\n' "$log" | grep -Eq '^           \^$' || fail "no caret line"
# an instance's error_log has none of the process's
mkdir "$MNT/instances/site_err" || fail "mkdir of an instance"
[ ! -s "$MNT/instances/site_err/error_log" ] ||
	fail "an instance shows the process's site errors"
rmdir "$MNT/instances/site_err"
# the function tracer on it: the site stays alone, the rest is patched
echo 'kf_short schedule' > "$MNT/set_ftrace_filter" || fail "set_ftrace_filter"
echo function > "$MNT/current_tracer" || fail "current_tracer"
grep -q '^schedule ' "$MNT/enabled_functions" || fail "schedule was not patched"
! grep -q kf_short "$MNT/enabled_functions" || fail "kf_short was patched"
echo nop > "$MNT/current_tracer"
# '>' clears it
echo > "$MNT/error_log"
[ ! -s "$MNT/error_log" ] || fail "error_log was not cleared"
echo "PASS ($NAME): the site left alone is in error_log, as the kernel's lines"
