// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat.c - trace.dat version 6: the writer (see tracedat.h for the
 * layout; the page decoder is in tracedat_decode.c, the reader in
 * tracedat_read.c, what they share in tracedat_int.h).
 *
 * Writer. Everything but the pages is kept in memory. Each cpu's pages go,
 * as they are added, to an unlinked temporary file in the output's
 * directory (O_TMPFILE, or mkstemp() and unlink()), so that a recording
 * may be larger than memory and a crash leaves nothing behind. Assembling
 * the file (td_assemble()) builds the header in memory, where the cpu
 * table can be filled once the header's length is known, writes it to
 * "<path>.tmp", copies each cpu's pages after it and renames the result
 * over the path. The pages are copied rather than moved so that the
 * recording can go on after a checkpoint; copy_file_range() keeps the copy
 * in the kernel (or shares the blocks on file systems that can). Where the
 * pages go, spooled or written in place, is tracedat_store.c.
 */
#include "tracedat_int.h"

#ifdef TD_HAVE_ZSTD
#include <zstd.h>
#endif

/* ------------------------------------------------------------------ */
/* Growable memory buffer (the header being assembled; struct td_buf  */
/* is in tracedat_int.h)                                               */

/**
 * td_buf_put - append bytes
 * @b: the buffer
 * @d: the bytes (NULL with @n 0 is fine; NULL with @n > 0 appends zeroes)
 * @n: how many
 *
 * Context: any thread.
 */
static void td_buf_put(struct td_buf *b, const void *d, size_t n)
{
	if (b->err || !n)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->err = -ENOMEM;
				return;
			}
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

/**
 * td_buf_le - append a little-endian number
 * @b: the buffer
 * @v: the value
 * @bytes: its size in the file: 2, 4 or 8
 *
 * Context: any thread.
 */
static void td_buf_le(struct td_buf *b, uint64_t v, unsigned int bytes)
{
	unsigned char le[8];

	for (unsigned int i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	td_buf_put(b, le, bytes);
}

/**
 * td_buf_str - append a string with its NUL
 * @b: the buffer
 * @s: the string
 *
 * Context: any thread.
 */
static void td_buf_str(struct td_buf *b, const char *s)
{
	td_buf_put(b, s, strlen(s) + 1);
}

/**
 * td_buf_text - append a length (of @lenbytes) then the text without NUL
 * @b: the buffer
 * @s: the text (NULL: empty)
 * @lenbytes: size of the length field: 4 or 8
 *
 * Context: any thread.
 */
static void td_buf_text(struct td_buf *b, const char *s, unsigned int lenbytes)
{
	size_t n = s ? strlen(s) : 0;

	td_buf_le(b, n, lenbytes);
	td_buf_put(b, s, n);
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */

/* struct td_fmt's @sys for the formats of the "ftrace" system. */
#define TD_SYS_FTRACE SIZE_MAX

/**
 * struct td_fmt - one event format added to a writer
 * @sys: its system: an index in the writer's @systems, or TD_SYS_FTRACE
 * @text: the format text
 * @id: the ID the text gives
 */
struct td_fmt {
	size_t sys;
	char *text;
	unsigned int id;
};

const char *td_default_header_page(unsigned int page_size)
{
	static _Thread_local char text[320];

	snprintf(text, sizeof(text),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:0;\n",
		 page_size > RINGBUF_PAGE_HDR_SIZE ?
			 page_size - RINGBUF_PAGE_HDR_SIZE :
			 0);
	return text;
}

const char *td_default_header_event(void)
{
	return "# compressed entry header\n"
	       "\ttype_len    :    5 bits\n"
	       "\ttime_delta  :   27 bits\n"
	       "\tarray       :   32 bits\n"
	       "\n"
	       "\tpadding     : type == 29\n"
	       "\ttime_extend : type == 30\n"
	       "\ttime_stamp : type == 31\n"
	       "\tdata max type_len  == 28\n";
}

/**
 * td_writer_free - free a writer and everything it holds
 * @w: the writer
 *
 * Closing the temporary files frees their blocks (they are unlinked).
 *
 * Context: the writer's thread.
 */
static void td_writer_free(struct td_writer *w)
{
	/* an abandoned writer's queue is dropped (a closed one is empty) */
	td_zq_stop(w, true);
#ifdef TD_HAVE_ZSTD
	ZSTD_freeCCtx(w->zctx);
#endif
	if (w->spool) {
		for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
			if (w->spool[cpu].fd >= 0)
				close(w->spool[cpu].fd);
			free(w->spool[cpu].stage);
		}
	}
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->fd >= 0)
		close(w->fd);
	free(w->hdr_prev);
	if (w->cpustat)
		for (int cpu = 0; cpu < w->nr_cpus; cpu++)
			free(w->cpustat[cpu]);
	free(w->cpustat);
	free(w->version);
	free(w->entry_at);
	free(w->entry_written);
	free(w->order);
	for (size_t i = 0; i < w->nr_fmts; i++)
		free(w->fmts[i].text);
	for (size_t i = 0; i < w->nr_systems; i++)
		free(w->systems[i]);
	free(w->systems);
	free(w->fmts);
	free(w->spool);
	free(w->header_page);
	free(w->header_event);
	free(w->kallsyms);
	free(w->cmdlines);
	free(w->clock);
	free(w->uname);
	free(w->options);
	free(w->protos);
	free(w->dir);
	free(w->tmp_path);
	free(w->path);
	free(w);
}

/*
 * What every writer has, a file's or the metadata's alone: the checked
 * geometry, every cpu buffer a CPU, no file yet, the CPUSTAT texts.
 * Return: 0 (*@out set), -EINVAL or -ENOMEM.
 */
static int td_writer_new(unsigned int page_size, int nr_cpus,
			 struct td_writer **out)
{
	struct td_writer *w;

	if (!td_page_size_ok(page_size) || nr_cpus < 1 || nr_cpus > TD_MAX_CPUS)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->page_size = page_size;
	w->nr_cpus = nr_cpus;
	w->nr_cpu_bufs = nr_cpus;
	w->dirty = true;
	w->fd = -1;
	w->dfd = -1;
	w->cpustat = calloc((size_t)nr_cpus, sizeof(*w->cpustat));
	if (!w->cpustat) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

int td_writer_open(const char *path, unsigned int page_size, int nr_cpus,
		   struct td_writer **out)
{
	struct td_writer *w;
	const char *slash;
	struct stat st;
	size_t n;
	int fd;

	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path || !*path || !strcmp(path, "-"))
		return -EINVAL;
	ret = td_writer_new(page_size, nr_cpus, &w);
	if (ret)
		return ret;
	n = strlen(path);
	w->path = strdup(path);
	w->tmp_path = malloc(n + sizeof(".tmp"));
	slash = strrchr(path, '/');
	if (!slash)
		w->dir = strdup(".");
	else if (slash == path)
		w->dir = strdup("/");
	else
		w->dir = strndup(path, (size_t)(slash - path));
	w->spool = calloc((size_t)nr_cpus, sizeof(*w->spool));
	w->entry_at = calloc((size_t)nr_cpus, sizeof(*w->entry_at));
	w->entry_written = calloc((size_t)nr_cpus, sizeof(*w->entry_written));
	w->order = calloc((size_t)nr_cpus, sizeof(*w->order));
	if (!w->path || !w->tmp_path || !w->dir || !w->spool || !w->entry_at ||
	    !w->entry_written || !w->order) {
		td_writer_free(w);
		return -ENOMEM;
	}
	memcpy(w->tmp_path, path, n);
	memcpy(w->tmp_path + n, ".tmp", sizeof(".tmp"));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		w->spool[cpu].fd = -1;
		w->spool[cpu].rank = -1;
	}
	w->stage_pages = TD_STAGE_BYTES / page_size;
	if (!w->stage_pages)
		w->stage_pages = 1;

	/*
	 * A new file: an existing regular file is removed, not written
	 * through (another link to it keeps what it held), and anything
	 * else at @path (a symbolic link, a device node, a FIFO, a
	 * directory) is left alone and refused; O_EXCL | O_NOFOLLOW catch
	 * what appears there meanwhile.
	 */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		td_writer_free(w);
		return S_ISDIR(st.st_mode) ? -EISDIR :
		       S_ISLNK(st.st_mode) ? -ELOOP :
					     -EEXIST;
	}
	if (unlink(path) && errno != ENOENT) {
		ret = -errno;
		td_writer_free(w);
		return ret;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		ret = -errno;
		td_writer_free(w);
		return ret;
	}
	if (td_can_shift(fd, page_size)) {
		w->fd = fd;
	} else if (td_can_sparse(fd)) {
		w->fd = fd;
		w->sparse = true;
		w->reserve = td_sparse_reserve(nr_cpus, page_size);
	} else {
		close(fd);
	}
	if (w->fd >= 0)
		w->dfd = td_open_direct(fd);
	*out = w;
	return 0;
}

int td_writer_open_meta(unsigned int page_size, int nr_cpus,
			struct td_writer **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	return td_writer_new(page_size, nr_cpus, out);
}

int td_writer_set_cpu_buffers(struct td_writer *w, int nr_cpu_bufs)
{
	if (!w || nr_cpu_bufs < 1 || nr_cpu_bufs > w->nr_cpus || w->hdr_len ||
	    w->pages)
		return -EINVAL;
	w->nr_cpu_bufs = nr_cpu_bufs;
	w->dirty = true;
	return 0;
}

/* @v rounded up to a multiple of @page. */
static uint64_t td_page_up(uint64_t v, unsigned int page)
{
	return (v + page - 1) / page * page;
}

#ifdef TD_HAVE_ZSTD
/* The bytes of a version 7 file's header (td_ckpt7_prepare()): magic,
 * version, page size, the compression's name and version, the offset of
 * the first options section. */
static uint64_t td_v7_hdr_len(void)
{
	return sizeof(td_magic) + 4 + 4 + sizeof("zstd") +
	       strlen(ZSTD_versionString()) + 1 + 8;
}
#endif

int td_writer_set_compression(struct td_writer *w, const char *algo)
{
	if (!w || !algo)
		return -EINVAL;
	if (!strcmp(algo, "none"))
		return w->zctx ? -EBUSY : 0;
	if (strcmp(algo, "zstd"))
		return -EINVAL;
	if (w->zctx)
		return 0;
	if (w->pages || !w->path)
		return -EBUSY;
#ifdef TD_HAVE_ZSTD
	w->zctx = ZSTD_createCCtx();
	if (!w->zctx)
		return -ENOMEM;
	/*
	 * A chunk is a staging: TD_ZCHUNK_BYTES of pages. A page slot
	 * taken before (none committed: w->pages is 0) was of the
	 * uncompressed size; it is given back.
	 */
	for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
		free(w->spool[cpu].stage);
		w->spool[cpu].stage = NULL;
	}
	w->stage_pages = TD_ZCHUNK_BYTES / w->page_size;
	if (!w->stage_pages)
		w->stage_pages = 1;
	/* the pages' chunks are compressed on a thread of their own */
	int ret = td_zq_start(w);

	if (ret) {
		ZSTD_freeCCtx(w->zctx);
		w->zctx = NULL;
		return ret;
	}
	/*
	 * A file system with holes (w->fd kept open): the chunks go
	 * straight into the output, each cpu's into a region of its own,
	 * and a checkpoint writes the metadata after them (w->zplace).
	 * Elsewhere they go to the spools, and a checkpoint assembles the
	 * file from them (td_ckpt7_write()). Either way the chunks are
	 * written by the compressor threads, not through direct I/O (they
	 * are not whole blocks).
	 */
	if (w->dfd >= 0)
		close(w->dfd);
	w->dfd = -1;
	w->sparse = false;
	if (w->fd >= 0) {
		w->zplace = true;
		w->zhead = td_v7_hdr_len();
		w->reserve = TD_ZREGION;
		/* the first region kept for the first full staging */
		w->zend = td_page_up(w->zhead + 16, w->page_size) + w->reserve;
	}
	w->dirty = true;
	return 0;
#else
	return -ENOTSUP;
#endif
}

bool td_writer_compressed(const struct td_writer *w)
{
	return w && w->zctx;
}

bool td_writer_in_place(const struct td_writer *w)
{
	return w && w->fd >= 0;
}

int td_writer_set_reserve(struct td_writer *w, uint64_t bytes)
{
	if (!w || !bytes || w->pages)
		return -EINVAL;
	/* (the first region grown over a checkpoint's sections) */
	if (w->zplace && w->zckpt)
		return -EBUSY;
	w->reserve = (bytes + w->page_size - 1) / w->page_size * w->page_size;
	if (w->zplace)
		w->zend = td_page_up(w->zhead + 16, w->page_size) + w->reserve;
	return 0;
}

int td_writer_set_spooled(struct td_writer *w)
{
	if (!w || !w->path || w->pages)
		return -EINVAL;
	if (w->dfd >= 0)
		close(w->dfd);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = w->dfd = -1;
	w->sparse = w->zplace = false;
	return 0;
}

void td_writer_set_step_hook(struct td_writer *w,
			     void (*fn)(const char *what, void *arg),
			     void *arg)
{
	if (!w)
		return;
	w->step = fn;
	w->step_arg = arg;
}

uint64_t td_writer_moved(const struct td_writer *w)
{
	return w ? w->moved : 0;
}

/**
 * td_set_text - replace one of the writer's texts by a copy
 * @w: the writer
 * @slot: the text's field
 * @text: the new text
 *
 * Context: the writer's thread.
 * Return: 0, -EINVAL (NULL), -ENOMEM.
 */
static int td_set_text(struct td_writer *w, char **slot, const char *text)
{
	char *copy;

	if (!w || !text)
		return -EINVAL;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	w->dirty = true;
	return 0;
}

int td_writer_set_header_page(struct td_writer *w, const char *text)
{
	if (!w || !text || !*text)
		return -EINVAL;
	return td_set_text(w, &w->header_page, text);
}

int td_writer_set_header_event(struct td_writer *w, const char *text)
{
	return w ? td_set_text(w, &w->header_event, text) : -EINVAL;
}

int td_writer_set_cmdlines(struct td_writer *w, const char *text)
{
	return w ? td_set_text(w, &w->cmdlines, text) : -EINVAL;
}

int td_writer_set_protos(struct td_writer *w, const char *text)
{
	if (!w || !text)
		return -EINVAL;
	return td_set_text(w, &w->protos, text);
}

int td_writer_set_trace_options(struct td_writer *w, const char *text)
{
	if (!w || !text || strchr(text, '\n'))
		return -EINVAL;
	return td_set_text(w, &w->options, text);
}

int td_writer_set_version(struct td_writer *w, const char *text)
{
	if (text && (!*text || strlen(text) >= UINT32_MAX))
		return -EINVAL;
	return w ? td_set_text(w, &w->version, text) : -EINVAL;
}

int td_writer_set_cpu_stats(struct td_writer *w, int cpu, const char *text)
{
	if (!w || cpu < 0 || cpu >= w->nr_cpus || !text ||
	    strlen(text) >= UINT32_MAX)
		return -EINVAL;
	return td_set_text(w, &w->cpustat[cpu], text);
}

int td_writer_set_uname(struct td_writer *w, const char *text)
{
	/* an option's size is a u32 */
	if (text && strlen(text) >= UINT32_MAX)
		return -EFBIG;
	return w ? td_set_text(w, &w->uname, text) : -EINVAL;
}

/**
 * td_format_id - find the "ID:" line of a format text
 * @text: the text
 * @id: receives the ID
 *
 * Context: any thread.
 * Return: 0, or -EINVAL when no line starts with "ID:" followed by a
 * number up to 65535 (and nothing else but blanks).
 */
static int td_format_id(const char *text, unsigned int *id)
{
	for (const char *l = text; *l;) {
		const char *p = l + 3;
		unsigned long v = 0;

		if (strncmp(l, "ID:", 3)) {
			l = strchr(l, '\n');
			if (!l)
				break;
			l++;
			continue;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			v = v * 10 + (unsigned long)(*p - '0');
			if (v > 65535)
				return -EINVAL;
		}
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p && *p != '\n')
			return -EINVAL;
		*id = (unsigned int)v;
		return 0;
	}
	return -EINVAL;
}

int td_writer_add_format(struct td_writer *w, const char *system,
			 const char *format_text)
{
	size_t sys = TD_SYS_FTRACE;
	struct td_fmt *f;
	unsigned int id;
	int ret;

	if (!w || !system || !format_text || !*system)
		return -EINVAL;
	for (const char *p = system; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '/')
			return -EINVAL;
	ret = td_format_id(format_text, &id);
	if (ret)
		return ret;
	for (size_t i = 0; i < w->nr_fmts; i++)
		if (w->fmts[i].id == id)
			return -EEXIST;
	if (strcmp(system, "ftrace")) {
		for (sys = 0; sys < w->nr_systems; sys++)
			if (!strcmp(w->systems[sys], system))
				break;
	}
	/* room for one more format and maybe one more system */
	if (w->nr_fmts == w->fmt_cap) {
		size_t cap = w->fmt_cap ? 2 * w->fmt_cap : 16;
		struct td_fmt *fmts = realloc(w->fmts, cap * sizeof(*fmts));

		if (!fmts)
			return -ENOMEM;
		w->fmts = fmts;
		w->fmt_cap = cap;
	}
	f = &w->fmts[w->nr_fmts];
	f->text = strdup(format_text);
	if (!f->text)
		return -ENOMEM;
	if (sys == w->nr_systems) {
		char **systems =
			realloc(w->systems, (sys + 1) * sizeof(*systems));
		char *name = strdup(system);

		if (systems)
			w->systems = systems;
		if (!systems || !name) {
			free(name);
			free(f->text);
			return -ENOMEM;
		}
		w->systems[w->nr_systems++] = name;
	}
	f->sys = sys;
	f->id = id;
	w->nr_fmts++;
	w->dirty = true;
	return 0;
}

/**
 * struct td_sym - one kallsyms line being sorted
 * @addr: its address
 * @line: the line (in the caller's text)
 * @len: its length without the newline
 * @idx: its position in the text (ties keep the text's order)
 */
struct td_sym {
	uint64_t addr;
	const char *line;
	size_t len;
	size_t idx;
};

/**
 * td_sym_cmp - qsort() order of kallsyms lines: address, then position
 * @a: a struct td_sym
 * @b: another
 *
 * Context: any thread.
 * Return: <0, 0 or >0.
 */
static int td_sym_cmp(const void *a, const void *b)
{
	const struct td_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/**
 * td_word_char - whether a byte may be part of a symbol or module name
 * @c: the byte
 *
 * Context: any thread.
 * Return: true for anything but blanks and control characters.
 */
static bool td_word_char(char c)
{
	return (unsigned char)c > ' ' && c != 0x7f;
}

/**
 * td_sym_parse - check one kallsyms line and read its address
 * @s: the line
 * @n: its length (no newline)
 * @addr: receives the address
 *
 * The form readers accept: 1 to 16 hex digits, a blank, a type letter, a
 * blank, the name, and optionally a tab and "[module]".
 *
 * Context: any thread.
 * Return: true if the line has that form.
 */
static bool td_sym_parse(const char *s, size_t n, uint64_t *addr)
{
	size_t i = 0, start;
	uint64_t a = 0;

	for (; i < n && i < 17; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			break;
		a = a << 4 | d;
	}
	if (i == 0 || i > 16)
		return false;
	if (n - i < 4 || s[i] != ' ' || !td_word_char(s[i + 1]) ||
	    s[i + 2] != ' ')
		return false;
	i += 3;
	for (start = i; i < n && td_word_char(s[i]); i++)
		;
	if (i == start)
		return false;
	if (i < n) {
		/* "\t[module]" up to the end of the line */
		if (n - i < 4 || s[i] != '\t' || s[i + 1] != '[' ||
		    s[n - 1] != ']')
			return false;
		for (i += 2; i < n - 1; i++)
			if (!td_word_char(s[i]) || s[i] == ']')
				return false;
	}
	*addr = a;
	return true;
}

int td_writer_set_kallsyms(struct td_writer *w, const char *text)
{
	struct td_sym *syms = NULL;
	size_t nr = 0, cap = 0, total = 0;
	char *out = NULL, *at;

	if (!w || !text)
		return -EINVAL;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		uint64_t addr;

		if (len) {
			if (!td_sym_parse(l, len, &addr)) {
				free(syms);
				return -EINVAL;
			}
			if (nr == cap) {
				size_t ncap = cap ? 2 * cap : 256;
				struct td_sym *s =
					realloc(syms, ncap * sizeof(*s));

				if (!s) {
					free(syms);
					return -ENOMEM;
				}
				syms = s;
				cap = ncap;
			}
			syms[nr] = (struct td_sym){ addr, l, len, nr };
			nr++;
			total += len + 1;
		}
		l += len + (nl ? 1 : 0);
	}
	if (nr) {
		total += sizeof(TD_KALLSYMS_END) - 1;
		/* the section's length is a u32 */
		if (total > UINT32_MAX) {
			free(syms);
			return -EFBIG;
		}
		/* a process's symbols come sorted (by address, aliases in
		 * order): checked in one pass, sorted only if not */
		for (size_t i = 1; i < nr; i++)
			if (td_sym_cmp(&syms[i - 1], &syms[i]) > 0) {
				qsort(syms, nr, sizeof(*syms), td_sym_cmp);
				break;
			}
		out = malloc(total + 1);
		if (!out) {
			free(syms);
			return -ENOMEM;
		}
		at = out;
		for (size_t i = 0; i < nr; i++) {
			memcpy(at, syms[i].line, syms[i].len);
			at += syms[i].len;
			*at++ = '\n';
		}
		memcpy(at, TD_KALLSYMS_END, sizeof(TD_KALLSYMS_END));
	}
	free(syms);
	free(w->kallsyms);
	w->kallsyms = out;
	w->dirty = true;
	return 0;
}

int td_writer_set_clock(struct td_writer *w, const char *clock_name)
{
	static const char *const known[] = {
		"local", "global", "counter", "uptime", "perf",
		"mono", "mono_raw", "boot", "tai", "x86-tsc",
	};
	size_t n, room, used = 0;
	bool found = false;
	char *text;

	if (!w || !clock_name)
		return -EINVAL;
	n = strlen(clock_name);
	if (!n || n >= TD_CLOCK_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = clock_name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return -EINVAL;
	}
	room = sizeof(known) / sizeof(known[0]) * 12 + TD_CLOCK_MAX + 8;
	text = malloc(room);
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		bool cur = !strcmp(known[i], clock_name);

		used += (size_t)snprintf(text + used, room - used,
					 cur ? "%s[%s]" : "%s%s",
					 used ? " " : "", known[i]);
		found |= cur;
	}
	if (!found)
		used += (size_t)snprintf(text + used, room - used, " [%s]",
					 clock_name);
	snprintf(text + used, room - used, "\n");
	free(w->clock);
	w->clock = text;
	w->dirty = true;
	return 0;
}

void *td_writer_page_slot(struct td_writer *w, int cpu)
{
	struct td_spool *sp;
	int ret;

	if (!w || !w->path || cpu < 0 || cpu >= w->nr_cpus) {
		errno = EINVAL;
		return NULL;
	}
	sp = &w->spool[cpu];
	if (sp->staged == w->stage_pages) {
		ret = td_flush_cpu(w, cpu);
		if (ret) {
			errno = -ret;
			return NULL;
		}
	}
	if (!sp->stage) {
		void *p;

		/* aligned for direct I/O (td_open_direct()) */
		if (posix_memalign(&p, 4096, (size_t)w->stage_pages * w->page_size)) {
			errno = ENOMEM;
			return NULL;
		}
		sp->stage = p;
	}
	return sp->stage + (size_t)sp->staged * w->page_size;
}

/* The slot of @cpu, or NULL (no slot given, or bad arguments). */
static unsigned char *td_slot(struct td_writer *w, int cpu)
{
	struct td_spool *sp;

	if (!w || !w->spool || cpu < 0 || cpu >= w->nr_cpus ||
	    !w->spool[cpu].stage)
		return NULL;
	sp = &w->spool[cpu];
	if (sp->staged == w->stage_pages)
		return NULL;
	return sp->stage + (size_t)sp->staged * w->page_size;
}

/* The page in @cpu's slot kept (td_slot() gave it). */
static void td_keep(struct td_writer *w, int cpu)
{
	w->spool[cpu].staged++;
	w->pages++;
	w->dirty = true;
}

int td_writer_commit_slot(struct td_writer *w, int cpu,
			  struct td_count *count, unsigned long *missed)
{
	struct td_count none = { 0, 0, { -1, -1, -1 } };
	unsigned char *slot = td_slot(w, cpu);

	if (!slot ||
	    td_page_count(slot, w->page_size, count ? count : &none, missed))
		return -EINVAL;
	td_keep(w, cpu);
	return 0;
}

int td_writer_keep_slot(struct td_writer *w, int cpu, unsigned long *missed)
{
	unsigned char *slot = td_slot(w, cpu);
	unsigned long none;

	if (!slot || td_page_missed(slot, w->page_size, missed ? missed : &none))
		return -EINVAL;
	td_keep(w, cpu);
	return 0;
}

int td_writer_add_page(struct td_writer *w, int cpu, const void *page)
{
	void *slot;

	if (!w || !page || cpu < 0 || cpu >= w->nr_cpus)
		return -EINVAL;
	slot = td_writer_page_slot(w, cpu);
	if (!slot)
		return -errno;
	memcpy(slot, page, w->page_size);
	return td_writer_commit_slot(w, cpu, NULL, NULL);
}

void td_writer_stats(struct td_writer *w, uint64_t *pages, uint64_t *bytes)
{
	if (pages)
		*pages = w ? w->pages : 0;
	if (bytes)
		*bytes = w ? w->pages * w->page_size : 0;
}

uint64_t td_writer_written(struct td_writer *w)
{
	if (!w)
		return 0;
	return w->written + (w->zq ? td_zq_written(w) : 0);
}

/* The trace_clock record version 6 readers read after each cpu table,
 * because the TRACECLOCK option is there. */
static void td_clock_rec(struct td_writer *w, struct td_buf *b)
{
	if (w->clock)
		td_buf_text(b, w->clock, 8);
}

/**
 * td_file_cpus - the cpu count a file gets
 * @w: the writer
 *
 * The spares are written as the cpus after the CPUs, not as buffer
 * instances: every mode of trace-cmd reads a file without instances
 * (libtracecmd 1.3's instance handles share the top handle's filter and
 * free it twice, its --profile finds no handle for an instance's records,
 * and its convert gives instances the host's page size), and a spare
 * records the CPU each record was written on in its CPU notes, which
 * those readers skip. Only the spares up to the last one with pages are
 * written: an empty spare costs nothing. The spares' CPUSTAT options
 * (TD_SPARE_LINE) tell our reader where they start.
 *
 * Context: the writer's thread.
 * Return: nr_cpu_bufs plus the spares up to the last one with pages.
 */
static int td_file_cpus(const struct td_writer *w)
{
	int n = w->nr_cpus;

	while (n > w->nr_cpu_bufs && !w->spool[n - 1].pages)
		n--;
	return n;
}

/**
 * td_build_meta - the file up to the end of its options section
 * @w: the writer
 * @b: receives the bytes
 * @stream: for a receiver that appends the cpu table itself
 *	(td_writer_stream_header()): every cpu buffer is a cpu of the file,
 *	the count being fixed before the first page, and a pad option keeps
 *	the receiver's table from ending at a page boundary
 *
 * The spares are cpus after the CPUs in both (td_file_cpus()); their
 * CPUSTAT options say that they are.
 *
 * Context: the writer's thread.
 * Return: the file's cpu count, or -ENOMEM.
 */
/* The header_page and header_event texts, each after its name (the
 * start of a version 6 file, version 7's header section). */
static void td_meta_headers(struct td_writer *w, struct td_buf *b)
{
	td_buf_str(b, "header_page");
	td_buf_text(b,
		    w->header_page ? w->header_page :
				     td_default_header_page(w->page_size),
		    8);
	td_buf_str(b, "header_event");
	td_buf_text(b,
		    w->header_event ? w->header_event :
				      td_default_header_event(),
		    8);
}

/* The formats of the "ftrace" system: a count, then each. */
static void td_meta_ftrace(struct td_writer *w, struct td_buf *b)
{
	size_t nr_ftrace = 0;

	for (size_t i = 0; i < w->nr_fmts; i++)
		nr_ftrace += w->fmts[i].sys == TD_SYS_FTRACE;
	td_buf_le(b, nr_ftrace, 4);
	for (size_t i = 0; i < w->nr_fmts; i++)
		if (w->fmts[i].sys == TD_SYS_FTRACE)
			td_buf_text(b, w->fmts[i].text, 8);
}

/* The other systems: a count, then each with its formats. */
static void td_meta_systems(struct td_writer *w, struct td_buf *b)
{
	td_buf_le(b, w->nr_systems, 4);
	for (size_t sys = 0; sys < w->nr_systems; sys++) {
		size_t n = 0;

		for (size_t i = 0; i < w->nr_fmts; i++)
			n += w->fmts[i].sys == sys;
		td_buf_str(b, w->systems[sys]);
		td_buf_le(b, n, 4);
		for (size_t i = 0; i < w->nr_fmts; i++)
			if (w->fmts[i].sys == sys)
				td_buf_text(b, w->fmts[i].text, 8);
	}
}

/* The options of both versions (TRACECLOCK, UNAME, VERSION, a CPUSTAT per
 * cpu of the file, ours), without the end. */
static void td_meta_options(struct td_writer *w, struct td_buf *b,
			    int nr_file)
{
	if (w->clock) {
		td_buf_le(b, TD_OPT_TRACECLOCK, 2);
		td_buf_le(b, strlen(w->clock) + 1, 4);
		td_buf_str(b, w->clock);
	}
	if (w->uname) {
		td_buf_le(b, TD_OPT_UNAME, 2);
		td_buf_le(b, strlen(w->uname) + 1, 4);
		td_buf_str(b, w->uname);
	}
	if (w->version) {
		td_buf_le(b, TD_OPT_VERSION, 2);
		td_buf_le(b, strlen(w->version) + 1, 4);
		td_buf_str(b, w->version);
	}
	/* one per cpu, in cpu order: readers concatenate them */
	for (int cpu = 0; cpu < nr_file; cpu++) {
		char head[96];
		const char *rest = w->cpustat[cpu] ? w->cpustat[cpu] : "";
		size_t n;

		if (cpu < w->nr_cpu_bufs)
			snprintf(head, sizeof(head), "CPU: %d\n", cpu);
		else
			snprintf(head, sizeof(head),
				 "CPU: %d\n" TD_SPARE_LINE "%d (records of any "
				 "CPU, each named by a CPU note)\n", cpu,
				 cpu - w->nr_cpu_bufs);
		n = strlen(head) + strlen(rest);
		td_buf_le(b, TD_OPT_CPUSTAT, 2);
		td_buf_le(b, n + 1, 4);
		td_buf_put(b, head, strlen(head));
		td_buf_str(b, rest);
	}
	if (w->options) {
		td_buf_le(b, TD_OPT_RT_OPTIONS, 2);
		td_buf_le(b, strlen(w->options) + 1, 4);
		td_buf_str(b, w->options);
	}
	if (w->protos && w->protos[0]) {
		td_buf_le(b, TD_OPT_RT_PROTOS, 2);
		td_buf_le(b, strlen(w->protos) + 1, 4);
		td_buf_str(b, w->protos);
	}
}

static int td_build_meta(struct td_writer *w, struct td_buf *b, bool stream)
{
	static const char ver[] = { '6', 0, 0 /* little endian */,
				    8 /* long size */ };
	int nr_file = stream ? w->nr_cpus : td_file_cpus(w);

	td_buf_put(b, td_magic, sizeof(td_magic));
	td_buf_put(b, ver, sizeof(ver));
	td_buf_le(b, w->page_size, 4);
	td_meta_headers(w, b);
	/* the ftrace formats, then the others grouped by system */
	td_meta_ftrace(w, b);
	td_meta_systems(w, b);

	td_buf_text(b, w->kallsyms, 4);
	td_buf_le(b, 0, 4); /* printk formats */
	td_buf_text(b, w->cmdlines, 8);
	/* the CPUs, then the spares (up to the last one with pages in a
	 * file) */
	td_buf_le(b, (uint64_t)nr_file, 4);

	td_buf_put(b, "options  ", 10);
	td_meta_options(w, b, nr_file);
	if (stream) {
		/*
		 * The receiver appends "flyrecord", a table of nr_cpus
		 * entries, its own trace_clock record or none, then zeroes
		 * to a page boundary. A reader that saw the TRACECLOCK
		 * option reads a record right after the table: where the
		 * receiver wrote none, it must find 8 zero bytes (an empty
		 * record) before the first page, not the page itself. A pad
		 * option moves the table's end away from the boundary.
		 */
		uint64_t end = b->len + 2 + 10 + 16 * (uint64_t)w->nr_cpus;
		uint64_t e = end % w->page_size;

		if (e == 0 || e > w->page_size - 8) {
			td_buf_le(b, TD_OPT_RT_PAD, 2);
			td_buf_le(b, 8, 4);
			td_buf_le(b, 0, 8);
		}
	}
	td_buf_le(b, TD_OPT_DONE, 2);
	return b->err ? b->err : nr_file;
}

int td_writer_stream_header(struct td_writer *w, void **out, size_t *len,
			    size_t *fixed)
{
	struct td_buf b = { 0 };
	int ret;

	if (!w || !out || !len)
		return -EINVAL;
	ret = td_build_meta(w, &b, true);
	if (ret < 0) {
		free(b.p);
		return ret;
	}
	/* the magic, the page size, header_page and header_event: set
	 * before the sections that follow change */
	if (fixed)
		*fixed = sizeof(td_magic) + 4 + 4 + sizeof("header_page") + 8 +
			 strlen(w->header_page ? w->header_page :
				td_default_header_page(w->page_size)) +
			 sizeof("header_event") + 8 +
			 strlen(w->header_event ? w->header_event :
				td_default_header_event());
	*out = b.p;
	*len = b.len;
	return 0;
}

/**
 * td_build_header - the file up to its first data page
 * @w: the writer
 * @b: receives the bytes: the header, the cpu table filled in for the
 *	current page counts, the trace_clock record, zeroes up to a page
 *	boundary
 *
 * Context: the writer's thread.
 * Return: 0, -ENOMEM.
 */
int td_build_header(struct td_writer *w, struct td_buf *b)
{
	uint64_t off;
	int nr_file = td_build_meta(w, b, false);

	if (nr_file < 0)
		return nr_file;

	td_buf_put(b, "flyrecord", 10);
	for (int cpu = 0; cpu < w->nr_cpus; cpu++) {
		/* 0: not in the table (a spare after the last used one) */
		w->entry_at[cpu] = cpu < nr_file ? b->len : 0;
		if (cpu < nr_file)
			td_buf_put(b, NULL, 16);
	}
	td_clock_rec(w, b);
	td_buf_put(b, NULL,
		   (w->page_size - b->len % w->page_size) % w->page_size);
	if (b->err)
		return b->err;

	off = b->len;
	for (int cpu = 0; cpu < nr_file; cpu++) {
		uint64_t size = w->spool[cpu].pages * w->page_size;
		unsigned char *e = b->p + w->entry_at[cpu];

		/* in place, each cpu's data is where it was written */
		if (w->fd >= 0)
			off = w->spool[cpu].off;
		td_put64(e, size ? off : 0);
		td_put64(e + 8, size);
		off += size;
	}
	return 0;
}

/**
 * td_assemble - write the whole file to "<path>.tmp" and rename it over
 *	the path
 * @w: the writer
 *
 * Context: the writer's thread; blocks.
 * Return: 0 (the writer is clean), or a negative errno (the path is left
 * as it was, "<path>.tmp" is removed).
 */
/* "<path>.tmp" created for an assembly: a new file, not a leftover of a
 * killed recorder, nor a link. Return: its descriptor or a negative errno. */
static int td_tmp_open(struct td_writer *w)
{
	int fd;

	if (unlink(w->tmp_path) && errno != ENOENT)
		return -errno;
	fd = open(w->tmp_path,
		  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	return fd < 0 ? -errno : fd;
}

/* The end of an assembly into @fd (@ret: how it went): closed, renamed
 * over the path, or removed. Return: @ret or the error of the close or
 * rename. */
static int td_tmp_done(struct td_writer *w, int fd, int ret)
{
	/* close() reports delayed write errors on some file systems */
	if (close(fd) && errno != EINTR && !ret)
		ret = -errno;
	if (!ret && rename(w->tmp_path, w->path))
		ret = -errno;
	if (ret)
		unlink(w->tmp_path);
	return ret;
}

static int td_assemble(struct td_writer *w)
{
	struct td_buf b = { 0 };
	uint64_t off;
	int fd, ret;

	ret = td_build_header(w, &b);
	if (ret)
		goto out;
	fd = td_tmp_open(w);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	ret = td_write_all(fd, b.p, b.len, 0);
	w->written += b.len;
	off = b.len;
	for (int cpu = 0; cpu < w->nr_cpus && !ret; cpu++) {
		uint64_t size = w->spool[cpu].pages * w->page_size;

		if (!size)
			continue;
		ret = td_copy_range(w->spool[cpu].fd, 0, fd, off, size);
		off += size;
		w->written += size;
	}
	ret = td_tmp_done(w, fd, ret);
	if (!ret)
		w->dirty = false;
out:
	free(b.p);
	return ret;
}

#ifdef TD_HAVE_ZSTD

/* A version 7 section header (id, flags, description string 0, size). */
static void td_sec7_head(struct td_buf *b, unsigned int id, unsigned int flags,
			 uint64_t size)
{
	td_buf_le(b, id, 2);
	td_buf_le(b, flags, 2);
	td_buf_le(b, 0, 4);
	td_buf_le(b, size, 8);
}

/* Section @id with the content @c, compressed: (u32 compressed size,
 * u32 size, the data). */
static void td_sec7_zip(struct td_writer *w, struct td_buf *b, unsigned int id,
			const struct td_buf *c)
{
	size_t cap = ZSTD_compressBound(c->len), n;
	unsigned char *z;

	if (b->err || c->err) {
		b->err = b->err ? b->err : c->err;
		return;
	}
	z = malloc(cap ? cap : 1);
	if (!z) {
		b->err = -ENOMEM;
		return;
	}
	n = ZSTD_compressCCtx(w->zctx, z, cap, c->p ? c->p : (const void *)"",
			      c->len, TD_ZSTD_LEVEL);
	if (ZSTD_isError(n) || n > UINT32_MAX || c->len > UINT32_MAX) {
		b->err = -EIO;
	} else {
		td_sec7_head(b, id, TD_SEC_COMPRESSED, n + 8);
		td_buf_le(b, n, 4);
		td_buf_le(b, c->len, 4);
		td_buf_put(b, z, n);
	}
	free(z);
}

/**
 * td_ckpt7_prepare - what a version 7 file's assembly takes from the
 *	writer's own state (td_ckpt7_write() does the rest)
 * @w: a compressing writer
 * @c: receives the header (the compression's name and version, the
 *	offset of the first options section, filled in here), the
 *	compressed sections of the metadata, the options that point to
 *	them (with CPUCOUNT and the options of version 6, without their
 *	end), the cpu count of the file and the clock's name
 *
 * Context: the writer's thread.
 * Return: 0 or a negative errno (@c freed then).
 */
int td_ckpt7_prepare(struct td_writer *w, struct td_zckpt *c)
{
	static const char ver[] = { '7', 0, 0 /* little endian */,
				    8 /* long size */ };
	uint64_t sec[TD_SEC_CMDLINES + 1] = { 0 }, at_opt;
	struct td_buf *b = &c->b, t = { 0 };
	int ret;

	memset(c, 0, sizeof(*c));
	c->nr_file = td_file_cpus(w);
	c->clock = w->clock ? td_clock_of(w->clock) : NULL;
	td_buf_put(b, td_magic, sizeof(td_magic));
	td_buf_put(b, ver, sizeof(ver));
	td_buf_le(b, w->page_size, 4);
	td_buf_str(b, "zstd");
	td_buf_str(b, ZSTD_versionString());
	at_opt = b->len;
	td_buf_le(b, 0, 8);
	c->hdr_len = b->len;

	for (unsigned int id = TD_SEC_HEADER; id <= TD_SEC_CMDLINES; id++) {
		t.len = 0;
		switch (id) {
		case TD_SEC_HEADER:
			td_meta_headers(w, &t);
			break;
		case TD_SEC_FTRACE:
			td_meta_ftrace(w, &t);
			break;
		case TD_SEC_EVENTS:
			td_meta_systems(w, &t);
			break;
		case TD_SEC_KALLSYMS:
			td_buf_text(&t, w->kallsyms, 4);
			break;
		case TD_SEC_PRINTK:
			td_buf_le(&t, 0, 4);
			break;
		default:
			td_buf_text(&t, w->cmdlines, 8);
			break;
		}
		sec[id] = c->sec[id] = b->len;
		td_sec7_zip(w, b, id, &t);
	}
	free(t.p);

	/* the first options section: where the sections are, the rest */
	if (!b->err)
		td_put64(b->p + at_opt, b->len);
	for (unsigned int id = TD_SEC_HEADER; id <= TD_SEC_CMDLINES; id++) {
		td_buf_le(&c->t, id, 2);
		td_buf_le(&c->t, 8, 4);
		td_buf_le(&c->t, sec[id], 8);
	}
	td_buf_le(&c->t, TD_OPT_CPUCOUNT, 2);
	td_buf_le(&c->t, 4, 4);
	td_buf_le(&c->t, (uint64_t)c->nr_file, 4);
	td_meta_options(w, &c->t, c->nr_file);
	ret = b->err ? b->err : c->t.err;
	if (ret)
		td_ckpt7_free(c);
	return ret;
}

/** td_ckpt7_free - free what td_ckpt7_prepare() filled in */
void td_ckpt7_free(struct td_zckpt *c)
{
	free(c->b.p);
	free(c->t.p);
	free(c->clock);
	memset(c, 0, sizeof(*c));
}

/* ---- a version 7 file written in place (w->zplace) ---------------- */

/* Bytes of the options td_ckpt7_prepare() puts first in c->t: one per
 * metadata section, pointing to it. */
#define TD_V7_SEC_OPTS ((TD_SEC_CMDLINES - TD_SEC_HEADER + 1) * 14)

/*
 * Where @len bytes may go at or above @base without overlapping the live
 * checkpoint's sections (w->ztail): @base, or the page after both.
 */
static uint64_t td_v7_free_at(const struct td_writer *w, uint64_t base,
			      uint64_t len)
{
	uint64_t end = w->ztail + w->ztail_len;

	if (!w->ztail_len || base >= end || base + len <= w->ztail)
		return base;
	return td_page_up(end > base + len ? end : base + len, w->page_size);
}

/**
 * td_v7_place_chunk - room in a cpu's region for its next chunk
 * @w: a compressing writer in place
 * @cpu: the cpu
 * @need: bytes of the region the chunk makes used (count included)
 * @full: the chunk is of a full staging
 * @bytes: the bytes of a copy are added (the compressor's count: the
 *	writer's own fields are the writer's thread's)
 *
 * A cpu's region is placed at its first chunk: the first one of a full
 * staging gets the one right after the header (the busiest cpu, usually,
 * whose data the close then need not move; a chunk of a few pages is
 * that of a checkpoint, from any cpu), the others go above every region
 * and the live checkpoint's sections. A region outgrown is copied to a new
 * one of twice its size (or @need) at the top: the old one stays as it
 * is, and is what the file shows, until the next checkpoint.
 *
 * Context: a compressor thread at its turn (or the writer's thread while
 * they are idle); blocks.
 * Return: 0 or a negative errno (the region as it was).
 */
int td_v7_place_chunk(struct td_writer *w, int cpu, uint64_t need,
		      bool full, uint64_t *bytes)
{
	struct td_spool *sp = &w->spool[cpu];
	uint64_t cap, off;
	int ret;

	if (sp->rank < 0) {
		cap = td_page_up(need > w->reserve ? need : w->reserve,
				 w->page_size);
		if (full && !w->zlow && cap == w->reserve) {
			sp->off = td_page_up(w->zhead + 16, w->page_size);
			w->zlow = true;
		} else {
			sp->off = td_v7_free_at(w, w->zend, cap);
			w->zend = sp->off + cap;
		}
		sp->cap = cap;
		sp->rank = w->nr_placed;
		w->order[w->nr_placed++] = cpu;
		return 0;
	}
	if (need <= sp->cap)
		return 0;
	cap = td_page_up(need > 2 * sp->cap ? need : 2 * sp->cap, w->page_size);
	off = td_v7_free_at(w, w->zend, cap);
	ret = td_copy_range(w->fd, sp->off, w->fd, off, 4 + sp->zbytes);
	if (ret)
		return ret;
	*bytes += 4 + sp->zbytes;
	sp->off = off;
	sp->cap = cap;
	w->zend = off + cap;
	td_step(w, "copied");
	return 0;
}

/*
 * The two options sections after the metadata sections (which start at
 * @meta): the first, at @at, points to those (c->sec), holds CPUCOUNT and
 * the other options, and ends with the offset of the second, right after
 * it; the second holds the BUFFER option: the cpu data's section header
 * at w->zhead, each cpu with chunks at @cpu_off but @hide (-1: none).
 * Appended to @o.
 */
static void td_v7_opts(struct td_writer *w, const struct td_zckpt *c,
		       uint64_t meta, uint64_t at, const uint64_t *cpu_off,
		       int hide, struct td_buf *o)
{
	struct td_buf x = { 0 };
	uint64_t len1 = TD_V7_SEC_OPTS + (c->t.len - TD_V7_SEC_OPTS) + 14;
	uint64_t nr = 0;

	td_sec7_head(o, TD_SEC_OPTIONS, 0, len1);
	for (unsigned int id = TD_SEC_HEADER; id <= TD_SEC_CMDLINES; id++) {
		td_buf_le(o, id, 2);
		td_buf_le(o, 8, 4);
		td_buf_le(o, meta + c->sec[id] - c->hdr_len, 8);
	}
	td_buf_put(o, c->t.p + TD_V7_SEC_OPTS, c->t.len - TD_V7_SEC_OPTS);
	td_buf_le(o, TD_OPT_DONE, 2);
	td_buf_le(o, 8, 4);
	td_buf_le(o, at + 16 + len1, 8);

	for (int cpu = 0; cpu < c->nr_file; cpu++)
		nr += w->spool[cpu].chunks && cpu != hide;
	td_buf_le(&x, w->zhead, 8);
	td_buf_str(&x, "");
	td_buf_str(&x, c->clock ? c->clock : "local");
	td_buf_le(&x, w->page_size, 4);
	td_buf_le(&x, nr, 4);
	for (int cpu = 0; cpu < c->nr_file; cpu++) {
		if (!w->spool[cpu].chunks || cpu == hide)
			continue;
		td_buf_le(&x, (uint64_t)cpu, 4);
		td_buf_le(&x, cpu_off[cpu], 8);
		td_buf_le(&x, w->spool[cpu].zbytes, 8);
	}
	td_sec7_head(o, TD_SEC_OPTIONS, 0, x.len + 6 + 14);
	td_buf_le(o, TD_OPT_BUFFER, 2);
	td_buf_le(o, x.len, 4);
	td_buf_put(o, x.p, x.len);
	td_buf_le(o, TD_OPT_DONE, 2);
	td_buf_le(o, 8, 4);
	td_buf_le(o, 0, 8);
	if (x.err && !o->err)
		o->err = x.err;
	free(x.p);
}

/*
 * td_v7_commit - a checkpoint of a compressing writer in place
 * @w: the writer
 * @c: td_ckpt7_prepare()'s part
 * @cpu_off: where each cpu's data is (its count, then its chunks)
 * @hide: a cpu the file shows without data (its data being moved), or -1
 * @base: the lowest offset for the sections (td_v7_free_at() keeps them
 *	off the live ones)
 * @written: bytes written are added
 *
 * In an order that leaves a file that reads at every step: the sections
 * where no live byte is; the cpu data's section header (its size); the
 * file's header, pointing to the new sections; then each cpu's chunk
 * count (a count behind the size the BUFFER option gives reads fewer
 * chunks, never chunks that are not there).
 *
 * Context: a compressor thread at its turn (or the writer's thread while
 * they are idle); blocks.
 * Return: 0 or a negative errno.
 */
static int td_v7_commit(struct td_writer *w, const struct td_zckpt *c,
			const uint64_t *cpu_off, int hide, uint64_t base,
			uint64_t *written)
{
	uint64_t meta_len = c->b.len - c->hdr_len, at, end = w->zhead + 16;
	struct td_buf o = { 0 };
	unsigned char head[16], *hdr;
	int ret;

	/* the length first (the offsets in it are fixed-size) */
	td_v7_opts(w, c, 0, 0, cpu_off, hide, &o);
	if (o.err) {
		free(o.p);
		return o.err;
	}
	at = td_v7_free_at(w, td_page_up(base, w->page_size),
			   meta_len + o.len);
	o.len = 0;
	td_v7_opts(w, c, at, at + meta_len, cpu_off, hide, &o);
	ret = o.err;
	if (!ret)
		ret = td_write_all(w->fd, c->b.p + c->hdr_len, meta_len, at);
	if (!ret)
		ret = td_write_all(w->fd, o.p, o.len, at + meta_len);
	if (!ret) {
		for (int cpu = 0; cpu < c->nr_file; cpu++)
			if (w->spool[cpu].chunks && cpu != hide &&
			    cpu_off[cpu] + 4 + w->spool[cpu].zbytes > end)
				end = cpu_off[cpu] + 4 + w->spool[cpu].zbytes;
		head[0] = TD_OPT_BUFFER;
		head[1] = 0;
		head[2] = TD_SEC_COMPRESSED;
		memset(head + 3, 0, 5);
		td_put64(head + 8, end - (w->zhead + 16));
		ret = td_write_all(w->fd, head, sizeof(head), w->zhead);
	}
	if (!ret) {
		hdr = malloc(c->hdr_len);
		ret = hdr ? 0 : -ENOMEM;
		if (hdr) {
			memcpy(hdr, c->b.p, c->hdr_len);
			td_put64(hdr + c->hdr_len - 8, at + meta_len);
			ret = td_write_all(w->fd, hdr, c->hdr_len, 0);
			free(hdr);
		}
	}
	for (int cpu = 0; !ret && cpu < c->nr_file; cpu++) {
		unsigned char count[4];
		uint32_t n = w->spool[cpu].chunks;

		if (!n || cpu == hide)
			continue;
		for (unsigned int i = 0; i < 4; i++)
			count[i] = (unsigned char)(n >> (8 * i));
		ret = td_write_all(w->fd, count, 4, cpu_off[cpu]);
		*written += 4;
	}
	if (!ret) {
		w->ztail = at;
		w->ztail_len = meta_len + o.len;
		*written += meta_len + o.len + sizeof(head) + c->hdr_len;
	}
	free(o.p);
	return ret;
}

/* The cpus with chunks, in the order of their data in the file. */
static int td_v7_by_off(const void *a, const void *b, void *arg)
{
	const struct td_writer *w = arg;
	uint64_t x = w->spool[*(const int *)a].off;
	uint64_t y = w->spool[*(const int *)b].off;

	return x < y ? -1 : x > y;
}

/*
 * The last checkpoint of a compressing writer in place: each cpu's data
 * moved down next to the data before it (in the order of their places,
 * a checkpoint after each move so that the next may overwrite the old
 * place; data that would overwrite itself is shown empty while it
 * moves), the sections right after the last, the file cut there.
 */
static int td_v7_final(struct td_writer *w, const struct td_zckpt *c,
		       uint64_t *cpu_off, uint64_t *written)
{
	uint64_t dst = td_page_up(w->zhead + 16, w->page_size);
	int n = 0, ret = 0;

	for (int cpu = 0; cpu < c->nr_file; cpu++)
		if (w->spool[cpu].chunks)
			w->order[n++] = cpu;
	qsort_r(w->order, (size_t)n, sizeof(*w->order), td_v7_by_off, w);
	for (int k = 0; k < n && !ret; k++) {
		int cpu = w->order[k];
		struct td_spool *sp = &w->spool[cpu];
		uint64_t len = 4 + sp->zbytes;

		if (sp->off != dst) {
			bool intact = true;

			if (dst + len > sp->off) {
				ret = td_v7_commit(w, c, cpu_off, cpu, w->zend,
						   written);
				if (!ret)
					td_step(w, "hidden");
				if (!ret)
					ret = td_move_range(w->fd, sp->off, dst,
							    len, &intact);
			} else {
				ret = td_copy_range(w->fd, sp->off, w->fd, dst,
						    len);
			}
			if (ret)
				return ret;
			*written += len;
			td_step(w, "copied");
			sp->off = cpu_off[cpu] = dst;
			ret = td_v7_commit(w, c, cpu_off, -1, w->zend, written);
			if (!ret)
				td_step(w, "shown");
		}
		dst = td_page_up(dst + len, w->page_size);
	}
	/* at the end of the data: twice when the live sections are there */
	for (int i = 0; i < 2 && !ret && w->ztail != dst; i++)
		ret = td_v7_commit(w, c, cpu_off, -1, dst, written);
	if (!ret && ftruncate(w->fd, (off_t)(dst + w->ztail_len)))
		ret = -errno;
	return ret;
}

/* td_ckpt7_write() of a writer in place. */
static int td_v7_write(struct td_writer *w, struct td_zckpt *c,
		       uint64_t *written)
{
	uint64_t *cpu_off = calloc((size_t)w->nr_cpus, sizeof(*cpu_off));
	int ret;

	if (!cpu_off)
		return -ENOMEM;
	for (int cpu = 0; cpu < w->nr_cpus; cpu++)
		cpu_off[cpu] = w->spool[cpu].off;
	ret = c->final ? td_v7_final(w, c, cpu_off, written) :
			 td_v7_commit(w, c, cpu_off, -1, w->zend, written);
	free(cpu_off);
	return ret;
}

/**
 * td_ckpt7_write - write the whole version 7 file of a compressing writer
 *	to "<path>.tmp" and rename it over the path
 * @w: the writer, every chunk before the checkpoint in the spools
 * @c: td_ckpt7_prepare()'s part, completed here
 * @written: receives the bytes written
 *
 * After @c's header, sections and options: the end of those options,
 * with the offset of the next options section; the section of the cpu
 * data: each cpu with chunks from a page boundary, its chunk count then
 * its chunks copied from its spool; an options section with the BUFFER
 * option that lists them (the data size of each without its count, as
 * trace-cmd gives it).
 *
 * Context: a compressor thread at its turn (td_zq_main()), or the
 * writer's thread while they are idle; blocks.
 * Return: 0, or a negative errno (the path is left as it was,
 * "<path>.tmp" is removed).
 */
int td_ckpt7_write(struct td_writer *w, struct td_zckpt *c,
		   uint64_t *written)
{
	struct td_buf e = { 0 }, *b = &c->b, *t = &c->t, o = { 0 };
	uint64_t data, pos, *cpu_off;
	int nr_file = c->nr_file, nr_data = 0, fd, ret;

	*written = 0;
	if (w->zplace)
		return td_v7_write(w, c, written);
	cpu_off = calloc((size_t)w->nr_cpus, sizeof(*cpu_off));
	if (!cpu_off)
		return -ENOMEM;
	td_buf_le(t, TD_OPT_DONE, 2);
	td_buf_le(t, 8, 4);
	/* the next options section: after the cpu data (below) */
	data = b->len + 16 + t->len + 8;
	pos = td_page_up(data + 16, w->page_size);
	for (int cpu = 0; cpu < nr_file; cpu++) {
		if (!w->spool[cpu].chunks)
			continue;
		cpu_off[cpu] = pos;
		pos = td_page_up(pos + 4 + w->spool[cpu].zbytes, w->page_size);
		nr_data++;
	}
	td_buf_le(t, pos, 8);
	td_sec7_head(b, TD_SEC_OPTIONS, 0, t->len);
	td_buf_put(b, t->p, t->len);
	/* the cpu data's section: its header, up to the last cpu's end */
	td_sec7_head(b, TD_OPT_BUFFER, TD_SEC_COMPRESSED, 0);
	for (int cpu = nr_file; cpu-- > 0;)
		if (w->spool[cpu].chunks) {
			if (!b->err)
				td_put64(b->p + b->len - 8,
					 cpu_off[cpu] + 4 + w->spool[cpu].zbytes -
						 (data + 16));
			break;
		}

	/* the last options section: the BUFFER option */
	td_buf_le(&o, data, 8);
	td_buf_str(&o, "");
	td_buf_str(&o, c->clock ? c->clock : "local");
	td_buf_le(&o, w->page_size, 4);
	td_buf_le(&o, (uint64_t)nr_data, 4);
	for (int cpu = 0; cpu < nr_file; cpu++) {
		if (!w->spool[cpu].chunks)
			continue;
		td_buf_le(&o, (uint64_t)cpu, 4);
		td_buf_le(&o, cpu_off[cpu], 8);
		td_buf_le(&o, w->spool[cpu].zbytes, 8);
	}
	td_sec7_head(&e, TD_SEC_OPTIONS, 0, o.len + 6 + 2 + 4 + 8);
	td_buf_le(&e, TD_OPT_BUFFER, 2);
	td_buf_le(&e, o.len, 4);
	td_buf_put(&e, o.p, o.len);
	td_buf_le(&e, TD_OPT_DONE, 2);
	td_buf_le(&e, 8, 4);
	td_buf_le(&e, 0, 8);
	ret = b->err ? b->err : t->err ? t->err : o.err ? o.err : e.err;
	if (ret)
		goto out;

	fd = td_tmp_open(w);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	ret = td_write_all(fd, b->p, b->len, 0);
	for (int cpu = 0; cpu < nr_file && !ret; cpu++) {
		unsigned char count[4];
		uint32_t n = w->spool[cpu].chunks;

		if (!n)
			continue;
		for (unsigned int i = 0; i < 4; i++)
			count[i] = (unsigned char)(n >> (8 * i));
		ret = td_write_all(fd, count, 4, cpu_off[cpu]);
		if (!ret)
			ret = td_copy_range(w->spool[cpu].fd, 0, fd,
					    cpu_off[cpu] + 4,
					    w->spool[cpu].zbytes);
		*written += 4 + w->spool[cpu].zbytes;
	}
	/* (the gaps up to page boundaries are holes: zeroes) */
	if (!ret)
		ret = td_write_all(fd, e.p, e.len, pos);
	*written += b->len + e.len;
	ret = td_tmp_done(w, fd, ret);
out:
	free(o.p);
	free(e.p);
	free(cpu_off);
	return ret;
}
#endif

/**
 * td_write_header - write the header of an in-place writer over its old one
 * @w: the writer, its pages flushed
 *
 * A header that outgrew its room first moves the data up (td_shift()),
 * with room to grow again. What is left of a longer old header is zeroed.
 *
 * Context: the writer's thread; blocks.
 * Return: 0 or a negative errno.
 */
int td_write_header(struct td_writer *w)
{
	struct td_buf b = { 0 };
	uint64_t len;
	int ret;

	ret = td_build_header(w, &b);
	if (!ret && b.len > w->hdr_cap) {
		uint64_t want = td_header_room(w, b.len);

		/* every cpu's data moves; a header that grew once (new
		 * thread names, a library's symbols) may grow again: the
		 * pages' write-back is started from now on, so that the next
		 * move waits for little (td_behind_moves()) */
		ret = td_hide_after(w, -1);
		if (!ret && w->pages && w->hdr_len)
			w->hdr_grew = true;
		if (!ret)
			ret = td_shift(w, -1, want - w->hdr_cap);
		/* the cpu offsets moved */
		b.len = 0;
		if (!ret)
			ret = td_build_header(w, &b);
	}
	len = b.len;
	if (!ret && len < w->hdr_len)
		td_buf_put(&b, NULL, (size_t)(w->hdr_len - len));
	ret = ret ? ret : b.err;
	if (!ret) {
		/* only the bytes that changed (mostly the cpu table) */
		size_t first = 0, last = b.len;

		if (w->hdr_prev) {
			size_t same = b.len < w->hdr_len ? b.len :
							  (size_t)w->hdr_len;
			const unsigned char *o = w->hdr_prev;

			/* a block at a time, then a byte (the header holds
			 * the symbols: hundreds of kilobytes the same) */
			while (first + 64 <= same &&
			       !memcmp(b.p + first, o + first, 64))
				first += 64;
			while (first < same && b.p[first] == o[first])
				first++;
			while (last >= first + 64 && last <= same &&
			       !memcmp(b.p + last - 64, o + last - 64, 64))
				last -= 64;
			while (last > first && last <= same &&
			       b.p[last - 1] == o[last - 1])
				last--;
		}
		ret = td_write_all(w->fd, b.p + first, last - first, first);
		if (!ret)
			w->written += last - first;
	}
	if (!ret) {
		free(w->hdr_prev);
		w->hdr_prev = b.p;
		b.p = NULL;
		w->hdr_len = len;
		memcpy(w->entry_written, w->entry_at,
		       (size_t)w->nr_cpus * sizeof(*w->entry_at));
		if (len > w->eof)
			w->eof = len;
		w->dirty = false;
	}
	free(b.p);
	return ret;
}

int td_writer_checkpoint(struct td_writer *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (!w->path)
		return 0;	/* the metadata alone: no file */
	if (w->broken)
		return w->broken;
	ret = td_flush(w);
	/*
	 * In place, the pages that could be written (a cpu's staging that
	 * filled since the last checkpoint) are shown even when others could
	 * not: the header is rewritten over bytes the file already has.
	 */
	if (ret && w->fd >= 0 && !w->zq && w->dirty && !w->broken)
		td_write_header(w);
	if (!ret && w->zq)
		return td_zq_checkpoint(w, true, false);
	if (ret || !w->dirty)
		return ret;
	return w->fd >= 0 ? td_write_header(w) : td_assemble(w);
}

int td_writer_checkpoint_nowait(struct td_writer *w)
{
	int ret;

	if (!w || !w->zq)
		return td_writer_checkpoint(w);
	ret = td_flush(w);
	return ret ? ret : td_zq_checkpoint(w, false, false);
}

int td_writer_close(struct td_writer *w)
{
	bool last; /* the file's last step was taken */
	int ret;

	if (!w)
		return 0;
	if (w->zplace) {
		/* the last checkpoint makes the file compact */
		ret = td_flush(w);
		if (!ret)
			ret = td_zq_checkpoint(w, true, true);
		last = !ret;
	} else {
		ret = td_writer_checkpoint(w);
		last = !ret && w->fd >= 0;
		if (last)
			ret = w->sparse ? td_compact_sparse(w) :
					  td_compact(w);
	}
	if (last)
		td_step(w, "closed");
	if (w->fd >= 0) {
		/* close() reports delayed write errors on some file systems */
		if (close(w->fd) && errno != EINTR && !ret)
			ret = -errno;
		w->fd = -1;
	}
	td_writer_free(w);
	return ret;
}

void td_writer_abort(struct td_writer *w)
{
	if (w)
		td_writer_free(w);
}
