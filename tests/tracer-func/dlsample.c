// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dlsample.c - libdlsample.so, instrumented code the function tracer
 * tests dlopen(): rtdl_entry -> rtdl_leaf, rtdl_probe. Its calls to the
 * hooks bind to the test program's (exported) ones.
 */
#ifdef __clang__
#define RTDL_FUNC __attribute__((noinline))
#else
#define RTDL_FUNC __attribute__((noinline, noclone))
#endif

void rtdl_leaf(void);
void rtdl_probe(void);
void rtdl_entry(void);

volatile int rtdl_sink;

RTDL_FUNC void rtdl_leaf(void)
{
	rtdl_sink += 1;
}

RTDL_FUNC void rtdl_probe(void)
{
	rtdl_sink += 2;
}

RTDL_FUNC void rtdl_entry(void)
{
	rtdl_leaf();
	rtdl_probe();
}
