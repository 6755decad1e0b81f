#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tool_test.sh CASE - the ringtrace tool end to end, one case per run.
#
# Environment (set by tests/tool/CMakeLists.txt):
#   RTT_TOOL       the ringtrace program
#   RTT_SAMPLE     the traced sample program (sample_app.c)
#   RTT_TRACE_CMD  trace-cmd, or empty when it is not installed
#   RTT_SRC        the source tree (the docs case reads the man page)
#
# Each case runs in its own directory with its own publish directory
# (RINGTRACE_DIR), kills what it started and removes what it made. Exit
# status: 0 pass, 1 fail, 77 skipped (the reason is printed).
set -u
# the patterns below are written for the C locale's character classes and sort
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
S=${RTT_SAMPLE:?RTT_SAMPLE is not set}
C=${RTT_CALLS:-}
CB=${RTT_CALLS_BARE:-}
# asan or tsan in a sanitizer build
SAN=${RTT_SANITIZE:-}
# a preloaded library of an ASan build comes before the ASan runtime the
# program links (which ASan refuses by default)
[ "$SAN" = asan ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
TRACE_CMD=${RTT_TRACE_CMD:-}
CASE=${1:?usage: tool_test.sh CASE}

W=$(mktemp -d /tmp/rtt-tool.XXXXXX)
chmod 755 "$W"
export RINGTRACE_DIR=$W/pub
PIDS=()
MOUNTED=

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$MOUNTED" ] && umount "$MOUNTED" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

fail() {
	echo "FAIL ($CASE): $*" >&2
	exit 1
}

skip() {
	echo "SKIP ($CASE): $*"
	exit 77
}

# run EXPECTED_RC CMD...: run CMD, output in $W/out and $W/err
run() {
	local want=$1 rc
	shift
	"$@" >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout" >&2
		head -20 "$W/out" >&2
		echo "--- stderr" >&2
		head -20 "$W/err" >&2
		fail "'$*' exited with $rc, expected $want"
	fi
}

# err_has REGEX: the last run's stderr matches
err_has() {
	grep -Eq -- "$1" "$W/err" || {
		cat "$W/err" >&2
		fail "stderr does not match '$1'"
	}
}

out_has() {
	grep -Eq -- "$1" "$W/out" || {
		head -30 "$W/out" >&2
		fail "stdout does not match '$1'"
	}
}

# start_sample [ENV=VAL...] -- ARGS...: start the sample in the
# background, wait until it published its trace; sets SP
start_sample() {
	local envs=() i
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	rm -f "$W/ready"
	env "${envs[@]}" "$S" --ready "$W/ready" "$@" >"$W/sample.out" \
		2>"$W/sample.err" &
	SP=$!
	PIDS+=("$SP")
	# (at most 20 s, stretched by RB_TIMEOUT_MULT: a guard)
	for i in $(seq 1 $((2000 * ${RB_TIMEOUT_MULT:-1}))); do
		[ -s "$W/ready" ] && return 0
		kill -0 "$SP" 2>/dev/null || fail "the sample exited early"
		sleep 0.01 # the poll interval
	done
	fail "the sample did not write $W/ready (its trace published)"
}

sample_done() {
	kill -0 "$SP" 2>/dev/null ||
		fail "the sample exited before it said it was done"
	[ -s "$W/done" ]
}

# start_done [ENV=VAL...] -- ARGS...: start_sample with --done: the
# sample writes its bursts (ARGS say how many: --bursts), then says it
# is done and waits to be stopped; returns once it said so (its trace
# complete, no write in flight)
start_done() {
	rm -f "$W/done"
	start_sample "$@" --done "$W/done"
	eventually "the sample did not finish its bursts (no $W/done)" \
		sample_done
}

# pipe_until FILE WHAT CHECK ARGS...: "ringtrace pipe ARGS" (of the
# sample, started to run until it is stopped) into FILE (its messages in
# FILE.err) until CHECK (a command) holds; then the sample is stopped and
# the pipe must end by itself, having read what was left. Fails saying
# WHAT if CHECK does not hold within eventually's bound.
pipe_until() {
	local out=$1 what=$2 check=$3 pp
	shift 3
	"$T" pipe "$@" >"$out" 2>"$out.err" &
	pp=$!
	PIDS+=("$pp")
	PIPE_PID=$pp
	eventually "$what" pipe_check "$check" "$out"
	kill -TERM "$SP"
	wait "$pp" || fail "pipe $* exited with $?: $(cat "$out.err")"
}

pipe_check() {
	kill -0 "$PIPE_PID" 2>/dev/null ||
		fail "pipe ended early: $(cat "$2.err")"
	"$1"
}

# ended PID: the process is gone or a zombie. A zombie has exited: a
# command whose recorder was killed is init's child, reaped when init
# gets to it (a second or more later on some machines), its exit (its
# files removed) done long before
ended() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$st" ] || [ "$st" = Z ]
}

# wait_exit PID: wait until the process exited (at most 20 s, stretched
# by RB_TIMEOUT_MULT: a guard)
wait_exit() {
	local i
	for i in $(seq 1 $((2000 * ${RB_TIMEOUT_MULT:-1}))); do
		ended "$1" && return 0
		sleep 0.01 # the poll interval
	done
	fail "process $1 did not exit"
}

# eventually WHAT CMD...: runs CMD (a check that exits 0 once what the
# case waits for holds) every 50 ms; fails saying WHAT when it has not
# held after 20 s (stretched by RB_TIMEOUT_MULT). A case waits for a
# state this way, never for a fixed time.
eventually() {
	local what=$1 i n=$((400 * ${RB_TIMEOUT_MULT:-1}))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	fail "$what"
}

# count FILE EVENT: the sample's count of EVENT (system:event)
count() {
	awk -v e="$2" '$1 == e { print $2 }' "$1"
}

# lines FILE NAME: records of event NAME in a text trace
lines() {
	grep -c -- " $2: " "$1"
}

# stamps_ok FILE: every context line's time stamp keeps the kernel's
# "%5lu.%06lu" rule after its separator (one space after the flags
# columns, two after the cpu when they are off): the seconds right
# aligned in five columns, wider only when they need it. The clock
# namespace runs of these cases cover both widths.
stamps_ok() {
	awk '
	BEGIN { c = "[.a-zA-Z0-9]"; fl = c c c c c " "; u = "[0-9]"
		re = "\\] (" fl ")? *[0-9]+\\." u u u u u u ": " }
	match($0, re) {
		f = substr($0, RSTART + 2, RLENGTH - 2)
		sep = 1
		if (f ~ ("^" fl)) {
			f = substr(f, 7)
			sep = 0
		}
		d = f; sub(/^ */, "", d); sub(/\..*/, "", d)
		pad = length(f) - length(d) - 9
		w = length(d) < 5 ? 5 : length(d)
		if (pad - sep + length(d) != w) {
			print "bad time stamp width: " $0
			bad = 1
		}
		n++
	}
	END { if (!n) print "no time stamp"; exit bad || !n }' "$1" >&2 ||
		fail "time stamps in $1 break the %5lu.%06lu rule"
}

unused_pid() {
	local p=4194000
	while kill -0 $p 2>/dev/null; do
		p=$((p - 1))
	done
	echo $p
}

# ---------------------------------------------------------------- cases

case_usage() {
	run 2 "$T"
	err_has "usage: ringtrace VERB"
	run 2 "$T" bogus
	err_has "^ringtrace: unknown verb 'bogus'"
	run 0 "$T" --help
	out_has "^  pipe "
	out_has "Exit status"
	run 0 "$T" --version
	out_has "^ringtrace "
	for v in list pipe stream show enable disable filter on off clear \
		buffer-size snapshot options tracer clock record report \
		extract stat; do
		run 0 "$T" "$v" --help
		out_has "^usage: ringtrace "
	done
	run 0 "$T" help record
	out_has "^usage: ringtrace record"
	run 2 "$T" pipe --bogus 1
	err_has "^ringtrace: pipe: unknown option '--bogus'"
	run 2 "$T" pipe -x 1
	err_has "unknown option '-x'"
	run 2 "$T" pipe
	err_has "missing the process id"
	run 2 "$T" pipe --cpu
	err_has "option '--cpu' needs an argument"
	run 2 "$T" pipe abc
	err_has "^ringtrace: 'abc' is not a process id"
	run 2 "$T" pipe --cpu x 1
	err_has "bad cpu 'x'"
	run 2 "$T" record -o x.dat
	err_has "nothing to record"
	run 2 "$T" record -P 1 -- true
	err_has "not both"
	run 2 "$T" report
	err_has "missing the trace.dat file"
	run 2 "$T" report --format=xml x.dat
	err_has "unknown format 'xml'"
	run 2 "$T" buffer-size
	err_has "missing the process id"
}

case_bad_pid() {
	local p
	p=$(unused_pid)
	for v in pipe show stat; do
		run 3 "$T" "$v" "$p"
		err_has "^ringtrace: no such process: $p$"
	done
	run 3 "$T" enable "$p" app:work
	err_has "no such process: $p"
	run 3 "$T" record -o "$W/x.dat" -P "$p"
	err_has "no such process: $p"
	run 3 "$T" extract "$p"
	err_has "no such process: $p"
}

case_not_traced() {
	sleep 100 &
	local sp=$! i
	PIDS+=("$sp")
	for i in $(seq 1 100); do
		[ "$(cat /proc/$sp/comm 2>/dev/null)" = sleep ] && break
		sleep 0.01
	done
	run 3 "$T" pipe "$sp"
	err_has "^ringtrace: process $sp \(sleep\) is not traced"
	run 3 "$T" enable "$sp" app:work
	err_has "is not traced"
	run 3 "$T" show "$sp"
	err_has "is not traced"
	# a program that never publishes: record gives up when it exits
	run 3 "$T" record -q -o "$W/x.dat" -- true
	err_has "exited before publishing its trace"
	run 2 "$T" record -q -o "$W/x.dat" -- "$W/no-such-program"
	err_has "cannot run '$W/no-such-program'"
}

case_unknown_event() {
	start_sample -- --threads 1 --seconds 20 --gap-ms 20
	run 2 "$T" enable "$SP" app:work nosuch:event
	err_has "unknown event 'nosuch:event' in process $SP"
	run 2 "$T" disable "$SP" nosuch
	err_has "unknown event 'nosuch'"
	run 2 "$T" filter "$SP" nosuch:event 'x == 1'
	err_has "unknown event 'nosuch:event' in process $SP"
	run 2 "$T" pipe -e app:nosuch "$SP"
	err_has "app:nosuch"
	run 2 "$T" pipe -f 'nosuch x == 1' "$SP"
	err_has "unknown event 'nosuch'"
	run 2 "$T" tracer "$SP" bogus
	err_has "unknown tracer 'bogus'"
	run 2 "$T" clock "$SP" bogus
	err_has "unknown clock 'bogus'"
	run 2 "$T" options "$SP" bogus
	err_has "unknown option 'bogus'"
	run 2 "$T" show -i nosuch "$SP"
	err_has "has no instance 'nosuch'"
	run 2 "$T" pipe --cpu 999 "$SP"
	err_has "bad cpu 999"
}

# record -O: the options go into the file; report shows them in its
# header and prints as the process would; trace-cmd reads the file
case_record_options() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -q -o "$W/o.dat" -p function -O sym-offset \
		-O noprint-parent -- "$C" -t 1 -d 3 20
	run 0 "$T" report "$W/o.dat"
	out_has "^# tracer: function$"
	out_has "^# options: sym-offset noprint-parent$"
	out_has ": calls_[a-z]+\+0x[0-9a-f]+/0x[0-9a-f]+$"
	! grep -q ' <-' "$W/out" || fail "noprint-parent: parents printed"
	run 0 "$T" record -q -o "$W/n.dat" -p function -- "$C" -t 1 -d 3 20
	run 0 "$T" report "$W/n.dat"
	! grep -q '^# options:' "$W/out" || fail "options of a recording without -O"
	out_has ": calls_[a-z]+ <-"
	if [ -n "$TRACE_CMD" ]; then
		"$TRACE_CMD" report "$W/o.dat" >"$W/tc.txt" 2>"$W/tc.err" ||
			fail "trace-cmd report failed: $(cat "$W/tc.err")"
		[ ! -s "$W/tc.err" ] || fail "trace-cmd says: $(cat "$W/tc.err")"
	fi
}

# a process speaking another control protocol version (proto.h): every
# verb that sends a command says so and exits 3, and nothing is sent
case_protocol() {
	start_sample -- --threads 1 --seconds 20 --gap-ms 20
	local ctl
	ctl=$(echo "$RINGTRACE_DIR/$SP"-*.ctl)
	[ -f "$ctl" ] || fail "no control file for the sample"
	run 0 "$T" enable "$SP" app:work
	# the version field (after magic, version, size, pid, uid)
	printf '\x63\x00\x00\x00' | dd of="$ctl" bs=1 seek=20 conv=notrunc 2>/dev/null
	run 3 "$T" enable "$SP" app:work
	err_has "^ringtrace: process $SP: it speaks control protocol version 99; this tool speaks version [0-9]+$"
	run 3 "$T" tracer "$SP" function
	err_has "control protocol version 99"
	# nor does mount take it
	mkdir "$W/mnt"
	run 3 "$T" mount "$SP" "$W/mnt"
	err_has "process $SP: it speaks control protocol version 99"
	# list sends none it cannot do without
	run 0 "$T" list
	out_has "^$SP +sample_app "
}

case_bad_filter() {
	start_sample -- --threads 1 --seconds 20 --gap-ms 20
	run 2 "$T" filter "$SP" app:work 'worker == 1 && bogus == 2'
	err_has "^ringtrace: bad filter for app:work:"
	err_has "^worker == 1 && bogus == 2$"
	# (the kernel's place: one past the unknown name, past the value's
	# start for a missing value)
	err_has "^                     \^$"
	err_has "^parse_error: Field not found$"
	run 2 "$T" filter "$SP" app:work 'worker == '
	err_has "^           \^$"
	run 2 "$T" pipe -f 'app:work (worker == 1' "$SP"
	err_has "^ringtrace: bad filter for app:work:"
	err_has "^\(worker == 1$"
	err_has "^\^$"
	run 2 "$T" pipe -f 'app:work' "$SP"
	err_has "expected 'SYS:EVENT EXPR'"
	# a good one is accepted, and "0" clears it
	run 0 "$T" filter "$SP" app:work worker == 0
	run 0 "$T" filter "$SP" app:work 0
	# up to the 65536 bytes a filter takes, through the control file;
	# one more is refused, saying so
	local long
	long=$(awk 'BEGIN { e = "worker == 1"
		while (length(e) + 15 <= 65536) e = e " || worker == 2"
		while (length(e) < 65536) e = e " "
		printf "%s", e }')
	[ "${#long}" = 65536 ] || fail "the long expression is ${#long} bytes"
	run 0 "$T" filter "$SP" app:work "$long"
	run 0 "$T" filter "$SP" app:work
	out_has "^worker == 1 \|\| worker == 2 "
	run 2 "$T" filter "$SP" app:work "$long "
	err_has "^ringtrace: filter for app:work: the expression is 65537 bytes, longer than the 65536 a filter takes$"
	run 0 "$T" filter "$SP" app:work 0
}

case_no_permission() {
	[ "$(id -u)" = 0 ] || skip "needs root to run the tool as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$nobody true 2>/dev/null || skip "cannot switch to uid 65534"
	# a build tree under a private home (/root is 0700): run a copy of
	# the tool and of the project's libraries it loads from there
	if ! $nobody test -x "$T"; then
		mkdir "$W/nb"
		cp "$T" "$W/nb/"
		ldd "$T" | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
			case $l in
			/lib/* | /lib64/* | /usr/*) ;;
			*) cp "$l" "$W/nb/" ;;
			esac
		done
		# ThreadSanitizer reads its suppressions from the source tree
		local supp topts=
		supp=$(printf '%s' "${TSAN_OPTIONS:-}" |
			sed -n 's/.*suppressions=\([^:]*\).*/\1/p')
		if [ -n "$supp" ] && [ -f "$supp" ]; then
			cp "$supp" "$W/nb/tsan.supp"
			topts=TSAN_OPTIONS=$(printf '%s' "$TSAN_OPTIONS" |
				sed "s|suppressions=[^:]*|suppressions=$W/nb/tsan.supp|")
		fi
		chmod -R a+rX "$W/nb"
		nobody="$nobody env LD_LIBRARY_PATH=$W/nb $topts"
		T=$W/nb/$(basename "$T")
		$nobody test -x "$T" || skip "uid 65534 cannot run a copy of the tool"
	fi
	start_sample -- --threads 1 --seconds 20 --gap-ms 20
	# the publish directory is 0700: nobody else may look into it
	run 4 $nobody env RINGTRACE_DIR="$RINGTRACE_DIR" "$T" pipe "$SP"
	err_has "^ringtrace: permission denied: process $SP \(sample_app\) is another user's$"
	run 4 $nobody env RINGTRACE_DIR="$RINGTRACE_DIR" "$T" list
	err_has "permission denied|cannot read|refused"
	# an opened directory, a control file it may not read
	chmod 755 "$RINGTRACE_DIR"
	chmod 000 "$RINGTRACE_DIR/$SP"-*.ctl
	run 4 $nobody env RINGTRACE_DIR="$RINGTRACE_DIR" "$T" enable "$SP" app:work
	err_has "^ringtrace: permission denied: process $SP \(sample_app\) is another user's$"
	run 4 $nobody env RINGTRACE_DIR="$RINGTRACE_DIR" "$T" stat "$SP"
	err_has "permission denied"
	chmod 600 "$RINGTRACE_DIR/$SP"-*.ctl
	chmod 700 "$RINGTRACE_DIR"
	# a trace.dat it may not read
	run 0 "$T" record -q -o "$W/p.dat" -e app:work -- "$S" --threads 1 \
		--bursts 2 --burst 10 --gap-ms 30
	chmod 600 "$W/p.dat"
	run 4 $nobody "$T" report "$W/p.dat"
	err_has "^ringtrace: permission denied: $W/p.dat$"
}

# leave the files of a killed sample in $RINGTRACE_DIR, its records in
# them; sets DEAD
make_leftovers() {
	start_done RINGTRACE_EVENTS=app:work,io:request -- --threads 2 \
		--bursts 3 --burst 50 --gap-ms 5
	kill -9 "$SP"
	wait "$SP" 2>/dev/null
	DEAD=$SP
}

case_corrupt_ctl() {
	make_leftovers
	local ctl
	ctl=$(echo "$RINGTRACE_DIR/$DEAD"-*.ctl)
	[ -f "$ctl" ] || fail "no control file left by the killed sample"
	run 0 "$T" list
	out_has "^$DEAD +sample_app +dead "
	mkdir "$W/copy"
	cp "$RINGTRACE_DIR"/* "$W/copy/"
	local copy=$W/copy/${ctl##*/}
	# truncated
	truncate -s 1000 "$copy"
	run 5 "$T" extract -o "$W/x.dat" "$copy"
	err_has "^ringtrace: corrupt control file $copy: 1000 bytes, expected [0-9]+ \(truncated\?\)"
	# bad magic
	cp "$ctl" "$copy"
	printf '\xff\xff' | dd of="$copy" bs=1 seek=0 conv=notrunc 2>/dev/null
	run 5 "$T" extract -o "$W/x.dat" "$copy"
	err_has "^ringtrace: corrupt control file $copy: bad magic"
	# bad size field
	cp "$ctl" "$copy"
	printf '\x01' | dd of="$copy" bs=1 seek=8 conv=notrunc 2>/dev/null
	run 5 "$T" extract -o "$W/x.dat" "$copy"
	err_has "corrupt control file $copy: its layout is"
	# the same through the publish directory: list warns and goes on
	printf '\xff\xff' | dd of="$ctl" bs=1 seek=0 conv=notrunc 2>/dev/null
	run 0 "$T" list
	out_has "^$DEAD +\? +corrupt"
	err_has "bad magic"
	run 5 "$T" stat "$DEAD"
	err_has "bad magic"
	# not a published file at all
	run 2 "$T" extract -o "$W/x.dat" "$W/sample.out"
	err_has "is not a file a traced process publishes"
}

case_truncated_buf() {
	make_leftovers
	local buf
	buf=$(echo "$RINGTRACE_DIR/$DEAD"-*.top.*.buf)
	[ -f "$buf" ] || fail "no buffer file left by the killed sample"
	cp "$buf" "$W/saved.buf"
	truncate -s 8192 "$buf"
	run 5 "$T" extract -o "$W/x.dat" "$DEAD"
	err_has "^ringtrace: corrupt buffer file $buf"
	[ -e "$buf" ] || fail "a failed extract removed the files"
	run 5 "$T" stat "$DEAD"
	err_has "corrupt buffer file"
	# bytes flipped in the header
	cp "$W/saved.buf" "$buf"
	printf '\x55\xaa\x55\xaa' | dd of="$buf" bs=1 seek=0 conv=notrunc \
		2>/dev/null
	run 5 "$T" extract -o "$W/x.dat" "$DEAD"
	err_has "corrupt buffer file"
	# a truncated events file
	cp "$W/saved.buf" "$buf"
	local ev
	ev=$(echo "$RINGTRACE_DIR/$DEAD"-*.events)
	truncate -s 300 "$ev"
	run 5 "$T" extract -o "$W/x.dat" "$DEAD"
	err_has "malformed events file|truncated"
}

case_list_and_events() {
	start_sample RINGTRACE_EVENTS=app:work -- --threads 2 --seconds 20 \
		--gap-ms 20
	run 0 "$T" list
	out_has "^PID +NAME +STATE +BUFFERS +EVENTS +LOST$"
	out_has "^$SP +sample_app +running +top +1 +0$"
	run 0 "$T" list -e "$SP"
	out_has "^app:work$"
	out_has "^io:request$"
	out_has "^ftrace:function$"
	! grep -q "field:" "$W/out" || fail "list -e printed formats"
	run 0 "$T" list -f "$SP"
	out_has "^sample_fn_"
	run 0 "$T" list -e "$SP" --formats
	out_has "^app:work$"
	out_has "field:int worker;"
	out_has "field:__data_loc char\[\] path;"
	out_has "print fmt: \"worker=%d seq=%llu value=%ld\""
	run 0 "$T" enable "$SP" io
	run 0 "$T" list
	out_has "^$SP +sample_app +running +top +3 "
	kill -9 "$SP"
	wait "$SP" 2>/dev/null
	run 0 "$T" list
	out_has "^$SP +sample_app +dead +top +- +[0-9]+ \*$"
	run 0 "$T" list -e "$SP"
	out_has "^app:big$"
}

# control_entries: the sample's entries summed over its buffers
control_entries() {
	"$T" stat "$SP" 2>/dev/null |
		awk '$1 == "entries:" { s += $2 } END { print s + 0 }'
}

control_cleared() {
	"$T" clear "$SP" >/dev/null 2>&1 && [ "$(control_entries)" = 0 ]
}

control_has_entries() {
	[ "$(control_entries)" -gt 0 ]
}

control_graph_leaf() {
	"$T" show "$SP" >"$W/out" 2>"$W/err" && grep -q 'sample_fn_leaf();' "$W/out"
}

case_control() {
	start_sample -- --threads 2 --seconds 25 --gap-ms 10
	run 0 "$T" enable "$SP" app:work io:request
	run 0 "$T" options "$SP"
	out_has "^print-parent$"
	out_has "^noverbose$"
	run 0 "$T" options "$SP" noprint-parent verbose
	run 0 "$T" options "$SP"
	out_has "^noprint-parent$"
	out_has "^verbose$"
	run 0 "$T" options "$SP" noverbose
	run 0 "$T" off "$SP"
	# a writer that was inside its event when 'off' came may still
	# commit it: clear until nothing is left, then nothing may come
	eventually "entries are left after off and clear" control_cleared
	run 0 "$T" on "$SP"
	eventually "no entries after on" control_has_entries
	run 0 "$T" buffer-size "$SP" 64
	run 2 "$T" buffer-size "$SP" lots
	err_has "bad size 'lots'"
	run 0 "$T" clock "$SP" mono_raw
	run 0 "$T" tracer "$SP" function_graph
	eventually "function_graph shows no sample_fn_leaf();" control_graph_leaf
	grep -q "^# tracer: function_graph" "$W/out" ||
		fail "show's header does not name the current tracer (the process answers 'tracer INST' without a name with it)"
	run 0 "$T" tracer "$SP" nop
	run 0 "$T" disable "$SP" app:work io:request
	run 0 "$T" list
	out_has "^$SP +sample_app +running +top +0 "
}

# Everything the sample emits is read by pipe or reported lost.
case_pipe_counts() {
	start_sample RINGTRACE_EVENTS=app:work,app:big,app:tick,io:request,io:done \
		-- --threads 3 --seconds 2.5 --burst 100 --gap-ms 5 \
		--timer-us 2000 --counts "$W/counts"
	"$T" pipe --stats "$SP" >"$W/pipe.txt" 2>"$W/pipe.err"
	local rc=$?
	[ $rc = 0 ] || { cat "$W/pipe.err" >&2; fail "pipe exited with $rc"; }
	wait_exit "$SP"
	grep -q "^ringtrace: process $SP exited$" "$W/pipe.err" ||
		fail "pipe did not say the process exited"
	local read lost
	read=$(sed -n 's/^ringtrace: \([0-9]*\) events read, \([0-9]*\) lost.*/\1/p' "$W/pipe.err")
	lost=$(sed -n 's/^ringtrace: \([0-9]*\) events read, \([0-9]*\) lost.*/\2/p' "$W/pipe.err")
	[ -n "$read" ] || fail "no summary line: $(cat "$W/pipe.err")"
	local total=0 e n c
	for e in app:work app:big app:tick io:request io:done; do
		n=$(lines "$W/pipe.txt" "${e#*:}")
		c=$(count "$W/counts" "$e")
		[ "$c" -gt 0 ] || fail "the sample emitted no $e"
		total=$((total + c))
		if [ "$lost" = 0 ] && [ "$n" != "$c" ]; then
			fail "$e: emitted $c, pipe printed $n, none lost"
		fi
		[ "$n" -le "$c" ] || fail "$e: printed $n of $c"
	done
	n=$(grep -c "tracing_mark_write: marker" "$W/pipe.txt")
	c=$(count "$W/counts" ftrace:print)
	total=$((total + c))
	[ "$lost" != 0 ] || [ "$n" = "$c" ] || fail "markers: $c written, $n printed"
	[ $((read + lost)) = "$total" ] ||
		fail "emitted $total, read $read + lost $lost"
	# every work record once
	n=$(grep -o ' work: worker=[0-9]* seq=[0-9]*' "$W/pipe.txt" |
		sed 's/.*seq=//' | sort -n | uniq | wc -l)
	[ "$lost" != 0 ] || [ "$n" = "$(count "$W/counts" app:work)" ] ||
		fail "work records repeated or missing: $n distinct"
	# signal-handler records carry the hardirq flag
	grep -q '\[[0-9]*\] \.\.h\.\.  *[0-9.]*: tick: seq=' "$W/pipe.txt" ||
		fail "no tick record marked h"
	grep -q '^ *worker-[0-2]-[0-9]* *\[[0-9]*\] \.\.\.\.\.  *[0-9]*\.[0-9]\{6\}: big: seq=[0-9]* text=a record longer than 112 bytes' \
		"$W/pipe.txt" || fail "no big record in the trace_pipe format"
	stamps_ok "$W/pipe.txt"
}

filtered_seen() {
	grep -q ' work: worker=1 ' "$W/pipe.txt" &&
		grep -q ' request: seq=[0-9]* fd=5 ' "$W/pipe.txt"
}

cpu0_seen() {
	grep -q ' work: ' "$W/pipe0.txt"
}

case_pipe_filter() {
	# filters before events: no record escapes them (the sample runs
	# until the pipe printed what the case looks for, however long the
	# attach takes; --seconds only a guard)
	start_sample -- --threads 3 --seconds $((60 * ${RB_TIMEOUT_MULT:-1})) \
		--burst 50 --gap-ms 5
	pipe_until "$W/pipe.txt" \
		"pipe printed no work record of worker 1 and no request with fd 5" \
		filtered_seen -f 'app:work worker == 1' -f 'io fd == 5' \
		-e app:work -e io "$SP"
	local n
	n=$(grep -c ' work: worker=1 ' "$W/pipe.txt")
	[ "$n" -gt 0 ] || fail "no work record of worker 1"
	! grep -q ' work: worker=[02] ' "$W/pipe.txt" ||
		fail "the filter let other workers through"
	grep -q ' request: seq=[0-9]* fd=5 ' "$W/pipe.txt" ||
		fail "no request with fd 5"
	! grep -Eq ' (request|done): seq=[0-9]* fd=[^5] ' "$W/pipe.txt" ||
		fail "the subsystem filter let other fds through"
	# one cpu buffer (--pin: worker 0 runs on the first cpu, so cpu
	# buffer 0 gets records however the scheduler is loaded)
	start_sample RINGTRACE_EVENTS=app:work -- --threads 3 \
		--seconds $((60 * ${RB_TIMEOUT_MULT:-1})) --burst 50 --gap-ms 5 --pin
	pipe_until "$W/pipe0.txt" "pipe --cpu 0 printed nothing" cpu0_seen \
		--cpu 0 "$SP"
	! grep -q '^ *[^ ]*-[0-9]* *\[00[1-9]\]' "$W/pipe0.txt" ||
		fail "pipe --cpu 0 printed other cpus"
}

noirq_seen() {
	grep -q '^ *worker-0-[0-9]* *\[[0-9]\{3\}\]  *[0-9]*\.[0-9]\{6\}: work: ' \
		"$W/pipe.txt"
}

raw_seen() {
	grep -q ' request: seq=[0-9]* fd=[0-9]* path=/data/' "$W/raw.txt"
}

case_pipe_options() {
	# (each sample runs until the pipe printed what the case looks
	# for; --seconds only a guard)
	start_sample RINGTRACE_EVENTS=app:work -- --threads 1 \
		--seconds $((60 * ${RB_TIMEOUT_MULT:-1})) --burst 20 --gap-ms 10
	pipe_until "$W/pipe.txt" \
		"noirq-info did not drop the flags column (no such work record)" \
		noirq_seen -O noirq-info -O sym-offset "$SP"
	stamps_ok "$W/pipe.txt"
	start_sample -- --threads 1 --seconds $((60 * ${RB_TIMEOUT_MULT:-1})) \
		--burst 20 --gap-ms 10
	run 2 "$T" pipe -O nosuch "$SP"
	err_has "unknown option 'nosuch'"
	pipe_until "$W/raw.txt" "--raw did not print the fields" raw_seen \
		-r -e io:request "$SP"
}

case_show_and_stat() {
	# the sample's bursts written, it waits: show and stat see a trace
	# no write changes
	start_done RINGTRACE_EVENTS=app:work,io:request -- --threads 2 \
		--bursts 4 --burst 50 --gap-ms 20
	run 0 "$T" off "$SP"
	run 0 "$T" show "$SP"
	out_has "^# tracer: nop$"
	out_has "^# entries-in-buffer/entries-written: [0-9]+/[0-9]+ +#P:[0-9]+$"
	out_has "^#           TASK-PID     CPU#  \|\|\|\|\|  TIMESTAMP  FUNCTION$"
	out_has " work: worker=[01] seq="
	cp "$W/out" "$W/show1"
	run 0 "$T" show "$SP"
	cmp -s "$W/out" "$W/show1" || fail "show consumed the records"
	local n e
	n=$(grep -vc '^#' "$W/show1")
	run 0 "$T" stat "$SP"
	out_has "^cpu0:$"
	# the spares after the CPUs, named as such
	out_has "^spare0:$"
	! grep -q "^cpu$(getconf _NPROCESSORS_CONF):" "$W/out" ||
		fail "stat shows a spare as a CPU"
	out_has "^oldest event ts: +[0-9]+\.[0-9]{6}$"
	out_has "^now ts: +[0-9]+\.[0-9]{6}$"
	out_has "^dropped events: [0-9]+$"
	e=$(awk '$1 == "entries:" { s += $2 } END { print s }' "$W/out")
	[ "$e" = "$n" ] || fail "stat counts $e entries, show printed $n"
	# show and stat work on a dead process's files
	kill -9 "$SP"
	wait "$SP" 2>/dev/null
	run 0 "$T" show "$SP"
	out_has " work: worker=[01] seq="
	run 0 "$T" stat "$SP"
	out_has "^entries: "
}

case_snapshot() {
	start_done RINGTRACE_EVENTS=app:work -- --threads 1 --bursts 3 \
		--burst 20 --gap-ms 20
	run 0 "$T" snapshot "$SP"
	out_has "^# tracer: nop"
	out_has " work: worker=0 seq="
	run 0 "$T" show --snapshot "$SP"
	out_has " work: worker=0 seq="
	run 0 "$T" snapshot --clear "$SP"
	run 0 "$T" show --snapshot "$SP"
	! grep -q " work: " "$W/out" || fail "the snapshot was not cleared"
	run 0 "$T" snapshot --free "$SP"
	run 2 "$T" show --snapshot "$SP"
	err_has "has no snapshot buffer"
}

# record a running process, stop with SIGINT, report
case_record_report() {
	start_sample RINGTRACE_EVENTS=app:work -- --threads 2 --seconds 20 \
		--burst 50 --gap-ms 10
	"$T" record -o "$W/r.dat" -P "$SP" -e io:request -e app:big \
		>"$W/rec.out" 2>"$W/rec.err" &
	local rp=$! i
	PIDS+=("$rp")
	# until the first progress line (a second into the recording; how
	# long the attach takes depends on the machine), at most 60 s
	for i in $(seq 1 600); do
		grep -q "^ringtrace: [0-9.]* events/s, [0-9.]* MB written, [0-9]* events lost" \
			"$W/rec.err" && break
		kill -0 "$rp" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$rp"
	wait "$rp" || fail "record exited with $?: $(cat "$W/rec.err")"
	grep -q "^ringtrace: [0-9.]* events/s, [0-9.]* MB written, [0-9]* events lost" \
		"$W/rec.err" || fail "no progress line: $(cat "$W/rec.err")"
	grep -q "^ringtrace: [0-9]* events recorded in $W/r.dat" "$W/rec.err" ||
		fail "no summary line"
	# the events record enabled are switched off again
	run 0 "$T" list
	out_has "^$SP +sample_app +running +top +1 "
	run 0 "$T" report "$W/r.dat"
	out_has "^# tracer: nop$"
	out_has "^ *worker-[01]-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: work: worker=[01] seq=[0-9]+ value=[0-9]+$"
	stamps_ok "$W/out"
	out_has " request: seq=[0-9]+ fd=[0-9]+ path=/data/"
	out_has " big: seq=[0-9]+ text=a record longer than 112 bytes"
	# the same line format as pipe
	"$T" pipe -e app:work "$SP" >"$W/pipe.txt" 2>/dev/null &
	local pp=$!
	PIDS+=("$pp")
	# until it printed a work record (at most 20 s, stretched by
	# RB_TIMEOUT_MULT), not half a second whatever the machine
	for i in $(seq 1 $((2000 * ${RB_TIMEOUT_MULT:-1}))); do
		grep -q ' work: ' "$W/pipe.txt" && break
		kill -0 "$pp" 2>/dev/null || break
		sleep 0.01
	done
	kill -INT "$pp"
	wait "$pp"
	local a b
	a=$(grep ' work: ' "$W/out" | head -1 | sed 's/[0-9]\+/N/g')
	b=$(grep ' work: ' "$W/pipe.txt" | head -1 | sed 's/[0-9]\+/N/g')
	[ "$a" = "$b" ] || fail "report and pipe differ: '$a' vs '$b'"
}

# normalise a trace-cmd or ringtrace report to
# "cpu ts pid event info" lines; lost-event lines to "cpu LOST n"
# A spare is "S<n>" in ringtrace's text (report --spares); trace-cmd
# shows spare n as the cpu after the CPUs and n spares.
normalise() {
	# a file's cpus past the machine's CPUs are its spares: trace-cmd
	# shows spare k as cpu NCPU + k, ringtrace report --spares as S<k>
	awk -v n="$(getconf _NPROCESSORS_CONF)" '
	     match($0, /\[[0-9]+\]/) &&
	     substr($0, RSTART + 1, RLENGTH - 2) + 0 >= n {
		$0 = substr($0, 1, RSTART - 1) "[S" \
		     (substr($0, RSTART + 1, RLENGTH - 2) - n) "]" \
		     substr($0, RSTART + RLENGTH)
	     }
	     match($0, /^ *CPU:[0-9]+ /) &&
	     substr($0, index($0, ":") + 1) + 0 >= n {
		$0 = "CPU:S" (substr($0, index($0, ":") + 1) - n) \
		     substr($0, RSTART + RLENGTH - 1)
	     }
	     { print }' |
	sed -E -n \
		-e 's/^ *CPU:(S?[0-9]+) \[([0-9]+) EVENTS DROPPED\]$/\1 LOST \2/p' \
		-e 's/^CPU:(S?[0-9]+) \[LOST ([0-9]+) EVENTS\]$/\1 LOST \2/p' \
		-e 's/^ *.*-([0-9]+) +\[(S?[0-9]+)\] +(\.\.\.\.\.|\.\.h\.\.)? *([0-9]+\.[0-9]+): ([a-z_]+): +(.*)$/\2 \4 \1 \5 \6/p' |
		sed -E -e 's/^0*([0-9])/\1/' -e 's/^S0*([0-9])/S\1/' \
			-e 's/ print tracing_mark_write: / tracing_mark_write /'
}

# has_time_extend FILE: normalised records with two of one cpu buffer
# more than 2^27 ns apart (the largest delta a record header holds)
has_time_extend() {
	awk '$2 != "LOST" { split($2, t, ".");
		ns = t[1] * 1000000000 + t[2] * 10 ^ (9 - length(t[2]));
		if (last[$1] && ns - last[$1] > 134217728) gap = 1;
		last[$1] = ns } END { exit !gap }' "$1"
}

# trace-cmd reads what record wrote: the same records (time stamps, cpus,
# pids, fields), lost-event marks, records over 112 bytes, time extends
case_record_trace_cmd() {
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	# a small buffer in overwrite mode (the writers do not wait for
	# the recorder), bursts of 3000 records per thread (120 KB) against
	# 16 KiB per cpu: pages are lost however fast the recorder is, and
	# marked
	RINGTRACE_BUF_SIZE_KB=16 "$T" record -q -O overwrite -o "$W/r.dat" \
		-e app:work -e app:big -e app:tick -e io -- "$S" --threads 3 \
		--bursts 12 --burst 3000 --gap-ms 150 --pin \
		--counts "$W/counts" >"$W/rec.out" 2>"$W/rec.err" ||
		fail "record failed: $(cat "$W/rec.err")"
	# --spares: a spare's records under the spare, as trace-cmd has them
	run 0 "$T" report --spares "$W/r.dat"
	normalise <"$W/out" | sort >"$W/ours"
	"$TRACE_CMD" report "$W/r.dat" >"$W/tc.txt" 2>"$W/tc.err" ||
		fail "trace-cmd report failed: $(cat "$W/tc.err")"
	normalise <"$W/tc.txt" | sort >"$W/theirs"
	local n
	n=$(wc -l <"$W/ours")
	[ "$n" -gt 1000 ] || fail "only $n records"
	# trace-cmd (libtraceevent's kbuffer) shows a page's lost-event count
	# only with a record that is the page's first entry; a spare's page
	# may start with a CPU note (padding) or hold nothing else, and then
	# trace-cmd drops the mark where ringtrace report shows it on the next
	# record (summed with the next page's when a page holds no record): a
	# spare's marks are left out of the comparison, and trace-cmd must not
	# show more of them than ringtrace report
	grep -v '^S[0-9]* LOST ' "$W/ours" >"$W/ours.cmp"
	grep -v '^S[0-9]* LOST ' "$W/theirs" >"$W/theirs.cmp"
	if ! cmp -s "$W/ours.cmp" "$W/theirs.cmp"; then
		diff "$W/ours.cmp" "$W/theirs.cmp" | head -20 >&2
		fail "ringtrace report and trace-cmd report differ"
	fi
	[ "$(grep -c '^S[0-9]* LOST ' "$W/theirs")" -le \
	  "$(grep -c '^S[0-9]* LOST ' "$W/ours")" ] ||
		fail "trace-cmd shows more lost-event marks of spares than ringtrace report"
	# the file's cpus are the CPUs, then the spares in use; a spare's
	# records are shown as the spare's (the same way by both), never as
	# a CPU's
	local cpus
	cpus=$(getconf _NPROCESSORS_CONF)
	[ "$(sed -n 's/^cpus=//p' "$W/tc.txt")" -ge "$cpus" ] ||
		fail "trace-cmd shows $(grep ^cpus= "$W/tc.txt"), the machine has $cpus CPUs"
	awk -v n="$cpus" '$1 !~ /^S/ && $1 >= n { exit 1 }' "$W/ours" ||
		fail "a record shown on cpu $cpus or above, past the CPUs"
	# JSON names a spare's records "spare":N, never as a CPU's
	run 0 "$T" report --format=json "$W/r.dat"
	if grep -q '^S' "$W/ours"; then
		grep -q '"spare":[0-9]' "$W/out" || fail "JSON: no spare"
	fi
	grep -o '"cpu":[0-9]*' "$W/out" | awk -F: -v n="$cpus" '$2 >= n { exit 1 }' ||
		fail "JSON: a spare shown as a CPU"
	grep -q ' LOST ' "$W/ours" || fail "no lost-event mark"
	grep -q ' big seq=[0-9]* text=a record longer than 112 bytes' "$W/ours" ||
		fail "no record over 112 bytes"
	# several cpu buffers (with more than one cpu)
	[ "$(nproc)" = 1 ] ||
		[ "$(awk '{ print $1 }' "$W/ours" | sort -u | wc -l)" -gt 1 ] ||
		fail "one cpu buffer only"
	# a pause over 134 ms between two records of a cpu buffer (a time
	# extend), with the time stamps agreeing
	has_time_extend "$W/ours" || fail "no gap needing a time extend"
	# the function_graph records are read too
	RINGTRACE_BUF_SIZE_KB=2048 "$T" record -q -o "$W/g.dat" \
		-p function_graph -e app:work -- "$S" --threads 2 --bursts 3 \
		--burst 40 --gap-ms 30 --counts "$W/gcounts" >/dev/null \
		2>"$W/rec.err" ||
		fail "record -p function_graph failed: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/g.dat"
	out_has "^ [0-9]\) +[0-9.]+ us +\|  +sample_fn_leaf\(\);$"
	out_has "^ [0-9]\) +\|  sample_fn_outer\(\) \{$"
	out_has "/\* work: worker=[01] seq="
	local calls entries
	calls=$(count "$W/gcounts" graph:calls)
	entries=$("$TRACE_CMD" report "$W/g.dat" 2>/dev/null |
		grep -c 'funcgraph_entry:.*sample_fn_outer')
	[ "$entries" = "$calls" ] ||
		fail "trace-cmd shows $entries calls of sample_fn_outer, $calls made"
	entries=$(grep -c 'sample_fn_outer() {' "$W/out")
	[ "$entries" = "$calls" ] ||
		fail "report shows $entries calls of sample_fn_outer, $calls made"
}

# record -- COMMAND: everything it emitted is in the file or lost
case_record_command() {
	"$T" record -o "$W/r.dat" -e app:work -e app:big -e io:request \
		-e app:tick -- "$S" --threads 3 --seconds 1.5 --burst 100 \
		--gap-ms 5 --counts "$W/counts" >"$W/rec.out" 2>"$W/rec.err" ||
		fail "record failed: $(cat "$W/rec.err")"
	local lost
	lost=$(sed -n 's/^ringtrace: [0-9]* events recorded in .*; \([0-9]*\) lost$/\1/p' "$W/rec.err")
	[ -n "$lost" ] || fail "no summary line: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/r.dat"
	local e n c total=0 sum=0
	for e in app:work app:big io:request app:tick; do
		n=$(lines "$W/out" "${e#*:}")
		c=$(count "$W/counts" "$e")
		total=$((total + c))
		sum=$((sum + n))
		[ "$lost" != 0 ] || [ "$n" = "$c" ] ||
			fail "$e: emitted $c, recorded $n, none lost"
	done
	n=$(grep -c "tracing_mark_write: marker" "$W/out")
	total=$((total + $(count "$W/counts" ftrace:print)))
	sum=$((sum + n))
	[ $((sum + lost)) = "$total" ] ||
		fail "emitted $total, recorded $sum + lost $lost"
	# io:done was not enabled
	! grep -q ' done: ' "$W/out" || fail "io:done recorded"
	# thread names came along
	out_has "^ +worker-2-[0-9]+ +\["
}

# summary LINE-FILE: "recorded lost file_mb written_mb" from record's
# last line
summary() {
	sed -n 's/^ringtrace: \([0-9]*\) events recorded in .* (\([0-9.]*\) MB, \([0-9.]*\) MB written) in [0-9.]* s; \([0-9]*\) lost\( (refused at the end, unmarked)\)\{0,1\}$/\1 \4 \2 \3/p' "$1"
}

# A function_graph writer at full speed, recorded with the defaults:
# every record the program wrote is in the file or counted as lost
# (none, unless the machine kept the recorder off the cpu for long),
# each page was written once (the bytes the recording wrote, counted by
# the kernel, within a tenth of the file's size), the file has no holes
# left and trace-cmd reads it.
# A command's writers wait for the recorder when its buffer is full: with
# a buffer of 16 KiB per cpu (four pages) nothing is lost, every record
# is in the file; the same with -O overwrite loses (so this can fail).
case_record_waits() {
	[ -n "$C" ] || skip "no sample_calls"
	local rec lost want
	RINGTRACE_BUF_SIZE_KB=16 "$T" record -o "$W/w.dat" -p function_graph \
		-- "$C" 20000 >"$W/calls" 2>"$W/rec.err" ||
		fail "record failed: $(cat "$W/rec.err")"
	read -r rec lost _ _ < <(summary "$W/rec.err")
	want=$(count "$W/calls" records)
	[ "$want" = 160000 ] || fail "the sample wrote $want records"
	[ "$lost" = 0 ] || fail "lost $lost of $want with a waiting writer"
	[ "$rec" = "$want" ] || fail "emitted $want, recorded $rec"
	run 0 "$T" report "$W/w.dat"
	[ "$(grep -c 'calls_outer() {$' "$W/out")" = 20000 ] ||
		fail "not every call of calls_outer is in the report"
	RINGTRACE_BUF_SIZE_KB=16 "$T" record -O overwrite -o "$W/o.dat" \
		-p function_graph -- "$C" 20000 >"$W/calls" 2>"$W/rec.err" ||
		fail "record -O overwrite failed: $(cat "$W/rec.err")"
	read -r rec lost _ _ < <(summary "$W/rec.err")
	[ "$lost" -gt 0 ] || fail "overwrite mode lost nothing: the test proves nothing"
	[ $((rec + lost)) = "$want" ] ||
		fail "overwrite: emitted $want, recorded $rec + lost $lost"
}

case_record_complete() {
	[ -n "$C" ] || skip "no sample_calls"
	bash -c '"$@" >"'"$W/calls"'" 2>"'"$W/rec.err"'"; grep "^wchar:" /proc/$$/io' \
		rec "$T" record --compression none -o "$W/c.dat" \
		-p function_graph -- "$C" 100000 \
		>"$W/io" || fail "record failed: $(cat "$W/rec.err")"
	local rec lost want wchar size blocks
	read -r rec lost _ _ < <(summary "$W/rec.err")
	[ -n "$rec" ] || fail "no summary line: $(cat "$W/rec.err")"
	want=$(count "$W/calls" records)
	[ "$want" = 800000 ] || fail "the sample wrote $want records"
	[ $((rec + lost)) = "$want" ] ||
		fail "emitted $want, recorded $rec + lost $lost"
	wchar=$(awk '{ print $2 }' "$W/io")
	size=$(stat -c %s "$W/c.dat")
	blocks=$(($(stat -c %b "$W/c.dat") * $(stat -c %B "$W/c.dat")))
	echo "records $want lost $lost; file $size bytes, $wchar written"
	[ "$size" -gt 20000000 ] || fail "a file of $size bytes"
	# written in place where the file system shifts blocks (ext4, XFS);
	# with holes (tmpfs), in place too, the data of the cpus after the
	# first copied once more at the end; elsewhere the pages are spooled
	# and copied
	case $(stat -f -c %T "$W") in
	ext2/ext3 | xfs)
		[ $((wchar * 10)) -le $((size * 11)) ] ||
			fail "$wchar bytes written for a file of $size" ;;
	tmpfs)
		[ $((wchar * 10)) -le $((size * 21)) ] ||
			fail "$wchar bytes written for a file of $size" ;;
	*)	echo "not ext4, XFS or tmpfs: bytes written not checked" ;;
	esac
	# no hole left but the small ones, within a 64th of the file (the
	# header's room: removing it would make the close wait for the
	# write-back of every page; a spooled file has none)
	[ "$size" -le $((blocks + size / 64 + 65536)) ] ||
		fail "a file of $size bytes in $blocks bytes of blocks"
	if [ "$lost" = 0 ]; then
		run 0 "$T" report "$W/c.dat"
		[ "$(grep -c 'calls_outer() {$' "$W/out")" = 100000 ] ||
			fail "not every call of calls_outer is in the report"
	fi
	# trace-cmd folds an entry into a leaf line ("calls_outer();") when
	# the next record of its buffer is its return, which depends on where
	# the records fell (the thread may move between cpus, or write into a
	# spare while another thread holds its cpu's buffer): count both forms
	if [ -n "$TRACE_CMD" ]; then
		"$TRACE_CMD" report "$W/c.dat" >"$W/tc.out" 2>"$W/tc.err" ||
			fail "trace-cmd report: $(head -5 "$W/tc.err")"
		local tc ours
		tc=$(grep -cE 'calls_outer\(\)( \{|;)$' "$W/tc.out")
		ours=$(grep -cE 'calls_outer\(\)( \{|;)$' "$W/out" 2>/dev/null ||
			echo "$tc")
		[ "$tc" = "$ours" ] ||
			fail "trace-cmd shows $tc calls of calls_outer, ringtrace $ours; records per buffer: $(awk '{ print $1 ~ /^spares/ ? $1 : $2 }' "$W/tc.out" | sort | uniq -c | tr '\n' ' ')"
	fi
}

# record -- COMMAND holds the command until the recorder is attached: a
# program that is done in microseconds is recorded from its first call.
case_record_hold() {
	[ -n "$C" ] || skip "no sample_calls"
	local i
	for i in 1 2 3; do
		run 0 "$T" record -q -o "$W/h.dat" -p function_graph -- "$C" 5
		err_has "^ringtrace: 40 events recorded in .*; 0 lost$"
		run 0 "$T" report "$W/h.dat"
		[ "$(grep -c 'calls_outer() {$' "$W/out")" = 5 ] ||
			fail "run $i: the first calls are missing"
	done
	# a command that execs the traced program is held the same way
	run 0 "$T" record -q -o "$W/h.dat" -p function_graph -- \
		sh -c "exec $C 5"
	run 0 "$T" report "$W/h.dat"
	[ "$(grep -c 'calls_outer() {$' "$W/out")" = 5 ] ||
		fail "through exec: the first calls are missing"
}

# -l, -n, -g, --max-graph-depth: set in the process before it runs; a
# glob that matches nothing is left out with a warning, a list of such
# globs only is an error; -b sets the buffer size.
case_record_lists() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -q -o "$W/l.dat" -p function_graph -l calls_middle \
		-l nosuch -- "$C" 10
	err_has "warning: -l: no function matches 'nosuch'"
	run 0 "$T" report "$W/l.dat"
	[ "$(grep -c 'calls_middle();$' "$W/out")" = 10 ] ||
		fail "-l: not ten calls of calls_middle alone"
	! grep -q 'calls_outer\|calls_leaf' "$W/out" || fail "-l: other functions"
	run 0 "$T" record -q -o "$W/l.dat" -p function_graph -n 'calls_l*' \
		-- "$C" 10
	run 0 "$T" report "$W/l.dat"
	! grep -q calls_leaf "$W/out" || fail "-n: calls_leaf traced"
	[ "$(grep -c 'calls_middle();$' "$W/out")" = 10 ] || fail "-n"
	run 0 "$T" record -q -o "$W/l.dat" -p function_graph -g calls_middle \
		-- "$C" 10
	run 0 "$T" report "$W/l.dat"
	! grep -q calls_outer "$W/out" || fail "-g: calls_outer traced"
	[ "$(grep -c 'calls_leaf();$' "$W/out")" = 20 ] || fail "-g"
	run 0 "$T" record -q -o "$W/l.dat" -p function_graph \
		--max-graph-depth 2 -- "$C" 10
	run 0 "$T" report "$W/l.dat"
	! grep -q calls_leaf "$W/out" || fail "--max-graph-depth: too deep"
	[ "$(grep -c 'calls_middle();$' "$W/out")" = 10 ] ||
		fail "--max-graph-depth"
	run 2 "$T" record -q -o "$W/l.dat" -p function_graph -l nosuch \
		-- "$C" 10
	err_has "-l: no function matches any of the globs given"
	run 2 "$T" record -o "$W/l.dat" -b 0 -- "$C" 10
	err_has "bad buffer size"
	run 2 "$T" record -o "$W/l.dat" --max-graph-depth x -- "$C" 10
	err_has "bad depth"
	run 0 "$T" record -q -o "$W/l.dat" -b 64 -p function_graph -- "$C" 10
}

# Warnings: an unknown RINGTRACE_ variable, a function tracer that
# recorded no call.
case_record_warnings() {
	[ -n "$C" ] || skip "no sample_calls"
	RINGTRACE_EVNTS=x run 0 "$T" record -q -o "$W/w.dat" \
		-p function_graph -- "$C" 10
	err_has "unknown variable RINGTRACE_EVNTS"
	run 0 "$T" record -q -o "$W/w.dat" -p function_graph -n 'calls_*' \
		-- "$C" 10
	err_has "warning: no function call was recorded: is .*sample_calls compiled with -finstrument-functions"
	run 0 "$T" record -q -o "$W/w.dat" -p function_graph -- "$C" 10
	! grep -q "no function call" "$W/err" || fail "a warning with calls"
}

# A full buffer that refuses records (nooverwrite): what it refused is
# counted, marked in the file where the records go on, and reported; the
# records in the file and the lost ones add up to what was written.
case_record_drops() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -o "$W/d.dat" -b 16 -O nooverwrite \
		-p function_graph -- "$C" -d 12 20000
	local rec lost want marked
	read -r rec lost _ _ < <(summary "$W/err")
	[ -n "$rec" ] || fail "no summary line: $(cat "$W/err")"
	want=$(count "$W/out" records)
	[ $((rec + lost)) = "$want" ] ||
		fail "emitted $want, recorded $rec + lost $lost"
	echo "records $want, recorded $rec, lost $lost"
	[ "$lost" -gt 0 ] || return 0
	# refused when no record followed (the program ended first): no
	# page to mark them on, and the summary says so
	local unmarked=false
	grep -q "lost (refused at the end, unmarked)$" "$W/err" && unmarked=true
	run 0 "$T" report "$W/d.dat"
	marked=$(sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' \
		"$W/out" | awk '{ s += $1 } END { print s + 0 }')
	[ "$marked" -le "$lost" ] || fail "$marked marked, $lost lost"
	$unmarked || grep -q "^CPU:[0-9]* \[LOST \([0-9]* \)\{0,1\}EVENTS\]$" "$W/out" ||
		fail "no loss marked, and the summary does not say why"
}

# stat_calls FILE FUNC: the Calls column of FUNC in a --stat table
stat_calls() {
	awk -v f="$2" '$NF == f && NF >= 8 { print $(NF - 7) }' "$1" | head -1
}

# report --stat: one line per function with the calls the program made
# (its own counts), in the order asked; the self times add up to the
# total of the outermost function; two threads, a deeper tree.
case_report_stat() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -q -o "$W/s.dat" -p function_graph -- "$C" -t 2 \
		-d 7 3000
	cp "$W/out" "$W/calls"
	grep -q "; 0 lost$" "$W/err" || skip "events were lost: $(tail -1 "$W/err")"
	run 0 "$T" report --stat "$W/s.dat"
	cp "$W/out" "$W/stat"
	out_has "^  Total time   Self time       Calls    Avg time    Min time    Max time  Function$"
	local f n
	for f in calls_outer calls_middle calls_leaf calls_deep; do
		n=$(stat_calls "$W/stat" "$f")
		[ "$n" = "$(count "$W/calls" "$f")" ] ||
			fail "$f: $n calls in --stat, the program made $(count "$W/calls" "$f")"
	done
	[ "$(grep -c '^ .* calls_' "$W/stat")" = 4 ] || fail "not four functions"
	# calls_deep is recursive: its total is that of its outermost calls,
	# which is the sum of the self times of all of them
	awk '$NF == "calls_deep" { exit !($1 == $3 && $2 == $4) }' "$W/stat" ||
		fail "calls_deep: total and self differ: $(grep calls_deep "$W/stat")"
	# the default order is by total time: a caller before its callees
	[ "$(grep -o 'calls_[a-z]*$' "$W/stat" | grep -v calls_deep |
		tr '\n' ' ')" = "calls_outer calls_middle calls_leaf " ] ||
		fail "not by total time: $(cat "$W/stat")"
	run 0 "$T" report --stat -s total "$W/s.dat"
	cmp -s "$W/out" "$W/stat" || fail "-s total is not the default"
	run 0 "$T" report --stat -s calls "$W/s.dat"
	sed -n 3p "$W/out" | grep -q ' calls_deep$' || fail "-s calls"
	run 0 "$T" report --stat -s func "$W/s.dat"
	[ "$(sed -n '3,6s/.* //p' "$W/out" | tr '\n' ' ')" = \
		"calls_deep calls_leaf calls_middle calls_outer " ] || fail "-s func"
	# a threshold keeps the longer calls only
	run 0 "$T" report --stat -t 1s "$W/s.dat"
	[ "$(grep -c ' calls_' "$W/out")" = 0 ] || fail "-t 1s kept calls"
	# one thread: half the calls
	local tid
	tid=$(trace_tids "$W/s.dat" | head -1)
	run 0 "$T" report --stat --tid "$tid" "$W/s.dat"
	[ "$(stat_calls "$W/out" calls_outer)" = 3000 ] || fail "--tid: $(cat "$W/out")"
	# the selections: a subtree, a depth
	run 0 "$T" report --stat -F calls_middle "$W/s.dat"
	[ -z "$(stat_calls "$W/out" calls_outer)" ] || fail "-F kept calls_outer"
	[ "$(stat_calls "$W/out" calls_leaf)" = 12000 ] || fail "-F: calls_leaf"
	run 0 "$T" report --stat -D 2 "$W/s.dat"
	[ "$(grep -c ' calls_' "$W/out")" = 2 ] || fail "-D 2: $(cat "$W/out")"
	# --graph: callers and callees
	run 0 "$T" report --graph calls_middle "$W/s.dat"
	out_has "^# the calls of calls_middle$"
	awk '/^# their callers/ { p = 1 } /^# the calls they made/ { p = 2 }
	     p == 1 && / calls_outer$/ { c++ } p == 2 && / calls_(leaf|deep)$/ { d++ }
	     END { exit !(c == 1 && d == 2) }' "$W/out" ||
		fail "--graph: $(cat "$W/out")"
	run 1 "$T" report --graph nosuch "$W/s.dat"
	err_has "no call of 'nosuch'"
	# bad arguments
	run 2 "$T" report --stat -s bogus "$W/s.dat"
	run 2 "$T" report --stat --format=json "$W/s.dat"
	run 2 "$T" report -t 10us "$W/s.dat"
	run 2 "$T" report --time-range 5 "$W/s.dat"
	run 2 "$T" report -D x "$W/s.dat"
}

# trace_tids FILE: the thread ids of a trace's function records
trace_tids() {
	# the threads of the records (the metadata names the process too)
	"$T" report --format=json "$1" | grep -v '"ph":"M"' |
		grep -o '"tid":[0-9]*' | sort -u | sed 's/.*://'
}

# The selections in the text and JSON output: a subtree (-F), a depth
# (-D), a thread (--tid), a time range; and the memory of report stays
# bounded when the file is large.
case_report_select() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -q -o "$W/s.dat" -p function_graph -- "$C" -t 2 \
		-d 5 200
	grep -q "; 0 lost$" "$W/err" || skip "events were lost: $(tail -1 "$W/err")"
	run 0 "$T" report -F calls_deep "$W/s.dat"
	! grep -q 'calls_outer\|calls_middle\|calls_leaf' "$W/out" ||
		fail "-F: other functions shown"
	# (a call whose return is not the next record of its cpu buffer
	# shown prints as "f() {" ... "}", else as "f();")
	[ "$(grep -Ec '\|      calls_deep\(\)( \{|;)$' "$W/out")" = 400 ] ||
		fail "-F: not 400 outer calls_deep"
	run 0 "$T" report -D 2 "$W/s.dat"
	! grep -q 'calls_leaf\|calls_deep' "$W/out" || fail "-D 2: too deep"
	[ "$(grep -Ec 'calls_middle\(\)( \{|;)$' "$W/out")" = 400 ] ||
		fail "-D 2"
	local tids t1 first last mid
	tids=$(trace_tids "$W/s.dat")
	t1=$(echo "$tids" | head -1)
	[ "$(echo "$tids" | wc -l)" = 2 ] || fail "threads: $tids"
	run 0 "$T" report --format=json --tid "$t1" "$W/s.dat"
	[ "$(grep -v '"ph":"M"' "$W/out" | grep -o '"tid":[0-9]*' | sort -u)" = "\"tid\":$t1" ] ||
		fail "--tid in JSON"
	# the process is named whichever thread is selected
	grep -q '"name":"process_name"' "$W/out" || fail "--tid: no process_name"
	# a time range: the records within it only
	"$T" report "$W/s.dat" --format=json |
		grep -o '"ts":[0-9.]*' | sed 's/.*://' | sort -n >"$W/ts"
	first=$(head -1 "$W/ts")
	last=$(tail -1 "$W/ts")
	mid=$(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.6f", (a + b) / 2 / 1e6 }')
	run 0 "$T" report --format=json --time-range "~$mid" "$W/s.dat"
	grep -o '"ts":[0-9.]*' "$W/out" | sed 's/.*://' |
		awk -v m="$mid" '$1 / 1e6 > m + 0.000001 { bad++ } END { exit bad > 0 }' ||
		fail "--time-range: records after $mid"
	local n_all n_half
	n_all=$(wc -l <"$W/ts")
	n_half=$(grep -c '"ts":' "$W/out")
	[ "$n_half" -lt "$n_all" ] && [ "$n_half" -gt 0 ] ||
		fail "--time-range: $n_half of $n_all records"
	# memory: a file of about 30 MB, written by two threads (on a
	# machine of two cpus or more, in two cpu buffers), read with a
	# small part of it over what a file of a few pages takes (not
	# measured in a sanitizer build, whose shadow memory comes on top):
	# version 6, read in place; and the same run compressed (version 7,
	# a tenth of the size), its data as large, decompressed a chunk at a
	# time
	if [ -x /usr/bin/time ] && [ -z "$SAN" ]; then
		run 0 "$T" record -q --compression none -o "$W/big.dat" \
			-p function_graph -- "$C" -t 2 50000
		run 0 "$T" record -q -o "$W/bigz.dat" -p function_graph -- \
			"$C" -t 2 50000
		run 0 "$T" record -q --compression none -o "$W/small.dat" \
			-p function_graph -- "$C" 10
		local size rss f base how
		size=$(stat -c %s "$W/big.dat")
		[ "$(stat -c %s "$W/bigz.dat")" -lt $((size / 4)) ] ||
			fail "bigz.dat is not compressed"
		for how in "report --stat" report; do
			# shellcheck disable=SC2086 # (how: the command's words)
			/usr/bin/time -f %M -o "$W/rss" "$T" $how \
				"$W/small.dat" >/dev/null ||
				fail "$how small.dat failed"
			base=$(tail -1 "$W/rss")
			for f in big bigz; do
				# shellcheck disable=SC2086
				/usr/bin/time -f %M -o "$W/rss" "$T" $how \
					"$W/$f.dat" >/dev/null ||
					fail "$how $f.dat failed"
				rss=$(tail -1 "$W/rss")
				echo "$how $f.dat: $rss KiB ($base KiB for" \
					"small.dat) for $size bytes of data"
				[ $(((rss - base) * 1024)) -lt $((size / 4)) ] ||
					fail "$how $f.dat used $rss KiB, $base KiB for small.dat, for $size bytes"
			done
		done
	fi
}

# A program compiled with -finstrument-functions that does not link
# libringtrace (its hooks are the C library's no-ops) gets the library
# preloaded: every call is recorded; so does one built -pg -mfentry
# -mrecord-mcount or -fpatchable-function-entry. --no-preload leaves it alone (it
# publishes nothing: exit 3); a command without the hooks (sh) is not
# preloaded.
case_record_preload() {
	[ -n "$CB" ] || skip "no sample_calls_bare"
	run 0 "$T" record -q -o "$W/p.dat" -p function_graph -- "$CB" 50
	err_has "^ringtrace: 400 events recorded in .*; 0 lost$"
	run 0 "$T" report --stat "$W/p.dat"
	[ "$(stat_calls "$W/out" calls_leaf)" = 100 ] ||
		fail "preloaded: $(cat "$W/out")"
	run 3 "$T" record -q -o "$W/p.dat" --no-preload -p function_graph \
		-- "$CB" 50
	err_has "exited before publishing its trace"
	# built -pg -mfentry -mrecord-mcount, -fpatchable-function-entry:
	# preloaded too (x86-64)
	local x
	for x in "${RTT_CALLS_PG:-}" "${RTT_CALLS_PATCH:-}"; do
		[ -n "$x" ] || continue
		run 0 "$T" record -q -o "$W/p.dat" -p function_graph -- "$x" 50
		run 0 "$T" report --stat "$W/p.dat"
		[ "$(stat_calls "$W/out" calls_leaf)" = 100 ] ||
			fail "$(basename "$x") preloaded: $(cat "$W/out")"
	done
	run 2 "$T" record -q -o "$W/p.dat" --preload="$W/nosuch.so" \
		-- "$CB" 50
	err_has "cannot read the library"
	# the development name is a linker script: the library it names
	# (beside it) is preloaded
	[ -n "${RTT_LIB:-}" ] || fail "RTT_LIB is not set"
	mkdir "$W/lib"
	ln -s "$RTT_LIB" "$W/lib/libringtrace.so.0"
	printf '/* GNU ld script */\nINPUT(libringtrace.so.0 AS_NEEDED(libringbuf.so.0))\n' \
		>"$W/lib/libringtrace.so"
	run 0 "$T" record -q -o "$W/p.dat" --preload="$W/lib/libringtrace.so" \
		-p function_graph -- "$CB" 50
	run 0 "$T" report --stat "$W/p.dat"
	[ "$(stat_calls "$W/out" calls_leaf)" = 100 ] ||
		fail "preloaded through the linker script: $(cat "$W/out")"
	echo "not a library" >"$W/lib/bad.so"
	run 2 "$T" record -q -o "$W/p.dat" --preload="$W/lib/bad.so" -- "$CB" 5
	err_has "neither a shared library nor a linker script"
	printf 'GROUP(nosuch.so.0)\n' >"$W/lib/gone.so"
	run 2 "$T" record -q -o "$W/p.dat" --preload="$W/lib/gone.so" -- "$CB" 5
	err_has "names '.*/nosuch.so.0', which cannot be read"
	# nothing is left in the publish directory
	[ -z "$(ls -A "$RINGTRACE_DIR")" ] ||
		fail "left behind: $(ls "$RINGTRACE_DIR")"
}

# record -c: the programs the command starts are recorded too, each into
# FILE.PID, from their first call (they wait for the recorder); a shell
# in between gets the library preloaded.
# The command exec()s the traced program in its own process (env, a
# shell's exec), with the library preloaded into the wrapper: the new
# image is recorded from its start into the same file, quickly (it is
# held and let go, not left to its 5 s time-out), and nothing is left.
case_record_exec() {
	[ -n "$C" ] || skip "no sample_calls"
	[ -z "$SAN" ] || skip "a sanitizer build's library cannot be preloaded into sh"
	local start
	start=$(date +%s)
	run 0 "$T" record --preload -o "$W/e.dat" -p function_graph -- \
		env X=1 "$C" 10
	run 0 "$T" report --stat "$W/e.dat"
	[ "$(stat_calls "$W/out" calls_outer)" = 10 ] ||
		fail "env then the program: $(cat "$W/out")"
	run 0 "$T" record -o "$W/e.dat" -p function_graph -- \
		sh -c "exec '$C' 12 >/dev/null"
	! grep -q "did not publish" "$W/err" || fail "$(cat "$W/err")"
	run 0 "$T" report --stat "$W/e.dat"
	[ "$(stat_calls "$W/out" calls_outer)" = 12 ] ||
		fail "sh -c exec: $(cat "$W/out")"
	[ $(($(date +%s) - start)) -lt 5 ] || fail "the new images were not let go at once"
	[ -z "$(ls -A "$RINGTRACE_DIR")" ] ||
		fail "left behind: $(ls "$RINGTRACE_DIR")"
}

case_record_follow() {
	[ -n "$C" ] || skip "no sample_calls"
	# the shell gets the library preloaded, without the sanitizer's runtime
	[ -z "$SAN" ] || skip "a sanitizer build's library cannot be preloaded into sh"
	run 0 "$T" record -c -q -o "$W/f.dat" -p function_graph -- \
		sh -c "'$C' 10 >/dev/null; '$CB' 20 >/dev/null; true"
	local files n f
	files=$(ls "$W"/f.dat.* 2>/dev/null)
	[ "$(echo "$files" | grep -c .)" = 2 ] || fail "files: $files $(cat "$W/err")"
	n=0
	for f in $files; do
		# compressed, as any file record writes by default
		[ "$(head -c 11 "$f" | tail -c 1)" = 7 ] ||
			fail "$f is not a version 7 file"
		run 0 "$T" report --stat "$f"
		n=$((n + $(stat_calls "$W/out" calls_outer)))
		# trace-cmd reads them too
		if [ -n "$TRACE_CMD" ]; then
			"$TRACE_CMD" report "$f" >/dev/null 2>&1 ||
				fail "trace-cmd cannot read $f"
		fi
	done
	[ "$n" = 30 ] || fail "$n calls of calls_outer in the files, 30 made"
	! grep -q "no function call was recorded" "$W/err" ||
		fail "a warning: $(cat "$W/err")"
	[ -z "$(ls -A "$RINGTRACE_DIR")" ] ||
		fail "left behind: $(ls "$RINGTRACE_DIR")"
	run 2 "$T" record -c -P 1 -o "$W/f.dat"
	err_has "not with -P"
}

# recs_on_their_cpu FILE: the 3000 sp:rec records of a report, each on
# the CPU its "on" field names
recs_on_their_cpu() {
	awk '/ rec: seq=/ {
		n++
		if (!match($0, /\[[0-9]+\]/)) { bad++; next }
		c = substr($0, RSTART + 1, RLENGTH - 2) + 0
		match($0, /on=[0-9]+/)
		if (c != substr($0, RSTART + 3) + 0) bad++
	     } END { exit !(n == 3000 && !bad) }' "$1"
}

# A record written into a spare buffer shows the CPU it was written on
# (the spare's CPU note) in report's text and JSON; --spares shows the
# spare; trace-cmd reads the file (the notes are padding to it) with the
# same records and time stamps.
case_spare_cpu() {
	[ -n "${RTT_SPARE:-}" ] || fail "RTT_SPARE is not set"
	"$T" record -q -o "$W/s.dat" -e sp:rec -e sp:hold -- "$RTT_SPARE" 3000 \
		>"$W/rec.out" 2>"$W/rec.err" ||
		fail "record failed: $(cat "$W/rec.err")"
	grep -q '^rec 3000 cpus [12]$' "$W/rec.out" ||
		fail "sample_spare: $(cat "$W/rec.out")"
	run 0 "$T" report "$W/s.dat"
	# every sp:rec record: the CPU column is the CPU it says it ran on
	recs_on_their_cpu "$W/out" ||
		fail "a spare's record not shown on the CPU it was written on"
	! grep -q '\[S[0-9]*\]' "$W/out" || fail "a record shown as a spare's"
	# --spares: the same records, under the spares
	run 0 "$T" report --spares "$W/s.dat"
	[ "$(grep ' rec: seq=' "$W/out" | grep -c '\[S[0-9]*\]')" = 3000 ] ||
		fail "report --spares: not every spare's record under its spare"
	# JSON: "spare":N and "cpu":K, K the CPU the record says
	run 0 "$T" report --format=json "$W/s.dat"
	python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
      if e.get("name") == "rec"]
assert len(ev) == 3000, len(ev)
for e in ev:
    a = e["args"]
    assert "spare" in a and a["cpu"] == a["on"], a
' "$W/out" || fail "JSON: a spare's record without the CPU it was written on"
	# killed with its records in the spares: extract writes them with
	# their notes again
	RINGTRACE_EVENTS=sp:rec,sp:hold "$RTT_SPARE" 3000 hang \
		>"$W/hang.out" 2>&1 &
	local sp=$! i
	PIDS+=("$sp")
	for i in $(seq 100); do
		grep -q '^rec 3000' "$W/hang.out" && break
		sleep 0.05
	done
	grep -q '^rec 3000' "$W/hang.out" || fail "sample_spare did not write"
	kill -9 "$sp"
	wait "$sp" 2>/dev/null
	run 0 "$T" extract -o "$W/x.dat" "$sp"
	run 0 "$T" report "$W/x.dat"
	recs_on_their_cpu "$W/out" ||
		fail "extract: a spare's record not shown on the CPU it was written on"
	[ -n "$TRACE_CMD" ] || return 0
	"$TRACE_CMD" report "$W/x.dat" >/dev/null 2>"$W/tc.err" ||
		fail "trace-cmd cannot read the extracted file: $(cat "$W/tc.err")"
	"$TRACE_CMD" report "$W/s.dat" >"$W/tc.txt" 2>"$W/tc.err" ||
		fail "trace-cmd report failed: $(cat "$W/tc.err")"
	[ "$(grep -c ' rec: *seq=' "$W/tc.txt")" = 3000 ] ||
		fail "trace-cmd reads $(grep -c ' rec: *seq=' "$W/tc.txt") of the 3000 records"
	# the same records and time stamps (notes skipped the same way)
	"$T" report --spares "$W/s.dat" | normalise | sort >"$W/ours"
	normalise <"$W/tc.txt" | sort >"$W/theirs"
	cmp -s "$W/ours" "$W/theirs" || {
		diff "$W/ours" "$W/theirs" | head >&2
		fail "ringtrace report --spares and trace-cmd report differ"
	}
}

# A short command's events are in its recording: the formats of events it
# registered, and unregistered at its exit, between two looks of the
# recorder; "-e" names them without an error.
case_record_short() {
	local i
	for i in 1 2 3; do
		run 0 "$T" record -q -o "$W/short.dat" -e app:work -- "$S" \
			--threads 1 --bursts 1 --burst 10
		run 0 "$T" report "$W/short.dat"
		[ "$(lines "$W/out" work)" = 10 ] ||
			fail "report shows $(lines "$W/out" work) work records of 10"
		! grep -q 'Unknown type' "$W/out" || fail "a record of an unknown type"
		rm -f "$W/short.dat"
	done
}

case_report_json() {
	RINGTRACE_BUF_SIZE_KB=2048 "$T" record -q -o "$W/g.dat" \
		-p function_graph -e app:work -e io:request -- "$S" --threads 2 \
		--bursts 3 --burst 40 --gap-ms 30 >/dev/null 2>"$W/rec.err" ||
		fail "record failed: $(cat "$W/rec.err")"
	run 0 "$T" report --format=json "$W/g.dat"
	python3 - "$W/out" <<'EOF' || fail "bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert ev, "no events"
depth = {}
b = e = i = 0
for x in ev:
    assert x["ph"] in ("B", "E", "i", "M"), x
    if x["ph"] == "M":
        continue
    assert isinstance(x["ts"], (int, float)) and x["ts"] > 0, x
    assert "pid" in x and "tid" in x, x
    t = x["tid"]
    if x["ph"] == "B":
        b += 1
        depth[t] = depth.get(t, 0) + 1
    elif x["ph"] == "E":
        e += 1
        depth[t] = depth.get(t, 0) - 1
        assert depth[t] >= 0, "E without B"
    else:
        i += 1
assert b > 0 and b == e, (b, e)
assert all(v == 0 for v in depth.values())
names = {x["name"] for x in ev if x["ph"] == "B"}
assert "sample_fn_outer" in names and "sample_fn_leaf" in names, names
work = [x for x in ev if x["ph"] == "i" and x["name"] == "work"]
assert work and work[0]["cat"] == "app", work[:1]
assert set(work[0]["args"]) >= {"worker", "seq", "value", "cpu"}, work[0]
req = [x for x in ev if x["name"] == "request"]
assert req and req[0]["args"]["path"].startswith("/data/"), req[:1]
pids = {x["pid"] for x in ev}
assert len(pids) == 1, pids
assert any(x["ph"] == "M" and x["name"] == "thread_name" for x in ev)
EOF
}

case_report_filter() {
	RINGTRACE_BUF_SIZE_KB=2048 "$T" record -q -o "$W/r.dat" -e app:work \
		-e io -- "$S" --threads 3 --bursts 4 --burst 60 --gap-ms 30 \
		>/dev/null 2>"$W/rec.err" || fail "record failed: $(cat "$W/rec.err")"
	run 0 "$T" report -f 'app:work worker == 1' "$W/r.dat"
	out_has " work: worker=1 "
	! grep -Eq ' work: worker=[02] | request: | done: ' "$W/out" ||
		fail "records the filter excludes"
	run 0 "$T" report -f 'io fd == 5' -f 'work worker == 2' "$W/r.dat"
	out_has " request: seq=[0-9]+ fd=5 "
	out_has " done: seq=[0-9]+ fd=5 "
	out_has " work: worker=2 "
	! grep -Eq ' fd=[^5]| worker=[01] ' "$W/out" || fail "filter leak"
	run 0 "$T" report -f 'io:request path ~ "*other*"' "$W/r.dat"
	out_has "path=/data/other file"
	! grep -q "path=/data/file" "$W/out" || fail "glob filter leak"
	run 2 "$T" report -f 'app:work worker = = 1' "$W/r.dat"
	err_has "^ringtrace: bad filter for app:work:"
	err_has "^worker = = 1$"
	err_has "^ +\^$"
	run 2 "$T" report -f 'app:nosuch x == 1' "$W/r.dat"
	err_has "unknown event 'app:nosuch'"
	# -e: whole events, a comma-separated list; with -f either selects
	run 0 "$T" report -e app:work,io:done "$W/r.dat"
	out_has " work: worker=[0-2] "
	out_has " done: seq="
	! grep -q ' request: ' "$W/out" || fail "-e: an event not listed"
	run 0 "$T" report --events io -f 'app:work worker == 2' "$W/r.dat"
	out_has " request: "
	out_has " work: worker=2 "
	! grep -Eq ' worker=[01] ' "$W/out" || fail "-e with -f: filter leak"
	run 2 "$T" report -e app:work,app:nosuch "$W/r.dat"
	err_has "unknown event 'app:nosuch'"
	run 2 "$T" report -e 'app:work,' "$W/r.dat"
	err_has "bad event list 'app:work,'"
	run 0 "$T" report --cpu 1 "$W/r.dat"
	! grep -q '\[00[02-9]\]' "$W/out" || fail "--cpu 1 printed other cpus"
	run 2 "$T" report --cpu 99 "$W/r.dat"
	err_has "bad cpu 99"
}

case_truncated_dat() {
	RINGTRACE_BUF_SIZE_KB=2048 "$T" record -q -o "$W/r.dat" -e app:work \
		-- "$S" --threads 2 --bursts 4 --burst 200 --gap-ms 30 >/dev/null \
		2>"$W/rec.err" || fail "record failed: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/r.dat"
	local size
	size=$(stat -c %s "$W/r.dat")
	cp "$W/r.dat" "$W/t.dat"
	truncate -s $((size - 5000)) "$W/t.dat"
	run 5 "$T" report "$W/t.dat"
	err_has "^ringtrace: $W/t.dat: corrupt or truncated trace.dat: "
	truncate -s 100 "$W/t.dat"
	run 5 "$T" report "$W/t.dat"
	err_has "corrupt or truncated"
	: >"$W/t.dat"
	run 5 "$T" report "$W/t.dat"
	err_has "corrupt or truncated"
	head -c 20000 /dev/urandom >"$W/t.dat"
	run 5 "$T" report "$W/t.dat"
	err_has "corrupt or truncated"
	run 2 "$T" report "$W/nosuch.dat"
	err_has "^ringtrace: no such file: $W/nosuch.dat$"
}

# a full disk while recording: a clear message, and the file keeps its
# last checkpoint. The tmpfs is 4 MiB: a sanitizer build's symbols alone
# take most of 1 MiB in the trace.dat's header.
case_disk_full() {
	[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
	mkdir "$W/mnt"
	mount -t tmpfs -o size=4m tmpfs "$W/mnt" 2>/dev/null ||
		skip "cannot mount a tmpfs here"
	MOUNTED=$W/mnt
	"$T" record --compression none -o "$W/mnt/r.dat" -e app:work \
		-e app:big -e io -- "$S" \
		--threads 3 --seconds 6 --burst 200 --gap-ms 5 \
		>"$W/rec.out" 2>"$W/rec.err"
	local rc=$?
	[ $rc = 1 ] || fail "record on a full disk exited with $rc: $(cat "$W/rec.err")"
	grep -q "^ringtrace: writing $W/mnt/r.dat: No space left on device; the file keeps what its last checkpoint wrote$" \
		"$W/rec.err" || fail "no clear message: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/mnt/r.dat"
	out_has " work: worker=[0-2] seq="
	if [ -n "$TRACE_CMD" ]; then
		"$TRACE_CMD" report "$W/mnt/r.dat" >"$W/tc.txt" 2>&1 ||
			fail "trace-cmd cannot read the partial file"
		grep -q ' work: ' "$W/tc.txt" || fail "trace-cmd reads no record"
	fi
}

# more than two bursts of the extract_crash sample logged (3 workers of
# 400 iterations): its third began after a pause over 134 ms
third_burst() {
	[ "$(cat "$W"/log/log.* 2>/dev/null | grep -c '^app:work ')" -gt 2400 ]
}

# SIGKILL mid-run: extract recovers every event the sample had committed
case_extract_crash() {
	mkdir "$W/log"
	# pauses over 134 ms: the pages extract writes need time extends
	start_sample RINGTRACE_BUF_SIZE_KB=16384 \
		RINGTRACE_EVENTS=app:work,app:big,io:request,io:done -- \
		--threads 3 --seconds 30 --burst 400 --gap-ms 140 --pin \
		--log "$W/log"
	eventually "the sample did not log a third burst" third_burst
	kill -9 "$SP"
	wait "$SP" 2>/dev/null
	run 3 "$T" pipe "$SP"
	err_has "^ringtrace: process $SP is dead: it left its trace in "
	# what the buffers hold, read in place
	run 0 "$T" show "$SP"
	grep -v '^#' "$W/out" | sort >"$W/shown"
	run 0 "$T" extract --keep --compression none -o "$W/k.dat" "$SP"
	err_has "^ringtrace: [0-9]+ events of process $SP \(sample_app\) written to $W/k.dat; 0 lost before"
	ls "$RINGTRACE_DIR/$SP"-*.ctl >/dev/null 2>&1 || fail "--keep removed the files"
	run 0 "$T" extract -o "$W/x.dat" "$(echo "$RINGTRACE_DIR/$SP"-*.ctl)"
	! ls "$RINGTRACE_DIR/$SP"-* >/dev/null 2>&1 || fail "files left after extract"
	run 0 "$T" report "$W/x.dat"
	cp "$W/out" "$W/x.txt"
	grep -v '^#' "$W/x.txt" | sort >"$W/reported"
	cmp -s "$W/shown" "$W/reported" || {
		diff "$W/shown" "$W/reported" | head >&2
		fail "the extracted trace differs from what the buffers held"
	}
	run 0 "$T" report "$W/x.dat"
	normalise <"$W/out" | sort -k2 >"$W/xn"
	has_time_extend "$W/xn" || fail "no time extend in the extracted pages"
	# the default for a file: version 7, zstd; --compression none:
	# version 6; the same records
	[ "$(head -c 11 "$W/x.dat" | tail -c 1)" = 7 ] ||
		fail "extract's default wrote no version 7 file"
	[ "$(head -c 11 "$W/k.dat" | tail -c 1)" = 6 ] ||
		fail "extract --compression none wrote no version 6 file"
	run 0 "$T" report "$W/k.dat"
	cmp -s "$W/out" "$W/x.txt" || fail "two extracts differ"
	# every logged (committed) event is in the trace: the whole lines of
	# each log (the kill may land while a flush of the log is written,
	# which can then end inside a line: that line's event is not counted,
	# and it must not run into the next file's first line)
	local f
	for f in "$W"/log/log.*; do
		if [ -n "$(tail -c 1 "$f")" ]; then
			sed '$d' "$f"
		else
			cat "$f"
		fi
	done | sort -u >"$W/logged"
	local n
	n=$(wc -l <"$W/logged")
	[ "$n" -gt 1000 ] || fail "only $n events logged"
	sed -E -n 's/^.* (work|big|request|done): (worker=[0-9]+ )?seq=([0-9]+) .*$/\1 \3/p' \
		"$W/x.txt" | sed -E 's/^(work|big)/app:\1/; s/^(request|done)/io:\1/' |
		sort -u >"$W/found"
	comm -23 "$W/logged" "$W/found" >"$W/missing"
	[ ! -s "$W/missing" ] ||
		fail "$(wc -l <"$W/missing") committed events missing, e.g. $(head -3 "$W/missing" | tr '\n' ' ')"
	if [ -n "$TRACE_CMD" ]; then
		"$TRACE_CMD" report "$W/x.dat" >"$W/tc.txt" 2>&1 ||
			fail "trace-cmd cannot read the extracted file"
		[ "$(grep -c ' work: ' "$W/tc.txt")" = "$(grep -c ' work: ' "$W/x.txt")" ] ||
			fail "trace-cmd and ringtrace count different work records"
	fi
	# a running process is not extracted
	start_sample -- --threads 1 --seconds 20 --gap-ms 20
	run 2 "$T" extract -o "$W/y.dat" "$SP"
	err_has "process $SP is still running"
}

# every verb of the tool is in the man page and in the document, and
# every exit status too
case_trigger() {
	start_sample -- --threads 2 --seconds 25 --gap-ms 10
	# no trigger yet: the kernel's two comment lines
	run 0 "$T" trigger "$SP" app:work
	out_has "^# Available triggers:"
	run 0 "$T" trigger "$SP" app:work traceoff:1 if worker == 1
	run 0 "$T" trigger "$SP" work
	out_has "^traceoff:count=[01] if worker == 1$"
	local i
	for i in $(seq 1 2000); do
		"$T" trigger "$SP" work >"$W/out" 2>/dev/null
		grep -q 'count=0' "$W/out" && break
		sleep 0.01
	done
	out_has "^traceoff:count=0 if worker == 1$"
	run 0 "$T" stat "$SP"
	run 0 "$T" trigger "$SP" app:work '!traceoff'
	run 0 "$T" trigger "$SP" app:work
	out_has "^# Available triggers:"
	# bad triggers: exit 2 and a message that says what is wrong
	run 2 "$T" trigger "$SP" app:work traceof
	err_has "^ringtrace: bad trigger for app:work: unknown trigger 'traceof'"
	run 2 "$T" trigger "$SP" app:work traceoff:many
	err_has "bad count 'many'"
	run 2 "$T" trigger "$SP" app:work enable_event:io:nosuch
	err_has "no event io:nosuch"
	run 2 "$T" trigger "$SP" app:work 'traceoff if wroker > 3'
	err_has "^ringtrace: bad trigger filter for app:work:"
	err_has "^wroker > 3$"
	err_has "^       \^$"
	err_has "^parse_error: Field not found$"
	run 2 "$T" trigger "$SP" app:nosuch traceoff
	err_has "unknown event 'app:nosuch'"
	run 2 "$T" trigger "$SP" :work traceoff
	err_has "bad event ':work'"
	# the same trigger twice: a runtime failure (1)
	run 0 "$T" on "$SP"
	run 0 "$T" trigger "$SP" app:work stacktrace:1
	run 1 "$T" trigger "$SP" app:work stacktrace
	err_has "already set"
	# the stack record, as show prints it
	for i in $(seq 1 2000); do
		"$T" show "$SP" >"$W/out" 2>/dev/null
		grep -q '<stack trace>' "$W/out" && break
		sleep 0.01
	done
	out_has " <stack trace>$"
	out_has "^ => (one_iteration|worker_main)"
	run 3 "$T" trigger 999999999 app:work traceoff
}

case_hist() {
	start_sample -- --threads 2 --seconds 25 --gap-ms 10
	# no hist trigger: an empty file
	run 0 "$T" hist "$SP" app:work
	[ ! -s "$W/out" ] || fail "hist without a trigger printed: $(cat "$W/out")"
	run 0 "$T" hist "$SP" app:work 'hist:keys=worker:vals=value:sort=worker'
	out_has "^# trigger info: hist:keys=worker:vals=hitcount,value:sort=worker:size=2048 \[active\]$"
	local i
	for i in $(seq 1 2000); do
		"$T" hist "$SP" work >"$W/out" 2>/dev/null
		grep -q '^{ worker:          1 } hitcount: ' "$W/out" && break
		sleep 0.01
	done
	out_has "^{ worker:          0 } hitcount: "
	out_has "^{ worker:          1 } hitcount: "
	out_has "^    Dropped: 0$"
	run 0 "$T" trigger "$SP" app:work
	out_has "^hist:keys=worker:vals=hitcount,value:sort=worker:size=2048 \[active\]$"
	# the kernel's error, with its caret: exit 2
	run 2 "$T" hist "$SP" app:work 'hist:keys=wroker'
	err_has "^ringtrace: bad trigger for app:work: hist:app:work: error: Couldn't find field$"
	err_has "^  Command: hist:keys=wroker$"
	err_has "^                     \^$"
	# the same one twice: exit 1
	run 1 "$T" hist "$SP" app:work 'hist:keys=worker:vals=value:sort=worker'
	run 0 "$T" hist "$SP" app:work '!hist:keys=worker:vals=value:sort=worker'
	run 0 "$T" trigger "$SP" app:work
	out_has "^# Available triggers:"
}

case_pids() {
	start_sample -- --threads 2 --seconds 25 --gap-ms 10
	run 0 "$T" pids "$SP" event
	[ ! -s "$W/out" ] || fail "the list is not empty"
	run 0 "$T" pids "$SP" event 30 10
	run 0 "$T" pids "$SP" set_event_pid 20
	run 0 "$T" pids "$SP" event
	[ "$(tr '\n' ' ' < "$W/out")" = "10 20 30 " ] || fail "list: $(cat "$W/out")"
	run 0 "$T" pids --clear "$SP" event 5
	run 0 "$T" pids "$SP" event
	[ "$(cat "$W/out")" = 5 ] || fail "--clear did not replace: $(cat "$W/out")"
	run 0 "$T" pids --clear "$SP" event
	run 0 "$T" pids "$SP" event
	[ ! -s "$W/out" ] || fail "--clear did not empty"
	run 2 "$T" pids "$SP" event 12 x
	err_has "'x' is not a thread id"
	run 2 "$T" pids "$SP" nosuch 1
	err_has "unknown list 'nosuch'"
	run 2 "$T" pids -i nosuch "$SP" ftrace
	run 3 "$T" pids 999999999 event
}

case_docs() {
	local src=${RTT_SRC:?RTT_SRC is not set} v
	run 0 "$T" --help
	for v in $(sed -n 's/^  \([a-z-]*\) .*/\1/p' "$W/out" | sort -u) stream; do
		grep -qF -- "\\fB${v//-/\\-}\\fR" "$src/tracer/tool/ringtrace.1" ||
			fail "verb $v is not in the man page"
		grep -qF -- "\`\`$v" "$src/Documentation/ringtrace.rst" ||
			fail "verb $v is not in Documentation/ringtrace.rst"
	done
	for v in 0 1 2 3 4 5; do
		grep -q "^\.B $v$" "$src/tracer/tool/ringtrace.1" ||
			fail "exit status $v is not in the man page"
		grep -q "^\`\`$v\`\`$" "$src/Documentation/ringtrace.rst" ||
			fail "exit status $v is not in Documentation/ringtrace.rst"
	done
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww -z "$src/tracer/tool/ringtrace.1" \
			2>"$W/groff.err"
		[ ! -s "$W/groff.err" ] || fail "groff: $(cat "$W/groff.err")"
	fi
}

# the cases kept in files of their own
for f in "$(dirname "$0")"/cases_*.sh; do
	. "$f"
done

declare -F "case_$CASE" >/dev/null || fail "unknown case '$CASE'"
"case_$CASE"
echo "PASS ($CASE)"
