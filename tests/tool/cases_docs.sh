# SPDX-License-Identifier: LGPL-2.1-or-later
# Cases of tool_test.sh (sourced by it): every verb and every option of
# every verb is in 'ringtrace help VERB', in the man page and in
# Documentation/ringtrace.rst.

case_options_docs() {
	local src=${RTT_SRC:?RTT_SRC is not set} v o man=$W/man.txt missing=
	# the man page's text with its escapes taken out
	sed 's/\\f[BIRP]//g; s/\\-/-/g' "$src/tracer/tool/ringtrace.1" >"$man"
	run 0 "$T" --help
	for v in $(sed -n 's/^  \([a-z-]*\) .*/\1/p' "$W/out" | sort -u); do
		run 0 "$T" help "$v"
		out_has "^usage: ringtrace $v"
		cp "$W/out" "$W/help.$v"
		grep -qw -- "$v" "$man" || missing="$missing verb:$v(man)"
		grep -qF -- "\`\`$v" "$src/Documentation/ringtrace.rst" ||
			grep -qE -- "^  ringtrace .*\b$v\b" "$src/Documentation/ringtrace.rst" ||
			missing="$missing verb:$v(rst)"
		# the long options the help lists
		for o in $(grep -oE -- '--[a-z][a-z-]+' "$W/help.$v" | sort -u); do
			[ "$o" = --help ] && continue
			grep -qF -- "$o" "$man" || missing="$missing $v$o(man)"
			grep -qF -- "$o" "$src/Documentation/ringtrace.rst" ||
				missing="$missing $v$o(rst)"
		done
	done
	grep -q "help VERB" "$man" || missing="$missing help-VERB(man)"
	[ -z "$missing" ] || fail "not documented:$missing"
}
