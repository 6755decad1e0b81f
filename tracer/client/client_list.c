// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client_list.c - the traced processes the tool can find: the control
 *	files of the publish directory and of other users' directories
 */
#include <dirent.h>
#include <glob.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ringbuf/ringbuf.h>

#include "client.h"
#include "proto.h"
#include "client_int.h"

/* "<pid>-<start>.ctl": true and the numbers, else false. */
bool rtt_parse_ctl_name(const char *name, int *pid, uint64_t *start)
{
	unsigned long long s;
	int p, n = 0;

	if (sscanf(name, "%d-%llu.ctl%n", &p, &s, &n) != 2 || n <= 0 ||
	    name[n] != '\0' || p <= 0 || name[0] < '0' || name[0] > '9')
		return false;
	*pid = p;
	*start = s;
	return true;
}

static int rtt_entry_cmp(const void *a, const void *b)
{
	const struct rtt_entry *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* Add the control files of @dir to @v. Return: 0, -ENOMEM, or the
 * error of opening @dir (a missing one is empty). */
/* A directory the trust rule refuses (client_trust.c) is skipped with
 * a warning on standard error, or with @err (the caller's own publish
 * directory) an error of its own (-EPERM). */
static int rtt_list_dir(const char *dir, struct rtt_entry **v, size_t *n,
			size_t *cap, char *err)
{
	char msg[RTT_ERR_MAX];
	struct dirent *de;
	int fd = rtt_dir_open(dir, RTT_UID_CALLER, false, NULL, msg);
	DIR *d;

	if (fd == -EPERM && err) {
		snprintf(err, RTT_ERR_MAX, "%s", msg);
		return fd;
	}
	if (fd == -EPERM) {
		fprintf(stderr, "ringtrace: warning: %s\n", msg);
		return 0;
	}
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct rtt_entry e;
		size_t i;

		if (!rtt_parse_ctl_name(de->d_name, &e.pid, &e.start))
			continue;
		if ((size_t)snprintf(e.base, sizeof(e.base), "%s/%d-%" PRIu64,
				     dir, e.pid, e.start) >= sizeof(e.base))
			continue;
		for (i = 0; i < *n; i++)
			if (!strcmp((*v)[i].base, e.base))
				break;
		if (i < *n)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct rtt_entry *nv = realloc(*v, nc * sizeof(**v));

			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
			*cap = nc;
		}
		(*v)[(*n)++] = e;
	}
	closedir(d);
	return 0;
}

/* The publish directories the live processes name in their environment
 * (RINGTRACE_DIR), each listed once into @v. Return: 0 or -ENOMEM. */
static int rtt_list_env_dirs(struct rtt_entry **v, size_t *n, size_t *cap)
{
	struct dirent *de;
	char **seen = NULL;
	size_t nseen = 0, i;
	int ret = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char path[300], *env = NULL;
		size_t len = 0, k;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/environ", de->d_name);
		if (rtt_read_file(path, 1 << 20, &env, &len))
			continue;
		for (k = 0; k < len; k += strlen(env + k) + 1) {
			const char *dir = env + k + 14;
			char **ns;

			if (strncmp(env + k, "RINGTRACE_DIR=", 14) || !*dir)
				continue;
			for (i = 0; i < nseen; i++)
				if (!strcmp(seen[i], dir))
					break;
			if (i < nseen)
				break;
			ns = realloc(seen, (nseen + 1) * sizeof(*ns));
			if (!ns || !(ns[nseen] = strdup(dir))) {
				seen = ns ? ns : seen;
				ret = -ENOMEM;
				break;
			}
			seen = ns;
			nseen++;
			if (rtt_list_dir(dir, v, n, cap, NULL) == -ENOMEM)
				ret = -ENOMEM;
			break;
		}
		free(env);
	}
	closedir(d);
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return ret;
}

int rtt_list(struct rtt_entry **out, size_t *nr, char err[RTT_ERR_MAX])
{
	return rtt_list_all(out, nr, false, err);
}

int rtt_list_all(struct rtt_entry **out, size_t *nr, bool others_too,
		 char err[RTT_ERR_MAX])
{
	static const char *const others[] = { "/dev/shm/ringtrace-*",
					      "/run/user/*/ringtrace" };
	char dir[PATH_MAX];
	struct rtt_entry *v = NULL;
	size_t n = 0, cap = 0, i, k;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = rtt_publish_dir(dir, sizeof(dir));
	if (ret) {
		rtt_err(err, "the publish directory name is too long");
		return ret;
	}
	ret = rtt_list_dir(dir, &v, &n, &cap, err);
	if (ret) {
		free(v);
		if (ret == -ENOMEM)
			rtt_err(err, "out of memory");
		else if (ret != -EPERM)
			rtt_err(err, "cannot read %s: %s", dir, strerror(-ret));
		return ret;
	}
	/* root sees every user's processes: the default publish
	 * directories of all users too */
	for (i = 0; others_too && !getuid() &&
		    i < sizeof(others) / sizeof(others[0]);
	     i++) {
		glob_t g;

		if (glob(others[i], GLOB_NOSORT, NULL, &g))
			continue;
		for (k = 0; k < g.gl_pathc && ret != -ENOMEM; k++)
			ret = rtt_list_dir(g.gl_pathv[k], &v, &n, &cap, NULL);
		globfree(&g);
		if (ret == -ENOMEM) {
			free(v);
			rtt_err(err, "out of memory");
			return ret;
		}
	}
	/* and those the running processes name (RINGTRACE_DIR) */
	if (others_too && !getuid() &&
	    rtt_list_env_dirs(&v, &n, &cap) == -ENOMEM) {
		free(v);
		rtt_err(err, "out of memory");
		return -ENOMEM;
	}
	if (n)
		qsort(v, n, sizeof(*v), rtt_entry_cmp);
	*out = v;
	*nr = n;
	return 0;
}
