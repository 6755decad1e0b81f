// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The printer (print.h) on its own: the same records printed from a ring
 * buffer and from a record source (what "ringtrace report" gives it from
 * trace.dat pages) come out the same, function_graph nesting included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringbuf/ringbuf.h>

#include "print.h"
#include "test.h"
#include "trace.h"

static bool ev_op(void *ctx, struct ringtrace_seq *s, const void *rec,
		  unsigned int len, struct ringtrace_seq *name)
{
	const struct ringtrace_entry *e = rec;

	(void)ctx;
	(void)len;
	rt_seq_puts(name, "myevent");
	ringtrace_seq_printf(s, "type=%d fn=%ps", e->type,
			     (void *)(unsigned long)0x1010);
	return true;
}

static size_t sym_op(void *ctx, char *buf, size_t len, unsigned long addr,
		     bool offset)
{
	(void)ctx;
	(void)offset;
	return (size_t)snprintf(buf, len, "fn_%lx", addr);
}

static bool comm_op(void *ctx, int pid, char *comm, int *tgid)
{
	(void)ctx;
	snprintf(comm, 16, "task%d", pid);
	*tgid = pid;
	return true;
}

static const struct rt_printer_ops ops = { ev_op, sym_op, comm_op, NULL,
					   NULL, NULL };

static void put(struct ringbuf *rb, const void *rec, size_t len)
{
	ASSERT_EQ(ringbuf_write(rb, len, rec), 0);
}

static void fill(struct ringbuf *rb)
{
	struct rt_graph_ent_entry ent = { { RT_TYPE_GRAPH_ENT, 0, 0, 7 },
					  0x1000, 0 };
	struct rt_graph_ret_entry ret = { { RT_TYPE_GRAPH_RET, 0, 0, 7 },
					  0x1000, 0, 0, 0, 100, 2600 };
	struct rt_fn_entry fn = { { RT_TYPE_FN, 0, 0, 7 }, 0x2000, 0x1000 };
	struct ringtrace_entry other = { 40, 0, 0, 8 };

	put(rb, &ent, sizeof(ent));
	ent.func = 0x1100;
	ent.depth = 1;
	put(rb, &ent, sizeof(ent));
	ret.func = 0x1100;
	ret.depth = 1;
	put(rb, &ret, sizeof(ret));
	put(rb, &other, sizeof(other));
	ret.func = 0x1000;
	ret.depth = 0;
	ret.rettime = 123456;
	put(rb, &ret, sizeof(ret));
	put(rb, &fn, sizeof(fn));
}

/* A source over a ring buffer, consuming */
struct rbsrc {
	struct ringbuf *rb;
	unsigned char copy[4096];
};

static bool src_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
		     unsigned int *len, long *lost)
{
	struct rbsrc *s = ctx;
	unsigned long l = 0;
	struct ringbuf_event *e = ringbuf_peek(s->rb, cpu, ts, &l);

	if (!e)
		return false;
	*len = ringbuf_event_length(e);
	memcpy(s->copy, ringbuf_event_data(e), *len);
	*data = s->copy;
	if (lost)
		*lost = (long)l;
	return true;
}

static void src_advance(void *ctx, int cpu)
{
	struct rbsrc *s = ctx;

	ASSERT_NOT_NULL(ringbuf_consume(s->rb, cpu, NULL, NULL));
}

static char *capture_view(struct ringbuf *rb, const struct rt_print_cfg *cfg)
{
	char *buf = NULL, *body;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_EQ(rt_print_view(rb, cfg, &ops, f), 0);
	fclose(f);
	/* the body: after the header */
	body = buf;
	while (*body == '#')
		body = strchr(body, '\n') + 1;
	body = strdup(body);
	free(buf);
	return body;
}

static char *capture_source(struct ringbuf *rb, const struct rt_print_cfg *cfg)
{
	struct rbsrc s = { .rb = rb };
	struct rt_record_source src = { ringbuf_nr_cpus(rb), ringbuf_clock(rb),
					src_peek, src_advance, &s,
					ringbuf_nr_cpu_buffers(rb), NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_EQ(rt_print_source(&src, RINGBUF_ALL_CPUS, cfg, &ops, f), 6 - 1);
	fclose(f);
	return buf;
}

static void view_equals_source(void)
{
	struct rt_print_cfg cfg = { .opts = RT_OPT(RT_OPT_PRINT_PARENT) |
					    RT_OPT(RT_OPT_CONTEXT_INFO) |
					    RT_OPT(RT_OPT_IRQ_INFO) |
					    RT_OPT(RT_OPT_FUNCGRAPH_CPU) |
					    RT_OPT(RT_OPT_FUNCGRAPH_DURATION) |
					    RT_OPT(RT_OPT_FUNCGRAPH_OVERHEAD),
				    .tracer = RT_TRACER_GRAPH };
	struct ringbuf *rb = ringbuf_alloc(1 << 16, RINGBUF_FL_OVERWRITE);
	char *a, *b;

	ASSERT_NOT_NULL(rb);
	fill(rb);
	a = capture_view(rb, &cfg);
	b = capture_source(rb, &cfg);
	if (strcmp(a, b) || getenv("RT_SHOW"))
		fprintf(stderr, "view:\n%s\nsource:\n%s", a, b);
	ASSERT_EQ(strcmp(a, b), 0);
	ASSERT_NOT_NULL(strstr(a, "|  fn_1000() {\n"));
	ASSERT_NOT_NULL(strstr(a, "2.500 us    |    fn_1100();\n"));
	/* after a leaf, comments go at the leaf's parent's depth */
	ASSERT_NOT_NULL(strstr(a, "|  /* myevent: type=40 fn=fn_1010 */\n"));
	ASSERT_NOT_NULL(strstr(a, ") ! 123.356 us  |  }\n"));
	ASSERT_NOT_NULL(strstr(a, ")    task7-7     =>    task8-8    \n"));
	ASSERT_NOT_NULL(strstr(a, "task7-7 "));
	free(a);
	free(b);
	ringbuf_free(rb);
}

/* Two streams, one record each: a CPU buffer, then a spare that lost
 * three events before its record. */
struct two {
	int done[2];
	struct rt_fn_entry fn;
	struct rt_graph_ret_entry ret;
	bool graph;
	int on; /* the CPU the spare's record was written on, or -1 */
};

static bool two_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
		     unsigned int *len, long *lost)
{
	struct two *t = ctx;

	if (t->done[cpu])
		return false;
	*ts = 1000000000ull + (uint64_t)cpu * 1000;
	*data = t->graph ? (const void *)&t->ret : (const void *)&t->fn;
	*len = t->graph ? sizeof(t->ret) : sizeof(t->fn);
	if (lost)
		*lost = cpu ? 3 : 0;
	return true;
}

static void two_advance(void *ctx, int cpu)
{
	((struct two *)ctx)->done[cpu] = 1;
}

static int two_on_cpu(void *ctx, int cpu)
{
	return cpu ? ((struct two *)ctx)->on : 0;
}

static char *capture_two_on(const struct rt_print_cfg *cfg, int on)
{
	struct two t = { { 0, 0 },
			 { { RT_TYPE_FN, 0, 0, 7 }, 0x2000, 0x1000 },
			 { { RT_TYPE_GRAPH_RET, 0, 0, 7 }, 0x1000, 0, 0, 0,
			   100, 2600 },
			 cfg->tracer == RT_TRACER_GRAPH, on };
	struct rt_record_source src = { 2, RINGBUF_CLOCK_MONO, two_peek,
					two_advance, &t, 1, two_on_cpu };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_GE(rt_print_source(&src, RINGBUF_ALL_CPUS, cfg, &ops, f), 2);
	fclose(f);
	return buf;
}

static char *capture_two(const struct rt_print_cfg *cfg)
{
	return capture_two_on(cfg, -1);
}

/* A spare's records are named S<n> where the CPU goes, never a CPU. */
static void spare_cpu_name(void)
{
	struct rt_print_cfg cfg = { .opts = RT_OPT(RT_OPT_CONTEXT_INFO),
				    .tracer = RT_TRACER_NOP };
	char *a;

	a = capture_two(&cfg);
	if (getenv("RT_SHOW"))
		fprintf(stderr, "%s", a);
	ASSERT_NOT_NULL(strstr(a, "task7-7       [000] "));
	ASSERT_NOT_NULL(strstr(a, "CPU:S0 [LOST 3 EVENTS]\n"));
	ASSERT_NOT_NULL(strstr(a, "task7-7       [S00] "));
	ASSERT_NULL(strstr(a, "[001]"));
	free(a);
	cfg.opts |= RT_OPT(RT_OPT_LATENCY_FMT);
	a = capture_two(&cfg);
	if (getenv("RT_SHOW"))
		fprintf(stderr, "%s", a);
	ASSERT_NOT_NULL(strstr(a, "-7        S0"));
	free(a);
	cfg.opts = RT_OPT(RT_OPT_FUNCGRAPH_CPU) | RT_OPT(RT_OPT_CONTEXT_INFO);
	cfg.tracer = RT_TRACER_GRAPH;
	a = capture_two(&cfg);
	if (getenv("RT_SHOW"))
		fprintf(stderr, "%s", a);
	ASSERT_NOT_NULL(strstr(a, " 0) "));
	ASSERT_NOT_NULL(strstr(a, " S0) "));
	free(a);
}

/*
 * A spare's record whose CPU note says where it was written shows that
 * CPU in the CPU column (every format); the loss is still the spare's.
 */
static void spare_written_cpu(void)
{
	struct rt_print_cfg cfg = { .opts = RT_OPT(RT_OPT_CONTEXT_INFO),
				    .tracer = RT_TRACER_NOP };
	char *a;

	a = capture_two_on(&cfg, 1);
	if (getenv("RT_SHOW"))
		fprintf(stderr, "%s", a);
	ASSERT_NOT_NULL(strstr(a, "task7-7       [000] "));
	ASSERT_NOT_NULL(strstr(a, "CPU:S0 [LOST 3 EVENTS]\n"));
	ASSERT_NOT_NULL(strstr(a, "task7-7       [001] "));
	ASSERT_NULL(strstr(a, "[S00]"));
	free(a);
	cfg.opts |= RT_OPT(RT_OPT_LATENCY_FMT);
	a = capture_two_on(&cfg, 1);
	ASSERT_NOT_NULL(strstr(a, "-7         1....."));
	ASSERT_NULL(strstr(a, "-7        S0"));
	free(a);
	cfg.opts = RT_OPT(RT_OPT_FUNCGRAPH_CPU) | RT_OPT(RT_OPT_CONTEXT_INFO);
	cfg.tracer = RT_TRACER_GRAPH;
	a = capture_two_on(&cfg, 1);
	ASSERT_NOT_NULL(strstr(a, " 1) "));
	ASSERT_NULL(strstr(a, " S0) "));
	free(a);
}

/*
 * A thread that leaves CPU 1 inside fn_1100() and comes back to it
 * inside a later call of fn_1100(): the record after the first entry on
 * CPU 1 is the later call's return. Scripted per-cpu streams of
 * (time, record); none of the two calls may fold into a leaf.
 */
struct migr_rec {
	uint64_t ts;
	bool ret;
	unsigned long func;
	int depth;
	uint64_t calltime;
	int pid; /* 0: 7 */
};

static const struct migr_rec migr_cpu0[] = {
	{ 2000, true, 0x1100, 1, 1100, 0 },
	{ 2100, true, 0x1000, 0, 1000, 0 },
	{ 3000, false, 0x1000, 0, 0, 0 },
	{ 3100, false, 0x1100, 1, 0, 0 },
};
static const struct migr_rec migr_cpu1[] = {
	{ 1000, false, 0x1000, 0, 0, 0 },
	{ 1100, false, 0x1100, 1, 0, 0 },
	{ 4000, true, 0x1100, 1, 3100, 0 },
	{ 4100, true, 0x1000, 0, 3000, 0 },
	/* a call that stays on the CPU still folds */
	{ 5000, false, 0x1200, 0, 0, 0 },
	{ 5600, true, 0x1200, 0, 5000, 0 },
};

/*
 * The same thread's moves, with another thread's call on CPU 0 before
 * the thread's first record there: the thread's record on CPU 0 is not
 * the next one of that buffer when the first entry on CPU 1 prints, and
 * only the later return's calltime tells the two calls apart (the
 * returns on CPU 1 stamped after their rettime, raised as a buffer that
 * several threads share raises them).
 */
static const struct migr_rec migr2_cpu0[] = {
	{ 1500, false, 0x1300, 0, 0, 8 },
	{ 1600, true, 0x1300, 0, 1500, 8 },
	{ 2000, true, 0x1100, 1, 1100, 0 },
	{ 2100, true, 0x1000, 0, 1000, 0 },
	{ 3000, false, 0x1000, 0, 0, 0 },
	{ 3100, false, 0x1100, 1, 0, 0 },
};

struct migr {
	unsigned int at[2];
	const struct migr_rec *cpu0;
	unsigned int n0;
	/* CPU 1's returns stamped this much after their rettime (raised to
	 * the buffer's last stamp) */
	uint64_t raised;
	union {
		struct rt_graph_ent_entry ent;
		struct rt_graph_ret_entry ret;
	} rec;
};

static bool migr_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
		      unsigned int *len, long *lost)
{
	struct migr *m = ctx;
	const struct migr_rec *r = cpu ? migr_cpu1 : m->cpu0;
	unsigned int n = cpu ? 6 : m->n0;
	int pid;

	if (m->at[cpu] >= n)
		return false;
	r += m->at[cpu];
	pid = r->pid ? r->pid : 7;
	memset(&m->rec, 0, sizeof(m->rec));
	if (r->ret) {
		m->rec.ret.ent = (struct ringtrace_entry){ RT_TYPE_GRAPH_RET, 0,
							   0, pid };
		m->rec.ret.func = r->func;
		m->rec.ret.depth = r->depth;
		m->rec.ret.calltime = r->calltime;
		m->rec.ret.rettime = r->ts - (cpu ? m->raised : 0);
		*len = sizeof(m->rec.ret);
	} else {
		m->rec.ent.ent = (struct ringtrace_entry){ RT_TYPE_GRAPH_ENT, 0,
							   0, pid };
		m->rec.ent.func = r->func;
		m->rec.ent.depth = r->depth;
		*len = sizeof(m->rec.ent);
	}
	*ts = r->ts;
	*data = &m->rec;
	if (lost)
		*lost = 0;
	return true;
}

static void migr_advance(void *ctx, int cpu)
{
	((struct migr *)ctx)->at[cpu]++;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void leaf_not_across_cpus(void)
{
	struct rt_print_cfg cfg = { .opts = RT_OPT(RT_OPT_CONTEXT_INFO) |
					    RT_OPT(RT_OPT_FUNCGRAPH_CPU) |
					    RT_OPT(RT_OPT_FUNCGRAPH_DURATION),
				    .tracer = RT_TRACER_GRAPH };
	for (int behind = 0; behind < 2; behind++) {
		struct migr m = { { 0, 0 },
				  behind ? migr2_cpu0 : migr_cpu0,
				  behind ? 6 : 4,
				  behind ? 300 : 0,
				  { .ent = { { 0, 0, 0, 0 }, 0, 0 } } };
		struct rt_record_source src = { 2, RINGBUF_CLOCK_MONO,
						migr_peek, migr_advance, &m, 2,
						NULL };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int n = rt_print_source(&src, RINGBUF_ALL_CPUS, &cfg, &ops, f);

		fclose(f);
		if (getenv("RT_SHOW"))
			fprintf(stderr, "%s", buf);
		ASSERT_EQ(n, behind ? 10 : 9);
		/* both calls of fn_1100 open on CPU 1 and close on the
		 * other */
		ASSERT_EQ(count_of(buf, "fn_1100() {\n"), 2);
		ASSERT_EQ(count_of(buf, "fn_1100();"), 0);
		ASSERT_NOT_NULL(strstr(buf, " 0)   0.900 us    |    } /* fn_1100 */\n"));
		ASSERT_NOT_NULL(strstr(buf, behind ? " 1)   0.600 us    |    }\n" :
						     " 1)   0.900 us    |    }\n"));
		/* the calls that stayed on their CPU are leaves */
		ASSERT_NOT_NULL(strstr(buf, behind ? " 1)   0.300 us    |  fn_1200();\n" :
						     " 1)   0.600 us    |  fn_1200();\n"));
		if (behind)
			ASSERT_NOT_NULL(strstr(buf, "0.100 us    |  fn_1300();\n"));
		free(buf);
	}
}

/*
 * A call's exit in each layout (entries.h): funcgraph_exit without the
 * return value (40 bytes: the kernel's layout without
 * CONFIG_FUNCTION_GRAPH_RETVAL) prints none whatever funcgraph-retval
 * says; fgraph_retval_exit prints it, and so does a funcgraph_exit of 48
 * bytes (the kernel's layout with the option: the files ringtrace wrote
 * before the exit went without it).
 */
static void graph_exit_layouts(void)
{
	struct rt_print_cfg cfg = { .opts = RT_OPT(RT_OPT_CONTEXT_INFO) |
					    RT_OPT(RT_OPT_FUNCGRAPH_DURATION) |
					    RT_OPT(RT_OPT_FUNCGRAPH_RETVAL),
				    .tracer = RT_TRACER_GRAPH };
	struct ringbuf *rb = ringbuf_alloc(1 << 16, RINGBUF_FL_OVERWRITE);
	struct rt_graph_ent_entry ent = { { RT_TYPE_GRAPH_ENT, 0, 0, 7 },
					  0x1000, 0 };
	struct rt_graph_ret_entry ret = { { RT_TYPE_GRAPH_RETVAL, 0, 0, 7 },
					  0x1000, (unsigned long)-5, 0, 0,
					  100, 2600 };
	struct rt_graph_exit_entry x = { { RT_TYPE_GRAPH_RET, 0, 0, 7 },
					 0x1000, 0, 0, 100, 2600 };
	char *a;

	ASSERT_NOT_NULL(rb);
	put(rb, &ent, sizeof(ent));
	put(rb, &x, sizeof(x));
	put(rb, &ent, sizeof(ent));
	put(rb, &ret, sizeof(ret));
	ret.ent.type = RT_TYPE_GRAPH_RET;
	ret.retval = 3;
	put(rb, &ent, sizeof(ent));
	put(rb, &ret, sizeof(ret));
	a = capture_view(rb, &cfg);
	if (getenv("RT_SHOW"))
		fprintf(stderr, "%s", a);
	ASSERT_EQ(count_of(a, "2.500 us    |  fn_1000();\n"), 1);
	ASSERT_NOT_NULL(strstr(a, "2.500 us    |  fn_1000(); /* = -5 */\n"));
	ASSERT_NOT_NULL(strstr(a, "2.500 us    |  fn_1000(); /* = 0x3 */\n"));
	free(a);
	ringbuf_free(rb);
}

/* The kernel's print_function_args() rules on prototypes (fnproto.h). */
static void fn_args_text(void)
{
	static const unsigned long regs[6] = {
		0xffffffffffffff9cul, 0x1ff, 0x7fff0000, 0x10, 0x20, 0x30
	};
	static const struct {
		const char *proto;
		const char *want;
	} t[] = {
		{ "", "()" },
		{ "a:s1 b:u1 c:p", "(a=-100, b=0xff, c=0x7fff0000)" },
		{ "a:s4 b:e4", "(a=-100, b=511)" },
		{ "s:S16:STRUCT x:s8", "(s=(STRUCT)[0xffffffffffffff9c:0x1ff], "
				       "x=2147418112)" },
		{ "d:f8 a:s8", "(d=(FLOAT), a=-100)" },
		{ "b:S32:STRUCT a:u2", "(b=(STRUCT), a=0xff9c)" },
		{ "a:p b:p c:p d:p e:p f:p g:p",
		  "(a=0xffffffffffffff9c, b=0x1ff, c=0x7fff0000, d=0x10, "
		  "e=0x20, f=0x30, ...)" },
		{ "a:p b:p c:p d:p e:p f:S16:STRUCT",
		  "(a=0xffffffffffffff9c, b=0x1ff, c=0x7fff0000, d=0x10, "
		  "e=0x20, f=(STRUCT)[0x30:...])" },
		{ "fmt:p ...", "(fmt=0xffffffffffffff9c, ...)" },
		{ ":s4 v:?", "(-100, v=?0x1ff)" },
		{ NULL, "(ffffffffffffff9c, 1ff, 7fff0000, 10, 20, 30)" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ringtrace_seq s;

		rt_seq_init(&s);
		rt_print_fn_args(&s, t[i].proto, regs);
		if (strcmp(s.buf, t[i].want))
			RBT_FAIL("'%s': %s, wanted %s", t[i].proto ? t[i].proto : "(none)",
				 s.buf, t[i].want);
		rt_seq_free(&s);
	}
}

static const struct rbt_case cases[] = {
	RBT_CASE(graph_exit_layouts),
	RBT_CASE(fn_args_text),
	RBT_CASE(view_equals_source),
	RBT_CASE(spare_cpu_name),
	RBT_CASE(spare_written_cpu),
	RBT_CASE(leaf_not_across_cpus),
};
RBT_MAIN(cases)
