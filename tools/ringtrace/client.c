// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client.c - the ringtrace tool's side of the control file (see ctl.h
 *	for the layout and the command protocol, client.h for the calls)
 *
 * client_list.c finds the processes, client_cmd.c sends them commands,
 * client_buf.c attaches their buffers and reads their other files; this
 * file opens a process and tells how it is.
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

/* A message into the caller's RTT_ERR_MAX buffer (truncated to fit). */
void rtt_err(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, RTT_ERR_MAX, fmt, ap);
	va_end(ap);
}

int rtt_exit_code(int err)
{
	switch (err) {
	case 0:
		return RTT_EXIT_OK;
	case -ESRCH:
	case -EPROTONOSUPPORT: /* traced, but not in this tool's protocol */
		return RTT_EXIT_NOPROC;
	case -EACCES:
	case -EPERM:
		return RTT_EXIT_PERM;
	case -EPROTO:
	case -EBADMSG:
		return RTT_EXIT_CORRUPT;
	case -EINVAL:
	case -ENOENT:
	case -E2BIG:
		return RTT_EXIT_USAGE;
	default:
		return RTT_EXIT_FAIL;
	}
}

int rtt_publish_dir(char *buf, size_t len)
{
	return rt_publish_dir(buf, len);
}

int rtt_parse_pid(const char *arg, int *pid)
{
	char *end;
	long v;

	if (!arg || *arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v <= 0 || v > INT32_MAX)
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

uint64_t rtt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The name of a running process, for messages ("?" when unknown). */
void rtt_proc_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* A process that exited and was not reaped yet (or is being reaped). */
static bool rtt_zombie(int pid)
{
	char path[64], buf[512], *s;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	s = strrchr(buf, ')');
	return s && (s[2] == 'Z' || s[2] == 'X');
}

int rtt_proc_state(const struct rtt_proc *p)
{
	uint64_t now = rt_proc_start_time(p->pid);

	if (!now || now != p->start || rtt_zombie(p->pid))
		return RTT_DEAD;
	if (p->ctl && atomic_load_explicit(&p->ctl->state,
					   memory_order_relaxed) ==
			      RT_CTL_EXITED)
		return RTT_EXITING;
	return RTT_ALIVE;
}

/* Map and check the control file at @base.ctl. */
static int rtt_map(struct rtt_proc *p, unsigned int flags,
		   char err[RTT_ERR_MAX])
{
	char path[PATH_MAX + 8];
	bool rw = !(flags & RTT_OPEN_READONLY);
	struct stat st;
	struct rt_ctl *c;
	void *m;
	int fd, ret;

	snprintf(path, sizeof(path), "%s.ctl", p->base);
	fd = open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && rw && errno == EACCES) {
		/* Enough to look, not to command. */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			rw = false;
		else
			errno = EACCES;
	}
	if (fd < 0) {
		ret = -errno;
		if (ret == -EACCES || ret == -EPERM)
			rtt_err(err, "permission denied: %s", path);
		else if (ret == -ELOOP)
			rtt_err(err, "%s is a symbolic link: refused", path);
		else
			rtt_err(err, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		rtt_err(err, "cannot stat %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		rtt_err(err, "%s is not a regular file", path);
		return -EPROTO;
	}
	if ((uint64_t)st.st_size < sizeof(struct rt_ctl)) {
		close(fd);
		rtt_err(err,
			"corrupt control file %s: %lld bytes, expected %zu (truncated?)",
			path, (long long)st.st_size, sizeof(struct rt_ctl));
		return -EPROTO;
	}
	m = mmap(NULL, sizeof(struct rt_ctl),
		 PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	ret = -errno;
	close(fd);
	if (m == MAP_FAILED) {
		rtt_err(err, "cannot map %s: %s", path, strerror(-ret));
		return ret;
	}
	/* The process can truncate its control file under us: a SIGBUS
	 * there turns the mapping into zeros (rtt_ctl_truncated()). */
	(void)ringbuf_guard_mapping(m, sizeof(struct rt_ctl));
	c = m;
	if (c->magic != RT_CTL_MAGIC) {
		rtt_err(err,
			"corrupt control file %s: bad magic 0x%08x (expected 0x%08x)",
			path, c->magic, RT_CTL_MAGIC);
		ret = -EPROTO;
	} else if (c->version != RT_CTL_VERSION) {
		rtt_err(err,
			"control file %s has layout version %u; this tool reads version %u",
			path, c->version, RT_CTL_VERSION);
		ret = -EPROTO;
	} else if (c->size != sizeof(struct rt_ctl)) {
		rtt_err(err,
			"corrupt control file %s: its layout is %u bytes, expected %zu",
			path, c->size, sizeof(struct rt_ctl));
		ret = -EPROTO;
	} else if (c->pid != p->pid || c->start != p->start) {
		rtt_err(err,
			"corrupt control file %s: it names process %d started at %" PRIu64,
			path, (int)c->pid, (uint64_t)c->start);
		ret = -EPROTO;
	} else {
		ret = 0;
	}
	if (!ret && ringbuf_mapping_error(m)) {
		rtt_err(err, "corrupt control file %s: truncated", path);
		ret = -EPROTO;
	}
	if (ret) {
		ringbuf_unguard_mapping(m);
		munmap(m, sizeof(struct rt_ctl));
		return ret;
	}
	p->ctl = c;
	p->writable = rw;
	p->uid = (unsigned int)st.st_uid;
	p->state = rtt_proc_state(p);
	return 0;
}

/* The control files of @pid in @dir: a live one (started at @now), and
 * the latest start time of dead ones. Return: 0 or the error of opening
 * @dir (a missing one is empty). */
static int rtt_scan_pid(const char *dir, int pid, uint64_t now, bool *live,
			uint64_t *dead)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	*live = false;
	*dead = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		uint64_t start;
		int fpid;

		if (!rtt_parse_ctl_name(de->d_name, &fpid, &start) ||
		    fpid != pid)
			continue;
		if (now && start == now)
			*live = true;
		else if (start > *dead)
			*dead = start;
	}
	closedir(d);
	return 0;
}

/*
 * The publish directory of process @pid, from its environment as
 * rt_publish_dir() reads it there. Return: 0, -EACCES (another user's
 * process), or another negative errno.
 */
static int rtt_proc_dir(int pid, char *dir, size_t len)
{
	char path[64], *env = NULL;
	const char *rdir = NULL, *xdg = NULL;
	struct stat st;
	size_t n = 0, i;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	ret = rtt_read_file(path, 1 << 20, &env, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i += strlen(env + i) + 1) {
		if (!strncmp(env + i, "RINGTRACE_DIR=", 14))
			rdir = env + i + 14;
		else if (!strncmp(env + i, "XDG_RUNTIME_DIR=", 16))
			xdg = env + i + 16;
	}
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (rdir && *rdir)
		snprintf(dir, len, "%s", rdir);
	else if (xdg && xdg[0] == '/')
		snprintf(dir, len, "%s/ringtrace", xdg);
	else if (!stat(path, &st))
		snprintf(dir, len, "/dev/shm/ringtrace-%u",
			 (unsigned int)st.st_uid);
	else
		ret = -ESRCH;
	free(env);
	return ret;
}

int rtt_proc_open(int pid, unsigned int flags, struct rtt_proc *p,
		  char err[RTT_ERR_MAX])
{
	uint64_t now = rt_proc_start_time(pid), dead = 0;
	char dir[PATH_MAX], odir[PATH_MAX], comm[64];
	bool live = false;
	int ret;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	ret = rtt_publish_dir(dir, sizeof(dir));
	if (ret) {
		rtt_err(err, "the publish directory name is too long");
		return ret;
	}
	ret = rtt_scan_pid(dir, pid, now, &live, &dead);
	if (ret) {
		if (ret == -EACCES || ret == -EPERM)
			rtt_err(err, "permission denied: %s", dir);
		else
			rtt_err(err, "cannot read %s: %s", dir, strerror(-ret));
		return ret;
	}
	/* a live process not in ours: its own publish directory (another
	 * RINGTRACE_DIR, or for root another user's) */
	if (!live && now) {
		ret = rtt_proc_dir(pid, odir, sizeof(odir));
		if (ret == -EACCES || ret == -EPERM) {
			rtt_proc_comm(pid, comm, sizeof(comm));
			rtt_err(err,
				"permission denied: process %d (%s) is another user's",
				pid, comm);
			return -EACCES;
		}
		if (!ret && strcmp(odir, dir)) {
			bool olive;
			uint64_t odead;

			ret = rtt_scan_pid(odir, pid, now, &olive, &odead);
			if (ret == -EACCES || ret == -EPERM) {
				rtt_err(err, "permission denied: %s", odir);
				return ret;
			}
			if (!ret && olive) {
				live = true;
				snprintf(dir, sizeof(dir), "%s", odir);
			}
		}
	}
	if (live) {
		p->start = now;
	} else if (dead && (flags & RTT_OPEN_DEAD)) {
		p->start = dead;
	} else if (dead) {
		rtt_err(err,
			"process %d is dead: it left its trace in %s (see 'ringtrace extract %d')%s",
			pid, dir, pid,
			now ? "; the pid is another process's now" : "");
		return -ESRCH;
	} else if (!now) {
		rtt_err(err, "no such process: %d", pid);
		return -ESRCH;
	} else {
		rtt_proc_comm(pid, comm, sizeof(comm));
		rtt_err(err,
			"process %d (%s) is not traced: it has no control file in %s",
			pid, comm, dir);
		return -ESRCH;
	}
	if ((size_t)snprintf(p->base, sizeof(p->base), "%s/%d-%" PRIu64, dir,
			     pid, p->start) >= sizeof(p->base)) {
		rtt_err(err, "the publish directory name is too long");
		return -ENAMETOOLONG;
	}
	return rtt_map(p, flags, err);
}

int rtt_proc_open_path(const char *path, unsigned int flags,
		       struct rtt_proc *p, char err[RTT_ERR_MAX])
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	unsigned long long start;
	size_t dirlen = slash ? (size_t)(slash - path) : 0;
	char ctl[PATH_MAX + 8];
	int pid, n = 0;

	memset(p, 0, sizeof(*p));
	if (sscanf(name, "%d-%llu%n", &pid, &start, &n) != 2 || pid <= 0 ||
	    name[0] < '0' || name[0] > '9' ||
	    (name[n] != '\0' && name[n] != '.')) {
		rtt_err(err,
			"%s is not a file a traced process publishes (<pid>-<start>.ctl)",
			path);
		return -EINVAL;
	}
	p->pid = pid;
	p->start = start;
	/* the files' common part: DIR/<pid>-<start> */
	if (slash)
		snprintf(p->base, sizeof(p->base), "%.*s/%d-%llu", (int)dirlen,
			 path, pid, start);
	else
		snprintf(p->base, sizeof(p->base), "%d-%llu", pid, start);
	snprintf(ctl, sizeof(ctl), "%s.ctl", p->base);
	if (access(ctl, F_OK) != 0 && errno == ENOENT) {
		rtt_err(err, "no control file %s", ctl);
		return -ESRCH;
	}
	return rtt_map(p, flags, err);
}

void rtt_proc_close(struct rtt_proc *p)
{
	if (p->ctl) {
		ringbuf_unguard_mapping(p->ctl);
		munmap(p->ctl, sizeof(struct rt_ctl));
	}
	memset(p, 0, sizeof(*p));
}
