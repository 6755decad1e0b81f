# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): the files of the publish
# directory. record leaves none behind, whether its command is a shell
# that runs the traced program or the recorder is stopped or killed;
# 'clean' removes a dead process's files, the user's own, and never a
# live one's; 'list' marks them.

case_record_leftovers() {
	# a shell that runs the traced program: it is found and recorded
	# (bursts 20 ms apart: a report of thousands of records, not of a
	# third of a second of writing without a pause)
	run 0 "$T" record -q -o "$W/sh.dat" -e app:work -- sh -c \
		"\"$S\" --threads 1 --seconds 0.3 --gap-ms 20 >/dev/null; true"
	run 0 "$T" report "$W/sh.dat"
	out_has " work: "
	no_leftovers
	# the recorder stopped (SIGTERM) or killed while its command runs:
	# the command removes its files at its exit. (The command writes its
	# ready file in main(), after the recorder attached and let it go;
	# it runs until it is stopped, --seconds only a guard.)
	local rec sig
	for sig in TERM KILL; do
		"$T" record -q -o "$W/k.dat" -e app:work -- "$S" --threads 1 \
			--seconds $((60 * ${RB_TIMEOUT_MULT:-1})) --gap-ms 20 \
			--ready "$W/ready.$sig" >/dev/null 2>&1 &
		rec=$!
		PIDS+=("$rec")
		eventually "the command did not write $W/ready.$sig" \
			test -s "$W/ready.$sig"
		local app
		app=$(pgrep -n -f -- "--ready $W/ready.$sig")
		[ -n "$app" ] || fail "the command did not start"
		PIDS+=("$app")
		kill -"$sig" "$rec"
		wait "$rec" 2>/dev/null
		kill -TERM "$app" 2>/dev/null
		wait_exit "$app"
		no_leftovers
	done
}

case_clean() {
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	local live=$SP
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	local dead=$SP other
	kill -9 "$dead"
	wait "$dead" 2>/dev/null
	# another user's leftovers are not ours to remove
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	other=$SP
	kill -9 "$other"
	wait "$other" 2>/dev/null
	chown 65534 "$RINGTRACE_DIR/$other"-* 2>/dev/null || other=
	# a dead process's files that no reader takes (the control file cut
	# short, as one of another version's layout reads): marked, removed
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	local stale=$SP
	kill -9 "$stale"
	wait "$stale" 2>/dev/null
	truncate -s 1000 "$RINGTRACE_DIR/$stale"-*.ctl
	run 0 "$T" list
	out_has "^$dead +sample_app +dead +top +- +[0-9]+ \*$"
	out_has "^$live +sample_app +running +top +[0-9]+ +[0-9]+$"
	[ -z "$other" ] || ! grep -q "^$other .*\*$" "$W/out" ||
		fail "another user's files are marked"
	out_has "^$stale +\? +corrupt +- +- +- \*$"
	out_has "^\* the files of a dead process"
	run 0 "$T" clean -n
	out_has "^would remove $dead \(sample_app\)$"
	out_has "^would remove $stale \(\?\)$"
	ls "$RINGTRACE_DIR/$dead"-*.ctl >/dev/null 2>&1 || fail "clean -n removed files"
	run 0 "$T" clean
	out_has "^removed $dead \(sample_app\)$"
	! grep -q "^removed $live " "$W/out" || fail "a live process's files removed"
	! ls "$RINGTRACE_DIR/$dead"-* >/dev/null 2>&1 || fail "the dead process's files are still there"
	out_has "^removed $stale \(\?\)$"
	! ls "$RINGTRACE_DIR/$stale"-* >/dev/null 2>&1 || fail "the unreadable files are still there"
	ls "$RINGTRACE_DIR/$live"-*.ctl >/dev/null 2>&1 || fail "the live process's files are gone"
	[ -z "$other" ] || ls "$RINGTRACE_DIR/$other"-*.ctl >/dev/null 2>&1 ||
		fail "another user's files were removed"
	run 2 "$T" clean extra
	run 2 "$T" clean --bogus
}
