#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages ringtrace needs, when they are missing.
# Sourced by demo.sh and test.sh; usable alone: bash scripts/deps.sh
# [--test] [PACKAGE...] (--test: what the tests need too).
set -euo pipefail

# to build
# (libfuse3-dev: ringtrace mount; the build goes on without it;
#  liburcu-dev: the tracer's RCU, liburcu's urcu-bp flavour;
#  libzstd-dev: ringtrace record --compression zstd, version 7 files;
#  the build goes on without it;
#  libdw-dev: funcgraph-args, the parameters' names and types from DWARF)
RINGTRACE_PACKAGES=(gcc make cmake pkg-config libtraceevent-dev libelf-dev libfuse3-dev
	liburcu-dev libzstd-dev libdw-dev)
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
#   libkshark-dev libjson-c-dev libtracecmd-dev
#                  tool.kernelshark opens the files with KernelShark's
#                  library (a small program built against it)
#   linux-perf     perf probe and perf stat: the kernel's uprobes count
#                  a program's calls in the run ringtrace records
#                  (unit.tracer-mcount.uprobe_oracle_*; without perf it
#                  checks report --stat against the call tree alone)
#   libdebuginfod1 the debuginfod client libdw would load into a traced
#                  process: unit.test_mcount.graph_args_local_debuginfo
#                  shows it is not loaded (without it the case proves
#                  nothing, and passes)
#   (node and npm  tool.report_json_model reads the JSON with a trace
#                  model from npm: ringtrace_npm_deps, below, installs
#                  Debian's nodejs and npm only where no npm runs yet, so
#                  that a node the machine has is kept)
RINGTRACE_TEST_PACKAGES=(trace-cmd python3 groff-base g++ clang binutils
	util-linux libc-bin coreutils grep sed mawk findutils fuse3
	linux-source-6.12 xz-utils libtracefs-dev uftrace
	libkshark-dev libjson-c-dev libtracecmd-dev libdebuginfod1 linux-perf)

# npm packages the tests read the project's output with, put in npm's
# cache at RINGTRACE_NPM_CACHE here (online); the tests install them from
# there offline, and skip where they are not there.
#   @tracerbench/trace-model  a Chrome trace-event model (report --format=json)
RINGTRACE_NPM_PACKAGES=(@tracerbench/trace-model@8.0.0)
: "${RINGTRACE_NPM_CACHE:=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/ringtrace/npm}"

ringtrace_npm_deps() {
	if ! command -v npm >/dev/null; then
		ringtrace_install_deps nodejs npm ||
			echo "ringtrace: no npm (the tests that need it will be skipped)" >&2
	fi
	command -v npm >/dev/null || return 0
	local tmp
	tmp=$(mktemp -d)
	# an install fills the cache with the packages and what they need;
	# what the cache holds already is not asked of the registry again
	npm install --prefer-offline --no-audit --no-fund --no-save --cache "$RINGTRACE_NPM_CACHE" \
		--prefix "$tmp" "${RINGTRACE_NPM_PACKAGES[@]}" >/dev/null 2>&1 ||
		echo "ringtrace: could not fetch ${RINGTRACE_NPM_PACKAGES[*]} into $RINGTRACE_NPM_CACHE (their tests will be skipped)" >&2
	rm -rf "$tmp"
}

ringtrace_install_deps() {
	local missing=() p
	for p in "${RINGTRACE_PACKAGES[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo="" have=()
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	# a package the machine's sources lack (linux-source-6.12 comes
	# with bookworm-security) is said and left out: the tests that need
	# it skip themselves (exit 77), the rest run
	for p in "${missing[@]}"; do
		if apt-cache show "$p" >/dev/null 2>&1; then
			have+=("$p")
		else
			echo "ringtrace: no package $p in this machine's apt sources; the tests that need it will be skipped" >&2
		fi
	done
	[ ${#have[@]} -eq 0 ] && return 0
	echo "ringtrace: installing ${have[*]}" >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${have[@]}" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	if [ "${1:-}" = "--test" ]; then
		shift
		set -- "${RINGTRACE_TEST_PACKAGES[@]}" "$@"
		ringtrace_install_deps "$@"
		ringtrace_npm_deps
	else
		ringtrace_install_deps "$@"
	fi
fi
