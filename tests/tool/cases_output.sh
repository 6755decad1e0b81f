# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): where record -o and extract -o
# write. Only regular files are created or replaced; "-" and a FIFO
# with a reader get the file as a stream; a device node, a FIFO without
# a reader, a directory or a symbolic link is refused with exit code 2
# before anything runs, and left as it was.

# is_tracedat FILE: FILE starts with trace.dat's magic
is_tracedat() {
	printf '\027\010Dtracing' | cmp -s -n 10 - "$1"
}

# no_leftovers: nothing in the publish directory
no_leftovers() {
	[ -z "$(ls -A "$RINGTRACE_DIR" 2>/dev/null)" ] ||
		fail "left in the publish directory: $(ls -A "$RINGTRACE_DIR" | tr '\n' ' ')"
}

case_output_paths() {
	local d=$W/o rc
	mkdir "$d"
	# a command that leaves a mark when it runs
	local cmd=(sh -c "touch $d/ran; exec \"\$0\" --seconds 0.2" "$S")
	mkfifo "$d/fifo"
	mkdir "$d/dir"
	ln -s "$d/target" "$d/link"
	for o in "$d/fifo" "$d/dir" "$d/link"; do
		run 2 timeout 20 "$T" record -q -o "$o" -- "${cmd[@]}"
		[ "$(wc -l <"$W/err")" = 1 ] || fail "more than one line: $(cat "$W/err")"
		[ ! -e "$d/ran" ] || fail "the command ran for -o $o"
	done
	err_has "^ringtrace: $d/link is a symbolic link: refusing"
	[ ! -e "$d/target" ] || fail "the link's target was created"
	run 2 timeout 20 "$T" record -q -o "$d/fifo" -- "${cmd[@]}"
	err_has "^ringtrace: $d/fifo is a FIFO that no process reads"
	[ -p "$d/fifo" ] || fail "the FIFO was replaced"
	if mknod "$d/nul" c 1 3 2>/dev/null; then
		run 2 timeout 20 "$T" record -q -o "$d/nul" -- "${cmd[@]}"
		err_has "^ringtrace: $d/nul is a character device: refusing to write a trace.dat over it$"
		[ -c "$d/nul" ] || fail "the device node was replaced"
		[ ! -e "$d/ran" ] || fail "the command ran for a device node"
	fi
	no_leftovers
	# a FIFO with a reader gets the whole file, and stays a FIFO. The
	# reader opens it without waiting for a writer and says so first (a
	# cat started in the background may not have opened it yet when the
	# recorder looks for a reader; it would then wait for a writer for
	# ever).
	python3 - "$d/fifo" "$d/got.dat" "$d/ready" <<'PY' >/dev/null 2>"$d/reader.err" &
import os, select, sys
fifo, out, ready = sys.argv[1:4]
fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
open(ready, "w").close()
with open(out, "wb") as f:
    while select.select([fd], [], [], 60)[0]:
        data = os.read(fd, 65536)
        if not data:
            break
        f.write(data)
PY
	local reader=$! i
	for i in $(seq 1 500); do
		[ -e "$d/ready" ] && break
		sleep 0.02
	done
	[ -e "$d/ready" ] || { kill "$reader"; fail "the FIFO's reader did not start: $(cat "$d/reader.err")"; }
	run 0 timeout 30 "$T" record -q -o "$d/fifo" -e app:work -- "$S" \
		--seconds 0.3 --threads 1
	wait "$reader"
	[ -p "$d/fifo" ] || fail "the FIFO was replaced"
	is_tracedat "$d/got.dat" || fail "the FIFO's reader got no trace.dat"
	run 0 "$T" report "$d/got.dat"
	out_has " work: "
	# standard output
	"$T" record -q -o - -e app:work -- "$S" --seconds 0.3 --threads 1 \
		>"$d/stdout.dat" 2>"$W/err" || fail "record -o -: $(cat "$W/err")"
	is_tracedat "$d/stdout.dat" || fail "record -o - wrote no trace.dat"
	# an existing file is replaced, not written through
	echo old >"$d/old.dat"
	ln "$d/old.dat" "$d/old.link"
	run 0 "$T" record -q -o "$d/old.dat" -e app:work -- "$S" --seconds 0.2
	[ "$(cat "$d/old.link")" = old ] || fail "the old file was written through"
	is_tracedat "$d/old.dat" || fail "no trace.dat"
	# -c writes FILE.PID: no stream
	run 2 "$T" record -c -q -o - -- "$S" --seconds 0.2
	err_has "one file per process"
	no_leftovers
	# the temporary files of a stream are gone
	[ -z "$(ls -A "${TMPDIR:-/tmp}" | grep '^ringtrace\.' | while read -r t; do
		[ -O "${TMPDIR:-/tmp}/$t" ] && [ "$(stat -c %Y "${TMPDIR:-/tmp}/$t")" -ge "$(stat -c %Y "$d")" ] && echo "$t"; done)" ] ||
		fail "a stream's temporary directory was left"
}

case_extract_paths() {
	local d=$W/o
	mkdir "$d"
	start_sample RINGTRACE_EVENTS=app:work -- --threads 1 --seconds 30 \
		--gap-ms 5
	sleep 0.3
	kill -9 "$SP"
	wait "$SP" 2>/dev/null
	mkfifo "$d/fifo"
	run 2 "$T" extract -o "$d/fifo" "$SP"
	err_has "is a FIFO that no process reads"
	[ -p "$d/fifo" ] || fail "the FIFO was replaced"
	if mknod "$d/nul" c 1 3 2>/dev/null; then
		run 2 "$T" extract -o "$d/nul" "$SP"
		err_has "is a character device"
		[ -c "$d/nul" ] || fail "the device node was replaced"
	fi
	run 2 "$T" extract -o "$d" "$SP"
	err_has "is a directory"
	# the files are still there for a good extract, to standard output
	"$T" extract -o - "$SP" >"$d/x.dat" 2>"$W/err" ||
		fail "extract -o -: $(cat "$W/err")"
	err_has "written to standard output"
	is_tracedat "$d/x.dat" || fail "extract -o - wrote no trace.dat"
	run 0 "$T" report "$d/x.dat"
	out_has " work: "
	no_leftovers
}

# The tool names an address as the process does: `report` (the symbols
# of the trace.dat file) prints for each "sy:addr" record the name the
# process's own trace text (its `trace` file) prints, for an address in
# a function nested in another, past the nested one's end, at a
# function's last byte and in the padding past a function's end.
case_symbol_names() {
	local X=${RTT_SYMS:?RTT_SYMS is not set}
	[ "$(uname -m)" = x86_64 ] || skip "the sample's functions are x86-64"
	run 0 "$T" record -q -o "$W/t.dat" -- "$X" "$W/self.txt"
	grep -o 'addr: .*' "$W/self.txt" >"$W/self"
	printf '%s\n' "addr: outer=rtsy_outer" "addr: inner=rtsy_inner" \
		"addr: inner_end=rtsy_outer" "addr: outer_last=rtsy_outer" \
		"addr: short_last=rtsy_short" >"$W/want"
	head -5 "$W/self" | diff -u "$W/want" - >&2 ||
		fail "the process names the addresses wrongly"
	grep -Eq '^addr: short_past=0x[0-9a-f]+$' "$W/self" &&
		grep -Eq '^addr: padding=0x[0-9a-f]+$' "$W/self" ||
		fail "the process names an address past a function's end: $(cat "$W/self")"
	run 0 "$T" report "$W/t.dat"
	grep -o 'addr: .*' "$W/out" >"$W/rep"
	diff -u "$W/self" "$W/rep" >&2 ||
		fail "report names the addresses otherwise than the process"
}
