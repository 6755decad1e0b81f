// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A stand-in for the C library's syscall() in the tests that link it: the
 * libraries call membarrier() through syscall() (their PLT), and a test
 * makes it fail from a chosen point on (out of memory, a seccomp filter
 * installed after start-up). Every other call, and MEMBARRIER_CMD_QUERY,
 * goes on to the C library.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fail_membarrier.h"

atomic_int rbt_membarrier_fails;

/* (it takes six arguments whatever the caller passed, as the C library's
 * does: reading past a caller's arguments is no error here, so the
 * AddressSanitizer does not check this function) */
__attribute__((no_sanitize_address)) long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_membarrier && atomic_load(&rbt_membarrier_fails) &&
	    a[0] != 0 /* MEMBARRIER_CMD_QUERY */) {
		errno = ENOMEM;
		return -1;
	}
	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "syscall");
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
