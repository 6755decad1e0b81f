#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# count-tp.sh BENCH CASE LOOP [OUT]: the instructions of one call of a
# ringtrace-tp-bench case, x86-64: gdb steps through the call that the
# case's loop function LOOP makes some 300 calls into a run of CASE
# (step-tp.py), the callee and everything it runs included, and writes
# the list to OUT (default CASE.txt), then prints its length and
# classify.py's counts. E.g., in a Release build directory:
#   count-tp.sh bench/ringtrace-tp-bench fn-patch-function tpb_fn_patch_loop
#   count-tp.sh bench/ringtrace-tp-bench ringbuf-reserve tpb_ringbuf_loop
#   count-tp.sh bench/ringtrace-tp-bench tp-enabled tpb_tp_loop
# LD_LIBRARY_PATH may point the same binary at another libringtrace.
set -e
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: count-tp.sh BENCH CASE LOOP [OUT]" >&2; exit 2; }
bench=$1 case=$2 loop=$3 out=${4:-$2.txt}
[ -x "$bench" ] || { echo "count-tp.sh: no $bench" >&2; exit 1; }
command -v gdb >/dev/null || { echo "count-tp.sh: needs gdb" >&2; exit 1; }
# the offset of the loop's call from its start
off=$(objdump -d --no-show-raw-insn "$bench" | awk -v f="<$loop>:" '
	$2 == f { p = 1; s = $1; next }
	p && /call/ { sub(":", "", $1); print $1, s; exit }' |
	while read -r a s; do echo $((0x$a - 0x$s)); done)
[ -n "$off" ] || { echo "count-tp.sh: no call in $loop" >&2; exit 1; }
gdb -q -batch -ex 'set startup-with-shell off' -ex 'set $n_skip = 300' \
	-ex "set \$outf = \"$out\"" -ex "set \$loop = \"$loop\"" \
	-ex "set \$calloff = $off" -ex "source $here/step-tp.py" \
	--args "$bench" -n 1000 -w 100 -r 1 --max-noise 100 -c "$case" \
	>/dev/null 2>&1
echo "$case: $(wc -l <"$out") instructions ($out)"
cut -f2 "$out" >"$out.asm"
python3 "$here/classify.py" "$out.asm"
rm -f "$out.asm"
