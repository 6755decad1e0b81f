#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs every test: a -Werror build, an ASan+UBSan build and a TSan build,
# each through ctest. Usage: bash scripts/test.sh [ctest arguments]
#   TEST_CONFIGS="default asan tsan" selects the builds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
ringtrace_install_deps "${RINGTRACE_TEST_PACKAGES[@]}"
ringtrace_npm_deps
jobs=$(nproc)
status=0
for cfg in ${TEST_CONFIGS:-default asan tsan}; do
	case $cfg in
	default) san="" ;;
	asan) san=asan ;;
	tsan) san=tsan ;;
	*) echo "test.sh: unknown configuration '$cfg' (default, asan, tsan)" >&2; exit 2 ;;
	esac
	build=$top/build/test-$cfg
	echo "=== $cfg build ==="
	# (the kernel's ftracetest cases extracted once for the three builds)
	cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRINGBUF_WERROR=ON \
		-DRINGBUF_SANITIZE="$san" -DRINGTRACE_FTRACETEST_CACHE="$top/build/ftracetest" >/dev/null
	cmake --build "$build" -j"$jobs"
	echo "=== $cfg tests ==="
	# one test a CPU (a stress test takes every CPU's slot: PROCESSORS,
	# tests/TestHelpers.cmake). Twice as many ran the default and ASan
	# builds a third faster on two CPUs, most long tests waiting more than
	# they compute, but the cases that give a traced program a second or
	# two to be attached to are the suite's timing-sensitive ones: the run
	# must pass on any machine first.
	par=$jobs
	if ! ctest --test-dir "$build" --output-on-failure -j"$par" "$@"; then
		status=1
	fi
done
exit $status
