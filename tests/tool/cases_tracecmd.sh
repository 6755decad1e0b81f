# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by tool_test.sh: the trace.dat files ringtrace writes, read by
# every mode of trace-cmd that reads a file, and trace-cmd's own files
# read by ringtrace.

# tc_norm ARGS: tc_norm.py (the records as "cpu ts pid key" lines)
# one_cpu: "taskset -c N" with the first CPU this shell may run on, or
# nothing without taskset. A function_graph recording compared with
# trace-cmd runs on one CPU: a thread that moves to another CPU inside a
# call has that call folded differently by the two readers (ringtrace
# also looks at the thread's records on the other buffers:
# rt_iter_returns_here() in print.c; trace-cmd at the next record alone).
# first_cpus N: "taskset -c LIST" with the first N CPUs this shell may run
# on (fewer if it may run on fewer), or nothing without taskset.
first_cpus() {
	local list
	command -v taskset >/dev/null || return 0
	list=$(taskset -pc $$ 2>/dev/null | sed -n 's/.*: *//p' | tr ',' '\n' |
		awk -v n="$1" -F- '{ hi = NF > 1 ? $2 : $1
			for (c = $1; c <= hi && k < n; c++) { printf "%s%d", k ? "," : "", c; k++ } }')
	[ -n "$list" ] && echo "taskset -c $list"
}
one_cpu() {
	first_cpus 1
}

# The version of the trace.dat $1 (the digit after "tracing").
dat_version() {
	head -c 11 "$1" | tail -c 1
}

tc_norm() {
	python3 -S "$(dirname "$0")/tc_norm.py" "$(getconf _NPROCESSORS_CONF)" "$@"
}

# tc_ok NAME CMD...: CMD exits with 0 (no signal), output in $W/tc.out
tc_ok() {
	local name=$1 rc
	shift
	"$@" >"$W/tc.out" 2>"$W/tc.err"
	rc=$?
	[ "$rc" = 0 ] || {
		head -5 "$W/tc.err" >&2
		fail "$name: '$*' exited with $rc"
	}
}

# tc_same NAME OURS THEIRS: two normalised record lists are equal
tc_same() {
	cmp -s "$2" "$3" || {
		diff "$2" "$3" | head -10 >&2
		fail "$1: trace-cmd's records differ from ringtrace report's"
	}
}

# tc_modes FILE EVENT KEY GRAPH: every file-reading mode of trace-cmd
# on FILE: no signal, and where it prints the records, the records of
# 'ringtrace report --spares'. EVENT: an event of the file for -F, KEY:
# an awk regex of the keys of its records; GRAPH: 1 for a function_graph
# file (compared without time stamps, in each cpu's order: the entries,
# and each thread's count of returns; tc_norm.py says why).
tc_modes() {
	local f=$1 ev=$2 key=$3 graph=$4 nts= srt="sort" cpus c m
	if [ "$graph" = 1 ]; then
		nts=--entries
		srt="sort -s -k1,1"
	fi
	"$T" report --spares "$f" >"$W/ours.txt" 2>"$W/ours.err" ||
		fail "ringtrace report $f: $(cat "$W/ours.err")"
	tc_norm $nts <"$W/ours.txt" | $srt >"$W/ours"
	[ -s "$W/ours" ] || fail "$f: no records"

	tc_ok report "$TRACE_CMD" report "$f"
	tc_norm $nts <"$W/tc.out" | $srt >"$W/theirs"
	tc_same "report $f" "$W/ours" "$W/theirs"
	if [ "$graph" = 1 ]; then
		tc_norm --returns <"$W/ours.txt" | sort >"$W/ours.ret"
		tc_norm --returns <"$W/tc.out" | sort >"$W/theirs.ret"
		[ -s "$W/ours.ret" ] || fail "$f: no returns"
		tc_same "report $f (returns)" "$W/ours.ret" "$W/theirs.ret"
	fi
	cpus=$(sed -n 's/^cpus=//p' "$W/tc.out")

	# one cpu at a time: together, every record
	: >"$W/percpu"
	for c in $(seq 0 $((cpus - 1))); do
		tc_ok "--cpu $c" "$TRACE_CMD" report --cpu "$c" "$f"
		tc_norm $nts <"$W/tc.out" >>"$W/percpu"
	done
	$srt <"$W/percpu" >"$W/theirs"
	tc_same "report --cpu $f" "$W/ours" "$W/theirs"

	# a filter (the mode libtracecmd crashed on with buffer instances);
	# its output redirected to a file must be whole
	tc_ok "-F $ev" "$TRACE_CMD" report -F "$ev" "$f"
	# (a call's entry is "f();" or "f() {" as its return is seen next to
	# it or not, which a filter that hides returns changes: the name)
	tc_norm $nts <"$W/tc.out" | sed -E 's/\(\)(;| \{)$//' | $srt >"$W/theirs"
	awk -v k="$key" -v n="$graph" '{
		s = $0
		sub(n == 1 ? "^[^ ]+ [^ ]+ " : "^[^ ]+ [^ ]+ [^ ]+ ", "", s)
		if (s ~ k) print }' "$W/ours" | sed -E 's/\(\)(;| \{)$//' \
		>"$W/ours.ev"
	[ -s "$W/ours.ev" ] || fail "$f: no $ev record"
	tc_same "report -F $ev $f" "$W/ours.ev" "$W/theirs"

	for m in -R -t -l -w --profile --stat -I -S; do
		tc_ok "report $m" "$TRACE_CMD" report $m "$f"
		[ -s "$W/tc.out" ] || fail "trace-cmd report $m $f printed nothing"
	done
	for m in "" --summary --head-page --head-event --ftrace-events \
		--systems --events --kallsyms --printk --cmd-lines --options \
		--flyrecord --clock --all; do
		tc_ok "dump $m" "$TRACE_CMD" dump $m "$f"
	done
	tc_ok hist "$TRACE_CMD" hist -i "$f"

	# split, and convert to either version: the same records
	rm -f "$W"/split.dat*
	tc_ok split "$TRACE_CMD" split -i "$f" -o "$W/split.dat"
	tc_ok "report (split)" "$TRACE_CMD" report "$W"/split.dat*
	tc_norm $nts <"$W/tc.out" | $srt >"$W/theirs"
	tc_same "split $f" "$W/ours" "$W/theirs"
	# trace-cmd 3.1.6's convert drops the first cpu's records of a
	# compressed input, its own files' too (convert -i a zstd file that
	# its convert made: cpu 0 is empty), at a size that varies from run
	# to run: a compressed file is not converted here.
	"$TRACE_CMD" dump --summary "$f" 2>/dev/null |
		grep -Eq '^[[:space:]]*(zstd|zlib)[[:space:]]+\[Compression algorithm\]' &&
		return 0
	for m in "7" "7 --compression none" "6 --compression none"; do
		rm -f "$W/conv.dat"
		tc_ok "convert $m" "$TRACE_CMD" convert -i "$f" -o "$W/conv.dat" \
			--file-version $m
		tc_ok "report (convert $m)" "$TRACE_CMD" report "$W/conv.dat"
		tc_norm $nts <"$W/tc.out" | $srt >"$W/theirs"
		tc_same "convert --file-version $m $f" "$W/ours" "$W/theirs"
		# and ringtrace reads what trace-cmd converted
		"$T" report --spares "$W/conv.dat" >"$W/conv.txt" \
			2>"$W/conv.err" ||
			fail "ringtrace report of convert $m: $(cat "$W/conv.err")"
		tc_norm $nts <"$W/conv.txt" | $srt >"$W/theirs"
		tc_same "ringtrace report, convert --file-version $m $f" \
			"$W/ours" "$W/theirs"
	done
}

# The five kinds of recordings, and records in spares (used and empty),
# through every mode of trace-cmd.
case_trace_cmd_modes() {
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	command -v python3 >/dev/null || fail "python3 is needed"
	[ -n "$C" ] || fail "RTT_CALLS is not set"
	# version 6 files (trace-cmd converts them; version 7 is
	# record_compressed's)
	local g="-O funcgraph-abstime -O funcgraph-proc" pin=
	# events and markers
	"$T" record --compression none -q -o "$W/ev.dat" -e app -e io -- "$S" --threads 3 \
		--bursts 2 --burst 70 >/dev/null 2>"$W/rec.err" ||
		fail "record: $(cat "$W/rec.err")"
	"$T" report "$W/ev.dat" | tc_norm >"$W/ev.n"
	grep -q ' marker ' "$W/ev.n" || fail "no marker in ev.dat"
	tc_modes "$W/ev.dat" work "^work " 0
	# function_graph of an -O2 program
	$(one_cpu) "$T" record --compression none -q $g -o "$W/fg.dat" -p function_graph -- \
		"$C" -t 2 300 >/dev/null 2>"$W/rec.err" ||
		fail "record: $(cat "$W/rec.err")"
	tc_modes "$W/fg.dat" funcgraph_entry "[{;]$" 1
	# both
	$(one_cpu) "$T" record --compression none -q $g -o "$W/mix.dat" -p function_graph -e app:work \
		-- "$S" --threads 2 --bursts 2 --burst 20 >/dev/null \
		2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
	tc_modes "$W/mix.dat" work "^work " 1
	# 8 writer threads on (at most) 2 CPUs
	pin=$(first_cpus 2)
	$pin "$T" record --compression none -q -o "$W/t8.dat" -e app:work -e app:big -- "$S" \
		--threads 8 --bursts 2 --burst 200 --no-markers >/dev/null \
		2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
	tc_modes "$W/t8.dat" big "^big " 0
	# one record
	"$T" record --compression none -q -o "$W/one.dat" -e app:work -- "$S" --threads 1 \
		--bursts 1 --burst 1 --no-markers >/dev/null 2>"$W/rec.err" ||
		fail "record: $(cat "$W/rec.err")"
	[ "$(tc_norm <<<"$("$T" report "$W/one.dat")" | wc -l)" = 1 ] ||
		fail "one.dat holds more than one record"
	tc_modes "$W/one.dat" work "^work " 0
	# records in spares: the spares in use are cpus after the CPUs (empty
	# ones among them where the first used spare is not spare 0)
	if [ -n "${RTT_SPARE:-}" ]; then
		"$T" record --compression none -q -o "$W/sp.dat" -e sp:rec -e sp:hold -- \
			"$RTT_SPARE" 2000 >/dev/null 2>"$W/rec.err" ||
			fail "record: $(cat "$W/rec.err")"
		tc_modes "$W/sp.dat" rec "^rec " 0
		grep -q '^S[0-9]* ' "$W/ours" || fail "sp.dat: no spare's record"
	fi
	# (which spares hold records depends on the scheduling: that the
	# empty ones after the last used one are left out is
	# format.test_tracedat.spares)
}

# trace-cmd's own files, recorded from the kernel (an instance and the
# top buffer; version 7, zstd-compressed, as trace-cmd writes it, and
# version 6 as trace-cmd converts it): ringtrace report shows the records
# trace-cmd shows.
case_trace_cmd_files() {
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	local tr=/sys/kernel/tracing inst
	[ "$(id -u)" = 0 ] || skip "needs root (the kernel's tracing)"
	[ -e "$tr/trace_marker" ] ||
		mount -t tracefs nodev "$tr" 2>/dev/null ||
		skip "no tracefs"
	[ -w "$tr/trace_marker" ] || skip "tracefs is not writable"
	inst=rtt$$
	mkdir "$tr/instances/$inst" 2>/dev/null || skip "no tracefs instances"
	(
		set -e
		echo 16 >"$tr/instances/$inst/buffer_size_kb"
		echo 1 >"$tr/instances/$inst/tracing_on"
		for i in 1 2 3 4 5; do
			echo "instance $i" >"$tr/instances/$inst/trace_marker"
		done
		echo 0 >"$tr/instances/$inst/tracing_on"
	) || { rmdir "$tr/instances/$inst"; skip "the kernel refuses the instance"; }
	"$TRACE_CMD" extract -B "$inst" -o "$W/k7.dat" >/dev/null 2>"$W/x.err"
	local rc=$?
	rmdir "$tr/instances/$inst" 2>/dev/null
	[ "$rc" = 0 ] || skip "trace-cmd extract failed: $(head -1 "$W/x.err")"
	# the kernel's formats: libtraceevent leaks parsing a few of them
	[ "$SAN" = asan ] &&
		export LSAN_OPTIONS="suppressions=$(dirname "$0")/lsan_kernel.supp"
	tc_ok convert "$TRACE_CMD" convert -i "$W/k7.dat" -o "$W/k6.dat" \
		--file-version 6 --compression none
	tc_ok report "$TRACE_CMD" report "$W/k7.dat"
	# the records (trace-cmd's plugins print some events' fields their
	# own way: cpu, time, thread and event, and a marker's text)
	tc_norm <"$W/tc.out" | sed -E 's/^(([^ ]+ ){3}[^ ]+)( .*)?$/\1/' |
		sort >"$W/theirs"
	tc_norm <"$W/tc.out" | grep -c ' marker instance ' >"$W/n"
	[ "$(cat "$W/n")" = 5 ] || fail "trace-cmd shows $(cat "$W/n") markers of 5"
	# version 7 as trace-cmd writes it (compressed), and version 6
	local f
	for f in k7 k6; do
		run 0 "$T" report "$W/$f.dat"
		tc_norm <"$W/out" | sed -E 's/^(([^ ]+ ){3}[^ ]+)( .*)?$/\1/' |
			sort >"$W/ours"
		tc_same "ringtrace report of trace-cmd's $f.dat" "$W/ours" "$W/theirs"
		[ "$(tc_norm <"$W/out" | grep -c ' marker instance ')" = 5 ] ||
			fail "$f.dat: the instance's markers are not all shown"
	done
}

# KernelShark's library opens every kind of recording (events and
# markers, function_graph, records in spares) with no error, as one
# stream (no buffer instance), and loads every record of the file: the
# default's version 7 (zstd) files and version 6 (--compression none).
case_kernelshark() {
	[ -n "${RTT_KSHARK:-}" ] ||
		skip "libkshark-dev is not installed (bash scripts/deps.sh --test)"
	[ -n "$C" ] || fail "RTT_CALLS is not set"
	local f n
	"$T" record -o "$W/ev.dat" -e app -e io -- "$S" --threads 3 \
		--bursts 2 --burst 70 >/dev/null 2>"$W/ev.err" ||
		fail "record: $(cat "$W/ev.err")"
	"$T" record -o "$W/fg.dat" -p function_graph -- "$C" -t 2 300 \
		>/dev/null 2>"$W/fg.err" || fail "record: $(cat "$W/fg.err")"
	if [ -n "${RTT_SPARE:-}" ]; then
		"$T" record --compression none -o "$W/sp.dat" -e sp:rec \
			-e sp:hold -- "$RTT_SPARE" 2000 >/dev/null \
			2>"$W/sp.err" || fail "record: $(cat "$W/sp.err")"
	fi
	for f in ev fg sp; do
		[ -e "$W/$f.dat" ] || continue
		[ "$(dat_version "$W/$f.dat")" = "$([ $f = sp ] && echo 6 || echo 7)" ] ||
			fail "$f.dat is a version $(dat_version "$W/$f.dat") file"
		n=$(sed -n 's/^ringtrace: \([0-9]*\) events recorded in .*/\1/p' \
			"$W/$f.err")
		# (libkshark and libtracecmd leak a few bytes at each open)
		run 0 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$RTT_KSHARK" "$W/$f.dat"
		[ "$(grep -c '^stream ' "$W/out")" = 1 ] ||
			fail "$f.dat: KernelShark opens $(grep -c '^stream ' "$W/out") streams"
		out_has "^total $n$"
		! grep -qi 'unknown option\|error\|fail' "$W/err" ||
			fail "$f.dat: KernelShark says: $(cat "$W/err")"
	done
}

# record --compression zstd: a version 7 file with zstd-compressed
# sections, which every file-reading mode of trace-cmd reads with the
# records ringtrace report shows (events and markers, and function_graph
# of 4 threads on 2 CPUs, several chunks a cpu); smaller than the same
# recording uncompressed, and ringtrace report shows the same of that
# one as of its conversion to version 7. The default: zstd for a file
# (-c's files: record_follow), version 6 for -o - and with --compression
# none. A bad algorithm, or -N alone: exit status 2, no file.
case_record_compressed() {
	[ -n "$TRACE_CMD" ] || skip "trace-cmd is not installed"
	command -v python3 >/dev/null || fail "python3 is needed"
	[ -n "$C" ] || fail "RTT_CALLS is not set"
	local g="-O funcgraph-abstime -O funcgraph-proc" pin= z u m
	run 2 "$T" record --compression lz4 -o "$W/bad.dat" -e app -- "$S"
	err_has "--compression takes zstd or none"
	[ ! -e "$W/bad.dat" ] || fail "a bad --compression left bad.dat"
	run 2 "$T" record --compression zstd -N localhost:1 -e app -- "$S"
	err_has "--compression is for the file"
	"$T" record -q --compression zstd -o "$W/ez.dat" -e app -e io -- \
		"$S" --threads 3 --bursts 2 --burst 70 >/dev/null \
		2>"$W/rec.err" || {
		grep -q "without libzstd" "$W/rec.err" &&
			skip "ringtrace was built without libzstd"
		fail "record: $(cat "$W/rec.err")"
	}
	# the header: version 7, zstd
	[ "$(dat_version "$W/ez.dat")" = 7 ] ||
		fail "ez.dat is not a version 7 file"
	tc_ok "dump" "$TRACE_CMD" dump --summary "$W/ez.dat"
	grep -q "zstd" "$W/tc.out" || fail "trace-cmd dump shows no zstd"
	tc_modes "$W/ez.dat" work "^work " 0
	pin=$(one_cpu)
	for z in zstd none; do
		$pin "$T" record -q $g --compression $z -o "$W/f$z.dat" \
			-p function_graph -- "$C" -t 4 800 >/dev/null \
			2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
	done
	tc_modes "$W/fzstd.dat" funcgraph_entry "[{;]$" 1
	z=$(stat -c %s "$W/fzstd.dat")
	u=$(stat -c %s "$W/fnone.dat")
	[ "$z" -lt "$u" ] || fail "compressed $z bytes, uncompressed $u"
	[ "$(dat_version "$W/fnone.dat")" = 6 ] ||
		fail "--compression none wrote a version $(dat_version "$W/fnone.dat") file"
	# the same run compressed (trace-cmd convert: its chunks of 10
	# pages): ringtrace report shows the same of both, reading the
	# compressed one a chunk at a time. (Converting a compressed file
	# to version 6 is no reference: trace-cmd 3.1.6's convert drops
	# records of a file of 16 KiB pages.)
	tc_ok "convert" "$TRACE_CMD" convert --file-version 7 \
		-i "$W/fnone.dat" -o "$W/fn7.dat"
	[ "$(dat_version "$W/fn7.dat")" = 7 ] ||
		fail "trace-cmd convert wrote no version 7 file"
	for m in "" "--stat" "--format=json" "--cpu 0"; do
		# shellcheck disable=SC2086
		"$T" report $m "$W/fn7.dat" >"$W/z.out" 2>"$W/z.err" ||
			fail "report $m fn7.dat: $(cat "$W/z.err")"
		# shellcheck disable=SC2086
		"$T" report $m "$W/fnone.dat" >"$W/6.out" 2>"$W/6.err" ||
			fail "report $m fnone.dat: $(cat "$W/6.err")"
		cmp -s "$W/z.out" "$W/6.out" ||
			fail "report $m: the file compressed and not differ"
		[ -n "$m" ] || [ "$(grep -c 'calls_outer() {$' "$W/z.out")" = 3200 ] ||
			fail "report fn7.dat: not the 3200 calls of calls_outer"
	done
	# the defaults: a file is compressed, standard output is version 6;
	# both read back whole by either reader (every call the sample made)
	$pin "$T" record -q $g -o "$W/fdef.dat" -p function_graph -- \
		"$C" -t 4 800 >/dev/null 2>"$W/rec.err" ||
		fail "record: $(cat "$W/rec.err")"
	$pin "$T" record -q $g -o - -p function_graph -- "$C" -t 4 800 \
		>"$W/fout.dat" 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
	[ "$(dat_version "$W/fdef.dat")" = 7 ] ||
		fail "the default for a file: version $(dat_version "$W/fdef.dat")"
	[ "$(dat_version "$W/fout.dat")" = 6 ] ||
		fail "the default for -o -: version $(dat_version "$W/fout.dat")"
	"$TRACE_CMD" dump --summary "$W/fdef.dat" 2>&1 | grep -q zstd ||
		fail "trace-cmd dump shows no zstd in the default's file"
	for z in def out; do
		run 0 "$T" report "$W/f$z.dat"
		grep -c 'calls_outer() {$' "$W/out" >"$W/n.$z"
		"$TRACE_CMD" report "$W/f$z.dat" >"$W/tc.out" 2>"$W/tc.err" ||
			fail "trace-cmd report f$z.dat: $(head -3 "$W/tc.err")"
		grep -cE 'calls_outer\(\)( \{|;)$' "$W/tc.out" >"$W/t.$z"
		[ "$(cat "$W/n.$z")" = 3200 ] && [ "$(cat "$W/t.$z")" = 3200 ] ||
			fail "f$z.dat: $(cat "$W/n.$z") calls of calls_outer in ringtrace report, $(cat "$W/t.$z") in trace-cmd's (3200 made)"
	done
}
