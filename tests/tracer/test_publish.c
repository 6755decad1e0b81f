// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Publication (ctl.h): a traced child process publishes its control file,
 * buffers and event formats; this process, playing the tool, sends
 * commands through the control file and reads the child's buffer through
 * an attached view. Files go on a clean exit and stay after a SIGKILL.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "sample_events.h"

#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "client.h"
#include "ctl.h"
#include "proto.h"
#include "test.h"

static char dir[PATH_MAX];

static void use_private_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/rt-publish-test-%d", (int)getpid());
	mkdir(dir, 0700);
	setenv("RINGTRACE_DIR", dir, 1);
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX + 300];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int count_files(const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name), sl = strlen(suffix);

		if (l > sl && !strcmp(e->d_name + l - sl, suffix))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* The traced child: traces requests until its parent kills it or the
 * pipe says stop. */
static void child_main(int rfd)
{
	char c;
	int i = 0;

	ASSERT_NOT_NULL(ringtrace_top());
	/* wait for the parent's go, tracing as it comes */
	fcntl(rfd, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t r = read(rfd, &c, 1);

		if (r == 1 && c == 'q')
			exit(0);
		if (r == 0)
			exit(0);
		trace_request(i++, "/child");
		usleep(1000);
	}
}

static struct rt_ctl *map_ctl(pid_t pid)
{
	DIR *d;
	struct dirent *e;
	char prefix[32], path[PATH_MAX + 300];
	struct rt_ctl *ctl = NULL;
	struct stat st;
	int tries, fd;

	snprintf(prefix, sizeof(prefix), "%d-", (int)pid);
	for (tries = 0; tries < 500 && !ctl; tries++) {
		d = opendir(dir);
		while (d && (e = readdir(d))) {
			size_t l = strlen(e->d_name);

			if (strncmp(e->d_name, prefix, strlen(prefix)) ||
			    l < 4 || strcmp(e->d_name + l - 4, ".ctl"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			fd = open(path, O_RDWR);
			if (fd < 0)
				continue;
			/* a new image's file is sized after it is made:
			 * mapping it before would fault (SIGBUS) */
			if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*ctl)) {
				close(fd);
				continue;
			}
			ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, 0);
			close(fd);
			if (ctl == MAP_FAILED)
				ctl = NULL;
		}
		if (d)
			closedir(d);
		if (ctl && atomic_load(&ctl->state) != RT_CTL_RUNNING) {
			munmap(ctl, sizeof(*ctl));
			ctl = NULL;
		}
		if (!ctl)
			rbt_msleep(10);
	}
	ASSERT_NOT_NULL(ctl);
	ASSERT_EQ(ctl->magic, RT_CTL_MAGIC);
	ASSERT_EQ(ctl->version, RT_CTL_VERSION);
	ASSERT_EQ(ctl->size, sizeof(*ctl));
	ASSERT_EQ(ctl->pid, pid);
	ASSERT_EQ(ctl->start, rt_proc_start_time(pid));
	return ctl;
}

/* The tool's side of the protocol, as small as it gets; @tries of 100 ms
 * each (0: the default, scaled for sanitizers), then -ETIMEDOUT (or a
 * failure when @tries is 0). */
static int command_wait(struct rt_ctl *ctl, const char *cmd, char *reply,
			size_t len, int tries_max);

static int command(struct rt_ctl *ctl, const char *cmd, char *reply,
		   size_t len)
{
	return command_wait(ctl, cmd, reply, len, 0);
}

static int command_wait(struct rt_ctl *ctl, const char *cmd, char *reply,
			size_t len, int tries_max)
{
	uint32_t seq;
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	uint64_t free_word = 0;
	int tries = 0, ret;

	/* the command lock, as a tool takes it (the owner word of ctl.h;
	 * the test is the only tool: any value of ours does) */
	ASSERT_TRUE(atomic_compare_exchange_strong(&ctl->cmd_owner,
						   &free_word, 1));
	/* the protocol version first, unless the test gives its own */
	if (cmd[0] == '@' || !strncmp(cmd, "raw:", 4))
		snprintf(ctl->cmd, sizeof(ctl->cmd), "%s",
			 cmd + (cmd[0] == '@' ? 0 : 4));
	else
		snprintf(ctl->cmd, sizeof(ctl->cmd), "@%d %s",
			 RT_CTL_PROTO_VERSION, cmd);
	seq = atomic_load(&ctl->cmd_seq) + 1;
	atomic_store_explicit(&ctl->cmd_seq, seq, memory_order_release);
	syscall(SYS_futex, &ctl->cmd_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	while (atomic_load_explicit(&ctl->done_seq, memory_order_acquire) !=
	       seq) {
		if (tries_max && tries++ >= tries_max) {
			/* no answer: the lock stays consistent for the next
			 * tool, and this command is simply dropped */
			atomic_store(&ctl->cmd_owner, 0);
			return -ETIMEDOUT;
		}
		if (!tries_max && tries++ >= 100 * (int)rbt_timeout_mult())
			RBT_FAIL("no answer to \"%s\"", cmd);
		syscall(SYS_futex, &ctl->done_seq, FUTEX_WAIT,
			atomic_load(&ctl->done_seq), &ts, NULL, 0);
	}
	snprintf(reply, len, "%.*s", (int)ctl->reply_len, ctl->reply);
	ret = ctl->status;
	atomic_store(&ctl->cmd_owner, 0);
	return ret;
}

/* The events file, once it names the child's events: they register
 * after the library published, from the program's constructors. */
static char *wait_events(struct rt_ctl *ctl)
{
	char *events = calloc(1, 1 << 20);
	FILE *f;

	ASSERT_NOT_NULL(events);
	/* 30 s at most: a loaded machine may not run the child for long */
	for (int tries = 0; tries < 3000 * (int)rbt_timeout_mult(); tries++) {
		size_t n;

		f = fopen(ctl->events, "r");
		ASSERT_NOT_NULL(f);
		n = fread(events, 1, (1 << 20) - 1, f);
		events[n] = '\0';
		fclose(f);
		if (strstr(events, "system: sample\n"))
			return events;
		rbt_msleep(10);
	}
	RBT_FAIL("the events file never named the child's events");
	return NULL;
}

static pid_t start_child(int *wfd)
{
	int p[2];
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char fd[16];

		/* a fresh image: the tracer starts (and publishes) when the
		 * library loads, which in this process happened already */
		close(p[1]);
		snprintf(fd, sizeof(fd), "%d", p[0]);
		execl("/proc/self/exe", "test_publish", "--child", fd,
		      (char *)NULL);
		_exit(99);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

static void control(void)
{
	struct rt_ctl *ctl;
	char reply[8192], *events;
	struct ringbuf *view;
	int wfd, st, found = 0;
	pid_t pid;

	use_private_dir();
	pid = start_child(&wfd);
	ctl = map_ctl(pid);
	ASSERT_EQ(command(ctl, "ping -", reply, sizeof(reply)), 0);
	ASSERT_NOT_NULL(strstr(reply, "pong"));
	events = wait_events(ctl);
	ASSERT_NOT_NULL(strstr(events, "system: sample\nname: request\nID: "));
	ASSERT_NOT_NULL(strstr(events, "system: ftrace\nname: print\n"));
	free(events);
	/* enable, with a filter; a bad filter comes back with its caret */
	ASSERT_EQ(command(ctl, "set_event - sample:request", reply,
			  sizeof(reply)), 0);
	ASSERT_EQ(command(ctl, "filter - sample request id >= 0 && bogus == 1",
			  reply, sizeof(reply)), -EINVAL);
	ASSERT_EQ(strcmp(reply, "id >= 0 && bogus == 1\n"
				"                 ^\n"
				"parse_error: Field not found\n"), 0);
	ASSERT_EQ(command(ctl, "filter - sample request path == \"/child\"",
			  reply, sizeof(reply)), 0);
	ASSERT_EQ(command(ctl, "show_filter - sample request", reply,
			  sizeof(reply)), 0);
	ASSERT_EQ(strcmp(reply, "path == \"/child\"\n"), 0);
	ASSERT_EQ(command(ctl, "frobnicate -", reply, sizeof(reply)),
		  -EINVAL);
	ASSERT_NOT_NULL(strstr(reply, "unknown command 'frobnicate'"));
	ASSERT_EQ(command(ctl, "set_event nosuchinstance request", reply,
			  sizeof(reply)), -ENOENT);
	ASSERT_EQ(command(ctl, "file_write - trace_options nosuchoption",
			  reply, sizeof(reply)), -EINVAL);
	ASSERT_EQ(strcmp(reply, "unknown option 'nosuchoption'"), 0);
	/* the child's records, through an attached view */
	view = ringbuf_attach(ctl->inst[0].buf, 0);
	ASSERT_NOT_NULL(view);
	for (int tries = 0; tries < 200 && found < 5; tries++) {
		int cpu;
		struct ringbuf_event *e;

		while ((e = ringbuf_consume_next(view, &cpu, NULL, NULL)))
			found++;
		rbt_msleep(10);
	}
	ASSERT_GE(found, 5);
	/* a new buffer size gives the instance a new buffer file */
	{
		uint32_t gen = atomic_load(&ctl->inst[0].gen);
		char old[RT_CTL_PATH_MAX];

		snprintf(old, sizeof(old), "%s", ctl->inst[0].buf);
		ASSERT_EQ(command(ctl, "buffer_size_kb - 64", reply,
				  sizeof(reply)), 0);
		ASSERT_NE(atomic_load(&ctl->inst[0].gen), gen);
		ASSERT_NE(strcmp(old, ctl->inst[0].buf), 0);
		ASSERT_NE(access(old, F_OK), 0);
	}
	ringbuf_free(view);
	ASSERT_EQ(command(ctl, "stat -", reply, sizeof(reply)), 0);
	ASSERT_NOT_NULL(strstr(reply, "cpu0:\nentries: "));
	ASSERT_EQ(command(ctl, "syms -", reply, sizeof(reply)), 0);
	ASSERT_EQ(access(reply, R_OK), 0);
	ASSERT_EQ(command(ctl, "mkinstance - side", reply, sizeof(reply)), 0);
	ASSERT_EQ(atomic_load(&ctl->inst[1].used), 1);
	ASSERT_EQ(strcmp(ctl->inst[1].name, "side"), 0);
	ASSERT_EQ(access(ctl->inst[1].buf, R_OK), 0);
	/* a clean exit takes the files away */
	ASSERT_EQ(write(wfd, "q", 1), 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(count_files(".ctl"), 0);
	ASSERT_EQ(count_files(".buf"), 0);
	ASSERT_EQ(count_files(".events"), 0);
	munmap(ctl, sizeof(*ctl));
	close(wfd);
	remove_dir();
}

/* A killed process leaves its files, and its records in them. */
static void crash_leaves_files(void)
{
	struct rt_ctl *ctl;
	char reply[256], buf[RT_CTL_PATH_MAX];
	struct ringbuf *view;
	struct ringbuf_event *e;
	int wfd, st, cpu, n = 0;
	pid_t pid;

	use_private_dir();
	pid = start_child(&wfd);
	ctl = map_ctl(pid);
	free(wait_events(ctl));
	ASSERT_EQ(command(ctl, "set_event - request", reply, sizeof(reply)),
		  0);
	snprintf(buf, sizeof(buf), "%s", ctl->inst[0].buf);
	/* until the child has written some (a loaded machine may not run
	 * it for a while): 10 s at most */
	view = ringbuf_attach(buf, 0);
	ASSERT_NOT_NULL(view);
	for (int i = 0; i < 1000 && ringbuf_entries(view) <= 10; i++)
		rbt_msleep(10);
	ringbuf_free(view);
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_EQ(count_files(".ctl"), 1);
	ASSERT_EQ(count_files(".buf"), 1);
	ASSERT_EQ(atomic_load(&ctl->state), RT_CTL_RUNNING);
	ASSERT_EQ(rt_proc_start_time(pid), 0);
	view = ringbuf_attach(buf, 0);
	ASSERT_NOT_NULL(view);
	while ((e = ringbuf_consume_next(view, &cpu, NULL, NULL)))
		n++;
	ASSERT_GT(n, 10);
	ringbuf_free(view);
	munmap(ctl, sizeof(*ctl));
	close(wfd);
	remove_dir();
}

/* RINGTRACE_PUBLISH=0: nothing in the directory */
static void publish_off(void)
{
	int wfd, st;
	pid_t pid;

	use_private_dir();
	setenv("RINGTRACE_PUBLISH", "0", 1);
	pid = start_child(&wfd);
	rbt_msleep(100);
	ASSERT_EQ(count_files(".ctl"), 0);
	ASSERT_EQ(write(wfd, "q", 1), 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	close(wfd);
	remove_dir();
}

/*
 * The control protocol's table (proto.h): a line of another version, or
 * without one, is refused with a message naming the versions, and
 * arguments are checked against their types, before anything runs.
 */
static void protocol(void)
{
	struct rt_cmd_args a;
	struct rt_ctl *ctl;
	char reply[8192], line[256], err[256];
	int wfd, st, i, j;
	pid_t pid;

	/* the table: verbs unique, a rest-of-line argument only last */
	for (i = 0; i < RT_CMD_NR; i++) {
		ASSERT_EQ(rt_cmd_lookup(rt_cmd_table[i].name), i);
		for (j = 0; j + 1 < RT_CMD_MAX_ARGS; j++)
			if ((rt_cmd_table[i].args[j].type & ~RT_ARG_OPT) ==
			    RT_ARG_REST)
				ASSERT_EQ(rt_cmd_table[i].args[j + 1].type, 0);
	}
	snprintf(line, sizeof(line), "@%d filter top * ev a == 1 && b",
		 RT_CTL_PROTO_VERSION);
	ASSERT_EQ(rt_cmd_parse(line, &a, err, sizeof(err)), 0);
	ASSERT_EQ(a.id, RT_CMD_FILTER);
	ASSERT_EQ(strcmp(a.inst, "top"), 0);
	ASSERT_NULL(a.v[0].s);
	ASSERT_EQ(strcmp(a.v[1].s, "ev"), 0);
	ASSERT_EQ(strcmp(a.v[2].s, "a == 1 && b"), 0);
	snprintf(line, sizeof(line), "@%d clear - 3", RT_CTL_PROTO_VERSION);
	ASSERT_EQ(rt_cmd_parse(line, &a, err, sizeof(err)), 0);
	ASSERT_TRUE(a.set[0]);
	ASSERT_EQ(a.v[0].u, 3);

	use_private_dir();
	pid = start_child(&wfd);
	ctl = map_ctl(pid);
	ASSERT_EQ(ctl->proto, RT_CTL_PROTO_VERSION);
	ASSERT_EQ(command(ctl, "ping -", reply, sizeof(reply)), 0);
	ASSERT_NOT_NULL(strstr(reply, "pong"));
	/* the untyped protocol's line, and another version's */
	ASSERT_EQ(command(ctl, "raw:ping -", reply, sizeof(reply)),
		  -EPROTONOSUPPORT);
	ASSERT_NOT_NULL(strstr(reply, "without a control protocol version"));
	ASSERT_EQ(command(ctl, "@99 ping -", reply, sizeof(reply)),
		  -EPROTONOSUPPORT);
	ASSERT_NOT_NULL(strstr(reply, "control protocol version 99"));
	/* typed arguments */
	ASSERT_EQ(command(ctl, "marker_as - -5 text", reply, sizeof(reply)),
		  -EINVAL);
	ASSERT_EQ(strcmp(reply, "marker_as: bad thread id '-5'"), 0);
	ASSERT_EQ(command(ctl, "buffer_size_kb - 12kb", reply, sizeof(reply)),
		  -EINVAL);
	ASSERT_EQ(strcmp(reply, "buffer_size_kb: bad size '12kb'"), 0);
	ASSERT_EQ(command(ctl, "marker_raw - 0102zz0304", reply,
			  sizeof(reply)), -EINVAL);
	ASSERT_EQ(command(ctl, "mkinstance -", reply, sizeof(reply)), -EINVAL);
	ASSERT_EQ(strcmp(reply, "mkinstance: missing the instance name"), 0);
	ASSERT_EQ(command(ctl, "ping - extra", reply, sizeof(reply)), -EINVAL);
	ASSERT_EQ(strcmp(reply, "ping: too many arguments"), 0);
	/* replies as the table says: none, or the text */
	ASSERT_EQ(command(ctl, "file_write - tracing_on 1", reply,
			  sizeof(reply)), 0);
	ASSERT_EQ(reply[0], '\0');
	ASSERT_EQ(command(ctl, "get - tracing_on", reply, sizeof(reply)), 0);
	ASSERT_EQ(strcmp(reply, "1\n"), 0);
	ASSERT_EQ(write(wfd, "q", 1), 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	munmap(ctl, sizeof(*ctl));
	close(wfd);
	remove_dir();
}

static void exec_republishes(void);

/*
 * Typed calls (RT_CALL, rt_cmd_format()): the line is the one the table
 * describes (the wire format of version 3), reads back through the
 * parser to the same values, and a call the table does not describe is
 * refused before any line exists.
 */
static void protocol_calls(void)
{
	struct rt_cmd_args a;
	char line[256], err[256];

	ASSERT_EQ(rt_cmd_format(&RT_CALL(FILTER, NULL, RT_S(0, NULL),
					 RT_S(1, "ev"), RT_S(2, "a == 1")),
				line, sizeof(line), err, sizeof(err)),
		  0);
	ASSERT_EQ(strcmp(line, "@3 filter - * ev a == 1"), 0);
	ASSERT_EQ(rt_cmd_parse(line, &a, err, sizeof(err)), 0);
	ASSERT_EQ(a.id, RT_CMD_FILTER);
	ASSERT_NULL(a.v[0].s);
	ASSERT_EQ(strcmp(a.v[2].s, "a == 1"), 0);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(BUFFER_SIZE_KB, "i1", RT_U(0, 64),
					 RT_U(1, 3)),
				line, sizeof(line), err, sizeof(err)),
		  0);
	ASSERT_EQ(strcmp(line, "@3 buffer_size_kb i1 64 3"), 0);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(SNAPSHOT, NULL, RT_I(0, -1)),
				line, sizeof(line), err, sizeof(err)),
		  0);
	ASSERT_EQ(strcmp(line, "@3 snapshot - -1"), 0);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(STAT, NULL), line, sizeof(line),
				err, sizeof(err)),
		  0);
	ASSERT_EQ(strcmp(line, "@3 stat -"), 0);
	/* a required argument missing, one too many, a word with a blank,
	 * bad hexadecimal, text with a newline, a line too long */
	ASSERT_EQ(rt_cmd_format(&RT_CALL(FILE_READ, NULL), line, sizeof(line),
				err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(strcmp(err, "file_read: missing the file"), 0);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(STAT, NULL, RT_S(0, "x")), line,
				sizeof(line), err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(FILE_READ, NULL, RT_S(0, "a b")),
				line, sizeof(line), err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(MARKER_RAW, NULL, RT_S(0, "abc")),
				line, sizeof(line), err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(MARKER, NULL, RT_S(0, "a\nb")),
				line, sizeof(line), err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(rt_cmd_format(&RT_CALL(MARKER, NULL, RT_S(0, "abcdef")),
				line, 16, err, sizeof(err)),
		  -E2BIG);
}

/*
 * Every thread's first instruction, seen from inside: pthread_create()
 * is interposed (the library's calls come here too) and each new thread
 * notes its id and whether it was born with every signal blocked, before
 * its own start routine runs.
 */
#define BORN_MAX 32
static struct {
	_Atomic int tid;
	bool all_blocked;
} born[BORN_MAX];
static _Atomic int nr_born;

struct born_start {
	void *(*fn)(void *);
	void *arg;
};

static void *born_trampoline(void *p)
{
	struct born_start b = *(struct born_start *)p;
	sigset_t cur;
	int i;

	free(p);
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	i = atomic_fetch_add(&nr_born, 1);
	if (i < BORN_MAX) {
		born[i].all_blocked = sigismember(&cur, SIGUSR1) == 1 &&
				      sigismember(&cur, SIGINT) == 1 &&
				      sigismember(&cur, SIGTERM) == 1 &&
				      sigismember(&cur, SIGURG) == 1;
		atomic_store(&born[i].tid, (int)syscall(SYS_gettid));
	}
	return b.fn(b.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);

int pthread_create(pthread_t *th, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	pthread_create_fn real =
		(pthread_create_fn)(uintptr_t)dlsym(RTLD_NEXT, "pthread_create");
	struct born_start *b = malloc(sizeof(*b));
	int ret;

	if (!real || !b) {
		free(b);
		return EAGAIN;
	}
	b->fn = fn;
	b->arg = arg;
	ret = real(th, attr, born_trampoline, b);
	if (ret)
		free(b);
	return ret;
}

/*
 * The library's threads take no signal of the program's, from their first
 * instruction on: the control thread and liburcu's call_rcu thread are
 * created with every signal blocked (they would inherit the mask of the
 * thread that makes them, and a signal sent to the process could run
 * the program's handler there).
 */
static void threads_born_blocked(void)
{
	struct ringtrace_instance *top;
	char path[64], comm[32], pids[32], err[64];
	int tid = 0, i, n, tries;
	FILE *f;

	use_private_dir();
	top = ringtrace_top();
	ASSERT_NOT_NULL(top);
	for (tries = 0; tries < 500 && !tid; tries++) {
		n = atomic_load(&nr_born);
		for (i = 0; i < n && i < BORN_MAX && !tid; i++) {
			int t = atomic_load(&born[i].tid);

			if (!t)
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%d/comm",
				 t);
			f = fopen(path, "r");
			if (f && fgets(comm, sizeof(comm), f) &&
			    !strcmp(comm, "ringtrace-ctl\n"))
				tid = t;
			if (f)
				fclose(f);
		}
		if (!tid)
			rbt_msleep(10);
	}
	ASSERT_NE(tid, 0);
	/* a pid list replaced: the old one is freed by call_rcu */
	snprintf(pids, sizeof(pids), "%d", (int)getpid());
	ASSERT_EQ(ringtrace_set_pids(top, RINGTRACE_PID_EVENT, pids, false,
				     err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_pids(top, RINGTRACE_PID_EVENT, "", false, err,
				     sizeof(err)), 0);
	for (tries = 0; tries < 500 && atomic_load(&nr_born) < 2; tries++)
		rbt_msleep(10);
	n = atomic_load(&nr_born);
	ASSERT_GE(n, 2);
	for (i = 0; i < n && i < BORN_MAX; i++) {
		for (tries = 0; tries < 500 && !atomic_load(&born[i].tid);
		     tries++)
			rbt_msleep(10);
		ASSERT_TRUE(born[i].all_blocked);
	}
	remove_dir();
}

/* ---- the slots' seqlock ------------------------------------------------ */

/*
 * The library's calls of ringbuf_path() (rt_publish_instance() makes one
 * while it rewrites a slot), seen here first: with @seq_ctl set, the
 * parity of its gen at each call.
 */
static struct rt_ctl *_Atomic seq_ctl;
static _Atomic int seq_calls, seq_odd;

const char *ringbuf_path(struct ringbuf *rb)
{
	const char *(*real)(struct ringbuf *);
	struct rt_ctl *ctl = atomic_load(&seq_ctl);

	if (ctl) {
		atomic_fetch_add(&seq_calls, 1);
		atomic_fetch_add(&seq_odd, (int)(atomic_load(&ctl->gen) & 1));
	}
	*(void **)&real = dlsym(RTLD_NEXT, "ringbuf_path");
	return real(rb);
}

/*
 * The reader's waits (rtt_inst_read() sleeps while gen is odd), seen
 * here first: with @seq_finish set, the first one finishes the write the
 * test left half done, as a publisher would meanwhile.
 */
static struct rt_ctl *_Atomic seq_finish;
static _Atomic int seq_waits;

int usleep(useconds_t us)
{
	struct rt_ctl *fin = atomic_exchange(&seq_finish, NULL);

	atomic_fetch_add(&seq_waits, 1);
	if (fin) {
		snprintf(fin->inst[1].name, sizeof(fin->inst[1].name), "%s",
			 "side");
		/* Release: the name before the even gen, as
		 * rt_ctl_write_end() */
		atomic_fetch_add_explicit(&fin->gen, 1, memory_order_release);
	}
	return (int)syscall(SYS_nanosleep,
			    &(struct timespec){ us / 1000000,
						(long)(us % 1000000) * 1000 },
			    NULL);
}

/*
 * The instance slots of the control file are a seqlock on its gen: the
 * publisher holds gen odd while it rewrites a slot (seen from inside,
 * at its ringbuf_path() call), and leaves it even; a reader that finds
 * it odd waits for the write to end rather than take the slot half
 * written (the name "si" of a slot being renamed "side": without the
 * wait, "side" is not found), and one that stays odd (a publisher that
 * died there) is read as it is after a few short waits, not waited for.
 */
static void ctl_seqlock(void)
{
	char pdir[PATH_MAX], prefix[32], path[PATH_MAX + 300];
	struct ringtrace_instance *tr;
	struct rt_ctl *own = NULL, *fake;
	struct rtt_proc p;
	struct dirent *e;
	DIR *d;
	int fd;

	/* the publisher: this process, its own control file */
	ASSERT_NOT_NULL(ringtrace_top());
	ASSERT_EQ(rt_publish_dir(pdir, sizeof(pdir)), 0);
	snprintf(prefix, sizeof(prefix), "%d-", (int)getpid());
	d = opendir(pdir);
	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) && !own) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, prefix, strlen(prefix)) || l < 4 ||
		    strcmp(e->d_name + l - 4, ".ctl"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", pdir, e->d_name);
		fd = open(path, O_RDONLY);
		ASSERT_GE(fd, 0);
		own = mmap(NULL, sizeof(*own), PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		ASSERT_TRUE(own != MAP_FAILED);
	}
	closedir(d);
	if (!own)
		rbt_skip("this process is not published");
	atomic_store(&seq_calls, 0);
	atomic_store(&seq_odd, 0);
	atomic_store(&seq_ctl, own);
	tr = ringtrace_instance_create("seqlock");
	atomic_store(&seq_ctl, NULL);
	ASSERT_NOT_NULL(tr);
	ASSERT_GE(atomic_load(&seq_calls), 1);
	ASSERT_EQ(atomic_load(&seq_odd), atomic_load(&seq_calls));
	ASSERT_EQ(atomic_load(&own->gen) & 1, 0u);
	ASSERT_EQ(ringtrace_instance_destroy(tr), 0);
	ASSERT_EQ(atomic_load(&own->gen) & 1, 0u);
	munmap(own, sizeof(*own));

	/* the reader, on a file of our own making */
	fake = calloc(1, sizeof(*fake));
	ASSERT_NOT_NULL(fake);
	memset(&p, 0, sizeof(p));
	p.pid = 4242;
	p.ctl = fake;
	atomic_store(&fake->inst[0].used, 1);
	atomic_store(&fake->inst[1].used, 1);
	snprintf(fake->inst[1].name, sizeof(fake->inst[1].name), "%s", "si");
	atomic_store(&fake->gen, 7);
	atomic_store(&seq_waits, 0);
	atomic_store(&seq_finish, fake);
	ASSERT_EQ(rtt_inst_find(&p, "side"), 1);
	ASSERT_GE(atomic_load(&seq_waits), 1);
	ASSERT_NULL(atomic_load(&seq_finish));
	ASSERT_EQ(atomic_load(&fake->gen), 8u);
	/* a gen left odd: read as it is, after a few waits per slot */
	atomic_store(&fake->gen, 9);
	atomic_store(&seq_waits, 0);
	ASSERT_EQ(rtt_inst_find(&p, "side"), 1);
	ASSERT_GE(atomic_load(&seq_waits), 2);
	ASSERT_LE(atomic_load(&seq_waits), 2 * 32);
	ASSERT_EQ(rtt_inst_find(&p, "nosuch"), -ENOENT);
	free(fake);
}

static const struct rbt_case cases[] = {
	RBT_CASE(control),
	RBT_CASE(crash_leaves_files),
	RBT_CASE(publish_off),
	RBT_CASE(exec_republishes),
	RBT_CASE(protocol),
	RBT_CASE(protocol_calls),
	RBT_CASE(threads_born_blocked),
	RBT_CASE(ctl_seqlock),
};

/* exec() keeps the pid and the start time and runs no exit handler: the
 * new image finds the old image's files and must publish anyway. */
static void exec_republishes(void)
{
	struct rt_ctl *ctl;
	char reply[256];
	int p[2], st;
	pid_t pid;

	use_private_dir();
	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char fd[16];

		close(p[1]);
		snprintf(fd, sizeof(fd), "%d", p[0]);
		execl("/proc/self/exe", "test_publish", "--exec-child", fd,
		      (char *)NULL);
		_exit(99);
	}
	close(p[0]);
	/* the second image's control file answers (30 s at most) */
	for (int tries = 0; tries < 2500; tries++) {
		ctl = map_ctl(pid);
		/* the first image's file may still be there, its control
		 * thread gone with the exec: ask briefly */
		if (command_wait(ctl, "ping -", reply, sizeof(reply), 2) == 0 &&
		    count_files(".ctl") == 1 && access(ctl->inst[0].buf, F_OK) ==
		    0 && atomic_load(&ctl->state) == RT_CTL_RUNNING &&
		    strstr(reply, "pong"))
			break;
		munmap(ctl, sizeof(*ctl));
		ctl = NULL;
		rbt_msleep(10);
	}
	ASSERT_NOT_NULL(ctl);
	ASSERT_EQ(count_files(".buf"), 1);
	ASSERT_EQ(write(p[1], "q", 1), 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(WEXITSTATUS(st), 0);
	ASSERT_EQ(count_files(".ctl"), 0);
	munmap(ctl, sizeof(*ctl));
	close(p[1]);
	remove_dir();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--child"))
		child_main(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "--exec-child")) {
		/* published at load already; become a new image */
		execl("/proc/self/exe", "test_publish", "--child", argv[2],
		      (char *)NULL);
		_exit(98);
	}
	return rbt_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
