// SPDX-License-Identifier: LGPL-2.1-or-later
/* A shared object the function tracer tests dlopen(); compiled with
 * -finstrument-functions. */
void dl_leaf(int x);

static volatile int dl_sink;

__attribute__((noinline)) void dl_leaf(int x)
{
	dl_sink += x;
}
