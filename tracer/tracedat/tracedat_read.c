// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracedat_read.c - the trace.dat reader, versions 6 and 7 (see tracedat.h)
 *
 * The file is mapped read-only and parsed with a cursor that checks every
 * length against the file before it is used; the texts are copied out
 * (NUL-terminated), the pages are handed out in place; a compressed
 * file's from its chunks, listed at the open and decompressed when their
 * pages are reached, the last TD_READER_CHUNKS of each cpu held.
 */
#include "tracedat_int.h"

/* ------------------------------------------------------------------ */
/* Reader                                                              */

/**
 * struct td_rfmt - one format of the file
 * @system: its system
 * @text: its text
 */
struct td_rfmt {
	char *system;
	char *text;
};

typedef size_t (*td_zstd_fn)(void *dst, size_t cap, const void *src,
			     size_t n);
typedef unsigned int (*td_zstd_err_fn)(size_t code);
typedef unsigned long long (*td_zstd_size_fn)(const void *src, size_t n);
typedef int (*td_zlib_fn)(unsigned char *dst, unsigned long *dlen,
			  const unsigned char *src, unsigned long slen);

/**
 * struct td_v7 - the decompressor of a version 7 file
 * @zstd: ZSTD_decompress(), for a zstd file
 * @zstd_err: ZSTD_isError()
 * @zstd_size: ZSTD_getFrameContentSize(): what a frame says it holds
 * @zlib: uncompress(), for a zlib file
 * @compressed: the file's algorithm is not "none"
 */
struct td_v7 {
	td_zstd_fn zstd;
	td_zstd_err_fn zstd_err;
	td_zstd_size_fn zstd_size;
	td_zlib_fn zlib;
	bool compressed;
};

/**
 * struct td_chunk - one compressed chunk of a cpu's data (its index
 *	entry: nothing is decompressed to build it)
 * @off: the file offset of its compressed bytes
 * @start: the offset of its first byte in the cpu's decompressed data
 * @csize: its compressed bytes
 * @usize: the bytes it decompresses into
 * @bad: it did not decompress into @usize bytes (it is not tried again)
 */
struct td_chunk {
	uint64_t off;
	uint64_t start;
	uint32_t csize;
	uint32_t usize;
	bool bad;
};

/**
 * struct td_held - a decompressed chunk the reader holds
 * @chunk: its index in the cpu's chunks, -1 for none
 * @mem: the bytes (@cap allocated, the chunk's size used)
 * @cap: bytes allocated
 * @used: when it was last handed out (the reader's @tick)
 */
struct td_held {
	int64_t chunk;
	unsigned char *mem;
	size_t cap;
	uint64_t used;
};

/**
 * struct td_rcpu - one cpu's data in the file
 * @offset: file offset of its first page (data in place)
 * @size: bytes (whole pages), decompressed
 * @inst_cpu: the CPU of a buffer instance's cpu buffer that is not one of
 *	our spares (an instance trace-cmd recorded), -1 otherwise
 * @chunks: a compressed version 7 file: the index of its chunks, in data
 *	order; NULL: the data is in the file at @offset
 * @nr_chunks: entries in @chunks
 * @hint: the chunk of the last page looked up (the next is the likely one)
 * @held: the chunks decompressed last (TD_READER_CHUNKS of them)
 * @bounce: a page that spans two chunks, copied together (page_size
 *	bytes, allocated on first use)
 */
struct td_rcpu {
	uint64_t offset;
	uint64_t size;
	int inst_cpu;
	struct td_chunk *chunks;
	uint32_t nr_chunks;
	uint32_t hint;
	struct td_held held[TD_READER_CHUNKS];
	unsigned char *bounce;
};

/**
 * struct td_reader - a trace.dat open for reading
 * @map: the file, mapped read-only (NULL for an empty file)
 * @size: its size
 * @page_size: the page size
 * @nr_cpus: cpu buffers, the spares of buffer instances included
 * @nr_cpu_bufs: of which CPUs (the file's cpu count)
 * @cpus: their data
 * @fmts: the formats
 * @nr_fmts: entries in @fmts
 * @fmt_cap: entries allocated
 * @clock: the clock name
 * @kallsyms: the kallsyms text
 * @cmdlines: the cmdlines text
 * @uname: the UNAME text
 * @options: the trace options text
 * @protos: the functions' prototypes text
 * @z: a version 7 file's decompressor
 * @tick: the count of chunk look-ups (the age of a held chunk)
 * @nomem: the last chunk failed for want of memory
 * @stats: the decompressed bytes held, their peak, the chunks
 * @msg: td_reader_page_error()'s message
 * @sys_page: the system's page size (what madvise() takes), 0 unknown
 */
struct td_reader {
	unsigned char *map;
	size_t size;
	unsigned int page_size;
	int nr_cpus;
	int nr_cpu_bufs;
	struct td_rcpu *cpus;
	struct td_rfmt *fmts;
	unsigned int nr_fmts;
	unsigned int fmt_cap;
	char *clock;
	char *kallsyms;
	char *cmdlines;
	char *uname;
	char *options;
	char *protos;
	struct td_v7 z;
	uint64_t tick;
	bool nomem;
	struct td_reader_stats stats;
	char msg[256];
	uint64_t sys_page;
};

/**
 * struct td_cursor - where the parse of a file is
 * @p: the file's bytes
 * @size: how many
 * @off: the offset of the next byte to read
 * @err: where the message goes (may be NULL)
 * @errlen: its size
 */
struct td_cursor {
	const unsigned char *p;
	size_t size;
	size_t off;
	char *err;
	size_t errlen;
};

/**
 * td_fail - record why the file is refused
 * @c: the cursor
 * @ret: the error to return
 * @fmt: printf format of the message
 *
 * Context: any thread.
 * Return: @ret.
 */
static int __attribute__((format(printf, 3, 4)))
td_fail(struct td_cursor *c, int ret, const char *fmt, ...)
{
	va_list ap;

	if (c->err && c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/**
 * td_take - consume @n bytes
 * @c: the cursor
 * @n: how many
 * @what: what they are, for the message
 * @at: receives a pointer to them
 *
 * Context: any thread.
 * Return: 0, or -EPROTO when the file ends before.
 */
static int td_take(struct td_cursor *c, uint64_t n, const char *what,
		   const unsigned char **at)
{
	*at = c->p;
	if (n > c->size - c->off)
		return td_fail(c, -EPROTO,
			       "truncated: %s (%llu bytes at offset %zu) "
			       "runs past the end of the file at %zu",
			       what, (unsigned long long)n, c->off, c->size);
	*at = c->p + c->off;
	c->off += (size_t)n;
	return 0;
}

/**
 * td_num - consume a little-endian number
 * @c: the cursor
 * @bytes: its size: 2, 4 or 8
 * @what: what it is, for the message
 * @v: receives it
 *
 * Context: any thread.
 * Return: 0, -EPROTO.
 */
static int td_num(struct td_cursor *c, unsigned int bytes, const char *what,
		  uint64_t *v)
{
	const unsigned char *p;
	int ret = td_take(c, bytes, what, &p);

	if (ret)
		return ret;
	*v = 0;
	for (unsigned int i = 0; i < bytes; i++)
		*v |= (uint64_t)p[i] << (8 * i);
	return 0;
}

/**
 * td_text - consume a text of @n bytes and copy it out
 * @c: the cursor
 * @n: its length
 * @what: what it is, for the message
 * @out: receives a NUL-terminated copy (owned by the caller)
 *
 * Context: any thread.
 * Return: 0, -EPROTO, -ENOMEM.
 */
static int td_text(struct td_cursor *c, uint64_t n, const char *what,
		   char **out)
{
	const unsigned char *p;
	int ret = td_take(c, n, what, &p);

	if (ret)
		return ret;
	*out = malloc((size_t)n + 1);
	if (!*out)
		return td_fail(c, -ENOMEM, "out of memory");
	memcpy(*out, p, (size_t)n);
	(*out)[n] = 0;
	return 0;
}

/**
 * td_sized_text - consume a length of @lenbytes and the text after it
 * @c: the cursor
 * @lenbytes: 4 or 8
 * @what: what it is, for the message
 * @out: receives a NUL-terminated copy, or NULL to skip the text
 *
 * Context: any thread.
 * Return: 0, -EPROTO, -ENOMEM.
 */
static int td_sized_text(struct td_cursor *c, unsigned int lenbytes,
			 const char *what, char **out)
{
	const unsigned char *p;
	uint64_t n;
	int ret;

	ret = td_num(c, lenbytes, what, &n);
	if (ret)
		return ret;
	if (!out)
		return td_take(c, n, what, &p);
	return td_text(c, n, what, out);
}

/**
 * td_cstring - consume a NUL-terminated string
 * @c: the cursor
 * @what: what it is, for the message
 * @out: receives a copy
 *
 * Context: any thread.
 * Return: 0, -EPROTO, -ENOMEM.
 */
static int td_cstring(struct td_cursor *c, const char *what, char **out)
{
	const unsigned char *p = c->p + c->off;
	const unsigned char *nul = memchr(p, 0, c->size - c->off);
	int ret;

	if (!nul)
		return td_fail(c, -EPROTO,
			       "truncated: %s at offset %zu has no end before "
			       "the end of the file at %zu",
			       what, c->off, c->size);
	ret = td_text(c, (uint64_t)(nul - p), what, out);
	if (!ret)
		c->off++; /* the NUL */
	return ret;
}

/**
 * td_add_format - keep one format of the file
 * @r: the reader
 * @c: the cursor, at the format's u64 length
 * @system: its system
 *
 * Context: any thread.
 * Return: 0, -EPROTO, -ENOMEM.
 */
static int td_add_format(struct td_reader *r, struct td_cursor *c,
			 const char *system)
{
	struct td_rfmt *f;
	int ret;

	if (r->nr_fmts == r->fmt_cap) {
		unsigned int cap = r->fmt_cap ? 2 * r->fmt_cap : 32;

		f = realloc(r->fmts, cap * sizeof(*f));
		if (!f)
			return td_fail(c, -ENOMEM, "out of memory");
		r->fmts = f;
		r->fmt_cap = cap;
	}
	f = &r->fmts[r->nr_fmts];
	f->system = strdup(system);
	if (!f->system)
		return td_fail(c, -ENOMEM, "out of memory");
	ret = td_sized_text(c, 8, "an event format", &f->text);
	if (ret) {
		free(f->system);
		return ret;
	}
	r->nr_fmts++;
	return 0;
}

/**
 * td_check_header_page - the page layout must be the 64-bit one
 * @c: the cursor (for the message)
 * @text: the header_page text
 * @at: its file offset
 *
 * The commit field's size decides where a page's data starts (8 + size);
 * this reader and td_page_for_each() know the 8-byte one.
 *
 * Context: any thread.
 * Return: 0, -EPROTO (no commit field), -ENOTSUP (an empty text, the
 * pre-2.6.31 format; a commit of another size).
 */
static int td_check_header_page(struct td_cursor *c, const char *text,
				size_t at)
{
	const char *f, *s, *eol;
	unsigned long size;

	if (!*text)
		return td_fail(c, -ENOTSUP,
			       "the header_page at offset %zu is empty (the "
			       "pre-2.6.31 page format)", at);
	f = strstr(text, "commit;");
	s = f ? strstr(f, "size:") : NULL;
	eol = f ? strchr(f, '\n') : NULL;
	if (!s || (eol && s > eol))
		return td_fail(c, -EPROTO,
			       "the header_page at offset %zu has no commit "
			       "field with a size", at);
	size = strtoul(s + 5, NULL, 10);
	if (size != 8)
		return td_fail(c, size == 4 ? -ENOTSUP : -EPROTO,
			       "the header_page at offset %zu gives the commit "
			       "field size %lu; only 8 (64-bit kernels) is "
			       "read", at, size);
	return 0;
}

/* The byte order, long size and page size after the version string. */
static int td_parse_layout(struct td_reader *r, struct td_cursor *c)
{
	const unsigned char *p;
	size_t at = c->off;
	uint64_t v;
	int ret;

	ret = td_take(c, 6, "the endianness, long size and page size", &p);
	if (ret)
		return ret;
	if (p[0] == 1)
		return td_fail(c, -ENOTSUP,
			       "big-endian file (offset %zu): only little "
			       "endian is read", at);
	if (p[0] != 0)
		return td_fail(c, -EPROTO,
			       "bad endianness byte %u at offset %zu", p[0],
			       at);
	if (p[1] != 8)
		return td_fail(c, p[1] == 4 ? -ENOTSUP : -EPROTO,
			       "long size %u at offset %zu: only 8 is read",
			       p[1], at + 1);
	v = td_get32(p + 2);
	if (!td_page_size_ok(v))
		return td_fail(c, -EPROTO,
			       "bad page size %llu at offset %zu (a power of "
			       "two from 4096 to 1048576 is expected)",
			       (unsigned long long)v, at + 2);
	r->page_size = (unsigned int)v;
	return 0;
}

/* The header_page and header_event texts (v6 in place, v7's section). */
static int td_parse_headers(struct td_cursor *c)
{
	const unsigned char *p;
	char *text;
	size_t at;
	int ret;

	at = c->off;
	ret = td_take(c, 12, "the header_page tag", &p);
	if (ret)
		return ret;
	if (memcmp(p, "header_page", 12))
		return td_fail(c, -EPROTO,
			       "expected \"header_page\" at offset %zu", at);
	at = c->off + 8;
	ret = td_sized_text(c, 8, "the header_page text", &text);
	if (ret)
		return ret;
	ret = td_check_header_page(c, text, at);
	free(text);
	if (ret)
		return ret;
	at = c->off;
	ret = td_take(c, 13, "the header_event tag", &p);
	if (ret)
		return ret;
	if (memcmp(p, "header_event", 13))
		return td_fail(c, -EPROTO,
			       "expected \"header_event\" at offset %zu", at);
	return td_sized_text(c, 8, "the header_event text", NULL);
}

/* The formats of the ftrace system: a count, then sized texts. */
static int td_parse_ftrace(struct td_reader *r, struct td_cursor *c)
{
	uint64_t v;
	int ret;

	/* each entry takes at least its length: the loops are bounded */
	ret = td_num(c, 4, "the ftrace format count", &v);
	for (uint64_t i = 0; !ret && i < v; i++)
		ret = td_add_format(r, c, "ftrace");
	return ret;
}

/* The other systems' formats: a count, then each system's name, count
 * and sized texts. */
static int td_parse_systems(struct td_reader *r, struct td_cursor *c)
{
	uint64_t v;
	int ret;

	ret = td_num(c, 4, "the event system count", &v);
	for (uint64_t i = 0; !ret && i < v; i++) {
		char *system = NULL;
		uint64_t n;

		ret = td_cstring(c, "an event system name", &system);
		if (ret)
			break;
		ret = td_num(c, 4, "an event system's format count", &n);
		for (uint64_t j = 0; !ret && j < n; j++)
			ret = td_add_format(r, c, system);
		free(system);
	}
	return ret;
}

static int td_parse7(struct td_reader *r, struct td_cursor *c);

/*
 * A CPUSTAT option's text (@n bytes at @p): when it is a spare's ("CPU:
 * n" then TD_SPARE_LINE), *@first becomes n if that is smaller: the
 * first spare's cpu, which is the file's count of CPUs.
 */
static void td_cpustat_spare(const unsigned char *p, uint64_t n,
			     uint64_t *first)
{
	char text[64];
	unsigned long cpu;
	size_t k = n < sizeof(text) - 1 ? (size_t)n : sizeof(text) - 1;
	char *nl;

	memcpy(text, p, k);
	text[k] = '\0';
	if (sscanf(text, "CPU: %lu", &cpu) != 1)
		return;
	nl = strchr(text, '\n');
	if (nl && !strncmp(nl + 1, TD_SPARE_LINE, strlen(TD_SPARE_LINE)) &&
	    cpu < *first)
		*first = cpu;
}

/**
 * td_parse - parse and check the whole file
 * @r: the reader, with @map and @size set
 * @c: the cursor over the mapping
 *
 * Context: any thread.
 * Return: 0, or a negative errno with the message in @c's buffer.
 */
static int td_parse(struct td_reader *r, struct td_cursor *c)
{
	const unsigned char *p;
	char *version = NULL, *clock_opt = NULL, *text = NULL;
	uint64_t ncpus, *bufs = NULL, cpu_bufs = UINT64_MAX;
	bool *foreign = NULL;
	size_t nr_bufs = 0, *tab_end = NULL;
	size_t at, header_end;
	int ret;

	if (c->size < sizeof(td_magic))
		return td_fail(c, -EPROTO,
			       "truncated: the file is %zu bytes, shorter than "
			       "the magic", c->size);
	if (memcmp(c->p, td_magic, sizeof(td_magic)))
		return td_fail(c, -EPROTO,
			       "not a trace.dat file: bad magic at offset 0");
	c->off = sizeof(td_magic);
	ret = td_cstring(c, "the version string", &version);
	if (ret)
		return ret;
	if (!strcmp(version, "7")) {
		free(version);
		return td_parse7(r, c);
	}
	if (strcmp(version, "6")) {
		char *end;
		long n = strtol(version, &end, 10);

		if (!*version || *end)
			ret = td_fail(c, -EPROTO,
				      "bad version string \"%.16s\" at "
				      "offset 10", version);
		else if (n > 7)
			ret = td_fail(c, -ENOTSUP,
				      "version %ld files: convert with "
				      "trace-cmd convert --file-version 6 "
				      "--compression none", n);
		else
			ret = td_fail(c, -ENOTSUP,
				      "version %ld files are not read (only "
				      "version 6)", n);
		free(version);
		return ret;
	}
	free(version);

	ret = td_parse_layout(r, c);
	if (ret)
		return ret;

	ret = td_parse_headers(c);
	if (!ret)
		ret = td_parse_ftrace(r, c);
	if (!ret)
		ret = td_parse_systems(r, c);
	if (ret)
		return ret;

	ret = td_sized_text(c, 4, "the kallsyms section", &r->kallsyms);
	if (ret)
		return ret;
	ret = td_sized_text(c, 4, "the printk formats section", NULL);
	if (ret)
		return ret;
	ret = td_sized_text(c, 8, "the cmdlines section", &r->cmdlines);
	if (ret)
		return ret;
	at = c->off;
	ret = td_num(c, 4, "the cpu count", &ncpus);
	if (ret)
		return ret;
	if (ncpus > TD_MAX_CPUS)
		return td_fail(c, -EPROTO,
			       "implausible cpu count %llu at offset %zu",
			       (unsigned long long)ncpus, at);
	r->nr_cpus = (int)ncpus;

	at = c->off;
	ret = td_take(c, 10, "the options or flyrecord tag", &p);
	if (ret)
		return ret;
	if (!memcmp(p, "options", 7)) {
		for (;;) {
			uint64_t id, size;

			ret = td_num(c, 2, "an option id", &id);
			if (ret)
				goto out;
			if (id == TD_OPT_DONE)
				break;
			ret = td_num(c, 4, "an option size", &size);
			if (ret)
				goto out;
			if (id == TD_OPT_BUFFER && size > 8) {
				/* an instance: where its cpu table is */
				uint64_t *nb = realloc(bufs, (nr_bufs + 1) *
								     sizeof(*bufs));
				bool *nf;

				ret = td_take(c, size, "a buffer option", &p);
				if (ret)
					goto out;
				if (!nb) {
					ret = td_fail(c, -ENOMEM,
						      "out of memory");
					goto out;
				}
				bufs = nb;
				bufs[nr_bufs] = td_get64(p);
				/* trace-cmd's own instance, or our spares */
				nf = realloc(foreign, (nr_bufs + 1) *
							      sizeof(*foreign));
				if (!nf) {
					ret = td_fail(c, -ENOMEM,
						      "out of memory");
					goto out;
				}
				foreign = nf;
				foreign[nr_bufs++] =
					size - 8 < sizeof(TD_SPARES_PREFIX) - 1 ||
					memcmp(p + 8, TD_SPARES_PREFIX,
					       sizeof(TD_SPARES_PREFIX) - 1);
				continue;
			}
			if (id == TD_OPT_CPUSTAT) {
				ret = td_take(c, size, "an option", &p);
				if (ret)
					goto out;
				td_cpustat_spare(p, size, &cpu_bufs);
				continue;
			}
			if (id == TD_OPT_TRACECLOCK || id == TD_OPT_UNAME ||
			    id == TD_OPT_RT_OPTIONS || id == TD_OPT_RT_PROTOS) {
				ret = td_text(c, size, "an option", &text);
				if (ret)
					goto out;
				if (id == TD_OPT_RT_PROTOS) {
					free(r->protos);
					r->protos = text;
				} else if (id == TD_OPT_RT_OPTIONS) {
					free(r->options);
					r->options = text;
				} else if (id == TD_OPT_UNAME) {
					free(r->uname);
					r->uname = text;
				} else {
					free(clock_opt);
					clock_opt = text;
				}
				continue;
			}
			ret = td_take(c, size, "an option", &p);
			if (ret)
				goto out;
		}
		at = c->off;
		ret = td_take(c, 10, "the flyrecord tag", &p);
		if (ret)
			goto out;
	}
	if (!memcmp(p, "latency", 7)) {
		ret = td_fail(c, -ENOTSUP,
			      "a latency-format trace (offset %zu): only "
			      "flyrecord files are read", at);
		goto out;
	}
	if (memcmp(p, "flyrecord", 9)) {
		ret = td_fail(c, -EPROTO,
			      "expected \"flyrecord\" at offset %zu", at);
		goto out;
	}

	at = c->off;
	ret = td_take(c, ncpus * 16, "the cpu table", &p);
	if (ret)
		goto out;
	r->cpus = calloc((ncpus ? ncpus : 1) * (nr_bufs + 1), sizeof(*r->cpus));
	if (!r->cpus) {
		ret = td_fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint64_t cpu = 0; cpu < ncpus; cpu++) {
		r->cpus[cpu].offset = td_get64(p + cpu * 16);
		r->cpus[cpu].size = td_get64(p + cpu * 16 + 8);
	}
	header_end = c->off;
	if (clock_opt) {
		/*
		 * With the TRACECLOCK option the trace_clock record follows
		 * the table. A file that lacks it (an old writer's bug) has
		 * padding or data there: then the option names the clock,
		 * as trace-cmd does.
		 */
		size_t save = c->off;
		uint64_t n;

		if (!td_num(c, 8, "the trace_clock record", &n) &&
		    n <= c->size - c->off &&
		    !td_text(c, n, "the trace_clock record", &text)) {
			r->clock = td_clock_of(text);
			free(text);
			header_end = c->off;
		} else {
			c->off = save;
		}
		if (!r->clock)
			r->clock = td_clock_of(clock_opt);
		if (c->err && c->errlen)
			c->err[0] = 0;
	}
	r->nr_cpu_bufs = r->nr_cpus;
	/* spares written as cpus after the CPUs (td_file_cpus()) */
	if (cpu_bufs && cpu_bufs < ncpus)
		r->nr_cpu_bufs = (int)cpu_bufs;
	for (uint64_t cpu = 0; cpu < ncpus; cpu++)
		r->cpus[cpu].inst_cpu = -1;
	tab_end = nr_bufs ? calloc(nr_bufs, sizeof(*tab_end)) : NULL;
	if (nr_bufs && !tab_end) {
		ret = td_fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	/* the instances' cpus (spares, or trace-cmd's) follow the CPUs */
	for (size_t i = 0; i < nr_bufs; i++) {
		size_t save = c->off;

		if (bufs[i] > c->size) {
			ret = td_fail(c, -EPROTO,
				      "truncated: buffer instance %zu at "
				      "offset %llu, the file ends at %zu",
				      i, (unsigned long long)bufs[i], c->size);
			goto out;
		}
		c->off = (size_t)bufs[i];
		at = c->off;
		ret = td_take(c, 10, "a buffer instance's flyrecord tag", &p);
		if (!ret && memcmp(p, "flyrecord", 9))
			ret = td_fail(c, -EPROTO,
				      "expected \"flyrecord\" at offset %zu "
				      "(buffer instance %zu)", at, i);
		if (!ret)
			ret = td_take(c, ncpus * 16,
				      "a buffer instance's cpu table", &p);
		if (ret)
			goto out;
		for (uint64_t cpu = 0; cpu < ncpus; cpu++) {
			struct td_rcpu *e = &r->cpus[r->nr_cpus++];

			e->offset = td_get64(p + cpu * 16);
			e->size = td_get64(p + cpu * 16 + 8);
			e->inst_cpu = foreign[i] ? (int)cpu : -1;
		}
		if (clock_opt) {
			/* its trace_clock record, when there */
			uint64_t n;
			const unsigned char *q;

			if (!td_num(c, 8, "the trace_clock record", &n) &&
			    n <= c->size - c->off)
				td_take(c, n, "the trace_clock record", &q);
			if (c->err && c->errlen)
				c->err[0] = 0;
		}
		/*
		 * trace-cmd writes an instance's table after the data of
		 * the buffers before it; ours come before all the data
		 */
		tab_end[i] = c->off;
		c->off = save;
	}

	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		uint64_t off = r->cpus[cpu].offset, size = r->cpus[cpu].size;
		uint64_t end = off + size;

		if (!size)
			continue;
		if (off % r->page_size || size % r->page_size) {
			ret = td_fail(c, -EPROTO,
				      "the cpu %d data (offset %llu, size "
				      "%llu, cpu table at %zu) is not whole "
				      "pages of %u bytes",
				      cpu, (unsigned long long)off,
				      (unsigned long long)size, at,
				      r->page_size);
			goto out;
		}
		if (off < header_end) {
			ret = td_fail(c, -EPROTO,
				      "the cpu %d data at offset %llu "
				      "overlaps the header, which ends at %zu",
				      cpu, (unsigned long long)off, header_end);
			goto out;
		}
		for (size_t i = 0; i < nr_bufs; i++) {
			if (bufs[i] < end && tab_end[i] > off) {
				ret = td_fail(c, -EPROTO,
					      "the cpu %d data at offset %llu "
					      "overlaps the table of buffer "
					      "instance %zu at %llu",
					      cpu, (unsigned long long)off, i,
					      (unsigned long long)bufs[i]);
				goto out;
			}
		}
		if (off > c->size || size > c->size - off) {
			if (end < off)
				end = UINT64_MAX;
			ret = td_fail(c, -EPROTO,
				      "truncated: the cpu %d data ends at "
				      "%llu, the file at %zu",
				      cpu, (unsigned long long)end, c->size);
			goto out;
		}
	}
	ret = 0;
out:
	free(clock_opt);
	free(bufs);
	free(foreign);
	free(tab_end);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Version 7 (trace-cmd's default): sections and compression           */


/* Most one chunk of cpu data may decompress into: 64 MiB (trace-cmd's
 * chunks are 10 pages, ours TD_STAGE_BYTES); and one of the other
 * sections (formats, symbols): 1 GiB. */
#define TD_V7_MAX_CHUNK (64u << 20)
#define TD_V7_MAX_SECTION (1ull << 30)

/* The bytes of chunk headers walked at the open before the mapping's
 * pages go back. */
#define TD_V7_WALK_STEP (1u << 20)

/*
 * The decompressor of the file's algorithm, found with dlopen() (the
 * libraries trace-cmd itself uses), so that reading uncompressed files
 * needs neither.
 */
static int td_v7_algo(struct td_cursor *c, struct td_v7 *z, const char *name)
{
	void *h;

	if (!strcmp(name, "none"))
		return 0;
	z->compressed = true;
	if (!strcmp(name, "zstd")) {
		h = dlopen("libzstd.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (h) {
			z->zstd = (td_zstd_fn)dlsym(h, "ZSTD_decompress");
			z->zstd_err = (td_zstd_err_fn)dlsym(h, "ZSTD_isError");
			/* (optional: a chunk's size is checked when it is
			 * decompressed in any case) */
			z->zstd_size = (td_zstd_size_fn)dlsym(
				h, "ZSTD_getFrameContentSize");
		}
		if (z->zstd && z->zstd_err)
			return 0;
	} else if (!strcmp(name, "zlib")) {
		h = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			z->zlib = (td_zlib_fn)dlsym(h, "uncompress");
		if (z->zlib)
			return 0;
	}
	if (strcmp(name, "zstd") && strcmp(name, "zlib"))
		return td_fail(c, -ENOTSUP,
			       "compression \"%.32s\": only zstd, zlib and "
			       "none are read (convert the file with "
			       "trace-cmd convert --file-version 6 "
			       "--compression none)", name);
	return td_fail(c, -ENOTSUP,
		       "%s-compressed file: no %s to read it with (or "
		       "convert it with trace-cmd convert --file-version 6 "
		       "--compression none)", name,
		       !strcmp(name, "zstd") ? "libzstd.so.1" : "libz.so.1");
}

/* Decompress @n bytes at @src into exactly @want bytes at @dst: true
 * when they do. */
static bool td_v7_unzip(const struct td_v7 *z, const unsigned char *src,
			uint64_t n, unsigned char *dst, uint64_t want)
{
	if (z->zstd) {
		size_t got = z->zstd(dst, want, src, n);

		return !z->zstd_err(got) && got == want;
	}
	if (z->zlib) {
		unsigned long got = (unsigned long)want;

		return !z->zlib(dst, &got, src, (unsigned long)n) &&
		       got == want;
	}
	return false;
}

/* td_v7_unzip(), or the message of data at file offset @at that does
 * not decompress. */
static int td_v7_inflate(struct td_cursor *c, const struct td_v7 *z,
			 const unsigned char *src, uint64_t n,
			 unsigned char *dst, uint64_t want, size_t at)
{
	if (td_v7_unzip(z, src, n, dst, want))
		return 0;
	return td_fail(c, -EPROTO,
		       "compressed data at offset %zu does not decompress "
		       "into its %llu bytes", at, (unsigned long long)want);
}

/**
 * td_v7_section - the content of the section at file offset @off
 * @c: the file's cursor
 * @z: the decompressor
 * @off: the section header's offset
 * @id: the section id expected there
 * @sub: receives a cursor over the content (in the file, or in @mem)
 * @mem: receives the decompressed content to free, or NULL
 *
 * Return: 0 or a negative errno (said in @c).
 */
static int td_v7_section(struct td_cursor *c, const struct td_v7 *z,
			 uint64_t off, unsigned int id, struct td_cursor *sub,
			 unsigned char **mem)
{
	const unsigned char *p;
	uint64_t sid, flags, size, csize, usize;
	size_t at;
	int ret;

	*mem = NULL;
	if (off > c->size)
		return td_fail(c, -EPROTO,
			       "truncated: section %u at offset %llu, the file "
			       "ends at %zu", id, (unsigned long long)off,
			       c->size);
	c->off = (size_t)off;
	ret = td_num(c, 2, "a section id", &sid);
	if (!ret)
		ret = td_num(c, 2, "a section's flags", &flags);
	if (!ret)
		ret = td_take(c, 4, "a section's description", &p);
	if (!ret)
		ret = td_num(c, 8, "a section's size", &size);
	if (ret)
		return ret;
	if (sid != id)
		return td_fail(c, -EPROTO,
			       "section %llu at offset %llu, expected section %u",
			       (unsigned long long)sid, (unsigned long long)off,
			       id);
	at = c->off;
	ret = td_take(c, size, "a section", &p);
	if (ret)
		return ret;
	*sub = (struct td_cursor){ .p = p, .size = (size_t)size,
				   .err = c->err, .errlen = c->errlen };
	if (!(flags & TD_SEC_COMPRESSED))
		return 0;
	if (!z->compressed)
		return td_fail(c, -EPROTO,
			       "a compressed section at offset %llu in a file "
			       "that names no compression",
			       (unsigned long long)off);
	/* the compression header, then the data */
	ret = td_num(sub, 4, "a section's compressed size", &csize);
	if (!ret)
		ret = td_num(sub, 4, "a section's size", &usize);
	if (!ret)
		ret = td_take(sub, csize, "a section's compressed data", &p);
	if (ret)
		return ret;
	if (usize > TD_V7_MAX_SECTION)
		return td_fail(c, -EFBIG,
			       "section %u at offset %llu decompresses into "
			       "%llu bytes, too much to hold", id,
			       (unsigned long long)off,
			       (unsigned long long)usize);
	*mem = malloc(usize ? usize : 1);
	if (!*mem)
		return td_fail(c, -ENOMEM, "out of memory");
	ret = td_v7_inflate(c, z, p, csize, *mem, usize, at);
	if (ret) {
		free(*mem);
		*mem = NULL;
		return ret;
	}
	*sub = (struct td_cursor){ .p = *mem, .size = (size_t)usize,
				   .err = c->err, .errlen = c->errlen };
	return 0;
}

/* Parse the section @id at @off with @fn. */
static int td_v7_parse_section(struct td_reader *r, struct td_cursor *c,
			       uint64_t off, unsigned int id)
{
	struct td_cursor sub;
	unsigned char *mem;
	int ret;

	ret = td_v7_section(c, &r->z, off, id, &sub, &mem);
	if (ret)
		return ret;
	switch (id) {
	case TD_SEC_HEADER:
		ret = td_parse_headers(&sub);
		break;
	case TD_SEC_FTRACE:
		ret = td_parse_ftrace(r, &sub);
		break;
	case TD_SEC_EVENTS:
		ret = td_parse_systems(r, &sub);
		break;
	case TD_SEC_KALLSYMS:
		free(r->kallsyms);
		r->kallsyms = NULL;
		ret = td_sized_text(&sub, 4, "the kallsyms section",
				    &r->kallsyms);
		break;
	case TD_SEC_CMDLINES:
		free(r->cmdlines);
		r->cmdlines = NULL;
		ret = td_sized_text(&sub, 8, "the cmdlines section",
				    &r->cmdlines);
		break;
	default:
		break;
	}
	free(mem);
	return ret;
}

/**
 * struct td_v7_buf - a BUFFER option: one instance's cpu data
 * @name: the instance ("" for the top one)
 * @cpu: per cpu with data: its id
 * @off: its data's offset
 * @size: its data's size in the file
 * @nr: entries
 */
struct td_v7_buf {
	char *name;
	uint32_t *cpu;
	uint64_t *off;
	uint64_t *size;
	uint32_t nr;
};

static void td_v7_bufs_free(struct td_v7_buf *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(b[i].name);
		free(b[i].cpu);
		free(b[i].off);
		free(b[i].size);
	}
	free(b);
}

/* A BUFFER option's data (@sub over it) into @b. */
static int td_v7_buffer(struct td_reader *r, struct td_cursor *sub,
			struct td_v7_buf *b, char **clock)
{
	uint64_t off, ps, n, v;
	char *clk = NULL;
	int ret;

	ret = td_num(sub, 8, "a buffer's offset", &off);
	if (!ret)
		ret = td_cstring(sub, "a buffer's name", &b->name);
	if (!ret)
		ret = td_cstring(sub, "a buffer's clock", &clk);
	if (!ret)
		ret = td_num(sub, 4, "a buffer's page size", &ps);
	if (!ret)
		ret = td_num(sub, 4, "a buffer's cpu count", &n);
	if (ret)
		goto out;
	if (ps != r->page_size) {
		ret = td_fail(sub, -ENOTSUP,
			      "buffer instance \"%s\" has sub-buffers of %llu "
			      "bytes, the file %u: not read", b->name,
			      (unsigned long long)ps, r->page_size);
		goto out;
	}
	/* each cpu takes 20 bytes of the option: the count is bounded */
	if (n > (sub->size - sub->off) / 20 || n > TD_MAX_CPUS) {
		ret = td_fail(sub, -EPROTO, "implausible cpu count %llu in "
			      "buffer \"%s\"", (unsigned long long)n, b->name);
		goto out;
	}
	b->cpu = calloc(n ? n : 1, sizeof(*b->cpu));
	b->off = calloc(n ? n : 1, sizeof(*b->off));
	b->size = calloc(n ? n : 1, sizeof(*b->size));
	if (!b->cpu || !b->off || !b->size) {
		ret = td_fail(sub, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint64_t i = 0; !ret && i < n; i++) {
		v = 0;
		ret = td_num(sub, 4, "a cpu id", &v);
		if (!ret && v >= TD_MAX_CPUS)
			ret = td_fail(sub, -EPROTO, "cpu id %llu in buffer "
				      "\"%s\"", (unsigned long long)v, b->name);
		b->cpu[i] = (uint32_t)v;
		if (!ret)
			ret = td_num(sub, 8, "a cpu's data offset", &b->off[i]);
		if (!ret)
			ret = td_num(sub, 8, "a cpu's data size", &b->size[i]);
	}
	b->nr = (uint32_t)n;
	if (!ret && !b->name[0] && clk[0] && !*clock) {
		*clock = clk;
		clk = NULL;
	}
out:
	free(clk);
	return ret;
}

/* Give back the mapping's whole pages from file offset @start to @end
 * (they are read again from the file when touched). */
static void td_unmap_range(struct td_reader *r, uint64_t start, uint64_t end)
{
	uint64_t sys = r->sys_page;

	if (!sys || !r->map || start > end || end > r->size)
		return;
	start = (start + sys - 1) / sys * sys;
	end = end / sys * sys;
	if (end > start)
		madvise(r->map + start, (size_t)(end - start), MADV_DONTNEED);
}

/*
 * Check one chunk's sizes before anything is decompressed: its data
 * within the file (@d's bounds), at most TD_V7_MAX_CHUNK, and for zstd
 * the size its frame header gives, when it gives one, the chunk's.
 */
static int td_v7_chunk_check(struct td_reader *r, struct td_cursor *c,
			     uint64_t at, uint64_t cs, uint64_t us,
			     const unsigned char *p)
{
	unsigned long long fs;

	/* (no writer makes such chunks: trace-cmd's are 10 pages) */
	if (us > TD_V7_MAX_CHUNK)
		return td_fail(c, -EPROTO,
			       "the chunk at offset %llu says it holds %llu "
			       "bytes, more than the %u a chunk may hold",
			       (unsigned long long)at, (unsigned long long)us,
			       TD_V7_MAX_CHUNK);
	if (!r->z.zstd_size || !us)
		return 0;
	fs = r->z.zstd_size(p, (size_t)cs);
	/* ZSTD_CONTENTSIZE_ERROR: not a zstd frame */
	if (fs == 0ULL - 2)
		return td_fail(c, -EPROTO,
			       "the chunk at offset %llu (%llu bytes) is not "
			       "zstd data", (unsigned long long)at,
			       (unsigned long long)cs);
	/* (ZSTD_CONTENTSIZE_UNKNOWN: checked when decompressed) */
	if (fs != 0ULL - 1 && fs != us)
		return td_fail(c, -EPROTO,
			       "the chunk at offset %llu says it holds %llu "
			       "bytes, its zstd frame %llu",
			       (unsigned long long)at, (unsigned long long)us,
			       fs);
	return 0;
}

/* Add the chunk at file offset @at (@cs bytes, @us decompressed) to the
 * index of @e, which has room for @cap. */
static int td_v7_chunk_add(struct td_reader *r, struct td_cursor *c,
			   struct td_rcpu *e, uint32_t *cap, uint64_t at,
			   uint64_t cs, uint64_t us)
{
	struct td_chunk *k;

	/* (at most the u32 count of the file's chunks: the index's room
	 * doubles up to UINT32_MAX entries) */
	if (e->nr_chunks == *cap) {
		uint32_t n = !*cap		    ? 64 :
			     *cap > UINT32_MAX / 2 ? UINT32_MAX :
						     2 * *cap;

		k = realloc(e->chunks, (size_t)n * sizeof(*k));
		if (!k)
			return td_fail(c, -ENOMEM, "out of memory");
		e->chunks = k;
		*cap = n;
	}
	k = &e->chunks[e->nr_chunks++];
	k->off = at;
	k->start = e->size;
	k->csize = (uint32_t)cs;
	k->usize = (uint32_t)us;
	k->bad = false;
	e->size += us;
	r->stats.chunks++;
	if (us > r->stats.chunk_max)
		r->stats.chunk_max = us;
	return 0;
}

/*
 * A cpu's data: in the file (checked), or compressed: the index of its
 * chunks into @e, built from their headers, nothing decompressed (the
 * pages are, a chunk at a time, when read: td_reader_page()).
 */
static int td_v7_cpu_data(struct td_reader *r, struct td_cursor *c,
			  uint64_t off, uint64_t size, struct td_rcpu *e)
{
	struct td_cursor d;
	const unsigned char *p;
	uint64_t chunks, done = 0;
	uint32_t cap = 0;
	int ret;

	if (!size)
		return 0;
	if (e->size || e->chunks)
		return td_fail(c, -EPROTO,
			       "a cpu listed twice in a buffer option (data at "
			       "offset %llu)", (unsigned long long)off);
	if (off > c->size || size > c->size - off)
		return td_fail(c, -EPROTO,
			       "truncated: cpu data at offset %llu (%llu "
			       "bytes), the file ends at %zu",
			       (unsigned long long)off,
			       (unsigned long long)size, c->size);
	if (!r->z.compressed) {
		if (off % r->page_size || size % r->page_size)
			return td_fail(c, -EPROTO,
				       "cpu data at offset %llu (%llu bytes) "
				       "is not whole pages of %u bytes",
				       (unsigned long long)off,
				       (unsigned long long)size, r->page_size);
		e->offset = off;
		e->size = size;
		return 0;
	}
	/*
	 * The chunks: a count, then (compressed size, size, data) each.
	 * The size the BUFFER option gives leaves the count out (trace-cmd
	 * 3.1): the chunks are bounded by the file, not by it. Each takes
	 * 8 bytes or more of the file: the count is bounded. The chunks of
	 * no data are left out of the index.
	 */
	for (int i = 0; i < TD_READER_CHUNKS; i++)
		e->held[i].chunk = -1;
	d = (struct td_cursor){ .p = c->p + off, .size = c->size - (size_t)off,
				.err = c->err, .errlen = c->errlen };
	ret = td_num(&d, 4, "a chunk count", &chunks);
	for (uint64_t i = 0; !ret && i < chunks; i++) {
		uint64_t cs = 0, us = 0, at;

		ret = td_num(&d, 4, "a chunk's compressed size", &cs);
		if (!ret)
			ret = td_num(&d, 4, "a chunk's size", &us);
		at = off + d.off;
		if (!ret)
			ret = td_take(&d, cs, "a chunk", &p);
		if (!ret)
			ret = td_v7_chunk_check(r, c, at, cs, us, p);
		if (!ret && us)
			ret = td_v7_chunk_add(r, c, e, &cap, at, cs, us);
		/*
		 * The headers read need not stay in memory: the mapping's
		 * pages go back as the walk goes (else a walk over the whole
		 * file would bring it all in)
		 */
		if (d.off - done >= TD_V7_WALK_STEP) {
			td_unmap_range(r, off + done, off + d.off);
			done = d.off;
		}
	}
	td_unmap_range(r, off + done, off + d.off);
	if (ret)
		return ret;
	if (e->size % r->page_size)
		return td_fail(c, -EPROTO,
			       "cpu data at offset %llu decompresses into %llu "
			       "bytes, not whole pages of %u",
			       (unsigned long long)off,
			       (unsigned long long)e->size, r->page_size);
	return 0;
}

/*
 * A version 7 file: the header, then sections found from the options
 * sections (a chain from the offset after the header). The cpu data of
 * the top buffer ("") are the file's cpus; those of other BUFFER options
 * (instances) follow, each with the top buffer's cpu count, shown as
 * their CPUs (td_reader_instance_cpu()).
 */
static int td_parse7(struct td_reader *r, struct td_cursor *c)
{
	struct td_v7_buf *bufs = NULL;
	size_t nr_bufs = 0, top;
	const unsigned char *p;
	char *algo = NULL, *text = NULL, *clock = NULL, *clock_opt = NULL;
	uint64_t next, cpucount = 0, secs[TD_SEC_CMDLINES + 1];
	uint64_t spare_first = UINT64_MAX;
	int ret, ncpu = 0, guard;

	memset(secs, 0, sizeof(secs));
	ret = td_parse_layout(r, c);
	if (ret)
		return ret;
	ret = td_cstring(c, "the compression name", &algo);
	if (!ret)
		ret = td_cstring(c, "the compression version", &text);
	free(text);
	text = NULL;
	if (!ret)
		ret = td_v7_algo(c, &r->z, algo);
	if (!ret)
		ret = td_num(c, 8, "the options offset", &next);
	free(algo);
	if (ret)
		return ret;

	/* the options sections: a chain, each visited once */
	for (guard = 0; next && !ret; guard++) {
		struct td_cursor sub;
		unsigned char *mem;

		if (guard > 4096) {
			ret = td_fail(c, -EPROTO, "options sections loop");
			break;
		}
		ret = td_v7_section(c, &r->z, next, TD_SEC_OPTIONS, &sub,
				    &mem);
		next = 0;
		while (!ret) {
			uint64_t id, size;
			struct td_cursor o;

			ret = td_num(&sub, 2, "an option id", &id);
			if (!ret)
				ret = td_num(&sub, 4, "an option size", &size);
			if (!ret)
				ret = td_take(&sub, size, "an option", &p);
			if (ret)
				break;
			o = (struct td_cursor){ .p = p, .size = (size_t)size,
						.err = c->err,
						.errlen = c->errlen };
			if (id == TD_OPT_DONE) {
				if (size >= 8)
					next = td_get64(p);
				break;
			}
			if (id >= TD_SEC_HEADER && id <= TD_SEC_CMDLINES &&
			    size >= 8) {
				secs[id] = td_get64(p);
			} else if (id == TD_OPT_CPUCOUNT && size >= 4) {
				cpucount = td_get32(p);
			} else if (id == TD_OPT_CPUSTAT) {
				td_cpustat_spare(p, size, &spare_first);
			} else if (id == TD_OPT_BUFFER) {
				struct td_v7_buf *nb = realloc(
					bufs, (nr_bufs + 1) * sizeof(*bufs));

				if (!nb) {
					ret = td_fail(c, -ENOMEM,
						      "out of memory");
					break;
				}
				bufs = nb;
				memset(&bufs[nr_bufs], 0, sizeof(*bufs));
				ret = td_v7_buffer(r, &o, &bufs[nr_bufs++],
						   &clock);
			} else if (id == TD_OPT_BUFFER_TEXT) {
				ret = td_fail(c, -ENOTSUP,
					      "a latency-format trace: only "
					      "flyrecord files are read");
			} else if (id == TD_OPT_TRACECLOCK || id == TD_OPT_UNAME ||
				   id == TD_OPT_RT_OPTIONS ||
				   id == TD_OPT_RT_PROTOS) {
				char **slot = id == TD_OPT_TRACECLOCK ? &clock_opt :
					      id == TD_OPT_UNAME    ? &r->uname :
					      id == TD_OPT_RT_PROTOS ? &r->protos :
								    &r->options;

				free(*slot);
				*slot = NULL;
				ret = td_text(&o, size, "an option", slot);
			}
		}
		free(mem);
	}
	if (ret)
		goto out;
	if (!secs[TD_SEC_HEADER]) {
		ret = td_fail(c, -EPROTO, "no header section");
		goto out;
	}
	for (unsigned int id = TD_SEC_HEADER; !ret && id <= TD_SEC_CMDLINES;
	     id++)
		if (secs[id])
			ret = td_v7_parse_section(r, c, secs[id], id);
	if (ret)
		goto out;

	/* the top buffer's cpus, then each instance's */
	for (top = 0; top < nr_bufs && bufs[top].name[0]; top++)
		;
	ncpu = (int)(cpucount < TD_MAX_CPUS ? cpucount : TD_MAX_CPUS);
	for (size_t b = 0; b < nr_bufs; b++)
		for (uint32_t i = 0; i < bufs[b].nr; i++)
			if ((int)bufs[b].cpu[i] >= ncpu)
				ncpu = (int)bufs[b].cpu[i] + 1;
	if (!ncpu)
		ncpu = 1;
	r->cpus = calloc((size_t)ncpu * (nr_bufs + 1), sizeof(*r->cpus));
	if (!r->cpus) {
		ret = td_fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	r->nr_cpus = r->nr_cpu_bufs = ncpu;
	/* our spares, in a file trace-cmd converted */
	if (spare_first && spare_first < (uint64_t)ncpu)
		r->nr_cpu_bufs = (int)spare_first;
	for (int i = 0; i < ncpu; i++)
		r->cpus[i].inst_cpu = -1;
	for (size_t b = 0; b < nr_bufs && !ret; b++) {
		int base = 0;

		if (b != top) {
			base = r->nr_cpus;
			for (int i = 0; i < ncpu; i++)
				r->cpus[base + i].inst_cpu = i;
			r->nr_cpus += ncpu;
		}
		for (uint32_t i = 0; i < bufs[b].nr && !ret; i++)
			ret = td_v7_cpu_data(r, c, bufs[b].off[i],
					     bufs[b].size[i],
					     &r->cpus[base + (int)bufs[b].cpu[i]]);
	}
	if (ret)
		goto out;
	if (clock_opt)
		r->clock = td_clock_of(clock_opt);
	if (!r->clock && clock)
		r->clock = strdup(clock);
out:
	td_v7_bufs_free(bufs, nr_bufs);
	free(clock);
	free(clock_opt);
	return ret;
}

/**
 * td_reader_free - free a reader and unmap its file
 * @r: the reader
 *
 * Context: any thread.
 */
static void td_reader_free(struct td_reader *r)
{
	for (unsigned int i = 0; i < r->nr_fmts; i++) {
		free(r->fmts[i].system);
		free(r->fmts[i].text);
	}
	free(r->fmts);
	for (int i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct td_rcpu *e = &r->cpus[i];

		for (int k = 0; k < TD_READER_CHUNKS; k++)
			free(e->held[k].mem);
		free(e->chunks);
		free(e->bounce);
	}
	free(r->cpus);
	free(r->clock);
	free(r->kallsyms);
	free(r->cmdlines);
	free(r->uname);
	free(r->options);
	free(r->protos);
	if (r->map)
		munmap(r->map, r->size);
	free(r);
}

int td_reader_open(const char *path, struct td_reader **out, char *err,
		   size_t errlen)
{
	struct td_cursor c = { .err = err, .errlen = errlen };
	struct td_reader *r;
	struct stat st;
	int fd, ret;
	long sys;

	if (err && errlen)
		err[0] = 0;
	if (!out)
		return td_fail(&c, -EINVAL, "no place for the reader");
	*out = NULL;
	if (!path)
		return td_fail(&c, -EINVAL, "no path");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		return td_fail(&c, ret, "%s: %s", path, strerror(-ret));
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return td_fail(&c, ret, "%s: %s", path, strerror(-ret));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return td_fail(&c, -EISDIR, "%s: is a directory", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return td_fail(&c, -EPROTO, "%s: not a regular file", path);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return td_fail(&c, -ENOMEM, "out of memory");
	}
	r->size = (size_t)st.st_size;
	sys = sysconf(_SC_PAGESIZE);
	r->sys_page = sys > 0 ? (uint64_t)sys : 0;
	if (r->size) {
		void *m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			ret = -errno;
			close(fd);
			free(r);
			return td_fail(&c, ret, "%s: mmap: %s", path,
				       strerror(-ret));
		}
		r->map = m;
	}
	close(fd);
	c.p = r->map;
	c.size = r->size;
	ret = td_parse(r, &c);
	if (ret) {
		td_reader_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

unsigned int td_reader_page_size(struct td_reader *r)
{
	return r->page_size;
}

int td_reader_nr_cpus(struct td_reader *r)
{
	return r->nr_cpus;
}

int td_reader_instance_cpu(struct td_reader *r, int cpu)
{
	if (!r || cpu < 0 || cpu >= r->nr_cpus)
		return -1;
	return r->cpus[cpu].inst_cpu;
}

int td_reader_nr_cpu_buffers(struct td_reader *r)
{
	return r->nr_cpu_bufs;
}

const char *td_reader_clock(struct td_reader *r)
{
	return r->clock ? r->clock : "local";
}

const char *td_reader_kallsyms(struct td_reader *r)
{
	return r->kallsyms ? r->kallsyms : "";
}

const char *td_reader_cmdlines(struct td_reader *r)
{
	return r->cmdlines ? r->cmdlines : "";
}

const char *td_reader_trace_options(struct td_reader *r)
{
	return r->options;
}

const char *td_reader_protos(struct td_reader *r)
{
	return r->protos ? r->protos : "";
}

const char *td_reader_uname(struct td_reader *r)
{
	return r->uname ? r->uname : "";
}

const char *td_reader_format(struct td_reader *r, unsigned int i,
			     const char **system)
{
	if (i >= r->nr_fmts)
		return NULL;
	if (system)
		*system = r->fmts[i].system;
	return r->fmts[i].text;
}

uint64_t td_reader_nr_pages(struct td_reader *r, int cpu)
{
	if (cpu < 0 || cpu >= r->nr_cpus)
		return 0;
	return r->cpus[cpu].size / r->page_size;
}

/* The chunk of @e that holds decompressed byte @pos (< @e->size). */
static uint32_t td_chunk_find(struct td_rcpu *e, uint64_t pos)
{
	uint32_t lo = 0, hi = e->nr_chunks;
	const struct td_chunk *k;

	/* going through in order: the last one or the one after it */
	for (uint32_t i = e->hint; i < e->nr_chunks && i <= e->hint + 1; i++) {
		k = &e->chunks[i];
		if (pos >= k->start && pos - k->start < k->usize)
			return e->hint = i;
	}
	/* the last chunk whose start is at or before @pos */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (e->chunks[mid].start <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return e->hint = lo;
}

/* Change the bytes held by @delta (a slot's new size less its old). */
static void td_held_account(struct td_reader *r, int64_t delta)
{
	r->stats.held = (uint64_t)((int64_t)r->stats.held + delta);
	if (r->stats.held > r->stats.peak)
		r->stats.peak = r->stats.held;
}

/* Free the slot @h of @e (its chunk is no longer held). */
static void td_held_drop(struct td_reader *r, struct td_held *h)
{
	td_held_account(r, -(int64_t)h->cap);
	free(h->mem);
	h->mem = NULL;
	h->cap = 0;
	h->chunk = -1;
}

/*
 * Chunk @i of @e decompressed: held already, or decompressed into the
 * slot used longest ago (TD_READER_CHUNKS per cpu buffer). NULL when it
 * does not decompress (then it is marked bad) or there is no memory.
 */
static unsigned char *td_chunk_get(struct td_reader *r, struct td_rcpu *e,
				   uint32_t i)
{
	struct td_chunk *k = &e->chunks[i];
	struct td_held *h = &e->held[0];

	r->tick++;
	for (int s = 0; s < TD_READER_CHUNKS; s++) {
		if (e->held[s].chunk == (int64_t)i) {
			e->held[s].used = r->tick;
			return e->held[s].mem;
		}
		if (e->held[s].used < h->used)
			h = &e->held[s];
	}
	if (k->bad)
		return NULL;
	h->chunk = -1;
	if (h->cap < k->usize) {
		td_held_drop(r, h);
		h->mem = malloc(k->usize);
		if (!h->mem) {
			r->nomem = true;
			return NULL;
		}
		h->cap = k->usize;
		td_held_account(r, (int64_t)h->cap);
	}
	r->nomem = false;
	if (!td_v7_unzip(&r->z, r->map + k->off, k->csize, h->mem, k->usize)) {
		k->bad = true;
		return NULL;
	}
	r->stats.inflated++;
	/*
	 * The compressed bytes are done with: their mapping's pages go
	 * back but for the last, which the next chunk shares (read again
	 * from the file if the chunk is needed again).
	 */
	if (r->sys_page)
		td_unmap_range(r, k->off / r->sys_page * r->sys_page,
			       k->off + k->csize);
	h->chunk = i;
	h->used = r->tick;
	return h->mem;
}

/* A page of a compressed cpu buffer: in its chunk, or copied together
 * from the chunks it spans into @e->bounce. */
static const void *td_zpage(struct td_reader *r, struct td_rcpu *e,
			    uint64_t idx)
{
	uint64_t pos = idx * r->page_size, end = pos + r->page_size;
	uint32_t i = td_chunk_find(e, pos);
	const struct td_chunk *k = &e->chunks[i];
	unsigned char *mem;

	if (end - k->start <= k->usize) {
		mem = td_chunk_get(r, e, i);
		return mem ? mem + (pos - k->start) : NULL;
	}
	if (!e->bounce) {
		e->bounce = malloc(r->page_size);
		if (!e->bounce) {
			r->nomem = true;
			return NULL;
		}
		td_held_account(r, r->page_size);
	}
	/* the chunks cover the data: the loop ends at the page's end */
	for (uint64_t at = pos; at < end; i++) {
		uint64_t n;

		k = &e->chunks[i];
		mem = td_chunk_get(r, e, i);
		if (!mem)
			return NULL;
		n = k->start + k->usize - at;
		if (n > end - at)
			n = end - at;
		memcpy(e->bounce + (at - pos), mem + (at - k->start), n);
		at += n;
	}
	e->hint = td_chunk_find(e, pos);
	return e->bounce;
}

const void *td_reader_page(struct td_reader *r, int cpu, uint64_t idx)
{
	if (idx >= td_reader_nr_pages(r, cpu))
		return NULL;
	if (r->cpus[cpu].chunks)
		return td_zpage(r, &r->cpus[cpu], idx);
	return r->map + r->cpus[cpu].offset + idx * r->page_size;
}

int td_reader_page_error(struct td_reader *r, int cpu, uint64_t idx,
			 uint64_t *pages, const char **msg)
{
	uint64_t pos, end;
	struct td_rcpu *e;

	*pages = 0;
	*msg = NULL;
	if (idx >= td_reader_nr_pages(r, cpu) || !r->cpus[cpu].chunks)
		return 0;
	e = &r->cpus[cpu];
	pos = idx * r->page_size;
	end = pos + r->page_size;
	/* the first bad chunk of the page */
	for (uint32_t i = td_chunk_find(e, pos);
	     i < e->nr_chunks && e->chunks[i].start < end; i++) {
		const struct td_chunk *k = &e->chunks[i];
		uint64_t last = k->start + k->usize;

		if (!k->bad)
			continue;
		*pages = (last + r->page_size - 1) / r->page_size - idx;
		snprintf(r->msg, sizeof(r->msg),
			 "the chunk of cpu %d at offset %llu (%u bytes) does "
			 "not decompress into its %u bytes", cpu,
			 (unsigned long long)k->off, k->csize, k->usize);
		*msg = r->msg;
		return -EPROTO;
	}
	if (!r->nomem)
		return 0;
	*pages = 1;
	snprintf(r->msg, sizeof(r->msg), "out of memory for a chunk of cpu %d",
		 cpu);
	*msg = r->msg;
	return -ENOMEM;
}

void td_reader_stats(struct td_reader *r, struct td_reader_stats *st)
{
	*st = r->stats;
}

void td_reader_release(struct td_reader *r, int cpu, uint64_t first,
		       uint64_t n)
{
	uint64_t nr = td_reader_nr_pages(r, cpu);
	struct td_rcpu *e;

	if (first >= nr)
		return;
	if (n > nr - first)
		n = nr - first;
	e = &r->cpus[cpu];
	if (!e->chunks) {
		td_unmap_range(r, e->offset + first * r->page_size,
			       e->offset + (first + n) * r->page_size);
		return;
	}
	/* the chunks held that lie within the pages */
	for (int s = 0; s < TD_READER_CHUNKS; s++) {
		const struct td_chunk *k;

		if (e->held[s].chunk < 0) {
			if (e->held[s].mem)
				td_held_drop(r, &e->held[s]);
			continue;
		}
		k = &e->chunks[e->held[s].chunk];
		if (k->start >= first * r->page_size &&
		    k->start + k->usize <= (first + n) * r->page_size)
			td_held_drop(r, &e->held[s]);
	}
}

void td_reader_close(struct td_reader *r)
{
	if (r)
		td_reader_free(r);
}
