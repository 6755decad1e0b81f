#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check_spdx.sh SOURCE_DIR
#
# The licences, file by file (README.md, "Licences"): every installed
# header (ringbuf/include, tracer/include), which compiles into the
# user's program, is under MIT; every other source, build and script
# file carries an SPDX line in its first three lines naming a licence
# that LICENSES/ holds.
set -eu
top=${1:?usage: check_spdx.sh SOURCE_DIR}
cd "$top"
status=0
for l in MIT LGPL-2.1-or-later; do
	[ -s "LICENSES/$l.txt" ] || { echo "FAIL: no LICENSES/$l.txt"; status=1; }
done
n=0
for h in ringbuf/include/*/*.h tracer/include/*/*.h; do
	head -2 "$h" | grep -q 'SPDX-License-Identifier: MIT \*/' || {
		echo "FAIL: $h is installed into users' programs but is not under MIT"
		status=1
	}
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no installed headers under $top"; status=1; }
m=0
for f in $(find . \( -name .git -o -name 'build*' -o -name corpus -o -name golden \) -prune -o \
	-type f \( -name '*.[chS]' -o -name '*.cc' -o -name '*.sh' -o -name '*.py' \
	-o -name '*.cmake' -o -name '*.in' -o -name '*.map' -o -name CMakeLists.txt \) -print); do
	m=$((m + 1))
	id=$(head -3 "$f" | sed -n 's/.*SPDX-License-Identifier: \([A-Za-z0-9.+-]*\).*/\1/p' | head -1)
	if [ -z "$id" ]; then
		echo "FAIL: $f has no SPDX-License-Identifier line"
		status=1
	elif [ ! -s "LICENSES/$id.txt" ]; then
		echo "FAIL: $f is under $id, which LICENSES/ does not hold"
		status=1
	fi
done
[ $status = 0 ] && echo "OK: $n installed headers under MIT; $m files with an SPDX line of LICENSES/"
exit $status
