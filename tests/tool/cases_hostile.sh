# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): a traced program that turns
# against the tool (tests/security/hostile.c, its --usr1 form). Whatever it
# does to its buffer file under a reader, every verb ends: with one line
# and exit 5 when the file went bad, at Ctrl-C or SIGTERM when it holds
# the readers' lock; the mount daemon keeps serving.

H=${RTT_HOSTILE:-}

# start_hostile MODE...: start the hostile program; sets HP
start_hostile() {
	local i
	[ -n "$H" ] || skip "RTT_HOSTILE is not set"
	rm -f "$W/hready"
	"$H" --ready "$W/hready" --usr1 --secs 600 "$@" \
		>"$W/hostile.out" 2>"$W/hostile.err" &
	HP=$!
	PIDS+=("$HP")
	for i in $(seq 1 500); do
		[ -s "$W/hready" ] && return 0
		kill -0 "$HP" 2>/dev/null || fail "the hostile program exited early: $(cat "$W/hostile.err")"
		sleep 0.01
	done
	fail "the hostile program did not start"
}

# hostile_next MODE: make it apply its next mode, MODE
hostile_next() {
	local i
	kill -USR1 "$HP"
	for i in $(seq 1 500); do
		grep -qx "attacked $1" "$W/hostile.out" && return 0
		sleep 0.01
	done
	fail "the hostile program did not apply $1: $(cat "$W/hostile.err")"
}

# end_within PID: it ends by itself, not wedged (within 30 s, times the
# sanitizer builds' factor: what is checked is that it ends, a loaded
# machine may take seconds); its status in RC
end_within() {
	local i n=$((3000 * ${RB_TIMEOUT_MULT:-1}))
	for i in $(seq 1 "$n"); do
		ended "$1" && break
		sleep 0.01
	done
	ended "$1" || fail "process $1 did not end within $((n / 100)) s"
	wait "$1"
	RC=$?
}

# bg_pipe: a pipe of the hostile program in the background (PP), its
# output in $W/pipe.out and .err; with "lines", until it printed one
bg_pipe() {
	local i
	"$T" pipe "$HP" >"$W/pipe.out" 2>"$W/pipe.err" &
	PP=$!
	PIDS+=("$PP")
	[ "${1:-}" = lines ] || return 0
	for i in $(seq 1 500); do
		grep -q "of a hostile writer" "$W/pipe.out" && return 0
		sleep 0.01
	done
	fail "pipe printed no line: $(cat "$W/pipe.err")"
}

one_line() {
	[ "$(wc -l <"$1")" = 1 ] || fail "not one line in $1: $(cat "$1")"
}

hostile_trunc_case() {
	start_hostile "$1"
	bg_pipe lines
	hostile_next "$1"
	end_within "$PP"
	[ "$RC" = 5 ] || fail "pipe exited with $RC, expected 5: $(cat "$W/pipe.err")"
	grep -qx "ringtrace: corrupt buffer of process $HP: its file was truncated while it was read" "$W/pipe.err" ||
		fail "pipe said: $(cat "$W/pipe.err")"
	one_line "$W/pipe.err"
	run 5 "$T" show "$HP"
	err_has "^ringtrace: corrupt buffer file "
	one_line "$W/err"
	run 5 "$T" stat "$HP"
	err_has "^ringtrace: corrupt buffer file "
	one_line "$W/err"
}

case_hostile_trunc() {
	hostile_trunc_case trunc
}

case_hostile_trunc0() {
	hostile_trunc_case trunc0
}

case_hostile_lockhold() {
	local sig
	start_hostile lockhold
	hostile_next lockhold
	for sig in INT TERM; do
		bg_pipe
		sleep 0.3
		kill -"$sig" "$PP"
		end_within "$PP"
		[ "$RC" = 0 ] || fail "pipe exited with $RC after SIG$sig: $(cat "$W/pipe.err")"
	done
	# looking needs no lock
	run 0 "$T" show "$HP"
	out_has "of a hostile writer"
	run 0 "$T" stat "$HP"
	out_has "^entries: "
	"$T" record -q -o "$W/x.dat" -P "$HP" >"$W/rec.out" 2>"$W/rec.err" &
	PP=$!
	PIDS+=("$PP")
	sleep 0.3
	kill -INT "$PP"
	end_within "$PP"
	# recording (0), or still setting the process up: the wait for its
	# answer is interrupted (1, one line saying so)
	[ "$RC" = 0 ] || { [ "$RC" = 1 ] &&
		grep -qx "ringtrace: process $HP: interrupted while waiting for .*" "$W/rec.err"; } ||
		fail "record exited with $RC: $(cat "$W/rec.err")"
}

case_hostile_lockgarbage() {
	start_hostile lockgarbage
	hostile_next lockgarbage
	bg_pipe lines
	kill -INT "$PP"
	end_within "$PP"
	[ "$RC" = 0 ] || fail "pipe exited with $RC: $(cat "$W/pipe.err")"
}

case_hostile_metaoff() {
	start_hostile metaoff
	bg_pipe lines
	hostile_next metaoff
	sleep 0.3
	kill -0 "$PP" 2>/dev/null && ! ended "$PP" ||
		fail "pipe ended: $(cat "$W/pipe.err")"
	kill -INT "$PP"
	end_within "$PP"
	[ "$RC" = 0 ] || fail "pipe exited with $RC: $(cat "$W/pipe.err")"
	# a new reader refuses the header, in one line
	run 5 "$T" show "$HP"
	err_has "^ringtrace: corrupt buffer file "
	one_line "$W/err"
}

case_hostile_mount() {
	local mp i
	[ -c /dev/fuse ] && [ -r /dev/fuse ] && [ -w /dev/fuse ] ||
		skip "/dev/fuse is not usable here"
	if [ "$(id -u)" != 0 ] && ! command -v fusermount3 >/dev/null; then
		skip "no fusermount3"
	fi
	start_hostile lockhold trunc
	mkdir "$W/mnt"
	"$T" mount -f "$HP" "$W/mnt" 2>"$W/mount.err" &
	mp=$!
	PIDS+=("$mp")
	for i in $(seq 1 500); do
		grep -q " $W/mnt " /proc/self/mountinfo && break
		ended "$mp" && skip "mounting is not permitted here: $(cat "$W/mount.err")"
		sleep 0.01
	done
	MOUNTED=$W/mnt
	timeout -k 5 2 cat "$W/mnt/trace_pipe" >"$W/cat.out" 2>/dev/null
	grep -q "of a hostile writer" "$W/cat.out" || fail "trace_pipe gave no line"
	# a held lock: the read is interrupted
	hostile_next lockhold
	timeout -k 5 -s INT 0.5 cat "$W/mnt/trace_pipe" >/dev/null 2>&1
	RC=$?
	[ "$RC" = 124 ] || fail "cat trace_pipe ended with $RC, expected 124 (interrupted)"
	! ended "$mp" || fail "the mount daemon died: $(cat "$W/mount.err")"
	# a truncated file: the read fails, the daemon lives on
	hostile_next trunc
	timeout -k 5 5 cat "$W/mnt/trace_pipe" >/dev/null 2>"$W/cat.err"
	RC=$?
	[ "$RC" = 1 ] || fail "cat trace_pipe ended with $RC, expected 1"
	grep -q "Input/output error" "$W/cat.err" || fail "cat: $(cat "$W/cat.err")"
	! ended "$mp" || fail "the mount daemon died: $(cat "$W/mount.err")"
	cat "$W/mnt/tracing_on" >/dev/null || fail "the mount stopped serving"
}
