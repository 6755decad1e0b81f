// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output.c - where record -o and extract -o write their trace.dat
 *
 * The path given is checked before anything runs (no command started,
 * no setting applied):
 *
 * - a missing path, or a regular file: the writer creates a new file
 *   there (tracedat.h: an existing file is removed first, never written
 *   through, the new one made with O_CREAT | O_EXCL | O_NOFOLLOW), in a
 *   directory that must take new files (write permission, a file system
 *   mounted read-write);
 * - "-": standard output, unless it is a terminal;
 * - a FIFO: only when a process has it open for reading (opened with
 *   O_WRONLY | O_NONBLOCK, ENXIO when not), never replaced;
 * - anything else (a directory, a symbolic link, a device node, a
 *   socket) is refused, with exit code 2.
 *
 * For standard output and a FIFO the file is written in a private
 * temporary directory (TMPDIR, else /tmp) and copied to the stream
 * once complete: a trace.dat is rewritten in place at each checkpoint
 * and cannot be streamed as it is made.
 */
#include "rtt.h"

const char *rtt_file_kind(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (S_ISCHR(st->st_mode))
		return "a character device";
	if (S_ISBLK(st->st_mode))
		return "a block device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	return "not a regular file";
}

/*
 * The directory of @path takes a new file (the writer creates one there,
 * and its temporary files): checked before anything runs, so that a
 * directory without write permission or on a read-only file system
 * fails before the command starts. Return: an exit code.
 */
static int rtt_out_dir_ok(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if ((int)sizeof(dir) <= snprintf(dir, sizeof(dir), "%.*s",
					      (int)(slash - path), path))
		return RTT_EXIT_OK; /* too long here: the writer says why */
	if (!access(dir, W_OK | X_OK))
		return RTT_EXIT_OK;
	/* the messages and codes of the writer's own open (rtt_td_open()) */
	if (errno == EACCES || errno == EPERM) {
		rtt_msg("permission denied: %s", path);
		return RTT_EXIT_PERM;
	}
	rtt_msg("cannot create %s: %s", path, strerror(errno));
	return RTT_EXIT_FAIL;
}

int rtt_out_open(const char *arg, bool allow_stream, struct rtt_out *o)
{
	struct stat st;
	const char *tmp;
	int fd;

	memset(o, 0, sizeof(*o));
	o->arg = arg;
	o->path = arg;
	o->fd = -1;
	if (!arg || !*arg) {
		rtt_msg("empty output file name");
		return RTT_EXIT_USAGE;
	}
	if (!strcmp(arg, "-")) {
		if (!allow_stream) {
			rtt_msg("-o -: one file per process with -c, not standard output");
			return RTT_EXIT_USAGE;
		}
		if (isatty(STDOUT_FILENO)) {
			rtt_msg("refusing to write a trace.dat to a terminal (-o -)");
			return RTT_EXIT_USAGE;
		}
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			rtt_msg("standard output: %s", strerror(errno));
			return RTT_EXIT_FAIL;
		}
		o->fd = fd;
	} else if (lstat(arg, &st)) {
		if (errno != ENOENT) {
			rtt_msg("%s: %s", arg, strerror(errno));
			return errno == EACCES ? RTT_EXIT_PERM : RTT_EXIT_USAGE;
		}
		return rtt_out_dir_ok(arg);
	} else if (S_ISREG(st.st_mode)) {
		return rtt_out_dir_ok(arg);
	} else if (S_ISFIFO(st.st_mode)) {
		if (!allow_stream) {
			rtt_msg("%s is a FIFO: -c writes one file per process", arg);
			return RTT_EXIT_USAGE;
		}
		/* Without a reader the open fails at once (ENXIO), where a
		 * blocking open would wait for one for ever. */
		fd = open(arg, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 && errno == ENXIO) {
			rtt_msg("%s is a FIFO that no process reads: start its reader first",
				arg);
			return RTT_EXIT_USAGE;
		}
		if (fd < 0) {
			rtt_msg("%s: %s", arg, strerror(errno));
			return errno == EACCES ? RTT_EXIT_PERM : RTT_EXIT_FAIL;
		}
		/* the copy blocks while the reader is slow */
		fcntl(fd, F_SETFL, 0);
		o->fd = fd;
	} else {
		rtt_msg("%s is %s: refusing to write a trace.dat over it", arg,
			rtt_file_kind(&st));
		return RTT_EXIT_USAGE;
	}
	tmp = getenv("TMPDIR");
	snprintf(o->dir, sizeof(o->dir), "%s/ringtrace.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(o->dir)) {
		rtt_msg("cannot make a temporary directory in %s: %s",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		o->dir[0] = '\0';
		rtt_out_close(o);
		return RTT_EXIT_FAIL;
	}
	snprintf(o->tmp, sizeof(o->tmp), "%s/trace.dat", o->dir);
	o->path = o->tmp;
	return RTT_EXIT_OK;
}

/* Copy the finished file to the stream. Return: 0 or a negative errno. */
static int rtt_out_copy(struct rtt_out *o)
{
	char buf[65536];
	int in = open(o->tmp, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (in < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		while (off < n) {
			ssize_t w = write(o->fd, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = -errno;
				break;
			}
			off += w;
		}
		if (ret)
			break;
	}
	close(in);
	return ret;
}

int rtt_out_finish(struct rtt_out *o, int ret)
{
	if (!ret && o->fd >= 0) {
		ret = rtt_out_copy(o);
		if (ret)
			rtt_msg("writing %s: %s", o->arg,
				ret == -EPIPE ? "its reader went away" :
						strerror(-ret));
	}
	rtt_out_close(o);
	return ret;
}

void rtt_out_close(struct rtt_out *o)
{
	char tmp2[sizeof(o->tmp) + 8];

	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->dir[0]) {
		/* the file and what a checkpoint may have left */
		unlink(o->tmp);
		snprintf(tmp2, sizeof(tmp2), "%s.tmp", o->tmp);
		unlink(tmp2);
		rmdir(o->dir);
		o->dir[0] = '\0';
	}
}

/* The name to print for the output: the argument as given. */
const char *rtt_out_name(const struct rtt_out *o)
{
	return !strcmp(o->arg, "-") ? "standard output" : o->arg;
}
