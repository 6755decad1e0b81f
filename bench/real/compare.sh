#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# compare.sh [-n RUNS] [-w WORK_DIR] [-b BUILD_DIR] [-s SRC_DIR]
# [-v "VARIANT..."]:
# ringtrace against uftrace on two real programs nobody here wrote,
# Debian 12's lz4 1.9.4 (compressing 1 MiB at -9, the HC compressor,
# whose match finders are real calls at -O2: -1's 47 calls measured
# only the start-up) and sqlite3 3.40.1
# (the shell running a 20 000-row SQL script), from their Debian sources
# (or SRC_DIR/lz4-1.9.4 and SRC_DIR/sqlite3-3.40.1 where the sources
# come from elsewhere, an upstream release tag; a program with no
# sources is skipped, said so), each built three ways: -O2
# -finstrument-functions, -O2 -pg -mfentry -mrecord-mcount and -O2
# -fpatchable-function-entry=5 (uftrace records that one with -P .):
# the variants ins, pg and patch (-v picks some).
# The same binaries are recorded by both tools (ringtrace with `record
# -p function_graph` and its defaults, libringtrace preloaded
# (--preload=LIB: the build's library, without an env in between, as
# uftrace runs the program itself); uftrace
# with `record --no-libcall`), and compared:
#
#   - the call tree, call by call (depth and name; calltree.awk), and
#     the per-function call counts (`uftrace report` against ours);
#   - events lost with the defaults, over RUNS recordings;
#   - the recording's wall time, median of RUNS interleaved runs of
#     each tool, as a ratio to uftrace's (target 1.0x for the
#     -finstrument-functions build, 0.6x for the profiling-call ones,
#     whose sites the library patches); `sync` (untimed) after each
#     run, so that the write-back of one run's file (uftrace writes
#     through the page cache, which flushes it up to 30 s later) does
#     not land in another run's time;
#   - the bytes the recorder wrote (wchar) against the file's size, and
#     the file's bytes per event against uftrace's;
#
# those with `--compression none` (version 6, written in place); then
# the default, `--compression zstd` (version 7, compressed), over RUNS
# recordings of its own (compare_zstd): bytes per event on disk (target
# <= 7), the records read back by `trace-cmd report` and by `ringtrace
# report` as from the uncompressed recording (the call trees, call by
# call), and the record time against uftrace's (target 0.9x). Then, for
# information, the fixed costs: RUNS recordings of the program on a tiny
# input by each tool (startup_info). Last, in the pg and patch builds of
# Debian 12's Lua 5.4.4 (SRC_DIR/lua-5.4.4 from elsewhere) running
# errors.lua, the calls that longjmp() leaves: the call tree against
# uftrace's, every function's call count against the kernel's uprobes
# (compare_lua); and in those of zstd 1.5.4 (SRC_DIR/zstd-1.5.4)
# compressing with two worker threads, the call counts of all threads
# against the uprobes' (compare_threads). Both need perf.
#
# Needs root (apt-get), the network to the Debian mirror, about 3 GB
# in WORK_DIR. Not part of the test suite: it downloads sources. The
# targets are printed as "met" or "MISSED"; the exit code is 0 when all
# are met.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/bench/real
runs=10
work=/var/tmp/ringtrace-real
build=
src=
variants="ins pg patch"
while getopts "n:w:b:s:v:h" o; do
	case $o in
	n) runs=$OPTARG ;;
	w) work=$OPTARG ;;
	b) build=$OPTARG ;;
	s) src=$(cd "$OPTARG" && pwd) ;;
	v) variants=$OPTARG ;;
	*) sed -n '3,54p' "$0"; exit 2 ;;
	esac
done
case $runs in '' | *[!0-9]* | 0) echo "compare.sh: -n wants a count" >&2; exit 2 ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
export LC_ALL=C

# ---- tools and sources ----------------------------------------------------
. "$top/scripts/deps.sh"
ringtrace_install_deps uftrace dpkg-dev tcl python3 trace-cmd linux-perf
if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "compare.sh: adding a deb-src entry (ringtrace-deb-src.sources)" >&2
	sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
		>/etc/apt/sources.list.d/ringtrace-deb-src.sources
	apt-get update -qq
fi
if [ -z "$build" ]; then
	build=$work/build
	cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DRINGBUF_BUILD_TESTS=OFF >/dev/null
	cmake --build "$build" -j"$(nproc)" --target ringtrace-tool ringtrace >/dev/null
fi
RT=$build/tracer/tool/ringtrace
LIB=$build/tracer/libringtrace.so
[ -x "$RT" ] && [ -f "$LIB" ] || { echo "compare.sh: no ringtrace in $build" >&2; exit 1; }

cd "$work"
# the sources: SRC_DIR's copy, else Debian's (apt-get source)
have_lz4=1 have_sqlite3=1
if [ ! -d lz4-1.9.4 ] && [ -n "$src" ] && [ -d "$src/lz4-1.9.4" ]; then
	cp -a "$src/lz4-1.9.4" .
fi
if [ ! -d sqlite3-3.40.1 ] && [ -n "$src" ] && [ -d "$src/sqlite3-3.40.1" ]; then
	cp -a "$src/sqlite3-3.40.1" .
fi
[ -d lz4-1.9.4 ] || apt-get source -qq lz4=1.9.4-1 >/dev/null 2>&1 ||
	apt-get source -qq lz4 >/dev/null 2>&1 || have_lz4=0
[ -d sqlite3-3.40.1 ] || apt-get source -qq sqlite3 >/dev/null 2>&1 ||
	have_sqlite3=0
have_lua=1
if [ ! -d lua5.4-5.4.4 ] && [ -n "$src" ] && [ -d "$src/lua-5.4.4" ]; then
	cp -a "$src/lua-5.4.4" lua5.4-5.4.4
fi
[ -d lua5.4-5.4.4 ] || apt-get source -qq lua5.4 >/dev/null 2>&1 || have_lua=0
[ -d lua5.4-5.4.4 ] || have_lua=0
have_zstd=1
if [ ! -d libzstd-1.5.4+dfsg2 ] && [ -n "$src" ] && [ -d "$src/zstd-1.5.4" ]; then
	cp -a "$src/zstd-1.5.4" libzstd-1.5.4+dfsg2
fi
[ -d libzstd-1.5.4+dfsg2 ] || apt-get source -qq libzstd >/dev/null 2>&1 || have_zstd=0
[ -d libzstd-1.5.4+dfsg2 ] || have_zstd=0
[ $have_zstd = 1 ] || echo "compare.sh: no zstd 1.5.4 sources (apt-get source failed; -s SRC_DIR): zstd skipped" >&2
[ $have_lua = 1 ] || echo "compare.sh: no lua 5.4.4 sources (apt-get source failed; -s SRC_DIR): lua skipped" >&2
[ $have_lz4 = 1 ] || echo "compare.sh: no lz4 1.9.4 sources (apt-get source failed; -s SRC_DIR): lz4 skipped" >&2
[ $have_sqlite3 = 1 ] || echo "compare.sh: no sqlite3 3.40.1 sources (apt-get source failed; -s SRC_DIR): sqlite3 skipped" >&2
# the three builds: VARIANT -> flags
declare -A CFLAGS_OF=(
	[ins]="-O2 -finstrument-functions"
	[pg]="-O2 -pg -mfentry -mrecord-mcount"
	[patch]="-O2 -fpatchable-function-entry=5"
)
for v in $variants; do
	[ -n "${CFLAGS_OF[$v]:-}" ] || continue
	cflags=${CFLAGS_OF[$v]}
	if [ $have_lz4 = 1 ] && [ ! -x lz4-$v ]; then
		echo "compare.sh: building lz4 ($cflags)" >&2
		# shellcheck disable=SC2086
		gcc $cflags -I lz4-1.9.4/lib lz4-1.9.4/lib/lz4.c lz4-1.9.4/lib/lz4hc.c \
			lz4-1.9.4/lib/lz4frame.c lz4-1.9.4/lib/xxhash.c \
			lz4-1.9.4/programs/*.c -o lz4-$v -pthread
	fi
	if [ $have_sqlite3 = 1 ] && [ ! -x sqlite3-$v ]; then
		echo "compare.sh: building sqlite3 ($cflags)" >&2
		if [ ! -f sqlite3-3.40.1/bld/sqlite3.c ]; then
			mkdir -p sqlite3-3.40.1/bld
			(cd sqlite3-3.40.1/bld && ../configure --disable-tcl --disable-readline \
				--disable-editline >/dev/null && make sqlite3.c shell.c >/dev/null)
		fi
		# shellcheck disable=SC2086
		gcc $cflags -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
			-I sqlite3-3.40.1/bld sqlite3-3.40.1/bld/shell.c \
			sqlite3-3.40.1/bld/sqlite3.c -o sqlite3-$v -lm
	fi
	# Lua twice, the same seed for its string hashes in every run and
	# one slot in its cache of C strings (which it indexes by their
	# address): every run makes the same calls, whatever the addresses
	# of the program and the tool's library. ISO C (lua-VARIANT: setjmp() and
	# longjmp(), which uftrace follows) and POSIX (luaposix-VARIANT:
	# _setjmp() and _longjmp(), which it does not). -finstrument-functions
	# hooks inlined calls too, which no uprobe sees: not that one.
	if [ $have_lua = 1 ] && [ "$v" != ins ] && [ ! -x lua-$v ]; then
		echo "compare.sh: building lua ($cflags)" >&2
		lsrc=$(ls lua5.4-5.4.4/src/*.c | grep -v '/luac\.c$')
		ldet="-Dluai_makeseed(L)=0 -DSTRCACHE_N=1 -DSTRCACHE_M=2"
		# (the header Debian's build writes, which its luaconf.h
		# includes; upstream's includes none)
		[ -f lua5.4-5.4.4/src/lua5.4-deb-multiarch.h ] ||
			printf '#define DEB_HOST_MULTIARCH "%s"\n' \
				"$(gcc -print-multiarch)" >lua5.4-5.4.4/src/lua5.4-deb-multiarch.h
		# shellcheck disable=SC2086
		gcc $cflags $ldet $lsrc -o lua-$v -lm
		# shellcheck disable=SC2086
		gcc $cflags $ldet -DLUA_USE_LINUX $lsrc \
			-o luaposix-$v -lm -ldl
	fi
	# zstd's command line, multi-threaded: the threads' calls
	if [ $have_zstd = 1 ] && [ "$v" != ins ] && [ ! -x zstd-$v ]; then
		echo "compare.sh: building zstd ($cflags)" >&2
		make -s -C libzstd-1.5.4+dfsg2/programs clean >/dev/null
		make -s -C libzstd-1.5.4+dfsg2/programs zstd MOREFLAGS="$cflags" \
			-j"$(nproc)" >/dev/null
		cp libzstd-1.5.4+dfsg2/programs/zstd zstd-$v
	fi
done
# the inputs: 1 MiB of lz4's own sources; 20 000 rows
for i in 1 2 3 4 5 6 7 8 9 10; do
	cat lz4-1.9.4/lib/*.c lz4-1.9.4/programs/*.c
done 2>/dev/null | head -c 1048576 >in.dat || true  # (head ends the loop early)
# the start-up's input: 100 bytes (lz4 then makes about fifty calls)
head -c 100 in.dat >tiny.dat
# zstd's: 8 MiB (eight jobs of 1 MiB for its two worker threads)
for i in 1 2 3 4 5 6 7 8; do cat in.dat; done >in8.dat
awk 'BEGIN {
	print "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);"
	print "BEGIN;"
	for (i = 1; i <= 20000; i++)
		printf "INSERT INTO t VALUES(%d, %cname%d%c, %d.5);\n", i, 39,
			(i * 7919) % 20000, 39, (i * 31) % 1000
	print "COMMIT;"
	print "CREATE INDEX i ON t(name);"
	print "SELECT count(*), sum(v) FROM t WHERE id % 7 = 3;"
	print "SELECT name FROM t ORDER BY v DESC, id LIMIT 5;"
}' >script.sql

# a publish directory of our own, on tmpfs as the default one is
# (/dev/shm; uftrace's buffers are there too): not the work directory,
# whose file system would write the buffers back to disk
export RINGTRACE_DIR
RINGTRACE_DIR=$(mktemp -d /dev/shm/ringtrace-real.XXXXXX)
chmod 700 "$RINGTRACE_DIR"
trap 'rm -rf "$RINGTRACE_DIR"' EXIT
status=0
target() { # NAME OK TEXT
	if [ "$2" = 1 ]; then
		printf '  %-34s met     %s\n' "$1" "$3"
	else
		printf '  %-34s MISSED  %s\n' "$1" "$3"
		status=1
	fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# add_lost ERR: the events the summary line in ERR says were lost, added
# to the caller's total_lost ("unknown" without a summary line)
add_lost() {
	local lost
	lost=$(sed -n 's/^ringtrace: \([0-9]*\) events recorded in .*; \([0-9]*\) lost$/\2/p' "$1" | tail -1)
	[ -n "$lost" ] || lost=unknown
	[ "$lost" = unknown ] && total_lost=unknown
	[ "$total_lost" != unknown ] && total_lost=$((total_lost + lost))
	return 0
}
# time_target LABEL OURS UFTRACE T: the median of the times in file OURS
# against that of UFTRACE, target ratio T
time_target() {
	local r u
	r=$(median <"$2")
	u=$(median <"$3")
	target "$1" \
		"$(awk -v r="$r" -v u="$u" -v t="$4" 'BEGIN { print (r <= t * u) ? 1 : 0 }')" \
		"$(awk -v r="$r" -v u="$u" 'BEGIN { printf "%.2fx (ringtrace %.3f s, uftrace %.3f s, medians)", r / u, r, u }')"
}
# cpu_pair JSON: the recorder's CPU seconds and its children's (the
# traced program), from measure.py, on one line
cpu_pair() { echo "$(json "$1" cpu) $(json "$1" cpu_children)"; }
# cpu_info LABEL OURS UFTRACE: the medians of the CPU times in the files
# OURS and UFTRACE (cpu_pair's lines), a line of information (no target)
cpu_info() {
	local a b c d
	a=$(cut -d' ' -f1 <"$2" | median)
	b=$(cut -d' ' -f2 <"$2" | median)
	c=$(cut -d' ' -f1 <"$3" | median)
	d=$(cut -d' ' -f2 <"$3" | median)
	printf '  %-34s ringtrace %.2f s + program %.2f s, uftrace %.2f s + program %.2f s (medians; load %s)\n' \
		"$1" "$a" "$b" "$c" "$d" "$(cut -d' ' -f1 /proc/loadavg)"
}
# recorded ERR: the events the summary line in ERR says were recorded
recorded() { sed -n 's/^ringtrace: \([0-9]*\) events recorded in .*/\1/p' "$1" | tail -1; }

# startup_note CALLS: a workload of few calls times the tools' start-up
# (loading symbols, patching the sites), not their recording: say so
startup_note() {
	[ "$1" -ge 10000 ] ||
		printf '  %-34s only %d calls a run: the times measure start-up\n' "" "$1"
}

# cpu_line NAME: the CPU time (user + system) of each recorder with its
# traced program, medians of the same runs: not a target, but what a
# loaded machine's wall times hide
cpu_line() {
	local u r
	u=$(awk '{ print $1 + $2 }' "c.ut.$1" | median)
	r=$(awk '{ print $1 + $2 }' "c.rt.$1" | median)
	awk -v r="$r" -v u="$u" 'BEGIN {
		printf "  %-34s %.2fx (ringtrace %.3f s, uftrace %.3f s, medians)\n",
			"record CPU time (information)", u ? r / u : 0, r, u }'
}

# one_round NAME TAG COMMAND...: one recording of COMMAND by uftrace
# (its caller's uo[] options, into ut.NAME.TAG, measured into m.ut) then
# one by ringtrace (--compression none, into rt.NAME.TAG.dat, measured
# into m.rt), `sync` (untimed) after each
one_round() {
	local name=$1 tag=$2
	shift 2
	rm -rf "ut.$name.$tag"
	python3 "$here/measure.py" "m.ut" uftrace record --no-libcall \
		"${uo[@]}" -d "ut.$name.$tag" "$@"
	sync
	rm -f "rt.$name.$tag.dat"
	python3 "$here/measure.py" "m.rt" "$RT" record -p function_graph \
		--compression none -o "rt.$name.$tag.dat" \
		--preload="$LIB" -- "$@"
	sync
}

# compare NAME UFTRACE_OPTS TIME_TARGET COMMAND...: UFTRACE_OPTS (one
# word, "-" for none) go to uftrace record; TIME_TARGET is the ratio of
# the record times to meet
compare() {
	local name=$1 uopt=$2 tt=$3 i lost total_lost=0 ev dat ut u r
	local -a uo=()
	shift 3
	[ "$uopt" = - ] || read -r -a uo <<<"$uopt"
	echo
	echo "== $name: $*"
	# one recording of each for the trees and the counts
	rm -rf "ut.$name" "rt.$name.dat"
	python3 "$here/measure.py" "m.ut.$name.0" \
		uftrace record --no-libcall "${uo[@]}" -d "ut.$name" "$@"
	python3 "$here/measure.py" "m.rt.$name.0" \
		"$RT" record -q -p function_graph --compression none \
		-o "rt.$name.dat" --preload="$LIB" -- "$@"
	[ "$(json "m.rt.$name.0" rc)" = 0 ] ||
		{ cat "m.rt.$name.0.err"; echo "ringtrace record failed" >&2; exit 1; }
	uftrace replay -d "ut.$name" -f none --no-pager 2>/dev/null |
		awk -f "$here/calltree.awk" >"ut.$name.tree"
	"$RT" report "rt.$name.dat" | awk -f "$here/calltree.awk" >"rt.$name.tree"
	local calls same
	calls=$(grep -c '[;{]$' "ut.$name.tree")
	# calls whose line (depth and name) is where uftrace has it
	# (the n-th call of each tree, compared: name and depth)
	same=$(awk 'NR == FNR { if ($0 ~ /[;{]$/) a[++n] = $0; next }
		$0 ~ /[;{]$/ { if (a[++m] == $0) s++ } END { print s + 0 }' \
		"rt.$name.tree" "ut.$name.tree")
	if cmp -s "rt.$name.tree" "ut.$name.tree"; then
		target "call tree = uftrace's" 1 "$calls of $calls calls, identical"
	else
		target "call tree = uftrace's" 0 \
			"$same of $calls calls in place; first difference: $(diff "rt.$name.tree" "ut.$name.tree" | head -3 | tr '\n' ' ')"
		# the nesting alone, with a buffer that holds the whole run
		rm -f "rt.$name.big.dat"
		RINGTRACE_BUF_SIZE_KB=1048576 "$RT" record -q -p function_graph \
			-o "rt.$name.big.dat" --preload="$LIB" -- "$@" \
			>/dev/null 2>&1 || true
		"$RT" report "rt.$name.big.dat" 2>/dev/null |
			awk -f "$here/calltree.awk" >"rt.$name.big.tree"
		if cmp -s "rt.$name.big.tree" "ut.$name.tree"; then
			echo "  (with a 1 GiB buffer, nothing lost: the call tree is identical, $calls calls)"
		else
			echo "  (with a 1 GiB buffer the call tree still differs)"
		fi
		rm -f "rt.$name.big.dat" "rt.$name.big.tree"
	fi
	# per-function call counts: uftrace report against ours
	uftrace report -d "ut.$name" --no-pager 2>/dev/null |
		awk 'NR > 2 && NF >= 4 && $NF !~ /^[(]|:/ { print $NF, $(NF - 1) }' |
		sort >"ut.$name.calls"
	if "$RT" report --help 2>&1 | grep -q -- '--stat'; then
		"$RT" report --stat "rt.$name.dat" 2>/dev/null |
			awk '$NF ~ /^[A-Za-z_]/ && $5 ~ /^[0-9]+$/ { print $NF, $5 }' |
			sort >"rt.$name.calls"
		local how="report --stat"
	else
		awk '$2 != "}" { f = $2; sub(/\(\).*/, "", f); c[f]++ }
			END { for (f in c) print f, c[f] }' "rt.$name.tree" |
			sort >"rt.$name.calls"
		local how="counted from the call tree (no report --stat)"
	fi
	local nf
	nf=$(wc -l <"ut.$name.calls")
	if cmp -s "rt.$name.calls" "ut.$name.calls"; then
		target "call counts = uftrace report" 1 "$nf of $nf functions ($how)"
	else
		target "call counts = uftrace report" 0 \
			"$(comm -3 "rt.$name.calls" "ut.$name.calls" | head -4 | tr '\n' ' ') ($how)"
	fi
	# losses, time and bytes over interleaved runs
	: >"t.ut.$name"
	: >"t.rt.$name"
	: >"c.ut.$name"
	: >"c.rt.$name"
	for i in $(seq 1 "$runs"); do
		one_round "$name" r "$@"
		json m.ut seconds >>"t.ut.$name"
		cpu_pair m.ut >>"c.ut.$name"
		json m.rt seconds >>"t.rt.$name"
		cpu_pair m.rt >>"c.rt.$name"
		add_lost m.rt.err
	done
	ev=$(recorded m.rt.err)
	target "0 events lost ($runs runs)" "$([ "$total_lost" = 0 ] && echo 1 || echo 0)" \
		"$total_lost lost in all, $ev recorded in the last run"
	u=$(median <"t.ut.$name")
	r=$(median <"t.rt.$name")
	target "record time <= ${tt}x uftrace" \
		"$(awk -v r="$r" -v u="$u" -v t="$tt" 'BEGIN { print (r <= t * u) ? 1 : 0 }')" \
		"$(awk -v r="$r" -v u="$u" -v c="$calls" 'BEGIN { printf "%.2fx (ringtrace %.3f s, uftrace %.3f s, medians; %d calls a run)", r / u, r, u, c }')"
	startup_note "$calls"
	cpu_line "$name"
	dat=$(stat -c %s "rt.$name.r.dat")
	local wchar
	wchar=$(json m.rt wchar)
	target "bytes written <= 1.1x file size" \
		"$(awk -v w="$wchar" -v d="$dat" 'BEGIN { print (w <= 1.1 * d) ? 1 : 0 }')" \
		"$(awk -v w="$wchar" -v d="$dat" 'BEGIN { printf "%.2fx (%.1f MB written, %.1f MB file)", w / d, w / 1e6, d / 1e6 }')"
	ut=$(du -sb "ut.$name.r" | cut -f1)
	awk -v d="$dat" -v e="${ev:-0}" -v u="$ut" -v c="$calls" 'BEGIN {
		printf "  %-34s %.1f B (ringtrace, %d events), %.1f B (uftrace, %d calls of 2 events)\n",
			"file size per event", e ? d / e : 0, e, c ? u / c / 2 : 0, c }'
}

# ---- --compression zstd ----------------------------------------------------
zstd_bpe=7
zstd_time=0.9
# tc_tree FILE: the call tree trace-cmd report shows (its function_graph
# lines from the "|", as calltree.awk reads ringtrace report's), hashed
tc_tree() {
	trace-cmd report "$1" 2>/dev/null |
		sed -n 's/^.* funcgraph_\(entry\|exit\): [^|]*|  //p' |
		awk -f "$here/calltree.awk" | sha1sum | cut -c1-16
}
rt_tree() {
	"$RT" report "$1" 2>/dev/null | awk -f "$here/calltree.awk" |
		sha1sum | cut -c1-16
}
# compare_zstd NAME COMMAND...: after compare NAME: RUNS recordings with
# --compression zstd, timed against uftrace's runs of compare (their
# medians), the last one's bytes per event on disk; and one recording
# each with --compression zstd and none, recorder and program on one CPU
# (a thread that moves between CPUs inside a call has trace-cmd fold its
# lines where the records fell, which differs from run to run), whose
# records trace-cmd report and ringtrace report show (the call tree,
# call by call) the same from either file
compare_zstd() {
	local name=$1 i total_lost=0 ev dat a b z cpu
	shift
	echo "  -- --compression zstd (the default for a file):"
	cpu=$(taskset -pc $$ | sed -n 's/.*: *\([0-9]*\).*/\1/p')
	for z in zstd none; do
		rm -f "rp.$name.$z.dat"
		taskset -c "$cpu" "$RT" record -q -p function_graph \
			--compression $z -o "rp.$name.$z.dat" \
			--preload="$LIB" -- "$@" >/dev/null 2>"m.rp.err" ||
			{ cat m.rp.err; echo "ringtrace record --compression $z failed" >&2; exit 1; }
	done
	: >"t.rz.$name"
	: >"c.rz.$name"
	for i in $(seq 1 "$runs"); do
		rm -f "rz.$name.dat"
		python3 "$here/measure.py" "m.rz" "$RT" record -p function_graph \
			--compression zstd -o "rz.$name.dat" \
			--preload="$LIB" -- "$@"
		[ "$(json m.rz rc)" = 0 ] ||
			{ cat m.rz.err; echo "ringtrace record --compression zstd failed" >&2; exit 1; }
		json m.rz seconds >>"t.rz.$name"
		cpu_pair m.rz >>"c.rz.$name"
		sync
		add_lost m.rz.err
	done
	ev=$(recorded m.rz.err)
	dat=$(stat -c %s "rz.$name.dat")
	target "zstd: 0 events lost ($runs runs)" \
		"$([ "$total_lost" = 0 ] && echo 1 || echo 0)" \
		"$total_lost lost in all, $ev recorded in the last run"
	target "zstd: file <= $zstd_bpe B/event" \
		"$(awk -v d="$dat" -v e="${ev:-0}" -v t="$zstd_bpe" 'BEGIN { print (e && d / e <= t) ? 1 : 0 }')" \
		"$(awk -v d="$dat" -v e="${ev:-0}" -v u="$(stat -c %s "rt.$name.dat")" 'BEGIN {
			printf "%.2f B/event (%.1f MB, %d events; uncompressed %.1f MB)", e ? d / e : 0, d / 1e6, e, u / 1e6 }')"
	a=$(tc_tree "rp.$name.none.dat")
	b=$(tc_tree "rp.$name.zstd.dat")
	target "zstd: trace-cmd report = none's" "$([ "$a" = "$b" ] && echo 1 || echo 0)" \
		"call trees $b (zstd) and $a (none), sha1, one CPU"
	a=$(rt_tree "rp.$name.none.dat")
	b=$(rt_tree "rp.$name.zstd.dat")
	target "zstd: ringtrace report = none's" "$([ "$a" = "$b" ] && echo 1 || echo 0)" \
		"call trees $b (zstd) and $a (none), sha1, one CPU"
	time_target "zstd: record time <= ${zstd_time}x uftrace" \
		"t.rz.$name" "t.ut.$name" "$zstd_time"
	cpu_info "zstd: CPU time" "c.rz.$name" "c.ut.$name"
	# the recorder's CPU with zstd less without (the none runs of
	# compare): what compressing the pages costs it, as a speed
	awk -v z="$(cut -d' ' -f1 <"c.rz.$name" | median)" \
		-v n="$(cut -d' ' -f1 <"c.rt.$name" | median)" \
		-v b="$(stat -c %s "rt.$name.dat")" 'BEGIN {
		printf "  %-34s %s (recorder %.2f s with zstd, %.2f s without, %.1f MB of pages; medians)\n",
			"zstd: compression (information)",
			(z > n) ? sprintf("%.0f MB/s of pages", b / (z - n) / 1e6) : "under the noise",
			z, n, b / 1e6 }'
	awk -v w="$(json m.rz wchar)" -v d="$dat" 'BEGIN {
		printf "  %-34s %.2fx the file (%.1f MB written, last run)\n",
			"zstd: bytes written", d ? w / d : 0, w / 1e6 }'
	rm -f "rz.$name.dat" "rp.$name.zstd.dat" "rp.$name.none.dat"
}

# startup_info NAME UFTRACE_OPTS COMMAND...: the recording of a run that
# makes a few calls (COMMAND: the program on a tiny input), 3 x RUNS
# (at least 9) interleaved runs of each tool (a run takes milliseconds,
# and a median of three of them moved from 12 to 44 ms between two runs
# of the bench on a shared machine), medians and minimums of the wall
# times, medians of the CPU times (the recorder and the program
# together): the fixed costs of a recording (the tool's start, the
# library's, the symbols, patching the sites, the file's creation and
# its end), no target
startup_info() {
	local name=$1 uopt=$2 i n=$((3 * runs))
	local -a uo=()
	shift 2
	[ "$uopt" = - ] || read -r -a uo <<<"$uopt"
	[ "$n" -ge 9 ] || n=9
	: >"t.su.$name"
	: >"t.sr.$name"
	for i in $(seq 1 "$n"); do
		one_round "$name" s "$@"
		echo "$(json m.ut seconds) $(cpu_pair m.ut)" >>"t.su.$name"
		echo "$(json m.rt seconds) $(cpu_pair m.rt)" >>"t.sr.$name"
	done
	awk -v r="$(cut -d' ' -f1 "t.sr.$name" | median)" \
		-v u="$(cut -d' ' -f1 "t.su.$name" | median)" \
		-v rm="$(cut -d' ' -f1 "t.sr.$name" | sort -g | head -1)" \
		-v um="$(cut -d' ' -f1 "t.su.$name" | sort -g | head -1)" \
		-v rc="$(awk '{ print $2 + $3 }' "t.sr.$name" | median)" \
		-v uc="$(awk '{ print $2 + $3 }' "t.su.$name" | median)" \
		-v c="$*" -v n="$n" 'BEGIN {
		# (the CPU times are counted in clock ticks: under one, a
		# median of 0 says nothing)
		if (rc < 0.01 && uc < 0.01)
			cpu = "CPU under one clock tick (10 ms) each"
		else
			cpu = sprintf("CPU %.2f s and %.2f s", rc, uc)
		printf "  %-34s %.2fx (ringtrace %.3f s, uftrace %.3f s; %s; medians of %d; minimums %.3f s and %.3f s; %s)\n",
			"start-up only (information)", u ? r / u : 0, r, u, cpu, n, rm, um, c }'
	rm -rf "ut.$name.s" "rt.$name.s.dat"
}

# ---- Lua: calls that longjmp() leaves --------------------------------------
# compare_lua VARIANT UFTRACE_OPTS: the interpreter running errors.lua
# (errors raised and caught at many depths, coroutines, a sort whose
# comparator raises). The call tree against uftrace's, in the ISO C
# build and on the parts of the script whose tree uftrace gets right
# (it records library calls here, as its longjmp() hook is one of them:
# they are taken out of its listing, droplib.awk); then the whole script,
# in both builds, against the kernel's own count of every function's
# calls in the same run (uprobe-counts.sh: uprobes know nothing of
# return addresses). And, for information, how many calls
# uftrace's recording of the whole script in the POSIX build holds.
lua_parts="throw yield coerror sort strings"
# tree_calls TREE: "name count" of every call in a calltree.awk listing
tree_calls() {
	awk '/[;{]$/ { n = $2; sub(/[(].*/, "", n); c[n]++ }
		END { for (f in c) print f, c[f] }' "$1" | sort
}
compare_lua() {
	local v=$1 uopt=$2 b name calls nf diffs
	local -a uo=()
	[ "$uopt" = - ] || read -r -a uo <<<"$uopt"
	name=lua-$v
	echo
	echo "== $name: errors.lua (longjmp)"
	rm -rf "ut.$name" "rt.$name.dat"
	# shellcheck disable=SC2086
	uftrace record "${uo[@]}" -d "ut.$name" ./$name "$here/errors.lua" \
		$lua_parts >/dev/null 2>&1
	nm -D --undefined-only "$name" | awk '{ sub(/@.*/, "", $2); print $2 }' >"$name.lib"
	uftrace replay -d "ut.$name" -f none --no-pager 2>/dev/null |
		awk -f "$here/calltree.awk" |
		awk -f "$here/droplib.awk" "$name.lib" - >"ut.$name.tree"
	# shellcheck disable=SC2086
	"$RT" record -q -p function_graph --compression none -o "rt.$name.dat" \
		--preload="$LIB" -- ./$name "$here/errors.lua" $lua_parts \
		>/dev/null 2>"rt.$name.err"
	"$RT" report "rt.$name.dat" | awk -f "$here/calltree.awk" >"rt.$name.tree"
	calls=$(grep -c '[;{]$' "ut.$name.tree")
	if cmp -s "rt.$name.tree" "ut.$name.tree"; then
		target "call tree = uftrace's" 1 "$calls of $calls calls, identical ($lua_parts)"
	else
		target "call tree = uftrace's" 0 \
			"first difference: $(diff "rt.$name.tree" "ut.$name.tree" | head -3 | tr '\n' ' ')"
	fi
	for b in lua-$v luaposix-$v; do
		# the recording and the kernel's count of the same run
		rm -f "rt.$b.all.dat"
		"$here/uprobe-counts.sh" "./$b" "$RT" record -q -p function_graph \
			--compression none -o "rt.$b.all.dat" --preload="$LIB" \
			-- ./$b "$here/errors.lua" >"$b.uprobes" 2>"rt.$b.all.err" || true
		"$RT" report "rt.$b.all.dat" 2>/dev/null |
			awk -f "$here/calltree.awk" >"rt.$b.all.tree"
		tree_calls "rt.$b.all.tree" >"rt.$b.all.calls"
		nf=$(wc -l <"$b.uprobes")
		calls=$(awk '{ s += $2 } END { print s + 0 }' "$b.uprobes")
		diffs=$(comm -3 "rt.$b.all.calls" "$b.uprobes" | head -4 | tr '\n' ' ')
		if [ "$nf" -gt 0 ] && [ -z "$diffs" ]; then
			target "call counts = kernel uprobes" 1 "$b: $nf of $nf functions, $calls calls (the whole script; $(sed -n 's/^ringtrace: .*; \([0-9]*\) lost$/\1/p' "rt.$b.all.err" | tail -1) lost)"
		else
			target "call counts = kernel uprobes" 0 "$b: $nf functions by uprobes; first differences: ${diffs:-no uprobe counts}"
		fi
	done
	rm -rf "ut.$name.all"
	nm -D --undefined-only "luaposix-$v" | awk '{ sub(/@.*/, "", $2); print $2 }' >"luaposix-$v.lib"
	uftrace record "${uo[@]}" -d "ut.$name.all" ./luaposix-$v "$here/errors.lua" \
		>/dev/null 2>&1 || true
	printf '  %-34s %s of %s calls (uftrace replay of luaposix-%s, the whole script)\n' \
		"uftrace's recording (information)" \
		"$(uftrace replay -d "ut.$name.all" -f none --no-pager 2>/dev/null |
			awk -f "$here/calltree.awk" |
			awk -f "$here/droplib.awk" "luaposix-$v.lib" - | grep -c '[;{]$' || true)" \
		"$(awk '{ s += $2 } END { print s + 0 }' "luaposix-$v.uprobes")" "$v"
	rm -rf "ut.$name" "ut.$name.all" rt.*"$v".all.dat "rt.$name.dat"
}

# compare_threads VARIANT: zstd compressing 8 MiB with two worker
# threads (-T2, jobs of 1 MiB): every function's call count in our
# recording, all threads together, against the kernel's uprobes' count
# of the same run (uprobe-counts.sh); the runs differ from one another
# (the threads' polling), so only the same run compares.
compare_threads() {
	local v=$1 b=zstd-$1 nf calls diffs
	echo
	echo "== $b: -T2 (threads)"
	rm -f "rt.$b.dat"
	"$here/uprobe-counts.sh" "./$b" "$RT" record -q -p function_graph \
		--compression none -o "rt.$b.dat" --preload="$LIB" \
		-- ./$b -q -T2 -B1MiB -3 -f in8.dat -o out8.zst \
		>"$b.uprobes" 2>"rt.$b.err" || true
	"$RT" report "rt.$b.dat" 2>/dev/null | awk -f "$here/calltree.awk" >"rt.$b.tree"
	tree_calls "rt.$b.tree" >"rt.$b.calls"
	nf=$(wc -l <"$b.uprobes")
	calls=$(awk '{ s += $2 } END { print s + 0 }' "$b.uprobes")
	diffs=$(comm -3 "rt.$b.calls" "$b.uprobes" | head -4 | tr '\n' ' ')
	if [ "$nf" -gt 0 ] && [ -z "$diffs" ]; then
		target "call counts = kernel uprobes" 1 "$nf of $nf functions, $calls calls, the threads together ($(sed -n 's/^ringtrace: .*; \([0-9]*\) lost$/\1/p' "rt.$b.err" | tail -1) lost)"
	else
		target "call counts = kernel uprobes" 0 "$nf functions by uprobes; first differences: ${diffs:-no uprobe counts}"
	fi
	rm -f "rt.$b.dat"
}

echo "ringtrace $($RT --version 2>/dev/null | head -1) vs $(uftrace --version | head -1); $runs runs; $(nproc) CPUs"
for v in $variants; do
	case $v in
	ins) uo=- tt=1.0 ;;
	pg) uo=- tt=0.6 ;;
	patch) uo="-P ." tt=0.6 ;;
	*) echo "compare.sh: no variant $v (ins, pg, patch)" >&2; exit 2 ;;
	esac
	[ $have_lz4 = 0 ] || compare "lz4-$v" "$uo" $tt ./lz4-$v -9 -f in.dat out.lz4
	[ $have_lz4 = 0 ] || compare_zstd "lz4-$v" ./lz4-$v -9 -f in.dat out.lz4
	[ $have_lz4 = 0 ] ||
		startup_info "lz4-$v" "$uo" ./lz4-$v -9 -f tiny.dat out.lz4
	[ $have_sqlite3 = 0 ] ||
		compare "sqlite3-$v" "$uo" $tt ./sqlite3-$v :memory: ".read script.sql"
	[ $have_sqlite3 = 0 ] ||
		compare_zstd "sqlite3-$v" ./sqlite3-$v :memory: ".read script.sql"
	[ $have_sqlite3 = 0 ] ||
		startup_info "sqlite3-$v" "$uo" ./sqlite3-$v :memory: "select 1;"
	if [ "$v" != ins ] && ! command -v perf >/dev/null; then
		echo "compare.sh: no perf (linux-perf): lua and zstd skipped" >&2
	elif [ "$v" != ins ]; then
		[ $have_lua = 0 ] || compare_lua "$v" "$uo"
		[ $have_zstd = 0 ] || compare_threads "$v"
	fi
done
echo
[ $status = 0 ] && echo "all targets met" || echo "some targets MISSED"
exit $status
