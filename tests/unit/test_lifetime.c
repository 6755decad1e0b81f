/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What outlives whom around the release library's writers: a thread that
 * leaves in the middle of its claim, a forked child that frees its copy
 * of a named buffer, a resize whose membarrier() fails.
 *
 * Where a thread must stop at one exact instruction, the test stands in
 * for a C library function the library calls there through its PLT
 * (sched_getcpu() in the claim of a process without glibc's rseq area;
 * syscall() for membarrier(), fail_membarrier.c); everywhere else the
 * stand-ins pass the call on.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ringbuf/frontend.h>

#include "fail_membarrier.h"
#include "test.h"

/* ---- stand-ins --------------------------------------------------------- */

/* Set in a thread: its next claim's sched_getcpu() ends the thread. */
static __thread int g_leave_in_claim;
/* Every thread on one CPU (the claim then contends for one buffer). */
static atomic_int g_one_cpu;

int sched_getcpu(void)
{
	static int (*next)(void);

	if (g_leave_in_claim) {
		g_leave_in_claim = 0;
		pthread_exit(NULL);
	}
	if (atomic_load(&g_one_cpu))
		return 0;
	if (!next)
		next = (int (*)(void))dlsym(RTLD_NEXT, "sched_getcpu");
	return next();
}

static void sem_take(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* ---- exit_in_claim ------------------------------------------------------ */

/*
 * Thread A writes once into cpu buffer 0, then leaves inside its next
 * claim, after the claim raised its depth and before its frame names a
 * buffer. Meanwhile B holds cpu buffer 0 in the middle of a write. A's
 * exit destructor must not take that buffer back from B: C, writing next,
 * must go to another buffer, and B's record must be there after its
 * commit.
 */
static struct ringbuf *g_rb;
static sem_t g_a_wrote, g_b_holds, g_b_commit;

static void *claim_a(void *arg)
{
	(void)arg;
	ASSERT_EQ(ringbuf_write(g_rb, 8, "A-first."), 0);
	sem_post(&g_a_wrote);
	sem_take(&g_b_holds);
	g_leave_in_claim = 1;
	ringbuf_write(g_rb, 8, "A-second");
	RBT_FAIL("thread A came back from its claim");
	return NULL;
}

static void *claim_b(void *arg)
{
	struct ringbuf_event *e;

	(void)arg;
	sem_take(&g_a_wrote);
	e = ringbuf_lock_reserve(g_rb, 8);
	ASSERT_NOT_NULL(e);
	memcpy(ringbuf_event_data(e), "B-record", 8);
	sem_post(&g_b_holds);
	sem_take(&g_b_commit);
	ASSERT_EQ(ringbuf_unlock_commit(g_rb), 0);
	return NULL;
}

static void *claim_c(void *arg)
{
	(void)arg;
	ASSERT_EQ(ringbuf_write(g_rb, 8, "C-record"), 0);
	return NULL;
}

static void exit_in_claim(void)
{
	RINGBUF_OPTS(o, .size = 16384, .model = RINGBUF_PER_CPU);
	pthread_t a, b, c;
	int seen_a = 0, seen_b = 0, seen_c = 0, b_cpu = -1, c_cpu = -1;

	if (ringbuf_fe_rseq_ok)
		rbt_skip("needs the claim without rseq (GLIBC_TUNABLES="
			 "glibc.pthread.rseq=0)");
	sem_init(&g_a_wrote, 0, 0);
	sem_init(&g_b_holds, 0, 0);
	sem_init(&g_b_commit, 0, 0);
	atomic_store(&g_one_cpu, 1);
	g_rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(g_rb);
	ASSERT_EQ(pthread_create(&a, NULL, claim_a, NULL), 0);
	ASSERT_EQ(pthread_create(&b, NULL, claim_b, NULL), 0);
	ASSERT_EQ(pthread_join(a, NULL), 0);
	ASSERT_EQ(pthread_create(&c, NULL, claim_c, NULL), 0);
	ASSERT_EQ(pthread_join(c, NULL), 0);
	sem_post(&g_b_commit);
	ASSERT_EQ(pthread_join(b, NULL), 0);
	atomic_store(&g_one_cpu, 0);

	for (int cpu = 0; cpu < ringbuf_nr_cpus(g_rb); cpu++) {
		struct ringbuf_event *e;
		uint64_t ts;

		while ((e = ringbuf_consume(g_rb, cpu, &ts, NULL))) {
			const char *d = ringbuf_event_data(e);

			ASSERT_GE(ringbuf_event_length(e), 8);
			if (!memcmp(d, "A-first.", 8))
				seen_a++;
			else if (!memcmp(d, "B-record", 8))
				seen_b++, b_cpu = cpu;
			else if (!memcmp(d, "C-record", 8))
				seen_c++, c_cpu = cpu;
			else
				RBT_FAIL("unexpected record \"%.8s\"", d);
		}
		ASSERT_EQ_U(ringbuf_torn_events_cpu(g_rb, cpu), 0);
	}
	ASSERT_EQ(seen_a, 1);
	ASSERT_EQ(seen_b, 1);
	ASSERT_EQ(seen_c, 1);
	/* C wrote while B held cpu buffer 0: another buffer (a spare) */
	ASSERT_EQ(b_cpu, 0);
	ASSERT_NE(c_cpu, 0);
	/* and recording goes on */
	ASSERT_EQ(ringbuf_write(g_rb, 8, "D-record"), 0);
	ringbuf_free(g_rb);
}

/* ---- fork_child_free ---------------------------------------------------- */

/* A forked child frees its copy of the parent's named buffer: the file is
 * the parent's and stays until the parent frees the buffer. */
static void fork_child_free(void)
{
	char name[64];
	const char *path;
	struct stat st;
	struct ringbuf *rb;
	int status;
	pid_t pid;

	snprintf(name, sizeof(name), "rbt-lifetime-%d", (int)getpid());
	{
		RINGBUF_OPTS(o, .size = 8192, .path = name);

		rb = ringbuf_create(&o);
	}
	ASSERT_NOT_NULL(rb);
	path = ringbuf_path(rb);
	ASSERT_NOT_NULL(path);
	ASSERT_EQ(stat(path, &st), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		ringbuf_free(rb);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_EQ(ringbuf_write(rb, 8, "parent.."), 0);
	{
		char copy[256];

		snprintf(copy, sizeof(copy), "%s", path);
		ringbuf_free(rb);
		ASSERT_NE(stat(copy, &st), 0);
		ASSERT_EQ(errno, ENOENT);
	}
}

/* ---- drain_membarrier_fails --------------------------------------------- */

/* A resize whose membarrier() fails cannot know that no writer is inside
 * a write: it refuses with the error and leaves the buffer as it was. */
static void drain_membarrier_fails(void)
{
	RINGBUF_OPTS(o, .size = 8192, .model = RINGBUF_PER_CPU);
	struct ringbuf *rb = ringbuf_create(&o);
	struct ringbuf_event *e;
	size_t before;
	int cpu;
	uint64_t ts;

	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringbuf_write(rb, 8, "kept...."), 0);
	before = ringbuf_size(rb, RINGBUF_ALL_CPUS);
	atomic_store(&rbt_membarrier_fails, 1);
	ASSERT_EQ(ringbuf_resize(rb, 4 * 8192, RINGBUF_ALL_CPUS), -ENOMEM);
	atomic_store(&rbt_membarrier_fails, 0);
	ASSERT_EQ_U(ringbuf_size(rb, RINGBUF_ALL_CPUS), before);
	e = ringbuf_consume_next(rb, &cpu, &ts, NULL);
	ASSERT_NOT_NULL(e);
	ASSERT_MEM_EQ(ringbuf_event_data(e), "kept....", 8);
	ASSERT_EQ(ringbuf_write(rb, 8, "after..."), 0);
	ASSERT_EQ(ringbuf_resize(rb, 4 * 8192, RINGBUF_ALL_CPUS), 0);
	ringbuf_free(rb);
}

static const struct rbt_case cases[] = {
	RBT_CASE(exit_in_claim),
	RBT_CASE(fork_child_free),
	RBT_CASE(drain_membarrier_fails),
};
RBT_MAIN(cases)
