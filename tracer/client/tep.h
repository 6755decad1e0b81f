/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tep.h - what the ringtrace tool knows of a traced process's events,
 *	symbols and thread names, and the printer operations (print.h)
 *	built on them: event text through libtraceevent, symbols from a
 *	kallsyms-style table, names from saved_cmdlines
 */
#ifndef RINGTRACE_TOOL_TEP_H
#define RINGTRACE_TOOL_TEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "ctl.h"
#include "field.h"
#include "print.h"
#include "symtab.h"

struct tep_handle;
struct tep_event;
struct rt_filter;

/* ---- symbols ------------------------------------------------------------ */

/**
 * struct rtt_sym - one symbol of the table
 * @sym: its address, size, name (demangled by rtt_syms_demangle()) and
 *	object's name (NULL for the program), owned by the table; looked up
 *	with the process's own rt_symtab_find()
 * @mangled: the name as the file has it, when @sym.name is demangled;
 *	NULL otherwise
 * @line: its line in the text (the order of the names of one address)
 */
struct rtt_sym {
	struct rt_sym sym;
	char *mangled;
	size_t line;
};

/**
 * struct rtt_syms - a symbol table sorted by address
 * @v: the symbols
 * @nr: how many
 */
struct rtt_syms {
	struct rtt_sym *v;
	size_t nr;
};

/**
 * rtt_syms_parse - read kallsyms lines ("%016lx T name\t[module]")
 * @text: the lines (NUL-terminated)
 * @out: receives the table (free with rtt_syms_free())
 *
 * Lines that do not parse are skipped. The sizes are those of the size
 * lines the process writes (symtab.h); text without any (a kernel's
 * kallsyms) has, as the kernel's, each symbol end where the next one of
 * its object starts.
 *
 * Context: any thread.
 * Return: 0 or -ENOMEM.
 */
int rtt_syms_parse(const char *text, struct rtt_syms **out);
void rtt_syms_free(struct rtt_syms *t);

/**
 * rtt_syms_demangle - demangle the C++ names of a table
 * @t: the table (may be NULL)
 * @full: the whole demangled name ("ns::f(int) const"); otherwise without
 *	its parameter list ("ns::f"), as uftrace shows names by default
 *
 * Each name of the Itanium C++ ABI ("_Z...") becomes its demangled form,
 * the mangled one kept in @mangled. The demangler
 * is the C++ runtime's __cxa_demangle(), found with dlopen() (libstdc++,
 * or libc++abi): a C program's user needs no C++ runtime.
 *
 * Context: the tool's thread.
 * Return: 0, or -ENOSYS when no C++ runtime is installed (the names
 * stay as they are).
 */
int rtt_syms_demangle(struct rtt_syms *t, bool full);
/* Whether a name of @t is a mangled C++ name. */
bool rtt_syms_mangled(const struct rtt_syms *t);

/**
 * rtt_sym_find - the symbol naming @addr
 * @t: the table (may be NULL)
 * @addr: the address
 *
 * The process's lookup, rt_symtab_find(): nested symbols, a symbol's
 * last byte and an address past its end are named as the process names
 * them.
 *
 * Context: any thread.
 * Return: the symbol, or NULL.
 */
const struct rtt_sym *rtt_sym_find(const struct rtt_syms *t,
				   unsigned long addr);

/**
 * rtt_sym_format - @addr as the kernel's %ps ("name") or %pS
 *	("name+0x1a/0x50")
 * @t: the table (may be NULL)
 * @buf: where the text goes
 * @len: its size
 * @addr: the address
 * @offset: %pS rather than %ps
 *
 * Context: any thread.
 * Return: the length of the whole text, as snprintf(); "0x%lx" when no
 * symbol holds @addr.
 */
size_t rtt_sym_format(const struct rtt_syms *t, char *buf, size_t len,
		      unsigned long addr, bool offset);

/* ---- events ------------------------------------------------------------- */

/**
 * struct rtt_event - one event of the process
 * @system: its system
 * @name: its name
 * @id: its id (common_type)
 * @format: its format text, as the format file shows it
 * @tep: libtraceevent's parse of it
 * @fields: the fields as the filter compiler wants them (common first),
 *	made by rtt_event_fields()
 * @nr_fields: how many
 */
struct rtt_event {
	char *system;
	char *name;
	int id;
	char *format;
	struct tep_event *tep;
	struct rt_field *fields;
	size_t nr_fields;
};

/**
 * struct rtt_events - the events of one process or one trace.dat file
 * @tep: libtraceevent's handle
 * @v: the events, in the order read
 * @nr: how many
 * @syms: the symbol table %ps and %pS use (not owned)
 */
struct rtt_events {
	struct tep_handle *tep;
	struct rtt_event *v;
	size_t nr;
	const struct rtt_syms *syms;
};

/**
 * rtt_events_new - an empty set of events
 *
 * Context: any thread.
 * Return: the set, or NULL (out of memory).
 */
struct rtt_events *rtt_events_new(void);
void rtt_events_free(struct rtt_events *ev);

/**
 * rtt_events_add - parse one format text
 * @ev: the set
 * @system: the event's system
 * @format: the text ("name: ...\nID: ...\nformat:\n...print fmt: ...")
 * @len: its length
 * @err: the reason of a failure
 *
 * Context: any thread.
 * Return: 0, -EPROTO (a format libtraceevent refused, or without name or
 * ID), -ENOMEM.
 */
int rtt_events_add(struct rtt_events *ev, const char *system,
		   const char *format, size_t len, char *err, size_t errlen);

/**
 * rtt_events_parse_file - parse a process's events file (ctl.h: for each
 *	event "system: <sys>", its format text, then "--")
 * @ev: the set
 * @text: the file's contents (NUL-terminated)
 * @err: the reason of a failure
 *
 * Context: any thread.
 * Return: 0, -EPROTO for a malformed file, -ENOMEM.
 */
int rtt_events_parse_file(struct rtt_events *ev, const char *text, char *err,
			  size_t errlen);

/**
 * rtt_events_keep - add to @ev the events of @old it does not have
 * @ev: a newer reading of the events
 * @old: the previous one
 *
 * An event unregistered since (a library unloaded, the program exiting)
 * may still have records in the buffer: its format stays readable.
 *
 * Context: any thread.
 * Return: 0, or a negative errno (@ev then lacks some of them).
 */
int rtt_events_keep(struct rtt_events *ev, const struct rtt_events *old);

/**
 * rtt_events_set_syms - the table %ps and %pS resolve with
 * @ev: the set
 * @syms: the table (kept, not copied), or NULL
 *
 * Context: any thread.
 */
void rtt_events_set_syms(struct rtt_events *ev, const struct rtt_syms *syms);

/* The event of id @id, or NULL. */
struct rtt_event *rtt_events_by_id(const struct rtt_events *ev, int id);
/* The event @system:@name (@system NULL: the first named @name), or NULL. */
struct rtt_event *rtt_events_find(const struct rtt_events *ev,
				  const char *system, const char *name);

/**
 * rtt_event_fields - the event's fields for the filter compiler
 * @e: the event
 *
 * Fills @e->fields (kept for the life of the set).
 *
 * Context: any thread.
 * Return: 0 or -ENOMEM.
 */
int rtt_event_fields(struct rtt_event *e);

/**
 * rtt_event_text - the event's text after "name: " (its print format, or
 *	its fields as "name=value" pairs with @raw)
 * @ev: the set
 * @rec: the record, struct ringtrace_entry first
 * @len: its length
 * @raw: the fields rather than the print format
 * @buf: where the text goes (malloc()ed, NUL-terminated; free() it; NULL
 *	without memory)
 *
 * Context: any thread.
 * Return: the event, or NULL for an unknown id (*@buf untouched).
 */
struct rtt_event *rtt_event_text(const struct rtt_events *ev, const void *rec,
				 unsigned int len, bool raw, char **buf);

/* ---- thread names ------------------------------------------------------- */

/**
 * struct rtt_comms - thread names read from "pid comm" lines
 */
struct rtt_comms;

/**
 * rtt_comms_parse - read "pid comm" lines (a trace.dat's cmdlines)
 * @text: the lines (NUL-terminated; may be NULL)
 *
 * Context: any thread.
 * Return: the table, or NULL (out of memory).
 */
struct rtt_comms *rtt_comms_parse(const char *text);
void rtt_comms_free(struct rtt_comms *c);
/* The name of @pid: true and @comm (16 bytes) filled, else false. */
bool rtt_comms_find(const struct rtt_comms *c, int pid, char *comm);

/* ---- printer operations ------------------------------------------------- */

/**
 * struct rtt_print_ctx - what the printer operations read
 * @ev: the events
 * @syms: the symbols (may be NULL)
 * @cmdlines: a live process's saved_cmdlines (mapped), or NULL
 * @comms: names from a trace.dat, or NULL
 * @raw: print events' fields rather than their print format
 * @protos: funcgraph-args' prototypes from a trace.dat, or NULL
 * @pid: a live process whose DWARF gives them instead (0: none; set by
 *	rtt_print_ctx_proc())
 * @dwarf: its debug information, opened at the first need
 *	(rtt_print_ctx_done() closes it)
 */
struct rt_dwarf;
struct rtt_protos;

struct rtt_print_ctx {
	const struct rtt_events *ev;
	const struct rtt_syms *syms;
	struct rt_ctl_cmdline *cmdlines;
	const struct rtt_comms *comms;
	bool raw;
	const struct rtt_protos *protos;
	int pid;
	struct rt_dwarf *dwarf;
	bool dwarf_failed;
};

/* What the printing of @ctx kept (its live process's DWARF). */
void rtt_print_ctx_done(struct rtt_print_ctx *ctx);

/*
 * Whether the tool reads the DWARF of process @pid of user @uid for
 * funcgraph-args: only a process of the tool's own user (a process of
 * another user, root tracing it, chooses the files libdw would parse).
 * Then @ctx takes @pid.
 */
bool rtt_print_ctx_proc(struct rtt_print_ctx *ctx, int pid, unsigned int uid);

/* ---- funcgraph-args' prototypes (protos.c) ------------------------------ */

struct rtt_protos;

/* Parse "%016lx proto" lines (fnproto.h); 0 or -ENOMEM. */
int rtt_protos_parse(const char *text, struct rtt_protos **out);
void rtt_protos_free(struct rtt_protos *p);
/* The prototype of the function at @addr into @buf; false: unknown. */
bool rtt_protos_find(const struct rtt_protos *p, unsigned long addr, char *buf,
		     size_t len);
/*
 * The lines for the functions of @syms_text (kallsyms lines) that live
 * process @pid has debug information for, malloc()ed; NULL when none.
 */
char *rtt_protos_text(pid_t pid, const char *syms_text);

/**
 * rtt_printer_ops - fill the printer's operations for @ctx
 * @ctx: the context (must outlive the printing)
 * @ops: filled
 *
 * Context: any thread.
 */
void rtt_printer_ops(struct rtt_print_ctx *ctx, struct rt_printer_ops *ops);

#endif /* RINGTRACE_TOOL_TEP_H */
