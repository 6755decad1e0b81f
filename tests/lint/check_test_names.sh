#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check_test_names.sh CASE_LISTS TOOL_DIR TOOL_CASES
#
# The test cases ctest runs are the cases the programs have, no more and
# no fewer: for each line "EXE PATH CASE,CASE,..." of CASE_LISTS (written
# by tests/CMakeLists.txt from its rbt_cases() calls), PATH --list must
# print exactly those cases; the tool's case_NAME functions (TOOL_DIR/
# *.sh) must be exactly the lines of the file TOOL_CASES.
set -u
lists=${1:?usage: check_test_names.sh CASE_LISTS TOOL_DIR TOOL_CASES}
tooldir=${2:?}
toolcases=${3:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
n=0
# compare WHAT FILE_OF_PROGRAM FILE_OF_LIST
compare() {
	sort -u "$2" >"$tmp/p"
	sort -u "$3" >"$tmp/l"
	if ! cmp -s "$tmp/p" "$tmp/l"; then
		comm -23 "$tmp/p" "$tmp/l" | sed "s|^|FAIL: $1: case not registered with ctest: |"
		comm -13 "$tmp/p" "$tmp/l" | sed "s|^|FAIL: $1: ctest runs a case the program lacks: |"
		status=1
	fi
}
# (a program may be registered in several rbt_cases() calls, say with
# another environment: its lines are taken together)
sort -u -k1,1 "$lists" | while read -r exe path rest; do
	[ -n "$exe" ] || continue
	if ! "$path" --list >"$tmp/prog" 2>"$tmp/err"; then
		echo "FAIL: $exe --list: $(head -3 "$tmp/err")"
		echo 1 >"$tmp/status"
		continue
	fi
	awk -v e="$exe" '$1 == e { print $3 }' "$lists" | tr ',' '\n' |
		sed '/^$/d' >"$tmp/list"
	compare "$exe" "$tmp/prog" "$tmp/list"
	[ $status = 0 ] || echo 1 >"$tmp/status"
	echo x >>"$tmp/count"
done
[ -s "$tmp/status" ] && status=1
n=$(cat "$tmp/count" 2>/dev/null | wc -l)
sed -n 's/^case_\([A-Za-z0-9_]*\)() *{.*/\1/p' "$tooldir"/*.sh >"$tmp/prog"
sed '/^$/d' "$toolcases" >"$tmp/list"
compare "tests/tool" "$tmp/prog" "$tmp/list"
[ "$n" -gt 0 ] || { echo "FAIL: no programs in $lists"; status=1; }
[ $status = 0 ] && echo "OK: the cases of $n programs and of the tool's scripts are the cases ctest runs"
exit $status
