/* SPDX-License-Identifier: MIT */
/*
 * ringbuf/ringbuf.h - libringbuf, a userspace port of the Linux kernel's
 * lockless per-CPU page ring buffer.
 *
 * The names are the kernel's (include/linux/ring_buffer.h) with
 * "ring_buffer_" spelled "ringbuf_". Where an argument or a meaning had to
 * change for userspace, the function's comment says so under "Userspace:".
 *
 * Conventions:
 *  - Functions returning int return 0 (or a count) on success and a
 *    negative errno value on failure; they also set errno, except the
 *    write functions (reserve, commit, discard, write), which never touch
 *    errno because signal handlers call them.
 *  - Constructors return NULL with errno set.
 *  - "cpu" is a per-CPU buffer index in [0, ringbuf_nr_cpus(rb)). In the
 *    per-thread writer model it is a thread slot.
 *  - "Context:" lines say who may call a function: "any thread", "signal
 *    handler" (async-signal-safe), "reader" (serialised with other readers
 *    by the library), and whether it is lock-free or may block.
 *
 * Synchronisation table (X = may run concurrently on the same cpu buffer):
 *
 *			write	read	iter	resize	reset
 *	write		X(1)	X	X	X(2)	X(2)
 *	read		X	X(3)	X(3)	X(3)	X(3)
 *	iter		X	X(3)	X	-	X(4)
 *	resize/reset	X(2)	X(3)	-/X(4)	X(3)	X(3)
 *
 *  write  = lock_reserve/unlock_commit/discard_commit/write
 *  read   = peek/consume/read_page/consume_next
 *  (1) writers of one cpu buffer are one thread plus its signal handlers,
 *      in stack order; other threads are sent to another buffer.
 *  (2) recording is off for the span of a resize/reset (as with
 *      ringbuf_record_disable()): racing writes are refused, never
 *      corrupted, and not counted, as in the kernel.
 *  (3) serialised internally by the cpu buffer's reader lock.
 *  (4) resize and swap refuse while an iterator is open (-EBUSY); a reset
 *      is allowed and the iterator restarts, reporting the loss through
 *      ringbuf_iter_dropped().
 */
#ifndef RINGBUF_RINGBUF_H
#define RINGBUF_RINGBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <ringbuf/event.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define RINGBUF_API __attribute__((visibility("default")))
#else
#define RINGBUF_API
#endif

/** The buffer object. Opaque: use the functions below. */
struct ringbuf;
/** A non-consuming iterator over one cpu buffer. Opaque. */
struct ringbuf_iter;

/** Flag for ringbuf_alloc(): overwrite the oldest data when full. */
#define RINGBUF_FL_OVERWRITE (1u << 0)
/**
 * Flag for ringbuf_create(): put the mapping in a memfd, which another
 * process can inherit and attach with ringbuf_attach_fd() (ringbuf_fd()).
 */
#define RINGBUF_FL_MEMFD (1u << 1)

/** cpu argument meaning "every cpu buffer". */
#define RINGBUF_ALL_CPUS (-1)

/**
 * enum ringbuf_clock - the clock a buffer stamps its events with
 * @RINGBUF_CLOCK_MONO: CLOCK_MONOTONIC, nanoseconds (the default); read
 *	as the time stamp counter scaled by a calibrated multiplier where
 *	the kernel's clocksource is the counter (see ringbuf-api.rst, "The
 *	default clock"), so readers get CLOCK_MONOTONIC either way
 * @RINGBUF_CLOCK_MONO_RAW: CLOCK_MONOTONIC_RAW, nanoseconds
 * @RINGBUF_CLOCK_BOOT: CLOCK_BOOTTIME, nanoseconds
 * @RINGBUF_CLOCK_TSC: the CPU's time stamp counter, in cycles (the
 *	kernel's "x86-tsc" trace clock); CLOCK_MONOTONIC_RAW where the
 *	architecture has none
 */
enum ringbuf_clock {
	RINGBUF_CLOCK_MONO = 0,
	RINGBUF_CLOCK_MONO_RAW,
	RINGBUF_CLOCK_BOOT,
	RINGBUF_CLOCK_TSC,
};

/**
 * enum ringbuf_writer_model - how writers pick a buffer
 * @RINGBUF_PER_CPU: write into the buffer of the CPU the thread runs on;
 *	a buffer is claimed by one thread for the span of a write, and a
 *	thread that finds its CPU's buffer claimed (its owner was preempted
 *	mid-write) takes another unclaimed buffer
 * @RINGBUF_PER_THREAD: every writing thread gets a buffer (a "slot") of
 *	its own for its lifetime; slots are recycled when threads exit
 */
enum ringbuf_writer_model {
	RINGBUF_PER_CPU = 0,
	RINGBUF_PER_THREAD,
};

/**
 * struct ringbuf_opts - options for ringbuf_create()
 * @sz: sizeof(struct ringbuf_opts), for forward compatibility
 * @size: bytes per cpu buffer; rounded up to whole sub-buffers, at least
 *	two sub-buffers (as ring_buffer_alloc()'s size)
 * @flags: RINGBUF_FL_*
 * @subbuf_order: sub-buffer size is 4096 << subbuf_order bytes (the
 *	kernel's buffer_subbuf_size_kb / subbuf order); 0..7
 * @nr_cpus: per-CPU model: number of CPU buffers, 0 for the number of
 *	configured CPUs; per-thread model: number of thread slots, 0 for
 *	four times the number of configured CPUs
 * @model: enum ringbuf_writer_model
 * @clock: enum ringbuf_clock
 * @spare_buffers: per-CPU model only: cpu buffers beyond the CPU buffers,
 *	taken by a writer whose CPU buffer is claimed by a preempted thread.
 *	0 means the default, three per CPU buffer; RINGBUF_NO_SPARES none.
 *	A spare costs address space, not memory, until a writer uses it.
 *
 * @path: create the buffer in a named file that other processes can
 *	attach with ringbuf_attach(): a plain name (no '/') is made under
 *	$XDG_RUNTIME_DIR, or /dev/shm without it; an absolute path is used
 *	as it is. The file is created with O_EXCL and O_NOFOLLOW, mode
 *	0600; ringbuf_free() removes it, a crash leaves it for a reader to
 *	recover. NULL: an anonymous mapping (or a memfd, RINGBUF_FL_MEMFD).
 *
 * ringbuf_nr_cpus() counts every cpu buffer: the CPU buffers (or slots)
 * first, then the spares.
 */
struct ringbuf_opts {
	size_t sz;
	size_t size;
	unsigned int flags;
	unsigned int subbuf_order;
	int nr_cpus;
	int model;
	int clock;
	int spare_buffers;
	const char *path;
};

/** ringbuf_opts.spare_buffers value for no spare buffers. */
#define RINGBUF_NO_SPARES (-1)

/** Declare a zero-initialised struct ringbuf_opts with sz set. */
#define RINGBUF_OPTS(name, ...)                                           \
	struct ringbuf_opts name = { .sz = sizeof(struct ringbuf_opts),   \
				     __VA_ARGS__ }

/* -------------------------------------------------------------------- */
/* Allocation                                                            */

/**
 * ringbuf_alloc - allocate a ring buffer with default options
 * @size: bytes per cpu buffer
 * @flags: RINGBUF_FL_OVERWRITE or 0 (producer/consumer)
 *
 * Context: any thread; may block (allocates memory).
 * Return: the buffer, or NULL with errno set (EINVAL, ENOMEM).
 */
RINGBUF_API struct ringbuf *ringbuf_alloc(size_t size, unsigned int flags);

/**
 * ringbuf_create - allocate a ring buffer with options
 * @opts: options; NULL means the defaults of ringbuf_alloc(1 MiB, 0)
 *
 * All sub-buffers and the per-cpu control state live in one mapping (a
 * meta area then the sub-buffers by ascending id); the page links inside
 * it are page ids, never pointers. The mapping is shared memory: after
 * fork() the child's view of the buffer never records (its writes would
 * land in the parent's live pages). Readers in the child see the parent's
 * data; for an anonymous buffer they must not read while the parent reads
 * (its reader locks are per process), while a file or memfd buffer's
 * locks are in the file and serialise both.
 *
 * Context: any thread; may block.
 * Return: the buffer, or NULL with errno set (EINVAL for a bad option,
 * ENOMEM).
 */
RINGBUF_API struct ringbuf *ringbuf_create(const struct ringbuf_opts *opts);

/**
 * ringbuf_free - free a ring buffer
 * @rb: the buffer (NULL is ignored)
 *
 * Context: any thread, once no other thread uses @rb; may block.
 */
RINGBUF_API void ringbuf_free(struct ringbuf *rb);

/** Flag for ringbuf_attach(): accept a file owned by another user,
 * read-only (only the non-consuming iterator and the counters work). */
#define RINGBUF_ATTACH_FOREIGN (1u << 0)

/**
 * ringbuf_attach - attach to a buffer another process created in a file
 * @path: the file: a plain name is looked up as ringbuf_create() makes it
 *	($XDG_RUNTIME_DIR, else /dev/shm), an absolute path as it is
 * @flags: RINGBUF_ATTACH_FOREIGN or 0
 *
 * The returned buffer is a reader's view: peek, consume, consume_next,
 * read_page, the iterator and the counters work as on the creator's; the
 * write functions refuse (the creating process is the writer) and so do
 * resize, reset and swap. The file is validated first (magic, layout
 * version, sizes, offsets, every cpu buffer's geometry and page links)
 * and refused with a message on stderr if anything is inconsistent.
 * Symbolic links are not followed; a file owned by another user is
 * refused unless RINGBUF_ATTACH_FOREIGN asks for a read-only view.
 * Readers of one cpu buffer serialise across processes on a robust
 * process-shared lock in the file, which a killed reader does not wedge.
 * An event returned by peek or consume is the calling thread's own copy
 * (see ringbuf_peek()), so other readers, in this process or another,
 * cannot change it. ringbuf_free() detaches (the file stays).
 *
 * Context: any thread; may block.
 * Return: the reader's view, or NULL with errno set: ENOENT, ELOOP (a
 * symbolic link), EISDIR (a directory), EACCES or EPERM (another user's
 * file), EINVAL (not a ringbuf file: an empty file, another kind of
 * file, or an inconsistent one), ENOMEM.
 */
RINGBUF_API struct ringbuf *ringbuf_attach(const char *path,
					   unsigned int flags);

/**
 * ringbuf_attach_fd - ringbuf_attach() on an open file descriptor (a memfd
 *	inherited from the creator, or a file opened by the caller)
 * @fd: the descriptor; it is duplicated, the caller keeps @fd
 * @flags: RINGBUF_ATTACH_FOREIGN or 0
 *
 * Context: any thread; may block.
 * Return: as ringbuf_attach().
 */
RINGBUF_API struct ringbuf *ringbuf_attach_fd(int fd, unsigned int flags);

/**
 * ringbuf_view_error - why an attached view is not read any more
 * @rb: the view
 *
 * The file of a view comes from another process, which may rewrite or
 * truncate it at any moment. When it truncated the file under the view
 * (a load past its end raised SIGBUS, which libringbuf's handler turned
 * into zeros), or a reader check found the file inconsistent, the reads
 * of the view return nothing from then on, ringbuf_wait() returns this
 * error, and so does this function.
 *
 * Context: any thread; lock-free.
 * Return: 0; -EIO: the file was truncated under the view; -EBADMSG: its
 * contents are inconsistent; -EINVAL for a NULL @rb.
 */
RINGBUF_API int ringbuf_view_error(struct ringbuf *rb);

/**
 * ringbuf_guard_mapping - survive the truncation of a file mapped with
 *	MAP_SHARED by another process (what libringbuf does for its views)
 * @addr: the start of the mapping
 * @len: its length
 *
 * A load or store in [@addr, @addr + @len) past the end of the file then
 * does not kill the process with SIGBUS: libringbuf's SIGBUS handler
 * (installed at the first guard or attach, chaining to the handler
 * installed before it for any other address) maps zero pages over the
 * whole mapping and marks it (ringbuf_mapping_error()). Call
 * ringbuf_unguard_mapping() before unmapping it.
 *
 * Context: any thread.
 * Return: 0, -ENOSPC (too many guarded mappings: this one is not), or
 * -EINVAL.
 */
RINGBUF_API int ringbuf_guard_mapping(void *addr, size_t len);

/**
 * ringbuf_unguard_mapping - forget the guard of a mapping
 * @addr: the start of the mapping, as given to ringbuf_guard_mapping()
 *
 * Context: any thread.
 */
RINGBUF_API void ringbuf_unguard_mapping(void *addr);

/**
 * ringbuf_mapping_error - whether a guarded mapping was truncated
 * @addr: the start of the mapping, as given to ringbuf_guard_mapping()
 *
 * Context: any thread; lock-free.
 * Return: 0, or -EIO once the file was found truncated under the mapping
 * (its contents are zeros from then on).
 */
RINGBUF_API int ringbuf_mapping_error(const void *addr);

/**
 * ringbuf_fd - the file descriptor behind a file- or memfd-backed buffer
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 * Return: the descriptor (owned by @rb), or -EINVAL for an anonymous one.
 */
RINGBUF_API int ringbuf_fd(struct ringbuf *rb);

/**
 * ringbuf_cpu_file_range - where a cpu buffer's sub-buffers lie in the
 *	buffer's file (ringbuf_fd())
 * @rb: a file- or memfd-backed buffer, created or attached
 * @cpu: the cpu buffer
 * @off: its first sub-buffer's offset in the file
 * @len: the bytes of its sub-buffers (the ring's and the reader page)
 *
 * A recorder can allocate them in the file (fallocate()) while the
 * writers run, so that a writer's first write to each page does not
 * allocate and clear it in its page fault (a file on tmpfs takes its
 * pages as they are first touched).
 *
 * Context: the thread that reads @rb (a resize by the writer moves the
 * sub-buffers; the range is the one this view is bound to now).
 * Return: 0, or -EINVAL (no such cpu buffer, an anonymous buffer, or
 * sub-buffers not in a mapping of the file).
 */
RINGBUF_API int ringbuf_cpu_file_range(struct ringbuf *rb, int cpu,
				       uint64_t *off, uint64_t *len);

/**
 * ringbuf_populate_cpu - map a cpu buffer's pages in ahead of its writers
 * @rb: the buffer (a writer's: created, not attached)
 * @cpu: the cpu buffer
 * @from: the first byte of its sub-buffers (ringbuf_cpu_file_range()'s
 *	@len bytes) to populate
 * @len: how many, from there
 *
 * The pages are faulted in for writing (MADV_POPULATE_WRITE) as a
 * writer's first writes would fault them in, one at a time; their
 * contents do not change. A writer held at its start (a recorder
 * attaching) spends the wait on them, a chunk at a time.
 *
 * Context: any thread, writers running or not.
 * Return: the bytes populated (0 from the end on), or -EINVAL (no such
 * cpu buffer), or the madvise() errno (a kernel before 5.14: -EINVAL).
 */
RINGBUF_API long ringbuf_populate_cpu(struct ringbuf *rb, int cpu, size_t from,
				      size_t len);

/**
 * ringbuf_path - the full path of a buffer created with opts.path
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 * Return: the path (owned by @rb), or NULL.
 */
RINGBUF_API const char *ringbuf_path(struct ringbuf *rb);

/**
 * ringbuf_resize - change the size of one or all cpu buffers
 * @rb: the buffer
 * @size: new bytes per cpu buffer (rounded as for ringbuf_alloc())
 * @cpu: a cpu buffer or RINGBUF_ALL_CPUS
 *
 * Recording is stopped, writers in flight are waited for (a writer never
 * waits for the resize: it drops its event and counts it), the buffer is
 * rebuilt and recording resumes.
 *
 * Userspace: all cpu buffers share one mapping, so a resize rebuilds the
 * mapping. The unread events of the resized cpu buffers are dropped and
 * added to their overrun count; the other cpu buffers keep their data.
 * Events returned earlier by peek/consume are copies and stay valid.
 *
 * A buffer in a file or memfd is resized in place: the file grows (it
 * never shrinks) and views in other processes follow at their next read
 * of each cpu buffer (Documentation/shared-buffers.rst).
 *
 * Context: any thread; blocks. Fails with -EBUSY while an iterator is open,
 * while a writer stays preempted mid-write for more than 10 seconds, or,
 * on a shared buffer, while a live reader of another process holds a cpu
 * buffer's reader lock for more than 20 ms (a reader that is stopped,
 * slow or hostile; nothing was changed, try again); -EPERM on an attached
 * view; -ENOSPC when the file cannot grow.
 * Return: 0, or -EINVAL, -EBUSY, -EPERM, -ENOMEM, -ENOSPC.
 */
RINGBUF_API int ringbuf_resize(struct ringbuf *rb, size_t size, int cpu);

/**
 * ringbuf_size - bytes of one cpu buffer (whole sub-buffers)
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock(s).
 * Return: the size, or 0 for a bad @cpu.
 */
RINGBUF_API size_t ringbuf_size(struct ringbuf *rb, int cpu);

/**
 * ringbuf_subbuf_size - bytes of one sub-buffer, header included
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API size_t ringbuf_subbuf_size(struct ringbuf *rb);

/**
 * ringbuf_max_event_size - largest payload ringbuf_lock_reserve() accepts
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API size_t ringbuf_max_event_size(struct ringbuf *rb);

/**
 * ringbuf_nr_cpus - number of cpu buffers: CPU buffers (or thread slots)
 *	plus spare buffers; valid cpu arguments are 0 .. ringbuf_nr_cpus() - 1
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API int ringbuf_nr_cpus(struct ringbuf *rb);

/**
 * ringbuf_nr_cpu_buffers - number of CPU buffers (per-CPU model) or
 *	thread slots (per-thread model): cpu buffers 0 .. this - 1; the
 *	spare buffers follow them, up to ringbuf_nr_cpus() - 1
 * @rb: the buffer (an attached view reads it from the file's header)
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API int ringbuf_nr_cpu_buffers(struct ringbuf *rb);

/**
 * ringbuf_is_spare - whether cpu buffer @cpu is a spare: a buffer of no
 *	CPU, which writers displaced from their CPU's buffer take
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; lock-free.
 * Return: true for ringbuf_nr_cpu_buffers() <= @cpu < ringbuf_nr_cpus();
 * false otherwise (a CPU buffer, a thread slot, an index out of range).
 */
RINGBUF_API bool ringbuf_is_spare(struct ringbuf *rb, int cpu);

/* -------------------------------------------------------------------- */
/* Writing                                                               */

/**
 * ringbuf_lock_reserve - reserve space for an event
 * @rb: the buffer
 * @length: payload bytes
 *
 * Must be paired with ringbuf_unlock_commit() (or ringbuf_discard_commit())
 * by the same thread, unless NULL is returned. If NULL is returned, nothing
 * was reserved and nothing needs to be released. Reservations nest: a
 * signal handler may reserve and commit while its thread holds a
 * reservation, up to five levels (six inside ringbuf_nest_start()).
 *
 * The failure is counted: in dropped_events of a cpu buffer when the
 * buffer is full in producer/consumer mode, when every buffer is claimed
 * by other preempted writers, or when nesting is too deep; in
 * commit_overrun when nested writers filled the whole buffer.
 *
 * Context: any thread, signal handler; lock-free, never blocks. System
 * calls: the clock read (vDSO), gettid() once per thread, sched_getcpu()
 * only where the kernel has no rseq, and a one-time report on stderr if
 * an internal check fails; errno is preserved.
 * Userspace: errno is never changed by the write functions, since a signal
 * handler that writes must leave the interrupted code's errno alone.
 * ringbuf_write() returns the reason of a failure.
 *
 * Return: the event (write the payload at ringbuf_event_data()), or NULL
 * when nothing was reserved: @rb NULL, @length larger than
 * ringbuf_max_event_size() (0 is allowed), recording disabled, full or
 * overrun, all buffers claimed or nesting too deep.
 */
RINGBUF_API struct ringbuf_event *ringbuf_lock_reserve(struct ringbuf *rb,
						       unsigned long length);

/**
 * ringbuf_unlock_commit - commit the innermost reservation on @rb
 * @rb: the buffer
 *
 * Userspace: the kernel finds the cpu buffer from the current CPU, which a
 * preempted userspace thread may have left; the commit here finds the
 * buffer the matching reserve used from the thread's own stack of
 * reservations.
 *
 * Context: the thread (or signal handler) that reserved; lock-free.
 * Return: 0, or -EINVAL if the thread has no reservation on @rb.
 */
RINGBUF_API int ringbuf_unlock_commit(struct ringbuf *rb);

/**
 * ringbuf_discard_commit - discard the innermost reservation on @rb
 * @rb: the buffer
 * @event: the event returned by the reserve
 *
 * If nothing was written after @event its space is given back; otherwise
 * it is turned into padding that readers skip. It is not counted in
 * entries.
 *
 * Context: the thread (or signal handler) that reserved; lock-free.
 */
RINGBUF_API void ringbuf_discard_commit(struct ringbuf *rb,
					struct ringbuf_event *event);

/**
 * ringbuf_write - reserve, copy and commit in one call
 * @rb: the buffer
 * @length: payload bytes
 * @data: payload
 *
 * Context: any thread, signal handler; lock-free.
 * Return: 0, or -EINVAL (@rb NULL, @data NULL with a length, @length over
 * ringbuf_max_event_size()), -EAGAIN (recording disabled), -ENOSPC (full
 * in producer/consumer mode, or nested writers wrapped the buffer), -EBUSY
 * (every buffer claimed by preempted writers, nesting too deep), -EIO
 * (the buffer disabled itself after an internal check failed).
 */
RINGBUF_API int ringbuf_write(struct ringbuf *rb, unsigned long length,
			      const void *data);

/**
 * ringbuf_nest_start - allow one more level of nested writes
 * @rb: the buffer
 *
 * For a writer that must write into a buffer while it holds a
 * reservation in the same context (the kernel's use: writing into one
 * buffer from inside an event of another). Pair with ringbuf_nest_end().
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_nest_start(struct ringbuf *rb);

/**
 * ringbuf_nest_end - end a ringbuf_nest_start() section
 * @rb: the buffer
 *
 * Context: the thread that called ringbuf_nest_start(); lock-free.
 */
RINGBUF_API void ringbuf_nest_end(struct ringbuf *rb);

/**
 * ringbuf_event_data - the payload of a data event
 * @event: a data event
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API void *ringbuf_event_data(struct ringbuf_event *event);

/**
 * ringbuf_event_length - the payload length of a data event
 * @event: a data event
 *
 * As the kernel reports it: the space the record holds for its payload,
 * which is the reserved length rounded up to 4 bytes, except that a
 * length of 0 reads as 4 and lengths of 5 to 8 as 12 (the kernel's
 * minimum record sizes).
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API unsigned int ringbuf_event_length(struct ringbuf_event *event);

/* -------------------------------------------------------------------- */
/* Reading                                                               */

/**
 * ringbuf_peek - the next event of a cpu buffer, without consuming it
 * @rb: the buffer
 * @cpu: the cpu buffer
 * @ts: if not NULL, receives the event's time stamp
 * @lost_events: if not NULL, receives the number of events lost (overrun)
 *	since the last read of this cpu buffer
 *
 * The event is copied out under the reader lock into memory of the
 * calling thread: it stays valid, and unchanged, until the same thread's
 * next ringbuf_peek(), ringbuf_consume() or ringbuf_consume_next() (on any
 * buffer), or its exit, whatever other threads do meanwhile, including
 * ringbuf_swap_cpu(), ringbuf_reset_cpu() and ringbuf_resize() of @cpu.
 *
 * Userspace: the kernel returns a pointer into the reader page, whose bytes
 * its swap, reset and resize leave in place. Here a swap exchanges the
 * bytes, a reset hands the page back to the writers and a resize unmaps
 * it, so the copy is what keeps the event stable.
 *
 * Context: any thread; takes the cpu buffer's reader lock.
 * Return: the event, or NULL with errno set: ENODATA when the cpu buffer
 * is empty, EAGAIN when it may hold data but a writer stopped in the
 * middle of a page crossing or head push keeps the reader from the next
 * page for now (call again later), EINVAL for a bad @cpu, ENOMEM. A
 * damaged page (in another process's file) is skipped, counted in
 * @lost_events of the next event, and reading goes on: NULL never means
 * "skipped".
 */
RINGBUF_API struct ringbuf_event *ringbuf_peek(struct ringbuf *rb, int cpu,
					       uint64_t *ts,
					       unsigned long *lost_events);

/**
 * ringbuf_consume - return the next event of a cpu buffer and consume it
 * @rb: the buffer
 * @cpu: the cpu buffer
 * @ts: if not NULL, receives the event's time stamp
 * @lost_events: if not NULL, receives the number of events lost since the
 *	last read of this cpu buffer
 *
 * The event is the calling thread's copy, as with ringbuf_peek().
 *
 * Context: any thread; takes the cpu buffer's reader lock.
 * Return: as ringbuf_peek().
 */
RINGBUF_API struct ringbuf_event *ringbuf_consume(struct ringbuf *rb, int cpu,
						  uint64_t *ts,
						  unsigned long *lost_events);

/**
 * ringbuf_consume_next - consume the oldest event across all cpu buffers
 * @rb: the buffer
 * @cpu: if not NULL, receives the cpu buffer the event came from
 * @ts: if not NULL, receives the event's time stamp
 * @lost_events: if not NULL, receives the events lost on that cpu buffer
 *	since its last read
 *
 * The merge trace_pipe does: the event with the smallest time stamp among
 * the heads of all cpu buffers.
 *
 * The event is the calling thread's copy, as with ringbuf_peek(). A loop
 * such as ``while ((ev = ringbuf_consume_next(...)))`` ends with every cpu
 * buffer read, unless errno says EAGAIN.
 *
 * Context: any thread; takes the reader locks one at a time.
 * Return: the event, or NULL with errno ENODATA when every cpu buffer is
 * empty, EAGAIN when one may hold data a stopped writer keeps back for
 * now, EINVAL for a bad @rb.
 */
RINGBUF_API struct ringbuf_event *
ringbuf_consume_next(struct ringbuf *rb, int *cpu, uint64_t *ts,
		     unsigned long *lost_events);

/**
 * ringbuf_event_cpu - the CPU an event ringbuf_peek(), ringbuf_consume()
 *	or ringbuf_consume_next() returned was written on
 * @event: the last event one of them returned to the calling thread
 *
 * A record of CPU buffer n was written on CPU n. A record of a spare was
 * written on the CPU the spare's CPU note before it names (see
 * <ringbuf/event.h>): the CPU its writer ran on when it reserved it (a
 * thread may move to another CPU while it writes a spare).
 *
 * Context: the thread the event was returned to; lock-free.
 * Return: the CPU, or -1: not known (a thread slot of a per-thread
 * buffer, a spare's record no note names) or @event is not the calling
 * thread's last event.
 */
RINGBUF_API int ringbuf_event_cpu(const struct ringbuf_event *event);

/**
 * ringbuf_wait - block until a cpu buffer (or any) has data to read
 * @rb: the buffer (the creator's, or an attached view)
 * @cpu: a cpu buffer, or RINGBUF_ALL_CPUS for any of them
 * @full: the watermark, as the kernel's buffer_percent: 0 wakes on any
 *	data; otherwise the share of the cpu buffer's pages that must hold
 *	unread data (100: full)
 * @timeout_ms: longest wait, -1 for none (below -1: -EINVAL)
 *
 * The writer wakes the reader when its commit crosses the watermark (a
 * futex in the mapping, so across processes too), and pays one plain load
 * per commit while nobody waits. The waiter also wakes on @timeout_ms, and
 * returns when the writing process of an attached view has exited. When
 * several readers wait on one cpu buffer with different watermarks, the
 * last one to start waiting sets the writer's threshold; the others notice
 * their own within 100 ms.
 *
 * Userspace: the kernel defers its wake-ups through irq_work; here the
 * writer makes the futex system call itself, only when a reader waits and
 * the watermark is crossed.
 *
 * Context: any thread except a writer holding a reservation; blocks.
 * Return: 1 when there is data (at the watermark), 0 on timeout, -ESRCH
 * when the writing process is gone (after the data it left was looked
 * at), -EINTR when a signal handler ran while it slept, the error of
 * ringbuf_view_error() for a view that is not read any more, -EINVAL for
 * bad arguments.
 */
RINGBUF_API int ringbuf_wait(struct ringbuf *rb, int cpu, int full,
			     int timeout_ms);

/**
 * ringbuf_read_start - start a non-consuming iteration of a cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Writers keep writing; if they overwrite the page the iterator is on, it
 * restarts from the oldest data and ringbuf_iter_dropped() says so (the
 * kernel's "LOST EVENTS" in the trace file). One iteration makes at most
 * two laps' worth of page moves and restarts, then ends: writers that
 * overwrite the ring faster than it is read cannot keep it going.
 * ringbuf_iter_reset() starts a new one. Resizes fail while an iterator
 * is open.
 *
 * Context: any thread; may block (allocates).
 * Return: the iterator, or NULL with errno set.
 */
RINGBUF_API struct ringbuf_iter *ringbuf_read_start(struct ringbuf *rb,
						    int cpu);

/**
 * ringbuf_read_finish - end an iteration
 * @iter: the iterator (NULL is ignored)
 *
 * Context: the thread that uses @iter.
 */
RINGBUF_API void ringbuf_read_finish(struct ringbuf_iter *iter);

/**
 * ringbuf_iter_peek - the event at the iterator
 * @iter: the iterator
 * @ts: if not NULL, receives its time stamp
 *
 * The event is a copy held by the iterator, valid until the next call on
 * @iter.
 *
 * Context: the thread that uses @iter; takes the reader lock.
 * Return: the event, or NULL at the end of the data.
 */
RINGBUF_API struct ringbuf_event *ringbuf_iter_peek(struct ringbuf_iter *iter,
						    uint64_t *ts);

/**
 * ringbuf_iter_advance - move the iterator to the next event
 * @iter: the iterator
 *
 * Context: the thread that uses @iter; takes the reader lock.
 */
RINGBUF_API void ringbuf_iter_advance(struct ringbuf_iter *iter);

/**
 * ringbuf_iter_reset - move the iterator back to the oldest event
 * @iter: the iterator
 *
 * Context: the thread that uses @iter; takes the reader lock.
 */
RINGBUF_API void ringbuf_iter_reset(struct ringbuf_iter *iter);

/**
 * ringbuf_iter_empty - whether the iterator is at the end of the data
 * @iter: the iterator
 *
 * Context: the thread that uses @iter; takes the reader lock.
 */
RINGBUF_API bool ringbuf_iter_empty(struct ringbuf_iter *iter);

/**
 * ringbuf_iter_dropped - whether events were overwritten under the
 *	iterator since the last call
 * @iter: the iterator
 *
 * Context: the thread that uses @iter; lock-free.
 * Return: true once per overwrite noticed (the flag is cleared).
 */
RINGBUF_API bool ringbuf_iter_dropped(struct ringbuf_iter *iter);

/**
 * ringbuf_iter_cpu - the CPU the record ringbuf_iter_peek() last
 *	returned was written on, as ringbuf_event_cpu() says it
 * @iter: the iterator
 *
 * Context: the thread that uses @iter; lock-free.
 * Return: the CPU, or -1 when not known.
 */
RINGBUF_API int ringbuf_iter_cpu(struct ringbuf_iter *iter);

/**
 * ringbuf_alloc_read_page - allocate a page for ringbuf_read_page()
 * @rb: the buffer
 * @cpu: the cpu buffer it will be used with
 *
 * Context: any thread; may block (allocates).
 * Return: a page of ringbuf_subbuf_size() bytes (a struct
 * ringbuf_data_page), or NULL with errno set.
 */
RINGBUF_API void *ringbuf_alloc_read_page(struct ringbuf *rb, int cpu);

/**
 * ringbuf_free_read_page - free a page from ringbuf_alloc_read_page()
 * @rb: the buffer
 * @cpu: the cpu buffer
 * @data: the page (NULL is ignored)
 *
 * Context: any thread.
 */
RINGBUF_API void ringbuf_free_read_page(struct ringbuf *rb, int cpu,
					void *data);

/**
 * ringbuf_read_page - consume whole events of a cpu buffer into a page
 * @rb: the buffer
 * @data_page: a page from ringbuf_alloc_read_page()
 * @len: bytes of @data_page that may be filled (ringbuf_subbuf_size()
 *	for a whole page)
 * @cpu: the cpu buffer
 * @full: only succeed with a whole sub-buffer the writer has left
 *
 * The page gets the kernel's format: time_stamp, commit with
 * RINGBUF_MISSED_EVENTS set when events were lost before it and
 * RINGBUF_MISSED_STORED with the count stored after the data when there is
 * room, the records, and zeroes after them.
 *
 * Userspace: the kernel swaps a fully unread sub-buffer out of the ring
 * for the caller's page. Here sub-buffers stay at fixed places in the
 * mapping another process may share, so the whole sub-buffer is copied
 * instead; the result is the same.
 *
 * Context: any thread; takes the cpu buffer's reader lock.
 * Return: the offset of the first record in data (always 0 here), or a
 * negative errno: -EINVAL (bad arguments), -ENODATA (nothing to read, or
 * nothing whole when @full), -EAGAIN (a writer stopped mid-way across a
 * page keeps the next page back for now: call again later).
 */
RINGBUF_API int ringbuf_read_page(struct ringbuf *rb, void *data_page,
				  size_t len, int cpu, int full);

/**
 * ringbuf_read_page_count - ringbuf_read_page(), and the data records of
 *	the page
 * @rb: the buffer
 * @data_page: a page from ringbuf_alloc_read_page()
 * @len: as for ringbuf_read_page()
 * @cpu: the cpu buffer
 * @full: as for ringbuf_read_page()
 * @records: set to the data records the page holds (time extends and
 *	stamps, padding and CPU notes not counted), on success
 *
 * For a reader that counts what it reads without walking the page again:
 * the page of a buffer attached from another process's file is checked
 * before it is returned (its records well formed, time never going
 * backwards; a bad page is skipped and its records counted as lost), and
 * its records are counted by that check, not taken from the writer's
 * counter.
 *
 * Context: any thread; takes the cpu buffer's reader lock.
 * Return: as ringbuf_read_page(); -EINVAL for a NULL @records too.
 */
RINGBUF_API int ringbuf_read_page_count(struct ringbuf *rb, void *data_page,
					size_t len, int cpu, int full,
					unsigned long *records);

/* -------------------------------------------------------------------- */
/* Control                                                               */

/**
 * ringbuf_reset_cpu - empty one cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Recording is off during the reset (racing writes are refused, not
 * counted); nothing is corrupted. Counters are reset. An open iterator
 * restarts.
 *
 * Userspace: if a writer stays preempted in the middle of a write on @cpu
 * for more than ten seconds, the reset is not done (the kernel's version
 * returns nothing either; check ringbuf_entries_cpu()).
 *
 * Context: any thread; blocks while a writer is mid-write on @cpu.
 */
RINGBUF_API void ringbuf_reset_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_reset - empty every cpu buffer
 * @rb: the buffer
 *
 * Context: any thread; blocks as ringbuf_reset_cpu().
 */
RINGBUF_API void ringbuf_reset(struct ringbuf *rb);

/**
 * ringbuf_swap_cpu - swap one cpu buffer of @a with the same of @b
 * @a: a buffer
 * @b: another buffer of the same geometry (sub-buffer size, cpu count,
 *	size of that cpu buffer)
 * @cpu: the cpu buffer
 *
 * The snapshot primitive: @b receives what @a recorded, @a continues in
 * @b's old pages. Writers racing with the swap drop their event.
 *
 * Context: any thread; blocks as ringbuf_reset_cpu().
 * Return: 0, or -EINVAL (different geometry), -ENOMEM, -EBUSY (iterator
 * open, or a writer preempted mid-write for too long).
 */
RINGBUF_API int ringbuf_swap_cpu(struct ringbuf *a, struct ringbuf *b,
				 int cpu);

/** Longest wait ringbuf_set_writer_wait() takes, in milliseconds. */
#define RINGBUF_WRITER_WAIT_MAX_MS 60000u

/**
 * ringbuf_set_writer_wait - let writers wait for room instead of dropping
 * @rb: the buffer, or a view of it attached by its consumer
 * @ms: how long a writer that finds a producer/consumer cpu buffer full
 *	waits for the reader to take a page, in milliseconds; 0 drops at
 *	once (the default, as the kernel)
 *
 * For a consumer that must see every record (a recorder): the writers
 * slow down to its pace instead of losing records. Only the outermost
 * writer of a thread waits (a signal handler's write nested in another
 * drops), and only while the reader makes progress: a wait that ends
 * without the reader taking a page makes the writers of that cpu buffer
 * drop at once until it takes one again, so a reader that stopped or
 * died costs one wait of @ms for each cpu buffer its writers find full
 * (a killed recorder of one writer that moved over 2 CPUs and their
 * spares: a few waits, seen here up to 4 s in all). Records a wait saved are not counted as
 * dropped. Kept in the buffer's mapping, so a consumer in another
 * process sets it for the writing process; ringbuf_free() of the view
 * that set it sets it back to 0.
 *
 * Context: any thread; lock-free. Return: 0, -EINVAL (@rb NULL), or
 * -ERANGE (@ms over RINGBUF_WRITER_WAIT_MAX_MS).
 */
RINGBUF_API int ringbuf_set_writer_wait(struct ringbuf *rb, unsigned int ms);

/**
 * ringbuf_writer_wait - the wait ringbuf_set_writer_wait() set, in ms
 * @rb: the buffer
 *
 * Return: milliseconds, or -EINVAL for @rb NULL.
 */
RINGBUF_API int ringbuf_writer_wait(struct ringbuf *rb);

/**
 * ringbuf_room_waits_cpu - how often writers waited for room, and how long
 * @rb: the buffer, or a view of it
 * @cpu: the cpu buffer
 * @waits: receives the waits of its writers (ringbuf_set_writer_wait())
 *	since the buffer was made
 * @ns: receives their time, in nanoseconds (CLOCK_MONOTONIC_RAW)
 *
 * What a recorder that makes its writers wait cost them. A writer of a
 * library older than RINGBUF_0.11 counts none.
 *
 * Context: any thread; lock-free. Return: 0, or -EINVAL (@rb NULL, no
 * such cpu buffer, @waits or @ns NULL).
 */
RINGBUF_API int ringbuf_room_waits_cpu(struct ringbuf *rb, int cpu,
				       uint64_t *waits, uint64_t *ns);

/**
 * ringbuf_change_overwrite - switch overwrite mode on or off
 * @rb: the buffer
 * @val: nonzero for overwrite, zero for producer/consumer
 *
 * Context: any thread; lock-free. Writers see the change at their next
 * page crossing.
 */
RINGBUF_API void ringbuf_change_overwrite(struct ringbuf *rb, int val);

/**
 * ringbuf_empty - whether every cpu buffer is empty
 * @rb: the buffer
 *
 * Context: any thread; takes each reader lock in turn.
 */
RINGBUF_API bool ringbuf_empty(struct ringbuf *rb);

/**
 * ringbuf_empty_cpu - whether one cpu buffer is empty
 * @rb: the buffer
 * @cpu: the cpu buffer (a bad @cpu reads as empty)
 *
 * Context: any thread; takes the reader lock.
 */
RINGBUF_API bool ringbuf_empty_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_record_disable - stop recording (nests)
 * @rb: the buffer
 *
 * Writes fail until as many ringbuf_record_enable() calls were made.
 * Writers already past their check finish their event.
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_disable(struct ringbuf *rb);

/**
 * ringbuf_record_enable - undo one ringbuf_record_disable()
 * @rb: the buffer
 *
 * An enable without a disable to undo does nothing (the count stays at
 * zero), so an extra call cannot leave recording off.
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_enable(struct ringbuf *rb);

/**
 * ringbuf_record_off - stop recording (the tracing_on switch; no nesting)
 * @rb: the buffer
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_off(struct ringbuf *rb);

/**
 * ringbuf_record_on - resume recording after ringbuf_record_off()
 * @rb: the buffer
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_on(struct ringbuf *rb);

/**
 * ringbuf_record_is_on - whether the buffer records
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 * Return: true if neither switched off nor disabled.
 */
RINGBUF_API bool ringbuf_record_is_on(struct ringbuf *rb);

/**
 * ringbuf_record_disable_cpu - stop recording on one cpu buffer (nests)
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Nothing new is written into it. Per-CPU model: a writer whose CPU
 * buffer is disabled writes into another free one (a spare first), as if
 * it were claimed; only when none is free is the write dropped (counted
 * in dropped_events). Per-thread model: the slot's writes are refused
 * and not counted, as the kernel refuses writes to a disabled cpu buffer.
 * A writer racing with the call may still be refused.
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_disable_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_record_enable_cpu - undo one ringbuf_record_disable_cpu()
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread, signal handler; lock-free.
 */
RINGBUF_API void ringbuf_record_enable_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_set_time_stamp_abs - stamp every event with an absolute time
 * @rb: the buffer
 * @abs: true for absolute TIME_STAMP records, false for deltas
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API void ringbuf_set_time_stamp_abs(struct ringbuf *rb, bool abs);

/**
 * ringbuf_time_stamp_abs - whether absolute time stamps are on
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 */
RINGBUF_API bool ringbuf_time_stamp_abs(struct ringbuf *rb);

/**
 * ringbuf_time_stamp - the buffer's clock now
 * @rb: the buffer
 *
 * Context: any thread, signal handler; lock-free.
 * Return: the clock value, in the clock's units; 0 for a NULL @rb.
 */
RINGBUF_API uint64_t ringbuf_time_stamp(struct ringbuf *rb);

/**
 * ringbuf_clock - the buffer's clock
 * @rb: the buffer
 *
 * Context: any thread; lock-free.
 * Return: an enum ringbuf_clock value, or -EINVAL for a NULL @rb.
 */
RINGBUF_API int ringbuf_clock(struct ringbuf *rb);

/* -------------------------------------------------------------------- */
/* Counters (the kernel's meanings)                                      */

/**
 * ringbuf_entries_cpu - events in a cpu buffer not yet read or overwritten
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock (a resize may move the
 * counters); a snapshot while writers run.
 */
RINGBUF_API unsigned long ringbuf_entries_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_overrun_cpu - events lost to overwrite on a cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_overrun_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_commit_overrun_cpu - writes dropped because nested writers
 *	wrapped the whole buffer onto a pending commit
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_commit_overrun_cpu(struct ringbuf *rb,
						     int cpu);

/**
 * ringbuf_dropped_events_cpu - writes refused on a cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Full in producer/consumer mode, every buffer claimed, nesting too deep.
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_dropped_events_cpu(struct ringbuf *rb,
						     int cpu);

/**
 * ringbuf_read_events_cpu - events consumed from a cpu buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_read_events_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_bytes_cpu - bytes of unread records (padding included) in a cpu
 *	buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_bytes_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_oldest_event_ts - time stamp of the oldest unread page of a cpu
 *	buffer
 * @rb: the buffer
 * @cpu: the cpu buffer
 *
 * Context: any thread; takes the reader lock.
 * Return: the time stamp, or 0 if the cpu buffer is empty.
 */
RINGBUF_API uint64_t ringbuf_oldest_event_ts(struct ringbuf *rb, int cpu);

/**
 * ringbuf_torn_events_cpu - events lost to writes that never finished: a
 *	thread cancelled or exiting between reserve and commit, or a writing
 *	process that died in the middle of a write
 * @rb: the buffer (the creator's, or an attached view)
 * @cpu: the cpu buffer
 *
 * Userspace: the kernel has no such case. A thread that exits or is
 * cancelled with a reservation it never committed has it rolled back by
 * its exit destructor before its cpu buffer goes to another thread. A
 * reader attached to a buffer whose writing process died
 * (ringbuf_attach(), ringbuf_wait(), or a reader stuck on the dead
 * writer's page) makes the buffer readable again: every committed event is
 * read as usual, the reserved space after them is taken back, a head push
 * or page crossing cut short is completed, and the entry and byte counts
 * are recounted from the pages. Only the outermost write moves the commit,
 * so events a signal handler committed inside an interrupted write are
 * lost with it. Each of those (counted as written, never readable) counts
 * here once, and an interrupted write that took nothing else with it
 * counts once. Afterwards entries, bytes and ringbuf_empty() describe what
 * can still be read.
 *
 * Context: any thread; takes the reader lock.
 */
RINGBUF_API unsigned long ringbuf_torn_events_cpu(struct ringbuf *rb, int cpu);

/**
 * ringbuf_entries - ringbuf_entries_cpu() summed over all cpu buffers
 * @rb: the buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_entries(struct ringbuf *rb);

/**
 * ringbuf_overruns - ringbuf_overrun_cpu() summed over all cpu buffers
 * @rb: the buffer
 *
 * Context: any thread; takes the reader lock(s).
 */
RINGBUF_API unsigned long ringbuf_overruns(struct ringbuf *rb);

/* ---- messages ---------------------------------------------------------- */

/** How much a message of the library matters. */
enum ringbuf_print_level {
	RINGBUF_PRINT_WARN,
	RINGBUF_PRINT_INFO,
	RINGBUF_PRINT_DEBUG,
};

/** A callback that takes the library's messages (as libbpf_set_print()).
 * It may be called on the write path, from a signal handler: it must be
 * async-signal-safe if the program writes records there. */
typedef int (*ringbuf_print_fn)(enum ringbuf_print_level level,
				const char *fmt, va_list ap);

/**
 * ringbuf_set_print - where the library's messages go
 * @fn: the callback, or NULL for the default: standard error, each
 *	message formatted on the stack and written with one write(2)
 *	(async-signal-safe), debug messages left out
 *
 * Context: any thread; lock-free.
 * Return: the callback set before (NULL: the default).
 */
RINGBUF_API ringbuf_print_fn ringbuf_set_print(ringbuf_print_fn fn);

#ifdef __cplusplus
}
#endif

#endif /* RINGBUF_RINGBUF_H */
