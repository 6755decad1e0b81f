// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client_cmd.c - one command to a traced process, and its answer
 *
 * A command is sent under the command lock (cmd_owner, an owner word:
 * a tool killed while holding it does not wedge the next one):
 *
 *	tool					control thread
 *	  lock cmd_owner
 *	  write cmd
 *	  cmd_seq = n (release), futex wake	  wait on cmd_seq
 *						  load cmd_seq (acquire)
 *						  run cmd, fill status, reply
 *	  wait on done_seq			  done_seq = n (release),
 *						  wake
 *	  load done_seq (acquire)
 *	  read status, reply
 *	  unlock cmd_owner
 *
 * The tool never waits forever: both waits are cut in short slices
 * between which it checks that the process still runs, its deadline and
 * whether it was interrupted (rtt_set_interrupt()).
 */
#include <dirent.h>
#include <glob.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

struct rtt_timeout rtt_cmd_timeout = { "RINGTRACE_CMD_TIMEOUT_MS", 5000, 0 };

/*
 * The wait @t in force: its variable's value when it is a number of
 * milliseconds from 1 to 3600000 (a test of a time-out sets it small, a
 * slow machine may stretch it), else its default, said once.
 */
int rtt_timeout_ms(struct rtt_timeout *t)
{
	/* Relaxed: a cache of what the environment says; two first calls
	 * that race compute the same value. */
	int ms = atomic_load_explicit(&t->ms, memory_order_relaxed);
	const char *s;
	char *end;
	long v;

	if (ms)
		return ms;
	ms = t->dflt;
	s = getenv(t->var);
	if (s) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (!errno && end != s && !*end && v >= 1 && v <= 3600000)
			ms = (int)v;
		else
			fprintf(stderr,
				"ringtrace: warning: %s='%s' is not a number of milliseconds from 1 to 3600000: %d used\n",
				t->var, s, t->dflt);
	}
	atomic_store_explicit(&t->ms, ms, memory_order_relaxed);
	return ms;
}

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
 * What ends a wait for a process early (rtt_set_interrupt()): the tool's
 * Ctrl-C, a FUSE request interrupted. The count is looked at between the
 * slices of every wait; a signal handler that ran ends the slice it came
 * in (the waits are futex and nanosleep calls, which a handler installed
 * without SA_RESTART interrupts). A count past the base ends every call,
 * until the tool says it handled them (rtt_interrupt_handled()): the
 * commands it sends after Ctrl-C to put back what it changed then run
 * (and a second Ctrl-C ends those).
 */
static unsigned long (*_Atomic rtt_interrupt_fn)(void);
static _Atomic unsigned long rtt_interrupt_base;

static unsigned long rtt_interrupts(void)
{
	unsigned long (*fn)(void) = atomic_load_explicit(
		&rtt_interrupt_fn, memory_order_relaxed);

	return fn ? fn() : 0;
}

void rtt_set_interrupt(unsigned long (*fn)(void))
{
	/* Relaxed: set once, before the waits it is for. */
	atomic_store_explicit(&rtt_interrupt_fn, fn, memory_order_relaxed);
	rtt_interrupt_handled();
}

void rtt_end_signals(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void rtt_interrupt_handled(void)
{
	/* Relaxed: the calls that follow in this thread read it. */
	atomic_store_explicit(&rtt_interrupt_base, rtt_interrupts(),
			      memory_order_relaxed);
}

/*
 * One slice of waiting: after it, the caller looks at the interrupt,
 * the process and its deadline again. Short: a signal that comes just
 * before the sleep starts does not end it (and a signal handled in
 * another thread never does).
 */
#define RTT_CMD_SLICE_MS 10

/* Our value of the command lock's owner word: pid << 32 | start time's
 * low 32 bits (ctl.h). */
static uint64_t rtt_cmd_self(void)
{
	static _Atomic uint64_t self;
	uint64_t id = atomic_load_explicit(&self, memory_order_relaxed);

	/* Relaxed: the same value whichever thread computes it. */
	if (!id) {
		int pid = (int)getpid();

		id = (uint64_t)(uint32_t)pid << 32 |
		     (uint32_t)rt_proc_start_time(pid);
		atomic_store_explicit(&self, id, memory_order_relaxed);
	}
	return id;
}

/* Whether owner word @w names a process that runs (its pid, with that
 * start time, not a zombie): anything else is taken over. */
static bool rtt_cmd_owner_alive(uint64_t w)
{
	int pid = (int)(w >> 32);
	uint64_t start;

	if (pid <= 0)
		return false;
	start = rt_proc_start_time(pid);
	return start && (uint32_t)start == (uint32_t)w && !rtt_zombie(pid);
}

/* Threads of this process send one command at a time (the mount serves
 * requests in several): the owner word names the process. */
static pthread_mutex_t rtt_cmd_local = PTHREAD_MUTEX_INITIALIZER;

/* Sleep one slice, or less if a signal handler runs. */
static void rtt_cmd_nap(void)
{
	struct timespec ts = { 0, RTT_CMD_SLICE_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Take the command lock of @p: the process-local one, then the owner
 * word in the control file. The word is the process's to write: any
 * value is safe to meet (a live holder is waited for, to the deadline;
 * one that names no running process is taken over), and nothing of it is
 * ever followed or trusted beyond the compare-and-swap.
 */
static int rtt_lock(struct rtt_proc *p, uint64_t deadline,
		    unsigned long intr, char err[RTT_ERR_MAX])
{
	_Atomic uint64_t *word = &p->ctl->cmd_owner;
	uint64_t self = rtt_cmd_self();

	while (pthread_mutex_trylock(&rtt_cmd_local)) {
		if (rtt_interrupts() != intr)
			goto intr;
		if (rtt_now_ms() >= deadline)
			goto busy;
		rtt_cmd_nap();
	}
	for (;;) {
		uint64_t w = 0;

		/* Acquire: pairs with the release in rtt_unlock() (the last
		 * holder's command and its answer came before ours).
		 * Failure: w is the holder, looked at below. */
		if (atomic_compare_exchange_strong_explicit(
			    word, &w, self, memory_order_acquire,
			    memory_order_relaxed))
			return 0;
		/* Ours already (only the process can have written it: no
		 * thread of ours holds it, rtt_cmd_local is ours), or a
		 * holder that is gone: taken over. Acquire: as above.
		 * Failure: the word moved; look again. */
		if ((w == self || !rtt_cmd_owner_alive(w)) &&
		    atomic_compare_exchange_strong_explicit(
			    word, &w, self, memory_order_acquire,
			    memory_order_relaxed))
			return 0;
		if (rtt_gone(p)) {
			pthread_mutex_unlock(&rtt_cmd_local);
			rtt_err(err, "process %d exited", p->pid);
			return -ESRCH;
		}
		if (rtt_interrupts() != intr) {
			pthread_mutex_unlock(&rtt_cmd_local);
			goto intr;
		}
		if (rtt_now_ms() >= deadline) {
			pthread_mutex_unlock(&rtt_cmd_local);
			goto busy;
		}
		rtt_cmd_nap();
	}
busy:
	rtt_err(err, "process %d: another tool holds its command lock", p->pid);
	return -ETIMEDOUT;
intr:
	rtt_err(err, "interrupted while waiting for the command lock of process %d",
		p->pid);
	return -EINTR;
}

static void rtt_unlock(struct rtt_proc *p)
{
	uint64_t self = rtt_cmd_self();

	/* Release: our command and the reads of its answer before the next
	 * holder's; pairs with the acquire in rtt_lock(). A word that no
	 * longer names us (the process rewrote it) is left as it is. */
	atomic_compare_exchange_strong_explicit(&p->ctl->cmd_owner, &self, 0,
						memory_order_release,
						memory_order_relaxed);
	pthread_mutex_unlock(&rtt_cmd_local);
}

int rtt_call(struct rtt_proc *p, int timeout_ms,
	     const struct rt_cmd_args *call, char **reply,
	     char err[RTT_ERR_MAX])
{
	char cmd[RT_CTL_CMD_MAX], *check;
	struct rt_ctl *c = p->ctl;
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;
	unsigned long intr = atomic_load_explicit(&rtt_interrupt_base,
						  memory_order_relaxed);
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
	ret = rtt_lock(p, deadline, intr, err);
	if (ret)
		return ret;
	memcpy(c->cmd, cmd, (size_t)n + 1);
	seq = atomic_load_explicit(&c->cmd_seq, memory_order_relaxed) + 1;
	/* Publishes the command text; pairs with the control thread's
	 * acquire load of cmd_seq. */
	atomic_store_explicit(&c->cmd_seq, seq, memory_order_release);
	rtt_futex(&c->cmd_seq, FUTEX_WAKE, INT32_MAX, NULL);
	for (;;) {
		struct timespec ts = { 0, RTT_CMD_SLICE_MS * 1000000L };

		/* Pairs with the release store of done_seq that ends the
		 * control thread's answer: status and reply are visible. */
		done = atomic_load_explicit(&c->done_seq, memory_order_acquire);
		if ((int32_t)(done - seq) >= 0)
			break;
		rtt_futex(&c->done_seq, FUTEX_WAIT, done, &ts);
		if (rtt_gone(p)) {
			rtt_unlock(p);
			rtt_err(err, "process %d exited before answering '%s'",
				p->pid, cmd);
			return -ESRCH;
		}
		/* the command may still run, as after a time-out */
		if (rtt_interrupts() != intr) {
			rtt_unlock(p);
			rtt_err(err, "interrupted while waiting for the answer to '%s'",
				cmd);
			return -EINTR;
		}
		if (rtt_now_ms() >= deadline) {
			rtt_unlock(p);
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
	rtt_unlock(p);
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
