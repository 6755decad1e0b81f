#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# fresh-check.sh [--keep] [WORK_DIR]: the README's two commands, exactly
# as written, on a pristine Debian 12: a debootstrap minbase root with
# git and nothing else, a clone of this repository's committed HEAD, then
#
#	bash scripts/demo.sh
#	bash scripts/test.sh
#
# as root inside it (chroot, with /proc, /sys, /dev and /dev/shm of the
# host). Prints both exit codes; exits 0 only when both are 0. Needs
# root, debootstrap (installed if missing) and the Debian mirror; not
# part of the test suite: it downloads a root file system. The logs stay
# in WORK_DIR (default: a new /var/tmp/ringtrace-fresh.*); --keep keeps
# the root file system too.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
keep=0
if [ "${1:-}" = "--keep" ]; then
	keep=1
	shift
fi
work=${1:-$(mktemp -d /var/tmp/ringtrace-fresh.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
root=$work/root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

[ "$(id -u)" -eq 0 ] || { echo "fresh-check.sh: run as root" >&2; exit 2; }
command -v debootstrap >/dev/null || {
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

mounts=()
cleanup() {
	local m i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		m=${mounts[i]}
		umount -l "$m" 2>/dev/null || true
	done
	if [ $keep = 0 ]; then
		rm -rf "$root"
	fi
}
trap cleanup EXIT

echo "fresh-check: debootstrap bookworm (minbase + git) into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm \
	"$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
	tail -20 "$work/debootstrap.log"
	echo "fresh-check: debootstrap failed" >&2
	exit 1
}
cp /etc/resolv.conf "$root/etc/resolv.conf"
# the suites a Debian 12 installation lists, as the installer writes
# them (debootstrap writes the main suite alone)
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main
SOURCES
for m in proc sys dev dev/pts dev/shm; do
	mkdir -p "$root/$m"
	mount --bind "/$m" "$root/$m"
	mounts+=("$root/$m")
done

echo "fresh-check: cloning $(git -C "$top" rev-parse --short HEAD)"
git clone -q "$top" "$root/root/ringtrace"

rc_demo=0
rc_test=0
echo "fresh-check: bash scripts/demo.sh (log: $work/demo.log)"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	TERM=dumb bash -c 'cd /root/ringtrace && bash scripts/demo.sh' \
	</dev/null >"$work/demo.log" 2>&1 || rc_demo=$?
echo "fresh-check: bash scripts/test.sh (log: $work/test.log)"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	TERM=dumb bash -c 'cd /root/ringtrace && bash scripts/test.sh' \
	</dev/null >"$work/test.log" 2>&1 || rc_test=$?

grep -E "tests passed|tests failed|FAILED|^=== " "$work/test.log" | tail -12 || true
echo "demo.sh exit code: $rc_demo"
echo "test.sh exit code: $rc_test"
[ $rc_demo = 0 ] && [ $rc_test = 0 ]
