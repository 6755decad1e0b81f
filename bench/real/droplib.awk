# SPDX-License-Identifier: LGPL-2.1-or-later
#
# awk -f droplib.awk NAMES LISTING: a calltree.awk listing ("DEPTH
# name();", "DEPTH name() {", "DEPTH }") of a uftrace recording made
# with its library-call hooks on, with the calls of the functions named
# in the file NAMES (one a line: the program's undefined dynamic
# symbols) taken out, so that it reads as a recording of the program's
# own functions would:
#
#   - a library call's line goes; one with a body ("{") takes the "}"
#     right after it too, whatever its depth (uftrace closes a longjmp()
#     where it lands);
#   - a call that is left with an empty body ("DEPTH f() {" then
#     "DEPTH }": its children were library calls) becomes "DEPTH f();".
NR == FNR { lib[$1] = 1; next }
function out(line) {
	if (held != "") {
		if (line == hd " }") {
			sub(/ \{$/, ";", held)
			print held
			held = ""
			return
		}
		print held
		held = ""
	}
	if (line ~ / \{$/) {
		held = line
		hd = substr(line, 1, index(line, " ") - 1)
		return
	}
	print line
}
{ n = $2; sub(/[(].*/, "", n) }
drop && $2 == "}" { drop = 0; next }
{ drop = 0 }
n in lib { if ($0 ~ /\{$/) drop = 1; next }
{ out($0) }
END { if (held != "") print held }
