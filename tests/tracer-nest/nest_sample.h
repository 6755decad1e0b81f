/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nest_sample.h - the call patterns of nest_sample.c (built -O2
 * -finstrument-functions), each an entry point with a known call tree */
#ifndef NEST_SAMPLE_H
#define NEST_SAMPLE_H

int nest_inline(int n);
int nest_static(int n);
int nest_rec(int n);
int nest_tail(int x);
void nest_longjmp(int twice);
void nest_signal(int sig);
int nest_deep_inline(int n);
void nest_switch_victim(void (*mid)(void));
/* called by the patterns above */
int nest_real_leaf(int x);
int nest_tail_b(int x);
void nest_lj_a(void);
void nest_lj_b(void);
void nest_lj_c(void);
int nest_lj_after(int x);
int nest_sig_inner(int x);
void nest_sig_handler(int sig);
void nest_switch_leaf(void);

#endif
