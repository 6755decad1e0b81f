# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by tool_test.sh: function_graph recordings of calls that never
# return (longjmp, C++ exceptions), the outputs built on the call tree
# (text, JSON, --stat, --graph) against the tree the program logged.

# graph_check PROG N [ARGS...]: record PROG N TREE ARGS... (its tree
# logged to TREE) and check every output against it (graph_check.py)
graph_check() {
	local prog=$1 n=$2
	shift 2
	rm -f "$W/tree" "$W/g.dat"
	"$T" record -q -o "$W/g.dat" -p function_graph -- "$prog" "$n" \
		"$W/tree" "$@" \
		>"$W/prog.out" 2>"$W/rec.err" ||
		fail "record $*: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/g.dat"
	cp "$W/out" "$W/g.txt"
	run 0 "$T" report --format=json "$W/g.dat"
	cp "$W/out" "$W/g.json"
	run 0 "$T" report --stat "$W/g.dat"
	cp "$W/out" "$W/g.stat"
	python3 "$(dirname "$0")/graph_check.py" "$W/tree" "$W/g.txt" \
		"$W/g.json" "$W/g.stat" || fail "$*: the outputs differ from the program's call tree"
}

# errors raised by longjmp() over instrumented frames, as an interpreter
# raises them: every output closes the frames the longjmp left
case_report_longjmp() {
	[ -n "${RTT_JMP:-}" ] || fail "RTT_JMP is not set"
	command -v python3 >/dev/null || fail "python3 is needed"
	graph_check "$RTT_JMP" 300
	local thrown
	thrown=$(sed -n 's/^thrown //p' "$W/prog.out")
	[ "${thrown:-0}" -gt 50 ] || fail "only ${thrown:-0} errors raised"
	# the function that never returns, in --stat and --graph
	[ "$(stat_calls "$W/g.stat" jmp_throw)" = "$thrown" ] ||
		fail "--stat: jmp_throw $(stat_calls "$W/g.stat" jmp_throw) calls, $thrown made"
	run 0 "$T" report --graph jmp_throw "$W/g.dat"
	out_has "jmp_raise$"
	# a time range that ends inside calls: the slices it closes are named
	run 0 "$T" report --format=json "$W/g.dat"
	local mid
	mid=$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if "ts" in e and e["ph"] != "M"]
print("%.6f" % (ev[len(ev) // 2]["ts"] / 1e6))' "$W/out")
	run 0 "$T" report --format=json --time-range "~$mid" "$W/g.dat"
	! grep -q '"name":""' "$W/out" || fail "an unnamed slice end"
	python3 - "$W/out" <<'EOF' || fail "JSON of a time range: slices do not nest"
import json, sys
st = {}
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    s = st.setdefault(e.get("tid"), [])
    if e["ph"] == "B":
        s.append(e["name"])
    elif e["ph"] == "E":
        assert s and s.pop() == e["name"], e
assert not any(st.values())
EOF
}

# exc_case PROG: the five ways of sample_exc.cc, the program built by one
# compiler; the outputs against the tree the program logged, C++ names
# demangled (and --no-demangle keeps them as they are)
exc_case() {
	command -v python3 >/dev/null || fail "python3 is needed"
	graph_check "$@"
	grep -q 'level2b' "$W/g.txt" || fail "no demangled name: $(sed -n 5,8p "$W/g.txt")"
	run 0 "$T" report --no-demangle "$W/g.dat"
	out_has "_Z7level2bi\(\) \{$"
	# a glob matches the demangled name (and the mangled one)
	run 0 "$T" report --graph 'level2*' "$W/g.dat"
	out_has " level2b$"
	run 0 "$T" report -F '_Z9rethroweri' "$W/g.dat"
	out_has "^ *[0-9]+\).*\|  rethrower\(\) \{$"
	! grep -q 'catcher' "$W/out" || fail "-F rethrower shows another subtree"
}

case_report_exc_gcc() {
	[ -n "${RTT_EXC_GCC:-}" ] || skip "g++ is not installed"
	exc_case "$RTT_EXC_GCC" 40
}

# clang++ runs no exit hook while an exception unwinds. An exception
# thrown by a callee clang inlined into the function that catches it
# (case D) leaves the callee's frame open until the catching function
# returns: the hooks cannot tell it from a catch inside the inlined
# callee itself (both are the catching function's machine frame).
case_report_exc_clang() {
	[ -n "${RTT_EXC_CLANG:-}" ] || skip "clang++ is not installed (or a sanitizer build)"
	exc_case "$RTT_EXC_CLANG" 40 ABCE
}

# report --format=json read by a Chrome trace-event model nobody here
# wrote (npm's @tracerbench/trace-model, from the npm cache
# scripts/deps.sh --test fills; skipped where it cannot be installed
# offline): a longjmp workload, a time range that ends inside calls, and
# a thread that is not the process's first, selected with --tid
case_report_json_model() {
	command -v node >/dev/null || skip "node is not installed"
	command -v npm >/dev/null || skip "npm is not installed"
	[ -n "${RTT_JMP:-}" ] || fail "RTT_JMP is not set"
	local cache=${RINGTRACE_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ringtrace/npm}
	local js
	js="$(dirname "$0")/json_model.js"
	npm install --offline --no-audit --no-fund --cache "$cache" \
		--prefix "$W/npm" @tracerbench/trace-model@8.0.0 \
		>"$W/npm.out" 2>&1 ||
		skip "@tracerbench/trace-model is not in the npm cache $cache (bash scripts/deps.sh --test)"
	export NODE_PATH=$W/npm/node_modules
	"$T" record -q -o "$W/j.dat" -p function_graph -- "$RTT_JMP" 200 \
		>/dev/null 2>"$W/rec.err" || fail "record: $(cat "$W/rec.err")"
	run 0 "$T" report --format=json "$W/j.dat"
	node "$js" "$W/out" sample_jmp || fail "the trace model refuses the JSON"
	local mid
	mid=$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] != "M"]
print("%.6f" % (ev[len(ev) // 2]["ts"] / 1e6))' "$W/out")
	run 0 "$T" report --format=json --time-range "~$mid" "$W/j.dat"
	node "$js" "$W/out" sample_jmp || fail "the trace model refuses a time range's JSON"
	# --tid: the second thread of a process, its process still named
	"$T" record -q -o "$W/t.dat" -e app:work -- "$S" --threads 2 \
		--bursts 1 --burst 5 --no-markers >/dev/null 2>"$W/rec.err" ||
		fail "record: $(cat "$W/rec.err")"
	local tid
	tid=$("$T" report "$W/t.dat" | sed -n 's/^ *[^ ]*-\([0-9]*\) .* work: .*/\1/p' |
		sort -n -u | tail -1)
	[ -n "$tid" ] || fail "no thread in t.dat"
	run 0 "$T" report --format=json --tid "$tid" "$W/t.dat"
	grep -q '"name":"process_name"' "$W/out" || fail "--tid $tid: no process_name"
	node "$js" "$W/out" sample_app || fail "the trace model refuses the JSON of --tid $tid"
}

# ringtrace record as the init of a pid namespace (a container's entry
# point: the command's parent is pid 1, and it is the tool), whose last
# id is set just below pid_max: the command's threads started after it
# have ids that wrapped around, smaller than the process's; the JSON
# report still names the process after the process, not after the
# thread with the smallest id
case_record_pid_namespace() {
	[ "$(id -u)" = 0 ] || skip "a pid namespace needs root"
	unshare --pid --fork --mount-proc true 2>/dev/null ||
		skip "no pid namespace here (unshare --pid)"
	unshare --pid --fork --mount-proc sh -c '
		echo $(($(cat /proc/sys/kernel/pid_max) - 3)) \
			>/proc/sys/kernel/ns_last_pid || exit 90
		exec "$1" record -q -o "$2" -e app:work -- "$3" --threads 2 \
			--bursts 1 --burst 5 --no-markers' \
		sh "$T" "$W/n.dat" "$S" >/dev/null 2>"$W/rec.err"
	local rc=$?
	[ "$rc" != 90 ] || skip "ns_last_pid cannot be set here"
	[ "$rc" = 0 ] || fail "record as pid 1: exit $rc: $(cat "$W/rec.err")"
	run 0 "$T" report "$W/n.dat"
	[ "$(grep -c ' work: ' "$W/out")" = 10 ] ||
		fail "$(grep -c ' work: ' "$W/out") work records of 10"
	run 0 "$T" report --format=json "$W/n.dat"
	python3 - "$W/out" <<'PY' || fail "the JSON's process"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
proc = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
tids = [e["tid"] for e in ev if e["ph"] != "M"]
assert len(proc) == 1, proc
pid, name = proc[0]["pid"], proc[0]["args"]["name"]
assert name == "sample_app", "process %d named %r" % (pid, name)
# the workers' ids wrapped: the case shows what it is about
assert tids and max(tids) < pid, "no thread id below the process's %d: %r" % (pid, tids)
PY
}

# A command that registers its events, writes records and exec()s before
# the recorder has read its formats: the file keeps the records and their
# formats, and -e naming those events is no error. Ten records, less than
# a page, then exec(): the old image's partial pages hold them (its
# writers are gone), and it is no wrapper that wrote nothing; so for the
# thousand when the recorder has taken no whole page before the exec().
case_record_exec_formats() {
	[ -n "${RTT_SPARE:-}" ] || fail "RTT_SPARE is not set"
	local n
	for n in 1000 1000 1000 10 10; do
		run 0 "$T" record -o "$W/x.dat" -e sp:rec -- "$RTT_SPARE" "$n" exec
		! grep -q "unknown event" "$W/err" || fail "$(cat "$W/err")"
		run 0 "$T" report "$W/x.dat"
		! grep -q 'Unknown type' "$W/out" || fail "records without their format"
		[ "$(grep -c ' rec: seq=' "$W/out")" = "$n" ] ||
			fail "$(grep -c ' rec: seq=' "$W/out") rec records of $n"
		rm -f "$W/x.dat"
	done
	[ -z "$(ls -A "$RINGTRACE_DIR")" ] ||
		fail "left behind: $(ls "$RINGTRACE_DIR")"
}

# record -- CMD says how a command that failed ended; a directory that
# takes no file fails before the command starts; record -P of a process
# whose tracing is off switches it on for the recording, and off again
case_record_command_status() {
	[ -n "${RTT_SPARE:-}" ] || fail "RTT_SPARE is not set"
	run 0 "$T" record -o "$W/t.dat" -e sp:rec -- "$RTT_SPARE" 100 term
	err_has "terminated by signal 15 \(Terminated\)"
	run 0 "$T" report "$W/t.dat"
	[ "$(grep -c ' rec: seq=' "$W/out")" = 100 ] || fail "records lost"
	run 0 "$T" record -o "$W/t.dat" -e sp:rec -- "$RTT_SPARE" 100 fail
	err_has "exited with status 3"
	run 0 "$T" record -o "$W/t.dat" -e sp:rec -- "$RTT_SPARE" 100 exec
	! grep -q "terminated\|exited with" "$W/err" || fail "$(cat "$W/err")"
	# a directory without write permission (as another user: root's
	# access passes): nothing runs
	# (and only where that user can run the tool: a build under a
	# 0700 home is not)
	if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] &&
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			test -x "$T"; then
		mkdir -m 755 "$W/ro" "$W/nobody"
		chown nobody "$W/nobody"
		run 4 setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env RINGTRACE_DIR="$W/nobody/pub" "$T" record \
			-o "$W/ro/t.dat" -- "$RTT_SPARE" 1 fail
		err_has "permission denied: $W/ro/t.dat"
		! grep -q "exited with status" "$W/err" || fail "the command ran"
	fi
	# tracing off in a running process: on for the recording, and off
	# again after it (the next recording finds it off)
	start_sample -- --threads 1 --seconds 30 --burst 5 --gap-ms 10
	run 0 "$T" enable "$SP" app:work
	run 0 "$T" off "$SP"
	local k rp i
	for k in 1 2; do
		"$T" record -o "$W/p.dat" -P "$SP" >"$W/rec.out" \
			2>"$W/rec.err" &
		rp=$!
		for i in $(seq 100); do
			grep -q "tracing was off" "$W/rec.err" && break
			sleep 0.05
		done
		for i in $(seq 100); do
			"$T" stat "$SP" 2>/dev/null | grep -q "^entries: [1-9]" && break
			sleep 0.05
		done
		kill -INT "$rp"
		wait "$rp" || fail "record -P: $(cat "$W/rec.err")"
		grep -q "tracing was off in process $SP" "$W/rec.err" ||
			fail "record -P ($k) said nothing of tracing_on: $(cat "$W/rec.err")"
		run 0 "$T" report "$W/p.dat"
		grep -q ' work: ' "$W/out" ||
			fail "record -P of a process with tracing off recorded nothing"
	done
}
