/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef FGRAPH_SAMPLE_H
#define FGRAPH_SAMPLE_H
extern void (*fg_dl_leaf)(int);
void fg_main(void);
void fg_a(int x);
void fg_b(int x);
void fg_c(int x);
void fg_d(int n);
#endif
