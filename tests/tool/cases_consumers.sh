# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): one consumer per buffer. A
# second pipe or record of a buffer another one consumes is refused,
# naming the first, before it changes anything; once the first is gone
# the buffer can be consumed again.

case_one_consumer() {
	local first i
	# (a sanitizer build's verbs are slower: the sample outlives them)
	start_sample RINGTRACE_EVENTS=app:work -- --threads 1 \
		--seconds $((30 * ${RB_TIMEOUT_MULT:-1})) --gap-ms 5
	"$T" pipe "$SP" >"$W/first.out" 2>"$W/first.err" &
	first=$!
	PIDS+=("$first")
	for i in $(seq 1 500); do
		[ -s "$W/first.out" ] && break
		sleep 0.01
	done
	[ -s "$W/first.out" ] || fail "the first pipe printed nothing"
	run 0 "$T" options "$SP"
	cp "$W/out" "$W/opts"
	run 1 "$T" pipe "$SP"
	err_has "^ringtrace: the buffer of process $SP is being consumed by process $first \(ringtrace\): one consumer per buffer"
	[ "$(wc -l <"$W/err")" = 1 ] || fail "more than one line: $(cat "$W/err")"
	run 1 "$T" pipe -O sym-addr -e app:tick "$SP"
	err_has "being consumed by process $first"
	run 1 "$T" record -q -o "$W/r.dat" -O sym-addr -e app:tick -P "$SP"
	err_has "being consumed by process $first"
	[ ! -e "$W/r.dat" ] || fail "record made a file"
	run 0 "$T" options "$SP"
	cmp -s "$W/out" "$W/opts" || fail "a refused consumer changed the options"
	run 0 "$T" list
	out_has "^$SP +sample_app +running +top +1 "
	# viewing is not consuming
	run 0 "$T" show "$SP"
	kill "$first"
	wait "$first" 2>/dev/null
	run 124 timeout 1 "$T" pipe "$SP"
	out_has " work: "
}
