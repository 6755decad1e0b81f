#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# count.sh [BUILD_DIR [OUT_DIR]]: the instructions, conditional branches,
# loads, stores and read-modify-writes of one 16-byte record through the
# inline write path (reserve + fill + commit) in both models, TSC clock,
# x86-64: gdb steps through ringbuf-fastpath's last write. The lists are
# left in OUT_DIR (pcpu.txt, pthr.txt).
set -e
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
out=${2:-.}
prog=$build/bench/ringbuf-fastpath
[ -x "$prog" ] || { echo "count.sh: no $prog (cmake --build $build --target ringbuf-fastpath)" >&2; exit 1; }
command -v gdb >/dev/null || { echo "count.sh: needs gdb" >&2; exit 1; }
for m in c t; do
	f=$out/$([ $m = c ] && echo pcpu || echo pthr).txt
	gdb -q -batch -ex 'set $n_skip = 100' -ex "set \$outf = \"$f\"" \
		-ex "source $here/step.py" --args "$prog" $m 100 >/dev/null 2>&1
	python3 "$here/classify.py" "$f"
done
