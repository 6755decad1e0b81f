// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_syms.c - addresses whose names are hard to get right, for the
 * test that the tool names them as the process does.
 *
 * sample_syms FILE: writes one "sy:addr" record per address below, then
 * the process's own trace text into FILE. The addresses: inside a
 * function, inside a function nested in another, inside the outer one
 * past the nested one's end, a function's last byte, and the padding
 * past a function's end.
 */
#include <stdio.h>

#include <ringtrace/tracer.h>

#define CREATE_TRACE_POINTS
#include "sample_syms_trace.h"

#if defined(__x86_64__)
/*
 * rtsy_outer (0x40 bytes) holds rtsy_inner (8 bytes at +0x10); then
 * rtsy_short (4 bytes) and 12 bytes of padding that belong to no
 * function, then rtsy_next.
 */
__asm__(".text\n"
	".p2align 4\n"
	".globl rtsy_outer\n"
	".type rtsy_outer, @function\n"
	"rtsy_outer:\n"
	"\t.skip 0x10, 0x90\n"
	".globl rtsy_inner\n"
	".type rtsy_inner, @function\n"
	"rtsy_inner:\n"
	"\t.skip 0x8, 0x90\n"
	".size rtsy_inner, .-rtsy_inner\n"
	"\t.skip 0x27, 0x90\n"
	"\tret\n"
	".size rtsy_outer, .-rtsy_outer\n"
	".globl rtsy_short\n"
	".type rtsy_short, @function\n"
	"rtsy_short:\n"
	"\t.skip 3, 0x90\n"
	"\tret\n"
	".size rtsy_short, .-rtsy_short\n"
	"\t.skip 12, 0xcc\n"
	".globl rtsy_next\n"
	".type rtsy_next, @function\n"
	"rtsy_next:\n"
	"\tret\n"
	".size rtsy_next, .-rtsy_next\n");

void rtsy_outer(void);
void rtsy_inner(void);
void rtsy_short(void);

int main(int argc, char **argv)
{
	const unsigned long outer = (unsigned long)rtsy_outer;
	const unsigned long inner = (unsigned long)rtsy_inner;
	const unsigned long sh = (unsigned long)rtsy_short;
	static const char *const what[] = {
		"outer", "inner", "inner_end", "outer_last", "short_last",
		"short_past", "padding",
	};
	const unsigned long addr[] = {
		outer + 4, inner + 2, inner + 8, outer + 0x3f, sh + 3,
		sh + 4, sh + 0xf,
	};
	struct ringtrace_instance *self;
	FILE *f;

	if (argc != 2)
		return 2;
	/*
	 * The process's own text comes from an instance of its own, which
	 * the recorder does not consume: the top buffer's `trace` text, read
	 * while the recorder takes its pages, could restart at the
	 * consumer's position (showing a record twice) or miss what it took.
	 */
	self = ringtrace_instance_create("sy_self");
	if (!self)
		return 1;
	ringtrace_event_enable(self, "sy", "addr", true);
	ringtrace_event_enable(ringtrace_top(), "sy", "addr", true);
	for (size_t i = 0; i < sizeof(addr) / sizeof(addr[0]); i++)
		trace_addr(what[i], addr[i]);
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	ringtrace_print_trace(self, f);
	return fclose(f) ? 1 : 0;
}
#else
int main(void)
{
	return 77;
}
#endif
