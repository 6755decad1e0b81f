/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Buffers shared between processes: a buffer created in a named file
 * (opts.path) or a memfd (RINGBUF_FL_MEMFD), attached by a reader in
 * another process (ringbuf_attach, ringbuf_attach_fd).
 *
 *  named_file		where the file is made, its mode and owner, O_EXCL,
 *			$XDG_RUNTIME_DIR, symbolic links refused, removed by
 *			ringbuf_free
 *  memfd		ringbuf_fd / ringbuf_path on memfd and anonymous
 *  cross_process_*	forked readers attach by name and read (consume_next
 *			or read_page; two_readers: two processes at once)
 *			while two writer threads of the creator write;
 *			payloads, per-writer order and counter conservation
 *  memfd_child		a forked child attaches the inherited memfd and reads
 *			everything; its inherited struct ringbuf never writes
 *  killed_reader	a reader killed inside the reader lock (mid-swap)
 *			wedges nothing: a reader that tried the lock while
 *			it was held (and got nothing, after a bounded
 *			wait) or a later one reads everything, five times
 *  killed_reader_steps	the same, killed after each store of its swap and
 *			read (single-stepped under ptrace)
 *  attach_head_moving	attaching while writers push the head past the
 *			check of the ring (stopped in it): the attach
 *			succeeds and reads what was not overwritten
 *  attach_errors	missing file, symlink, garbage, truncated and
 *			patched copies of a real file, non-ringbuf fds;
 *			corrupt files that attach must read without a crash
 *			or a hang
 *  corrupt_write_index	a write index past the page: reads end (bounded)
 *  bad_record_page	a malformed record in a whole page another process
 *			wrote: read_page skips that page (it checks the
 *			copy it makes), counts its records as lost on the
 *			next page it returns, and returns every other page;
 *			read_page_count counts each page's data records
 *			(there and in a buffer of the process's own)
 *  attached_view_refuses	writes/resize/reset/swap refused on a view
 *  resize_cpu_shared	the creator resizes one cpu buffer of a named file:
 *			the other keeps its events, the resized one counts
 *			its unread ones as overrun; a view in this process
 *			and one in a child attached before follow it
 *  resize_cpu_writer	the same, many times, while a writer thread fills
 *			the cpu buffer and a child consumes it: what was
 *			written is what was read plus the overrun
 *  foreign_file		another user's file: refused, or read-only with
 *			RINGBUF_ATTACH_FOREIGN (iterator and counters only)
 *
 * Every file this program makes is named "rbtest-<pid>-..." (pid of the
 * program). main() runs the cases in a child process group; when it ends,
 * the group is killed (stray readers) and every such file is removed,
 * whatever way the case ended.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#if defined(__x86_64__)
#include <sys/user.h>
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rbdecode.h"
#include "test.h"
#include "shm_util.h"
#include "tu.h"

/* ------------------------------------------------------------------ */
/* Names, clean-up, time limits                                        */








/* "/tmp/rbtest-<pid>-<sfx>" */
static void tmp_path_of(char *buf, size_t n, const char *sfx)
{
	snprintf(buf, n, "/tmp/%s%s", g_prefix, sfx);
}

static void clean_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096];
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (depth == 0 && strncmp(e->d_name, g_prefix,
					  strlen(g_prefix)) != 0)
			continue;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth == 0) {
				clean_dir(p, 1);
				rmdir(p);
			}
			continue;
		}
		unlink(p);
	}
	closedir(d);
}

static void clean_all(void)
{
	clean_dir("/dev/shm", 0);
	clean_dir("/tmp", 0);
	if (strcmp(shm_dir(), "/dev/shm") != 0)
		clean_dir(shm_dir(), 0);
}


/* ------------------------------------------------------------------ */
/* Process helpers                                                     */







static struct ringbuf *create_named(const char *name, size_t pages,
				    unsigned int flags, int nr_cpus,
				    int spares)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(pages), .flags = flags,
		     .nr_cpus = nr_cpus, .spare_buffers = spares,
		     .path = name);
	struct ringbuf *rb = ringbuf_create(&o);

	if (!rb)
		RBT_FAIL("ringbuf_create(path %s) failed: %s", name,
			 strerror(errno));
	return rb;
}

static struct ringbuf *attach_ok(const char *path, unsigned int flags)
{
	struct ringbuf *v = ringbuf_attach(path, flags);

	if (!v)
		RBT_FAIL("ringbuf_attach(%s, %u) failed: %s", path, flags,
			 strerror(errno));
	return v;
}

/* ------------------------------------------------------------------ */
/* 1. named_file                                                       */

static void check_regular_0600(const char *p)
{
	struct stat st;

	if (lstat(p, &st) != 0)
		RBT_FAIL("lstat(%s): %s", p, strerror(errno));
	ASSERT_TRUE(S_ISREG(st.st_mode));
	if ((st.st_mode & 07777) != 0600)
		RBT_FAIL("%s: mode %04o, expected 0600", p,
			 (unsigned int)(st.st_mode & 07777));
	ASSERT_EQ(st.st_uid, geteuid());
	ASSERT_GT(st.st_size, 0);
}

static void named_file(void)
{
	char name[128], exp[4096], p[4096], target[4096], link[4096];
	char xdg[1024];
	const char *got;
	struct ringbuf *rb, *v;
	char *old_xdg = getenv("XDG_RUNTIME_DIR") ?
				strdup(getenv("XDG_RUNTIME_DIR")) :
				NULL;

	/* a plain name: under $XDG_RUNTIME_DIR, else /dev/shm */
	set_step("plain name");
	name_of(name, sizeof(name), "x");
	shm_path_of(exp, sizeof(exp), "x");
	rb = create_named(name, 2, 0, 1, RINGBUF_NO_SPARES);
	got = ringbuf_path(rb);
	ASSERT_NOT_NULL(got);
	ASSERT_TRUE(got[0] == '/');
	if (strcmp(got, exp) != 0)
		RBT_FAIL("ringbuf_path() = \"%s\", expected \"%s\"", got, exp);
	check_regular_0600(got);
	ASSERT_TRUE(ringbuf_fd(rb) >= 0);
	tu_write_ok(rb, 1, 32);

	/* the same name again: EEXIST, and the first file is untouched */
	set_step("EEXIST");
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 1,
			     .path = name);

		ASSERT_NULL_ERRNO(ringbuf_create(&o), EEXIST);
	}
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 1,
			     .path = exp);

		ASSERT_NULL_ERRNO(ringbuf_create(&o), EEXIST);
	}
	check_regular_0600(exp);
	v = attach_ok(name, 0);
	{
		struct ringbuf_event *ev = ringbuf_consume(v, 0, NULL, NULL);

		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), 1,
			 32);
	}
	ringbuf_free(v);
	ASSERT_TRUE(exists_nofollow(exp)); /* detaching leaves the file */
	ringbuf_free(rb);
	if (exists_nofollow(exp))
		RBT_FAIL("ringbuf_free() left %s behind", exp);

	/* an absolute path is used as it is */
	set_step("absolute path");
	tmp_path_of(p, sizeof(p), "abs");
	rb = create_named(p, 2, RINGBUF_FL_OVERWRITE, 2, RINGBUF_NO_SPARES);
	ASSERT_NOT_NULL(ringbuf_path(rb));
	if (strcmp(ringbuf_path(rb), p) != 0)
		RBT_FAIL("ringbuf_path() = \"%s\", expected \"%s\"",
			 ringbuf_path(rb), p);
	check_regular_0600(p);
	v = attach_ok(p, 0);
	ASSERT_EQ(ringbuf_nr_cpus(v), 2);
	ringbuf_free(v);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(p));

	/* $XDG_RUNTIME_DIR is honoured, for create and attach */
	set_step("XDG_RUNTIME_DIR");
	tmp_path_of(xdg, sizeof(xdg), "xdg");
	if (mkdir(xdg, 0700) != 0)
		RBT_FAIL("mkdir(%s): %s", xdg, strerror(errno));
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	name_of(name, sizeof(name), "inxdg");
	snprintf(exp, sizeof(exp), "%s/%s", xdg, name);
	rb = create_named(name, 2, 0, 1, RINGBUF_NO_SPARES);
	if (strcmp(ringbuf_path(rb), exp) != 0)
		RBT_FAIL("with XDG_RUNTIME_DIR=%s: ringbuf_path() = \"%s\", "
			 "expected \"%s\"", xdg, ringbuf_path(rb), exp);
	check_regular_0600(exp);
	v = attach_ok(name, 0);
	ringbuf_free(v);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(exp));
	if (old_xdg)
		setenv("XDG_RUNTIME_DIR", old_xdg, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(old_xdg);
	rmdir(xdg);

	/* a final component that is a symbolic link (dangling) is refused
	 * and nothing is created through it; the link stays */
	set_step("symlink");
	tmp_path_of(target, sizeof(target), "symtarget");
	shm_path_of(link, sizeof(link), "symlink");
	name_of(name, sizeof(name), "symlink");
	if (symlink(target, link) != 0)
		RBT_FAIL("symlink: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 1,
			     .path = i ? name : link);
		struct stat st;

		errno = 0;
		rb = ringbuf_create(&o);
		if (rb)
			RBT_FAIL("ringbuf_create(path %s), a symlink, "
				 "succeeded", o.path);
		if (errno != EEXIST && errno != ELOOP)
			RBT_FAIL("ringbuf_create(symlink %s): errno %d (%s), "
				 "expected EEXIST or ELOOP", o.path, errno,
				 strerror(errno));
		if (exists_nofollow(target))
			RBT_FAIL("a file was created through the symlink");
		ASSERT_EQ(lstat(link, &st), 0);
		ASSERT_TRUE(S_ISLNK(st.st_mode)); /* not removed or replaced */
	}
	unlink(link);

	/* a symlink to an existing file: refused, the file unchanged */
	set_step("symlink to a file");
	{
		int fd = open(target, O_CREAT | O_EXCL | O_WRONLY, 0644);
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 1,
			     .path = link);
		struct stat st;

		ASSERT_TRUE(fd >= 0);
		write_full(fd, "hello", 5, "target");
		close(fd);
		ASSERT_EQ(symlink(target, link), 0);
		rb = ringbuf_create(&o);
		if (rb)
			RBT_FAIL("ringbuf_create through a symlink to a file "
				 "succeeded");
		ASSERT_EQ(stat(target, &st), 0);
		ASSERT_EQ(st.st_size, 5);
		ASSERT_EQ(lstat(link, &st), 0);
		ASSERT_TRUE(S_ISLNK(st.st_mode));
		unlink(link);
		unlink(target);
	}
}

/* ------------------------------------------------------------------ */
/* 2. memfd                                                            */

static void memfd(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(3), .nr_cpus = 2,
		     .flags = RINGBUF_FL_MEMFD);
	struct ringbuf *rb = ringbuf_create(&o), *anon;
	char proc[64], target[256];
	struct stat st;
	ssize_t n;
	int fd;

	ASSERT_NOT_NULL(rb);
	fd = ringbuf_fd(rb);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ringbuf_fd(rb), fd); /* stable */
	ASSERT_NULL(ringbuf_path(rb));
	ASSERT_EQ(fstat(fd, &st), 0);
	ASSERT_TRUE(S_ISREG(st.st_mode));
	/* the whole mapping: at least the sub-buffers of both cpu buffers */
	ASSERT_GE(st.st_size, 2 * 3 * 4096);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, target, sizeof(target) - 1);
	ASSERT_GT(n, 0);
	target[n] = 0;
	if (strncmp(target, "/memfd:", 7) != 0)
		RBT_FAIL("ringbuf_fd() is \"%s\", not a memfd", target);
	/* it works as a buffer, resized as a named file is (in place) */
	tu_write_ok(rb, 7, 40);
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(6), 1), 0);
	ASSERT_EQ(ringbuf_size(rb, 1), 6 * 4096);
	ASSERT_EQ(ringbuf_fd(rb), fd);
	ASSERT_EQ(tu_drain(rb) + ringbuf_overruns(rb), 1);

	anon = tu_create(2, 0, 1, RINGBUF_PER_CPU);
	ASSERT_ERR(ringbuf_fd(anon), EINVAL);
	ASSERT_NULL(ringbuf_path(anon));
	ringbuf_free(anon);
	ringbuf_free(rb);
	/* the descriptor is closed with the buffer */
	ASSERT_TRUE(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
}

/* A memfd buffer of two cpu buffers of @pages sub-buffers, no spares. */
static struct ringbuf *memfd_two_cpus(size_t pages)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(pages), .nr_cpus = 2,
		     .spare_buffers = RINGBUF_NO_SPARES,
		     .flags = RINGBUF_FL_MEMFD);
	struct ringbuf *rb = ringbuf_create(&o);

	if (!rb)
		RBT_FAIL("ringbuf_create(memfd) failed: %s", strerror(errno));
	return rb;
}

/*
 * ringbuf_cpu_file_range(): each cpu buffer's sub-buffers (the ring and
 * the reader page) where the file holds them, for the creator and an
 * attached view alike (what a record written through the mapping reads
 * back from the file there), and after a resize; allocated ahead with
 * fallocate(), as a recorder does while the writers run, the buffer
 * still writes, reads back every record and is freed as before, the
 * file no longer. Errors: no such cpu buffer, an anonymous buffer.
 */
static void cpu_file_range(void)
{
	struct ringbuf *rb = memfd_two_cpus(4), *v, *anon;
	uint64_t off[2], len[2], voff, vlen;
	struct stat st0, st1;
	unsigned char *file;
	int fd, c;

	fd = ringbuf_fd(rb);
	ASSERT_EQ(fstat(fd, &st0), 0);
	v = ringbuf_attach_fd(fd, 0);
	ASSERT_NOT_NULL(v);
	for (c = 0; c < 2; c++) {
		ASSERT_EQ(ringbuf_cpu_file_range(rb, c, &off[c], &len[c]), 0);
		ASSERT_EQ_U(len[c], ringbuf_size(rb, c) + 4096);
		ASSERT_EQ_U(off[c] % 4096, 0);
		ASSERT_LE_U(off[c] + len[c], (uint64_t)st0.st_size);
		/* the view finds the same range */
		ASSERT_EQ(ringbuf_cpu_file_range(v, c, &voff, &vlen), 0);
		ASSERT_EQ_U(voff, off[c]);
		ASSERT_EQ_U(vlen, len[c]);
	}
	ASSERT_TRUE(off[0] + len[0] <= off[1] || off[1] + len[1] <= off[0]);

	/* a record of cpu 1 is in cpu 1's range of the file */
	ringbuf_test_set_cpu(1);
	tu_write_ok(rb, 0x5eed, 40);
	ringbuf_test_set_cpu(-1);
	file = mmap(NULL, (size_t)st0.st_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(file != MAP_FAILED);
	{
		unsigned char rec[40];
		bool found = false;

		tu_fill(rec, 0x5eed, sizeof(rec));
		for (uint64_t i = off[1]; i + sizeof(rec) <= off[1] + len[1]; i++)
			if (!memcmp(file + i, rec, sizeof(rec)))
				found = true;
		ASSERT_TRUE(found);
	}
	munmap(file, (size_t)st0.st_size);

	/* allocated ahead, as a recorder does: writes and reads as before */
	for (c = 0; c < 2; c++)
		ASSERT_EQ(fallocate(fd, 0, (off_t)off[c], (off_t)len[c]), 0);
	ASSERT_EQ(fstat(fd, &st1), 0);
	ASSERT_EQ(st1.st_size, st0.st_size);
	for (uint32_t i = 1; i <= 20; i++) {
		ringbuf_test_set_cpu((int)(i & 1));
		tu_write_ok(rb, i, 40);
	}
	ringbuf_test_set_cpu(-1);
	ASSERT_EQ(tu_drain(v), 21);

	/* after a resize, where cpu 1's sub-buffers are now */
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(6), 1), 0);
	ASSERT_EQ(ringbuf_cpu_file_range(rb, 1, &voff, &vlen), 0);
	ASSERT_EQ_U(vlen, 7 * 4096);
	ASSERT_EQ(fstat(fd, &st1), 0);
	ASSERT_LE_U(voff + vlen, (uint64_t)st1.st_size);

	ASSERT_EQ(ringbuf_cpu_file_range(rb, 2, &voff, &vlen), -EINVAL);
	ASSERT_EQ(ringbuf_cpu_file_range(rb, -1, &voff, &vlen), -EINVAL);
	ASSERT_EQ(ringbuf_cpu_file_range(NULL, 0, &voff, &vlen), -EINVAL);
	anon = tu_create(2, 0, 1, RINGBUF_PER_CPU);
	ASSERT_EQ(ringbuf_cpu_file_range(anon, 0, &voff, &vlen), -EINVAL);
	ringbuf_free(anon);
	ringbuf_free(v);
	ringbuf_free(rb);
	ASSERT_TRUE(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
}

/*
 * ringbuf_populate_cpu(): a writer's cpu buffer mapped in ahead, a chunk
 * at a time as a held program does, up to its end (0 from there on);
 * its contents unchanged (the records written before read back), the
 * buffer writes and reads as before and is freed as before; an attached
 * view's pages too. Errors: no such cpu buffer.
 */
static void populate_cpu(void)
{
	struct ringbuf *rb = memfd_two_cpus(8), *v;
	uint64_t off, len;
	size_t from;
	long n;
	int c;

	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 10; i++)
		tu_write_ok(rb, i, 40);
	ringbuf_test_set_cpu(-1);
	for (c = 0; c < 2; c++) {
		ASSERT_EQ(ringbuf_cpu_file_range(rb, c, &off, &len), 0);
		for (from = 0; (n = ringbuf_populate_cpu(rb, c, from,
							 3 * 4096)) > 0;
		     from += (size_t)n)
			ASSERT_LE(n, 3 * 4096);
		if (n < 0 && n != -EINVAL)
			RBT_FAIL("ringbuf_populate_cpu: %s", strerror((int)-n));
		if (n == -EINVAL) {
			/* a kernel before 5.14: nothing to check */
			fprintf(stderr, "no MADV_POPULATE_WRITE here\n");
			break;
		}
		ASSERT_EQ_U(from, len);
		ASSERT_EQ(ringbuf_populate_cpu(rb, c, from, 4096), 0);
	}
	ASSERT_EQ(ringbuf_populate_cpu(rb, 2, 0, 4096), -EINVAL);
	ASSERT_EQ(ringbuf_populate_cpu(NULL, 0, 0, 4096), -EINVAL);
	/* the records from before, and more */
	for (uint32_t i = 10; i < 30; i++) {
		ringbuf_test_set_cpu((int)(i & 1));
		tu_write_ok(rb, i, 40);
	}
	ringbuf_test_set_cpu(-1);
	v = ringbuf_attach_fd(ringbuf_fd(rb), 0);
	ASSERT_NOT_NULL(v);
	ASSERT_GT(ringbuf_populate_cpu(v, 1, 0, len), 0);
	{
		struct tu_ev ev[32];
		size_t k = tu_consume_all(v, 0, ev, 32);

		/* cpu 0: 0..9, then the even ones */
		ASSERT_EQ(k, 20);
		for (size_t i = 0; i < k; i++)
			ASSERT_EQ_U(ev[i].seq, i < 10 ? i : 10 + 2 * (i - 10));
		ASSERT_EQ(tu_consume_all(v, 1, ev, 32), 10);
	}
	ringbuf_free(v);
	ringbuf_free(rb);
}

/* ------------------------------------------------------------------ */
/* 3. cross_process_*                                                  */

#define NW 2		/* writer threads */
#define MAXC 64		/* cpu buffers the reader tracks */
#define PL_MAGIC 0x4d485352u
#define PL_MIN 16u
#define PL_MAX 300u
#define MAX_SEQ (1u << 24) /* per writer; the writer stops there */

struct pl_hdr {
	uint32_t magic;
	uint16_t writer;
	uint16_t len;
	uint32_t seq;
	uint32_t csum;
};

static uint8_t pl_byte(unsigned int w, uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 167u + (uint32_t)i * 13u + w * 71u + 5u);
}

static uint32_t pl_csum(const unsigned char *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		if (i < 12 || i >= 16)
			h = (h ^ p[i]) * 16777619u;
	return h;
}

static void pl_fill(unsigned char *p, unsigned int w, uint32_t seq,
		    size_t len)
{
	struct pl_hdr h = { .magic = PL_MAGIC, .writer = (uint16_t)w,
			    .len = (uint16_t)len, .seq = seq };

	memcpy(p, &h, sizeof(h));
	for (size_t i = sizeof(h); i < len; i++)
		p[i] = pl_byte(w, seq, i);
	h.csum = pl_csum(p, len);
	memcpy(p + 12, &h.csum, 4);
}

/* what r_check() sums per event: a duplicate or a missing event among
 * several readers changes the total */
static uint64_t pl_mix(unsigned int w, uint32_t seq)
{
	uint64_t z = ((uint64_t)w << 32 | seq) + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct writer {
	struct ringbuf *rb;
	unsigned int id;
	atomic_bool *stop;
	uint64_t written;
	uint64_t refused;
	int bad_ret;
	uint64_t seed;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct rbt_rng rng;
	unsigned char buf[PL_MAX];
	uint32_t seq = 0;

	rbt_rng_init(&rng, w->seed);
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		size_t len;
		int ret;

		if (seq >= MAX_SEQ) {
			rbt_msleep(1);
			continue;
		}
		/* a quarter of them past the small-record limit (112) */
		len = rbt_rng_range(&rng, 0, 3) == 0 ?
			      rbt_rng_range(&rng, 113, PL_MAX) :
			      rbt_rng_range(&rng, PL_MIN, 112);
		pl_fill(buf, w->id, seq, len);
		ret = ringbuf_write(w->rb, len, buf);
		if (ret == 0) {
			seq++;
			w->written++;
		} else {
			w->refused++;
			if (ret != -ENOSPC && ret != -EBUSY && !w->bad_ret)
				w->bad_ret = ret;
			sched_yield();
		}
	}
	return NULL;
}

/* the reader side (in the child) */
struct rstate {
	int nr_cpus;
	uint32_t last[NW][MAXC];
	bool have[NW][MAXC];
	uint8_t *seen[NW];
	uint64_t count[NW];
	uint32_t max[NW];
	uint64_t hsum;
	uint64_t total;
	uint64_t lost;
};

static void rstate_init(struct rstate *s, int nr_cpus)
{
	memset(s, 0, sizeof(*s));
	if (nr_cpus < 1 || nr_cpus > MAXC)
		RBT_FAIL("reader: ringbuf_nr_cpus() = %d", nr_cpus);
	s->nr_cpus = nr_cpus;
	for (int w = 0; w < NW; w++) {
		s->seen[w] = calloc(MAX_SEQ / 8, 1);
		ASSERT_NOT_NULL(s->seen[w]);
	}
}

static void rstate_free(struct rstate *s)
{
	for (int w = 0; w < NW; w++)
		free(s->seen[w]);
}

static void r_check(struct rstate *s, const unsigned char *p,
		    unsigned int evlen, int cpu)
{
	struct pl_hdr h;

	if (cpu < 0 || cpu >= s->nr_cpus)
		RBT_FAIL("reader: event from cpu buffer %d of %d", cpu,
			 s->nr_cpus);
	if (evlen < PL_MIN)
		RBT_FAIL("reader: cpu %d: event length %u < %u", cpu, evlen,
			 PL_MIN);
	memcpy(&h, p, sizeof(h));
	if (h.magic != PL_MAGIC || h.writer >= NW || h.len < PL_MIN ||
	    h.len > PL_MAX || h.seq >= MAX_SEQ)
		RBT_FAIL("reader: cpu %d: bad payload header (magic %08x "
			 "writer %u len %u seq %u, event length %u) after %llu "
			 "good events", cpu, h.magic, h.writer, h.len, h.seq,
			 evlen, (unsigned long long)s->total);
	if (evlen != tu_event_len(h.len))
		RBT_FAIL("reader: writer %u seq %u: event length %u, payload "
			 "%u (expected %u)", h.writer, h.seq, evlen, h.len,
			 tu_event_len(h.len));
	if (pl_csum(p, h.len) != h.csum)
		RBT_FAIL("reader: writer %u seq %u len %u: checksum mismatch",
			 h.writer, h.seq, h.len);
	for (size_t i = sizeof(h); i < h.len; i++)
		if (p[i] != pl_byte(h.writer, h.seq, i))
			RBT_FAIL("reader: writer %u seq %u: byte %zu is 0x%02x"
				 ", expected 0x%02x", h.writer, h.seq, i, p[i],
				 pl_byte(h.writer, h.seq, i));
	/* a writer's events in one cpu buffer come out in its order */
	if (s->have[h.writer][cpu] && h.seq <= s->last[h.writer][cpu])
		RBT_FAIL("reader: writer %u on cpu %d: seq %u after %u",
			 h.writer, cpu, h.seq, s->last[h.writer][cpu]);
	s->have[h.writer][cpu] = true;
	s->last[h.writer][cpu] = h.seq;
	if (s->seen[h.writer][h.seq / 8] & (1u << (h.seq % 8)))
		RBT_FAIL("reader: writer %u seq %u read twice", h.writer,
			 h.seq);
	s->seen[h.writer][h.seq / 8] |= (uint8_t)(1u << (h.seq % 8));
	if (!s->count[h.writer] || h.seq > s->max[h.writer])
		s->max[h.writer] = h.seq;
	s->count[h.writer]++;
	s->hsum += pl_mix(h.writer, h.seq);
	s->total++;
}

struct stop_msg {
	uint64_t written[NW];
};

struct child_report {
	uint64_t total;
	uint64_t per_writer[NW];
	uint64_t lost;
	uint64_t read_events; /* the child's ringbuf_read_events_cpu sum */
	uint64_t entries;     /* the child's ringbuf_entries after drain */
	uint64_t pages;	      /* read_page: pages read */
	uint64_t hsum;	      /* sum of pl_mix() over the events read */
};

static struct rbd_page g_page;

/* one pass of read_page over every cpu buffer; returns events read */
static uint64_t read_pages_pass(struct ringbuf *v, struct rstate *s,
				void **pages, struct child_report *rep)
{
	size_t psz = ringbuf_subbuf_size(v);
	uint64_t n = 0;
	char err[256];

	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		int ret;

		while ((ret = ringbuf_read_page(v, pages[cpu], psz, cpu, 0)) >=
		       0) {
			ASSERT_EQ(ret, 0);
			if (rbd_decode(pages[cpu], psz, true, &g_page, err,
				       sizeof(err))) {
				rbd_dump(&g_page);
				RBT_FAIL("reader: cpu %d page %llu: %s", cpu,
					 (unsigned long long)rep->pages, err);
			}
			rep->pages++;
			if (g_page.stored)
				s->lost += g_page.missed_count;
			for (unsigned int i = 0; i < g_page.nrec; i++) {
				const struct rbd_rec *r = &g_page.recs[i];

				if (r->kind != RBD_DATA)
					continue;
				r_check(s, r->payload, r->len, cpu);
				n++;
			}
		}
		if (ret != -ENODATA && ret != -EAGAIN)
			RBT_FAIL("reader: ringbuf_read_page(cpu %d) = %d", cpu,
				 ret);
	}
	return n;
}

enum rmode { R_NEXT, R_PAGE };

static void cp_child(const char *name, bool overwrite, enum rmode rm,
		     bool sole, int to_child, int from_child)
{
	struct ringbuf *v;
	struct rstate s;
	struct stop_msg stop = { { 0 } };
	struct child_report rep;
	void *pages[MAXC] = { 0 };
	bool stopped = false;
	char c = 'R';

	arm_alarm(60);
	set_step("child: attach");
	v = attach_ok(name, 0);
	rstate_init(&s, ringbuf_nr_cpus(v));
	memset(&rep, 0, sizeof(rep));
	if (rm == R_PAGE)
		for (int cpu = 0; cpu < s.nr_cpus; cpu++) {
			pages[cpu] = ringbuf_alloc_read_page(v, cpu);
			ASSERT_NOT_NULL(pages[cpu]);
		}
	write_full(from_child, &c, 1, "child ready");
	set_step("child: reading");
	for (;;) {
		uint64_t got = 0;

		if (rm == R_NEXT) {
			struct ringbuf_event *ev;
			unsigned long lost;
			uint64_t ts;
			int cpu = -1;

			while ((ev = ringbuf_consume_next(v, &cpu, &ts,
							  &lost))) {
				r_check(&s, ringbuf_event_data(ev),
					ringbuf_event_length(ev), cpu);
				s.lost += lost;
				got++;
			}
		} else {
			got = read_pages_pass(v, &s, pages, &rep);
		}
		if (got)
			continue;
		if (stopped)
			break; /* a whole pass after the stop found nothing */
		{
			struct pollfd pfd = { .fd = to_child,
					      .events = POLLIN };

			if (poll(&pfd, 1, 0) == 1) {
				read_full(to_child, &stop, sizeof(stop), 10000,
					  "child: stop message");
				stopped = true;
				set_step("child: draining");
				continue;
			}
		}
		usleep(50);
	}
	/* everything is read: check it against what the writers wrote */
	for (int w = 0; w < NW; w++) {
		if (s.count[w] && s.max[w] >= stop.written[w])
			RBT_FAIL("reader: writer %d: seq %u read, but only "
				 "%llu were written", w, s.max[w],
				 (unsigned long long)stop.written[w]);
		/* no duplicates, all below written: in p/c equal counts
		 * mean every one was read */
		if (!overwrite && sole && s.count[w] != stop.written[w])
			RBT_FAIL("reader: p/c: writer %d: read %llu of %llu",
				 w, (unsigned long long)s.count[w],
				 (unsigned long long)stop.written[w]);
		rep.per_writer[w] = s.count[w];
	}
	rep.total = s.total;
	rep.lost = s.lost;
	for (int cpu = 0; cpu < s.nr_cpus; cpu++)
		rep.read_events += ringbuf_read_events_cpu(v, cpu);
	rep.entries = ringbuf_entries(v);
	rep.hsum = s.hsum;
	/* the reader's own view of the counters agrees with what it read
	 * (the counter is shared: only when it is the sole reader) */
	if (sole && rep.read_events != rep.total)
		RBT_FAIL("reader: its view's read_events sum %llu != events "
			 "it read %llu", (unsigned long long)rep.read_events,
			 (unsigned long long)rep.total);
	ASSERT_EQ(rep.entries, 0);
	write_full(from_child, &rep, sizeof(rep), "child report");
	if (rm == R_PAGE)
		for (int cpu = 0; cpu < s.nr_cpus; cpu++)
			ringbuf_free_read_page(v, cpu, pages[cpu]);
	rstate_free(&s);
	ringbuf_free(v);
	_exit(0);
}

/*
 * The creator writes from NW threads for 1.5 s while @nreaders forked
 * children (reader i uses rm[i]) attach by name and read concurrently.
 * Then the creator stops, the readers drain and report; the counters must
 * conserve.
 */
static void cross_process(bool overwrite, const enum rmode *rm, int nreaders,
			  const char *sfx)
{
	char name[128], path[4096];
	struct ringbuf *rb;
	int to_child[2][2], from_child[2][2];
	struct writer w[NW];
	pthread_t tid[NW];
	atomic_bool stop = false;
	struct stop_msg msg;
	struct child_report rep[2], sum;
	uint64_t written = 0, refused = 0, hsum = 0;
	pid_t pid[2];
	char c;

	arm_alarm(90);
	name_of(name, sizeof(name), sfx);
	/* 8 pages per cpu buffer, 2 CPU buffers, the default spares */
	rb = create_named(name, 8, overwrite ? RINGBUF_FL_OVERWRITE : 0, 2, 0);
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	/* fork before any thread exists: the children are single-threaded */
	for (int r = 0; r < nreaders; r++) {
		pipe_ok(to_child[r]);
		pipe_ok(from_child[r]);
		pid[r] = fork_ok();
		if (pid[r] == 0) {
			close(to_child[r][1]);
			close(from_child[r][0]);
			cp_child(name, overwrite, rm[r], nreaders == 1,
				 to_child[r][0], from_child[r][1]);
		}
		close(to_child[r][0]);
		close(from_child[r][1]);
	}
	set_step("parent: wait for the readers");
	for (int r = 0; r < nreaders; r++)
		read_full(from_child[r][0], &c, 1, 20000, "reader ready");

	set_step("parent: writing");
	for (unsigned int i = 0; i < NW; i++) {
		w[i] = (struct writer){ .rb = rb, .id = i, .stop = &stop,
					.seed = rbt_seed() * 31 + i };
		ASSERT_EQ(pthread_create(&tid[i], NULL, writer_main, &w[i]),
			  0);
	}
	rbt_msleep(1500);
	atomic_store(&stop, true);
	for (unsigned int i = 0; i < NW; i++) {
		pthread_join(tid[i], NULL);
		if (w[i].bad_ret)
			RBT_FAIL("writer %u: ringbuf_write returned %d (%s)",
				 i, w[i].bad_ret, strerror(-w[i].bad_ret));
		msg.written[i] = w[i].written;
		written += w[i].written;
		refused += w[i].refused;
		for (uint32_t q = 0; q < w[i].written; q++)
			hsum += pl_mix(i, q);
	}
	set_step("parent: wait for the readers' reports");
	memset(&sum, 0, sizeof(sum));
	for (int r = 0; r < nreaders; r++)
		write_full(to_child[r][1], &msg, sizeof(msg), "stop message");
	for (int r = 0; r < nreaders; r++) {
		read_full(from_child[r][0], &rep[r], sizeof(rep[r]), 30000,
			  "reader report");
		expect_exit0(wait_child(pid[r], 30, "reader"), "reader");
		close(to_child[r][1]);
		close(from_child[r][0]);
		sum.total += rep[r].total;
		sum.lost += rep[r].lost;
		sum.pages += rep[r].pages;
		sum.hsum += rep[r].hsum;
		for (int i = 0; i < NW; i++)
			sum.per_writer[i] += rep[r].per_writer[i];
	}

	{
		unsigned long overrun = ringbuf_overruns(rb);
		unsigned long dropped = tu_sum(rb, ringbuf_dropped_events_cpu);
		unsigned long cover = tu_sum(rb, ringbuf_commit_overrun_cpu);
		unsigned long read_ev = tu_sum(rb, ringbuf_read_events_cpu);

		rbt_note("%s, %d reader(s): written %llu refused %llu read %llu"
			 " (%llu + %llu) overrun %lu dropped %lu commit_overrun"
			 " %lu lost %llu pages %llu",
			 overwrite ? "overwrite" : "p/c", nreaders,
			 (unsigned long long)written,
			 (unsigned long long)refused,
			 (unsigned long long)sum.total,
			 (unsigned long long)rep[0].total,
			 (unsigned long long)(nreaders > 1 ? rep[1].total : 0),
			 overrun, dropped, cover,
			 (unsigned long long)sum.lost,
			 (unsigned long long)sum.pages);
		ASSERT_GT(written, 0);
		for (int r = 0; r < nreaders; r++)
			ASSERT_GT(rep[r].total, 0);
		ASSERT_EQ_U(sum.per_writer[0] + sum.per_writer[1], sum.total);
		ASSERT_EQ_U(read_ev, sum.total);
		ASSERT_EQ_U(ringbuf_entries(rb), 0);
		if (overwrite) {
			if (sum.total + overrun != written)
				RBT_FAIL("overwrite: read %llu + overrun %lu "
					 "!= written %llu",
					 (unsigned long long)sum.total, overrun,
					 (unsigned long long)written);
			ASSERT_LE_U(sum.lost, overrun);
		} else {
			ASSERT_EQ_U(overrun, 0);
			ASSERT_EQ_U(sum.lost, 0);
			ASSERT_EQ_U(sum.total, written);
			for (int i = 0; i < NW; i++)
				ASSERT_EQ_U(sum.per_writer[i], w[i].written);
			/* every event read once, by one of the readers */
			if (sum.hsum != hsum)
				RBT_FAIL("p/c: the readers together did not "
					 "read each event exactly once (sum of "
					 "event hashes differs)");
		}
		if (dropped + cover != refused)
			RBT_FAIL("refused writes %llu != dropped %lu + commit "
				 "overrun %lu", (unsigned long long)refused,
				 dropped, cover);
	}
	tu_check_rb(rb);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(path));
	arm_alarm(0);
}

static const enum rmode rm_next[] = { R_NEXT }, rm_page[] = { R_PAGE };

static void cross_process_overwrite(void)
{
	cross_process(true, rm_next, 1, "cp-ow-next");
}

static void cross_process_pc(void)
{
	cross_process(false, rm_next, 1, "cp-pc-next");
}

static void cross_process_overwrite_page(void)
{
	cross_process(true, rm_page, 1, "cp-ow-page");
}

static void cross_process_pc_page(void)
{
	cross_process(false, rm_page, 1, "cp-pc-page");
}

/*
 * Two reader processes on the same cpu buffers: they serialise on the lock
 * in the file. Both read with read_page, which copies under the lock: an
 * event that consume returns points into the shared page, which the other
 * reader may hand back to the writer as soon as this one lets go of the
 * lock ("valid until the next read operation on the cpu buffer", by
 * anyone), so its payload could not be checked.
 */
static void cross_process_two_readers(void)
{
	static const enum rmode rm[] = { R_PAGE, R_PAGE };

	cross_process(false, rm, 2, "cp-two");
}

/* ------------------------------------------------------------------ */
/* 4. memfd_child                                                      */

#define MC_EVENTS 20000u
#define MC_FORBIDDEN 0xdeadu

static void memfd_child(void)
{
	RINGBUF_OPTS(o, .size = TU_PAGES(4), .nr_cpus = 2,
		     .spare_buffers = RINGBUF_NO_SPARES,
		     .flags = RINGBUF_FL_MEMFD);
	struct ringbuf *rb;
	int fd, from_child[2], st;
	uint64_t refused = 0, got;
	size_t size0;
	pid_t pid;
	char c;

	arm_alarm(60);
	rb = ringbuf_create(&o);
	ASSERT_NOT_NULL(rb);
	fd = ringbuf_fd(rb);
	ASSERT_GE(fd, 0);
	size0 = ringbuf_size(rb, 0);
	pipe_ok(from_child);
	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *v;
		uint32_t next[2] = { 0, 1 };
		uint64_t n = 0;

		close(from_child[0]);
		arm_alarm(60);
		/* the inherited struct ringbuf never records */
		set_step("child: write through the inherited buffer");
		{
			unsigned char b[64];
			int ret;

			tu_fill(b, MC_FORBIDDEN, sizeof(b));
			errno = RBT_ERRNO_SENTINEL;
			ret = ringbuf_write(rb, sizeof(b), b);
			if (ret >= 0)
				RBT_FAIL("child: ringbuf_write on the inherited"
					 " buffer returned %d", ret);
			ASSERT_EQ(errno, RBT_ERRNO_SENTINEL);
			ASSERT_RESERVE_NULL(ringbuf_lock_reserve(rb, 16));
		}
		set_step("child: attach_fd");
		v = ringbuf_attach_fd(fd, 0);
		if (!v)
			RBT_FAIL("child: ringbuf_attach_fd(%d): %s", fd,
				 strerror(errno));
		ASSERT_EQ(ringbuf_nr_cpus(v), 2);
		ASSERT_EQ(ringbuf_size(v, 0), size0);
		write_full(from_child[1], "R", 1, "child ready");
		set_step("child: reading");
		while (n < MC_EVENTS) {
			struct ringbuf_event *ev;
			int cpu;

			ev = ringbuf_consume_next(v, &cpu, NULL, NULL);
			if (!ev) {
				usleep(20);
				continue;
			}
			ASSERT_TRUE(cpu == 0 || cpu == 1);
			/* the parent writes seq i to cpu buffer i % 2 */
			tu_check(ringbuf_event_data(ev),
				 ringbuf_event_length(ev), next[cpu],
				 24 + next[cpu] % 64);
			next[cpu] += 2;
			n++;
		}
		set_step("child: after the last event");
		rbt_msleep(50);
		ASSERT_NULL(ringbuf_consume_next(v, NULL, NULL, NULL));
		ASSERT_EQ_U(tu_sum(v, ringbuf_read_events_cpu), MC_EVENTS);
		write_full(from_child[1], &n, sizeof(n), "child report");
		ringbuf_free(v);
		_exit(0);
	}
	close(from_child[1]);
	read_full(from_child[0], &c, 1, 20000, "child ready");
	set_step("parent: writing");
	for (uint32_t i = 0; i < MC_EVENTS; i++) {
		ringbuf_test_set_cpu((int)(i % 2));
		for (;;) {
			int ret = tu_write(rb, i, 24 + i % 64);

			if (ret == 0)
				break;
			if (ret != -ENOSPC)
				RBT_FAIL("write %u: %d (%s)", i, ret,
					 strerror(-ret));
			refused++;
			usleep(10);
		}
	}
	ringbuf_test_set_cpu(-1);
	set_step("parent: wait for the child");
	read_full(from_child[0], &got, sizeof(got), 30000, "child report");
	st = wait_child(pid, 30, "memfd reader");
	expect_exit0(st, "memfd reader");
	close(from_child[0]);
	ASSERT_EQ_U(got, MC_EVENTS);
	ASSERT_EQ_U(tu_sum(rb, ringbuf_read_events_cpu), MC_EVENTS);
	ASSERT_EQ_U(ringbuf_entries(rb), 0);
	ASSERT_EQ_U(ringbuf_overruns(rb), 0);
	ASSERT_EQ_U(tu_sum(rb, ringbuf_dropped_events_cpu) +
			    tu_sum(rb, ringbuf_commit_overrun_cpu),
		    refused);
	rbt_note("%u events, %llu refused while the child caught up",
		 MC_EVENTS, (unsigned long long)refused);
	tu_check_rb(rb);
	ringbuf_free(rb);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 5. killed_reader                                                    */

static int g_hook_fd = -1;

static void pause_in_reader_lock(struct ringbuf *rb, int cpu,
				 enum ringbuf_testpoint tp, void *arg)
{
	(void)rb;
	(void)cpu;
	(void)arg;
	if (tp != RINGBUF_TP_READER_SWAP)
		return;
	(void)!write(g_hook_fd, "H", 1);
	for (;;)
		pause();
}

struct drain_stats {
	uint64_t count;
	uint32_t first, last;
	bool consecutive;
	uint64_t read_events;
};

/* consume cpu 0 of @v until empty; payloads are tu_fill(seq, 40) */
static struct drain_stats drain_tu(struct ringbuf *v)
{
	struct drain_stats d = { .consecutive = true };
	struct ringbuf_event *ev;

	while ((ev = ringbuf_consume(v, 0, NULL, NULL))) {
		uint32_t seq = tu_seq(ringbuf_event_data(ev));

		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 seq, 40);
		if (d.count && seq <= d.last)
			RBT_FAIL("reader: seq %u after %u", seq, d.last);
		if (d.count && seq != d.last + 1)
			d.consecutive = false;
		if (!d.count)
			d.first = seq;
		d.last = seq;
		d.count++;
	}
	d.read_events = ringbuf_read_events_cpu(v, 0);
	return d;
}

static void killed_reader(void)
{
	for (int it = 0; it < 5; it++) {
		bool overwrite = it == 2 || it == 4;
		bool waiter = it % 2 == 0;
		bool extra = it != 0;
		char name[128], path[4096], sfx[32];
		struct ringbuf *rb, *view;
		struct drain_stats d;
		uint32_t seq = 0, n = 60 + 50 * (uint32_t)it;
		int hook[2], res[2], go[2], st;
		pid_t a, b = -1;
		char c;

		rbt_note("round %d: %s, %s, %s", it,
			 overwrite ? "overwrite" : "p/c",
			 waiter ? "a reader waits on the lock" :
				  "a reader comes after",
			 extra ? "writes while the reader is stopped" :
				 "no writes while stopped");
		arm_alarm(60);
		snprintf(sfx, sizeof(sfx), "killed-%d", it);
		name_of(name, sizeof(name), sfx);
		rb = create_named(name, 4, overwrite ? RINGBUF_FL_OVERWRITE : 0,
				  1, RINGBUF_NO_SPARES);
		snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
		ringbuf_test_set_cpu(0);
		set_step("write before the reader");
		for (uint32_t i = 0; i < n; i++)
			tu_write_ok(rb, seq++, 40);

		/* reader A: stops inside the reader lock, mid-swap */
		pipe_ok(hook);
		a = fork_ok();
		if (a == 0) {
			struct ringbuf *v;

			close(hook[0]);
			arm_alarm(60);
			v = attach_ok(name, 0);
			g_hook_fd = hook[1];
			ringbuf_test_set_hook(pause_in_reader_lock, NULL);
			(void)ringbuf_consume(v, 0, NULL, NULL);
			/* the first read of a fresh buffer swaps the reader
			 * page in: the hook must have stopped us */
			(void)!write(hook[1], "X", 1);
			_exit(3);
		}
		close(hook[1]);
		set_step("wait for reader A in the lock");
		read_full(hook[0], &c, 1, 20000, "reader A");
		if (c != 'H')
			RBT_FAIL("reader A consumed without reaching "
				 "RINGBUF_TP_READER_SWAP");
		close(hook[0]);

		/* writes go on while the reader is stuck */
		set_step("write while reader A is stopped");
		if (extra) {
			uint32_t more = overwrite ? 5 * 93 : 400;

			for (uint32_t i = 0; i < more; i++) {
				int ret = tu_write(rb, seq, 40);

				if (ret == 0)
					seq++;
				else if (overwrite || ret != -ENOSPC)
					RBT_FAIL("write: %d (%s)", ret,
						 strerror(-ret));
			}
		}

		/* reader B tries the lock reader A holds: it reads nothing
		 * (it waits a bounded time, never for ever), then reads
		 * everything once A is dead */
		if (waiter) {
			pipe_ok(res);
			pipe_ok(go);
			b = fork_ok();
			if (b == 0) {
				struct ringbuf *v;

				close(res[0]);
				close(go[1]);
				arm_alarm(20);
				set_step("reader B: attach");
				v = attach_ok(name, 0);
				set_step("reader B: read while A holds the lock");
				d = drain_tu(v);
				write_full(res[1], &d.count, sizeof(d.count),
					   "reader B ready");
				read_full(go[0], &c, 1, 20000, "go");
				set_step("reader B: read after reader A died");
				d = drain_tu(v);
				write_full(res[1], &d, sizeof(d),
					   "reader B report");
				ringbuf_free(v);
				_exit(0);
			}
			close(res[1]);
			close(go[0]);
			set_step("wait for reader B");
			read_full(res[0], &d.count, sizeof(d.count), 20000,
				  "reader B ready");
			if (d.count)
				RBT_FAIL("reader B read while reader A held "
					 "the cpu buffer's reader lock");
		}

		set_step("kill reader A");
		ASSERT_EQ(kill(a, SIGKILL), 0);
		st = wait_child(a, 10, "reader A");
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			RBT_FAIL("reader A: status %#x, expected SIGKILL", st);

		set_step("read after reader A died");
		if (waiter) {
			write_full(go[1], "G", 1, "go");
			close(go[1]);
			read_full(res[0], &d, sizeof(d), 5000,
				  "reader B (waiting on a dead reader's lock)");
			expect_exit0(wait_child(b, 5, "reader B"), "reader B");
			close(res[0]);
		} else {
			arm_alarm(5);
			view = attach_ok(name, 0);
			d = drain_tu(view);
			ringbuf_free(view);
			arm_alarm(60);
		}

		rbt_note("round %d: written %u, read %llu (seq %u..%u), "
			 "overrun %lu", it, seq, (unsigned long long)d.count,
			 d.first, d.last, ringbuf_overruns(rb));
		ASSERT_GT(d.count, 0);
		ASSERT_EQ(d.last, seq - 1); /* the newest event is there */
		ASSERT_EQ_U(d.read_events, d.count);
		ASSERT_EQ_U(ringbuf_read_events_cpu(rb, 0), d.count);
		ASSERT_EQ_U(ringbuf_entries(rb), 0);
		if (overwrite) {
			ASSERT_EQ_U(d.count + ringbuf_overruns(rb), seq);
		} else {
			ASSERT_EQ_U(ringbuf_overruns(rb), 0);
			ASSERT_EQ(d.first, 0);
			ASSERT_TRUE(d.consecutive);
			ASSERT_EQ_U(d.count, seq);
		}
		tu_check_rb(rb);
		/* the buffer goes on working: write and read once more */
		tu_write_ok(rb, seq, 40);
		view = attach_ok(name, 0);
		d = drain_tu(view);
		ASSERT_EQ_U(d.count, 1);
		ASSERT_EQ(d.first, seq);
		ringbuf_free(view);
		ringbuf_test_set_cpu(-1);
		ringbuf_free(rb);
		ASSERT_FALSE(exists_nofollow(path));
	}
	arm_alarm(0);
}

/*
 * killed_reader_steps: the same, but the reader is killed after every
 * store it makes to the shared file in its swap and read, not only before
 * the swap's cmpxchg (the one place a test hook stops it).
 *
 * The child stops itself in the hook (a trap, under ptrace). A first run
 * single-steps it to its exit and notes after which instructions the file
 * changed (a store to the shared mapping: page links, reader state,
 * counters, the lock word). The states a killed reader can leave behind
 * are exactly those: then, for each, a fresh child is brought there and
 * killed, and a fresh reader must read every event in order (at most the
 * one event the dead reader consumed missing) with the counters right;
 * and at 24 points between them. Every point is done, however slow the
 * machine: on x86-64 a fresh child is brought to step k by a breakpoint
 * at the instruction the survey found there, hit as many times as the
 * survey saw it reached (a sanitizer build's read takes 90000
 * instructions, single-stepped once, not once a point); elsewhere it is
 * single-stepped there.
 */
static void stop_in_reader_lock(struct ringbuf *rb, int cpu,
				enum ringbuf_testpoint tp, void *arg)
{
	(void)rb;
	(void)cpu;
	(void)arg;
	if (tp == RINGBUF_TP_READER_SWAP) {
		ringbuf_test_set_hook(NULL, NULL);
		/* a trap: the tracer's next step is the hook's return */
#if defined(__x86_64__) || defined(__i386__)
		__asm__ __volatile__("int3" ::: "memory");
#else
		raise(SIGTRAP);
#endif
	}
}

#define KS_EVENTS 150u /* the swap takes a full page; the tail is on the
			* next one */
#define KS_MAX_POINTS 4096

struct ks_survey {
	unsigned int points[KS_MAX_POINTS]; /* steps after which the file
					     * had changed */
	unsigned int npoints;
	unsigned int total; /* steps until the reader exited */
	unsigned long *pc; /* the next instruction after step i (pc[0]: in
			    * the hook), total + 1 of them; NULL where the
			    * rounds single-step */
};

/* The stopped child's next instruction, or 0 where it is not read. */
static unsigned long ks_pc(pid_t pid)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
		RBT_FAIL("PTRACE_GETREGS: %s", strerror(errno));
	return (unsigned long)regs.rip;
#else
	(void)pid;
	return 0;
#endif
}

static void ks_wait_trap(pid_t pid, const char *what, unsigned int steps)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		RBT_FAIL("waitpid: %s", strerror(errno));
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		RBT_FAIL("%s to step %u: the reader %s %d", what, steps,
			 WIFSTOPPED(st) ? "stopped by signal" : "ended, status",
			 WIFSTOPPED(st) ? WSTOPSIG(st) : st);
}

/* Whether the survey's child came to a new instruction at step @i (a
 * single step of a rep-prefixed one stops at it again, an iteration at a
 * time; a breakpoint stops once at its start). */
static bool ks_arrived(const struct ks_survey *sv, unsigned int i)
{
	return i == 0 || sv->pc[i] != sv->pc[i - 1];
}

/*
 * Bring the child (stopped in the hook) towards where it is after @steps
 * instructions: to the start of the instruction it is in then, a, where
 * it arrived for the n-th time (n: how often the survey's child arrived
 * there in steps 0 to a). A breakpoint there (int3) is hit n times;
 * between hits the instruction under it is restored and stepped over.
 * Deterministic as the single steps are: the same code on the same file,
 * in a child forked alike. Return: a (the caller single-steps the rest,
 * the iterations of a rep-prefixed instruction).
 */
static unsigned int ks_run_to(pid_t pid, const struct ks_survey *sv,
			      unsigned int steps)
{
#if defined(__x86_64__)
	unsigned int a = steps;
	unsigned long pc, orig, hits = 0, n = 0;
	struct user_regs_struct regs;

	while (!ks_arrived(sv, a))
		a--;
	if (a == 0)
		return 0;
	pc = sv->pc[a];
	for (unsigned int i = 0; i <= a; i++)
		n += ks_arrived(sv, i) && sv->pc[i] == pc;
	errno = 0;
	orig = (unsigned long)ptrace(PTRACE_PEEKTEXT, pid, (void *)pc, NULL);
	if (errno)
		RBT_FAIL("PTRACE_PEEKTEXT: %s", strerror(errno));
	for (;;) {
		if (ptrace(PTRACE_POKETEXT, pid, (void *)pc,
			   (void *)((orig & ~0xfful) | 0xcc)) != 0 ||
		    ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
			RBT_FAIL("ptrace: %s", strerror(errno));
		ks_wait_trap(pid, "breakpoint", steps);
		/* back to the breakpoint's address, its byte restored */
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
			RBT_FAIL("PTRACE_GETREGS: %s", strerror(errno));
		if (regs.rip != pc + 1)
			RBT_FAIL("breakpoint to step %u: stopped at %#llx, not "
				 "after %#lx", steps,
				 (unsigned long long)regs.rip, pc);
		regs.rip = pc;
		if (ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0 ||
		    ptrace(PTRACE_POKETEXT, pid, (void *)pc, (void *)orig) != 0)
			RBT_FAIL("ptrace: %s", strerror(errno));
		if (++hits == n)
			return a;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0)
			RBT_FAIL("PTRACE_SINGLESTEP: %s", strerror(errno));
		ks_wait_trap(pid, "stepping over the breakpoint", steps);
	}
#else
	(void)pid;
	(void)sv;
	(void)steps;
	RBT_FAIL("no breakpoints here");
	return 0;
#endif
}

/* One round. @sv: survey (step to the exit, note the changes); else kill
 * the reader after @steps instructions (@at: the survey, to get there by
 * breakpoint; NULL: single steps). */
static void killed_at_step(unsigned int steps, struct ks_survey *sv,
			   const struct ks_survey *at)
{
	char name[128], path[4096];
	struct ringbuf *rb, *view;
	struct drain_stats d;
	unsigned long read_ev;
	unsigned char *map = NULL, *snap = NULL;
	size_t map_size = 0;
	bool killed = true;
	const uint32_t n = KS_EVENTS;
	pid_t pid;
	int st;

	name_of(name, sizeof(name), "steps");
	rb = create_named(name, 4, 0, 1, RINGBUF_NO_SPARES);
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < n; i++)
		tu_write_ok(rb, i, 40);
	if (sv) {
		int fd = open(path, O_RDONLY);
		struct stat fst;

		ASSERT_TRUE(fd >= 0);
		ASSERT_EQ(fstat(fd, &fst), 0);
		map_size = (size_t)fst.st_size;
		map = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_TRUE(map != MAP_FAILED);
		close(fd);
		snap = malloc(map_size);
		ASSERT_NOT_NULL(snap);
		sv->npoints = 0;
		steps = UINT_MAX;
#if defined(__x86_64__)
		sv->pc = malloc(sizeof(*sv->pc));
		ASSERT_NOT_NULL(sv->pc);
#endif
	}
	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *v;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(77);
		v = ringbuf_attach(name, 0);
		if (!v)
			_exit(2);
		ringbuf_test_set_hook(stop_in_reader_lock, NULL);
		(void)ringbuf_consume(v, 0, NULL, NULL);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		RBT_FAIL("waitpid: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		rbt_skip("ptrace(PTRACE_TRACEME) is not permitted here");
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		RBT_FAIL("the reader did not stop in the hook (status %#x)",
			 st);
	if (sv) {
		memcpy(snap, map, map_size);
		if (sv->pc)
			sv->pc[0] = ks_pc(pid);
	}
	for (unsigned int i = at ? ks_run_to(pid, at, steps) : 0; i < steps;
	     i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0)
			RBT_FAIL("PTRACE_SINGLESTEP: %s", strerror(errno));
		if (waitpid(pid, &st, 0) != pid)
			RBT_FAIL("waitpid: %s", strerror(errno));
		if (WIFEXITED(st)) {
			if (WEXITSTATUS(st) != 0)
				RBT_FAIL("reader exited with %d",
					 WEXITSTATUS(st));
			killed = false;
			if (sv)
				sv->total = i + 1;
			break;
		}
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
			RBT_FAIL("reader stopped by signal %d at step %u",
				 WIFSTOPPED(st) ? WSTOPSIG(st) : -1, i);
		if (sv && memcmp(snap, map, map_size) != 0) {
			if (sv->npoints < KS_MAX_POINTS)
				sv->points[sv->npoints++] = i + 1;
			memcpy(snap, map, map_size);
		}
		/* (grown by doubling: i + 2 entries are used) */
		if (sv && sv->pc) {
			if (!((i + 1) & (i + 2))) {
				sv->pc = realloc(sv->pc,
						 2 * (size_t)(i + 2) *
							 sizeof(*sv->pc));
				ASSERT_NOT_NULL(sv->pc);
			}
			sv->pc[i + 1] = ks_pc(pid);
		}
	}
	if (sv) {
		munmap(map, map_size);
		free(snap);
		if (killed)
			RBT_FAIL("survey: the reader did not exit");
	}
	if (killed) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}

	view = attach_ok(name, 0);
	d = drain_tu(view);
	ringbuf_free(view);
	read_ev = ringbuf_read_events_cpu(rb, 0);
	/* the dead reader consumed at most its one event; the read counter
	 * may count that event */
	if (d.count == 0 || !d.consecutive || d.first > 1 ||
	    d.last != n - 1 || d.count + d.first != n ||
	    read_ev < d.count + d.first || read_ev > d.count + 1)
		RBT_FAIL("reader killed after %u instructions in the reader "
			 "lock: the next reader read %llu events, seq %u..%u%s"
			 " (%u written), read_events %lu", steps,
			 (unsigned long long)d.count, d.first, d.last,
			 d.consecutive ? "" : " with gaps", n, read_ev);
	if (ringbuf_entries(rb) != 0)
		RBT_FAIL("reader killed after %u instructions in the reader "
			 "lock: after the next reader drained it, entries = %ld"
			 " (read_events %lu, %llu events read, seq %u..%u, %u "
			 "written)", steps, (long)ringbuf_entries(rb), read_ev,
			 (unsigned long long)d.count, d.first, d.last, n);
	tu_check_rb(rb);
	/* and it goes on working */
	tu_write_ok(rb, n, 40);
	view = attach_ok(name, 0);
	d = drain_tu(view);
	ASSERT_EQ_U(d.count, 1);
	ASSERT_EQ(d.first, n);
	ringbuf_free(view);
	ringbuf_test_set_cpu(-1);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(path));
}

/* The reader process dies right after it zeroed its used-up reader page
 * for a swap, before it set the swap up (as a SIGKILL can land). */
static void exit_at_reader_reset(struct ringbuf *rb, int cpu,
				 enum ringbuf_testpoint tp, void *arg)
{
	(void)rb;
	(void)cpu;
	(void)arg;
	if (tp == RINGBUF_TP_READER_RESET)
		_exit(0);
}

static void killed_reader_reset(void)
{
	char name[128];
	struct ringbuf *rb, *view;
	struct drain_stats d;
	const uint32_t n = KS_EVENTS;
	uint32_t page_events;
	pid_t pid;
	int st;

	name_of(name, sizeof(name), "reset");
	rb = create_named(name, 4, 0, 1, RINGBUF_NO_SPARES);
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < n; i++)
		tu_write_ok(rb, i, 40);
	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *v = ringbuf_attach(name, 0);
		void *page;

		if (!v)
			_exit(2);
		page = ringbuf_alloc_read_page(v, 0);
		/* a whole page: the reader page is then used up */
		if (!page || ringbuf_read_page(v, page, ringbuf_subbuf_size(v),
					       0, 1) != 0)
			_exit(3);
		ringbuf_test_set_hook(exit_at_reader_reset, NULL);
		(void)ringbuf_consume(v, 0, NULL, NULL);
		_exit(4);
	}
	st = wait_child(pid, 10, "killed_reader_reset: reader");
	expect_exit0(st, "killed_reader_reset: reader");
	page_events = (uint32_t)ringbuf_read_events_cpu(rb, 0);
	ASSERT_GT(page_events, 0);

	/* the creator reads the rest itself: no warning, nothing lost */
	d = drain_tu(rb);
	ASSERT_FALSE(ringbuf_test_warned(rb));
	ASSERT_TRUE(ringbuf_record_is_on(rb));
	ASSERT_TRUE(d.consecutive);
	ASSERT_EQ(d.first, page_events);
	ASSERT_EQ(d.last, n - 1);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 0), 0);
	ASSERT_EQ_U(ringbuf_bytes_cpu(rb, 0), 0);
	/* its own writes go on, for it and for an attached reader */
	tu_write_ok(rb, n, 40);
	view = attach_ok(name, 0);
	d = drain_tu(view);
	ASSERT_EQ_U(d.count, 1);
	ASSERT_EQ(d.first, n);
	ASSERT_FALSE(ringbuf_test_warned(view));
	ringbuf_free(view);
	tu_check_rb(rb);
	ringbuf_test_set_cpu(-1);
	ringbuf_free(rb);
}

/*
 * attach_head_moving: attaching checks that a link of each cpu buffer's
 * ring carries the HEAD (or UPDATE) flag, walking the ring while the
 * writers of overwrite mode push the head on; a push moves the flag one
 * link on, the way the walk goes. The check stops in the test hook after
 * each load of a link, and there the head of the creator's buffer is
 * pushed past the page the walk started from:
 *  - one push, made whole after the first load (the flag leaves the link
 *    the walk reads last for the one it read first);
 *  - one push begun before the attach (a writer thread stopped in it
 *    after its HEAD -> UPDATE and its count of the lost page) and
 *    finished after the first load;
 *  - two pushes in the first walk (the flag also leaves the first link
 *    before the walk reads it again);
 *  - a push after every load, for every walk the check makes.
 * The ring is legitimate at every instant: each attach must succeed and
 * read every event not overwritten, in order.
 */
static struct {
	struct ringbuf *rb;		/* the creator's buffer */
	unsigned int at[2], nat;	/* push after these loads of a link */
	bool every;			/* push after every load */
	bool release_first;		/* let the stopped writer go at load 0 */
	atomic_uint loads;		/* the attach's loads of a link */
	unsigned int pushes;		/* made from the hook */
	uint32_t seq;			/* the next payload's sequence */
	atomic_bool park, parked, release;
	pthread_t writer;
} hm;

/* The creator's head page: where the link with HEAD leads (head_page is
 * a hint the readers keep), else the one with UPDATE. */
static unsigned int hm_head(void)
{
	struct ringbuf_test_state st;
	unsigned int head = UINT_MAX;

	ASSERT_EQ(ringbuf_test_state(hm.rb, 0, &st), 0);
	for (unsigned int i = 0; i <= st.nr_pages; i++) {
		if (i == st.reader_page)
			continue;
		if (st.flags[i] & RINGBUF_TEST_PAGE_HEAD)
			return st.next[i];
		if (st.flags[i] & RINGBUF_TEST_PAGE_UPDATE)
			head = st.next[i];
	}
	if (head == UINT_MAX)
		RBT_FAIL("no link of the creator's ring carries a flag");
	return head;
}

/* Write until the creator's head page moves on: one push. */
static void hm_push(void)
{
	unsigned int head = hm_head();

	for (unsigned int i = 0; hm_head() == head; i++) {
		if (i > 10000)
			RBT_FAIL("the head did not move in %u writes", i);
		tu_write_ok(hm.rb, hm.seq++, 40);
	}
	hm.pushes++;
}

static void hm_hook(struct ringbuf *rb, int cpu, enum ringbuf_testpoint tp,
		    void *arg)
{
	unsigned int load;

	(void)cpu;
	(void)arg;
	if (tp == RINGBUF_TP_HEAD_PUSHED && rb == hm.rb &&
	    atomic_exchange(&hm.park, false)) {
		/* the writer thread, in its push: wait to be let go */
		atomic_store(&hm.parked, true);
		while (!atomic_load(&hm.release))
			rbt_msleep(1);
		return;
	}
	if (tp != RINGBUF_TP_ATTACH_RING || rb == hm.rb)
		return;
	load = atomic_fetch_add(&hm.loads, 1);
	if (load == 0 && hm.release_first) {
		atomic_store(&hm.release, true);
		ASSERT_EQ(pthread_join(hm.writer, NULL), 0);
		hm.pushes++;
	}
	for (unsigned int i = 0; i < hm.nat; i++)
		if (hm.at[i] == load)
			hm_push();
	if (hm.every)
		hm_push();
}

/* Writes until the write that stopped in its push has returned. */
static void *hm_writer(void *arg)
{
	(void)arg;
	ringbuf_test_set_cpu(0);
	for (unsigned int i = 0; i < 100000 && !atomic_load(&hm.release); i++)
		tu_write_ok(hm.rb, hm.seq++, 40);
	return NULL;
}

/* One attach, with @at (@nat of them) or @every, or @straddle. */
static void hm_round(const char *what, const unsigned int *at,
		     unsigned int nat, bool every, bool straddle,
		     unsigned int min_loads)
{
	char name[128];
	struct ringbuf_test_state st;
	struct ringbuf *view;
	struct drain_stats d;
	unsigned int start, i;

	set_step(what);
	memset(&hm, 0, sizeof(hm));
	name_of(name, sizeof(name), "hm");
	hm.rb = create_named(name, 4, RINGBUF_FL_OVERWRITE, 1,
			     RINGBUF_NO_SPARES);
	ringbuf_test_set_cpu(0);
	ASSERT_EQ(ringbuf_test_state(hm.rb, 0, &st), 0);
	/* the page the check's walk starts from: the first id that is not
	 * the reader page's */
	start = st.reader_page == 0 ? 1 : 0;
	/* Overwrite until the head is that page: the tail is on the page
	 * before it, and the next page the tail takes pushes the head from
	 * the start of the walk to the page after it. */
	for (i = 0;; i++) {
		if (i > 100000)
			RBT_FAIL("%s: the head never reached page %u", what,
				 start);
		tu_write_ok(hm.rb, hm.seq++, 40);
		ASSERT_EQ(ringbuf_test_state(hm.rb, 0, &st), 0);
		if (st.overrun > 0 && hm_head() == start &&
		    st.tail_page != start)
			break;
	}
	for (i = 0; i < nat; i++)
		hm.at[i] = at[i];
	hm.nat = nat;
	hm.every = every;
	ringbuf_test_set_hook(hm_hook, NULL);
	if (straddle) {
		uint64_t t0 = rbt_now_ns();

		atomic_store(&hm.park, true);
		ASSERT_EQ(pthread_create(&hm.writer, NULL, hm_writer, NULL),
			  0);
		while (!atomic_load(&hm.parked)) {
			if (rbt_now_ns() - t0 >
			    10ull * rbt_timeout_mult() * 1000000000ull)
				RBT_FAIL("%s: the writer did not stop in its "
					 "push", what);
			rbt_msleep(1);
		}
		ASSERT_EQ(hm_head(), start);
		hm.release_first = true;
	}
	view = ringbuf_attach(name, 0);
	ringbuf_test_set_hook(NULL, NULL);
	if (!view)
		RBT_FAIL("%s: attach failed: %s", what, strerror(errno));
	/* the pushes were made inside the check, which went on after */
	if (atomic_load(&hm.loads) < min_loads ||
	    hm.pushes < (every ? min_loads : straddle ? 1 : nat))
		RBT_FAIL("%s: %u loads of a link, %u pushes", what,
			 atomic_load(&hm.loads), hm.pushes);
	ASSERT_NE(hm_head(), start);
	ASSERT_EQ(ringbuf_test_check_pages(hm.rb, 0), 0);
	d = drain_tu(view);
	ASSERT_TRUE(d.consecutive);
	ASSERT_EQ(d.last, hm.seq - 1);
	ASSERT_EQ_U(d.first + d.count, hm.seq);
	ASSERT_EQ_U(ringbuf_overrun_cpu(hm.rb, 0), d.first);
	ASSERT_FALSE(ringbuf_test_warned(view));
	ASSERT_FALSE(ringbuf_test_warned(hm.rb));
	ringbuf_free(view);
	ringbuf_test_set_cpu(-1);
	ringbuf_free(hm.rb);
}

static void attach_head_moving(void)
{
	struct ringbuf_test_state st;
	struct ringbuf *rb;
	char name[128];
	unsigned int n, two[2];

	arm_alarm(60);
	/* the ring's size, as hm_round() makes it */
	name_of(name, sizeof(name), "hm");
	rb = create_named(name, 4, RINGBUF_FL_OVERWRITE, 1,
			  RINGBUF_NO_SPARES);
	ASSERT_EQ(ringbuf_test_state(rb, 0, &st), 0);
	n = st.nr_pages;
	ringbuf_free(rb);

	/* a walk loads the n links of the cycle and the first once more */
	hm_round("one push in the walk", (const unsigned int[]){ 0 }, 1,
		 false, false, n + 1);
	hm_round("a push begun before the walk", NULL, 0, false, true,
		 n + 1);
	/* after the first load and after the last link of the cycle: the
	 * flag is past the first link when the walk reads it again */
	two[0] = 0;
	two[1] = n - 1;
	hm_round("two pushes in the first walk", two, 2, false, false,
		 2 * (n + 1));
	hm_round("a push after every load", NULL, 0, true, false, n + 1);
	arm_alarm(0);
}

static void killed_reader_steps(void)
{
	static struct ks_survey sv;
	const struct ks_survey *at;
	unsigned int done = 0, stride;
	uint64_t t0;

	arm_alarm(180);
	t0 = rbt_now_ns();
	/* Before any store. First: this process then has called what the
	 * children's read calls through the PLT (resolved at the first
	 * call), so that each child, the survey's too, runs the same
	 * instructions after the hook. */
	killed_at_step(0, NULL, NULL);
	killed_at_step(0, &sv, NULL);
	rbt_note("the read takes %u instructions from the hook; the file "
		 "changed after %u of them", sv.total, sv.npoints);
	/* the swap, the reader state, the counters and the lock word */
	ASSERT_GE(sv.npoints, 4);
	at = sv.pc ? &sv : NULL;
	for (unsigned int k = 0; k < sv.npoints; k++, done++)
		killed_at_step(sv.points[k], NULL, at);
	/* and some between them (what differs there is process-private:
	 * the lock's robust list entry) */
	stride = sv.total / 24 > 32 ? sv.total / 24 : 32;
	for (unsigned int s = 5; s < sv.total; s += stride, done++)
		killed_at_step(s, NULL, at);
	rbt_note("%u rounds (%s) in %.1f s", done + 1,
		 at ? "by breakpoint" : "single-stepped",
		 (double)(rbt_now_ns() - t0) / 1e9);
	free(sv.pc);
	sv.pc = NULL;
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 6. attach_errors                                                    */

/*
 * The head of the file, as ringbuf/src/internal.h lays it out (struct
 * rb_meta, rb_cpu_meta, rb_page_ctl): the ABI a reader in another process
 * depends on. Checked against a real file below before it is used.
 */
struct m_meta {
	uint64_t magic;
	uint32_t version;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_cpus;
	uint32_t nr_cpu_bufs;
	uint32_t total_pages;
	uint32_t clock;
	uint32_t model;
	uint32_t cpu_meta_size;
	uint64_t cpu_meta_off;
	uint64_t page_ctl_off;
	uint64_t data_off;
	uint64_t map_size;
};
#define M_MAGIC 0x31465542474e4952ULL /* "RINGBUF1" */
#define M_PAGE_CTL_SIZE 40u /* next, prev, real_end, id; write, entries, read */
#define M_CTL_NEXT 0u
#define M_CTL_PREV 4u
#define M_CTL_ID 12u
#define M_CTL_WRITE 16u
#define M_CPU_NR_PAGES 0u
#define M_CPU_FIRST_PAGE 4u

static void copy_file(const char *src, const char *dst, off_t max)
{
	int in = open(src, O_RDONLY), out;
	char buf[65536];
	off_t done = 0;

	if (in < 0)
		RBT_FAIL("open(%s): %s", src, strerror(errno));
	out = open(dst, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0600);
	if (out < 0)
		RBT_FAIL("open(%s): %s", dst, strerror(errno));
	while (max < 0 || done < max) {
		size_t want = sizeof(buf);
		ssize_t r;

		if (max >= 0 && (off_t)want > max - done)
			want = (size_t)(max - done);
		r = read(in, buf, want);
		if (r < 0)
			RBT_FAIL("read(%s): %s", src, strerror(errno));
		if (r == 0)
			break;
		write_full(out, buf, (size_t)r, dst);
		done += r;
	}
	close(in);
	close(out);
}

static void patch(const char *p, uint64_t off, const void *v, size_t n)
{
	int fd = open(p, O_WRONLY | O_NOFOLLOW);

	if (fd < 0)
		RBT_FAIL("open(%s): %s", p, strerror(errno));
	if (pwrite(fd, v, n, (off_t)off) != (ssize_t)n)
		RBT_FAIL("pwrite(%s): %s", p, strerror(errno));
	close(fd);
}

static void patch32(const char *p, uint64_t off, uint32_t v)
{
	patch(p, off, &v, 4);
}

static void patch64(const char *p, uint64_t off, uint64_t v)
{
	patch(p, off, &v, 8);
}

static uint32_t peek32(const char *p, uint64_t off)
{
	int fd = open(p, O_RDONLY);
	uint32_t v = 0;

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, &v, 4, (off_t)off), 4);
	close(fd);
	return v;
}

static void expect_attach_fails(const char *path, int err, const char *what)
{
	struct ringbuf *v;

	set_step(what);
	arm_alarm(10);
	errno = 0;
	v = ringbuf_attach(path, 0);
	if (v) {
		ringbuf_free(v);
		RBT_FAIL("%s: ringbuf_attach(%s) succeeded", what, path);
	}
	if (errno != err)
		RBT_FAIL("%s: errno %d (%s), expected %d (%s)", what, errno,
			 strerror(errno), err, strerror(err));
	/* the descriptor form refuses it the same way */
	{
		int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK);

		if (fd >= 0) {
			errno = 0;
			v = ringbuf_attach_fd(fd, 0);
			if (v) {
				ringbuf_free(v);
				RBT_FAIL("%s: ringbuf_attach_fd succeeded",
					 what);
			}
			if (errno != err)
				RBT_FAIL("%s: attach_fd errno %d (%s), "
					 "expected %d", what, errno,
					 strerror(errno), err);
			close(fd);
		}
	}
	arm_alarm(0);
}

/*
 * Attach @p and read all of it every way, in a child: the reads must end
 * (at most @max events per cpu buffer: more means the reader loops), and
 * nothing may crash. Attaching may also fail with EINVAL.
 * @one_peek: a write index past the page reads as a writer inside
 * rb_move_tail(), which a reader waits for, bounded (about 2 s per read):
 * only check that one peek of each cpu buffer ends.
 * Return: false (with the reason on stderr) if the reader failed.
 */
static bool read_corrupt(const char *p, const char *what, unsigned int max,
			 bool one_peek)
{
	pid_t pid = fork_ok();
	int st;

	if (pid == 0) {
		struct ringbuf *v;
		void *page;
		unsigned int n;
		int nr;

		arm_alarm(10);
		set_step(what);
		errno = 0;
		v = ringbuf_attach(p, 0);
		if (!v) {
			if (errno != EINVAL)
				RBT_FAIL("%s: attach errno %d (%s)", what,
					 errno, strerror(errno));
			_exit(0);
		}
		nr = ringbuf_nr_cpus(v);
		for (int cpu = 0; one_peek && cpu < nr; cpu++)
			(void)ringbuf_peek(v, cpu, NULL, NULL);
		for (int cpu = 0; !one_peek && cpu < nr; cpu++) {
			struct ringbuf_iter *it = ringbuf_read_start(v, cpu);
			struct ringbuf_event *ev;

			n = 0;
			if (it) {
				while ((ev = ringbuf_iter_peek(it, NULL))) {
					(void)ringbuf_event_length(ev);
					ringbuf_iter_advance(it);
					if (++n > max)
						RBT_FAIL("%s: iterator of cpu %d "
							 "does not end", what,
							 cpu);
				}
				ringbuf_read_finish(it);
			}
			(void)ringbuf_entries_cpu(v, cpu);
			(void)ringbuf_bytes_cpu(v, cpu);
			(void)ringbuf_oldest_event_ts(v, cpu);
			n = 0;
			while ((ev = ringbuf_peek(v, cpu, NULL, NULL)) &&
			       ringbuf_consume(v, cpu, NULL, NULL)) {
				(void)ringbuf_event_length(ev);
				if (++n > max)
					RBT_FAIL("%s: consume of cpu %d does "
						 "not end", what, cpu);
			}
			page = ringbuf_alloc_read_page(v, cpu);
			n = 0;
			while (page &&
			       ringbuf_read_page(v, page, ringbuf_subbuf_size(v),
						 cpu, 0) >= 0)
				if (++n > max)
					RBT_FAIL("%s: read_page of cpu %d does "
						 "not end", what, cpu);
			ringbuf_free_read_page(v, cpu, page);
		}
		n = 0;
		while (!one_peek && ringbuf_consume_next(v, NULL, NULL, NULL))
			if (++n > max)
				RBT_FAIL("%s: consume_next does not end", what);
		ringbuf_free(v);
		_exit(0);
	}
	st = wait_child(pid, 15, what);
	if (WIFSIGNALED(st)) {
		rbt_note("%s: the reader was killed by signal %d (%s)", what,
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
		return false;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* a patch to a copy of a real buffer's file */
struct corrupt {
	const char *what;
	uint64_t off;	/* patch offset, or ~0 for none */
	uint64_t val;
	unsigned int width; /* 4 or 8 */
};

/* a real buffer's file, for copies to patch, and where things are in it */
struct realf {
	struct ringbuf *rb;
	char path[4096];
	struct m_meta m;
	struct stat st;
	uint64_t cpu0, cpu1, ctl0;
	uint32_t first0, np0;
};

static void make_real(struct realf *f)
{
	char name[128];
	int fd;

	set_step("create the real buffer");
	name_of(name, sizeof(name), "real");
	f->rb = create_named(name, 3, 0, 2, RINGBUF_NO_SPARES);
	snprintf(f->path, sizeof(f->path), "%s", ringbuf_path(f->rb));
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 50; i++)
		tu_write_ok(f->rb, i, 40);
	ringbuf_test_set_cpu(-1);

	/* the layout the patches rely on */
	set_step("read the header");
	fd = open(f->path, O_RDONLY);
	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(pread(fd, &f->m, sizeof(f->m), 0), (ssize_t)sizeof(f->m));
	ASSERT_EQ(fstat(fd, &f->st), 0);
	close(fd);
	ASSERT_EQ_U(f->m.magic, M_MAGIC);
	ASSERT_GE(f->m.meta_struct_len, sizeof(f->m));
	ASSERT_EQ(f->m.nr_cpus, 2);
	ASSERT_EQ(f->m.subbuf_size, 4096);
	ASSERT_LE_U(f->m.map_size, (uint64_t)f->st.st_size);
	f->cpu0 = f->m.cpu_meta_off;
	f->cpu1 = f->m.cpu_meta_off + f->m.cpu_meta_size;
	f->np0 = peek32(f->path, f->cpu0 + M_CPU_NR_PAGES);
	f->first0 = peek32(f->path, f->cpu0 + M_CPU_FIRST_PAGE);
	ASSERT_EQ(f->np0, 3);
	f->ctl0 = f->m.page_ctl_off + (uint64_t)f->first0 * M_PAGE_CTL_SIZE;
	for (uint32_t i = 0; i <= f->np0; i++)
		if (peek32(f->path, f->ctl0 + i * M_PAGE_CTL_SIZE + M_CTL_ID) !=
		    i)
			RBT_FAIL("the file layout changed (page control "
				 "block %u of cpu 0): update this test's "
				 "mirror of struct rb_page_ctl", i);
	ASSERT_LT((peek32(f->path, f->ctl0 + M_CTL_NEXT) >> 2), f->np0 + 1);
}

/*
 * Which buffers are spares: the creator and an attached view (which reads
 * the file's header) answer alike; the per-thread model and
 * RINGBUF_NO_SPARES have none.
 */
static void spare_buffers(void)
{
	char name[128], path[4096];
	struct ringbuf *rb, *v;
	int cpu;

	name_of(name, sizeof(name), "spares");
	rb = create_named(name, 2, 0, 2, 3);
	v = attach_ok(name, 0);
	ASSERT_EQ(ringbuf_nr_cpus(rb), 5);
	ASSERT_EQ(ringbuf_nr_cpu_buffers(rb), 2);
	ASSERT_EQ(ringbuf_nr_cpus(v), 5);
	ASSERT_EQ(ringbuf_nr_cpu_buffers(v), 2);
	for (cpu = -1; cpu <= 5; cpu++) {
		ASSERT_EQ(ringbuf_is_spare(rb, cpu), cpu >= 2 && cpu < 5);
		ASSERT_EQ(ringbuf_is_spare(v, cpu), cpu >= 2 && cpu < 5);
	}
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	ringbuf_free(v);
	ringbuf_free(rb);
	unlink(path);
	{
		RINGBUF_OPTS(o, .size = TU_PAGES(2), .nr_cpus = 3,
			     .model = RINGBUF_PER_THREAD);

		rb = ringbuf_create(&o);
		ASSERT_NOT_NULL(rb);
		ASSERT_EQ(ringbuf_nr_cpu_buffers(rb), ringbuf_nr_cpus(rb));
		ASSERT_FALSE(ringbuf_is_spare(rb, ringbuf_nr_cpus(rb) - 1));
		ringbuf_free(rb);
	}
	rb = create_named(name, 2, 0, 2, RINGBUF_NO_SPARES);
	ASSERT_EQ(ringbuf_nr_cpu_buffers(rb), 2);
	ASSERT_EQ(ringbuf_nr_cpus(rb), 2);
	ASSERT_FALSE(ringbuf_is_spare(rb, 1));
	ASSERT_EQ(ringbuf_nr_cpu_buffers(NULL), 0);
	ASSERT_FALSE(ringbuf_is_spare(NULL, 0));
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	ringbuf_free(rb);
	unlink(path);
}

static void attach_errors(void)
{
	char name[128], p[4096], link[4096];
	struct realf f;
	struct ringbuf *rb;
	const char *real;
	uint64_t ctl0, cpu0, cpu1;
	uint32_t first0, np0;
	struct m_meta m;
	struct stat st;
	int fd;

	/* ENOENT */
	name_of(name, sizeof(name), "missing");
	shm_path_of(p, sizeof(p), "missing");
	expect_attach_fails(name, ENOENT, "missing file by name");
	expect_attach_fails(p, ENOENT, "missing file by path");

	/* a real buffer to copy and point at */
	make_real(&f);
	rb = f.rb;
	real = f.path;
	m = f.m;
	st = f.st;
	cpu0 = f.cpu0;
	cpu1 = f.cpu1;
	ctl0 = f.ctl0;
	first0 = f.first0;
	np0 = f.np0;

	/* ELOOP: a symbolic link to a good file */
	shm_path_of(link, sizeof(link), "link");
	ASSERT_EQ(symlink(real, link), 0);
	expect_attach_fails(link, ELOOP, "symlink by path");
	name_of(name, sizeof(name), "link");
	expect_attach_fails(name, ELOOP, "symlink by name");
	unlink(link);

	/* garbage of the right size, small garbage, an empty file */
	set_step("garbage files");
	{
		static const size_t sizes[] = { 0, 100, 4096, 0 };
		struct rbt_rng r;

		rbt_rng_init(&r, rbt_seed());
		for (size_t k = 0; k < 4; k++) {
			size_t sz = k == 3 ? (size_t)st.st_size : sizes[k];
			char sfx[32];
			unsigned char *buf = malloc(sz + 8);

			ASSERT_NOT_NULL(buf);
			for (size_t i = 0; i < sz; i++)
				buf[i] = (unsigned char)rbt_rng_next(&r);
			snprintf(sfx, sizeof(sfx), "garbage%zu", k);
			shm_path_of(p, sizeof(p), sfx);
			fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0600);
			ASSERT_TRUE(fd >= 0);
			write_full(fd, buf, sz, p);
			close(fd);
			free(buf);
			expect_attach_fails(p, EINVAL, "random bytes");
			unlink(p);
		}
	}

	/* truncated copies */
	{
		const off_t lens[] = { 64, (off_t)sizeof(m), 4096,
				       (off_t)m.data_off,
				       (off_t)m.map_size - 4096,
				       (off_t)m.map_size - 1 };

		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			char what[64];

			shm_path_of(p, sizeof(p), "trunc");
			copy_file(real, p, lens[k]);
			snprintf(what, sizeof(what), "truncated to %lld",
				 (long long)lens[k]);
			expect_attach_fails(p, EINVAL, what);
			unlink(p);
		}
	}

	/* a faithful copy attaches (so the failures below are the patch's) */
	set_step("good copy");
	shm_path_of(p, sizeof(p), "copy");
	copy_file(real, p, -1);
	{
		struct ringbuf *v = attach_ok(p, 0);
		struct tu_ev ev[64];

		ASSERT_EQ(tu_iter_all(v, 0, ev, 64), 50);
		ringbuf_free(v);
	}
	unlink(p);

	/* patched copies */
	{
		const struct corrupt c[] = {
			{ "magic", 0, M_MAGIC ^ 0xff, 8 },
			{ "version", 8, m.version + 1, 4 },
			{ "version 0", 8, 0, 4 },
			{ "meta_struct_len", 12, 8, 4 },
			{ "subbuf_size", 16, 4097, 4 },
			{ "nr_cpus 0", 20, 0, 4 },
			{ "nr_cpus huge", 20, 0x7fffffff, 4 },
			{ "total_pages", 28, m.total_pages + 1000, 4 },
			{ "cpu_meta_off", 48, m.map_size + 4096, 8 },
			{ "page_ctl_off", 56, m.map_size - 8, 8 },
			{ "data_off", 64, m.map_size, 8 },
			{ "data_off misaligned", 64, m.data_off + 8, 8 },
			{ "map_size", 72, m.map_size * 4, 8 },
			{ "cpu 0 nr_pages 1", cpu0 + M_CPU_NR_PAGES, 1, 4 },
			{ "cpu 0 nr_pages huge", cpu0 + M_CPU_NR_PAGES,
			  0x40000000, 4 },
			{ "cpu 1 first_page", cpu1 + M_CPU_FIRST_PAGE,
			  m.total_pages, 4 },
			{ "cpu 1 overlaps cpu 0", cpu1 + M_CPU_FIRST_PAGE,
			  first0, 4 },
			{ "page link id out of range", ctl0 + M_CTL_NEXT,
			  ((np0 + 7u) << 2) |
				  (peek32(real, ctl0 + M_CTL_NEXT) & 3u), 4 },
			{ "page link id huge", ctl0 + M_CTL_NEXT,
			  0xfffffffcu, 4 },
			{ "prev link out of range", ctl0 + M_CTL_PREV,
			  np0 + 9, 4 },
		};

		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			shm_path_of(p, sizeof(p), "patched");
			copy_file(real, p, -1);
			if (c[k].width == 8)
				patch64(p, c[k].off, c[k].val);
			else
				patch32(p, c[k].off, (uint32_t)c[k].val);
			expect_attach_fails(p, EINVAL, c[k].what);
			unlink(p);
		}
		/* no link of cpu buffer 0 carries a flag, and no writer
		 * pushes the head: no head page */
		shm_path_of(p, sizeof(p), "patched");
		copy_file(real, p, -1);
		for (uint32_t i = 0; i <= np0; i++) {
			uint64_t ctl = ctl0 + i * M_PAGE_CTL_SIZE;

			patch32(p, ctl + M_CTL_NEXT,
				peek32(real, ctl + M_CTL_NEXT) & ~3u);
		}
		expect_attach_fails(p, EINVAL, "no flag on any link");
		unlink(p);
	}

	/*
	 * Corruptions in range: the library checks the geometry and that
	 * every id is in range when it attaches, and bound-checks the rest
	 * as it reads (the writer may run meanwhile). So attaching may work,
	 * but reading such a file must end, without a crash or a hang.
	 */
	{
		uint32_t next0 = peek32(real, ctl0 + M_CTL_NEXT);
		char failed[1024] = "";
		const struct corrupt c[] = {
			{ "page link to itself", ctl0 + M_CTL_NEXT,
			  (0u << 2) | (next0 & 3u), 4 },
			{ "page links all to page 1", ~0ull, 1, 4 },
			{ "two HEAD flags", ~0ull, 2, 4 },
			{ "page write index past the data", ~0ull, 3, 8 },
			{ "sub-buffer commit past the page", ~0ull, 4, 8 },
			/* 5 and up: random records (seeded by the value) */
			{ "random records 1", ~0ull, 5, 4 },
			{ "random records 2", ~0ull, 6, 4 },
			{ "random records 3", ~0ull, 7, 4 },
			{ "random records 4", ~0ull, 8, 4 },
			{ "random records 5", ~0ull, 9, 4 },
			{ "random records 6", ~0ull, 10, 4 },
		};

		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			shm_path_of(p, sizeof(p), "patched");
			copy_file(real, p, -1);
			if (c[k].off != ~0ull) {
				patch32(p, c[k].off, (uint32_t)c[k].val);
			} else {
				for (uint32_t i = 0; i <= np0; i++) {
					uint64_t ctl = ctl0 + i * M_PAGE_CTL_SIZE;
					uint64_t pg = m.data_off +
						      (uint64_t)(first0 + i) *
							      m.subbuf_size;

					switch (c[k].val) {
					case 1:
						patch32(p, ctl + M_CTL_NEXT,
							1u << 2);
						break;
					case 2:
						patch32(p, ctl + M_CTL_NEXT,
							peek32(real,
							       ctl + M_CTL_NEXT) |
								1u);
						break;
					case 3:
						patch64(p, ctl + M_CTL_WRITE,
							m.subbuf_size - 16 - 8);
						break;
					case 4:
						patch64(p, pg + 8, 0x7ffffffULL);
						break;
					default: {
						struct rbt_rng r;

						rbt_rng_init(&r, rbt_seed() * 7 +
								 c[k].val * 1000 +
								 i);
						for (uint32_t o = 16;
						     o < m.subbuf_size; o += 8)
							patch64(p, pg + o,
								rbt_rng_next(&r));
						break;
					}
					}
				}
			}
			if (!read_corrupt(p, c[k].what, 64 * 1024, false)) {
				snprintf(failed + strlen(failed),
					 sizeof(failed) - strlen(failed),
					 "%s\"%s\"", *failed ? ", " : "",
					 c[k].what);
			}
			unlink(p);
		}
		if (*failed)
			RBT_FAIL("reading corrupt files failed (see above): "
				 "%s", failed);
	}

	/* not regular files */
	set_step("fifo");
	shm_path_of(p, sizeof(p), "fifo");
	ASSERT_EQ(mkfifo(p, 0600), 0);
	expect_attach_fails(p, EINVAL, "a fifo");
	unlink(p);
	tmp_path_of(p, sizeof(p), "dir");
	ASSERT_EQ(mkdir(p, 0700), 0);
	set_step("a directory");
	arm_alarm(10);
	errno = 0;
	ASSERT_NULL(ringbuf_attach(p, 0));
	ASSERT_TRUE(errno != 0);
	arm_alarm(0);
	rmdir(p);

	/* attach_fd on descriptors that are no ring buffer */
	set_step("attach_fd on other descriptors");
	arm_alarm(10);
	{
		int pp[2];

		fd = open("/dev/null", O_RDWR);
		ASSERT_TRUE(fd >= 0);
		ASSERT_NULL_ERRNO(ringbuf_attach_fd(fd, 0), EINVAL);
		close(fd);
		pipe_ok(pp);
		ASSERT_NULL_ERRNO(ringbuf_attach_fd(pp[0], 0), EINVAL);
		ASSERT_NULL_ERRNO(ringbuf_attach_fd(pp[1], 0), EINVAL);
		close(pp[0]);
		close(pp[1]);
		/* a zero-filled regular file of a ring buffer's size */
		shm_path_of(p, sizeof(p), "zeros");
		fd = open(p, O_CREAT | O_EXCL | O_RDWR, 0600);
		ASSERT_TRUE(fd >= 0);
		ASSERT_EQ(ftruncate(fd, st.st_size), 0);
		ASSERT_NULL_ERRNO(ringbuf_attach_fd(fd, 0), EINVAL);
		close(fd);
		unlink(p);
		/* an anonymous buffer's ringbuf_fd does not exist */
		ASSERT_NULL(ringbuf_attach_fd(-1, 0));
	}
	arm_alarm(0);

	/* the original is still fine after all that */
	set_step("original still attaches");
	{
		struct ringbuf *v = attach_ok(real, 0);
		struct tu_ev ev[64];

		ASSERT_EQ(tu_iter_all(v, 0, ev, 64), 50);
		ringbuf_free(v);
	}
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(real));
}

/*
 * A write index past the end of the page reads as a writer inside
 * rb_move_tail() on it, which a reader waits for, bounded ("about two
 * seconds"; several on a slow machine): a peek of such a file must end.
 * Its own case: it takes that long.
 */
static void corrupt_write_index(void)
{
	char p[4096];
	struct realf f;

	make_real(&f);
	shm_path_of(p, sizeof(p), "patched");
	copy_file(f.path, p, -1);
	for (uint32_t i = 0; i <= f.np0; i++)
		patch64(p, f.ctl0 + i * M_PAGE_CTL_SIZE + M_CTL_WRITE,
			0xfffffULL);
	if (!read_corrupt(p, "page write index past the page", 64 * 1024,
			  true))
		RBT_FAIL("reading a file with a write index past the page "
			 "failed (see above)");
	unlink(p);
	ringbuf_free(f.rb);
}

/* ------------------------------------------------------------------ */

/*
 * A record of a whole page made malformed in the file (its header a long
 * record's whose length runs past the page): read_page, which checks the
 * copy it makes of a whole page of another process's file, leaves that
 * page out and counts its records as lost on the next page it returns
 * (RINGBUF_MISSED_EVENTS); every other record comes back, in order.
 */
#define BR_RECORDS 1000u
#define BR_BAD_SEQ 300u

/* The index of the first data record of a decoded page. */
static unsigned int first_data(const struct rbd_page *dp)
{
	unsigned int r = 0;

	while (r < dp->nrec && dp->recs[r].kind != RBD_DATA)
		r++;
	return r;
}

static void bad_record_page(void)
{
	static struct rbd_page dp;
	struct ringbuf *rb;
	char name[128], p[4096], err[128];
	unsigned char *map;
	struct stat st;
	size_t off;
	bool patched = false;
	pid_t pid;
	int fd;

	arm_alarm(30);
	name_of(name, sizeof(name), "br");
	shm_path_of(p, sizeof(p), "br");
	/* producer/consumer: nothing is overwritten */
	rb = create_named(name, 8, 0, 1, RINGBUF_NO_SPARES);
	for (uint32_t i = 0; i < BR_RECORDS; i++)
		tu_write_ok(rb, i, 16);
	/* the record BR_BAD_SEQ: its payload starts with its seq and its
	 * length (tu_fill()), after a 4-byte header */
	fd = open(p, O_RDWR);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	for (off = 4; off + 8 <= (size_t)st.st_size && !patched; off += 4) {
		uint32_t w[2], hdr, len;

		memcpy(w, map + off, sizeof(w));
		memcpy(&hdr, map + off - 4, sizeof(hdr));
		if (w[0] != BR_BAD_SEQ || w[1] != 16 ||
		    (hdr & 0x1f) != tu_type_len(16))
			continue;
		/* type_len 0: array[0] (the seq's place) is the length */
		hdr &= ~0x1fu;
		len = 0x00fffff0u;
		memcpy(map + off - 4, &hdr, sizeof(hdr));
		memcpy(map + off, &len, sizeof(len));
		patched = true;
	}
	munmap(map, (size_t)st.st_size);
	close(fd);
	ASSERT_TRUE(patched);

	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *v = attach_ok(p, 0);
		void *page = ringbuf_alloc_read_page(v, 0);
		uint32_t next = 0, gap = 0, gap_at = 0;
		unsigned int pages = 0;
		unsigned long n;

		ASSERT_TRUE(page != NULL);
		ASSERT_EQ(ringbuf_read_page_count(v, page,
						  ringbuf_subbuf_size(v), 0, 1,
						  NULL),
			  -EINVAL);
		/* bounded: the ring holds 8 pages or so */
		while (ringbuf_read_page_count(v, page, ringbuf_subbuf_size(v),
					       0, 1, &n) >= 0) {
			ASSERT_LT(pages++, 64);
			if (rbd_decode(page, ringbuf_subbuf_size(v), true, &dp,
				       err, sizeof(err)))
				RBT_FAIL("page %u: %s", pages, err);
			ASSERT_EQ(n, dp.ndata);
			for (unsigned int r = 0; r < dp.nrec; r++) {
				uint32_t seq;

				if (dp.recs[r].kind != RBD_DATA)
					continue;
				seq = tu_seq(dp.recs[r].payload);
				if (seq != next) {
					/* one gap, on the first record of
					 * a page that says it lost some
					 * (how many where there is room) */
					ASSERT_EQ(gap, 0);
					ASSERT_GT(seq, next);
					ASSERT_EQ(r, first_data(&dp));
					ASSERT_TRUE(dp.missed);
					if (dp.stored)
						ASSERT_EQ(dp.missed_count,
							  (uint64_t)(seq - next));
					gap = seq - next;
					gap_at = next;
				}
				next = seq + 1;
			}
		}
		/* the bad record's page is the one left out */
		ASSERT_GT(gap, 0);
		ASSERT_LE(gap_at, BR_BAD_SEQ);
		ASSERT_LT(BR_BAD_SEQ, gap_at + gap);
		ASSERT_GT(next, BR_BAD_SEQ);
		ringbuf_free_read_page(v, 0, page);
		ringbuf_free(v);
		_exit(0);
	}
	expect_exit0(wait_child(pid, 20, "bad_record_page"), "bad_record_page");
	ringbuf_free(rb);

	/* the process's own buffer: the writer's count, whole pages and
	 * the partial one */
	{
		struct ringbuf *own = tu_create(32, 0, 1, RINGBUF_PER_CPU);
		void *page = ringbuf_alloc_read_page(own, 0);
		unsigned long n, total = 0;
		unsigned int pages = 0;

		ASSERT_TRUE(page != NULL);
		for (uint32_t i = 0; i < BR_RECORDS; i++)
			tu_write_ok(own, i, 16 + (i % 3) * 40);
		while (ringbuf_read_page_count(own, page,
					       ringbuf_subbuf_size(own), 0, 0,
					       &n) >= 0) {
			ASSERT_LT(pages++, 64);
			if (rbd_decode(page, ringbuf_subbuf_size(own), true,
				       &dp, err, sizeof(err)))
				RBT_FAIL("own page %u: %s", pages, err);
			ASSERT_EQ(n, dp.ndata);
			total += n;
		}
		ASSERT_EQ(total, BR_RECORDS);
		ringbuf_free_read_page(own, 0, page);
		ringbuf_free(own);
	}
	arm_alarm(0);
}

/* 7. attached_view_refuses                                            */

static void attached_view_refuses(void)
{
	char name[128], path[4096];
	struct ringbuf *rb, *v, *anon;
	struct tu_ev a[128], b[128];
	size_t na, nb;

	arm_alarm(30);
	name_of(name, sizeof(name), "view");
	rb = create_named(name, 4, 0, 2, RINGBUF_NO_SPARES);
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 100; i++)
		tu_write_ok(rb, i, 40);
	ringbuf_test_set_cpu(1);
	for (uint32_t i = 0; i < 20; i++)
		tu_write_ok(rb, 1000 + i, 40);
	ringbuf_test_set_cpu(-1);

	set_step("attach while the creator is open");
	v = attach_ok(name, 0);
	ASSERT_EQ(ringbuf_nr_cpus(v), 2);
	ASSERT_EQ(ringbuf_subbuf_size(v), ringbuf_subbuf_size(rb));
	ASSERT_EQ(ringbuf_max_event_size(v), ringbuf_max_event_size(rb));
	ASSERT_EQ(ringbuf_size(v, 0), ringbuf_size(rb, 0));
	ASSERT_EQ(ringbuf_clock(v), ringbuf_clock(rb));
	ASSERT_EQ_U(ringbuf_entries_cpu(v, 0), 100);
	ASSERT_EQ_U(ringbuf_entries_cpu(v, 1), 20);

	/* writes refused, errno untouched */
	set_step("writes on the view");
	{
		unsigned char buf[40];
		int ret;

		tu_fill(buf, 5000, sizeof(buf));
		errno = RBT_ERRNO_SENTINEL;
		ret = ringbuf_write(v, sizeof(buf), buf);
		if (ret >= 0)
			RBT_FAIL("ringbuf_write on an attached view returned "
				 "%d", ret);
		ASSERT_EQ(errno, RBT_ERRNO_SENTINEL);
		ASSERT_RESERVE_NULL(ringbuf_lock_reserve(v, 40));
		ASSERT_RESERVE_NULL(ringbuf_lock_reserve(v, 0));
	}
	ASSERT_EQ_U(ringbuf_entries(rb), 120);

	/* resize, reset and swap refused */
	set_step("control on the view");
	ASSERT_ERR(ringbuf_resize(v, TU_PAGES(8), 0), EPERM);
	ASSERT_ERR(ringbuf_resize(v, TU_PAGES(8), RINGBUF_ALL_CPUS), EPERM);
	ringbuf_reset_cpu(v, 0);
	ringbuf_reset(v);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 0), 100);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 1), 20);
	anon = tu_create(4, 0, 2, RINGBUF_PER_CPU);
	ringbuf_test_set_cpu(0);
	tu_write_ok(anon, 77, 40);
	ringbuf_test_set_cpu(-1);
	ASSERT_LT(ringbuf_swap_cpu(v, anon, 0), 0);
	ASSERT_LT(ringbuf_swap_cpu(anon, v, 0), 0);
	ASSERT_EQ_U(ringbuf_entries_cpu(rb, 0), 100);
	ASSERT_EQ_U(ringbuf_entries_cpu(anon, 0), 1);
	ringbuf_free(anon);

	ASSERT_EQ(ringbuf_size(rb, 0), ringbuf_size(v, 0));
	ASSERT_EQ_U(ringbuf_entries(rb), 120);

	/* both see the same events */
	set_step("iterators");
	na = tu_iter_all(rb, 0, a, 128);
	nb = tu_iter_all(v, 0, b, 128);
	ASSERT_EQ(na, 100);
	tu_assert_same(a, na, b, nb);

	/* creator and view consume one sequence between them */
	set_step("alternate consumers");
	for (uint32_t i = 0; i < 100; i++) {
		struct ringbuf *who = i % 2 ? v : rb;
		struct ringbuf_event *ev = ringbuf_consume(who, 0, NULL, NULL);

		if (!ev)
			RBT_FAIL("event %u missing (read by the %s)", i,
				 i % 2 ? "view" : "creator");
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 40);
	}
	ASSERT_NULL(ringbuf_consume(v, 0, NULL, NULL));
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ASSERT_EQ_U(ringbuf_read_events_cpu(rb, 0), 100);
	ASSERT_EQ_U(ringbuf_read_events_cpu(v, 0), 100);

	/* read_page on the view */
	set_step("read_page on the view");
	{
		size_t psz = ringbuf_subbuf_size(v);
		void *page = ringbuf_alloc_read_page(v, 1);
		char err[256];
		uint32_t k = 0;

		ASSERT_NOT_NULL(page);
		ASSERT_EQ(ringbuf_read_page(v, page, psz, 1, 0), 0);
		if (rbd_decode(page, psz, true, &g_page, err, sizeof(err)))
			RBT_FAIL("read_page on the view: %s", err);
		for (unsigned int i = 0; i < g_page.nrec; i++) {
			const struct rbd_rec *r = &g_page.recs[i];

			if (r->kind != RBD_DATA)
				continue;
			tu_check(r->payload, r->len, 1000 + k, 40);
			k++;
		}
		ASSERT_EQ(k, 20);
		ASSERT_EQ(ringbuf_read_page(v, page, psz, 1, 0), -ENODATA);
		ringbuf_free_read_page(v, 1, page);
		ASSERT_EQ_U(ringbuf_read_events_cpu(rb, 1), 20);
	}

	/* new writes of the creator show in the view */
	set_step("later writes");
	ringbuf_test_set_cpu(1);
	for (uint32_t i = 0; i < 5; i++)
		tu_write_ok(rb, 2000 + i, 40);
	ringbuf_test_set_cpu(-1);
	for (uint32_t i = 0; i < 5; i++) {
		int cpu = -1;
		struct ringbuf_event *ev =
			ringbuf_consume_next(v, &cpu, NULL, NULL);

		ASSERT_NOT_NULL(ev);
		ASSERT_EQ(cpu, 1);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 2000 + i, 40);
	}
	ASSERT_NULL(ringbuf_consume_next(v, NULL, NULL, NULL));

	/* the creator goes away: its file goes, the view drains the rest */
	set_step("creator freed");
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 3; i++)
		tu_write_ok(rb, 3000 + i, 40);
	ringbuf_test_set_cpu(-1);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(path));
	for (uint32_t i = 0; i < 3; i++) {
		struct ringbuf_event *ev = ringbuf_consume(v, 0, NULL, NULL);

		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 3000 + i, 40);
	}
	ASSERT_NULL(ringbuf_consume(v, 0, NULL, NULL));
	ringbuf_free(v);
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */
/* 8. foreign_file                                                     */

static void foreign_file(void)
{
	char name[128], path[4096];
	struct ringbuf *rb, *v;
	struct tu_ev a[64], b[64];
	size_t na, nb;
	int fd;

	if (geteuid() != 0)
		rbt_skip("needs root to give a file to another user");
	arm_alarm(30);
	name_of(name, sizeof(name), "foreign");
	rb = create_named(name, 4, 0, 1, RINGBUF_NO_SPARES);
	snprintf(path, sizeof(path), "%s", ringbuf_path(rb));
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 30; i++)
		tu_write_ok(rb, i, 40);
	if (chown(path, 65534, 65534) != 0)
		RBT_FAIL("chown(%s, nobody): %s", path, strerror(errno));

	/* refused without the flag, by path and by descriptor */
	set_step("attach without RINGBUF_ATTACH_FOREIGN");
	errno = 0;
	v = ringbuf_attach(name, 0);
	if (v)
		RBT_FAIL("ringbuf_attach of another user's file succeeded");
	if (errno != EACCES && errno != EPERM)
		RBT_FAIL("ringbuf_attach of another user's file: errno %d "
			 "(%s), expected EACCES or EPERM", errno,
			 strerror(errno));
	fd = open(path, O_RDWR | O_NOFOLLOW);
	ASSERT_TRUE(fd >= 0);
	errno = 0;
	v = ringbuf_attach_fd(fd, 0);
	if (v)
		RBT_FAIL("ringbuf_attach_fd of another user's file "
			 "succeeded");
	if (errno != EACCES && errno != EPERM)
		RBT_FAIL("ringbuf_attach_fd of another user's file: errno %d "
			 "(%s)", errno, strerror(errno));

	/* read-only with it: the iterator and the counters only */
	set_step("attach with RINGBUF_ATTACH_FOREIGN");
	v = attach_ok(name, RINGBUF_ATTACH_FOREIGN);
	ASSERT_NULL(ringbuf_consume(v, 0, NULL, NULL));
	ASSERT_NULL(ringbuf_peek(v, 0, NULL, NULL));
	ASSERT_NULL(ringbuf_consume_next(v, NULL, NULL, NULL));
	{
		void *page = ringbuf_alloc_read_page(v, 0);

		if (page) {
			ASSERT_LT(ringbuf_read_page(v, page,
						    ringbuf_subbuf_size(v), 0,
						    0),
				  0);
			ringbuf_free_read_page(v, 0, page);
		}
	}
	{
		unsigned char buf[40];

		tu_fill(buf, 9999, sizeof(buf));
		ASSERT_LT(ringbuf_write(v, sizeof(buf), buf), 0);
	}
	ASSERT_LT(ringbuf_resize(v, TU_PAGES(8), 0), 0);
	ringbuf_reset(v);
	ASSERT_EQ_U(ringbuf_entries_cpu(v, 0), 30);
	ASSERT_EQ_U(ringbuf_read_events_cpu(v, 0), 0);
	ASSERT_EQ_U(ringbuf_overrun_cpu(v, 0), 0);
	na = tu_iter_all(v, 0, a, 64);
	ASSERT_EQ(na, 30);
	for (size_t i = 0; i < na; i++) {
		ASSERT_EQ(a[i].seq, i);
		ASSERT_EQ(a[i].len, tu_event_len(40));
	}
	/* an iterator by hand, and the creator's writes since */
	{
		struct ringbuf_iter *it;
		struct ringbuf_event *ev;
		uint32_t k = 0;

		for (uint32_t i = 30; i < 40; i++)
			tu_write_ok(rb, i, 40);
		it = ringbuf_read_start(v, 0);
		ASSERT_NOT_NULL(it);
		while ((ev = ringbuf_iter_peek(it, NULL))) {
			tu_check(ringbuf_event_data(ev),
				 ringbuf_event_length(ev), k, 40);
			k++;
			ringbuf_iter_advance(it);
		}
		ASSERT_TRUE(ringbuf_iter_empty(it));
		ringbuf_read_finish(it);
		ASSERT_EQ(k, 40);
	}
	ringbuf_free(v);

	set_step("attach_fd with RINGBUF_ATTACH_FOREIGN");
	v = ringbuf_attach_fd(fd, RINGBUF_ATTACH_FOREIGN);
	ASSERT_NOT_NULL(v);
	close(fd);
	ASSERT_NULL(ringbuf_consume(v, 0, NULL, NULL));
	na = tu_iter_all(v, 0, a, 64);
	nb = tu_iter_all(rb, 0, b, 64);
	ASSERT_EQ(na, 40);
	tu_assert_same(a, na, b, nb);
	ringbuf_free(v);

	/* nothing was consumed by the foreign views */
	set_step("the creator reads everything");
	for (uint32_t i = 0; i < 40; i++) {
		struct ringbuf_event *ev = ringbuf_consume(rb, 0, NULL, NULL);

		ASSERT_NOT_NULL(ev);
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev), i,
			 40);
	}
	ASSERT_NULL(ringbuf_consume(rb, 0, NULL, NULL));
	ringbuf_test_set_cpu(-1);
	ringbuf_free(rb);
	ASSERT_FALSE(exists_nofollow(path));
	arm_alarm(0);
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* resize_cpu_shared, resize_cpu_writer                                */

/* Consume at most @max events of @cpu of @v: each must be
 * tu_fill(seq0 + i, 40), in order. Returns how many there were. */
static size_t consume_seq(struct ringbuf *v, int cpu, uint32_t seq0,
			  size_t max)
{
	struct ringbuf_event *ev;
	size_t n = 0;

	while (n < max && (ev = ringbuf_consume(v, cpu, NULL, NULL)) != NULL) {
		tu_check(ringbuf_event_data(ev), ringbuf_event_length(ev),
			 seq0 + (uint32_t)n, 40);
		n++;
	}
	return n;
}

static void resize_cpu_shared(void)
{
	char name[128], go = 'g';
	struct ringbuf *rb, *v;
	size_t old0, old1, full;
	struct stat st0, st1;
	int p2c[2], c2p[2], st;
	pid_t pid;

	arm_alarm(30);
	name_of(name, sizeof(name), "rs1");
	rb = create_named(name, 4, 0, 2, RINGBUF_NO_SPARES);
	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < 30; i++)
		tu_write_ok(rb, i, 40);
	ringbuf_test_set_cpu(1);
	for (uint32_t i = 0; i < 20; i++)
		tu_write_ok(rb, 1000 + i, 40);
	ringbuf_test_set_cpu(-1);
	old0 = ringbuf_size(rb, 0);
	old1 = ringbuf_size(rb, 1);
	ASSERT_EQ(old0, 4 * 4096);
	ASSERT_EQ(fstat(ringbuf_fd(rb), &st0), 0);

	set_step("a child attaches before the resize");
	pipe_ok(p2c);
	pipe_ok(c2p);
	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *cv = attach_ok(name, 0);

		/* bound to the old layout: read cpu 1 once */
		ASSERT_EQ(ringbuf_size(cv, 0), 4 * 4096);
		write_full(c2p[1], &go, 1, "ready");
		read_full(p2c[0], &go, 1, 10000, "go");
		/* the resize moved both cpu buffers in the file */
		ASSERT_EQ(ringbuf_size(cv, 0), 8 * 4096);
		ASSERT_EQ(ringbuf_size(cv, 1), 4 * 4096);
		ASSERT_EQ(consume_seq(cv, 1, 1000, SIZE_MAX), 20);
		ASSERT_EQ(consume_seq(cv, 0, 100, 50), 50);
		ASSERT_EQ_U(ringbuf_overrun_cpu(cv, 0), 25);
		ringbuf_free(cv);
		_exit(0);
	}
	read_full(c2p[0], &go, 1, 10000, "ready");

	set_step("a view here reads some of cpu 0");
	v = attach_ok(name, 0);
	ASSERT_EQ(consume_seq(v, 0, 0, 5), 5);

	set_step("resize cpu 0");
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(8), 0), 0);
	ASSERT_EQ(ringbuf_size(rb, 0), 8 * 4096);
	ASSERT_EQ(ringbuf_size(rb, 1), old1);
	/* the view follows */
	ASSERT_EQ(ringbuf_size(v, 0), 8 * 4096);
	ASSERT_EQ(ringbuf_size(v, 1), old1);
	/* conservation on cpu 0: 30 written = 5 read + 25 overrun */
	ASSERT_EQ_U(ringbuf_entries_cpu(v, 0), 0);
	ASSERT_EQ_U(ringbuf_read_events_cpu(v, 0), 5);
	ASSERT_EQ_U(ringbuf_overrun_cpu(v, 0), 25);

	set_step("the new size takes more than the old one held");
	ringbuf_test_set_cpu(0);
	for (full = 0; tu_write(rb, 100 + (uint32_t)full, 40) == 0; full++)
		;
	ringbuf_test_set_cpu(-1);
	/* more 44-byte records than 4 whole pages hold */
	ASSERT_GT(full, 4 * TU_PAGE_DATA / 44);
	ASSERT_EQ(ringbuf_entries_cpu(v, 0), full);

	set_step("the child follows");
	/* it checks 50 of them; the rest are ours */
	write_full(p2c[1], &go, 1, "go");
	st = wait_child(pid, 20, "child view");
	expect_exit0(st, "child view");
	ASSERT_EQ(consume_seq(v, 0, 150, SIZE_MAX), full - 50);
	ASSERT_EQ(consume_seq(v, 1, 1000, SIZE_MAX), 0);

	set_step("shrink: the file does not");
	ASSERT_EQ(ringbuf_resize(rb, TU_PAGES(2), 0), 0);
	ASSERT_EQ(ringbuf_size(v, 0), 2 * 4096);
	ASSERT_EQ(fstat(ringbuf_fd(rb), &st1), 0);
	ASSERT_GE(st1.st_size, st0.st_size + 4 * 4096);
	ringbuf_test_set_cpu(0);
	tu_write_ok(rb, 7, 40);
	ringbuf_test_set_cpu(-1);
	ASSERT_EQ(consume_seq(v, 0, 7, SIZE_MAX), 1);
	/* a view attached now sees the new geometry */
	{
		struct ringbuf *v2 = attach_ok(name, 0);

		ASSERT_EQ(ringbuf_size(v2, 0), 2 * 4096);
		ASSERT_EQ(ringbuf_size(v2, 1), old1);
		ringbuf_free(v2);
	}
	ringbuf_free(v);
	ringbuf_free(rb);
	arm_alarm(0);
}

#define RW_WRITES 20000u

/*
 * The writer writes RW_WRITES times at least, and on until the resizes
 * are done (@stop), a yield between writes then: the resizes happen under
 * a writer however the two threads are scheduled. The creator starts
 * resizing once it wrote (@first): its writes may all land while
 * recording is off for a resize otherwise (at 10 % of a CPU, none did).
 */
struct rw_writer {
	struct ringbuf *rb;
	_Atomic int stop;
	_Atomic int first;
	uint32_t written, refused, tries;
};

static void *rw_write(void *arg)
{
	struct rw_writer *w = arg;

	ringbuf_test_set_cpu(0);
	for (uint32_t i = 0; i < RW_WRITES || !atomic_load(&w->stop); i++) {
		w->tries++;
		if (tu_write(w->rb, w->written, 40) == 0) {
			w->written++;
			atomic_store(&w->first, 1);
		} else {
			w->refused++;
		}
		if (i >= RW_WRITES)
			sched_yield();
	}
	return NULL;
}

/*
 * Resize cpu buffer @cpu of @rb while a reader of another process reads
 * it: ringbuf_resize() waits for that reader's lock in the file only as
 * long as a reader waits for it (rb_shared_lock(): 20 ms), then returns
 * -EBUSY. A reader preempted while it holds the lock (a loaded machine)
 * makes the resize busy: it is tried again until the reader lets go (each
 * try waits its 20 ms; at most 1000 tries, stretched by RB_TIMEOUT_MULT).
 * Returns the last result; counts the busy tries in @busy.
 */
static int resize_past_reader(struct ringbuf *rb, size_t size, int cpu,
			      unsigned int *busy)
{
	unsigned int n = 1000 * rbt_timeout_mult();
	int ret;

	do {
		ret = ringbuf_resize(rb, size, cpu);
		if (ret != -EBUSY)
			break;
		(*busy)++;
	} while (--n);
	return ret;
}

static void resize_cpu_writer(void)
{
	char name[128], go = 'g';
	struct rw_writer w = { 0 };
	unsigned long long got = 0;
	unsigned int busy = 0;
	pthread_t th;
	int p2c[2], c2p[2], st;
	pid_t pid;

	arm_alarm(60);
	name_of(name, sizeof(name), "rs2");
	w.rb = create_named(name, 4, 0, 2, RINGBUF_NO_SPARES);
	pipe_ok(p2c);
	pipe_ok(c2p);
	pid = fork_ok();
	if (pid == 0) {
		struct ringbuf *cv = attach_ok(name, 0);
		unsigned long long n = 0;
		uint32_t last = 0;
		bool done = false, any = false;

		close(p2c[1]);
		write_full(c2p[1], &go, 1, "ready");
		for (;;) {
			struct ringbuf_event *ev =
				ringbuf_consume(cv, 0, NULL, NULL);

			if (ev) {
				uint32_t seq = tu_seq(ringbuf_event_data(ev));

				tu_check(ringbuf_event_data(ev),
					 ringbuf_event_length(ev), seq, 40);
				/* in order; a resize may drop some */
				if (any && seq <= last)
					RBT_FAIL("seq %u after %u", seq, last);
				last = seq;
				any = true;
				n++;
				continue;
			}
			if (done)
				break;
			/* the parent closes the pipe when the writer is done:
			 * then one more pass drains what is left */
			{
				struct pollfd pfd = { .fd = p2c[0],
						      .events = POLLIN };

				if (poll(&pfd, 1, 1) > 0)
					done = true;
			}
		}
		write_full(c2p[1], &n, sizeof(n), "count");
		ringbuf_free(cv);
		_exit(0);
	}
	close(p2c[0]);
	read_full(c2p[0], &go, 1, 10000, "ready");

	set_step("resize cpu 0 under the writer");
	ASSERT_EQ(pthread_create(&th, NULL, rw_write, &w), 0);
	/* once it wrote (a look every millisecond, the case's alarm the
	 * bound) */
	while (!atomic_load(&w.first))
		rbt_msleep(1);
	for (int i = 0; i < 40; i++) {
		ASSERT_EQ(resize_past_reader(w.rb, TU_PAGES(i % 2 ? 3 : 9), 0,
					     &busy),
			  0);
		sched_yield();
	}
	atomic_store(&w.stop, 1);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	if (busy)
		rbt_note("%u resizes found the reader's lock held (-EBUSY) "
			 "and were tried again", busy);
	close(p2c[1]);
	read_full(c2p[0], &got, sizeof(got), 30000, "count");
	st = wait_child(pid, 20, "child reader");
	expect_exit0(st, "child reader");

	set_step("conservation");
	ASSERT_GE_U(w.tries, RW_WRITES);
	ASSERT_EQ_U(w.written + w.refused, w.tries);
	ASSERT_GT(w.written, 0);
	ASSERT_EQ_U(ringbuf_entries_cpu(w.rb, 0), 0);
	ASSERT_EQ_U(ringbuf_read_events_cpu(w.rb, 0), got);
	if (got + ringbuf_overrun_cpu(w.rb, 0) != w.written)
		RBT_FAIL("written %u != read %llu + overrun %lu", w.written,
			 got, ringbuf_overrun_cpu(w.rb, 0));
	/* refused: full (counted dropped) or mid-resize (not counted) */
	ASSERT_LE_U(ringbuf_dropped_events_cpu(w.rb, 0), w.refused);
	ASSERT_EQ(ringbuf_size(w.rb, 0), 3 * 4096);
	ringbuf_free(w.rb);
	arm_alarm(0);
}

static const struct rbt_case cases[] = {
	RBT_CASE(named_file),
	RBT_CASE(memfd),
	RBT_CASE(cross_process_overwrite),
	RBT_CASE(cross_process_pc),
	RBT_CASE(cross_process_overwrite_page),
	RBT_CASE(cross_process_pc_page),
	RBT_CASE(cross_process_two_readers),
	RBT_CASE(memfd_child),
	RBT_CASE(killed_reader),
	RBT_CASE(killed_reader_steps),
	RBT_CASE(killed_reader_reset),
	RBT_CASE(attach_head_moving),
	RBT_CASE(attach_errors),
	RBT_CASE(spare_buffers),
	RBT_CASE(corrupt_write_index),
	RBT_CASE(bad_record_page),
	RBT_CASE(attached_view_refuses),
	RBT_CASE(foreign_file),
	RBT_CASE(resize_cpu_shared),
	RBT_CASE(resize_cpu_writer),
	RBT_CASE(cpu_file_range),
	RBT_CASE(populate_cpu),
};

int main(int argc, char **argv)
{
	return shm_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]),
			     clean_all);
}
