// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs.c - the mount and umount verbs: their arguments, the checks on
 *	the mount point and the unmount; the file system is fs.c
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "proto.h"
#include "tracefs.h"

extern char **environ;

const char rtfs_mount_help[] =
	"Mount the tracing directory of a running traced process on DIR, as\n"
	"tracefs shows the kernel's: 'cat DIR/trace_pipe', 'echo app:* >\n"
	"DIR/set_event', 'mkdir DIR/instances/foo'. Writes go through the\n"
	"process's control path, as the other verbs' do; a refused write fails\n"
	"with the kernel's errno and, for a bad filter, an error_log entry.\n"
	"DIR must be an empty directory the caller owns; only the caller can\n"
	"use the mount. It goes away by itself when the process exits; DIR is\n"
	"then a plain directory again (a write into it creates a plain file).\n"
	"It needs access to /dev/fuse and, for a user other than root,\n"
	"fusermount3 (package fuse3).\n"
	"\n"
	"  -f, --foreground     serve in the foreground (default: a daemon)\n"
	"  -h, --help           this text\n";

const char rtfs_umount_help[] =
	"Unmount a tracing directory 'ringtrace mount' mounted on DIR (open\n"
	"files keep it until they are closed).\n"
	"\n"
	"  -h, --help           this text\n";

static int rtfs_usage(const char *verb, const char *synopsis, const char *why)
{
	fprintf(stderr, "ringtrace: %s: %s\nusage: ringtrace %s\nTry 'ringtrace %s --help'.\n",
		verb, why, synopsis, verb);
	return RTT_EXIT_USAGE;
}

/* The mount point: an empty directory the caller owns. */
static int rtfs_check_dir(const char *dir)
{
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int n = 0;

	if (stat(dir, &st)) {
		warnx("mount point %s: %s", dir, strerror(errno));
		return RTT_EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		warnx("mount point %s is not a directory", dir);
		return RTT_EXIT_USAGE;
	}
	if (st.st_uid != getuid()) {
		warnx("mount point %s belongs to another user", dir);
		return RTT_EXIT_USAGE;
	}
	dp = opendir(dir);
	if (!dp) {
		warnx("mount point %s: %s", dir, strerror(errno));
		return errno == EACCES ? RTT_EXIT_PERM : RTT_EXIT_USAGE;
	}
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			n++;
	closedir(dp);
	if (n) {
		warnx("mount point %s is not empty", dir);
		return RTT_EXIT_USAGE;
	}
	return RTT_EXIT_OK;
}

int rtfs_do_mount(const struct rtt_verb *v, int argc, char **argv)
{
	static const char synopsis[] = "mount [-f] PID DIR";
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[RTT_ERR_MAX];
	struct rtt_proc p;
	uint32_t proto;
	bool fg = false;
	int c, pid, ret;

	(void)v;
	while ((c = getopt_long(argc, argv, ":fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fg = true;
			break;
		case 'h':
			printf("usage: ringtrace %s\n\n%s", synopsis,
			       rtfs_mount_help);
			return RTT_EXIT_OK;
		default:
			return rtfs_usage("mount", synopsis,
					  c == ':' ? "option needs an argument" :
						     "unknown option");
		}
	}
	if (argc - optind != 2)
		return rtfs_usage("mount", synopsis,
				  argc - optind < 2 ? "missing an argument" :
						      "too many arguments");
	if (rtt_parse_pid(argv[optind], &pid)) {
		warnx("'%s' is not a process id", argv[optind]);
		return RTT_EXIT_USAGE;
	}
	ret = rtfs_check_dir(argv[optind + 1]);
	if (ret)
		return ret;
	ret = rtt_proc_open(pid, 0, &p, err);
	if (ret) {
		warnx("%s", err);
		return rtt_exit_code(ret);
	}
	ret = p.state == RTT_ALIVE ? 0 : -ESRCH;
	proto = p.ctl->proto;
	rtt_proc_close(&p);
	if (ret) {
		warnx("process %d is exiting", pid);
		return RTT_EXIT_NOPROC;
	}
	/* every file but a few reads needs commands (proto.h) */
	if (proto != RT_CTL_PROTO_VERSION) {
		warnx("process %d: it speaks control protocol version %u; this tool speaks version %d",
		      pid, proto, RT_CTL_PROTO_VERSION);
		return RTT_EXIT_NOPROC;
	}
#ifdef RTFS_HAVE_FUSE
	return rtfs_serve(pid, argv[optind + 1], fg);
#else
	(void)fg;
	warnx("mount: this ringtrace was built without FUSE (libfuse3)");
	return RTT_EXIT_FAIL;
#endif
}

/* Is @dir (a real path) a mount of ours? From /proc/self/mountinfo. */
static bool rtfs_is_ours(const char *dir)
{
	char line[4096], mnt[PATH_MAX], fstype[256];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		/* id parent major:minor root MOUNTPOINT ... - FSTYPE ... */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%255s", fstype) != 1)
			continue;
		found = !strcmp(mnt, dir) &&
			!strcmp(fstype, "fuse.ringtrace");
	}
	fclose(f);
	return found;
}

int rtfs_unmount(const char *dir)
{
	char a0[] = "fusermount3", a1[] = "-u", a2[] = "-z", a3[] = "-q";
	char *args[] = { a0, a1, a2, a3, (char *)dir, NULL };
	pid_t pid;
	int st;

	if (geteuid() == 0)
		return umount2(dir, MNT_DETACH) ? -errno : 0;
	if (posix_spawnp(&pid, args[0], NULL, NULL, args, environ))
		return -ENOENT;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;
}

int rtfs_do_umount(const struct rtt_verb *v, int argc, char **argv)
{
	static const char synopsis[] = "umount DIR";
	char real[PATH_MAX];
	int c, ret;

	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	(void)v;
	/* -h and --help, as every verb has them */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c != 'h')
			return rtfs_usage("umount", synopsis, "unknown option");
		printf("usage: ringtrace %s\n\n%s", synopsis, rtfs_umount_help);
		return RTT_EXIT_OK;
	}
	if (argc - optind != 1)
		return rtfs_usage("umount", synopsis,
				  argc - optind < 1 ? "missing the directory" :
						      "too many arguments");
	if (!realpath(argv[optind], real)) {
		warnx("%s: %s", argv[optind], strerror(errno));
		return RTT_EXIT_USAGE;
	}
	if (!rtfs_is_ours(real)) {
		warnx("%s is not a ringtrace mount", argv[optind]);
		return RTT_EXIT_USAGE;
	}
	ret = rtfs_unmount(real);
	if (ret) {
		warnx("unmounting %s: %s", argv[optind], strerror(-ret));
		return ret == -EPERM ? RTT_EXIT_PERM : RTT_EXIT_FAIL;
	}
	return RTT_EXIT_OK;
}
