// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * publish.c - the traced process's side of ctl.h: its files in the
 *	publish directory, and the control thread that runs the commands of
 *	the ringtrace tool
 *
 * Publication happens once, when the tracer starts (rt_do_init()), before
 * any instance exists, so no writer ever saves a thread name anywhere but
 * in the control file. RINGTRACE_PUBLISH=0 turns it off; a failure to
 * publish (no directory, no space) is reported once on stderr and the
 * tracer works unpublished.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "files.h"
#include "filter.h"
#include "proto.h"
#include "ftrace.h"
#include "symbols.h"
#include "trace.h"

/* A filter command carries an expression as long as the filter takes,
 * after its verb, instance, system and event. */
_Static_assert(RT_CTL_CMD_MAX >= RT_FILTER_MAX_LEN + 3 * 256 + 64,
	       "the command area holds the longest filter expression");

/* ringtrace_publish_allow_secure() was called (before the tracer
 * started: relaxed, read by the same thread's later start, or after
 * the pthread_once() that orders it). */
static atomic_bool rt_secure_allowed;

int ringtrace_publish_allow_secure(void)
{
	if (rt_started())
		return -EBUSY;
	atomic_store_explicit(&rt_secure_allowed, true, memory_order_relaxed);
	return 0;
}

/* Set by the "go" command: a recorder that follows us is attached. */
static atomic_int rt_go;

static struct rt_ctl *rt_ctl;
/* <dir>/<pid>-<start>; short enough that every file name fits the
 * control file's RT_CTL_PATH_MAX */
static char rt_prefix[RT_CTL_PATH_MAX - 48];
static int rt_ctl_pid;
static pthread_mutex_t rt_pub_lock = PTHREAD_MUTEX_INITIALIZER;

extern struct rt_ctl_cmdline *rt_cmdline_tab;

static pthread_mutex_t rt_syms_pub_lock = PTHREAD_MUTEX_INITIALIZER;

void rt_publish_fork_child(void)
{
	pthread_mutex_init(&rt_pub_lock, NULL);
	pthread_mutex_init(&rt_syms_pub_lock, NULL);
}

bool rt_published(void)
{
	return rt_ctl != NULL && rt_ctl_pid == getpid();
}

/* ---- files ------------------------------------------------------------ */

static int rt_mkdir_private(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0)
		return -errno;
	/* Someone else's directory, or a link: not ours to write into.
	 * Ours is the effective uid's: the uid mkdir() made it with. */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077))
		return -EPERM;
	return 0;
}

/* The temporary file @path is written as (its name into @tmp). */
static int rt_file_begin(const char *path, char tmp[PATH_MAX + 8])
{
	int fd;

	if (snprintf(tmp, PATH_MAX + 8, "%s.tmp", path) >= PATH_MAX + 8)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	return fd < 0 ? -errno : fd;
}

static int rt_file_write(int fd, const char *text, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return 0;
}

/* The temporary file renamed over @path (@ret 0), or removed. */
static int rt_file_end(int fd, const char *tmp, const char *path, int ret)
{
	if (close(fd) != 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) != 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* Write @text to @path atomically (a temporary file renamed over it). */
static int rt_write_file(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX + 8];
	int fd = rt_file_begin(path, tmp);

	if (fd < 0)
		return fd;
	return rt_file_end(fd, tmp, path, rt_file_write(fd, text, len));
}

/*
 * The control file's generation (rt_ctl.gen) tells tools that something
 * changed, and is the seqlock of the instance slots: odd while a slot is
 * rewritten (rt_ctl_write_begin() to rt_ctl_write_end()), even whenever
 * nothing is being written, so that a tool that copies a slot between
 * two equal even loads has a whole one (rtt_inst_read()). Every change
 * moves it by two. All three under rt_pub_lock.
 */
static void rt_ctl_write_begin(void)
{
	atomic_fetch_add_explicit(&rt_ctl->gen, 1, memory_order_relaxed);
	/* Orders the odd value before the slot's stores that follow; pairs
	 * with the acquire fence between a tool's copy of a slot and its
	 * second load of gen (rtt_inst_read()): a copy that saw any of
	 * those stores sees gen moved. */
	atomic_thread_fence(memory_order_release);
}

static void rt_ctl_write_end(void)
{
	/* Release: the slot's new contents before the even value; pairs
	 * with the tool's acquire load of gen before its copy. */
	atomic_fetch_add_explicit(&rt_ctl->gen, 1, memory_order_release);
}

/* A change of the files (events, symbols): gen moved by two at once
 * (release: the new files are complete before; pairs with the tool's
 * acquire load). */
static void rt_ctl_changed(void)
{
	atomic_fetch_add_explicit(&rt_ctl->gen, 2, memory_order_release);
}

int rt_publish_buffer_path(struct ringtrace_instance *tr, bool snap,
			   char *buf, size_t len)
{
	static _Atomic unsigned int serial;
	int n;

	if (!rt_published())
		return -ENOENT;
	/* a serial number: a replaced buffer gets a fresh name, since the
	 * old file exists until the old buffer is freed */
	n = snprintf(buf, len, "%s.%s.%u.%s", rt_prefix,
		     tr->id ? tr->name : "top",
		     atomic_fetch_add_explicit(&serial, 1,
					       memory_order_relaxed),
		     snap ? "snap" : "buf");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void rt_publish_instance(struct ringtrace_instance *tr)
{
	struct rt_ctl_inst *ci;
	struct ringbuf *rb;
	const char *p;

	if (!rt_published() || tr->id >= RT_CTL_MAX_INSTANCES)
		return;
	pthread_mutex_lock(&rt_pub_lock);
	rt_ctl_write_begin();
	ci = &rt_ctl->inst[tr->id];
	rb = ringtrace_buffer(tr);
	snprintf(ci->name, sizeof(ci->name), "%s", tr->id ? tr->name : "");
	p = rb ? ringbuf_path(rb) : NULL;
	snprintf(ci->buf, sizeof(ci->buf), "%s", p ? p : "");
	p = tr->snap ? ringbuf_path(tr->snap) : NULL;
	snprintf(ci->snap, sizeof(ci->snap), "%s", p ? p : "");
	/* Release: the paths above before the new generation; pairs with
	 * the tool's acquire load in rtt_inst_gen(). */
	atomic_fetch_add_explicit(&ci->gen, 1, memory_order_release);
	atomic_store_explicit(&ci->used, 1, memory_order_relaxed);
	if (tr->id == 0)
		snprintf(rt_ctl->clock, sizeof(rt_ctl->clock), "%s",
			 rt_clock_name(ringbuf_clock(rb)));
	rt_ctl_write_end();
	pthread_mutex_unlock(&rt_pub_lock);
}

void rt_unpublish_instance(struct ringtrace_instance *tr)
{
	struct rt_ctl_inst *ci;

	if (!rt_published() || tr->id >= RT_CTL_MAX_INSTANCES)
		return;
	pthread_mutex_lock(&rt_pub_lock);
	rt_ctl_write_begin();
	ci = &rt_ctl->inst[tr->id];
	atomic_store_explicit(&ci->used, 0, memory_order_relaxed);
	ci->buf[0] = ci->snap[0] = '\0';
	rt_ctl_write_end();
	pthread_mutex_unlock(&rt_pub_lock);
}

/* Rewrite the events file: every registered event's format. */
void rt_publish_events(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	/* Not once the exit began: destructors unregister the program's
	 * events, and the file must keep them for a reader after the exit. */
	if (!rt_published() || atomic_load_explicit(&rt_ctl->state,
						    memory_order_relaxed) ==
				       RT_CTL_EXITED)
		return;
	f = open_memstream(&text, &len);
	if (!f)
		return;
	rt_events_dump(f);
	if (fclose(f) == 0) {
		pthread_mutex_lock(&rt_pub_lock);
		if (rt_write_file(rt_ctl->events, text, len) == 0)
			rt_ctl_changed();
		pthread_mutex_unlock(&rt_pub_lock);
	}
	free(text);
}

/*
 * The symbols file, written a buffer at a time as rt_sym_line() fills
 * it (thousands of lines: one buffer reused, not the whole text grown in
 * memory, whose fresh pages cost a fault each).
 */
#define RT_SYM_TEXT_BUF (32u << 10)

struct rt_sym_text {
	int fd;
	size_t len;
	char buf[RT_SYM_TEXT_BUF];
};

static int rt_sym_line(const struct rt_sym *sym, void *arg)
{
	struct rt_sym_text *t = arg;
	const char *mod = rt_sym_modname(sym);
	size_t n = rt_symtab_line(t->buf + t->len, sizeof(t->buf) - t->len,
				  sym, mod);
	int ret;

	if (n <= sizeof(t->buf) - t->len) {
		t->len += n;
		return 0;
	}
	ret = rt_file_write(t->fd, t->buf, t->len);
	t->len = 0;
	if (ret)
		return ret;
	n = rt_symtab_line(t->buf, sizeof(t->buf), sym, mod);
	if (n <= sizeof(t->buf)) {
		t->len = n;
		return 0;
	}
	/* a name longer than the buffer (C++ can make them) */
	{
		char *big = malloc(n);

		if (!big)
			return -ENOMEM;
		n = rt_symtab_line(big, n, sym, mod);
		ret = rt_file_write(t->fd, big, n);
		free(big);
	}
	return ret;
}

/*
 * Under rt_syms_pub_lock (which serializes rt_publish_syms(): the control
 * thread's "syms" command, the tracer switched on in another thread; one
 * writes the file, the next finds it current): the loader's counters
 * when the symbols file last written was made, and whether there is one.
 */
static struct rt_syms_gen rt_syms_pub_gen;
static bool rt_syms_pub_done;

/* Under rt_syms_pub_lock: rt_publish_syms()'s file written. */
static int rt_publish_syms_locked(void)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct rt_sym_text *t;
	int ret;

	rt_syms_refresh();
	if (snprintf(path, sizeof(path), "%s.syms", rt_prefix) >=
	    (int)sizeof(rt_ctl->syms))
		return -ENAMETOOLONG;
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	pthread_mutex_lock(&rt_pub_lock);
	t->fd = rt_file_begin(path, tmp);
	t->len = 0;
	ret = t->fd < 0 ? t->fd : rt_syms_foreach(rt_sym_line, t);
	if (t->fd >= 0) {
		if (!ret)
			ret = rt_file_write(t->fd, t->buf, t->len);
		ret = rt_file_end(t->fd, tmp, path, ret > 0 ? -EIO : ret);
	}
	if (!ret) {
		memcpy(rt_ctl->syms, path, strlen(path) + 1);
		rt_ctl_changed();
	}
	pthread_mutex_unlock(&rt_pub_lock);
	free(t);
	return ret;
}

/*
 * Write the symbols file (kallsyms lines with their sizes, symtab.h), for
 * %ps and the function tracers in a tool, and after a crash. A file
 * written since the last load or unload of an object is current: it is
 * left as it is (a recorder asks for the symbols when it attaches, right
 * after the tracer switched on published them; a large program's take
 * milliseconds to write).
 */
int rt_publish_syms(void)
{
	struct rt_syms_gen gen = { 0, 0 };
	bool have_gen;
	struct stat st;
	int ret;

	if (!rt_published())
		return -ENOENT;
	pthread_mutex_lock(&rt_syms_pub_lock);
	/* read before the symbols: a load meanwhile moves them past it,
	 * and the next call writes the file again */
	have_gen = rt_syms_loader_gen(&gen);
	if (have_gen && rt_syms_pub_done && gen.adds == rt_syms_pub_gen.adds &&
	    gen.subs == rt_syms_pub_gen.subs && rt_ctl->syms[0] &&
	    !lstat(rt_ctl->syms, &st)) {
		pthread_mutex_unlock(&rt_syms_pub_lock);
		return 0;
	}
	ret = rt_publish_syms_locked();
	if (!ret) {
		rt_syms_pub_gen = gen;
		rt_syms_pub_done = have_gen;
	}
	pthread_mutex_unlock(&rt_syms_pub_lock);
	return ret;
}

/* ---- the control thread ------------------------------------------------ */

static long rt_futex(_Atomic uint32_t *word, int op, uint32_t val,
		     const struct timespec *ts)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is shared with other processes. */
	return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

struct rt_reply {
	char *buf;
	size_t len;
	size_t cap;
};

static void rt_reply_printf(struct rt_reply *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void rt_reply_printf(struct rt_reply *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->len >= r->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->buf + r->len, r->cap - r->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		r->len += (size_t)n < r->cap - r->len ? (size_t)n :
							r->cap - r->len - 1;
}

static int rt_stat(struct ringtrace_instance *tr, struct rt_reply *r)
{
	struct ringbuf *rb = ringtrace_buffer(tr);
	int cpu, n = ringbuf_nr_cpus(rb);
	uint64_t now = ringbuf_time_stamp(rb);

	for (cpu = 0; cpu < n; cpu++) {
		uint64_t old = ringbuf_oldest_event_ts(rb, cpu);

		/* a spare is no CPU's: named as the tool's stat names it */
		if (ringbuf_is_spare(rb, cpu))
			rt_reply_printf(r, "spare%d:\n",
					cpu - ringbuf_nr_cpu_buffers(rb));
		else
			rt_reply_printf(r, "cpu%d:\n", cpu);
		rt_reply_printf(r, "entries: %lu\n",
				ringbuf_entries_cpu(rb, cpu));
		rt_reply_printf(r, "overrun: %lu\n",
				ringbuf_overrun_cpu(rb, cpu));
		rt_reply_printf(r, "commit overrun: %lu\n",
				ringbuf_commit_overrun_cpu(rb, cpu));
		rt_reply_printf(r, "bytes: %lu\n", ringbuf_bytes_cpu(rb, cpu));
		rt_reply_printf(r, "oldest event ts: %5llu.%06llu\n",
				(unsigned long long)old / 1000000000ull,
				(unsigned long long)(old % 1000000000ull) /
					1000);
		rt_reply_printf(r, "now ts: %5llu.%06llu\n",
				(unsigned long long)now / 1000000000ull,
				(unsigned long long)(now % 1000000000ull) /
					1000);
		rt_reply_printf(r, "dropped events: %lu\n",
				ringbuf_dropped_events_cpu(rb, cpu));
		rt_reply_printf(r, "read events: %lu\n",
				ringbuf_read_events_cpu(rb, cpu));
	}
	return 0;
}

static int rt_ftrace_list_by_name(const char *name)
{
	static const char *const names[] = { "set_ftrace_filter",
					     "set_ftrace_notrace",
					     "set_graph_function",
					     "set_graph_notrace" };
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* The text @show writes to a stream, as the reply (cut at its limit). */
static int rt_reply_stream(struct rt_reply *r, int (*show)(FILE *out))
{
	char *big = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&big, &blen);

	if (!f)
		return -ENOMEM;
	show(f);
	fclose(f);
	if (big && blen >= RT_CTL_REPLY_MAX)
		big[RT_CTL_REPLY_MAX - 1] = '\0';
	rt_reply_printf(r, "%s", big ? big : "");
	free(big);
	return 0;
}

/*
 * rt_get - "get INST NAME": the value a tracefs file of that name shows
 * (a file of the library's table, files.c; the ftrace lists,
 * enabled_functions), "ftrace_site_errors" (the call sites that could
 * not be patched, rt_ftrace_site_errors()), or "print_cfg": the options as
 * a hexadecimal mask and the current tracer's number (enum rt_tracer),
 * what a tool needs to print the instance's trace as it would.
 */
static int rt_get(struct ringtrace_instance *tr, const char *name,
		  struct rt_reply *r)
{
	char buf[4096];
	int list;

	if (!name) {
		rt_reply_printf(r, "get: missing the name");
		return -EINVAL;
	}
	list = rt_ftrace_list_by_name(name);
	if (list >= 0) {
		char *big = malloc(RT_CTL_REPLY_MAX);

		if (!big)
			return -ENOMEM;
		ringtrace_show_ftrace_list(list, big, RT_CTL_REPLY_MAX);
		rt_reply_printf(r, "%s", big);
		/* the function commands follow set_ftrace_filter's
		 * functions (after the kernel's line for an empty list) */
		if (list == RINGTRACE_FTRACE_FILTER &&
		    rt_ftrace_probes_show(NULL, 0)) {
			if (!big[0])
				rt_reply_printf(r, "#### all functions enabled ####\n");
			rt_ftrace_probes_show(big, RT_CTL_REPLY_MAX);
			rt_reply_printf(r, "%s", big);
		}
		free(big);
	} else if (!strcmp(name, "enabled_functions")) {
		/* the recorded call sites patched into calls (dynftrace) */
		return rt_reply_stream(r, ringtrace_enabled_functions);
	} else if (!strcmp(name, "ftrace_site_errors")) {
		/* the sites that could not be patched, for error_log */
		return rt_reply_stream(r, ringtrace_ftrace_site_errors);
	} else if (rt_file_lookup(name)) {
		/* a file of the library's table (files.c) */
		long n = ringtrace_file_read(tr, name, buf, sizeof(buf));

		if (n < 0)
			return (int)n;
		rt_reply_printf(r, "%s", buf);
	} else if (!strcmp(name, "per_cpu_buffer_size_kb")) {
		/* one line per cpu buffer */
		int n = ringbuf_nr_cpus(ringtrace_buffer(tr));

		for (int c = 0; c < n; c++)
			rt_reply_printf(r, "%zu\n",
					ringtrace_buffer_size_kb_cpu(tr, c));
	} else if (!strcmp(name, "print_cfg")) {
		/* Relaxed: a setting changing meanwhile shows either value,
		 * as a read of the file would. */
		rt_reply_printf(r, "%llx %d\n",
				(unsigned long long)atomic_load_explicit(
					&tr->options, memory_order_relaxed),
				atomic_load_explicit(&tr->tracer,
						     memory_order_relaxed));
	} else {
		rt_reply_printf(r, "get: unknown name '%s'", name);
		return -EINVAL;
	}
	return 0;
}

static bool rt_write_as_proc(int pid);

int ringtrace_write_as(int pid)
{
	if (pid <= 0) {
		rt_write_as(0, 0, NULL);
		return 0;
	}
	return rt_write_as_proc(pid) ? 0 : -ESRCH;
}

/*
 * The calling thread's records carry the id of thread @pid of another
 * process (a trace_marker writer seen by ringtrace mount), with its name
 * and process id read from /proc. False when they cannot be read there
 * (gone, or in another pid namespace): the records then keep this
 * thread's id.
 */
static bool rt_write_as_proc(int pid)
{
	char path[64], comm[RT_COMM_LEN] = { 0 }, line[128];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || tgid <= 0) {
		if (f)
			fclose(f);
		return false;
	}
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	rt_write_as(pid, tgid, comm);
	return true;
}

/*
 * The commands (proto.h). Each handler gets its instance (NULL for the
 * RT_CMD_NOINST ones) and the arguments the table parsed; it returns 0
 * or a negative errno, the reply explaining it.
 */
typedef int rt_cmd_fn(struct ringtrace_instance *tr,
		      const struct rt_cmd_args *a, struct rt_reply *r);

static int rt_cmd_ping(struct ringtrace_instance *tr,
		       const struct rt_cmd_args *a, struct rt_reply *r)
{
	(void)tr;
	(void)a;
	rt_reply_printf(r, "pong %d", (int)getpid());
	return 0;
}

static int rt_cmd_mkinstance(struct ringtrace_instance *tr,
			     const struct rt_cmd_args *a, struct rt_reply *r)
{
	int ret;

	tr = ringtrace_instance_create(a->v[0].s);
	if (!tr) {
		ret = -errno;
		rt_reply_printf(r, "instance '%s': %s", a->v[0].s,
				strerror(errno));
		return ret;
	}
	tr->remote = true;
	return 0;
}

static int rt_cmd_rminstance(struct ringtrace_instance *tr,
			     const struct rt_cmd_args *a, struct rt_reply *r)
{
	tr = ringtrace_instance_lookup(a->v[0].s);
	if (!tr || tr->id == 0) {
		rt_reply_printf(r, "no instance '%s'", a->v[0].s);
		return -ENOENT;
	}
	/* The program may hold a pointer to an instance it made: only the
	 * ones a tool made can be removed by a tool. */
	if (!tr->remote) {
		rt_reply_printf(r, "instance '%s' belongs to the program",
				a->v[0].s);
		return -EBUSY;
	}
	return ringtrace_instance_destroy(tr);
}

static int rt_cmd_syms(struct ringtrace_instance *tr,
		       const struct rt_cmd_args *a, struct rt_reply *r)
{
	int ret = rt_publish_syms();

	(void)tr;
	(void)a;
	if (ret)
		rt_reply_printf(r, "writing the symbols: %s", strerror(-ret));
	else
		rt_reply_printf(r, "%s", rt_ctl->syms);
	return ret;
}

static int rt_cmd_go(struct ringtrace_instance *tr,
		     const struct rt_cmd_args *a, struct rt_reply *r)
{
	(void)tr;
	(void)a;
	(void)r;
	/* Release: pairs with the acquire load in rt_follow_hold(). */
	atomic_store_explicit(&rt_go, 1, memory_order_release);
	return 0;
}

/* ftrace_list replaces a list (">"), ftrace_list_add adds to it (a
 * write after the open, which emptied it or not: ">>") */
static int rt_ftrace_list_cmd(const struct rt_cmd_args *a, struct rt_reply *r,
			      bool append)
{
	int list = rt_ftrace_list_by_name(a->v[0].s), ret;
	char err[4096];

	if (list < 0) {
		rt_reply_printf(r, "unknown list '%s'", a->v[0].s);
		return -EINVAL;
	}
	ret = ringtrace_set_ftrace_list(list, a->v[1].s, append, err,
					sizeof(err));
	if (ret)
		rt_reply_printf(r, "%s", err);
	return ret;
}

static int rt_cmd_ftrace_list(struct ringtrace_instance *tr,
			      const struct rt_cmd_args *a, struct rt_reply *r)
{
	(void)tr;
	return rt_ftrace_list_cmd(a, r, false);
}

static int rt_cmd_ftrace_list_add(struct ringtrace_instance *tr,
				  const struct rt_cmd_args *a,
				  struct rt_reply *r)
{
	(void)tr;
	return rt_ftrace_list_cmd(a, r, true);
}

static int rt_cmd_marker(struct ringtrace_instance *tr,
			 const struct rt_cmd_args *a, struct rt_reply *r)
{
	/* the rest of the line, as written to trace_marker */
	int ret = ringtrace_marker_write(tr, a->v[0].s, strlen(a->v[0].s));

	if (ret < 0) {
		rt_reply_printf(r, "trace_marker: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* marker_raw INST HEX: trace_marker_raw's bytes, the id first */
static int rt_cmd_marker_raw(struct ringtrace_instance *tr,
			     const struct rt_cmd_args *a, struct rt_reply *r)
{
	const char *hex = a->v[0].s;
	size_t len = strlen(hex) / 2, i;
	unsigned char *bin;
	unsigned int id, v;
	int ret;

	if (len < sizeof(id)) {
		rt_reply_printf(r, "trace_marker_raw: an id of %zu bytes, then the data",
				sizeof(id));
		return -EINVAL;
	}
	bin = malloc(len);
	if (!bin)
		return -ENOMEM;
	/* the parser checked the digits */
	for (i = 0; i < len; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			v = 0;
		bin[i] = (unsigned char)v;
	}
	memcpy(&id, bin, sizeof(id));
	ret = ringtrace_marker_raw(tr, id, bin + sizeof(id), len - sizeof(id));
	free(bin);
	if (ret < 0) {
		rt_reply_printf(r, "trace_marker_raw: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * marker_as INST PID TEXT, marker_raw_as INST PID HEX: marker and
 * marker_raw, the record carrying thread PID's id (see rt_write_as()).
 */
static int rt_cmd_write_as(struct ringtrace_instance *tr,
			   const struct rt_cmd_args *a, struct rt_reply *r,
			   rt_cmd_fn *fn)
{
	struct rt_cmd_args sub = *a;
	bool as;
	int ret;

	if (a->v[0].u == 0 || a->v[0].u > INT_MAX) {
		rt_reply_printf(r, "%s: bad thread id '%llu'",
				rt_cmd_table[a->id].name, a->v[0].u);
		return -EINVAL;
	}
	sub.v[0] = a->v[1];
	sub.set[0] = a->set[1];
	sub.set[1] = false;
	as = rt_write_as_proc((int)a->v[0].u);
	ret = fn(tr, &sub, r);
	if (as)
		rt_write_as(0, 0, NULL);
	return ret;
}

static int rt_cmd_marker_as(struct ringtrace_instance *tr,
			    const struct rt_cmd_args *a, struct rt_reply *r)
{
	return rt_cmd_write_as(tr, a, r, rt_cmd_marker);
}

static int rt_cmd_marker_raw_as(struct ringtrace_instance *tr,
				const struct rt_cmd_args *a,
				struct rt_reply *r)
{
	return rt_cmd_write_as(tr, a, r, rt_cmd_marker_raw);
}

static int rt_cmd_set_event(struct ringtrace_instance *tr,
			    const struct rt_cmd_args *a, struct rt_reply *r)
{
	char err[4096] = "";
	int ret = ringtrace_set_event(tr, a->v[0].s, err, sizeof(err));

	if (ret)
		rt_reply_printf(r, "%s", err);
	return ret;
}

/* enable and disable */
static int rt_cmd_enable(struct ringtrace_instance *tr,
			 const struct rt_cmd_args *a, struct rt_reply *r)
{
	int ret = ringtrace_event_enable(tr, a->v[0].s, a->v[1].s,
					 a->id == RT_CMD_ENABLE);

	if (ret)
		rt_reply_printf(r, "no event matches %s:%s",
				a->v[0].s ? a->v[0].s : "*",
				a->v[1].s ? a->v[1].s : "*");
	return ret;
}

static int rt_cmd_filter(struct ringtrace_instance *tr,
			 const struct rt_cmd_args *a, struct rt_reply *r)
{
	char err[4096] = "";
	int ret = ringtrace_set_filter(tr, a->v[0].s, a->v[1].s, a->v[2].s,
				       err, sizeof(err));

	if (ret)
		rt_reply_printf(r, "%s", err);
	return ret;
}

/* show_filter and show_trigger: an event's filter or triggers */
static int rt_cmd_show_filter(struct ringtrace_instance *tr,
			      const struct rt_cmd_args *a, struct rt_reply *r)
{
	char buf[4096];
	size_t n = (a->id == RT_CMD_SHOW_FILTER ? ringtrace_show_filter :
						  ringtrace_show_trigger)(
		tr, a->v[0].s, a->v[1].s, buf, sizeof(buf));

	rt_reply_printf(r, "%.*s", (int)n, buf);
	return 0;
}

/* show_hist: an event's hist file, cut to a reply's size */
static int rt_cmd_show_hist(struct ringtrace_instance *tr,
			    const struct rt_cmd_args *a, struct rt_reply *r)
{
	char *buf = malloc(RT_CTL_REPLY_MAX);

	if (!buf)
		return -ENOMEM;
	ringtrace_show_hist(tr, a->v[0].s, a->v[1].s, buf, RT_CTL_REPLY_MAX);
	rt_reply_printf(r, "%s", buf);
	free(buf);
	return 0;
}

/* synth TEXT, synth_clear and show_synth: synthetic_events */
static int rt_cmd_synth(struct ringtrace_instance *tr,
			const struct rt_cmd_args *a, struct rt_reply *r)
{
	char err[512] = "";
	int ret = 0;

	(void)tr;
	if (a->id == RT_CMD_SHOW_SYNTH) {
		char *buf = malloc(RT_CTL_REPLY_MAX);

		if (!buf)
			return -ENOMEM;
		ringtrace_show_synthetic_events(buf, RT_CTL_REPLY_MAX);
		rt_reply_printf(r, "%s", buf);
		free(buf);
		return 0;
	}
	if (a->id == RT_CMD_SYNTH_CLEAR)
		ret = ringtrace_synthetic_events_clear(err, sizeof(err));
	else
		ret = ringtrace_synthetic_event(a->v[0].s, err, sizeof(err));
	if (ret)
		rt_reply_printf(r, "%s", err[0] ? err : strerror(-ret));
	return ret;
}

/* show_set_event and show_soft: a listing as big as a reply */
static int rt_cmd_show_big(struct ringtrace_instance *tr,
			   struct rt_reply *r,
			   size_t (*show)(struct ringtrace_instance *, char *,
					  size_t))
{
	char *buf = malloc(RT_CTL_REPLY_MAX);

	if (!buf)
		return -ENOMEM;
	show(tr, buf, RT_CTL_REPLY_MAX);
	rt_reply_printf(r, "%s", buf);
	free(buf);
	return 0;
}

static int rt_cmd_show_set_event(struct ringtrace_instance *tr,
				 const struct rt_cmd_args *a,
				 struct rt_reply *r)
{
	(void)a;
	return rt_cmd_show_big(tr, r, ringtrace_show_set_event);
}

static int rt_cmd_show_soft(struct ringtrace_instance *tr,
			    const struct rt_cmd_args *a, struct rt_reply *r)
{
	(void)a;
	return rt_cmd_show_big(tr, r, ringtrace_show_soft_events);
}

/* A write of @text to the library's file @name, and its message. */
static int rt_cmd_as_file(struct ringtrace_instance *tr, const char *name,
			  const char *text, struct rt_reply *r)
{
	char err[512];
	int ret = ringtrace_file_write(tr, name, text, err, sizeof(err));

	if (ret && err[0])
		rt_reply_printf(r, "%s", err);
	else if (ret)
		rt_reply_printf(r, "%s: %s", name, strerror(-ret));
	return ret;
}

/* clear INST [CPU]: per_cpu/cpuN/trace opened with O_TRUNC empties that
 * cpu buffer alone */
static int rt_cmd_clear(struct ringtrace_instance *tr,
			const struct rt_cmd_args *a, struct rt_reply *r)
{
	if (!a->set[0]) {
		ringtrace_clear(tr);
		return 0;
	}
	if (a->v[0].u >= (unsigned long long)ringbuf_nr_cpus(
				 ringtrace_buffer(tr))) {
		rt_reply_printf(r, "clear: no cpu buffer '%llu'", a->v[0].u);
		return -EINVAL;
	}
	pthread_mutex_lock(&tr->lock);
	/* Relaxed: the buffer is replaced only under tr->lock, held here. */
	ringbuf_reset_cpu(atomic_load_explicit(&tr->rb, memory_order_relaxed),
			  (int)a->v[0].u);
	pthread_mutex_unlock(&tr->lock);
	return 0;
}

static int rt_cmd_buffer_size_kb(struct ringtrace_instance *tr,
				 const struct rt_cmd_args *a,
				 struct rt_reply *r)
{
	/* "buffer_size_kb KB [CPU]": one cpu buffer (the mount's
	 * per_cpu/cpuN/buffer_size_kb), or every one */
	int ret = a->set[1] && a->v[1].u > INT_MAX ?
			  -EINVAL :
			  ringtrace_set_buffer_size_kb_cpu(
				  tr, a->set[1] ? (int)a->v[1].u :
						  RINGTRACE_ALL_CPUS,
				  (size_t)a->v[0].u);

	int n = ringbuf_nr_cpus(ringtrace_buffer(tr));

	if (ret && a->set[1] && (a->v[1].u >= (unsigned long long)n))
		/* the cpu buffer is what is wrong, not the size */
		rt_reply_printf(r, "cpu buffer %llu: no such cpu buffer (0-%d)",
				a->v[1].u, n - 1);
	else if (ret)
		rt_reply_printf(r, "buffer_size_kb %llu: %s", a->v[0].u,
				strerror(-ret));
	return ret;
}

/*
 * The library's files (files.c): file_ls lists them, "NAME MODE top|all"
 * a line; file_read NAME gives the text; file_write NAME [TEXT] writes,
 * after file_trunc NAME for '>'.
 */
static int rt_cmd_file_ls(struct ringtrace_instance *tr,
			  const struct rt_cmd_args *a, struct rt_reply *r)
{
	const char *name;
	unsigned int mode;
	bool top;

	(void)tr;
	(void)a;
	for (size_t i = 0; (name = ringtrace_file_name(i, &mode, &top)); i++)
		rt_reply_printf(r, "%s %04o %s\n", name, mode,
				top ? "top" : "all");
	return 0;
}

static int rt_cmd_file_read(struct ringtrace_instance *tr,
			    const struct rt_cmd_args *a, struct rt_reply *r)
{
	long n = ringtrace_file_read(tr, a->v[0].s, NULL, 0);
	char *text;

	if (n < 0) {
		rt_reply_printf(r, "%s: %s", a->v[0].s, strerror((int)-n));
		return (int)n;
	}
	/* a text cut at the reply's end would pass for the whole file */
	if ((size_t)n >= r->cap) {
		rt_reply_printf(r, "%s: %ld bytes, more than a reply holds (%zu)",
				a->v[0].s, n, r->cap - 1);
		return -EFBIG;
	}
	text = malloc((size_t)n + 1);
	if (!text)
		return -ENOMEM;
	ringtrace_file_read(tr, a->v[0].s, text, (size_t)n + 1);
	rt_reply_printf(r, "%s", text);
	free(text);
	return 0;
}

static int rt_cmd_file_write(struct ringtrace_instance *tr,
			     const struct rt_cmd_args *a, struct rt_reply *r)
{
	return rt_cmd_as_file(tr, a->v[0].s, a->set[1] ? a->v[1].s : "", r);
}

/* file_trunc NAME: what an open with O_TRUNC does before file_write */
static int rt_cmd_file_trunc(struct ringtrace_instance *tr,
			     const struct rt_cmd_args *a, struct rt_reply *r)
{
	int ret = ringtrace_file_trunc(tr, a->v[0].s);

	if (ret)
		rt_reply_printf(r, "%s: %s", a->v[0].s, strerror(-ret));
	return ret;
}

static int rt_cmd_snapshot(struct ringtrace_instance *tr,
			   const struct rt_cmd_args *a, struct rt_reply *r)
{
	long long v = a->set[0] ? a->v[0].i : 1;
	int ret = -EINVAL;

	if (v >= INT_MIN && v <= INT_MAX)
		ret = ringtrace_snapshot(tr, (int)v);
	if (ret)
		rt_reply_printf(r, "snapshot: %s", strerror(-ret));
	return ret;
}

static int rt_cmd_stat(struct ringtrace_instance *tr,
		       const struct rt_cmd_args *a, struct rt_reply *r)
{
	(void)a;
	return rt_stat(tr, r);
}

static int rt_cmd_get(struct ringtrace_instance *tr,
		      const struct rt_cmd_args *a, struct rt_reply *r)
{
	return rt_get(tr, a->v[0].s, r);
}

/* trigger INST SYS EVENT TEXT */
static int rt_cmd_trigger(struct ringtrace_instance *tr,
			  const struct rt_cmd_args *a, struct rt_reply *r)
{
	char err[4096] = "";
	int ret = ringtrace_set_trigger(tr, a->v[0].s, a->v[1].s, a->v[2].s,
					err, sizeof(err));

	if (ret && !err[0])
		snprintf(err, sizeof(err), "trigger: %s", strerror(-ret));
	if (ret)
		rt_reply_printf(r, "%s", err);
	return ret;
}

/* The handler column of the table. */
#define RT_CMD_HANDLER(id, verb, fl, rep, handler, argv) \
	[RT_CMD_##id] = handler,
static rt_cmd_fn *const rt_cmd_handlers[RT_CMD_NR] = {
	RT_CTL_COMMANDS(RT_CMD_HANDLER)
};
#undef RT_CMD_HANDLER

/*
 * rt_ctl_execute - run one command line; the reply text goes to @r.
 * Return: 0 or a negative errno (the reply then explains it).
 */
static int rt_ctl_execute(char *line, struct rt_reply *r)
{
	struct ringtrace_instance *tr = NULL;
	struct rt_cmd_args a;
	char err[512];
	int ret = rt_cmd_parse(line, &a, err, sizeof(err));

	if (ret) {
		rt_reply_printf(r, "%s", err);
		return ret;
	}
	if (!(rt_cmd_table[a.id].flags & RT_CMD_NOINST)) {
		tr = strcmp(a.inst, "-") ? ringtrace_instance_lookup(a.inst) :
					   ringtrace_top();
		if (!tr) {
			rt_reply_printf(r, "no instance '%s'", a.inst);
			return -ENOENT;
		}
	}
	ret = rt_cmd_handlers[a.id](tr, &a, r);
	if (ret == 0 && rt_cmd_table[a.id].reply == RT_REPLY_NONE)
		r->len = 0; /* the table says: nothing on success */
	return ret;
}

static void *rt_ctl_thread(void *arg)
{
	uint32_t done = atomic_load_explicit(&rt_ctl->done_seq,
					     memory_order_relaxed);
	sigset_t all;

	(void)arg;
	/* Signals go to the program's own threads, never to this one. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	prctl(PR_SET_NAME, "ringtrace-ctl", 0, 0, 0);
	for (;;) {
		/* Pairs with the tool's release store of cmd_seq after it
		 * wrote the command. */
		uint32_t seq = atomic_load_explicit(&rt_ctl->cmd_seq,
						    memory_order_acquire);
		struct rt_reply r;
		char line[RT_CTL_CMD_MAX];

		if (seq == done) {
			rt_futex(&rt_ctl->cmd_seq, FUTEX_WAIT, seq, NULL);
			continue;
		}
		memcpy(line, rt_ctl->cmd, sizeof(line));
		line[sizeof(line) - 1] = '\0';
		/* A tool that gave up waiting may have let another write a
		 * new command while this one was copied: take the newest.
		 * The fence orders the copy before the re-check of cmd_seq;
		 * it pairs with the release store of cmd_seq by the tool
		 * that wrote the newer command. */
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&rt_ctl->cmd_seq,
					 memory_order_relaxed) != seq)
			continue;
		r.buf = rt_ctl->reply;
		r.cap = sizeof(rt_ctl->reply);
		r.len = 0;
		r.buf[0] = '\0';
		if (atomic_load_explicit(&rt_ctl->state, memory_order_acquire) ==
		    RT_CTL_EXITED) {
			/* the files are going: change nothing now */
			rt_reply_printf(&r, "the process is exiting");
			rt_ctl->status = -ESRCH;
		} else {
			rt_ctl->status = rt_ctl_execute(line, &r);
		}
		rt_ctl->reply_len = (uint32_t)r.len;
		done = seq;
		/* Publishes status and reply; pairs with the tool's acquire
		 * load of done_seq. */
		atomic_store_explicit(&rt_ctl->done_seq, seq,
				      memory_order_release);
		rt_futex(&rt_ctl->done_seq, FUTEX_WAKE, INT_MAX, NULL);
	}
	return NULL;
}

/* ---- publication --------------------------------------------------------- */

/* RINGTRACE_KEEP_FILES=1 as the recorder that holds us set it (rt_hold()
 * takes it out of the environment the program's children inherit), for
 * the recorder process rt_keep_for: while it lives (it reads what is
 * left after the exit, then removes the files); a recorder gone (killed,
 * or stopped before the program) leaves nobody to remove them. */
static bool rt_keep_files;
static pid_t rt_keep_for;

bool rt_publish_keeps_formats(void)
{
	return rt_keep_files;
}

/* A clean exit removes the files (a crash leaves them). Only the process
 * that published: a forked child shares the mapping, not the files. */
static void rt_unpublish(void)
{
	int i;

	const char *keep = secure_getenv("RINGTRACE_KEEP_FILES");

	if (!rt_published())
		return;
	/* Release: pairs with the acquire load of state in the control
	 * thread, which then refuses commands, and in tools reading the
	 * file. */
	atomic_store_explicit(&rt_ctl->state, RT_CTL_EXITED,
			      memory_order_release);
	/* A recorder that started the program reads them after the exit
	 * and removes them itself. */
	if ((rt_keep_files &&
	     (rt_keep_for <= 0 || !kill(rt_keep_for, 0) || errno == EPERM)) ||
	    (keep && !strcmp(keep, "1")))
		return;
	pthread_mutex_lock(&rt_pub_lock);
	for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
		struct rt_ctl_inst *ci = &rt_ctl->inst[i];

		if (ci->buf[0])
			unlink(ci->buf);
		if (ci->snap[0])
			unlink(ci->snap);
	}
	unlink(rt_ctl->events);
	if (rt_ctl->syms[0])
		unlink(rt_ctl->syms);
	{
		char path[PATH_MAX + 8];

		snprintf(path, sizeof(path), "%s.ctl", rt_prefix);
		unlink(path);
	}
	pthread_mutex_unlock(&rt_pub_lock);
}

/*
 * The events file of the image exec() replaced. Under a recorder
 * (RINGTRACE_EXEC_HOLD: a recorded command) it is kept as
 * "<events>.exec", whose formats the recorder adds to its file, as the
 * records the earlier image wrote need them (it registered its events
 * and exec()ed before the recorder read them); the recorder removes it,
 * as it removes the other files of the process. Otherwise it goes.
 */
static void rt_keep_earlier_events(const char *events)
{
	char kept[RT_CTL_PATH_MAX + 8];

	if (getenv("RINGTRACE_EXEC_HOLD") &&
	    snprintf(kept, sizeof(kept), "%s.exec", events) <
		    (int)sizeof(kept) &&
	    !rename(events, kept))
		return;
	unlink(events);
}

/*
 * The control file @path exists already with our pid and start time: an
 * earlier image of this same process, replaced by exec() (which runs no
 * exit handlers). Remove its files so this image can publish. Anything
 * else (another user's file, a link, garbage) is left alone.
 */
static bool rt_remove_earlier_image(const char *path, uint64_t start)
{
	struct rt_ctl *old;
	struct stat st;
	bool ours;
	int fd, i;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != getuid() || (size_t)st.st_size < sizeof(*old)) {
		close(fd);
		return false;
	}
	old = mmap(NULL, sizeof(*old), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (old == MAP_FAILED)
		return false;
	ours = old->magic == RT_CTL_MAGIC && old->size == sizeof(*old) &&
	       old->pid == (int32_t)getpid() && old->start == start;
	if (ours) {
		for (i = 0; i < RT_CTL_MAX_INSTANCES; i++) {
			if (old->inst[i].buf[0] &&
			    !strncmp(old->inst[i].buf, rt_prefix,
				     strlen(rt_prefix)))
				unlink(old->inst[i].buf);
			if (old->inst[i].snap[0] &&
			    !strncmp(old->inst[i].snap, rt_prefix,
				     strlen(rt_prefix)))
				unlink(old->inst[i].snap);
		}
		if (!strncmp(old->events, rt_prefix, strlen(rt_prefix)))
			rt_keep_earlier_events(old->events);
		if (old->syms[0] &&
		    !strncmp(old->syms, rt_prefix, strlen(rt_prefix)))
			unlink(old->syms);
		unlink(path);
	}
	munmap(old, sizeof(*old));
	return ours;
}

int rt_publish_init(void)
{
	const char *s = secure_getenv("RINGTRACE_PUBLISH");
	char dir[RT_CTL_PATH_MAX], path[RT_CTL_PATH_MAX + 8];
	pthread_attr_t ta;
	sigset_t all, old;
	pthread_t th;
	struct rt_ctl *ctl;
	uint64_t start;
	ssize_t n;
	int fd, ret;

	if (s && !strcmp(s, "0"))
		return 0;
	/* A setuid or setgid program (or one with file capabilities): the
	 * one who runs it is not the one whose privileges it has, and
	 * would read and command it through the published files. Not
	 * published unless the program said it may be. */
	if (getauxval(AT_SECURE) &&
	    !atomic_load_explicit(&rt_secure_allowed, memory_order_relaxed))
		return 0;
	ret = rt_publish_dir(dir, sizeof(dir));
	if (!ret)
		ret = rt_mkdir_private(dir);
	if (ret) {
		struct stat st;

		/* -EPERM: say which rule the directory breaks */
		if (ret == -EPERM && !lstat(dir, &st) && !S_ISDIR(st.st_mode))
			rt_warn("ringtrace: not published: %s is not a directory\n",
				dir);
		else if (ret == -EPERM && !lstat(dir, &st) &&
			 st.st_uid != geteuid())
			rt_warn("ringtrace: not published: directory %s belongs to uid %u, not to us\n",
				dir, (unsigned int)st.st_uid);
		else if (ret == -EPERM && !lstat(dir, &st))
			rt_warn("ringtrace: not published: directory %s has mode %04o; it must be 0700 (chmod 700 %s)\n",
				dir, (unsigned int)(st.st_mode & 07777), dir);
		else
			rt_warn("ringtrace: not published: directory %s: %s\n",
				dir, strerror(-ret));
		return ret;
	}
	start = rt_proc_start_time((int)getpid());
	if (snprintf(rt_prefix, sizeof(rt_prefix), "%s/%d-%llu", dir,
		     (int)getpid(), (unsigned long long)start) >=
	    (int)sizeof(rt_prefix)) {
		rt_warn("ringtrace: not published: the directory name %s is too long\n",
			dir);
		return -ENAMETOOLONG;
	}
	snprintf(path, sizeof(path), "%s.ctl", rt_prefix);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 && errno == EEXIST && rt_remove_earlier_image(path, start))
		fd = open(path,
			  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
	if (fd < 0) {
		rt_warn("ringtrace: not published: %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	if (ftruncate(fd, sizeof(*ctl)) != 0) {
		ret = -errno;
		close(fd);
		unlink(path);
		rt_warn("ringtrace: not published: %s: %s\n", path,
			strerror(-ret));
		return ret;
	}
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	close(fd);
	if (ctl == MAP_FAILED) {
		unlink(path);
		return -ENOMEM;
	}
	ctl->magic = RT_CTL_MAGIC;
	ctl->version = RT_CTL_VERSION;
	ctl->proto = RT_CTL_PROTO_VERSION;
	ctl->size = sizeof(*ctl);
	ctl->pid = (int32_t)getpid();
	ctl->uid = (uint32_t)geteuid();
	ctl->start = start;
	prctl(PR_GET_NAME, ctl->comm, 0, 0, 0);
	n = readlink("/proc/self/exe", ctl->exe, sizeof(ctl->exe) - 1);
	ctl->exe[n > 0 ? n : 0] = '\0';
	if (snprintf(ctl->events, sizeof(ctl->events), "%s.events",
		     rt_prefix) >= (int)sizeof(ctl->events))
		ctl->events[0] = '\0'; /* cannot happen: rt_prefix is short */
	/* cmd_owner starts 0 (free): the file was made zero-filled */
	/* Names saved so far (none: no instance exists yet) move along. */
	memcpy(ctl->cmdlines, rt_cmdline_tab, sizeof(ctl->cmdlines));
	rt_cmdline_tab = ctl->cmdlines;
	rt_ctl = ctl;
	rt_ctl_pid = (int)getpid();
	rt_publish_events();
	/*
	 * The shared buffers made next register the process for global
	 * expedited membarrier (a reader in another process waits on them).
	 * The kernel makes a process with more than one thread wait for an
	 * RCU grace period to register (8 to 20 ms at every start here),
	 * one thread none: register before the control thread exists. The
	 * buffer's own registration then finds it done. Failure (an old
	 * kernel) is the buffer's to handle, as before.
	 */
	{
		int saved = errno;

		(void)syscall(__NR_membarrier,
			      MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0);
		errno = saved;
	}
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&ta, 256 * 1024);
	/* Born with every signal blocked: a signal sent to the process
	 * before the thread's first instruction is not taken there. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&th, &ta, rt_ctl_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&ta);
	if (ret)
		rt_warn("ringtrace: no control thread: %s\n", strerror(ret));
	atexit(rt_unpublish);
	/* Ready: tools may talk to us (pairs with their acquire load). */
	atomic_store_explicit(&ctl->state, RT_CTL_RUNNING,
			      memory_order_release);
	return 0;
}

/* ---- start under a recorder ---------------------------------------------- */

/*
 * The RINGTRACE_ variables the library reads (trace.c, events.c, ctl.c,
 * publish.c), and the ringtrace tool's (CMD_TIMEOUT_MS, NET_TIMEOUT_MS:
 * a command record starts inherits them): any other is a typo worth a
 * warning.
 */
static const char *const rt_known_env[] = {
	"BUF_SIZE_KB",	 "CLOCK",	  "CMD_TIMEOUT_MS", "DIR",
	"EVENTS",	 "EXEC_HOLD",	  "FOLLOW",	    "FTRACE_FILTER",
	"FTRACE_NOTRACE", "GRAPH_FILTER", "GRAPH_NOTRACE", "HOLD",
	"KEEP_FILES",	 "MAX_GRAPH_DEPTH", "NET_TIMEOUT_MS", "OPTIONS",
	"PUBLISH",	 "SUBBUF_SIZE_KB", "TRACER",
};

static void rt_check_env(void)
{
	extern char **environ;
	char **e;
	size_t i, n;

	for (e = environ; e && *e; e++) {
		const char *name = *e + 10;

		if (strncmp(*e, "RINGTRACE_", 10))
			continue;
		n = strcspn(name, "=");
		for (i = 0; i < sizeof(rt_known_env) / sizeof(rt_known_env[0]);
		     i++)
			if (strlen(rt_known_env[i]) == n &&
			    !strncmp(rt_known_env[i], name, n))
				break;
		if (i == sizeof(rt_known_env) / sizeof(rt_known_env[0]))
			rt_warn("ringtrace: unknown variable RINGTRACE_%.*s (ignored)\n",
				(int)n, name);
	}
}

/*
 * RINGTRACE_HOLD=FD:PID: the ringtrace tool (process PID) started this
 * program to record it and holds it until its recorder is attached and
 * its settings made: wait, before main() and before the constructors of
 * the program itself, until the tool writes a byte to the pipe FD or
 * closes it (or exits, which closes it), at most RT_HOLD_MS. Only a
 * descendant of that tool waits (the command, or a program a shell
 * command starts), and only once: the variable is removed, so that the
 * program's own children do not wait. The files are kept at exit for
 * the recorder only when it said "go" (a byte): the program it records.
 */
#define RT_HOLD_MS 30000

/* Whether process @pid is an ancestor of this one (a bounded walk up
 * the parents in /proc, to the init of our pid namespace: which may be
 * the tool itself, the entry point of a container). */
static bool rt_is_ancestor(long pid)
{
	long p = (long)getppid();
	int depth;

	for (depth = 0; depth < 64 && p >= 1; depth++) {
		char path[64], buf[512], *s;

		if (p == pid)
			return true;
		if (p == 1)
			return false;
		snprintf(path, sizeof(path), "/proc/%ld/stat", p);
		if (rt_read_small(path, buf, sizeof(buf)) <= 0)
			return false;
		/* "pid (comm) S ppid ...": comm may hold anything but ends
		 * at the last ')' */
		s = strrchr(buf, ')');
		if (!s || sscanf(s + 1, " %*c %ld", &p) != 1)
			return false;
	}
	return false;
}

static void rt_exec_pass_on(pid_t recorder);

/* The hold is over: running. */
static void rt_held_done(void)
{
	uint32_t held = RT_CTL_HELD;

	/* Relaxed: only this thread leaves the held state; a clean exit's
	 * RT_CTL_EXITED (set meanwhile by a handler) stays. Failure is that
	 * case: nothing to undo. */
	atomic_compare_exchange_strong_explicit(&rt_ctl->state, &held,
						RT_CTL_RUNNING,
						memory_order_relaxed,
						memory_order_relaxed);
}

/*
 * Held: the recorder that waits for it (rtt_settle()) is woken at once,
 * not at its next look.
 */
static void rt_ctl_held(void)
{
	/* Release: everything the set-up published (instances, files) is
	 * visible before the recorder sees it held; pairs with the acquire
	 * load in rtt_settle(). */
	atomic_store_explicit(&rt_ctl->state, RT_CTL_HELD,
			      memory_order_release);
	rt_futex(&rt_ctl->state, FUTEX_WAKE, INT_MAX, NULL);
}

/*
 * While held, the pages of the top buffer of the CPU it runs on (where
 * its first writes go) are mapped in (ringbuf_populate_cpu()) a chunk at
 * a time, until the recorder lets go (@pfd, polled between chunks): the
 * program waits for the recorder anyway, and each page is a fault fewer
 * once it runs (a function_graph writer touches every page of its cpu
 * buffer; with the recorder's 4 MiB a thousand faults). At most one
 * chunk after the recorder's "go"; the other CPUs' buffers are left to
 * the recorder (which allocates them in the file), so that a short
 * program has few pages to unmap at its exit. Bounded: the buffer's size.
 */
#define RT_HOLD_POPULATE_CHUNK (64u << 10)

static void rt_hold_populate(struct pollfd *pfd)
{
	struct ringtrace_instance *top = ringtrace_top();
	struct ringbuf *rb = top ? ringtrace_buffer(top) : NULL;
	int cpu = sched_getcpu();
	size_t from;
	long n = 1;

	if (!rb || cpu < 0 || cpu >= ringbuf_nr_cpus(rb))
		return;
	for (from = 0; n > 0; from += (size_t)n) {
		/* let go (or the recorder gone): run */
		if (poll(pfd, 1, 0) != 0)
			return;
		/* (a kernel without MADV_POPULATE_WRITE: < 0, wait as
		 * before) */
		n = ringbuf_populate_cpu(rb, cpu, from, RT_HOLD_POPULATE_CHUNK);
	}
}

static void rt_hold(void)
{
	const char *s = secure_getenv("RINGTRACE_HOLD");
	struct pollfd pfd;
	long fd, pid;
	char *end, c;
	int ret, waited = 0;
	bool keep;

	if (!s)
		return;
	fd = strtol(s, &end, 10);
	pid = *end == ':' ? strtol(end + 1, &end, 10) : -1;
	if (*end)
		pid = -1;
	unsetenv("RINGTRACE_HOLD");
	/* for this process only: the recorder removes its files, not those
	 * of the programs it starts */
	s = secure_getenv("RINGTRACE_KEEP_FILES");
	keep = s && !strcmp(s, "1");
	if (keep)
		unsetenv("RINGTRACE_KEEP_FILES");
	if (fd < 0 || fd > INT_MAX || pid <= 0 || pid > INT_MAX ||
	    !rt_is_ancestor(pid))
		return;
	pfd.fd = (int)fd;
	pfd.events = POLLIN;
	if (rt_published()) {
		rt_ctl_held();
		rt_hold_populate(&pfd);
	}
	/* bounded: EINTR retries count against the same deadline */
	while (waited < RT_HOLD_MS) {
		ret = poll(&pfd, 1, 100);
		if (ret > 0 || (ret < 0 && errno != EINTR))
			break;
		waited += 100;
	}
	if (waited >= RT_HOLD_MS)
		rt_warn("ringtrace: the recorder did not start within %d s; running without waiting\n",
			RT_HOLD_MS / 1000);
	else if (pfd.revents & POLLIN && read((int)fd, &c, 1) == 1 && keep) {
		/* the recorder attached to this process */
		rt_keep_files = true;
		rt_keep_for = (pid_t)pid;
		rt_exec_pass_on((pid_t)pid);
	}
	close((int)fd);
	if (rt_published())
		rt_held_done();
}

/*
 * RINGTRACE_FOLLOW=PID: a program started, directly or not, by a command
 * that ringtrace record -c (process PID) records. The recorder finds it
 * in the publish directory and starts recording it: wait until it says
 * "go" (at most RT_FOLLOW_MS, and not at all once PID is gone), and keep
 * the files at exit for it to read what is left.
 */
#define RT_FOLLOW_MS 5000

/*
 * Wait until recorder @pid says "go" (at most RT_FOLLOW_MS, and not at
 * all once it is gone), keeping the files at exit for it. Return: whether
 * it said "go".
 */
static bool rt_wait_go(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	int waited;

	rt_keep_files = true;
	rt_keep_for = pid;
	/* bounded: one look a millisecond */
	for (waited = 0; waited < RT_FOLLOW_MS; waited++) {
		/* Acquire: pairs with the release store of the "go"
		 * command in rt_ctl_execute(). */
		if (atomic_load_explicit(&rt_go, memory_order_acquire))
			return true;
		if (waited % 100 == 0 && kill(pid, 0))
			return false;
		nanosleep(&ms, NULL);
	}
	return false;
}

static void rt_follow_hold(void)
{
	const char *s = secure_getenv("RINGTRACE_FOLLOW");
	char *end;
	long pid = s ? strtol(s, &end, 10) : 0;

	if (!s || *end || pid <= 0 || pid > INT_MAX || kill((pid_t)pid, 0))
		return;
	rt_wait_go((pid_t)pid);
}

/*
 * RINGTRACE_EXEC_HOLD=RPID:PID: process PID, which recorder RPID records
 * as its command, was this process before an exec(): a recorder that saw
 * its command exec() records the new image too (record.c), from its
 * start. Wait for its "go" as a followed program waits, the held state
 * telling it the set-up is done. The variable names the process, so that
 * the programs it starts (other pids) do not wait; they drop it.
 */
static void rt_exec_pass_on(pid_t recorder)
{
	char v[64];

	snprintf(v, sizeof(v), "%d:%d", (int)recorder, (int)getpid());
	setenv("RINGTRACE_EXEC_HOLD", v, 1);
}

/* Return: whether this process is the one the variable names. */
static bool rt_exec_hold(void)
{
	const char *s = secure_getenv("RINGTRACE_EXEC_HOLD");
	long rpid, pid = -1;
	char *end;

	rpid = strtol(s, &end, 10);
	if (*end == ':')
		pid = strtol(end + 1, &end, 10);
	unsetenv("RINGTRACE_EXEC_HOLD");
	if (*end || pid != (long)getpid() || rpid <= 0 || rpid > INT_MAX)
		return false;
	if (kill((pid_t)rpid, 0))
		return true;
	rt_lazy_init();
	if (!rt_published())
		return true;
	rt_ctl_held();
	if (rt_wait_go((pid_t)rpid))
		rt_exec_pass_on((pid_t)rpid);
	rt_held_done();
	return true;
}

/*
 * After the tracer started at load (trace.c's constructor; whichever of
 * the two runs first starts it, the other finds it started).
 */
__attribute__((constructor)) static void rt_publish_boot(void)
{
	extern char **environ;
	char **e;

	/* a setuid program: the caller's environment is not its own */
	if (getauxval(AT_SECURE))
		return;
	for (e = environ; e && *e; e++)
		if (!strncmp(*e, "RINGTRACE_", 10))
			break;
	if (!e || !*e)
		return;
	rt_check_env();
	if (secure_getenv("RINGTRACE_HOLD")) {
		rt_lazy_init();
		rt_hold();
	} else if (secure_getenv("RINGTRACE_EXEC_HOLD") && rt_exec_hold()) {
		/* an image of a recorded command, after its exec() */
	} else if (secure_getenv("RINGTRACE_FOLLOW")) {
		rt_lazy_init();
		if (rt_published())
			rt_follow_hold();
	}
}
