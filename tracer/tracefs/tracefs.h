/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs.h - "ringtrace mount PID DIR": a traced process's tracing
 *	directory as a FUSE file system, with tracefs's file names, modes
 *	and semantics (Documentation/tracefs.rst)
 *
 * The verbs are run by the ringtrace tool's verb table; their first
 * argument is the tool's verb entry, which this code does not look into.
 */
#ifndef RINGTRACE_TRACEFS_H
#define RINGTRACE_TRACEFS_H

#include <stdbool.h>

struct rtt_verb;

/* The verbs' help texts (after the synopsis line). */
extern const char rtfs_mount_help[];
extern const char rtfs_umount_help[];

/**
 * rtfs_do_mount - ringtrace mount [-f] PID DIR
 * @v: the verb entry (unused)
 * @argc: the verb's arguments, argv[0] being the verb
 * @argv: them
 *
 * Checks the arguments (DIR must be an empty directory the user owns:
 * else exit code 2; PID a traced process: else 3), mounts and, without
 * -f, returns once the file system is mounted, a daemon serving it; with
 * -f, serves it until it is unmounted or the process exits.
 *
 * Return: the tool's exit code (0, 1, 2, 3, 4).
 */
int rtfs_do_mount(const struct rtt_verb *v, int argc, char **argv);

/* ringtrace umount DIR: unmount what ringtrace mount mounted there. */
int rtfs_do_umount(const struct rtt_verb *v, int argc, char **argv);

/* The file system itself (fs.c, only with libfuse3): serves @dir for the
 * process @pid; @foreground: do not daemonize. Return: an exit code. */
int rtfs_serve(int pid, const char *dir, bool foreground);

/* Unmount @dir (lazily: open files keep the mount until closed).
 * Return: 0 or a negative errno. */
int rtfs_unmount(const char *dir);

#endif /* RINGTRACE_TRACEFS_H */
