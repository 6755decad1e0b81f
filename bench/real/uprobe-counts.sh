#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# uprobe-counts.sh BINARY COMMAND [ARG]...: run COMMAND once (address
# space randomization off) and print how many times each function of
# BINARY built with a profiling site (-pg -mfentry's call to
# __fentry__, -fpatchable-function-entry's NOPs) ran in it, as the
# kernel's uprobes count them: one probe on the first instruction after
# each function's site, `perf stat` over the run (COMMAND's children and
# threads included). One "name count" line per function that ran,
# sorted by name. COMMAND may be the recording itself (`ringtrace
# record ... -- BINARY ...`): the probes are past the bytes a function
# tracer patches, and the body runs once per call whatever the site
# jumps to, so the count and the recording are of the same run. An
# oracle that knows nothing of return addresses: a longjmp, an exception
# or a coroutine switch does not change what it counts. Functions
# without a site (those of the C start files) are left out. Needs root,
# perf, objdump and a kernel with uprobe events; the probes are removed
# again at the end, whatever happens. COMMAND's standard output goes to
# standard error.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: uprobe-counts.sh BINARY COMMAND [ARG]..." >&2; exit 2; }
bin=$(readlink -f "$1")
shift
# one probe group per run, named after the process, so that two runs
# never share probes
group=rtcount$$
tmp=$(mktemp -d)
cleanup() {
	perf probe -q -d "$group:*" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
# "name offset" of every function with a site: the offset of the first
# instruction after it (an endbr64 before it counted in)
objdump -d --no-show-raw-insn "$bin" | awk '
	function hex(s,   i, v) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function flush() { if (name != "" && off > 0) print name, off; name = "" }
	/^[0-9a-f]+ <[^>]+>:$/ {
		flush()
		name = $2; gsub(/[<>:]/, "", name)
		start = hex($1); off = 0; state = 0; nops = 0; next
	}
	name == "" || state == 2 { next }
	/^ *[0-9a-f]+:\t/ {
		split($0, f, "\t"); a = f[1]; gsub(/[ :]/, "", a); addr = hex(a); insn = f[2]
		if (state == 1) { off = addr - start; state = 2; next }
		if (insn ~ /^endbr64/) next
		if (insn ~ /<__fentry__/) { state = 1; next }
		if (insn ~ /^(nop|xchg +%ax,%ax)/) { nops = 1; next }
		if (nops) off = addr - start
		nops = 0; state = 2
	}
	END { flush() }' | sort -u >"$tmp/sites"
[ -s "$tmp/sites" ] || { echo "uprobe-counts.sh: no function of $bin has a profiling site" >&2; exit 1; }
# in batches of 64 (one perf call each); a batch that fails again one
# by one, leaving out what takes no probe
add_batch() { # FIRST_INDEX "NAME OFFSET"...
	local first=$1 n l
	local -a args=()
	shift
	n=$first
	for l in "$@"; do args+=(-a "$group:f$((n++))=${l% *}+${l#* }"); done
	n=$first
	if perf probe -q -x "$bin" "${args[@]}" >/dev/null 2>&1; then
		for l in "$@"; do echo "f$((n++)) ${l% *}" >>"$tmp/map"; done
		return
	fi
	# (whatever of the batch was placed before the failure goes first)
	for l in "$@"; do
		perf probe -q -d "$group:f$n" >/dev/null 2>&1 || true
		if perf probe -q -x "$bin" -a "$group:f$n=${l% *}+${l#* }" >/dev/null 2>&1; then
			echo "f$n ${l% *}" >>"$tmp/map"
		else
			echo "uprobe-counts.sh: no probe at ${l% *}+${l#* }: left out" >&2
		fi
		n=$((n + 1))
	done
}
: >"$tmp/map"
mapfile -t sites <"$tmp/sites"
for ((i = 0; i < ${#sites[@]}; i += 64)); do
	add_batch "$i" "${sites[@]:i:64}"
done
[ -s "$tmp/map" ] || { echo "uprobe-counts.sh: no probe could be placed in $bin" >&2; exit 1; }
setarch -R perf stat -x, -o "$tmp/stat" -e "$group:*" -- "$@" >&2
awk -F, 'NR == FNR { split($0, w, " "); name[w[1]] = w[2]; next }
	$1 ~ /^[0-9]+$/ && $1 > 0 { n = split($3, e, ":"); print name[e[n]], $1 }' \
	"$tmp/map" "$tmp/stat" | sort
