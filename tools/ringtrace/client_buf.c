// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client_buf.c - a traced process's instances, their buffers (attached
 *	read-side, one consumer at a time) and its other published files
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
	/* the process itself, whose main thread may have written nothing:
	 * readers name the process after it */
	if (!rt_cmdline_lookup(p->ctl->cmdlines, p->pid, (char[16]){ 0 },
			       NULL)) {
		char comm[16], line[64], *nb;
		int m;

		memcpy(comm, p->ctl->comm, sizeof(comm));
		comm[sizeof(comm) - 1] = '\0';
		m = snprintf(line, sizeof(line), "%d %s\n", p->pid,
			     comm[0] ? comm : "<...>");
		nb = realloc(buf, n + (size_t)m + 1);
		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		buf = nb;
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
