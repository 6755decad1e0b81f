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
 * Whether the command lock's kind word is the one the library gives it
 * (robust, process-shared: publish.c). The word is the process's to
 * write: another kind (priority protection, priority inheritance, a
 * value of no kind) would make the C library abort or misbehave in the
 * tool, so the lock is not taken unless the kind is the library's. It
 * is checked again before every attempt.
 *
 * Userspace: the kind is glibc's pthread_mutex_t.__data.__kind, the
 * layout the control file already assumes (ctl.h).
 */
static bool rtt_lock_kind_ok(struct rt_ctl *c)
{
	static int want = -1;
	int kind;

	if (want < 0) {
		pthread_mutexattr_t ma;
		pthread_mutex_t m;

		pthread_mutexattr_init(&ma);
		pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
		pthread_mutex_init(&m, &ma);
		pthread_mutexattr_destroy(&ma);
		want = m.__data.__kind;
		pthread_mutex_destroy(&m);
	}
	/* Relaxed: a word the process may change at any time; a change
	 * after this load is the one race the check cannot close. */
	kind = __atomic_load_n(&c->cmd_lock.__data.__kind, __ATOMIC_RELAXED);
	return kind == want;
}

static int rtt_lock(struct rtt_proc *p, uint64_t deadline,
		    char err[RTT_ERR_MAX])
{
	for (;;) {
		struct timespec ts;
		int r;

		if (!rtt_lock_kind_ok(p->ctl)) {
			rtt_err(err,
				"refused: corrupt control file %s.ctl: its command lock is not the library's",
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
	/* The answer is the process's: each field read once, the status
	 * kept to what the protocol allows (0 or a negative errno; any
	 * other value is a lie told as -EPROTO), the text escaped
	 * (rtt_sanitize()) before it can reach a terminal. */
	status = *(volatile int32_t *)&c->status;
	rlen = *(volatile uint32_t *)&c->reply_len;
	if (status > 0 || status < -4095)
		status = -EPROTO;
	if (rlen > RT_CTL_REPLY_MAX)
		rlen = RT_CTL_REPLY_MAX;
	if (reply) {
		*reply = malloc(rlen + 1);
		if (*reply) {
			memcpy(*reply, c->reply, rlen);
			(*reply)[rlen] = '\0';
			rtt_sanitize(*reply, rlen, true);
		}
	}
	if (status < 0) {
		size_t m = rlen < RTT_ERR_MAX - 1 ? rlen : RTT_ERR_MAX - 1;

		memcpy(err, c->reply, m);
		err[m] = '\0';
		m = strlen(err);
		while (m && err[m - 1] == '\n')
			err[--m] = '\0';
		rtt_sanitize(err, m, true);
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
