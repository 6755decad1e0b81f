/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * symbols.h - addresses to function names, in the program and in every
 * shared object it has loaded (dlopen included)
 */
#ifndef RINGTRACE_SYMBOLS_H
#define RINGTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "symtab.h"

/* provided by symbols.c */

/* The loader's counters (dl_iterate_phdr()'s dlpi_adds and dlpi_subs):
 * they move at every dlopen() and dlclose() that maps or unmaps an
 * object. */
struct rt_syms_gen {
	unsigned long long adds;
	unsigned long long subs;
};

/**
 * rt_syms_loader_gen - the loader's counters now
 * @gen: receives them
 *
 * Context: any thread but a signal handler (the loader's lock).
 * Return: false where the loader keeps none (@gen left as it was).
 */
bool rt_syms_loader_gen(struct rt_syms_gen *gen);

/**
 * rt_sym_lookup - the function containing an address
 * @addr: a run-time address
 * @out: the symbol found
 *
 * The symbol is the one rt_symtab_find() finds in the table of the
 * object holding @addr. An address in no known object makes the
 * tables be read again if objects were loaded or unloaded since the last
 * time (so a miss costs a look at the loader's counters, not a rescan).
 *
 * Context: any thread but a signal handler (it may lock, allocate and
 * read files).
 * Return: true and *@out filled, or false.
 */
bool rt_sym_lookup(unsigned long addr, struct rt_sym *out);

/**
 * rt_syms_refresh - read the symbols of objects loaded since last time
 *
 * Objects no longer loaded stop being searched; their names stay valid.
 *
 * Context: any thread but a signal handler; may block.
 * Return: the number of objects newly read, or a negative errno (errno
 * set too): -ENOMEM.
 */
int rt_syms_refresh(void);

/**
 * rt_syms_foreach - call @cb for every function symbol
 * @cb: the callback; a non-zero return stops the walk
 * @arg: passed to @cb
 *
 * Objects are walked by ascending address, and each object's symbols by
 * ascending address; the names of one address (aliases) come one after
 * the other, the one rt_sym_lookup() returns first. @cb must not call
 * rt_syms_refresh() or rt_sym_lookup().
 *
 * Context: any thread but a signal handler; holds a read lock.
 * Return: 0, @cb's non-zero return, or a negative errno.
 */
int rt_syms_foreach(int (*cb)(const struct rt_sym *sym, void *arg), void *arg);

/**
 * rt_sym_format - an address as text, like the kernel's %ps and %pS
 * @buf: where the text goes (may be NULL when @len is 0)
 * @len: the size of @buf
 * @addr: the address
 * @offset: append "+0xoff/0xsize" (%pS); "+0xoff" when the size is unknown
 *
 * An address with no symbol prints as "0x%lx".
 *
 * Context: as rt_sym_lookup().
 * Return: the length of the whole text, as snprintf().
 */
size_t rt_sym_format(char *buf, size_t len, unsigned long addr, bool offset);

/**
 * rt_sym_modname - the "[module]" name of a symbol's object
 * @sym: a symbol from rt_sym_lookup() or rt_syms_foreach()
 *
 * Context: any thread; lock-free.
 * Return: NULL for the main program, else the object's file name (the
 * last part of @sym->module), valid for the life of the process.
 */
const char *rt_sym_modname(const struct rt_sym *sym);

#endif /* RINGTRACE_SYMBOLS_H */
