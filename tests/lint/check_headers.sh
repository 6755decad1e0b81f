#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check_headers.sh [--private DIR] INCLUDE_DIR...
#
# Every installed header (INCLUDE_DIR/*/*.h) compiles on its own, and
# twice in a row (include guards), as C11, C17 and gnu11 with gcc and
# clang, and as C++17 with g++ and clang++ (extern "C", no _Atomic, no
# C-only construct), with -Wall -Wextra -Werror and implicit function
# declarations as errors (GCC 14's default): a header must declare
# every libc function it calls without the includer's feature macros.
# Headers of --private DIR are checked as C11 with the C compiler only.
set -eu
priv=
if [ "${1:-}" = "--private" ]; then
	priv=$2
	shift 2
fi
[ $# -gt 0 ] || { echo "usage: check_headers.sh [--private DIR] INCLUDE_DIR..." >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
# (C++ has no implicit declarations: they are always errors there)
flags="-Wall -Wextra -Werror"
cflags="$flags -Werror=implicit-function-declaration -pedantic -Wstrict-prototypes -Wundef"

missing=
for c in gcc clang g++ clang++; do
	command -v $c >/dev/null 2>&1 || missing="$missing $c"
done
if [ -n "$missing" ]; then
	echo "FAIL: missing compilers:$missing (scripts/deps.sh installs them)"
	exit 1
fi

incs=
for d in "$@"; do
	incs="$incs -I$d"
done

# compile LANGUAGE COMPILER STD NAME EXTRA: NAME alone, then twice
compile() {
	lang=$1 cc=$2 std=$3 name=$4 extra=$5
	ext=c
	[ "$lang" = c++ ] && ext=cc
	f=$cflags
	[ "$lang" = c++ ] && f=$flags
	# (a declaration of its own: a header that only defines macros
	# leaves an empty translation unit, which -pedantic refuses)
	printf '#include <%s>\nint rb_header_check;\n' "$name" >"$tmp/one.$ext"
	printf '#include <%s>\n#include <%s>\nint rb_header_check;\n' \
		"$name" "$name" >"$tmp/two.$ext"
	for src in one two; do
		# shellcheck disable=SC2086
		if ! $cc -std=$std $f $incs $extra -fsyntax-only -x $lang \
			"$tmp/$src.$ext" 2>"$tmp/err"; then
			echo "FAIL: $name ($cc -std=$std, included $src time(s)):"
			cat "$tmp/err"
			status=1
			return 1
		fi
	done
	return 0
}

n=0
for d in "$@"; do
	for h in "$d"/*/*.h; do
		[ -f "$h" ] || continue
		name=${h#"$d"/}
		ok=1
		for cc in gcc clang; do
			for std in c11 c17 gnu11; do
				compile c $cc $std "$name" "" || ok=0
			done
		done
		for cxx in g++ clang++; do
			compile c++ $cxx c++17 "$name" "" || ok=0
		done
		[ $ok = 1 ] && echo "OK: $name (C11, C17, gnu11, C++17; gcc, clang)"
		n=$((n + 1))
	done
done
[ $n -gt 0 ] || { echo "FAIL: no headers in $*"; exit 1; }

# The event macros expand in the program's own translation unit: create
# events of every field kind and emit them, in every language mode.
# -pedantic too: the kernel's idiom puts a ';' after TRACE_EVENT() at
# file scope and lets __assign_str() take one argument or two, and a
# user's program built with -Wpedantic -Werror must take both.
evflags="$flags -Werror=implicit-function-declaration -Wstrict-prototypes -pedantic"
tracer=0
for d in "$@"; do
	[ -d "$d/ringtrace" ] && tracer=1
done
if [ $tracer = 1 ]; then
	cat >"$tmp/hdrcheck_trace.h" <<'TRACE'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hdrcheck
#ifndef HDRCHECK_TYPES_H
#define HDRCHECK_TYPES_H
enum hdrcheck_mode { HDRCHECK_A = -1, HDRCHECK_B = 1 };
#endif
#if !defined(HDRCHECK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define HDRCHECK_TRACE_H
#include <ringtrace/tracepoint.h>
TRACE_EVENT(kinds,
	TP_PROTO(int id, short s, unsigned char u, const char *path,
		 const void *p, enum hdrcheck_mode m, const int *v, int nv),
	TP_ARGS(id, s, u, path, p, m, v, nv),
	TP_STRUCT__entry(
		__field(int, id)
		__field(short, s)
		__field(unsigned char, u)
		__field(const void *, p)
		__field(enum hdrcheck_mode, m)
		__array(char, tag, 8)
		__string(path, path)
		__dynamic_array(int, v, nv)
	),
	TP_fast_assign(
		__entry->id = id;
		__entry->s = s;
		__entry->u = u;
		__entry->p = p;
		__entry->m = m;
		memcpy(__entry->tag, "tag", 4);
		__assign_str(path);
		memcpy(__get_dynamic_array(v), v, (size_t)nv * sizeof(int));
	),
	TP_printk("id=%d s=%d u=%u p=%p m=%d tag=%s path=%s", __entry->id,
		  __entry->s, __entry->u, __entry->p, (int)__entry->m,
		  __entry->tag, __get_str(path))
);
#endif
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE hdrcheck_trace
#include <ringtrace/define_trace.h>
TRACE
	for lang in c c++; do
		ext=c
		[ $lang = c++ ] && ext=cc
		cat >"$tmp/ev.$ext" <<'SRC'
#define CREATE_TRACE_POINTS
#include "hdrcheck_trace.h"
int rb_header_check(void);
int rb_header_check(void)
{
	int v[2] = { 1, 2 };

	trace_kinds(1, -2, 3, "/x", (const void *)v, HDRCHECK_A, v, 2);
	return trace_kinds_enabled();
}
SRC
	done
	for cc in gcc clang; do
		for std in c11 c17 gnu11; do
			# shellcheck disable=SC2086
			$cc -std=$std $evflags $incs -I"$tmp" -c -o "$tmp/ev.o" \
				"$tmp/ev.c" 2>"$tmp/err" || {
				echo "FAIL: creating events ($cc -std=$std):"
				cat "$tmp/err"
				status=1
			}
		done
	done
	for cxx in g++ clang++; do
		# shellcheck disable=SC2086
		$cxx -std=c++17 $flags -pedantic $incs -I"$tmp" -c -o "$tmp/ev.o" \
			"$tmp/ev.cc" 2>"$tmp/err" || {
			echo "FAIL: creating events ($cxx -std=c++17):"
			cat "$tmp/err"
			status=1
		}
	done
	[ $status = 0 ] && echo "OK: TRACE_EVENT() of every field kind (C11, C17, gnu11, C++17; gcc, clang)"
fi
if [ -n "$priv" ]; then
	for h in "$priv"/*/*.h; do
		[ -f "$h" ] || continue
		name=${h#"$priv"/}
		compile c gcc c11 "$name" "-I$priv" && echo "OK: $name (private, C11)"
	done
fi
exit $status
