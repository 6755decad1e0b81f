# SPDX-License-Identifier: LGPL-2.1-or-later
# rb_add_test(NAME n COMMAND cmd... [LABELS l...] [TIMEOUT s] [CLOCKS])
# The only way tests are registered: every test has labels and a timeout.
# Sanitizer builds stretch the timeout (RB_TIMEOUT_MULT).
# CLOCKS: the test prints time stamps; it also runs as clock.small.<n>
# and clock.large.<n>, in time namespaces whose clocks start at 1 000 s
# and at 200 000 s (tests/clock/clockns.sh), so both widths of the
# kernel's "%5lu.%06lu" are checked whatever the machine's uptime.
if(RINGBUF_SANITIZE STREQUAL "tsan")
  set(RB_TIMEOUT_MULT 4)
elseif(RINGBUF_SANITIZE STREQUAL "asan")
  set(RB_TIMEOUT_MULT 3)
else()
  set(RB_TIMEOUT_MULT 1)
endif()
function(rb_add_test)
  cmake_parse_arguments(T "CLOCKS" "NAME;TIMEOUT" "COMMAND;LABELS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  math(EXPR t "${T_TIMEOUT} * ${RB_TIMEOUT_MULT}")
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${t} LABELS "${T_LABELS}")
  # Traced test programs publish their files in the build tree, not in
  # /dev/shm: a test that exits with _exit() (a skip) leaves them.
  set(env "RB_TIMEOUT_MULT=${RB_TIMEOUT_MULT}"
    "RINGTRACE_DIR=${PROJECT_BINARY_DIR}/ringtrace-run")
  if(RINGBUF_SANITIZE STREQUAL "tsan")
    list(APPEND env "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp")
  elseif(RINGBUF_SANITIZE STREQUAL "asan")
    list(APPEND env "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1" "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
  endif()
  list(APPEND env ${T_ENV})
  set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${env}")
  if(T_CLOCKS)
    foreach(c small:1000 large:200000)
      string(REPLACE ":" ";" c "${c}")
      list(GET c 0 which)
      list(GET c 1 secs)
      set(n clock.${which}.${T_NAME})
      add_test(NAME ${n} COMMAND sh
        ${PROJECT_SOURCE_DIR}/tests/clock/clockns.sh ${secs} ${T_COMMAND})
      set_tests_properties(${n} PROPERTIES TIMEOUT ${t}
        LABELS "${T_LABELS};clock" ENVIRONMENT "${env}"
        SKIP_RETURN_CODE 77)
    endforeach()
  endif()
endfunction()
