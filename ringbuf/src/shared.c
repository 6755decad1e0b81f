// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared.c - what only userspace has: buffers in a file that other
 * processes map (the named file, its mapping and its process-shared
 * locks), and attaching to another process's buffer.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Free space, in file sizes, under which a buffer file's blocks are taken
 * when it is made. */
#define RB_MAP_SPARSE_ROOM 4

/* Has the file system of @fd room for @size bytes RB_MAP_SPARSE_ROOM
 * times over? */
static bool rb_map_room(int fd, size_t size)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv))
		return false;
	return (unsigned __int128)sv.f_bavail * sv.f_frsize >=
	       (unsigned __int128)size * RB_MAP_SPARSE_ROOM;
}

/* Map @size bytes: of @fd (sized to fit) if it is >= 0, else anonymous.
 * MAP_SHARED either way: the pages are what other processes see. */
void *rb_map_alloc(size_t size, int fd)
{
	void *map;
	int err;

	if (fd >= 0 && ftruncate(fd, (off_t)size))
		return NULL;
	/*
	 * Userspace: the kernel allocates a buffer's pages when it makes it.
	 * A sparse file gets its blocks at the first write to each page,
	 * and on a full file system (a small tmpfs) that write kills the
	 * writer with SIGBUS. Where the file system has room for the file
	 * RB_MAP_SPARSE_ROOM times over, the file stays sparse: a cpu
	 * buffer nobody writes (a spare, or the buffer of a cpu the program
	 * never ran on) then costs no memory, and its pages are not zeroed
	 * before the program starts (taking 256 MiB took 50 to 90 ms). A
	 * file system that fills up in the meantime can still SIGBUS the
	 * writer; below that room the blocks are taken now, and a full
	 * file system is an ENOSPC here.
	 */
	if (fd >= 0 && !rb_map_room(fd, size) &&
	    (err = posix_fallocate(fd, 0, (off_t)size)) != 0) {
		errno = err;
		return NULL;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   fd >= 0 ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS, fd, 0);
	return map == MAP_FAILED ? NULL : map;
}

/*
 * Where a plain name lives: $XDG_RUNTIME_DIR if it is set and absolute,
 * else /dev/shm. Absolute paths are used as they are. Returns a malloc'ed
 * path, or NULL with errno set (EINVAL for a name that is neither).
 */
char *rb_shm_path(const char *name)
{
	const char *dir = secure_getenv("XDG_RUNTIME_DIR");
	char *path;

	if (!name || !*name || strlen(name) > 255) {
		errno = EINVAL;
		return NULL;
	}
	if (name[0] == '/')
		return strdup(name);
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
		return NULL;
	}
	if (!dir || dir[0] != '/')
		dir = "/dev/shm";
	path = malloc(strlen(dir) + strlen(name) + 2);
	if (!path) {
		errno = ENOMEM;
		return NULL;
	}
	sprintf(path, "%s/%s", dir, name);
	return path;
}

/* The readers' locks of a shared buffer: free (the file is zeroed) and
 * no swap in progress (rb_shared_lock()). */
int rb_init_shared_locks(struct ringbuf *rb)
{
	for (int c = 0; c < rb->nr_cpus; c++)
		atomic_init(&rb->buffers[c]->shared->swap_head, RB_NO_SWAP);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The readers' locks of a shared buffer                               */

/*
 * A reader of a shared buffer holds, for the span of one operation, the
 * owner word of its cpu buffer's struct rb_cpu_lock: 0 when free, else
 * the holder's identity, its process id in the upper 32 bits and the low
 * 32 bits of its start time (clock ticks since boot, field 22 of
 * /proc/<pid>/stat) below, so that a reused process id is not taken for
 * the holder. Taken with a compare-and-swap from 0, given back with one
 * from our identity (a word the writer overwrote meanwhile is left as
 * it is).
 *
 * Nothing in the word is trusted: a waiter that finds it taken waits
 * RB_LOCK_WAIT_NS at most (not at all while the cpu buffer stays stuck;
 * a signal handler that runs ends the wait), and while it waits it
 * looks at the holder: a word naming no live process (a reader killed
 * while holding it, a zombie, garbage, our own identity we do not hold)
 * is taken over with a compare-and-swap from what it read, and what a
 * dead reader left is repaired (rb_reader_repair()). A holder that stays
 * alive (a hostile writer holding it for good, a stopped reader) keeps
 * the others from consuming, never from returning.
 *
 * Userspace: the kernel's reader_lock is a raw spinlock of its own
 * memory.
 */
#define RB_LOCK_WAIT_NS (20 * 1000000ull)
#define RB_LOCK_SPINS 32u
#define RB_LOCK_LOOK_NS (10 * 1000000ull)
#define RB_LOCK_TRIES_MAX 4000u

struct rb_lock_word {
	_Atomic uint64_t owner;
};
_Static_assert(sizeof(struct rb_lock_word) <=
		       sizeof(((struct rb_cpu_lock *)0)->lock),
	       "the owner word fits the lock bytes");

static _Atomic uint64_t rb_self_id;
__thread bool rb_lock_interrupted;

static void rb_atfork_child(void)
{
	/* Relaxed: one thread runs in the child at this point. */
	atomic_store_explicit(&rb_self_id, 0, memory_order_relaxed);
}

static pthread_once_t rb_atfork_once = PTHREAD_ONCE_INIT;

static void rb_atfork_init(void)
{
	pthread_atfork(NULL, NULL, rb_atfork_child);
}

/* The state letter and start time of process @pid, from
 * /proc/<pid>/stat: false if it cannot be read (no such process). */
static bool rb_proc_stat(pid_t pid, char *state, uint64_t *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* after the name, which may hold anything: the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return false;
	p += 2;
	*state = *p;
	/* field 3 is the state; field 22 the start time */
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return false;
	*start = strtoull(p, NULL, 10);
	return true;
}

/* This process's identity in an owner word. */
static uint64_t rb_lock_self(void)
{
	/* Relaxed: the same value whichever thread computes it. */
	uint64_t id = atomic_load_explicit(&rb_self_id, memory_order_relaxed);
	pid_t pid;
	uint64_t start = 0;
	char state;

	if (id)
		return id;
	pthread_once(&rb_atfork_once, rb_atfork_init);
	pid = getpid();
	if (!rb_proc_stat(pid, &state, &start))
		start = 0;
	id = (uint64_t)(uint32_t)pid << 32 | (uint32_t)start;
	atomic_store_explicit(&rb_self_id, id, memory_order_relaxed);
	return id;
}

/* Whether the owner word @w names a live process other than us; only
 * by its pid unless @full (then by its /proc entry: not a zombie, and
 * the start time of @w, so that a reused pid is not taken for it). */
static bool rb_lock_owner_alive(uint64_t w, uint64_t self, bool full)
{
	pid_t pid = (pid_t)(uint32_t)(w >> 32);
	uint64_t start;
	char state;

	/* We do not hold it (the process-local lock says so). */
	if (w == self)
		return false;
	if (pid <= 0 || pid > (1 << 22))
		return false;
	if (kill(pid, 0) && errno == ESRCH)
		return false;
	if (!full)
		return true;
	if (!rb_proc_stat(pid, &state, &start))
		return false;
	return state != 'Z' && state != 'X' && (uint32_t)start == (uint32_t)w;
}

static _Atomic uint64_t *rb_lock_owner(struct ringbuf_cpu *cb)
{
	return &((struct rb_lock_word *)(void *)cb->shared->lock)->owner;
}

static uint64_t rb_lock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * rb_shared_lock - take cpu buffer @cb's lock in the file, with its
 * process-local reader_lock held. @wait: wait up to RB_LOCK_WAIT_NS for
 * a live holder (not while the cpu buffer is stuck). Returns 0, -EBUSY
 * (a live process holds it) or -EINTR (a signal handler ran while
 * waiting).
 */
int rb_shared_lock(struct ringbuf_cpu *cb, bool wait)
{
	_Atomic uint64_t *word = rb_lock_owner(cb);
	uint64_t self = rb_lock_self(), start = 0;

	for (unsigned int i = 0; i < RB_LOCK_TRIES_MAX; i++) {
		struct timespec ts = { 0, i < 2 * RB_LOCK_SPINS ? 20000 : 200000 };
		uint64_t w = 0, now;
		bool full;

		/* Acquire: pairs with the release in rb_shared_unlock() (the
		 * last holder's reads and writes of the cpu buffer before
		 * ours). Failure just retries or looks at the holder. */
		if (atomic_compare_exchange_strong_explicit(
			    word, &w, self, memory_order_acquire,
			    memory_order_relaxed)) {
			cb->lock_stuck = false;
			return 0;
		}
		/* A short spin, unless we would not wait anyway (a cpu
		 * buffer stuck on a holder costs one look per try). */
		if (i < RB_LOCK_SPINS && wait && !cb->lock_stuck) {
			if (i < RB_LOCK_SPINS / 2) {
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#endif
			} else {
				sched_yield();
			}
			continue;
		}
		/* A cpu buffer stuck on a live holder: its /proc entry is
		 * read again every RB_LOCK_LOOK_NS, not at every try. */
		now = rb_lock_now_ns();
		full = !cb->lock_stuck ||
		       now - cb->lock_looked >= RB_LOCK_LOOK_NS;
		if (full)
			cb->lock_looked = now;
		/* Held for a while: by someone alive? A dead holder's
		 * word is taken over from the value that named it.
		 * Acquire: as above (pairs with the release in
		 * rb_shared_unlock(); a dead holder's stores reached the
		 * file before it died). Failure: the word changed, look
		 * again. */
		if (!rb_lock_owner_alive(w, self, full) &&
		    atomic_compare_exchange_strong_explicit(
			    word, &w, self, memory_order_acquire,
			    memory_order_relaxed)) {
			cb->lock_stuck = false;
			return 0;
		}
		if (!wait || cb->lock_stuck)
			return -EBUSY;
		now = rb_lock_now_ns();
		if (!start)
			start = now;
		if (now - start > RB_LOCK_WAIT_NS) {
			cb->lock_stuck = true;
			return -EBUSY;
		}
		/* nanosleep() ends at a signal whatever SA_RESTART says: the
		 * caller's handler then gets to act at once. */
		if (nanosleep(&ts, NULL) && errno == EINTR) {
			rb_lock_interrupted = true;
			return -EINTR;
		}
	}
	cb->lock_stuck = true;
	return -EBUSY;
}

void rb_shared_unlock(struct ringbuf_cpu *cb)
{
	uint64_t self = rb_lock_self();

	/* Release: our reads and writes of the cpu buffer before the next
	 * holder's; pairs with the acquire in rb_shared_lock(). A word
	 * that no longer names us (overwritten) is left alone. */
	atomic_compare_exchange_strong_explicit(rb_lock_owner(cb), &self, 0,
						memory_order_release,
						memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* SIGBUS from a file truncated under a view                           */

/*
 * A view maps a file that another process can truncate at any moment;
 * touching a page past the new end of the file raises SIGBUS. The reader
 * cannot check the size first (the file can shrink between the check and
 * the load), so it lets the fault happen: libringbuf's SIGBUS handler,
 * installed at the first attach, finds the address in a mapping of a
 * view (rb_guard_add()), maps anonymous zero pages over that whole
 * mapping in its place (the faulting load then reads a zero; every value
 * a reader takes from the file is checked, zeros included), and marks
 * the view: ringbuf_view_error() reports -EIO and the reads of the view
 * return nothing from then on. A SIGBUS at any other address goes to the
 * handler that was installed before ours (or kills the process as it
 * would have).
 *
 * Userspace: the kernel's readers never map memory another process can
 * take away.
 */
#define RB_GUARD_SLOTS 256

static struct rb_guard {
	_Atomic uintptr_t start; /* 0: a free slot */
	_Atomic size_t len;
	_Atomic(_Atomic int *) err;
	_Atomic int fault; /* -EIO once faulted (ringbuf_mapping_error()) */
} rb_guards[RB_GUARD_SLOTS];

static struct sigaction rb_bus_prev;
static pthread_once_t rb_bus_once = PTHREAD_ONCE_INIT;

static void rb_bus_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	int saved = errno;

	for (int i = 0; i < RB_GUARD_SLOTS; i++) {
		/* Acquire: pairs with the release store of start in
		 * rb_guard_add(), after len and err. */
		uintptr_t start = atomic_load_explicit(&rb_guards[i].start,
						       memory_order_acquire);
		size_t len = atomic_load_explicit(&rb_guards[i].len,
						  memory_order_relaxed);
		_Atomic int *err;

		if (!start || addr - start >= len)
			continue;
		if (mmap((void *)start, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break;
		err = atomic_load_explicit(&rb_guards[i].err,
					   memory_order_relaxed);
		if (err)
			atomic_store_explicit(err, -EIO, memory_order_relaxed);
		atomic_store_explicit(&rb_guards[i].fault, -EIO,
				      memory_order_relaxed);
		errno = saved;
		return;
	}
	errno = saved;
	if (rb_bus_prev.sa_flags & SA_SIGINFO) {
		rb_bus_prev.sa_sigaction(sig, si, uc);
	} else if (rb_bus_prev.sa_handler != SIG_DFL &&
		   rb_bus_prev.sa_handler != SIG_IGN) {
		rb_bus_prev.sa_handler(sig);
	} else {
		/* As if we were not here: the fault repeats and kills. */
		signal(SIGBUS, SIG_DFL);
	}
}

static void rb_bus_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rb_bus_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &rb_bus_prev);
}

/*
 * rb_guard_add - turn a SIGBUS at [@addr, @addr + @len) into a mapping of
 * zeros there and -EIO in *@err. Returns 0, or -ENOSPC when every slot is
 * taken (the mapping then faults as before).
 */
int rb_guard_add(void *addr, size_t len, _Atomic int *err)
{
	pthread_once(&rb_bus_once, rb_bus_install);
	for (int i = 0; i < RB_GUARD_SLOTS; i++) {
		uintptr_t expect = 0;

		/* Claim the slot with a start no address matches, fill it,
		 * then publish the real start. */
		if (!atomic_compare_exchange_strong_explicit(
			    &rb_guards[i].start, &expect, UINTPTR_MAX,
			    memory_order_relaxed, memory_order_relaxed))
			continue;
		atomic_store_explicit(&rb_guards[i].len, len,
				      memory_order_relaxed);
		atomic_store_explicit(&rb_guards[i].err, err,
				      memory_order_relaxed);
		atomic_store_explicit(&rb_guards[i].fault, 0,
				      memory_order_relaxed);
		/* Release: len and err before start; pairs with the
		 * acquire in rb_bus_handler(). */
		atomic_store_explicit(&rb_guards[i].start, (uintptr_t)addr,
				      memory_order_release);
		return 0;
	}
	return -ENOSPC;
}

/* Forget the guard of the mapping at @addr, before it is unmapped. */
void rb_guard_del(void *addr)
{
	for (int i = 0; i < RB_GUARD_SLOTS; i++) {
		uintptr_t expect = (uintptr_t)addr;

		/* Relaxed: the mapping stays until the caller unmaps it
		 * after this; a handler that still matched it maps zeros
		 * over what is about to go anyway. */
		if (atomic_compare_exchange_strong_explicit(
			    &rb_guards[i].start, &expect, 0,
			    memory_order_relaxed, memory_order_relaxed))
			return;
	}
}

int ringbuf_guard_mapping(void *addr, size_t len)
{
	if (!addr || !len) {
		errno = EINVAL;
		return -EINVAL;
	}
	return rb_guard_add(addr, len, NULL);
}

void ringbuf_unguard_mapping(void *addr)
{
	if (addr)
		rb_guard_del(addr);
}

int ringbuf_mapping_error(const void *addr)
{
	for (int i = 0; addr && i < RB_GUARD_SLOTS; i++)
		/* Relaxed: a flag, set by the handler of this thread or
		 * read as a hint by another. */
		if (atomic_load_explicit(&rb_guards[i].start,
					 memory_order_relaxed) ==
		    (uintptr_t)addr)
			return atomic_load_explicit(&rb_guards[i].fault,
						    memory_order_relaxed);
	return 0;
}

int ringbuf_view_error(struct ringbuf *rb)
{
	if (!rb)
		return -EINVAL;
	/* Relaxed: a flag; set by the handler or a reader check. */
	return atomic_load_explicit(&rb->view_error, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Attaching to another process's buffer                               */

static int rb_attach_fail(const char *what, const char *why)
{
	rb_print(RINGBUF_PRINT_WARN, "libringbuf: cannot attach %s: %s\n", what,
		 why);
	return -EINVAL;
}

/* A word of the file read once: the compiler may not load it again (the
 * writer may change it between two loads), whatever its type says. */
#define RB_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Cpu buffer @c's state in the header of the file mapped at @map: where
 * the layout puts it (its offset and stride depend on the sizes of the
 * structures only), never where the header says. */
static const struct rb_cpu_meta *rb_cpu_meta_at(const void *map, int c)
{
	return (const struct rb_cpu_meta *)((const char *)map +
					    rb_align(sizeof(struct rb_meta),
						     RB_CACHELINE) +
					    (size_t)c *
						    rb_align(sizeof(struct rb_cpu_meta),
							     RB_CACHELINE));
}

/*
 * The page counts of the @nr cpu buffers of the file at @map, each read
 * once into @nr_pages and checked: from 2 to 2^24 pages, each cpu buffer
 * starting where the one before it ends. Then their layout in @l, which
 * must be the one the header gives (@hdr, a copy read once). The caller
 * checked that the cpu states lie inside the mapping. Returns 0 or
 * -EINVAL with *@why set.
 */
static int rb_geometry_check(struct ringbuf *rb, const void *map,
			     const struct rb_meta *hdr, uint32_t *nr_pages,
			     struct rb_layout *l, const char **why)
{
	uint32_t first = 0;

	for (int c = 0; c < rb->nr_cpus; c++) {
		const struct rb_cpu_meta *m = rb_cpu_meta_at(map, c);
		uint32_t n = RB_ONCE(m->nr_pages);

		if (n < 2 || n > (1u << 24) || RB_ONCE(m->first_page) != first) {
			*why = "bad cpu buffer geometry";
			return -EINVAL;
		}
		nr_pages[c] = n;
		first += n + 1;
	}
	if (rb_layout(rb, nr_pages, l) || l->map_size != hdr->map_size ||
	    l->total_pages != hdr->total_pages ||
	    l->lock_off != hdr->lock_off || l->lock_size != hdr->lock_size ||
	    l->page_ctl_off != hdr->page_ctl_off ||
	    l->data_off != hdr->data_off) {
		*why = "layout does not match the geometry";
		return -EINVAL;
	}
	return 0;
}

/* Every page id cpu buffer @c holds, in the file at @map laid out as @l:
 * within the cpu buffer. Each is loaded once; the writer moves them. */
static bool rb_ids_check(const void *map, const struct rb_layout *l, int c)
{
	const struct rb_cpu_meta *m = rb_cpu_meta_at(map, c);
	uint32_t n = l->nr_pages[c];
	size_t first = 0;
	const struct rb_page_ctl *pages;

	for (int i = 0; i < c; i++)
		first += (size_t)l->nr_pages[i] + 1;
	pages = (const struct rb_page_ctl *)((const char *)map +
					     l->page_ctl_off) +
		first;
	if (atomic_load(&m->head_page) > n || atomic_load(&m->tail_page) > n ||
	    atomic_load(&m->commit_page) > n ||
	    atomic_load(&m->reader_page) > n)
		return false;
	for (uint32_t i = 0; i <= n; i++)
		if (rb_link_id(atomic_load(&pages[i].next)) > n ||
		    atomic_load(&pages[i].prev) > n)
			return false;
	return true;
}

/*
 * rb_attach_check - validate the file before anything in it is followed:
 * the header, the geometry of every cpu buffer against the layout it
 * implies, and every page id the cpu buffers hold. The writer may run
 * meanwhile (and rewrite anything), so every value is read once, checked,
 * and only the checked copy is used: the header is copied, the counts
 * are kept in *@nr_pages_out and the layout in @l, the offsets are the
 * layout's. Ids the writer moves are checked again at each use.
 */
static int rb_attach_check(struct ringbuf *rb, const void *map, size_t size,
			   uint32_t **nr_pages_out, struct rb_layout *l,
			   const char *what)
{
	struct rb_meta hdr;
	uint32_t *nr_pages;
	const char *why = NULL;

	if (size < sizeof(hdr))
		return rb_attach_fail(what, "not a ringbuf file (bad magic)");
	memcpy(&hdr, map, sizeof(hdr));
	if (hdr.magic != RB_META_MAGIC)
		return rb_attach_fail(what, "not a ringbuf file (bad magic)");
	if (hdr.version != RB_META_VERSION ||
	    hdr.meta_struct_len != sizeof(hdr))
		return rb_attach_fail(what, "unsupported layout version");
	if (hdr.subbuf_size < RB_PAGE_SIZE_MIN ||
	    hdr.subbuf_size > (RB_PAGE_SIZE_MIN << RB_SUBBUF_ORDER_MAX) ||
	    (hdr.subbuf_size & (hdr.subbuf_size - 1)))
		return rb_attach_fail(what, "bad sub-buffer size");
	if (!hdr.nr_cpus || hdr.nr_cpus > 8192 || !hdr.nr_cpu_bufs ||
	    hdr.nr_cpu_bufs > hdr.nr_cpus)
		return rb_attach_fail(what, "bad cpu buffer count");
	if (hdr.clock > RINGBUF_CLOCK_TSC || hdr.model > RINGBUF_PER_THREAD)
		return rb_attach_fail(what, "bad clock or writer model");
	/* Larger is fine: a resize of a shared buffer never shrinks it. */
	if (hdr.map_size > size)
		return rb_attach_fail(what, "file smaller than its header says (truncated?)");
	if (!(hdr.flags & RB_META_SHARED))
		return rb_attach_fail(what, "not a shared buffer");

	rb->subbuf_size = hdr.subbuf_size;
	rb->bsize = rb->subbuf_size - RINGBUF_PAGE_HDR_SIZE;
	rb->max_data_size = rb->bsize - RB_EVNT_HDR_SIZE - sizeof(uint32_t) -
			    RB_LEN_TIME_EXTEND;
	rb->nr_cpus = (int)hdr.nr_cpus;
	rb->nr_cpu_bufs = (int)hdr.nr_cpu_bufs;
	rb->clock = (int)hdr.clock;
	rb->model = (int)hdr.model;
	rb->creator_pid = (pid_t)hdr.creator_pid;

	/* The cpu meta array depends on the cpu count only. */
	if (hdr.cpu_meta_off != rb_align(sizeof(struct rb_meta), RB_CACHELINE) ||
	    hdr.cpu_meta_size !=
		    rb_align(sizeof(struct rb_cpu_meta), RB_CACHELINE) ||
	    hdr.cpu_meta_off + (size_t)rb->nr_cpus * hdr.cpu_meta_size > size)
		return rb_attach_fail(what, "bad cpu state offsets");
	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	if (!nr_pages)
		return -ENOMEM;
	if (rb_geometry_check(rb, map, &hdr, nr_pages, l, &why)) {
		free(nr_pages);
		return rb_attach_fail(what, why);
	}
	for (int c = 0; c < rb->nr_cpus; c++) {
		if (!rb_ids_check(map, l, c)) {
			free(nr_pages);
			return rb_attach_fail(what, "page id out of range");
		}
	}
	*nr_pages_out = nr_pages;
	return 0;
}

/* Walks of a ring the writers keep pushing the head around
 * (rb_attach_check_ring()). */
#define RB_ATTACH_RING_WALKS 3

/*
 * One walk of the page ring of cpu buffer @cb from page @start: the
 * nr_pages links of the cycle, then the first link once more. Returns 1
 * if a link carried HEAD or UPDATE, 0 if none did, -1 if the ring is
 * broken.
 */
static int rb_attach_walk_ring(struct ringbuf_cpu *cb, uint32_t rp,
			       uint32_t start)
{
	uint32_t n = cb->nr_pages, page = start, flags = 0;

	for (uint32_t i = 0; i <= n; i++) {
		/* Acquire (seq_cst): the links are loaded in the order we
		 * walk them, and a NORMAL written by a push's release
		 * (UPDATE -> NORMAL, rb_head_page_set()) brings the push's
		 * count of pages_lost with it; see rb_attach_check_ring(). */
		uint32_t link = atomic_load(&cb->pages[page].next);
		uint32_t next = rb_link_id(link);

		flags |= link & RB_FLAG_MASK;
		RB_TESTPOINT(cb, RINGBUF_TP_ATTACH_RING);
		if (i == n)
			break;
		if (next > n || next == rp ||
		    atomic_load(&cb->pages[next].prev) != page ||
		    (next == start && i != n - 1))
			return -1;
		page = next;
	}
	if (page != start)
		return -1;
	return flags != 0;
}

/*
 * The page ring of an attached cpu buffer, under the reader locks (so no
 * swap, reset or resize relinks it meanwhile: they take them too; writers
 * only ever change the flags): every page but the reader page is on one
 * cycle of exactly nr_pages links whose prev links agree, and at least
 * one link carries HEAD or UPDATE.
 *
 * Userspace: the kernel checks a ring (rb_check_pages()) where no writer
 * moves its head; the writers of a shared buffer are other processes
 * nothing here stops, and in overwrite mode they push the head while we
 * walk. A push (rb_handle_head_page()) turns the link into the head from
 * HEAD to UPDATE, counts pages_lost, sets HEAD on the link out of it and
 * turns the first back to NORMAL: the flag moves one link on, the way we
 * walk, and some link carries it at every instant. Still a walk of the
 * nr_pages links can miss it: a push from the page the walk starts at,
 * finished between the walk's first load and its last, leaves HEAD on
 * the link the walk read first (NORMAL then) and NORMAL on the link it
 * reads last. So the walk loads its first link again at the end; then
 * the flag a walk misses must have got past that link too, two pushes
 * from where it was at the first load, and the second of them began after
 * that load: its count of pages_lost comes before the NORMAL the walk read
 * (its release) and after the count read before the walk. A walk that
 * found no flag while pages_lost did not move is a broken ring; one that
 * pages_lost moved under is made again, RB_ATTACH_RING_WALKS times at
 * most, and a ring whose head the writers keep pushing past every walk
 * passes (as rb_set_head_page() calls it busy, not broken): its readers
 * check the head at each swap anyway.
 */
static int rb_attach_check_ring(struct ringbuf_cpu *cb, const char *what)
{
	struct rb_cpu_meta *m = cb->meta;
	uint32_t rp = atomic_load(&m->reader_page);
	uint32_t start = rp == 0 ? 1 : 0;
	/* Seq_cst, before the walk's first load of a link (see above). */
	uint64_t pushed = atomic_load(&m->pages_lost), before = pushed;
	char why[160];

	for (int walk = 0; walk < RB_ATTACH_RING_WALKS; walk++) {
		int ret = rb_attach_walk_ring(cb, rp, start);
		uint64_t now;

		if (ret < 0)
			return rb_attach_fail(what, "page ring is broken");
		if (ret > 0)
			return 0;
		/* Seq_cst, after the walk's last load of a link. */
		now = atomic_load(&m->pages_lost);
		if (now == pushed) {
			snprintf(why, sizeof(why),
				 "no head page (cpu buffer %d: %u pages, reader page %u, head hint %u; %d walks, %llu pages pushed meanwhile)",
				 cb->cpu, cb->nr_pages, rp,
				 atomic_load(&m->head_page), walk + 1,
				 (unsigned long long)(now - before));
			return rb_attach_fail(what, why);
		}
		pushed = now;
	}
	return 0;
}

/*
 * Map the whole file of a shared buffer again, grown first to @need bytes
 * if it is smaller and we are its creator. Returns the mapping and its
 * size in *@sizep, or NULL with errno set.
 */
void *rb_map_grow(struct ringbuf *rb, size_t need, size_t *sizep)
{
	struct stat st;
	size_t size;
	void *map;
	int err;

	if (fstat(rb->fd, &st))
		return NULL;
	size = (size_t)st.st_size;
	if (size < need && !rb->attached) {
		/* As rb_map_alloc(): the blocks are taken now. */
		if (ftruncate(rb->fd, (off_t)need))
			return NULL;
		err = posix_fallocate(rb->fd, 0, (off_t)need);
		if (err) {
			errno = err;
			return NULL;
		}
		size = need;
	}
	if (size < need) {
		errno = EINVAL;
		return NULL;
	}
	map = mmap(NULL, size,
		   rb->read_only ? PROT_READ : PROT_READ | PROT_WRITE,
		   MAP_SHARED, rb->fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	*sizep = size;
	return map;
}

void rb_data_maps_free(struct ringbuf *rb)
{
	while (rb->data_maps) {
		struct rb_map_ref *ref = rb->data_maps;

		rb->data_maps = ref->next;
		if (rb->attached)
			rb_guard_del(ref->map);
		munmap(ref->map, ref->size);
		free(ref);
	}
}

/*
 * rb_follow_check - the geometry a resize left in the header of @rb's
 * file, read once and checked as the attach checks it (the file is not
 * trusted): 0 with the layout in @l and the page counts it refers to in
 * *@nr_pages_out (the caller frees them), or -EINVAL. The page ids the
 * writer moves are checked where they are used (rb_page()). The header stays where attach found it: only the
 * values a resize changes are read again, never the offsets of the
 * header's own parts.
 */
static int rb_follow_check(struct ringbuf *rb, struct rb_layout *l,
			   uint32_t **nr_pages_out)
{
	const struct rb_meta *meta = rb->meta;
	struct rb_meta hdr;
	uint32_t *nr_pages;
	const char *why;

	/* What a resize may change, each read once (see the release of
	 * layout_gen in rb_resize_shared(), which the caller acquired). */
	memset(&hdr, 0, sizeof(hdr));
	hdr.total_pages = RB_ONCE(meta->total_pages);
	hdr.page_ctl_off = RB_ONCE(meta->page_ctl_off);
	hdr.data_off = RB_ONCE(meta->data_off);
	hdr.map_size = RB_ONCE(meta->map_size);
	hdr.lock_off = RB_ONCE(meta->lock_off);
	hdr.lock_size = RB_ONCE(meta->lock_size);
	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	if (!nr_pages)
		return -ENOMEM;
	if (rb_geometry_check(rb, rb->map, &hdr, nr_pages, l, &why) ||
	    l->map_size > SIZE_MAX / 2) {
		free(nr_pages);
		return -EINVAL;
	}
	*nr_pages_out = nr_pages;
	return 0;
}

/*
 * rb_follow_layout - an attached view's cpu buffer takes the place a
 * resize of the shared buffer gave it (rb_resize_shared()). Called with
 * the cpu buffer's reader locks, which the resize takes too. A geometry
 * that does not check out leaves the binding as it was (still in range of
 * a mapping the view holds) and is not looked at again.
 */
void rb_follow_layout(struct ringbuf_cpu *cb)
{
	struct ringbuf *rb = cb->buffer;
	struct rb_map_ref *ref;
	struct rb_layout l;
	uint32_t *nr_pages = NULL;
	/* Acquire: pairs with the release increment in rb_resize_shared(),
	 * made after the geometry, states, pages and data it announces. */
	uint32_t gen = atomic_load_explicit(&rb->meta->layout_gen,
					    memory_order_acquire);

	if (gen == cb->layout_gen)
		return;
	pthread_mutex_lock(&rb->resize_lock);
	if (rb_follow_check(rb, &l, &nr_pages)) {
		rb_print(RINGBUF_PRINT_DEBUG,
			 "libringbuf: cpu buffer %d: the resized geometry does not check out; left as it was\n",
			 cb->cpu);
		goto out;
	}
	ref = rb->data_maps;
	if (!ref || ref->size < l.map_size) {
		ref = malloc(sizeof(*ref));
		if (!ref)
			goto out;
		ref->map = rb_map_grow(rb, l.map_size, &ref->size);
		if (!ref->map) {
			free(ref);
			goto out;
		}
		(void)rb_guard_add(ref->map, ref->size, &rb->view_error);
		ref->next = rb->data_maps;
		rb->data_maps = ref;
	}
	rb_cpu_bind(rb, cb, rb->map, ref->map, &l);
out:
	free(nr_pages);
	cb->layout_gen = gen;
	pthread_mutex_unlock(&rb->resize_lock);
}

/* Attach to the file open at @fd (ours to close). */
static struct ringbuf *rb_attach_fd(int fd, bool read_only, const char *what)
{
	struct stat st;
	struct ringbuf *rb;
	struct rb_layout l;
	uint32_t *nr_pages = NULL;
	int err;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		rb_attach_fail(what, !S_ISREG(st.st_mode) ? "not a regular file" :
				     "an empty file, not a ringbuf file");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	rb = aligned_alloc(RB_CACHELINE, rb_align(sizeof(*rb), RB_CACHELINE));
	if (!rb) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	memset(rb, 0, sizeof(*rb));
	rb->fd = fd;
	rb->writer_pidfd = -1;
	rb->attached = true;
	rb->read_only = read_only;
	rb->map_size = (size_t)st.st_size;
	pthread_mutex_init(&rb->resize_lock, NULL);
	rb->map = mmap(NULL, rb->map_size,
		       read_only ? PROT_READ : PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	if (rb->map == MAP_FAILED) {
		rb->map = NULL;
		err = errno;
		goto fail;
	}
	rb->meta = rb->map;
	/* From here a truncation of the file is an error of the view, not a
	 * SIGBUS that kills us. */
	(void)rb_guard_add(rb->map, rb->map_size, &rb->view_error);
	err = -rb_attach_check(rb, rb->map, rb->map_size, &nr_pages, &l, what);
	if (err)
		goto fail;
	/* A reader's view: the creator writes. */
	atomic_init(&rb->record_disabled, RB_BUFFER_ATTACHED);
	/* RB_BUFFER_ATTACHED, and the writers' fence if they need it */
	atomic_init(&rb->fe_slow, rb_writer_fence ? 2 : 1);
	/* To notice the writer's exit (ringbuf_wait()); -1 if unavailable. */
	rb->writer_pidfd = (int)syscall(SYS_pidfd_open, rb->creator_pid, 0);
	rb->uid = rb_new_uid();
	err = ENOMEM;
	rb->buffers = calloc((size_t)rb->nr_cpus, sizeof(*rb->buffers));
	if (!rb->buffers)
		goto fail;
	for (int c = 0; c < rb->nr_cpus; c++) {
		struct ringbuf_cpu *cb = rb_cpu_new(rb, c, &l);

		if (!cb)
			goto fail;
		/* A read-only view cannot take the lock in the file; it only
		 * iterates, which needs no lock against other readers. */
		if (read_only) {
			cb->shared = NULL;
			continue;
		}
		/* Attaching does not wait for another reader: if one holds
		 * the lock, the ring is left to the readers' own checks. */
		if (!rb_reader_trylock(cb))
			continue;
		err = -rb_attach_check_ring(cb, what);
		rb_reader_unlock(cb);
		if (err)
			goto fail;
	}
	free(nr_pages);
	/* Truncated while we looked: refused as a truncated file is. */
	err = -atomic_load(&rb->view_error);
	if (err) {
		rb_attach_fail(what, "file truncated while being attached");
		goto fail_checked;
	}
	/* The flight recorder: the writer died; make what it left readable. */
	if (!read_only && rb_writer_gone(rb))
		rb_recover_all(rb);
	return rb;

fail:
	free(nr_pages);
fail_checked:
	ringbuf_free(rb);
	errno = err;
	return NULL;
}

struct ringbuf *ringbuf_attach_fd(int fd, unsigned int flags)
{
	struct stat st;
	bool read_only;
	int mode, dup_fd;

	if (fd < 0 || (flags & ~RINGBUF_ATTACH_FOREIGN)) {
		errno = EINVAL;
		return NULL;
	}
	mode = fcntl(fd, F_GETFL);
	if (mode < 0 || fstat(fd, &st)) {
		errno = EBADF;
		return NULL;
	}
	read_only = (mode & O_ACCMODE) == O_RDONLY;
	if (st.st_uid != geteuid()) {
		if (!(flags & RINGBUF_ATTACH_FOREIGN)) {
			rb_print(RINGBUF_PRINT_WARN,
				 "libringbuf: cannot attach fd %d: owned by uid %u, not by us (RINGBUF_ATTACH_FOREIGN attaches read-only)\n",
				 fd, (unsigned int)st.st_uid);
			errno = EACCES;
			return NULL;
		}
		read_only = true;
	}
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return NULL;
	return rb_attach_fd(dup_fd, read_only, "descriptor");
}

struct ringbuf *ringbuf_attach(const char *name, unsigned int flags)
{
	struct ringbuf *rb;
	struct stat st;
	char *path;
	int fd, saved;

	if (flags & ~RINGBUF_ATTACH_FOREIGN) {
		errno = EINVAL;
		return NULL;
	}
	path = rb_shm_path(name);
	if (!path)
		return NULL;
	/* Never through a symbolic link. */
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && (flags & RINGBUF_ATTACH_FOREIGN))
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		rb_print(RINGBUF_PRINT_WARN, "libringbuf: cannot attach %s: %s\n",
			 path, strerror(saved));
		free(path);
		errno = saved;
		return NULL;
	}
	if (!fstat(fd, &st) && st.st_uid != geteuid()) {
		if (!(flags & RINGBUF_ATTACH_FOREIGN)) {
			rb_print(RINGBUF_PRINT_WARN,
				 "libringbuf: cannot attach %s: owned by uid %u, not by us (RINGBUF_ATTACH_FOREIGN attaches read-only)\n",
				 path, (unsigned int)st.st_uid);
			close(fd);
			free(path);
			errno = EACCES;
			return NULL;
		}
		/* Read-only: reopen without write access. */
		close(fd);
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			free(path);
			return NULL;
		}
		rb = rb_attach_fd(fd, true, path);
	} else {
		rb = rb_attach_fd(fd, false, path);
	}
	saved = errno;
	if (rb)
		rb->path = path;
	else
		free(path);
	errno = saved;
	return rb;
}

int ringbuf_fd(struct ringbuf *rb)
{
	if (rb && rb->fd >= 0)
		return rb->fd;
	errno = EINVAL;
	return -EINVAL;
}

/* The file offset of @at if a mapping of @rb's file (each maps it from
 * offset 0) holds [@at, @at + @len); false otherwise. */
static bool rb_file_offset(struct ringbuf *rb, const unsigned char *at,
			   size_t len, uint64_t *off)
{
	const unsigned char *base = rb->map;
	struct rb_map_ref *m = rb->data_maps;
	size_t size = rb->map_size;

	for (;;) {
		if (base && at >= base && len <= size &&
		    (size_t)(at - base) <= size - len) {
			*off = (uint64_t)(at - base);
			return true;
		}
		if (!m)
			return false;
		base = m->map;
		size = m->size;
		m = m->next;
	}
}

int ringbuf_cpu_file_range(struct ringbuf *rb, int cpu, uint64_t *off,
			   uint64_t *len)
{
	struct ringbuf_cpu *cb = rb_cpu(rb, cpu);
	size_t bytes;

	if (!cb || rb->fd < 0 || !cb->data)
		return -EINVAL;
	bytes = ((size_t)cb->nr_pages + 1) << cb->subbuf_shift;
	if (!rb_file_offset(rb, cb->data, bytes, off))
		return -EINVAL;
	*len = bytes;
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

long ringbuf_populate_cpu(struct ringbuf *rb, int cpu, size_t from, size_t len)
{
	struct ringbuf_cpu *cb = rb_cpu(rb, cpu);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes, end;

	if (!cb || !cb->data)
		return -EINVAL;
	bytes = ((size_t)cb->nr_pages + 1) << cb->subbuf_shift;
	if (from >= bytes)
		return 0;
	/* whole pages: the sub-buffers are page aligned */
	from &= ~(page - 1);
	end = len > bytes - from ? bytes : from + len;
	end = (end + page - 1) & ~(page - 1);
	if (end > bytes)
		end = bytes;
	if (madvise(cb->data + from, end - from, MADV_POPULATE_WRITE))
		return -errno;
	return (long)(end - from);
}

const char *ringbuf_path(struct ringbuf *rb)
{
	return rb && !rb->attached ? rb->path : NULL;
}
