/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shm_util.h - helpers shared by the cross-process tests (shm_util.c). */
#ifndef RB_TEST_SHM_UTIL_H
#define RB_TEST_SHM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "rbtest-<pid>-": every file a test makes starts with it. */
extern char g_prefix[64];

/* The step a hang is reported at. */
void set_step(const char *s);
/* SIGALRM handler: report the case and step, exit 1. */
void on_alarm(int sig);
/* alarm() scaled for sanitizer builds; 0 cancels. */
void arm_alarm(unsigned int secs);
const char *shm_dir(void);
/* "rbtest-<pid>-<sfx>" and "<shm_dir>/rbtest-<pid>-<sfx>" */
void name_of(char *buf, size_t n, const char *sfx);
void shm_path_of(char *buf, size_t n, const char *sfx);
bool exists_nofollow(const char *p);
/* Read exactly @n bytes within @ms milliseconds (scaled), or fail. */
void read_full(int fd, void *buf, size_t n, unsigned int ms, const char *what);
void write_full(int fd, const void *buf, size_t n, const char *what);
/* Wait for @pid at most @secs seconds (scaled); returns its status. */
int wait_child(pid_t pid, unsigned int secs, const char *what);
void expect_exit0(int st, const char *what);
pid_t fork_ok(void);
void pipe_ok(int p[2]);

/* Remove every file of this program (g_prefix) from /dev/shm and
 * shm_dir(): the clean-up of shm_test_main(). */
void shm_clean_all(void);

struct rbt_case;
/*
 * Run @cases in a child process that leads its own process group; when it
 * ends, however it ends, kill the group (writers and readers a failed case
 * left behind) and call @clean_all to remove the test's files.
 */
int shm_test_main(int argc, char **argv, const struct rbt_case *cases,
		  size_t n, void (*clean_all)(void));

#endif
