#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# upstream.sh [CASE.tc|DIR...] - run the kernel's own ftracetest cases,
# unmodified, against "ringtrace mount" of the sample program.
#
# The cases come from the Linux source tarball Debian installs
# (linux-source-6.12): tools/testing/selftests/ftrace is extracted once
# into $RTT_UPSTREAM_CACHE/<package> and reused while the tarball is
# unchanged, by every test (and build) given the same cache: the first
# extracts, the others wait for it (a lock file beside it).
# Each case runs as ftracetest runs it (upstream_case.sh), in the mount
# and, for the cases flagged "instance", again in a new instance; the
# results are ftracetest's (PASS, FAIL, UNRESOLVED, UNTESTED,
# UNSUPPORTED, XFAIL). tests/tracefs/upstream_expected.txt lists what
# each case gives on this mount and why: the test fails when a case
# listed PASS does not pass, or a case fails that is not listed FAIL.
# A case listed NOTRUN is not run (it changes the machine, not the
# mount: CPU hotplug, modules); its reason is printed. A case listed
# RACY may pass or fail: what it checks depends on when a relayed event
# arrives (the reason says which), and either result is printed. A case
# listed PASS-SMP must pass on a machine of two cpus or more and be
# UNRESOLVED on one (where it says so itself).
#
# Environment (set by tests/tracefs/CMakeLists.txt):
#   RTT_TOOL, RTT_SAMPLE   the ringtrace program and the traced sample
#   RTT_UPSTREAM_CACHE     where the cases are extracted
#   RTT_LINUX_SOURCE       the tarball (default: Debian's linux-source-6.12)
#   RTT_UPSTREAM_EXPECTED  the expected results (default: upstream_expected.txt)
#   RTT_UPSTREAM_RETRY     set: a failing case runs once more (see run_case_retry)
#   RTT_FIXTURE_NEEDS      a word the traced program's ready file must hold
#                          (what it needs to write its events), else skip
#   RTT_UPSTREAM_KEEP      a directory: keep each case's log there
# Exit status: 0 as expected, 1 not, 77 skipped (no tarball, no FUSE).
set -u
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
S=${RTT_SAMPLE:?RTT_SAMPLE is not set}
CACHE=${RTT_UPSTREAM_CACHE:?RTT_UPSTREAM_CACHE is not set}
SRC=${RTT_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
PKG=$(basename "$SRC" .tar.xz)
HERE=$(cd "$(dirname "$0")" && pwd)
EXPECTED=${RTT_UPSTREAM_EXPECTED:-$HERE/upstream_expected.txt}
NAME=upstream
CASE_TIMEOUT=120

[ -r "$SRC" ] || { echo "SKIP ($NAME): no $SRC (Debian package $PKG)"; exit 77; }

# the cases, extracted once per tarball (a decompression of all of it:
# seconds of CPU), under the lock that the tests sharing the cache take
CACHE=$CACHE/$PKG
FT=$CACHE/ftrace
mkdir -p "$(dirname "$CACHE")"
exec 9>>"$CACHE.lock"
flock -w 600 9 || { echo "FAIL ($NAME): $CACHE.lock is held for 600 s"; exit 1; }
stamp="$(stat -c '%s %Y' "$SRC") $SRC"
if [ "$(cat "$CACHE/stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$FT/test.d" ]; then
	rm -rf "$CACHE"
	mkdir -p "$CACHE/x"
	tar -xJf "$SRC" -C "$CACHE/x" --wildcards '*/tools/testing/selftests/ftrace/*' ||
		{ echo "FAIL ($NAME): cannot extract the ftrace selftests from $SRC"; exit 1; }
	mv "$CACHE"/x/*/tools/testing/selftests/ftrace "$FT" &&
		rm -rf "$CACHE/x" && echo "$stamp" > "$CACHE/stamp" ||
		{ echo "FAIL ($NAME): no tools/testing/selftests/ftrace in $SRC"; exit 1; }
fi
exec 9>&-
TEST_DIR=$FT/test.d

defaults=false
if [ $# = 0 ]; then
	set -- 00basic event filter instances trigger
	defaults=true
fi
cases=()
for a in "$@"; do
	if [ -d "$TEST_DIR/$a" ]; then
		while read -r c; do cases+=("$c"); done < <(cd "$TEST_DIR" && find "$a" -name '*.tc' | sort)
	elif $defaults; then
		# the package's kernel may predate the directory (test.d/filter
		# is not in every 6.1 update)
		echo "note: test.d/$a is not in $(basename "$SRC"); its cases are not run"
	else
		cases+=("$a")
	fi
done

. "$HERE/mount_sample.sh"
# no markers of the sample's own: the cases count theirs
mount_sample --seconds 1800 --gap-ms 1 --burst 20 --no-markers
# a fixture that relays the kernel's events says how in its ready file
if [ -n "${RTT_FIXTURE_NEEDS:-}" ] && ! grep -qw "$RTT_FIXTURE_NEEDS" "$W/ready"; then
	skip "the traced program runs without $RTT_FIXTURE_NEEDS here ($(cat "$W/ready"))"
fi

LOGS=${RTT_UPSTREAM_KEEP:-$W/logs}
mkdir -p "$LOGS"
declare -A got

# The cases' yield() runs "ping 127.0.0.1 -c 1" so that the kernel has
# something to trace. Here the traced work is the sample's (a burst every
# millisecond): the stand-in gives it 50 ms to run, which a loaded machine
# (a sanitizer build, other tests) needs; without it the 1 ms sleep that
# follows can pass with nothing written.
mkdir -p "$W/bin"
printf '#!/bin/sh\nsleep 0.05\n' >"$W/bin/ping"
chmod +x "$W/bin/ping"

# run_case CASE WHERE: one run, its result in got[CASE WHERE]
run_case() {
	local c=$1 where=$2 dir=$MNT rc res log
	log=$LOGS/$(echo "$c$where" | tr '/@' '__').log
	if [ "$where" = "@instance" ]; then
		dir=$(mktemp -d "$MNT/instances/ftracetest.XXXXXX") || {
			got["$c$where"]="FAIL mkdir of an instance failed"
			return
		}
	fi
	rm -f "$W/result"
	mkdir -p "$W/tmp"
	(cd "$W/tmp" && PATH=$W/bin:$PATH TRACING_DIR=$dir TMPDIR=$W/tmp FTRACETEST_ROOT=$FT \
		timeout -k 5 $CASE_TIMEOUT sh "$HERE/upstream_case.sh" \
		"$TEST_DIR" "$TEST_DIR/$c" "$W/result") >"$log" 2>&1
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		res="FAIL timed out after ${CASE_TIMEOUT}s"
	elif [ $rc != 0 ]; then
		res="FAIL exit $rc: $(grep -v '^+' "$log" | tail -1)"
	elif [ -s "$W/result" ]; then
		res=$(cat "$W/result")
	else
		res=PASS
	fi
	[ "$where" = "@instance" ] && rmdir "$dir" 2>/dev/null
	got["$c$where"]=$res
}

# run_case_retry CASE WHERE: run_case, and with RTT_UPSTREAM_RETRY once
# more when it fails (a traced program that relays the kernel's events
# writes them a moment after they happen: a case that looks at once can
# miss one)
run_case_retry() {
	run_case "$1" "$2"
	case ${got["$1$2"]} in
	FAIL*) [ -n "${RTT_UPSTREAM_RETRY:-}" ] && run_case "$1" "$2" ;;
	esac
}

# notrun CASE: whether the expected list says not to run it
notrun() {
	awk -v k="$1" '$1 == "NOTRUN" && $2 == k { f = 1 } END { exit !f }' "$EXPECTED"
}

for c in "${cases[@]}"; do
	if notrun "$c"; then
		got["$c"]="NOTRUN"
		continue
	fi
	run_case_retry "$c" ""
done
# as ftracetest, the cases flagged "instance" once more in an instance
for c in "${cases[@]}"; do
	notrun "$c" && continue
	grep -q "^#[ \t]*flags:.*instance" "$TEST_DIR/$c" && run_case_retry "$c" @instance
done

# the results against the expected list
bad=0
declare -A n
for k in $(printf '%s\n' "${!got[@]}" | sort); do
	res=${got[$k]}
	r=${res%% *}
	n[$r]=$(( ${n[$r]:-0} + 1 ))
	want=$(awk -v k="$k" '$2 == k { print $1; exit }' "$EXPECTED")
	why=$(awk -v k="$k" '$2 == k { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$EXPECTED")
	# PASS-SMP: a case that needs two cpus, and says UNRESOLVED itself
	# on a machine of one
	strict=
	if [ "$want" = PASS-SMP ]; then
		want=PASS
		[ "$(nproc)" -gt 1 ] || { want=UNRESOLVED; strict=1; }
	fi
	printf '%-12s %-48s %s\n' "$r" "$k" "${why:-${res#"$r"}}"
	if [ "$want" = RACY ] && { [ "$r" = PASS ] || [ "$r" = FAIL ]; }; then
		continue
	fi
	if { [ "$want" != "$r" ] && { [ "$want" = PASS ] || [ -n "$strict" ]; }; } ||
	   { [ "$r" = FAIL ] && [ "$want" != FAIL ]; }; then
		echo "  ^ expected ${want:-(not listed)}: $res"
		sed 's/^/    | /' "$LOGS/$(echo "$k" | tr '/@' '__').log" | tail -25
		bad=1
	elif [ "$r" != "$want" ]; then
		echo "  ^ note: listed ${want:-(not listed)} in $(basename "$EXPECTED")"
	fi
done
echo "# of passed: ${n[PASS]:-0}, failed: ${n[FAIL]:-0}, unresolved: ${n[UNRESOLVED]:-0}, untested: ${n[UNTESTED]:-0}, unsupported: ${n[UNSUPPORTED]:-0}, xfailed: ${n[XFAIL]:-0}"
[ $bad = 0 ] && echo "PASS ($NAME): the results are the expected ones" ||
	echo "FAIL ($NAME): results differ from $(basename "$EXPECTED")"
exit $bad
