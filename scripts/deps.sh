#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages ringtrace needs, when they are missing.
# Sourced by demo.sh and test.sh; usable alone: bash scripts/deps.sh
set -euo pipefail

RINGTRACE_PACKAGES=(gcc make cmake pkg-config liburcu-dev libtraceevent-dev libelf-dev)

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
	ringtrace_install_deps "$@"
fi
