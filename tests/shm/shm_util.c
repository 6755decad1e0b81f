/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shm_util.c - what the cross-process tests share: file names under the
 * test's prefix, time limits that name the step that hung, and checked
 * fork/pipe/read/write/wait helpers.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "shm_util.h"

char g_prefix[64]; /* "rbtest-<pid>-" */
static const char *volatile g_step = "start";

void set_step(const char *s)
{
	g_step = s;
}

void on_alarm(int sig)
{
	const char *c = rbt_current(), *s = g_step;
	char buf[512];
	size_t n = 0;

	(void)sig;
#define APPEND(str)                                                     \
	for (const char *q_ = (str); *q_ && n < sizeof(buf) - 2; q_++) \
		buf[n++] = *q_
	APPEND("FAIL: timed out (hang) in case ");
	APPEND(c ? c : "?");
	APPEND(" at step: ");
	APPEND(s ? s : "?");
#undef APPEND
	buf[n++] = '\n';
	(void)!write(2, buf, n);
	_exit(1);
}

/* alarm() scaled for sanitizer builds; 0 cancels */
void arm_alarm(unsigned int secs)
{
	alarm(secs ? secs * rbt_timeout_mult() : 0);
}

const char *shm_dir(void)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	return x && *x ? x : "/dev/shm";
}

/* "rbtest-<pid>-<sfx>" */
void name_of(char *buf, size_t n, const char *sfx)
{
	snprintf(buf, n, "%s%s", g_prefix, sfx);
}

/* "<shm_dir>/rbtest-<pid>-<sfx>" */
void shm_path_of(char *buf, size_t n, const char *sfx)
{
	snprintf(buf, n, "%s/%s%s", shm_dir(), g_prefix, sfx);
}

bool exists_nofollow(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* read exactly @n bytes within @ms milliseconds, or fail */
void read_full(int fd, void *buf, size_t n, unsigned int ms,
		      const char *what)
{
	unsigned char *p = buf;
	uint64_t deadline = rbt_now_ns() +
			    (uint64_t)ms * rbt_timeout_mult() * 1000000ULL;

	while (n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = rbt_now_ns();
		int left = now >= deadline ? 0 :
			   (int)((deadline - now) / 1000000ULL) + 1;
		int r = poll(&pfd, 1, left);
		ssize_t got;

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			RBT_FAIL("%s: nothing within %u ms", what, ms);
		got = read(fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			RBT_FAIL("%s: %s", what,
				 got == 0 ? "end of file (the other process "
					    "exited)" :
					    strerror(errno));
		p += got;
		n -= (size_t)got;
	}
}

void write_full(int fd, const void *buf, size_t n, const char *what)
{
	const unsigned char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			RBT_FAIL("%s: write: %s", what, strerror(errno));
		p += w;
		n -= (size_t)w;
	}
}

/* Wait for child @pid for at most @secs seconds (scaled); returns the
 * wait status. On timeout the child is killed and the test fails. */
int wait_child(pid_t pid, unsigned int secs, const char *what)
{
	uint64_t deadline = rbt_now_ns() + (uint64_t)secs *
						   rbt_timeout_mult() *
						   1000000000ULL;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			RBT_FAIL("%s: waitpid: %s", what, strerror(errno));
		if (rbt_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			RBT_FAIL("%s: still running after %u s (hang)", what,
				 secs * rbt_timeout_mult());
		}
		rbt_msleep(5);
	}
}

void expect_exit0(int st, const char *what)
{
	if (WIFSIGNALED(st))
		RBT_FAIL("%s: killed by signal %d (%s)", what, WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		RBT_FAIL("%s: exit status %d (see its messages above)", what,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

pid_t fork_ok(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		RBT_FAIL("fork: %s", strerror(errno));
	return pid;
}

void pipe_ok(int p[2])
{
	if (pipe(p) != 0)
		RBT_FAIL("pipe: %s", strerror(errno));
}

/*
 * The cases run in a child process that leads its own process group.
 * When it ends, however it ends, the group is killed (readers a failed
 * case left behind) and this program's files are removed.
 */
/* Remove the files of @dir whose names start with g_prefix. */
static void shm_clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, g_prefix, strlen(g_prefix)) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
}

void shm_clean_all(void)
{
	shm_clean_dir("/dev/shm");
	if (strcmp(shm_dir(), "/dev/shm") != 0)
		shm_clean_dir(shm_dir());
}

int shm_test_main(int argc, char **argv, const struct rbt_case *cases,
		  size_t n, void (*clean_all)(void))
{
	struct sigaction sa;
	pid_t pid;
	int st;

	if (argc > 1 && strcmp(argv[1], "--list") == 0)
		return rbt_main(argc, argv, cases, n);
	snprintf(g_prefix, sizeof(g_prefix), "rbtest-%d-", (int)getpid());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		exit(rbt_main(argc, argv, cases, n));
	}
	setpgid(pid, pid);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			return 1;
		}
	kill(-pid, SIGKILL);
	clean_all();
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "FAIL: the test process was killed by signal "
				"%d (%s)\n", WTERMSIG(st),
			strsignal(WTERMSIG(st)));
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
