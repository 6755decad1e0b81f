# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): what the tool says about a
# process and a session. pipe's closing line counts this session's
# events; report names the tracer of the file; a killed process is
# "dead" to every verb; another user's process is "permission denied"
# (exit 4), and root sees every user's processes.

# as_user UID: the command prefix that runs a copy of the tool as UID
# (sets NB and TU, or skips)
as_user() {
	[ "$(id -u)" = 0 ] || skip "needs root to run the tool as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	NB="setpriv --reuid=$1 --regid=$1 --clear-groups"
	$NB true 2>/dev/null || skip "cannot switch to uid $1"
	TU=$T
	if ! $NB test -x "$T"; then
		mkdir -p "$W/nb"
		cp "$T" "$W/nb/"
		ldd "$T" | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
			case $l in
			/lib/* | /lib64/* | /usr/*) ;;
			*) cp "$l" "$W/nb/" ;;
			esac
		done
		chmod -R a+rX "$W/nb"
		NB="$NB env LD_LIBRARY_PATH=$W/nb"
		TU=$W/nb/$(basename "$T")
		$NB test -x "$TU" || skip "uid $1 cannot run a copy of the tool"
	fi
}

case_pipe_session() {
	start_sample RINGTRACE_EVENTS=app:work -- --threads 1 --seconds 30 \
		--gap-ms 2
	local k n read pp
	for k in 1 2; do
		# interrupted once it printed a record (attached and reading),
		# not after a fixed time: a slow start (a sanitizer build on a
		# loaded machine) took longer than half a second, and a Ctrl-C
		# before the attach ends with one message and no counts
		"$T" pipe -s "$SP" >"$W/p$k.out" 2>"$W/p$k.err" &
		pp=$!
		PIDS+=("$pp")
		eventually "session $k printed no record: $(cat "$W/p$k.err")" \
			grep -q ' work: ' "$W/p$k.out"
		kill -INT "$pp"
		wait "$pp" ||
			fail "session $k: pipe exited with $?: $(cat "$W/p$k.err")"
		n=$(grep -v '^#' "$W/p$k.out" | grep -vc '^CPU:[0-9]* \[LOST')
		read=$(sed -n 's/^ringtrace: \([0-9]*\) events read, .*/\1/p' "$W/p$k.err")
		[ -n "$read" ] || fail "no closing line: $(cat "$W/p$k.err")"
		[ "$read" = "$n" ] ||
			fail "session $k: $n records printed, the closing line says $read read"
	done
}

case_report_tracer() {
	[ -n "$C" ] || skip "no sample_calls"
	run 0 "$T" record -q -o "$W/f.dat" -p function -- "$C" -d 3 200
	run 0 "$T" report "$W/f.dat"
	out_has "^# tracer: function$"
	run 0 "$T" record -q -o "$W/g.dat" -p function_graph -- "$C" -d 3 200
	run 0 "$T" report "$W/g.dat"
	out_has "^# tracer: function_graph$"
}

case_dead_and_users() {
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	local dead=$SP v
	kill -9 "$dead"
	wait "$dead" 2>/dev/null
	for v in pipe show-no stat-no; do
		[ "$v" = pipe ] || continue
		run 3 "$T" "$v" "$dead"
		err_has "^ringtrace: process $dead is dead: it left its trace in "
	done
	run 3 "$T" enable "$dead" app:work
	err_has "^ringtrace: process $dead is dead"
	run 3 "$T" options "$dead"
	err_has "^ringtrace: process $dead is dead"
	run 0 "$T" list
	out_has "^$dead +sample_app +dead "
	# another user's process, in that user's publish directory
	as_user 65533
	mkdir -m 700 "$W/u"
	chown 65534:65534 "$W/u"
	chmod 755 "$W"
	rm -f "$W/ready"
	touch "$W/ready" && chown 65534 "$W/ready" && : >"$W/ready"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env RINGTRACE_DIR="$W/u" \
		"$S" --ready "$W/ready" --threads 1 --seconds 30 --gap-ms 20 \
		>/dev/null 2>&1 &
	local up=$! i
	PIDS+=("$up")
	# (where uid 65534 cannot run it, say in a build tree under /root,
	# the process is gone at once: no waiting out the 5 s)
	for i in $(seq 1 500); do
		[ -s "$W/ready" ] && break
		kill -0 "$up" 2>/dev/null || break
		sleep 0.01
	done
	[ -s "$W/ready" ] || skip "uid 65534 cannot run the sample"
	# root finds it in its directory
	run 0 "$T" list
	out_has "^$up +sample_app +running "
	run 0 "$T" stat "$up"
	# another user may not
	run 4 $NB env RINGTRACE_DIR="$W/nb-pub" "$TU" pipe "$up"
	err_has "^ringtrace: permission denied: process $up \(sample_app\) is another user's$"
	run 4 $NB env RINGTRACE_DIR="$W/nb-pub" "$TU" enable "$up" app:work
	err_has "permission denied"
}

# report --format=json: marker and trace_printk() text in "buf", UTF-8
# as it is, other bytes as U+FFFD, the document valid JSON
case_json_text() {
	local X=${RTT_TEXT:?RTT_TEXT is not set}
	run 0 "$T" record -q -o "$W/t.dat" -- "$X"
	run 0 "$T" report --format=json "$W/t.dat"
	python3 - "$W/out" <<'PY' || fail "the JSON of the markers is wrong"
import json, sys
raw = open(sys.argv[1], 'rb').read()
doc = json.loads(raw.decode('utf-8'))
bufs = [e['args'].get('buf') for e in doc['traceEvents']
        if e.get('ph') == 'i' and 'buf' in e.get('args', {})]
want = ['printf caf\u00e9\n', 'marker caf\u00e9 \u20ac',
        'bad \ufffd\ufffd \ufffd cut "q" \\ \x01 end']
for w in want:
    if not any(b is not None and b.rstrip('\n') == w.rstrip('\n') for b in bufs):
        print('missing %r in %r' % (w, bufs), file=sys.stderr)
        sys.exit(1)
PY
}

# read back what the control verbs set: without a value they print it
case_read_back() {
	start_sample RINGTRACE_EVENTS=app:work -- --threads 1 --seconds 30 \
		--gap-ms 20
	run 0 "$T" tracer "$SP"
	out_has "^nop$"
	run 0 "$T" tracer "$SP" function
	run 0 "$T" tracer "$SP"
	out_has "^function$"
	run 0 "$T" clock "$SP"
	out_has "^\[mono\] mono_raw boot x86-tsc$"
	run 0 "$T" buffer-size "$SP" 64
	run 0 "$T" buffer-size "$SP"
	out_has "^64$"
	run 0 "$T" enable "$SP"
	out_has "^app:work$"
	run 0 "$T" filter "$SP" app:work 'worker == 1'
	run 0 "$T" filter "$SP" app:work
	out_has "^worker == 1$"
	run 2 "$T" disable "$SP"
}

# a publish directory others may read is refused with the reason
case_publish_dir_mode() {
	mkdir -m 755 "$W/open"
	RINGTRACE_DIR=$W/open RINGTRACE_EVENTS=app:work "$S" --threads 1 \
		--seconds 0.1 >/dev/null 2>"$W/err"
	err_has "^ringtrace: not published: directory $W/open has mode 0755; it must be 0700 \(chmod 700 $W/open\)$"
	[ -z "$(ls -A "$W/open")" ] || fail "files published in $W/open"
}

# instance: create one for -i NAME, list them, remove it
case_instance() {
	start_sample -- --threads 1 --seconds 30 --gap-ms 20
	run 2 "$T" enable -i extra "$SP" app:work
	err_has "has no instance 'extra'"
	run 0 "$T" instance "$SP" extra
	run 0 "$T" instance "$SP"
	out_has "^top$"
	out_has "^extra$"
	run 0 "$T" enable -i extra "$SP" app:work
	run 0 "$T" enable -i extra "$SP"
	out_has "^app:work$"
	run 0 "$T" instance -r "$SP" extra
	run 0 "$T" instance "$SP"
	! grep -q "^extra$" "$W/out" || fail "the instance is still there"
	run 2 "$T" instance "$SP" 'a/b'
	run 2 "$T" instance -r "$SP"
}
