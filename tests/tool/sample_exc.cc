// SPDX-License-Identifier: LGPL-2.1-or-later
//
// sample_exc.cc - C++ exceptions thrown through instrumented frames, five
// ways, for the function_graph call tree:
//  A  thrown two levels down, through frames whose locals' destructors
//     call traced functions during the unwinding, caught by a function
//     that then calls another
//  B  caught in the middle, noted, and thrown again with `throw;`; the
//     outer catcher then calls a function (it must nest under the
//     catcher, not under the frame the exception left)
//  C  thrown and caught inside a destructor that runs while another
//     exception unwinds
//  D  thrown by an inlined callee of the catching function
//  E  thrown by a callback through a C frame built without -fexceptions
//     (sample_cmid.c: no cleanup, its exit hook never runs)
//
// sample_exc N [TREE [CASES]]: N rounds of the five (or of CASES, letters). Built with -O2
// -finstrument-functions by g++ and by clang++, not linked with
// libringtrace (ringtrace record preloads it). TREE receives the call
// tree as the program knows it: one "depth function" line per call of an
// instrumented function, in call order (a guard object counts the
// depth; a catch puts back the depth of its try, which a C frame the
// exception passed did not give back).
#include <cstdio>

#define NOINLINE __attribute__((noinline))
#define NOTRACE __attribute__((no_instrument_function))

extern "C" int c_mid(int (*cb)(int), int x);	// sample_cmid.c
extern "C" void cm_call(const char *name);	// the C frame's log
extern "C" void cm_ret(void);

static FILE *tree;
static int depth;
static volatile int notes, live;

extern "C" NOTRACE void cm_call(const char *name)
{
	if (tree)
		fprintf(tree, "%d %s\n", depth, name);
	depth++;
}

extern "C" NOTRACE void cm_ret(void)
{
	depth--;
}

// one call of an instrumented function: logged, its depth given back
// when it returns or an exception leaves it
struct Call {
	NOTRACE explicit Call(const char *name) { cm_call(name); }
	NOTRACE ~Call() { cm_ret(); }
};

struct Err {
	int code;
};

// no exception passes these: logged without a guard
NOINLINE void note(int v)
{
	cm_call("note");
	notes += v;
	cm_ret();
}

// values live across the calls: its frame saves more registers than
// level2b's, so that its stack place is the deeper of the two (the case B
// defect: a catcher's next callee nested under the rethrowing callee
// whose place was the shallower)
NOINLINE int leaf(int x)
{
	int a = x * 3 + notes, b = x * 5 + live, c = x * 7 - notes,
	    d = x * 11 - live;

	cm_call("leaf");
	cm_ret();
	return (a ^ b ^ c ^ d) & 0xff;
}

struct Guard {
	int id;
	NOINLINE explicit Guard(int i) : id(i)
	{
		Call c("Guard::Guard");
		++live;
	}
	NOINLINE ~Guard()
	{
		Call c("Guard::~Guard");
		note(id);
		--live;
	}
};

// throws and catches inside its destructor
struct Nasty {
	NOINLINE ~Nasty()
	{
		Call c("Nasty::~Nasty");
		int saved = depth;
		try {
			if (leaf(live) > 0)
				throw Err{ 100 };
		} catch (const Err &e) {
			depth = saved;
			note(e.code);
		}
	}
};

NOINLINE int level3(int i)
{
	Call c("level3");
	Guard g(3);
	if (i >= 0)
		throw Err{ 3 };
	return leaf(i);
}

NOINLINE int level2(int i)
{
	Call c("level2");
	Guard g(2);
	return level3(i) + leaf(i);
}

NOINLINE int level1(int i)
{
	Call c("level1");
	int v[4] = { i, i, i, i };
	return level2(i) + v[i & 3];
}

NOINLINE int handle(const Err &e)
{
	Call c("handle");
	return leaf(e.code);
}

// A
NOINLINE int catcher(int i)
{
	Call c("catcher");
	int saved = depth;
	try {
		return level1(i);
	} catch (const Err &e) {
		depth = saved;
		return handle(e);
	}
}

// B: logged without guards, which keeps the frames as the defect needs
// them (the catcher's next callee's place shallower than the rethrowing
// callee's)
NOINLINE int level2b(int i)
{
	int saved, r;

	cm_call("level2b");
	saved = depth;
	try {
		r = level3(i);
	} catch (...) {
		depth = saved;
		note(7);
		cm_ret();
		throw;
	}
	cm_ret();
	return r;
}

NOINLINE int rethrower(int i)
{
	int saved, r;

	cm_call("rethrower");
	saved = depth;
	try {
		r = level2b(i) + 1;
	} catch (const Err &) {
		depth = saved;
		r = leaf(2);
	}
	cm_ret();
	return r;
}

NOINLINE int nasty3(int i)
{
	Call c("nasty3");
	Nasty n;
	Guard g(30);
	return level3(i);
}

// C
NOINLINE int nasty(int i)
{
	Call c("nasty");
	int saved = depth;
	try {
		return nasty3(i);
	} catch (const Err &) {
		depth = saved;
		return leaf(3);
	}
}

static inline __attribute__((always_inline)) int inl_thrower(int i)
{
	Call c("inl_thrower");
	if (i >= 0)
		throw Err{ 4 };
	return i;
}

// D
NOINLINE int inl_catcher(int i)
{
	Call c("inl_catcher");
	int saved = depth;
	try {
		return inl_thrower(i) + leaf(i);
	} catch (const Err &) {
		depth = saved;
		return leaf(4);
	}
}

extern "C" NOINLINE int cb_throw(int x)
{
	Call c("cb_throw");
	if (x >= 0)
		throw Err{ 5 };
	return x;
}

// E
NOINLINE int via_c(int i)
{
	Call c("via_c");
	int saved = depth;
	try {
		return c_mid(cb_throw, i);
	} catch (const Err &) {
		depth = saved;
		return leaf(5);
	}
}

// atoi() and strtol() are inline in C++ and instrumented by clang
static NOTRACE int number(const char *s)
{
	int n = 0;

	while (*s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	return n;
}

NOTRACE int main(int argc, char **argv)
{
	int n = argc > 1 ? number(argv[1]) : 100;
	const char *cases = argc > 3 ? argv[3] : "ABCDE";
	int (*const fns[5])(int) = { catcher, rethrower, nasty, inl_catcher,
				     via_c };
	long sum = 0;

	if (argc > 2 && !(tree = fopen(argv[2], "w")))
		return 2;
	for (int i = 0; i < n; i++)
		for (const char *c = cases; *c; c++)
			if (*c >= 'A' && *c <= 'E')
				sum += fns[*c - 'A'](i);
	printf("sum=%ld notes=%d live=%d\n", sum, notes, live);
	return tree && fclose(tree) ? 2 : 0;
}
