/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fail_membarrier.c: membarrier() fails (ENOMEM) while this is set. */
#ifndef RBT_FAIL_MEMBARRIER_H
#define RBT_FAIL_MEMBARRIER_H

#include <stdatomic.h>

extern atomic_int rbt_membarrier_fails;

#endif
