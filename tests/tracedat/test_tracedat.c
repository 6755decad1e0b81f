// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace.dat files (tracer/tracedat/tracedat.c). Pages from a real ring buffer
 * (two cpu buffers, records of every size class, overwritten events) and
 * pages built by hand (TIME_EXTEND, TIME_STAMP, discarded records, lost
 * events with and without a count) are written with td_writer, then read
 * back by trace-cmd report, the oracle, whose every line is checked (task,
 * pid, cpu, time stamp, event, each field, symbols through the file's
 * kallsyms, the lost-event lines), and by td_reader with
 * td_page_for_each. Also: checkpoints, a recorder killed while it records,
 * a full file system, a file size limit, files converted by trace-cmd, and
 * the errors of the API.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rbdecode.h"
#include "tdt_util.h"
#include "tracedat_int.h"
#include "test.h"
#include "tu.h"

#define PSZ 4096u

static struct rbd_page g_dec;

/* ---- the expected text of a record ------------------------------------- */

static uint64_t rd(const unsigned char *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* What %ps prints for @ip with tdt_kallsyms (and the end line). */
static const char *sym_of(uint64_t ip, char *buf, size_t len)
{
	static const struct {
		uint64_t addr;
		const char *name;
	} syms[] = {
		{ TDT_SYM_MOD, "td_func_mod" },
		{ TDT_SYM_A, "td_func_a" },
		{ 0x401400, "td_func_b" },
		{ TDT_SYM_LAST, "send_reply" },
		{ UINT64_MAX, "_etext" },
	};
	const char *name = NULL;

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (syms[i].addr <= ip)
			name = syms[i].name;
	if (name)
		return name;
	snprintf(buf, len, "0x%llx", (unsigned long long)ip);
	return buf;
}

static const char *comm_of(int pid)
{
	switch (pid) {
	case 0:
		return "<idle>";
	case 1001:
		return "alpha";
	case 1002:
		return "beta gamma";
	case 1003:
		return "worker-3";
	default:
		return "<...>";
	}
}

/* The event name and the fields part of trace-cmd's line for @r. */
static const char *expect_fields(const struct tdt_rec *r, char *out, size_t len)
{
	const unsigned char *d = r->data;
	unsigned int type = (unsigned int)rd(d, 2);
	char sym[32], name[17];
	uint32_t loc;

	switch (type) {
	case TDT_SAMPLE_ID:
		memcpy(name, d + 20, 16);
		name[16] = 0;
		loc = (uint32_t)rd(d + 36, 4);
		if ((loc & 0xffff) + (loc >> 16) > sizeof(r->data))
			RBT_FAIL("sample msg beyond the copied payload");
		snprintf(out, len, "seq=%llu value=%d name=%s msg=%s ip=%s",
			 (unsigned long long)rd(d + 8, 8), (int)rd(d + 16, 4),
			 name, (const char *)d + (loc & 0xffff),
			 sym_of(rd(d + 40, 8), sym, sizeof(sym)));
		return "sample";
	case TDT_COUNTER_ID:
		snprintf(out, len, "count=%u level=%d flag=0x%x big=%lld",
			 (unsigned int)rd(d + 8, 4), (short)rd(d + 12, 2),
			 d[14], (long long)rd(d + 16, 8));
		return "counter";
	case TDT_PRINT_ID:
		snprintf(out, len, "%s: %s",
			 sym_of(rd(d + 8, 8), sym, sizeof(sym)),
			 (const char *)d + 16);
		return "print";
	default:
		RBT_FAIL("record of unknown type %u", type);
	}
}

/* ---- trace-cmd report, line by line ------------------------------------ */

struct line {
	char comm[64];
	int pid;
	int cpu;
	char ts[32];
	char name[32];
	const char *rest;
};

/* "      comm-pid   [ccc]   sec.frac: name:     fields" */
static bool parse_line(char *l, struct line *o)
{
	char *b = strstr(l, " ["), *p, *dash, *s;
	size_t n;

	if (!b || b[2] < '0' || b[2] > '9' || b[5] != ']')
		return false;
	o->cpu = atoi(b + 2);
	p = b;
	while (p > l && p[-1] == ' ')
		p--;
	dash = p;
	while (dash > l && dash[-1] >= '0' && dash[-1] <= '9')
		dash--;
	if (dash == p || dash == l || dash[-1] != '-')
		return false;
	o->pid = atoi(dash);
	s = l;
	while (*s == ' ')
		s++;
	n = (size_t)(dash - 1 - s);
	if (n >= sizeof(o->comm))
		return false;
	memcpy(o->comm, s, n);
	o->comm[n] = 0;
	s = b + 6;
	while (*s == ' ')
		s++;
	p = strchr(s, ':');
	if (!p || (size_t)(p - s) >= sizeof(o->ts))
		return false;
	memcpy(o->ts, s, (size_t)(p - s));
	o->ts[p - s] = 0;
	s = p + 1;
	while (*s == ' ')
		s++;
	p = strchr(s, ':');
	if (!p || (size_t)(p - s) >= sizeof(o->name))
		return false;
	memcpy(o->name, s, (size_t)(p - s));
	o->name[p - s] = 0;
	s = p + 1;
	while (*s == ' ')
		s++;
	o->rest = s;
	return true;
}

/* Records of one cpu, in order. */
struct cpu_recs {
	const struct tdt_rec **v;
	size_t n;
};

static void split(const struct tdt_recs *all, struct cpu_recs *per, int ncpu)
{
	for (int c = 0; c < ncpu; c++) {
		per[c].v = calloc(all->n + 1, sizeof(*per[c].v));
		ASSERT_NOT_NULL(per[c].v);
		per[c].n = 0;
	}
	for (size_t i = 0; i < all->n; i++) {
		int c = all->v[i].cpu;

		ASSERT_TRUE(c >= 0 && c < ncpu);
		per[c].v[per[c].n++] = &all->v[i];
	}
}

static void split_free(struct cpu_recs *per, int ncpu)
{
	for (int c = 0; c < ncpu; c++)
		free(per[c].v);
}

/*
 * Run trace-cmd report on @path (with -t for nanoseconds when @ns) and
 * check every line against @exp: each record once, in its cpu's order,
 * with its time, task, event and fields; the lost-event line right before
 * the first record of a page that lost events. @raw_clock: the clock is
 * not a seconds clock, the time is printed as an integer.
 */
static void check_report(const char *path, const struct tdt_recs *exp, int ncpu,
			 bool ns, bool raw_clock)
{
	struct cpu_recs per[8];
	size_t cur[8] = { 0 }, lines = 0, drops = 0;
	long long pending[8];
	bool has_pending[8] = { false };
	uint64_t last_ts = 0;
	char cmd[512], *out, *l, *save = NULL;
	int status;

	ASSERT_LE(ncpu, 8);
	snprintf(cmd, sizeof(cmd), "%s report %s-i %s 2>&1", tdt_trace_cmd(),
		 ns ? "-t " : "", path);
	out = tdt_run(cmd, &status);
	if (status)
		RBT_FAIL("%s: exit status %d, output:\n%s", cmd, status, out);
	split(exp, per, ncpu);
	for (l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char fields[1024], ts[40];
		const struct tdt_rec *e;
		struct line ln;
		const char *name;
		int cpu;

		if (!strncmp(l, "cpus=", 5)) {
			ASSERT_EQ(atoi(l + 5), ncpu);
			continue;
		}
		if (sscanf(l, "CPU:%d [", &cpu) == 1) {
			char *br = strchr(l, '[');
			long long k = -1;

			ASSERT_TRUE(cpu >= 0 && cpu < ncpu);
			if (strcmp(br, "[EVENTS DROPPED]")) {
				if (sscanf(br, "[%lld EVENTS DROPPED]", &k) !=
				    1)
					RBT_FAIL("bad line: %s", l);
			}
			ASSERT_FALSE(has_pending[cpu]);
			pending[cpu] = k;
			has_pending[cpu] = true;
			drops++;
			continue;
		}
		if (!parse_line(l, &ln))
			RBT_FAIL("unexpected line from trace-cmd: \"%s\"", l);
		cpu = ln.cpu;
		ASSERT_TRUE(cpu >= 0 && cpu < ncpu);
		if (cur[cpu] >= per[cpu].n)
			RBT_FAIL("more records on cpu %d than the %zu written: "
				 "%s",
				 cpu, per[cpu].n, l);
		e = per[cpu].v[cur[cpu]++];
		lines++;
		/* the lost events of the record's page, just before it */
		if (e->missed) {
			long long want = e->missed == TD_MISSED_UNKNOWN ?
						 -1 :
						 (long long)e->missed;

			if (!has_pending[cpu])
				RBT_FAIL("no lost-event line before: %s", l);
			ASSERT_EQ(pending[cpu], want);
		} else if (has_pending[cpu]) {
			RBT_FAIL("lost-event line not expected before: %s", l);
		}
		has_pending[cpu] = false;
		/* time: sec.usec rounded, sec.nsec with -t, or raw */
		if (raw_clock)
			snprintf(ts, sizeof(ts), "%llu",
				 (unsigned long long)e->ts);
		else if (ns)
			snprintf(ts, sizeof(ts), "%llu.%09llu",
				 (unsigned long long)(e->ts / 1000000000),
				 (unsigned long long)(e->ts % 1000000000));
		else
			snprintf(ts, sizeof(ts), "%llu.%06llu",
				 (unsigned long long)((e->ts + 500) / 1000) /
					 1000000,
				 (unsigned long long)((e->ts + 500) / 1000) %
					 1000000);
		if (strcmp(ln.ts, ts))
			RBT_FAIL("time %s, expected %s (ts %llu): %s", ln.ts,
				 ts, (unsigned long long)e->ts, l);
		ASSERT_GE_U(e->ts, last_ts);
		last_ts = e->ts;
		if (strcmp(ln.comm, comm_of((int)rd(e->data + 4, 4))) ||
		    ln.pid != (int)rd(e->data + 4, 4))
			RBT_FAIL("task %s-%d, expected %s-%d: %s", ln.comm,
				 ln.pid, comm_of((int)rd(e->data + 4, 4)),
				 (int)rd(e->data + 4, 4), l);
		name = expect_fields(e, fields, sizeof(fields));
		if (strcmp(ln.name, name) || strcmp(ln.rest, fields))
			RBT_FAIL("line \"%s\"\n  expected %s: %s", l, name,
				 fields);
	}
	for (int c = 0; c < ncpu; c++) {
		if (cur[c] != per[c].n)
			RBT_FAIL("trace-cmd showed %zu records of cpu %d, %zu "
				 "were written",
				 cur[c], c, per[c].n);
		ASSERT_FALSE(has_pending[c]);
	}
	rbt_note("%s: %zu records, %zu lost-event lines checked%s", path, lines,
		 drops, ns ? " (ns)" : "");
	split_free(per, ncpu);
	free(out);
}

/* The bytes of a payload that the event defines (not the record's
 * alignment padding, which a page may carry stale). */
static size_t meaningful(const struct tdt_rec *r)
{
	const unsigned char *d = r->data;
	size_t n;

	switch (rd(d, 2)) {
	case TDT_SAMPLE_ID:
		n = 48 + (rd(d + 36, 4) >> 16);
		break;
	case TDT_COUNTER_ID:
		n = 24;
		break;
	case TDT_PRINT_ID:
		n = 16 + strnlen((const char *)d + 16, sizeof(r->data) - 16) +
		    1;
		break;
	default:
		n = r->len;
		break;
	}
	if (n > r->len)
		RBT_FAIL("payload of %zu bytes in a record of %u", n, r->len);
	return n < sizeof(r->data) ? n : sizeof(r->data);
}

/* td_reader + td_page_for_each give exactly @exp. */
static void check_reader(const char *path, const struct tdt_recs *exp, int ncpu)
{
	struct tdt_recs got = { 0 };
	struct cpu_recs pe[8], pg[8];

	tdt_read_file(path, &got);
	split(exp, pe, ncpu);
	split(&got, pg, ncpu);
	for (int c = 0; c < ncpu; c++) {
		ASSERT_EQ(pg[c].n, pe[c].n);
		for (size_t i = 0; i < pe[c].n; i++) {
			const struct tdt_rec *a = pg[c].v[i], *b = pe[c].v[i];
			size_t n = meaningful(b);

			if (a->ts != b->ts || a->len != b->len ||
			    a->missed != b->missed)
				RBT_FAIL("cpu %d record %zu: ts %llu len %u "
					 "missed %lu, expected ts %llu len %u "
					 "missed %lu",
					 c, i, (unsigned long long)a->ts,
					 a->len, a->missed,
					 (unsigned long long)b->ts, b->len,
					 b->missed);
			ASSERT_MEM_EQ(a->data, b->data, n);
		}
	}
	split_free(pe, ncpu);
	split_free(pg, ncpu);
	tdt_recs_free(&got);
}

/* ---- the file from a real ring buffer ---------------------------------- */

struct fixture {
	char dir[128];
	char path[256];
	struct tdt_recs exp;
	unsigned long written[2];
	unsigned long lost_stored[2];
	unsigned int lost_pages[2];
	bool lost_unknown;
};

static const int g_pids[] = { 1001, 1002, 1003, 0, 4242 };
static const uint64_t g_ips[] = { TDT_SYM_A + 0x24, TDT_SYM_LAST + 0x10,
				  TDT_SYM_MOD + 4, 0x1234, 0x401400 + 0x80 };

static size_t make_event(unsigned char *buf, uint32_t seq)
{
	int pid = g_pids[seq % 5];
	char msg[256], name[24];
	size_t mlen;

	switch (seq % 7) {
	case 0:
	case 1:
	case 2:
	case 3:
		/* payloads of 50 to 249 bytes, under and over 112 */
		mlen = 1 + (seq * 37u) % 200;
		snprintf(msg, sizeof(msg), "s%u:", seq);
		for (size_t i = strlen(msg); i < mlen; i++)
			msg[i] = (char)('a' + i % 26);
		msg[mlen] = 0;
		if (seq % 11 == 0)
			snprintf(name, sizeof(name), "fifteen-chars%02u",
				 seq % 100);
		else
			snprintf(name, sizeof(name), "n%u", seq % 1000);
		return tdt_sample(buf, pid, seq, (int)(seq % 1000) - 500, name,
				  msg, g_ips[seq % 5]);
	case 4:
	case 5:
		return tdt_counter(buf, pid, seq, (short)(seq % 100),
				   (unsigned char)seq, -1000003LL * seq);
	default:
		snprintf(msg, sizeof(msg), "print %u", seq);
		return tdt_print(buf, pid, g_ips[(seq / 7) % 5], msg);
	}
}

static void write_events(struct ringbuf *rb, struct fixture *fx, int cpu,
			 uint32_t first, uint32_t n)
{
	unsigned char buf[512];

	ringbuf_test_set_cpu(cpu);
	for (uint32_t seq = first; seq < first + n; seq++) {
		size_t len = make_event(buf, seq);

		ASSERT_EQ(ringbuf_write(rb, len, buf), 0);
		fx->written[cpu]++;
	}
	ringbuf_test_set_cpu(-1);
}

/* Capture what the iterator sees on @cpu, then drain it with read_page
 * into @w; each page's lost events go to its first record. */
static void capture_drain(struct ringbuf *rb, struct fixture *fx, int cpu,
			  struct td_writer *w)
{
	struct ringbuf_iter *it = ringbuf_read_start(rb, cpu);
	struct ringbuf_event *ev;
	size_t k = fx->exp.n;
	void *page;
	uint64_t ts;
	char err[256];

	ASSERT_NOT_NULL(it);
	while ((ev = ringbuf_iter_peek(it, &ts))) {
		tdt_recs_add(&fx->exp, cpu, ts, ringbuf_event_data(ev),
			     ringbuf_event_length(ev), 0);
		ringbuf_iter_advance(it);
	}
	ringbuf_read_finish(it);

	page = ringbuf_alloc_read_page(rb, cpu);
	ASSERT_NOT_NULL(page);
	ASSERT_EQ(ringbuf_subbuf_size(rb), PSZ);
	while (ringbuf_read_page(rb, page, PSZ, cpu, 0) == 0) {
		if (rbd_decode(page, PSZ, true, &g_dec, err, sizeof(err)))
			RBT_FAIL("cpu %d page: %s", cpu, err);
		ASSERT_GT(g_dec.ndata, 0);
		ASSERT_LE(k + g_dec.ndata, fx->exp.n);
		if (g_dec.missed) {
			fx->lost_pages[cpu]++;
			if (g_dec.stored) {
				fx->exp.v[k].missed = g_dec.missed_count;
				fx->lost_stored[cpu] += g_dec.missed_count;
			} else {
				fx->exp.v[k].missed = TD_MISSED_UNKNOWN;
				fx->lost_unknown = true;
			}
		}
		for (unsigned int i = 0, d = 0; i < g_dec.nrec; i++) {
			if (g_dec.recs[i].kind != RBD_DATA)
				continue;
			ASSERT_EQ_U(g_dec.recs[i].ts, fx->exp.v[k + d].ts);
			ASSERT_EQ(g_dec.recs[i].len, fx->exp.v[k + d].len);
			d++;
		}
		k += g_dec.ndata;
		ASSERT_EQ(td_writer_add_page(w, cpu, page), 0);
	}
	ASSERT_EQ(k, fx->exp.n);
	ringbuf_free_read_page(rb, cpu, page);
}

static void add_hand(struct fixture *fx, int cpu, struct tdt_page *pg,
		     const void *payload, size_t len)
{
	tdt_recs_add(&fx->exp, cpu, pg->ts, payload,
		     (unsigned int)((len + 3) & ~(size_t)3), 0);
}

/*
 * After the ring's pages, cpu 0 gets a page built by hand: the ring buffer
 * stamps with the real clock, and a gap of more than 2^27 ns (a
 * TIME_EXTEND) would need a sleep. Lost events without a count on it.
 */
static void hand_page(struct fixture *fx, struct td_writer *w, uint64_t ts)
{
	unsigned char *mem = malloc(PSZ), buf[512], msg[256];
	struct tdt_page pg;
	size_t first = fx->exp.n, len;

	ASSERT_NOT_NULL(mem);
	tdt_page_init(&pg, mem, PSZ, ts);
	len = tdt_sample(buf, 1001, 900000, 1, "hand", "first", TDT_SYM_A);
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, len));
	add_hand(fx, 0, &pg, buf, len);
	ASSERT_TRUE(tdt_page_extend(&pg, (1ULL << 28) + 777));
	len = tdt_counter(buf, 1002, 1, 2, 3, 4);
	ASSERT_TRUE(tdt_page_data(&pg, 5, buf, len));
	add_hand(fx, 0, &pg, buf, len);
	ASSERT_TRUE(tdt_page_discard(&pg, 33, 24));
	len = tdt_print(buf, 1003, TDT_SYM_LAST + 0x10, "after a discard");
	ASSERT_TRUE(tdt_page_data(&pg, 100, buf, len));
	add_hand(fx, 0, &pg, buf, len);
	ASSERT_TRUE(tdt_page_stamp(&pg, pg.ts + 500000000ULL));
	memset(msg, 'z', 200);
	msg[200] = 0;
	len = tdt_sample(buf, 0, 900001, -7, "long", (char *)msg,
			 TDT_SYM_MOD + 1);
	ASSERT_GT(len, RINGBUF_MAX_SMALL_DATA);
	ASSERT_TRUE(tdt_page_data(&pg, 9, buf, len));
	add_hand(fx, 0, &pg, buf, len);
	ASSERT_TRUE(tdt_page_extend(&pg, (1ULL << 32) + 3));
	len = tdt_counter(buf, 4242, 5, 6, 7, 8);
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, len));
	add_hand(fx, 0, &pg, buf, len);
	tdt_page_finish(&pg, (uint64_t)-1);
	fx->exp.v[first].missed = TD_MISSED_UNKNOWN;
	ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);
	free(mem);
}

/* The compression build_fixture() gives its writer (NULL: none), and
 * whether it spools (td_writer_set_spooled()). */
static const char *g_compression;
static bool g_spooled;

static void build_fixture(struct fixture *fx)
{
	struct ringbuf *rb =
		tu_create(16, RINGBUF_FL_OVERWRITE, 2, RINGBUF_PER_CPU);
	struct td_writer *w;
	uint64_t pages, bytes, last0;

	memset(fx, 0, sizeof(*fx));
	tdt_mkdir(fx->dir, sizeof(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/trace.dat", fx->dir);
	ASSERT_EQ(td_writer_open(fx->path, PSZ, 2, &w), 0);
	if (g_compression)
		ASSERT_EQ(td_writer_set_compression(w, g_compression), 0);
	if (g_spooled) {
		ASSERT_EQ(td_writer_set_spooled(w), 0);
		ASSERT_FALSE(td_writer_in_place(w));
	}
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_sample_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "ftrace", tdt_print_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_kallsyms(w, tdt_kallsyms), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);

	/* cpu 0 fits its buffer; cpu 1 overwrites, twice */
	write_events(rb, fx, 0, 0, 150);
	write_events(rb, fx, 1, 10000, 1500);
	capture_drain(rb, fx, 0, w);
	capture_drain(rb, fx, 1, w);
	write_events(rb, fx, 1, 20000, 1500);
	write_events(rb, fx, 0, 30000, 40);
	capture_drain(rb, fx, 1, w);
	/* (compressed: the chunks of a checkpoint, then more) */
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	capture_drain(rb, fx, 0, w);
	ASSERT_EQ(ringbuf_overrun_cpu(rb, 0), 0);
	ASSERT_GT(ringbuf_overrun_cpu(rb, 1), 0);
	ASSERT_EQ(fx->lost_pages[0], 0);
	ASSERT_EQ(fx->lost_pages[1], 2);
	/* what was written is what was read plus what the pages say was lost */
	if (!fx->lost_unknown)
		ASSERT_EQ(fx->lost_stored[1], ringbuf_overrun_cpu(rb, 1));
	ASSERT_EQ(fx->written[1],
		  ringbuf_read_events_cpu(rb, 1) + ringbuf_overrun_cpu(rb, 1));
	ASSERT_EQ(fx->written[0], ringbuf_read_events_cpu(rb, 0));
	rbt_note("cpu 1: %lu written, %lu read, %lu stored as lost on %u "
		 "pages%s", fx->written[1], ringbuf_read_events_cpu(rb, 1),
		 fx->lost_stored[1], fx->lost_pages[1],
		 fx->lost_unknown ? " (some without a count)" : "");

	last0 = 0;
	for (size_t i = 0; i < fx->exp.n; i++)
		if (fx->exp.v[i].cpu == 0)
			last0 = fx->exp.v[i].ts;
	hand_page(fx, w, last0 + 1000);

	td_writer_stats(w, &pages, &bytes);
	ASSERT_GT(pages, 10);
	ASSERT_EQ_U(bytes, pages * PSZ);
	ASSERT_EQ(td_writer_close(w), 0);
	ringbuf_free(rb);
}

static void fixture_free(struct fixture *fx)
{
	tdt_recs_free(&fx->exp);
	tdt_rmdir(fx->dir);
}

static void need_trace_cmd(void)
{
	if (!tdt_trace_cmd())
		rbt_skip("trace-cmd is not installed (/usr/bin/trace-cmd)");
}

/* trace-cmd report shows every record of a real recording as written. */
static void report_real_pages(void)
{
	struct fixture fx;

	need_trace_cmd();
	build_fixture(&fx);
	check_report(fx.path, &fx.exp, 2, false, false);
	check_report(fx.path, &fx.exp, 2, true, false);
	fixture_free(&fx);
}

/* Our reader gives the same records, times and lost counts. */
static void reader_real_pages(void)
{
	struct fixture fx;
	struct td_reader *r;
	const char *sys, *text;
	char err[256];

	build_fixture(&fx);
	check_reader(fx.path, &fx.exp, 2);
	ASSERT_EQ(td_reader_open(fx.path, &r, err, sizeof(err)), 0);
	ASSERT_EQ(td_reader_nr_cpus(r), 2);
	ASSERT_EQ(td_reader_page_size(r), PSZ);
	ASSERT_EQ(strcmp(td_reader_clock(r), "mono"), 0);
	ASSERT_EQ(strcmp(td_reader_cmdlines(r), tdt_cmdlines), 0);
	ASSERT_EQ(strcmp(td_reader_uname(r), ""), 0);
	/* the ftrace section first, then the systems */
	text = td_reader_format(r, 0, &sys);
	ASSERT_TRUE(text && !strcmp(sys, "ftrace") &&
		    !strcmp(text, tdt_print_fmt));
	text = td_reader_format(r, 1, &sys);
	ASSERT_TRUE(text && !strcmp(sys, "tdtest") &&
		    !strcmp(text, tdt_sample_fmt));
	text = td_reader_format(r, 2, &sys);
	ASSERT_TRUE(text && !strcmp(sys, "tdtest") &&
		    !strcmp(text, tdt_counter_fmt));
	ASSERT_NULL(td_reader_format(r, 3, &sys));
	ASSERT_NULL(td_reader_page(r, 2, 0));
	ASSERT_NULL(td_reader_page(r, -1, 0));
	ASSERT_EQ(td_reader_nr_pages(r, 5), 0);
	td_reader_close(r);
	fixture_free(&fx);
}

/* ---- pages built by hand ----------------------------------------------- */

struct dec_ctx {
	struct tdt_recs *out;
	const unsigned char *page;
	unsigned int page_size;
};

static void dec_cb(const struct td_record *rec, void *arg)
{
	struct dec_ctx *c = arg;
	const unsigned char *d = rec->data;

	/* inside the page's data */
	ASSERT_TRUE(d >= c->page + 16 &&
		    d + rec->len <= c->page + c->page_size);
	tdt_recs_add(c->out, 0, rec->ts, rec->data, rec->len, 0);
}

static int decode(const void *page, unsigned int size, struct tdt_recs *out,
		  unsigned long *missed)
{
	struct dec_ctx c = { out, page, size };

	return td_page_for_each(page, size, dec_cb, missed, &c);
}

/* The decoder on pages of every record kind, and malformed ones. */
static void page_decoder(void)
{
	unsigned char *mem = malloc(PSZ), buf[512];
	struct tdt_recs r = { 0 };
	struct tdt_page pg;
	unsigned long missed;
	size_t len;
	uint64_t t;

	ASSERT_NOT_NULL(mem);
	/* an empty page */
	tdt_page_init(&pg, mem, PSZ, 77);
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), 0);
	ASSERT_EQ(r.n, 0);
	ASSERT_EQ(missed, 0);

	/* every kind, with the times the page was built with */
	tdt_page_init(&pg, mem, PSZ, 1000);
	len = tdt_counter(buf, 1, 2, 3, 4, 5);
	ASSERT_TRUE(tdt_page_data(&pg, 7, buf, len)); /* 1007 */
	ASSERT_TRUE(tdt_page_extend(&pg, (1ULL << 27) * 5 + 3));
	ASSERT_TRUE(tdt_page_data(&pg, 2, buf, 1)); /* + 5 * 2^27 + 5 */
	t = pg.ts;
	ASSERT_EQ_U(t, 1007 + (1ULL << 27) * 5 + 5);
	ASSERT_TRUE(tdt_page_discard(&pg, 17, 16));
	ASSERT_TRUE(tdt_page_data(&pg, 4, buf, 0)); /* + 21 */
	ASSERT_TRUE(tdt_page_stamp(&pg, 123456789));
	memset(buf, 'q', 300);
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 300)); /* long record */
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, 113));
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, 112));
	tdt_page_finish(&pg, 99);
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), 0);
	ASSERT_EQ(missed, 99);
	ASSERT_EQ(r.n, 6);
	ASSERT_EQ_U(r.v[0].ts, 1007);
	ASSERT_EQ(r.v[0].len, 24);
	ASSERT_EQ_U(r.v[1].ts, t);
	ASSERT_EQ(r.v[1].len, 4);
	ASSERT_EQ_U(r.v[2].ts, t + 21);
	ASSERT_EQ(r.v[2].len, 4); /* a payload of 0 is stored as 4 */
	ASSERT_EQ_U(r.v[3].ts, 123456790);
	ASSERT_EQ(r.v[3].len, 300);
	ASSERT_EQ(r.v[4].len, 116);
	ASSERT_EQ(r.v[5].len, 112);
	for (size_t i = 0; i < 300; i++)
		ASSERT_EQ(r.v[3].data[i], 'q');
	/* and as the harness's independent decoder reads the page */
	{
		char err[256];
		unsigned int k = 0;

		if (rbd_decode(mem, PSZ, true, &g_dec, err, sizeof(err)))
			RBT_FAIL("rbd_decode: %s", err);
		ASSERT_TRUE(g_dec.stored);
		ASSERT_EQ(g_dec.missed_count, missed);
		for (unsigned int i = 0; i < g_dec.nrec; i++) {
			if (g_dec.recs[i].kind != RBD_DATA)
				continue;
			ASSERT_LT(k, r.n);
			ASSERT_EQ_U(g_dec.recs[i].ts, r.v[k].ts);
			ASSERT_EQ(g_dec.recs[i].len, r.v[k].len);
			k++;
		}
		ASSERT_EQ(k, r.n);
	}
	tdt_recs_free(&r);

	/* lost events without a count */
	tdt_page_finish(&pg, (uint64_t)-1);
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), 0);
	ASSERT_EQ(missed, TD_MISSED_UNKNOWN);
	tdt_recs_free(&r);

	/* a padding record with delta 0 ends the page */
	tdt_page_init(&pg, mem, PSZ, 10);
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 8));
	mem[16 + pg.pos] = RINGBUF_TYPE_PADDING; /* delta 0 */
	pg.pos += 4;
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 8));
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), 0);
	ASSERT_EQ(r.n, 1);
	tdt_recs_free(&r);

	/* TIME_STAMP keeps bits 59..63 of the running time */
	tdt_page_init(&pg, mem, PSZ, (1ULL << 60) + 5);
	ASSERT_TRUE(tdt_page_stamp(&pg, 1000));
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 8));
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(decode(mem, PSZ, &r, NULL), 0);
	ASSERT_EQ(r.n, 1);
	ASSERT_EQ_U(r.v[0].ts, (1ULL << 60) + 1001);
	tdt_recs_free(&r);

	/* malformed: commit past the page */
	tdt_page_init(&pg, mem, PSZ, 10);
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 8));
	tdt_page_finish(&pg, 0);
	mem[8] = (unsigned char)(PSZ - 16 + 4);
	mem[9] = (unsigned char)((PSZ - 16 + 4) >> 8);
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), -EPROTO);
	ASSERT_EQ(r.n, 0);
	/* commit at the end, padding after the record: fine; a stored
	 * count has no room then */
	mem[8] = (unsigned char)(PSZ - 16);
	mem[9] = (unsigned char)((PSZ - 16) >> 8);
	mem[16 + pg.pos] = RINGBUF_TYPE_PADDING;
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), 0);
	ASSERT_EQ(r.n, 1);
	tdt_recs_free(&r);
	mem[11] = 0xc0; /* MISSED_EVENTS | MISSED_STORED */
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), -EPROTO);
	ASSERT_EQ(r.n, 0);
	/* a record that crosses the commit: the ones before it are seen */
	tdt_page_init(&pg, mem, PSZ, 10);
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 8));
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 40));
	tdt_page_finish(&pg, 0);
	mem[8] -= 4;
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), -EPROTO);
	ASSERT_EQ(r.n, 1);
	tdt_recs_free(&r);
	/* a long record whose length word is under 4 */
	tdt_page_init(&pg, mem, PSZ, 10);
	ASSERT_TRUE(tdt_page_data(&pg, 1, buf, 200));
	tdt_page_finish(&pg, 0);
	memset(mem + 20, 0, 4);
	mem[20] = 3;
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), -EPROTO);
	/* a time record cut by the commit */
	tdt_page_init(&pg, mem, PSZ, 10);
	ASSERT_TRUE(tdt_page_extend(&pg, 1ULL << 30));
	tdt_page_finish(&pg, 0);
	mem[8] = 4;
	ASSERT_EQ(decode(mem, PSZ, &r, &missed), -EPROTO);
	/* bad arguments */
	ASSERT_EQ(td_page_for_each(NULL, PSZ, NULL, NULL, NULL), -EINVAL);
	ASSERT_EQ(td_page_for_each(mem, 15, NULL, &missed, NULL), -EINVAL);
	/* a page of just its header */
	memset(mem, 0, 16);
	ASSERT_EQ(td_page_for_each(mem, 16, NULL, &missed, NULL), 0);
	tdt_recs_free(&r);
	free(mem);
}

/* The file of tdt_write_small(): TIME_EXTEND, TIME_STAMP, discarded
 * records, lost events with and without a count, through trace-cmd and
 * our reader, at nanosecond precision. */
static void hand_pages(void)
{
	struct tdt_recs exp = { 0 }, got = { 0 };
	char dir[128], path[256];
	size_t n;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/small.dat", dir);
	n = tdt_write_small(path);
	tdt_read_file(path, &got);
	ASSERT_EQ(got.n, n);
	/* the times tdt_write_small() built */
	ASSERT_EQ_U(got.v[0].ts, 5000000000ULL);
	ASSERT_EQ_U(got.v[3].ts, 5000000000ULL + 3000 + 17);
	ASSERT_EQ_U(got.v[5].ts, 5000000000ULL + 5000 + 17);
	ASSERT_EQ_U(got.v[6].ts, 5000000000ULL + 5000 + 17 + 500);
	ASSERT_EQ(got.v[6].missed, 42);
	ASSERT_EQ_U(got.v[7].ts, got.v[6].ts + (1ULL << 27) * 3 + 12345 + 7);
	ASSERT_EQ(got.v[8].cpu, 1);
	ASSERT_EQ(got.v[8].missed, TD_MISSED_UNKNOWN);
	ASSERT_EQ_U(got.v[9].ts, 5100000003ULL);
	if (tdt_trace_cmd()) {
		/* the reader's view is the expectation for trace-cmd */
		exp = got;
		check_report(path, &exp, 2, true, false);
		check_report(path, &exp, 2, false, false);
	}
	tdt_recs_free(&got);
	tdt_rmdir(dir);
}

/* A bigger sub-buffer (8 KiB): the page size of the file header decides. */
static void page_size_8k(void)
{
	const unsigned int psz = 8192;
	unsigned char *mem = malloc(psz), buf[512];
	struct tdt_recs exp = { 0 };
	char dir[128], path[256];
	struct td_writer *w;
	struct tdt_page pg;
	uint64_t ts = 7000000000ULL;
	uint32_t seq = 0;

	ASSERT_NOT_NULL(mem);
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/8k.dat", dir);
	ASSERT_EQ(td_writer_open(path, psz, 1, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_sample_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "ftrace", tdt_print_fmt), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_set_kallsyms(w, tdt_kallsyms), 0);
	for (int p = 0; p < 3; p++) {
		size_t len;

		tdt_page_init(&pg, mem, psz, ts);
		while ((len = make_event(buf, seq)),
		       tdt_page_data(&pg, seq ? 1234 : 0, buf, len)) {
			tdt_recs_add(&exp, 0, pg.ts, buf,
				     (unsigned int)((len + 3) & ~3u), 0);
			seq++;
		}
		tdt_page_finish(&pg, 0);
		ASSERT_GT(pg.pos, PSZ);
		ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);
		ts = pg.ts + 1;
	}
	ASSERT_EQ(td_writer_close(w), 0);
	check_reader(path, &exp, 1);
	if (tdt_trace_cmd())
		check_report(path, &exp, 1, true, false);
	tdt_recs_free(&exp);
	tdt_rmdir(dir);
	free(mem);
}

/* A clock that is not in seconds is shown raw; the reader names it. */
static void clocks(void)
{
	static const struct {
		const char *name;
		bool raw;
	} names[] = { { "x86-tsc", true },   { "counter", true },
		      { "myclock", true },   { "boot", true },
		      { "mono_raw", false }, { "global", false } };
	unsigned char *mem = malloc(PSZ), buf[256];
	char dir[128], path[256], err[256];
	struct tdt_recs exp = { 0 };
	struct td_reader *r;
	struct td_writer *w;
	struct tdt_page pg;
	size_t len;

	ASSERT_NOT_NULL(mem);
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/clock.dat", dir);
	tdt_page_init(&pg, mem, PSZ, 123456789012ULL);
	len = tdt_counter(buf, 1001, 1, 2, 3, 4);
	ASSERT_TRUE(tdt_page_data(&pg, 0, buf, len));
	tdt_recs_add(&exp, 0, pg.ts, buf, (unsigned int)len, 0);
	tdt_page_finish(&pg, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
		ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt),
			  0);
		ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
		ASSERT_EQ(td_writer_set_clock(w, "local"), 0);
		ASSERT_EQ(td_writer_set_clock(w, names[i].name), 0);
		ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);
		ASSERT_EQ(td_writer_close(w), 0);
		ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
		ASSERT_EQ(strcmp(td_reader_clock(r), names[i].name), 0);
		td_reader_close(r);
		if (tdt_trace_cmd())
			check_report(path, &exp, 1, false, names[i].raw);
	}
	/* no clock: "local" */
	ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
	ASSERT_EQ(td_writer_close(w), 0);
	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
	ASSERT_EQ(strcmp(td_reader_clock(r), "local"), 0);
	ASSERT_EQ(td_reader_nr_pages(r, 0), 0);
	ASSERT_NULL(td_reader_format(r, 0, NULL));
	ASSERT_EQ(strcmp(td_reader_kallsyms(r), ""), 0);
	td_reader_close(r);
	tdt_recs_free(&exp);
	tdt_rmdir(dir);
	free(mem);
}

/* ---- sections and API errors ------------------------------------------- */

static void sections(void)
{
	static const char other_fmt[] =
		"name: other\nID: 903\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;"
		"\tsigned:0;\n\nprint fmt: \"x\"\n";
	char dir[128], path[256], err[256];
	struct td_reader *r;
	struct td_writer *w;
	const char *sys, *ks;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 3, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_sample_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "other", other_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "ftrace", tdt_print_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_kallsyms(w, "0000000000000010 T z\n\n"
					    "0000000000000008 T b\t[m]\n"
					    "0000000000000010 T a\n"
					    "1 t one"),
		  0);
	ASSERT_EQ(td_writer_set_uname(w, "Linux box 6.1"), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, "1 init\n"), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, "1 init\n2 kthreadd\n"), 0);
	ASSERT_EQ(td_writer_close(w), 0);

	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
	ASSERT_EQ(td_reader_nr_cpus(r), 3);
	for (int c = 0; c < 3; c++)
		ASSERT_EQ(td_reader_nr_pages(r, c), 0);
	ASSERT_EQ(strcmp(td_reader_format(r, 0, &sys), tdt_print_fmt), 0);
	ASSERT_EQ(strcmp(sys, "ftrace"), 0);
	ASSERT_EQ(strcmp(td_reader_format(r, 1, &sys), tdt_sample_fmt), 0);
	ASSERT_EQ(strcmp(sys, "tdtest"), 0);
	ASSERT_EQ(strcmp(td_reader_format(r, 2, &sys), tdt_counter_fmt), 0);
	ASSERT_EQ(strcmp(sys, "tdtest"), 0);
	ASSERT_EQ(strcmp(td_reader_format(r, 3, &sys), other_fmt), 0);
	ASSERT_EQ(strcmp(sys, "other"), 0);
	ASSERT_NULL(td_reader_format(r, 4, &sys));
	/* sorted by address, ties in their order, the end line last */
	ks = td_reader_kallsyms(r);
	if (strcmp(ks, "1 t one\n"
		       "0000000000000008 T b\t[m]\n"
		       "0000000000000010 T z\n"
		       "0000000000000010 T a\n"
		       "ffffffffffffffff T _etext\n"))
		RBT_FAIL("kallsyms:\n%s", ks);
	ASSERT_EQ(strcmp(td_reader_uname(r), "Linux box 6.1"), 0);
	ASSERT_EQ(strcmp(td_reader_cmdlines(r), "1 init\n2 kthreadd\n"), 0);
	td_reader_close(r);
	if (tdt_trace_cmd()) {
		char cmd[512], *out;
		int st;

		snprintf(cmd, sizeof(cmd), "%s report -i %s 2>&1",
			 tdt_trace_cmd(), path);
		out = tdt_run(cmd, &st);
		ASSERT_EQ(st, 0);
		if (strcmp(out, "cpus=3\n"))
			RBT_FAIL("trace-cmd on an empty file:\n%s", out);
		free(out);
	}
	tdt_rmdir(dir);
}

static void writer_errors(void)
{
	unsigned char *mem = malloc(PSZ), buf[64];
	char dir[128], path[256], bad[300];
	struct td_writer *w;
	struct tdt_page pg;
	uint64_t pages, bytes;
	struct stat st;

	ASSERT_NOT_NULL(mem);
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/e.dat", dir);
	ASSERT_EQ(td_writer_open("-", PSZ, 1, &w), -EINVAL);
	ASSERT_NULL(w);
	ASSERT_EQ(td_writer_open(NULL, PSZ, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open("", PSZ, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, PSZ, 1, NULL), -EINVAL);
	ASSERT_EQ(td_writer_open(path, 0, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, 2048, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, 6000, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, 2u << 20, 1, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, PSZ, 0, &w), -EINVAL);
	ASSERT_EQ(td_writer_open(path, PSZ, TD_MAX_CPUS + 1, &w), -EINVAL);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.dat", dir);
	ASSERT_EQ(td_writer_open(bad, PSZ, 1, &w), -ENOENT);
	ASSERT_EQ(td_writer_open(dir, PSZ, 1, &w), -EISDIR);
	ASSERT_EQ(stat(path, &st), -1); /* nothing created */
	snprintf(bad, sizeof(bad), "%s/link.dat", dir);
	ASSERT_EQ(symlink(path, bad), 0);
	ASSERT_EQ(td_writer_open(bad, PSZ, 1, &w), -ELOOP);
	ASSERT_EQ(stat(path, &st), -1);
	/* a FIFO (and, as root, a device node) is refused and left alone */
	snprintf(bad, sizeof(bad), "%s/fifo.dat", dir);
	ASSERT_EQ(mkfifo(bad, 0600), 0);
	ASSERT_EQ(td_writer_open(bad, PSZ, 1, &w), -EEXIST);
	ASSERT_EQ(lstat(bad, &st), 0);
	ASSERT_TRUE(S_ISFIFO(st.st_mode));
	snprintf(bad, sizeof(bad), "%s/null.dat", dir);
	if (mknod(bad, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		ASSERT_EQ(td_writer_open(bad, PSZ, 1, &w), -EEXIST);
		ASSERT_EQ(lstat(bad, &st), 0);
		ASSERT_TRUE(S_ISCHR(st.st_mode));
	}
	/* an existing file is replaced, not written through: another link
	 * to it keeps its content */
	snprintf(bad, sizeof(bad), "%s/old.dat", dir);
	{
		char link2[sizeof(bad) + 8];
		FILE *f = fopen(bad, "w");

		ASSERT_TRUE(f != NULL);
		fputs("old", f);
		fclose(f);
		snprintf(link2, sizeof(link2), "%s.2", bad);
		ASSERT_EQ(link(bad, link2), 0);
		ASSERT_EQ(td_writer_open(bad, PSZ, 1, &w), 0);
		td_writer_abort(w);
		ASSERT_EQ(stat(link2, &st), 0);
		ASSERT_EQ(st.st_size, 3);
		unlink(link2);
		unlink(bad);
	}

	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_EQ(st.st_size, 0);
	/* formats */
	ASSERT_EQ(td_writer_add_format(w, "tdtest", "name: x\nformat:\n"),
		  -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", "name: x\nID: 70000\n"),
		  -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", "name: x\nID: 12x\n"),
		  -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", "name: x\nID:\n"), -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "", tdt_sample_fmt), -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "a b", tdt_sample_fmt), -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, NULL, tdt_sample_fmt), -EINVAL);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_sample_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w, "other", tdt_sample_fmt), -EEXIST);
	ASSERT_EQ(td_writer_add_format(w, "other", "name: y\nID:  901 \n"),
		  -EEXIST);
	ASSERT_EQ(td_writer_add_format(w, "x", "name: y\n ID: 3\nID: 4\n"), 0);
	ASSERT_EQ(td_writer_add_format(w, "x", "name: z\nID: 4\n"), -EEXIST);
	/* texts */
	ASSERT_EQ(td_writer_set_header_page(w, ""), -EINVAL);
	ASSERT_EQ(td_writer_set_header_page(w, NULL), -EINVAL);
	ASSERT_EQ(td_writer_set_cmdlines(w, NULL), -EINVAL);
	ASSERT_EQ(td_writer_set_clock(w, ""), -EINVAL);
	ASSERT_EQ(td_writer_set_clock(w, "a b"), -EINVAL);
	ASSERT_EQ(td_writer_set_clock(w, "[mono]"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "xyz T a\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T \n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "00000000000000001 T a\n"),
		  -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T a b\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T a\t[mod\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T a\t[]\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T a [m]\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000  T a\n"), -EINVAL);
	ASSERT_EQ(td_writer_set_kallsyms(w, "1000 T a\t[m]\n2000 T b\n"), 0);
	/* pages */
	tdt_page_init(&pg, mem, PSZ, 1);
	ASSERT_TRUE(
		tdt_page_data(&pg, 0, buf, tdt_counter(buf, 1, 2, 3, 4, 5)));
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(td_writer_add_page(w, -1, mem), -EINVAL);
	ASSERT_EQ(td_writer_add_page(w, 2, mem), -EINVAL);
	ASSERT_EQ(td_writer_add_page(w, 0, NULL), -EINVAL);
	mem[9] = 0x10; /* commit 4096 + 28 > 4080 */
	ASSERT_EQ(td_writer_add_page(w, 0, mem), -EINVAL);
	mem[9] = 0;
	mem[8] = 20; /* the record crosses the commit */
	ASSERT_EQ(td_writer_add_page(w, 0, mem), -EINVAL);
	mem[8] = 28;
	mem[11] = 0xc0; /* count stored after the data: zero, fine */
	ASSERT_EQ(td_writer_add_page(w, 1, mem), 0);
	mem[8] = 0xf0; /* commit 4080: no room for the stored count */
	mem[9] = 0x0f;
	ASSERT_EQ(td_writer_add_page(w, 0, mem), -EINVAL);
	/* a slot kept as checked already: its header is still checked,
	 * and a cpu without a slot given has nothing to keep */
	ASSERT_EQ(td_writer_keep_slot(w, -1, NULL), -EINVAL);
	ASSERT_EQ(td_writer_keep_slot(NULL, 0, NULL), -EINVAL);
	{
		unsigned char *slot = td_writer_page_slot(w, 0);

		ASSERT_NOT_NULL(slot);
		memcpy(slot, mem, PSZ);
		ASSERT_EQ(td_writer_keep_slot(w, 0, NULL), -EINVAL);
	}
	td_writer_stats(w, &pages, &bytes);
	ASSERT_EQ(pages, 1);
	ASSERT_EQ(bytes, PSZ);
	ASSERT_EQ(td_writer_checkpoint(NULL), -EINVAL);
	ASSERT_EQ(td_writer_close(w), 0);
	ASSERT_EQ(td_writer_close(NULL), 0);
	td_writer_abort(NULL);

	/* abort: the path keeps what it had */
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_GT(st.st_size, PSZ);
	ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
	tdt_page_finish(&pg, 0);
	ASSERT_EQ(td_writer_add_page(w, 0, mem), 0);
	td_writer_abort(w);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_EQ(st.st_size, 0);
	snprintf(bad, sizeof(bad), "%s/e.dat.tmp", dir);
	ASSERT_EQ(access(bad, F_OK), -1);
	tdt_rmdir(dir);
	free(mem);
}

/* A reader refuses a header_page of another layout (commit size 4). */
static void header_page_layout(void)
{
	static const char header32[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n";
	char dir[128], path[256], err[256] = "";
	struct td_reader *r;
	struct td_writer *w;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/h.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
	ASSERT_EQ(td_writer_set_header_page(w, header32), 0);
	ASSERT_EQ(td_writer_set_header_event(w, "# other\n"), 0);
	ASSERT_EQ(td_writer_close(w), 0);
	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), -ENOTSUP);
	ASSERT_NULL(r);
	ASSERT_NOT_NULL(strstr(err, "commit"));
	/* the default text is the 64-bit one, with data = page - 16 */
	ASSERT_NOT_NULL(strstr(td_default_header_page(8192),
			       "\tfield: char data;\toffset:16;\tsize:8176;"));
	ASSERT_NOT_NULL(strstr(td_default_header_page(PSZ),
			       "local_t commit;\toffset:8;\tsize:8;"));
	ASSERT_NOT_NULL(strstr(td_default_header_event(), "type == 30"));
	tdt_rmdir(dir);
}

/* ---- checkpoints ------------------------------------------------------- */

/* @n pages of 10 counter records on @cpu; seq numbers (the count field)
 * continue from *seq, times from *ts. */
static void add_pages(struct td_writer *w, int cpu, int n, uint32_t *seq,
		      uint64_t *ts)
{
	unsigned char *mem = malloc(PSZ), buf[512];
	struct tdt_page pg;

	ASSERT_NOT_NULL(mem);
	for (int p = 0; p < n; p++) {
		tdt_page_init(&pg, mem, PSZ, *ts);
		for (int i = 0; i < 10; i++) {
			size_t len = tdt_counter(buf, 1001, (*seq)++,
						 (short)cpu, 0, 0);

			ASSERT_TRUE(tdt_page_data(&pg, i ? 100 : 0, buf, len));
		}
		tdt_page_finish(&pg, 0);
		ASSERT_EQ(td_writer_add_page(w, cpu, mem), 0);
		*ts = pg.ts + 100;
	}
	free(mem);
}

static void expect_pages(const char *path, uint64_t p0, uint64_t p1)
{
	struct td_reader *r;
	char err[256];

	if (td_reader_open(path, &r, err, sizeof(err)))
		RBT_FAIL("%s: %s", path, err);
	ASSERT_EQ(td_reader_nr_pages(r, 0), p0);
	ASSERT_EQ(td_reader_nr_pages(r, 1), p1);
	td_reader_close(r);
}

/* trace-cmd shows @n events (and nothing else but the cpus line). */
static void expect_report_count(const char *path, size_t n)
{
	char cmd[512], *out, *l, *save = NULL;
	size_t lines = 0;
	int st;

	if (!tdt_trace_cmd())
		return;
	snprintf(cmd, sizeof(cmd), "%s report -i %s 2>&1", tdt_trace_cmd(),
		 path);
	out = tdt_run(cmd, &st);
	if (st)
		RBT_FAIL("%s: status %d:\n%s", cmd, st, out);
	for (l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		struct line ln;

		if (!strncmp(l, "cpus=", 5))
			continue;
		if (!parse_line(l, &ln) || strcmp(ln.name, "counter"))
			RBT_FAIL("unexpected line: %s", l);
		lines++;
	}
	ASSERT_EQ(lines, n);
	free(out);
}

/*
 * Spares (td_writer_set_cpu_buffers()): the cpus after the CPUs, up to the
 * last spare with pages (an empty one after it is not in the file), a
 * checkpoint between pages included; no buffer instance, so that every
 * mode of trace-cmd reads the file (report -F, --profile and hist among
 * them); the CPUSTAT options one per cpu of the file, and the VERSION
 * option.
 */
static void spares(void)
{
	/* pages per cpu buffer: 2 CPUs, then spares 0..4, the last empty */
	static const int pages[7] = { 2, 1, 1, 0, 3, 1, 0 };
	static const char *const modes[] = {
		"report -F tdtest", "report --profile", "hist", "report -R",
	};
	char dir[128], path[256], err[256], cmd[768], *out, *l, *save = NULL;
	size_t per_cpu[6] = { 0 };
	struct td_reader *r;
	struct td_writer *w;
	uint64_t ts = 1000000000;
	uint32_t seq = 0;
	int st;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/sp.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 7, &w), 0);
	ASSERT_EQ(td_writer_set_cpu_buffers(w, 0), -EINVAL);
	ASSERT_EQ(td_writer_set_cpu_buffers(w, 8), -EINVAL);
	ASSERT_EQ(td_writer_set_cpu_buffers(w, 2), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	ASSERT_EQ(td_writer_set_version(w, ""), -EINVAL);
	ASSERT_EQ(td_writer_set_version(w, "tdtest 1.0"), 0);
	ASSERT_EQ(td_writer_set_cpu_stats(w, 7, "entries: 0\n"), -EINVAL);
	for (int cpu = 0; cpu < 7; cpu++) {
		char text[64];

		snprintf(text, sizeof(text), "entries: %d\n", 100 + cpu);
		ASSERT_EQ(td_writer_set_cpu_stats(w, cpu, text), 0);
		add_pages(w, cpu, pages[cpu] > 1 ? 1 : pages[cpu], &seq, &ts);
	}
	/* too late once pages are in */
	ASSERT_EQ(td_writer_set_cpu_buffers(w, 3), -EINVAL);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	for (int cpu = 0; cpu < 7; cpu++)
		add_pages(w, cpu, pages[cpu] > 1 ? pages[cpu] - 1 : 0, &seq,
			  &ts);
	ASSERT_EQ(td_writer_close(w), 0);

	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
	ASSERT_EQ(td_reader_nr_cpu_buffers(r), 2);
	/* spares 0..3; spare 4 held nothing */
	ASSERT_EQ(td_reader_nr_cpus(r), 6);
	for (int cpu = 0; cpu < 6; cpu++) {
		ASSERT_EQ(td_reader_nr_pages(r, cpu), (uint64_t)pages[cpu]);
		ASSERT_EQ(td_reader_instance_cpu(r, cpu), -1);
	}
	ASSERT_EQ(strcmp(td_reader_clock(r), "mono"), 0);
	td_reader_close(r);

	if (!tdt_trace_cmd()) {
		tdt_rmdir(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s report -i %s 2>&1", tdt_trace_cmd(),
		 path);
	out = tdt_run(cmd, &st);
	if (st)
		RBT_FAIL("%s: status %d:\n%s", cmd, st, out);
	ASSERT_EQ(strncmp(out, "cpus=6\n", 7), 0);
	for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *b = strchr(l, '[');
		unsigned int cpu;

		if (strncmp(l, "cpus=", 5) && b &&
		    sscanf(b, "[%u]", &cpu) == 1 && cpu < 6)
			per_cpu[cpu]++;
	}
	free(out);
	/* 10 records a page */
	for (int cpu = 0; cpu < 6; cpu++)
		ASSERT_EQ(per_cpu[cpu], (size_t)pages[cpu] * 10);
	/* the statistics of the file's cpus, spare 4 not among them */
	snprintf(cmd, sizeof(cmd), "%s report --stat -i %s 2>&1",
		 tdt_trace_cmd(), path);
	out = tdt_run(cmd, &st);
	if (st)
		RBT_FAIL("%s: status %d:\n%s", cmd, st, out);
	ASSERT_NOT_NULL(strstr(out, "\nCPU: 0\nentries: 100\n"));
	ASSERT_NOT_NULL(strstr(out, "\nCPU: 5\nspare: 3 ("));
	ASSERT_NOT_NULL(strstr(out, "CPU note)\nentries: 105\n"));
	if (strstr(out, "\nCPU: 6\n"))
		RBT_FAIL("an empty spare in the file:\n%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s dump --options %s 2>&1",
		 tdt_trace_cmd(), path);
	out = tdt_run(cmd, &st);
	ASSERT_EQ(st, 0);
	ASSERT_NOT_NULL(strstr(out, "[Option VERSION, 11 bytes]\ntdtest 1.0"));
	if (strstr(out, "unknown option"))
		RBT_FAIL("trace-cmd dump warns:\n%s", out);
	free(out);
	/* the modes that fail on a file with buffer instances */
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s %s -i %s >%s/m.out 2>&1",
			 tdt_trace_cmd(), modes[i], path, dir);
		out = tdt_run(cmd, &st);
		if (st)
			RBT_FAIL("trace-cmd %s: status %d", modes[i], st);
		free(out);
	}
	snprintf(cmd, sizeof(cmd), "rm -f %s/m.out", dir);
	free(tdt_run(cmd, &st));
	tdt_rmdir(dir);
}

/* The trace options of the recording: kept, given back, and skipped by
 * trace-cmd without a word. */
static void trace_options(void)
{
	char dir[128], path[256], err[256], cmd[512], *out;
	struct td_reader *r;
	struct td_writer *w;
	uint64_t ts = 1000000000;
	uint32_t seq = 0;
	int st;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/o.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
	ASSERT_EQ(td_writer_set_trace_options(w, "a\nb"), -EINVAL);
	ASSERT_EQ(td_writer_set_trace_options(w, "sym-offset nofuncgraph-proc"),
		  0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	add_pages(w, 0, 1, &seq, &ts);
	ASSERT_EQ(td_writer_close(w), 0);
	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
	ASSERT_EQ(strcmp(td_reader_trace_options(r),
			 "sym-offset nofuncgraph-proc"), 0);
	td_reader_close(r);
	expect_report_count(path, 10);
	if (tdt_trace_cmd()) {
		snprintf(cmd, sizeof(cmd), "%s report -i %s 2>&1 >/dev/null",
			 tdt_trace_cmd(), path);
		out = tdt_run(cmd, &st);
		ASSERT_EQ(st, 0);
		if (out[0])
			RBT_FAIL("trace-cmd says:\n%s", out);
		free(out);
	}
	/* a file without them */
	ASSERT_EQ(td_writer_open(path, PSZ, 1, &w), 0);
	ASSERT_EQ(td_writer_close(w), 0);
	ASSERT_EQ(td_reader_open(path, &r, err, sizeof(err)), 0);
	ASSERT_NULL(td_reader_trace_options(r));
	td_reader_close(r);
	tdt_rmdir(dir);
}

static void checkpoint(void)
{
	char dir[128], path[256], tmp[300], victim[300], err[256];
	struct td_reader *old;
	struct td_writer *w;
	struct stat st1, st2;
	uint64_t ts = 1000000000;
	uint32_t seq = 0;
	bool in_place;
	int fd;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/c.dat", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	add_pages(w, 0, 3, &seq, &ts);
	/* "<path>.tmp" left by a killed recorder, or a link to elsewhere */
	fd = open(victim, O_WRONLY | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "keep", 4), 4);
	close(fd);
	ASSERT_EQ(symlink(victim, tmp), 0);
	in_place = td_writer_in_place(w);
	rbt_note("%s", in_place ? "written in place" : "spooled");
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	ASSERT_EQ(stat(victim, &st1), 0);
	ASSERT_EQ(st1.st_size, 4);
	expect_pages(path, 3, 0);
	expect_report_count(path, 30);
	/* in place, "<path>.tmp" is not used at all */
	ASSERT_EQ(access(tmp, F_OK), in_place ? 0 : -1);
	if (in_place)
		ASSERT_EQ(unlink(tmp), 0);
	/* a reader of a spooled checkpoint keeps reading it after the next */
	if (!in_place)
		ASSERT_EQ(td_reader_open(path, &old, err, sizeof(err)), 0);

	add_pages(w, 1, 2, &seq, &ts);
	add_pages(w, 0, 1, &seq, &ts);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	expect_pages(path, 4, 2);
	expect_report_count(path, 60);
	if (!in_place) {
		ASSERT_EQ(td_reader_nr_pages(old, 0), 3);
		ASSERT_EQ(td_reader_nr_pages(old, 1), 0);
		for (uint64_t i = 0; i < 3; i++)
			ASSERT_EQ(td_page_for_each(td_reader_page(old, 0, i),
						   PSZ, NULL, NULL, NULL),
				  0);
		td_reader_close(old);
	}

	/* nothing new: the file is left alone */
	ASSERT_EQ(stat(path, &st1), 0);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	ASSERT_EQ(stat(path, &st2), 0);
	ASSERT_EQ(st1.st_ino, st2.st_ino);
	ASSERT_EQ(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
	/* a new text is news: a new file, or in place a new header */
	ASSERT_EQ(td_writer_set_cmdlines(w, "1001 renamed\n"), 0);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	ASSERT_EQ(stat(path, &st2), 0);
	if (in_place)
		ASSERT_EQ(st1.st_ino, st2.st_ino);
	else
		ASSERT_NE(st1.st_ino, st2.st_ino);

	add_pages(w, 1, 5, &seq, &ts);
	ASSERT_EQ(td_writer_close(w), 0);
	expect_pages(path, 4, 7);
	expect_report_count(path, 110);
	ASSERT_EQ(access(tmp, F_OK), -1);
	/* in place, the holes are gone: the header, then the pages */
	ASSERT_EQ(stat(path, &st2), 0);
	if (in_place)
		ASSERT_EQ((uint64_t)st2.st_size % PSZ, 0);
	tdt_rmdir(dir);
}

/*
 * A recorder that writes and checkpoints in a loop is killed with SIGKILL
 * at a point that varies from run to run (after 1 to 40 checkpoints it
 * reported, wherever it is in the next one): the file left reads, with at
 * least the pages of the last checkpoint reported, and trace-cmd shows
 * every record.
 */
/*
 * Written in place, every page is written once and a checkpoint writes
 * the header alone: with frequent checkpoints, two cpus taking turns
 * (the first one outgrowing its room, so that the second one's data
 * moves), and a header that grows (new thread names), the file reads
 * right at each checkpoint, the bytes written stay within a tenth of the
 * final size, and the close leaves no hole but small ones (the size is
 * the header and the pages, the blocks cover it but for the holes'
 * share, TD_HOLE_SHARE; write_holes).
 */
static void write_once(void)
{
	char dir[128], path[256], names[64 * 32];
	struct td_writer *w;
	struct stat st;
	uint64_t ts = 1000000000, written;
	uint32_t seq = 0;
	size_t used = 0;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/w.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 3, &w), 0);
	if (!td_writer_in_place(w)) {
		td_writer_abort(w);
		tdt_rmdir(dir);
		rbt_skip("the file system cannot shift a file's blocks");
	}
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	for (int i = 0; i < 6600; i++) {
		add_pages(w, i % 3 == 2 ? 1 : 0, 1, &seq, &ts);
		if (i % 200 == 0 && used + 32 < sizeof(names)) {
			used += (size_t)snprintf(names + used,
						 sizeof(names) - used,
						 "%d thread-%d\n", 2000 + i, i);
			ASSERT_EQ(td_writer_set_cmdlines(w, names), 0);
		}
		if (i % 10 == 9)
			ASSERT_EQ(td_writer_checkpoint(w), 0);
		if (i == 299)
			expect_report_count(path, 3000);
		/* cpu 0 is past its first room, cpu 1's data moved */
		if (i == 6299) {
			expect_pages(path, 4200, 2100);
			expect_report_count(path, 63000);
		}
	}
	written = td_writer_written(w);
	ASSERT_EQ(td_writer_close(w), 0);
	expect_pages(path, 4400, 2200);
	expect_report_count(path, 66000);
	ASSERT_EQ(stat(path, &st), 0);
	rbt_note("%llu bytes written, %lld in the file, %lld in blocks",
		 (unsigned long long)written, (long long)st.st_size,
		 (long long)st.st_blocks * 512);
	/* the pages alone are 6600 * PSZ */
	ASSERT_GE((uint64_t)st.st_size, 6600ull * PSZ);
	ASSERT_LE(written * 10, (uint64_t)st.st_size * 11);
	ASSERT_LE((uint64_t)st.st_size, (uint64_t)st.st_blocks * 512 +
						(uint64_t)st.st_size / TD_HOLE_SHARE + PSZ);
	tdt_rmdir(dir);
}

/*
 * The writer's calls of sync_file_range(), seen here first (the writer
 * is linked in statically): how many, and the end of the furthest range.
 */
static struct {
	int calls;
	uint64_t end;
} sfr_seen;

int sync_file_range(int fd, off_t off, off_t len, unsigned int flags)
{
	sfr_seen.calls++;
	if ((uint64_t)(off + len) > sfr_seen.end)
		sfr_seen.end = (uint64_t)(off + len);
	return (int)syscall(SYS_sync_file_range, fd, off, len, flags);
}

/*
 * Written in place by shifting blocks, the close leaves the small holes
 * (TD_HOLE_SHARE): removing one makes the kernel write back every page
 * after it and wait. A recording of one cpu far larger than the header's
 * room keeps that room in front of its pages: the file reads whole, its
 * size is the pages, the header and that hole, within the share. While
 * the pages were few the room was large beside them (it would have been
 * removed), and their write-back was started as they were written; past
 * TD_HOLE_SHARE times the room, a cpu whose pages no move can reach
 * starts none (the kernel writes them back later, as any program's), a
 * cpu after another one's reservation still does. A small recording's
 * room is removed, and so is a second cpu's reservation when the holes
 * would be too much (write_once).
 */
static void write_holes(void)
{
	enum { SMALL = 4, STAGE = TD_STAGE_BYTES / PSZ };
	char dir[128], path[256];
	struct td_writer *w;
	struct stat st;
	uint64_t ts = 1000000000, room, bytes, past;
	uint32_t seq = 0;
	int pages = 0;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/h.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	if (!td_writer_in_place(w) || w->sparse) {
		td_writer_abort(w);
		tdt_rmdir(dir);
		rbt_skip("the file system cannot shift a file's blocks");
	}
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_clock(w, "mono"), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	/* the header first (as a recorder's first checkpoint), its room
	 * after it */
	add_pages(w, 0, SMALL, &seq, &ts);
	pages += SMALL;
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	ASSERT_GT(w->hdr_cap, w->hdr_len);
	room = w->hdr_cap - w->hdr_len;
	/* few pages: a move (the room's removal) would reach them */
	ASSERT_TRUE(td_behind_moves(w, 0));
	/* pages up to a stage past TD_HOLE_SHARE times the room */
	past = (room * TD_HOLE_SHARE + PSZ - 1) / PSZ + STAGE;
	while ((uint64_t)pages < past) {
		add_pages(w, 0, STAGE, &seq, &ts);
		pages += STAGE;
	}
	ASSERT_EQ(td_flush(w), 0);
	ASSERT_FALSE(td_behind_moves(w, 0));
	/* none started for cpu 0's next pages, wherever they go */
	memset(&sfr_seen, 0, sizeof(sfr_seen));
	add_pages(w, 0, 4 * STAGE, &seq, &ts);
	pages += 4 * STAGE;
	ASSERT_EQ(td_flush(w), 0);
	ASSERT_EQ(sfr_seen.calls, 0);
	/* cpu 1's pages come after cpu 0's reservation: a growth of cpu
	 * 0's would move them */
	ASSERT_TRUE(td_behind_moves(w, 1));
	/* a header that outgrows its room (thread names): every page
	 * moves, and from then on cpu 0's write-back is started too */
	{
		char *names = malloc(2 * room + 64);
		size_t used = 0;

		ASSERT_NOT_NULL(names);
		for (int i = 0; used < 2 * room; i++)
			used += (size_t)snprintf(names + used, 2 * room + 64 - used,
						 "%d thread-%d\n", 3000 + i, i);
		ASSERT_EQ(td_writer_set_cmdlines(w, names), 0);
		free(names);
	}
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	ASSERT_GT(w->hdr_cap - w->hdr_len, 0u);
	ASSERT_TRUE(td_behind_moves(w, 0));
	ASSERT_EQ(td_writer_close(w), 0);
	expect_pages(path, (uint64_t)pages, 0);
	expect_report_count(path, 10 * pages);
	ASSERT_EQ(stat(path, &st), 0);
	bytes = (uint64_t)pages * PSZ;
	rbt_note("%d pages, a room of %llu bytes, %lld in the file, %lld in blocks",
		 pages, (unsigned long long)room, (long long)st.st_size,
		 (long long)st.st_blocks * 512);
	/* the room stayed: the header, the hole, the pages */
	ASSERT_GE((uint64_t)st.st_size, bytes + 2 * room);
	ASSERT_LE((uint64_t)st.st_size - bytes, bytes / TD_HOLE_SHARE + PSZ * 8);
	tdt_rmdir(dir);

	/* a small recording: its room is removed */
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	seq = 0;
	add_pages(w, 0, SMALL, &seq, &ts);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	add_pages(w, 0, SMALL, &seq, &ts);
	ASSERT_EQ(td_writer_close(w), 0);
	expect_pages(path, 2 * SMALL, 0);
	ASSERT_EQ(stat(path, &st), 0);
	ASSERT_LT((uint64_t)st.st_size, 2 * SMALL * PSZ + room);
	tdt_rmdir(dir);
}

/* A child process and a pipe to talk with it (fds[0] to read, fds[1] to
 * write). */
static pid_t fork_piped(int fds[2])
{
	pid_t pid;

	ASSERT_EQ(pipe(fds), 0);
	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	return pid;
}

/*
 * A recorder killed between checkpoints (SIGKILL at a random one) leaves
 * a file that reads, with the pages of the last checkpoint it finished
 * or of the one it was in. @zstd: compressed, in place on a file system
 * with holes, its regions a page to start with, so that they outgrow
 * themselves and move up (td_v7_place_chunk()) between checkpoints.
 */
static void kill_rounds(bool zstd)
{
	char dir[128], path[256];

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/k.dat", dir);
	for (int round = 0; round < 6; round++) {
		unsigned int want = (unsigned int)rbt_rand_range(1, 40);
		unsigned int seen = 0;
		struct tdt_recs got = { 0 };
		int fds[2], status;
		pid_t pid;
		char c;

		pid = fork_piped(fds);
		if (pid == 0) {
			struct td_writer *w;
			uint64_t ts = 1000000000;
			uint32_t seq = 0;

			close(fds[0]);
			if (td_writer_open(path, PSZ, 2, &w))
				_exit(2);
			if (zstd && (td_writer_set_compression(w, "zstd") ||
				     td_writer_set_reserve(w, PSZ)))
				_exit(7);
			if (td_writer_add_format(w, "tdtest",
						 tdt_counter_fmt) ||
			    td_writer_set_cmdlines(w, tdt_cmdlines))
				_exit(3);
			for (int i = 0; i < 100000; i++) {
				add_pages(w, i % 2, 1, &seq, &ts);
				if (td_writer_checkpoint(w))
					_exit(4);
				if (write(fds[1], "c", 1) != 1)
					_exit(5);
			}
			_exit(6);
		}
		close(fds[1]);
		while (seen < want && read(fds[0], &c, 1) == 1)
			seen++;
		ASSERT_EQ(seen, want);
		ASSERT_EQ(kill(pid, SIGKILL), 0);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		/* the checkpoints it finished before the kill landed */
		while (read(fds[0], &c, 1) == 1)
			seen++;
		close(fds[0]);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
			RBT_FAIL("the recorder ended with status 0x%x before "
				 "the kill", status);
		tdt_read_file(path, &got);
		/* the last one reported, or one more (killed before its
		 * report) */
		ASSERT_GE(got.n, (size_t)seen * 10);
		ASSERT_LE(got.n, (size_t)(seen + 1) * 10);
		for (size_t i = 0; i < got.n; i++)
			ASSERT_EQ(rd(got.v[i].data + 8, 4) % 20 < 10,
				  got.v[i].cpu == 0);
		expect_report_count(path, got.n);
		tdt_recs_free(&got);
	}
	tdt_rmdir(dir);
}

static void checkpoint_kill(void)
{
	kill_rounds(false);
}

static void compressed_kill(void)
{
	char dir[128], path[256];
	struct td_writer *w;
	int ret;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/z.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ret = td_writer_set_compression(w, "zstd");
	td_writer_abort(w);
	tdt_rmdir(dir);
	if (ret == -ENOTSUP)
		rbt_skip("built without libzstd");
	ASSERT_EQ(ret, 0);
	kill_rounds(true);
}

/*
 * Write pages, checkpointing every other one, until the file system says
 * no. The failure comes back as an error; td_writer_close() frees all;
 * the file holds the last checkpoint (or everything, if the close found
 * room). Returns the error seen.
 */
static int fill_until_error(const char *path, uint64_t *in_file)
{
	struct td_writer *w;
	uint64_t ts = 1000000000, added = 0, ckpt = 0;
	uint32_t seq = 0;
	int ret = 0, cret;

	ret = td_writer_open(path, PSZ, 1, &w);
	if (ret)
		return ret;
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	for (int i = 0; i < 10000 && !ret; i++) {
		unsigned char *mem = malloc(PSZ), buf[64];
		struct tdt_page pg;

		ASSERT_NOT_NULL(mem);
		tdt_page_init(&pg, mem, PSZ, ts++);
		ASSERT_TRUE(tdt_page_data(&pg, 0, buf,
					  tdt_counter(buf, 1, seq++, 0, 0, 0)));
		tdt_page_finish(&pg, 0);
		ret = td_writer_add_page(w, 0, mem);
		free(mem);
		if (ret)
			break;
		added++;
		if (added % 2 == 0) {
			ret = td_writer_checkpoint(w);
			if (!ret)
				ckpt = added;
		}
	}
	ASSERT_NE(ret, 0);
	cret = td_writer_close(w);
	*in_file = cret ? ckpt : added;
	rbt_note("error %d (%s) after %llu pages, checkpoint of %llu, close %d",
		 ret, strerror(-ret), (unsigned long long)added,
		 (unsigned long long)ckpt, cret);
	return ret;
}

static void disk_full(void)
{
	char dir[128], path[256];
	uint64_t in_file;
	int ret;

	tdt_mkdir(dir, sizeof(dir));
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k")) {
		int e = errno;

		tdt_rmdir(dir);
		rbt_skip(e == EPERM ? "mounting a tmpfs needs root" :
				      "cannot mount a small tmpfs");
	}
	snprintf(path, sizeof(path), "%s/full.dat", dir);
	ret = fill_until_error(path, &in_file);
	ASSERT_EQ(ret, -ENOSPC);
	ASSERT_GT(in_file, 0);
	expect_pages(path, in_file, 0);
	/* once the space is back, no temporary file is left */
	{
		char tmp[300];

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		ASSERT_EQ(access(tmp, F_OK), -1);
	}
	expect_report_count(path, in_file);
	ASSERT_EQ(umount(dir), 0);
	tdt_rmdir(dir);
}

static void file_size_limit(void)
{
	char dir[128], path[256];
	uint64_t in_file = 0;
	int fds[2], status;
	pid_t pid;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.dat", dir);
	pid = fork_piped(fds);
	if (pid == 0) {
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		uint64_t n;
		int ret;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl))
			_exit(2);
		ret = fill_until_error(path, &n);
		if (write(fds[1], &n, sizeof(n)) != sizeof(n))
			_exit(3);
		_exit(ret == -EFBIG ? 0 : 4);
	}
	close(fds[1]);
	ASSERT_EQ(read(fds[0], &in_file, sizeof(in_file)), sizeof(in_file));
	close(fds[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		RBT_FAIL("the writer did not fail with EFBIG (status 0x%x)",
			 status);
	ASSERT_GT(in_file, 0);
	expect_pages(path, in_file, 0);
	expect_report_count(path, in_file);
	tdt_rmdir(dir);
}

/* ---- in place with holes (tmpfs) --------------------------------------- */

/*
 * A directory on a tmpfs, where blocks cannot be shifted but holes can be
 * punched; skips the test where /dev/shm is not one.
 */
static void shm_dir(char *dir, size_t len)
{
	struct statfs sf;

	if (statfs("/dev/shm", &sf) || sf.f_type != TMPFS_MAGIC)
		rbt_skip("/dev/shm is not a tmpfs");
	snprintf(dir, len, "/dev/shm/tdtest-XXXXXX");
	if (!mkdtemp(dir))
		RBT_FAIL("mkdtemp(%s): %s", dir, strerror(errno));
}

/* Page @idx of @cpu: 10 counter records whose counts say both. */
static void sparse_page(unsigned char *mem, int cpu, uint32_t idx)
{
	unsigned char buf[64];
	struct tdt_page pg;

	tdt_page_init(&pg, mem, PSZ, 1000000000ull + idx * 10000ull);
	for (unsigned int i = 0; i < 10; i++) {
		size_t len = tdt_counter(buf, 1001,
					 (unsigned int)cpu << 20 | (idx * 10 + i),
					 (short)cpu, 0, 0);

		ASSERT_TRUE(tdt_page_data(&pg, i ? 100 : 0, buf, len));
	}
	tdt_page_finish(&pg, 0);
}

static void sparse_add(struct td_writer *w, int cpu, uint32_t *next)
{
	unsigned char *slot = td_writer_page_slot(w, cpu);

	ASSERT_NOT_NULL(slot);
	sparse_page(slot, cpu, next[cpu]++);
	/* every other page kept as a page checked where it was read (the
	 * file reads the same either way) */
	if (next[cpu] % 2)
		ASSERT_EQ(td_writer_commit_slot(w, cpu, NULL, NULL), 0);
	else
		ASSERT_EQ(td_writer_keep_slot(w, cpu, NULL), 0);
}

/*
 * The file reads with our reader and each cpu holds the first pages
 * written to it, in order: exactly @want[cpu] of them, or with @want
 * NULL at most @most[cpu] (a killed writer). Returns the records.
 */
static size_t sparse_check(const char *path, int ncpu, const uint32_t *want,
			   const uint32_t *most)
{
	unsigned char *mem = malloc(PSZ);
	struct td_reader *r;
	char err[256];
	size_t recs = 0;

	ASSERT_NOT_NULL(mem);
	if (td_reader_open(path, &r, err, sizeof(err)))
		RBT_FAIL("%s: %s", path, err);
	ASSERT_EQ(td_reader_nr_cpus(r), ncpu);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		uint64_t n = td_reader_nr_pages(r, cpu);

		if (want)
			ASSERT_EQ(n, want[cpu]);
		else
			ASSERT_LE(n, most[cpu]);
		for (uint64_t i = 0; i < n; i++) {
			sparse_page(mem, cpu, (uint32_t)i);
			if (memcmp(td_reader_page(r, cpu, i), mem, PSZ))
				RBT_FAIL("cpu %d page %llu differs", cpu,
					 (unsigned long long)i);
		}
		recs += (size_t)n * 10;
	}
	td_reader_close(r);
	free(mem);
	return recs;
}

/*
 * Pages of the three cpus of the sparse tests. Reservations are placed in
 * the order the cpus first write (at the first checkpoint: 0 and 2, then
 * 1), so that cpu 2's data comes before cpu 1's in the file. Cpu 0
 * outgrows its reservation of 8 pages several times, after cpus 1 and 2
 * have data of their own (more than cpu 0's growth: copied over itself).
 */
#define SPARSE_STEPS 400
static int sparse_cpu_of(int i)
{
	if (i < 7)
		return i ? 2 : 0;
	return i < 60 ? 1 + i % 2 : (i % 5 == 0 ? 1 : i % 7 == 0 ? 2 : 0);
}

/* The final counters of a writer, read by its "closed" step. */
struct sparse_end {
	struct td_writer *w;
	uint64_t written;
	uint64_t moved;
	bool closed;
};

static void sparse_closed(const char *what, void *arg)
{
	struct sparse_end *e = arg;

	if (strcmp(what, "closed"))
		return;
	e->written = td_writer_written(e->w);
	e->moved = td_writer_moved(e->w);
	e->closed = true;
}

static struct td_writer *sparse_open(const char *path)
{
	struct td_writer *w;

	ASSERT_EQ(td_writer_open(path, PSZ, 3, &w), 0);
	ASSERT_TRUE(td_writer_in_place(w));
	ASSERT_EQ(td_writer_set_reserve(w, 8 * PSZ), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_set_cmdlines(w, tdt_cmdlines), 0);
	ASSERT_EQ(td_writer_checkpoint(w), 0);
	return w;
}

/*
 * On a tmpfs the writer writes in place: every page once, a checkpoint
 * writes the header alone, and the file reads at each checkpoint with
 * exactly the pages written, while cpu 0 outgrows its (small)
 * reservation and the data of cpus 1 and 2 is copied up; the close
 * copies it down next to cpu 0's and leaves no hole. The bytes written
 * are at most the file's size plus the bytes moved, a fraction of what
 * copying the file at each checkpoint (the spooling writer) writes.
 */
static void sparse_in_place(void)
{
	char dir[128], path[256];
	uint32_t next[3] = { 0 };
	struct sparse_end end = { 0 };
	uint64_t pages, spooled = 0;
	struct stat st;
	int ckpts = 0;

	shm_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.dat", dir);
	end.w = sparse_open(path);
	td_writer_set_step_hook(end.w, sparse_closed, &end);
	for (int i = 0; i < SPARSE_STEPS; i++) {
		sparse_add(end.w, sparse_cpu_of(i), next);
		if (i % 7 != 6)
			continue;
		ASSERT_EQ(td_writer_checkpoint(end.w), 0);
		ckpts++;
		sparse_check(path, 3, next, NULL);
		/* a spooling writer copies every page written so far */
		spooled += (uint64_t)(next[0] + next[1] + next[2]) * PSZ;
		if (i % 140 == 136)
			expect_report_count(path,
					    (next[0] + next[1] + next[2]) * 10);
	}
	pages = next[0] + next[1] + next[2];
	spooled += pages * PSZ;
	rbt_note("pages %u %u %u, %llu bytes moved before the close",
		 next[0], next[1], next[2],
		 (unsigned long long)td_writer_moved(end.w));
	/* cpu 0 outgrew its room after cpus 1 and 2 had data: they moved */
	ASSERT_GE(td_writer_moved(end.w), 60ull * PSZ);
	ASSERT_EQ(td_writer_close(end.w), 0);
	ASSERT_TRUE(end.closed);
	sparse_check(path, 3, next, NULL);
	expect_report_count(path, pages * 10);
	ASSERT_EQ(stat(path, &st), 0);
	rbt_note("%llu bytes written, %llu moved, %lld in the file, %lld in "
		 "blocks; a spooling writer: over %llu",
		 (unsigned long long)end.written,
		 (unsigned long long)end.moved, (long long)st.st_size,
		 (long long)st.st_blocks * 512, (unsigned long long)spooled);
	/* the header (in its room, < 64 KiB) then the pages, no hole */
	ASSERT_GE((uint64_t)st.st_size, pages * PSZ);
	ASSERT_LT((uint64_t)st.st_size, pages * PSZ + (64u << 10));
	ASSERT_GE((uint64_t)st.st_blocks * 512, (uint64_t)st.st_size);
	/*
	 * and the cpu table's entries rewritten at checkpoints and moves,
	 * and the header's room written with zeroes before the header
	 */
	ASSERT_LE(end.written, (uint64_t)st.st_size + end.moved +
				       (uint64_t)(ckpts + 1) * 64 +
				       (16u << 10));
	ASSERT_LT(end.written * 4, spooled);
	tdt_rmdir(dir);
}

/* The step the killed writer stopped at, "<step> <phase>". */
static bool g_sparse_closing;
static int g_sparse_pipe = -1;

static void sparse_die(const char *what, void *arg)
{
	unsigned int *left = arg;
	char msg[32];
	int n;

	if (!strcmp(what, "closed") || --*left)
		return;
	n = snprintf(msg, sizeof(msg), "%s %s", what,
		     g_sparse_closing ? "close" : "grow");
	if (write(g_sparse_pipe, msg, (size_t)n) != n)
		_exit(3);
	/* as SIGKILL: nothing more is written */
	_exit(7);
}

/*
 * The writer @open makes at @path in @dir (in the child, which exits 77
 * to skip: @dir is removed) killed
 * at step 1, 2, ... of its moves in turn (the step hook @die) until a run
 * gets past the last one: @first pages of cpu 1, then the sparse tests'
 * pages with a checkpoint every 7, then the close. Each killed run leaves
 * a file that reads, our reader and trace-cmd, with for each cpu the
 * first pages written to it (at most @most), the last run the whole file.
 * Each kill's step message goes to @seen. Return: the kills.
 */
static unsigned int kill_each_step(const char *dir, const char *path,
				   struct td_writer *(*open)(const char *),
				   int first, void (*die)(const char *, void *),
				   const uint32_t *most,
				   void (*seen)(const char *, void *), void *arg)
{
	unsigned int kills = 0;
	size_t all = 0;

	for (int cpu = 0; cpu < 3; cpu++)
		all += (size_t)most[cpu] * 10;
	for (unsigned int step = 1; step < 400; step++) {
		int fds[2], status;
		char msg[32] = { 0 };
		pid_t pid;

		pid = fork_piped(fds);
		if (pid == 0) {
			uint32_t next[3] = { 0 };
			unsigned int left = step;
			struct td_writer *w = open(path);

			close(fds[0]);
			g_sparse_pipe = fds[1];
			td_writer_set_step_hook(w, die, &left);
			for (int i = 0; i < first; i++)
				sparse_add(w, 1, next);
			for (int i = 0; i < SPARSE_STEPS; i++) {
				sparse_add(w, sparse_cpu_of(i), next);
				if (i % 7 == 6 && td_writer_checkpoint(w))
					_exit(4);
			}
			g_sparse_closing = true;
			_exit(td_writer_close(w) ? 5 : 0);
		}
		close(fds[1]);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_GE(read(fds[0], msg, sizeof(msg) - 1), 0);
		close(fds[0]);
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status) == 77) {
			tdt_rmdir(dir);
			rbt_skip("built without libzstd");
		}
		if (WEXITSTATUS(status) == 0) {
			/* past the last step: the whole file */
			sparse_check(path, 3, most, NULL);
			expect_report_count(path, all);
			return kills;
		}
		ASSERT_EQ(WEXITSTATUS(status), 7);
		kills++;
		seen(msg, arg);
		expect_report_count(path, sparse_check(path, 3, NULL, most));
	}
	RBT_FAIL("no run got past the last step");
	return kills;
}

/* sparse_kill's count: the cpus hidden at a growth and at the close */
static void sparse_seen(const char *msg, void *arg)
{
	unsigned int *hidden = arg;

	if (!strncmp(msg, "hidden", 6))
		hidden[strstr(msg, "close") ? 1 : 0]++;
}

/*
 * A writer killed at each step of each move in turn (the cpu hidden
 * before a copy over itself, the copy done, the cpu shown at its new
 * place), as its reservations grow and as the close removes the holes,
 * leaves a file that reads, our reader and trace-cmd, with for each cpu
 * the first pages written to it (none for a cpu hidden then).
 */
static void sparse_kill(void)
{
	char dir[128], path[256];
	uint32_t most[3] = { 0 };
	unsigned int hidden[2] = { 0 }, kills;

	shm_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/k.dat", dir);
	for (int i = 0; i < SPARSE_STEPS; i++)
		most[sparse_cpu_of(i)]++;
	kills = kill_each_step(dir, path, sparse_open, 0, sparse_die, most,
			       sparse_seen, hidden);
	rbt_note("%u kills, cpus hidden at %u growths and %u close moves",
		 kills, hidden[0], hidden[1]);
	ASSERT_GT(hidden[0], 0u);
	ASSERT_GT(hidden[1], 0u);
	tdt_rmdir(dir);
}

/*
 * Pages of cpu 1 before the others': a full staging (TD_ZCHUNK_BYTES), the
 * first chunk of one, which takes the region right after the header (the
 * one the close need not move; the others move down to it).
 */
#define ZSPARSE_FIRST (TD_ZCHUNK_BYTES / PSZ)

/* The step a compressing writer was killed at (on its compressor
 * thread, which does not read g_sparse_closing). */
static void zsparse_die(const char *what, void *arg)
{
	unsigned int *left = arg;

	if (!strcmp(what, "closed") || --*left)
		return;
	if (write(g_sparse_pipe, what, strlen(what)) != (ssize_t)strlen(what))
		_exit(3);
	/* as SIGKILL: nothing more is written */
	_exit(7);
}

/* The sparse tests' writer compressed, its regions 3 pages (exits 77
 * without libzstd). */
static struct td_writer *zsparse_open(const char *path)
{
	struct td_writer *w;

	if (td_writer_open(path, PSZ, 3, &w))
		_exit(2);
	if (td_writer_set_compression(w, "zstd"))
		_exit(77);
	if (!td_writer_in_place(w) || td_writer_set_reserve(w, 3 * PSZ) ||
	    td_writer_add_format(w, "tdtest", tdt_counter_fmt) ||
	    td_writer_set_cmdlines(w, tdt_cmdlines) || td_writer_checkpoint(w))
		_exit(6);
	return w;
}

/* compressed_sparse_kill's count: [0] hidden, [1] copied */
static void zsparse_seen(const char *msg, void *arg)
{
	unsigned int *n = arg;

	n[0] += !strcmp(msg, "hidden");
	n[1] += !strcmp(msg, "copied");
}

/*
 * sparse_kill's writer compressed, in place (regions of 3 pages): killed
 * at each step of each move in turn (a region outgrown copied up; at the
 * close, each cpu's data copied down and shown at its new place, and,
 * where a copy would overwrite the data it copies, hidden first: a
 * layout this test does not make), on the compressor thread, it leaves
 * a file that reads, our reader and trace-cmd, with for each cpu the
 * first pages written to it up to its last checkpoint.
 */
static void compressed_sparse_kill(void)
{
	char dir[128], path[256];
	uint32_t most[3] = { 0 };
	unsigned int n[2] = { 0 }, kills;

	shm_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/z.dat", dir);
	for (int i = 0; i < SPARSE_STEPS; i++)
		most[sparse_cpu_of(i)]++;
	most[1] += ZSPARSE_FIRST;
	kills = kill_each_step(dir, path, zsparse_open, ZSPARSE_FIRST,
			       zsparse_die, most, zsparse_seen, n);
	rbt_note("%u kills, %u after a copy (up, or down at the close), %u "
		 "with a cpu hidden at the close", kills, n[1], n[0]);
	ASSERT_GT(n[1], 0u);
	tdt_rmdir(dir);
}

/* ---- files from trace-cmd ---------------------------------------------- */

/*
 * trace-cmd convert rewrites our file: as version 6 uncompressed, and as
 * version 7 compressed (zstd) or not, the reader reads it with the same
 * records, clock, symbols and names.
 */
static void trace_cmd_convert(void)
{
	struct tdt_recs ours = { 0 };
	char dir[128], path[256], v6[256], v7[256], cmd[1024], err[256];
	struct td_reader *r;
	char *out;
	int st;

	need_trace_cmd();
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ours.dat", dir);
	snprintf(v6, sizeof(v6), "%s/v6.dat", dir);
	snprintf(v7, sizeof(v7), "%s/v7.dat", dir);
	tdt_write_small(path);
	snprintf(cmd, sizeof(cmd),
		 "%s convert --file-version 6 --compression none -i %s -o %s "
		 "2>&1",
		 tdt_trace_cmd(), path, v6);
	out = tdt_run(cmd, &st);
	if (st)
		RBT_FAIL("%s: %d\n%s", cmd, st, out);
	free(out);
	tdt_read_file(path, &ours);
	check_reader(v6, &ours, 2);
	ASSERT_EQ(td_reader_open(v6, &r, err, sizeof(err)), 0);
	ASSERT_EQ(strcmp(td_reader_clock(r), "mono"), 0);
	ASSERT_NOT_NULL(strstr(td_reader_kallsyms(r), "send_reply"));
	ASSERT_NOT_NULL(strstr(td_reader_cmdlines(r), "beta gamma"));
	td_reader_close(r);

	for (int compress = 0; compress < 2; compress++) {
		snprintf(cmd, sizeof(cmd),
			 "%s convert --file-version 7 %s -i %s -o %s 2>&1",
			 tdt_trace_cmd(), compress ? "" : "--compression none",
			 path, v7);
		out = tdt_run(cmd, &st);
		if (st)
			RBT_FAIL("%s: %d\n%s", cmd, st, out);
		free(out);
		check_reader(v7, &ours, 2);
		ASSERT_EQ(td_reader_open(v7, &r, err, sizeof(err)), 0);
		ASSERT_EQ(strcmp(td_reader_clock(r), "mono"), 0);
		ASSERT_NOT_NULL(strstr(td_reader_kallsyms(r), "send_reply"));
		ASSERT_NOT_NULL(strstr(td_reader_cmdlines(r), "beta gamma"));
		td_reader_close(r);
	}
	tdt_recs_free(&ours);
	tdt_rmdir(dir);
}

/*
 * A compressed writer (td_writer_set_compression()): a version 7 file
 * with zstd sections that trace-cmd report shows as written (where
 * trace-cmd is installed) and our reader reads back, written in place
 * (where the file system allows) and spooled (td_writer_set_spooled());
 * the choice refused for an unknown algorithm and once pages are in.
 */
static void compressed(void)
{
	unsigned char head[14];
	struct td_writer *w;
	struct fixture fx;
	uint64_t ts = 1000;
	uint32_t seq = 0;
	char path[256];
	FILE *f;
	int ret;

	tdt_mkdir(fx.dir, sizeof(fx.dir));
	snprintf(path, sizeof(path), "%s/x.dat", fx.dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(td_writer_set_compression(w, "lz4"), -EINVAL);
	ret = td_writer_set_compression(w, "zstd");
	if (ret == -ENOTSUP) {
		td_writer_abort(w);
		tdt_rmdir(fx.dir);
		rbt_skip("built without libzstd");
	}
	ASSERT_EQ(ret, 0);
	ASSERT_TRUE(td_writer_compressed(w));
	ASSERT_EQ(td_writer_set_compression(w, "none"), -EBUSY);
	td_writer_abort(w);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	add_pages(w, 0, 1, &seq, &ts);
	ASSERT_EQ(td_writer_set_compression(w, "zstd"), -EBUSY);
	ASSERT_EQ(td_writer_set_compression(w, "none"), 0);
	td_writer_abort(w);
	tdt_rmdir(fx.dir);

	/* in place where the file system allows it, and spooled */
	for (int spooled = 0; spooled < 2; spooled++) {
		g_compression = "zstd";
		g_spooled = spooled;
		build_fixture(&fx);
		g_compression = NULL;
		g_spooled = false;
		f = fopen(fx.path, "rb");
		ASSERT_NOT_NULL(f);
		ASSERT_EQ(fread(head, 1, sizeof(head), f), sizeof(head));
		fclose(f);
		/* magic, "7\0", little endian, 8-byte long */
		ASSERT_EQ(head[10], '7');
		ASSERT_EQ(head[11], 0);
		check_reader(fx.path, &fx.exp, 2);
		if (tdt_trace_cmd())
			check_report(fx.path, &fx.exp, 2, false, false);
		fixture_free(&fx);
	}
}

/* zstd's ZSTD_compress(), for chunks our writer does not make (NULL
 * without libzstd.so.1). */
typedef size_t (*zcompress_fn)(void *dst, size_t cap, const void *src,
			       size_t n, int level);

static zcompress_fn zcompress(void)
{
	void *h = dlopen("libzstd.so.1", RTLD_LAZY | RTLD_LOCAL);

	return h ? (zcompress_fn)dlsym(h, "ZSTD_compress") : NULL;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * Cpu @cpu's data of the version 7 file @path made chunks of uneven
 * sizes, most not whole pages (a page spans two chunks or more): the
 * pages of @ref's @cpu compressed again, appended to the file, and the
 * BUFFER option's entry of the cpu pointed to them.
 */
static void rechunk(const char *path, struct td_reader *ref, int cpu,
		    zcompress_fn zc)
{
	static const size_t sizes[] = { 6001, 13, 2500, 8192 + 77, 4096 };
	uint64_t pages = td_reader_nr_pages(ref, cpu), len = pages * PSZ;
	size_t n, entry, at, cap, k = 0;
	unsigned char *b = tdt_slurp(path, &n), *data = malloc(len), *out;
	uint32_t chunks = 0;

	ASSERT_NOT_NULL(data);
	for (uint64_t i = 0; i < pages; i++)
		memcpy(data + i * PSZ, td_reader_page(ref, cpu, i), PSZ);
	/* room for the chunks, each at worst a little larger than its data */
	cap = n + 4 + 2 * len + 4096;
	out = malloc(cap);
	ASSERT_NOT_NULL(out);
	memcpy(out, b, n);
	entry = tdt_v7_cpu_entry(out, n, cpu);
	ASSERT_GT(entry, 0);
	at = n + 4;
	for (uint64_t pos = 0; pos < len; chunks++) {
		size_t us = sizes[k++ % (sizeof(sizes) / sizeof(sizes[0]))], cs;

		if (us > len - pos)
			us = (size_t)(len - pos);
		ASSERT_LT(at + 8, cap);
		cs = zc(out + at + 8, cap - at - 8, data + pos, us, 1);
		/* (an error is a size_t near its maximum) */
		ASSERT_LT(cs, cap - at - 8);
		put32(out + at, (uint32_t)cs);
		put32(out + at + 4, (uint32_t)us);
		at += 8 + cs;
		pos += us;
	}
	put32(out + n, chunks);
	for (int i = 0; i < 8; i++) {
		out[entry + i] = (unsigned char)(n >> (8 * i));
		out[entry + 8 + i] =
			(unsigned char)((at - n - 4) >> (8 * i));
	}
	tdt_spill(path, out, at);
	rbt_note("cpu %d: %u chunks of uneven sizes", cpu, chunks);
	free(out);
	free(data);
	free(b);
}

/*
 * A compressed file is read a chunk at a time: the same pages written
 * uncompressed (version 6) and compressed (version 7, zstd) read back
 * identical in time order (page i of each cpu in turn, as report merges
 * them), each chunk decompressed once, with at most TD_READER_CHUNKS
 * chunks a cpu held at a time: far less than the file's data; the
 * chunks are TD_ZCHUNK_BYTES, and trace-cmd report shows every record
 * of them (where trace-cmd is installed). Read
 * backwards, the chunks are decompressed again within the same bound;
 * released, nothing is held. A page spanning chunks (a file whose chunks
 * are not whole pages) reads whole.
 */
static void compressed_chunks(void)
{
	/* sixteen chunks a cpu, TD_READER_CHUNKS of them held at a time */
	const int pages = 16 * (TD_ZCHUNK_BYTES / PSZ);
	char dir[128], v6[256], v7[256], err[256];
	struct td_writer *w6, *w7;
	struct td_reader *r6, *r7;
	struct td_reader_stats st;
	uint64_t t6 = 1000, t7 = 1000, raw = 2ull * pages * PSZ, bound;
	uint32_t s6 = 0, s7 = 0;
	zcompress_fn zc;
	int ret;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(v6, sizeof(v6), "%s/v6.dat", dir);
	snprintf(v7, sizeof(v7), "%s/v7.dat", dir);
	ASSERT_EQ(td_writer_open(v6, PSZ, 2, &w6), 0);
	ASSERT_EQ(td_writer_open(v7, PSZ, 2, &w7), 0);
	ret = td_writer_set_compression(w7, "zstd");
	if (ret == -ENOTSUP) {
		td_writer_abort(w6);
		td_writer_abort(w7);
		tdt_rmdir(dir);
		rbt_skip("built without libzstd");
	}
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(td_writer_add_format(w6, "tdtest", tdt_counter_fmt), 0);
	ASSERT_EQ(td_writer_add_format(w7, "tdtest", tdt_counter_fmt), 0);
	for (int i = 0; i < pages; i++) {
		for (int cpu = 0; cpu < 2; cpu++) {
			add_pages(w6, cpu, 1, &s6, &t6);
			add_pages(w7, cpu, 1, &s7, &t7);
		}
	}
	ASSERT_EQ(td_writer_close(w6), 0);
	ASSERT_EQ(td_writer_close(w7), 0);
	if (td_reader_open(v6, &r6, err, sizeof(err)))
		RBT_FAIL("%s: %s", v6, err);
	if (td_reader_open(v7, &r7, err, sizeof(err)))
		RBT_FAIL("%s: %s", v7, err);

	/* in time order */
	for (int i = 0; i < pages; i++)
		for (int cpu = 0; cpu < 2; cpu++)
			if (memcmp(td_reader_page(r7, cpu, (uint64_t)i),
				   td_reader_page(r6, cpu, (uint64_t)i), PSZ))
				RBT_FAIL("cpu %d page %d differs", cpu, i);
	td_reader_stats(r7, &st);
	bound = 2 * TD_READER_CHUNKS * st.chunk_max;
	rbt_note("%llu chunks of up to %llu bytes, %llu decompressed; at most "
		 "%llu bytes held of %llu (the bound %llu)",
		 (unsigned long long)st.chunks,
		 (unsigned long long)st.chunk_max,
		 (unsigned long long)st.inflated,
		 (unsigned long long)st.peak, (unsigned long long)raw,
		 (unsigned long long)bound);
	ASSERT_GE(st.chunks, 8);
	ASSERT_EQ(st.chunk_max, TD_ZCHUNK_BYTES);
	ASSERT_EQ(st.inflated, st.chunks);
	ASSERT_LE(st.peak, bound);
	ASSERT_LE(st.peak * 4, raw);
	/* trace-cmd's decoder takes the chunks' frames (their window and
	 * tables as the writer sets them): every record */
	expect_report_count(v7, 2 * (size_t)pages * 10);

	/* backwards */
	for (int i = pages; i-- > 0;)
		if (memcmp(td_reader_page(r7, 0, (uint64_t)i),
			   td_reader_page(r6, 0, (uint64_t)i), PSZ))
			RBT_FAIL("cpu 0 page %d differs read backwards", i);
	td_reader_stats(r7, &st);
	ASSERT_GT(st.inflated, st.chunks);
	ASSERT_LE(st.peak, bound);
	td_reader_release(r7, 0, 0, (uint64_t)pages);
	td_reader_release(r7, 1, 0, (uint64_t)pages);
	td_reader_stats(r7, &st);
	ASSERT_EQ(st.held, 0);
	td_reader_close(r7);
	td_reader_stats(r6, &st);
	ASSERT_EQ(st.peak, 0);
	ASSERT_EQ(st.chunks, 0);

	/* pages across chunks */
	zc = zcompress();
	if (zc) {
		rechunk(v7, r6, 1, zc);
		if (td_reader_open(v7, &r7, err, sizeof(err)))
			RBT_FAIL("%s: %s", v7, err);
		for (int i = 0; i < pages; i++)
			for (int cpu = 0; cpu < 2; cpu++)
				if (memcmp(td_reader_page(r7, cpu, (uint64_t)i),
					   td_reader_page(r6, cpu, (uint64_t)i),
					   PSZ))
					RBT_FAIL("re-chunked: cpu %d page %d "
						 "differs", cpu, i);
		td_reader_stats(r7, &st);
		ASSERT_LE(st.peak, 2 * TD_READER_CHUNKS * st.chunk_max +
					   2 * PSZ);
		td_reader_close(r7);
	} else {
		rbt_note("no libzstd.so.1: no chunks of uneven sizes");
	}
	td_reader_close(r6);
	tdt_rmdir(dir);
}

/* td_page_for_each() callback: a counter record's count is the next one
 * of its cpu (*arg: the count expected, advanced) */
static void next_count(const struct td_record *rec, void *arg)
{
	const unsigned char *d = rec->data;
	uint32_t *want = arg, got;

	ASSERT_GE(rec->len, 12);
	got = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 |
	      (uint32_t)d[11] << 24;
	ASSERT_EQ(got, *want);
	(*want)++;
}

/*
 * @path holds @pages pages of each of two cpus, whose counters run from
 * 0 (cpu 0) and 1 << 24 (cpu 1) on, unbroken, to @seq's.
 */
static void expect_counted(const char *path, uint64_t pages,
			   const uint32_t seq[2])
{
	uint32_t want[2] = { 0, 1u << 24 };
	struct td_reader *r;
	char err[256];

	if (td_reader_open(path, &r, err, sizeof(err)))
		RBT_FAIL("%s: %s", path, err);
	for (int cpu = 0; cpu < 2; cpu++) {
		ASSERT_EQ(td_reader_nr_pages(r, cpu), pages);
		for (uint64_t i = 0; i < pages; i++) {
			unsigned long missed = 0;

			ASSERT_EQ(td_page_for_each(td_reader_page(r, cpu, i),
						   PSZ, next_count, &missed,
						   &want[cpu]),
				  0);
		}
		ASSERT_EQ(want[cpu], seq[cpu]);
	}
	td_reader_close(r);
}

/*
 * A compressed writer's pages go through its compressor threads' queue
 * (many full stagings of two cpus, compressed side by side and written
 * in the order they were queued, checkpoints between them, each one
 * showing every page added before it, and checkpoints not waited for,
 * td_writer_checkpoint_nowait()) and come back whole and in order,
 * page by page and record by record, written in place and spooled
 * (@spooled); a writer abandoned with stagings queued frees them (the
 * sanitizer builds check).
 */
static void compressed_queue_one(bool spooled)
{
	/* pages per turn: a staging and a half */
	enum { TURNS = 24, PER = TD_ZCHUNK_BYTES / PSZ * 3 / 2 };
	uint32_t seq[2] = { 0, 1u << 24 };
	uint64_t ts = 1000;
	struct td_writer *w;
	char dir[256], path[300];
	int ret;

	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/q.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ret = td_writer_set_compression(w, "zstd");
	if (ret == -ENOTSUP) {
		td_writer_abort(w);
		tdt_rmdir(dir);
		rbt_skip("built without libzstd");
	}
	ASSERT_EQ(ret, 0);
	if (spooled)
		ASSERT_EQ(td_writer_set_spooled(w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	for (int t = 0; t < TURNS; t++) {
		add_pages(w, t & 1, PER, &seq[t & 1], &ts);
		/* queued behind the chunks; at most one at a time */
		if (t % 8 == 2 || t % 8 == 3)
			ASSERT_EQ(td_writer_checkpoint_nowait(w), 0);
		if (t % 8 == 7) {
			ASSERT_EQ(td_writer_checkpoint(w), 0);
			expect_pages(path, (uint64_t)(t / 2 + 1) * PER,
				     (uint64_t)(t / 2 + 1) * PER);
		}
	}
	ASSERT_GT(td_writer_written(w), 0);
	ASSERT_EQ(td_writer_close(w), 0);
	expect_counted(path, TURNS / 2 * PER, seq);

	/* abandoned with full stagings queued */
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(td_writer_set_compression(w, "zstd"), 0);
	add_pages(w, 0, 4 * PER, &seq[0], &ts);
	add_pages(w, 1, 4 * PER, &seq[1], &ts);
	td_writer_abort(w);
	tdt_rmdir(dir);
}

/* in place where the file system allows it, and spooled */
static void compressed_queue(void)
{
	compressed_queue_one(false);
	compressed_queue_one(true);
}

/* td_pick_way()'s choice, counted in the caller's tallies, with the
 * write taking @cache_ns or @direct_ns a stage; returns the way */
static enum td_way pick_write(struct td_ways *ws, uint64_t cache_ns,
			      uint64_t direct_ns, int *direct)
{
	enum td_way way = td_pick_way(ws);

	*direct += way == TD_WAY_DIRECT;
	td_way_account(ws, way, way == TD_WAY_DIRECT ? direct_ns : cache_ns,
		       TD_STAGE_BYTES);
	return way;
}

/*
 * The two ways of writing pages in place (enum td_way): each measured
 * first (direct I/O first), then the faster, the other every
 * TD_WAY_PROBE_EVERY-th stage; a page cache that the kernel throttles
 * is left within a few stages, and taken again within a few probes once
 * it is fast again. And a file written both ways reads back whole.
 */
static void write_ways(void)
{
	enum { TURNS = 12, PER = TD_STAGE_BYTES / PSZ };
	const int probe = (int)(TD_WAY_PROBE_BYTES / TD_STAGE_BYTES);
	uint32_t seq[2] = { 0, 1u << 24 };
	struct td_ways ws = { { 0 }, { 0 }, 0 };
	uint64_t ts = 1000;
	struct td_writer *w;
	char dir[256], path[300];
	int n, direct = 0;

	/* 4 ms a stage direct, 0.2 ms through the page cache */
	for (n = 0; n < probe; n++)
		ASSERT_EQ(pick_write(&ws, 200000, 4000000, &direct),
			  TD_WAY_DIRECT);
	for (n = 0; n < probe; n++)
		ASSERT_EQ(pick_write(&ws, 200000, 4000000, &direct),
			  TD_WAY_CACHE);
	direct = 0;
	for (n = 0; n < 4 * (int)TD_WAY_PROBE_EVERY; n++)
		pick_write(&ws, 200000, 4000000, &direct);
	ASSERT_EQ(direct, 4);
	/* the page cache throttled (8 ms a stage): direct within 4 stages,
	 * then the page cache once in TD_WAY_PROBE_EVERY */
	for (n = 0; n < 4; n++)
		pick_write(&ws, 8000000, 4000000, &direct);
	direct = 0;
	for (n = 0; n < 2 * (int)TD_WAY_PROBE_EVERY; n++)
		pick_write(&ws, 8000000, 4000000, &direct);
	ASSERT_EQ(direct, 2 * (int)TD_WAY_PROBE_EVERY - 2);
	/* fast again: taken within 4 probes */
	for (n = 0; n < 4 * (int)TD_WAY_PROBE_EVERY; n++)
		pick_write(&ws, 200000, 4000000, &direct);
	direct = 0;
	for (n = 0; n < (int)TD_WAY_PROBE_EVERY; n++)
		pick_write(&ws, 200000, 4000000, &direct);
	ASSERT_LE(direct, 1);

	/* a file: stages of two cpus, in turns */
	tdt_mkdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ways.dat", dir);
	ASSERT_EQ(td_writer_open(path, PSZ, 2, &w), 0);
	ASSERT_EQ(td_writer_add_format(w, "tdtest", tdt_counter_fmt), 0);
	for (int t = 0; t < TURNS; t++)
		add_pages(w, t & 1, PER, &seq[t & 1], &ts);
	/* both ways taken where the file system has direct I/O */
	if (w->dfd >= 0) {
		ASSERT_GE(w->ways.bytes[TD_WAY_DIRECT], TD_WAY_PROBE_BYTES);
		ASSERT_GE(w->ways.bytes[TD_WAY_CACHE], TD_WAY_PROBE_BYTES);
	}
	ASSERT_EQ(td_writer_close(w), 0);
	expect_counted(path, TURNS / 2 * PER, seq);
	tdt_rmdir(dir);
}

static const struct rbt_case cases[] = {
	RBT_CASE(report_real_pages),  RBT_CASE(reader_real_pages),
	RBT_CASE(page_decoder),	      RBT_CASE(hand_pages),
	RBT_CASE(page_size_8k),	      RBT_CASE(clocks),
	RBT_CASE(sections),	      RBT_CASE(writer_errors),
	RBT_CASE(header_page_layout), RBT_CASE(checkpoint),
	RBT_CASE(write_once),         RBT_CASE(write_holes),
	RBT_CASE(checkpoint_kill),    RBT_CASE(disk_full),
	RBT_CASE(file_size_limit),    RBT_CASE(trace_cmd_convert),
	RBT_CASE(spares),
	RBT_CASE(trace_options),
	RBT_CASE(sparse_in_place),
	RBT_CASE(sparse_kill),
	RBT_CASE(compressed),
	RBT_CASE(compressed_chunks),
	RBT_CASE(compressed_queue),
	RBT_CASE(compressed_kill),
	RBT_CASE(compressed_sparse_kill),
	RBT_CASE(write_ways),
};
RBT_MAIN(cases)
