/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * proto.h - the control protocol (ctl.h) as one table: every command a
 *	tool may send a traced process, its typed arguments and the kind
 *	of reply it gets
 *
 * A command line on the wire is
 *
 *	@<version> <verb> <instance> <arguments>
 *
 * <version> is RT_CTL_PROTO_VERSION of the sender; the process publishes
 * its own in rt_ctl.proto. A tool refuses to send to a process of
 * another version, and the process refuses a line of another version (or
 * one without "@"), with -EPROTONOSUPPORT and a message naming both
 * versions: neither side ever guesses at a line it was not built for.
 *
 * <instance> is the instance's name, "-" for the top one; the commands
 * marked RT_CMD_NOINST take it and ignore it. The arguments follow the
 * table: blank-separated words, and a last RT_ARG_REST argument that is
 * the rest of the line (blanks included). The same parser
 * (rt_cmd_parse()) checks a line in the tool before it is sent and reads
 * it in the process, so a line the table does not describe is refused by
 * the tool that built it.
 *
 * RT_CTL_COMMANDS(C) is the table. Each entry is
 *
 *	C(ID, "verb", flags, reply, handler, RT_ARGS(...))
 *
 * The handler column names the function the process runs (publish.c);
 * the tools expand the table without it.
 */
#ifndef RINGTRACE_PROTO_H
#define RINGTRACE_PROTO_H

#include <stdbool.h>
#include <stddef.h>

/* 1 was the untyped protocol, which carried no version on the wire; 2
 * serialised tools with a robust pthread mutex in the control file and
 * had commands of their own for the files of the library's table; 3
 * takes an owner word there (ctl.h: a mutex in a file the process writes
 * is the process's to corrupt, in the tool that takes it) and serves
 * those files as files only (file_trunc is their O_TRUNC). */
#define RT_CTL_PROTO_VERSION 3
#define RT_CMD_MAX_ARGS 3

/**
 * enum rt_arg_type - what one argument of a command is
 * @RT_ARG_NONE: no argument (ends the list)
 * @RT_ARG_WORD: a word without blanks
 * @RT_ARG_MATCH: a word where "*" (or nothing) means any: read as NULL
 * @RT_ARG_INT: a decimal integer
 * @RT_ARG_UINT: a decimal integer that is not negative
 * @RT_ARG_HEX: an even number of hexadecimal digits (bytes)
 * @RT_ARG_REST: the rest of the line, leading blanks skipped; may be
 *	empty; only last
 * @RT_ARG_OPT: or-ed in: the argument may be left out
 */
enum rt_arg_type {
	RT_ARG_NONE = 0,
	RT_ARG_WORD,
	RT_ARG_MATCH,
	RT_ARG_INT,
	RT_ARG_UINT,
	RT_ARG_HEX,
	RT_ARG_REST,
	RT_ARG_OPT = 0x80,
};

/**
 * enum rt_reply_type - what a command answers on success (on failure the
 *	reply is always the error message)
 * @RT_REPLY_NONE: nothing
 * @RT_REPLY_TEXT: text, as the matching tracefs file shows it
 * @RT_REPLY_PATH: the path of a file the process wrote
 */
enum rt_reply_type {
	RT_REPLY_NONE = 0,
	RT_REPLY_TEXT,
	RT_REPLY_PATH,
};

/* Flags of a command. */
#define RT_CMD_NOINST 0x1 /* the instance word is not looked up */

struct rt_arg_desc {
	unsigned char type; /* enum rt_arg_type, maybe | RT_ARG_OPT */
	const char *name;   /* for messages: "missing the <name>" */
};

#define RT_A(type, name) { (type), (name) }
#define RT_ARGS(...) { __VA_ARGS__ }
#define RT_AOPT(type) (RT_ARG_##type | RT_ARG_OPT)
#define RT_AREQ(type) (RT_ARG_##type)

/* clang-format off */
#define RT_CTL_COMMANDS(C)						\
	C(PING, "ping", RT_CMD_NOINST, RT_REPLY_TEXT, rt_cmd_ping,	\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(MKINSTANCE, "mkinstance", RT_CMD_NOINST, RT_REPLY_NONE,	\
	  rt_cmd_mkinstance, RT_ARGS(RT_A(RT_AREQ(WORD), "instance name")))\
	C(RMINSTANCE, "rminstance", RT_CMD_NOINST, RT_REPLY_NONE,	\
	  rt_cmd_rminstance, RT_ARGS(RT_A(RT_AREQ(WORD), "instance name")))\
	C(SYMS, "syms", RT_CMD_NOINST, RT_REPLY_PATH, rt_cmd_syms,	\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(GO, "go", RT_CMD_NOINST, RT_REPLY_NONE, rt_cmd_go,		\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(FTRACE_LIST, "ftrace_list", RT_CMD_NOINST, RT_REPLY_NONE,	\
	  rt_cmd_ftrace_list, RT_ARGS(RT_A(RT_AREQ(WORD), "list"),	\
				      RT_A(RT_AREQ(REST), "functions")))	\
	C(FTRACE_LIST_ADD, "ftrace_list_add", RT_CMD_NOINST,		\
	  RT_REPLY_NONE, rt_cmd_ftrace_list_add,			\
	  RT_ARGS(RT_A(RT_AREQ(WORD), "list"),				\
		  RT_A(RT_AREQ(REST), "functions")))			\
	C(MARKER_AS, "marker_as", 0, RT_REPLY_NONE, rt_cmd_marker_as,	\
	  RT_ARGS(RT_A(RT_AREQ(UINT), "thread id"),			\
		  RT_A(RT_AREQ(REST), "text")))				\
	C(MARKER_RAW_AS, "marker_raw_as", 0, RT_REPLY_NONE,		\
	  rt_cmd_marker_raw_as, RT_ARGS(RT_A(RT_AREQ(UINT), "thread id"),\
					RT_A(RT_AREQ(HEX), "bytes")))	\
	C(SET_EVENT, "set_event", 0, RT_REPLY_NONE, rt_cmd_set_event,	\
	  RT_ARGS(RT_A(RT_AREQ(REST), "events")))			\
	C(ENABLE, "enable", 0, RT_REPLY_NONE, rt_cmd_enable,		\
	  RT_ARGS(RT_A(RT_AOPT(MATCH), "system"),			\
		  RT_A(RT_AOPT(MATCH), "event")))			\
	C(DISABLE, "disable", 0, RT_REPLY_NONE, rt_cmd_enable,		\
	  RT_ARGS(RT_A(RT_AOPT(MATCH), "system"),			\
		  RT_A(RT_AOPT(MATCH), "event")))			\
	C(FILTER, "filter", 0, RT_REPLY_NONE, rt_cmd_filter,		\
	  RT_ARGS(RT_A(RT_AREQ(MATCH), "system"),			\
		  RT_A(RT_AREQ(MATCH), "event"),				\
		  RT_A(RT_AREQ(REST), "filter")))			\
	C(SHOW_FILTER, "show_filter", 0, RT_REPLY_TEXT,		\
	  rt_cmd_show_filter, RT_ARGS(RT_A(RT_AOPT(MATCH), "system"),	\
				      RT_A(RT_AOPT(WORD), "event")))	\
	C(SHOW_SET_EVENT, "show_set_event", 0, RT_REPLY_TEXT,		\
	  rt_cmd_show_set_event, RT_ARGS(RT_A(0, NULL)))		\
	C(CLEAR, "clear", 0, RT_REPLY_NONE, rt_cmd_clear,		\
	  RT_ARGS(RT_A(RT_AOPT(UINT), "cpu buffer")))			\
	C(BUFFER_SIZE_KB, "buffer_size_kb", 0, RT_REPLY_NONE,		\
	  rt_cmd_buffer_size_kb, RT_ARGS(RT_A(RT_AREQ(UINT), "size"),	\
					 RT_A(RT_AOPT(UINT), "cpu buffer")))\
	C(FILE_LS, "file_ls", 0, RT_REPLY_TEXT, rt_cmd_file_ls,		\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(FILE_READ, "file_read", 0, RT_REPLY_TEXT, rt_cmd_file_read,	\
	  RT_ARGS(RT_A(RT_AREQ(WORD), "file")))				\
	C(FILE_WRITE, "file_write", 0, RT_REPLY_NONE, rt_cmd_file_write,\
	  RT_ARGS(RT_A(RT_AREQ(WORD), "file"),				\
		  RT_A(RT_AOPT(REST), "text")))				\
	C(FILE_TRUNC, "file_trunc", 0, RT_REPLY_NONE, rt_cmd_file_trunc,\
	  RT_ARGS(RT_A(RT_AREQ(WORD), "file")))				\
	C(SNAPSHOT, "snapshot", 0, RT_REPLY_NONE, rt_cmd_snapshot,	\
	  RT_ARGS(RT_A(RT_AOPT(INT), "value")))				\
	C(STAT, "stat", 0, RT_REPLY_TEXT, rt_cmd_stat,			\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(GET, "get", 0, RT_REPLY_TEXT, rt_cmd_get,			\
	  RT_ARGS(RT_A(RT_AREQ(WORD), "name")))				\
	C(MARKER, "marker", 0, RT_REPLY_NONE, rt_cmd_marker,		\
	  RT_ARGS(RT_A(RT_AREQ(REST), "text")))				\
	C(MARKER_RAW, "marker_raw", 0, RT_REPLY_NONE, rt_cmd_marker_raw,\
	  RT_ARGS(RT_A(RT_AREQ(HEX), "bytes")))				\
	C(TRIGGER, "trigger", 0, RT_REPLY_NONE, rt_cmd_trigger,		\
	  RT_ARGS(RT_A(RT_AREQ(MATCH), "system"),			\
		  RT_A(RT_AREQ(WORD), "event"),				\
		  RT_A(RT_AREQ(REST), "trigger")))			\
	C(SHOW_SOFT, "show_soft", 0, RT_REPLY_TEXT, rt_cmd_show_soft,	\
	  RT_ARGS(RT_A(0, NULL)))					\
	C(SHOW_TRIGGER, "show_trigger", 0, RT_REPLY_TEXT,		\
	  rt_cmd_show_filter, RT_ARGS(RT_A(RT_AREQ(MATCH), "system"),	\
				       RT_A(RT_AREQ(WORD), "event")))	\
	C(SYNTH, "synth", RT_CMD_NOINST, RT_REPLY_NONE, rt_cmd_synth,	\
	  RT_ARGS(RT_A(RT_AREQ(REST), "synthetic event")))		\
	C(SYNTH_CLEAR, "synth_clear", RT_CMD_NOINST, RT_REPLY_NONE,	\
	  rt_cmd_synth, RT_ARGS(RT_A(0, NULL)))				\
	C(SHOW_SYNTH, "show_synth", RT_CMD_NOINST, RT_REPLY_TEXT,	\
	  rt_cmd_synth, RT_ARGS(RT_A(0, NULL)))				\
	C(SHOW_HIST, "show_hist", 0, RT_REPLY_TEXT, rt_cmd_show_hist,	\
	  RT_ARGS(RT_A(RT_AREQ(MATCH), "system"),			\
		  RT_A(RT_AREQ(WORD), "event")))
/* clang-format on */

#define RT_CMD_ENUM(id, name, flags, reply, handler, args) RT_CMD_##id,
enum rt_cmd_id { RT_CTL_COMMANDS(RT_CMD_ENUM) RT_CMD_NR };
#undef RT_CMD_ENUM

/**
 * struct rt_cmd_desc - one command of the table
 * @name: its verb
 * @flags: RT_CMD_*
 * @reply: enum rt_reply_type
 * @args: its arguments, RT_ARG_NONE after the last
 */
struct rt_cmd_desc {
	const char *name;
	unsigned int flags;
	enum rt_reply_type reply;
	struct rt_arg_desc args[RT_CMD_MAX_ARGS];
};

extern const struct rt_cmd_desc rt_cmd_table[RT_CMD_NR];

union rt_arg {
	const char *s;		/* WORD, MATCH (NULL: any), HEX, REST */
	long long i;		/* INT */
	unsigned long long u;	/* UINT */
};

/**
 * struct rt_cmd_args - a parsed command line
 * @id: the command
 * @version: the version the line carried (0: none)
 * @inst: the instance word ("-" for the top instance)
 * @set: which arguments the line gave
 * @v: their values; the strings point into the parsed line
 */
struct rt_cmd_args {
	enum rt_cmd_id id;
	unsigned int version;
	const char *inst;
	bool set[RT_CMD_MAX_ARGS];
	union rt_arg v[RT_CMD_MAX_ARGS];
};

/*
 * rt_cmd_parse - read a command line (modified in place: words are cut
 * out of it) against the table. The line ends at its first newline.
 * Return: 0, -EPROTONOSUPPORT for a line of another protocol version,
 * or -EINVAL (an unknown verb, a missing or malformed argument); a
 * message in @err either way.
 */
int rt_cmd_parse(char *line, struct rt_cmd_args *out, char *err,
		 size_t errlen);

/* The command named @verb, or -1. */
int rt_cmd_lookup(const char *verb);

/*
 * A call of a command, typed, as rt_cmd_format() takes it: RT_CALL(ID,
 * instance, arguments) with the arguments RT_S(i, string) (WORD, MATCH
 * with NULL for any, HEX, REST), RT_I(i, long long) or RT_U(i, unsigned
 * long long), i their position in the table's row. A NULL instance is
 * the top one.
 */
#define RT_CALL(ID, INST, ...) RT_CALL_ID(RT_CMD_##ID, INST, __VA_ARGS__)
/* The same with the command's id as a value (enum rt_cmd_id). */
#define RT_CALL_ID(id_, INST, ...) \
	((const struct rt_cmd_args){ .id = (id_), .inst = (INST), \
				     __VA_ARGS__ })
#define RT_S(n, x) .set[n] = true, .v[n].s = (x)
#define RT_I(n, x) .set[n] = true, .v[n].i = (x)
#define RT_U(n, x) .set[n] = true, .v[n].u = (x)

/*
 * rt_cmd_format - the command line of a typed call (@c: its id, instance
 * and arguments), checked against the table: every argument the row
 * needs is set, of its type, none beyond the row's; the version first.
 * Return: 0, -EINVAL (a message in @err), or -E2BIG for a line longer
 * than @len.
 */
int rt_cmd_format(const struct rt_cmd_args *c, char *line, size_t len,
		  char *err, size_t errlen);

#endif /* RINGTRACE_PROTO_H */
