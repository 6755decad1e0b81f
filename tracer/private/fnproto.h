/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fnproto.h - functions' parameters from their debug information (DWARF,
 *	read with elfutils' libdw), for funcgraph-args: what the kernel
 *	takes from BTF (dwarf.c, rtdwarf; used by libringtrace's printer
 *	and by the ringtrace tool)
 *
 * A prototype travels as text, one line a function in a trace.dat and
 * from a process to the tool: the parameters in order, separated by
 * blanks, each "name:kind", the name empty for an unnamed one:
 *
 *	p		a pointer or a reference
 *	sN / uN		a signed / unsigned integer of N bytes (uN: bool,
 *			unsigned char, wchar too)
 *	eN		an enumeration of N bytes
 *	fN		a floating-point number (passed in an SSE register)
 *	SN:KIND		an aggregate of N bytes; KIND is STRUCT, UNION or
 *			INT (a 16-byte integer)
 *	?		a type the printer cannot tell
 *	...		(alone, no name) the variable arguments
 *
 * A function of no parameters has an empty prototype; one without debug
 * information has none at all (the printer then shows the raw registers).
 */
#ifndef RINGTRACE_FNPROTO_H
#define RINGTRACE_FNPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How many integer argument registers a record keeps (x86-64: rdi rsi
 * rdx rcx r8 r9; the kernel's FTRACE_REGS_MAX_ARGS). */
#define RT_FNPROTO_NR_ARGS 6

/* The longest prototype text (longer ones are cut at a parameter). */
#define RT_FNPROTO_MAX 512

struct rt_dwarf;

/*
 * rt_dwarf_open - the debug information of the objects process @pid has
 * loaded (0: this process), found as gdb finds it (the file itself, its
 * .gnu_debuglink, /usr/lib/debug/.build-id). NULL on failure (errno).
 */
struct rt_dwarf *rt_dwarf_open(pid_t pid);
void rt_dwarf_close(struct rt_dwarf *d);

/*
 * rt_dwarf_proto - the prototype of the function that starts at @addr
 * (a run-time address of the process) into @buf (NUL-terminated, cut at
 * @len). Objects loaded since rt_dwarf_open() are looked for once an
 * address falls in none of the known ones.
 *
 * Return: true with the prototype (maybe empty: no parameters); false
 * when the function has no debug information.
 */
bool rt_dwarf_proto(struct rt_dwarf *d, unsigned long addr, char *buf,
		    size_t len);

/*
 * rt_dwarf_plain_abi - whether the function that starts at @addr takes
 * its parameters as its prototype says, by the ABI: GCC compiled it (its
 * compile unit's producer says so: GCC changes the parameters of a
 * function only in a copy of another name, .isra or .constprop, whose
 * DWARF says DW_CC_nocall; Clang may promote a static function's pointer
 * parameter to the value it points to under the same name) and its
 * DW_AT_calling_convention, if any, is DW_CC_normal. Not cached.
 */
bool rt_dwarf_plain_abi(struct rt_dwarf *d, unsigned long addr);

#endif /* RINGTRACE_FNPROTO_H */
