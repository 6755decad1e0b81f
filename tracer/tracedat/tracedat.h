/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracedat.h - trace.dat files (trace-cmd's format, version 6, little
 * endian, 64-bit layout, uncompressed; or version 7 with zstd-compressed
 * sections, td_writer_set_compression()): a streaming writer that spools the
 * pages of each cpu buffer and assembles the file, a reader over an mmap
 * of such a file, and a decoder of one page's records.
 *
 * Layout of a version 6 file (every number little endian):
 *
 *	17 08 44 "tracing" "6\0"	magic and version
 *	u8 0, u8 8, u32 page_size	little endian, 8-byte long, page size
 *	"header_page\0" u64 + text	the page header (commit size 8)
 *	"header_event\0" u64 + text	the record header format
 *	u32 n, n x (u64 + text)		formats of the "ftrace" system
 *	u32 n, n x ("system\0" u32 m, m x (u64 + text))	other systems
 *	u32 + text			kallsyms
 *	u32 + text			printk formats (always empty here)
 *	u64 + text			saved cmdlines ("pid comm\n")
 *	u32 nr_cpus			the CPUs, then the spares in use
 *	"options  \0" (u16 id, u32 size, data)... u16 0
 *	"flyrecord\0" nr_cpus x (u64 offset, u64 size)
 *	u64 + text			trace_clock, only with option 4
 *	[trace-cmd's files: for each option 3 (BUFFER: u64 offset, name), at
 *	  its offset: "flyrecord\0" nr_cpus x (u64, u64) [u64 + text]]
 *	zeroes up to a multiple of page_size, then each cpu's pages
 *
 * The per-cpu table comes before the data and each cpu's data is one run
 * of pages. Where the file system can shift a file's blocks (ext4, XFS:
 * fallocate()'s FALLOC_FL_INSERT_RANGE and FALLOC_FL_COLLAPSE_RANGE), the
 * writer writes in place: each cpu's pages go once to the output, into a
 * reservation that grows by inserting a hole after it (which moves the
 * blocks that follow, not their bytes); a checkpoint rewrites the header
 * alone, and the close removes the holes (a writer killed while a
 * reservation grows leaves the cpus whose data moved shown empty).
 * Where blocks cannot be shifted but holes can be punched (tmpfs:
 * FALLOC_FL_PUNCH_HOLE), it writes in place too, into reservations of
 * up to 1 GiB per cpu that are holes until written (sparse), placed in
 * the order the cpus first write: a cpu that outgrows its reservation
 * has it doubled and the data of the cpus placed after it copied up, and
 * the close copies each cpu's data but the first down next to the one
 * before it and cuts the file. A cpu whose data is copied over itself is
 * shown empty until the copy is whole. Elsewhere (a FIFO, a file system
 * without holes) it keeps each cpu's
 * pages in an unlinked temporary file next to the output and copies them
 * into place when it assembles the file (td_writer_checkpoint(),
 * td_writer_close()).
 *
 * Conventions: functions returning int return 0 or a negative errno. None
 * of the objects is thread-safe: one thread at a time uses a writer or a
 * reader.
 */
#ifndef RINGTRACE_TRACEDAT_H
#define RINGTRACE_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Smallest and largest page (sub-buffer) size of a file. */
#define TD_MIN_PAGE_SIZE 4096u
#define TD_MAX_PAGE_SIZE (1u << 20)
/** Most cpu buffers a file may describe. */
#define TD_MAX_CPUS 65536

/* -------------------------------------------------------------------- */
/* Writer                                                                */

/** A trace.dat being written. Opaque. */
struct td_writer;
struct td_record;
struct td_count;

/**
 * td_writer_open - start writing a trace.dat
 * @path: the file to create: a regular file there is removed first (a
 *	new file, O_CREAT | O_EXCL | O_NOFOLLOW); anything else there is
 *	refused, as is "-"
 * @page_size: the sub-buffer size of the pages that will be added, a
 *	power of two from TD_MIN_PAGE_SIZE to TD_MAX_PAGE_SIZE
 * @nr_cpus: cpu buffers 0 .. @nr_cpus - 1 (1 .. TD_MAX_CPUS)
 * @out: receives the writer
 *
 * @path is created empty (mode 0644 less the umask) at once, so that a
 * bad path fails here; it receives its content at the first
 * td_writer_checkpoint() or at td_writer_close(). A recorder that wants
 * the path to read even if it dies before its first page calls
 * td_writer_checkpoint() once the sections are set. The pages go to
 * temporary files in the directory of @path.
 *
 * Context: any thread; blocks (file system).
 * Return: 0, -EINVAL (bad argument), -ENOMEM, or the error of creating
 * @path (-ENOENT, -EACCES, -ELOOP for a symbolic link, -EEXIST for a
 * device node, FIFO or socket there, -EISDIR for a directory, ...).
 */
int td_writer_open(const char *path, unsigned int page_size, int nr_cpus,
		   struct td_writer **out);

/**
 * td_writer_open_meta - a writer of the metadata alone, for
 *	td_writer_stream_header(): no file; pages are refused, a checkpoint
 *	and the close write nothing
 * @page_size: as for td_writer_open()
 * @nr_cpus: as for td_writer_open()
 * @out: receives the writer
 *
 * Context: any thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_open_meta(unsigned int page_size, int nr_cpus,
			struct td_writer **out);

/** The names of the buffer instances that held spares in the files of
 * earlier versions (read, no longer written): this, then a number. */
#define TD_SPARES_PREFIX "spares"

/**
 * td_writer_stream_header - the metadata of the file for a receiver that
 *	appends the cpu table and the pages itself (trace-cmd listen, the
 *	host of trace-cmd record -A)
 * @w: the writer (td_writer_open_meta()'s holds the metadata alone)
 * @out: receives the bytes (malloc'ed; the caller frees them)
 * @len: receives their count
 * @fixed: if not NULL, receives how many of the first bytes are the same
 *	whatever is set later (the magic, the page size, header_page and
 *	header_event, which are set first or not at all): a receiver may
 *	be given those before the rest is known
 *
 * The file up to and including its options section, as the sections
 * set so far make it: the receiver appends "flyrecord", a table of
 * nr_cpus entries, its own trace_clock record (or none) and each cpu's
 * pages, page-aligned. Every cpu buffer is a cpu of this file, the
 * spares after the CPUs, as in a file (whose spares past the last one
 * with pages are left out); their CPUSTAT options say that they are
 * spares, and td_reader_nr_cpu_buffers() gives the count of CPUs. Where the
 * receiver writes no trace_clock record, a reader finds an empty one
 * after the table (a pad option keeps the table's end 8 bytes or more
 * before a page boundary).
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_stream_header(struct td_writer *w, void **out, size_t *len,
			    size_t *fixed);

/**
 * td_writer_set_cpu_buffers - say which cpu buffers are CPUs
 * @w: the writer, before its first page and checkpoint
 * @nr_cpu_bufs: cpu buffers 0 .. @nr_cpu_bufs - 1 are CPUs; the others
 *	are spares (1 .. the writer's nr_cpus; the default is all)
 *
 * The spares go into the file as the cpus after the CPUs, up to the last
 * spare that holds pages (a file whose spares stayed empty has the CPUs
 * alone), and each spare's CPUSTAT option says it is one ("spare: k"
 * after its "CPU: n" line), which is how our reader knows where the
 * spares start. No buffer instances: every mode of trace-cmd 3.1 reads such a
 * file (libtracecmd frees the filter of a file with instances twice, its
 * --profile and hist fail on them, its convert gives instances the host's
 * page size), and the CPU each record of a spare was written on stays in
 * the spare's CPU notes, which trace-cmd skips as discarded records.
 * td_reader_nr_cpu_buffers() gives @nr_cpu_bufs back.
 *
 * Context: the writer's thread.
 * Return: 0 or -EINVAL.
 */
int td_writer_set_cpu_buffers(struct td_writer *w, int nr_cpu_bufs);

/**
 * td_writer_set_compression - write a version 7 file with compressed
 *	sections, as trace-cmd writes them
 * @w: the writer of a file, before its first page
 * @algo: "zstd", or "none" (version 6, uncompressed: the default)
 *
 * A compressing writer keeps each cpu's data as zstd chunks of up to
 * TD_ZCHUNK_BYTES of pages (zstd's level -2 with a larger hash table,
 * one context a thread reused for every chunk), in an unlinked
 * temporary file beside the output. A cpu's staging that fills is
 * handed to the compressor threads the writer starts here
 * (TD_ZQ_THREADS; td_writer_add_page() and td_writer_page_slot() then
 * take an empty one at once: up to 16 MiB of full stagings wait for the
 * compressors; beyond that they wait until one frees one), which
 * compress the stagings side by side and write the chunks in the order
 * the stagings were handed over; a checkpoint waits for the threads to
 * have written every chunk so far. On a file system that writes in place
 * (td_writer_in_place(): ext4, XFS, tmpfs, btrfs) the chunks go straight
 * into the output, each cpu's into a region of its own (64 MiB to start
 * with, td_writer_set_reserve(); one outgrown is copied to a new one of
 * twice its size above the others), after a chunk count; a checkpoint
 * writes the sections of the metadata and the options above every region,
 * where nothing the file shows yet is, then points the header at them, and
 * the close moves the cpus' data together (data that would overwrite
 * itself is shown empty while it moves) and cuts the file after the
 * sections that follow it. Elsewhere the chunks go to an unlinked
 * temporary file beside the output, and the writer assembles the file
 * from them at each checkpoint and at the close. Either way the file is
 * the header, the sections of the metadata (header texts, ftrace and
 * event formats, kallsyms, printk formats, cmdlines; compressed), an
 * options section that points to them, the section of the cpu data (each
 * cpu's chunks after a chunk count, from a page boundary), and an options
 * section with the BUFFER option that lists them. td_writer_stats()
 * counts the pages uncompressed; td_writer_written() the bytes written.
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL (an unknown @algo), -EBUSY (pages added already, a
 * metadata writer, or "none" after "zstd"), -ENOTSUP (built without
 * libzstd), -ENOMEM, or pthread_create()'s error. A chunk's error (a full
 * disk, say) is returned by the next page slot or checkpoint, and by
 * every one after it.
 */
int td_writer_set_compression(struct td_writer *w, const char *algo);

/*
 * The pages a compressing writer stages per cpu and compresses into one
 * chunk: 1 MiB (whole pages; one page when a page is larger). On
 * function_graph recordings 1 MiB chunks take 5 % fewer instructions
 * than 256 KiB ones and 2.5 % fewer bytes (sqlite3: 5.84 against 5.98
 * bytes a record; larger ones gain under 1 % more); a reader holds
 * TD_READER_CHUNKS of them per cpu buffer.
 */
#define TD_ZCHUNK_BYTES (1u << 20)

/** td_writer_compressed - whether td_writer_set_compression() chose zstd */
bool td_writer_compressed(const struct td_writer *w);

/**
 * td_default_header_page - the header_page text of a 64-bit little-endian
 *	kernel for a sub-buffer size
 * @page_size: the sub-buffer size (its data field is page_size - 16)
 *
 * Context: any thread; the text is in a buffer of the calling thread,
 * valid until its next call.
 * Return: the text.
 */
const char *td_default_header_page(unsigned int page_size);

/**
 * td_default_header_event - the header_event text of the kernel's record
 *	header (type_len 5 bits, time_delta 27 bits)
 *
 * Context: any thread.
 * Return: the text (static).
 */
const char *td_default_header_event(void);

/**
 * td_writer_set_header_page - set the header_page section
 * @w: the writer
 * @text: the text, as tracefs's events/header_page prints it
 *
 * Without it the file gets td_default_header_page(). An empty text is
 * refused: it would make readers take the pre-2.6.31 page format. This
 * and the other text setters may be called again to replace the text
 * (for example new cmdlines before a checkpoint); the text is copied.
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_header_page(struct td_writer *w, const char *text);

/**
 * td_writer_set_header_event - set the header_event section
 * @w: the writer
 * @text: the text, as tracefs's events/header_event prints it
 *
 * Without it the file gets td_default_header_event().
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_header_event(struct td_writer *w, const char *text);

/**
 * td_writer_add_format - add one event format
 * @w: the writer
 * @system: the event's system; "ftrace" goes to the ftrace section, any
 *	other to the event systems section (grouped by system, in the order
 *	the systems first appear)
 * @format_text: the format, as tracefs's events/<system>/<event>/format
 *	prints it, with an "ID: n" line
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL (no "ID:" line, an ID over 65535, an empty or
 * malformed @system), -EEXIST (another format has that ID), -ENOMEM.
 */
int td_writer_add_format(struct td_writer *w, const char *system,
			 const char *format_text);

/**
 * td_writer_set_kallsyms - set the symbol table
 * @w: the writer
 * @text: lines "%016lx T name\n" or "%016lx T name\t[module]\n" (1 to 16
 *	hex digits, a type letter, a name without blanks), in any order;
 *	empty lines are ignored
 *
 * The lines are stored sorted by address (lines of one address keep their
 * order) and followed by an end line "ffffffffffffffff T _etext": readers
 * resolve an address to the symbol at or below it only when a symbol
 * follows, so without it the last symbol would match its exact address
 * only. An empty @text means no symbols (and no end line).
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL (a malformed line; readers stop at the first one),
 * -EFBIG (4 GiB or more), -ENOMEM.
 */
int td_writer_set_kallsyms(struct td_writer *w, const char *text);

/**
 * td_writer_set_cmdlines - set the saved cmdlines
 * @w: the writer
 * @text: lines "pid comm\n" (a comm may contain blanks)
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_cmdlines(struct td_writer *w, const char *text);

/**
 * td_writer_set_clock - name the clock the pages' time stamps are in
 * @w: the writer
 * @clock_name: "local", "mono", "mono_raw", "boot", "x86-tsc", ...: a
 *	word of letters, digits, '-' and '_'
 *
 * Written as the TRACECLOCK option and as the trace_clock record after the
 * cpu table (a version 6 reader reads the one when it saw the other), as
 * tracefs's trace_clock file prints it: the known clocks with the current
 * one in brackets. Readers print the time stamps of the clocks "local",
 * "global", "uptime", "perf", "mono*", "tai" as seconds; of the others as
 * raw numbers. Without a clock, readers take "local".
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_clock(struct td_writer *w, const char *clock_name);

/**
 * td_writer_set_trace_options - the trace options the recording was made
 *	with (record -O), one line of blank-separated names
 * @w: the writer
 * @text: the names ("sym-offset nofuncgraph-proc"), no newline
 *
 * Kept in an option of the file's options section that trace-cmd skips;
 * td_reader_trace_options() gives it back.
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_trace_options(struct td_writer *w, const char *text);

/**
 * td_writer_set_protos - the prototypes of the traced functions, for
 *	funcgraph-args: "%016lx proto" lines (fnproto.h)
 * @w: the writer
 * @text: the lines
 *
 * Kept in an option of the file's options section that trace-cmd skips
 * (as the trace options'); td_reader_protos() gives it back.
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_protos(struct td_writer *w, const char *text);

/**
 * td_writer_set_uname - set the UNAME option (the traced system)
 * @w: the writer
 * @text: for example "Linux host 6.1.0 #1 SMP x86_64"
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -EFBIG (4 GiB or more), -ENOMEM.
 */
int td_writer_set_uname(struct td_writer *w, const char *text);

/**
 * td_writer_set_version - set the VERSION option (the writing program)
 * @w: the writer
 * @text: for example "ringtrace 0.1.0", not empty
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_version(struct td_writer *w, const char *text);

/**
 * td_writer_set_cpu_stats - set a cpu buffer's statistics
 * @w: the writer
 * @cpu: the cpu buffer
 * @text: lines "name: value\n" (those of tracefs's per_cpu/cpuN/stats)
 *
 * Each cpu buffer in the file gets a CPUSTAT option, as trace-cmd writes
 * them, in cpu order: "CPU: n\n", for a spare "spare: k ...\n", then
 * @text (nothing more without it); readers show them one after the
 * other (`trace-cmd report --stat`). A spare that is not in the file
 * (td_writer_set_cpu_buffers()) has none.
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int td_writer_set_cpu_stats(struct td_writer *w, int cpu, const char *text);

/**
 * td_writer_add_page - append a sub-buffer to a cpu's data
 * @w: the writer
 * @cpu: the cpu buffer, 0 .. nr_cpus - 1
 * @page: page_size bytes, a struct ringbuf_data_page as
 *	ringbuf_read_page() fills it
 *
 * Pages of one cpu must come in time order. The page is checked before it
 * is kept: the commit (flags masked) within page_size - 16, room for the
 * lost-event count when RINGBUF_MISSED_STORED says it is there, and every
 * record well formed (td_page_for_each()); trace-cmd refuses a whole file
 * for one page with a bad commit. The pages of a cpu are staged and
 * written in groups (at the latest at the next checkpoint), in place or
 * to the cpu's temporary file (created at the cpu's first page, unlinked
 * at once, so nothing is left behind by a crash), which is what lets a
 * recording be larger than memory. Pages that could not be written stay
 * staged and the writer stays usable.
 *
 * Context: the writer's thread; blocks (file system).
 * Return: 0, -EINVAL (bad @cpu, NULL @page, malformed page), or a write
 * error: -ENOSPC, -EDQUOT, -EFBIG, -EIO, ...
 */
int td_writer_add_page(struct td_writer *w, int cpu, const void *page);

/**
 * td_writer_page_slot - where the next page of a cpu can be built
 * @w: the writer
 * @cpu: the cpu buffer
 *
 * A page_size buffer of the writer's, filled by the caller (with
 * ringbuf_read_page(), say) and kept with td_writer_commit_slot(), which
 * saves the copy td_writer_add_page() makes. The pages of a cpu are
 * written in groups; a full group is written here first.
 *
 * Context: the writer's thread; may block (file system).
 * Return: the buffer, or NULL with errno set (EINVAL, ENOMEM, or the
 * error of writing the pages staged before).
 */
void *td_writer_page_slot(struct td_writer *w, int cpu);

/**
 * td_writer_commit_slot - keep the page built in a cpu's slot
 * @w: the writer
 * @cpu: the cpu buffer, whose slot was given by td_writer_page_slot()
 * @count: if not NULL, the page's records are added to it, as
 *	td_page_count() adds them (the check goes through them anyway)
 * @missed: as for td_page_for_each() (may be NULL)
 *
 * The page is checked as td_writer_add_page() checks it; a malformed one
 * is not kept (the slot is given again; @cb may have seen some of its
 * records).
 *
 * Context: the writer's thread.
 * Return: 0 or -EINVAL.
 */
int td_writer_commit_slot(struct td_writer *w, int cpu,
			  struct td_count *count, unsigned long *missed);

/**
 * td_writer_keep_slot - keep the page built in a cpu's slot, checked
 *	already
 * @w: the writer
 * @cpu: the cpu buffer, whose slot was given by td_writer_page_slot()
 * @missed: as for td_page_for_each() (may be NULL)
 *
 * td_writer_commit_slot() without the walk through the page's records:
 * for a page whose records were checked where it was read (a page of
 * ringbuf_read_page_count(), whose check td_page_count()'s includes);
 * its header is checked (td_page_missed()).
 *
 * Context: the writer's thread.
 * Return: 0 or -EINVAL.
 */
int td_writer_keep_slot(struct td_writer *w, int cpu, unsigned long *missed);

/**
 * td_writer_in_place - whether the writer writes the output in place
 * @w: the writer
 *
 * Context: the writer's thread.
 * Return: true when the pages (compressed: their chunks) go straight to
 * the output and a checkpoint writes the header alone (compressed: the
 * metadata and the options, and the header); false when they are spooled
 * and a checkpoint copies them.
 */
bool td_writer_in_place(const struct td_writer *w);

/**
 * td_writer_set_reserve - the first reservation of each cpu of a writer
 *	that writes in place with holes, or compressed in place (for tests:
 *	a small one makes cpus outgrow it)
 * @w: the writer, before its first page (compressed: after
 *	td_writer_set_compression(), before the first checkpoint)
 * @bytes: rounded up to whole pages
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL, or -EBUSY (compressed, after a checkpoint).
 */
int td_writer_set_reserve(struct td_writer *w, uint64_t bytes);

/**
 * td_writer_set_spooled - write through temporary files and assemble the
 *	file at checkpoints, as on a file system that cannot write in place
 *	(for tests: that way on any file system)
 * @w: the writer of a file, before its first page
 *
 * Context: the writer's thread.
 * Return: 0 or -EINVAL.
 */
int td_writer_set_spooled(struct td_writer *w);

/**
 * td_writer_set_step_hook - call a function at each step of a move of a
 *	cpu's data in a writer that writes in place with holes (for tests:
 *	one that ends the process there, or reads the final counters)
 * @w: the writer
 * @fn: called with "hidden" (the cpu shown empty on disk, before a copy
 *	over its own data), "copied" (the copy whole, not shown yet),
 *	"shown" (its entry written); and "closed" in td_writer_close() of
 *	any in-place writer, once the file is complete, before the writer
 *	is freed (its counters are final); NULL for none. A compressing
 *	writer in place calls it on a compressor thread at the same steps
 *	of the close's moves, and with "copied" when a region outgrown has
 *	been copied up
 * @arg: passed to @fn
 *
 * Context: the writer's thread.
 */
void td_writer_set_step_hook(struct td_writer *w,
			     void (*fn)(const char *what, void *arg),
			     void *arg);

/**
 * td_writer_moved - bytes a writer that writes in place with holes
 *	copied from one place of the output to another (part of
 *	td_writer_written())
 * @w: the writer
 *
 * Context: the writer's thread.
 */
uint64_t td_writer_moved(const struct td_writer *w);

/**
 * td_writer_written - bytes the writer wrote to files so far
 * @w: the writer
 *
 * Pages, headers, the copies of the spooled pages, and the data a writer
 * in place with holes moved (td_writer_moved()).
 *
 * Context: the writer's thread.
 */
uint64_t td_writer_written(struct td_writer *w);

/**
 * td_writer_stats - what was added so far
 * @w: the writer
 * @pages: if not NULL, receives the pages added (all cpus)
 * @bytes: if not NULL, receives the bytes they take in the file
 *	(pages * page_size)
 *
 * Context: the writer's thread.
 */
void td_writer_stats(struct td_writer *w, uint64_t *pages, uint64_t *bytes);

/**
 * td_writer_checkpoint - make the file at the path complete now
 * @w: the writer
 *
 * Writes the staged pages. In place, then writes the header for the
 * pages written: the path always holds a trace.dat that reads, with holes
 * between the cpus' data until the close (compressed: the metadata and
 * options sections at a place of their own, then the header that points
 * to them; td_writer_set_compression()). Otherwise, assembles a complete
 * trace.dat with everything added so far into "<path>.tmp" and renames it
 * over the path, so that whatever happens to
 * the recording process later (a crash, SIGKILL, a full disk) the path
 * holds a file that reads, and a reader never sees a half-written one.
 * The pages are copied from the temporary files (copy_file_range(), which
 * shares or copies the blocks in the kernel where the file system can): a
 * checkpoint costs a write of the whole file, and until the rename the
 * disk holds both the old and the new file, besides the temporary files.
 * A checkpoint with nothing new since the previous one does nothing.
 * After a failure the path keeps the previous checkpoint and
 * "<path>.tmp" is removed; in place, the header still shows the pages
 * that were written (it overwrites bytes the file has). Each checkpoint makes a new file (mode 0644
 * less the umask): a reader that opened an earlier one keeps reading it.
 *
 * Context: the writer's thread; blocks (file system).
 * Return: 0, -ENOMEM, or the file system's error (-ENOSPC, -EFBIG, -EIO,
 * ...).
 */
int td_writer_checkpoint(struct td_writer *w);

/**
 * td_writer_checkpoint_nowait - a checkpoint that the writer's thread does
 *	not wait for
 * @w: the writer
 *
 * A compressing writer (td_writer_set_compression()) queues the
 * checkpoint after the chunks of the pages added so far; its compressor
 * thread assembles the file when it gets there, while the caller goes on
 * adding pages. Nothing is queued while an earlier checkpoint still is
 * (the next one shows what this one would). Other writers: as
 * td_writer_checkpoint().
 *
 * Context: the writer's thread; blocks only for room in the queue.
 * Return: 0, -ENOMEM, or the error of an earlier chunk or checkpoint
 * (this one's is returned by a later call).
 */
int td_writer_checkpoint_nowait(struct td_writer *w);

/**
 * td_writer_close - write the file and free the writer
 * @w: the writer (NULL is ignored)
 *
 * A last td_writer_checkpoint(); in place, the holes are then removed
 * and the header written with the final offsets. The writer is freed
 * whatever the result.
 * After a failure the path keeps the last successful checkpoint (or is
 * empty if there was none).
 *
 * Context: the writer's thread; blocks (file system).
 * Return: as td_writer_checkpoint().
 */
int td_writer_close(struct td_writer *w);

/**
 * td_writer_abort - free a writer without writing the file
 * @w: the writer (NULL is ignored)
 *
 * The path is left as it is (empty, or the last checkpoint).
 *
 * Context: the writer's thread.
 */
void td_writer_abort(struct td_writer *w);

/* -------------------------------------------------------------------- */
/* Reader                                                                */

/** A trace.dat open for reading. Opaque. */
struct td_reader;

/**
 * td_reader_open - open and validate a trace.dat
 * @path: the file
 * @out: receives the reader
 * @err: if not NULL, receives a message on failure: what is wrong and at
 *	which file offset
 * @errlen: size of @err
 *
 * Files written by td_writer and by trace-cmd are accepted: version 6
 * (uncompressed) and version 7 (trace-cmd's default: sections, the data
 * compressed with zstd or zlib, decompressed with the system's
 * libzstd.so.1 or libz.so.1, found with dlopen(), or not compressed),
 * little endian, 64-bit, with the buffer instances trace-cmd records
 * (their cpus after the file's, td_reader_instance_cpu()). Everything
 * the reader will use is checked here: the header, every section's
 * length against the file, the page size (a power of two from 4 KiB to
 * 1 MiB), the header_page's commit size (8), and the cpu table: each
 * cpu's data page-aligned, a whole number of pages, after the header and
 * within the file. A compressed file's cpu data are not decompressed
 * here: each cpu's chunks are listed from their headers (each within the
 * file, at most 64 MiB decompressed, the cpu's total whole pages, and
 * for zstd the size the chunk's frame gives, when it gives one, the
 * chunk's); td_reader_page() decompresses them as they are read. The
 * file is mapped read-only; a file replaced later by a checkpoint's
 * rename is a new file and does not disturb the mapping.
 *
 * Context: any thread; blocks (file system).
 * Return: 0, the open(2) error (-ENOENT, -EACCES, ...), -EPROTO (a
 * malformed or truncated file), -ENOTSUP (a valid file in a form this
 * reader does not read: a version after 7, a compression whose library
 * is not installed, an instance whose sub-buffers differ from the file's,
 * big endian, 32-bit, a latency trace), -EFBIG (a compressed section
 * other than the cpu data of more than 1 GiB), -ENOMEM.
 */
int td_reader_open(const char *path, struct td_reader **out, char *err,
		   size_t errlen);

/**
 * td_reader_page_size - the file's page (sub-buffer) size
 * @r: the reader
 *
 * Context: any thread.
 */
unsigned int td_reader_page_size(struct td_reader *r);

/**
 * td_reader_nr_cpus - the number of cpu buffers in the file: the CPUs,
 *	the spares, and the cpus of the buffer instances trace-cmd wrote
 * @r: the reader
 *
 * Context: any thread.
 */
int td_reader_nr_cpus(struct td_reader *r);

/**
 * td_reader_nr_cpu_buffers - how many of the cpu buffers are CPUs; the
 *	buffers after them are spares (td_writer_set_cpu_buffers(), or the
 *	buffer instances named TD_SPARES_PREFIX of older files, group after
 *	group) and the cpus of trace-cmd's instances
 * @r: the reader
 *
 * Context: any thread.
 */
int td_reader_nr_cpu_buffers(struct td_reader *r);

/**
 * td_reader_instance_cpu - the CPU of a cpu buffer of a buffer instance
 *	trace-cmd recorded (one not named TD_SPARES_PREFIX)
 * @r: the reader
 * @cpu: the cpu buffer
 *
 * Context: any thread.
 * Return: the instance's CPU, or -1 for the other cpu buffers.
 */
int td_reader_instance_cpu(struct td_reader *r, int cpu);

/**
 * td_reader_clock - the trace clock
 * @r: the reader
 *
 * Context: any thread.
 * Return: the bracketed clock of the file's trace_clock text, or "local"
 * when the file names none.
 */
const char *td_reader_clock(struct td_reader *r);

/**
 * td_reader_kallsyms - the symbol table text
 * @r: the reader
 *
 * Context: any thread.
 * Return: the text, "" when the file has none.
 */
const char *td_reader_kallsyms(struct td_reader *r);

/**
 * td_reader_cmdlines - the saved cmdlines text
 * @r: the reader
 *
 * Context: any thread.
 * Return: the text, "" when the file has none.
 */
const char *td_reader_cmdlines(struct td_reader *r);

/**
 * td_reader_trace_options - the trace options the recording was made with
 *	(td_writer_set_trace_options())
 * @r: the reader
 *
 * Context: any thread.
 * Return: the text, or NULL when the file names none.
 */
const char *td_reader_trace_options(struct td_reader *r);

/**
 * td_reader_protos - the prototypes text (td_writer_set_protos())
 * @r: the reader
 *
 * Context: any thread.
 * Return: the text, "" when the file has none.
 */
const char *td_reader_protos(struct td_reader *r);

/**
 * td_reader_uname - the UNAME option
 * @r: the reader
 *
 * Context: any thread.
 * Return: the text, "" when the file has none.
 */
const char *td_reader_uname(struct td_reader *r);

/**
 * td_reader_format - one event format of the file
 * @r: the reader
 * @i: its index: the ftrace formats first, then the other systems' in
 *	file order
 * @system: if not NULL, receives the system name ("ftrace" for the
 *	ftrace section)
 *
 * Context: any thread.
 * Return: the format text, or NULL when @i is past the last one.
 */
const char *td_reader_format(struct td_reader *r, unsigned int i,
			     const char **system);

/**
 * td_reader_nr_pages - the number of pages of a cpu buffer
 * @r: the reader
 * @cpu: the cpu buffer
 *
 * Context: any thread.
 * Return: the count, 0 for a cpu without data or out of range.
 */
uint64_t td_reader_nr_pages(struct td_reader *r, int cpu);

/*
 * The decompressed chunks of a compressed file a reader holds per cpu
 * buffer: the ones it decompressed last (a page the reader hands out,
 * the one before it when a page crosses into the next chunk).
 */
#define TD_READER_CHUNKS 2

/**
 * td_reader_page - one page of a cpu buffer
 * @r: the reader
 * @cpu: the cpu buffer
 * @idx: the page, 0 .. td_reader_nr_pages() - 1, in time order
 *
 * An uncompressed file's page is in the read-only mapping. A compressed
 * file's is in its chunk, decompressed then (or held from before: the
 * last TD_READER_CHUNKS chunks of each cpu buffer are), so that the
 * memory a reader holds is bounded by its chunks whatever the file's
 * size; going back to a chunk no longer held decompresses it again.
 *
 * Context: the reader's thread (it changes what the reader holds).
 * Return: the page (page_size bytes; in an uncompressed file valid until
 * td_reader_close(), in a compressed one until the next td_reader_page()
 * or td_reader_release() of the same cpu buffer), or NULL when @cpu or
 * @idx is out of range, or the page is in a chunk that does not
 * decompress or there is no memory for it (td_reader_page_error() says
 * which).
 */
const void *td_reader_page(struct td_reader *r, int cpu, uint64_t idx);

/**
 * td_reader_page_error - why td_reader_page() gave no page
 * @r: the reader
 * @cpu: the cpu buffer
 * @idx: the page
 * @pages: receives how many pages from @idx on cannot be read for the
 *	same reason (the rest of a chunk that does not decompress; 1 for a
 *	want of memory), 0 when the page reads
 * @msg: receives the message (which chunk of which cpu buffer, at which
 *	file offset; valid until the next call), NULL when the page reads
 *
 * Context: the reader's thread.
 * Return: -EPROTO (a chunk that does not decompress into its size),
 * -ENOMEM, or 0 when td_reader_page() gives @idx or it is out of range.
 */
int td_reader_page_error(struct td_reader *r, int cpu, uint64_t idx,
			 uint64_t *pages, const char **msg);

/**
 * td_reader_release - give back the memory of pages read
 * @r: the reader
 * @cpu: the cpu buffer
 * @first: its first page to release
 * @n: how many
 *
 * The file is mapped whole; a reader that goes through it once releases
 * what it is done with, so that its memory stays bounded whatever the
 * file's size. A released page still reads (it is mapped again from the
 * file on access, or its chunk decompressed again). A compressed file's
 * chunks held that lie within the pages are freed.
 *
 * Context: the reader's thread.
 */
void td_reader_release(struct td_reader *r, int cpu, uint64_t first,
		       uint64_t n);

/**
 * struct td_reader_stats - what a reader of a compressed file decompressed
 * @held: bytes of decompressed data it holds now (chunks, and a page
 *	that spans two of them)
 * @peak: the most it held at once since td_reader_open()
 * @inflated: chunks decompressed (one decompressed again counts again)
 * @chunks: the chunks of the file's cpu data
 * @chunk_max: the bytes the largest of them decompresses into
 */
struct td_reader_stats {
	uint64_t held;
	uint64_t peak;
	uint64_t inflated;
	uint64_t chunks;
	uint64_t chunk_max;
};

/**
 * td_reader_stats - what a reader decompressed and holds (all 0 for an
 *	uncompressed file)
 * @r: the reader
 * @st: receives the counts
 *
 * Context: the reader's thread.
 */
void td_reader_stats(struct td_reader *r, struct td_reader_stats *st);

/**
 * td_reader_close - unmap the file and free the reader
 * @r: the reader (NULL is ignored)
 *
 * Context: any thread.
 */
void td_reader_close(struct td_reader *r);

/* -------------------------------------------------------------------- */
/* Page decoder                                                          */

/**
 * struct td_record - one data record of a page
 * @ts: its absolute time stamp, in the clock's units
 * @data: the payload (the event's common header first)
 * @len: the payload's length as the page holds it (rounded up to 4)
 * @cpu: the CPU the last CPU note before it on the page names (a record
 *	of a spare buffer; <ringbuf/event.h>), -1 where none does
 */
struct td_record {
	uint64_t ts;
	const void *data;
	unsigned int len;
	int cpu;
};

/** td_page_for_each()'s *missed when events were lost, count unknown. */
#define TD_MISSED_UNKNOWN ((unsigned long)-1)

/**
 * td_page_for_each - decode the data records of one page
 * @page: the page, @page_size bytes (struct ringbuf_data_page layout)
 * @page_size: its size, at least 16
 * @cb: called for each data record in page order (NULL: only check)
 * @missed: if not NULL, receives before the first call of @cb the events
 *	lost before this page: 0 for none, the count the page stores, or
 *	TD_MISSED_UNKNOWN when the page says events were lost but not how
 *	many
 * @arg: passed to @cb
 *
 * Time stamps follow the page's time_stamp and each record's delta:
 * TIME_EXTEND adds its extended delta, TIME_STAMP sets the time (bits 59
 * to 63 of the running time are kept), and a discarded record's delta is
 * added as libtraceevent does. A padding record with delta 0 ends the
 * page. CPU notes set @cpu of the records after them. The decoder never reads outside the page; a malformed record
 * stops it, after @cb saw the records before it.
 *
 * Context: any thread.
 * Return: 0, -EINVAL (NULL @page, @page_size < 16), -EPROTO (commit past
 * the page, no room for a stored count, a record crossing the commit, a
 * long record's length word under 4).
 */
int td_page_for_each(const void *page, unsigned int page_size,
		     void (*cb)(const struct td_record *rec, void *arg),
		     unsigned long *missed, void *arg);

/**
 * struct td_count - what td_page_count() adds up
 * @records: the data records
 * @matched: those whose type (their first two bytes, the common_type of
 *	a trace event) is one of @types
 * @types: the types counted apart; -1: none
 */
struct td_count {
	unsigned long records;
	unsigned long matched;
	int types[3];
};

/**
 * td_page_count - check one page as td_page_for_each() does and count
 *	its data records
 * @page: the page, @page_size bytes
 * @page_size: its size, at least 16
 * @count: the counts the page's records are added to
 * @missed: as for td_page_for_each() (may be NULL)
 *
 * The same walk as td_page_for_each() with no call per record: the
 * check a recorder makes of each page it keeps, at the cost of reading
 * the record headers.
 *
 * Context: any thread.
 * Return: as td_page_for_each() (-EINVAL for a NULL @count too); @count
 * has the records before a malformed one added.
 */
int td_page_count(const void *page, unsigned int page_size,
		  struct td_count *count, unsigned long *missed);

/**
 * td_page_missed - what one page's header says was lost before it
 * @page: the page, @page_size bytes
 * @page_size: its size, at least 16
 * @missed: set as td_page_for_each() sets it
 *
 * The header's check alone, for a page whose records were checked and
 * counted where it was read (ringbuf_read_page_count()).
 *
 * Context: any thread.
 * Return: 0, -EINVAL (NULL @page or @missed, @page_size < 16), -EPROTO
 * (commit past the page, no room for a stored count).
 */
int td_page_missed(const void *page, unsigned int page_size,
		   unsigned long *missed);

#ifdef __cplusplus
}
#endif

#endif /* RINGTRACE_TRACEDAT_H */
