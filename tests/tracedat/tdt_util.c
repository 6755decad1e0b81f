// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tdt_util.c - helpers of the trace.dat tests (see tdt_util.h).
 */
#include "tdt_util.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ringbuf/event.h>

#include "test.h"

#define TDT_COMMON                                                             \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"      \
	"\tsigned:0;\n"                                                        \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"             \
	"\n"

const char tdt_sample_fmt[] =
	"name: sample\n"
	"ID: 901\n"
	"format:\n" TDT_COMMON
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int value;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:char name[16];\toffset:20;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] msg;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq=%llu value=%d name=%s msg=%s ip=%ps\", REC->seq, "
	"REC->value, REC->name, __get_str(msg), REC->ip\n";

const char tdt_counter_fmt[] =
	"name: counter\n"
	"ID: 902\n"
	"format:\n" TDT_COMMON
	"\tfield:unsigned int count;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:short level;\toffset:12;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char flag;\toffset:14;\tsize:1;\tsigned:0;\n"
	"\tfield:long long big;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"count=%u level=%d flag=0x%x big=%lld\", REC->count, "
	"REC->level, REC->flag, REC->big\n";

const char tdt_print_fmt[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n" TDT_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

const char tdt_kallsyms[] = "0000000000401800 T send_reply\n"
			    "0000000000401000 T td_func_a\n"
			    "0000000000400800 t td_func_mod\t[tdmod]\n"
			    "0000000000401400 T td_func_b\n";

const char tdt_cmdlines[] = "1001 alpha\n1002 beta gamma\n1003 worker-3\n";

static void put(unsigned char *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void common(unsigned char *p, unsigned int type, int pid)
{
	put(p, type, 2);
	p[2] = 0; /* flags */
	p[3] = 0; /* preempt count */
	put(p + 4, (uint32_t)pid, 4);
}

size_t tdt_sample(void *buf, int pid, uint64_t seq, int value, const char *name,
		  const char *msg, uint64_t ip)
{
	unsigned char *p = buf;
	size_t mlen = strlen(msg) + 1, nlen = strlen(name);

	memset(p, 0, 48);
	common(p, TDT_SAMPLE_ID, pid);
	put(p + 8, seq, 8);
	put(p + 16, (uint32_t)value, 4);
	if (nlen > 15)
		nlen = 15; /* the array stays NUL-terminated */
	memcpy(p + 20, name, nlen);
	put(p + 36, (uint32_t)(mlen << 16 | 48), 4);
	put(p + 40, ip, 8);
	memcpy(p + 48, msg, mlen);
	return 48 + mlen;
}

size_t tdt_counter(void *buf, int pid, unsigned int count, short level,
		   unsigned char flag, long long big)
{
	unsigned char *p = buf;

	memset(p, 0, 24);
	common(p, TDT_COUNTER_ID, pid);
	put(p + 8, count, 4);
	put(p + 12, (uint16_t)level, 2);
	p[14] = flag;
	put(p + 16, (uint64_t)big, 8);
	return 24;
}

size_t tdt_print(void *buf, int pid, uint64_t ip, const char *text)
{
	unsigned char *p = buf;
	size_t n = strlen(text) + 1;

	memset(p, 0, 16);
	common(p, TDT_PRINT_ID, pid);
	put(p + 8, ip, 8);
	memcpy(p + 16, text, n);
	return 16 + n;
}

/* ---- pages by hand --------------------------------------------------- */

void tdt_page_init(struct tdt_page *pg, void *mem, unsigned int size,
		   uint64_t ts)
{
	pg->p = mem;
	pg->size = size;
	pg->pos = 0;
	pg->ts = ts;
	memset(mem, 0, size);
	put(pg->p, ts, 8);
}

static unsigned char *room(struct tdt_page *pg, size_t bytes)
{
	unsigned char *at;

	if (bytes > pg->size - RINGBUF_PAGE_HDR_SIZE - pg->pos)
		return NULL;
	at = pg->p + RINGBUF_PAGE_HDR_SIZE + pg->pos;
	pg->pos += (unsigned int)bytes;
	return at;
}

static uint32_t hdr(unsigned int type_len, uint32_t delta)
{
	if (delta >> 27)
		RBT_FAIL("record delta %u does not fit in 27 bits", delta);
	return type_len | delta << 5;
}

bool tdt_page_data(struct tdt_page *pg, uint32_t delta, const void *payload,
		   size_t len)
{
	size_t l = len ? len : 1, al = (l + 3) & ~(size_t)3;
	unsigned char *at;

	if (l <= RINGBUF_MAX_SMALL_DATA) {
		at = room(pg, 4 + al);
		if (!at)
			return false;
		put(at, hdr((unsigned int)(al / 4), delta), 4);
		memcpy(at + 4, payload, len);
	} else {
		at = room(pg, 8 + al);
		if (!at)
			return false;
		put(at, hdr(0, delta), 4);
		put(at + 4, al + 4, 4);
		memcpy(at + 8, payload, len);
	}
	pg->ts += delta;
	return true;
}

bool tdt_page_extend(struct tdt_page *pg, uint64_t delta)
{
	unsigned char *at = room(pg, 8);

	if (!at)
		return false;
	put(at, hdr(RINGBUF_TYPE_TIME_EXTEND, delta & ((1u << 27) - 1)), 4);
	put(at + 4, delta >> 27, 4);
	pg->ts += delta;
	return true;
}

bool tdt_page_stamp(struct tdt_page *pg, uint64_t abs)
{
	unsigned char *at = room(pg, 8);

	if (!at)
		return false;
	put(at, hdr(RINGBUF_TYPE_TIME_STAMP, abs & ((1u << 27) - 1)), 4);
	put(at + 4, abs >> 27, 4);
	pg->ts = abs;
	return true;
}

bool tdt_page_discard(struct tdt_page *pg, uint32_t delta, unsigned int bytes)
{
	unsigned char *at;

	if (!delta || bytes < 8 || bytes % 4)
		RBT_FAIL("tdt_page_discard(delta %u, %u bytes)", delta, bytes);
	at = room(pg, bytes);
	if (!at)
		return false;
	put(at, hdr(RINGBUF_TYPE_PADDING, delta), 4);
	put(at + 4, bytes - 4, 4);
	memset(at + 8, 0xdd, bytes - 8);
	pg->ts += delta;
	return true;
}

void tdt_page_finish(struct tdt_page *pg, uint64_t missed)
{
	uint64_t commit = pg->pos;

	if (missed) {
		commit |= RINGBUF_MISSED_EVENTS;
		if (missed != (uint64_t)-1) {
			if (pg->size - RINGBUF_PAGE_HDR_SIZE - pg->pos < 8)
				RBT_FAIL("no room for the missed count");
			commit |= RINGBUF_MISSED_STORED;
			put(pg->p + RINGBUF_PAGE_HDR_SIZE + pg->pos, missed, 8);
		}
	}
	put(pg->p + 8, commit, 8);
}

/* ---- records of a file ------------------------------------------------ */

void tdt_recs_add(struct tdt_recs *r, int cpu, uint64_t ts, const void *data,
		  unsigned int len, unsigned long missed)
{
	struct tdt_rec *e;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct tdt_rec *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			RBT_FAIL("out of memory");
		r->v = v;
		r->cap = cap;
	}
	e = &r->v[r->n++];
	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->ts = ts;
	e->len = len;
	e->missed = missed;
	memcpy(e->data, data, len < sizeof(e->data) ? len : sizeof(e->data));
}

void tdt_recs_free(struct tdt_recs *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* td_page_for_each() stores the page's loss in @missed before the first
 * callback; the page's first record takes it. */
struct read_ctx {
	struct tdt_recs *out;
	int cpu;
	unsigned long missed;
};

static void read_cb(const struct td_record *rec, void *arg)
{
	struct read_ctx *c = arg;

	tdt_recs_add(c->out, c->cpu, rec->ts, rec->data, rec->len, c->missed);
	c->missed = 0;
}

void tdt_read_file(const char *path, struct tdt_recs *out)
{
	struct td_reader *r;
	char err[256];
	int ret;

	ret = td_reader_open(path, &r, err, sizeof(err));
	if (ret)
		RBT_FAIL("td_reader_open(%s) = %d: %s", path, ret, err);
	for (int cpu = 0; cpu < td_reader_nr_cpus(r); cpu++) {
		struct read_ctx c = { .out = out, .cpu = cpu };
		uint64_t n = td_reader_nr_pages(r, cpu);

		for (uint64_t i = 0; i < n; i++) {
			const void *pg = td_reader_page(r, cpu, i);

			ASSERT_NOT_NULL(pg);
			ret = td_page_for_each(pg, td_reader_page_size(r),
					       read_cb, &c.missed, &c);
			if (ret)
				RBT_FAIL("%s: cpu %d page %llu: %d", path, cpu,
					 (unsigned long long)i, ret);
		}
		ASSERT_NULL(td_reader_page(r, cpu, n));
	}
	td_reader_close(r);
}

size_t tdt_write_small(const char *path)
{
	const unsigned int psz = 4096;
	unsigned char *mem = malloc(psz), buf[512];
	struct td_writer *w;
	struct tdt_page pg;
	size_t n = 0, len;
	uint64_t ts = 5000000000ULL;

	ASSERT_NOT_NULL(mem);
	ASSERT_EQ(td_writer_open(path, psz, 2, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_sample_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "ftrace", tdt_print_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_kallsyms(w, tdt_kallsyms), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	ASSERT_EQ(td_writer_set_uname(w, "Linux tdtest 6.1.0 x86_64"), 0);

	/* cpu 0, page 1: small and long records, a discarded one */
	tdt_page_init(&pg, mem, psz, ts);
	for (int i = 0; i < 6; i++, n++) {
		len = tdt_sample(buf, 1001, (uint64_t)i, i - 3, "small",
				 i % 2 ? "a message long enough to need a "
					 "long record of more than 112 bytes, "
					 "with its length in array[0]" :
					 "short",
				 TDT_SYM_A + (uint64_t)i);
		ASSERT_TRUE(tdt_page_data(&pg, i ? 1000 : 0, buf, len));
		if (i == 2)
			ASSERT_TRUE(tdt_page_discard(&pg, 17, 40));
	}
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);
	ts = pg.ts;

	/* cpu 0, page 2: after lost events (count stored), time extend */
	tdt_page_init(&pg, mem, psz, ts + 500);
	len = tdt_counter(buf, 1002, 7, 2, 0x5a, -1234567890123LL);
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, len));
	n++;
	ASSERT_TRUE(tdt_page_extend(&pg, (1ULL << 27) * 3 + 12345));
	len = tdt_print(buf, 1003, TDT_SYM_LAST + 0x10, "hello");
	ASSERT_TRUE(tdt_page_data(&pg, 7, buf, len));
	n++;
	tdt_page_finish(&pg, 42);
	ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);

	/* cpu 1: an absolute stamp, lost events without a count */
	tdt_page_init(&pg, mem, psz, 5000000100ULL);
	len = tdt_counter(buf, 0, 1, 2, 3, 4);
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, len));
	n++;
	ASSERT_TRUE(tdt_page_stamp(&pg, 5100000000ULL));
	len = tdt_sample(buf, 4242, 99, 1, "unknown-pid", "m", TDT_SYM_MOD + 4);
	ASSERT_TRUE(tdt_page_data(&pg, 3, buf, len));
	n++;
	tdt_page_finish(&pg, (uint64_t)-1);
	ASSERT_EQ(td_writer_add_page(w, 1, mem), 0);

	ASSERT_EQ(td_writer_close(w), 0);
	free(mem);
	return n;
}

/* ---- version 7 files -------------------------------------------------- */

static uint64_t le(const unsigned char *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The end of the string at @at, past its NUL, or 0. */
static size_t skip_str(const unsigned char *b, size_t n, size_t at)
{
	const unsigned char *z = at < n ? memchr(b + at, 0, n - at) : NULL;

	return z ? (size_t)(z - b) + 1 : 0;
}

size_t tdt_v7_cpu_entry(const unsigned char *b, size_t n, int cpu)
{
	/* magic, "7", endianness, long size, page size; the compression */
	size_t at = skip_str(b, n, 18);
	uint64_t next;

	at = at ? skip_str(b, n, at) : 0;
	if (!at || at + 8 > n)
		return 0;
	next = le(b + at, 8);
	/* the options sections: id, flags, description, size, options */
	for (int guard = 0; next && next + 16 <= n && guard < 64; guard++) {
		size_t o = (size_t)next + 16, end;
		uint64_t len = le(b + next + 8, 8);

		if (le(b + next, 2) != 0 || le(b + next + 2, 2) != 0 ||
		    len > n - o)
			return 0;
		end = o + (size_t)len;
		next = 0;
		while (o + 6 <= end) {
			uint64_t id = le(b + o, 2), size = le(b + o + 2, 4);
			size_t d = o + 6, p;

			if (size > end - d)
				return 0;
			o = d + (size_t)size;
			if (id == 0) {
				next = size >= 8 ? le(b + d, 8) : 0;
				break;
			}
			if (id != 3)
				continue;
			/* BUFFER: offset, name, clock, page size, count */
			if (d + 8 >= n || b[d + 8])
				continue; /* an instance's */
			/* (the name is "": its clock at d + 9) */
			p = skip_str(b, n, d + 9);
			if (!p || p + 8 > n)
				return 0;
			for (uint64_t i = 0, k = le(b + p + 4, 4); i < k; i++) {
				size_t e = p + 8 + (size_t)i * 20;

				if (e + 20 > n)
					return 0;
				if (le(b + e, 4) == (uint64_t)cpu)
					return e + 4;
			}
		}
	}
	return 0;
}

unsigned char *tdt_slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long len;

	if (!f)
		RBT_FAIL("%s: %s", path, strerror(errno));
	ASSERT_EQ(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	ASSERT_GE(len, 0);
	rewind(f);
	b = malloc(len ? (size_t)len : 1);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return b;
}

void tdt_spill(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		RBT_FAIL("%s: %s", path, strerror(errno));
	ASSERT_EQ(fwrite(b, 1, n, f), n);
	ASSERT_EQ(fclose(f), 0);
}

/* ---- files and programs ------------------------------------------------ */

void tdt_mkdir(char *dir, size_t len)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, len, "%s/tdtest-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(dir))
		RBT_FAIL("mkdtemp(%s): %s", dir, strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tdt_rmdir(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tdt_trace_cmd(void)
{
	static const char *const paths[] = { "/usr/bin/trace-cmd",
					     "/usr/local/bin/trace-cmd" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

char *tdt_run(const char *cmd, int *status)
{
	size_t len = 0, cap = 65536;
	char *out = malloc(cap);
	FILE *f;
	size_t n;
	int st;

	ASSERT_NOT_NULL(out);
	fflush(stdout);
	f = popen(cmd, "r");
	if (!f)
		RBT_FAIL("popen(%s): %s", cmd, strerror(errno));
	while ((n = fread(out + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			out = realloc(out, cap);
			ASSERT_NOT_NULL(out);
		}
	}
	out[len] = 0;
	st = pclose(f);
	if (st == -1)
		RBT_FAIL("pclose(%s): %s", cmd, strerror(errno));
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return out;
}
