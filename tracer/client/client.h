/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * client.h - the ringtrace tool's side of the control file (ctl.h):
 *	finding a traced process, sending it commands, attaching its
 *	buffers and reading the files it publishes
 *
 * Every function that can fail returns 0 (or a count) or a negative
 * errno, and writes a message naming what was wrong to the caller's
 * error buffer. The errno values carry the tool's exit codes
 * (rtt_exit_code()):
 *
 *	-ESRCH		no such process, or the process is not traced
 *	-EACCES, -EPERM	permission denied
 *	-EPROTO		a corrupt or truncated file
 *	-EINVAL, -ENOENT	a bad argument (an unknown event, a bad
 *			filter)
 *	others		a runtime failure
 */
#ifndef RINGTRACE_TOOL_CLIENT_H
#define RINGTRACE_TOOL_CLIENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl.h"
#include "proto.h"

struct ringbuf;

/* The tool's exit codes (ringtrace(1), EXIT STATUS). */
enum rtt_exit {
	RTT_EXIT_OK = 0,
	RTT_EXIT_FAIL = 1,	/* runtime failure: I/O, disk full */
	RTT_EXIT_USAGE = 2,	/* bad usage or argument */
	RTT_EXIT_NOPROC = 3,	/* no such process, or not traced */
	RTT_EXIT_PERM = 4,	/* permission denied */
	RTT_EXIT_CORRUPT = 5,	/* corrupt or truncated input */
};

/* The message buffers the client functions fill. */
#define RTT_ERR_MAX 1024

/**
 * struct rtt_timeout - a wait the user may shorten or stretch
 * @var: its environment variable (milliseconds, 1 to 3600000)
 * @dflt: the wait without it (ms)
 * @ms: the value in force, 0 until first asked (rtt_timeout_ms())
 */
struct rtt_timeout {
	const char *var;
	int dflt;
	_Atomic int ms;
};

int rtt_timeout_ms(struct rtt_timeout *t);

/* The longest a command waits for its answer: RINGTRACE_CMD_TIMEOUT_MS,
 * or 5000. */
extern struct rtt_timeout rtt_cmd_timeout;
#define RTT_CMD_TIMEOUT_MS rtt_timeout_ms(&rtt_cmd_timeout)

/**
 * enum rtt_state - what became of a process that published files
 * @RTT_ALIVE: the process runs (same pid, same start time)
 * @RTT_DEAD: the pid is gone or belongs to a newer process: the files
 *	are what a crash or a kill left
 * @RTT_EXITING: the process is in its clean exit (its files go next)
 */
enum rtt_state {
	RTT_ALIVE = 0,
	RTT_DEAD,
	RTT_EXITING,
};

/**
 * struct rtt_proc - an opened control file
 * @pid: the process id
 * @start: its start time, as in the file name
 * @base: the path of its files without the suffix (DIR/<pid>-<start>)
 * @ctl: the control file, mapped shared
 * @writable: @ctl is mapped for writing (commands can be sent)
 * @state: enum rtt_state, as found when opened
 * @uid: the process's uid: the owner of its publish directory and of
 *	every file of it the tool opens (and, while it runs, the effective
 *	uid the kernel reports for @pid)
 * @dfd: the publish directory, opened and checked (client_trust.c);
 *	every file is opened relative to it. 0 when none (descriptors
 *	0-2 are never used for it), closed by rtt_proc_close()
 */
struct rtt_proc {
	int pid;
	uint64_t start;
	char base[PATH_MAX];
	struct rt_ctl *ctl;
	bool writable;
	int state;
	unsigned int uid;
	int dfd;
};

/* Flags of rtt_proc_open() */
#define RTT_OPEN_DEAD (1u << 0)	   /* accept a dead process's files */
#define RTT_OPEN_READONLY (1u << 1) /* no commands: map read-only */

/**
 * rtt_exit_code - the tool's exit code for a negative errno
 * @err: 0 or a negative errno from a client function
 *
 * Context: any thread.
 * Return: an enum rtt_exit value.
 */
int rtt_exit_code(int err);

/**
 * rtt_publish_dir - the directory traced processes publish in
 * @buf: where the path goes
 * @len: its size
 *
 * Context: any thread.
 * Return: 0, or -ENAMETOOLONG.
 */
int rtt_publish_dir(char *buf, size_t len);

/**
 * rtt_publish_dir_check - whether the caller's publish directory may be
 *	used: missing (a traced program makes it) or passing the trust rule
 *	(a real directory of the caller's, 0700)
 * @err: the rule it breaks
 *
 * Context: any thread.
 * Return: 0, -EPERM (refused), -EACCES, or another negative errno.
 */
int rtt_publish_dir_check(char err[RTT_ERR_MAX]);

/**
 * rtt_parse_pid - a process id argument
 * @arg: the text
 * @pid: where the value goes
 *
 * Context: any thread.
 * Return: 0, or -EINVAL if @arg is not a positive decimal number.
 */
int rtt_parse_pid(const char *arg, int *pid);

/**
 * rtt_proc_open - open the control file of a process
 * @pid: the process id
 * @flags: RTT_OPEN_*
 * @p: filled on success
 * @err: the reason of a failure
 *
 * The file whose start time matches the running process is taken; with
 * RTT_OPEN_DEAD, the files of a dead process with that pid are taken
 * when no live one exists (the newest if several).
 *
 * Context: any thread; may block briefly.
 * Return: 0; -ESRCH when there is no such process, when it is not traced
 * or (without RTT_OPEN_DEAD) when only a dead process's files remain;
 * -EACCES, -EPERM; -EPROTO for a corrupt control file; -ENOMEM.
 */
int rtt_proc_open(int pid, unsigned int flags, struct rtt_proc *p,
		  char err[RTT_ERR_MAX]);

/**
 * rtt_proc_open_path - open a control file by its path
 * @path: a .ctl file, or one of the process's other files (.buf, .snap,
 *	.events, .syms), or the DIR/<pid>-<start> base
 * @flags: RTT_OPEN_*
 * @p: filled on success
 * @err: the reason of a failure
 *
 * Context: any thread.
 * Return: as rtt_proc_open(), -EINVAL for a name that is not one of the
 * published files'.
 */
int rtt_proc_open_path(const char *path, unsigned int flags,
		       struct rtt_proc *p, char err[RTT_ERR_MAX]);

/**
 * rtt_proc_close - unmap a control file
 * @p: the process (its fields are cleared)
 *
 * Context: any thread.
 */
void rtt_proc_close(struct rtt_proc *p);

/**
 * rtt_proc_state - what the process is now
 * @p: the process
 *
 * Context: any thread.
 * Return: an enum rtt_state value.
 */
int rtt_proc_state(const struct rtt_proc *p);

/**
 * rtt_sanitize - another process's text made safe for a terminal
 * @s: the text, changed in place
 * @len: its size (the text ends at @len or at its NUL)
 * @lines: keep newlines and tabs (a multi-line reply)
 *
 * As ps(1) shows a process's name: every byte that is not printable
 * ASCII (control characters, DEL, bytes >= 0x80) becomes '?'.
 */
void rtt_sanitize(char *s, size_t len, bool lines);

/* rtt_sanitize() of a copy of a fixed-size field @src (@srclen bytes,
 * NUL-terminated or not) into @dst (@size bytes, always terminated). */
void rtt_safe_copy(char *dst, size_t size, const char *src, size_t srclen);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t rtt_now_ms(void);

/**
 * rtt_call - send one command and wait for its answer
 * @p: the process (opened writable)
 * @timeout_ms: the longest wait, for the lock and for the answer
 * @call: the command and its typed arguments (RT_CALL(), proto.h): its
 *	line is made and checked against the protocol's table here
 * @reply: if not NULL, receives the answer's text (malloc()ed,
 *	NUL-terminated; free() it): on failure the process's message, on
 *	success the reply the table gives the command (text, a path), NULL
 *	for a command that answers nothing
 * @err: the reason of a failure of the exchange itself, or the process's
 *	error message when it refused the command
 *
 * Context: any thread; blocks up to @timeout_ms (twice: lock, answer).
 * Return: the process's status (0 or its negative errno: -EINVAL,
 * -ENOENT, ...), or -ESRCH when the process died or exited meanwhile,
 * -ETIMEDOUT when it did not answer, -EINTR when the wait was
 * interrupted (rtt_set_interrupt(); the command may still run), -E2BIG
 * for a command line too long, -EINVAL for a call the table does not
 * describe, -EPERM when @p is read-only.
 */
int rtt_call(struct rtt_proc *p, int timeout_ms,
	     const struct rt_cmd_args *call, char **reply,
	     char err[RTT_ERR_MAX]);

/**
 * rtt_set_interrupt - what ends rtt_call()'s waits early
 * @fn: the interruptions so far (signals, interrupted requests), looked
 *	at between the slices of every wait for a process (a signal
 *	handler installed without SA_RESTART ends the slice it comes in);
 *	a call gives up with -EINTR while it is past what it was at
 *	rtt_set_interrupt() or the last rtt_interrupt_handled(). NULL:
 *	never.
 *
 * Context: before the waits it is for; @fn is called in any thread that
 * waits.
 */
void rtt_set_interrupt(unsigned long (*fn)(void));

/* @fn for SIGINT, SIGTERM and SIGHUP, without SA_RESTART (a wait they
 * come in returns: rtt_set_interrupt()). */
void rtt_end_signals(void (*fn)(int));

/* The interruptions so far are handled: rtt_call() waits again (until
 * the next one), e.g. for the commands that undo a tool's settings. */
void rtt_interrupt_handled(void);

/**
 * rtt_inst_find - the slot of an instance
 * @p: the process
 * @name: the instance's name; NULL, "" or "-" for the top one
 *
 * Context: any thread.
 * Return: the slot index; -ENOENT; -EPROTO when it is not found and a
 * slot of the table is not one the library writes (a damaged control file:
 * the instance may be in it).
 */
int rtt_inst_find(const struct rtt_proc *p, const char *name);

/**
 * rtt_inst_path - the buffer file of an instance, read consistently
 * @p: the process
 * @inst: the slot
 * @snap: the snapshot buffer rather than the live one
 * @path: where the path goes (PATH_MAX bytes)
 * @gen: if not NULL, receives the slot's generation
 *
 * The path is the tool's: the publish directory and the name of the
 * process's buffer file (<pid>-<start>.<instance>.<n>.buf or .snap),
 * only its serial number <n> taken from the slot, whose path must have
 * that name (client_buf.c).
 *
 * Context: any thread.
 * Return: 0, -ENOENT for a free slot or no snapshot buffer, -EPROTO for
 * a slot whose path is not one of the process's buffer files.
 */
/**
 * rtt_consumer_check - whether another process consumes a buffer
 * @p: the process
 * @inst: the instance's slot
 * @err: the message
 *
 * A consumer (rtt_attach() with RTT_ATTACH_CONSUME, or the mount) holds
 * the buffer's mark (rtt_mark_take()), and a second one is refused; this
 * checks before any setting is made.
 *
 * Return: 0, or -EBUSY with @err naming the consumer.
 */
int rtt_consumer_check(const struct rtt_proc *p, int inst,
		       char err[RTT_ERR_MAX]);

/*
 * A consumer's mark (rtt_mark_take()) also locks the byte at this offset
 * plus its process id: the kernel reports an OFD lock with no process
 * id, and a consumer refused names the holder by it.
 */
#define RTT_CONSUMER_PID_OFF ((off_t)1 << 40)

/**
 * rtt_mark_take - become the one consumer of a buffer file
 * @p: the process whose buffer it is
 * @fd: an open file description of the buffer file of its own, opened
 *	for writing: the mark; closing it (or the caller's death) drops it
 * @err: the message
 *
 * The one consumer mark of the tool and the mount: OFD write locks on
 * the file's first byte and on RTT_CONSUMER_PID_OFF + the caller's
 * process id. A buffer another description (of any process, this one
 * included) has marked is refused. On failure @fd is left open, unmarked.
 *
 * Context: any thread; does not block.
 * Return: 0, -EBUSY with @err naming the consumer, or another negative
 * errno with @err saying it.
 */
int rtt_mark_take(const struct rtt_proc *p, int fd, char err[RTT_ERR_MAX]);

int rtt_inst_path(const struct rtt_proc *p, int inst, bool snap, char *path,
		  uint32_t *gen);

/**
 * rtt_inst_gen - the generation of an instance slot now
 * @p: the process
 * @inst: the slot
 *
 * Context: any thread; lock-free.
 */
uint32_t rtt_inst_gen(const struct rtt_proc *p, int inst);
/* The control file's generation: changes with its instances, buffers,
 * events and symbols (ctl.h). */
uint32_t rtt_ctl_gen(const struct rtt_proc *p);

/* Flags of rtt_attach() */
#define RTT_ATTACH_CONSUME (1u << 0) /* the caller must be able to consume */

/**
 * rtt_attach - attach to an instance's buffer
 * @p: the process
 * @inst: the slot
 * @snap: the snapshot buffer
 * @flags: RTT_ATTACH_*
 * @gen: if not NULL, receives the generation attached to
 * @rbp: receives the attached view
 * @err: the reason of a failure
 *
 * The file is opened in the checked publish directory by the name
 * rtt_inst_path() makes (a regular file of the process's uid, else
 * -EPERM). A file owned by another user than the caller is attached
 * read-only (RINGBUF_ATTACH_FOREIGN) unless RTT_ATTACH_CONSUME asks for
 * a consuming reader, which such a view cannot be (-EACCES). A consuming reader is the
 * buffer's only one: it takes the buffer's mark (rtt_mark_take()), held
 * until the caller exits, and a second consumer (this process's or
 * another's) gets -EBUSY naming the first.
 *
 * Context: any thread; may block.
 * Return: 0, -ENOENT, -EACCES, -EPERM, -EPROTO (a corrupt buffer file),
 * -EBUSY (another consumer), -ENOMEM.
 */
int rtt_attach(const struct rtt_proc *p, int inst, bool snap,
	       unsigned int flags, uint32_t *gen, struct ringbuf **rbp,
	       char err[RTT_ERR_MAX]);

/**
 * rtt_view_error - whether a process's buffer or control file went bad
 *	under the reader
 * @p: the process
 * @rb: a view of one of its buffers (rtt_attach()), or NULL
 * @err: the message, when there is one
 *
 * The process can truncate its files or write anything into them while
 * they are read; libringbuf then stops reading the view
 * (ringbuf_view_error()) or maps zeros over the control file
 * (ringbuf_mapping_error()). @err then says which, in one line.
 *
 * Context: any thread.
 * Return: 0, or -EPROTO (the tool's exit 5).
 */
int rtt_view_error(const struct rtt_proc *p, struct ringbuf *rb,
		   char err[RTT_ERR_MAX]);

/**
 * rtt_read_file - read a whole file
 * @path: the file
 * @max: refuse files larger than this
 * @out: receives the contents (malloc()ed, NUL-terminated)
 * @len: receives the length
 *
 * Context: any thread.
 * Return: 0, or a negative errno (-EFBIG over @max).
 */
int rtt_read_file(const char *path, size_t max, char **out, size_t *len);

/**
 * rtt_events_text - read a process's events file
 * @p: the process
 * @out: receives the text (malloc()ed)
 * @len: receives its length
 * @err: the reason of a failure
 *
 * The file is <pid>-<start>.events in the checked publish directory; the
 * control file's events path must name it (or be empty).
 *
 * Context: any thread.
 * Return: 0 or a negative errno (-EPROTO for a control file that names
 * another file, or an events file over 64 MiB; -EPERM for a file that
 * is not a regular file of the process's uid).
 */
int rtt_events_text(const struct rtt_proc *p, char **out, size_t *len,
		    char err[RTT_ERR_MAX]);

/**
 * rtt_syms_text - the process's symbols file, asking a live process to
 *	write it first
 * @p: the process
 * @out: receives the text (malloc()ed), or NULL when there is none
 * @len: receives its length
 * @err: the reason of a failure
 *
 * The file is <pid>-<start>.syms in the checked publish directory; the
 * process's reply and the control file's symbols path must name it.
 *
 * Context: any thread; blocks on the command.
 * Return: 0 (with *@out NULL when the process has no symbols file), or a
 * negative errno (-EPROTO for a reply or a control file that names
 * another file).
 */
int rtt_syms_text(struct rtt_proc *p, char **out, size_t *len,
		  char err[RTT_ERR_MAX]);

/**
 * rtt_syms_published - the process's symbols file as it last wrote it,
 *	without asking (rtt_syms_text()'s second half)
 * @p: the process
 * @out: receives the text (malloc()ed), or NULL when there is none
 * @len: receives its length
 * @err: the reason of a failure
 *
 * For a process that is busy (a command it would answer slowly) or may
 * have moved on (an exec() in progress): a process with a function
 * tracer on wrote the file when the tracer started.
 *
 * Context: any thread.
 * Return: as rtt_syms_text().
 */
int rtt_syms_published(struct rtt_proc *p, char **out, size_t *len,
		       char err[RTT_ERR_MAX]);

/**
 * rtt_cmdlines_text - the process's saved_cmdlines as "pid comm" lines,
 *	the process's own first (readers take it for the process)
 * @p: the process
 * @out: receives the text (malloc()ed)
 * @len: receives its length
 *
 * Context: any thread.
 * Return: 0 or -ENOMEM.
 */
int rtt_cmdlines_text(const struct rtt_proc *p, char **out, size_t *len);

/**
 * struct rtt_entry - one published process, as rtt_list() finds it
 * @pid: the pid in the file name
 * @start: the start time in the file name
 * @base: DIR/<pid>-<start>
 */
struct rtt_entry {
	int pid;
	uint64_t start;
	char base[PATH_MAX];
};

/**
 * rtt_list - the control files of the publish directory
 * @out: receives an array (malloc()ed), sorted by pid then start
 * @nr: receives its length
 * @err: the reason of a failure
 *
 * A missing directory is an empty list.
 *
 * Context: any thread.
 * Return: 0, -EACCES, -ENOMEM, or another negative errno.
 */
int rtt_list(struct rtt_entry **out, size_t *nr, char err[RTT_ERR_MAX]);

/*
 * rtt_list_all - rtt_list(), and with @others_too, for root, the default
 * publish directories of every user (/dev/shm/ringtrace-UID,
 * /run/user/UID/ringtrace) and those running processes name in
 * RINGTRACE_DIR (each process's environment is read: for 'list', not
 * for a loop).
 */
int rtt_list_all(struct rtt_entry **out, size_t *nr, bool others_too,
		 char err[RTT_ERR_MAX]);

/**
 * rtt_remove_files - remove every file a process published
 * @p: the process
 * @err: the first failure
 *
 * Context: any thread.
 * Return: 0 or the first negative errno.
 */
int rtt_remove_files(const struct rtt_proc *p, char err[RTT_ERR_MAX]);

#endif /* RINGTRACE_TOOL_CLIENT_H */
