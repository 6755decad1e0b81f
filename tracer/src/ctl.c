// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctl.c - the helpers both sides of the control file use (see ctl.h):
 *	where the files are, and a process's start time
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

int rt_publish_dir(char *buf, size_t len)
{
	const char *d = secure_getenv("RINGTRACE_DIR");
	int n;

	if (d && *d)
		n = snprintf(buf, len, "%s", d);
	else if ((d = secure_getenv("XDG_RUNTIME_DIR")) && d[0] == '/')
		n = snprintf(buf, len, "%s/ringtrace", d);
	else
		/* the effective uid: the one that makes the directory and
		 * its files, and that the directory is checked against */
		n = snprintf(buf, len, "/dev/shm/ringtrace-%u",
			     (unsigned int)geteuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

uint64_t rt_proc_start_time(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	size_t n;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the name (field 2) may hold blanks and parentheses: skip to the
	 * last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p++;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p + 1, ' ');
	}
	if (!p || sscanf(p, " %llu", &start) != 1)
		return 0;
	return start;
}

bool rt_cmdline_lookup(struct rt_ctl_cmdline *tab, int pid, char *comm,
		       int *tgid)
{
	struct rt_ctl_cmdline *c = &tab[(unsigned int)pid % RT_CTL_CMDLINES];
	unsigned int s1, s2;
	uint64_t w[2];
	int p, t;

	/* Pairs with the release store that ends rt_cmdline_save(). */
	s1 = atomic_load_explicit(&c->seq, memory_order_acquire);
	if (s1 & 1 || s1 == 0)
		return false;
	p = atomic_load_explicit(&c->pid, memory_order_relaxed);
	t = atomic_load_explicit(&c->tgid, memory_order_relaxed);
	w[0] = atomic_load_explicit(&c->comm[0], memory_order_relaxed);
	w[1] = atomic_load_explicit(&c->comm[1], memory_order_relaxed);
	/* Orders the word loads before the seq re-check; pairs with the
	 * release fence after the saver's claim. */
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit(&c->seq, memory_order_relaxed);
	if (s1 != s2 || p != pid)
		return false;
	memcpy(comm, w, 16);
	comm[15] = '\0';
	if (tgid)
		*tgid = t;
	return true;
}
