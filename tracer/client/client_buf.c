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
#include <pthread.h>
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

/*
 * How many times rtt_inst_read() waits RTT_CTL_ODD_US for a slot being
 * rewritten (an odd gen): a publisher holds it odd for a few stores; one
 * that stays odd died there, or lies, and its slot is read as it is
 * (checked like any other) rather than waited for.
 */
#define RTT_CTL_ODD_TRIES 20
#define RTT_CTL_ODD_US 100

/* Copy a slot's strings between two equal, even loads of the file's gen
 * (the seqlock of publish.c, rt_ctl_write_begin()). */
static int rtt_inst_read(const struct rtt_proc *p, int inst,
			 struct rt_ctl_inst *out)
{
	const struct rt_ctl_inst *s;
	uint32_t g1, g2;
	int tries, odd = 0;

	if (inst < 0 || inst >= RT_CTL_MAX_INSTANCES)
		return -ENOENT;
	s = &p->ctl->inst[inst];
	for (tries = 0; tries < 1000; tries++) {
		/* Pairs with the publisher's release store of gen after it
		 * rewrote a slot (rt_ctl_write_end()). */
		g1 = atomic_load_explicit(&p->ctl->gen, memory_order_acquire);
		if ((g1 & 1) && odd < RTT_CTL_ODD_TRIES) {
			odd++;
			usleep(RTT_CTL_ODD_US);
			continue;
		}
		atomic_init(&out->used,
			    atomic_load_explicit(&s->used,
						 memory_order_relaxed));
		atomic_init(&out->gen,
			    atomic_load_explicit(&s->gen,
						 memory_order_relaxed));
		memcpy(out->name, s->name, sizeof(out->name));
		memcpy(out->buf, s->buf, sizeof(out->buf));
		memcpy(out->snap, s->snap, sizeof(out->snap));
		/* Orders the copies before the second load of gen; pairs
		 * with the release fence after the publisher made it odd
		 * (rt_ctl_write_begin()). */
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
	bool corrupt = false;
	int i, ret;

	if (!name || !strcmp(name, "-"))
		name = "";
	for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
		ret = rtt_inst_read(p, i, &s);
		if (!ret && !strcmp(s.name, name))
			return i;
		corrupt |= ret == -EPROTO;
	}
	return corrupt ? -EPROTO : -ENOENT;
}

/*
 * The name of an instance's buffer file in the publish directory, made
 * here: <pid>-<start>.<instance>.<serial>.<buf|snap> (rt_publish_buffer_
 * path()); only the serial number is taken from the slot's path, which
 * must have that form. Return: 0, -ENOENT (a free slot, no snapshot
 * buffer), -EPROTO (a slot whose path is not one of the process's
 * files).
 */
static int rtt_inst_name(const struct rtt_proc *p, int inst, bool snap,
			 char *name, size_t len, uint32_t *gen)
{
	struct rt_ctl_inst s;
	const char *path, *base, *serial, *kind = snap ? "snap" : "buf";
	char prefix[160];
	unsigned long v;
	char *end;
	int ret = rtt_inst_read(p, inst, &s);
	size_t n;

	if (ret)
		return ret;
	if (gen)
		*gen = atomic_load_explicit(&s.gen, memory_order_relaxed);
	path = snap ? s.snap : s.buf;
	if (!path[0])
		return -ENOENT;
	/* an instance name is one path component (ringtrace_instance_new()) */
	if ((inst && (!s.name[0] || strchr(s.name, '/'))) ||
	    (!inst && s.name[0]))
		return -EPROTO;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	n = (size_t)snprintf(prefix, sizeof(prefix), "%d-%" PRIu64 ".%s.",
			     p->pid, p->start, inst ? s.name : "top");
	if (n >= sizeof(prefix) || strncmp(base, prefix, n))
		return -EPROTO;
	serial = base + n;
	if (*serial < '0' || *serial > '9')
		return -EPROTO;
	v = strtoul(serial, &end, 10);
	if (v > UINT32_MAX || *end != '.' || strcmp(end + 1, kind))
		return -EPROTO;
	n = (size_t)snprintf(name, len, "%s%lu.%s", prefix, v, kind);
	return n < len ? 0 : -EPROTO;
}

int rtt_inst_path(const struct rtt_proc *p, int inst, bool snap, char *path,
		  uint32_t *gen)
{
	char name[192];
	int ret = rtt_inst_name(p, inst, snap, name, sizeof(name), gen);

	if (ret)
		return ret;
	return rtt_file_path(p, name, path, PATH_MAX) ? -EPROTO : 0;
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
 * One consumer per buffer, the tool's and the mount's alike: a consumer
 * holds an OFD write lock (F_OFD_SETLK) on the first byte of the buffer
 * file, and a second one on byte RTT_CONSUMER_PID_OFF + its process id,
 * which names it to a consumer refused (F_GETLK reports an OFD lock with
 * no process id). The locks go with the open file description the mark
 * is: they stay while the consumer opens and closes other descriptors
 * of the file (a view freed, a trace read), and go when the description
 * is closed, by the consumer or by the kernel when the consumer dies: a
 * killed consumer does not keep the buffer. A second consumer, of
 * another process or of the same one, is refused with -EBUSY naming the
 * first.
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

static int rtt_ofd_lock(int fd, off_t start)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = start, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl) ? -errno : 0;
}

int rtt_mark_take(const struct rtt_proc *p, int fd, char err[RTT_ERR_MAX])
{
	int ret = rtt_ofd_lock(fd, 0);

	if (ret == -EAGAIN || ret == -EACCES) {
		ret = rtt_consumer_conflict(p, fd, err);
		if (!ret) {
			/* gone between the two calls: refused anyway */
			rtt_err(err,
				"the buffer of process %d is being consumed by another process: one consumer per buffer",
				p->pid);
			ret = -EBUSY;
		}
		return ret;
	}
	if (!ret)
		ret = rtt_ofd_lock(fd, RTT_CONSUMER_PID_OFF + (off_t)getpid());
	if (ret)
		rtt_err(err, "cannot lock the buffer of process %d: %s",
			p->pid, strerror(-ret));
	return ret;
}

/*
 * The buffer files this process holds the mark of (rtt_consumer_lock()):
 * a verb that attaches to the same buffer again (the agent's next
 * session, a recording that attaches after a reset) finds its own mark,
 * which an OFD lock of a second description would refuse.
 */
#define RTT_MARKS_MAX 64
static struct {
	dev_t dev;
	ino_t ino;
} rtt_marks[RTT_MARKS_MAX];
static unsigned int rtt_nr_marks;
static pthread_mutex_t rtt_marks_lock = PTHREAD_MUTEX_INITIALIZER;

static bool rtt_mark_held(const struct stat *st)
{
	for (unsigned int i = 0; i < rtt_nr_marks; i++)
		if (rtt_marks[i].dev == st->st_dev &&
		    rtt_marks[i].ino == st->st_ino)
			return true;
	return false;
}

/* The tool's mark: a description of its own, kept until it exits. */
static int rtt_consumer_lock(const struct rtt_proc *p, const char *path,
			     char err[RTT_ERR_MAX])
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		rtt_err(err, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		rtt_err(err, "cannot stat %s: %s", path, strerror(-ret));
		close(fd);
		return ret;
	}
	pthread_mutex_lock(&rtt_marks_lock);
	if (rtt_mark_held(&st)) {
		/* ours already: the description that holds it stays open */
		pthread_mutex_unlock(&rtt_marks_lock);
		close(fd);
		return 0;
	}
	ret = rtt_mark_take(p, fd, err);
	if (ret) {
		close(fd);
	} else if (rtt_nr_marks < RTT_MARKS_MAX) {
		rtt_marks[rtt_nr_marks].dev = st.st_dev;
		rtt_marks[rtt_nr_marks].ino = st.st_ino;
		rtt_nr_marks++;
	}
	pthread_mutex_unlock(&rtt_marks_lock);
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
	char name[192], path[PATH_MAX], slot[RT_CTL_PATH_MAX];
	bool foreign = p->uid != (unsigned int)geteuid();
	struct ringbuf *rb;
	int fd, ret;

	*rbp = NULL;
	ret = rtt_inst_name(p, inst, snap, name, sizeof(name), gen);
	if (ret == -ENOENT) {
		rtt_err(err, "process %d has no %s buffer%s", p->pid,
			snap ? "snapshot" : "trace",
			inst ? " in that instance" : "");
		return ret;
	}
	if (ret) {
		struct rt_ctl_inst s;

		slot[0] = '\0';
		if (!rtt_inst_read(p, inst, &s))
			rtt_safe_copy(slot, sizeof(slot), snap ? s.snap : s.buf,
				      sizeof(s.buf));
		rtt_err(err,
			"refused: corrupt control file %s.ctl: instance slot %d names '%s', not a buffer file of process %d",
			p->base, inst, slot, p->pid);
		return ret;
	}
	rtt_file_path(p, name, path, sizeof(path));
	/* another user's file (root looking at a user's process) is only
	 * viewed: a consumer would write its reader state into it */
	if (foreign && (flags & RTT_ATTACH_CONSUME)) {
		rtt_err(err,
			"permission denied: %s (another user's buffer can only be viewed, not consumed)",
			path);
		return -EACCES;
	}
	fd = rtt_open_at(p, name, foreign ? O_RDONLY : O_RDWR, NULL, err);
	if (fd == -ENOENT)
		rtt_err(err, "no buffer file %s (did the process exit?)", path);
	if (fd < 0)
		return fd;
	rb = ringbuf_attach_fd(fd, foreign ? RINGBUF_ATTACH_FOREIGN : 0);
	ret = rb ? 0 : -errno;
	close(fd);
	switch (ret) {
	case 0:
		break;
	case -EACCES:
	case -EPERM:
		rtt_err(err, "permission denied: %s", path);
		return ret;
	case -EINVAL:
		rtt_err(err, "corrupt buffer file %s", path);
		return -EPROTO;
	default:
		rtt_err(err, "cannot attach %s: %s", path, strerror(-ret));
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

int rtt_view_error(const struct rtt_proc *p, struct ringbuf *rb,
		   char err[RTT_ERR_MAX])
{
	int e = rb ? ringbuf_view_error(rb) : 0;

	if (p->ctl && ringbuf_mapping_error(p->ctl)) {
		rtt_err(err, "corrupt control file %s.ctl: process %d truncated it while it was read",
			p->base, p->pid);
		return -EPROTO;
	}
	if (e == -EIO) {
		rtt_err(err, "corrupt buffer of process %d: its file was truncated while it was read",
			p->pid);
		return -EPROTO;
	}
	if (e) {
		rtt_err(err, "corrupt buffer of process %d: its contents are inconsistent; not read any further",
			p->pid);
		return -EPROTO;
	}
	return 0;
}

/* ---- files -------------------------------------------------------------- */

int rtt_read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd, ret;

	*out = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ret = rtt_read_fd(fd, max, out, len);
	close(fd);
	return ret;
}

/*
 * A file path of the control file (@field, @size bytes), which the tool
 * never opens: empty, or ending in the process's own file name for
 * @suffix. Return: 0, or -EPROTO after a message.
 */
static int rtt_ctl_path_check(const struct rtt_proc *p, const char *field,
			      size_t size, const char *suffix,
			      const char *what, char err[RTT_ERR_MAX])
{
	char shown[RT_CTL_PATH_MAX];

	if (memchr(field, '\0', size) &&
	    (!field[0] || rtt_own_name(p, field, suffix)))
		return 0;
	rtt_safe_copy(shown, sizeof(shown), field, size);
	rtt_err(err,
		"refused: corrupt control file %s.ctl: its %s file is '%s', not %d-%" PRIu64 ".%s",
		p->base, what, shown, p->pid, p->start, suffix);
	return -EPROTO;
}

int rtt_events_text(const struct rtt_proc *p, char **out, size_t *len,
		    char err[RTT_ERR_MAX])
{
	char name[96], path[PATH_MAX + 96];
	int ret;

	*out = NULL;
	*len = 0;
	ret = rtt_ctl_path_check(p, p->ctl->events, sizeof(p->ctl->events),
				 "events", "events", err);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%d-%" PRIu64 ".events", p->pid,
		 p->start);
	ret = rtt_read_at(p, name, 64u << 20, out, len, err);
	if (ret == -ENOENT) {
		rtt_file_path(p, name, path, sizeof(path));
		rtt_err(err, "no events file %s (did the process exit?)",
			path);
	}
	return ret;
}

int rtt_syms_text(struct rtt_proc *p, char **out, size_t *len,
		  char err[RTT_ERR_MAX])
{
	char *reply = NULL;
	int ret;

	*out = NULL;
	*len = 0;
	if (p->writable && rtt_proc_state(p) == RTT_ALIVE) {
		ret = rtt_call(p, RTT_CMD_TIMEOUT_MS, &RT_CALL(SYMS, NULL),
			       &reply, err);
		/* the answer names the file written: only compared with
		 * the name it must have, never opened */
		if (ret == 0 && reply && reply[0]) {
			reply[strcspn(reply, "\n")] = '\0';
			if (!rtt_own_name(p, reply, "syms")) {
				char shown[RT_CTL_PATH_MAX];

				rtt_safe_copy(shown, sizeof(shown), reply,
					      strlen(reply));
				rtt_err(err,
					"refused: process %d answered 'syms' with '%s', not its symbols file %d-%" PRIu64 ".syms",
					p->pid, shown, p->pid, p->start);
				ret = -EPROTO;
			}
		}
		free(reply);
		if (ret && ret != -ESRCH)
			return ret;
	}
	return rtt_syms_published(p, out, len, err);
}

int rtt_syms_published(struct rtt_proc *p, char **out, size_t *len,
		       char err[RTT_ERR_MAX])
{
	char name[96];
	int ret;

	*out = NULL;
	*len = 0;
	ret = rtt_ctl_path_check(p, p->ctl->syms, sizeof(p->ctl->syms),
				 "syms", "symbols", err);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%d-%" PRIu64 ".syms", p->pid, p->start);
	ret = rtt_read_at(p, name, 256u << 20, out, len, err);
	if (ret == -ENOENT)
		return 0;
	return ret;
}

/* Append "@pid @comm\n" to @buf (@n used of @cap): 0 or -ENOMEM. */
static int rtt_cmdline_put(char **buf, size_t *n, size_t *cap, int pid,
			   const char *comm)
{
	char line[64];
	int m = snprintf(line, sizeof(line), "%d %s\n", pid, comm);

	if (*n + (size_t)m + 1 > *cap) {
		size_t nc = (*cap + (size_t)m + 1) * 2;
		char *nb = realloc(*buf, nc);

		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *n, line, (size_t)m + 1);
	*n += (size_t)m;
	return 0;
}

int rtt_cmdlines_text(const struct rtt_proc *p, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), comm[16];
	int i;

	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	/*
	 * The process itself first, named even when its main thread wrote
	 * nothing: readers take the first line for the process (its other
	 * threads' ids may be smaller: thread ids wrap around at pid_max).
	 */
	if (!rt_cmdline_lookup(p->ctl->cmdlines, p->pid, comm, NULL)) {
		memcpy(comm, p->ctl->comm, sizeof(comm));
		comm[sizeof(comm) - 1] = '\0';
	}
	if (rtt_cmdline_put(&buf, &n, &cap, p->pid, comm[0] ? comm : "<...>"))
		goto nomem;
	for (i = 0; i < RT_CTL_CMDLINES; i++) {
		struct rt_ctl_cmdline *c = &p->ctl->cmdlines[i];
		int pid = atomic_load_explicit(&c->pid, memory_order_relaxed);

		if (pid <= 0 || pid == p->pid ||
		    !rt_cmdline_lookup(p->ctl->cmdlines, pid, comm, NULL))
			continue;
		if (rtt_cmdline_put(&buf, &n, &cap, pid, comm))
			goto nomem;
	}
	*out = buf;
	*len = n;
	return 0;
nomem:
	free(buf);
	return -ENOMEM;
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
