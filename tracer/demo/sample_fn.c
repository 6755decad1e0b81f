// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_fn.c - the functions of the tool tests' sample program that
 * function_graph traces (this file alone is compiled with
 * -finstrument-functions): a call tree three deep with a leaf called
 * twice.
 */
#include "sample_fn.h"

/* per thread: the workers call these functions at the same time */
static __thread volatile long sample_sink;

__attribute__((noinline)) long sample_fn_leaf(long x)
{
	sample_sink += x;
	return x * 3 + 1;
}

__attribute__((noinline)) long sample_fn_middle(long x)
{
	return sample_fn_leaf(x) + sample_fn_leaf(x + 1);
}

__attribute__((noinline)) long sample_fn_outer(long x)
{
	return sample_fn_middle(x) - 1;
}
