// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client_trust.c - what a reader of a traced process's files trusts:
 *	the publish directory, the files in it, and nothing the process
 *	writes (Documentation/shared-buffers.rst, "Threat model")
 *
 * A traced process is untrusted: it can rewrite its control file and
 * its other files at any moment, and the tool (or root's tool) must not
 * read, write or hang on anything else because of it. Hence:
 *
 * - a publish directory is opened with O_DIRECTORY | O_NOFOLLOW (never
 *   through a symbolic link) and checked with fstat(): a directory, no
 *   access for group or others (the library makes it 0700), owned by
 *   the caller (root: by the user it looks at), and, when its name
 *   carries a uid (/dev/shm/ringtrace-<uid>, /run/user/<uid>/ringtrace),
 *   by that uid (a directory named on the command line, a copy of a
 *   crashed process's files, may be readable by others, not writable);
 * - every file is opened relative to that directory's descriptor
 *   (openat()) by a name the tool makes from the process's pid and
 *   start time (ctl.h), with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC (a
 *   FIFO does not block the open), and must be a regular file owned by
 *   the process's uid (fstat() after the open);
 * - a path the process writes (its control file's events, symbols and
 *   buffer fields, its reply to "syms") is only compared with the name
 *   the tool made, never opened.
 *
 * Other processes' text (names, replies, event names) reaches a
 * terminal escaped as ps(1) does: rtt_sanitize().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "client_int.h"

void rtt_sanitize(char *s, size_t len, bool lines)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (lines && (c == '\n' || c == '\t'))
			continue;
		if (c < 0x20 || c > 0x7e)
			s[i] = '?';
	}
}

void rtt_safe_copy(char *dst, size_t size, const char *src, size_t srclen)
{
	size_t n = 0;

	if (!size)
		return;
	while (n < srclen && n + 1 < size && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = '\0';
	rtt_sanitize(dst, n, false);
}

int rtt_pid_uid(int pid, unsigned int *uid)
{
	char path[64], line[256];
	unsigned int r, e;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	/* "Uid:	real	effective	saved	filesystem": files are
	 * the effective uid's (the library makes and checks its directory
	 * with geteuid()) */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
			*uid = e;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* The uid a publish directory's name carries: ".../ringtrace-<uid>"
 * or ".../user/<uid>/ringtrace". False when it carries none. */
static bool rtt_dir_name_uid(const char *dir, unsigned int *uid)
{
	size_t n = strlen(dir);
	const char *base, *s;
	char *end;
	unsigned long v;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (base = dir + n; base > dir && base[-1] != '/'; base--)
		;
	if (!strncmp(base, "ringtrace-", 10) && base[10] >= '0' &&
	    base[10] <= '9') {
		v = strtoul(base + 10, &end, 10);
		if (end == dir + n && v <= UINT32_MAX) {
			*uid = (unsigned int)v;
			return true;
		}
		return false;
	}
	if ((size_t)(dir + n - base) != 9 || strncmp(base, "ringtrace", 9) ||
	    base - dir < 2)
		return false;
	/* the parent: <digits> under a directory named "user" */
	for (s = base - 1; s > dir && s[-1] != '/'; s--)
		;
	if (*s < '0' || *s > '9' || s - dir < 6 || strncmp(s - 6, "/user/", 6))
		return false;
	v = strtoul(s, &end, 10);
	if (end != base - 1 || v > UINT32_MAX)
		return false;
	*uid = (unsigned int)v;
	return true;
}

/* The rules of a publish directory (the file's head) on its stat:
 * 0, or -EPERM after a message naming the rule it breaks. */
static int rtt_dir_rules(const char *dir, const struct stat *st,
			 unsigned int want, bool named, char err[RTT_ERR_MAX])
{
	unsigned int me = (unsigned int)geteuid(), nuid;

	if (!S_ISDIR(st->st_mode))
		rtt_err(err,
			"refused: the publish directory %s is not a directory",
			dir);
	else if (rtt_dir_name_uid(dir, &nuid) && st->st_uid != nuid)
		rtt_err(err,
			"refused: the publish directory %s belongs to uid %u, not to uid %u as its name says",
			dir, (unsigned int)st->st_uid, nuid);
	else if (want != RTT_UID_CALLER && st->st_uid != want)
		rtt_err(err,
			"refused: the publish directory %s belongs to uid %u, not to the process's uid %u",
			dir, (unsigned int)st->st_uid, want);
	else if (want == RTT_UID_CALLER && me != 0 && st->st_uid != me)
		rtt_err(err,
			"refused: the publish directory %s belongs to uid %u, not to you (uid %u)",
			dir, (unsigned int)st->st_uid, me);
	else if (named && (st->st_mode & 0022))
		rtt_err(err,
			"refused: %s has mode %04o: others may replace its files",
			dir, (unsigned int)(st->st_mode & 07777));
	else if (!named && (st->st_mode & 0077))
		rtt_err(err,
			"refused: the publish directory %s has mode %04o; it must be 0700 (chmod 700 %s)",
			dir, (unsigned int)(st->st_mode & 07777), dir);
	else
		return 0;
	return -EPERM;
}

int rtt_dir_open(const char *dir, unsigned int want, bool named,
		 unsigned int *owner, char err[RTT_ERR_MAX])
{
	struct stat st;
	int fd, ret;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		/* O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR; say which */
		if (ret == -ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode))
			ret = -ELOOP;
		/* not ours to open: a rule it breaks says more */
		if (ret == -EACCES && !lstat(dir, &st) &&
		    rtt_dir_rules(dir, &st, want, named, err))
			return -EPERM;
		if (ret == -ENOENT)
			rtt_err(err, "no publish directory %s", dir);
		else if (ret == -ELOOP)
			rtt_err(err,
				"refused: the publish directory %s is a symbolic link",
				dir);
		else if (ret == -ENOTDIR)
			rtt_err(err,
				"refused: the publish directory %s is not a directory",
				dir);
		else if (ret == -EACCES)
			rtt_err(err, "permission denied: %s", dir);
		else
			rtt_err(err, "cannot open %s: %s", dir, strerror(-ret));
		/* a link or a file there is someone's attempt: refused */
		return ret == -ELOOP || ret == -ENOTDIR ? -EPERM : ret;
	}
	/* descriptors 0-2 are never a directory's here (struct rtt_proc) */
	if (fd <= 2) {
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		if (hi < 0) {
			ret = -errno;
			rtt_err(err, "cannot open %s: %s", dir, strerror(-ret));
			return ret;
		}
		fd = hi;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		rtt_err(err, "cannot stat %s: %s", dir, strerror(-ret));
		return ret;
	}
	ret = rtt_dir_rules(dir, &st, want, named, err);
	if (ret) {
		close(fd);
		return ret;
	}
	if (owner)
		*owner = (unsigned int)st.st_uid;
	return fd;
}

/* The directory part of @p->base, for messages. */
static void rtt_base_dir(const struct rtt_proc *p, char *dir, size_t len)
{
	const char *slash = strrchr(p->base, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s",
			 slash == p->base ? 1 : (int)(slash - p->base),
			 p->base);
}

int rtt_file_path(const struct rtt_proc *p, const char *name, char *path,
		  size_t len)
{
	char dir[PATH_MAX];

	rtt_base_dir(p, dir, sizeof(dir));
	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int rtt_open_at(const struct rtt_proc *p, const char *name, int mode,
		struct stat *stp, char err[RTT_ERR_MAX])
{
	char path[PATH_MAX + 64];
	struct stat st;
	int fd, ret;

	rtt_file_path(p, name, path, sizeof(path));
	if (p->dfd <= 2) {
		rtt_err(err, "%s: the publish directory is not open", path);
		return -EBADF;
	}
	if (strchr(name, '/')) {
		rtt_err(err, "refused: %s is not a file of process %d", name,
			p->pid);
		return -EPERM;
	}
	fd = openat(p->dfd, name, mode | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP) {
			rtt_err(err, "refused: %s is a symbolic link", path);
			return -EPERM;
		}
		if (ret == -ENXIO) { /* a socket, or a FIFO opened to write */
			rtt_err(err, "refused: %s is not a regular file", path);
			return -EPERM;
		}
		if (ret == -EACCES || ret == -EPERM)
			rtt_err(err, "permission denied: %s", path);
		else
			rtt_err(err, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		rtt_err(err, "cannot stat %s: %s", path, strerror(-ret));
		return ret;
	}
	ret = 0;
	if (!S_ISREG(st.st_mode)) {
		rtt_err(err, "refused: %s is not a regular file", path);
		ret = -EPERM;
	} else if (st.st_uid != p->uid) {
		rtt_err(err,
			"refused: %s belongs to uid %u, not to the process's uid %u",
			path, (unsigned int)st.st_uid, p->uid);
		ret = -EPERM;
	}
	if (ret) {
		close(fd);
		return ret;
	}
	if (stp)
		*stp = st;
	return fd;
}

int rtt_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = NULL;
	int ret = 0;

	*out = NULL;
	*len = 0;
	for (;;) {
		ssize_t r;

		if (!buf || n + 1 >= cap) {
			char *nb;

			if (buf)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			ret = -EFBIG;
			break;
		}
	}
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int rtt_read_at(const struct rtt_proc *p, const char *name, size_t max,
		char **out, size_t *len, char err[RTT_ERR_MAX])
{
	char path[PATH_MAX + 64];
	struct stat st;
	int fd, ret;

	*out = NULL;
	*len = 0;
	fd = rtt_open_at(p, name, O_RDONLY, &st, err);
	if (fd < 0)
		return fd;
	rtt_file_path(p, name, path, sizeof(path));
	if ((uint64_t)st.st_size > max) {
		close(fd);
		rtt_err(err,
			"refused: corrupt file %s: %lld bytes, more than %zu",
			path, (long long)st.st_size, max);
		return -EPROTO;
	}
	ret = rtt_read_fd(fd, max, out, len);
	close(fd);
	if (ret == -EFBIG) {
		rtt_err(err, "refused: corrupt file %s: grew past %zu bytes",
			path, max);
		ret = -EPROTO;
	} else if (ret)
		rtt_err(err, "cannot read %s: %s", path, strerror(-ret));
	return ret;
}

bool rtt_own_name(const struct rtt_proc *p, const char *path,
		  const char *suffix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char want[96];

	snprintf(want, sizeof(want), "%d-%" PRIu64 ".%s", p->pid, p->start,
		 suffix);
	return !strcmp(base, want);
}
