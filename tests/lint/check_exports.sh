#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check_exports.sh LIB.so MAP: the shared library exports exactly the
# symbols of the version script's global section, and nothing else.
set -eu
lib=$1
map=$2
tmp=${TMPDIR:-/tmp}/rb-exports.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

[ -f "$lib" ] || { echo "FAIL: no library $lib"; exit 1; }
[ -f "$map" ] || { echo "FAIL: no version script $map"; exit 1; }

# The global: sections, up to local: or the end, without comments,
# version node headers and punctuation.
sed -n '/global:/,/local:/p' "$map" | sed -e 's/#.*//' -e '/^[[:space:]]*\/\*/d' \
	-e '/^[[:space:]]*\*/d' -e '/{/d' \
	-e '/global:/d' -e '/local:/d' -e '/^[[:space:]]*}/d' \
	-e 's/[;[:space:]]//g' -e '/^$/d' |
	LC_ALL=C sort -u >"$tmp.want"

# Defined dynamic symbols; drop the version node (type A) and version
# suffixes (name@@VERSION).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' |
	sed 's/@.*//' | LC_ALL=C sort -u >"$tmp.have"

[ -s "$tmp.want" ] || { echo "FAIL: no global symbols in $map"; exit 1; }

status=0
extra=$(LC_ALL=C comm -13 "$tmp.want" "$tmp.have")
missing=$(LC_ALL=C comm -23 "$tmp.want" "$tmp.have")
if [ -n "$extra" ]; then
	echo "FAIL: exported but not in $map:"
	echo "$extra" | sed 's/^/  /'
	status=1
fi
if [ -n "$missing" ]; then
	echo "FAIL: in $map but not exported:"
	echo "$missing" | sed 's/^/  /'
	status=1
fi
# Every exported symbol carries the version node whose global: section
# names it (a symbol added later belongs to a later node).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' |
	LC_ALL=C sort -u >"$tmp.versioned"
awk '
	/^[[:space:]]*[A-Za-z0-9_.]+[[:space:]]*\{/ { node = $1; sub(/\{.*/, "", node) }
	/global:/ { on = 1; next }
	/local:/ || /^[[:space:]]*\}/ { on = 0 }
	on { sub(/#.*/, ""); gsub(/[;[:space:]]/, ""); if ($0 != "") print $0 "@@" node }
' "$map" | LC_ALL=C sort -u >"$tmp.wantver"
wrongver=$(LC_ALL=C comm -13 "$tmp.wantver" "$tmp.versioned")
if [ -n "$wrongver" ]; then
	echo "FAIL: exported without the version node that lists it in $map:"
	echo "$wrongver" | sed 's/^/  /'
	status=1
fi
[ $status -eq 0 ] && echo "OK: $(wc -l <"$tmp.have") symbols exported, matching $map"
exit $status
