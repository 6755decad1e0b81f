// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hist triggers: the table (tracing_map.c) under concurrent writers, the
 * hist file's text against golden files, modifiers, sort, errors with
 * the kernel's messages and carets, named tables, pause/cont/clear,
 * enable_hist/disable_hist, several hist triggers on one event, filters,
 * and writer threads through the trigger path (hitcounts + Dropped ==
 * events written).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "hist_events.h"

#include <ringtrace/tracer.h>
#include <ringbuf/ringbuf.h>

#include "golden.h"
#include "test.h"
#include "tracing_map.h"

static char err[4096];

static struct ringtrace_instance *setup(void)
{
	struct ringtrace_instance *tr = ringtrace_top();

	ASSERT_NOT_NULL(tr);
	prctl(PR_SET_NAME, "rt-hist");
	return tr;
}

static int print_trace_cb(FILE *out, void *arg)
{
	return ringtrace_print_trace(arg, out);
}

static int print_snapshot_cb(FILE *out, void *arg)
{
	return ringtrace_print_snapshot(arg, out);
}

static char *show_hist(struct ringtrace_instance *tr, const char *ev)
{
	size_t n = ringtrace_show_hist(tr, "hist", ev, NULL, 0);
	char *buf = malloc(n + 1);

	ASSERT_NOT_NULL(buf);
	ASSERT_EQ_U(ringtrace_show_hist(tr, "hist", ev, buf, n + 1), n);
	return buf;
}

static int set(struct ringtrace_instance *tr, const char *ev,
	       const char *text)
{
	return ringtrace_set_trigger(tr, "hist", ev, text, err, sizeof(err));
}

/* The address of the records' fn field: a function of the test */
void work_fn(void);
__attribute__((noinline)) void work_fn(void)
{
	__asm__ volatile("");
}

static void work(int worker, unsigned int bytes, long delta, const char *name,
		 const char *path)
{
	trace_work(worker, bytes, delta, name, path,
		   (unsigned long)(void *)&work_fn);
}

/* ---- the table alone ------------------------------------------------- */

/*
 * Writer @i of the contention tests runs on one of the first 2 CPUs the
 * process may use, round robin: 8 writers on 2 CPUs preempt each other
 * inside the table's claims and adds. Where the process may use one CPU
 * only, all run there (the counts hold all the same).
 */
static void pin_writer(int i)
{
	cpu_set_t allowed, one;
	int cpus[2], n = 0, c;

	if (sched_getaffinity(getpid(), sizeof(allowed), &allowed))
		return;
	for (c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	if (!n)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpus[i % n], &one);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

#define MAP_THREADS 8
#define MAP_PER_THREAD 20000

#define MAP_KEYS 300 /* more keys than the 128 room */

static struct tracing_map *the_map;

/* Count @key in @map as a hist trigger does: hitcount 1, value @v (when
 * the map has a second sum). Return: its element, or NULL (dropped). */
static struct tracing_map_elt *map_count(struct tracing_map *map,
					 const void *key, uint64_t v)
{
	struct tracing_map_probe p;
	struct tracing_map_elt *e;
	struct tracing_map_sums s;
	unsigned int idx;

	tracing_map_probe_init(&p, map);
	e = tracing_map_probe_insert(&p, key, &idx);
	if (!e)
		return NULL;
	s = tracing_map_sums_of(&p, e, idx);
	tracing_map_update_sum(s, 0, 1);
	if (map->n_sums > 1)
		tracing_map_update_sum(s, 1, v);
	return e;
}
/* the writes of each key, per writer */
static unsigned int map_written[MAP_THREADS + 1][MAP_KEYS];

static void *map_writer(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
	uint64_t key[2];
	int i;

	pin_writer((int)(uintptr_t)arg);
	for (i = 0; i < MAP_PER_THREAD; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		key[0] = (seed >> 33) % MAP_KEYS;
		key[1] = key[0] * 3;
		map_written[(uintptr_t)arg][key[0]]++;
		map_count(the_map, key, key[0]);
	}
	return NULL;
}

/* A hitcount past its writes, told in detail: the element's own sum and
 * each thread copy's, beside each writer's writes of the key. */
static void map_threads_explain(const struct tracing_map_elt *e,
				uint64_t key)
{
	size_t at = (size_t)((const unsigned char *)e - the_map->data) /
		    the_map->stride * the_map->n_sums;

	fprintf(stderr, "key %llu, element %zu: own sum %llu; drops %llu, "
		"wasted %u\n", (unsigned long long)key,
		at / the_map->n_sums,
		(unsigned long long)atomic_load(&e->sums[0]),
		(unsigned long long)atomic_load(&the_map->drops),
		(unsigned int)atomic_load(&the_map->wasted));
	for (int s = 0; s < TRACING_MAP_THREAD_SLOTS; s++)
		fprintf(stderr, "  copy %d: %llu\n", s,
			(unsigned long long)the_map->tsums[
				(size_t)s * the_map->tslot_words + at]);
	for (int t = 1; t <= MAP_THREADS; t++)
		fprintf(stderr, "  writer %d: %u writes\n", t,
			map_written[t][key]);
}

/* 8 writers on 2 CPUs on a table too small for their keys: every write
 * is either in a hitcount or in drops, each element's sums are its
 * key's, every element is taken (by a key, or wasted by a writer that
 * lost its key's insertion), and a key in the table has at most its
 * writes (Userspace: a writer preempted between taking the last element
 * and publishing it makes the other writers of its key drop theirs
 * meanwhile; the kernel's writer is not preempted there) */
static void map_threads(void)
{
	pthread_t th[MAP_THREADS];
	struct tracing_map_elt **v;
	uint64_t sum = 0;
	int i, n;

	the_map = tracing_map_create(TRACING_MAP_BITS_MIN, 16, 2, 2);
	ASSERT_NOT_NULL(the_map);
	for (i = 0; i < MAP_THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, map_writer,
					 (void *)(uintptr_t)(i + 1)), 0);
	for (i = 0; i < MAP_THREADS; i++)
		pthread_join(th[i], NULL);
	n = tracing_map_entries(the_map, &v);
	ASSERT_EQ_U((uint64_t)n + atomic_load(&the_map->wasted),
		    1u << TRACING_MAP_BITS_MIN);
	for (i = 0; i < n; i++) {
		uint64_t k[2], hits = tracing_map_read_sum(the_map, v[i], 0);
		uint64_t want = 0;
		int t;

		memcpy(k, v[i]->key, sizeof(k));
		ASSERT_EQ_U(k[1], k[0] * 3);
		ASSERT_LT_U(k[0], MAP_KEYS);
		for (t = 1; t <= MAP_THREADS; t++)
			want += map_written[t][k[0]];
		/* one element per key (first: a key in two elements would
		 * also split its hits) */
		for (int j = 0; j < i; j++)
			ASSERT_NE(memcmp(v[j]->key, v[i]->key, 16), 0);
		/* At most its writes: a writer that took the last element
		 * for a key and was preempted before publishing it (between
		 * steps D and C of tracing_map.c) leaves the table full
		 * meanwhile, and the key's writes then are dropped (counted
		 * in drops: the sum below holds) */
		if (hits > want)
			map_threads_explain(v[i], k[0]);
		ASSERT_LE_U(hits, want);
		ASSERT_EQ_U(tracing_map_read_sum(the_map, v[i], 1),
			    hits * k[0]);
		sum += hits;
	}
	free(v);
	ASSERT_EQ_U(sum + atomic_load(&the_map->drops),
		    (uint64_t)MAP_THREADS * MAP_PER_THREAD);
	ASSERT_GT_U(atomic_load(&the_map->drops), 0);
	tracing_map_clear(the_map);
	n = tracing_map_entries(the_map, &v);
	ASSERT_EQ(n, 0);
	free(v);
	tracing_map_destroy(the_map);
}

/*
 * More writers than the map's per-thread slots (tracing_map.h): the
 * first threads add in their own copies of the sums, the others to the
 * elements' with atomic adds, and a reader adds them up. Each writer
 * counts every key the same number of times, and the sums are exact.
 */
#define SLOT_THREADS (TRACING_MAP_THREAD_SLOTS + 4)
#define SLOT_KEYS 64
#define SLOT_ROUNDS 200

static void *slot_writer(void *arg)
{
	uint64_t key;
	int r;

	pin_writer((int)(uintptr_t)arg);
	for (r = 0; r < SLOT_ROUNDS; r++)
		for (key = 0; key < SLOT_KEYS; key++)
			ASSERT_NOT_NULL(map_count(the_map, &key, key + 1));
	return NULL;
}

/*
 * Writers racing for each new key: every loser took an element, copied
 * the key in and gives it back (tracing_map_put_back()), and the next
 * key's writer takes that element again and copies its own key over it.
 * Each round clears the map, so every round races. Every key in the
 * table must be whole, one of the round's, and counted by every writer.
 */
#define RACE_THREADS 4
#define RACE_ROUNDS 300
#define RACE_KEYS 4

static pthread_barrier_t race_start, race_done;

static void *race_writer(void *arg)
{
	int r, k;

	pin_writer((int)(uintptr_t)arg);
	for (r = 0; r < RACE_ROUNDS; r++) {
		pthread_barrier_wait(&race_start);
		for (k = 0; k < RACE_KEYS; k++) {
			uint64_t key[2] = { (uint64_t)r * 1000 + (uint64_t)k,
					    ~((uint64_t)r * 1000 + (uint64_t)k) };

			ASSERT_NOT_NULL(map_count(the_map, key, 1));
		}
		pthread_barrier_wait(&race_done);
	}
	return NULL;
}

static void map_put_back(void)
{
	pthread_t th[RACE_THREADS];
	int i, r;

	the_map = tracing_map_create(TRACING_MAP_BITS_MIN, 16, 1, 1);
	ASSERT_NOT_NULL(the_map);
	ASSERT_EQ(pthread_barrier_init(&race_start, NULL, RACE_THREADS + 1), 0);
	ASSERT_EQ(pthread_barrier_init(&race_done, NULL, RACE_THREADS + 1), 0);
	for (i = 0; i < RACE_THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, race_writer,
					 (void *)(uintptr_t)i), 0);
	for (r = 0; r < RACE_ROUNDS; r++) {
		struct tracing_map_elt **v;
		int n;

		tracing_map_clear(the_map);
		pthread_barrier_wait(&race_start);
		pthread_barrier_wait(&race_done);
		n = tracing_map_entries(the_map, &v);
		ASSERT_EQ(n, RACE_KEYS);
		for (i = 0; i < n; i++) {
			uint64_t key[2];

			memcpy(key, v[i]->key, sizeof(key));
			ASSERT_EQ_U(key[0] / 1000, (uint64_t)r);
			ASSERT_LT_U(key[0] % 1000, RACE_KEYS);
			ASSERT_EQ_U(key[1], ~key[0]);
			ASSERT_EQ_U(tracing_map_read_sum(the_map, v[i], 0),
				    RACE_THREADS);
		}
		free(v);
	}
	for (i = 0; i < RACE_THREADS; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ_U(atomic_load(&the_map->drops), 0);
	pthread_barrier_destroy(&race_start);
	pthread_barrier_destroy(&race_done);
	tracing_map_destroy(the_map);
}

static void map_thread_slots(void)
{
	pthread_t th[SLOT_THREADS];
	struct tracing_map_elt **v;
	int i, n;

	the_map = tracing_map_create(TRACING_MAP_BITS_MIN, 8, 3, 2);
	ASSERT_NOT_NULL(the_map);
	for (i = 0; i < SLOT_THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, slot_writer,
					 (void *)(uintptr_t)i), 0);
	for (i = 0; i < SLOT_THREADS; i++)
		pthread_join(th[i], NULL);
	n = tracing_map_entries(the_map, &v);
	ASSERT_EQ(n, SLOT_KEYS);
	for (i = 0; i < n; i++) {
		uint64_t k, hits = tracing_map_read_sum(the_map, v[i], 0);

		memcpy(&k, v[i]->key, 8);
		ASSERT_EQ_U(hits, (uint64_t)SLOT_THREADS * SLOT_ROUNDS);
		ASSERT_EQ_U(tracing_map_read_sum(the_map, v[i], 1),
			    hits * (k + 1));
		/* the third sum is not added up: only the element's */
		ASSERT_EQ_U(tracing_map_read_sum(the_map, v[i], 2), 0);
	}
	free(v);
	ASSERT_EQ_U(atomic_load(&the_map->drops), 0);
	/* cleared: the threads' copies too */
	tracing_map_clear(the_map);
	{
		uint64_t k = 1;
		struct tracing_map_elt *e = map_count(the_map, &k, 5);

		ASSERT_NOT_NULL(e);
		ASSERT_EQ_U(tracing_map_read_sum(the_map, e, 0), 1);
		ASSERT_EQ_U(tracing_map_read_sum(the_map, e, 1), 5);
	}
	tracing_map_destroy(the_map);
}

/*
 * A signal handler counting in the map while its thread counts there
 * too, in the same slot: the add is atomic against the handler, so no
 * count of either is lost. The signals come from another thread; the
 * writer counts until it has seen SIG_COUNTS of them.
 */
#define SIG_COUNTS 2000

static _Atomic int sig_seen;
static _Atomic bool sig_done;

static void sig_count(int sig)
{
	uint64_t k = 7;

	(void)sig;
	map_count(the_map, &k, 3);
	atomic_fetch_add(&sig_seen, 1);
}

static void *sig_sender(void *arg)
{
	pthread_t to = *(pthread_t *)arg;

	while (!atomic_load(&sig_done)) {
		pthread_kill(to, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static void map_signal(void)
{
	struct sigaction sa = { .sa_handler = sig_count };
	pthread_t self = pthread_self(), th;
	struct tracing_map_elt *e;
	uint64_t k = 7, mine = 0;
	unsigned int idx;

	the_map = tracing_map_create(TRACING_MAP_BITS_MIN, 8, 2, 2);
	ASSERT_NOT_NULL(the_map);
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	ASSERT_EQ(pthread_create(&th, NULL, sig_sender, &self), 0);
	while (atomic_load(&sig_seen) < SIG_COUNTS) {
		map_count(the_map, &k, 3);
		mine++;
	}
	atomic_store(&sig_done, true);
	/* (every signal sent is delivered before the join returns; the
	 * handler stays, for the process's end) */
	pthread_join(th, NULL);
	e = tracing_map_insert(the_map, &k, &idx);
	ASSERT_NOT_NULL(e);
	ASSERT_EQ_U(tracing_map_read_sum(the_map, e, 0),
		    mine + (uint64_t)atomic_load(&sig_seen));
	ASSERT_EQ_U(tracing_map_read_sum(the_map, e, 1),
		    3 * (mine + (uint64_t)atomic_load(&sig_seen)));
	tracing_map_destroy(the_map);
}

/* A full table: every key in it is still found (and counted), a new one
 * dropped; a key inserted again does not take an element */
static void map_full(void)
{
	struct tracing_map *map =
		tracing_map_create(TRACING_MAP_BITS_MIN, 8, 1, 1);
	unsigned int room = 1u << TRACING_MAP_BITS_MIN;
	struct tracing_map_elt *e, *first;
	unsigned int idx;
	uint64_t k;

	ASSERT_NOT_NULL(map);
	for (k = 0; k < room; k++) {
		first = map_count(map, &k, 0);
		ASSERT_NOT_NULL(first);
		ASSERT_TRUE(tracing_map_insert(map, &k, &idx) == first);
	}
	ASSERT_EQ_U(atomic_load(&map->next_elt), room);
	k = room;
	ASSERT_NULL(tracing_map_insert(map, &k, &idx));
	ASSERT_NULL(tracing_map_lookup(map, &k));
	ASSERT_EQ_U(atomic_load(&map->drops), 1);
	for (k = 0; k < room; k++) {
		e = tracing_map_insert(map, &k, &idx);
		ASSERT_NOT_NULL(e);
		ASSERT_TRUE(tracing_map_lookup(map, &k) == e);
		ASSERT_EQ_U(tracing_map_read_sum(map, e, 0), 1);
		ASSERT_EQ_U(*(uint64_t *)e->key, k);
	}
	ASSERT_EQ_U(atomic_load(&map->drops), 1);
	ASSERT_EQ_U(atomic_load(&map->wasted), 0);
	tracing_map_destroy(map);
}

/* ---- the hist file ---------------------------------------------------- */

static void emit_basic(void)
{
	work(1, 10, -3, "alpha", "/a");
	work(1, 10, -3, "alpha", "/a");
	work(1, 10, 4, "beta", "/b");
	work(2, 5, 0, "beta", "/a/b/c");
	work(-1, 7, 100, "gamma", "/");
	work(-1, 7, 100, "gamma", "/");
	work(3, 1000, 1, "delta", "/d");
	work(3, 3000, 1, "delta", "/d");
}

/* Set each trigger of @t, emit_basic(), compare the hist file with
 * golden/@name, remove each */
static void golden_triggers(const char *name, const char *const *t, int n)
{
	struct ringtrace_instance *tr = setup();
	char rm[512], *h;
	int i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(set(tr, "work", t[i]), 0);
	emit_basic();
	h = show_hist(tr, "work");
	golden_check_raw(name, h);
	free(h);
	for (i = 0; i < n; i++) {
		snprintf(rm, sizeof(rm), "!%s", t[i]);
		ASSERT_EQ(set(tr, "work", rm), 0);
	}
	h = show_hist(tr, "work");
	ASSERT_EQ(strcmp(h, ""), 0);
	free(h);
}

static void text_basic(void)
{
	static const char *const t[] = {
		"hist:keys=worker:vals=bytes",
		"hist:keys=name,worker:vals=bytes,delta:sort=name,worker.descending",
		"hist:keys=path:vals=hitcount:sort=hitcount.descending:size=256",
	};

	golden_triggers("hist_basic.txt", t, 3);
}

static void text_modifiers(void)
{
	static const char *const t[] = {
		"hist:keys=worker.hex,bytes.log2",
		"hist:keys=bytes.buckets=100:vals=bytes.percent,delta.graph:sort=bytes.descending",
		"hist:keys=name:vals=delta.hex:nohitcount",
	};

	golden_triggers("hist_modifiers.txt", t, 3);
}

/* .execname, .sym, .sym-offset, common_cpu, common_timestamp and the
 * stack: their text depends on the run (thread id, addresses), so
 * looked for */
static void text_run_keys(void)
{
	struct ringtrace_instance *tr = setup();
	char *h, want[128];

	ASSERT_EQ(set(tr, "work", "hist:keys=common_pid.execname"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=fn.sym"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=fn.sym-offset:vals=common_timestamp.usecs"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=common_cpu"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=common_stacktrace"), 0);
	emit_basic();
	h = show_hist(tr, "work");
	snprintf(want, sizeof(want), "{ common_pid: rt-hist         [%10ld] } hitcount:          8\n",
		 (long)syscall(SYS_gettid));
	ASSERT_NOT_NULL(strstr(h, want));
	ASSERT_NOT_NULL(strstr(h, "] work_fn                                       } hitcount:          8\n"));
	ASSERT_NOT_NULL(strstr(h, "] work_fn+0x0/0x"));
	ASSERT_NOT_NULL(strstr(h, ":vals=hitcount,common_timestamp.usecs:sort=hitcount:size=2048:clock=global [active]\n"));
	ASSERT_NOT_NULL(strstr(h, "{ common_cpu: "));
	ASSERT_NOT_NULL(strstr(h, "{ common_stacktrace:\n         "));
	ASSERT_NOT_NULL(strstr(h, "emit_basic+0x"));
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=common_pid.execname"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=fn.sym"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=fn.sym-offset:vals=common_timestamp.usecs"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=common_cpu"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=common_stacktrace"), 0);
}

/* ---- errors ------------------------------------------------------------ */

/* @cmd with '^' where the caret goes: refused, with @msg and the caret
 * there, as the kernel's error_log entry; nothing set */
static void check_error_on(struct ringtrace_instance *tr, const char *ev,
			   const char *cmd, const char *msg)
{
	char text[512], want[2048];
	const char *caret = strchr(cmd, '^');
	int pos = caret ? (int)(caret - cmd) : 0, n;

	n = snprintf(text, sizeof(text), "%.*s%s", pos, cmd,
		     caret ? caret + 1 : "");
	ASSERT_LT(n, (int)sizeof(text));
	ASSERT_NE(set(tr, ev, text), 0);
	snprintf(want, sizeof(want),
		 "hist:hist:%s: error: %s\n  Command: %s\n%*s^\n", ev, msg,
		 text, pos + 11, "");
	if (strcmp(err, want)) {
		fprintf(stderr, "want:\n%sgot:\n%s", want, err);
		RBT_FAIL("error of '%s'", text);
	}
}

static void check_error(struct ringtrace_instance *tr, const char *cmd,
			const char *msg)
{
	check_error_on(tr, "work", cmd, msg);
}

static void errors(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[1024];

	/* the kernel's trigger-hist-syntax-errors.tc, on our fields */
	check_error(tr, "hist:keys=worker:vals=bytes:sort=worker,^junk",
		    "Sort field must be a key or a val");
	check_error(tr, "hist:keys=worker:vals=bytes:^sort=",
		    "Empty assignment");
	check_error(tr, "hist:keys=worker:vals=bytes:^sort=worker,",
		    "Empty sort field");
	check_error(tr, "hist:keys=worker:vals=bytes:sort=worker.^junk",
		    "Invalid sort modifier");
	check_error(tr, "hist:keys=worker:vals=bytes,delta:^sort=worker,bytes,delta",
		    "Too many sort fields (Max = 2)");
	check_error(tr, "hist:keys=^nosuch", "Couldn't find field");
	check_error(tr, "hist:keys=worker:vals=^nosuch", "Couldn't find field");
	check_error(tr, "hist:keys=worker.^junk", "Invalid field modifier");
	check_error(tr, "hist:keys=worker:vals=bytes.^log3",
		    "Invalid field modifier");
	check_error(tr, "hist:keys=worker.^percent", "Invalid field modifier");
	check_error(tr, "hist:keys=worker.^buckets=0", "Invalid field modifier");
	check_error(tr, "^hist:keys=worker:nohitcount",
		    "Non-hitcount value is required for 'nohitcount'");
	check_error(tr, "^hist:keys=worker:clear",
		    "Can't clear or continue a nonexistent hist trigger");
	/* refused without a kernel message */
	ASSERT_EQ(set(tr, "work", "hist:vals=bytes"), -EINVAL);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:size=5"), -EINVAL);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker,bytes,delta,name"), -EINVAL);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker if nosuch > 1"), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "parse_error: Field not found"));
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available triggers:\n", 22), 0);
	/* set twice */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker"), -EEXIST);
	ASSERT_EQ(strcmp(err, "hist:hist:work: error: Hist trigger already exists\n  Command: hist:keys=worker\n           ^\n"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker"), 0);
}

/* ---- control ----------------------------------------------------------- */

static void control(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[2048], *h;

	/* a filter; pause, cont and clear of the trigger it matches */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:vals=bytes if bytes > 6"), 0);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount,bytes:sort=hitcount:size=2048 if bytes > 6 [active]\n"), 0);
	emit_basic();
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:vals=bytes:pause if bytes > 6"), 0);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, " [paused]\n"));
	emit_basic(); /* not counted */
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "    Hits: 7\n    Entries: 3\n    Dropped: 0\n"));
	free(h);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:vals=bytes:cont if bytes > 6"), 0);
	emit_basic();
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "{ worker:          3 } hitcount:          4  bytes:       8000\n"));
	free(h);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:vals=bytes:clear if bytes > 6"), 0);
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "#\n\n\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n"));
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:vals=bytes if bytes > 6"), 0);

	/* a table shared by name: a different one of that name is refused */
	ASSERT_EQ(set(tr, "work", "hist:name=byw:keys=worker"), 0);
	ASSERT_EQ(set(tr, "done", "hist:name=byw:keys=worker"), 0);
	ASSERT_EQ(set(tr, "done", "hist:name=byw:keys=worker:vals=worker"),
		  -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "error: Named hist trigger doesn't match existing named trigger (includes variables)\n"));
	work(7, 1, 1, "x", "y");
	trace_done(7);
	trace_done(8);
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "# trigger info: hist:name=byw:keys=worker:vals=hitcount:sort=hitcount:size=2048 [active]\n"));
	ASSERT_NOT_NULL(strstr(h, "{ worker:          8 } hitcount:          1\n{ worker:          7 } hitcount:          2\n"));
	free(h);

	/* disable_hist on done pauses work's hist triggers, enable_hist
	 * on done's own count of 1 lets them go on */
	ASSERT_EQ(set(tr, "done", "disable_hist:hist:work"), 0);
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "disable_hist:hist:work:unlimited\n"));
	trace_done(9);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:name=byw:keys=worker:vals=hitcount:sort=hitcount:size=2048 [paused]\n"), 0);
	ASSERT_EQ(set(tr, "done", "!disable_hist:hist:work"), 0);
	ASSERT_EQ(set(tr, "done", "enable_hist:hist:work:1"), 0);
	trace_done(10);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, " [active]\n"));
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "enable_hist:hist:work:count=0\n"));
	ASSERT_EQ(set(tr, "done", "!enable_hist:hist:work"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:name=byw:keys=worker"), 0);
	ASSERT_EQ(set(tr, "done", "!hist:name=byw:keys=worker"), 0);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available", 11), 0);
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available", 11), 0);
}

/* variables, expressions with the kernel's precedence and constant
 * folding, $references across events read once, and their errors */
static void variables(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[2048], *h;

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:x=16-8-4-2,y=4+6/2-2,z=bytes*2+delta,w=-(bytes)"), 0);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount:x=2,y=5,z=bytes*2+delta,w=-(bytes):sort=hitcount:size=2048 [active]\n"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:x=16-8-4-2,y=4+6/2-2,z=bytes*2+delta,w=-(bytes)"), 0);

	check_error(tr, "hist:keys=worker:x=32+^10*3/20-4",
		    "Too many subexpressions (3 max)");
	check_error(tr, "hist:keys=worker:x=^1+2+3+4+5",
		    "Too many subexpressions (3 max)");
	check_error(tr, "hist:keys=worker:x=-(^1)+2",
		    "Unary minus not supported in sub-expressions");
	check_error(tr, "hist:keys=worker:x=3/^0", "Division by zero");
	check_error(tr, "^hist:keys=worker:x=common_timestamp-common_timestamp.usecs",
		    "Timestamp units in expression don't match");
	check_error(tr, "hist:keys=worker:x=bytes+^$nosuch",
		    "Couldn't find variable");
	/* the caret under the name's first place, as the kernel's err_pos() */
	check_error(tr, "hist:keys=worker:^x=1,x=2", "Variable already defined");
	check_error(tr, "hist:keys=worker:x=^1z", "Expecting numeric literal");
	check_error(tr, "hist:keys=worker:x=^path+1",
		    "String type can not be an operand in expression");

	/* the latency from work to done of one worker: ts0 set by work,
	 * read once by done */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:ts0=common_timestamp.usecs"), 0);
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:vals=$lat,bytes2"), -EINVAL);
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:vals=$lat"), 0);
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount,$lat:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global [active]\n"), 0);
	work(5, 1, 1, "a", "b");
	trace_done(5);
	trace_done(5); /* ts0 was read: not counted */
	trace_done(6); /* no ts0 for worker 6 */
	work(5, 1, 1, "a", "b");
	trace_done(5);
	h = show_hist(tr, "done");
	ASSERT_NOT_NULL(strstr(h, "{ worker:          5 } hitcount:          2  lat: "));
	ASSERT_NOT_NULL(strstr(h, "    Hits: 2\n    Entries: 1\n"));
	free(h);
	/* a table whose variables another reads stays, as the kernel's */
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs"), -EBUSY);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:lat=common_timestamp.usecs-$ts0:vals=$lat"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs"), 0);
}

/* @cmd with '^' where the caret goes: refused with the kernel's entry */
static void check_synth_error(const char *cmd, const char *msg)
{
	char text[512], want[2048];
	const char *caret = strchr(cmd, '^');
	int pos = (int)(caret - cmd);

	snprintf(text, sizeof(text), "%.*s%s", pos, cmd, caret + 1);
	ASSERT_NE(ringtrace_synthetic_event(text, err, sizeof(err)), 0);
	snprintf(want, sizeof(want),
		 "synthetic_events: error: %s\n  Command: %s\n%*s^\n", msg,
		 text, pos + 11, "");
	if (strcmp(err, want)) {
		fprintf(stderr, "want:\n%sgot:\n%s", want, err);
		RBT_FAIL("error of '%s'", text);
	}
}

/* synthetic events: made, shown, written by onmatch() with a latency
 * and a string, counted by a hist trigger of their own, removed */
static void synthetic(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[2048], *h;
	size_t n;

	ASSERT_EQ(ringtrace_synthetic_event("worklat u64 lat; int worker; char name[]",
					    err, sizeof(err)), 0);
	/* the kernel's errors (its trigger-synthetic_event_syntax_errors.tc) */
	check_synth_error("myevent ^chr arg", "Invalid type");
	check_synth_error("myevent ^unsigned arg", "Incomplete type");
	check_synth_error("myevent char ^str]; int v", "Illegal name");
	check_synth_error("^mye-vent char str[]", "Illegal name");
	check_synth_error("myevent char str;^[]", "Invalid field");
	check_synth_error("myevent char ^str[257]", "Invalid array specification");
	check_synth_error("^myevent ; char str[]",
			  "Command must be of the form: <name> field[;field] ...");
	check_synth_error("^myevent",
			  "Command must be of the form: <name> field[;field] ...");
	check_synth_error("^worklat u64 x", "Event already exists");
	ringtrace_show_synthetic_events(buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "worklat\tu64 lat; int worker; char[] name\n"), 0);
	ASSERT_GT(ringtrace_event_id("synthetic", "worklat"), 0);

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:ts0=common_timestamp.usecs"), 0);
	/* a wrong count, a wrong type, an unknown event */
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).worklat($lat,worker)"), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "error: Param count doesn't match synthetic event field count\n"));
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).nosuch($lat)"), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "error: Couldn't find synthetic event\n"));
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.nosuch).worklat($lat,worker,worker)"), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "error: Invalid subsystem or event name\n"));
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).trace(worklat,$lat,worker,worker)"), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "error: Param type doesn't match synthetic event field type\n"));
	/* done has no string field to give: the event made again without
	 * its string (not in use, it goes) */
	ASSERT_EQ(ringtrace_synthetic_event("!worklat", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_synthetic_event("worklat u64 lat; int worker", err,
					    sizeof(err)), 0);
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).trace(worklat,$lat,worker)"), 0);
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(hist.work).trace(worklat,$lat,worker) [active]\n"), 0);
	/* in use: not removed */
	ASSERT_EQ(ringtrace_synthetic_event("!worklat", err, sizeof(err)), -EBUSY);
	ASSERT_EQ(ringtrace_set_trigger(tr, "synthetic", "worklat",
					"hist:keys=worker:vals=lat", err,
					sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "synthetic:worklat", NULL, 0), 0);
	ringtrace_clear(tr);
	work(9, 1, 1, "a", "b");
	trace_done(9);
	trace_done(9); /* ts0 read: no synthetic event */
	n = ringtrace_show_hist(tr, "synthetic", "worklat", NULL, 0);
	h = malloc(n + 1);
	ASSERT_NOT_NULL(h);
	ringtrace_show_hist(tr, "synthetic", "worklat", h, n + 1);
	ASSERT_NOT_NULL(strstr(h, "{ worker:          9 } hitcount:          1  lat: "));
	free(h);
	h = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(h, "worklat: lat="));
	ASSERT_NOT_NULL(strstr(h, " worker=9\n"));
	free(h);
	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).trace(worklat,$lat,worker)"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs"), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!worklat", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_event_id("synthetic", "worklat"), -ENOENT);
	ASSERT_EQ(ringtrace_synthetic_event("!worklat", err, sizeof(err)), -ENOENT);
	ASSERT_EQ(ringtrace_synthetic_events_clear(err, sizeof(err)), 0);
}

/* onmax() and onchange() keep the greatest (last changed) value of a
 * variable per entry with fields of the record that set it */
static void track_actions(void)
{
	struct ringtrace_instance *tr = setup();
	char *h;

	/* the caret under the first "b", as the kernel's err_pos() */
	check_error(tr, "hist:keys=worker:^b=bytes:onmax(b).save(delta)",
		    "For onmax(x) or onchange(x), x must be a variable");
	check_error(tr, "hist:keys=worker:b=bytes:onmax(^$c).save(delta)",
		    "Couldn't find onmax or onchange variable");
	check_error(tr, "hist:keys=worker:b=bytes:onmax($b).^save()",
		    "No params found for save()");
	check_error(tr, "hist:keys=worker:b=bytes:onmax($b).trace(^nosuch)",
		    "Couldn't find synthetic event");
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onmax($b).save(delta,bytes)"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:d=delta:onchange($d).save(bytes)"), 0);
	work(1, 10, 5, "a", "b");
	work(1, 30, 6, "a", "b");
	work(1, 20, 6, "a", "b");
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "# trigger info: hist:keys=worker:vals=hitcount:b=bytes:sort=hitcount:size=2048:onmax($b).save(delta,bytes) [active]\n"));
	ASSERT_NOT_NULL(strstr(h, "{ worker:          1 } hitcount:          3\n\tmax:         30  delta:          6  bytes:         30\n"));
	ASSERT_NOT_NULL(strstr(h, "{ worker:          1 } hitcount:          3\n\tchanged:          6  bytes:         30\n"));
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onmax($b).save(delta,bytes)"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:d=delta:onchange($d).save(bytes)"), 0);

	/* snapshot(): at each new greatest value of all entries, after the
	 * record's commit; the hist file says which */
	ASSERT_EQ(ringtrace_set_event(tr, "hist:work", NULL, 0), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onmax($b).snapshot()"), 0);
	work(2, 50, 0, "a", "b");
	work(3, 70, 0, "a", "b");
	work(2, 60, 0, "a", "b"); /* a new max of worker 2, not of all */
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "\nSnapshot taken (see tracing/snapshot).  Details:\n\ttriggering value { onmax($b) }:         70\ttriggered by event with key: { worker:          3 }\n\nTotals:\n"));
	free(h);
	/* the snapshot at 70 holds the record that took it, as the
	 * kernel's (its record is committed before the swap) */
	h = golden_capture(print_snapshot_cb, tr);
	ASSERT_NOT_NULL(strstr(h, "worker=3 bytes=70 "));
	ASSERT_NULL(strstr(h, "bytes=60 "));
	free(h);
	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onmax($b).snapshot()"), 0);
}

/* the hist of an instance is its own */
static void instances(void)
{
	struct ringtrace_instance *tr = setup(), *in;
	char *h;

	in = ringtrace_instance_create("hist-inst");
	ASSERT_NOT_NULL(in);
	ASSERT_EQ(ringtrace_set_trigger(in, "hist", "work", "hist:keys=worker",
					err, sizeof(err)), 0);
	emit_basic();
	h = show_hist(tr, "work");
	ASSERT_EQ(strcmp(h, ""), 0);
	free(h);
	{
		size_t n = ringtrace_show_hist(in, "hist", "work", NULL, 0);

		h = malloc(n + 1);
		ASSERT_NOT_NULL(h);
		ringtrace_show_hist(in, "hist", "work", h, n + 1);
		ASSERT_NOT_NULL(strstr(h, "    Hits: 8\n    Entries: 4\n"));
		free(h);
	}
	ASSERT_EQ(ringtrace_instance_destroy(in), 0);
}

/* ---- writer threads through the trigger path ------------------------- */

#define EV_THREADS 8
#define EV_PER_THREAD 5000

static void *ev_writer(void *arg)
{
	int id = (int)(uintptr_t)arg, i;

	pin_writer(id);
	for (i = 0; i < EV_PER_THREAD; i++)
		work(id * 1000 + i % 40, 1, 1, "t", "p");
	return NULL;
}

static unsigned long long field_after(const char *h, const char *label)
{
	const char *at = strstr(h, label);

	ASSERT_NOT_NULL(at);
	return strtoull(at + strlen(label), NULL, 10);
}

/* 8 writers on 2 CPUs, 320 keys in a table of 128: hitcounts + Dropped
 * == events written */
static void threads(void)
{
	struct ringtrace_instance *tr = setup();
	pthread_t th[EV_THREADS];
	unsigned long long sum = 0, hits, dropped;
	const char *p;
	char *h;
	int i;

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:vals=bytes:size=128"), 0);
	for (i = 0; i < EV_THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, ev_writer,
					 (void *)(uintptr_t)i), 0);
	for (i = 0; i < EV_THREADS; i++)
		pthread_join(th[i], NULL);
	h = show_hist(tr, "work");
	for (p = h; (p = strstr(p, "hitcount: ")); p++)
		sum += strtoull(p + 10, NULL, 10);
	hits = field_after(h, "    Hits: ");
	dropped = field_after(h, "    Dropped: ");
	ASSERT_EQ_U(field_after(h, "    Entries: "), 128);
	ASSERT_EQ_U(sum, hits);
	ASSERT_EQ_U(hits + dropped, (unsigned long long)EV_THREADS * EV_PER_THREAD);
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:vals=bytes:size=128"), 0);
}

/* Make synthetic event @def and enable it (@event: "synthetic:NAME") */
static void synth_on(struct ringtrace_instance *tr, const char *def,
		     const char *event)
{
	ASSERT_EQ(ringtrace_synthetic_event(def, err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(tr, event, NULL, 0), 0);
}

/* onmax().trace() and onchange().SYNTH() write the synthetic event at
 * each new greatest (changed) value of the variable, per entry */
static void track_trace(void)
{
	struct ringtrace_instance *tr = setup();
	char *h;

	synth_on(tr, "maxb u64 b; int worker", "synthetic:maxb");
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onmax($b).trace(maxb,$b,worker)"), 0);
	ringtrace_clear(tr);
	work(1, 10, 0, "a", "b");
	work(1, 5, 0, "a", "b");
	work(1, 20, 0, "a", "b");
	work(2, 3, 0, "a", "b");
	h = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(h, "maxb: b=10 worker=1\n"));
	ASSERT_NOT_NULL(strstr(h, "maxb: b=20 worker=1\n"));
	ASSERT_NOT_NULL(strstr(h, "maxb: b=3 worker=2\n"));
	ASSERT_NULL(strstr(h, "maxb: b=5 "));
	free(h);
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "{ worker:          1 } hitcount:          3\n\tmax:         20\n"));
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onmax($b).trace(maxb,$b,worker)"), 0);

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onchange($b).maxb($b,worker)"), 0);
	ringtrace_clear(tr);
	work(4, 7, 0, "a", "b");
	work(4, 7, 0, "a", "b");
	work(4, 8, 0, "a", "b");
	h = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(h, "maxb: b=7 worker=4\n"));
	ASSERT_NOT_NULL(strstr(h, "maxb: b=8 worker=4\n"));
	ASSERT_NULL(strstr(strstr(h, "maxb: b=7 worker=4\n") + 1,
			   "maxb: b=7 worker=4\n"));
	free(h);
	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onchange($b).maxb($b,worker)"), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!maxb", err, sizeof(err)), 0);
}

/* save() of a string field keeps its text with the entry's greatest
 * value, shown as the kernel's ("  name: %-32s") */
static void track_save_string(void)
{
	struct ringtrace_instance *tr = setup();
	char want[256], *h;

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onmax($b).save(name,bytes)"), 0);
	work(3, 10, 0, "first", "p");
	work(3, 30, 0, "second", "p");
	work(3, 20, 0, "third", "p");
	h = show_hist(tr, "work");
	snprintf(want, sizeof(want),
		 "{ worker:          3 } hitcount:          3\n\tmax:         30  name: %-32s  bytes:         30\n",
		 "second");
	ASSERT_NOT_NULL(strstr(h, want));
	free(h);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onmax($b).save(name,bytes)"), 0);
}

/* A string variable (NAME=STRING_FIELD) keeps the field's text per
 * entry: read once by another event's trigger or by its own, it is a
 * synthetic event's char[] parameter; it is no operand, value or
 * onmax() variable */
static void string_variables(void)
{
	struct ringtrace_instance *tr = setup();
	char *h;

	synth_on(tr, "namelat u64 lat; char name[]", "synthetic:namelat");
	ASSERT_EQ(ringtrace_set_trigger(tr, "synthetic", "namelat",
					"hist:keys=name", err, sizeof(err)), 0);
	check_error(tr, "hist:keys=worker:nm=name:x=^$nm+1",
		    "String type can not be an operand in expression");
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:nm=name:vals=$nm"), -EINVAL);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:nm=name:onmax($nm).save(bytes)"), -EINVAL);

	/* another event's: work sets it, done reads it */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:nm=name:ts0=common_timestamp.usecs"), 0);
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).trace(namelat,$lat,$nm)"), 0);
	ringtrace_clear(tr);
	work(8, 1, 1, "alpha", "p");
	work(9, 1, 1, "beta", "p");
	trace_done(8);
	trace_done(9);
	trace_done(9); /* read once: no second event */
	h = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(h, " name=alpha"));
	ASSERT_NOT_NULL(strstr(h, " name=beta"));
	ASSERT_NULL(strstr(strstr(h, " name=beta") + 1, " name=beta"));
	free(h);
	h = malloc(8192);
	ASSERT_NOT_NULL(h);
	ringtrace_show_hist(tr, "synthetic", "namelat", h, 8192);
	ASSERT_NOT_NULL(strstr(h, "{ name: alpha"));
	ASSERT_NOT_NULL(strstr(h, "{ name: beta"));
	free(h);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).trace(namelat,$lat,$nm)"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:nm=name:ts0=common_timestamp.usecs"), 0);

	/* its own trigger's, this record's text */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:nm=name:b=bytes:onmax($b).trace(namelat,$b,$nm)"), 0);
	ringtrace_clear(tr);
	work(3, 5, 0, "gamma", "p");
	work(3, 2, 0, "delta", "p");
	h = golden_capture(print_trace_cb, tr);
	ASSERT_NOT_NULL(strstr(h, "namelat: lat=5 name=gamma"));
	ASSERT_NULL(strstr(h, "name=delta"));
	free(h);
	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:nm=name:b=bytes:onmax($b).trace(namelat,$b,$nm)"), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "synthetic", "namelat",
					"!hist:keys=name", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!namelat", err, sizeof(err)), 0);
}

/* SYS.EVENT.$VAR names the event whose variable is read: the same
 * variable as $VAR where one event has it, refused where the event has
 * none or is not there */
static void qualified_refs(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[2048], *h;

	ASSERT_EQ(set(tr, "work", "hist:keys=worker:ts0=common_timestamp.usecs"), 0);
	check_error(tr, "hist:keys=worker:lat=common_timestamp.usecs-^hist.done.$ts0",
		    "Couldn't find variable");
	check_error(tr, "hist:keys=worker:lat=common_timestamp.usecs-^hist.nosuch.$ts0",
		    "Couldn't find variable");
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:lat=common_timestamp.usecs-hist.work.$ts0:vals=$lat"), 0);
	ringtrace_show_trigger(tr, "hist", "done", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount,$lat:lat=common_timestamp.usecs-hist.work.$ts0:sort=hitcount:size=2048:clock=global [active]\n"), 0);
	/* in use by done: work's trigger stays */
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs"), -EBUSY);
	work(7, 1, 1, "a", "b");
	trace_done(7);
	trace_done(7); /* ts0 was read: not counted */
	h = show_hist(tr, "done");
	ASSERT_NOT_NULL(strstr(h, "{ worker:          7 } hitcount:          1  lat: "));
	free(h);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:lat=common_timestamp.usecs-hist.work.$ts0:vals=$lat"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs"), 0);
}

/* The trigger file of event @ev (hist system) */
static void show_triggers(struct ringtrace_instance *tr, const char *ev,
			  char *buf, size_t len)
{
	ringtrace_show_trigger(tr, "hist", ev, buf, len);
}

/*
 * Field variables: an onmatch() parameter that is a field of the
 * matching event (SYS.EVENT.FIELD, or a plain name the trigger's event
 * has not) is kept by a variable "synthetic_FIELD" of a hist trigger
 * made on that event with the keys and filter of its compatible one,
 * read once by key as any variable, and removed with the trigger that
 * made it; a field of the trigger's own event (FIELD, or SYS.EVENT.FIELD
 * of its own) is read from its record.
 */
static void field_variables(void)
{
	static const char fv_line[] =
		"hist:keys=worker:lat=common_timestamp.usecs-$ts0:onmatch(hist.work).fvlat($lat,hist.work.bytes,delta,hist.work.name,hist.done.worker)";
	struct ringtrace_instance *tr = setup();
	char buf[4096], line[600], *h, *at;

	synth_on(tr, "fvone unsigned int bytes", "synthetic:fvone");
	synth_on(tr, "fvlat u64 lat; unsigned int bytes; long delta; char name[16]; int worker",
		 "synthetic:fvlat");
	/* no hist trigger on work whose keys are done's */
	ASSERT_EQ(set(tr, "work", "hist:keys=name"), 0);
	check_error_on(tr, "done", "hist:keys=worker:onmatch(hist.work).fvone(^hist.work.bytes)",
		       "Matching event histogram not found");
	ASSERT_EQ(set(tr, "work", "!hist:keys=name"), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:ts0=common_timestamp.usecs if bytes < 1000"), 0);
	/* no such field: nothing is left on work */
	check_error_on(tr, "done", "hist:keys=worker:onmatch(hist.work).fvone(^hist.work.nosuch)",
		       "Couldn't create histogram for field");
	show_triggers(tr, "work", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if bytes < 1000 [active]\n"), 0);

	ASSERT_EQ(set(tr, "done", fv_line), 0);
	show_triggers(tr, "work", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "hist:keys=worker:vals=hitcount:synthetic_bytes=bytes:sort=hitcount:size=2048 if bytes < 1000 [active]\n"));
	ASSERT_NOT_NULL(strstr(buf, "hist:keys=worker:vals=hitcount:synthetic_delta=delta:sort=hitcount:size=2048 if bytes < 1000 [active]\n"));
	ASSERT_NOT_NULL(strstr(buf, "hist:keys=worker:vals=hitcount:synthetic_name=name:sort=hitcount:size=2048 if bytes < 1000 [active]\n"));
	h = show_hist(tr, "work");
	ASSERT_NOT_NULL(strstr(h, "synthetic_bytes=bytes"));
	free(h);
	/* in use by done's trigger */
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:synthetic_bytes=bytes if bytes < 1000"), -EBUSY);

	ringtrace_clear(tr);
	work(5, 100, -7, "five", "p");
	work(6, 5000, 3, "six", "p"); /* filtered out on work */
	trace_done(5);
	trace_done(6);
	trace_done(5); /* read once: no second event */
	h = golden_capture(print_trace_cb, tr);
	at = strstr(h, "fvlat: lat=");
	ASSERT_NOT_NULL(at);
	ASSERT_NOT_NULL(strstr(at, " bytes=100 delta=-7 name=five worker=5\n"));
	ASSERT_NULL(strstr(at + 1, "fvlat: "));
	free(h);

	/* the same field of another trigger's: its variable is shared */
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:vals=hitcount:onmatch(hist.work).fvone(hist.work.bytes)"), 0);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:vals=hitcount:onmatch(hist.work).fvone(hist.work.bytes)"), 0);
	show_triggers(tr, "work", buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "synthetic_bytes=bytes"));

	/* removed with the trigger that made them */
	ringtrace_clear_events(tr);
	snprintf(line, sizeof(line), "!%s", fv_line);
	ASSERT_EQ(set(tr, "done", line), 0);
	show_triggers(tr, "work", buf, sizeof(buf));
	ASSERT_NULL(strstr(buf, "synthetic_"));
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:ts0=common_timestamp.usecs if bytes < 1000"), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!fvlat", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!fvone", err, sizeof(err)), 0);
}

/* Writes a work record from a frame of its own, which the stacks show */
void stack_writer(int worker, unsigned int bytes);
__attribute__((noinline)) void stack_writer(int worker, unsigned int bytes)
{
	work(worker, bytes, 0, "s", "p");
	__asm__ volatile("");
}

/* The trace's text of the stk record of @worker, at least one frame of
 * it the writer's */
static void check_stack_record(struct ringtrace_instance *tr, int worker)
{
	char want[64], *h = golden_capture(print_trace_cb, tr), *at;

	snprintf(want, sizeof(want), "stk: worker=%d stack=STACK:\n=> ",
		 worker);
	at = strstr(h, want);
	if (!at)
		fprintf(stderr, "%s", h);
	ASSERT_NOT_NULL(at);
	ASSERT_NOT_NULL(strstr(at, "\n=> stack_writer+0x"));
	free(h);
}

/*
 * Stack fields of synthetic events ("unsigned long[] stack"): filled
 * from common_stacktrace (the stack of the record that fires the
 * action) or from a stack variable (st=common_stacktrace, another
 * event's, or a copy s=$st), printed as the kernel's: "NAME=STACK:"
 * then one "=> function+off/size" line a frame
 */
static void stack_fields(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[4096];

	synth_on(tr, "stk int worker; unsigned long[] stack", "synthetic:stk");
	ringtrace_show_synthetic_events(buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "stk\tint worker; unsigned long[] stack\n"));
	check_error(tr, "hist:keys=worker:b=bytes:onmax($b).trace(stk,worker,^delta)",
		    "Param type doesn't match synthetic event field type");
	check_error(tr, "hist:keys=worker:b=bytes:onmax($b).trace(stk,^common_stacktrace,delta)",
		    "Param type doesn't match synthetic event field type");
	check_error(tr, "hist:keys=worker:st=common_stacktrace:x=^$st+1",
		    "String type can not be an operand in expression");

	/* onmax(): this record's stack */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:b=bytes:onmax($b).trace(stk,worker,common_stacktrace)"), 0);
	ringtrace_clear(tr);
	stack_writer(2, 10);
	check_stack_record(tr, 2);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:b=bytes:onmax($b).trace(stk,worker,common_stacktrace)"), 0);

	/* onmatch(): work's stack variable, read by done, and a copy */
	ASSERT_EQ(set(tr, "work", "hist:keys=worker:st=common_stacktrace"), 0);
	ASSERT_EQ(set(tr, "done", "hist:keys=worker:s=$st:onmatch(hist.work).stk(worker,$s)"), 0);
	ringtrace_show_trigger(tr, "hist", "work", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "hist:keys=worker:vals=hitcount:st=common_stacktrace:sort=hitcount:size=2048 [active]\n"), 0);
	ringtrace_clear(tr);
	stack_writer(3, 1);
	trace_done(3);
	check_stack_record(tr, 3);
	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "done", "!hist:keys=worker:s=$st:onmatch(hist.work).stk(worker,$s)"), 0);
	ASSERT_EQ(set(tr, "work", "!hist:keys=worker:st=common_stacktrace"), 0);
	ASSERT_EQ(ringtrace_synthetic_event("!stk", err, sizeof(err)), 0);
}

/* The number after "common_timestamp: " in @h, the key's */
static uint64_t hist_ts_key(const char *h)
{
	const char *at = strstr(h, "{ common_timestamp: ");

	ASSERT_NOT_NULL(at);
	return strtoull(at + 20, NULL, 10);
}

/* common_timestamp is the record's stamp in the buffer (not the time the
 * trigger ran): for a record written whole (done, fixed size) and one
 * assigned field by field (work, with strings); a variable of it and
 * .usecs too */
static void timestamp_record(void)
{
	struct ringtrace_instance *tr = setup();
	struct ringbuf *rb = ringtrace_buffer(tr);
	uint64_t ts = 0;
	char *h;

	ASSERT_NOT_NULL(rb);
	ASSERT_EQ(ringtrace_set_event(tr, "hist:work", NULL, 0), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "hist:done", NULL, 0), 0);
	ASSERT_EQ(set(tr, "work", "hist:keys=common_timestamp"), 0);
	ASSERT_EQ(set(tr, "done", "hist:keys=common_timestamp:t=common_timestamp.usecs"), 0);

	ringtrace_clear(tr);
	work(1, 1, 1, "a", "b");
	ASSERT_NOT_NULL(ringbuf_consume_next(rb, NULL, &ts, NULL));
	ASSERT_NULL(ringbuf_consume_next(rb, NULL, NULL, NULL));
	h = show_hist(tr, "work");
	ASSERT_EQ_U(hist_ts_key(h), ts);
	free(h);

	ringtrace_clear(tr);
	trace_done(4);
	ASSERT_NOT_NULL(ringbuf_consume_next(rb, NULL, &ts, NULL));
	ASSERT_NULL(ringbuf_consume_next(rb, NULL, NULL, NULL));
	h = show_hist(tr, "done");
	ASSERT_EQ_U(hist_ts_key(h), ts);
	free(h);

	ringtrace_clear_events(tr);
	ASSERT_EQ(set(tr, "work", "!hist:keys=common_timestamp"), 0);
	ASSERT_EQ(set(tr, "done", "!hist:keys=common_timestamp:t=common_timestamp.usecs"), 0);
}

static const struct rbt_case cases[] = {
	RBT_CASE(map_threads), RBT_CASE(map_full), RBT_CASE(map_thread_slots),
	RBT_CASE(map_put_back),
	RBT_CASE(map_signal),	 RBT_CASE(text_basic), RBT_CASE(text_modifiers),
	RBT_CASE(text_run_keys), RBT_CASE(errors),     RBT_CASE(control),
	RBT_CASE(instances),	 RBT_CASE(threads),	  RBT_CASE(variables),
	RBT_CASE(synthetic),	 RBT_CASE(track_actions),
	RBT_CASE(timestamp_record), RBT_CASE(track_trace),
	RBT_CASE(qualified_refs), RBT_CASE(track_save_string),
	RBT_CASE(string_variables), RBT_CASE(field_variables),
	RBT_CASE(stack_fields),
};
RBT_MAIN(cases)
