#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# soak.sh [MINUTES] - the long mode of the security tests: for MINUTES
# (default 10) the hostile traced program (hostile.c) cycles through
# every one of its modes while the ringtrace tool reads it in a loop
# (show, stat, list, pipe, extract of what it leaves) and a ringtrace
# mount serves it (its trace, trace_pipe and events read in a loop).
#
# Not part of the regular suite: run it by hand, or register it with
# -DRINGBUF_SOAK=ON (ctest -L soak). Environment: RTT_TOOL and
# RTT_HOSTILE, the programs of the build to soak (an ASan build's to
# catch memory errors); RTT_SOAK_ROUND, the seconds each mode is read
# (default 3; 1 goes through every mode in about two minutes).
#
# Fails on: a verb or the mount daemon killed by a signal; a verb that
# does not end within 1 s of what it may take (6 s for the verbs that
# wait up to 5 s for an answer; 1 s after SIGINT for pipe, after
# SIGTERM for the daemon, after the end of a read for cat); a sanitizer
# report. As root the hostile program runs as uid 65534 and the readers
# as root, as a user's program is read by root (pipe, a consumer, as
# uid 65534). Prints one line per
# mode round, then a summary of the exit statuses seen.
set -u
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
H=${RTT_HOSTILE:?RTT_HOSTILE is not set}
MINUTES=${1:-10}
# seconds each mode is read (RTT_SOAK_ROUND, default 3)
R=${RTT_SOAK_ROUND:-3}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99:verify_asan_link_order=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=99"

MODES="none commit len typelen delta loop ids geom geomrace metaoff
metaoffrace counters random trunc trunc0 truncloop lockhold lockgarbage
replace ctl-syms ctl-events ctl-buf ctl-comm ctl-inst ctl-trunc
ctl-garbage ctl-cmdlines ctl-lock fake-syms fake-huge fake-esc fake-status
fake-mute events-garbage events-esc events-huge events-fifo syms-garbage"

W=$(mktemp -d /tmp/rtt-soak.XXXXXX)
chmod 755 "$W"
mkdir -m 700 "$W/pub"
mkdir -m 777 "$W/x" "$W/mnt"
mkfifo -m 666 "$W/x/fifo"
export RINGTRACE_DIR=$W/pub
AS=
if [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 \
	--clear-groups true 2>/dev/null; then
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chown 65534:65534 "$W/pub"
fi
MOUNT=0
[ -e /dev/fuse ] && command -v fusermount3 >/dev/null && MOUNT=1

BG=()
cleanup() {
	local p
	for p in "${BG[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	[ "$MOUNT" = 1 ] && umount -l "$W/mnt" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

FAILS=0
declare -A SEEN

bad() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

# check WHAT RC ERRFILE [TIMEOUT_STATUS]: judge one run (timeout's
# status: 124 after our signal ended it, 137 when it had to be killed)
check() {
	local what=$1 rc=$2 err=$3 ok=${4:-}
	SEEN["$what=$rc"]=$((${SEEN["$what=$rc"]:-0} + 1))
	if grep -Eq 'ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer|LeakSanitizer' "$err" 2>/dev/null; then
		bad "$what: a sanitizer report"
		head -30 "$err"
		return
	fi
	[ "$rc" = 99 ] && { bad "$what: a sanitizer report (exit 99)"; return; }
	[ "$rc" = 137 ] && { bad "$what: did not end in time (killed)"; return; }
	[ "$rc" = 124 ] && [ "$ok" = 124 ] && return
	[ "$rc" = 124 ] && { bad "$what: did not end in time"; return; }
	[ "$rc" -ge 128 ] && bad "$what: died of signal $((rc - 128))"
}

# verb NAME SECS CMD...: one bounded run in the foreground
verb() {
	local name=$1 secs=$2 rc
	shift 2
	timeout -s KILL "$secs" "$@" >/dev/null 2>"$W/err.$name"
	rc=$?
	check "$name" "$rc" "$W/err.$name"
}

deadline=$(($(date +%s) + MINUTES * 60))
round=0
while [ "$(date +%s)" -lt "$deadline" ]; do
	for m in $MODES; do
		[ "$(date +%s)" -lt "$deadline" ] || break
		round=$((round + 1))
		rm -f "$W/x/ready" "$W/x/go"
		$AS env RINGTRACE_DIR="$RINGTRACE_DIR" "$H" --ready "$W/x/ready" \
			--go "$W/x/go" --secs $((R + 5)) --keep-writing \
			--target "$W/x/fifo" "$m" >"$W/h.out" 2>"$W/h.err" &
		hp=$!
		BG+=("$hp")
		for i in $(seq 1 500); do
			[ -s "$W/x/ready" ] && break
			sleep 0.01
		done
		# readers attached before the attack: a streaming consumer
		# (pipe, ended with SIGINT; the program's user's, as root only
		# views another user's buffer) and the mount
		timeout -s INT -k 1 $((R + 1)) $AS "$T" pipe "$hp" >/dev/null \
			2>"$W/err.pipe" &
		pp=$!
		mp=
		if [ "$MOUNT" = 1 ]; then
			timeout -s TERM -k 1 $((R + 1)) "$T" mount -f "$hp" "$W/mnt" \
				>/dev/null 2>"$W/err.mount" &
			mp=$!
			sleep 0.2
		fi
		touch "$W/x/go"
		end=$(($(date +%s) + R))
		while [ "$(date +%s)" -lt "$end" ]; do
			verb show 6 "$T" show "$hp"
			verb stat 6 "$T" stat "$hp"
			verb list 6 "$T" list
			if [ -n "$mp" ]; then
				verb cat_trace 6 cat "$W/mnt/trace"
				verb cat_events 6 cat "$W/mnt/available_events"
				timeout -s INT -k 1 0.3 cat "$W/mnt/trace_pipe" \
					>/dev/null 2>"$W/err.cat_pipe"
				check cat_pipe $? "$W/err.cat_pipe" 124
			fi
		done
		wait "$pp"
		check pipe $? "$W/err.pipe" 124
		if [ -n "$mp" ]; then
			wait "$mp"
			check mount $? "$W/err.mount" 124
			umount -l "$W/mnt" 2>/dev/null
		fi
		# what it leaves when killed: extract
		kill -9 "$hp" 2>/dev/null
		wait "$hp" 2>/dev/null
		verb extract 6 "$T" extract -k -o "$W/x.dat" "$hp"
		rm -f "$W/x.dat" "$RINGTRACE_DIR/$hp"-*
		echo "round $round: $m ($FAILS failures so far)"
	done
done
echo "--- exit statuses (verb=status count)"
for k in "${!SEEN[@]}"; do
	echo "$k ${SEEN[$k]}"
done | sort
if [ "$FAILS" -gt 0 ]; then
	echo "FAIL: $FAILS failures in $round rounds"
	exit 1
fi
echo "PASS: $round rounds"
