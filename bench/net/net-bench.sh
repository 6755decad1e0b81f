#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# net-bench.sh BUILD_DIR [RUNS] - record -N's throughput: the same
# recording (the sample program writing as fast as it can) written to a
# local file and streamed to a local trace-cmd listen over TCP (-t) and
# UDP, in the same run, alternately, RUNS times (3). Prints, for each,
# the median of pages per second (the pages the recorder moved over its
# wall time) and of the events lost, and the ratio of each stream to
# the file. A ratio, never an absolute figure, is what compares.
set -u
export LC_ALL=C
B=${1:?usage: net-bench.sh BUILD_DIR [RUNS]}
RUNS=${2:-3}
T=$B/tracer/tool/ringtrace
S=$B/tracer/demo/sample_app
command -v trace-cmd >/dev/null || { echo "net-bench: trace-cmd is not installed"; exit 77; }
W=$(mktemp -d /tmp/rtt-netbench.XXXXXX)
export RINGTRACE_DIR=$W/pub
LPID=
cleanup() {
	[ -n "$LPID" ] && kill -9 -- "-$LPID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
PORT=$(python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
setsid trace-cmd listen -p "$PORT" -o "$W/net" >"$W/listen.log" 2>&1 &
LPID=$!
disown "$LPID"
sleep 0.5
# 2 threads, 4 000 000 records of app:work (about 130 MB)
WORK=(-e app:work -- "$S" --threads 2 --bursts 20 --burst 100000 --no-markers)

# one MODE: prints "pages seconds lost"
one() {
	local mode=$1 t0 t1 pages lost f
	rm -f "$W"/net.* "$W/local.dat"
	t0=$(date +%s.%N)
	case $mode in
	file) "$T" record -q -o "$W/local.dat" "${WORK[@]}" >/dev/null 2>"$W/err" ;;
	tcp) "$T" record -q -N "127.0.0.1:$PORT" -t "${WORK[@]}" >/dev/null 2>"$W/err" ;;
	udp) "$T" record -q -N "127.0.0.1:$PORT" "${WORK[@]}" >/dev/null 2>"$W/err" ;;
	esac
	t1=$(date +%s.%N)
	lost=$(sed -n 's/.*; \([0-9]*\) lost.*/\1/p' "$W/err")
	if [ "$mode" = file ]; then
		f=$W/local.dat
	else
		for i in $(seq 1 300); do
			f=$(ls "$W"/net.*.dat 2>/dev/null | head -1)
			[ -n "$f" ] && ! ls "$W"/net.*.cpu* >/dev/null 2>&1 && break
			sleep 0.05
		done
	fi
	# the stored file's pages: its size over the sub-buffer size (16
	# KiB for a command's 4 MiB buffers; the header is a rounding error)
	pages=$(( $(stat -c %s "$f") / 16384 ))
	echo "$pages $(echo "$t1 - $t0" | bc -l) ${lost:-?}"
}

for r in $(seq 1 "$RUNS"); do
	for m in file tcp udp; do
		echo "$m $(one $m)" >>"$W/runs"
	done
done
awk '{ n[$1]++; p[$1, n[$1]] = $2 / $3; l[$1, n[$1]] = $4 }
     function med(a, m, k,   i, j, t, v) {
	for (i = 1; i <= k; i++) v[i] = a[m, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((k + 1) / 2)]
     }
     END {
	f = med(p, "file", n["file"])
	for (m in n) {
		x = med(p, m, n[m])
		printf "net-bench: %-4s %9.0f pages/s (median of %d), %s events lost (median), %.2fx the file\n",
		       m, x, n[m], med(l, m, n[m]), x / f
	}
     }' "$W/runs" | sort
