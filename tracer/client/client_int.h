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
#include <sys/stat.h>

#include "client.h"

/* A process that exited and was not reaped yet (or is being reaped). */
bool rtt_zombie(int pid);

/* A message into the caller's RTT_ERR_MAX buffer (truncated to fit). */
void rtt_err(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The name of a running process, for messages ("?" when unknown). */
void rtt_proc_comm(int pid, char *buf, size_t len);
/* "<pid>-<start>.ctl": true and the numbers, else false. */
bool rtt_parse_ctl_name(const char *name, int *pid, uint64_t *start);

/* rtt_dir_open()'s @want for "the caller's, or for root anyone's" */
#define RTT_UID_CALLER ((unsigned int)-1)

/*
 * The publish directory @dir, checked (client_trust.c): a descriptor
 * (>= 3) of a real directory, no access for group or others, owned by
 * @want (RTT_UID_CALLER: by the caller, or for root by anyone) and by
 * the uid its name carries, if any. @named: a directory the user named
 * (a path given on the command line): writable by its owner only, where
 * a publish directory must be 0700. *@owner receives its owner.
 * Return: the descriptor, -ENOENT, -EACCES, -EPERM (refused: @err says
 * which rule), or another negative errno.
 */
int rtt_dir_open(const char *dir, unsigned int want, bool named,
		 unsigned int *owner, char err[RTT_ERR_MAX]);
/* The effective uid the kernel reports for @pid: 0 or -ESRCH. */
int rtt_pid_uid(int pid, unsigned int *uid);
/* DIR/@name, DIR being @p's publish directory. */
int rtt_file_path(const struct rtt_proc *p, const char *name, char *path,
		  size_t len);
/*
 * Open @name (no '/') in @p's publish directory with @mode | O_NOFOLLOW
 * | O_NONBLOCK | O_CLOEXEC: a regular file owned by @p->uid, else
 * refused. Return: the descriptor (its fstat() in *@st if not NULL), or
 * a negative errno (-EPERM refused) with @err.
 */
int rtt_open_at(const struct rtt_proc *p, const char *name, int mode,
		struct stat *st, char err[RTT_ERR_MAX]);
/* A whole file from @fd, at most @max bytes (-EFBIG past it). */
int rtt_read_fd(int fd, size_t max, char **out, size_t *len);
/* rtt_open_at() and rtt_read_fd(), with a message on failure. */
int rtt_read_at(const struct rtt_proc *p, const char *name, size_t max,
		char **out, size_t *len, char err[RTT_ERR_MAX]);
/* Whether @path (a control file field, a reply) ends in @p's own file
 * name <pid>-<start>.@suffix. */
bool rtt_own_name(const struct rtt_proc *p, const char *path,
		  const char *suffix);

#endif
