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
# The long tests, each with its time in seconds (about what it takes in
# the slowest build, ThreadSanitizer's, on a 2-core machine): their COST.
# Without cost data of its own (a fresh build tree: Testing/Temporary/
# CTestCostData.txt) "ctest -j" starts the tests in the order they are
# registered; with COST it starts these first, so that the run does not
# end with one of them running alone. The clock.* runs of a test take
# its cost. tests/CMakeLists.txt warns of a name here no test has.
set(RB_TEST_COSTS
  tool.bad_input 40
  stress.hammer.chaos 25
  tracefs.upstream 25
  tracefs.upstream612_ftrace 23
  tracefs.upstream612 22
  tool.trace_cmd_modes 18
  tool.record_compressed 13
  lint.test_names 12
  unit.tracer-func.threads_filters 12
  tool.record_trace_cmd 9
  tool.net_listen 9
  format.test_tracedat.compressed_sparse_kill 8
  stress.test_rcu.reader_vs_updater 8
  install.external_projects 8
  lint.headers 7
  tool.record_complete 7
  tool.output_paths 7
  tool.dead_and_users 7
  tool.net_failures 6
  tool.record_lists 6
  shm.test_shm.killed_reader_steps 5
  security.buffer_modes 5
  security.fake_replies 3
  tool.record_leftovers 2)
# The stress tests keep every CPU busy (a writer thread per CPU, a
# consumer, a timer): each takes all of the machine's CPUs from
# "ctest -j" (PROCESSORS), so none runs beside another test
# (scripts/test.sh runs one test a CPU in every build). Not in the TSan
# build, whose stress runs passed beside other tests and which is the
# suite's longest run.
cmake_host_system_information(RESULT RB_TEST_CPUS QUERY NUMBER_OF_LOGICAL_CORES)
function(rb_add_test)
  cmake_parse_arguments(T "CLOCKS" "NAME;TIMEOUT" "COMMAND;LABELS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  math(EXPR t "${T_TIMEOUT} * ${RB_TIMEOUT_MULT}")
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${t} LABELS "${T_LABELS}")
  set(cost 0)
  list(FIND RB_TEST_COSTS ${T_NAME} i)
  if(i GREATER -1)
    math(EXPR i "${i} + 1")
    list(GET RB_TEST_COSTS ${i} cost)
    set_tests_properties(${T_NAME} PROPERTIES COST ${cost})
    set_property(GLOBAL APPEND PROPERTY RB_COSTED_TESTS ${T_NAME})
  endif()
  if("stress" IN_LIST T_LABELS AND NOT RINGBUF_SANITIZE STREQUAL "tsan")
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${RB_TEST_CPUS})
  endif()
  # Traced test programs publish their files in the build tree, not in
  # /dev/shm: a test that exits with _exit() (a skip) leaves them.
  set(env "RB_TIMEOUT_MULT=${RB_TIMEOUT_MULT}"
    "RINGTRACE_DIR=${PROJECT_BINARY_DIR}/ringtrace-run")
  if(RINGBUF_SANITIZE STREQUAL "tsan")
    # atexit_sleep_ms=0: ThreadSanitizer's exit otherwise sleeps 1 s in
    # every process that still has a thread (the tracer's control
    # thread, asleep in its wait): a second of nothing in each of
    # hundreds of test processes. The races of the exit itself (the
    # library's destructors against its threads) are seen all the same.
    list(APPEND env "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:atexit_sleep_ms=0:suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp")
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
        SKIP_RETURN_CODE 77 COST ${cost})
    endforeach()
  endif()
endfunction()
