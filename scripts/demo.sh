#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job: build libringbuf and run the demo — writer threads and
# signal handlers recording while a consumer reads; prints what was read,
# the per-CPU statistics and the conservation check.
# Usage: bash scripts/demo.sh [ringbuf-demo options, see -h]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
ringtrace_install_deps
build=${BUILD_DIR:-$top/build/release}
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRINGBUF_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target ringbuf-demo >/dev/null
exec "$build/demo/ringbuf-demo" "$@"
