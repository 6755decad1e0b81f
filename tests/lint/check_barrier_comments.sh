#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every ordering atomic and fence (C11 <stdatomic.h> or the compiler's
# __atomic builtins, as the installed headers use them) in ringbuf/src
# (and in the other directories given as arguments) carries a comment that
# names what it orders: the 12 lines before it (or its own line) must say
# "pairs with", "Pairs with", "Release:", "Acquire:", "Seq_cst", "Acq_rel",
# "Relaxed" or "Orders". Our version of checkpatch's "memory barrier
# without comment".
set -u
shopt -s nullglob
[ $# -gt 0 ] || set -- "$(dirname "$0")/../../ringbuf/src"
status=0
for f in $(for d in "$@"; do echo "$d"/*.c "$d"/*.h; done); do
	awk -v file="$f" '
	{ line[NR] = $0 }
	/memory_order_(acquire|release|acq_rel|seq_cst)|atomic_thread_fence|__ATOMIC_(ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)/ {
		ok = 0
		for (i = NR; i >= NR - 12 && i > 0; i--)
			if (line[i] ~ /[Pp]airs with|Release:|Acquire:|Seq_cst|Acq_rel|Relaxed|Orders|seq_cst fence|store-buffer/) { ok = 1; break }
		if (!ok) { printf "%s:%d: ordering without a comment naming its pair: %s\n", file, NR, $0; bad = 1 }
	}
	END { exit bad }' "$f" || status=1
done
exit $status
