// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client.c - the ringtrace tool's side of the control file (see ctl.h
 *	for the layout and the command protocol, client.h for the calls)
 *
 * A command is sent under cmd_lock (robust, process-shared: a tool
 * killed while holding it does not wedge the next one):
 *
 *	tool					control thread
 *	  lock cmd_lock
 *	  write cmd
 *	  cmd_seq = n (release), futex wake	  wait on cmd_seq
 *						  load cmd_seq (acquire)
 *						  run cmd, fill status, reply
 *	  wait on done_seq			  done_seq = n (release),
 *						  wake
 *	  load done_seq (acquire)
 *	  read status, reply
 *	  unlock cmd_lock
 *
 * The tool never waits forever: both waits are cut in 100 ms slices
 * between which it checks that the process still runs.
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

#define RTT_SLICE_MS 100

/* A message into the caller's RTT_ERR_MAX buffer (truncated to fit). */
static void rtt_err(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rtt_err(char *err, const char *fmt, ...)
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

static uint64_t rtt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The name of a running process, for messages ("?" when unknown). */
static void rtt_proc_comm(int pid, char *buf, size_t len)
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

/* "<pid>-<start>.ctl": true and the numbers, else false. */
static bool rtt_parse_ctl_name(const char *name, int *pid, uint64_t *start)
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
static int rtt_list_dir(const char *dir, struct rtt_entry **v, size_t *n,
			size_t *cap)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
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
			if (rtt_list_dir(dir, v, n, cap) == -ENOMEM)
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
	ret = rtt_list_dir(dir, &v, &n, &cap);
	if (ret) {
		free(v);
		if (ret == -ENOMEM)
			rtt_err(err, "out of memory");
		else
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
			ret = rtt_list_dir(g.gl_pathv[k], &v, &n, &cap);
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
	if (ret) {
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
	if (p->ctl)
		munmap(p->ctl, sizeof(struct rt_ctl));
	memset(p, 0, sizeof(*p));
}

/* ---- commands ----------------------------------------------------------- */

static long rtt_futex(_Atomic uint32_t *addr, int op, uint32_t val,
		      const struct timespec *ts)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is in a mapping shared with the
	 * traced process. */
	return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static bool rtt_gone(const struct rtt_proc *p)
{
	return rtt_proc_state(p) != RTT_ALIVE;
}

static int rtt_lock(struct rtt_proc *p, uint64_t deadline,
		    char err[RTT_ERR_MAX])
{
	for (;;) {
		struct timespec ts;
		int r;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += RTT_SLICE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		r = pthread_mutex_timedlock(&p->ctl->cmd_lock, &ts);
		if (r == 0)
			return 0;
		if (r == EOWNERDEAD) {
			/* A tool died in the middle of a command: the
			 * protocol's state is the sequence numbers, which
			 * stay usable. */
			pthread_mutex_consistent(&p->ctl->cmd_lock);
			return 0;
		}
		if (r != ETIMEDOUT) {
			rtt_err(err,
				"cannot take the command lock of process %d: %s",
				p->pid, strerror(r));
			return -r;
		}
		if (rtt_gone(p)) {
			rtt_err(err, "process %d exited", p->pid);
			return -ESRCH;
		}
		if (rtt_now_ms() >= deadline) {
			rtt_err(err,
				"process %d: another tool holds its command lock",
				p->pid);
			return -ETIMEDOUT;
		}
	}
}

int rtt_call(struct rtt_proc *p, int timeout_ms,
	     const struct rt_cmd_args *call, char **reply,
	     char err[RTT_ERR_MAX])
{
	char cmd[RT_CTL_CMD_MAX], *check;
	struct rt_ctl *c = p->ctl;
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;
	struct rt_cmd_args args;
	uint32_t seq, done;
	int n, ret, status;
	size_t rlen;

	if (reply)
		*reply = NULL;
	err[0] = '\0';
	ret = rt_cmd_format(call, cmd, sizeof(cmd), err, RTT_ERR_MAX);
	if (ret)
		return ret;
	n = (int)strlen(cmd);
	/* The same table and parser as the process's: a line it does not
	 * describe is refused here, never misread there. */
	check = malloc((size_t)n + 1);
	if (!check) {
		rtt_err(err, "out of memory");
		return -ENOMEM;
	}
	memcpy(check, cmd, (size_t)n + 1);
	ret = rt_cmd_parse(check, &args, err, RTT_ERR_MAX);
	free(check);
	if (ret)
		return ret;
	if (!p->writable) {
		rtt_err(err,
			"permission denied: cannot write the control file of process %d",
			p->pid);
		return -EACCES;
	}
	if (rtt_gone(p)) {
		rtt_err(err, "process %d is not running", p->pid);
		return -ESRCH;
	}
	if (c->proto != RT_CTL_PROTO_VERSION) {
		rtt_err(err,
			"it speaks control protocol version %u; this tool speaks version %d",
			c->proto, RT_CTL_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	ret = rtt_lock(p, deadline, err);
	if (ret)
		return ret;
	memcpy(c->cmd, cmd, (size_t)n + 1);
	seq = atomic_load_explicit(&c->cmd_seq, memory_order_relaxed) + 1;
	/* Publishes the command text; pairs with the control thread's
	 * acquire load of cmd_seq. */
	atomic_store_explicit(&c->cmd_seq, seq, memory_order_release);
	rtt_futex(&c->cmd_seq, FUTEX_WAKE, INT32_MAX, NULL);
	for (;;) {
		struct timespec ts = { 0, RTT_SLICE_MS * 1000000L };

		/* Pairs with the release store of done_seq that ends the
		 * control thread's answer: status and reply are visible. */
		done = atomic_load_explicit(&c->done_seq, memory_order_acquire);
		if ((int32_t)(done - seq) >= 0)
			break;
		rtt_futex(&c->done_seq, FUTEX_WAIT, done, &ts);
		if (rtt_gone(p)) {
			pthread_mutex_unlock(&c->cmd_lock);
			rtt_err(err, "process %d exited before answering '%s'",
				p->pid, cmd);
			return -ESRCH;
		}
		if (rtt_now_ms() >= deadline) {
			pthread_mutex_unlock(&c->cmd_lock);
			rtt_err(err,
				"process %d did not answer '%s' within %d ms",
				p->pid, cmd, timeout_ms);
			return -ETIMEDOUT;
		}
	}
	status = c->status;
	rlen = c->reply_len;
	if (rlen > RT_CTL_REPLY_MAX)
		rlen = RT_CTL_REPLY_MAX;
	if (reply) {
		*reply = malloc(rlen + 1);
		if (*reply) {
			memcpy(*reply, c->reply, rlen);
			(*reply)[rlen] = '\0';
		}
	}
	if (status < 0) {
		size_t m = rlen < RTT_ERR_MAX - 1 ? rlen : RTT_ERR_MAX - 1;

		memcpy(err, c->reply, m);
		err[m] = '\0';
		while (m && err[m - 1] == '\n')
			err[--m] = '\0';
		if (!m)
			rtt_err(err, "%s", strerror(-status));
	}
	pthread_mutex_unlock(&c->cmd_lock);
	if (reply && !*reply) {
		rtt_err(err, "out of memory");
		return -ENOMEM;
	}
	/* the reply the table gives the command: none is no text */
	if (reply && !status && rt_cmd_table[call->id].reply == RT_REPLY_NONE) {
		free(*reply);
		*reply = NULL;
	}
	return status;
}

/* ---- instances and buffers ---------------------------------------------- */

/* Copy a slot's strings between two equal loads of the file's gen. */
static int rtt_inst_read(const struct rtt_proc *p, int inst,
			 struct rt_ctl_inst *out)
{
	const struct rt_ctl_inst *s;
	uint32_t g1, g2;
	int tries;

	if (inst < 0 || inst >= RT_CTL_MAX_INSTANCES)
		return -ENOENT;
	s = &p->ctl->inst[inst];
	for (tries = 0; tries < 1000; tries++) {
		/* Pairs with the publisher's release store of gen after it
		 * rewrote a slot. */
		g1 = atomic_load_explicit(&p->ctl->gen, memory_order_acquire);
		atomic_init(&out->used,
			    atomic_load_explicit(&s->used,
						 memory_order_relaxed));
		atomic_init(&out->gen,
			    atomic_load_explicit(&s->gen,
						 memory_order_relaxed));
		memcpy(out->name, s->name, sizeof(out->name));
		memcpy(out->buf, s->buf, sizeof(out->buf));
		memcpy(out->snap, s->snap, sizeof(out->snap));
		/* Orders the copies before the second load of gen. */
		atomic_thread_fence(memory_order_acquire);
		g2 = atomic_load_explicit(&p->ctl->gen, memory_order_relaxed);
		if (g1 == g2)
			break;
		usleep(1000);
	}
	if (!memchr(out->name, '\0', sizeof(out->name)) ||
	    !memchr(out->buf, '\0', sizeof(out->buf)) ||
	    !memchr(out->snap, '\0', sizeof(out->snap)))
		return -EPROTO;
	return atomic_load_explicit(&out->used, memory_order_relaxed) ?
		       0 :
		       -ENOENT;
}

int rtt_inst_find(const struct rtt_proc *p, const char *name)
{
	struct rt_ctl_inst s;
	int i;

	if (!name || !strcmp(name, "-"))
		name = "";
	for (i = 0; i < RT_CTL_MAX_INSTANCES; i++)
		if (!rtt_inst_read(p, i, &s) && !strcmp(s.name, name))
			return i;
	return -ENOENT;
}

int rtt_inst_path(const struct rtt_proc *p, int inst, bool snap, char *path,
		  uint32_t *gen)
{
	struct rt_ctl_inst s;
	int ret = rtt_inst_read(p, inst, &s);

	if (ret)
		return ret;
	if (gen)
		*gen = atomic_load_explicit(&s.gen, memory_order_relaxed);
	if (snap && !s.snap[0])
		return -ENOENT;
	snprintf(path, PATH_MAX, "%s", snap ? s.snap : s.buf);
	return path[0] ? 0 : -ENOENT;
}

uint32_t rtt_inst_gen(const struct rtt_proc *p, int inst)
{
	/* Pairs with the release increment in rt_publish_instance(), made
	 * after the slot's paths were written. */
	return atomic_load_explicit(&p->ctl->inst[inst].gen,
				    memory_order_acquire);
}

uint32_t rtt_ctl_gen(const struct rtt_proc *p)
{
	/* Pairs with the release increment in rt_ctl_changed() (publish.c),
	 * made after the files and paths it announces were complete. */
	return atomic_load_explicit(&p->ctl->gen, memory_order_acquire);
}

/*
 * One consumer per buffer: a consumer holds a write lock on the first
 * byte of the buffer file (fcntl(F_SETLK), whose holder F_GETLK names)
 * for as long as it has the file open; a second consumer is refused
 * with -EBUSY, naming the first. The lock goes with the consumer's
 * process: a killed consumer does not keep it.
 *
 * Userspace: a record lock belongs to the process and any close() of
 * the file by it drops it; the tool does not open a buffer file it
 * consumes a second time. The descriptor stays open until the tool
 * exits (ringbuf_free() closing its own descriptor of the file ends
 * the lock).
 */
/* -EBUSY after a message naming the process whose lock on @fd's file
 * keeps a consumer out, or 0 when none does. */
static int rtt_consumer_conflict(const struct rtt_proc *p, int fd,
				 char err[RTT_ERR_MAX])
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 1 };
	char comm[64] = "", cpath[64];
	FILE *f;

	if (fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return 0;
	/* an OFD lock names no process: its holder's id is where its
	 * second lock is (RTT_CONSUMER_PID_OFF) */
	if (fl.l_pid <= 0) {
		struct flock id = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
				    .l_start = RTT_CONSUMER_PID_OFF };

		if (!fcntl(fd, F_GETLK, &id) && id.l_type != F_UNLCK &&
		    id.l_start > RTT_CONSUMER_PID_OFF &&
		    id.l_start - RTT_CONSUMER_PID_OFF <= INT_MAX)
			fl.l_pid = (pid_t)(id.l_start - RTT_CONSUMER_PID_OFF);
	}
	snprintf(cpath, sizeof(cpath), "/proc/%d/comm", (int)fl.l_pid);
	f = fopen(cpath, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	rtt_err(err,
		"the buffer of process %d is being consumed by process %d%s%s%s: one consumer per buffer (stop it, or look with 'ringtrace show', which does not consume)",
		p->pid, (int)fl.l_pid, comm[0] ? " (" : "", comm,
		comm[0] ? ")" : "");
	return -EBUSY;
}

static int rtt_consumer_lock(const struct rtt_proc *p, const char *path,
			     char err[RTT_ERR_MAX])
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 0, .l_len = 1 };
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		rtt_err(err, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!fcntl(fd, F_SETLK, &fl))
		return 0;
	ret = errno;
	if (ret != EACCES && ret != EAGAIN) {
		rtt_err(err, "cannot lock %s: %s", path, strerror(ret));
		close(fd);
		return -ret;
	}
	ret = rtt_consumer_conflict(p, fd, err);
	if (!ret) {
		rtt_err(err,
			"the buffer of process %d is being consumed by another process: one consumer per buffer",
			p->pid);
		ret = -EBUSY;
	}
	close(fd);
	return ret;
}

int rtt_consumer_check(const struct rtt_proc *p, int inst,
		       char err[RTT_ERR_MAX])
{
	char path[PATH_MAX];
	int fd, ret;

	if (rtt_inst_path(p, inst, false, path, NULL))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	ret = rtt_consumer_conflict(p, fd, err);
	close(fd);
	return ret;
}

int rtt_attach(const struct rtt_proc *p, int inst, bool snap,
	       unsigned int flags, uint32_t *gen, struct ringbuf **rbp,
	       char err[RTT_ERR_MAX])
{
	char path[PATH_MAX];
	struct ringbuf *rb;
	int ret;

	*rbp = NULL;
	ret = rtt_inst_path(p, inst, snap, path, gen);
	if (ret == -ENOENT) {
		rtt_err(err, "process %d has no %s buffer%s", p->pid,
			snap ? "snapshot" : "trace",
			inst ? " in that instance" : "");
		return ret;
	}
	if (ret) {
		rtt_err(err, "corrupt control file %s.ctl: bad instance slot %d",
			p->base, inst);
		return ret;
	}
	rb = ringbuf_attach(path, 0);
	if (!rb && (errno == EACCES || errno == EPERM) &&
	    !(flags & RTT_ATTACH_CONSUME))
		rb = ringbuf_attach(path, RINGBUF_ATTACH_FOREIGN);
	if (!rb) {
		ret = -errno;
		switch (ret) {
		case -EACCES:
		case -EPERM:
			if (flags & RTT_ATTACH_CONSUME)
				rtt_err(err,
					"permission denied: %s (another user's buffer can only be viewed, not consumed)",
					path);
			else
				rtt_err(err, "permission denied: %s", path);
			break;
		case -ENOENT:
			rtt_err(err, "no buffer file %s (did the process exit?)",
				path);
			break;
		case -EINVAL:
			rtt_err(err, "corrupt buffer file %s", path);
			ret = -EPROTO;
			break;
		case -ELOOP:
			rtt_err(err, "%s is a symbolic link: refused", path);
			ret = -EPERM;
			break;
		default:
			rtt_err(err, "cannot attach %s: %s", path,
				strerror(-ret));
		}
		return ret;
	}
	if (flags & RTT_ATTACH_CONSUME) {
		ret = rtt_consumer_lock(p, path, err);
		if (ret) {
			ringbuf_free(rb);
			return ret;
		}
	}
	*rbp = rb;
	return 0;
}

/* ---- files -------------------------------------------------------------- */

int rtt_read_file(const char *path, size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = NULL;
	int fd, ret = 0;

	*out = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
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
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* A path field of the control file, checked for its NUL. */
static int rtt_ctl_path(const char *field, size_t size, char *out)
{
	if (!memchr(field, '\0', size))
		return -EPROTO;
	snprintf(out, PATH_MAX, "%s", field);
	return 0;
}

int rtt_events_text(const struct rtt_proc *p, char **out, size_t *len,
		    char err[RTT_ERR_MAX])
{
	char path[PATH_MAX + 16];
	int ret;

	if (rtt_ctl_path(p->ctl->events, sizeof(p->ctl->events), path)) {
		rtt_err(err, "corrupt control file %s.ctl: bad events path",
			p->base);
		return -EPROTO;
	}
	if (!path[0])
		snprintf(path, sizeof(path), "%s.events", p->base);
	ret = rtt_read_file(path, 64u << 20, out, len);
	if (ret == -ENOENT)
		rtt_err(err, "no events file %s (did the process exit?)",
			path);
	else if (ret == -EACCES || ret == -EPERM)
		rtt_err(err, "permission denied: %s", path);
	else if (ret)
		rtt_err(err, "cannot read %s: %s", path, strerror(-ret));
	return ret;
}

int rtt_syms_text(struct rtt_proc *p, char **out, size_t *len,
		  char err[RTT_ERR_MAX])
{
	char path[PATH_MAX + 16], *reply = NULL;
	int ret;

	*out = NULL;
	*len = 0;
	path[0] = '\0';
	if (p->writable && rtt_proc_state(p) == RTT_ALIVE) {
		ret = rtt_call(p, RTT_CMD_TIMEOUT_MS, &RT_CALL(SYMS, NULL),
			       &reply, err);
		if (ret == 0 && reply && reply[0]) {
			reply[strcspn(reply, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s", reply);
		}
		free(reply);
		if (ret && ret != -ESRCH)
			return ret;
	}
	if (!path[0] &&
	    rtt_ctl_path(p->ctl->syms, sizeof(p->ctl->syms), path)) {
		rtt_err(err, "corrupt control file %s.ctl: bad symbols path",
			p->base);
		return -EPROTO;
	}
	if (!path[0])
		snprintf(path, sizeof(path), "%s.syms", p->base);
	ret = rtt_read_file(path, 256u << 20, out, len);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		rtt_err(err, "cannot read %s: %s", path, strerror(-ret));
	return ret;
}

int rtt_cmdlines_text(const struct rtt_proc *p, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int i;

	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	for (i = 0; i < RT_CTL_CMDLINES; i++) {
		struct rt_ctl_cmdline *c = &p->ctl->cmdlines[i];
		int pid = atomic_load_explicit(&c->pid, memory_order_relaxed);
		char comm[16], line[64];
		int tgid, m;

		if (pid <= 0 ||
		    !rt_cmdline_lookup(p->ctl->cmdlines, pid, comm, &tgid))
			continue;
		m = snprintf(line, sizeof(line), "%d %s\n", pid, comm);
		if (n + (size_t)m + 1 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		memcpy(buf + n, line, (size_t)m + 1);
		n += (size_t)m;
	}
	*out = buf;
	*len = n;
	return 0;
}

int rtt_remove_files(const struct rtt_proc *p, char err[RTT_ERR_MAX])
{
	const char *slash = strrchr(p->base, '/');
	char dir[PATH_MAX], prefix[64], path[PATH_MAX * 2];
	struct dirent *de;
	size_t plen;
	int ret = 0;
	DIR *d;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s",
			 (int)(slash - p->base) ? (int)(slash - p->base) : 1,
			 p->base);
	else
		snprintf(dir, sizeof(dir), ".");
	snprintf(prefix, sizeof(prefix), "%d-%" PRIu64 ".", p->pid, p->start);
	plen = strlen(prefix);
	d = opendir(dir);
	if (!d) {
		ret = -errno;
		rtt_err(err, "cannot read %s: %s", dir, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		/* The control file last: it is what names the others. */
		if (!strcmp(de->d_name + plen, "ctl"))
			continue;
		if (unlink(path) < 0 && errno != ENOENT && !ret) {
			ret = -errno;
			rtt_err(err, "cannot remove %s: %s", path,
				strerror(-ret));
		}
	}
	closedir(d);
	snprintf(path, sizeof(path), "%s.ctl", p->base);
	if (unlink(path) < 0 && errno != ENOENT && !ret) {
		ret = -errno;
		rtt_err(err, "cannot remove %s: %s", path, strerror(-ret));
	}
	return ret;
}
