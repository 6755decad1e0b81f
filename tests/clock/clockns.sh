#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# clockns.sh SECONDS COMMAND...: run COMMAND in a time namespace whose
# CLOCK_MONOTONIC and CLOCK_BOOTTIME read about SECONDS when it starts,
# whatever the machine's uptime. The kernel prints time stamps as
# "%5lu.%06lu": below 10 000 s the seconds are padded, above 99 999 s
# they are wider than the field. Running the printing tests at both
# ends covers both on every machine, freshly booted or not.
#
# Needs a kernel with time namespaces and either root or unprivileged
# user namespaces; otherwise it exits 77 (ctest: skipped) and says why.
set -eu
want=${1:?usage: clockns.sh SECONDS COMMAND...}
shift
[ $# -gt 0 ] || { echo "usage: clockns.sh SECONDS COMMAND..." >&2; exit 2; }
if [ ! -e /proc/self/ns/time ]; then
	echo "clockns.sh: skipped: this kernel has no time namespaces" >&2
	exit 77
fi
# Offsets count from the machine's own clock, not from an enclosing
# namespace's: take the enclosing offset out of what /proc/uptime shows.
up=$(cut -d. -f1 /proc/uptime)
outer=0
if [ -r /proc/self/timens_offsets ]; then
	outer=$(awk '$1 == "boottime" { print $2 }' /proc/self/timens_offsets)
fi
off=$((want - (up - ${outer:-0})))
if [ "$(id -u)" -eq 0 ]; then
	ns="unshare --time --fork --monotonic=$off --boottime=$off"
else
	ns="unshare --user --map-root-user --time --fork --monotonic=$off --boottime=$off"
fi
# the namespace must exist and read what was asked, or the run would
# prove nothing
if ! got=$($ns cut -d. -f1 /proc/uptime 2>/dev/null); then
	echo "clockns.sh: skipped: cannot make a time namespace here ($ns)" >&2
	exit 77
fi
if [ "$got" -lt $((want - 60)) ] || [ "$got" -gt $((want + 60)) ]; then
	echo "clockns.sh: the namespace's clock reads $got s, not $want s" >&2
	exit 1
fi
exec $ns "$@"
