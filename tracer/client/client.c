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

int rtt_publish_dir_check(char err[RTT_ERR_MAX])
{
	char dir[PATH_MAX];
	int fd;

	if (rtt_publish_dir(dir, sizeof(dir))) {
		rtt_err(err, "the publish directory name is too long");
		return -ENAMETOOLONG;
	}
	fd = rtt_dir_open(dir, RTT_UID_CALLER, false, NULL, err);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
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
	rtt_sanitize(buf, len, false);
}

bool rtt_zombie(int pid)
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

/*
 * Map and check the control file <pid>-<start>.ctl in @p->dfd: a regular
 * file of @p->uid (the owner of its directory) that names @p's pid and
 * start time; while that process runs, the kernel must report @p->uid
 * for it too (another user's control file linked under its pid is
 * refused).
 */
static int rtt_map(struct rtt_proc *p, unsigned int flags,
		   char err[RTT_ERR_MAX])
{
	char name[64], path[PATH_MAX + 8];
	bool rw = !(flags & RTT_OPEN_READONLY);
	unsigned int kuid;
	struct stat st;
	struct rt_ctl *c;
	void *m;
	int fd, ret;

	snprintf(name, sizeof(name), "%d-%" PRIu64 ".ctl", p->pid, p->start);
	snprintf(path, sizeof(path), "%s.ctl", p->base);
	fd = rtt_open_at(p, name, rw ? O_RDWR : O_RDONLY, &st, err);
	if (fd == -EACCES && rw) {
		/* Enough to look, not to command. */
		fd = rtt_open_at(p, name, O_RDONLY, &st, err);
		rw = false;
	}
	if (fd < 0)
		return fd;
	if (rt_proc_start_time(p->pid) == p->start &&
	    !rtt_pid_uid(p->pid, &kuid) && kuid != st.st_uid) {
		close(fd);
		rtt_err(err,
			"refused: %s belongs to uid %u, but process %d runs as uid %u",
			path, (unsigned int)st.st_uid, p->pid, kuid);
		return -EPERM;
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
	p->state = rtt_proc_state(p);
	return 0;
}

/* The control files of @pid in the directory @dfd: a live one (started
 * at @now), and the latest start time of dead ones. Return: 0 or a
 * negative errno. */
static int rtt_scan_pid(int dfd, int pid, uint64_t now, bool *live,
			uint64_t *dead)
{
	struct dirent *de;
	int fd;
	DIR *d;

	*live = false;
	*dead = 0;
	/* a description of its own: readdir() moves its offset */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int ret = -errno;

		if (fd >= 0)
			close(fd);
		return ret;
	}
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
	unsigned int uid;
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
	if (rdir && *rdir)
		snprintf(dir, len, "%s", rdir);
	else if (xdg && xdg[0] == '/')
		snprintf(dir, len, "%s/ringtrace", xdg);
	else if (!rtt_pid_uid(pid, &uid))
		snprintf(dir, len, "/dev/shm/ringtrace-%u", uid);
	else
		ret = -ESRCH;
	free(env);
	return ret;
}

int rtt_proc_open(int pid, unsigned int flags, struct rtt_proc *p,
		  char err[RTT_ERR_MAX])
{
	uint64_t now = rt_proc_start_time(pid), dead = 0;
	char dir[PATH_MAX], odir[PATH_MAX], comm[64], derr[RTT_ERR_MAX];
	unsigned int kuid = 0, owner = 0, oowner = 0;
	bool live = false, have_kuid;
	int dfd, ret;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	have_kuid = now && !rtt_pid_uid(pid, &kuid);
	if (have_kuid && geteuid() != 0 && kuid != geteuid()) {
		rtt_proc_comm(pid, comm, sizeof(comm));
		rtt_err(err,
			"permission denied: process %d (%s) is another user's",
			pid, comm);
		return -EACCES;
	}
	ret = rtt_publish_dir(dir, sizeof(dir));
	if (ret) {
		rtt_err(err, "the publish directory name is too long");
		return ret;
	}
	/* ours (root: a user's, when the process is that user's) */
	dfd = rtt_dir_open(dir, RTT_UID_CALLER, false, &owner, derr);
	if (dfd >= 0) {
		ret = rtt_scan_pid(dfd, pid, now, &live, &dead);
		if (ret) {
			close(dfd);
			rtt_err(err, "cannot read %s: %s", dir, strerror(-ret));
			return ret;
		}
	}
	/* a live process not in ours: its own publish directory (another
	 * RINGTRACE_DIR, or for root another user's), which must be that
	 * process's uid's */
	if (!live && now) {
		ret = rtt_proc_dir(pid, odir, sizeof(odir));
		if (ret == -EACCES || ret == -EPERM) {
			if (dfd >= 0)
				close(dfd);
			rtt_proc_comm(pid, comm, sizeof(comm));
			rtt_err(err,
				"permission denied: process %d (%s) is another user's",
				pid, comm);
			return -EACCES;
		}
		if (!ret && have_kuid && strcmp(odir, dir)) {
			bool olive;
			uint64_t odead;
			int ofd = rtt_dir_open(odir, kuid, false, &oowner, err);

			if (ofd < 0 && ofd != -ENOENT) {
				if (dfd >= 0)
					close(dfd);
				return ofd;
			}
			ret = ofd < 0 ? -ENOENT :
					rtt_scan_pid(ofd, pid, now, &olive,
						     &odead);
			if (!ret && olive) {
				live = true;
				if (dfd >= 0)
					close(dfd);
				dfd = ofd;
				owner = oowner;
				snprintf(dir, sizeof(dir), "%s", odir);
			} else if (ofd >= 0) {
				close(ofd);
			}
		}
	}
	/* our own directory refused: nothing of it is read, and no wait
	 * for a process to publish there will end */
	if (dfd < 0 && dfd != -ENOENT) {
		snprintf(err, RTT_ERR_MAX, "%s", derr);
		return dfd;
	}
	ret = 0;
	if (live) {
		p->start = now;
	} else if (dead && (flags & RTT_OPEN_DEAD)) {
		p->start = dead;
	} else if (dead) {
		rtt_err(err,
			"process %d is dead: it left its trace in %s (see 'ringtrace extract %d')%s",
			pid, dir, pid,
			now ? "; the pid is another process's now" : "");
		ret = -ESRCH;
	} else if (!now) {
		rtt_err(err, "no such process: %d", pid);
		ret = -ESRCH;
	} else {
		rtt_proc_comm(pid, comm, sizeof(comm));
		rtt_err(err,
			"process %d (%s) is not traced: it has no control file in %s",
			pid, comm, dir);
		ret = -ESRCH;
	}
	if (!ret && (size_t)snprintf(p->base, sizeof(p->base),
				     "%s/%d-%" PRIu64, dir, pid,
				     p->start) >= sizeof(p->base)) {
		rtt_err(err, "the publish directory name is too long");
		ret = -ENAMETOOLONG;
	}
	if (ret) {
		if (dfd >= 0)
			close(dfd);
		return ret;
	}
	p->dfd = dfd;
	p->uid = owner;
	ret = rtt_map(p, flags, err);
	if (ret)
		rtt_proc_close(p);
	return ret;
}

int rtt_proc_open_path(const char *path, unsigned int flags,
		       struct rtt_proc *p, char err[RTT_ERR_MAX])
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	unsigned long long start;
	size_t dirlen = slash ? (size_t)(slash - path) : 0;
	char dir[PATH_MAX], ctl[96];
	int pid, n = 0, dfd, ret;

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
		snprintf(dir, sizeof(dir), "%.*s",
			 dirlen ? (int)dirlen : 1, path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (slash)
		n = snprintf(p->base, sizeof(p->base), "%.*s/%d-%llu",
			     (int)dirlen, path, pid, start);
	else
		n = snprintf(p->base, sizeof(p->base), "%d-%llu", pid, start);
	if ((size_t)n >= sizeof(p->base)) {
		rtt_err(err, "%s: the name is too long", path);
		return -ENAMETOOLONG;
	}
	dfd = rtt_dir_open(dir, RTT_UID_CALLER, true, &p->uid, err);
	if (dfd == -ENOENT) {
		rtt_err(err, "no control file %s.ctl", p->base);
		return -ESRCH;
	}
	if (dfd < 0)
		return dfd;
	p->dfd = dfd;
	snprintf(ctl, sizeof(ctl), "%d-%llu.ctl", pid, start);
	if (faccessat(dfd, ctl, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
	    errno == ENOENT) {
		rtt_err(err, "no control file %s.ctl", p->base);
		rtt_proc_close(p);
		return -ESRCH;
	}
	ret = rtt_map(p, flags, err);
	if (ret)
		rtt_proc_close(p);
	return ret;
}

void rtt_proc_close(struct rtt_proc *p)
{
	if (p->ctl) {
		ringbuf_unguard_mapping(p->ctl);
		munmap(p->ctl, sizeof(struct rt_ctl));
	}
	if (p->dfd > 2)
		close(p->dfd);
	memset(p, 0, sizeof(*p));
}
