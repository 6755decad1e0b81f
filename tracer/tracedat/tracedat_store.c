// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_store.c - where the writer's pages go: its storage strategies
 * (the writer itself, which builds the header and assembles the file, is
 * tracedat.c; what both use is in tracedat_int.h).
 *
 * Spooling: each cpu's pages go to an unlinked temporary file in the
 * output's directory (td_spool_open()), copied after the header at a
 * checkpoint (td_copy_range()). In place: the output is written as it
 * grows, each cpu's data in a reservation with a hole after it; the
 * reservations grow by shifting the file's blocks (td_can_shift(),
 * td_shift(), td_unshift(), td_compact()) or, where the file system
 * cannot, by copying a cpu's data to a new place of a sparse file
 * (td_can_sparse(), td_move_up(), td_move_cpu(), td_compact_sparse()).
 * td_flush_cpu() writes a cpu's staged pages by either; for a version 7
 * file it hands them to the compressor threads (td_zq_start()), which
 * write them in chunks to the cpu's spool.
 */
#include "tracedat_int.h"

#include <signal.h>
#include <time.h>

#ifdef TD_HAVE_ZSTD
#include <zstd.h>
#endif

/* ------------------------------------------------------------------ */
/* File helpers                                                        */

/**
 * td_write_all - write a whole buffer at an offset
 * @fd: the file
 * @buf: the bytes
 * @len: how many
 * @off: the file offset
 *
 * Short writes and EINTR are retried; a write that makes no progress is
 * reported as -EIO.
 *
 * Context: blocks.
 * Return: 0, or the negative errno of the failing write (-ENOSPC, -EFBIG,
 * -EDQUOT, -EIO, ...).
 */
int td_write_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		size_t chunk = len > TD_COPY_CHUNK ? TD_COPY_CHUNK : len;
		ssize_t n = pwrite(fd, p, chunk, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/**
 * td_copy_slow - copy a file range through a buffer
 * @in: the source, read from @ioff
 * @ioff: source offset
 * @out: the destination, written at @ooff
 * @ooff: destination offset
 * @len: bytes
 *
 * Context: blocks.
 * Return: 0, -ENOMEM, -EIO when the source is shorter, or a read/write
 * error.
 */
static int td_copy_slow(int in, uint64_t ioff, int out, uint64_t ooff,
			uint64_t len)
{
	unsigned char *buf = malloc(TD_COPY_CHUNK);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (len) {
		size_t chunk =
			len > TD_COPY_CHUNK ? TD_COPY_CHUNK : (size_t)len;
		ssize_t n = pread(in, buf, chunk, (off_t)ioff);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = td_write_all(out, buf, (size_t)n, ooff);
		if (ret)
			break;
		ioff += (uint64_t)n;
		ooff += (uint64_t)n;
		len -= (uint64_t)n;
	}
	free(buf);
	return ret;
}

/**
 * td_copy_range - copy @len bytes of @in at @ioff to @out at @ooff
 * @in: the source
 * @ioff: source offset
 * @out: the destination (may be @in, with a range apart from the source)
 * @ooff: destination offset
 * @len: bytes
 *
 * copy_file_range() first; where the kernel or the file systems cannot do
 * it, a read/write loop.
 *
 * Context: blocks.
 * Return: 0 or a negative errno (-ENOSPC, -EFBIG, -EIO, ...).
 */
int td_copy_range(int in, uint64_t ioff, int out, uint64_t ooff,
		  uint64_t len)
{
	off64_t io = (off64_t)ioff, oo = (off64_t)ooff;

	while (len) {
		size_t chunk =
			len > TD_COPY_CHUNK ? TD_COPY_CHUNK : (size_t)len;
		ssize_t n = copy_file_range(in, &io, out, &oo, chunk, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EXDEV || errno == ENOSYS ||
			    errno == EOPNOTSUPP || errno == EINVAL)
				return td_copy_slow(in, (uint64_t)io, out,
						    (uint64_t)oo, len);
			return -errno;
		}
		if (n == 0)
			return -EIO;
		len -= (uint64_t)n;
	}
	return 0;
}

/**
 * td_spool_open - create an unlinked temporary file in a directory
 * @dir: the directory
 *
 * Context: blocks.
 * Return: the descriptor (read-write), or a negative errno.
 */
static int td_spool_open(const char *dir)
{
	size_t n = strlen(dir);
	char *tmpl;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* file systems (and old kernels) without O_TMPFILE */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	tmpl = malloc(n + sizeof("/.tdspool-XXXXXX"));
	if (!tmpl)
		return -ENOMEM;
	memcpy(tmpl, dir, n);
	memcpy(tmpl + n, "/.tdspool-XXXXXX", sizeof("/.tdspool-XXXXXX"));
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
	} else if (unlink(tmpl)) {
		int e = -errno;

		close(fd);
		fd = e;
	}
	free(tmpl);
	return fd;
}

/**
 * td_can_shift - whether the data of a file can be shifted in place
 * @fd: the file, empty, open for writing
 * @page_size: the unit of the shifts
 *
 * The in-place writer inserts holes in the middle of its output and
 * collapses them at the end (fallocate()'s FALLOC_FL_INSERT_RANGE and
 * FALLOC_FL_COLLAPSE_RANGE: ext4 and XFS, which move extents, not data),
 * in units of the page size, which must then be whole file system blocks.
 * Tried once on the empty file; it is left empty.
 *
 * Context: blocks (file system).
 * Return: true when both work.
 */
bool td_can_shift(int fd, unsigned int page_size)
{
	struct stat st;
	bool ok;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_blksize <= 0 ||
	    page_size % (unsigned long)st.st_blksize)
		return false;
	if (ftruncate(fd, 2 * (off_t)page_size))
		return false;
	ok = !fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, page_size) &&
	     !fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, page_size);
	if (ftruncate(fd, 0))
		ok = false;
	return ok;
}

/**
 * td_can_sparse - whether a file can be written in place with holes
 * @fd: the file, empty, open for writing
 *
 * Where blocks cannot be shifted (tmpfs), the in-place writer leaves
 * holes between the cpus' data instead, moves data by copying, and gives
 * back the blocks of what it moved away (fallocate()'s
 * FALLOC_FL_PUNCH_HOLE, which only a file system with sparse files has).
 * Tried once on the empty file; it is left empty.
 *
 * Context: blocks (file system).
 * Return: true when holes can be punched.
 */
bool td_can_sparse(int fd)
{
	struct stat st;
	bool ok;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || ftruncate(fd, 8192))
		return false;
	ok = !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			4096);
	if (ftruncate(fd, 0))
		ok = false;
	return ok;
}

/**
 * td_sparse_reserve - the first reservation of each cpu of a sparse writer
 * @nr_cpus: the cpu buffers
 * @page_size: the page size (the reservation is whole pages)
 *
 * TD_SPARSE_SPAN shared out (see there), less where the process may not
 * make files that large (RLIMIT_FSIZE): the pages of the last cpus
 * would fail with EFBIG long before the file holds the limit.
 *
 * Context: at open.
 * Return: bytes, at least one page.
 */
uint64_t td_sparse_reserve(int nr_cpus, unsigned int page_size)
{
	uint64_t r = TD_SPARSE_SPAN / (uint64_t)nr_cpus;
	struct rlimit rl;

	if (r > TD_SPARSE_MAX)
		r = TD_SPARSE_MAX;
	if (r < TD_GROW_MIN)
		r = TD_GROW_MIN;
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)rl.rlim_cur / (uint64_t)nr_cpus < r)
		r = (uint64_t)rl.rlim_cur / (uint64_t)nr_cpus;
	r -= r % page_size;
	return r ? r : page_size;
}

/**
 * td_step - tell the test hook that a move reached a step
 * @w: the writer
 * @what: the step ("hidden", "copied", "shown", "closed")
 *
 * Context: the writer's thread, or a compressing writer's compressor thread
 * in place.
 */
void td_step(struct td_writer *w, const char *what)
{
	if (w->step)
		w->step(what, w->step_arg);
}

/**
 * td_show_cpu - write one table entry of the header on disk
 * @w: a sparse writer
 * @cpu: the cpu
 * @off: where its data is (0 with @size 0: shown empty)
 * @size: bytes of data
 *
 * Nothing before the first header.
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or a negative errno.
 */
static int td_show_cpu(struct td_writer *w, int cpu, uint64_t off,
		       uint64_t size)
{
	unsigned char e[16];
	int ret;

	/* a spare not in the table written yet: the next header has it */
	if (!w->hdr_len || !w->entry_written[cpu])
		return 0;
	td_put64(e, size ? off : 0);
	td_put64(e + 8, size);
	ret = td_write_all(w->fd, e, sizeof(e), w->entry_written[cpu]);
	if (ret)
		return ret;
	w->written += sizeof(e);
	/* the bytes on disk, for td_write_header()'s comparison */
	if (w->hdr_prev)
		memcpy(w->hdr_prev + w->entry_written[cpu], e, sizeof(e));
	return 0;
}

/**
 * td_read_all - read a whole range of a file
 * @fd: the file
 * @buf: where to
 * @len: bytes
 * @off: the file offset
 *
 * Context: blocks.
 * Return: 0, -EIO when the file ends first, or the read error.
 */
static int td_read_all(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/**
 * td_move_range - copy a range of a file to an overlapping one
 * @fd: the file
 * @src: the source offset
 * @dst: the destination offset
 * @len: bytes
 * @intact: receives, on failure, whether the source is still whole
 *
 * A chunk at a time through a buffer, in the order that reads each byte
 * of the source before it is overwritten: front to back when @dst is
 * below @src, back to front when it is above.
 *
 * Context: blocks.
 * Return: 0 or a negative errno.
 */
int td_move_range(int fd, uint64_t src, uint64_t dst, uint64_t len,
		  bool *intact)
{
	unsigned char *buf = malloc(TD_COPY_CHUNK);
	uint64_t done = 0;
	int ret = 0;

	*intact = true;
	if (!buf)
		return -ENOMEM;
	while (done < len) {
		uint64_t left = len - done;
		size_t c = left > TD_COPY_CHUNK ? TD_COPY_CHUNK : (size_t)left;
		uint64_t at = dst < src ? done : left - c;

		ret = td_read_all(fd, buf, c, src + at);
		if (!ret)
			ret = td_write_all(fd, buf, c, dst + at);
		if (ret) {
			/* this chunk may be partly written */
			*intact = dst < src ? dst + at + c <= src :
					      dst + at >= src + len;
			break;
		}
		done += c;
	}
	free(buf);
	return ret;
}

/**
 * td_move_cpu - copy a cpu's data to another place of a sparse output
 * @w: a sparse writer
 * @cpu: the cpu
 * @dst: the new offset of its data
 *
 * Ranges apart: copy_file_range() (in the kernel), the cpu shown where it
 * was until its entry moves to the copy. Overlapping ranges: the copy
 * overwrites the data as it goes, so the cpu is shown empty first (a
 * writer killed meanwhile leaves a file that reads, without its pages)
 * and again once the copy is whole. What the data no longer covers is
 * punched out.
 *
 * Context: the writer's thread; blocks.
 * Return: 0, or a negative errno: the data is where the table says
 * (@w->spool[@cpu].off), or for an overlapping copy that failed after it
 * started overwriting, nowhere (@w->broken).
 */
static int td_move_cpu(struct td_writer *w, int cpu, uint64_t dst)
{
	struct td_spool *sp = &w->spool[cpu];
	uint64_t src = sp->off, len = sp->pages * w->page_size;
	uint64_t stale, stale_len;
	bool overlap, intact = true;
	int ret;

	if (!len || src == dst) {
		sp->off = dst;
		return 0;
	}
	overlap = dst < src ? src - dst < len : dst - src < len;
	if (overlap) {
		ret = td_show_cpu(w, cpu, 0, 0);
		if (ret)
			return ret;
		td_step(w, "hidden");
		ret = td_move_range(w->fd, src, dst, len, &intact);
	} else {
		ret = td_copy_range(w->fd, src, w->fd, dst, len);
	}
	if (ret) {
		if (!intact) {
			w->broken = ret;
			return ret;
		}
		/* shown where it still is (best effort: empty else) */
		if (overlap)
			td_show_cpu(w, cpu, src, len);
		return ret;
	}
	w->written += len;
	w->moved += len;
	td_step(w, "copied");
	if (dst + len > w->eof)
		w->eof = dst + len;
	ret = td_show_cpu(w, cpu, dst, len);
	/* the data is whole at @dst: the next header shows it there */
	sp->off = dst;
	if (ret)
		return ret;
	td_step(w, "shown");
	/* the part of the old place the new one does not cover */
	stale = dst > src ? src : (dst + len > src ? dst + len : src);
	stale_len = dst > src ? (dst - src < len ? dst - src : len) :
				src + len - stale;
	/*
	 * Failure is fine: bytes left there only hold memory or blocks
	 * until the close overwrites or cuts them; nothing reads them.
	 */
	if (stale_len)
		(void)fallocate(w->fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)stale, (off_t)stale_len);
	return 0;
}

/**
 * td_write_zeroes - write zeroes over a range of an in-place output
 * @w: the writer
 * @off: where
 * @len: bytes
 *
 * Context: the writer's thread; blocks.
 * Return: 0, -ENOMEM, or the write error.
 */
static int td_write_zeroes(struct td_writer *w, uint64_t off, uint64_t len)
{
	size_t chunk = len > TD_COPY_CHUNK ? TD_COPY_CHUNK : (size_t)len;
	unsigned char *zero = calloc(1, chunk ? chunk : 1);
	int ret = zero ? 0 : -ENOMEM;

	while (!ret && len) {
		size_t n = len > chunk ? chunk : (size_t)len;

		ret = td_write_all(w->fd, zero, n, off);
		if (!ret)
			w->written += n;
		off += n;
		len -= n;
	}
	free(zero);
	if (!ret && off > w->eof)
		w->eof = off;
	return ret;
}

/**
 * td_move_up - make room in a sparse output after the header or a cpu
 * @w: a sparse writer
 * @cpu: the cpu whose reservation grows, or -1 for the header's
 * @len: bytes (whole pages)
 *
 * The data of the cpus placed after it (@w->order) is copied @len up,
 * the last one first (each one's new place is above everything not moved
 * yet). After a failure the room opens after the last one not moved, so
 * that every cpu keeps its reservation, and @cpu's has not grown. The
 * header's room is written with zeroes.
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or a negative errno.
 */
static int td_move_up(struct td_writer *w, int cpu, uint64_t len)
{
	int k = w->nr_placed - 1, ret = 0;
	int from = cpu < 0 ? -1 : w->spool[cpu].rank;

	for (; k > from && !ret; k--) {
		struct td_spool *sp = &w->spool[w->order[k]];
		uint64_t was = sp->off;

		ret = td_move_cpu(w, w->order[k], was + len);
		if (ret && sp->off == was)
			break;
	}
	/* k: the last reservation (or the header) not moved */
	if (k >= 0) {
		w->spool[w->order[k]].cap += len;
		return ret;
	}
	/*
	 * The header's new room is written with zeroes: the header then
	 * always overwrites bytes the file has (no block to allocate when the
	 * disk is full, so no header half written), and the close leaves no
	 * hole there.
	 */
	if (!ret)
		ret = td_write_zeroes(w, w->hdr_cap, len);
	w->hdr_cap += len;
	return ret;
}

/**
 * td_shift - make room in the output after the header or a cpu's data
 * @w: an in-place writer
 * @cpu: the cpu whose reservation grows, or -1 for the header's
 * @len: bytes (whole pages)
 *
 * What follows the reservation moves up by @len (a hole is inserted when
 * anything follows; at the end of the file nothing moves). A sparse
 * writer copies it instead (td_move_up()).
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or fallocate()'s negative errno.
 */
int td_shift(struct td_writer *w, int cpu, uint64_t len)
{
	uint64_t at = cpu < 0 ? w->hdr_cap :
				w->spool[cpu].off + w->spool[cpu].cap;

	if (w->sparse)
		return td_move_up(w, cpu, len);
	if (at < w->eof) {
		if (fallocate(w->fd, FALLOC_FL_INSERT_RANGE, (off_t)at,
			      (off_t)len))
			return -errno;
		w->eof += len;
	}
	if (cpu < 0)
		w->hdr_cap += len;
	else
		w->spool[cpu].cap += len;
	for (int i = cpu + 1; i < w->nr_cpus; i++)
		w->spool[i].off += len;
	return 0;
}

/**
 * td_hole_kept - whether a shifting writer's close leaves a hole
 * @w: the writer
 * @gap: the hole's bytes, before other data
 * @kept: the bytes of the holes left so far (this one added if it is)
 *
 * Left while all of them stay within 1 / TD_HOLE_SHARE of the pages'
 * bytes (see there). A hole at the end of the file is never left: the
 * file is cut there, which writes nothing back.
 *
 * Context: the writer's thread.
 * Return: true to leave it.
 */
static bool td_hole_kept(const struct td_writer *w, uint64_t gap,
			 uint64_t *kept)
{
	if ((*kept + gap) * TD_HOLE_SHARE > w->pages * w->page_size)
		return false;
	*kept += gap;
	return true;
}

/**
 * td_unshift - remove the hole after the header or a cpu's data
 * @w: an in-place writer
 * @cpu: the cpu, or -1 for the header
 * @used: bytes of the reservation in use (whole pages)
 * @kept: the bytes of the holes left so far: a hole before other data
 *	is left when td_hole_kept() says so (and added there)
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or the negative errno of fallocate() or ftruncate().
 */
static int td_unshift(struct td_writer *w, int cpu, uint64_t used,
		      uint64_t *kept)
{
	uint64_t start = cpu < 0 ? 0 : w->spool[cpu].off;
	uint64_t cap = cpu < 0 ? w->hdr_cap : w->spool[cpu].cap;
	uint64_t gap = cap - used, at = start + used;

	if (!gap)
		return 0;
	if (at + gap >= w->eof) {
		/* nothing after it: cut the file */
		if (at < w->eof && ftruncate(w->fd, (off_t)at))
			return -errno;
		if (at < w->eof)
			w->eof = at;
	} else {
		if (td_hole_kept(w, gap, kept))
			return 0;
		if (fallocate(w->fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)at,
			      (off_t)gap))
			return -errno;
		w->eof -= gap;
	}
	if (cpu < 0)
		w->hdr_cap = used;
	else
		w->spool[cpu].cap = used;
	for (int i = cpu + 1; i < w->nr_cpus; i++)
		w->spool[i].off -= gap;
	return 0;
}

/**
 * td_behind_moves - whether a move may have to write back a cpu's pages
 * @w: a writer in place
 * @cpu: the cpu, whose pages are to be written now
 *
 * A shifting writer's: its pages follow the header's room and the
 * reservations of the cpus before it. The kernel writes back the dirty
 * pages after a hole it removes, or after the place it inserts one, and
 * waits for them: the close removes the header's room if it is larger
 * than td_hole_kept() leaves (it is as long as few pages are written),
 * and a cpu before this one that grows inserts a hole, as the close
 * removes what it leaves. A header that outgrew its room once
 * (@w->hdr_grew) may again, and its move writes back every page: always
 * from then on (a first growth after many pages waits for them: 0.6 s
 * for 300 MB on a virtual disk here). A sparse writer's moves are copies
 * (a clone of the blocks where the file system has them, which writes
 * the range back first), of any cpu's data: always.
 *
 * Context: the writer's thread.
 * Return: true when a move may come (td_flush_cpu() then starts the
 * pages' write-back at once).
 */
bool td_behind_moves(const struct td_writer *w, int cpu)
{
	uint64_t kept = 0;

	if (w->sparse || w->hdr_grew)
		return true;
	if (w->hdr_cap > w->hdr_len &&
	    !td_hole_kept(w, w->hdr_cap - w->hdr_len, &kept))
		return true;
	for (int i = 0; i < cpu; i++)
		if (w->spool[i].cap)
			return true;
	return false;
}

/**
 * td_header_room - the room to reserve for a header
 * @w: an in-place writer
 * @len: the header's length now
 *
 * A quarter more and a page: the threads' names grow it. A sparse writer
 * copies all the data when the header outgrows its room, so it keeps a
 * half more (zeroes in the file, td_move_up()).
 *
 * Context: the writer's thread.
 * Return: bytes, whole pages.
 */
uint64_t td_header_room(const struct td_writer *w, uint64_t len)
{
	uint64_t want = len + (w->sparse ? len / 2 : len / 4) + w->page_size;

	return (want + w->page_size - 1) / w->page_size * w->page_size;
}

/**
 * td_hide_after - show the cpus after @cpu as empty in the header written
 * @w: an in-place writer
 * @cpu: the last cpu left as it is (-1: none)
 *
 * Their table entries are zeroed in place, before a shift moves their
 * data: a recorder killed before the header is written again leaves a
 * file that reads, without those cpus' pages.
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or a negative errno.
 */
int td_hide_after(struct td_writer *w, int cpu)
{
	static const unsigned char zero[16];
	int ret = 0;

	/* a sparse writer hides a cpu as it moves it (td_move_cpu()) */
	if (!w->hdr_len || w->sparse)
		return 0;
	for (int i = cpu + 1; i < w->nr_cpus && !ret; i++) {
		/* a spare not in the table written */
		if (!w->entry_written[i])
			continue;
		ret = td_write_all(w->fd, zero, sizeof(zero),
				   w->entry_written[i]);
		/* the bytes on disk are no longer those of hdr_prev */
		if (!ret && w->hdr_prev)
			memset(w->hdr_prev + w->entry_written[i], 0,
			       sizeof(zero));
	}
	return ret;
}

/**
 * td_open_direct - the output again, for writes that bypass the page cache
 * @fd: the output
 *
 * The pages are most of a recording's bytes. Written through the page
 * cache, each one is copied into a new cache page first, which on some
 * machines runs at a fraction of the disk's speed, and on others far
 * faster (enum td_way: td_flush_cpu() times both and takes the faster);
 * a recorder that cannot keep up with the writers loses events or
 * makes them wait. O_DIRECT writes them from the staging buffers
 * themselves; the staging buffers, the
 * page size and the offsets of the pages are multiples of 4096, which
 * covers the alignment direct I/O asks for. The header, the options and
 * the rest go through @fd as before: the two descriptors never write the
 * same bytes.
 *
 * Context: at open.
 * Return: the descriptor, or -1 (no /proc, or a file system without
 * direct I/O, as tmpfs): the pages then go through @fd.
 */
int td_open_direct(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
}

/* ------------------------------------------------------------------ */
/* The compressor threads of a compressing writer                      */

/*
 * td_zcompress - compress a job's pages into its thread's buffer
 * @zw: the thread
 * @j: the job
 * @n: receives the compressed bytes (after the two sizes in @zw->zbuf)
 *
 * Context: a compressor thread, outside the queue's lock.
 * Return: 0, -EIO (the compressor failed) or -ENOTSUP (no zstd).
 */
static int td_zcompress(struct td_zworker *zw, const struct td_zjob *j,
			size_t *n)
{
#ifdef TD_HAVE_ZSTD
	/* one frame with the parameters set at td_zq_start() */
	*n = ZSTD_compress2(zw->cctx, zw->zbuf + 8, zw->q->zcap - 8, j->stage,
			    (size_t)j->len);
	if (ZSTD_isError(*n) || *n > UINT32_MAX)
		return -EIO;
	for (unsigned int i = 0; i < 4; i++) {
		zw->zbuf[i] = (unsigned char)(*n >> (8 * i));
		zw->zbuf[4 + i] = (unsigned char)(j->len >> (8 * i));
	}
	return 0;
#else
	(void)zw, (void)j, (void)n;
	return -ENOTSUP;
#endif
}

/*
 * td_zchunk - append a compressed chunk (@n bytes after its sizes in
 * @zw->zbuf, of job @j) to its cpu's spool (the spool created at its first
 * chunk), or in place to its region of the output (w->zplace)
 *
 * Context: a compressor thread, its turn (td_zq_main()); blocks.
 * Return: 0 (the bytes written added to *@bytes), or the error of the
 * spool's creation or of the write.
 */
static int td_zchunk(struct td_zworker *zw, const struct td_zjob *j, size_t n,
		     uint64_t *bytes)
{
	struct td_writer *w = zw->w;
	struct td_spool *sp = &w->spool[j->cpu];
	int ret;

	if (!w->zplace && sp->fd < 0) {
		ret = td_spool_open(w->dir);
		if (ret < 0)
			return ret;
		sp->fd = ret;
	}
	if (w->zplace) {
		/* in the output, after the cpu's count and chunks */
		ret = td_v7_place_chunk(w, j->cpu, 4 + sp->zbytes + n + 8,
					j->len == (uint64_t)w->stage_pages *
							  w->page_size,
					bytes);
		if (!ret)
			ret = td_write_all(w->fd, zw->zbuf, n + 8,
					   sp->off + 4 + sp->zbytes);
	} else {
		ret = td_write_all(sp->fd, zw->zbuf, n + 8, sp->zbytes);
	}
	if (ret)
		return ret;
	sp->zbytes += n + 8;
	sp->chunks++;
	*bytes += n + 8;
	return 0;
}

/* A checkpoint job's file written (a compressor thread at its turn), its
 * part freed. */
static int td_zq_ckpt_write(struct td_writer *w, struct td_zckpt *c,
			    uint64_t *bytes)
{
#ifdef TD_HAVE_ZSTD
	return td_ckpt7_write(w, c, bytes);
#else
	(void)w, (void)c, (void)bytes;
	return -ENOTSUP;
#endif
}

static void td_zq_ckpt_free(struct td_zckpt *c)
{
#ifdef TD_HAVE_ZSTD
	td_ckpt7_free(c);
#endif
	free(c);
}

/*
 * A compressor thread: the queue's jobs until told to stop. A job's
 * chunk is compressed as soon as the thread takes it, beside the other
 * thread's, and written at its turn: jobs finish in the order they were
 * queued (a cpu's chunks in order, a checkpoint after the chunks queued
 * before it and before those after it).
 */
static void *td_zq_main(void *arg)
{
	struct td_zworker *zw = arg;
	struct td_zq *q = zw->q;
	struct td_writer *w = zw->w;

	pthread_mutex_lock(&q->lock);
	/* one job a turn; ends with @stop and the queue empty */
	for (;;) {
		struct td_zjob j;
		uint64_t bytes = 0, me;
		size_t n = 0;
		int ret = 0;

		/* bounded: the writer's thread queues a job or stops us */
		while (!q->nr && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->nr)
			break;
		j = q->jobs[q->head];
		q->head = (q->head + 1) % (q->cap + 1);
		q->nr--;
		me = q->taken++;
		q->active++;
		/* after an error the job is dropped: the file fails anyway */
		if (j.stage && !q->err) {
			pthread_mutex_unlock(&q->lock);
			ret = td_zcompress(zw, &j, &n);
			pthread_mutex_lock(&q->lock);
		}
		if (j.stage) {
			/* its pages are in zbuf now: the reader may refill it */
			q->free[q->nr_free++] = j.stage;
			pthread_cond_broadcast(&q->room);
		}
		/*
		 * Bounded: the jobs before this one are held by the other
		 * threads (at most TD_ZQ_THREADS - 1), each of which finishes
		 * its own without waiting for a later one.
		 */
		while (q->turn != me)
			pthread_cond_wait(&q->turned, &q->lock);
		if (!ret && !q->err) {
			pthread_mutex_unlock(&q->lock);
			ret = j.stage ? td_zchunk(zw, &j, n, &bytes) :
					td_zq_ckpt_write(w, j.ckpt, &bytes);
			pthread_mutex_lock(&q->lock);
		}
		if (ret && !q->err)
			q->err = ret;
		q->written += bytes;
		if (!j.stage) {
			td_zq_ckpt_free(j.ckpt);
			q->ckpt_pending = false;
		}
		q->turn++;
		q->active--;
		pthread_cond_broadcast(&q->turned);
		pthread_cond_broadcast(&q->room);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* A queue's memory freed: its threads' contexts and buffers, the free
 * stages (the threads ended, or never started). */
static void td_zq_free(struct td_zq *q)
{
	for (unsigned int i = 0; i < TD_ZQ_THREADS; i++) {
#ifdef TD_HAVE_ZSTD
		ZSTD_freeCCtx(q->workers[i].cctx);
#endif
		free(q->workers[i].zbuf);
	}
	for (unsigned int i = 0; i < q->nr_free; i++)
		free(q->free[i]);
	free(q->free);
	free(q->jobs);
	free(q);
}

/**
 * td_zq_start - start the compressor threads of a compressing writer
 * @w: the writer, its stage size set
 *
 * The queue holds up to TD_ZQ_BYTES of stages; they are allocated as the
 * reader first needs them. TD_ZQ_THREADS threads compress them (fewer
 * when a thread cannot be created: one is enough). The threads block
 * every signal: a recorder's SIGINT and SIGTERM reach its own thread and
 * wake its waits there.
 *
 * Context: the writer's thread, before the first page.
 * Return: 0, -ENOMEM, -EINVAL (zstd refused the level), or
 * pthread_create()'s negative error.
 */
int td_zq_start(struct td_writer *w)
{
#ifdef TD_HAVE_ZSTD
	size_t stage = (size_t)w->stage_pages * w->page_size;
	struct td_zq *q = calloc(1, sizeof(*q));
	sigset_t all, old;
	int ret = 0;

	if (!q)
		return -ENOMEM;
	q->cap = (unsigned int)(TD_ZQ_BYTES / stage);
	if (q->cap < 2)
		q->cap = 2;
	q->zcap = ZSTD_compressBound(stage) + 8;
	q->jobs = calloc(q->cap + 1, sizeof(*q->jobs));
	q->free = calloc(q->cap, sizeof(*q->free));
	if (!q->jobs || !q->free)
		ret = -ENOMEM;
	for (unsigned int i = 0; i < TD_ZQ_THREADS && !ret; i++) {
		struct td_zworker *zw = &q->workers[i];

		zw->q = q;
		zw->w = w;
		zw->zbuf = malloc(q->zcap);
		zw->cctx = ZSTD_createCCtx();
		if (!zw->zbuf || !zw->cctx) {
			ret = -ENOMEM;
			break;
		}
		/*
		 * The chunks' parameters, kept by the context for every
		 * ZSTD_compress2() (no other setup a chunk): TD_ZSTD_LEVEL
		 * and its hash table. A library that refused the table's
		 * size would compress with the level's own (the same
		 * frames, a few more bytes).
		 */
		if (ZSTD_isError(ZSTD_CCtx_setParameter(
			    zw->cctx, ZSTD_c_compressionLevel, TD_ZSTD_LEVEL)))
			ret = -EINVAL;
		else
			(void)ZSTD_CCtx_setParameter(zw->cctx, ZSTD_c_hashLog,
						     TD_ZSTD_HASHLOG);
	}
	if (ret) {
		td_zq_free(q);
		return ret;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_cond_init(&q->turned, NULL);
	w->zq = q;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned int i = 0; i < TD_ZQ_THREADS; i++) {
		ret = -pthread_create(&q->workers[i].thread, NULL, td_zq_main,
				      &q->workers[i]);
		if (ret)
			break;
		q->nr_workers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (q->nr_workers)
		return 0;
	w->zq = NULL;
	pthread_cond_destroy(&q->turned);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->lock);
	td_zq_free(q);
	return ret;
#else
	(void)w;
	return -ENOTSUP;
#endif
}

/**
 * td_zq_push - hand a cpu's full stage to the compressor, take an empty one
 * @w: a compressing writer
 * @cpu: the cpu, with @len bytes staged
 * @len: the bytes
 *
 * An empty stage comes from those the compressor is done with, or is
 * allocated while the queue has fewer than its bound; with every one
 * queued, the caller waits until the compressor frees one.
 *
 * Context: the writer's thread; may block.
 * Return: 0 (the stage is queued, @cpu has an empty one), the
 * compressor's error or -ENOMEM (the pages stay staged).
 */
static int td_zq_push(struct td_writer *w, int cpu, uint64_t len)
{
	struct td_zq *q = w->zq;
	unsigned char *fresh = NULL;
	int ret;

	pthread_mutex_lock(&q->lock);
	/* bounded: each wait ends when the compressor finishes a job, and
	 * with every stage queued it has @cap of them to finish */
	while (!q->err && !q->nr_free && q->bufs >= q->cap)
		pthread_cond_wait(&q->room, &q->lock);
	ret = q->err;
	if (!ret && q->nr_free) {
		fresh = q->free[--q->nr_free];
	} else if (!ret) {
		void *p;

		/* aligned as td_writer_page_slot()'s first stage */
		if (posix_memalign(&p, 4096,
				   (size_t)w->stage_pages * w->page_size))
			ret = -ENOMEM;
		else
			fresh = p, q->bufs++;
	}
	if (!ret) {
		q->jobs[(q->head + q->nr) % (q->cap + 1)] = (struct td_zjob){
			w->spool[cpu].stage, len, cpu, NULL
		};
		q->nr++;
		w->spool[cpu].stage = fresh;
		pthread_cond_broadcast(&q->more);
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

/**
 * td_zq_drain - wait until the compressor has written every queued stage
 * @w: a compressing writer
 *
 * Context: the writer's thread; blocks.
 * Return: 0 (the spools hold every chunk, readable by the caller), or the
 * compressor's error.
 */
int td_zq_drain(struct td_writer *w)
{
	struct td_zq *q = w->zq;
	int ret;

	pthread_mutex_lock(&q->lock);
	/* bounded: the queue only shrinks while nobody pushes */
	while (q->nr || q->active)
		pthread_cond_wait(&q->room, &q->lock);
	ret = q->err;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

/**
 * td_zq_checkpoint - a compressing writer's checkpoint, written by a
 *	compressor thread after the chunks queued before it
 * @w: the writer, its stages flushed (queued)
 * @wait: wait for the file to be written (td_writer_checkpoint()); else
 *	return at once (td_writer_checkpoint_nowait()), doing nothing while
 *	an earlier checkpoint is still queued (the next one shows what this
 *	one would have)
 * @final: the last one (td_writer_close(), with @wait): in place, the
 *	file is made compact (td_ckpt7_write())
 *
 * The part that reads the writer's metadata is prepared here
 * (td_ckpt7_prepare()); the compressor completes it with the spools'
 * sizes and assembles the file (td_ckpt7_write()).
 *
 * Context: the writer's thread; blocks with @wait.
 * Return: 0, -ENOMEM, or the compressor's error (this checkpoint's with
 * @wait, an earlier one's without).
 */
int td_zq_checkpoint(struct td_writer *w, bool wait, bool final)
{
#ifdef TD_HAVE_ZSTD
	struct td_zq *q = w->zq;
	struct td_zckpt *c;
	bool pending;
	int ret;

	pthread_mutex_lock(&q->lock);
	ret = q->err;
	pending = q->ckpt_pending;
	pthread_mutex_unlock(&q->lock);
	if (!ret && wait && pending)
		ret = td_zq_drain(w);
	if (ret || (!wait && pending))
		return ret;
	if (!w->dirty && !final)
		return wait ? td_zq_drain(w) : 0;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = td_ckpt7_prepare(w, c);
	if (ret) {
		free(c);
		return ret;
	}
	c->final = final;
	pthread_mutex_lock(&q->lock);
	ret = q->err;
	if (!ret) {
		/* room: stages take at most @cap entries, this the one more */
		q->jobs[(q->head + q->nr) % (q->cap + 1)] =
			(struct td_zjob){ NULL, 0, -1, c };
		q->nr++;
		q->ckpt_pending = true;
		w->zckpt = true;
		pthread_cond_broadcast(&q->more);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret) {
		td_zq_ckpt_free(c);
		return ret;
	}
	/* everything so far is in the file once the job is done */
	w->dirty = false;
	return wait ? td_zq_drain(w) : 0;
#else
	(void)w, (void)wait;
	return -ENOTSUP;
#endif
}

/**
 * td_zq_written - bytes of the chunks the compressor wrote so far
 * @w: a compressing writer
 *
 * Context: the writer's thread.
 * Return: the bytes.
 */
uint64_t td_zq_written(struct td_writer *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->zq->lock);
	n = w->zq->written;
	pthread_mutex_unlock(&w->zq->lock);
	return n;
}

/**
 * td_zq_stop - end the compressor threads and free their queue
 * @w: a compressing writer (nothing done if it has no threads)
 * @discard: drop the jobs still queued (an abandoned writer) rather than
 *	write them
 *
 * Context: the writer's thread; blocks until the threads end.
 */
void td_zq_stop(struct td_writer *w, bool discard)
{
	struct td_zq *q = w->zq;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (discard && !q->err)
		q->err = -ECANCELED;
	q->stop = true;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->lock);
	for (unsigned int i = 0; i < q->nr_workers; i++)
		pthread_join(q->workers[i].thread, NULL);
	pthread_cond_destroy(&q->turned);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->lock);
	td_zq_free(q);
	w->zq = NULL;
}

/* CLOCK_MONOTONIC in nanoseconds (0 if it cannot be read: the ways'
 * times then say nothing, and the first measured is kept). */
static uint64_t td_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/**
 * td_pick_way - the way the next stage of pages goes to the output
 * @ws: the ways' times so far
 *
 * Each way writes TD_WAY_PROBE_BYTES first (direct I/O first, the
 * faster where it was first measured); then the one whose recent writes
 * took less time per byte, except every TD_WAY_PROBE_EVERY-th stage,
 * which the other writes. A page cache that fills makes its writes wait
 * for the disk (the kernel throttles them), which its rate then shows.
 *
 * Context: the writer's thread.
 * Return: TD_WAY_CACHE or TD_WAY_DIRECT.
 */
enum td_way td_pick_way(struct td_ways *ws)
{
	enum td_way fast;

	if (ws->bytes[TD_WAY_DIRECT] < TD_WAY_PROBE_BYTES)
		return TD_WAY_DIRECT;
	if (ws->bytes[TD_WAY_CACHE] < TD_WAY_PROBE_BYTES)
		return TD_WAY_CACHE;
	fast = ws->rate[TD_WAY_CACHE] <= ws->rate[TD_WAY_DIRECT] ?
		       TD_WAY_CACHE :
		       TD_WAY_DIRECT;
	if (++ws->turn % TD_WAY_PROBE_EVERY == 0)
		return fast == TD_WAY_CACHE ? TD_WAY_DIRECT : TD_WAY_CACHE;
	return fast;
}

/**
 * td_way_account - count a stage's write in its way's rate
 * @ws: the ways' rates
 * @way: the way it went
 * @ns: how long the write took
 * @bytes: its bytes (not 0)
 *
 * Context: the writer's thread.
 */
void td_way_account(struct td_ways *ws, enum td_way way, uint64_t ns,
		    uint64_t bytes)
{
	double r = (double)ns / (double)bytes;

	ws->rate[way] = ws->bytes[way] ? ws->rate[way] +
						 (r - ws->rate[way]) / 4 :
					 r;
	ws->bytes[way] += bytes;
}

/**
 * td_flush_cpu - write a cpu's staged pages
 * @w: the writer
 * @cpu: the cpu
 *
 * In place: after the cpu's pages in the output, its reservation grown
 * first if needed (by as much as it holds, from 16 MiB to 64 MiB at a
 * time when shifting, so that shifts are rare; doubling from
 * @w->reserve when sparse). Spooling: to the cpu's temporary file;
 * compressing: queued for the compressor threads (td_zq_push()).
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or a negative errno; the pages stay staged after a failure.
 */
int td_flush_cpu(struct td_writer *w, int cpu)
{
	struct td_spool *sp = &w->spool[cpu];
	uint64_t len = (uint64_t)sp->staged * w->page_size, at, t0;
	enum td_way way;
	int ret;

	if (w->broken)
		return w->broken;
	if (!sp->staged)
		return 0;
	if (w->sparse && !w->hdr_cap) {
		/* the header's room first, before any data it would move */
		struct td_buf b = { 0 };

		ret = td_build_header(w, &b);
		free(b.p);
		if (!ret)
			ret = td_shift(w, -1, td_header_room(w, b.len));
		if (ret)
			return ret;
	}
	if (w->sparse && sp->rank < 0) {
		/*
		 * A cpu's reservation is placed at its first write, after
		 * the last one placed: the data of the first cpu to write
		 * (the busiest, usually: its staging filled first) follows
		 * the header, where the close need not move it.
		 */
		uint64_t top = w->hdr_cap;

		if (w->nr_placed) {
			struct td_spool *last =
				&w->spool[w->order[w->nr_placed - 1]];

			top = last->off + last->cap;
		}
		sp->off = top;
		sp->cap = w->reserve;
		sp->rank = w->nr_placed;
		w->order[w->nr_placed++] = cpu;
	}
	if (w->fd >= 0 && !w->zq) {
		uint64_t need = sp->pages * w->page_size + len;

		if (need > sp->cap) {
			uint64_t grow = sp->cap;

			if (w->sparse) {
				/* doubling (see TD_SPARSE_SPAN) */
				if (grow < w->reserve)
					grow = w->reserve;
			} else {
				if (grow < TD_GROW_MIN)
					grow = TD_GROW_MIN;
				if (grow > TD_GROW_MAX)
					grow = TD_GROW_MAX;
			}
			if (grow < need - sp->cap)
				grow = need - sp->cap;
			grow = (grow + w->page_size - 1) / w->page_size *
			       w->page_size;
			/* the data of the cpus after it moves */
			ret = td_hide_after(w, cpu);
			if (!ret)
				ret = td_shift(w, cpu, grow);
			/* sparse: each cpu moved is shown again already */
			if (!ret && w->hdr_len && !w->sparse)
				ret = td_write_header(w);
			if (ret)
				return ret;
		}
		at = sp->off + sp->pages * w->page_size;
		way = w->dfd >= 0 ? td_pick_way(&w->ways) : TD_WAY_CACHE;
		t0 = td_now_ns();
		ret = -EINVAL;
		if (way == TD_WAY_DIRECT) {
			ret = td_write_all(w->dfd, sp->stage, len, at);
			if (ret == -EINVAL) {
				/* direct I/O refused after all: the page cache */
				close(w->dfd);
				w->dfd = -1;
				way = TD_WAY_CACHE;
			}
		}
		if (way == TD_WAY_CACHE) {
			ret = td_write_all(w->fd, sp->stage, len, at);
			/* their write-back started now, not waited for,
			 * where a move of the file's blocks before them
			 * (td_shift(), td_compact()) would write them back
			 * first and wait for all of them; the others reach
			 * the disk later, as any program's writes do */
			if (!ret && w->dfd >= 0 && td_behind_moves(w, cpu))
				(void)sync_file_range(w->fd, (off_t)at,
						      (off_t)len,
						      SYNC_FILE_RANGE_WRITE);
		}
		if (ret)
			return ret;
		if (w->dfd >= 0 && len)
			td_way_account(&w->ways, way, td_now_ns() - t0, len);
		if (at + len > w->eof)
			w->eof = at + len;
	} else {
		ret = 0;
		if (w->zq)
			/* compressed and written on the compressor's thread */
			ret = td_zq_push(w, cpu, len);
		else if (sp->fd < 0 && (ret = td_spool_open(w->dir)) >= 0)
			sp->fd = ret;
		/*
		 * At the pages' own place: pages that fail half-written are
		 * overwritten by the next ones and never counted.
		 */
		if (!w->zq && ret >= 0)
			ret = td_write_all(sp->fd, sp->stage, len,
					   sp->pages * w->page_size);
		if (ret < 0)
			return ret;
	}
	/* (the compressor counts its chunks' bytes) */
	w->written += w->zq ? 0 : len;
	sp->pages += sp->staged;
	sp->staged = 0;
	/* the header must name them */
	w->dirty = true;
	return 0;
}

/**
 * td_flush - write the staged pages of every cpu
 * @w: the writer
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or the first negative errno.
 */
int td_flush(struct td_writer *w)
{
	for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
		int ret = td_flush_cpu(w, cpu);

		if (ret)
			return ret;
	}
	return 0;
}

/**
 * td_compact - remove the holes of an in-place writer's output
 * @w: the writer, its header written
 *
 * From the last cpu's reservation down to the header's, so that the
 * offsets still to be used do not move; then the header again, with the
 * final offsets. Small holes stay (td_hole_kept()), as does a hole that
 * cannot be removed (the file reads the same, it only looks bigger).
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or the negative errno of the last header write.
 */
int td_compact(struct td_writer *w)
{
	uint64_t kept = 0;
	int cpu;

	for (cpu = w->nr_cpus - 1; cpu >= -1; cpu--) {
		uint64_t used = cpu < 0 ? w->hdr_len :
					  w->spool[cpu].pages * w->page_size;

		if (td_unshift(w, cpu, used, &kept))
			break;
	}
	w->dirty = true;
	return td_write_header(w);
}

/**
 * td_compact_sparse - remove the holes of a sparse writer's output
 * @w: the writer, its header written
 *
 * In the order of the reservations (@w->order), each cpu's data after the
 * first is copied down next to the data before it (td_move_cpu(): in the
 * kernel when the two places are apart, else front to back through a
 * buffer), then the file is cut after the last and the header written
 * with the final offsets. The first one's data stays where it is, after
 * the header's room (zeroes where the header does not use it: a few
 * KiB). A move that fails leaves the holes from there on (the file
 * reads the same).
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or the negative errno of a move that lost a cpu's data or
 * of the header write.
 */
int td_compact_sparse(struct td_writer *w)
{
	struct td_spool *first =
		w->nr_placed ? &w->spool[w->order[0]] : NULL;
	uint64_t end = first ? first->off + first->pages * w->page_size :
			       w->hdr_len;
	int ret = 0;

	for (int k = 1; k < w->nr_placed && !ret; k++) {
		ret = td_move_cpu(w, w->order[k], end);
		if (!ret)
			end += w->spool[w->order[k]].pages * w->page_size;
	}
	if (w->broken)
		return w->broken;
	if (!ret && end < w->eof && !ftruncate(w->fd, (off_t)end))
		w->eof = end;
	w->dirty = true;
	return td_write_header(w);
}
