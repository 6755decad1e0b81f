#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# security_test.sh CASE - the ringtrace tool against a hostile traced
# program (hostile.c), one class of attack per case.
#
# Environment (set by tests/security/CMakeLists.txt):
#   RTT_TOOL      the ringtrace program
#   RTT_HOSTILE   the hostile traced program
#   RTT_SANITIZE  asan or tsan in a sanitizer build
#
# As root, the hostile program runs as a second user (uid 65534, with
# setpriv) and every verb runs twice: as root and as that user; a third
# user (65533) is the attacker of the cases where one user attacks
# another. Without root the program and the verbs run as the caller, and
# the cases that need other users exit 77. Every verb must end (a
# timeout, a signal or a sanitizer report fails), with the documented
# exit status and a message that says what was refused; nothing a
# process writes reaches the terminal unescaped.
set -u
export LC_ALL=C

T=${RTT_TOOL:?RTT_TOOL is not set}
H=${RTT_HOSTILE:?RTT_HOSTILE is not set}
SAN=${RTT_SANITIZE:-}
CASE=${1:?usage: security_test.sh CASE}
# a sanitizer report is a failure of the verb, not a message
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99:verify_asan_link_order=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=99"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}exitcode=99"

W=$(mktemp -d /tmp/rtt-sec.XXXXXX)
chmod 755 "$W"
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
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

# ---- users -------------------------------------------------------------------

ROOT=0
AS_U=
AS_A=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	ROOT=1
	AS_U="setpriv --reuid=65534 --regid=65534 --clear-groups"
	AS_A="setpriv --reuid=65533 --regid=65533 --clear-groups"
	# a build tree under a private home: copies the other users can run
	if ! $AS_U test -x "$T" || ! $AS_U test -x "$H"; then
		mkdir "$W/bin"
		cp "$T" "$H" "$W/bin/"
		ldd "$T" "$H" | awk '$3 ~ /^\// { print $3 }' | sort -u |
			while read -r l; do
				case $l in
				/lib/* | /lib64/* | /usr/*) ;;
				*) cp "$l" "$W/bin/" ;;
				esac
			done
		chmod -R a+rX "$W/bin"
		AS_U="$AS_U env LD_LIBRARY_PATH=$W/bin"
		AS_A="$AS_A env LD_LIBRARY_PATH=$W/bin"
		T=$W/bin/$(basename "$T")
		H=$W/bin/$(basename "$H")
		$AS_U test -x "$T" || skip "uid 65534 cannot run a copy of the tool"
	fi
	# the sanitizers' suppression files are read by the other users'
	# runs too: copies they can read, when the tree is private
	if [[ ${TSAN_OPTIONS:-} == *suppressions=* ]]; then
		supp=${TSAN_OPTIONS##*suppressions=}
		supp=${supp%%:*}
		if [ -f "$supp" ] && ! $AS_U test -r "$supp"; then
			cp "$supp" "$W/tsan.supp"
			chmod a+r "$W/tsan.supp"
			TSAN_OPTIONS=${TSAN_OPTIONS//suppressions=$supp/suppressions=$W/tsan.supp}
		fi
	fi
fi
need_root() {
	[ "$ROOT" = 1 ] || skip "needs root (and setpriv) for a second user"
}

# the hostile program's publish directory and its signal files
export RINGTRACE_DIR=$W/pub
mkdir -m 700 "$W/pub"
mkdir -m 777 "$W/x"
[ "$ROOT" = 1 ] && chown 65534:65534 "$W/pub"

# ---- running -----------------------------------------------------------------

# run_as WHO EXPECTED CMD...: CMD as root ("") or as the user, at most
# 30 s; output in $W/out and $W/err. EXPECTED is a list of statuses.
run_as() {
	local who=$1 want=$2 rc
	shift 2
	rm -f "$W/err.root"
	# (30 s, stretched by RB_TIMEOUT_MULT: a guard against a hang)
	timeout -s KILL $((30 * ${RB_TIMEOUT_MULT:-1})) $who "$@" >"$W/out" 2>"$W/err"
	rc=$?
	[ "$rc" = 137 ] && fail "'$*' did not end within $((30 * ${RB_TIMEOUT_MULT:-1})) s (or was killed)"
	[ "$rc" -ge 128 ] && fail "'$*' died of signal $((rc - 128))"
	[ "$rc" = 99 ] && { head -40 "$W/err" >&2; fail "'$*': a sanitizer report"; }
	case " $want " in
	*" $rc "*) ;;
	*)
		echo "--- stdout" >&2
		head -c 2000 "$W/out" | head -20 >&2
		echo "--- stderr" >&2
		head -c 2000 "$W/err" | head -20 >&2
		fail "'$*'${who:+ (as $who)} exited with $rc, expected $want"
		;;
	esac
	# nothing of another process's text raw on a terminal
	if grep -q $'\x1b\|\x07' "$W/out" "$W/err"; then
		fail "'$*': an escape sequence in its output"
	fi
}

# run EXPECTED CMD...: as root, and as the user too when there is one
# (the last run's output stays)
run() {
	local want=$1
	shift
	run_as "" "$want" "$@"
	if [ "$ROOT" = 1 ]; then
		cp "$W/err" "$W/err.first"
		run_as "$AS_U" "$want" "$@"
		mv "$W/err.first" "$W/err.root"
	fi
}

err_has() {
	grep -Eq -- "$1" "$W/err" || {
		head -c 2000 "$W/err" >&2
		fail "stderr does not match '$1'"
	}
	if [ -f "$W/err.root" ] && [ "$ROOT" = 1 ]; then
		grep -Eq -- "$1" "$W/err.root" || {
			head -c 2000 "$W/err.root" >&2
			fail "root's stderr does not match '$1'"
		}
	fi
}

one_line() {
	[ "$(wc -l <"$W/err")" -le 1 ] || {
		cat "$W/err" >&2
		fail "more than one line on stderr"
	}
}

HN=0
# hostile [WHO] [ARGS...] MODE: start the hostile program (as the user
# when root, or as WHO given with "as=WHO"), wait until it published;
# sets HP. The attack is made by attack().
hostile() {
	local who=$AS_U i
	case ${1:-} in
	as=*)
		who=${1#as=}
		shift
		;;
	esac
	rm -f "$W/x/ready" "$W/x/go"
	# each its own output (one still running writes into its own)
	HN=$((HN + 1))
	HOUT=$W/h$HN.out
	HERR=$W/h$HN.err
	# small buffers: the verbs read them whole, sanitizer builds too
	$who env RINGTRACE_DIR="$RINGTRACE_DIR" RINGTRACE_BUF_SIZE_KB=32 \
		"$H" --ready "$W/x/ready" --go "$W/x/go" "$@" \
		>"$HOUT" 2>"$HERR" &
	HP=$!
	PIDS+=("$HP")
	for i in $(seq 1 1000); do
		[ -s "$W/x/ready" ] && break
		kill -0 "$HP" 2>/dev/null || {
			cat "$HERR" >&2
			fail "the hostile program exited early"
		}
		sleep 0.01
	done
	[ -s "$W/x/ready" ] || fail "the hostile program did not start"
}

# attack: let it strike, wait until it did (or died: --after kill)
attack() {
	local i
	touch "$W/x/go"
	for i in $(seq 1 1000); do
		grep -q '^attacked' "$HOUT" 2>/dev/null && return 0
		kill -0 "$HP" 2>/dev/null || {
			wait "$HP" 2>/dev/null
			grep -q '^attacked' "$HOUT" && return 0
			cat "$HOUT" "$HERR" >&2
			fail "the hostile program died before its attack"
		}
		sleep 0.01
	done
	fail "the hostile program did not attack"
}

stop_hostile() {
	kill -9 "$HP" 2>/dev/null
	wait "$HP" 2>/dev/null
}

# targets a control file may name: a FIFO, a device node, the kernel's
# symbols, a file only root reads
targets() {
	mkfifo -m 666 "$W/x/fifo"
	echo "secret of root" >"$W/secret"
	chmod 600 "$W/secret"
	echo "$W/x/fifo /dev/zero /proc/kallsyms $W/secret"
}

# ---- cases -------------------------------------------------------------------

# Paths in the control file are never opened: the files are the ones the
# tool names from the pid and start time.
case_ctl_paths() {
	local t
	for t in $(targets); do
		hostile --target "$t" ctl-events
		attack
		run 5 "$T" show "$HP"
		err_has "^ringtrace: refused: corrupt control file .*: its events file is '$t', not $HP-[0-9]+\.events$"
		one_line
		run 5 "$T" list -e "$HP"
		err_has "its events file is"
		stop_hostile

		hostile --target "$t" ctl-buf
		attack
		run 5 "$T" show "$HP"
		err_has "^ringtrace: refused: corrupt control file .*: instance slot 0 names '$t', not a buffer file of process $HP$"
		one_line
		run 5 "$T" stat "$HP"
		err_has "instance slot 0 names"
		stop_hostile

		# a dead process's symbols: extract names its own file only
		hostile --target "$t" --after kill ctl-syms
		attack
		wait "$HP" 2>/dev/null
		run_as "" 5 "$T" extract -k -o "$W/x.dat" "$HP"
		err_has "^ringtrace: refused: corrupt control file .*: its symbols file is '$t', not $HP-[0-9]+\.syms$"
		one_line
		[ -e "$W/x.dat" ] && fail "extract wrote $W/x.dat"
		run 5 "$T" list -f "$HP"
		err_has "its symbols file is"
		"$T" clean >/dev/null 2>&1
		rm -f "$RINGTRACE_DIR/$HP"-* 2>/dev/null
	done
	# the process must not have been opened: the FIFO still has no writer
	# and the secret was not read
	return 0
}

# Names and texts of the process reach the terminal escaped.
case_ctl_text() {
	hostile ctl-comm
	attack
	run 0 "$T" list
	grep -Eq "^$HP +\?\[2J\?\]0;pwn\?XXXX +running" "$W/out" || {
		cat "$W/out" >&2
		fail "list does not show the name escaped"
	}
	stop_hostile

	hostile ctl-inst
	attack
	run 0 "$T" instance "$HP"
	grep -q '\[2J' "$W/out" && fail "an instance named out of the directory is listed"
	run 0 "$T" list
	stop_hostile

	hostile ctl-cmdlines
	attack
	run 0 "$T" show "$HP"
	stop_hostile

	# garbage over the instance table: refused as corrupt, not "no trace
	# buffer yet"
	hostile ctl-garbage
	attack
	run 5 "$T" show "$HP"
	# (which check refuses it first depends on the random bytes)
	err_has "^ringtrace: refused: corrupt control file "
	one_line
	run 5 "$T" stat "$HP"
	run 5 "$T" pipe "$HP"
	stop_hostile
}

# A control file the process serves itself, answering with lies.
case_fake_replies() {
	hostile --target /proc/kallsyms fake-syms
	attack
	run 5 "$T" list -f "$HP"
	err_has "^ringtrace: refused: process $HP answered 'syms' with '/proc/kallsyms', not its symbols file $HP-[0-9]+\.syms$"
	one_line
	stop_hostile

	hostile fake-huge
	attack
	run 0 "$T" enable "$HP"
	[ "$(wc -c <"$W/out")" -le $((256 * 1024 + 1)) ] ||
		fail "a reply longer than the reply area"
	stop_hostile

	hostile fake-esc
	attack
	run 2 "$T" enable "$HP" hostile:note
	err_has "^ringtrace: process $HP: \?\]0;owned\?\?\[2J"
	stop_hostile

	hostile fake-status
	attack
	run 5 "$T" enable "$HP" hostile:note
	err_has "^ringtrace: process $HP: Protocol error$"
	one_line
	stop_hostile

	# a command lock that names no process is taken over
	hostile ctl-lock
	attack
	run 0 "$T" enable "$HP" hostile:note
	run 0 "$T" list
	stop_hostile

	# (the wait for the answer set short, RINGTRACE_CMD_TIMEOUT_MS, but
	# longer than 'ringtrace list' as root, of another test maybe, holds
	# the command lock of every traced process: 1000 ms, then the same
	# message about the lock)
	hostile fake-mute
	attack
	run_as "" 1 env RINGTRACE_CMD_TIMEOUT_MS=2500 "$T" enable "$HP" hostile:note
	err_has "^ringtrace: process $HP: process $HP did not answer '.*' within 2500 ms$"
	stop_hostile
}

# The events and symbols files: checked, bounded, escaped.
case_events_files() {
	hostile events-esc
	attack
	run 5 "$T" list -e "$HP"
	err_has "has a name that is not printable"
	stop_hostile

	hostile events-huge
	attack
	run 5 "$T" show "$HP"
	err_has "^ringtrace: refused: corrupt file .*\.events: 2147483648 bytes, more than [0-9]+$"
	one_line
	stop_hostile

	hostile events-fifo
	attack
	run 4 "$T" show "$HP"
	err_has "^ringtrace: refused: .*\.events is not a regular file$"
	one_line
	stop_hostile

	hostile events-garbage
	attack
	run "0 5" "$T" show "$HP"
	stop_hostile

	hostile syms-garbage
	attack
	run "0 5" "$T" list -f "$HP"
	stop_hostile
}

# The publish directory: a real directory, 0700, of the right user.
case_dir_rules() {
	# not 0700: refused at once, the command never run
	mkdir -m 755 "$W/open"
	run_as "" 4 env RINGTRACE_DIR="$W/open" "$T" record -q \
		-o "$W/r.dat" -- sh -c "touch $W/x/ran"
	err_has "^ringtrace: refused: the publish directory $W/open has mode 0755; it must be 0700"
	one_line
	[ -e "$W/x/ran" ] && fail "record ran the command in a refused directory"
	[ -e "$W/r.dat" ] && fail "record left $W/r.dat"

	# a symbolic link: a dead process's files behind it are not read
	hostile --after kill none
	attack
	wait "$HP" 2>/dev/null
	ln -s "$W/pub" "$W/link"
	run 4 env RINGTRACE_DIR="$W/link" "$T" extract -k -o "$W/x/l.dat" "$HP"
	err_has "^ringtrace: refused: the publish directory $W/link is a symbolic link$"
	one_line
	run 4 env RINGTRACE_DIR="$W/link" "$T" list
	err_has "^ringtrace: refused: the publish directory $W/link is a symbolic link$"
	one_line
	grep -q "^$HP " "$W/out" && fail "list shows an entry behind a link"

	# made 0755 under a live process: its verbs refused
	hostile none
	chmod 755 "$W/pub"
	run 4 "$T" show "$HP"
	err_has "^ringtrace: refused: the publish directory $W/pub has mode 0755; it must be 0700 \(chmod 700 $W/pub\)$"
	one_line
	chmod 700 "$W/pub"
	stop_hostile

	need_root
	# another user made the directory a user's name points to and
	# linked his own live control file there under the user's pid
	mkdir -m 777 "$W/sq"
	local victim=$W/sq/ringtrace-65534
	$AS_A mkdir -m 700 "$victim"
	# the user's program cannot publish there (it says so and runs on)
	RINGTRACE_DIR=$victim hostile none
	grep -q '^unpublished' "$HOUT" || fail "published in a squatted directory"
	local vp=$HP
	mkdir -m 700 "$W/a" && chown 65533:65533 "$W/a"
	RINGTRACE_DIR=$W/a hostile as="$AS_A" --victim "$vp" \
		--victim-dir "$victim" ctl-link
	attack
	run_as "$AS_U" 4 env RINGTRACE_DIR="$victim" "$T" enable "$vp" hostile:note
	err_has "^ringtrace: refused: the publish directory $victim belongs to uid 65533, not to uid 65534 as its name says$"
	one_line
	run_as "$AS_U" 4 env RINGTRACE_DIR="$victim" "$T" list
	err_has "^ringtrace: refused: the publish directory $victim belongs to uid 65533, not to uid 65534 as its name says$"
	one_line
	# root lists every user's: that one skipped, with a warning
	run_as "" 0 env RINGTRACE_DIR="$W/pub" "$T" list
	err_has "^ringtrace: warning: refused: the publish directory $victim belongs to uid 65533"
	# (a dead process's files of the same pid elsewhere: see owner_link)
	[ "$(awk -v p="$vp" '$1 == p && $3 != "dead" { n++ } END { print n + 0 }' "$W/out")" = 0 ] ||
		fail "list shows the attacker's process under the victim's pid"
	stop_hostile
	kill -9 "$vp"
}

# Another user's control file linked under a live process's pid, in a
# directory root looks into: refused, as the kernel says the pid is not
# that user's.
case_owner_link() {
	need_root
	hostile none
	local vp=$HP
	mkdir -m 700 "$W/a" && chown 65533:65533 "$W/a"
	RINGTRACE_DIR=$W/a hostile as="$AS_A" --victim "$vp" \
		--victim-dir "$W/a" ctl-link
	attack
	run_as "" 0 env RINGTRACE_DIR="$W/a" "$T" list
	err_has "^ringtrace: warning: refused: $W/a/$vp-[0-9]+\.ctl belongs to uid 65533, but process $vp runs as uid 65534$"
	# its own row (root lists the directory of its environment too), once;
	# not counted: the files a dead process of the same pid left in a
	# directory root lists too (every user's, every live process's:
	# other tests' processes under a pid reused since)
	[ "$(awk -v p="$vp" '$1 == p && $3 != "dead" { n++ } END { print n + 0 }' "$W/out")" -le 1 ] ||
		fail "list shows the attacker's process under the victim's pid"
	local ctl
	ctl=$(ls "$W/a/$vp"-*.ctl)
	run_as "" 4 "$T" extract -k -o "$W/o.dat" "$ctl"
	err_has "belongs to uid 65533, but process $vp runs as uid 65534$"
	one_line
	run_as "" 4 env RINGTRACE_DIR="$W/a" "$T" enable "$vp" hostile:note
	err_has "belongs to uid 65533, but process $vp runs as uid 65534$"
	# the victim's own files still answer
	run 0 "$T" enable "$vp" hostile:note
	stop_hostile
	kill -9 "$vp"
}

# A setuid program: the caller's environment does not place its files,
# and it is not published unless it says so.
case_setuid() {
	need_root
	[ -n "$SAN" ] && skip "a sanitizer runtime in a setuid program"
	mkdir -m 755 "$W/suid"
	cp "$H" "$W/suid/hostile"
	chown 65533:65533 "$W/suid/hostile"
	chmod 4755 "$W/suid/hostile"
	[ -u "$W/suid/hostile" ] || skip "cannot make a setuid copy here"
	local out
	out=$($AS_U env RINGTRACE_DIR="$W/x/evil" "$W/suid/hostile" \
		--secs 0 none 2>&1)
	case $out in
	*"error while loading shared libraries"*)
		skip "the setuid copy cannot load the libraries of this build" ;;
	esac
	[ "$out" = unpublished ] || fail "a setuid program: '$out', expected 'unpublished'"
	[ -e "$W/x/evil" ] && fail "a setuid program made the caller's RINGTRACE_DIR"
	# allowed by the program: published as its effective uid
	local had=0 dir=/dev/shm/ringtrace-65533
	[ -d "$dir" ] && had=1
	out=$($AS_U env RINGTRACE_DIR="$W/x/evil" "$W/suid/hostile" \
		--allow-secure --secs 0 none 2>&1)
	[ "$had" = 0 ] && rm -rf "$dir"
	case $out in
	"published $dir/"*) ;;
	*) fail "an allowed setuid program: '$out', expected 'published $dir/...'" ;;
	esac
	[ -e "$W/x/evil" ] && fail "a setuid program made the caller's RINGTRACE_DIR"
	return 0
}

# Root looks at another user's program: read-only, and without warnings.
case_foreign_view() {
	need_root
	hostile none
	attack
	run_as "" 0 "$T" show "$HP"
	[ -s "$W/err" ] && { cat "$W/err" >&2; fail "root's show printed a warning"; }
	run_as "" 0 "$T" stat "$HP"
	[ -s "$W/err" ] && { cat "$W/err" >&2; fail "root's stat printed a warning"; }
	run_as "" 4 "$T" pipe "$HP"
	err_has "another user's buffer can only be viewed, not consumed"
	stop_hostile
}

# A trace.dat of another user's files, made by root, is root's alone.
case_trace_dat_mode() {
	need_root
	hostile --after kill none
	attack
	wait "$HP" 2>/dev/null
	run_as "" 0 "$T" extract -k -o "$W/r.dat" "$HP"
	[ "$(stat -c %a "$W/r.dat")" = 600 ] ||
		fail "root's trace.dat of a user's process has mode $(stat -c %a "$W/r.dat")"
}

# Buffer files rewritten by their writer before a reader attaches:
# every reader ends, with a status and no signal. The modes that strike
# while a reader is attached (geomrace, metaoffrace, random, truncloop,
# lockhold) and lockgarbage (a reader lock of no kind) are the soak's
# (soak.sh): they need the reader to read each value once from its
# checked copy, to survive SIGBUS and to validate and wait for a reader
# lock in slices.
case_buffer_modes() {
	local m
	for m in commit len typelen delta loop ids geom metaoff counters \
		trunc trunc0 replace; do
		hostile "$m"
		attack
		run "0 5" "$T" show "$HP"
		run "0 5" "$T" stat "$HP"
		stop_hostile
	done
}

# wait_caught PID [BLOCKED]: until PID runs the tool and catches SIGINT
# and SIGTERM (/proc/PID/status), and with BLOCKED sleeps in a wait
# (nanosleep, futex, poll: /proc/PID/syscall); at most 20 s. (A verb
# that then does not end is the suite's time-out.)
wait_caught() {
	local i n t cgt
	t=$(readlink -f "$T")
	for i in $(seq 1 2000); do
		[ -d "/proc/$1" ] || return 1
		if [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$t" ]; then
			cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
			n=
			[ -n "${2:-}" ] && read -r n _ <"/proc/$1/syscall" 2>/dev/null
			if [ -n "$cgt" ] && (((0x$cgt & 0x4002) == 0x4002)); then
				case ${2:-}:$n in
				: | *:7 | *:35 | *:202 | *:230 | *:271) return 0 ;;
				esac
			fi
		fi
		sleep 0.01
	done
	return 1
}

# Ctrl-C and SIGTERM end a verb that waits on the process: the waits are
# interruptible, whatever the process holds. Not a measure of time: the
# verb is caught in its wait (a command lock the program holds for good,
# a buffer whose readers' lock it holds), signalled, and must end with
# its documented status and message within a long bound.
case_signals() {
	local vp rc ep cp
	hostile ctl-lockhold
	attack
	# record -P waits for the command lock: Ctrl-C ends it, exit 1
	"$T" record -P "$HP" -o "$W/r.dat" >"$W/out" 2>"$W/err" &
	vp=$!
	PIDS+=("$vp")
	wait_caught "$vp" blocked || fail "record -P did not wait for the command lock"
	kill -INT "$vp"
	wait "$vp"
	rc=$?
	[ "$rc" = 1 ] || { cat "$W/err" >&2; fail "record -P at SIGINT exited with $rc, expected 1"; }
	err_has "^ringtrace: process $HP: interrupted while waiting for the command lock of process $HP$"
	one_line
	stop_hostile

	# pipe (the program's user's: root only views another user's
	# buffer) on a buffer whose readers' lock the program holds: SIGTERM
	# ends it as at any other time, exit 0
	hostile --keep-writing lockhold
	$AS_U "$T" pipe "$HP" >/dev/null 2>"$W/err" &
	vp=$!
	PIDS+=("$vp")
	attack
	wait_caught "$vp" || fail "pipe did not start"
	kill -TERM "$vp"
	wait "$vp"
	rc=$?
	# reading (0), or still asking the process (its symbols): that
	# wait is interrupted (1, one line saying so)
	[ "$rc" = 0 ] || { [ "$rc" = 1 ] &&
		grep -qx "ringtrace: .*interrupted while waiting for .*" "$W/err"; } ||
		{ cat "$W/err" >&2; fail "pipe at SIGTERM exited with $rc, expected 0"; }
	stop_hostile

	# the mount ends at SIGTERM and takes its mount point with it
	[ -e /dev/fuse ] && command -v fusermount3 >/dev/null || return 0
	mkdir -m 700 "$W/mnt"
	hostile ctl-lockhold
	"$T" mount -f "$HP" "$W/mnt" >/dev/null 2>"$W/err" &
	vp=$!
	PIDS+=("$vp")
	for rc in $(seq 1 1000); do
		mountpoint -q "$W/mnt" && break
		sleep 0.01
	done
	mountpoint -q "$W/mnt" || { cat "$W/err" >&2; fail "the mount did not come"; }
	attack
	# a write that waits for the command lock and a read of trace_pipe
	# that waits for text (the writers stopped), ended by the end
	(echo 1 >"$W/mnt/tracing_on") 2>/dev/null &
	ep=$!
	cat "$W/mnt/trace_pipe" >/dev/null 2>&1 &
	cp=$!
	sleep 0.2
	kill -TERM "$vp"
	wait "$vp"
	rc=$?
	[ "$rc" = 0 ] || { cat "$W/err" >&2; fail "the mount at SIGTERM exited with $rc, expected 0"; }
	mountpoint -q "$W/mnt" && { umount -l "$W/mnt"; fail "SIGTERM left the mount behind"; }
	wait "$ep" "$cp"
	stop_hostile
}

type "case_$CASE" >/dev/null 2>&1 || fail "no case $CASE"
[ -n "${RTT_SEC_TRACE:-}" ] && set -x
"case_$CASE"
echo "PASS ($CASE)"
