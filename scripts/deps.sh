#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages ringtrace needs, when they are missing.
# Sourced by demo.sh and test.sh; usable alone: bash scripts/deps.sh
# [--test] [PACKAGE...] (--test: what the tests need too).
set -euo pipefail

# to build
# (libfuse3-dev: ringtrace mount; the build goes on without it;
#  liburcu-dev: the tracer's RCU, liburcu's urcu-bp flavour)
RINGTRACE_PACKAGES=(gcc make cmake pkg-config libtraceevent-dev libelf-dev libfuse3-dev
	liburcu-dev)
# what the tests run besides the build (scripts/test.sh installs these):
#   trace-cmd      the oracle the trace.dat files are read back with
#   python3        tool.report_json checks the JSON is valid
#   groff-base     tool.docs renders the man page (-ww: no warnings)
#   g++ clang      lint.headers and install.external_projects compile the
#                  headers and programs as C and C++ with gcc and clang
#   binutils       lint.exports (nm)
#   util-linux     setpriv (tool.no_permission runs as another user),
#                  unshare (the clock.* runs in time namespaces)
#   libc-bin       ldd (install.external_projects)
#   coreutils grep sed mawk findutils: the shell tests' text tools
#   fuse3          fusermount3, for the tracefs cases (ringtrace mount)
#   linux-source-6.12 the kernel's ftracetest cases, run unmodified on the
#                  mount (tracefs.upstream extracts them from its tarball;
#                  tracefs.upstream612 runs its trigger and
#                  trigger/inter-event cases on a fixture with kernel names)
#   xz-utils       tar -J, to extract them
#   libtracefs-dev tracefs.libtracefs builds a libtracefs program that
#                  works on the mount
#   uftrace        the oracle of the -pg and -fpatchable-function-entry
#                  call trees (unit.tracer-mcount.uftrace_*); g++ also
#                  builds tests/tracer-mcount's C++ exceptions sample
RINGTRACE_TEST_PACKAGES=(trace-cmd python3 groff-base g++ clang binutils
	util-linux libc-bin coreutils grep sed mawk findutils fuse3
	linux-source-6.12 xz-utils libtracefs-dev uftrace)

ringtrace_install_deps() {
	local missing=() p
	for p in "${RINGTRACE_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "ringtrace: installing ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	if [ "${1:-}" = "--test" ]; then
		shift
		set -- "${RINGTRACE_TEST_PACKAGES[@]}" "$@"
	fi
	ringtrace_install_deps "$@"
fi
