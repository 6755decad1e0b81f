/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample.h - the instrumented code the function tracer tests run
 * (sample.c, compiled with -finstrument-functions).
 *
 * Call trees:
 *	rtfs_main -> rtfs_a -> rtfs_b
 *		            -> rtfs_c
 *		  -> rtfs_d(3) -> rtfs_d(2) -> rtfs_d(1)
 *	rtfs_toggle(cb) -> rtfs_mid(cb) -> rtfs_b, cb(), rtfs_c
 *			-> rtfs_a
 *	rtfs_loop(stop) -> rtfs_work -> rtfs_b, nanosleep() (until *stop)
 *	rtfs_handler_body -> rtfs_c
 */
#ifndef RTFS_SAMPLE_H
#define RTFS_SAMPLE_H

#include <stdatomic.h>

extern _Thread_local volatile int rtfs_sink; /* per thread: no race */

void rtfs_main(void);
void rtfs_a(void);
void rtfs_b(void);
void rtfs_c(void);
void rtfs_d(int n);
void rtfs_leaf(void);
void rtfs_probe(void);
void rtfs_mid(void (*cb)(void));
void rtfs_toggle(void (*cb)(void));
void rtfs_work(void);
void rtfs_loop(_Atomic int *stop);
void rtfs_handler_body(void);
int rtfs_errno_get(void);

#endif /* RTFS_SAMPLE_H */
