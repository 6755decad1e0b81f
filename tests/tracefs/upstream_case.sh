# SPDX-License-Identifier: LGPL-2.1-or-later
# upstream_case.sh TEST_DIR CASE RESULT_FILE - run one case of the
# kernel's ftracetest (unmodified) in $TRACING_DIR, as ftracetest runs
# it: test.d/functions sourced, the case's "requires:" checked, the
# tracing state reset with initialize_ftrace, then the case sourced
# under "set -e". The case ends with its exit status (non-zero: FAIL)
# or by calling one of the exit_* functions below, which record the
# result in RESULT_FILE (ftracetest signals it to its main shell; a file
# does the same across the case's subshells).
TEST_DIR=$1
CASE=$2
RESULT_FILE=$3

exit_pass() {
	exit 0
}
exit_fail() {
	exit 1
}
exit_unresolved() {
	echo UNRESOLVED > "$RESULT_FILE"
	exit 0
}
exit_untested() {
	echo UNTESTED > "$RESULT_FILE"
	exit 0
}
exit_unsupported() {
	echo UNSUPPORTED > "$RESULT_FILE"
	exit 0
}
exit_xfail() {
	echo XFAIL > "$RESULT_FILE"
	exit 0
}

checkreq() { # the case's requires: line, quoted patterns kept
	requires=$(grep "^#[ \t]*requires:" "$1" | cut -f2- -d:)
	eval check_requires "$requires"
}

. "$TEST_DIR/functions"

cd "$TRACING_DIR" || exit 1
read PID _ < /proc/self/stat
set -e
set -x
checkreq "$CASE"
initialize_ftrace
. "$CASE"
