#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# install_test.sh BUILD_DIR CMAKE CC CXX [SANITIZER_FLAGS]
#
# The installed tree works from a prefix nobody searches: the build is
# installed into a temporary prefix; its programs start with no
# LD_LIBRARY_PATH; programs outside the tree (this directory) build
# against it through pkg-config (ringbuf, and ringtrace in C and C++),
# through find_package(ringbuf) with both targets, and by hand with
# -lringtrace alone as Documentation/tracer.rst writes it (the trace
# point's write compiled in, the default, and without it); each runs from
# there and its output is checked.
set -u
export LC_ALL=C
build=${1:?usage: install_test.sh BUILD_DIR CMAKE CC CXX [SANITIZER_FLAGS]}
cmake=${2:?}
cc=${3:?}
cxx=${4:?}
san=${5:-}
src=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/rt-install.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
unset LD_LIBRARY_PATH
export RINGTRACE_PUBLISH=0
warn="-Wall -Wextra -Werror"
cwarn="$warn -Werror=implicit-function-declaration"

prefix=$W/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$W/install.log" 2>&1 ||
	fail "cmake --install: $(tail -5 "$W/install.log")"
pc=$(find "$prefix" -name ringtrace.pc)
[ -n "$pc" ] || fail "no ringtrace.pc installed"
[ -f "$(dirname "$pc")/ringbuf.pc" ] || fail "no ringbuf.pc beside ringtrace.pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir ringtrace) || fail "pkg-config ringtrace"

# the installed programs find their libraries: the tool in bin/, the
# benchmarks and demos in libexec/ringtrace/, nothing else on the PATH
[ "$(ls "$prefix/bin")" = ringtrace ] ||
	fail "bin/ holds more than the tool: $(ls "$prefix/bin" | tr '\n' ' ')"
for p in ringbuf-bench ringtrace-tp-bench ringbuf-demo; do
	[ -x "$prefix/libexec/ringtrace/$p" ] || fail "no libexec/ringtrace/$p"
done
for d in README.md tracer.rst LICENSES/MIT.txt LICENSES/LGPL-2.1-or-later.txt; do
	[ -f "$prefix/share/doc/ringtrace/$d" ] || fail "no share/doc/ringtrace/$d"
done
n=0
for p in "$prefix"/bin/* "$prefix"/libexec/ringtrace/*; do
	ldd "$p" >"$W/ldd" 2>&1 || fail "ldd $p: $(cat "$W/ldd")"
	! grep -q "not found" "$W/ldd" ||
		fail "$(basename "$p") does not start from $prefix: $(grep 'not found' "$W/ldd")"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n programs installed"
for l in libringbuf libringtrace; do
	ldd "$libdir/$l.so.0" >"$W/ldd" 2>&1 || fail "ldd $l.so.0: $(cat "$W/ldd")"
	grep -q "not found" "$W/ldd" && fail "$l.so.0 does not find its libraries"
done
"$prefix/bin/ringtrace" --help >"$W/out" 2>&1 ||
	fail "the installed ringtrace does not run: $(head -3 "$W/out")"

# no RUNPATH, installed or in the build tree, with an empty entry (the
# dynamic loader searches the current directory for it): the project's
# libraries and programs; and the build tree's tool, run from a
# directory holding a library it needs, does not load that one
# runpath_empty FILE: FILE's RUNPATH or RPATH has an empty entry
runpath_empty() {
	local r
	r=$(readelf -d "$1" 2>/dev/null |
		sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
	[ -n "$r" ] || return 1
	case ":$r:" in *::*) return 0 ;; esac
	return 1
}
n=0
while IFS= read -r f; do
	head -c 4 "$f" 2>/dev/null | grep -q "ELF" || continue
	runpath_empty "$f" && fail "$f: RUNPATH with an empty entry: $(readelf -d "$f" | grep -i path)"
	n=$((n + 1))
done < <(find "$prefix" "$build/ringbuf" "$build/tracer" "$build/bench" \
	-type f \( -name "*.so*" -o -perm -u+x \) ! -path "*/CMakeFiles/*")
[ "$n" -ge 8 ] || fail "only $n ELF files looked at"
tool=$build/tracer/tool/ringtrace
mkdir "$W/cwd"
printf '#include <stdio.h>\n__attribute__((constructor)) static void f(void) { fputs("loaded from the current directory\\n", stderr); }\n' \
	>"$W/cwd/own.c"
for l in $(ldd "$tool" | awk '$2 == "=>" && $1 !~ /^lib(c|ringbuf)\.so/ { print $1 }'); do
	$cc -shared -fPIC -o "$W/cwd/$l" "$W/cwd/own.c" -Wl,-soname,"$l" ||
		fail "building a stand-in $l"
done
(cd "$W/cwd" && "$tool" --help) >"$W/cwd.out" 2>&1 ||
	fail "the build tree's ringtrace does not run: $(head -3 "$W/cwd.out")"
! grep -q "current directory" "$W/cwd.out" ||
	fail "the build tree's ringtrace loaded a library of the current directory"

# run NAME: the program runs from its place, its output in $W/NAME.out
run() {
	"$W/$1" >"$W/$1.out" 2>"$W/$1.err" ||
		fail "$1 failed: $(cat "$W/$1.err")"
}
event_line() {
	grep -Eq "^ +$2-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: request: id=42 delta=-7 path=/from/outside$" \
		"$W/$1.out" || {
		cat "$W/$1.out" >&2
		fail "$1 did not print its event"
	}
}

# pkg-config: libringbuf; libringtrace in C and in C++
# shellcheck disable=SC2046,SC2086
$cc -std=c11 $cwarn $san -o "$W/pc_rb" "$src/rb_app.c" \
	$(pkg-config --cflags --libs ringbuf) -Wl,-rpath,"$libdir" ||
	fail "building against ringbuf.pc"
run pc_rb
grep -qx "ringbuf: 3 records" "$W/pc_rb.out" || fail "pc_rb: $(cat "$W/pc_rb.out")"
# inline_or_not EXE yes|no: whether EXE calls libringbuf's inline write
# path itself (the trace point's write compiled in)
inline_or_not() {
	nm -D --undefined-only "$W/$1" >"$W/$1.syms" || fail "nm -D $1"
	if grep -qw ringbuf_tls "$W/$1.syms"; then
		[ "$2" = yes ] || fail "$1: the write is compiled in"
	else
		[ "$2" = no ] || fail "$1: the write is not compiled in"
	fi
}
# pc_build EXE C|C++ INLINE CFLAGS...: rt_app.c against ringtrace.pc
pc_build() {
	local exe=$1 lang=$2 inl=$3 comp
	shift 3
	if [ "$lang" = C ]; then
		cp "$src/rt_app.c" "$W/$exe.c"
		comp="$cc -std=c11 $cwarn"
	else
		cp "$src/rt_app.c" "$W/$exe.cc"
		comp="$cxx -std=c++17 $warn"
	fi
	# shellcheck disable=SC2046,SC2086
	$comp $san "$@" -I"$src" -o "$W/$exe" "$W/$exe".c* \
		$(pkg-config --cflags --libs ringtrace) -Wl,-rpath,"$libdir" ||
		fail "building $exe against ringtrace.pc ($lang $*)"
	run "$exe"
	event_line "$exe" "$exe"
	grep -Eq "^ +$exe-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: tick: n=5 delta=-3$" \
		"$W/$exe.out" || fail "$exe did not print its fixed-size record"
	inline_or_not "$exe" "$inl"
}
# The fixed-size record's write is compiled in by default where the
# compiler optimises (its size must fold to a constant); never with
# RINGTRACE_NO_INLINE_WRITE.
pc_build pc_rt C yes -O2
pc_build pc_rtxx C++ yes -O2
pc_build pc_rt0 C no -O0
pc_build pc_rto C no -O2 -DRINGTRACE_NO_INLINE_WRITE
pc_build pc_rtoxx C++ no -O2 -DRINGTRACE_NO_INLINE_WRITE

# by hand, as Documentation/tracer.rst writes it: -lringtrace alone.
# libringtrace.so is a linker script: the default build, whose generated
# code calls libringbuf's inline write path, links libringbuf too (it
# needs it: NEEDED); one built with RINGTRACE_NO_INLINE_WRITE does not.
# Also with the script named by its path, without -L.
[ -f "$libdir/libringtrace.so" ] && [ ! -L "$libdir/libringtrace.so" ] ||
	fail "libringtrace.so is not the linker script"
# hand_link NAME CPPFLAGS LIB...: compile rt_app.c, link, run, check
hand_link() {
	local exe=$1 defs=$2
	shift 2
	# shellcheck disable=SC2086
	$cc -std=c11 $cwarn -O2 $san $defs -I"$src" -I"$prefix/include" -c \
		-o "$W/$exe.o" "$src/rt_app.c" || fail "compiling the documented example ($exe)"
	# shellcheck disable=SC2086
	$cc $san -rdynamic -o "$W/$exe" "$W/$exe.o" "$@" \
		-Wl,-rpath,"$libdir" 2>"$W/link.err" ||
		fail "$exe: cc app.o $* does not link: $(head -5 "$W/link.err")"
	run "$exe"
	event_line "$exe" "$exe"
	grep -Eq "^ +$exe-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: tick: n=5 delta=-3$" \
		"$W/$exe.out" || fail "$exe did not print its fixed-size record"
	readelf -d "$W/$exe" >"$W/$exe.dyn" || fail "readelf -d $exe"
	if [ -z "$defs" ]; then inline_or_not "$exe" yes; else inline_or_not "$exe" no; fi
}
hand_link hand "" -L"$libdir" -lringtrace
grep -q "NEEDED.*\[libringbuf\.so\.0\]" "$W/hand.dyn" ||
	fail "hand: the inline write did not link libringbuf: $(grep NEEDED "$W/hand.dyn")"
hand_link hand_path "" "$libdir/libringtrace.so"
hand_link hand_out -DRINGTRACE_NO_INLINE_WRITE -L"$libdir" -lringtrace
grep -q "NEEDED.*\[libringtrace\.so\.0\]" "$W/hand_out.dyn" &&
	! grep -q "NEEDED.*\[libringbuf\.so\.0\]" "$W/hand_out.dyn" ||
	fail "hand_out: expected libringtrace alone: $(grep NEEDED "$W/hand_out.dyn")"

# find_package(ringbuf): ringbuf::ringbuf and ringbuf::ringtrace;
# find_package(ringtrace): ringtrace::ringbuf and ringtrace::ringtrace
for pkg in ringbuf ringtrace; do
	"$cmake" -S "$src/cmake_app" -B "$W/cm_$pkg" -DCMAKE_PREFIX_PATH="$prefix" \
		-DAPP_SRC="$src" -DAPP_PACKAGE=$pkg -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_C_FLAGS="$san $cwarn -Wpedantic" \
		-DCMAKE_EXE_LINKER_FLAGS="$san" >"$W/cm.log" 2>&1 ||
		fail "configuring the CMake project (find_package($pkg)): $(tail -5 "$W/cm.log")"
	"$cmake" --build "$W/cm_$pkg" >>"$W/cm.log" 2>&1 ||
		fail "building the CMake project (find_package($pkg)): $(tail -5 "$W/cm.log")"
	cp "$W/cm_$pkg/rb_app" "$W/cm_rb_$pkg" && cp "$W/cm_$pkg/rt_app" "$W/cm_rt_$pkg" ||
		fail "the CMake project made no programs (find_package($pkg))"
	run cm_rb_$pkg
	grep -qx "ringbuf: 3 records" "$W/cm_rb_$pkg.out" ||
		fail "cm_rb_$pkg: $(cat "$W/cm_rb_$pkg.out")"
	run cm_rt_$pkg
	event_line cm_rt_$pkg cm_rt_$pkg
done

# A program under a licence of its own (proprietary) includes only
# headers under MIT: every header of the prefix that its trace point
# compiles in carries "SPDX-License-Identifier: MIT", and so does every
# installed header; none of them pulls in a header of another licence
# from outside the C library and the compiler.
cat >"$W/proprietary.c" <<'PROP'
/* Copyright (c) Example Corp. All rights reserved. Proprietary and
 * confidential: not to be distributed in source form. */
#define CREATE_TRACE_POINTS
#include "rt_app_trace.h"
int main(void)
{
	trace_tick(5, -3);
	return 0;
}
PROP
# shellcheck disable=SC2046,SC2086
$cc -std=c11 $cwarn -Wpedantic -O2 -I"$src" -M "$W/proprietary.c" \
	$(pkg-config --cflags ringtrace) >"$W/prop.deps" ||
	fail "the proprietary program does not compile against the MIT headers"
tr ' \\' '\n\n' <"$W/prop.deps" | grep -E '^/' | sort -u >"$W/prop.hdrs"
nmit=0
while read -r h; do
	case $h in
	"$prefix"/*)
		head -2 "$h" | grep -q 'SPDX-License-Identifier: MIT' ||
			fail "$h is compiled into the user's program but is not under MIT"
		nmit=$((nmit + 1)) ;;
	/usr/include/urcu/* | /usr/include/urcu.h | /usr/include/urcu-*)
		fail "the trace point compiles in liburcu's LGPL header $h" ;;
	esac
done <"$W/prop.hdrs"
[ "$nmit" -ge 3 ] || fail "the proprietary program included $nmit project headers"
# shellcheck disable=SC2046,SC2086
$cc -std=c11 $cwarn -Wpedantic -O2 $san -I"$src" -o "$W/proprietary" "$W/proprietary.c" \
	$(pkg-config --cflags --libs ringtrace) -Wl,-rpath,"$libdir" ||
	fail "the proprietary program does not build and link"
run proprietary
for h in $(find "$prefix/include" -name '*.h'); do
	head -2 "$h" | grep -q 'SPDX-License-Identifier: MIT' ||
		fail "installed header $h is not under MIT"
done
echo "OK: $n installed programs start; pkg-config (C, C++), -lringtrace and find_package() programs run from $prefix"
