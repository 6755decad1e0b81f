# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): commands are all or nothing. A
# bad name anywhere in a command (an event, a tracer, an option) is
# found before anything is changed or run: exit code 2, one message,
# and the process as it was.

case_all_or_nothing() {
	local d=$W/a
	mkdir "$d"
	# a command registers its events as it runs: an unknown one is
	# an error once it ran
	run 2 "$T" record -q -o "$d/y.dat" -e nosuch:ev -- "$S" --seconds 0.2
	err_has "unknown event 'nosuch:ev'"
	no_leftovers
	# record: nothing runs, nothing is left
	run 2 "$T" record -q -o "$d/x.dat" -p bogus -- "$S" --seconds 0.2 \
		--counts "$d/ran"
	err_has "^ringtrace: unknown tracer 'bogus'"
	run 2 "$T" record -q -o "$d/x.dat" -O bogus -- "$S" --seconds 0.2 \
		--counts "$d/ran"
	err_has "^ringtrace: unknown option 'bogus'$"
	run 2 "$T" record -q -o "$d/x.dat" -e '' -- "$S" --seconds 0.2 \
		--counts "$d/ran"
	[ ! -e "$d/ran" ] || fail "the command ran"
	[ ! -e "$d/x.dat" ] || fail "an output file was made"
	no_leftovers
	# a running process: nothing changes
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	run 0 "$T" options "$SP"
	cp "$W/out" "$d/opts"
	run 2 "$T" options "$SP" sym-addr bogus
	err_has "^ringtrace: unknown option 'bogus'"
	run 0 "$T" options "$SP"
	cmp -s "$W/out" "$d/opts" || fail "options changed: $(diff "$d/opts" "$W/out")"
	run 2 "$T" enable "$SP" ''
	err_has "empty event name"
	run 2 "$T" enable "$SP" app:work nosuch:ev
	err_has "unknown event 'nosuch:ev'"
	run 2 "$T" record -q -o "$d/p.dat" -P "$SP" -e app:work -e nosuch:ev
	[ ! -e "$d/p.dat" ] || fail "record -P made a file"
	run 0 "$T" list
	out_has "^$SP +sample_app +running +top +0 "
	run 2 "$T" snapshot --free --clear "$SP"
	err_has "give one of them"
	run 2 "$T" snapshot --clear --free "$SP"
}

# The option table (rtt_options): a bad number names the option and the
# value, options that do not go together are named both, a repeated
# option collects every value.
case_option_table() {
	run 2 "$T" pipe -c 70000 1
	err_has "^ringtrace: pipe: bad cpu '70000' for -c/--cpu (.*65535)"
	run 2 "$T" report --tid 0 x.dat
	err_has "bad thread id '0' for --tid"
	run 2 "$T" report -t 5q x.dat
	err_has "bad threshold '5q' for -t/--threshold"
	run 2 "$T" record -b 0 -o "$W/t.dat" -- "$S" --seconds 0.1
	err_has "bad buffer size '0' for -b/--buffer-size"
	run 2 "$T" record -q --preload --no-preload -o "$W/t.dat" -- \
		"$S" --seconds 0.1
	err_has "^ringtrace: record: --preload: not with --no-preload"
	[ ! -e "$W/t.dat" ] || fail "record ran with --preload --no-preload"
	run 2 "$T" report --graph f --stat x.dat
	err_has "^ringtrace: report: --stat: not with --graph"
	run 2 "$T" snapshot --clear --free 1
	err_has "^ringtrace: snapshot: --free: not with --clear"
	# --format=text is the default: it goes with --stat
	run 2 "$T" report --format=text --stat "$W/nope.dat"
	err_has "no such file"
}

# Numbers are strict decimal everywhere, a negative one is named as such
# (not as an unknown option), the culprit of a refused command is the
# one named, an empty count or thread id is refused, and every verb has
# --help.
case_numbers_and_help() {
	run 0 "$T" record -q -o "$W/n.dat" -e app:work -- "$S" --seconds 0.2
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	run 2 "$T" buffer-size "$SP" -1
	err_has "'-1': a negative number"
	! grep -q "unknown option" "$W/err" || fail "-1 taken for an option"
	# cpu buffer 4096 does not exist: the cpu is to blame, not the size
	run 2 "$T" buffer-size "$SP" 64 4096
	err_has "cpu buffer 4096: no such cpu buffer \(0-[0-9]+\)"
	! grep -q "buffer_size_kb 64" "$W/err" || fail "the size was blamed"
	run 2 "$T" pids "$SP" event ''
	err_has "an empty word is not a thread id"
	run 0 "$T" pids "$SP" event
	[ ! -s "$W/out" ] || fail "set_event_pid changed: $(cat "$W/out")"
	run 2 "$T" trigger "$SP" app:work 'traceoff:'
	err_has "empty ':' field"
	run 0 "$T" trigger "$SP" app:work
	! grep -v "^#" "$W/out" | grep -q traceoff || fail "a trigger was set: $(cat "$W/out")"
	for t in 0x1 1e3 inf +1 ' 1' 1. .5; do
		run 2 "$T" report -t "$t" --stat "$W/n.dat"
		err_has "bad threshold"
		run 2 "$T" report --time-range "$t~" "$W/n.dat"
		err_has "bad time range"
	done
	run 0 "$T" report -t 1.5us --stat "$W/n.dat"
	run 0 "$T" report --time-range "0~1000000.5" "$W/n.dat"
	run 0 "$T" umount --help
	out_has "^usage: ringtrace umount DIR"
	run 0 "$T" extract --help
	! grep -q FILE_OR_PID "$W/out" || fail "extract --help names FILE_OR_PID"
}
