#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fnargs_tool.sh RINGTRACE LIBRINGTRACE PROGRAM - funcgraph-args and
# funcgraph-retval through the tool: PROGRAM (mc_args_main.c, built -pg
# -mfentry -mrecord-mcount with debug information) recorded with both
# options; its report (text and JSON) shows the arguments by name, as the
# kernel's function_graph prints them, and the return values; uftrace's
# recording of the same binary (-a) has the same values (where uftrace
# is installed); trace-cmd reads the file (the records' formats are the
# kernel's). The same with func-args and the function tracer.
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
fa_add(a=4, b=1); /* = 0x5 */
} /* fa_outer = 0xa */
fa_fail(); /* = -22 */
fa_seven(a=1, b=2, c=3, d=4, e=5, f=6, ...); /* = 0x1c */
fa_pair(p=(STRUCT)[0x1:0x2], x=-1); /* = 0x2 */
TXT
diff -u "$W/want" "$W/text" || fail "the report's text (- wanted, + got)"

# the options the file was recorded with decide, as in the process:
# without funcgraph-retval, no return values
"$T" report -O nofuncgraph-retval "$W/rt.dat" 2>/dev/null | grep -q '/\* = ' &&
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

# func-args: the function tracer's records with the arguments, printed
# "func(name=value, ...) <-parent" as Linux 6.15's print_fn_trace(); the
# JSON's instant events have them in "args"
"$T" record -q --preload="$LIB" -p function -O func-args -o "$W/fn.dat" \
	-- "$PROG" > "$W/fr.out" 2>&1 || { cat "$W/fr.out"; fail "ringtrace record -O func-args"; }
"$T" report "$W/fn.dat" > "$W/fntext" || fail "ringtrace report (func-args)"
for want in 'fa_outer(n=4) <-main' 'fa_add(a=4, b=1) <-fa_outer' \
	'fa_fail() <-main' 'fa_seven(a=1, b=2, c=3, d=4, e=5, f=6, ...) <-main' \
	'fa_pair(p=(STRUCT)[0x1:0x2], x=-1) <-main'; do
	[ "$(grep -cF ": $want" "$W/fntext")" = 1 ] ||
		{ cat "$W/fntext"; fail "func-args: no line '$want'"; }
done
"$T" report --format=json "$W/fn.dat" > "$W/fnjson" || fail "report --format=json (func-args)"
python3 - "$W/fnjson" <<'PY' || fail "the JSON (func-args)"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
i = {e["name"]: e.get("args", {}) for e in ev if e.get("ph") == "i"}
assert i["fa_add"]["args"] == "(a=4, b=1)", i["fa_add"]
assert i["fa_add"]["parent"] == "fa_outer", i["fa_add"]
assert i["fa_fail"]["args"] == "()", i["fa_fail"]
PY

# uftrace's recording of the same binary (-a: arguments and return values
# from DWARF) is the oracle of the values: each call's integer arguments
# (the six that registers hold) and its return value, in decimal
if command -v uftrace > /dev/null &&
	uftrace record -a --no-libcall --no-event --no-sched -d "$W/u.data" \
		"$PROG" > "$W/u.out" 2>&1; then
	uftrace replay -d "$W/u.data" > "$W/u.txt" 2>&1 || fail "uftrace replay"
	python3 - "$W/u.txt" "$W/text" <<'PY' || fail "the values differ from uftrace's"
import re, sys

def val(v):
    v = v.strip()
    if v.startswith("0x"):
        n = int(v, 16)
        return str(n - (1 << 64) if n >= 1 << 63 else n)
    return v

def calls(lines, ours):
    out, stack = [], []
    for l in lines:
        l = l.split("|", 1)[-1].strip()
        m = re.match(r"(fa_\w+)\((.*?)\)(;| \{|)(.*)$", l)
        if m:
            name, args = m.group(1), m.group(2)
            if "STRUCT" in args or "{" in args:
                continue
            args = [val(re.sub(r"^\w+=", "", a.strip())) for a in args.split(",") if a.strip()]
            args = [a for a in args if a != "..."][:6]
            rest = m.group(3) + m.group(4)
            if rest.startswith(" {"):
                stack.append([name, args])
                continue
            r = re.search(r"= (\S+) \*/" if ours else r"= (\S+);", rest)
            out.append((name, args, val(r.group(1)) if r else None))
        elif l.startswith("}") and stack:
            name, args = stack.pop()
            r = re.search(r"= (\S+) \*/" if ours else r"\} = (\S+);", l)
            out.append((name, args, val(r.group(1)) if r else None))
    return sorted(out)

u = calls(open(sys.argv[1]).read().splitlines()[1:], False)
r = calls(open(sys.argv[2]).read().splitlines(), True)
if u != r or not u:
    print("uftrace:  ", u)
    print("ringtrace:", r)
    sys.exit(1)
print("the same values as uftrace's:", len(u), "calls")
PY
fi

# trace-cmd reads the records by their formats (the kernel's)
command -v trace-cmd > /dev/null || { echo "SKIP: no trace-cmd"; exit 77; }
# with funcgraph-retval the exits are fgraph_retval_exit records, which
# trace-cmd prints by their print fmt (its graph layout folds only
# funcgraph_exit's)
trace-cmd report "$W/rt.dat" > "$W/tc" 2> "$W/tc.err" || { cat "$W/tc.err"; fail "trace-cmd report"; }
grep -q 'fa_add() {' "$W/tc" || { cat "$W/tc"; fail "trace-cmd's graph"; }
grep -q 'fgraph_retval_exit: *<-- fa_add (1) .* retval: 5$' "$W/tc" || { cat "$W/tc"; fail "trace-cmd's fgraph_retval_exit"; }
trace-cmd report -R "$W/rt.dat" > "$W/tcraw" 2>&1 || fail "trace-cmd report -R"
grep -q 'fgraph_retval_exit:.* retval=0x5' "$W/tcraw" ||
	grep -q 'fgraph_retval_exit:.* retval=5' "$W/tcraw" || { grep fgraph "$W/tcraw" | head; fail "trace-cmd's retval field"; }
# without it, funcgraph_exit records (no retval field): trace-cmd's graph
"$T" record -q --preload="$LIB" -p function_graph -O funcgraph-args \
	-o "$W/na.dat" -- "$PROG" > "$W/na.out" 2>&1 ||
	{ cat "$W/na.out"; fail "ringtrace record without funcgraph-retval"; }
trace-cmd report "$W/na.dat" > "$W/tcna" 2>&1 || fail "trace-cmd report (no retval)"
grep -q 'fa_add();' "$W/tcna" || { cat "$W/tcna"; fail "trace-cmd's graph (no retval)"; }
grep -q 'fgraph_retval_exit' "$W/tcna" && fail "fgraph_retval_exit without funcgraph-retval"
grep -q 'funcgraph_entry:.* args=' "$W/tcraw" || { grep funcgraph_entry "$W/tcraw" | head; fail "trace-cmd's args field"; }
# func-args' records: trace-cmd finds the array by the function format
trace-cmd report -R "$W/fn.dat" > "$W/tcfn" 2>&1 || fail "trace-cmd report -R (func-args)"
grep -q 'function:.* args=' "$W/tcfn" || { grep function: "$W/tcfn" | head; fail "trace-cmd's function args field"; }
echo "PASS"
