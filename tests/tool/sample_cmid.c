// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_cmid.c - a C frame between a C++ throw and its catch
 * (sample_exc.cc, case E). Built with -O2 -finstrument-functions and
 * without -fexceptions: the unwinder passes it (the x86-64 ABI gives
 * every function unwind tables) but runs no cleanup in it, so its exit
 * hook never runs, as after a longjmp.
 */
void cm_call(const char *name);
void cm_ret(void);
int c_helper(int x);
int c_mid(int (*cb)(int), int x);

__attribute__((noinline)) int c_helper(int x)
{
	cm_call("c_helper");
	cm_ret();
	return x + 1;
}

__attribute__((noinline)) int c_mid(int (*cb)(int), int x)
{
	int r;

	cm_call("c_mid");
	r = c_helper(x);
	r += cb(r);
	cm_ret();
	return r;
}
