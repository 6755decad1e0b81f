# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the tracefs runners (bash): starts the sample program and
# mounts it with "ringtrace mount". Needs NAME (for messages), T (the
# ringtrace program) and S (the sample program); sets W (a scratch
# directory), MNT (the mount) and SP (the sample's pid), and removes all
# of it at exit. Exits 77 where FUSE cannot be used, 1 on a failure.

skip() {
	echo "SKIP ($NAME): $*"
	exit 77
}

cleanup() {
	local rc=$?

	# a failed case shows what the mount and the sample said (a mount
	# that ended under the case leaves only "Transport endpoint is not
	# connected" to the case itself)
	if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
		[ -s "${W:-}/mount.err" ] && { echo "--- ringtrace mount said:"; tail -n 40 "$W/mount.err"; }
		for f in "${W:-}"/mount.san.*; do
			[ -s "$f" ] && { echo "--- $f:"; head -n 60 "$f"; }
		done
		[ -s "${W:-}/sample.err" ] && { echo "--- the sample said:"; tail -n 20 "$W/sample.err"; }
	fi
	[ -n "${SP:-}" ] && kill -9 "$SP" 2>/dev/null
	wait 2>/dev/null
	if grep -q " $MNT " /proc/self/mountinfo 2>/dev/null; then
		"$T" umount "$MNT" 2>/dev/null
	fi
	rm -rf "$W"
}

# mount_sample [SAMPLE ARGUMENTS...]
mount_sample() {
	local i rc

	[ -c /dev/fuse ] || skip "no /dev/fuse"
	[ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not usable here"
	if [ "$(id -u)" != 0 ] && ! command -v fusermount3 >/dev/null; then
		skip "no fusermount3"
	fi
	"$T" mount --help >/dev/null 2>&1 || skip "ringtrace has no mount verb"

	W=$(mktemp -d /tmp/rtt-tracefs.XXXXXX)
	export RINGTRACE_DIR=$W/pub
	MNT=$W/mnt
	mkdir "$MNT"
	SP=
	trap cleanup EXIT

	"$S" --ready "$W/ready" "$@" >"$W/sample.out" 2>"$W/sample.err" &
	SP=$!
	# until it published its trace (at most 20 s, stretched by
	# RB_TIMEOUT_MULT: a guard, never the condition)
	for i in $(seq 1 $((2000 * ${RB_TIMEOUT_MULT:-1}))); do
		[ -s "$W/ready" ] && break
		kill -0 "$SP" 2>/dev/null || { cat "$W/sample.err"; echo "FAIL ($NAME): the sample exited early"; exit 1; }
		sleep 0.01 # the poll interval
	done
	[ -s "$W/ready" ] || { echo "FAIL ($NAME): the sample did not write $W/ready (its trace published) within $((20 * ${RB_TIMEOUT_MULT:-1})) s"; exit 1; }

	# (the daemon's standard error is /dev/null: a sanitizer's report
	# goes to a file of its own, shown if the case fails)
	TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$W/mount.san" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$W/mount.san" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$W/mount.san" \
		"$T" mount "$SP" "$MNT" 2>"$W/mount.err"
	rc=$?
	case $rc in
	0) ;;
	1|4) cat "$W/mount.err"; skip "mounting is not permitted here (rc $rc)" ;;
	*) cat "$W/mount.err"; echo "FAIL ($NAME): mount exited with $rc"; exit 1 ;;
	esac
}
