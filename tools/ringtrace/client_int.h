/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * client_int.h - what the client's files (client*.c) share and the
 *	tool's other files do not use
 */
#ifndef RTT_CLIENT_INT_H
#define RTT_CLIENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The slice a wait for another process is cut in (client.c's head). */
#define RTT_SLICE_MS 100

/* A message into the caller's RTT_ERR_MAX buffer (truncated to fit). */
void rtt_err(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The name of a running process, for messages ("?" when unknown). */
void rtt_proc_comm(int pid, char *buf, size_t len);
/* "<pid>-<start>.ctl": true and the numbers, else false. */
bool rtt_parse_ctl_name(const char *name, int *pid, uint64_t *start);

#endif
