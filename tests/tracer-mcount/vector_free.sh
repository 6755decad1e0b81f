#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# vector_free.sh ARCHIVE: the vector-free objects of the function tracers
# (fnfast.c, fgraph_fast.c; see fnfast.c) in the rtfunc archive use no
# vector or x87 register, make no indirect call or jump, and call out of
# themselves only through a thunk (rt_vsafe_*, vsafe.h): what lets the
# trampolines leave the traced function's vector registers unsaved.
set -e
archive=$1
[ -f "$archive" ] || { echo "vector_free.sh: no archive $archive" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs="fnfast.c.o fgraph_fast.c.o"
(cd "$tmp" && ar x "$archive" $objs)
fail=0
defined=$(cd "$tmp" && nm --defined-only $objs | awk 'NF == 3 { print $3 }' | sort -u)
for o in $objs; do
	dis=$(objdump -dr --no-show-raw-insn "$tmp/$o")
	if printf '%s\n' "$dis" | grep -E '%([xyz]mm[0-9]|mm[0-7]|st)\b' >/dev/null; then
		echo "FAIL $o uses a vector or x87 register:" >&2
		printf '%s\n' "$dis" | grep -E '%([xyz]mm[0-9]|mm[0-7]|st)\b' | head -5 >&2
		fail=1
	fi
	if printf '%s\n' "$dis" | grep -E '\s(call|jmp)[a-z]*\s+\*' >/dev/null; then
		echo "FAIL $o makes an indirect call or jump:" >&2
		printf '%s\n' "$dis" | grep -E '\s(call|jmp)[a-z]*\s+\*' | head -5 >&2
		fail=1
	fi
	# every call or jump to a symbol: a relocation of type PLT32 (the
	# branches within a function need none)
	for s in $(printf '%s\n' "$dis" | awk '$2 == "R_X86_64_PLT32" { sub(/-0x4$/, "", $3); print $3 }' | sort -u); do
		case $s in
		rt_vsafe_*) continue ;;
		esac
		if ! printf '%s\n' "$defined" | grep -qx "$s"; then
			echo "FAIL $o calls $s directly, not through a thunk (vsafe.h)" >&2
			fail=1
		fi
	done
done
[ $fail = 0 ] && echo "vector_free: $objs: no vector register, every call out through a thunk"
exit $fail
