# SPDX-License-Identifier: LGPL-2.1-or-later
# ASan+UBSan and TSan are separate builds: they cannot be combined.
if(RINGBUF_SANITIZE STREQUAL "asan")
  # -fno-sanitize=null: GCC 12 miscompiles UBSan's null check of a pointer
  # to an initial-exec TLS variable (the check reuses the flags of an
  # unrelated earlier test and fires when that value was 0). A real null
  # dereference still stops the test with a SEGV that ASan reports.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-sanitize=null -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(RINGBUF_SANITIZE STREQUAL "tsan")
  # -Wno-tsan: TSan does not model atomic_thread_fence; every fence here
  # also has an acquire/release pair on a variable that TSan does see.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -Wno-tsan)
  add_link_options(-fsanitize=thread)
elseif(NOT RINGBUF_SANITIZE STREQUAL "")
  message(FATAL_ERROR "RINGBUF_SANITIZE must be '', 'asan' or 'tsan'")
endif()
