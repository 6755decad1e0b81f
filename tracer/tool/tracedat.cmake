# SPDX-License-Identifier: LGPL-2.1-or-later
# rttracedat: trace.dat version 6 files (writer, reader, page decoder) for
# the ringtrace tool. Depends on libc and the libringbuf headers (the
# record format in ringbuf/event.h) only. Included with include() from
# the tool's CMakeLists.txt; the paths are relative to this file.
include_guard(GLOBAL)

add_library(rttracedat STATIC ${CMAKE_CURRENT_LIST_DIR}/tracedat.c)
set_target_properties(rttracedat PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  C_VISIBILITY_PRESET hidden)
target_include_directories(rttracedat
  PUBLIC ${CMAKE_CURRENT_LIST_DIR}
  PRIVATE ${PROJECT_SOURCE_DIR}/ringbuf/include)
target_compile_definitions(rttracedat PRIVATE _GNU_SOURCE)
target_link_libraries(rttracedat PRIVATE rb_warnings)
