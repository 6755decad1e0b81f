#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fnargs_tool.sh RINGTRACE LIBRINGTRACE PROGRAM - funcgraph-args and
# funcgraph-retval through the tool: PROGRAM (mc_args_main.c, built -pg
# -mfentry -mrecord-mcount with debug information) recorded with both
# options; its report (text and JSON) shows the arguments by name, as the
# kernel's function_graph prints them, and the return values; trace-cmd
# reads the file (the records' formats are the kernel's).
# Exit status: 0 pass, 1 fail, 77 skipped (no trace-cmd).
set -u
export LC_ALL=C
T=$1 LIB=$2 PROG=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$T" record -q --preload="$LIB" -p function_graph -O funcgraph-args \
	-O funcgraph-retval -o "$W/rt.dat" -- "$PROG" > "$W/r.out" 2>&1 ||
	{ cat "$W/r.out"; fail "ringtrace record"; }

# the text: the function column, as the kernel prints it
"$T" report "$W/rt.dat" | grep -v '^#' | sed 's/^[^|]*|  *//' > "$W/text" ||
	fail "ringtrace report"
cat > "$W/want" <<'TXT'
fa_outer(n=4) {
fa_add(a=4, b=1); /* ret=0x5 */
} /* fa_outer ret=0xa */
fa_fail(); /* ret=-22 */
fa_seven(a=1, b=2, c=3, d=4, e=5, f=6, ...); /* ret=0x1c */
fa_pair(p=(STRUCT)[0x1:0x2], x=-1); /* ret=0x2 */
TXT
diff -u "$W/want" "$W/text" || fail "the report's text (- wanted, + got)"

# the options the file was recorded with decide, as in the process:
# without funcgraph-retval, no return values
"$T" report -O nofuncgraph-retval "$W/rt.dat" 2>/dev/null | grep -q 'ret=' &&
	fail "return values printed with nofuncgraph-retval"

# JSON: the arguments in the "B" slice, the return value in the "E"
"$T" report --format=json "$W/rt.dat" > "$W/json" || fail "report --format=json"
python3 - "$W/json" <<'PY' || fail "the JSON"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = {e["name"]: e.get("args", {}) for e in ev if e.get("ph") == "B"}
e = {x["name"]: x.get("args", {}) for x in ev if x.get("ph") == "E"}
assert b["fa_add"] == {"args": "(a=4, b=1)"}, b["fa_add"]
assert b["fa_outer"] == {"args": "(n=4)"}, b["fa_outer"]
assert e["fa_outer"] == {"retval": "0xa"}, e["fa_outer"]
assert e["fa_fail"] == {"retval": "-22"}, e["fa_fail"]
PY

# trace-cmd reads the records by their formats (the kernel's)
command -v trace-cmd > /dev/null || { echo "SKIP: no trace-cmd"; exit 77; }
trace-cmd report "$W/rt.dat" > "$W/tc" 2> "$W/tc.err" || { cat "$W/tc.err"; fail "trace-cmd report"; }
grep -q 'fa_add();' "$W/tc" || { cat "$W/tc"; fail "trace-cmd's graph"; }
trace-cmd report -R "$W/rt.dat" > "$W/tcraw" 2>&1 || fail "trace-cmd report -R"
grep -q 'funcgraph_exit:.* retval=0x5' "$W/tcraw" ||
	grep -q 'funcgraph_exit:.* retval=5' "$W/tcraw" || { grep funcgraph "$W/tcraw" | head; fail "trace-cmd's retval field"; }
grep -q 'funcgraph_entry:.* args=' "$W/tcraw" || { grep funcgraph_entry "$W/tcraw" | head; fail "trace-cmd's args field"; }
echo "PASS"
