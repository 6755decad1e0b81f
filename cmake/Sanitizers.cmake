# SPDX-License-Identifier: LGPL-2.1-or-later
# ASan+UBSan and TSan are separate builds: they cannot be combined.
if(RINGBUF_SANITIZE STREQUAL "asan")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(RINGBUF_SANITIZE STREQUAL "tsan")
  # -Wno-tsan: TSan does not model atomic_thread_fence; every fence here
  # also has an acquire/release pair on a variable that TSan does see.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -Wno-tsan)
  add_link_options(-fsanitize=thread)
elseif(NOT RINGBUF_SANITIZE STREQUAL "")
  message(FATAL_ERROR "RINGBUF_SANITIZE must be '', 'asan' or 'tsan'")
endif()
