// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lttng.c - the LTTng-UST baseline.
 *
 * ringbuf-bench starts its own lttng-sessiond (once, on the first LTTng
 * run) with a private LTTNG_HOME in a fresh temporary directory, so that
 * it neither needs nor touches a session daemon of the system. When the
 * bench runs as root, every LTTng process (session daemon, lttng,
 * babeltrace2 and the traced program) runs as an unprivileged user
 * (--lttng-user, "nobody" by default): a root session daemon would use
 * the system-wide /var/run/lttng whatever LTTNG_HOME says.
 *
 * Per run: create a session writing to the temporary directory, a
 * user-space channel in discard mode whose buffers per CPU are as big as
 * a cpu buffer of the ring buffer, enable the bench's tracepoints, start,
 * run ringbuf-bench-lttng (the writer loop, a separate program so that
 * the bench itself never links liblttng-ust), stop (which waits for the
 * data to be on disk), read "Discarded events" from the session
 * statistics, count the recorded events with babeltrace2's counter sink,
 * destroy the session and remove its trace. The counts must add up:
 * fired == recorded + discarded.
 *
 * The session daemon (and the consumer daemons it spawned, which share
 * its process group) is stopped when the bench exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

const char *bench_lttng_user = "nobody";
const char *bench_lttng_helper;

static struct {
	bool tried;		/* setup attempted */
	char why[256];		/* setup failed: why */
	char dir[PATH_MAX];	/* private LTTNG_HOME */
	char helper[PATH_MAX];	/* copy of the helper inside dir */
	char lttng[PATH_MAX], sessiond[PATH_MAX], bt2[PATH_MAX];
	bool drop;		/* run children as uid/gid */
	uid_t uid;
	gid_t gid;
	pid_t sessiond_pid;	/* also its process group */
	unsigned int session_nr;
	char shm_before[16][64];	/* our uid's wait files that existed */
	unsigned int nshm_before;
} L;

/*
 * liblttng-ust and the session daemon leave small "wait" shared memory
 * files in /dev/shm (lttng-ust-wait-<abi>-<uid> per user, and the global
 * lttng-ust-wait-<abi>). Remove the ones that appeared because of us.
 */
static bool is_our_wait_shm(const char *name, uid_t uid)
{
	const char *p = name + strlen("lttng-ust-wait-");
	char suffix[32], path[PATH_MAX];
	struct stat st;

	if (strncmp(name, "lttng-ust-wait-", strlen("lttng-ust-wait-")))
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	snprintf(suffix, sizeof(suffix), "-%u", (unsigned int)uid);
	if (!strcmp(p, suffix))
		return true;
	/*
	 * The global one (no suffix), which the traced program also creates
	 * when there is none: ours only if our user owns it.
	 */
	if (*p)
		return false;
	bench_msg(path, sizeof(path), "/dev/shm/%s", name);
	return stat(path, &st) == 0 && st.st_uid == uid;
}

static void wait_shm_scan(bool remove_new)
{
	uid_t uid = L.drop ? L.uid : geteuid();
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	unsigned int i;

	if (!d)
		return;
	while ((e = readdir(d))) {
		bool known = false;

		if (!is_our_wait_shm(e->d_name, uid))
			continue;
		for (i = 0; i < L.nshm_before; i++)
			if (!strcmp(L.shm_before[i], e->d_name))
				known = true;
		if (remove_new && !known) {
			char path[PATH_MAX];

			bench_msg(path, sizeof(path), "/dev/shm/%s", e->d_name);
			unlink(path);
		} else if (!remove_new && L.nshm_before < 16) {
			bench_msg(L.shm_before[L.nshm_before++], sizeof(L.shm_before[0]),
				  "%s", e->d_name);
		}
	}
	closedir(d);
}

/* Find @name in $PATH; 0 on success. */
static int find_exe(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	char *save = NULL, *dir, *copy;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	copy = strdup(path);
	if (!copy)
		return -1;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, name);
		if (access(buf, X_OK) == 0) {
			snprintf(out, len, "%s", buf);
			free(copy);
			return 0;
		}
	}
	free(copy);
	return -1;
}

/*
 * The helper: --lttng-helper, next to this executable (build tree), in
 * ../libexec/ringtrace (a relocated install), or where it was installed.
 */
static int find_helper(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (bench_lttng_helper) {
		snprintf(out, len, "%s", bench_lttng_helper);
		return access(out, X_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(out, len, "%s/lttng/ringbuf-bench-lttng", self) < (int)len &&
			    access(out, X_OK) == 0)
				return 0;
			if (snprintf(out, len, "%s/ringbuf-bench-lttng", self) < (int)len &&
			    access(out, X_OK) == 0)
				return 0;
			/* installed: both in libexec/ringtrace (older installs: bin/) */
			if (snprintf(out, len, "%s/../libexec/ringtrace/ringbuf-bench-lttng",
				     self) < (int)len &&
			    access(out, X_OK) == 0)
				return 0;
		}
	}
#ifdef RINGBUF_BENCH_LIBEXECDIR
	snprintf(out, len, "%s/ringbuf-bench-lttng", RINGBUF_BENCH_LIBEXECDIR);
	if (access(out, X_OK) == 0)
		return 0;
#endif
	return -1;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out;
	ssize_t n;
	int ret = 0;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			ret = -EIO;
			break;
		}
	}
	if (n < 0)
		ret = -errno;
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

/* In the child: environment and identity of every LTTng process. */
static void child_setup(void)
{
	setenv("LTTNG_HOME", L.dir, 1);
	setenv("HOME", L.dir, 1);
	unsetenv("LTTNG_UST_DEBUG");
	unsetenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP");
	setenv("LTTNG_UST_REGISTER_TIMEOUT", "10000", 1);
	if (L.drop) {
		if (setgroups(0, NULL) || setgid(L.gid) || setuid(L.uid)) {
			fprintf(stderr, "ringbuf-bench: cannot become uid %u: %s\n",
				(unsigned int)L.uid, strerror(errno));
			_exit(126);
		}
	}
	if (chdir(L.dir))
		_exit(126);
}

/*
 * Run @argv, capturing its stdout (and stderr) into @out. Kill it after
 * @timeout_s seconds. Returns its exit status, or -1.
 */
static int run(char *const argv[], char *out, size_t outlen, int timeout_s)
{
	int pfd[2];
	pid_t pid;
	size_t used = 0;
	int status = 0;
	uint64_t deadline = bench_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	bool killed = false;

	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		child_setup();
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	if (out && outlen)
		out[0] = '\0';
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		uint64_t now = bench_now_ns();
		char buf[4096];
		ssize_t n;
		int ms;

		if (now >= deadline) {
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		ms = (int)((deadline - now) / 1000000ull) + 1;
		if (poll(&p, 1, ms) <= 0)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		if (out && outlen > sizeof(buf) * 2) {
			/* Keep the latest output: totals come last. */
			if (used + (size_t)n > outlen - 1) {
				size_t drop = used + (size_t)n - (outlen - 1);

				memmove(out, out + drop, used - drop);
				used -= drop;
			}
			memcpy(out + used, buf, (size_t)n);
			used += (size_t)n;
			out[used] = '\0';
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

static int lttng_cmd(char *out, size_t outlen, int timeout_s, const char *a1,
		     const char *a2, const char *a3, const char *a4,
		     const char *a5, const char *a6, const char *a7)
{
	char *argv[10];
	int i = 0;

	argv[i++] = L.lttng;
	argv[i++] = (char *)a1;
	if (a2)
		argv[i++] = (char *)a2;
	if (a3)
		argv[i++] = (char *)a3;
	if (a4)
		argv[i++] = (char *)a4;
	if (a5)
		argv[i++] = (char *)a5;
	if (a6)
		argv[i++] = (char *)a6;
	if (a7)
		argv[i++] = (char *)a7;
	argv[i] = NULL;
	return run(argv, out, outlen, timeout_s);
}

static void rm_rf(const char *path)
{
	char *argv[] = { (char *)"/bin/rm", (char *)"-rf", (char *)path, NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
}

static int start_sessiond(void)
{
	char log[PATH_MAX + 32];
	char out[4096];
	pid_t pid;
	int i;

	snprintf(log, sizeof(log), "%s/sessiond.log", L.dir);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd;

		/* Its own session and process group: the consumer daemons
		 * it spawns join the group, and the group is what we stop. */
		setsid();
		child_setup();
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		execl(L.sessiond, L.sessiond, "--no-kernel", (char *)NULL);
		_exit(127);
	}
	L.sessiond_pid = pid;
	/* Ready when the client can talk to it. */
	for (i = 0; i < 100; i++) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid) {
			L.sessiond_pid = 0;
			bench_msg(L.why, sizeof(L.why),
				  "lttng-sessiond exited at start (see %s)", log);
			return -1;
		}
		if (lttng_cmd(out, sizeof(out), 10, "list", NULL, NULL, NULL,
			      NULL, NULL, NULL) == 0)
			return 0;
		bench_sleep_ns(100 * 1000000ull);
	}
	snprintf(L.why, sizeof(L.why), "lttng-sessiond did not answer within 10 s");
	return -1;
}

/* Kill the session daemon's process group and reap it. */
void bench_lttng_shutdown(void)
{
	int i, st;

	if (L.sessiond_pid > 0) {
		pid_t pg = L.sessiond_pid;

		kill(-pg, SIGTERM);
		for (i = 0; i < 50; i++) {
			if (waitpid(pg, &st, WNOHANG) == pg)
				break;
			bench_sleep_ns(100 * 1000000ull);
		}
		/* Whatever is left of the group (consumer daemons). */
		for (i = 0; i < 50 && kill(-pg, 0) == 0; i++)
			bench_sleep_ns(100 * 1000000ull);
		if (kill(-pg, 0) == 0)
			kill(-pg, SIGKILL);
		waitpid(pg, &st, WNOHANG);
		L.sessiond_pid = 0;
		wait_shm_scan(true);
		if (bench_verbose)
			fprintf(stderr, "lttng: stopped the session daemon (pgid %d)\n",
				(int)pg);
	}
	if (L.dir[0]) {
		rm_rf(L.dir);
		L.dir[0] = '\0';
	}
}

static int lttng_setup(void)
{
	char helper[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	if (find_helper(helper, sizeof(helper))) {
#ifdef RINGBUF_BENCH_HAVE_LTTNG
		snprintf(L.why, sizeof(L.why), "ringbuf-bench-lttng not found");
#else
		snprintf(L.why, sizeof(L.why),
			 "built without liblttng-ust-dev (run bench/install-deps.sh, then re-run cmake)");
#endif
		return -1;
	}
	if (find_exe("lttng-sessiond", L.sessiond, sizeof(L.sessiond)) ||
	    find_exe("lttng", L.lttng, sizeof(L.lttng))) {
		snprintf(L.why, sizeof(L.why), "lttng-tools not installed (bench/install-deps.sh)");
		return -1;
	}
	if (find_exe("babeltrace2", L.bt2, sizeof(L.bt2)))
		L.bt2[0] = '\0';	/* fall back to the session statistics */

	if (geteuid() == 0) {
		struct passwd *pw = getpwnam(bench_lttng_user);

		if (!pw) {
			snprintf(L.why, sizeof(L.why),
				 "running as root and no user '%s' to run LTTng as (--lttng-user)",
				 bench_lttng_user);
			return -1;
		}
		if (pw->pw_uid != 0) {
			L.drop = true;
			L.uid = pw->pw_uid;
			L.gid = pw->pw_gid;
		}
	}
	snprintf(L.dir, sizeof(L.dir), "%s/ringbuf-bench-lttng.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(L.dir)) {
		snprintf(L.why, sizeof(L.why), "mkdtemp: %s", strerror(errno));
		L.dir[0] = '\0';
		return -1;
	}
	if (L.drop && chown(L.dir, L.uid, L.gid)) {
		bench_msg(L.why, sizeof(L.why), "chown %s: %s", L.dir, strerror(errno));
		return -1;
	}
	/* A copy the unprivileged user can surely execute. */
	if (snprintf(L.helper, sizeof(L.helper), "%s/ringbuf-bench-lttng", L.dir) >=
		    (int)sizeof(L.helper) || copy_file(helper, L.helper)) {
		bench_msg(L.why, sizeof(L.why), "cannot copy %s", helper);
		return -1;
	}
	wait_shm_scan(false);
	if (start_sessiond())
		return -1;
	if (bench_verbose)
		fprintf(stderr, "lttng: session daemon pid %d, LTTNG_HOME=%s%s%s\n",
			(int)L.sessiond_pid, L.dir, L.drop ? ", as user " : "",
			L.drop ? bench_lttng_user : "");
	return 0;
}

/* Sum every "<key> <number>" occurrence in @text (e.g. per channel). */
static uint64_t sum_after(const char *text, const char *key, int *found)
{
	uint64_t sum = 0;
	const char *p = text;

	*found = 0;
	while ((p = strstr(p, key))) {
		p += strlen(key);
		sum += strtoull(p, NULL, 10);
		(*found)++;
	}
	return sum;
}

/* babeltrace2's counter prints running totals: take the last one. */
static int bt2_count(const char *text, uint64_t *count)
{
	const char *p = text, *hit = NULL;
	const char *key = " Event messages";

	while ((p = strstr(p, key))) {
		hit = p;
		p += strlen(key);
	}
	if (!hit)
		return -1;
	/* the number is before the key on the same line */
	p = hit;
	while (p > text && p[-1] != '\n')
		p--;
	*count = strtoull(p, NULL, 10);
	return 0;
}

static void fail(struct bench_result *r, const char *what, int rc, const char *out)
{
	const char *nl;
	int len;

	r->skipped = true;
	/* First line of the tool's complaint, if any. */
	while (out && (*out == '\n' || *out == ' '))
		out++;
	nl = out ? strchr(out, '\n') : NULL;
	len = nl ? (int)(nl - out) : (out ? (int)strlen(out) : 0);
	if (len > 150)
		len = 150;
	snprintf(r->why, sizeof(r->why), "%s failed (status %d)%s%.*s", what, rc,
		 len ? ": " : "", len, out ? out : "");
}

void bench_run_lttng(const struct bench_case *c, struct bench_result *r)
{
	static char out[1 << 16];
	char name[32], trace[PATH_MAX + 32], outopt[PATH_MAX + 48];
	char subbuf[32], payload[16], dur[32], cpu[16], writers[16];
	uint64_t events = 0, wall = 0, cpu_ns = 0, recorded = 0, discarded;
	size_t sb = 4096;
	int rc, found;
	const char *p;

	if (!L.tried) {
		L.tried = true;
		if (lttng_setup())
			L.sessiond_pid = L.sessiond_pid > 0 ? L.sessiond_pid : -1;
	}
	if (L.sessiond_pid <= 0) {
		r->skipped = true;
		snprintf(r->why, sizeof(r->why), "%s", L.why);
		return;
	}

	snprintf(name, sizeof(name), "rbbench%u", ++L.session_nr);
	snprintf(trace, sizeof(trace), "%s/trace-%u", L.dir, L.session_nr);
	snprintf(outopt, sizeof(outopt), "--output=%s", trace);
	/* Eight sub-buffers per CPU adding up to the ring buffer's size. */
	while (sb * 2 * 8 <= c->size)
		sb *= 2;
	snprintf(subbuf, sizeof(subbuf), "--subbuf-size=%zu", sb);

	rc = lttng_cmd(out, sizeof(out), 30, "create", name, outopt, NULL, NULL, NULL, NULL);
	if (rc) {
		fail(r, "lttng create", rc, out);
		return;
	}
	rc = lttng_cmd(out, sizeof(out), 30, "enable-channel", "--userspace",
		       "--session", name, subbuf, "--num-subbuf=8", "bench");
	if (!rc)
		rc = lttng_cmd(out, sizeof(out), 30, "enable-event", "--userspace",
			       "--session", name, "--channel=bench", "ringbuf_bench:*", NULL);
	if (!rc)
		rc = lttng_cmd(out, sizeof(out), 30, "start", name, NULL, NULL, NULL, NULL, NULL);
	if (rc) {
		fail(r, "lttng enable/start", rc, out);
		goto destroy;
	}

	snprintf(payload, sizeof(payload), "%u", c->payload);
	snprintf(dur, sizeof(dur), "%.3f", c->duration);
	snprintf(cpu, sizeof(cpu), "%d", c->pin ? bench_cpu_for(0) : -1);
	snprintf(writers, sizeof(writers), "%u", c->writers);
	{
		char *argv[] = { L.helper, (char *)"--payload", payload,
				 (char *)"--duration", dur, (char *)"--cpu", cpu,
				 (char *)"--writers", writers, NULL };

		rc = run(argv, out, sizeof(out), (int)c->duration + 60);
	}
	if (rc) {
		fail(r, "ringbuf-bench-lttng", rc, out);
		goto stop;
	}
	p = strstr(out, "events=");
	if (!p || sscanf(p, "events=%llu ns=%llu cpu_ns=%llu",
			 (unsigned long long *)&events, (unsigned long long *)&wall,
			 (unsigned long long *)&cpu_ns) != 3) {
		fail(r, "parsing ringbuf-bench-lttng output", 0, out);
		goto stop;
	}
stop:
	rc = lttng_cmd(out, sizeof(out), 120, "stop", name, NULL, NULL, NULL, NULL, NULL);
	if (rc && !r->skipped) {
		fail(r, "lttng stop", rc, out);
		goto destroy;
	}
	if (r->skipped)
		goto destroy;
	rc = lttng_cmd(out, sizeof(out), 30, "list", name, NULL, NULL, NULL, NULL, NULL);
	discarded = sum_after(out, "Discarded events:", &found);
	if (rc || !found) {
		fail(r, "lttng list (statistics)", rc, out);
		goto destroy;
	}
	if (L.bt2[0]) {
		char *argv[] = { L.bt2, trace, (char *)"--component=sink.utils.counter",
				 (char *)"--params=step=+0", NULL };

		rc = run(argv, out, sizeof(out), 600);
		if (rc || bt2_count(out, &recorded)) {
			fail(r, "babeltrace2", rc, out);
			goto destroy;
		}
		snprintf(r->why, sizeof(r->why),
			 "recorded events counted by babeltrace2, lost ones from the session statistics");
	} else {
		recorded = events >= discarded ? events - discarded : 0;
		snprintf(r->why, sizeof(r->why),
			 "no babeltrace2: recorded = fired - discarded (session statistics)");
	}

	r->secs = (double)wall / 1e9 / (c->writers ? c->writers : 1);
	r->attempts = events;
	r->written = recorded;
	r->missed = discarded;
	r->read = recorded;	/* what lttng-consumerd put on disk */
	r->read_bytes = 0;
	r->dropped = discarded;
	r->have_lib_counters = true;
	r->ns_per_event = events ? (double)wall / (double)events : 0;
	r->cpu_ns_per_event = events ? (double)cpu_ns / (double)events : 0;
	r->consistent = events == recorded + discarded;
	if (!r->consistent)
		snprintf(r->inconsistency, sizeof(r->inconsistency),
			 "fired %llu != recorded %llu + discarded %llu",
			 (unsigned long long)events, (unsigned long long)recorded,
			 (unsigned long long)discarded);
destroy:
	lttng_cmd(out, sizeof(out), 60, "destroy", name, NULL, NULL, NULL, NULL, NULL);
	rm_rf(trace);
}
