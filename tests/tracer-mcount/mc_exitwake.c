// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_exitwake.c - a thread asleep inside a traced call when the process
 * ends, for exit_wake.sh: built -fpatchable-function-entry=5 and run by
 * `ringtrace record -p function_graph` with the library preloaded.
 *
 *   mc_exitwake sleep   the worker sleeps in poll() inside mc_xw_wait()
 *                       through the exit: its entry, held back, is
 *                       written by the exit handler (and its poll() is
 *                       not interrupted: that would end the run with 3)
 *   mc_exitwake wake    the same, but the worker is woken from inside the
 *                       exit handler, between its take of the entry and
 *                       its second look at the thread (the library's
 *                       second open() of a /proc file of the thread,
 *                       interposed here): the worker returns, writing
 *                       the exit alone, and the exit handler, which sees
 *                       that it ran, must not write the entry after it
 *
 * The worker makes one traced call first (mc_xw_warm()): a thread's
 * first call is written at once, not held back.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MC_NOTRACE \
	__attribute__((no_instrument_function, patchable_function_entry(0, 0)))

int mc_xw_warm(int x);
void mc_xw_wait(void);

static int pfd[2];
static volatile int worker_tid, woken, returned, wake_mode;

/* The library's open() calls come here (the program is linked with
 * -rdynamic): the second open of a /proc file of the worker (its status
 * again, after the take; or, were that look gone, its name, read just
 * before the entry is written), in wake mode, wakes the worker and
 * waits for its return (5 s at most). */
MC_NOTRACE int open(const char *path, int flags, ...)
{
	static int seen;
	char want[64];
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	snprintf(want, sizeof(want), "/proc/self/task/%d/", worker_tid);
	if (wake_mode && worker_tid && !strncmp(path, want, strlen(want)) &&
	    ++seen == 2) {
		if (write(pfd[1], "x", 1) != 1)
			_exit(7);
		woken = 1;
		for (int i = 0; i < 5000 && !returned; i++)
			usleep(1000);
		/* asleep again in pause(), or still on its way there */
		usleep(20000);
		fprintf(stderr, "mc_exitwake: woke the worker inside the exit (returned %d)\n",
			returned);
	}
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

__attribute__((noinline)) int mc_xw_warm(int x)
{
	__asm__ volatile("");
	return x + 1;
}

/* the call the worker is inside at the exit: a wait that a signal
 * would end (EINTR, whatever SA_RESTART says) */
__attribute__((noinline)) void mc_xw_wait(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };

	if (poll(&p, 1, 60000) < 0)
		_exit(3);
}

/* (not traced) whether thread @tid sleeps (/proc's state S) */
MC_NOTRACE static int mc_xw_sleeps(int tid)
{
	char path[64], buf[4096], *st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	st = strstr(buf, "\nState:");
	return st && !strncmp(st + 8, "S (", 3);
}

MC_NOTRACE static void *mc_xw_worker(void *arg)
{
	(void)arg;
	mc_xw_warm(1);
	worker_tid = (int)syscall(SYS_gettid);
	mc_xw_wait();
	returned = 1;
	for (;;)
		pause();
	return NULL;
}

MC_NOTRACE int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 2 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "wake"))) {
		fprintf(stderr, "usage: mc_exitwake sleep|wake\n");
		return 2;
	}
	wake_mode = !strcmp(argv[1], "wake");
	if (pipe(pfd) || pthread_create(&th, NULL, mc_xw_worker, NULL))
		return 1;
	/* the worker inside its poll() (10 s at most) */
	for (int i = 0; i < 10000 && !(worker_tid && mc_xw_sleeps(worker_tid));
	     i++)
		usleep(1000);
	return 0;
}
