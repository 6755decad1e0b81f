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

# The global: section, up to local:, without comments and punctuation.
sed -n '/global:/,/local:/p' "$map" | sed -e 's/#.*//' \
	-e '/global:/d' -e '/local:/d' -e 's/[;[:space:]]//g' -e '/^$/d' |
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
# Every exported symbol is versioned with the map's version node.
node=$(sed -n 's/^[[:space:]]*\([A-Za-z0-9_.]*\)[[:space:]]*{.*/\1/p' "$map" | head -n 1)
unversioned=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' |
	grep -v "@@$node\$" || true)
if [ -n "$node" ] && [ -n "$unversioned" ]; then
	echo "FAIL: exported without version $node:"
	echo "$unversioned" | sed 's/^/  /'
	status=1
fi
[ $status -eq 0 ] && echo "OK: $(wc -l <"$tmp.have") symbols exported, matching $map"
exit $status
