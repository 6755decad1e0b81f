// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace.dat reader and the page decoder on bad input: every truncation
 * of a valid file, every header byte flipped, cpu tables pointing
 * anywhere, headers of other versions and layouts, random files, random
 * pages and random valid pages. The reader must refuse what it cannot use
 * with a message (never crash, never read outside the file), and the
 * decoder must stay inside the page: pages are allocated at their exact
 * size, so an ASan build (-DRINGBUF_SANITIZE=asan) catches any stray read;
 * the callbacks check the bounds in every build. Seeded: RB_TEST_SEED
 * replays a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ringbuf/event.h>

#include "tdt_util.h"
#include "test.h"

#define PSZ 4096u

/* Sanitizer builds run fewer iterations (RB_TIMEOUT_MULT > 1). */
static unsigned int iters(unsigned int n)
{
	return rbt_timeout_mult() > 1 ? n / 4 : n;
}

struct file {
	char dir[128];
	char path[256];
	unsigned char *bytes;
	size_t size;
	size_t data_start; /* the first data page */
	size_t table; /* the cpu table */
};

static void load(struct file *f)
{
	f->bytes = tdt_slurp(f->path, &f->size);
}

/* A valid file (tdt_write_small) and where its parts are. */
static void valid_file(struct file *f)
{
	unsigned char *fly;

	tdt_mkdir(f->dir, sizeof(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/f.dat", f->dir);
	tdt_write_small(f->path);
	load(f);
	fly = memmem(f->bytes, f->size, "flyrecord", 10);
	ASSERT_NOT_NULL(fly);
	f->table = (size_t)(fly - f->bytes) + 10;
	f->data_start = (f->table + 32 + PSZ - 1) / PSZ * PSZ;
	ASSERT_EQ(f->size, f->data_start + 3 * PSZ);
}

static void file_free(struct file *f)
{
	free(f->bytes);
	tdt_rmdir(f->dir);
}

struct walk {
	const unsigned char *page;
	unsigned int size;
	size_t records;
	size_t matched; /* records of a type of walk_types[] */
};

/* The types td_page_count() is asked to count apart, as record counts
 * the function tracers' records. */
static const int walk_types[3] = { 1, 10, 21 };

/* Where the payload bytes go (so that reading them is not optimised out). */
static volatile unsigned int g_sink;

/* Chunks of compressed files try_open() found not to decompress. */
static size_t g_bad_chunks;

static void bounds_cb(const struct td_record *rec, void *arg)
{
	struct walk *w = arg;
	const unsigned char *d = rec->data;

	if (d < w->page + RINGBUF_PAGE_HDR_SIZE || rec->len > w->size ||
	    d + rec->len > w->page + w->size)
		RBT_FAIL("record of %u bytes at page offset %td is outside "
			 "the %u-byte page",
			 rec->len, d - w->page, w->size);
	/* read every byte: ASan checks them */
	for (unsigned int i = 0; i < rec->len; i++)
		g_sink += d[i];
	w->records++;
	if (rec->len >= 2) {
		uint16_t type;

		memcpy(&type, d, sizeof(type));
		w->matched += type == walk_types[0] || type == walk_types[1] ||
			      type == walk_types[2];
	}
}

/* Open @path; on success use everything the reader hands out. Returns the
 * open's result; a failure must come with a message. */
static int try_open(const char *path)
{
	struct td_reader *r = NULL;
	char err[512];
	const char *sys, *t;
	int ret;

	memset(err, 0, sizeof(err));
	ret = td_reader_open(path, &r, err, sizeof(err));
	if (ret) {
		ASSERT_NULL(r);
		if (!err[0])
			RBT_FAIL("td_reader_open(%s) = %d without a message",
				 path, ret);
		if (ret != -EPROTO && ret != -ENOTSUP && ret != -ENOMEM &&
		    ret != -EFBIG)
			RBT_FAIL("td_reader_open(%s) = %d: %s", path, ret, err);
		return ret;
	}
	ASSERT_NOT_NULL(r);
	for (unsigned int i = 0; (t = td_reader_format(r, i, &sys)); i++)
		ASSERT_TRUE(strlen(t) + strlen(sys) < (1u << 30));
	ASSERT_TRUE(strlen(td_reader_kallsyms(r)) +
			    strlen(td_reader_cmdlines(r)) +
			    strlen(td_reader_clock(r)) +
			    strlen(td_reader_uname(r)) <
		    (1u << 30));
	for (int c = 0; c < td_reader_nr_cpus(r); c++) {
		uint64_t n = td_reader_nr_pages(r, c);

		for (uint64_t i = 0; i < n; i++) {
			struct walk w = { td_reader_page(r, c, i),
					  td_reader_page_size(r), 0, 0 };
			unsigned long missed;
			const char *msg;
			uint64_t bad;

			/* a compressed chunk that does not decompress: said */
			if (!w.page) {
				ASSERT_EQ(td_reader_page_error(r, c, i, &bad,
							       &msg),
					  -EPROTO);
				ASSERT_NOT_NULL(msg);
				ASSERT_TRUE(strstr(msg, "does not decompress"));
				ASSERT_TRUE(bad >= 1 && bad <= n - i);
				g_bad_chunks++;
				i += bad - 1;
				continue;
			}
			ret = td_page_for_each(w.page, w.size, bounds_cb,
					       &missed, &w);
			ASSERT_TRUE(ret == 0 || ret == -EPROTO);
		}
	}
	td_reader_close(r);
	return 0;
}

/* Every length from 0 to the whole file: only the whole file opens. */
static void truncated(void)
{
	struct file f;
	size_t tested = 0;
	char err[256];
	int fd;

	valid_file(&f);
	fd = open(f.path, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(try_open(f.path), 0);
	for (size_t len = f.size; len-- > 0;) {
		struct td_reader *r;
		int ret;

		/* every byte of the header, every 61st of the data, and
		 * around each page boundary */
		if (len > f.data_start + 8 && len % 61 && (len + 8) % PSZ > 16)
			continue;
		ASSERT_EQ(ftruncate(fd, (off_t)len), 0);
		ret = try_open(f.path);
		if (ret != -EPROTO)
			RBT_FAIL("a file cut at %zu of %zu: %d", len, f.size,
				 ret);
		tested++;
		if (len == f.size - 1 || len == f.data_start + 2 * PSZ) {
			ASSERT_EQ(td_reader_open(f.path, &r, err, sizeof(err)),
				  -EPROTO);
			if (!strstr(err, "truncated: the cpu ") ||
			    !strstr(err, "data ends at"))
				RBT_FAIL("message: %s", err);
		}
	}
	close(fd);
	rbt_note("%zu truncations of a %zu-byte file", tested, f.size);
	file_free(&f);
}

/* Every byte before the data, flipped four ways. */
static void corrupt_header(void)
{
	static const unsigned char masks[] = { 0x01, 0x10, 0x80, 0xff };
	size_t opened = 0, refused = 0;
	struct file f;
	int fd;

	valid_file(&f);
	fd = open(f.path, O_WRONLY);
	ASSERT_GE(fd, 0);
	for (size_t off = 0; off < f.data_start; off++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			unsigned char b = f.bytes[off] ^ masks[m];

			ASSERT_EQ(pwrite(fd, &b, 1, (off_t)off), 1);
			if (try_open(f.path))
				refused++;
			else
				opened++;
		}
		ASSERT_EQ(pwrite(fd, &f.bytes[off], 1, (off_t)off), 1);
	}
	close(fd);
	rbt_note("%zu corrupt headers: %zu refused, %zu opened",
		 opened + refused, refused, opened);
	/* the magic, the version and the tags are checked */
	ASSERT_GT(refused, 100);
	file_free(&f);
}

/*
 * Version 7 files as trace-cmd writes them (the valid file converted,
 * zstd-compressed and not): every truncation, every byte flipped and
 * random bytes written over them are refused with a message or read
 * within bounds.
 */
static void v7_files(void)
{
	static const char *const how[] = { "", "--compression none" };
	struct file f;
	char cmd[1024], v7[300];
	size_t opened = 0, refused = 0;
	int st;

	if (!tdt_trace_cmd()) {
		rbt_note("trace-cmd is not installed: no version 7 file");
		return;
	}
	valid_file(&f);
	snprintf(v7, sizeof(v7), "%s/v7.dat", f.dir);
	for (size_t h = 0; h < sizeof(how) / sizeof(how[0]); h++) {
		unsigned char *b;
		size_t n;
		int fd;

		snprintf(cmd, sizeof(cmd),
			 "%s convert -i %s -o %s --file-version 7 %s 2>&1",
			 tdt_trace_cmd(), f.path, v7, how[h]);
		free(tdt_run(cmd, &st));
		ASSERT_EQ(st, 0);
		ASSERT_EQ(try_open(v7), 0);
		fd = open(v7, O_RDWR);
		ASSERT_GE(fd, 0);
		n = (size_t)lseek(fd, 0, SEEK_END);
		b = malloc(n);
		ASSERT_NOT_NULL(b);
		ASSERT_EQ(pread(fd, b, n, 0), (ssize_t)n);
		/* byte flips in the first 64 KiB, then random runs */
		for (size_t off = 0; off < n && off < 65536;
		     off += off < 4096 ? 1 : 61) {
			unsigned char x = b[off] ^ 0xff;

			ASSERT_EQ(pwrite(fd, &x, 1, (off_t)off), 1);
			if (try_open(v7))
				refused++;
			else
				opened++;
			ASSERT_EQ(pwrite(fd, &b[off], 1, (off_t)off), 1);
		}
		for (unsigned int i = 0; i < iters(400); i++) {
			unsigned char junk[16];
			size_t off = rbt_rand() % n, k;

			for (k = 0; k < sizeof(junk); k++)
				junk[k] = (unsigned char)rbt_rand();
			k = n - off < sizeof(junk) ? n - off : sizeof(junk);
			ASSERT_EQ(pwrite(fd, junk, k, (off_t)off), (ssize_t)k);
			if (try_open(v7))
				refused++;
			else
				opened++;
			ASSERT_EQ(pwrite(fd, b + off, k, (off_t)off),
				  (ssize_t)k);
		}
		/* every length of the first 4 KiB, every 97th after */
		for (size_t len = n; len > 0;) {
			len -= len > 4096 + 97 ? 97 : 1;
			ASSERT_EQ(ftruncate(fd, (off_t)len), 0);
			if (try_open(v7))
				refused++;
			else
				opened++;
		}
		close(fd);
		free(b);
		unlink(v7);
	}
	rbt_note("%zu damaged version 7 files: %zu refused, %zu opened (%zu "
		 "chunks found not to decompress when read)",
		 opened + refused, refused, opened, g_bad_chunks);
	ASSERT_GT(refused, 100);
	file_free(&f);
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The cpu table pointing anywhere. */
static void corrupt_tables(void)
{
	static const struct {
		uint64_t off;
		uint64_t size;
		const char *msg;
	} bad[] = {
		{ 1, PSZ, "whole pages" },
		{ 0x10000 + 1, PSZ, "whole pages" },
		{ 0x10000, PSZ + 1, "whole pages" },
		{ 0x10000, 8, "whole pages" },
		{ 0, PSZ, "overlaps the header" },
		{ UINT64_MAX - PSZ + 1, 2 * PSZ, "truncated: the cpu" },
		{ UINT64_MAX - PSZ + 1, PSZ, "truncated: the cpu" },
		{ 1ULL << 40, PSZ, "truncated: the cpu" },
		{ PSZ, UINT64_MAX - PSZ + 1, "truncated: the cpu" },
	};
	unsigned char *copy;
	struct file f;
	char err[256];

	valid_file(&f);
	copy = malloc(f.size);
	ASSERT_NOT_NULL(copy);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int cpu = 0; cpu < 2; cpu++) {
			struct td_reader *r;

			memcpy(copy, f.bytes, f.size);
			put64(copy + f.table + 16 * cpu, bad[i].off);
			put64(copy + f.table + 16 * cpu + 8, bad[i].size);
			tdt_spill(f.path, copy, f.size);
			ASSERT_EQ(td_reader_open(f.path, &r, err, sizeof(err)),
				  -EPROTO);
			if (!strstr(err, bad[i].msg))
				RBT_FAIL("entry %zu on cpu %d: \"%s\"", i, cpu,
					 err);
		}
	}
	/* random entries: refused or read, never a crash */
	for (unsigned int n = 0; n < iters(4000); n++) {
		memcpy(copy, f.bytes, f.size);
		for (int cpu = 0; cpu < 2; cpu++) {
			uint64_t o = rbt_rand() % 4 ?
					     rbt_rand_range(0, 8) * PSZ :
					     rbt_rand();
			uint64_t s = rbt_rand() % 4 ?
					     rbt_rand_range(0, 8) * PSZ :
					     rbt_rand();

			put64(copy + f.table + 16 * cpu, o);
			put64(copy + f.table + 16 * cpu + 8, s);
		}
		tdt_spill(f.path, copy, f.size);
		try_open(f.path);
	}
	free(copy);
	file_free(&f);
}

static void expect_refused(const char *path, int want, const char *needle)
{
	struct td_reader *r = (struct td_reader *)&r;
	char err[256] = "";
	int ret;

	ret = td_reader_open(path, &r, err, sizeof(err));
	ASSERT_NULL(r);
	if (ret != -want || !strstr(err, needle))
		RBT_FAIL("%s: %d \"%s\", expected %d with \"%s\"", path, ret,
			 err, -want, needle);
}

/* Headers of other versions and layouts, other kinds of files. */
static void bad_headers(void)
{
	static const struct {
		size_t off;
		const char *bytes;
		size_t n;
		int err;
		const char *msg;
	} cases[] = {
		{ 0, "\x17\x08\x45", 3, EPROTO, "bad magic" },
		{ 3, "tracinG", 7, EPROTO, "bad magic" },
		/* version 7: what follows the header is no compression
		 * name it knows */
		{ 10, "7", 1, ENOTSUP, "compression \"header_page\": only" },
		{ 10, "8", 1, ENOTSUP,
		  "version 8 files: convert with trace-cmd convert "
		  "--file-version 6 --compression none" },
		{ 10, "5", 1, ENOTSUP, "only version 6" },
		{ 10, "x", 1, EPROTO, "bad version" },
		{ 10, "", 1, EPROTO, "bad version" },
		{ 12, "\x01", 1, ENOTSUP, "big-endian" },
		{ 12, "\x02", 1, EPROTO, "endianness" },
		{ 13, "\x04", 1, ENOTSUP, "long size 4" },
		{ 13, "\x00", 1, EPROTO, "long size 0" },
		{ 14, "\x00\x00\x00\x00", 4, EPROTO, "bad page size 0 " },
		{ 14, "\xb8\x0b\x00\x00", 4, EPROTO, "bad page size 3000" },
		{ 14, "\x01\x10\x00\x00", 4, EPROTO, "bad page size 4097" },
		{ 14, "\x00\x08\x00\x00", 4, EPROTO, "bad page size 2048" },
		{ 14, "\x00\x00\x20\x00", 4, EPROTO, "bad page size 2097152" },
		{ 18, "header_pagE", 11, EPROTO, "expected \"header_page\"" },
	};
	char path[300], dir2[300];
	unsigned char *copy;
	struct file f;
	unsigned char *fly;

	valid_file(&f);
	copy = malloc(f.size);
	ASSERT_NOT_NULL(copy);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(copy, f.bytes, f.size);
		memcpy(copy + cases[i].off, cases[i].bytes, cases[i].n);
		tdt_spill(f.path, copy, f.size);
		expect_refused(f.path, cases[i].err, cases[i].msg);
	}
	/* a latency trace instead of a flyrecord one */
	memcpy(copy, f.bytes, f.size);
	fly = memmem(copy, f.size, "flyrecord", 10);
	memcpy(fly, "latency  ", 10);
	tdt_spill(f.path, copy, f.size);
	expect_refused(f.path, ENOTSUP, "latency");
	memcpy(fly, "flyrecorx", 10);
	tdt_spill(f.path, copy, f.size);
	expect_refused(f.path, EPROTO, "expected \"flyrecord\"");

	/* other files */
	tdt_spill(f.path, "", 0);
	expect_refused(f.path, EPROTO, "truncated");
	snprintf(path, sizeof(path), "%s/none.dat", f.dir);
	expect_refused(path, ENOENT, "No such file");
	expect_refused(f.dir, EISDIR, "directory");
	snprintf(dir2, sizeof(dir2), "%s/fifo", f.dir);
	ASSERT_EQ(mkfifo(dir2, 0600), 0);
	expect_refused(dir2, EPROTO, "not a regular file");
	if (geteuid() != 0) {
		tdt_spill(f.path, f.bytes, f.size);
		ASSERT_EQ(chmod(f.path, 0), 0);
		expect_refused(f.path, EACCES, "Permission denied");
	}
	/* NULL arguments */
	{
		struct td_reader *r = (struct td_reader *)&r;

		ASSERT_EQ(td_reader_open(NULL, &r, NULL, 0), -EINVAL);
		ASSERT_NULL(r);
		ASSERT_EQ(td_reader_open(f.path, NULL, NULL, 0), -EINVAL);
	}
	td_reader_close(NULL);
	free(copy);
	file_free(&f);
}

/* A valid beginning and random bytes after it; or random flips anywhere. */
static void random_files(void)
{
	size_t opened = 0;
	unsigned char *copy;
	struct file f;

	valid_file(&f);
	copy = malloc(f.size + PSZ);
	ASSERT_NOT_NULL(copy);
	for (unsigned int n = 0; n < iters(3000); n++) {
		size_t len;

		if (n % 2) {
			size_t keep = (size_t)rbt_rand_range(0, f.data_start);

			len = (size_t)rbt_rand_range(keep, f.size + PSZ);
			memcpy(copy, f.bytes, keep);
			for (size_t i = keep; i < len; i++)
				copy[i] = (unsigned char)rbt_rand();
		} else {
			unsigned int flips = (unsigned int)rbt_rand_range(1, 8);

			len = f.size;
			memcpy(copy, f.bytes, f.size);
			while (flips--)
				copy[rbt_rand_range(0, f.size - 1)] ^=
					(unsigned char)rbt_rand_range(1, 255);
		}
		tdt_spill(f.path, copy, len);
		if (!try_open(f.path))
			opened++;
	}
	rbt_note("%zu of %u random files opened", opened, iters(3000));
	free(copy);
	file_free(&f);
}

/* ---- pages --------------------------------------------------------------- */

static int walk_page(const unsigned char *page, unsigned int size)
{
	struct walk w = { page, size, 0, 0 };
	struct td_count c = { 0, 0, { walk_types[0], walk_types[1],
				      walk_types[2] } };
	unsigned long missed, cmissed, hmissed;
	int ret, hret;

	ret = td_page_for_each(page, size, bounds_cb, &missed, &w);
	if (ret && ret != -EPROTO && !(ret == -EINVAL && size < 16))
		RBT_FAIL("td_page_for_each = %d", ret);
	/* the recorder's walk: the same answer, the same records */
	ASSERT_EQ(td_page_count(page, size, &c, &cmissed), ret);
	ASSERT_EQ(c.records, w.records);
	ASSERT_EQ(c.matched, w.matched);
	ASSERT_EQ(cmissed, missed);
	/* the header alone (a page checked where it was read): the same
	 * loss, or the walk's error where the header is bad */
	hret = td_page_missed(page, size, &hmissed);
	if (hret)
		ASSERT_EQ(ret, hret);
	else
		ASSERT_EQ(hmissed, missed);
	return ret;
}

/* Random bytes, with the commit made plausible most of the time. */
static void random_pages(void)
{
	static const unsigned int sizes[] = { 0,  8,  15, 16, 17,  20,
					      24, 28, 32, 64, 100, 4096 };
	size_t ok = 0;

	for (unsigned int n = 0; n < iters(40000); n++) {
		unsigned int size =
			sizes[n % (sizeof(sizes) / sizeof(sizes[0]))];
		unsigned char *p = malloc(size ? size : 1);

		ASSERT_NOT_NULL(p);
		for (unsigned int i = 0; i < size; i++)
			p[i] = (unsigned char)rbt_rand();
		if (size > 16 && rbt_rand() % 4) {
			uint64_t commit = rbt_rand_range(0, size - 16);

			commit |= rbt_rand() & (RINGBUF_MISSED_EVENTS |
						RINGBUF_MISSED_STORED);
			put64(p + 8, commit);
			/* small type_len values make long walks */
			for (unsigned int i = 16; i + 4 <= size; i += 4)
				if (rbt_rand() % 2)
					p[i] = (unsigned char)(p[i] & 0xe7);
		}
		if (!walk_page(p, size))
			ok++;
		free(p);
	}
	rbt_note("%zu random pages decoded", ok);
	ASSERT_GT(ok, 0);
}

struct got {
	unsigned int n;
	const unsigned char *page;
	struct {
		uint64_t ts;
		unsigned int off;
		unsigned int len;
	} v[1024];
};

static void got_cb(const struct td_record *rec, void *arg)
{
	struct got *g = arg;

	if (g->n == 1024)
		RBT_FAIL("more than 1024 records");
	g->v[g->n].ts = rec->ts;
	g->v[g->n].off = (unsigned int)((const unsigned char *)rec->data -
					g->page - RINGBUF_PAGE_HDR_SIZE);
	g->v[g->n].len = rec->len;
	g->n++;
}

/* Random valid pages decode to exactly what was built; mutated ones stay
 * in bounds. */
static void random_valid_pages(void)
{
	struct {
		uint64_t ts;
		unsigned int off;
		unsigned int len;
	} want[1024];
	unsigned char payload[600];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)(i * 7 + 1);
	for (unsigned int n = 0; n < iters(6000); n++) {
		unsigned int size = n % 3 ? PSZ : 8192;
		unsigned char *p = malloc(size);
		static struct got got;
		struct tdt_page pg;
		unsigned int nw = 0;
		uint64_t missed = 0;
		unsigned long m;

		ASSERT_NOT_NULL(p);
		tdt_page_init(&pg, p, size, rbt_rand() >> 8);
		for (;;) {
			unsigned int kind = (unsigned int)rbt_rand_range(0, 9);
			unsigned int at = pg.pos;
			bool fit;

			if (kind <= 5) {
				size_t len = (size_t)rbt_rand_range(0, 300);
				uint32_t delta = (uint32_t)rbt_rand_range(
					0, (1u << 27) - 1);

				fit = tdt_page_data(&pg, delta, payload, len);
				if (fit) {
					size_t l = len ? len : 1;

					want[nw].ts = pg.ts;
					want[nw].off = at + (l > 112 ? 8 : 4);
					want[nw].len =
						(unsigned int)((l + 3) & ~3u);
					nw++;
				}
			} else if (kind == 6) {
				fit = tdt_page_extend(&pg, rbt_rand() >> 20);
			} else if (kind == 7) {
				fit = tdt_page_stamp(&pg, rbt_rand() >> 8);
			} else {
				fit = tdt_page_discard(
					&pg, (uint32_t)rbt_rand_range(1, 1000),
					(unsigned int)rbt_rand_range(2, 40) *
						4);
			}
			if (!fit || nw == 1024)
				break;
		}
		if (rbt_rand() % 3 == 0)
			missed = rbt_rand() % 2 ? (uint64_t)-1 :
						  rbt_rand_range(1, 1000);
		if (missed && missed != (uint64_t)-1 && size - 16 - pg.pos < 8)
			missed = (uint64_t)-1;
		tdt_page_finish(&pg, missed);

		got.n = 0;
		got.page = p;
		ASSERT_EQ(td_page_for_each(p, size, got_cb, &m, &got), 0);
		ASSERT_EQ(m, missed == (uint64_t)-1 ? TD_MISSED_UNKNOWN :
						      (unsigned long)missed);
		ASSERT_EQ(got.n, nw);
		for (unsigned int i = 0; i < nw; i++) {
			ASSERT_EQ_U(got.v[i].ts, want[i].ts);
			ASSERT_EQ(got.v[i].off, want[i].off);
			ASSERT_EQ(got.v[i].len, want[i].len);
		}

		/* now break it a little: it must stay in bounds */
		for (int k = 0; k < 4; k++) {
			unsigned int flips = (unsigned int)rbt_rand_range(1, 4);

			while (flips--)
				p[rbt_rand_range(0, size - 1)] ^=
					(unsigned char)rbt_rand_range(1, 255);
			walk_page(p, size);
		}
		free(p);
	}
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * A zstd-compressed file of our writer: 2 cpus of @pages pages each,
 * every page's records counting on (page i of cpu c: seq from (c * pages
 * + i) * 10). Returns false when the build has no libzstd.
 */
static bool write_zfile(const char *path, int pages)
{
	unsigned char *mem = malloc(PSZ), buf[128];
	struct td_writer *w;
	struct tdt_page pg;
	uint64_t ts = 1000;
	int ret;

	ASSERT_NOT_NULL(mem);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ret = td_writer_set_compression(w, "zstd");
	if (ret == -ENOTSUP) {
		td_writer_abort(w);
		free(mem);
		return false;
	}
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	for (int i = 0; i < pages; i++) {
		for (int cpu = 0; cpu < 2; cpu++) {
			tdt_page_init(&pg, mem, PSZ, ts);
			for (unsigned int k = 0; k < 10; k++) {
				unsigned int seq = (unsigned int)(cpu * pages +
								  i) * 10 + k;
				size_t len = tdt_counter(buf, 1001, seq,
							 (short)cpu, 0, 0);

				ASSERT_TRUE(tdt_page_data(&pg, 100, buf, len));
			}
			tdt_page_finish(&pg, 0);
			ASSERT_EQ(td_writer_add_page(w, cpu, mem), 0);
			ts = pg.ts + 100;
		}
	}
	ASSERT_EQ(td_writer_close(w), 0);
	free(mem);
	return true;
}

/*
 * Damaged chunks of a compressed file: sizes that lie (checked when the
 * file is opened, before anything is decompressed: a chunk past the end
 * of the file, larger than a chunk may be, saying another size than its
 * zstd frame) are refused with a message; data that does not decompress
 * (its bytes overwritten, the last chunk cut short) is found when its
 * pages are read: those pages are not given, td_reader_page_error() says
 * which chunk and how many pages, and every other page reads as written.
 */
static void bad_chunks(void)
{
	/* pages a cpu: three chunks and part of a fourth */
	enum { PAGES = 3 * (TD_ZCHUNK_BYTES / PSZ) + 32 };
	/* a field of cpu 0's second chunk (or its chunk count), set to @v
	 * or with @v added */
	enum { COUNT = -4, CSIZE = 0, USIZE = 4, DATA = 8 };
	static const struct {
		const char *what;
		int field;
		bool add;
		uint32_t v;
		int err;
		const char *msg;
	} open_cases[] = {
		{ "a page more than its frame", USIZE, true, PSZ, EPROTO,
		  "its zstd frame" },
		{ "a byte less than its frame", USIZE, true, (uint32_t)-1,
		  EPROTO, "its zstd frame" },
		{ "past the end of the file", CSIZE, false, 0xfffffff0u,
		  EPROTO, "truncated: a chunk" },
		{ "more than a chunk may hold", USIZE, false, 0x7fff0000u,
		  EPROTO, "more than the" },
		{ "its data not zstd", DATA, false, 0x12345678u, EPROTO,
		  "is not zstd data" },
		/* read on into what follows the chunks (the end of the
		 * file, or a file written in place's metadata sections):
		 * a chunk cut short or one that is not zstd data */
		{ "a chunk count past the data", COUNT, true, 1000, EPROTO,
		  "chunk" },
	};
	struct file f;
	unsigned char *copy;
	size_t entry, c0, c1, cl;
	uint32_t nr;

	tdt_mkdir(f.dir, sizeof(f.dir));
	snprintf(f.path, sizeof(f.path), "%s/z.dat", f.dir);
	if (!write_zfile(f.path, PAGES)) {
		tdt_rmdir(f.dir);
		rbt_skip("built without libzstd");
	}
	load(&f);
	ASSERT_EQ(try_open(f.path), 0);
	/* cpu 0's chunks: a count, then (compressed size, size, data) */
	entry = tdt_v7_cpu_entry(f.bytes, f.size, 0);
	ASSERT_GT(entry, 0);
	c0 = (size_t)get32(f.bytes + entry) |
	     (size_t)get32(f.bytes + entry + 4) << 32;
	ASSERT_LT(c0 + 4, f.size);
	nr = get32(f.bytes + c0);
	ASSERT_GE(nr, 3);
	c0 += 4;
	c1 = c0 + 8 + get32(f.bytes + c0);
	cl = c0;
	for (uint32_t i = 1; i < nr; i++)
		cl += 8 + get32(f.bytes + cl);
	rbt_note("cpu 0: %u chunks, the second at %zu, the last at %zu", nr,
		 c1, cl);

	/* refused when opened */
	copy = malloc(f.size);
	ASSERT_NOT_NULL(copy);
	for (size_t i = 0; i < sizeof(open_cases) / sizeof(open_cases[0]);
	     i++) {
		size_t at = open_cases[i].field == COUNT ?
				    c0 - 4 :
				    c1 + (size_t)open_cases[i].field;
		uint32_t v = open_cases[i].v;

		memcpy(copy, f.bytes, f.size);
		if (open_cases[i].add)
			v += get32(copy + at);
		put32(copy + at, v);
		tdt_spill(f.path, copy, f.size);
		rbt_note("%s", open_cases[i].what);
		expect_refused(f.path, open_cases[i].err, open_cases[i].msg);
	}

	/* found when read: the second chunk's data overwritten after its
	 * frame header; the last chunk cut short by 16 bytes */
	for (int k = 0; k < 2; k++) {
		size_t at = k ? cl : c1;
		uint32_t cs = get32(f.bytes + at), us = get32(f.bytes + at + 4);
		uint64_t first = 0, bad = 0, idx;
		struct td_reader *r;
		char err[256];
		const char *msg;

		memcpy(copy, f.bytes, f.size);
		if (k)
			put32(copy + at, cs - 16);
		else
			memset(copy + at + 8 + 16, 0xff, cs - 16);
		tdt_spill(f.path, copy, f.size);
		ASSERT_EQ(td_reader_open(f.path, &r, err, sizeof(err)), 0);
		for (size_t i = c0; i < at; i += 8 + get32(f.bytes + i))
			first += get32(f.bytes + i + 4) / PSZ;
		for (idx = 0; idx < td_reader_nr_pages(r, 0); idx++) {
			const unsigned char *pg = td_reader_page(r, 0, idx);
			int ret = td_reader_page_error(r, 0, idx, &bad, &msg);

			if (idx < first || idx >= first + us / PSZ) {
				/* the others read as written */
				ASSERT_NOT_NULL(pg);
				ASSERT_EQ(ret, 0);
				ASSERT_NULL(msg);
				ASSERT_EQ(get32(pg + 16 + 8 + 4),
					  (uint32_t)idx * 10);
				continue;
			}
			ASSERT_NULL(pg);
			ASSERT_EQ(ret, -EPROTO);
			ASSERT_EQ(bad, first + us / PSZ - idx);
			if (!strstr(msg, "does not decompress") ||
			    !strstr(msg, "cpu 0"))
				RBT_FAIL("message: %s", msg);
			if (idx == first)
				rbt_note("%s", msg);
		}
		ASSERT_EQ(idx, PAGES);
		/* the other cpu is whole */
		for (idx = 0; idx < PAGES; idx++)
			ASSERT_NOT_NULL(td_reader_page(r, 1, idx));
		td_reader_close(r);
		ASSERT_EQ(try_open(f.path), 0);
	}
	free(copy);
	file_free(&f);
}

static const struct rbt_case cases[] = {
	RBT_CASE(truncated),	      RBT_CASE(corrupt_header),
	RBT_CASE(corrupt_tables),     RBT_CASE(bad_headers),
	RBT_CASE(random_files),	      RBT_CASE(random_pages),
	RBT_CASE(random_valid_pages), RBT_CASE(v7_files),
	RBT_CASE(bad_chunks),
};
RBT_MAIN(cases)
