// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print.c - where libringbuf's messages go (ringbuf_set_print())
 *
 * The library's messages (a warning that switched recording off, an
 * attach refused) go to the application's callback, or by default to
 * standard error. The default must work on the write path, in a signal
 * handler: it formats into a buffer on the stack and hands it to one
 * write(2), no stdio and no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

/* NULL: the default. */
static _Atomic(ringbuf_print_fn) rb_print_fn;

ringbuf_print_fn ringbuf_set_print(ringbuf_print_fn fn)
{
	/* Acq_rel: the callback's own data, set up before, is visible to
	 * the threads that load the new pointer (acquire in rb_vprint());
	 * the old pointer returned is the one the others saw. */
	return atomic_exchange_explicit(&rb_print_fn, fn, memory_order_acq_rel);
}

void rb_vprint(enum ringbuf_print_level level, const char *fmt, va_list ap)
{
	/* Acquire: pairs with the exchange in ringbuf_set_print(). */
	ringbuf_print_fn fn = atomic_load_explicit(&rb_print_fn,
						   memory_order_acquire);
	char buf[512];
	int saved = errno, n;

	if (fn) {
		fn(level, fmt, ap);
		errno = saved;
		return;
	}
	if (level == RINGBUF_PRINT_DEBUG)
		return;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n > 0) {
		ssize_t w = write(STDERR_FILENO, buf,
				  (size_t)n < sizeof(buf) ? (size_t)n :
							    sizeof(buf) - 1);
		(void)w;
	}
	errno = saved;
}

void rb_print(enum ringbuf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rb_vprint(level, fmt, ap);
	va_end(ap);
}
