// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_jmp.c - calls that never return, the way an interpreter raises
 * errors: a protected call sets a jump buffer (setjmp()) and calls into
 * a recursion, whose innermost call now and then raises an error by
 * longjmp() back to the protected call, over every frame in between
 * (an interpreter's error(), pcall() and throw, as Lua implements them).
 * Protected calls nest: an error handler makes a protected call of its
 * own.
 *
 * sample_jmp N [TREE]: N rounds. Compiled with -O2 -finstrument-functions
 * and not linked with libringtrace (ringtrace record preloads it). At exit
 * it prints one "function count" line per function: the calls made, those
 * that never returned included; "thrown N": the errors raised. TREE
 * receives the call tree as the program knows it: one "depth function"
 * line per call, in call order (a protected call puts its depth back
 * after a longjmp, as the interpreter does).
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NOTRACE __attribute__((no_instrument_function))

/* exported (-rdynamic), so the trace names them */
void jmp_throw(int code);
int jmp_raise(int v);
int jmp_step(int v);
int jmp_descend(int v, int d);
int jmp_handler(int code);
int jmp_pcall(int v, int d);
int jmp_round(int i);

static jmp_buf *jmp_cur;
static volatile long sink;
static int depth;
static FILE *tree;

/* a call: logged at its depth; jmp_ret() at its return */
static NOTRACE void jmp_call(const char *name)
{
	if (tree)
		fprintf(tree, "%d %s\n", depth, name);
	depth++;
}

static NOTRACE int jmp_ret(int v)
{
	depth--;
	return v;
}
static unsigned long n_throw, n_raise, n_step, n_descend, n_pcall,
	n_handler, n_round;

NOINLINE void jmp_throw(int code)
{
	jmp_call(__func__);
	n_throw++;
	longjmp(*jmp_cur, code);
}

NOINLINE int jmp_raise(int v)
{
	jmp_call(__func__);
	n_raise++;
	if (v % 3 == 0)
		jmp_throw(v + 1);
	return jmp_ret(v * 2);
}

NOINLINE int jmp_step(int v)
{
	jmp_call(__func__);
	n_step++;
	sink += v;
	return jmp_ret(v + 1);
}

/* d more levels, then a step and maybe an error; not a tail call */
NOINLINE int jmp_descend(int v, int d)
{
	int r;

	jmp_call(__func__);
	n_descend++;
	if (!d)
		return jmp_ret(jmp_raise(jmp_step(v)));
	r = jmp_descend(v + 1, d - 1);
	sink += r;
	return jmp_ret(r + 1);
}

/* an error handler that makes a protected call of its own */
NOINLINE int jmp_handler(int code)
{
	jmp_call(__func__);
	n_handler++;
	return jmp_ret(jmp_step(code) + (code % 2 ? jmp_pcall(code + 1, 1) : 0));
}

NOINLINE int jmp_pcall(int v, int d)
{
	jmp_buf jb, *prev = jmp_cur;
	volatile int r, saved;
	int code;

	jmp_call(__func__);
	saved = depth;
	n_pcall++;
	jmp_cur = &jb;
	code = setjmp(jb);
	if (!code) {
		r = jmp_descend(v, d);
	} else {
		jmp_cur = prev;
		depth = saved;
		return jmp_ret(jmp_handler(code));
	}
	jmp_cur = prev;
	return jmp_ret(r);
}

NOINLINE int jmp_round(int i)
{
	jmp_call(__func__);
	n_round++;
	return jmp_ret(jmp_pcall(i, i % 4) + jmp_step(i));
}

NOTRACE int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;

	if (argc > 2 && !(tree = fopen(argv[2], "w")))
		return 2;
	for (long i = 0; i < n; i++)
		sink += jmp_round((int)i);
	printf("jmp_round %lu\njmp_pcall %lu\njmp_descend %lu\n"
	       "jmp_step %lu\njmp_raise %lu\njmp_throw %lu\n"
	       "jmp_handler %lu\nthrown %lu\n",
	       n_round, n_pcall, n_descend, n_step, n_raise, n_throw,
	       n_handler, n_throw);
	return tree && fclose(tree) ? 2 : 0;
}
