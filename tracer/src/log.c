// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * log.c - where libringtrace's messages go (ringtrace_set_print())
 *
 * The tracer's messages (a bad RINGTRACE_ variable, a directory it
 * could not publish in, an event defined twice) go to the application's
 * callback, or by default to standard error: formatted on the stack and
 * written with one write(2), safe where the tracer may run (constructors,
 * the write path, signal handlers).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "trace.h"

/* NULL: the default. */
static _Atomic(ringtrace_print_fn) rt_print_fn;

ringtrace_print_fn ringtrace_set_print(ringtrace_print_fn fn)
{
	/* Acq_rel: the callback's data, set up before, is visible to the
	 * threads that load the new pointer (the acquire in rt_warn()). */
	return atomic_exchange_explicit(&rt_print_fn, fn, memory_order_acq_rel);
}

void rt_warn(const char *fmt, ...)
{
	/* Acquire: pairs with the exchange in ringtrace_set_print(). */
	ringtrace_print_fn fn = atomic_load_explicit(&rt_print_fn,
						     memory_order_acquire);
	char buf[256];
	va_list ap;
	int n, saved = errno;

	va_start(ap, fmt);
	if (fn) {
		fn(RINGTRACE_PRINT_WARN, fmt, ap);
		va_end(ap);
		errno = saved;
		return;
	}
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf,
				  (size_t)n < sizeof(buf) ? (size_t)n :
							    sizeof(buf) - 1);
		(void)w;
	}
	errno = saved;
}
