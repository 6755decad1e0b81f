# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
#
# Recording over the network with trace-cmd's own protocol, on the
# loopback: record -N into Debian's trace-cmd listen, the agent that
# trace-cmd record -A drives, and the failures (a refused port, a
# listener killed mid-recording, a peer that stops reading). Sourced by
# tool_test.sh. Every port is chosen when the case runs.

# free_port: a TCP port nothing listens on now
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# listening PORT: something listens on TCP PORT (IPv4 or IPv6)
listening() {
	local hex
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
				  END { exit !f }'
}

# start_listen: a trace-cmd listen of its own (process group) storing
# into $W/net.*; sets LPORT and LPID
start_listen() {
	local i
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	command -v python3 >/dev/null || skip "python3 is not installed"
	for i in 1 2 3 4 5; do
		LPORT=$(free_port)
		setsid "$TRACE_CMD" listen -p "$LPORT" -o "$W/net" \
			>"$W/listen.log" 2>&1 &
		LPID=$!
		PIDS+=("$LPID")
		local j
		for j in $(seq 1 200); do
			listening "$LPORT" && return 0
			kill -0 "$LPID" 2>/dev/null || break
			sleep 0.02
		done
		kill -9 -- "-$LPID" 2>/dev/null
		wait "$LPID" 2>/dev/null
	done
	fail "trace-cmd listen did not start: $(cat "$W/listen.log")"
}

stop_listen() {
	kill -9 -- "-$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
}

# stored: the file trace-cmd listen stored, once it is complete (its
# per-cpu files gone); its path in $W/stored
stored() {
	local i f
	for i in $(seq 1 300); do
		f=$(ls "$W"/net.*.dat 2>/dev/null | head -1)
		if [ -n "$f" ] && ! ls "$W"/net.*.cpu* >/dev/null 2>&1; then
			echo "$f" >"$W/stored"
			return 0
		fi
		sleep 0.05
	done
	fail "trace-cmd listen stored no complete file: $(cat "$W/listen.log")"
}

# by_buffer: the records of normalise's output, each cpu buffer's in
# their order (a stable sort on the buffer), trace-cmd's cpus past the
# machine's shown as the spares they are (S0 ...)
by_buffer() {
	awk -v n="$(getconf _NPROCESSORS_CONF)" \
		'$1 ~ /^[0-9]+$/ && $1 >= n { $1 = "S" ($1 - n) } { print }' |
		sort -s -k1,1
}

# net_compare LOCAL: trace-cmd report of the stored file has the records
# of ringtrace report --spares of LOCAL (the same run, -o beside -N):
# the same events, fields, time stamps, in the same order per buffer;
# and ringtrace reads the stored file the same way
net_compare() {
	local f n
	f=$(cat "$W/stored")
	"$TRACE_CMD" report "$f" >"$W/tc.txt" 2>"$W/tc.err" ||
		fail "trace-cmd report of the stored file failed: $(cat "$W/tc.err")"
	normalise <"$W/tc.txt" | by_buffer >"$W/theirs"
	"$T" report --spares "$1" | normalise | by_buffer >"$W/ours"
	n=$(wc -l <"$W/ours")
	[ "$n" -gt 10 ] || fail "only $n records in the local recording"
	if ! cmp -s "$W/ours" "$W/theirs"; then
		diff "$W/ours" "$W/theirs" | head -20 >&2
		fail "trace-cmd report of the stored file and ringtrace report of the local one differ"
	fi
	! grep -q 'UNKNOWN EVENT' "$W/tc.txt" || fail "a record without its format"
	"$T" report --spares "$f" | normalise | by_buffer >"$W/ours2"
	cmp -s "$W/ours" "$W/ours2" ||
		fail "ringtrace report of the stored file differs from the local one's"
}

# record -N -t into trace-cmd listen (TCP), the file stored against a
# local copy of the same run; then UDP (trace-cmd's default), small
case_net_listen() {
	start_listen
	"$T" record -q -N "127.0.0.1:$LPORT" -t -o "$W/local.dat" \
		-e app:work -e app:big -e app:tick -e io -- "$S" --threads 2 \
		--bursts 3 --burst 400 --gap-ms 20 --counts "$W/counts" \
		>"$W/rec.out" 2>"$W/rec.err" ||
		fail "record -N failed: $(cat "$W/rec.err")"
	stored
	grep -q 'Using TCP' "$W/listen.log" || fail "the listener did not use TCP"
	net_compare "$W/local.dat"
	[ "$(lines "$W/tc.txt" work)" = "$(count "$W/counts" app:work)" ] ||
		fail "$(lines "$W/tc.txt" work) work records stored, $(count "$W/counts" app:work) written"
	rm -f "$W"/net.*
	# UDP datagrams: a few pages, well within a socket's buffer
	"$T" record -q -N "127.0.0.1:$LPORT" -o "$W/local2.dat" \
		-e app:work -- "$S" --threads 1 --bursts 2 --burst 30 \
		>"$W/rec.out" 2>"$W/rec.err" ||
		fail "record -N (UDP) failed: $(cat "$W/rec.err")"
	stored
	net_compare "$W/local2.dat"
	# -N alone writes no file here
	rm -f "$W"/net.*
	# (a host name where the machine resolves one; a root without
	# /etc/hosts does not)
	local lhost=localhost
	getent hosts localhost >/dev/null || lhost=127.0.0.1
	(cd "$W" && "$T" record -q -N "$lhost:$LPORT" -t -e app:work -- \
		"$S" --threads 1 --bursts 1 --burst 20 >/dev/null 2>"$W/rec.err") ||
		fail "record -N without -o failed: $(cat "$W/rec.err")"
	stored
	[ ! -e "$W/trace.dat" ] || fail "record -N wrote trace.dat"
	"$TRACE_CMD" report "$(cat "$W/stored")" >"$W/tc.txt" 2>/dev/null
	[ "$(lines "$W/tc.txt" work)" = 20 ] ||
		fail "$(lines "$W/tc.txt" work) of 20 records stored"
	stop_listen
}

# spares in use: each spare a cpu of the stored file after the CPUs,
# its records the same
case_net_spares() {
	[ -n "${RTT_SPARE:-}" ] || fail "RTT_SPARE is not set"
	start_listen
	"$T" record -q -N "127.0.0.1:$LPORT" -t -o "$W/s.dat" -e sp:rec \
		-e sp:hold -- "$RTT_SPARE" 3000 >"$W/rec.out" 2>"$W/rec.err" ||
		fail "record -N failed: $(cat "$W/rec.err")"
	stored
	net_compare "$W/s.dat"
	grep -q '^S[0-9]' "$W/ours" || fail "no record in a spare"
	[ "$(grep -c ' rec seq=' "$W/theirs")" = 3000 ] ||
		fail "$(grep -c ' rec seq=' "$W/theirs") of 3000 records stored"
	# ringtrace report of the stored file: a spare's records on the CPU
	# they were written on, as for a local file
	run 0 "$T" report "$(cat "$W/stored")"
	recs_on_their_cpu "$W/out" ||
		fail "a spare's record not shown on the CPU it was written on"
	stop_listen
}

# a fake receiver (python3): the handshake, RINIT with ports of its own
# that accept and never read; the metadata read and dropped
fake_listen() {
	python3 - "$1" <<'EOF' &
import socket, struct, sys, time
port_file = sys.argv[1]
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
open(port_file + ".tmp", "w").write(str(srv.getsockname()[1]))
import os
os.rename(port_file + ".tmp", port_file)
c, _ = srv.accept()
def rd(n):
    b = b""
    while len(b) < n:
        x = c.recv(n - len(b))
        if not x:
            sys.exit(0)
        b += x
    return b
c.sendall(b"tracecmd")
s = b""
while not s.endswith(b"\0"):
    s += rd(1)
c.sendall(b"V3\0")
rd(8)
c.sendall(b"OK")
size, cmd, fixed = struct.unpack(">III", rd(12))
body = rd(size - 12)
cpus = struct.unpack(">I", body[:4])[0]
data = []
ports = b""
for i in range(cpus):
    d = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    d.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    d.bind(("127.0.0.1", 0))
    d.listen(1)
    data.append(d)
    ports += str(d.getsockname()[1]).encode() + b"\0"
c.sendall(struct.pack(">III", 16 + len(ports), 2, 4) + struct.pack(">I", cpus) + ports)
# the messages read, the pages never
while True:
    h = c.recv(12)
    if len(h) < 12:
        break
    size, cmd, fixed = struct.unpack(">III", h)
    rd(size - 12)
time.sleep(60)
EOF
	PIDS+=($!)
	local i
	for i in $(seq 1 200); do
		[ -s "$1" ] && return 0
		sleep 0.02
	done
	fail "the fake receiver did not start"
}

# the failures: one message each, the traced program unaffected (it
# runs to its end, its records counted), nothing left behind
case_net_failures() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	local port before
	before=$(ls -A "$W")
	# a port that refuses: the command never starts
	port=$(free_port)
	run 1 "$T" record -N "127.0.0.1:$port" -t -e app:work -- "$S" \
		--counts "$W/counts"
	err_has "cannot connect to 127.0.0.1:$port: connection refused"
	[ "$(wc -l <"$W/err")" = 1 ] || fail "more than one message: $(cat "$W/err")"
	[ ! -e "$W/counts" ] || fail "the command ran"
	[ ! -e "$W/trace.dat" ] || fail "a trace.dat was written"
	# bad HOST:PORT
	run 2 "$T" record -N "127.0.0.1:0" -e app:work -- "$S"
	err_has "not HOST:PORT"
	run 2 "$T" record -t -e app:work -- "$S"
	err_has "-t goes with -N"
	# a listener killed mid-recording: the command (it writes its
	# ready file once the recorder attached) runs its bursts, then says
	# it is done and waits to be stopped, so the recording lasts until
	# the listener is gone however slow the machine
	start_listen
	"$T" record -q -N "127.0.0.1:$LPORT" -t -e app:work -- "$S" \
		--threads 2 --bursts 40 --burst 200 --gap-ms 5 \
		--ready "$W/ready" --done "$W/done" --counts "$W/counts" \
		>"$W/rec.out" 2>"$W/rec.err" &
	local rp=$! sp
	PIDS+=("$rp")
	eventually "the sample did not start: $(cat "$W/rec.err")" \
		test -s "$W/ready"
	sp=$(cat "$W/ready")
	PIDS+=("$sp")
	stop_listen
	wait "$rp"
	[ $? = 1 ] || fail "record went on after the listener died: $(cat "$W/rec.err")"
	grep -q 'closed the connection' "$W/rec.err" ||
		fail "no clear message: $(cat "$W/rec.err")"
	[ "$(wc -l <"$W/rec.err")" = 1 ] || fail "more than one message: $(cat "$W/rec.err")"
	# the program runs to its end all the same
	eventually "the traced program did not finish its bursts: $(cat "$W/counts" 2>/dev/null)" \
		test -s "$W/done"
	[ "$(count "$W/counts" app:work)" = 16000 ] ||
		fail "the traced program did not finish: $(cat "$W/counts" 2>/dev/null)"
	kill -TERM "$sp"
	wait_exit "$sp"
	rm -f "$W"/net.* "$W/counts" "$W/listen.log" "$W/ready" "$W/done"
	# a peer that stops reading: the writers never wait, the buffer
	# drops (and says so), one message at the end, after the wait for
	# the receiver (RINGTRACE_NET_TIMEOUT_MS: a second, not ten)
	fake_listen "$W/fport"
	port=$(cat "$W/fport")
	RINGTRACE_NET_TIMEOUT_MS=1000 \
	"$T" record -N "127.0.0.1:$port" -t -e app:work -- "$S" \
		--threads 2 --bursts 4 --burst 100000 --counts "$W/counts" \
		>"$W/rec.out" 2>"$W/rec.err"
	[ $? = 1 ] || fail "record did not fail: $(cat "$W/rec.err")"
	grep -q 'stopped reading' "$W/rec.err" ||
		fail "no clear message: $(cat "$W/rec.err")"
	# (the progress lines say what the buffer lost meanwhile)
	[ "$(grep -v ' events/s, ' "$W/rec.err" | grep -c 'ringtrace:')" = 1 ] ||
		fail "more than one message: $(cat "$W/rec.err")"
	# (all its records written: a writer that waited for the receiver
	# would never have finished)
	[ "$(count "$W/counts" app:work)" = 800000 ] ||
		fail "the traced program did not finish: $(cat "$W/counts" 2>/dev/null)"
	rm -f "$W/fport" "$W/counts" "$W/rec.out" "$W/rec.err" "$W/out" "$W/err"
	# nothing left behind: no file here, no publish directory entry
	[ "$(ls -A "$W" | grep -v '^pub$')" = "$(echo "$before" | grep -v '^pub$')" ] ||
		fail "left behind: $(ls -A "$W")"
	[ -z "$(ls -A "$W/pub" 2>/dev/null)" ] ||
		fail "left in the publish directory: $(ls -A "$W/pub")"
}

# start_agent ARGS...: ringtrace agent on a free port, from 127.0.0.1
# alone; sets APORT and APID
start_agent() {
	local i j
	for i in 1 2 3 4 5; do
		APORT=$(free_port)
		"$T" agent -p "$APORT" "$@" >"$W/agent.out" 2>"$W/agent.err" &
		APID=$!
		PIDS+=("$APID")
		for j in $(seq 1 200); do
			listening "$APORT" && return 0
			kill -0 "$APID" 2>/dev/null || break
			sleep 0.02
		done
		kill "$APID" 2>/dev/null
		wait "$APID" 2>/dev/null
	done
	fail "ringtrace agent did not start: $(cat "$W/agent.err")"
}

# wait_gone PID: the process ended (at most 20 s); its status in $RC
wait_gone() {
	local i
	for i in $(seq 1 400); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$1" 2>/dev/null && fail "process $1 did not end"
	wait "$1"
	RC=$?
}

# host_record OUT ARGS...: trace-cmd record ARGS in $W, its output in
# OUT; its process group is killed after it (trace-cmd 3.1.6 may leave
# recorder processes behind when its command's process crashes)
host_record() {
	local out=$1 hp rc
	shift
	(cd "$W" && exec setsid timeout 60 "$TRACE_CMD" record "$@") \
		>"$out" 2>&1 &
	hp=$!
	wait "$hp"
	rc=$?
	kill -9 -- "-$hp" 2>/dev/null
	return $rc
}

# trace-cmd record -A against ringtrace agent: the host's file and the
# app's, merged on one time line by trace-cmd report. Where the host's
# tracefs refuses kernel events, the app side alone. (trace-cmd 3.1.6
# connects the data streams to the name --name gives: a name that
# resolves, localhost here.)
case_net_agent() {
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	getent hosts localhost >/dev/null ||
		skip "localhost does not resolve here (trace-cmd needs a --name that does)"
	command -v python3 >/dev/null || skip "python3 is not installed"
	# a program that goes on while the host records its kernel
	start_agent -N 127.0.0.1 -- "$S" --threads 2 --bursts 4 \
		--burst 100 --gap-ms 100 --counts "$W/counts"
	local kernel=1 i nw
	host_record "$W/host.out" -C mono -e sched_switch \
		-A "127.0.0.1:$APORT" --name localhost -e 'app:*' sleep 1 ||
		kernel=0
	[ -s "$W/trace.dat" ] || kernel=0
	kill -INT "$APID"
	wait_gone "$APID"
	if [ "$kernel" = 0 ]; then
		echo "NOTE (net_agent): the host's tracefs refuses kernel events ($(grep -m1 -E 'not permitted|denied|No such|enable' "$W/host.out")): the app side alone"
		# trace-cmd 3.1.6 without a local instance: its command's
		# process may crash, and the session then ends at once. The
		# program writes its records as it starts, while the agent
		# waits for its events before it sends the metadata, so
		# before the host can say CLOSE; but on a loaded machine its
		# threads may not have run by then, and the file holds no
		# record. Nothing tells the host when they have: the request
		# again (a new run of the command), at most 3 times, until
		# a file holds records.
		for i in 1 2 3; do
			rm -f "$W"/trace*.dat "$W/counts"
			start_agent -N 127.0.0.1 -- "$S" --threads 2 \
				--bursts 1 --burst 200 --counts "$W/counts"
			host_record "$W/host.out" -C mono \
				-A "127.0.0.1:$APORT" --name localhost \
				-e 'app:*' true
			[ "$i" = 3 ] && break
			"$TRACE_CMD" report "$W/trace-localhost.dat" \
				2>/dev/null | grep -q ' work: ' && break
			kill -INT "$APID"
			wait_gone "$APID"
		done
	fi
	[ -s "$W/trace-localhost.dat" ] ||
		fail "no app file: $(tail -5 "$W/host.out")"
	"$TRACE_CMD" report "$W/trace-localhost.dat" >"$W/app.txt" 2>"$W/tc.err" ||
		fail "trace-cmd report of the app file failed: $(cat "$W/tc.err")"
	! grep -q "UNKNOWN EVENT" "$W/app.txt" || fail "a record without its format: $("$T" report "$W/trace-localhost.dat" 2>&1 | grep -m3 -i unknown) $(grep -c . "$W/app.txt")"
	# the records the program wrote, each once (a session the host ends
	# early keeps those written until then)
	for i in $(seq 1 200); do
		[ -s "$W/counts" ] && break
		sleep 0.02
	done
	nw=$(lines "$W/app.txt" work)
	[ "$nw" -ge 1 ] && [ "$nw" -le "$(count "$W/counts" app:work)" ] ||
		fail "$nw work records in the app file, $(count "$W/counts" app:work) written"
	[ -z "$(grep -o 'worker=[0-9]* seq=[0-9]*' "$W/app.txt" | sort | uniq -d)" ] ||
		fail "a record twice in the app file"
	# the time sync trace-cmd negotiated: its offsets are in the file
	if grep -q 'Negotiated ptp' "$W/host.out"; then
		"$TRACE_CMD" dump --options "$W/trace-localhost.dat" 2>/dev/null |
			grep -q TimeShift || fail "ptp negotiated, no time shift stored"
	fi
	if [ "$kernel" = 0 ]; then
		# another request: -f (of the -e before it) and -b; a
		# filtered event is enabled once its filter is set, so no
		# record the filter refuses is recorded
		mv "$W/trace-localhost.dat" "$W/app1.dat"
		host_record "$W/host2.out" -C mono -A "127.0.0.1:$APORT" \
			--name localhost -e app:work -f 'worker == 1' -b 2048 true
		[ -s "$W/trace-localhost.dat" ] ||
			fail "-f: no app file: $(tail -5 "$W/host2.out") $(cat "$W/agent.err")"
		"$TRACE_CMD" report "$W/trace-localhost.dat" >"$W/app2.txt" 2>/dev/null
		! grep ' work: ' "$W/app2.txt" | grep -qv 'worker=1 ' ||
			fail "-f: a record the filter refuses"
		kill -INT "$APID"
		wait_gone "$APID"
		return 0
	fi
	# one time line: the stamps of the merged report never go back,
	# and app records come between kernel records
	"$TRACE_CMD" report -i "$W/trace.dat" -i "$W/trace-localhost.dat" \
		>"$W/merged.txt" 2>"$W/tc.err" ||
		fail "trace-cmd report -i -i failed: $(cat "$W/tc.err")"
	awk '/^ *trace(-localhost)?\.dat: / {
		if (!match($0, / [0-9]+\.[0-9]+: /)) next
		t = substr($0, RSTART + 1, RLENGTH - 3) + 0
		if (t < last) { print "back in time: " $0; bad = 1 }
		last = t
		k = ($1 == "trace.dat:")
		if (k && app_after_kernel) inter = 1
		if (!k && seen_kernel) app_after_kernel = 1
		if (k) seen_kernel = 1
	     }
	     END { exit bad || !inter }' "$W/merged.txt" ||
		fail "kernel and app records do not interleave in time order"
}

# only the allowed host; a request the agent does not take: one
# message, nothing written
case_net_agent_refuse() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	start_agent -N 192.0.2.1 --once -- "$S"
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
assert s.recv(100) == b"", "the agent answered a host it does not allow"
' "$APORT" || fail "a host not allowed was answered"
	grep -q 'refused 127.0.0.1: not 192.0.2.1' "$W/agent.err" ||
		fail "no message for the refused host: $(cat "$W/agent.err")"
	kill "$APID"
	wait "$APID" 2>/dev/null
	# a request with an option the agent does not take (-o FILE)
	start_agent -N 127.0.0.1 --once -- "$S" --counts "$W/counts"
	python3 -c '
import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
args = [b"-e", b"app:work", b"-o", sys.argv[2].encode()]
a = struct.pack(">I", len(args)) + b"".join(x + b"\0" for x in args)
p = struct.pack(">II", 0, len(a)) + a
s.sendall(struct.pack(">III", 12 + 16 + len(p), 6, 16) +
          struct.pack(">IIQ", 0, len(args), 1) + p)
s.settimeout(10)
assert s.recv(100) == b"", "the agent answered"
' "$APORT" "$W/evil.dat" || fail "a request with -o was answered"
	wait_gone "$APID"
	[ "$RC" = 2 ] || fail "the agent ended with $RC, expected 2"
	grep -q "option '-o'" "$W/agent.err" ||
		fail "no message for the refused option: $(cat "$W/agent.err")"
	[ "$(wc -l <"$W/agent.err")" = 1 ] ||
		fail "more than one message: $(cat "$W/agent.err")"
	[ ! -e "$W/evil.dat" ] || fail "the agent wrote the file the request named"
	[ ! -e "$W/counts" ] || fail "the command ran"
	[ -z "$(ls -A "$W/pub" 2>/dev/null)" ] ||
		fail "left in the publish directory: $(ls -A "$W/pub")"
}
