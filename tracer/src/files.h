/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * files.h - the library's table of tracefs files (files.c)
 */
#ifndef RINGTRACE_FILES_H
#define RINGTRACE_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct ringtrace_instance;

/**
 * struct rt_file - one tracefs file of an instance directory
 * @name: its name
 * @mode: its mode, as tracefs gives it
 * @top_only: the top instance has it, the others not
 * @show: its text into @buf (@len bytes, snprintf()-like): the length the
 *	whole text needs, or a negative errno; NULL: write-only
 * @write: a write of @text (NUL-terminated, as written): 0 or a negative
 *	errno with a message in @err; NULL: read-only. A write to a list
 *	adds to it, as the kernel's write to an open file: '>>'
 * @trunc: what opening the file with O_TRUNC ('>') does before the
 *	write, as the kernel's open: empty the list; NULL: nothing
 */
struct rt_file {
	const char *name;
	unsigned short mode;
	bool top_only;
	int (*show)(struct ringtrace_instance *tr, char *buf, size_t len);
	int (*write)(struct ringtrace_instance *tr, const char *text,
		     char *err, size_t errlen);
	int (*trunc)(struct ringtrace_instance *tr);
};

/* The row named @name, or NULL. */
const struct rt_file *rt_file_lookup(const char *name);
/* Row @i, or NULL past the last. */
const struct rt_file *rt_file_at(size_t i);

#endif /* RINGTRACE_FILES_H */
