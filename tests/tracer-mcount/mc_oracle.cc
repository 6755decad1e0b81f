// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mc_oracle.cc - the program uprobe_oracle.sh records with ringtrace while
 * the kernel's uprobes count its calls: every way a traced frame is left
 * other than by its return, and calls from places a return stack does not
 * expect. longjmp() out of a recursion; a C++ exception thrown through
 * traced frames, with a destructor that calls a traced function on the
 * way; a signal handler that calls traced functions in the middle of a
 * traced call; threads that return, that call pthread_exit() from deep
 * down, and one cancelled while it waits deep down; two threads inside a
 * traced call, one parked and one spinning, when main() returns. Built
 * -pg -mfentry -mrecord-mcount and -fpatchable-function-entry=5, not
 * linked with
 * libringtrace (ringtrace record preloads it). Every function is
 * extern "C", so that the names the symbol table holds are the ones
 * ringtrace report prints. Nothing runs before main(), nothing is
 * nested deeper than the return stack holds.
 */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MC_FUNC extern "C" __attribute__((noinline, noclone))

extern "C" {
volatile int mc_o_sink;
volatile sig_atomic_t mc_o_ready;
/* always 1: the ways out that do not return are taken under a test the
 * compiler cannot fold, or it takes the recursions for endless ones */
volatile int mc_o_go = 1;
}

MC_FUNC int mc_o_leaf(int x)
{
	mc_o_sink = x;
	return x + 1;
}

/* ---- longjmp() out of a recursion ---- */
/* (one per thread: the workers jump too) */
static thread_local jmp_buf mc_o_env;

MC_FUNC void mc_o_jump_down(int d)
{
	mc_o_leaf(d);
	if (d > 0)
		mc_o_jump_down(d - 1);
	else if (mc_o_go)
		longjmp(mc_o_env, 1);
	mc_o_leaf(d);
}

MC_FUNC int mc_o_jumps(int n)
{
	volatile int caught = 0;

	for (volatile int i = 0; i < n; i++) {
		if (setjmp(mc_o_env) == 0)
			mc_o_jump_down(i % 7);
		else
			caught = caught + 1;
		mc_o_leaf(i);
	}
	return caught;
}

/* ---- a C++ exception through traced frames ---- */
struct mc_o_guard {
	int d;
	/* (inlined: no function of a C++ name of its own) */
	__attribute__((always_inline)) ~mc_o_guard() { mc_o_leaf(-d); }
};

MC_FUNC void mc_o_throw_down(int d)
{
	mc_o_guard g = { d };

	mc_o_leaf(d);
	if (d == 0)
		throw d;
	mc_o_throw_down(d - 1);
	mc_o_leaf(d);
}

MC_FUNC int mc_o_catches(int n)
{
	int caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			mc_o_throw_down(i % 5);
		} catch (int) {
			caught += mc_o_leaf(i) > 0;
		}
	}
	return caught;
}

/* ---- a signal handler's calls, in the middle of a traced call ---- */
MC_FUNC void mc_o_handler(int sig)
{
	mc_o_leaf(sig);
	mc_o_leaf(sig + 1);
}

MC_FUNC void mc_o_signal_in(int d)
{
	if (d == 0) {
		raise(SIGUSR1);
		return;
	}
	mc_o_signal_in(d - 1);
	mc_o_leaf(d);
}

/* ---- threads ---- */
MC_FUNC void mc_o_exit_down(int d)
{
	mc_o_leaf(d);
	if (d > 0)
		mc_o_exit_down(d - 1);
	else if (mc_o_go)
		pthread_exit(nullptr);
	mc_o_leaf(d);
}

MC_FUNC void mc_o_wait_down(int d)
{
	mc_o_leaf(d);
	if (d > 0) {
		mc_o_wait_down(d - 1);
		mc_o_leaf(d);
		return;
	}
	mc_o_ready = 1;
	while (mc_o_go) {
		pthread_testcancel();
		usleep(1000);
	}
}

/* ---- threads that are inside a call when the process ends ---- */
extern "C" {
volatile sig_atomic_t mc_o_parked, mc_o_spinning;
volatile int mc_o_park_tid;
}

/* blocked in a wait the exit must leave alone: poll() ends with EINTR
 * on any signal handled, SA_RESTART or not, which this thread takes for
 * an error, as some programs do (the run then ends with status 5) */
MC_FUNC void mc_o_park(void)
{
	static const char m[] = "mc_o_park: its wait was interrupted\n";

	mc_o_park_tid = (int)syscall(SYS_gettid);
	mc_o_parked = 1;
	while (mc_o_go)
		if (poll(nullptr, 0, 600000) < 0) {
			if (write(2, m, sizeof(m) - 1) < 0)
				_exit(6);
			_exit(5);
		}
}

/* whether thread @tid sleeps in the kernel (/proc's state S) */
MC_FUNC bool mc_o_sleeps(int tid)
{
	char path[64], buf[4096];
	const char *st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	st = strstr(buf, "\nState:");
	/* ("\nState:\tS (sleeping)") */
	return st && !strncmp(st + 8, "S (", 3);
}

/* running, calling nothing */
MC_FUNC void mc_o_spin(void)
{
	mc_o_spinning = 1;
	while (mc_o_go)
		;
}

MC_FUNC void *mc_o_stay(void *arg)
{
	mc_o_leaf(7);
	if (arg)
		mc_o_spin();
	else
		mc_o_park();
	return nullptr;
}

MC_FUNC void *mc_o_worker(void *arg)
{
	long kind = (long)arg;

	mc_o_jumps(20);
	mc_o_catches(20);
	if (kind == 1)
		mc_o_exit_down(4);
	if (kind == 2)
		mc_o_wait_down(3);
	mc_o_leaf((int)kind);
	return nullptr;
}

int main(void)
{
	pthread_t th[3];
	struct sigaction sa = {};
	int sum = 0;

	sa.sa_handler = mc_o_handler;
	sigaction(SIGUSR1, &sa, nullptr);
	sum += mc_o_jumps(60);
	sum += mc_o_catches(60);
	for (int i = 0; i < 20; i++)
		mc_o_signal_in(i % 4);
	for (long k = 0; k < 3; k++)
		if (pthread_create(&th[k], nullptr, mc_o_worker, (void *)k))
			return 1;
	/* the third waits, deep down, to be cancelled */
	while (!mc_o_ready)
		usleep(1000);
	pthread_cancel(th[2]);
	for (int k = 0; k < 3; k++)
		pthread_join(th[k], nullptr);
	/* two that are still inside their calls when main() returns */
	for (long k = 0; k < 2; k++)
		if (pthread_create(&th[k], nullptr, mc_o_stay, (void *)k))
			return 1;
	while (!mc_o_parked || !mc_o_spinning)
		usleep(1000);
	/* the parked one inside its poll() (10 s at most) */
	for (int i = 0; i < 10000 && !mc_o_sleeps(mc_o_park_tid); i++)
		usleep(1000);
	printf("%d\n", sum);
	return 0;
}
