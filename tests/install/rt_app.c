// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rt_app.c (also compiled as C++ as rt_app.cc) - a program outside the
 * tree that defines an event with TRACE_EVENT(), enables it, emits it
 * and prints the trace. Built by install_test.sh against an installed
 * prefix; the test checks the printed line.
 */
#define CREATE_TRACE_POINTS
#include "rt_app_trace.h"
#include <ringtrace/tracer.h>
#include <stdio.h>

int main(void)
{
	struct ringtrace_instance *tr = ringtrace_top();
	char err[256];

	if (!tr) {
		perror("ringtrace_top");
		return 1;
	}
	if (ringtrace_set_event(tr, "extapp:request,extapp:tick", err, sizeof(err)) < 0) {
		fprintf(stderr, "set_event: %s\n", err);
		return 1;
	}
	trace_request(42, -7, "/from/outside");
	trace_tick(5, -3);
	return ringtrace_print_trace(tr, stdout) < 0;
}
