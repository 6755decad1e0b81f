# SPDX-License-Identifier: LGPL-2.1-or-later
# rb_warnings: the project's warning set, linked PRIVATE by every target.
add_library(rb_warnings INTERFACE)
target_compile_options(rb_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes
  -Wold-style-definition -Wformat=2 -Wwrite-strings -Wpointer-arith -Wvla
  $<$<C_COMPILER_ID:GNU>:-Wduplicated-cond -Wlogical-op>)
if(RINGBUF_WERROR)
  target_compile_options(rb_warnings INTERFACE -Werror)
endif()
