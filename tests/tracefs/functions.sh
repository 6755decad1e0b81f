# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers the tracefs cases run with (sourced, under sh -e, in the mount).

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# write_fails VALUE FILE: writing VALUE to FILE must be refused
write_fails() {
	if sh -c "echo '$1' > '$2'" 2>/dev/null; then
		fail "writing '$1' to $2 was accepted"
	fi
}

# has REGEX FILE: a line of FILE matches
has() {
	grep -Eq -- "$1" "$2" || {
		head -20 "$2" >&2
		fail "$2 has no line matching '$1'"
	}
}

# hasnt REGEX FILE
hasnt() {
	if grep -Eq -- "$1" "$2"; then
		grep -E -- "$1" "$2" | head -5 >&2
		fail "$2 has a line matching '$1'"
	fi
}

# records FILE: the lines of a trace that are not its header
records() {
	grep -vc '^#' "$1" || true
}

# the waits' bound: 20 s, stretched in a sanitizer build
# (RB_TIMEOUT_MULT); a guard against hanging, never the condition
_wait_max=$((2000 * ${RB_TIMEOUT_MULT:-1}))

# wait_records TRACE REGEX N: until TRACE (a trace file of the mount)
# has N records matching REGEX (the sample also writes markers: waits
# count the events they are after)
wait_records() {
	_i=0
	while [ "$(grep -Ec -- "$2" "$1" || true)" -lt "$3" ]; do
		_i=$((_i + 1))
		[ $_i -lt $_wait_max ] ||
			fail "waited $((_wait_max / 100)) s for $3 '$2' in $1"
		sleep 0.01 # the poll interval
	done
}

# wait_for CMD...: until CMD succeeds (at most 20 s, stretched)
wait_for() {
	_i=0
	while ! "$@"; do
		_i=$((_i + 1))
		[ $_i -lt $_wait_max ] ||
			fail "waited $((_wait_max / 100)) s for: $*"
		sleep 0.01 # the poll interval
	done
}

# the state a case starts from, as ftracetest's initialize_ftrace
reset_tracefs() {
	echo 1 > tracing_on
	echo nop > current_tracer
	echo > set_event
	for f in events/*/*/filter; do
		[ -e "$f" ] && echo 0 > "$f"
	done
	# each trigger line read back, with '!', removes it
	for f in events/*/*/trigger; do
		[ -e "$f" ] || continue
		grep -v '^#' "$f" | while read -r _t; do
			echo "!${_t%% *}" >> "$f"
		done
	done
	for f in set_event_pid set_event_notrace_pid set_ftrace_pid \
		set_ftrace_notrace_pid; do
		[ -e "$f" ] && echo > "$f"
	done
	echo > trace
	echo > error_log
	for d in instances/*; do
		[ -d "$d" ] && rmdir "$d"
	done
	return 0
}

reset_tracefs
