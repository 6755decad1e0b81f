/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ctl.h - what a traced process publishes for the ringtrace tool: the
 *	layout of its control file and the command protocol
 *
 * Every process that uses libringtrace (unless RINGTRACE_PUBLISH=0)
 * publishes, in its publish directory (rt_publish_dir()):
 *
 *	<pid>-<start>.ctl		this struct rt_ctl, mapped shared
 *	<pid>-<start>.<inst>.buf	the ring buffer of each instance
 *					(a libringbuf shared buffer; <inst>
 *					is "top" for the top instance)
 *	<pid>-<start>.<inst>.snap	its snapshot buffer, when allocated
 *	<pid>-<start>.events		every event's format (see below)
 *	<pid>-<start>.syms		function symbols, kallsyms style,
 *					written when a function tracer is
 *					switched on and on the "syms" command
 *
 * <start> is the process's start time (field 22 of /proc/<pid>/stat), so
 * a reused pid never meets the files of an older process. All files are
 * created 0600 with O_EXCL and O_NOFOLLOW in a 0700 directory. A clean
 * exit removes them (unless RINGTRACE_KEEP_FILES=1: a recorder that
 * started the program reads them after its exit, then removes them);
 * after a crash they stay, with everything committed to the buffers, for
 * "ringtrace extract".
 *
 * The events file: for each event, "system: <sys>\n" then the event's
 * format text exactly as the format file shows it, then a line "--\n".
 * It is rewritten (a new file renamed over the old) when events register
 * or unregister, and rt_ctl.gen changes.
 *
 * The command protocol (Devel::RingBuffer's cmdready/command/msgarea): a
 * tool takes cmd_owner (a compare-and-swap of 0 to its own pid and start
 * time; taken over from a holder that is gone), writes a command line to
 * cmd, and stores cmd_seq + 1 into cmd_seq (release), waking the
 * process's control thread (futex on cmd_seq). The control thread runs
 * it through the public API, fills status and reply, and stores the same
 * number into done_seq (release), waking the tool (futex on done_seq).
 * Writers never wait for any of this.
 *
 * A command line is "@<version> <verb> <instance> <arguments>", the
 * instance being "-" for the top one; proto.h is the table of verbs and
 * their arguments.
 */
#ifndef RINGTRACE_CTL_H
#define RINGTRACE_CTL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_CTL_MAGIC 0x4c544352u /* "RCTL" */
/* 2: the command area holds a filter expression of the filter's own
 * limit (RT_FILTER_MAX_LEN, 65536 bytes) with the words before it */
#define RT_CTL_VERSION 2
#define RT_CTL_MAX_INSTANCES 64
#define RT_CTL_PATH_MAX 256
#define RT_CTL_CMD_MAX (65536 + 1024)
#define RT_CTL_REPLY_MAX (256 * 1024)
#define RT_CTL_CMDLINES 4096

enum rt_ctl_state {
	RT_CTL_STARTING = 0,
	RT_CTL_RUNNING = 1,
	RT_CTL_EXITED = 2, /* a clean exit is under way: files go next */
	/* set up and waiting for the recorder's "go" (RINGTRACE_HOLD):
	 * nothing changes but what the recorder asks for */
	RT_CTL_HELD = 3,
};

/**
 * struct rt_ctl_cmdline - one saved_cmdlines slot, a seqcount
 * @seq: odd while its owner writes it
 * @pid: the thread id
 * @tgid: its process id
 * @comm: its name, in two words (read with relaxed atomic loads)
 */
struct rt_ctl_cmdline {
	_Atomic uint32_t seq;
	_Atomic int32_t pid;
	_Atomic int32_t tgid;
	_Atomic uint64_t comm[2];
};

/**
 * struct rt_ctl_inst - one published instance
 * @used: 1 while the slot holds an instance
 * @gen: changes each time the instance's buffer is replaced (a new
 *	clock, a new size): a reader attached to the old file re-attaches
 * @name: "" for the top instance, else the instance's name
 * @buf: full path of the ring buffer file
 * @snap: full path of the snapshot buffer file, or ""
 */
struct rt_ctl_inst {
	_Atomic uint32_t used;
	_Atomic uint32_t gen;
	char name[64];
	char buf[RT_CTL_PATH_MAX];
	char snap[RT_CTL_PATH_MAX];
};

/**
 * struct rt_ctl - the control file of a traced process
 * @magic: RT_CTL_MAGIC
 * @version: RT_CTL_VERSION
 * @size: sizeof(struct rt_ctl) as the process built it
 * @pid: the process id
 * @uid: its user id
 * @proto: the control protocol version it speaks (RT_CTL_PROTO_VERSION of
 *	proto.h; 0 in files of processes that predate the field)
 * @start: its start time (/proc/<pid>/stat field 22)
 * @comm: its name at publication
 * @exe: its executable (readlink of /proc/self/exe)
 * @state: enum rt_ctl_state
 * @gen: moved by two whenever instances, buffers, events or symbols
 *	change; odd while an instance slot (and @clock) is rewritten, so
 *	that the slots are read between two equal, even loads of it (a
 *	seqlock). A process of a library from before this rule never makes
 *	it odd: its readers then only compare two loads, as they did
 * @clock: the top instance's trace_clock name
 * @events: full path of the events file
 * @syms: full path of the symbols file ("" until written)
 * @inst: the instances, by instance id (0 = top)
 * @cmd_owner: serialises tools: 0, or the holder's pid << 32 | its start
 *	time's low 32 bits (protocol 3). No pthread mutex: glibc's robust
 *	list links a mutex a thread holds through pointers kept in the
 *	mutex, which the process could rewrite into a write anywhere in
 *	the tool's memory at unlock; its kind and lock words could make
 *	glibc abort or wait beyond any signal
 * @cmd_lock: protocol 2's robust mutex, where @cmd_owner is now (the
 *	name stays for programs built against this header)
 * @cmd_seq: the last command written (futex word)
 * @done_seq: the last command answered (futex word)
 * @status: the answer's result: 0 or a negative errno
 * @reply_len: bytes in @reply
 * @cmd: the command line
 * @reply: the answer's text (an error message when @status < 0)
 * @cmdlines: saved_cmdlines, written by the tracer's writers
 */
struct rt_ctl {
	uint32_t magic;
	uint32_t version;
	uint32_t size;
	int32_t pid;
	uint32_t uid;
	uint32_t proto;
	uint64_t start;
	char comm[16];
	char exe[RT_CTL_PATH_MAX];
	_Atomic uint32_t state;
	_Atomic uint32_t gen;
	char clock[32];
	char events[RT_CTL_PATH_MAX];
	char syms[RT_CTL_PATH_MAX];
	struct rt_ctl_inst inst[RT_CTL_MAX_INSTANCES];

	union {
		_Atomic uint64_t cmd_owner;
		pthread_mutex_t cmd_lock;
	};
	_Atomic uint32_t cmd_seq;
	_Atomic uint32_t done_seq;
	int32_t status;
	uint32_t reply_len;
	char cmd[RT_CTL_CMD_MAX];
	char reply[RT_CTL_REPLY_MAX];

	struct rt_ctl_cmdline cmdlines[RT_CTL_CMDLINES];
};

/*
 * The publish directory: $RINGTRACE_DIR if set; else $XDG_RUNTIME_DIR/
 * ringtrace when XDG_RUNTIME_DIR is an absolute path; else
 * /dev/shm/ringtrace-<uid>. Writes it to @buf (NUL-terminated) and
 * returns 0, or -ENAMETOOLONG.
 */
int rt_publish_dir(char *buf, size_t len);

/* The start time of process @pid (field 22 of /proc/<pid>/stat), or 0
 * if the process does not exist. */
uint64_t rt_proc_start_time(int pid);

/* Look @pid up in a saved_cmdlines table (the process's own, or a
 * mapped control file's): its name (16 bytes) and process id. False if
 * the slot holds another thread or is being written. */
bool rt_cmdline_lookup(struct rt_ctl_cmdline *tab, int pid, char *comm,
		       int *tgid);

#endif /* RINGTRACE_CTL_H */
