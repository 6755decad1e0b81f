#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check_headers.sh CC INCLUDE_DIR [PRIVATE_DIR]: every public header
# compiles on its own (and twice in a row: include guards) as strict C11,
# and as C++ where a C++ compiler is around (extern "C" blocks).
set -eu
cc=$1
inc=$2
priv=${3:-}
tmp=${TMPDIR:-/tmp}/rb-headers.$$
trap 'rm -f "$tmp".*' EXIT INT TERM
status=0
flags="-std=c11 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -Wundef"

check() { # dir header extra-include-flags
	h=$2
	name=${h#"$1"/}
	printf '#include <%s>\n' "$name" >"$tmp.c"
	if ! $cc $flags $3 -fsyntax-only -x c "$tmp.c" 2>"$tmp.err"; then
		echo "FAIL: $name does not compile alone:"; cat "$tmp.err"
		status=1
		return
	fi
	printf '#include <%s>\n#include <%s>\n' "$name" "$name" >"$tmp.c"
	if ! $cc $flags $3 -fsyntax-only -x c "$tmp.c" 2>"$tmp.err"; then
		echo "FAIL: $name cannot be included twice:"; cat "$tmp.err"
		status=1
		return
	fi
	if command -v c++ >/dev/null 2>&1; then
		printf '#include <%s>\n' "$name" >"$tmp.cc"
		if ! c++ -std=c++11 -Wall -Werror $3 -fsyntax-only -x c++ \
			"$tmp.cc" 2>"$tmp.err"; then
			echo "FAIL: $name does not compile as C++:"; cat "$tmp.err"
			status=1
			return
		fi
	fi
	echo "OK: $name"
}

n=0
for h in "$inc"/ringbuf/*.h; do
	[ -f "$h" ] || continue
	check "$inc" "$h" "-I$inc"
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "FAIL: no headers in $inc/ringbuf"; exit 1; }
if [ -n "$priv" ]; then
	for h in "$priv"/ringbuf/*.h; do
		[ -f "$h" ] || continue
		check "$priv" "$h" "-I$inc -I$priv"
	done
fi
exit $status
