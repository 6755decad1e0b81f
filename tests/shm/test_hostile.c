/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A hostile writer: the process that made a shared buffer turns against
 * the readers attached to it (hostile.c does the damage, from another
 * process). The reader must never crash, never block for good, and say
 * what went wrong (ringbuf_view_error()).
 *
 *  metaoff	cpu_meta_off, which attach checked, rewritten and layout_gen
 *		bumped: the view keeps the offsets it derived and reads on
 *  geom	an absurd geometry announced by layout_gen: refused, the
 *		view reads on where it was
 *  randomhdr	random bytes over the header, cpu states and locks, again
 *		and again, each announced by layout_gen: the reader paths
 *		return (ASan/UBSan builds: no report)
 *  trunc4096	the file cut to 4096 bytes under the view: no SIGBUS; the
 *		view reads nothing more, ringbuf_view_error() and
 *		ringbuf_wait() say -EIO
 *  trunc0	the same, cut to 0 bytes
 *  truncloop	cut and grown back every millisecond while the view reads
 *		(the payloads are the file's: only their lengths checked)
 *  lockhold	a live process holds every reader lock: a consume returns
 *		nothing (EAGAIN), a wait ends at a signal (-EINTR); once the
 *		holder is gone everything is read
 *  lockgarbage	garbage over the lock words: everything is read
 *  copyzero	the record a consume checked is rewritten before it is
 *		copied out (RINGBUF_TP_READER_COPY): zeros, as a cut file
 *		grows back; the consume returns nothing (EAGAIN), the next
 *		finds the page damaged; every event read is whole
 *  copyhuge	the same with a length word of 1 GiB: never copied
 *  copypad	the same with the record turned into padding
 *  pagezero	zeros at ringbuf_read_page()'s record-by-record copy (a
 *		page read in part): the page gets whole records only (the
 *		harness's decoder reads it)
 *  pagehuge	the same with a length word of 1 GiB
 *  iterzero	zeros over the record at the iterator's copy, its header
 *		copied and checked, the rest not yet: the event shown is
 *		the record as checked, with the length it was copied by
 *  iterhuge	the same with a length word of 1 GiB
 *
 * Every file this program makes is named "rbtest-<pid>-..." and removed
 * at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostile.h"
#include "internal.h"
#include "rbdecode.h"
#include "shm_util.h"
#include "test.h"
#include "tu.h"

#define NR_EVENTS 200u

/* A named buffer of two cpu buffers with NR_EVENTS events on cpu 0, and
 * a view of it; the path in @path. */
static struct ringbuf *make(const char *sfx, char *path, size_t n,
			    struct ringbuf **view)
{
	char name[128];
	RINGBUF_OPTS(o, .size = TU_PAGES(16), .nr_cpus = 2,
		     .spare_buffers = RINGBUF_NO_SPARES, .path = name);
	struct ringbuf *rb;

	name_of(name, sizeof(name), sfx);
	rb = ringbuf_create(&o);
	if (!rb)
		RBT_FAIL("ringbuf_create: %s", strerror(errno));
	snprintf(path, n, "%s", ringbuf_path(rb));
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < NR_EVENTS; i++)
		tu_write_ok(rb, i, 40);
	*view = ringbuf_attach(name, 0);
	if (!*view)
		RBT_FAIL("ringbuf_attach: %s", strerror(errno));
	return rb;
}

/* hostile_apply() in a child process, which exits when done (or, with
 * @stay, sends a byte on @ready and lives until killed). */
static pid_t hostile(const char *path, const char *mode, unsigned int ms,
		     bool stay, int ready)
{
	pid_t pid = fork_ok();

	if (pid == 0) {
		if (hostile_apply(path, mode, ms, 7))
			_exit(2);
		if (!stay)
			_exit(0);
		write_full(ready, "H", 1, "hostile ready");
		for (;;)
			pause();
	}
	if (!stay)
		expect_exit0(wait_child(pid, 20, "hostile writer"), "hostile");
	return pid;
}

/* Consume everything of the view; the events read. With @payloads, each
 * event's bytes are checked; without (the file changes under the view),
 * only that its length fits a page. */
static uint32_t drain(struct ringbuf *v, bool payloads)
{
	struct ringbuf_event *ev;
	uint32_t n = 0;
	int cpu;

	while ((ev = ringbuf_consume_next(v, &cpu, NULL, NULL))) {
		ASSERT_TRUE(ringbuf_event_length(ev) <= TU_PAGE_DATA);
		if (payloads && ringbuf_event_length(ev) >= 40)
			tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
				 tu_seq(ringbuf_event_data(ev)), 40);
		n++;
	}
	return n;
}

/* Every reader path of the view once; they must return. @payloads as
 * drain(). */
static void look(struct ringbuf *v, bool payloads)
{
	char page[TU_PAGE_DATA + 64];

	for (int c = 0; c < ringbuf_nr_cpus(v); c++) {
		struct ringbuf_iter *it = ringbuf_read_start(v, c);

		while (it && ringbuf_iter_peek(it, NULL))
			ringbuf_iter_advance(it);
		ringbuf_read_finish(it);
		(void)ringbuf_entries_cpu(v, c);
		(void)ringbuf_oldest_event_ts(v, c);
		(void)ringbuf_empty_cpu(v, c);
		(void)ringbuf_read_page(v, page, sizeof(page), c, 0);
	}
	(void)drain(v, payloads);
	(void)ringbuf_wait(v, RINGBUF_ALL_CPUS, 0, 0);
}

static void metaoff(void)
{
	char path[4096];
	struct ringbuf *v, *rb = make("metaoff", path, sizeof(path), &v);

	hostile(path, "metaoff", 0, false, -1);
	ASSERT_EQ(drain(v, true), NR_EVENTS);
	ASSERT_EQ(ringbuf_view_error(v), 0);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void geom(void)
{
	char path[4096];
	struct ringbuf *v, *rb = make("geom", path, sizeof(path), &v);

	hostile(path, "geom", 0, false, -1);
	ASSERT_EQ(drain(v, true), NR_EVENTS);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void randomhdr(void)
{
	char path[4096];
	struct ringbuf *v, *rb = make("randomhdr", path, sizeof(path), &v);

	for (unsigned int i = 0; i < 50; i++) {
		pid_t pid = fork_ok();

		if (pid == 0)
			_exit(hostile_apply(path, "randomhdr", 0, i + 1) ? 2 : 0);
		expect_exit0(wait_child(pid, 20, "hostile writer"), "hostile");
		look(v, true);
	}
	ringbuf_free(v);
	/* the creator's own state is garbage too: only unmapped */
	ringbuf_free(rb);
}

static void trunc_case(const char *mode)
{
	char path[4096];
	struct ringbuf *v, *rb = make(mode, path, sizeof(path), &v);
	int cpu;

	hostile(path, mode, 0, false, -1);
	ASSERT_TRUE(ringbuf_consume_next(v, &cpu, NULL, NULL) == NULL);
	ASSERT_EQ(ringbuf_view_error(v), -EIO);
	ASSERT_EQ(ringbuf_wait(v, RINGBUF_ALL_CPUS, 0, 1000), -EIO);
	look(v, true);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void trunc4096(void)
{
	trunc_case("trunc4096");
}

static void trunc0(void)
{
	trunc_case("trunc0");
}

static void truncloop(void)
{
	char path[4096];
	struct ringbuf *v, *rb = make("truncloop", path, sizeof(path), &v);
	pid_t pid = fork_ok();
	int st;

	if (pid == 0)
		_exit(hostile_apply(path, "truncloop", 300, 0) ? 2 : 0);
	/* read until the writer is done: the view may fault or not */
	while (waitpid(pid, &st, WNOHANG) == 0)
		look(v, false);
	expect_exit0(st, "hostile");
	/* what a cut discarded grows back as zeros: the view may also
	 * have found its pages inconsistent */
	ASSERT_TRUE(ringbuf_view_error(v) == 0 ||
		    ringbuf_view_error(v) == -EIO ||
		    ringbuf_view_error(v) == -EBADMSG);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void on_usr2(int sig)
{
	(void)sig;
}

/* A child that sends us SIGUSR2 every 100 ms until it is killed: a
 * signal that comes while the reader is not asleep is not seen by it,
 * as by any program's blocking call, so one is not enough. */
static pid_t pinger(void)
{
	pid_t parent = getpid(), pid = fork_ok();

	if (pid == 0) {
		for (;;) {
			usleep(100000);
			if (kill(parent, SIGUSR2))
				_exit(0);
		}
	}
	return pid;
}

static void lockhold(void)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	char path[4096], c;
	struct ringbuf *v, *rb = make("lockhold", path, sizeof(path), &v);
	int ready[2], st;
	pid_t pid, ping;

	pipe_ok(ready);
	pid = hostile(path, "lockhold", 0, true, ready[1]);
	read_full(ready[0], &c, 1, 20000, "hostile ready");
	/* a consumer gives up: busy, not blocked */
	errno = 0;
	ASSERT_TRUE(ringbuf_consume(v, 0, NULL, NULL) == NULL);
	ASSERT_EQ(errno, EAGAIN);
	ASSERT_TRUE(ringbuf_consume_next(v, NULL, NULL, NULL) == NULL);
	/* a waiter ends at a signal (its 5 s timeout is the failure) */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	ping = pinger();
	ASSERT_EQ(ringbuf_wait(v, RINGBUF_ALL_CPUS, 0, 5000), -EINTR);
	kill(ping, SIGKILL);
	wait_child(ping, 10, "pinger");
	/* looking needs no lock: the iterator reads on */
	look(v, true);
	/* the holder dies: its lock is taken over */
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	st = wait_child(pid, 10, "hostile writer");
	ASSERT_TRUE(WIFSIGNALED(st));
	ASSERT_EQ(drain(v, true), NR_EVENTS);
	ASSERT_EQ(ringbuf_view_error(v), 0);
	close(ready[0]);
	close(ready[1]);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void lockgarbage(void)
{
	char path[4096];
	struct ringbuf *v, *rb = make("lockgarbage", path, sizeof(path), &v);

	hostile(path, "lockgarbage", 0, false, -1);
	ASSERT_EQ(drain(v, true), NR_EVENTS);
	ASSERT_EQ(ringbuf_view_error(v), 0);
	ringbuf_free(v);
	ringbuf_free(rb);
}

/* What copy_hook() writes over the record under copy (two words: the
 * header and the length word), and into which file. */
static struct {
	int fd;
	uint32_t words[2];
	int hits;
} copy_race;

/* At a reader's copy of a record it checked: rewrite the record, through
 * a descriptor of our own, as another process would. */
static void copy_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		      void *arg)
{
	const unsigned char *rec = ringbuf_test_copy_src;

	(void)cpu;
	(void)arg;
	if (tp != RINGBUF_TP_READER_COPY || copy_race.hits++)
		return;
	if (pwrite(copy_race.fd, copy_race.words, sizeof(copy_race.words),
		   (off_t)(rec - (const unsigned char *)rb->map)) !=
	    (ssize_t)sizeof(copy_race.words))
		RBT_FAIL("pwrite: %s", strerror(errno));
}

/* copy_hook() armed: @header and @length to go over the record it meets
 * in the file at @path. */
static void copy_race_arm(const char *path, uint32_t header, uint32_t length)
{
	copy_race.fd = open(path, O_RDWR | O_CLOEXEC);
	if (copy_race.fd < 0)
		RBT_FAIL("open %s: %s", path, strerror(errno));
	copy_race.words[0] = header;
	copy_race.words[1] = length;
	copy_race.hits = 0;
}

/* The end of a case of copy_hook(): the view @v and the buffer @rb. */
static void copy_race_done(struct ringbuf *v, struct ringbuf *rb)
{
	close(copy_race.fd);
	ringbuf_free(v);
	ringbuf_free(rb);
}

static void copy_case(const char *sfx, uint32_t header, uint32_t length)
{
	char path[4096];
	struct ringbuf *v, *rb = make(sfx, path, sizeof(path), &v);
	struct ringbuf_event *ev;
	uint32_t n = 0;
	int cpu;

	copy_race_arm(path, header, length);
	ringbuf_test_set_hook(copy_hook, NULL);
	/* the first record changed after its check: not handed out */
	errno = 0;
	ev = ringbuf_consume_next(v, &cpu, NULL, NULL);
	ASSERT_EQ(copy_race.hits, 1);
	ASSERT_TRUE(ev == NULL);
	ASSERT_EQ(errno, EAGAIN);
	/* the next read checks it again and finds the page damaged: the
	 * view is not read any more (-EBADMSG), or reads on past it;
	 * whatever is read is whole */
	while ((ev = ringbuf_consume_next(v, &cpu, NULL, NULL)) ||
	       (errno == EAGAIN && !ringbuf_view_error(v))) {
		if (!ev)
			continue;
		ASSERT_EQ(ringbuf_event_length(ev), 40u);
		tu_check(ringbuf_event_data(ev), 40,
			 tu_seq(ringbuf_event_data(ev)), 40);
		ASSERT_TRUE(++n < NR_EVENTS);
	}
	ringbuf_test_set_hook(NULL, NULL);
	ASSERT_TRUE(ringbuf_view_error(v) == 0 ||
		    ringbuf_view_error(v) == -EBADMSG);
	copy_race_done(v, rb);
}

static void copyzero(void)
{
	copy_case("copyzero", 0, 0);
}

static void copyhuge(void)
{
	/* type_len 0: the length is the second word */
	copy_case("copyhuge", 0, 1u << 30);
}

static void copypad(void)
{
	copy_case("copypad", RINGBUF_TYPE_PADDING, 36);
}

/* The same at ringbuf_read_page()'s record-by-record copy (a page read
 * in part): what the page gets is whole records, within its commit. */
static void page_case(const char *sfx, uint32_t header, uint32_t length)
{
	char path[4096];
	struct ringbuf *v, *rb = make(sfx, path, sizeof(path), &v);
	union {
		struct ringbuf_data_page p;
		unsigned char b[TU_PAGE_DATA + 64];
	} page;
	static struct rbd_page dec;
	char err[256];
	int cpu, ret;

	copy_race_arm(path, header, length);
	/* the page read in part: the record-by-record path */
	ASSERT_TRUE(ringbuf_consume_next(v, &cpu, NULL, NULL) != NULL);
	ringbuf_test_set_hook(copy_hook, NULL);
	memset(&page, 0xa5, sizeof(page));
	ret = ringbuf_read_page(v, &page, sizeof(page), 0, 0);
	ringbuf_test_set_hook(NULL, NULL);
	ASSERT_EQ(copy_race.hits, 1);
	ASSERT_TRUE(ret == 0 || ret == -EAGAIN || ret == -ENODATA);
	/* the page as the harness's own decoder reads it: well formed,
	 * and every event in it one of ours, whole */
	if (!ret) {
		if (rbd_decode(&page, ringbuf_subbuf_size(v), true, &dec, err,
			       sizeof(err)))
			RBT_FAIL("the page does not decode: %s", err);
		for (unsigned int i = 0; i < dec.nrec; i++) {
			const struct rbd_rec *r = &dec.recs[i];

			if (r->kind != RBD_DATA)
				continue;
			ASSERT_EQ(r->len, 40u);
			tu_check(r->payload, 40, tu_seq(r->payload), 40);
		}
	}
	copy_race_done(v, rb);
}

static void pagezero(void)
{
	page_case("pagezero", 0, 0);
}

static void pagehuge(void)
{
	page_case("pagehuge", 0, 1u << 30);
}

/* The same at the iterator's copy (its header copied and checked, the
 * rest not yet): the record shown says the length it was copied by. */
static void iter_case(const char *sfx, uint32_t header, uint32_t length)
{
	char path[4096];
	struct ringbuf *v, *rb = make(sfx, path, sizeof(path), &v);
	struct ringbuf_iter *it;
	struct ringbuf_event *ev;

	copy_race_arm(path, header, length);
	it = ringbuf_read_start(v, 0);
	ASSERT_TRUE(it != NULL);
	ringbuf_test_set_hook(copy_hook, NULL);
	ev = ringbuf_iter_peek(it, NULL);
	ringbuf_test_set_hook(NULL, NULL);
	ASSERT_EQ(copy_race.hits, 1);
	ASSERT_TRUE(ev != NULL);
	/* copied before the rewrite: the first event, whole */
	ASSERT_EQ(ringbuf_event_length(ev), 40u);
	ASSERT_EQ(tu_seq(ringbuf_event_data(ev)), 0u);
	tu_check(ringbuf_event_data(ev), 40, 0, 40);
	ringbuf_read_finish(it);
	copy_race_done(v, rb);
}

static void iterzero(void)
{
	iter_case("iterzero", 0, 0);
}

static void iterhuge(void)
{
	iter_case("iterhuge", 0, 1u << 30);
}

static const struct rbt_case cases[] = {
	RBT_CASE(metaoff),   RBT_CASE(geom),	  RBT_CASE(randomhdr),
	RBT_CASE(trunc4096), RBT_CASE(trunc0),	  RBT_CASE(truncloop),
	RBT_CASE(lockhold),  RBT_CASE(lockgarbage), RBT_CASE(copyzero),
	RBT_CASE(copyhuge),  RBT_CASE(copypad),	    RBT_CASE(pagezero),
	RBT_CASE(pagehuge),  RBT_CASE(iterzero),	  RBT_CASE(iterhuge),
};

int main(int argc, char **argv)
{
	return shm_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]),
			     shm_clean_all);
}
