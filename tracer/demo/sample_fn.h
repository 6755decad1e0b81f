/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sample_fn.h - the instrumented functions of the tool tests' sample */
#ifndef SAMPLE_FN_H
#define SAMPLE_FN_H

long sample_fn_leaf(long x);
long sample_fn_middle(long x);
long sample_fn_outer(long x);

#endif /* SAMPLE_FN_H */
