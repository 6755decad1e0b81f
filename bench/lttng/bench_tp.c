/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench_tp.c - instantiates the probes of bench_tp.h. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench_tp.h"
