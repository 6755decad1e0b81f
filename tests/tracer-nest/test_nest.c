// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The function_graph call tree of -O2 code (nest_sample.c, built -O2
 * -finstrument-functions) against the tree each pattern must give:
 * inlined callees (always_inline, static helpers GCC inlines, an inlined
 * callee calling a real function), recursion, calls in tail position,
 * longjmp out of several frames (once and from the same call site
 * again), a signal handler in the middle of a call, and the tracer
 * switched off and on while a traced function runs. The trace text is
 * reduced to "depth token" lines (token: "f() {", "f();" or "}"), which
 * is what a reader of the call tree sees.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ringtrace/tracer.h>

#include "golden.h"
#include "nest_sample.h"
#include "test.h"

static struct ringtrace_instance *setup(void)
{
	struct ringtrace_instance *tr;

	golden_setup_thread();
	tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(ringtrace_set_tracer(tr, "function_graph"), 0);
	ringtrace_clear(tr);
	return tr;
}

static int print_trace_cb(FILE *out, void *arg)
{
	return ringtrace_print_trace(arg, out);
}

/*
 * The call tree of a function_graph listing: for each line after the
 * "|", its depth (two columns of indent each) and the call text, with
 * the "/" "* f *" "/" tail comments dropped.
 */
static char *tree_of(const char *t)
{
	char *out = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *line = t;

	ASSERT_NOT_NULL(f);
	while (*line) {
		const char *nl = strchr(line, '\n'), *bar;
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		bar = strstr(buf, "|  ");
		if (buf[0] != '#' && bar) {
			const char *c = bar + 3;
			int depth = 0;

			while (c[0] == ' ' && c[1] == ' ') {
				depth++;
				c += 2;
			}
			p = strstr(c, " /*");
			if (p)
				*p = '\0';
			if (*c)
				fprintf(f, "%d %s\n", depth, c);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	ASSERT_EQ(fclose(f), 0);
	return out;
}

/* run @fn(@arg) under function_graph; its tree must be @want */
static void expect_tree(struct ringtrace_instance *tr, const char *want)
{
	char *t, *tree;

	ringtrace_tracing_on(tr, false);
	t = golden_capture(print_trace_cb, tr);
	tree = tree_of(t);
	if (strcmp(tree, want) != 0) {
		fprintf(stderr, "---- trace ----\n%s---- tree ----\n%s"
			"---- want ----\n%s----\n", t, tree, want);
		RBT_FAIL("the call tree differs");
	}
	free(tree);
	free(t);
}

static void inline_leaf(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(nest_inline(3), 1 + 3 + 5 + (3 ^ 0x55));
	expect_tree(tr, "0 nest_inline() {\n"
			"1 ai_leaf();\n"
			"1 ai_leaf();\n"
			"1 ai_leaf();\n"
			"1 st_helper();\n"
			"0 }\n");
}

static void inline_static(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(nest_static(4), (4 ^ 0x55) + 9);
	ASSERT_EQ(nest_static(5), (5 ^ 0x55) + 11);
	expect_tree(tr, "0 nest_static() {\n"
			"1 st_helper();\n"
			"1 ai_leaf();\n"
			"0 }\n"
			"0 nest_static() {\n"
			"1 st_helper();\n"
			"1 ai_leaf();\n"
			"0 }\n");
}

static void inline_nested(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(nest_deep_inline(1), (8 + 3) + (9 + 5));
	expect_tree(tr, "0 nest_deep_inline() {\n"
			"1 ai_mid() {\n"
			"2 nest_real_leaf();\n"
			"2 ai_leaf();\n"
			"1 }\n"
			"1 ai_mid() {\n"
			"2 nest_real_leaf();\n"
			"2 ai_leaf();\n"
			"1 }\n"
			"0 }\n");
}

static void recursion(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(nest_rec(3), 3);
	expect_tree(tr, "0 nest_rec() {\n"
			"1 nest_rec() {\n"
			"2 nest_rec() {\n"
			"3 nest_rec();\n"
			"2 }\n"
			"1 }\n"
			"0 }\n");
}

static void tail_call(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(nest_tail(5), 12);
	expect_tree(tr, "0 nest_tail() {\n"
			"1 nest_tail_b();\n"
			"0 }\n");
}

/* The frames a longjmp() leaves have no return: their entries stay
 * open, and what the jumping function calls next is at its own depth. */
static void longjmp_once(void)
{
	struct ringtrace_instance *tr = setup();

	nest_longjmp(0);
	expect_tree(tr, "0 nest_longjmp() {\n"
			"1 nest_lj_a() {\n"
			"2 nest_lj_b() {\n"
			"3 nest_lj_c() {\n"
			"1 nest_lj_after();\n"
			"0 }\n");
}

/* the same function called again from the same place after the jump */
static void longjmp_again(void)
{
	struct ringtrace_instance *tr = setup();

	nest_longjmp(1);
	expect_tree(tr, "0 nest_longjmp() {\n"
			"1 nest_lj_a() {\n"
			"2 nest_lj_b() {\n"
			"3 nest_lj_c() {\n"
			"1 nest_lj_a() {\n"
			"2 nest_lj_b() {\n"
			"3 nest_lj_c() {\n"
			"1 nest_lj_after();\n"
			"0 }\n");
}

/* a handler nests inside the function it interrupted, as an interrupt
 * in the kernel's listing */
static void signal_handler(void)
{
	struct ringtrace_instance *tr = setup();

	nest_signal(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	expect_tree(tr, "0 nest_signal() {\n"
			"1 nest_sig_handler() {\n"
			"2 nest_sig_inner();\n"
			"1 }\n"
			"0 }\n");
}

static struct ringtrace_instance *switch_tr;

static void switch_off_on(void)
{
	ASSERT_EQ(ringtrace_set_tracer(switch_tr, "nop"), 0);
	ASSERT_EQ(ringtrace_set_tracer(switch_tr, "function_graph"), 0);
}

/*
 * The tracer switched off and on while nest_switch_victim() runs: as in
 * the kernel, whose return_to_handler keeps the ret_stack across the
 * switch, the victim's frame stays, what runs after the switch nests in
 * it and its return closes it.
 */
static void tracer_switch(void)
{
	struct ringtrace_instance *tr = setup();

	switch_tr = tr;
	nest_switch_victim(switch_off_on);
	nest_tail(1);
	expect_tree(tr, "0 nest_switch_victim() {\n"
			"1 nest_switch_leaf();\n"
			"1 nest_switch_leaf();\n"
			"0 }\n"
			"0 nest_tail() {\n"
			"1 nest_tail_b();\n"
			"0 }\n");
}

static void switch_off(void)
{
	ASSERT_EQ(ringtrace_set_tracer(switch_tr, "nop"), 0);
}

/* a call made deeper on the machine stack than the victim was */
static __attribute__((noinline)) void deeper_call(void)
{
	volatile char pad[512];

	pad[0] = 1;
	ASSERT_EQ(nest_tail(1), 4);
	ASSERT_EQ(pad[0], 1);
}

/*
 * The victim returns while the tracer is off: its frame goes with its
 * return, so a later call nests in nothing, even one made deeper on the
 * machine stack (where no stale-frame rule could tell).
 */
static void tracer_off_return(void)
{
	struct ringtrace_instance *tr = setup();

	switch_tr = tr;
	nest_switch_victim(switch_off);
	ASSERT_EQ(ringtrace_set_tracer(tr, "function_graph"), 0);
	deeper_call();
	expect_tree(tr, "0 nest_switch_victim() {\n"
			"1 nest_switch_leaf();\n"
			"0 nest_tail() {\n"
			"1 nest_tail_b();\n"
			"0 }\n");
}

static const struct rbt_case cases[] = {
	RBT_CASE(inline_leaf),	 RBT_CASE(inline_static),
	RBT_CASE(inline_nested), RBT_CASE(recursion),
	RBT_CASE(tail_call),	 RBT_CASE(longjmp_once),
	RBT_CASE(longjmp_again), RBT_CASE(signal_handler),
	RBT_CASE(tracer_switch), RBT_CASE(tracer_off_return),
};
RBT_MAIN(cases)
