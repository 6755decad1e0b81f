// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client_cmd.c - one command to a traced process, and its answer
 *
 * A command is sent under cmd_lock (robust, process-shared: a tool
 * killed while holding it does not wedge the next one):
 *
 *	tool					control thread
 *	  lock cmd_lock
 *	  write cmd
 *	  cmd_seq = n (release), futex wake	  wait on cmd_seq
 *						  load cmd_seq (acquire)
 *						  run cmd, fill status, reply
 *	  wait on done_seq			  done_seq = n (release),
 *						  wake
 *	  load done_seq (acquire)
 *	  read status, reply
 *	  unlock cmd_lock
 *
 * The tool never waits forever: both waits are cut in 100 ms slices
 * between which it checks that the process still runs.
 */
#include <dirent.h>
#include <glob.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "proto.h"
#include "client_int.h"

/* ---- commands ----------------------------------------------------------- */

static long rtt_futex(_Atomic uint32_t *addr, int op, uint32_t val,
		      const struct timespec *ts)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is in a mapping shared with the
	 * traced process. */
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static bool rtt_gone(const struct rtt_proc *p)
{
	return rtt_proc_state(p) != RTT_ALIVE;
}

/*
 * The command lock is in a file the traced process writes: its kind word
 * must be the one the process's library made (robust, process-shared,
 * no priority protocol), or the C library asserts (priority-protect
 * bits) or misbehaves on it. Anything else is a corrupt control file.
 */
static bool rtt_lock_kind_ok(const struct rtt_proc *p)
{
#ifdef __GLIBC__
	/* glibc's kind bits: 0-1 the type, 16 robust, 32 priority
	 * inheritance, 64 priority protection, 128 process-shared, 256 and
	 * 512 lock elision, and the ceiling above bit 18 */
	int kind = __atomic_load_n(&p->ctl->cmd_lock.__data.__kind,
				   __ATOMIC_RELAXED);

	return (kind & ~(3 | 16 | 128 | 256 | 512)) == 0;
#else
	(void)p;
	return true;
#endif
}

static int rtt_lock(struct rtt_proc *p, uint64_t deadline,
		    char err[RTT_ERR_MAX])
{
	for (;;) {
		struct timespec ts;
		int r;

		if (!rtt_lock_kind_ok(p)) {
			rtt_err(err,
				"corrupt control file %s.ctl: its command lock is not one the tracer made",
				p->base);
			return -EPROTO;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += RTT_SLICE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		r = pthread_mutex_timedlock(&p->ctl->cmd_lock, &ts);
		if (r == 0)
			return 0;
		if (r == EOWNERDEAD) {
			/* A tool died in the middle of a command: the
			 * protocol's state is the sequence numbers, which
			 * stay usable. */
			pthread_mutex_consistent(&p->ctl->cmd_lock);
			return 0;
		}
		if (r != ETIMEDOUT) {
			rtt_err(err,
				"cannot take the command lock of process %d: %s",
				p->pid, strerror(r));
			return -r;
		}
		if (rtt_gone(p)) {
			rtt_err(err, "process %d exited", p->pid);
			return -ESRCH;
		}
		if (rtt_now_ms() >= deadline) {
			rtt_err(err,
				"process %d: another tool holds its command lock",
				p->pid);
			return -ETIMEDOUT;
		}
	}
}

int rtt_call(struct rtt_proc *p, int timeout_ms,
	     const struct rt_cmd_args *call, char **reply,
	     char err[RTT_ERR_MAX])
{
	char cmd[RT_CTL_CMD_MAX], *check;
	struct rt_ctl *c = p->ctl;
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;
	struct rt_cmd_args args;
	uint32_t seq, done;
	int n, ret, status;
	size_t rlen;

	if (reply)
		*reply = NULL;
	err[0] = '\0';
	ret = rt_cmd_format(call, cmd, sizeof(cmd), err, RTT_ERR_MAX);
	if (ret)
		return ret;
	n = (int)strlen(cmd);
	/* The same table and parser as the process's: a line it does not
	 * describe is refused here, never misread there. */
	check = malloc((size_t)n + 1);
	if (!check) {
		rtt_err(err, "out of memory");
		return -ENOMEM;
	}
	memcpy(check, cmd, (size_t)n + 1);
	ret = rt_cmd_parse(check, &args, err, RTT_ERR_MAX);
	free(check);
	if (ret)
		return ret;
	if (!p->writable) {
		rtt_err(err,
			"permission denied: cannot write the control file of process %d",
			p->pid);
		return -EACCES;
	}
	if (rtt_gone(p)) {
		rtt_err(err, "process %d is not running", p->pid);
		return -ESRCH;
	}
	if (c->proto != RT_CTL_PROTO_VERSION) {
		rtt_err(err,
			"it speaks control protocol version %u; this tool speaks version %d",
			c->proto, RT_CTL_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	ret = rtt_lock(p, deadline, err);
	if (ret)
		return ret;
	memcpy(c->cmd, cmd, (size_t)n + 1);
	seq = atomic_load_explicit(&c->cmd_seq, memory_order_relaxed) + 1;
	/* Publishes the command text; pairs with the control thread's
	 * acquire load of cmd_seq. */
	atomic_store_explicit(&c->cmd_seq, seq, memory_order_release);
	rtt_futex(&c->cmd_seq, FUTEX_WAKE, INT32_MAX, NULL);
	for (;;) {
		struct timespec ts = { 0, RTT_SLICE_MS * 1000000L };

		/* Pairs with the release store of done_seq that ends the
		 * control thread's answer: status and reply are visible. */
		done = atomic_load_explicit(&c->done_seq, memory_order_acquire);
		if ((int32_t)(done - seq) >= 0)
			break;
		rtt_futex(&c->done_seq, FUTEX_WAIT, done, &ts);
		if (rtt_gone(p)) {
			pthread_mutex_unlock(&c->cmd_lock);
			rtt_err(err, "process %d exited before answering '%s'",
				p->pid, cmd);
			return -ESRCH;
		}
		if (rtt_now_ms() >= deadline) {
			pthread_mutex_unlock(&c->cmd_lock);
			rtt_err(err,
				"process %d did not answer '%s' within %d ms",
				p->pid, cmd, timeout_ms);
			return -ETIMEDOUT;
		}
	}
	status = c->status;
	rlen = c->reply_len;
	if (rlen > RT_CTL_REPLY_MAX)
		rlen = RT_CTL_REPLY_MAX;
	if (reply) {
		*reply = malloc(rlen + 1);
		if (*reply) {
			memcpy(*reply, c->reply, rlen);
			(*reply)[rlen] = '\0';
		}
	}
	if (status < 0) {
		size_t m = rlen < RTT_ERR_MAX - 1 ? rlen : RTT_ERR_MAX - 1;

		memcpy(err, c->reply, m);
		err[m] = '\0';
		while (m && err[m - 1] == '\n')
			err[--m] = '\0';
		if (!m)
			rtt_err(err, "%s", strerror(-status));
	}
	pthread_mutex_unlock(&c->cmd_lock);
	if (reply && !*reply) {
		rtt_err(err, "out of memory");
		return -ENOMEM;
	}
	/* the reply the table gives the command: none is no text */
	if (reply && !status && rt_cmd_table[call->id].reply == RT_REPLY_NONE) {
		free(*reply);
		*reply = NULL;
	}
	return status;
}
