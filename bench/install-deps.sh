#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Install what the optional baselines of ringbuf-bench need on Debian or
# Ubuntu: LTTng-UST (headers, library, lttng-gen-tp), the LTTng session
# daemon and command line tool, and babeltrace2 to count the recorded
# events. pkg-config lets the bench's CMake find lttng-ust.
#
# The bench builds and runs without any of these; the LTTng baseline is
# then reported as "skipped".
#
# Usage: sudo bench/install-deps.sh [--perf]
#   --perf  also install linux-perf, to profile the bench
set -eu

pkgs="pkg-config liblttng-ust-dev lttng-tools babeltrace2"
for arg in "$@"; do
	case "$arg" in
	--perf) pkgs="$pkgs linux-perf" ;;
	-h|--help) sed -n '3,14p' "$0"; exit 0 ;;
	*) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
else
	SUDO=
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps.sh: apt-get not found; install these by hand: $pkgs" >&2
	exit 1
fi

$SUDO apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $pkgs
