/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * symtab.h - the one address-to-name lookup: a table of function symbols
 * sorted by address, the kernel's %ps / %pS text of an address, and the
 * kallsyms lines that carry a table from the traced process to the tool
 *
 * The process builds its tables from the ELF files it has loaded
 * (tracer/function/symbols.c), the tool and the mount from the kallsyms
 * lines the process publishes or a trace.dat file holds
 * (tracer/client/tep.c); both look an address up here and print it here,
 * so `ringtrace report` and the trace file name an address alike.
 */
#ifndef RINGTRACE_SYMTAB_H
#define RINGTRACE_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/**
 * struct rt_sym - a function symbol
 * @name: the symbol's name
 * @start: its run-time address
 * @size: its size in bytes (0 if unknown: it then reaches the next
 *	symbol of its table)
 * @module: the object it lives in (the process: its path; the tool: the
 *	kallsyms "[module]" name), or NULL
 */
struct rt_sym {
	const char *name;
	unsigned long start;
	unsigned long size;
	const char *module;
};

/*
 * How far back a lookup looks for a sized symbol that contains the
 * address when the nearest one below it does not (nested symbols).
 */
#define RT_SYMTAB_BACKSCAN 16

/**
 * rt_symtab_find - the symbol naming an address
 * @v: the first symbol of the table; sorted by @start, the names of one
 *	address next to each other, the preferred one first
 * @nr: how many
 * @stride: the distance in bytes between two symbols of the table (the
 *	table's elements may be bigger structures holding a struct rt_sym)
 * @addr: the address
 *
 * The nearest symbol at or below @addr names it if it has no size or its
 * size covers @addr; otherwise the nearest of the RT_SYMTAB_BACKSCAN
 * symbols below it whose size covers @addr (a symbol nested in a bigger
 * one); otherwise none (@addr is past the end of its function).
 *
 * Context: any thread; reads @v only.
 * Return: the symbol, or NULL.
 */
const struct rt_sym *rt_symtab_find(const struct rt_sym *v, size_t nr,
				    size_t stride, unsigned long addr);

/**
 * rt_symtab_format - an address as text, like the kernel's %ps and %pS
 * @s: the symbol rt_symtab_find() gave for @addr, or NULL
 * @buf: where the text goes (may be NULL when @len is 0)
 * @len: the size of @buf
 * @addr: the address
 * @offset: append "+0xoff/0xsize" (%pS); "+0xoff" when the size is unknown
 *
 * Without a symbol the address prints as "0x%lx".
 *
 * Context: any thread.
 * Return: the length of the whole text, as snprintf().
 */
size_t rt_symtab_format(const struct rt_sym *s, char *buf, size_t len,
			unsigned long addr, bool offset);

/*
 * The kallsyms line that gives the size of the function on the line
 * before it: an absolute symbol (type 'a', which readers of kallsyms,
 * trace-cmd's included, skip) at the same address, named ".size=0xN".
 */
#define RT_SYMTAB_SIZE_TYPE 'a'
#define RT_SYMTAB_SIZE_NAME ".size="

/**
 * rt_symtab_line - a symbol as kallsyms lines, into a buffer
 * @buf: where they go
 * @len: its room
 * @s: the symbol
 * @modname: its "[module]" name, or NULL for the program
 *
 * "%016lx T name" and "\t[module]", then, for a symbol with a size, its
 * size line (RT_SYMTAB_SIZE_NAME). No terminating NUL.
 *
 * Context: any thread.
 * Return: the length of the lines; more than @len if they did not fit
 * (@buf then holds part of them), as snprintf() says.
 */
size_t rt_symtab_line(char *buf, size_t len, const struct rt_sym *s,
		      const char *modname);

/**
 * rt_symtab_size_line - read a size line
 * @type: the line's type letter
 * @name: the line's name
 * @size: receives the size
 *
 * Context: any thread.
 * Return: true if the line is a size line (rt_symtab_print()).
 */
bool rt_symtab_size_line(char type, const char *name, unsigned long *size);

#endif /* RINGTRACE_SYMTAB_H */
