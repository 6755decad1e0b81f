// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_page.c - fuzz target for ringbuf_read_page() on the records of a
 * shared buffer's file, checked with the independent page decoder of the
 * test harness (tests/harness/rbdecode.h).
 *
 * The input becomes the reader page of cpu buffer 0 of a valid file (made
 * once by ringbuf_create(RINGBUF_FL_MEMFD), cpu buffer 0 left empty), the
 * file is attached, and ringbuf_read_page() drains it page by page. Input:
 *
 *  byte 0	bit 0: the writer is on that page (commit page = reader
 *		page: only whole records are copied, never the page);
 *		bits 1-2: the length passed (0: a whole sub-buffer, 1: half,
 *		2: 100 + 16 * byte 1, 3: alternating); bit 3: ask for a full
 *		page first; bit 4: set the page's real_end where a closing
 *		padding record starts (as the writer does)
 *  byte 1	bit 7: events were lost before the page, bits 0-6 how many
 *  bytes 2-9	the page's time stamp
 *  the rest	the records (at most a sub-buffer's data), the page's commit
 *
 * Checks: nothing crashes or leaks; every page returned has a commit
 * inside the length asked for; and when the input page itself decodes,
 * every page returned decodes too, and unless the library rejected the
 * page (a warning), the data records read back are the input's, in order,
 * with
 * the same payloads and (without absolute time stamps) the same times,
 * and the loss is reported on the first page.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>
#include <ringbuf/ringbuf-private.h>

#include "internal.h"
#include "rbdecode.h"
#include "fuzz.h"

struct rbfz_stats rbfz_stats;
int rbfz_report_fd = 2;

#define MAX_OUT 2048u

static void problem(const char *fmt, ...) __attribute__((noreturn,
							 format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprintf(rbfz_report_fd, "fuzz_page: PROBLEM: %s\n", msg);
	abort();
}

static bool g_trace; /* RB_FUZZ_TRACE: say what each input did */
static uint8_t *base;
static size_t base_size;
static int g_fd = -1;

const uint8_t *rbfz_base_image(unsigned int which, size_t *size)
{
	(void)which;
	*size = base_size;
	return base;
}

int rbfz_field(unsigned int kind, const char *name)
{
	(void)kind;
	(void)name;
	return -1;
}

static void init_once(void)
{
	RINGBUF_OPTS(o, .size = 2 * 4080, .nr_cpus = 2,
		     .flags = RINGBUF_FL_OVERWRITE | RINGBUF_FL_MEMFD,
		     .spare_buffers = RINGBUF_NO_SPARES);
	struct ringbuf *rb;
	struct stat st;
	int fd;

	if (base)
		return;
	g_trace = getenv("RB_FUZZ_TRACE") && strcmp(getenv("RB_FUZZ_TRACE"), "0");
	rb = ringbuf_create(&o);
	if (!rb)
		problem("ringbuf_create: %s", strerror(errno));
	/* Something on cpu buffer 1; cpu buffer 0 stays empty. */
	ringbuf_test_set_cpu(1);
	for (unsigned int i = 0; i < 10; i++) {
		static const char text[] = "0123456789abcdef0123456789abcdef"
					   "0123456789";

		(void)ringbuf_write(rb, 4 + 4 * i, text);
	}
	ringbuf_test_set_cpu(-1);
	fd = ringbuf_fd(rb);
	if (fd < 0 || fstat(fd, &st))
		problem("no memfd");
	base_size = (size_t)st.st_size;
	base = malloc(base_size);
	if (!base || pread(fd, base, base_size, 0) != (ssize_t)base_size)
		problem("cannot copy the memfd");
	ringbuf_free(rb);
	g_fd = memfd_create("rbfuzz-page", MFD_CLOEXEC);
	if (g_fd < 0)
		problem("memfd_create: %s", strerror(errno));
}

struct rec {
	unsigned int len;
	uint64_t ts;
	const unsigned char *payload;
};

static unsigned int data_recs(const struct rbd_page *p, struct rec *out,
			      unsigned int n, unsigned int max)
{
	for (unsigned int i = 0; i < p->nrec && n < max; i++)
		if (p->recs[i].kind == RBD_DATA)
			out[n++] = (struct rec){ p->recs[i].len, p->recs[i].ts,
						 p->recs[i].payload };
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rbd_page *in_dec, *out_dec;
	static struct rec in_recs[MAX_OUT], out_recs[MAX_OUT];
	static unsigned char *in_page, *pages;
	const struct rb_meta *meta;
	struct rb_cpu_meta *cm;
	struct rb_page_ctl *pc;
	struct ringbuf *rb;
	unsigned int mode, n_in = 0, n_out = 0, npages = 0;
	uint64_t lost, commit, page_off;
	uint32_t subbuf, bsize, rp, gp;
	bool in_ok, stamps = false, first_missed = false;
	uint8_t *file;
	char err[160];
	int ret;

	init_once();
	if (!in_dec) {
		in_dec = malloc(sizeof(*in_dec));
		out_dec = malloc(sizeof(*out_dec));
		if (!in_dec || !out_dec)
			problem("out of memory");
	}
	if (size < 10)
		return 0;
	rbfz_stats.inputs++;
	mode = data[0];
	lost = data[1] & 0x80 ? data[1] & 0x7fu : 0;

	file = malloc(base_size);
	if (!file)
		problem("out of memory");
	memcpy(file, base, base_size);
	meta = (const struct rb_meta *)file;
	subbuf = meta->subbuf_size;
	bsize = subbuf - RINGBUF_PAGE_HDR_SIZE;
	if (!in_page) {
		in_page = malloc(subbuf);
		pages = malloc((size_t)subbuf * 64);
		if (!in_page || !pages)
			problem("out of memory");
	}
	cm = (struct rb_cpu_meta *)(file + meta->cpu_meta_off);
	rp = atomic_load(&cm->reader_page);
	gp = cm->first_page + rp;
	page_off = meta->data_off + (uint64_t)gp * subbuf;
	commit = size - 10 < bsize ? size - 10 : bsize;

	/* The page: time stamp, commit, the records, zeroes after them. */
	memset(in_page, 0, subbuf);
	memcpy(in_page, data + 2, 8);
	memcpy(in_page + 8, &commit, 8);
	memcpy(in_page + RINGBUF_PAGE_HDR_SIZE, data + 10, commit);
	memcpy(file + page_off, in_page, subbuf);
	pc = (struct rb_page_ctl *)(file + meta->page_ctl_off) + gp;
	pc->read = 0;
	atomic_store(&pc->write, commit);
	atomic_store(&pc->real_end, 0);

	in_ok = !rbd_decode(in_page, subbuf, true, in_dec, err, sizeof(err));
	if (in_ok) {
		n_in = data_recs(in_dec, in_recs, 0, MAX_OUT);
		for (unsigned int i = 0; i < in_dec->nrec; i++) {
			const struct rbd_rec *r = &in_dec->recs[i];

			stamps |= r->kind == RBD_STAMP;
			/* Where the writer would have put real_end: the
			 * start of the closing padding. */
			if (r->kind == RBD_PAD_END && (mode & 0x10))
				atomic_store(&pc->real_end, r->offset);
		}
	}
	atomic_store(&pc->entries, n_in);
	atomic_store(&cm->entries, n_in);
	cm->lost_events = lost;
	if (mode & 1) {
		atomic_store(&cm->commit_page, rp);
		atomic_store(&cm->tail_page, rp);
	}

	if (ftruncate(g_fd, 0) || ftruncate(g_fd, (off_t)base_size) ||
	    pwrite(g_fd, file, base_size, 0) != (ssize_t)base_size)
		problem("cannot write the memfd: %s", strerror(errno));
	free(file);
	rb = ringbuf_attach_fd(g_fd, 0);
	if (!rb)
		problem("a valid file with a page of records does not attach");
	rbfz_stats.attached++;

	for (unsigned int i = 0; i < 64; i++) {
		unsigned char *pg = pages + (size_t)npages * subbuf;
		size_t len;
		int full = i == 0 && (mode & 8);

		switch ((mode >> 1) & 3) {
		case 0:
			len = subbuf;
			break;
		case 1:
			len = subbuf / 2;
			break;
		case 2:
			len = 100 + 16u * data[1];
			break;
		default:
			len = i % 2 ? subbuf : 64 + 8u * i;
			break;
		}
		if (len > subbuf)
			len = subbuf;
		memset(pg, 0x5a, subbuf);
		ret = ringbuf_read_page(rb, pg, len, 0, full);
		if (ret < 0 && full)
			continue;
		if (ret < 0)
			break;
		commit = *(uint64_t *)(pg + 8) & RINGBUF_COMMIT_MASK;
		if (commit > len - RINGBUF_PAGE_HDR_SIZE)
			problem("read_page (len %zu) returned %llu bytes", len,
				(unsigned long long)commit);
		/* Records as the file had them: garbage in, garbage out, but
		 * from a page that decodes, a page that decodes. */
		if (rbd_decode(pg, subbuf, true, out_dec, err, sizeof(err))) {
			if (in_ok)
				problem("read_page (len %zu) returned a page "
					"that does not decode: %s", len, err);
			npages++;
			continue;
		}
		if (!npages)
			first_missed = out_dec->missed;
		n_out = data_recs(out_dec, out_recs, n_out, MAX_OUT);
		/* Keep the page: out_recs point into it. */
		npages++;
	}

	if (g_trace)
		dprintf(rbfz_report_fd,
			"fuzz_page: input %s (%u data records), %u pages, %u "
			"data records read back, %s\n",
			in_ok ? "decodes" : "does not decode", n_in, npages,
			n_out, ringbuf_test_warned(rb) ? "warned" : "no warning");
	if (in_ok && !ringbuf_test_warned(rb)) {
		unsigned int n = n_in < n_out ? n_in : n_out;

		rbfz_stats.events += n;
		for (unsigned int i = 0; i < n; i++) {
			if (in_recs[i].len != out_recs[i].len ||
			    memcmp(in_recs[i].payload, out_recs[i].payload,
				   in_recs[i].len))
				problem("data record %u of %u: %u bytes written, "
					"%u bytes read back, or other bytes",
					i, n_in, in_recs[i].len,
					out_recs[i].len);
			if (!stamps && in_recs[i].ts != out_recs[i].ts)
				problem("data record %u: time %llu on the page, "
					"%llu read back",
					i, (unsigned long long)in_recs[i].ts,
					(unsigned long long)out_recs[i].ts);
		}
		/* A whole sub-buffer fits any record: all of them come back. */
		if (((mode >> 1) & 3) == 0 && n_out < n_in)
			problem("%u of %u data records read back", n_out, n_in);
		if (npages && lost && !first_missed)
			problem("%llu lost events not reported",
				(unsigned long long)lost);
	}
	ringbuf_free(rb);
	return 0;
}
