// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dynftrace.c - dynamic ftrace for userspace (x86-64): the call sites the
 * compiler recorded, turned into NOPs at start-up and patched into calls
 * of the entry trampoline only while a tracer needs them
 *
 * The records (the kernel's HAVE_FTRACE_MCOUNT_RECORD): every object
 * loaded, at start-up and by each dlopen() (dl_iterate_phdr() over the
 * loader's list, the object's section headers read from its file with
 * libelf), is searched for
 *
 *  __mcount_loc			-pg [-mfentry] -mrecord-mcount: the
 *					address of each call of mcount or
 *					__fentry__ (a 5-byte "call rel32", or
 *					the 6-byte "call *GOT(%rip)" of -fpic
 *					code), or of the 5-byte NOP that
 *					-mnop-mcount leaves instead
 *  __patchable_function_entries	-fpatchable-function-entry=N[,M]
 *					(GCC, Clang): the address of each
 *					function's N NOPs
 *
 * and each site is classified by its bytes (dyn_site_classify()). A site
 * that was a call keeps its call as its "on" instruction (it reaches
 * libringtrace's __fentry__ or mcount through the object's PLT or GOT);
 * a NOP site gets "call rel32" to a trampoline page mapped within 2 GiB
 * of its object, which jumps on to __fentry__. "Off" is the 5- or 6-byte
 * NOP.
 *
 * The kernel gives an ftrace_ops of its own a trampoline of its own when
 * it is the only one at a site, whose call goes straight to the ops'
 * func (no list walk, no hash test). So here: while the function tracer
 * is the only tracer (no function_graph, no function command), a site
 * at a function's entry (its first instruction, or after an endbr64: a
 * NOP site, or the compiler's call of __fentry__, whose object then gets
 * a trampoline page too) calls a slot of the page that jumps to
 * ftrace_func_caller (directly where the library is within reach of the
 * page, else through the address stored after the jump) with the
 * distance from the site's return to the function in %r11: the record is
 * written with no lookup of the site, the lists or the ops. For
 * function_graph alone the site is a "jmp" (not a call) to a stub of its
 * own in the object's stub pages, which puts the function's body in %r11
 * and jumps to ftrace_graph_body_caller_D: it pushes the return frame
 * with no lookup and calls the body itself (mcount_x86_64.S), so that no
 * return is hijacked. Switching a tracer on or off patches the sites
 * from one instruction to the other; a call that comes to a slot or stub
 * meanwhile is its old tracer's (fgraph_fast.c).
 *
 * The kernel's ftrace_init() NOPs every recorded call at boot; here the
 * first update after a scan (rt_dynftrace_update()) does, and from then
 * on a site is a call exactly when a tracer that wants it runs: the
 * function or function_graph tracer in some instance, and the site's
 * function passes set_ftrace_filter and set_ftrace_notrace (the kernel's
 * filter hash of the global ops). set_graph_function, set_graph_notrace
 * and the pid lists do not change which sites are calls, as in the
 * kernel; they are tested when a call comes.
 *
 * Patching (the kernel's text_poke_bp_batch()), for every site that
 * changes at once:
 *   1. an int3 on the first byte of each site;    sync
 *   2. the rest of each new instruction;           sync
 *   3. the first byte of each;                     sync
 * where "sync" is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE):
 * every thread of the process runs a core-serializing instruction before
 * it runs user code again, so none executes a stale mix of old and new
 * bytes. A thread that meets an int3 meanwhile takes SIGTRAP: the handler
 * (dyn_sigtrap()) emulates the new instruction (the kernel's
 * poke_int3_handler()), or, when the patch is already over by the time
 * the handler runs, executes the site again. The bytes are written
 * through /proc/self/mem (pwrite(), which writes read-only mappings
 * copy-on-write, as a debugger's breakpoints): the text never stops
 * being executable, and nothing is mprotect()ed.
 *
 * Userspace: the kernel's 5-byte NOP is one instruction; GCC's
 * -fpatchable-function-entry NOPs are N one-byte NOPs, and a thread
 * that is between two of them when they are rewritten would resume in
 * the middle of the new instruction. So they are rewritten once, as one
 * 5-byte NOP (or the call, when a tracer already wants the site), in the
 * update that follows the scan that found them: at start-up, or in the
 * dlopen() that loads their object, before other threads can have
 * entered its functions in the common case; from then on every patch
 * swaps one instruction for another. It is a limit where a thread runs
 * an object's code while its dlopen() is still in progress (its
 * constructors start threads).
 *
 * dlclose() is interposed: the object's sites leave the table under the
 * same lock as patching, so a patch never writes into an object being
 * unloaded.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ftrace.h"
#include "fgraph.h"
#include "fnproto.h"
#include "rcu.h"
#include "symbols.h"

#define RT_NOTRACE __attribute__((no_instrument_function))
#define RT_EXPORT __attribute__((visibility("default")))

#define DYN_INT3 0xcc

static const unsigned char dyn_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const unsigned char dyn_nop6[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

enum dyn_kind {
	DYN_CALL5,    /* call rel32 to mcount/__fentry__ (its PLT) */
	DYN_CALL6,    /* call *GOT(%rip) */
	DYN_NOP5,     /* one 5-byte NOP (-mnop-mcount, Clang's entries) */
	DYN_NOPS,     /* five or more one-byte NOPs (GCC's entries) */
};

/*
 * The trampoline page: "jmp *0(%rip)" to __fentry__ at +0 and to mcount
 * at +16, then the one-tracer slots, one per distance D from a site's
 * return to its function (DYN_FAST_MIN to DYN_FAST_MAX) and per
 * trampoline (ftrace_func_caller, or ftrace_func_caller_gpr for G) at
 * DYN_FAST_SLOT(D, G): "mov $D, %r11d" and a jump to the trampoline,
 * "jmp rel32" where the library is within reach of the page, else
 * "jmp *0(%rip)" and the address. The slots are the function tracer's:
 * function_graph alone takes the stubs below.
 */
#define DYN_FAST_MIN 5 /* the site is the function's first instruction */
#define DYN_FAST_MAX 10 /* ... after an endbr64, a six-byte call site */
#define DYN_FAST_NR (DYN_FAST_MAX - DYN_FAST_MIN + 1)
#define DYN_FAST_SLOT(d, g)                                                   \
	(64 + 32 * ((unsigned long)((d) - DYN_FAST_MIN) +                    \
		    ((g) ? DYN_FAST_NR : 0)))

/* Which one-tracer trampoline a site calls (struct dyn_site's @fast). */
enum dyn_fast {
	DYN_FAST_NONE = 0, /* none: the general entry, or NOPs */
	DYN_FAST_FUNC,	   /* ftrace_func_caller(_gpr): function alone */
	DYN_FAST_GRAPH,	   /* a jump to its stub, ftrace_graph_body_caller_D:
			    * function_graph alone */
};

/*
 * The stub pages of an object: the addresses of the
 * ftrace_graph_body_callers (12 of them, for "jmp *cell(%rip)" where the
 * library is out of reach of a "jmp rel32") in the first
 * DYN_STUB_HEAD bytes, then DYN_STUB_SIZE bytes for each site that can
 * take a stub (struct dyn_site's @stub): at +0 the stub of
 * ftrace_graph_body_caller_D, at +16 that of its _gpr entry, each
 * "lea BODY(%rip), %r11" and the jump.
 */
#define DYN_STUB_HEAD 128
#define DYN_STUB_SIZE 32
#define DYN_STUB_GPR 16

/* What a site's function takes, for the function tracer's trampoline. */
enum dyn_regs {
	DYN_REGS_UNKNOWN = 0, /* not looked at yet */
	DYN_REGS_ALL,	      /* anything: xmm0-7 saved too */
	DYN_REGS_GPR,	      /* integers, pointers, enumerations only */
};

static const unsigned char dyn_endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
/* The CS segment override: the prefix of a six-byte "cs call rel32". */
#define DYN_CS_PREFIX 0x2e

/**
 * struct dyn_site - one recorded call site
 * @ip: its address
 * @func: the function it belongs to (the symbol containing it, or @ip)
 * @obj: its object's index in dyn_objs
 * @len: the length of its instruction (5 or 6)
 * @kind: enum dyn_kind
 * @on: the bytes of the call
 * @fast_delta: the return after the site minus the function's start,
 *	when the site can take ftrace_func_caller (a NOP, or an -mfentry
 *	call, at the function's entry), else 0
 * @fast_regs: enum dyn_regs, found at the site's first fast patch
 * @stub: its place among its object's stubs (where @fast_delta is set)
 * @enabled: it is a call (or a jump to its stub) now
 * @fast: ... of one of the one-tracer slots (enum dyn_fast)
 * @broken: it could not be written (reported); left alone
 * @raw: still the compiler's one-byte NOPs (DYN_NOPS): made one 5-byte
 *	NOP at the first update, which comes right after the scan that
 *	found the site (see the top of the file)
 */
struct dyn_site {
	unsigned long ip;
	unsigned long func;
	unsigned int obj;
	unsigned char len;
	unsigned char kind;
	unsigned char on[6];
	unsigned char fast_delta;
	unsigned char fast_regs;
	uint32_t stub;
	bool enabled;
	unsigned char fast;
	bool broken;
	bool raw;
};

/**
 * struct dyn_obj - a loaded object with sites
 * @base: its load bias
 * @name: its path ("" for the program)
 * @tramp: its trampoline page (0 until a NOP site needs it)
 * @stubs: its stub pages (0 until function_graph alone needs them)
 * @stubs_len: their size
 * @nr_stubs: its sites that can take a stub
 * @lo: the start of its text
 * @hi: the end of its text
 * @gone: dlclose()d: its sites are no longer in the table
 * @seen: found by the current scan
 * @stubs_failed: no stub pages could be made (the sites take the
 *	general entry)
 */
struct dyn_obj {
	unsigned long base;
	char *name;
	unsigned long tramp;
	unsigned long stubs;
	size_t stubs_len;
	uint32_t nr_stubs;
	unsigned long lo, hi;
	bool gone;
	bool seen;
	bool stubs_failed;
};

/*
 * The table the hooks and the SIGTRAP handler read: the sites sorted by
 * address, immutable once published. Replaced (and the old one freed
 * after a grace period) when objects come and go. @index finds a site
 * by the return address after it (what the entry trampoline has) in a
 * few loads: an open-addressed hash (linear probing, at most half full)
 * of 1 + the site's place in @sites, 0 for an empty slot, @mask + 1
 * slots, in the table's own allocation after @sites.
 */
struct dyn_table {
	size_t nr;
	size_t mask;
	uint32_t *index;
	struct dyn_site sites[];
};

/* Under dyn_lock: the current table (also published in dyn_pub). */
/*
 * Recursive: dlclose() holds it across the unload, and an object's
 * destructors may dlopen() or dlclose() (a plugin closing its own
 * dependency), or switch a tracer.
 */
static pthread_mutex_t dyn_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct dyn_table *dyn_cur;
static struct dyn_obj *dyn_objs;
static size_t dyn_nr_objs;
static int dyn_mem_fd = -1;
static pid_t dyn_mem_pid;
static bool dyn_sync_ok;

static _Atomic(struct dyn_table *) dyn_pub;

/*
 * The batch being patched, for the SIGTRAP handler: its sites' addresses
 * (ascending) and their new bytes. Published (release) before the first
 * int3 is written; the handler loads it (acquire).
 */
struct dyn_poke {
	unsigned long ip;
	unsigned char len;
	unsigned char insn[6];
	unsigned char fast; /* the call of a one-tracer slot: enum dyn_fast */
};
struct dyn_batch {
	size_t nr;
	struct dyn_poke *pokes;
};
static _Atomic(struct dyn_batch *) dyn_batch_cur;
/*
 * The handler that was there before ours (installed at the first patch,
 * under dyn_lock, so that a process with no sites keeps its SIGTRAP as
 * it was).
 */
static struct sigaction dyn_old_trap;
static bool dyn_trap_installed;
/* SIGTRAP handlers looking at a batch or the table (dyn_sigtrap()). */
static _Atomic int dyn_trap_refs;

/* ---- looking sites up (any context) -------------------------------------- */

/* The last site at or below @ip, or NULL. */
static RT_NOTRACE const struct dyn_site *dyn_find(const struct dyn_table *t,
						  unsigned long ip)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->sites[mid].ip <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->sites[lo - 1] : NULL;
}

/* The slot of return address @self_ret in an index (Fibonacci hashing). */
static inline RT_NOTRACE size_t dyn_index_slot(unsigned long self_ret,
					       size_t mask)
{
	return (size_t)((self_ret * 0x9e3779b97f4a7c15ul) >> 32) & mask;
}

/* The site whose call returns to @self_ret, or NULL. */
static RT_NOTRACE const struct dyn_site *
dyn_find_ret(const struct dyn_table *t, unsigned long self_ret)
{
	size_t h = dyn_index_slot(self_ret, t->mask), n;

	/* bounded: the index is at most half full, a probe meets a hole */
	for (n = 0; n <= t->mask; n++, h = (h + 1) & t->mask) {
		uint32_t k = t->index[h];
		const struct dyn_site *s;

		if (!k)
			return NULL;
		s = &t->sites[k - 1];
		if (s->ip + s->len == self_ret)
			return s;
	}
	return NULL;
}

/* The index's size for @nr sites: a power of two, at least 2 * @nr. */
static RT_NOTRACE size_t dyn_index_size(size_t nr)
{
	size_t n = 16;

	while (n < 2 * nr)
		n <<= 1;
	return n;
}

/* Fill @t's index (allocated with it, dyn_index_size(@t->nr) slots). */
static RT_NOTRACE void dyn_index_build(struct dyn_table *t)
{
	size_t i, n = dyn_index_size(t->nr);

	t->mask = n - 1;
	t->index = (uint32_t *)&t->sites[t->nr];
	memset(t->index, 0, n * sizeof(*t->index));
	for (i = 0; i < t->nr; i++) {
		const struct dyn_site *s = &t->sites[i];
		size_t h = dyn_index_slot(s->ip + s->len, t->mask);

		/* bounded: fewer sites than slots */
		while (t->index[h])
			h = (h + 1) & t->mask;
		t->index[h] = (uint32_t)(i + 1);
	}
}

/*
 * A call that is not a recorded site (a -pg build without
 * -mrecord-mcount): the function from the bytes around the call. After
 * mcount's call comes the prologue "push %rbp; mov %rsp,%rbp"; an
 * endbr64 may come first.
 */
static RT_NOTRACE unsigned long dyn_guess_func(unsigned long self_ret)
{
	static const unsigned char endbr[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char prologue[4] = { 0x55, 0x48, 0x89, 0xe5 };
	const unsigned char *p = (const unsigned char *)self_ret;
	unsigned long site;

	if (p[-5] == 0xe8)
		site = self_ret - 5;
	else if (p[-6] == 0xff && p[-5] == 0x15)
		site = self_ret - 6;
	else
		return self_ret;
	p = (const unsigned char *)site;
	if (!memcmp(p - 4, prologue, 4)) {
		site -= 4;
		p -= 4;
	}
	if (!memcmp(p - 4, endbr, 4))
		site -= 4;
	return site;
}

/*
 * The sites a thread's traced calls came from lately, and their
 * functions, in a small direct-mapped cache by return address: a loop
 * over a few traced functions finds them without the table's search and
 * read-side section. An entry is valid while dyn_gen is still its @gen:
 * every table published bumps it, so a hint never outlives the table it
 * came from (an object unloaded, another loaded at the same address).
 * Only the thread itself touches its hints, inside ftrace_ops_entry()'s
 * guard (a signal handler that lands in it is not traced).
 */
struct dyn_hint {
	unsigned long self_ret;
	unsigned long func;
	unsigned long gen;
};

/*
 * 256 per thread (6 KiB of its static TLS): sqlite3's 443 traced
 * functions missed a 64-entry cache often enough to spend 3% of the
 * recording's time in the lookup (1.9% with 256).
 */
#define DYN_HINTS_SHIFT 8

static _Thread_local struct dyn_hint dyn_hints[1u << DYN_HINTS_SHIFT]
	__attribute__((tls_model("initial-exec")));

/* The hint slot of return address @self_ret (Fibonacci hashing). */
static inline RT_NOTRACE struct dyn_hint *dyn_hint_of(unsigned long self_ret)
{
	return &dyn_hints[(self_ret * 0x9e3779b97f4a7c15ul) >>
			  (64 - DYN_HINTS_SHIFT)];
}

/* Bumped after each dyn_publish(); 0 is never a hint's (none yet). */
static _Atomic unsigned long dyn_gen = 1;

RT_NOTRACE unsigned long rt_dynftrace_func(unsigned long self_ret,
					   bool *recorded)
{
	struct dyn_hint *h = dyn_hint_of(self_ret);
	const struct dyn_table *t;
	const struct dyn_site *s;
	unsigned long func = 0;
	/*
	 * Acquire: a generation seen here is one whose table is published
	 * (pairs with the release increment in dyn_publish()), so a hint
	 * made below from the table loaded after it is of that table or a
	 * newer one.
	 */
	unsigned long gen = atomic_load_explicit(&dyn_gen, memory_order_acquire);

	if (__builtin_expect(h->self_ret == self_ret && h->gen == gen, 1)) {
		*recorded = true;
		return h->func;
	}
	/*
	 * Relaxed: only compared with NULL to skip the section when there
	 * is no table; loaded again inside.
	 */
	if (atomic_load_explicit(&dyn_pub, memory_order_relaxed)) {
		rt_rcu_read_lock();
		/* Acquire: pairs with the store in dyn_publish(). */
		t = atomic_load_explicit(&dyn_pub, memory_order_acquire);
		s = t ? dyn_find_ret(t, self_ret) : NULL;
		if (s)
			func = s->func;
		rt_rcu_read_unlock();
	}
	if (func) {
		/* only the recorded sites: a guess below reads the text,
		 * which another object loaded there would change */
		h->self_ret = self_ret;
		h->func = func;
		h->gen = gen;
	}
	*recorded = func != 0;
	return func ? func : dyn_guess_func(self_ret);
}

/* ---- SIGTRAP: a thread met an int3 of ours -------------------------------- */

static RT_NOTRACE const struct dyn_poke *dyn_batch_find(const struct dyn_batch *b,
						       unsigned long ip)
{
	size_t lo = 0, hi = b ? b->nr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->pokes[mid].ip == ip)
			return &b->pokes[mid];
		if (b->pokes[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Run @insn (a NOP, one of the calls or a stub's jump) as if it were at
 * @ip. */
static RT_NOTRACE void dyn_emulate(ucontext_t *uc, unsigned long ip,
				   const unsigned char *insn, unsigned int len)
{
	greg_t *g = uc->uc_mcontext.gregs;
	unsigned long next = ip + len, target;
	int32_t rel;

	if (insn[0] == 0xe9 || (insn[0] == DYN_CS_PREFIX && insn[1] == 0xe9)) {
		/* a jump to a stub: nothing pushed */
		memcpy(&rel, insn + (insn[0] == 0xe9 ? 1 : 2), 4);
		g[REG_RIP] = (greg_t)(next + (long)rel);
		return;
	}
	if (insn[0] == 0xe8 || (insn[0] == DYN_CS_PREFIX && insn[1] == 0xe8)) {
		memcpy(&rel, insn + (insn[0] == 0xe8 ? 1 : 2), 4);
		target = next + (long)rel;
	} else if (insn[0] == 0xff && insn[1] == 0x15) {
		memcpy(&rel, insn + 2, 4);
		memcpy(&target, (const void *)(next + (long)rel),
		       sizeof(target));
	} else {
		g[REG_RIP] = (greg_t)next;
		return;
	}
	/* The kernel's int3_emulate_call(): push the return, jump. */
	g[REG_RSP] -= 8;
	memcpy((void *)g[REG_RSP], &next, sizeof(next));
	g[REG_RIP] = (greg_t)target;
}

static RT_NOTRACE void dyn_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long ip = (unsigned long)uc->uc_mcontext.gregs[REG_RIP] - 1;
	const struct dyn_batch *b;
	const struct dyn_poke *p;
	const struct dyn_table *t;
	const struct dyn_site *s;
	int saved_errno = errno;

	/*
	 * The kernel's bp_desc reference: while it is held, the batch and
	 * the table it found stay allocated (dyn_trap_quiesce()). Seq_cst,
	 * with the loads below: against the writer's store of NULL and its
	 * load of the count (either we see NULL, or it sees us).
	 */
	atomic_fetch_add_explicit(&dyn_trap_refs, 1, memory_order_seq_cst);
	b = atomic_load_explicit(&dyn_batch_cur, memory_order_seq_cst);
	p = dyn_batch_find(b, ip);
	if (p && *(volatile unsigned char *)ip == DYN_INT3) {
		dyn_emulate(uc, ip, p->insn, p->len);
		goto ours;
	}
	/*
	 * The int3 is gone already (the batch ended while the signal was
	 * on its way): run the site's instruction as it is now. The table
	 * is read under the same reference (a handler must not take a
	 * read-side section: it may not register). Seq_cst: after our
	 * increment, as the batch's load; pairs with the store in
	 * dyn_publish() and its dyn_trap_quiesce().
	 */
	t = atomic_load_explicit(&dyn_pub, memory_order_seq_cst);
	s = t ? dyn_find(t, ip) : NULL;
	if ((s && s->ip == ip) || p) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
		goto ours;
	}
	/* Release: our reads of the batch and table are done. */
	atomic_fetch_sub_explicit(&dyn_trap_refs, 1, memory_order_release);
	errno = saved_errno;
	/* Not ours: whoever was there before. */
	if (dyn_old_trap.sa_flags & SA_SIGINFO) {
		if (dyn_old_trap.sa_sigaction)
			dyn_old_trap.sa_sigaction(sig, si, ctx);
		return;
	}
	if (dyn_old_trap.sa_handler == SIG_IGN)
		return;
	if (dyn_old_trap.sa_handler != SIG_DFL) {
		dyn_old_trap.sa_handler(sig);
		return;
	}
	signal(SIGTRAP, SIG_DFL);
	raise(SIGTRAP);
	return;
ours:
	/* Release: as above. */
	atomic_fetch_sub_explicit(&dyn_trap_refs, 1, memory_order_release);
	errno = saved_errno;
}

/*
 * Wait until no SIGTRAP handler can still be looking at a batch or table
 * that was unpublished before the call. Bounded by the handlers' own
 * few instructions (each holds its reference across a binary search).
 */
static RT_NOTRACE void dyn_trap_quiesce(void)
{
	/* Acquire: pairs with the handlers' release decrements. */
	while (atomic_load_explicit(&dyn_trap_refs, memory_order_acquire))
		sched_yield();
}

/* ---- writing text ---------------------------------------------------------- */

static RT_NOTRACE int dyn_mem(void)
{
	pid_t pid = getpid();

	/* A fork()ed child's descriptor still writes into its parent. */
	if (dyn_mem_fd >= 0 && dyn_mem_pid == pid)
		return dyn_mem_fd;
	if (dyn_mem_fd >= 0)
		close(dyn_mem_fd);
	dyn_mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	dyn_mem_pid = pid;
	return dyn_mem_fd;
}

static RT_NOTRACE int dyn_write(unsigned long ip, const void *bytes,
				size_t len)
{
	int fd = dyn_mem();

	if (fd < 0)
		return -errno;
	if (pwrite(fd, bytes, len, (off_t)ip) != (ssize_t)len)
		return -EIO;
	return 0;
}

static RT_NOTRACE void dyn_sync(void)
{
	if (syscall(SYS_membarrier,
		    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		abort(); /* registered at start-up; cannot fail after */
}

/* The steps of dyn_poke_batch(): what each writes of a poke. */
enum dyn_step {
	DYN_STEP_INT3,	/* the int3 on the first byte */
	DYN_STEP_TAIL,	/* the rest of the new instruction */
	DYN_STEP_FIRST,	/* its first byte */
};

/* The most a step writes at once: DYN_RUN_PAGES text pages. */
#define DYN_RUN_PAGES 64

/* Poke @p's bytes of step @step into @buf, a copy of the text from @lo. */
static RT_NOTRACE void dyn_step_apply(unsigned char *buf, unsigned long lo,
				      const struct dyn_poke *p,
				      enum dyn_step step)
{
	unsigned char *at = buf + (p->ip - lo);

	if (step == DYN_STEP_INT3)
		at[0] = DYN_INT3;
	else if (step == DYN_STEP_TAIL)
		memcpy(at + 1, p->insn + 1, p->len - 1u);
	else
		at[0] = p->insn[0];
}

/*
 * Step @step of every poke of @b (sorted by address), one write per run
 * of adjacent text pages that hold sites, instead of one per site: the
 * run is copied from the text, the step's bytes changed in the copy, and
 * the copy written back (@buf: DYN_RUN_PAGES pages).
 *
 * Userspace: the bytes around the sites are written back as they were
 * read, under dyn_lock, which every writer of the text here holds; a
 * debugger that plants a breakpoint in the same run between the read
 * and the write loses it.
 */
static RT_NOTRACE int dyn_step_runs(const struct dyn_batch *b,
				    enum dyn_step step, unsigned char *buf)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	size_t i = 0, j;

	while (i < b->nr) {
		unsigned long lo = b->pokes[i].ip & ~(page - 1), hi;

		/* the run: sites on this page or the next one, bounded */
		hi = (b->pokes[i].ip + b->pokes[i].len + page - 1) & ~(page - 1);
		for (j = i + 1; j < b->nr; j++) {
			const struct dyn_poke *p = &b->pokes[j];
			unsigned long end =
				(p->ip + p->len + page - 1) & ~(page - 1);

			if (p->ip >= hi + page || end - lo > DYN_RUN_PAGES * page)
				break;
			if (end > hi)
				hi = end;
		}
		memcpy(buf, (const void *)lo, hi - lo);
		for (; i < j; i++)
			dyn_step_apply(buf, lo, &b->pokes[i], step);
		if (dyn_write(lo, buf, hi - lo))
			return -EIO;
	}
	return 0;
}

/* Step @step of every poke of @b, a write each (no buffer for runs). */
static RT_NOTRACE int dyn_step_sites(const struct dyn_batch *b,
				     enum dyn_step step)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < b->nr && !ret; i++) {
		const struct dyn_poke *p = &b->pokes[i];
		unsigned char insn[6];

		memcpy(insn, (const void *)p->ip, p->len);
		dyn_step_apply(insn, p->ip, p, step);
		ret = step == DYN_STEP_TAIL ?
			      dyn_write(p->ip + 1, insn + 1, p->len - 1u) :
			      dyn_write(p->ip, insn, 1);
	}
	return ret;
}

static RT_NOTRACE int dyn_step(const struct dyn_batch *b, enum dyn_step step,
			       unsigned char *buf)
{
	return buf ? dyn_step_runs(b, step, buf) : dyn_step_sites(b, step);
}

/*
 * The kernel's text_poke_bp_batch(): write every poke's instruction, the
 * int3 way. Under dyn_lock.
 */
static RT_NOTRACE int dyn_poke_batch(struct dyn_batch *b)
{
	unsigned char *buf;
	int ret;

	if (!b->nr)
		return 0;
	if (!dyn_trap_installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = dyn_sigtrap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGTRAP, &sa, &dyn_old_trap))
			return -errno;
		dyn_trap_installed = true;
	}
	buf = malloc(DYN_RUN_PAGES * (size_t)sysconf(_SC_PAGESIZE));
	/* Release: the pokes are seen filled by the handler (acquire). */
	atomic_store_explicit(&dyn_batch_cur, b, memory_order_release);
	ret = dyn_step(b, DYN_STEP_INT3, buf);
	dyn_sync();
	if (!ret)
		ret = dyn_step(b, DYN_STEP_TAIL, buf);
	dyn_sync();
	/*
	 * A failure leaves the sites written so far as int3s the handler
	 * keeps emulating (the old tail may be gone, the new one half
	 * there); the caller marks the batch's sites broken.
	 */
	if (!ret)
		ret = dyn_step(b, DYN_STEP_FIRST, buf);
	dyn_sync();
	free(buf);
	/* Seq_cst: see dyn_sigtrap(); the batch is the caller's to free. */
	atomic_store_explicit(&dyn_batch_cur, NULL, memory_order_seq_cst);
	dyn_trap_quiesce();
	return ret;
}

/* ---- trampolines ------------------------------------------------------------ */

/* @len bytes (whole pages) within reach of a rel32 call or jump from
 * [@lo, @hi), or 0. */
static RT_NOTRACE unsigned long dyn_tramp_map(unsigned long lo,
					      unsigned long hi, size_t len)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	unsigned long step = 1ul << 20, at;
	int i;

	for (i = 1; i < 1024; i++) {
		void *p;

		at = ((hi + (unsigned long)i * step) & ~(page - 1));
		if (at + len - lo > (1ul << 31))
			break;
		p = mmap((void *)at, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
			 0);
		if (p == MAP_FAILED)
			continue;
		if ((unsigned long)p != at) {
			munmap(p, len);
			continue;
		}
		return at;
	}
	return 0;
}

/*
 * The jump at @p (in the page) to @to: "jmp rel32" where @to is within
 * reach, else "jmp *0(%rip)" and the address (14 bytes).
 */
static RT_NOTRACE void dyn_tramp_jmp(unsigned char *p, unsigned long to)
{
	static const unsigned char jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };
	long rel = (long)(to - ((unsigned long)p + 5));
	int32_t rel32 = (int32_t)rel;

	if (rel == rel32) {
		p[0] = 0xe9;
		memcpy(p + 1, &rel32, sizeof(rel32));
		return;
	}
	memcpy(p, jmp, sizeof(jmp));
	memcpy(p + 6, &to, sizeof(to));
}

/*
 * The object's trampoline page (DYN_FAST_SLOT() above): written whole
 * before it is made executable and before any site points at it, never
 * written again (a site moves from one slot to another, never a slot's
 * code under a thread that runs it), unmapped when its object is gone
 * (dyn_rescan()).
 */
static RT_NOTRACE unsigned long dyn_tramp(struct dyn_obj *o, unsigned long lo,
					  unsigned long hi)
{
	static const unsigned char mov_r11[2] = { 0x41, 0xbb };
	unsigned long at, fn[2] = { (unsigned long)__fentry__,
				    (unsigned long)mcount };
	unsigned long fast[2] = { (unsigned long)ftrace_func_caller,
				  (unsigned long)ftrace_func_caller_gpr };
	long page = sysconf(_SC_PAGESIZE);
	uint32_t d;
	int i, g;

	if (o->tramp)
		return o->tramp;
	at = dyn_tramp_map(lo, hi, (size_t)page);
	if (!at)
		return 0;
	for (i = 0; i < 2; i++)
		dyn_tramp_jmp((unsigned char *)at + 16 * i, fn[i]);
	/* (function_graph alone takes the stubs: dyn_stubs()) */
	for (g = 0; g < 2; g++)
		for (d = DYN_FAST_MIN; d <= DYN_FAST_MAX; d++) {
			unsigned char *p =
				(unsigned char *)(at + DYN_FAST_SLOT(d, g));

			memcpy(p, mov_r11, sizeof(mov_r11));
			memcpy(p + 2, &d, sizeof(d));
			dyn_tramp_jmp(p + 6, fast[g]);
		}
	/* (the page is this thread's alone until a site points at it; the
	 * patch's membarrier() serializes every core before any thread can
	 * run the site's new call) */
	if (mprotect((void *)at, (size_t)page, PROT_READ | PROT_EXEC)) {
		munmap((void *)at, (size_t)page);
		return 0;
	}
	o->tramp = at;
	return at;
}

/*
 * The object's stub pages (the layout at DYN_STUB_HEAD above), made for
 * every site of @t of object @idx that can take a stub: written whole
 * before they are made executable and before any site jumps to them,
 * never written again, unmapped when their object is gone (dyn_rescan()).
 * 0 where they cannot be made (the sites then take the general entry).
 * Under dyn_lock.
 */
static RT_NOTRACE unsigned long dyn_stubs(const struct dyn_table *t,
					  unsigned int idx)
{
	/* lea rel32(%rip), %r11 */
	static const unsigned char lea_r11[3] = { 0x4c, 0x8d, 0x1d };
	static const unsigned char jmp_cell[2] = { 0xff, 0x25 };
	struct dyn_obj *o = &dyn_objs[idx];
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len, i;
	unsigned long at;
	int g, d;

	if (o->stubs || o->stubs_failed)
		return o->stubs;
	len = (DYN_STUB_HEAD + (size_t)o->nr_stubs * DYN_STUB_SIZE + page - 1) &
	      ~(page - 1);
	at = dyn_tramp_map(o->lo, o->hi, len);
	if (!at) {
		o->stubs_failed = true;
		return 0;
	}
	memcpy((void *)at, ftrace_graph_body_callers,
	       sizeof(ftrace_graph_body_callers));
	for (i = 0; i < t->nr; i++) {
		const struct dyn_site *s = &t->sites[i];

		if (s->obj != idx || !s->fast_delta)
			continue;
		for (g = 0; g < 2; g++) {
			unsigned char *p = (unsigned char *)at + DYN_STUB_HEAD +
					   (size_t)s->stub * DYN_STUB_SIZE +
					   (g ? DYN_STUB_GPR : 0);
			unsigned long to;
			long rel;
			int32_t rel32;

			d = s->fast_delta - DYN_FAST_MIN;
			to = (unsigned long)ftrace_graph_body_callers[g][d];
			memcpy(p, lea_r11, sizeof(lea_r11));
			rel32 = (int32_t)(long)(s->ip + s->len -
						((unsigned long)p + 7));
			memcpy(p + 3, &rel32, sizeof(rel32));
			rel = (long)(to - ((unsigned long)p + 12));
			rel32 = (int32_t)rel;
			if (rel == rel32) {
				p[7] = 0xe9;
				memcpy(p + 8, &rel32, sizeof(rel32));
				continue;
			}
			/* the library out of reach: through its cell */
			rel32 = (int32_t)(long)(at + (size_t)(6 * g + d) *
							sizeof(long) -
						((unsigned long)p + 13));
			memcpy(p + 7, jmp_cell, sizeof(jmp_cell));
			memcpy(p + 9, &rel32, sizeof(rel32));
		}
	}
	/* (the pages are this thread's alone until a site jumps to them; the
	 * patch's membarrier() serializes every core before any thread can
	 * run the site's new jump) */
	if (mprotect((void *)at, len, PROT_READ | PROT_EXEC)) {
		munmap((void *)at, len);
		o->stubs_failed = true;
		return 0;
	}
	o->stubs = at;
	o->stubs_len = len;
	return at;
}

/* ---- scanning objects ---------------------------------------------------- */

struct dyn_scan {
	struct dyn_site *sites;
	size_t nr;
	size_t cap;
	int err;
};

/*
 * The sites that could not be patched, the last DYN_ERR_MAX of them, for
 * error_log (rt_dynftrace_errors_show()). Under dyn_lock.
 */
#define DYN_ERR_MAX 16

struct dyn_err {
	uint64_t ts_ns; /* CLOCK_MONOTONIC */
	char msg[96];
	char site[200];
};

static struct dyn_err dyn_errs[DYN_ERR_MAX];
static unsigned int dyn_nr_err, dyn_next_err;

/*
 * Userspace: the kernel reports a site it cannot patch (ftrace_bug()) in
 * the kernel log and leaves it; here in standard error and in the
 * process's list of site errors, which the mount's error_log shows.
 * Under dyn_lock.
 */
static RT_NOTRACE void dyn_error(const char *why, unsigned long ip,
				 const char *obj)
{
	struct dyn_err *e = &dyn_errs[dyn_next_err];
	struct timespec ts;
	size_t n;

	fprintf(stderr,
		"ringtrace: cannot patch the call site at 0x%lx in %s: %s\n",
		ip, obj[0] ? obj : "the program", why);
	dyn_next_err = (dyn_next_err + 1) % DYN_ERR_MAX;
	if (dyn_nr_err < DYN_ERR_MAX)
		dyn_nr_err++;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->ts_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	snprintf(e->msg, sizeof(e->msg), "Cannot patch the call site: %s",
		 why);
	/* "func+0x0/0x1c" as the kernel's %pS, then the address and the
	 * object */
	n = rt_sym_format(e->site, sizeof(e->site), ip, true);
	if (n < sizeof(e->site))
		snprintf(e->site + n, sizeof(e->site) - n, " (0x%lx) [%s]", ip,
			 obj[0] ? obj : "the program");
}

RT_NOTRACE int rt_dynftrace_errors_show(FILE *out)
{
	unsigned int k;
	int ret = 0;

	pthread_mutex_lock(&dyn_lock);
	for (k = 0; k < dyn_nr_err && !ret; k++) {
		const struct dyn_err *e =
			&dyn_errs[(dyn_next_err + DYN_ERR_MAX - dyn_nr_err + k) %
				  DYN_ERR_MAX];

		if (fprintf(out, "%" PRIu64 "\t%s\t%s\n", e->ts_ns, e->msg,
			    e->site) < 0)
			ret = -EIO;
	}
	pthread_mutex_unlock(&dyn_lock);
	return ret;
}

/* Why dyn_site_classify() refused @s: the words of its error. */
static RT_NOTRACE const char *dyn_site_why(const struct dyn_site *s)
{
	const unsigned char *p = (const unsigned char *)s->ip;
	size_t n;

	for (n = 0; n < 5 && p[n] == 0x90; n++)
		;
	if (n > 0 && n < 5)
		return "the function is too short (fewer than 5 bytes of NOPs at its entry)";
	if (n == 5 || !memcmp(p, dyn_nop5, 4))
		return "no trampoline within reach of a call";
	return "unknown instruction at the site";
}

/*
 * ftrace_func_caller finds the traced function's return just above the
 * site's, ftrace_graph_body_caller_D on top of the stack: a site that is
 * the function's first instruction, or follows its endbr64 (nothing
 * pushed before).
 */
static RT_NOTRACE bool dyn_site_at_entry(const struct dyn_site *s)
{
	return s->func == s->ip ||
	       (s->func + sizeof(dyn_endbr64) == s->ip &&
		!memcmp((const void *)s->func, dyn_endbr64,
			sizeof(dyn_endbr64)));
}

/*
 * Classify the site at @ip and fill its "on" bytes; false when its bytes
 * are none of the known forms (reported, left alone).
 */
static RT_NOTRACE bool dyn_site_classify(struct dyn_site *s, struct dyn_obj *o,
					 unsigned long lo, unsigned long hi,
					 bool patchable)
{
	const unsigned char *p = (const unsigned char *)s->ip;
	unsigned long tramp, target;
	int32_t rel;
	size_t n;

	if ((p[0] == 0xe8) || (p[0] == 0xff && p[1] == 0x15)) {
		s->kind = p[0] == 0xe8 ? DYN_CALL5 : DYN_CALL6;
		s->len = p[0] == 0xe8 ? 5 : 6;
		memcpy(s->on, p, s->len);
		/*
		 * At the entry (-mfentry): the one-tracer slots too, where
		 * the object has a trampoline page within reach; a six-byte
		 * site (PIE's "call *__fentry__@GOTPCREL(%rip)") calls its
		 * slot with a six-byte call (dyn_fast_insn()).
		 */
		if (dyn_site_at_entry(s) && dyn_tramp(o, lo, hi)) {
			s->fast_delta =
				(unsigned char)(s->ip + s->len - s->func);
			s->stub = o->nr_stubs++;
		}
		return true;
	}
	/* Clang's is "nopl 0x8(%rax,%rax,1)": any displacement. */
	if (!memcmp(p, dyn_nop5, 4)) {
		s->kind = DYN_NOP5;
	} else {
		for (n = 0; n < 5 && p[n] == 0x90; n++)
			;
		if (n < 5)
			return false;
		s->kind = DYN_NOPS;
		s->raw = true;
	}
	s->len = 5;
	tramp = dyn_tramp(o, lo, hi);
	if (!tramp)
		return false;
	/* A NOP after the prologue (-pg -mnop-mcount) is mcount's. */
	target = tramp + (!patchable && s->func != s->ip &&
					  s->func + 4 != s->ip ?
				  16 :
				  0);
	rel = (int32_t)(long)(target - (s->ip + 5));
	s->on[0] = 0xe8;
	memcpy(s->on + 1, &rel, 4);
	if (target == tramp && dyn_site_at_entry(s)) {
		s->fast_delta = (unsigned char)(s->ip + 5 - s->func);
		s->stub = o->nr_stubs++;
	}
	return true;
}

/*
 * Move @s to the function that starts within 15 bytes after it. Return
 * whether one does.
 */
static RT_NOTRACE bool dyn_entry_after(struct dyn_site *s)
{
	struct rt_sym sym;
	unsigned long k;

	for (k = 1; k < 16; k++) {
		if (!rt_sym_lookup(s->ip + k, &sym))
			continue;
		if (sym.start > s->ip && sym.start <= s->ip + k) {
			s->ip = s->func = sym.start;
			return true;
		}
	}
	return false;
}

struct dyn_phdr_arg {
	struct dyn_scan *scan;
	bool all_seen;
};

/* The sections of @path named __mcount_loc and __patchable_function_entries. */
static RT_NOTRACE void dyn_scan_object(struct dyn_scan *sc, unsigned int idx,
				       const struct dl_phdr_info *info)
{
	struct dyn_obj *o = &dyn_objs[idx];
	const char *path = o->name[0] ? o->name : "/proc/self/exe";
	unsigned long lo = ULONG_MAX, hi = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int fd, i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo >= hi)
		return;
	o->lo = lo;
	o->hi = hi;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		bool patchable;
		size_t k, n;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		patchable = !strcmp(name, "__patchable_function_entries");
		if (!patchable && strcmp(name, "__mcount_loc"))
			continue;
		n = sh.sh_size / sizeof(unsigned long);
		for (k = 0; k < n; k++) {
			struct dyn_site *s;
			struct rt_sym sym;
			unsigned long ip;
			bool found;

			memcpy(&ip, (const void *)(info->dlpi_addr + sh.sh_addr +
						  k * sizeof(ip)),
			       sizeof(ip));
			if (ip < lo || ip + 6 > hi)
				continue;
			if (sc->nr == sc->cap) {
				size_t cap = sc->cap ? 2 * sc->cap : 256;

				s = realloc(sc->sites, cap * sizeof(*s));
				if (!s) {
					sc->err = -ENOMEM;
					goto out;
				}
				sc->sites = s;
				sc->cap = cap;
			}
			s = &sc->sites[sc->nr];
			memset(s, 0, sizeof(*s));
			s->ip = ip;
			s->obj = idx;
			found = rt_sym_lookup(ip, &sym);
			s->func = found ? sym.start : ip;
			/*
			 * -fpatchable-function-entry=N,M with M > 0: the
			 * record is M bytes before the function; its entry's
			 * N - M NOPs are the ones to patch, and the run of
			 * NOPs must not be taken across the function's start.
			 * Where no function starts at the record or just
			 * after it (no symbols), M is not known: left alone.
			 */
			if (patchable && !(found && sym.start == ip) &&
			    !dyn_entry_after(s)) {
				dyn_error("no function starts at or after the record",
					  ip, o->name);
				continue;
			}
			if (!dyn_site_classify(s, o, lo, hi, patchable)) {
				dyn_error(dyn_site_why(s), s->ip, o->name);
				continue;
			}
			/* A call site is "on" as the compiler left it. */
			s->enabled = s->kind == DYN_CALL5 || s->kind == DYN_CALL6;
			sc->nr++;
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static RT_NOTRACE int dyn_phdr_cb(struct dl_phdr_info *info, size_t size,
				  void *arg)
{
	struct dyn_phdr_arg *a = arg;
	struct dyn_obj *o;
	size_t i;

	(void)size;
	if (!strncmp(info->dlpi_name, "linux-vdso", 10))
		return 0;
	for (i = 0; i < dyn_nr_objs; i++) {
		if (dyn_objs[i].gone || dyn_objs[i].base != info->dlpi_addr ||
		    strcmp(dyn_objs[i].name, info->dlpi_name))
			continue;
		dyn_objs[i].seen = true;
		return 0;
	}
	o = realloc(dyn_objs, (dyn_nr_objs + 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	dyn_objs = o;
	o = &dyn_objs[dyn_nr_objs];
	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	o->name = strdup(info->dlpi_name);
	if (!o->name)
		return -ENOMEM;
	o->seen = true;
	dyn_nr_objs++;
	dyn_scan_object(a->scan, (unsigned int)(dyn_nr_objs - 1), info);
	return 0;
}

static RT_NOTRACE int dyn_site_cmp(const void *a, const void *b)
{
	const struct dyn_site *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Make @t the table; free the old one after a grace period. */
static RT_NOTRACE void dyn_publish(struct dyn_table *t)
{
	struct dyn_table *old = dyn_cur;

	dyn_cur = t;
	/*
	 * Seq_cst: the sites are filled before a hook finds them (release),
	 * and the store is ordered before dyn_trap_quiesce()'s load.
	 */
	atomic_store_explicit(&dyn_pub, t, memory_order_seq_cst);
	/*
	 * Release: the table is published before a hook sees the new
	 * generation; pairs with the acquire load in rt_dynftrace_func().
	 * Every hint of an older generation is stale from here; the old
	 * table is freed only after the grace period below, so a hook that
	 * used one meanwhile ran as if a moment earlier.
	 */
	atomic_fetch_add_explicit(&dyn_gen, 1, memory_order_release);
	if (old) {
		rt_synchronize_rcu();
		dyn_trap_quiesce();
		free(old);
	}
}

/*
 * Under dyn_lock: objects gone since the last scan leave the table, new
 * ones come in. Return whether the table changed.
 */
static RT_NOTRACE bool dyn_rescan(void)
{
	struct dyn_scan sc = { 0 };
	struct dyn_phdr_arg a = { .scan = &sc };
	struct dyn_table *t;
	size_t i, n = 0, kept = 0;
	bool gone = false;

	for (i = 0; i < dyn_nr_objs; i++)
		dyn_objs[i].seen = false;
	dl_iterate_phdr(dyn_phdr_cb, &a);
	for (i = 0; i < dyn_nr_objs; i++) {
		if (dyn_objs[i].gone || dyn_objs[i].seen)
			continue;
		dyn_objs[i].gone = true;
		gone = true;
		if (dyn_objs[i].tramp)
			munmap((void *)dyn_objs[i].tramp,
			       (size_t)sysconf(_SC_PAGESIZE));
		if (dyn_objs[i].stubs)
			munmap((void *)dyn_objs[i].stubs,
			       dyn_objs[i].stubs_len);
	}
	if (!sc.nr && !gone) {
		free(sc.sites);
		return false;
	}
	if (dyn_cur)
		for (i = 0; i < dyn_cur->nr; i++)
			kept += !dyn_objs[dyn_cur->sites[i].obj].gone;
	t = malloc(sizeof(*t) + (kept + sc.nr) * sizeof(t->sites[0]) +
		   dyn_index_size(kept + sc.nr) * sizeof(*t->index));
	if (!t) {
		free(sc.sites);
		return false;
	}
	if (dyn_cur)
		for (i = 0; i < dyn_cur->nr; i++)
			if (!dyn_objs[dyn_cur->sites[i].obj].gone)
				t->sites[n++] = dyn_cur->sites[i];
	if (sc.nr)
		memcpy(t->sites + n, sc.sites, sc.nr * sizeof(*sc.sites));
	t->nr = n + sc.nr;
	free(sc.sites);
	qsort(t->sites, t->nr, sizeof(t->sites[0]), dyn_site_cmp);
	dyn_index_build(t);
	dyn_publish(t);
	return true;
}

/* ---- choosing the sites ----------------------------------------------------- */

/*
 * The process's debug information, for the parameters of the functions
 * whose sites the function tracer's trampoline takes: opened at the
 * first such patch, kept. Under dyn_lock.
 */
static struct rt_dwarf *dyn_dwarf;
static bool dyn_dwarf_failed;

/*
 * Whether @s's function takes anything in a vector register: from its
 * prototype (fnproto.h), integers ("sN", "uN"), enumerations ("eN") and
 * pointers ("p") alone say no, where the function keeps the ABI's
 * convention (rt_dwarf_plain_abi(): GCC's, under its own name); a
 * floating-point number, an aggregate (its members may be), a type not
 * told, variable arguments (%al counts the vector registers they use),
 * another compiler or no debug information say maybe.
 */
static RT_NOTRACE enum dyn_regs dyn_site_regs(const struct dyn_site *s)
{
	char proto[RT_FNPROTO_MAX], *p, *save = NULL;
	struct rt_sym sym;

	if (!dyn_dwarf && !dyn_dwarf_failed) {
		dyn_dwarf = rt_dwarf_open(0);
		dyn_dwarf_failed = !dyn_dwarf;
	}
	/* a clone of another convention (name.isra.0, name.constprop.0) */
	if (!rt_sym_lookup(s->func, &sym) || sym.start != s->func ||
	    strchr(sym.name, '.'))
		return DYN_REGS_ALL;
	if (!dyn_dwarf || !rt_dwarf_plain_abi(dyn_dwarf, s->func) ||
	    !rt_dwarf_proto(dyn_dwarf, s->func, proto, sizeof(proto)) ||
	    /* a prototype cut short may have left a parameter out */
	    strlen(proto) + 64 >= sizeof(proto))
		return DYN_REGS_ALL;
	for (p = strtok_r(proto, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		const char *kind = strchr(p, ':');

		if (!kind || !strchr("pseu", kind[1]) ||
		    (kind[1] != 'p' && kind[1] && !(kind[2] >= '1' &&
						    kind[2] <= '8')))
			return DYN_REGS_ALL;
	}
	return DYN_REGS_GPR;
}

/*
 * The call of @s's slot for the one tracer @fast (enum dyn_fast), or
 * for function_graph the jump to its stub (made already, dyn_stubs()).
 */
static RT_NOTRACE void dyn_fast_insn(struct dyn_site *s, unsigned int fast,
				     unsigned char *insn)
{
	const struct dyn_obj *o = &dyn_objs[s->obj];
	bool gpr;
	int32_t rel;

	if (s->fast_regs == DYN_REGS_UNKNOWN)
		s->fast_regs = dyn_site_regs(s);
	gpr = s->fast_regs == DYN_REGS_GPR;
	if (fast == DYN_FAST_GRAPH)
		rel = (int32_t)(long)(o->stubs + DYN_STUB_HEAD +
				      (size_t)s->stub * DYN_STUB_SIZE +
				      (gpr ? DYN_STUB_GPR : 0) -
				      (s->ip + s->len));
	else
		rel = (int32_t)(long)(o->tramp +
				      DYN_FAST_SLOT(s->fast_delta, gpr) -
				      (s->ip + s->len));
	/*
	 * A six-byte site takes one six-byte instruction, "cs call rel32"
	 * (the CS prefix is ignored in 64-bit mode; the kernel pads its
	 * calls of the retpoline thunks the same way), so that a thread
	 * is never between two of the site's instructions when it is
	 * patched again.
	 */
	if (s->len == 6)
		*insn++ = DYN_CS_PREFIX;
	insn[0] = fast == DYN_FAST_GRAPH ? 0xe9 : 0xe8;
	memcpy(insn + 1, &rel, 4);
}

static RT_NOTRACE bool dyn_wanted(const struct dyn_site *s, unsigned int en)
{
	struct rt_ftrace_match m;

	/* a function command runs whatever the tracers and lists say */
	if ((en & RT_FTRACE_PROBE) && rt_ftrace_probe_at(s->func))
		return true;
	en &= RT_FTRACE_FUNCTION | RT_FTRACE_GRAPH;
	if (!en)
		return false;
	rt_ftrace_test(s->func, en, &m);
	return m.func;
}

/* Under dyn_lock: patch every site whose state is not what is wanted. */
static RT_NOTRACE void dyn_update_locked(void)
{
	/* Relaxed: a setting, read again at the next update. */
	unsigned int en = atomic_load_explicit(&rt_ftrace_enabled,
					       memory_order_relaxed);
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE), ok_page = 0;
	struct dyn_batch b = { 0 };
	struct dyn_table *t = dyn_cur;
	size_t i;
	int ret;

	if (!t || !dyn_sync_ok)
		return;
	b.pokes = malloc(t->nr * sizeof(*b.pokes));
	if (!b.pokes)
		return;
	for (i = 0; i < t->nr; i++) {
		struct dyn_site *s = &t->sites[i];
		struct dyn_poke *p;
		unsigned int fast = DYN_FAST_NONE;
		bool want;

		if (s->broken)
			continue;
		want = dyn_wanted(s, en);
		/* the function or the graph tracer alone: its own
		 * trampoline */
		if (want && s->fast_delta && en == RT_FTRACE_FUNCTION)
			fast = DYN_FAST_FUNC;
		else if (want && s->fast_delta && en == RT_FTRACE_GRAPH &&
			 dyn_stubs(t, s->obj))
			fast = DYN_FAST_GRAPH;
		/* (from now on entries may be held back: the process's exit
		 * asks the threads for theirs. Relaxed: read at the exit,
		 * after the calls it concerns.) */
		if (fast == DYN_FAST_GRAPH)
			atomic_store_explicit(&rt_fgraph_may_hold, true,
					      memory_order_relaxed);
		if (want == s->enabled && (!want || fast == s->fast) && !s->raw)
			continue;
		/*
		 * A text page that takes no write (a shared mapping, which
		 * /proc/self/mem does not copy on write): found before the
		 * batch by writing the site's first byte as it is, so that
		 * the site is left alone and the others are patched. Once a
		 * page (@ok_page: the sites come in address order).
		 */
		if ((s->ip & ~(page - 1)) != ok_page) {
			if (dyn_write(s->ip, (const void *)s->ip, 1)) {
				s->broken = true;
				dyn_error("the text page takes no write", s->ip,
					  dyn_objs[s->obj].name);
				continue;
			}
			ok_page = s->ip & ~(page - 1);
		}
		p = &b.pokes[b.nr++];
		p->ip = s->ip;
		p->len = s->len;
		p->fast = (unsigned char)fast;
		if (fast)
			dyn_fast_insn(s, fast, p->insn);
		else if (want)
			memcpy(p->insn, s->on, s->len);
		else
			memcpy(p->insn, s->len == 6 ? dyn_nop6 : dyn_nop5,
			       s->len);
	}
	ret = dyn_poke_batch(&b);
	/*
	 * The table is the hooks' and the handler's: its sites' states are
	 * only the control side's (under dyn_lock), and no reader looks at
	 * @enabled.
	 */
	for (i = 0; i < b.nr; i++) {
		struct dyn_site *s = (struct dyn_site *)dyn_find(t, b.pokes[i].ip);

		if (ret) {
			s->broken = true;
			continue;
		}
		s->enabled = b.pokes[i].insn[0] != dyn_nop5[0] &&
			     b.pokes[i].insn[0] != dyn_nop6[0];
		s->fast = b.pokes[i].fast;
		s->raw = false;
	}
	if (ret)
		dyn_error("a write of the text failed",
			  b.nr ? b.pokes[0].ip : 0, "the process");
	free(b.pokes);
}

RT_NOTRACE void rt_dynftrace_update(void)
{
	pthread_mutex_lock(&dyn_lock);
	dyn_update_locked();
	pthread_mutex_unlock(&dyn_lock);
}

RT_NOTRACE void rt_dynftrace_scan(void)
{
	pthread_mutex_lock(&dyn_lock);
	if (dyn_rescan())
		dyn_update_locked();
	pthread_mutex_unlock(&dyn_lock);
}

/* ---- the files ------------------------------------------------------------ */

RT_NOTRACE bool rt_dynftrace_have_sites(void)
{
	/* Relaxed: a snapshot of whether there is a table. */
	return atomic_load_explicit(&dyn_pub, memory_order_relaxed) != NULL;
}

static RT_NOTRACE int dyn_show(FILE *out, bool enabled_only)
{
	struct rt_sym sym;
	size_t i;
	int ret = 0;

	if (!out)
		return -EINVAL;
	pthread_mutex_lock(&dyn_lock);
	for (i = 0; dyn_cur && i < dyn_cur->nr && !ret; i++) {
		const struct dyn_site *s = &dyn_cur->sites[i];
		const char *mod;
		int n;

		if (enabled_only && !s->enabled)
			continue;
		if (!rt_sym_lookup(s->func, &sym))
			n = fprintf(out, "0x%lx", s->func);
		else if ((mod = rt_sym_modname(&sym)))
			n = fprintf(out, "%s [%s]", sym.name, mod);
		else
			n = fprintf(out, "%s", sym.name);
		/*
		 * Userspace: the kernel's enabled_functions prints the ops'
		 * reference count and flags; here "(1)" and the trampoline
		 * the site calls.
		 */
		if (n >= 0 && enabled_only && !s->fast)
			n = fprintf(out, " (1)\ttramp: %s\n",
				    s->kind == DYN_CALL5 || s->kind == DYN_CALL6 ?
					    "ftrace_caller" :
					    "ftrace_caller (via trampoline)");
		else if (n >= 0 && enabled_only && s->fast == DYN_FAST_GRAPH)
			n = fprintf(out, " (1)\ttramp: ftrace_graph_body_caller%s (via stub)\n",
				    s->fast_regs == DYN_REGS_GPR ? "_gpr" : "");
		else if (n >= 0 && enabled_only)
			n = fprintf(out, " (1)\ttramp: ftrace_func_caller%s (via trampoline)\n",
				    s->fast_regs == DYN_REGS_GPR ? "_gpr" : "");
		else if (n >= 0)
			n = fprintf(out, "\n");
		if (n < 0)
			ret = -EIO;
	}
	pthread_mutex_unlock(&dyn_lock);
	if (!ret && fflush(out))
		ret = -EIO;
	return ret;
}

RT_NOTRACE int rt_dynftrace_available(FILE *out)
{
	return dyn_show(out, false);
}

RT_NOTRACE int rt_dynftrace_enabled_show(FILE *out)
{
	return dyn_show(out, true);
}

/* ---- dlclose --------------------------------------------------------------- */

typedef int (*rt_dlclose_fn)(void *handle);

int dlclose(void *handle);

/**
 * dlclose - unload a shared object; its sites leave the table first
 * @handle: as dlclose(3)
 *
 * Under the patching lock, so that no patch writes into the object while
 * it is unmapped.
 *
 * Context: as dlclose(3).
 * Return: as dlclose(3).
 */
RT_EXPORT RT_NOTRACE int dlclose(void *handle)
{
	static _Atomic(rt_dlclose_fn) next;
	/* Relaxed: every thread that resolves it stores the same value. */
	rt_dlclose_fn real = atomic_load_explicit(&next, memory_order_relaxed);
	int ret, saved_errno;

	if (!real) {
		real = (rt_dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
		if (!real)
			return -1;
		/* Relaxed: see above. */
		atomic_store_explicit(&next, real, memory_order_relaxed);
	}
	pthread_mutex_lock(&dyn_lock);
	ret = real(handle);
	saved_errno = errno;
	dyn_rescan();
	pthread_mutex_unlock(&dyn_lock);
	errno = saved_errno;
	return ret;
}

/* ---- start-up -------------------------------------------------------------- */

static RT_NOTRACE void dyn_fork_prepare(void)
{
	pthread_mutex_lock(&dyn_lock);
}

static RT_NOTRACE void dyn_fork_parent(void)
{
	pthread_mutex_unlock(&dyn_lock);
}

static RT_NOTRACE void dyn_fork_child(void)
{
	pthread_mutexattr_t a;

	/* A fresh lock (as function.c does with its own), recursive again. */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&dyn_lock, &a);
	pthread_mutexattr_destroy(&a);
	/*
	 * Userspace: the membarrier registration belongs to the address
	 * space; registering the child's again costs nothing and does not
	 * depend on what the kernel copies at fork().
	 */
	if (dyn_sync_ok &&
	    syscall(SYS_membarrier,
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0))
		dyn_sync_ok = false;
}

/* The kernel's ftrace_init(): read the records, NOP what no tracer needs. */
__attribute__((constructor(103))) static RT_NOTRACE void dyn_init(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	dyn_sync_ok = cmds > 0 &&
		      (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
		      !syscall(SYS_membarrier,
			       MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
			       0, 0);
	pthread_atfork(dyn_fork_prepare, dyn_fork_parent, dyn_fork_child);
	rt_dynftrace_scan();
}
