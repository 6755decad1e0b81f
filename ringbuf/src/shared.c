// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shared.c - what only userspace has: buffers in a file that other
 * processes map (the named file, its mapping and its process-shared
 * locks), and attaching to another process's buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
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

/* The robust, process-shared readers' locks of a shared buffer. */
int rb_init_shared_locks(struct ringbuf *rb)
{
	pthread_mutexattr_t attr;
	int err = 0;

	if (pthread_mutexattr_init(&attr))
		return -ENOMEM;
	if (pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST))
		err = -ENOTSUP;
	for (int c = 0; !err && c < rb->nr_cpus; c++) {
		struct rb_cpu_lock *l = rb->buffers[c]->shared;

		if (pthread_mutex_init(&l->lock, &attr))
			err = -ENOMEM;
		atomic_init(&l->swap_head, RB_NO_SWAP);
	}
	pthread_mutexattr_destroy(&attr);
	return err;
}

/* ------------------------------------------------------------------ */
/* Attaching to another process's buffer                               */

static int rb_attach_fail(const char *what, const char *why)
{
	rb_print(RINGBUF_PRINT_WARN, "libringbuf: cannot attach %s: %s\n", what,
		 why);
	return -EINVAL;
}

/*
 * rb_attach_check - validate the file before anything in it is followed:
 * the header, the geometry of every cpu buffer against the layout it
 * implies, and every page id the cpu buffers hold. The writer may run
 * meanwhile, so only what it never changes (the geometry) or what stays in
 * range whatever it does (ids) is checked; the readers bound-check the
 * rest as they go.
 */
static int rb_attach_check(struct ringbuf *rb, const void *map, size_t size,
			   uint32_t **nr_pages_out, struct rb_layout *l,
			   const char *what)
{
	const struct rb_meta *meta = map;
	uint32_t *nr_pages, first = 0;
	size_t cpu_meta_off, cpu_meta_size;

	if (size < sizeof(*meta) || meta->magic != RB_META_MAGIC)
		return rb_attach_fail(what, "not a ringbuf file (bad magic)");
	if (meta->version != RB_META_VERSION ||
	    meta->meta_struct_len != sizeof(*meta))
		return rb_attach_fail(what, "unsupported layout version");
	if (meta->subbuf_size < RB_PAGE_SIZE_MIN ||
	    meta->subbuf_size > (RB_PAGE_SIZE_MIN << RB_SUBBUF_ORDER_MAX) ||
	    (meta->subbuf_size & (meta->subbuf_size - 1)))
		return rb_attach_fail(what, "bad sub-buffer size");
	if (!meta->nr_cpus || meta->nr_cpus > 8192 || !meta->nr_cpu_bufs ||
	    meta->nr_cpu_bufs > meta->nr_cpus)
		return rb_attach_fail(what, "bad cpu buffer count");
	if (meta->clock > RINGBUF_CLOCK_TSC || meta->model > RINGBUF_PER_THREAD)
		return rb_attach_fail(what, "bad clock or writer model");
	/* Larger is fine: a resize of a shared buffer never shrinks it. */
	if (meta->map_size > size)
		return rb_attach_fail(what, "file smaller than its header says (truncated?)");
	if (!(meta->flags & RB_META_SHARED))
		return rb_attach_fail(what, "not a shared buffer");

	rb->subbuf_size = meta->subbuf_size;
	rb->bsize = rb->subbuf_size - RINGBUF_PAGE_HDR_SIZE;
	rb->max_data_size = rb->bsize - RB_EVNT_HDR_SIZE - sizeof(uint32_t) -
			    RB_LEN_TIME_EXTEND;
	rb->nr_cpus = (int)meta->nr_cpus;
	rb->nr_cpu_bufs = (int)meta->nr_cpu_bufs;
	rb->clock = (int)meta->clock;
	rb->model = (int)meta->model;

	/* The cpu meta array depends on the cpu count only. */
	cpu_meta_off = rb_align(sizeof(struct rb_meta), RB_CACHELINE);
	cpu_meta_size = rb_align(sizeof(struct rb_cpu_meta), RB_CACHELINE);
	if (meta->cpu_meta_off != cpu_meta_off ||
	    meta->cpu_meta_size != cpu_meta_size ||
	    cpu_meta_off + (size_t)rb->nr_cpus * cpu_meta_size > size)
		return rb_attach_fail(what, "bad cpu state offsets");
	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	if (!nr_pages)
		return -ENOMEM;
	for (int c = 0; c < rb->nr_cpus; c++) {
		const struct rb_cpu_meta *m =
			(const void *)((const char *)map + cpu_meta_off +
				       (size_t)c * cpu_meta_size);

		nr_pages[c] = m->nr_pages;
		if (m->nr_pages < 2 || m->nr_pages > (1u << 24) ||
		    m->first_page != first) {
			free(nr_pages);
			return rb_attach_fail(what, "bad cpu buffer geometry");
		}
		first += m->nr_pages + 1;
	}
	if (rb_layout(rb, nr_pages, l) || l->map_size != meta->map_size ||
	    l->total_pages != meta->total_pages ||
	    l->lock_off != meta->lock_off || l->lock_size != meta->lock_size ||
	    l->page_ctl_off != meta->page_ctl_off ||
	    l->data_off != meta->data_off) {
		free(nr_pages);
		return rb_attach_fail(what, "layout does not match the geometry");
	}
	for (int c = 0; c < rb->nr_cpus; c++) {
		const struct rb_cpu_meta *m =
			(const void *)((const char *)map + cpu_meta_off +
				       (size_t)c * cpu_meta_size);
		const struct rb_page_ctl *pages =
			(const struct rb_page_ctl *)((const char *)map +
						     l->page_ctl_off) +
			m->first_page;
		uint32_t n = m->nr_pages;

		if (atomic_load(&m->head_page) > n ||
		    atomic_load(&m->tail_page) > n ||
		    atomic_load(&m->commit_page) > n ||
		    atomic_load(&m->reader_page) > n) {
			free(nr_pages);
			return rb_attach_fail(what, "page id out of range");
		}
		for (uint32_t i = 0; i <= n; i++) {
			if (rb_link_id(atomic_load(&pages[i].next)) > n ||
			    atomic_load(&pages[i].prev) > n) {
				free(nr_pages);
				return rb_attach_fail(what,
						      "page link out of range");
			}
		}
	}
	*nr_pages_out = nr_pages;
	return 0;
}

/*
 * The page ring of an attached cpu buffer, under the reader locks (so no
 * swap moves ids meanwhile; writers only ever change the flags): every
 * page but the reader page is on one cycle of exactly nr_pages links whose
 * prev links agree, and at least one link carries HEAD or UPDATE.
 */
static int rb_attach_check_ring(struct ringbuf_cpu *cb, const char *what)
{
	uint32_t n = cb->nr_pages;
	uint32_t rp = atomic_load(&cb->meta->reader_page);
	uint32_t start = rp == 0 ? 1 : 0, page = start, flags = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t link = atomic_load(&cb->pages[page].next);
		uint32_t next = rb_link_id(link);

		if (next > n || next == rp ||
		    atomic_load(&cb->pages[next].prev) != page ||
		    (next == start && i != n - 1))
			return rb_attach_fail(what, "page ring is broken");
		flags |= link & RB_FLAG_MASK;
		page = next;
	}
	if (page != start)
		return rb_attach_fail(what, "page ring is broken");
	if (!flags)
		return rb_attach_fail(what, "no head page");
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
		munmap(ref->map, ref->size);
		free(ref);
	}
}

/* Cpu buffer @c's state in the header of @rb's file (its offsets depend
 * on the cpu count only, which attach checked). */
static const struct rb_cpu_meta *rb_follow_cpu_meta(struct ringbuf *rb, int c)
{
	return (const struct rb_cpu_meta *)((const char *)rb->map +
					    rb->meta->cpu_meta_off +
					    (size_t)c * rb->meta->cpu_meta_size);
}

/*
 * The geometry a resize left in the header of @rb's file, checked as the
 * attach checks it (the file is not trusted): 0 and the layout in @l, or
 * -EINVAL. @cpu's page ids must be in range too.
 */
static int rb_follow_check(struct ringbuf *rb, int cpu, struct rb_layout *l)
{
	const struct rb_meta *meta = rb->meta;
	uint32_t *nr_pages, first = 0;
	int err = -EINVAL;

	nr_pages = calloc((size_t)rb->nr_cpus, sizeof(*nr_pages));
	if (!nr_pages)
		return -ENOMEM;
	/* From the header: during an attach, the later cpu buffers have no
	 * struct yet. */
	for (int c = 0; c < rb->nr_cpus; c++) {
		const struct rb_cpu_meta *m = rb_follow_cpu_meta(rb, c);

		nr_pages[c] = m->nr_pages;
		if (m->nr_pages < 2 || m->nr_pages > (1u << 24) ||
		    m->first_page != first)
			goto out;
		first += m->nr_pages + 1;
	}
	if (rb_layout(rb, nr_pages, l) || l->map_size != meta->map_size ||
	    l->total_pages != meta->total_pages ||
	    l->page_ctl_off != meta->page_ctl_off ||
	    l->data_off != meta->data_off)
		goto out;
	{
		const struct rb_cpu_meta *m = rb_follow_cpu_meta(rb, cpu);
		uint32_t n = m->nr_pages;

		if (atomic_load(&m->head_page) > n ||
		    atomic_load(&m->tail_page) > n ||
		    atomic_load(&m->commit_page) > n ||
		    atomic_load(&m->reader_page) > n)
			goto out;
	}
	err = 0;
out:
	free(nr_pages);
	return err;
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
	/* Acquire: pairs with the release increment in rb_resize_shared(),
	 * made after the geometry, states, pages and data it announces. */
	uint32_t gen = atomic_load_explicit(&rb->meta->layout_gen,
					    memory_order_acquire);

	if (gen == cb->layout_gen)
		return;
	pthread_mutex_lock(&rb->resize_lock);
	if (rb_follow_check(rb, cb->cpu, &l)) {
		rb_print(RINGBUF_PRINT_WARN,
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
		ref->next = rb->data_maps;
		rb->data_maps = ref;
	}
	rb_cpu_bind(rb, cb, rb->map, ref->map, &l);
out:
	cb->layout_gen = gen;
	pthread_mutex_unlock(&rb->resize_lock);
}

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
	err = -rb_attach_check(rb, rb->map, rb->map_size, &nr_pages, &l, what);
	if (err)
		goto fail;
	/* A reader's view: the creator writes. */
	atomic_init(&rb->record_disabled, RB_BUFFER_ATTACHED);
	/* To notice the writer's exit (ringbuf_wait()); -1 if unavailable. */
	rb->writer_pidfd = (int)syscall(SYS_pidfd_open,
					(pid_t)rb->meta->creator_pid, 0);
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
	/* The flight recorder: the writer died; make what it left readable. */
	if (!read_only && rb_writer_gone(rb))
		rb_recover_all(rb);
	return rb;

fail:
	free(nr_pages);
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

const char *ringbuf_path(struct ringbuf *rb)
{
	return rb && !rb->attached ? rb->path : NULL;
}
