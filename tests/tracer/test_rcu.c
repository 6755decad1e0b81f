// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tracer's RCU (tracer/src/rcu.h: liburcu's urcu-bp, with the fork
 * hooks libringtrace registers): readers in threads and in signal
 * handlers against an updater that replaces, waits and frees; a grace
 * period that must wait for a section it saw; a thread that exits inside
 * a section; a grace period in the child of a fork() taken while another
 * thread was inside a section; a grace period whose membarrier() fails.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail_membarrier.h"
#include "rcu.h"
#include "test.h"

#define LIVE 0x4c495645u
#define DEAD 0xdeadu
#define NR_VALS 16

struct obj {
	unsigned int magic;
	unsigned long gen;
	unsigned long vals[NR_VALS];
};

static struct obj *_Atomic cur;
static atomic_int stop;
static atomic_ulong bad, sections, handler_sections;

/* One section: every field of the object seen alive and consistent */
static void check_section(unsigned int spin)
{
	struct obj *o;

	rt_rcu_read_lock();
	/* Acquire: the object's fields; pairs with the release exchange in
	 * the updater (rcu_dereference). */
	o = atomic_load_explicit(&cur, memory_order_acquire);
	for (unsigned int i = 0; i < spin; i++) {
		if (o->magic != LIVE || o->vals[i % NR_VALS] != o->gen + i % NR_VALS)
			/* Relaxed: a count. */
			atomic_fetch_add_explicit(&bad, 1, memory_order_relaxed);
		if (i == spin / 2) {
			/* a nested section in the middle */
			rt_rcu_read_lock();
			if (o->magic != LIVE)
				atomic_fetch_add_explicit(&bad, 1,
							  memory_order_relaxed);
			rt_rcu_read_unlock();
		}
	}
	rt_rcu_read_unlock();
}

static void on_usr1(int sig)
{
	(void)sig;
	check_section(8);
	/* Relaxed: a count. */
	atomic_fetch_add_explicit(&handler_sections, 1, memory_order_relaxed);
}

static void *reader(void *arg)
{
	(void)arg;
	/* Relaxed: a stop flag. */
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		check_section(1024);
		/* Relaxed: a count. */
		atomic_fetch_add_explicit(&sections, 1, memory_order_relaxed);
	}
	return NULL;
}

static struct obj *new_obj(unsigned long gen)
{
	struct obj *o = malloc(sizeof(*o));

	ASSERT_NOT_NULL(o);
	o->magic = LIVE;
	o->gen = gen;
	for (unsigned int i = 0; i < NR_VALS; i++)
		o->vals[i] = gen + i;
	return o;
}

/* Two readers (one of them also interrupted by a signal whose handler
 * reads) while the updater replaces the object, waits for a grace period
 * and poisons and frees the old one: no reader may see the poison (and
 * under a sanitizer, no access may race with the free). */
static void reader_vs_updater(void)
{
	pthread_t t[2];
	unsigned long gen, rounds = 300;
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	atomic_store(&cur, new_obj(0));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, reader, NULL), 0);
	for (gen = 1; gen <= rounds; gen++) {
		unsigned long seen = atomic_load(&sections);

		/* let the readers into the current object first */
		while (atomic_load(&sections) < seen + 2)
			sched_yield();
		/* Acq_rel: the new object's fields before it is seen (pairs
		 * with the readers' acquire load); the old one's last
		 * writes before we poison it. */
		struct obj *old = atomic_exchange_explicit(
			&cur, new_obj(gen * 100), memory_order_acq_rel);

		if (gen % 8 == 0)
			pthread_kill(t[0], SIGUSR1);
		rt_synchronize_rcu();
		old->magic = DEAD;
		for (unsigned int i = 0; i < NR_VALS; i++)
			old->vals[i] = 0;
		free(old);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	free(atomic_load(&cur));
	rbt_note("%lu grace periods, %lu sections, %lu in handlers", rounds,
		 atomic_load(&sections), atomic_load(&handler_sections));
	ASSERT_EQ_U(atomic_load(&bad), 0);
	ASSERT_GT_U(atomic_load(&sections), 0);
}

static atomic_int gp_done;

static void *sync_thread(void *arg)
{
	(void)arg;
	rt_synchronize_rcu();
	atomic_store(&gp_done, 1);
	return NULL;
}

/* A grace period started while this thread is inside a section (entered
 * in a signal handler's nested section too) cannot end before it leaves */
static void gp_waits_for_section(void)
{
	pthread_t t;

	rt_rcu_read_lock();
	rt_rcu_read_lock();
	rt_rcu_read_unlock();
	ASSERT_EQ(pthread_create(&t, NULL, sync_thread, NULL), 0);
	for (int i = 0; i < 200; i++) {
		sched_yield();
		if (i % 20 == 0)
			rbt_msleep(1);
	}
	ASSERT_EQ(atomic_load(&gp_done), 0);
	rt_rcu_read_unlock();
	pthread_join(t, NULL);
	ASSERT_EQ(atomic_load(&gp_done), 1);
	ASSERT_EQ(urcu_bp_read_ongoing(), 0);
}

/* libringtrace's out-of-line section, as trace points compiled into a
 * program without _LGPL_SOURCE use it (the library is loaded then, with
 * its fork hooks) */
void ringtrace_rcu_read_lock(void);
void ringtrace_rcu_read_unlock(void);

static void *one_section(void *arg)
{
	(void)arg;
	rt_rcu_read_lock();
	rt_rcu_read_unlock();
	ringtrace_rcu_read_lock();
	ringtrace_rcu_read_unlock();
	return NULL;
}

/* Threads that come and go, each with one section (each registers and
 * is forgotten at its exit), do not hold grace periods up */
static void threads_come_and_go(void)
{
	one_section(NULL);
	for (int i = 0; i < 500; i++) {
		pthread_t t;

		ASSERT_EQ(pthread_create(&t, NULL, one_section, NULL), 0);
		pthread_join(t, NULL);
	}
	alarm(20 * rbt_timeout_mult());
	rt_synchronize_rcu();
	alarm(0);
}

static void *exit_inside(void *arg)
{
	(void)arg;
	rt_rcu_read_lock();
	pthread_exit(NULL);
}

/* A thread that exits inside a section does not hold grace periods up */
static void exit_in_section(void)
{
	pthread_t t;

	ASSERT_EQ(pthread_create(&t, NULL, exit_inside, NULL), 0);
	pthread_join(t, NULL);
	alarm(20 * rbt_timeout_mult());
	rt_synchronize_rcu();
	alarm(0);
}

static atomic_int inside, release_it;

static void *hold_section(void *arg)
{
	(void)arg;
	rt_rcu_read_lock();
	atomic_store(&inside, 1);
	while (!atomic_load(&release_it))
		rbt_msleep(1);
	rt_rcu_read_unlock();
	return NULL;
}

/* fork() while another thread is inside a section: that thread does not
 * exist in the child, whose grace periods must not wait for it */
/* In a forked child: a section, then a grace period (after @fail, with
 * membarrier() failing); exits 0 when the grace period ends. Return:
 * the child's wait status. */
static int child_gp(bool fail)
{
	pid_t pid = fork();
	int st;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		alarm(20 * rbt_timeout_mult());
		rt_rcu_read_lock();
		rt_rcu_read_unlock();
		if (fail)
			atomic_store(&rbt_membarrier_fails, 1);
		rt_synchronize_rcu();
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

static void fork_child_gp(void)
{
	pthread_t t;
	int st;

	one_section(NULL);
	ASSERT_EQ(pthread_create(&t, NULL, hold_section, NULL), 0);
	while (!atomic_load(&inside))
		rbt_msleep(1);
	st = child_gp(false);
	atomic_store(&release_it, 1);
	pthread_join(t, NULL);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(WEXITSTATUS(st), 0);
}

/* A grace period whose membarrier() fails cannot know that the readers'
 * entering stores are visible: it must not end (liburcu stops the
 * process) rather than end with a local fence under a live reader. */
static void gp_membarrier_fails(void)
{
	int st;

	/* registered, so that the grace period has a reader to order */
	one_section(NULL);
	st = child_gp(true);
	if (WIFEXITED(st))
		RBT_FAIL("a grace period ended after membarrier() failed");
	ASSERT_TRUE(WIFSIGNALED(st));
	ASSERT_EQ(WTERMSIG(st), SIGABRT);
}

static const struct rbt_case cases[] = {
	RBT_CASE(reader_vs_updater),
	RBT_CASE(gp_waits_for_section),
	RBT_CASE(threads_come_and_go),
	RBT_CASE(fork_child_gp),
	RBT_CASE(exit_in_section),
	RBT_CASE(gp_membarrier_fails),
};

RBT_MAIN(cases)
