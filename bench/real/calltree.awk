# SPDX-License-Identifier: LGPL-2.1-or-later
#
# calltree.awk - reduce a function_graph listing to its call tree, one
# "depth token" line per call line, where token is "f() {", "f();" or
# "}". Reads either
#   ringtrace report output ("CPU) DURATION |  <indent>call"), or
#   uftrace replay -f none output ("<indent>call", "} /* f */").
# Two spaces of indent are one level. Other lines (headers, context
# switch lines, markers, comments) are dropped. An opening line followed
# at once by its closing one is a leaf ("f();"): listings differ in when
# they can join the two.
function out(s) {
	if (held != "")
		print held
	held = s
}
END {
	if (held != "")
		print held
}
{
	line = $0
	if (line ~ /^#/)
		next
	p = index(line, "|  ")
	if (p > 0 && line ~ /^ *[0-9]+\) /)
		line = substr(line, p + 3)
	else if (line ~ /^ *[0-9]+\) / || line ~ /^ -+$/)
		next
	d = 0
	while (substr(line, 1, 2) == "  ") {
		d++
		line = substr(line, 3)
	}
	sub(/ \/\*.*\*\/ *$/, "", line)
	sub(/ +$/, "", line)
	if (line == "}" && held ~ /\(\) \{$/ && held_d == d) {
		sub(/ \{$/, ";", held)
		next
	}
	if (line ~ /^[A-Za-z_.$0-9]+\(\) \{$/ || line ~ /^[A-Za-z_.$0-9]+\(\);$/ ||
	    line == "}") {
		out(d " " line)
		held_d = d
	}
}
