#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# old_headers.sh SRC LIBDIR CC [CFLAGS]: build old_headers_app.c against
# the installed headers of libringbuf's previous release, taken from the
# git history of SRC (the tree just before the newest version node of
# ringbuf/ringbuf.map was added), and run it against the library in
# LIBDIR. The inline code of old headers talks to today's library.
# Exit status: 0 pass, 1 fail, 77 skip (no git history).
set -eu
src=$1 libdir=$2 cc=$3 cflags=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "SKIP: $src is no git checkout"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-oldabi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# For each version node after the first, the tree just before the node
# was added: the headers of the release before it.
status=0 built=0
for node in $(sed -n 's/^\(RINGBUF_[0-9.]*\) {.*/\1/p' "$src/ringbuf/ringbuf.map" | tail -n +2); do
	added=$(git -C "$src" log --format=%H -S"$node {" -- ringbuf/ringbuf.map | tail -1)
	[ -n "$added" ] || continue # not committed yet
	git -C "$src" cat-file -e "$added^:ringbuf/include/ringbuf/frontend.h" 2>/dev/null ||
		continue # no inline write then
	inc=$tmp/$node/include
	mkdir -p "$inc/ringbuf"
	for h in $(git -C "$src" ls-tree --name-only "$added^" ringbuf/include/ringbuf/); do
		git -C "$src" show "$added^:$h" >"$inc/ringbuf/$(basename "$h")"
	done
	echo "== before $node: $(git -C "$src" log -1 --format='%h %s' "$added^" | cut -c1-60)"
	# shellcheck disable=SC2086
	"$cc" -std=gnu11 -O2 -Wall -Wno-unused-parameter $cflags \
		-I"$inc" "$here/old_headers_app.c" -o "$tmp/$node/app" \
		-L"$libdir" -lringbuf -lpthread -Wl,-rpath,"$libdir" || { status=1; continue; }
	built=$((built + 1))
	"$tmp/$node/app" || status=1
done
[ "$built" -gt 0 ] || { echo "SKIP: no earlier release in the history"; exit 77; }
exit $status
