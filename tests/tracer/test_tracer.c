// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tracer: event formats, every field kind in the trace output, every
 * output option, set_event, filters (per event and per subsystem),
 * markers, trace vs trace_pipe, lost events, instances, snapshots,
 * tracing_on, buffer size, trace_clock, the usersoff latency tracer, and
 * enabling/filtering while threads trace.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "sample_events.h"
#define CREATE_TRACE_POINTS
#include "other_events.h"

#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "golden.h"
#include "test.h"

static char err[1024];

/* One thread, one cpu buffer, one name: the golden outputs stay put. */
static struct ringtrace_instance *setup(void)
{
	struct ringtrace_instance *tr;

	golden_setup_thread();
	tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ringtrace_clear(tr);
	return tr;
}

static int print_trace_cb(FILE *out, void *arg)
{
	return ringtrace_print_trace(arg, out);
}

static int print_snapshot_cb(FILE *out, void *arg)
{
	return ringtrace_print_snapshot(arg, out);
}

static int read_pipe_cb(FILE *out, void *arg)
{
	return ringtrace_read_pipe(arg, out, 0);
}

static char *trace_text(struct ringtrace_instance *tr)
{
	return golden_capture(print_trace_cb, tr);
}

static char *pipe_text(struct ringtrace_instance *tr)
{
	return golden_capture(read_pipe_cb, tr);
}

static int count_lines(const char *text, const char *needle)
{
	int n = 0;
	const char *p = text;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void emit_all_kinds(void)
{
	static const unsigned char bytes[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };

	trace_request(5, "/x");
	trace_request(-1, NULL);
	trace_ints(-1);
	trace_ints(0x7fffffffffffffffLL);
	trace_ints(-128);
	trace_arrays("short", 7, bytes, 5);
	trace_arrays("exactly16chars!!", -3, bytes, 0);
	trace_callback((void *)setup, (unsigned long)setup + 3);
	trace_callback(NULL, 0);
	trace_io_read(3, 4096);
	trace_io_write(4, -11);
}

/* ---- formats ------------------------------------------------------------ */

static void format_files(void)
{
	static const char *const ev[][2] = {
		{ "sample", "request" },  { "sample", "ints" },
		{ "sample", "arrays" },	  { "sample", "callback" },
		{ "sample", "io_read" },  { "sample", "io_write" },
		{ "net", "net_send" },	  { "ftrace", "function" },
		{ "ftrace", "print" },	  { "ftrace", "funcgraph_entry" },
		{ "ftrace", "funcgraph_exit" }, { "ftrace", "fgraph_retval_exit" },
		{ "ftrace", "raw_data" },
	};
	char *all = calloc(1, 1 << 16), buf[4096];
	size_t i;

	ASSERT_NOT_NULL(all);
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		ssize_t n = ringtrace_event_format(ev[i][0], ev[i][1], buf,
						   sizeof(buf));

		ASSERT_GT(n, 0);
		ASSERT_LT(n, (ssize_t)sizeof(buf));
		strcat(all, buf);
	}
	golden_check("formats.txt", all);
	ASSERT_EQ(ringtrace_event_format("sample", "nope", buf, sizeof(buf)),
		  -ENOENT);
	ASSERT_EQ(ringtrace_event_id("ftrace", "function"), 1);
	ASSERT_EQ(ringtrace_event_id("ftrace", "print"), 5);
	ASSERT_GE(ringtrace_event_id("sample", "request"), 32);
	free(all);
}

/* ---- output of every field kind ---------------------------------------- */

static void output_all_kinds(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;

	ASSERT_EQ(ringtrace_set_event(tr, "sample:*", err, sizeof(err)), 0);
	emit_all_kinds();
	ASSERT_EQ(ringtrace_marker_write(tr, "hello marker", 12), 0);
	ASSERT_EQ(ringtrace_printf("printf %d", 42), 0);
	ASSERT_EQ(ringtrace_marker_raw(tr, 0x1234, "\x01\x02\x03", 3), 0);
	t = trace_text(tr);
	golden_check("kinds.txt", t);
	free(t);
}

/* Each option against the same records */
static void options_golden(void)
{
	static const char *const opts[] = {
		"noprint-parent", "sym-offset",	 "sym-addr",
		"raw",		  "hex",	 "nocontext-info",
		"latency-format", "record-tgid", "noirq-info",
	};
	struct ringtrace_instance *tr = setup();
	size_t i;

	ASSERT_EQ(ringtrace_set_event(tr, "request,callback,io_read", err,
				      sizeof(err)), 0);
	trace_request(1, "/a");
	trace_callback((void *)setup, (unsigned long)setup + 5);
	trace_io_read(9, 10);
	ASSERT_EQ(ringtrace_marker_write(tr, "mark\n", 5), 0);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char name[64], *t;
		const char *o = opts[i];
		bool neg = !strncmp(o, "no", 2);

		ASSERT_EQ(ringtrace_set_option(tr, o), 0);
		ASSERT_EQ(ringtrace_option(tr, neg ? o + 2 : o), !neg);
		t = trace_text(tr);
		snprintf(name, sizeof(name), "opt-%s.txt", o);
		golden_check(name, t);
		free(t);
		/* back to the default */
		if (neg)
			ASSERT_EQ(ringtrace_set_option(tr, o + 2), 0);
		else {
			snprintf(name, sizeof(name), "no%s", o);
			ASSERT_EQ(ringtrace_set_option(tr, name), 0);
		}
	}
	ASSERT_EQ(ringtrace_set_option(tr, "no-such-option"), -EINVAL);
	ASSERT_EQ(ringtrace_option(tr, "no-such-option"), -EINVAL);
}

static void option_bin(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;
	int pid;

	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	trace_io_read(9, 10);
	ASSERT_EQ(ringtrace_set_option(tr, "bin"), 0);
	t = trace_text(tr);
	/* after the header: pid, cpu, ts in binary, then "type: N\n" */
	{
		char *body = strstr(t, "FUNCTION\n");

		ASSERT_NOT_NULL(body);
		body = strchr(body + 9, '\n');
		ASSERT_NOT_NULL(body);
		body += 1;
		memcpy(&pid, body, sizeof(pid));
		ASSERT_EQ(pid, (int)gettid());
		ASSERT_NOT_NULL(strstr(body + 16, "type: "));
	}
	free(t);
}

static void option_markers_off(void)
{
	struct ringtrace_instance *tr = setup();

	ASSERT_EQ(ringtrace_set_option(tr, "nomarkers"), 0);
	ASSERT_EQ(ringtrace_marker_write(tr, "x", 1), -EINVAL);
	ASSERT_EQ(ringtrace_marker_raw(tr, 1, "x", 1), -EINVAL);
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(tr)));
	ASSERT_EQ(ringtrace_set_option(tr, "markers"), 0);
	ASSERT_EQ(ringtrace_marker_write(tr, "x", 1), 0);
	ASSERT_FALSE(ringbuf_empty(ringtrace_buffer(tr)));
}

/* nooverwrite: a full buffer keeps its oldest records */
static void option_overwrite(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;
	int i;

	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 8), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_option(tr, "nooverwrite"), 0);
	for (i = 0; i < 5000; i++)
		trace_io_read(1, i);
	t = pipe_text(tr);
	ASSERT_NOT_NULL(strstr(t, "bytes=0\n"));
	ASSERT_NULL(strstr(t, "bytes=4999\n"));
	ASSERT_NULL(strstr(t, "LOST"));
	free(t);
	ASSERT_EQ(ringtrace_set_option(tr, "overwrite"), 0);
	for (i = 0; i < 5000; i++)
		trace_io_read(1, i);
	t = pipe_text(tr);
	ASSERT_NULL(strstr(t, "bytes=0\n"));
	ASSERT_NOT_NULL(strstr(t, "bytes=4999\n"));
	ASSERT_NOT_NULL(strstr(t, "CPU:0 [LOST "));
	free(t);
}

/* ---- trace vs trace_pipe ------------------------------------------------- */

static void trace_vs_pipe(void)
{
	struct ringtrace_instance *tr = setup();
	char *a, *b, *p;
	int i;

	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	for (i = 0; i < 10; i++)
		trace_request(i, "/p");
	a = trace_text(tr);
	b = trace_text(tr);
	ASSERT_EQ(strcmp(a, b), 0); /* trace does not consume */
	ASSERT_EQ(count_lines(a, "request: id="), 10);
	ASSERT_NOT_NULL(strstr(a, "entries-in-buffer/entries-written: 10/10"));
	p = pipe_text(tr); /* trace_pipe consumes, without a header */
	ASSERT_EQ(count_lines(p, "request: id="), 10);
	ASSERT_NULL(strstr(p, "# tracer"));
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(tr)));
	free(a);
	free(b);
	free(p);
	a = trace_text(tr);
	ASSERT_EQ(count_lines(a, "request: id="), 0);
	ASSERT_NOT_NULL(strstr(a, "entries-in-buffer/entries-written: 0/0"));
	free(a);
	/* the pipe times out when there is nothing */
	ASSERT_EQ(ringtrace_read_pipe(tr, stdout, 10), 0);
}

/* trace_pipe reports the events the writer overwrote */
static void pipe_lost_events(void)
{
	struct ringtrace_instance *tr = setup();
	char *p;
	int i;

	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 8), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	for (i = 0; i < 3000; i++)
		trace_io_read(1, i);
	p = pipe_text(tr);
	ASSERT_NOT_NULL(strstr(p, "CPU:0 [LOST "));
	ASSERT_NOT_NULL(strstr(p, "bytes=2999\n"));
	{
		unsigned long lost = 0;
		int shown = count_lines(p, "io_read: ");

		ASSERT_EQ(sscanf(strstr(p, "[LOST ") + 6, "%lu", &lost), 1);
		ASSERT_EQ(lost + (unsigned long)shown, 3000);
	}
	free(p);
}

/* A stream that writes events while `trace` is being printed, so that
 * the writer laps the reader's iterator. */
struct lap_cookie {
	int writes;
};

static ssize_t lap_write(void *c, const char *buf, size_t n)
{
	struct lap_cookie *lc = c;
	int i;

	(void)buf;
	if (lc->writes++ == 2)
		for (i = 0; i < 3000; i++)
			trace_io_read(2, 100000 + i);
	return (ssize_t)n;
}

static void trace_lost_events(void)
{
	struct ringtrace_instance *tr = setup();
	struct lap_cookie lc = { 0 };
	cookie_io_functions_t io = { .write = lap_write };
	char *t;
	FILE *f;
	int i;

	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 8), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	for (i = 0; i < 200; i++)
		trace_io_read(1, i);
	/* the header line counts: 200 in the buffer, 200 written */
	t = trace_text(tr);
	ASSERT_NOT_NULL(strstr(t, "entries-written: 200/200"));
	free(t);
	for (i = 0; i < 3000; i++)
		trace_io_read(1, i);
	t = trace_text(tr);
	{
		unsigned long in, wr;
		char *h = strstr(t, "entries-written: ");

		ASSERT_NOT_NULL(h);
		ASSERT_EQ(sscanf(h, "entries-written: %lu/%lu", &in, &wr), 2);
		ASSERT_EQ(wr, 3200);
		ASSERT_LT(in, 3200);
		ASSERT_EQ(count_lines(t, "io_read: "), (long long)in);
	}
	free(t);
	/* lapped while printing: still a well-formed listing */
	f = fopencookie(&lc, "w", io);
	ASSERT_NOT_NULL(f);
	setvbuf(f, NULL, _IONBF, 0);
	ASSERT_EQ(ringtrace_print_trace(tr, f), 0);
	fclose(f);
	ASSERT_GE(lc.writes, 3);
}

/* The same, reading the lines printed while lapped */
struct lap_capture {
	int writes;
	FILE *copy;
};

static ssize_t lap_copy_write(void *c, const char *buf, size_t n)
{
	struct lap_capture *lc = c;
	int i;

	fwrite(buf, 1, n, lc->copy);
	if (lc->writes++ == 2)
		for (i = 0; i < 3000; i++)
			trace_io_read(2, 100000 + i);
	return (ssize_t)n;
}

static void trace_lost_events_line(void)
{
	struct ringtrace_instance *tr = setup();
	struct lap_capture lc = { 0 };
	cookie_io_functions_t io = { .write = lap_copy_write };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 8), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	for (i = 0; i < 300; i++)
		trace_io_read(1, i);
	lc.copy = open_memstream(&buf, &len);
	ASSERT_NOT_NULL(lc.copy);
	f = fopencookie(&lc, "w", io);
	ASSERT_NOT_NULL(f);
	setvbuf(f, NULL, _IONBF, 0);
	ASSERT_EQ(ringtrace_print_trace(tr, f), 0);
	fclose(f);
	fclose(lc.copy);
	ASSERT_NOT_NULL(strstr(buf, "CPU:0 [LOST EVENTS]\n"));
	free(buf);
}

/* ---- set_event ------------------------------------------------------------ */

static int enabled_count(struct ringtrace_instance *tr)
{
	char buf[4096];

	ringtrace_show_set_event(tr, buf, sizeof(buf));
	return count_lines(buf, "\n");
}

static void set_event_syntax(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[4096];

	ASSERT_EQ(enabled_count(tr), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "sample:request", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 1);
	ASSERT_TRUE(trace_request_enabled());
	ASSERT_FALSE(trace_ints_enabled());
	ASSERT_EQ(ringtrace_set_event(tr, "sample:*", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 6);
	ASSERT_EQ(ringtrace_set_event(tr, "!sample:io_*", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 4);
	ASSERT_EQ(ringtrace_set_event(tr, "!ints", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 3);
	ASSERT_FALSE(trace_ints_enabled());
	ASSERT_EQ(ringtrace_set_event(tr, "net", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 5);
	ringtrace_clear_events(tr);
	ASSERT_EQ(enabled_count(tr), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "*:*", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 8);
	ASSERT_EQ(ringtrace_set_event(tr, "!*:*", err, sizeof(err)), 0);
	ASSERT_EQ(enabled_count(tr), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "request io_read,net:net_close",
				      err, sizeof(err)), 0);
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "sample:request\n"));
	ASSERT_NOT_NULL(strstr(buf, "sample:io_read\n"));
	ASSERT_NOT_NULL(strstr(buf, "net:net_close\n"));
	ASSERT_EQ(enabled_count(tr), 3);
	/* unknown */
	ASSERT_EQ(ringtrace_set_event(tr, "nosuch:event", err, sizeof(err)),
		  -ENOENT);
	ASSERT_NOT_NULL(strstr(err, "nosuch:event"));
	ASSERT_EQ(ringtrace_set_event(tr, "bogus", err, sizeof(err)), -ENOENT);
	/* ftrace's own records cannot be enabled */
	ASSERT_EQ(ringtrace_set_event(tr, "ftrace:print", err, sizeof(err)),
		  -ENOENT);
	/* the enable files */
	ringtrace_clear_events(tr);
	ASSERT_EQ(ringtrace_event_enable(tr, "net", NULL, true), 0);
	ASSERT_EQ(enabled_count(tr), 2);
	ASSERT_EQ(ringtrace_event_enable(tr, "net", "net_send", false), 0);
	ASSERT_EQ(enabled_count(tr), 1);
	ASSERT_EQ(ringtrace_event_enable(tr, NULL, NULL, true), 0);
	ASSERT_EQ(enabled_count(tr), 8);
	ASSERT_EQ(ringtrace_event_enable(tr, "nope", NULL, true), -ENOENT);
	/* the available_events list */
	{
		char *list = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&list, &len);

		ringtrace_available_events(m);
		fclose(m);
		ASSERT_NOT_NULL(strstr(list, "sample:request\n"));
		ASSERT_NOT_NULL(strstr(list, "net:net_close\n"));
		ASSERT_NULL(strstr(list, "ftrace:"));
		free(list);
	}
}

/* RINGTRACE_EVENTS (the kernel's trace_event=) applies at start-up: the
 * case runs itself again with the variable set. */
static void boot_events(void)
{
	const char *self = "/proc/self/exe";

	if (getenv("RT_BOOT_CHILD")) {
		struct ringtrace_instance *tr = ringtrace_top();
		char buf[1024];

		ASSERT_TRUE(trace_request_enabled());
		ASSERT_TRUE(trace_net_send_enabled());
		ASSERT_FALSE(trace_net_close_enabled());
		ASSERT_FALSE(trace_ints_enabled());
		ASSERT_EQ(ringtrace_option(tr, "sym-offset"), 1);
		ASSERT_EQ(ringtrace_option(tr, "print-parent"), 0);
		ASSERT_EQ(strcmp(ringtrace_current_tracer(tr), "function"), 0);
		ASSERT_EQ(ringtrace_buffer_size_kb(tr), 64);
		ASSERT_EQ(ringbuf_subbuf_size(ringtrace_buffer(tr)), 16384);
		ringtrace_show_clock(tr, buf, sizeof(buf));
		ASSERT_NOT_NULL(strstr(buf, "[mono_raw]"));
		exit(0);
	}
	setenv("RT_BOOT_CHILD", "1", 1);
	setenv("RINGTRACE_EVENTS", "sample:request,net:*,!net_close", 1);
	setenv("RINGTRACE_OPTIONS", "sym-offset,noprint-parent", 1);
	setenv("RINGTRACE_TRACER", "function", 1);
	setenv("RINGTRACE_BUF_SIZE_KB", "64", 1);
	setenv("RINGTRACE_SUBBUF_SIZE_KB", "16", 1);
	setenv("RINGTRACE_CLOCK", "mono_raw", 1);
	{
		pid_t pid = fork();
		int st;

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			execl(self, self, "boot_events", (char *)NULL);
			_exit(99);
		}
		ASSERT_EQ(waitpid(pid, &st, 0), pid);
		ASSERT_TRUE(WIFEXITED(st));
		ASSERT_EQ(WEXITSTATUS(st), 0);
	}
}

/* ---- filters ----------------------------------------------------------- */

static void filter_event(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[512], *p;

	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request",
				       "id >= 10 && path ~ \"/a*\"", err,
				       sizeof(err)), 0);
	ringtrace_show_filter(tr, "sample", "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "id >= 10 && path ~ \"/a*\"\n"), 0);
	trace_request(9, "/a");
	trace_request(10, "/ab");
	trace_request(11, "/b");
	trace_request(12, "/a");
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 2);
	ASSERT_NOT_NULL(strstr(p, "id=10 path=/ab"));
	ASSERT_NOT_NULL(strstr(p, "id=12 path=/a\n"));
	free(p);
	/* records too big for the per-thread filter buffer are assigned
	 * in the ring buffer and discarded there */
	{
		char big[700];

		memset(big, 'a', sizeof(big) - 1);
		big[0] = '/';
		big[sizeof(big) - 1] = '\0';
		trace_request(5, big);	/* id fails */
		trace_request(20, big); /* passes */
		big[1] = 'b';
		trace_request(21, big); /* path fails */
		p = pipe_text(tr);
		ASSERT_EQ(count_lines(p, "request: "), 1);
		ASSERT_NOT_NULL(strstr(p, "request: id=20 path=/aaa"));
		free(p);
	}
	/* a bad filter leaves the old one and reports the caret */
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request",
				       "id >= 10 && pth == \"x\"", err,
				       sizeof(err)), -EINVAL);
	/* (the kernel's place: one past the unknown field's name) */
	ASSERT_EQ(strcmp(err, "id >= 10 && pth == \"x\"\n"
			      "                ^\n"
			      "parse_error: Field not found\n"), 0);
	ringtrace_show_filter(tr, "sample", "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "id >= 10 && path ~ \"/a*\"\n"), 0);
	/* "0" clears */
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "0", err,
				       sizeof(err)), 0);
	ringtrace_show_filter(tr, "sample", "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "none\n"), 0);
	trace_request(1, "/z");
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	free(p);
	/* common fields filter too */
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request",
				       "common_pid != 0", err, sizeof(err)), 0);
	trace_request(2, "/c");
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	free(p);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "nosuch", "id == 1", err,
				       sizeof(err)), -ENOENT);
}

/* A subsystem filter goes to every event that has the fields; the
 * others keep the filter they had. */
static void filter_subsystem(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[256], *p;

	ASSERT_EQ(ringtrace_set_event(tr, "net:*", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "net", "net_close", "fd == 7", err,
				       sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "net", NULL, "len > 100", err,
				       sizeof(err)), 0);
	ringtrace_show_filter(tr, "net", "net_send", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "len > 100\n"), 0);
	ringtrace_show_filter(tr, "net", "net_close", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "fd == 7\n"), 0);
	trace_net_send(1, 50);
	trace_net_send(1, 500);
	trace_net_close(6);
	trace_net_close(7);
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "net_send: "), 1);
	ASSERT_NOT_NULL(strstr(p, "len=500"));
	ASSERT_EQ(count_lines(p, "net_close: "), 1);
	ASSERT_NOT_NULL(strstr(p, "net_close: fd=7"));
	free(p);
	/* a field no event of the system has: an error, nothing changes */
	ASSERT_EQ(ringtrace_set_filter(tr, "net", NULL, "nosuch == 1", err,
				       sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "Field not found"));
	ringtrace_show_filter(tr, "net", "net_send", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "len > 100\n"), 0);
	/* a syntax error anywhere: nothing changes */
	ASSERT_EQ(ringtrace_set_filter(tr, "net", NULL, "fd == ", err,
				       sizeof(err)), -EINVAL);
	ringtrace_show_filter(tr, "net", "net_close", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "fd == 7\n"), 0);
}

/* ---- markers ------------------------------------------------------------ */

static void markers(void)
{
	struct ringtrace_instance *tr = setup();
	char big[8192], *p;

	ASSERT_EQ(ringtrace_marker_write(tr, "one", 3), 0);
	ASSERT_EQ(ringtrace_marker_write(tr, "two\n", 4), 0);
	ASSERT_EQ(ringtrace_printf("three %s", "3"), 0);
	ASSERT_EQ(ringtrace_marker_raw(tr, 7, "\xff\x00", 2), 0);
	memset(big, 'b', sizeof(big));
	ASSERT_EQ(ringtrace_marker_write(tr, big, sizeof(big)), 0);
	p = pipe_text(tr);
	ASSERT_NOT_NULL(strstr(p, ": tracing_mark_write: one\n"));
	ASSERT_NOT_NULL(strstr(p, ": tracing_mark_write: two\n"));
	ASSERT_NULL(strstr(p, "two\n\n"));
	ASSERT_NOT_NULL(strstr(p, ": markers: three 3\n"));
	ASSERT_NOT_NULL(strstr(p, ": # 7 buf: ff 00 00 00\n"));
	ASSERT_NOT_NULL(strstr(p, "bbbbbbbb\n")); /* cut, but there */
	free(p);
	ASSERT_EQ(ringtrace_marker_write(tr, NULL, 0), -EINVAL);
}

/*
 * The two write paths of an event: a record of fixed size (ints) is
 * assigned on the stack and written by one call, one with a dynamic part
 * (request) is assigned in place, instance by instance. Each goes through
 * several instances, with and without a filter (on a field and on a
 * common field, which the header must hold before the filter runs),
 * soft-disabled, and behind a pid list.
 */
static int pipe_records(struct ringtrace_instance *tr)
{
	char *t = pipe_text(tr);
	int n = count_lines(t, "ints: ") + count_lines(t, "request: ");

	free(t);
	return n;
}

static void write_paths(void)
{
	struct ringtrace_instance *tr = setup(), *a, *b;
	char pid[32], *t;

	a = ringtrace_instance_create("paths-a");
	b = ringtrace_instance_create("paths-b");
	ASSERT_NOT_NULL(a);
	ASSERT_NOT_NULL(b);
	ASSERT_EQ(ringtrace_set_event(tr, "ints,request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(a, "ints,request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(a, "sample", "ints",
				       "s32 > 5 && common_pid != 0", err,
				       sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(a, "sample", "request",
				       "id > 5 && common_pid != 0", err,
				       sizeof(err)), 0);
	trace_ints(3);
	trace_ints(7);
	trace_request(3, "/3");
	trace_request(7, "/7");
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "ints: "), 2);
	ASSERT_NOT_NULL(strstr(t, "ints: s8=3 u8=3 s16=3 u16=3 s32=3 u32=3 s64=3 u64=3"));
	ASSERT_NOT_NULL(strstr(t, "ints: s8=7 u8=7 s16=7 u16=7 s32=7 u32=7 s64=7 u64=7"));
	ASSERT_EQ(count_lines(t, "request: "), 2);
	free(t);
	t = pipe_text(a);
	ASSERT_EQ(count_lines(t, "ints: "), 1);
	ASSERT_NOT_NULL(strstr(t, "ints: s8=7 u8=7 s16=7 u16=7 s32=7 u32=7 s64=7 u64=7"));
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_NOT_NULL(strstr(t, "request: id=7 path=/7"));
	free(t);

	/* soft-disabled in b until a request turns it on */
	ASSERT_EQ(ringtrace_set_event(b, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(b, "sample", "request",
					"enable_event:sample:ints", err,
					sizeof(err)), 0);
	trace_ints(1);
	trace_request(1, "/1");
	trace_ints(2);
	t = pipe_text(b);
	ASSERT_EQ(count_lines(t, "ints: "), 1);
	ASSERT_NOT_NULL(strstr(t, "ints: s8=2 "));
	ASSERT_EQ(count_lines(t, "request: "), 1);
	free(t);
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "ints: "), 2);
	free(t);
	ASSERT_EQ(pipe_records(a), 0);

	/* a pid list: this thread's records kept, then left out */
	ASSERT_EQ(ringtrace_set_filter(a, "sample", "ints", "0", err,
				       sizeof(err)), 0);
	snprintf(pid, sizeof(pid), "%d", (int)syscall(SYS_gettid));
	ASSERT_EQ(ringtrace_set_pids(a, RINGTRACE_PID_EVENT, pid, false, err,
				     sizeof(err)), 0);
	trace_ints(4);
	t = pipe_text(a);
	ASSERT_EQ(count_lines(t, "ints: "), 1);
	free(t);
	ASSERT_EQ(ringtrace_set_pids(a, RINGTRACE_PID_EVENT, "1", false, err,
				     sizeof(err)), 0);
	trace_ints(5);
	trace_request(9, "/9");
	ASSERT_EQ(pipe_records(a), 0);
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "ints: "), 2);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	free(t);
	ASSERT_EQ(ringtrace_instance_destroy(a), 0);
	ASSERT_EQ(ringtrace_instance_destroy(b), 0);
}

/* ---- instances, snapshot, switches ------------------------------------ */

static void instances(void)
{
	struct ringtrace_instance *tr = setup(), *a, *b;
	char *t;

	a = ringtrace_instance_create("foo");
	ASSERT_NOT_NULL(a);
	ASSERT_NULL_ERRNO(ringtrace_instance_create("foo"), EEXIST);
	ASSERT_NULL_ERRNO(ringtrace_instance_create("a/b"), EINVAL);
	ASSERT_NULL_ERRNO(ringtrace_instance_create(""), EINVAL);
	b = ringtrace_instance_create("bar");
	ASSERT_NOT_NULL(b);
	ASSERT_TRUE(ringtrace_instance_lookup("foo") == a);
	ASSERT_TRUE(ringtrace_instance_lookup("") == tr);
	ASSERT_NULL_ERRNO(ringtrace_instance_lookup("nope"), ENOENT);
	ASSERT_EQ(strcmp(ringtrace_instance_name(a), "foo"), 0);
	/* each instance has its own events and options */
	ASSERT_EQ(ringtrace_set_event(a, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(b, "io_read", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "request,io_read", err, sizeof(err)),
		  0);
	ASSERT_EQ(ringtrace_set_option(b, "noirq-info"), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "id == 2",
				       err, sizeof(err)), 0);
	trace_request(1, "/1");
	trace_request(2, "/2");
	trace_io_read(3, 3);
	ASSERT_EQ(ringtrace_marker_write(b, "to-b", 4), 0);
	t = pipe_text(a);
	ASSERT_EQ(count_lines(t, "request: "), 2);
	ASSERT_EQ(count_lines(t, "io_read: "), 0);
	free(t);
	t = trace_text(b);
	ASSERT_EQ(count_lines(t, "io_read: "), 1);
	ASSERT_EQ(count_lines(t, "tracing_mark_write: to-b"), 1);
	ASSERT_NULL(strstr(t, "irqs-off"));
	free(t);
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_EQ(count_lines(t, "io_read: "), 1);
	ASSERT_EQ(count_lines(t, "to-b"), 0);
	free(t);
	ASSERT_EQ(ringtrace_instance_destroy(a), 0);
	ASSERT_EQ(ringtrace_instance_destroy(tr), -EINVAL);
	ASSERT_NULL_ERRNO(ringtrace_instance_lookup("foo"), ENOENT);
	trace_request(2, "/2"); /* no instance "foo" any more */
	a = ringtrace_instance_create("foo");
	ASSERT_NOT_NULL(a);
	ASSERT_FALSE(ringtrace_tracing_is_on(a) == false);
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(a)));
	ASSERT_EQ(ringtrace_instance_destroy(a), 0);
	ASSERT_EQ(ringtrace_instance_destroy(b), 0);
}

static void snapshot(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;

	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_NOT_NULL(strstr(t, "SNAPSHOT NOT ALLOCATED"));
	free(t);
	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	trace_request(1, "/before");
	ASSERT_EQ(ringtrace_snapshot(tr, 1), 0);
	trace_request(2, "/after");
	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_NOT_NULL(strstr(t, "path=/before"));
	free(t);
	t = trace_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_NOT_NULL(strstr(t, "path=/after"));
	free(t);
	ASSERT_EQ(ringtrace_snapshot(tr, 2), 0); /* clear */
	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_EQ(count_lines(t, "request: "), 0);
	free(t);
	ASSERT_EQ(ringtrace_snapshot(tr, 1), 0);
	ASSERT_EQ(ringtrace_snapshot(tr, 0), 0); /* free */
	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_NOT_NULL(strstr(t, "SNAPSHOT NOT ALLOCATED"));
	free(t);
	ASSERT_EQ(ringtrace_snapshot(tr, 3), -EINVAL);
}

static void switches(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[256], *t;

	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ringtrace_tracing_on(tr, false);
	ASSERT_FALSE(ringtrace_tracing_is_on(tr));
	trace_request(1, "/off");
	ASSERT_EQ(ringtrace_marker_write(tr, "off", 3), -ENOSPC);
	ringtrace_tracing_on(tr, true);
	trace_request(2, "/on");
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_NOT_NULL(strstr(t, "/on"));
	free(t);
	/* buffer size */
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 256), 0);
	ASSERT_EQ(ringtrace_buffer_size_kb(tr), 256);
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 0), -EINVAL);
	/* buffer_percent: a raw reader wakes at the watermark only */
	ASSERT_EQ(ringtrace_buffer_percent(tr), 50);
	ASSERT_EQ(ringtrace_set_buffer_percent(tr, 101), -EINVAL);
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 16), 0);
	trace_request(1, "/one");
	ASSERT_EQ(ringtrace_buffer_wait(tr, RINGBUF_ALL_CPUS, 20), 0);
	ASSERT_EQ(ringtrace_set_buffer_percent(tr, 0), 0);
	ASSERT_EQ(ringtrace_buffer_percent(tr), 0);
	ASSERT_EQ(ringtrace_buffer_wait(tr, RINGBUF_ALL_CPUS, 20), 1);
	ringtrace_clear(tr);
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 256), 0);
	/* trace_clock */
	ringtrace_show_clock(tr, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "[mono] mono_raw boot x86-tsc\n"), 0);
	trace_request(3, "/mono");
	ASSERT_EQ(ringtrace_set_clock(tr, "boot"), 0);
	ringtrace_show_clock(tr, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "mono mono_raw [boot] x86-tsc\n"), 0);
	ASSERT_TRUE(ringbuf_empty(ringtrace_buffer(tr))); /* cleared */
	trace_request(4, "/boot");
	ASSERT_EQ(ringtrace_set_clock(tr, "x86-tsc"), 0);
	trace_request(5, "/tsc");
	t = pipe_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	/* counter clocks print raw counts: "[000] ..... 123456789012: " */
	{
		char *c = strstr(t, "] ..... ");
		unsigned long long v;
		char colon;

		ASSERT_NOT_NULL(c);
		ASSERT_EQ(sscanf(c + 8, "%llu%c", &v, &colon), 2);
		ASSERT_EQ(colon, ':');
	}
	free(t);
	ASSERT_EQ(ringtrace_set_clock(tr, "local"), 0);
	ASSERT_EQ(ringtrace_set_clock(tr, "sundial"), -EINVAL);
	/* tracers */
	ASSERT_EQ(ringtrace_set_tracer(tr, "function_graph"), 0);
	ASSERT_EQ(strcmp(ringtrace_current_tracer(tr), "function_graph"), 0);
	ASSERT_EQ(ringtrace_set_tracer(tr, "blk"), -EINVAL);
	ASSERT_EQ(ringtrace_set_tracer(tr, "nop"), 0);
	ringtrace_show_options(tr, buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "print-parent\nnosym-offset\n"));
}

/* ---- signal handlers ---------------------------------------------------- */

static void on_usr1(int sig)
{
	(void)sig;
	ringtrace_irq_enter();
	trace_io_write(99, sig);
	ringtrace_irq_exit();
}

static void irq_flags(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;

	ASSERT_EQ(ringtrace_set_event(tr, "io_write", err, sizeof(err)), 0);
	signal(SIGUSR1, on_usr1);
	trace_io_write(1, 1);
	raise(SIGUSR1);
	t = pipe_text(tr);
	ASSERT_NOT_NULL(strstr(t, "[000] ..... "));
	ASSERT_NOT_NULL(strstr(t, "[000] ..h.. "));
	free(t);
}

/* ---- the usersoff latency tracer --------------------------------------- */

/* Not a sibling call: the end of the section must return into critical(). */
static void __attribute__((noinline, optimize("no-optimize-sibling-calls")))
critical(unsigned int us)
{
	ringtrace_critical_start();
	trace_io_read(0, us);
	usleep(us);
	ringtrace_critical_end();
}

/* critical(@us), and the time it took seen from outside, in us */
static int64_t critical_timed(unsigned int us)
{
	uint64_t t0 = rbt_now_ns();

	critical(us);
	return (int64_t)((rbt_now_ns() - t0) / 1000);
}

static void usersoff(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned int round;
	int64_t long_us;
	char *t;

	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	/*
	 * The 20 ms section lasts at least 20 ms, so the maximum is at least
	 * that. It is the kept one unless a loaded machine stretched a short
	 * section past it: such a round proves nothing and is run again, from
	 * a new start (no snapshot, no records, no maximum).
	 */
	for (round = 0;; round++) {
		ASSERT_LT_U(round, 50);
		ASSERT_EQ(ringtrace_set_tracer(tr, "nop"), 0);
		ASSERT_EQ(ringtrace_snapshot(tr, 0), 0);
		ringtrace_clear(tr);
		ASSERT_EQ(ringtrace_set_tracer(tr, "usersoff"), 0);
		ASSERT_EQ(ringtrace_option(tr, "latency-format"), 1);
		ringtrace_set_max_latency(tr, 0);
		critical(1000);
		long_us = critical_timed(20000);
		critical(2000);
		ASSERT_GE(ringtrace_max_latency(tr), 20000);
		t = trace_text(tr);
		if (strstr(t, "io_read: fd=0 bytes=20000"))
			break;
		rbt_note("round %u: a short section ran %llu us", round,
			 (unsigned long long)ringtrace_max_latency(tr));
		free(t);
	}
	/* a section lasts at most what was seen from outside it */
	ASSERT_LE(ringtrace_max_latency(tr), (uint64_t)long_us);
	ASSERT_NOT_NULL(strstr(t, "# tracer: usersoff\n"));
	ASSERT_NOT_NULL(strstr(t, "# usersoff latency trace v1.1.5 on "));
	ASSERT_NOT_NULL(strstr(t, "#  => started at: critical"));
	ASSERT_NOT_NULL(strstr(t, "#  => ended at:   critical"));
	ASSERT_NOT_NULL(strstr(t, "io_read: fd=0 bytes=20000"));
	ASSERT_NULL(strstr(t, "bytes=1000\n"));
	ASSERT_NULL(strstr(t, "bytes=2000\n"));
	golden_check("usersoff.txt", t);
	free(t);
	/* a threshold above every section: no new maximum */
	ringtrace_set_max_latency(tr, 0);
	ringtrace_set_thresh(tr, 1000000);
	critical(3000);
	ASSERT_EQ(ringtrace_max_latency(tr), 0);
	ASSERT_EQ(ringtrace_snapshot(tr, 0), -EBUSY);
	ASSERT_EQ(ringtrace_set_tracer(tr, "nop"), 0);
	ASSERT_EQ(ringtrace_option(tr, "latency-format"), 0);
}

/*
 * The header's #E/T counts the records the trace shows: after a second
 * new maximum the snapshot buffer also holds records from before the
 * section, which are skipped and left out of both counts (the kernel's
 * skipped_entries). True whichever sections became the maximum.
 */
static void usersoff_counts(void)
{
	struct ringtrace_instance *tr = setup();
	unsigned long e, tot;
	unsigned int lines = 0;
	const char *l;
	char *t;

	ASSERT_EQ(ringtrace_set_event(tr, "io_read", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_tracer(tr, "usersoff"), 0);
	ASSERT_EQ(ringtrace_option(tr, "latency-format"), 1);
	ringtrace_set_max_latency(tr, 0);
	critical(100);
	critical(3000);
	critical(9000);
	t = trace_text(tr);
	l = strstr(t, "# latency: ");
	ASSERT_NOT_NULL(l);
	l = strstr(l, " #");
	ASSERT_NOT_NULL(l);
	ASSERT_EQ(sscanf(l, " #%lu/%lu,", &e, &tot), 2);
	for (l = t; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (*l != '#' && *l != '\n')
			lines++;
	rbt_note("#%lu/%lu, %u records shown", e, tot, lines);
	ASSERT_EQ_U(e, lines);
	ASSERT_EQ_U(tot, e);
	free(t);
	ASSERT_EQ(ringtrace_set_tracer(tr, "nop"), 0);
	ASSERT_EQ(ringtrace_option(tr, "latency-format"), 0);
}

/* ---- changing events and filters while threads trace ------------------- */

static _Atomic int stop_flag;
static _Atomic long loops;

static void *tracer_thread(void *arg)
{
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop_flag)) {
		atomic_fetch_add(&loops, 1);
		trace_request(1, "a");
		trace_request(1, "b");
		trace_request(200, "a");
		trace_request(200, "b");
		trace_net_send(1, 1);
		n++;
	}
	return (void *)n;
}

static void check_no_torn(const char *t)
{
	const char *p = t;

	/* filter A passes only (1,a), filter B only (200,b). Line by line:
	 * strstr() on the rest of the text would measure the rest at every
	 * call under ThreadSanitizer's interceptor (quadratic in the text). */
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[256];
		const char *r;
		int id;
		char path[8];

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : p + n;
		r = strstr(line, "request: ");
		if (!r)
			continue;
		ASSERT_EQ(sscanf(r, "request: id=%d path=%7s", &id, path), 2);
		if (id == 1 && !strcmp(path, "b"))
			RBT_FAIL("(1,b) passed a filter: torn filter");
		if (id == 200 && !strcmp(path, "a"))
			RBT_FAIL("(200,a) passed a filter: torn filter");
	}
}

static void concurrent_control(void)
{
	struct ringtrace_instance *tr = ringtrace_top(), *inst;
	pthread_t th[4];
	int i, rounds = 300 / (int)rbt_timeout_mult();
	long total = 0;
	uint64_t end;
	char *t;

	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 64), 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, tracer_thread, NULL), 0);
	while (atomic_load(&loops) < 1000)
		rbt_msleep(1);
	end = rbt_now_ns() + 500000000ull;
	for (i = 0; i < rounds || rbt_now_ns() < end; i++) {
		const char *f = (i & 1) ? "id < 100 && path == \"a\"" :
					  "id >= 100 && path == \"b\"";

		ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", f, err,
					       sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_event(tr, (i % 3) ? "request" :
							   "!request",
					      err, sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_event(tr, (i % 5) ? "net" : "!net",
					      err, sizeof(err)), 0);
		if (i % 50 == 0) {
			inst = ringtrace_instance_create("churn");
			ASSERT_NOT_NULL(inst);
			ASSERT_EQ(ringtrace_set_event(inst, "*:*", err,
						      sizeof(err)), 0);
			ASSERT_EQ(ringtrace_instance_destroy(inst), 0);
		}
		if (i % 10 == 0) {
			t = pipe_text(tr);
			check_no_torn(t);
			free(t);
		}
	}
	ASSERT_GT(atomic_load(&loops), 1000);
	atomic_store(&stop_flag, 1);
	for (i = 0; i < 4; i++) {
		void *r;

		ASSERT_EQ(pthread_join(th[i], &r), 0);
		total += (long)r;
	}
	ASSERT_GT(total, 0);
	t = pipe_text(tr);
	check_no_torn(t);
	free(t);
}

/* ---- the kernel's own trace_marker line, where tracefs is mounted ----- */

static int kernel_read_line(const char *pipe_path, char *line, size_t len)
{
	int fd = open(pipe_path, O_RDONLY | O_NONBLOCK);
	size_t n = 0;
	int tries;

	if (fd < 0)
		return -errno;
	for (tries = 0; tries < 200 && n < len - 1; tries++) {
		ssize_t r = read(fd, line + n, len - 1 - n);

		if (r > 0) {
			n += (size_t)r;
			line[n] = '\0';
			if (strchr(line, '\n'))
				break;
		} else {
			usleep(10000);
		}
	}
	close(fd);
	line[n] = '\0';
	return strchr(line, '\n') ? 0 : -ETIMEDOUT;
}

/* Blank out what differs between two tracers by nature: comm, pid, cpu,
 * time stamp, and the flags (the kernel writes a marker with preemption
 * disabled, and marks need-resched). What is left is the layout. */
static void blank_context(char *line)
{
	char *p = strstr(line, "] ");
	char *colon;
	size_t i;

	if (!p)
		return;
	/* "%16s-%-7d ": the names differ in length, not the column */
	for (i = 0; line + i < p; i++)
		if (line[i] != '[')
			line[i] = 'x';
	/* the five flag columns: the kernel's need-resched, irq and
	 * preempt states are its own (a loaded machine sets 'N') */
	for (i = 2; i < 7 && p[i]; i++)
		if (p[i] != ' ')
			p[i] = '.';
	colon = strstr(p, ": ");
	for (p += 8; colon && p < colon; p++)
		if (*p != ' ' && *p != '.')
			*p = '9';
}

static const char *const kernel_roots[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };

/* The kernel's tracefs, mounted for the test (as root) if it was not;
 * skips the test where there is none. */
static const char *kernel_tracefs(int *mounted)
{
	const char *root = NULL;
	char path[320];
	size_t i;

	*mounted = 0;
	for (i = 0; i < 2 && !root; i++) {
		snprintf(path, sizeof(path), "%s/instances", kernel_roots[i]);
		if (access(path, W_OK) == 0)
			root = kernel_roots[i];
	}
	/* as root, mount tracefs for the comparison and unmount it after */
	if (!root && mount("nodev", kernel_roots[0], "tracefs", 0, NULL) == 0) {
		*mounted = 1;
		snprintf(path, sizeof(path), "%s/instances", kernel_roots[0]);
		if (access(path, W_OK) == 0)
			root = kernel_roots[0];
	}
	if (!root && *mounted)
		umount(kernel_roots[0]);
	if (!root)
		rbt_skip("tracefs is not mounted here (or its instances directory is not writable): no kernel to compare with");
	return root;
}

/* The built-in events have the running kernel's ids. */
static void kernel_ftrace_ids(void)
{
	static const char *const names[] = { "function", "print",
					     "funcgraph_exit",
					     "funcgraph_entry", "raw_data" };
	char path[320], ours[4096], line[256];
	int mounted;
	const char *root = kernel_tracefs(&mounted);
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		FILE *f;
		unsigned int theirs = 0;

		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", root,
			 names[i]);
		f = fopen(path, "r");
		ASSERT_NOT_NULL(f);
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "ID: %u", &theirs) == 1)
				break;
		fclose(f);
		ASSERT_GT(ringtrace_event_format("ftrace", names[i], ours,
						 sizeof(ours)), 0);
		/* kernels before 6.13 number raw_data 18; ours follow the
		 * newer ones */
		if (!strcmp(names[i], "raw_data") && theirs == 18) {
			rbt_note("this kernel predates 6.13: raw_data is 18 here");
			continue;
		}
		snprintf(line, sizeof(line), "\nID: %u\n", theirs);
		if (!strstr(ours, line))
			RBT_FAIL("ftrace:%s: the kernel's id is %u; ours:\n%s",
				 names[i], theirs, ours);
	}
	if (mounted)
		umount(root);
}

static void kernel_marker_line(void)
{
	struct ringtrace_instance *tr = setup();
	char inst[256], path[320], kline[512], *ours, *theirs, *nl;
	int fd, mounted;
	const char *root = kernel_tracefs(&mounted);

	snprintf(inst, sizeof(inst), "%s/instances/ringtrace-test-%d", root,
		 (int)getpid());
	ASSERT_EQ(mkdir(inst, 0755), 0);
	snprintf(path, sizeof(path), "%s/trace_marker", inst);
	fd = open(path, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "hello from ringtrace", 20), 20);
	close(fd);
	snprintf(path, sizeof(path), "%s/trace_pipe", inst);
	ASSERT_EQ(kernel_read_line(path, kline, sizeof(kline)), 0);
	rmdir(inst);
	if (mounted)
		umount(root);
	ASSERT_EQ(ringtrace_marker_write(tr, "hello from ringtrace", 20), 0);
	ours = pipe_text(tr);
	nl = strchr(ours, '\n');
	ASSERT_NOT_NULL(nl);
	nl[1] = '\0';
	rbt_note("kernel: %s", kline);
	rbt_note("ours:   %s", ours);
	/* the two clocks differ (the kernel's trace clock is not
	 * CLOCK_MONOTONIC, nor in our time namespace): the stamps keep
	 * their width rule, not their width */
	theirs = golden_normalise_stamps(strdup(kline));
	ours = golden_normalise_stamps(ours);
	blank_context(theirs);
	blank_context(ours);
	if (strcmp(theirs, ours) != 0)
		RBT_FAIL("layouts differ:\nkernel: %sours:   %s", theirs, ours);
	free(theirs);
	free(ours);
}

/*
 * Run this test program again as case @name with the environment
 * @env ("NAME=VALUE" strings, NULL-ended) plus RT_BOOT_CHILD and
 * RINGTRACE_PUBLISH=0; it must exit 0. Its stderr goes to @msg.
 */
static void run_boot_child(const char *name, const char *const env[],
			   char *msg, size_t len)
{
	const char *self = "/proc/self/exe";
	ssize_t n, got = 0;
	int st, fd[2];
	pid_t pid;

	ASSERT_EQ(pipe(fd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		setenv("RT_BOOT_CHILD", "1", 1);
		setenv("RINGTRACE_PUBLISH", "0", 1);
		for (; *env; env++)
			putenv((char *)*env);
		execl(self, self, name, (char *)NULL);
		_exit(99);
	}
	close(fd[1]);
	while ((n = read(fd[0], msg + got, len - 1 - (size_t)got)) > 0)
		got += n;
	msg[got] = '\0';
	close(fd[0]);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(WEXITSTATUS(st), 0);
}

/*
 * A RINGTRACE_BUF_SIZE_KB too large to allocate is reported and the
 * default size used, as for one that does not parse: the process stays
 * traceable.
 */
static void boot_size_too_large(void)
{
	/* 16 TiB per cpu */
	static const char *const env[] = {
		"RINGTRACE_BUF_SIZE_KB=17179869184", NULL
	};
	char msg[512];

	if (getenv("RT_BOOT_CHILD")) {
		struct ringtrace_instance *tr = ringtrace_top();

		ASSERT_NOT_NULL(tr);
		ASSERT_EQ(ringtrace_buffer_size_kb(tr), 1408);
		ASSERT_EQ(ringtrace_set_event(tr, "sample:request", err,
					      sizeof(err)), 0);
		trace_request(1, "/x");
		ASSERT_EQ(ringbuf_entries(ringtrace_buffer(tr)), 1);
		exit(0);
	}
	run_boot_child("boot_size_too_large", env, msg, sizeof(msg));
	if (!strstr(msg, "RINGTRACE_BUF_SIZE_KB: cannot allocate 17179869184 KiB per cpu"))
		RBT_FAIL("no warning about the size: '%s'", msg);
}

/*
 * A RINGTRACE_SUBBUF_SIZE_KB that is no power of two from 4 to 512 is
 * reported, and the buffers get the kernel's 4 KiB sub-buffers.
 */
static void boot_subbuf_bad(void)
{
	static const char *const env[] = { "RINGTRACE_SUBBUF_SIZE_KB=12",
					   NULL };
	char msg[512];

	if (getenv("RT_BOOT_CHILD")) {
		struct ringtrace_instance *tr = ringtrace_top();

		ASSERT_NOT_NULL(tr);
		ASSERT_EQ(ringbuf_subbuf_size(ringtrace_buffer(tr)), 4096);
		exit(0);
	}
	run_boot_child("boot_subbuf_bad", env, msg, sizeof(msg));
	if (!strstr(msg, "RINGTRACE_SUBBUF_SIZE_KB: '12' is not a power of two"))
		RBT_FAIL("no warning about the size: '%s'", msg);
}

/* "ff...": tracing_cpumask with every one of @n cpu buffers recording,
 * as the kernel prints it (32-bit groups, the first as wide as its bits). */
static void all_cpus_mask(int n, char *buf, size_t len)
{
	size_t k = 0;

	for (int g = (n - 1) / 32; g >= 0; g--) {
		int bits = g == (n - 1) / 32 ? n - g * 32 : 32;

		k += (size_t)snprintf(buf + k, len - k, "%s%0*lx", k ? "," : "",
				      g == (n - 1) / 32 ? (bits + 3) / 4 : 8,
				      bits == 32 ? 0xfffffffful :
						   (1ul << bits) - 1);
	}
	snprintf(buf + k, len - k, "\n");
}

#define ASSERT_SAME(a, b)                                                   \
	do {                                                                \
		if (strcmp(a, b))                                           \
			RBT_FAIL("'%s' is not '%s'", a, b);                 \
	} while (0)

/*
 * The per-cpu controls: a cpu buffer sized alone (buffer_size_kb reads
 * "X" then), tracing_cpumask, free_buffer with and without
 * disable_on_free.
 */
static void cpu_controls(void)
{
	struct ringtrace_instance *tr = setup();
	int n = ringbuf_nr_cpus(ringtrace_buffer(tr));
	char buf[2048], want[2048], bad[64];
	/* 64 KiB in sub-buffers of 4080 data bytes */
	size_t small = (64 * 1024 + 4079) / 4080 * 4096;

	ASSERT_EQ(ringtrace_set_event(tr, "sample:request", err, sizeof(err)),
		  0);

	/* one cpu buffer sized alone */
	ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, RINGTRACE_ALL_CPUS), 1408);
	ASSERT_EQ(ringtrace_set_buffer_size_kb_cpu(tr, n - 1, 64), 0);
	ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, n - 1), 64);
	ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, 0), n > 1 ? 1408 : 64);
	ASSERT_EQ(ringbuf_size(ringtrace_buffer(tr), n - 1), small);
	if (n > 1)
		ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, RINGTRACE_ALL_CPUS),
			  0);
	ASSERT_EQ(ringtrace_set_buffer_size_kb_cpu(tr, n, 64), -EINVAL);
	ASSERT_EQ(ringtrace_set_buffer_size_kb_cpu(tr, 0, 0), -EINVAL);
	/* a new clock (new buffers) keeps it; the snapshot buffer gets it */
	ASSERT_EQ(ringtrace_set_clock(tr, "boot"), 0);
	ASSERT_EQ(ringbuf_size(ringtrace_buffer(tr), n - 1), small);
	ASSERT_EQ(ringtrace_snapshot(tr, 1), 0);
	ASSERT_EQ(ringtrace_snapshot(tr, 1), 0);
	/* the whole size again */
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 1408), 0);
	ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, n - 1), 1408);
	ASSERT_EQ(ringtrace_buffer_size_kb_cpu(tr, RINGTRACE_ALL_CPUS), 1408);

	/* tracing_cpumask: all by default */
	all_cpus_mask(n, want, sizeof(want));
	ringtrace_show_tracing_cpumask(tr, buf, sizeof(buf));
	ASSERT_SAME(buf, want);
	ASSERT_EQ(ringtrace_show_tracing_cpumask(tr, NULL, 0), strlen(want));
	/* none: nothing is recorded, also after a new clock */
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, "0"), 0);
	ASSERT_EQ(ringtrace_set_clock(tr, "mono"), 0);
	trace_request(1, "/none");
	ASSERT_EQ(ringbuf_entries(ringtrace_buffer(tr)), 0);
	ringtrace_show_tracing_cpumask(tr, buf, sizeof(buf));
	ASSERT_EQ(strspn(buf, "0,"), strlen(want) - 1);
	/* back to all, in groups of 32 bits with the commas */
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, want), 0);
	trace_request(2, "/all");
	ASSERT_EQ(ringbuf_entries(ringtrace_buffer(tr)), 1);
	ringtrace_show_tracing_cpumask(tr, buf, sizeof(buf));
	ASSERT_SAME(buf, want);
	/* what is not a mask of these cpu buffers changes nothing */
	snprintf(bad, sizeof(bad), "%x", n < 31 ? 1u << n : 0u);
	if (n < 31)
		ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, bad), -EINVAL);
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, "xyz"), -EINVAL);
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, ""), -EINVAL);
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, "1,"), -EINVAL);
	ASSERT_EQ(ringtrace_set_tracing_cpumask(tr, "123456789"), -EINVAL);
	ringtrace_show_tracing_cpumask(tr, buf, sizeof(buf));
	ASSERT_SAME(buf, want);

	/* free_buffer: the least size; tracing stays on */
	ASSERT_EQ(ringtrace_free_buffer(tr), 0);
	ASSERT_EQ(ringtrace_buffer_size_kb(tr), 7);
	ASSERT_EQ(ringbuf_size(ringtrace_buffer(tr), 0), 2 * 4096);
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	/* with disable_on_free, tracing goes off first */
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 1408), 0);
	ASSERT_EQ(ringtrace_set_option(tr, "disable_on_free"), 0);
	/* the file free_buffer: a write frees */
	ASSERT_EQ(ringtrace_file_write(tr, "free_buffer", "\n", err,
				       sizeof(err)), 0);
	ASSERT_EQ(ringtrace_buffer_size_kb(tr), 7);
	ASSERT_FALSE(ringtrace_tracing_is_on(tr));
}

/* The show calls with a NULL buffer give the length, as snprintf(). */
static void null_buffers(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[8192];

	ASSERT_EQ(ringtrace_set_event(tr, "sample:request", err, sizeof(err)),
		  0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "id > 4", err,
				       sizeof(err)), 0);
	ASSERT_EQ(ringtrace_show_set_event(tr, NULL, 100),
		  ringtrace_show_set_event(tr, buf, sizeof(buf)));
	ASSERT_GT(ringtrace_show_set_event(tr, NULL, 100), 0);
	ASSERT_EQ(ringtrace_show_filter(tr, "sample", "request", NULL, 100),
		  ringtrace_show_filter(tr, "sample", "request", buf,
					sizeof(buf)));
	ASSERT_EQ(ringtrace_event_format("sample", "request", NULL, 100),
		  ringtrace_event_format("sample", "request", buf,
					 sizeof(buf)));
	ASSERT_EQ(ringtrace_show_options(tr, NULL, 100),
		  ringtrace_show_options(tr, buf, sizeof(buf)));
	ASSERT_EQ(ringtrace_show_clock(tr, NULL, 100),
		  ringtrace_show_clock(tr, buf, sizeof(buf)));
	ASSERT_EQ(ringtrace_show_ftrace_list(RINGTRACE_FTRACE_FILTER, NULL,
					     100),
		  ringtrace_show_ftrace_list(RINGTRACE_FTRACE_FILTER, buf,
					     sizeof(buf)));
	ringtrace_set_filter(tr, "sample", "request", "0", err, sizeof(err));
	ringtrace_clear_events(tr);
}

/*
 * RINGTRACE_GRAPH_NOTRACE and RINGTRACE_MAX_GRAPH_DEPTH apply at load; a
 * RINGTRACE_* variable the library does not know, and a bad depth, are
 * reported.
 */
static void boot_graph_settings(void)
{
	static const char *const env[] = {
		"RINGTRACE_GRAPH_NOTRACE=main",
		"RINGTRACE_MAX_GRAPH_DEPTH=deep",
		"RINGTRACE_MAX_GRAPH_DEPHT=3", NULL
	};
	char msg[1024];

	if (getenv("RT_BOOT_CHILD")) {
		char buf[256];

		ringtrace_show_ftrace_list(RINGTRACE_GRAPH_NOTRACE, buf,
					   sizeof(buf));
		ASSERT_EQ(strcmp(buf, "main\n"), 0);
		exit(0);
	}
	run_boot_child("boot_graph_settings", env, msg, sizeof(msg));
	if (!strstr(msg, "ringtrace: unknown variable RINGTRACE_MAX_GRAPH_DEPHT (ignored)") ||
	    !strstr(msg, "RINGTRACE_MAX_GRAPH_DEPTH: 'deep' is not a depth") ||
	    strstr(msg, "GRAPH_NOTRACE"))
		RBT_FAIL("unexpected warnings: '%s'", msg);
}


/* ---- triggers ---------------------------------------------------------- */

static size_t show_trigger(struct ringtrace_instance *tr, const char *ev,
			   char *buf, size_t len)
{
	return ringtrace_show_trigger(tr, "sample", ev, buf, len);
}

/* The grammar: what is refused, with which message, and the listing */
static void trigger_parse(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[1024];

	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "# Available triggers:\n"
			      "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n"),
		  0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "traceof",
					err, sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "unknown trigger 'traceof'"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff:x", err, sizeof(err)),
		  -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "bad count 'x'"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff:1:2", err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff when id > 1", err,
					sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "expected 'if FILTER'"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff if", err, sizeof(err)),
		  -EINVAL);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"enable_event:sample", err,
					sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "needs SYSTEM:EVENT"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"enable_event:sample:nosuch", err,
					sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "no event sample:nosuch"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "nosuch", "traceoff",
					err, sizeof(err)), -ENOENT);
	/* a filter error carries the caret */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff if idd > 3", err,
					sizeof(err)), -EINVAL);
	ASSERT_EQ(strcmp(err,
			 "idd > 3\n    ^\nparse_error: Field not found\n"),
		  0);
	/* nothing refused was set */
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available", 11), 0);

	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"  traceoff\n", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "traceoff:3",
					err, sizeof(err)), -EEXIST);
	/* traceon and traceoff are one kind: one of them per event */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceon:3 if id > 4", err,
					sizeof(err)), -EEXIST);
	ASSERT_NOT_NULL(strstr(err, "traceoff: this trigger is already set"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"stacktrace:3 if id > 4", err,
					sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"enable_event:net:net_close:2", err,
					sizeof(err)), 0);
	/* one event switches another one way only, as in the kernel */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"disable_event:net:net_close", err,
					sizeof(err)), -EEXIST);
	ASSERT_NOT_NULL(strstr(err, "enable_event: this trigger is already set"));
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"disable_event:net:net_send", err,
					sizeof(err)), 0);
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "traceoff:unlimited\n"
			      "stacktrace:count=3 if id > 4\n"
			      "enable_event:net:net_close:count=2\n"
			      "disable_event:net:net_send:unlimited\n"),
		  0);
	/* the events the triggers arm */
	{
		char soft[256];

		ringtrace_show_soft_events(tr, soft, sizeof(soft));
		ASSERT_NOT_NULL(strstr(soft, "sample:request\n"));
		ASSERT_NOT_NULL(strstr(soft, "net:net_send\n"));
		ASSERT_NOT_NULL(strstr(soft, "net:net_close\n"));
		ASSERT_NULL(strstr(soft, "sample:ints"));
	}
	/* the length without a buffer, as snprintf() */
	ASSERT_EQ(show_trigger(tr, "request", NULL, 0), strlen(buf));
	/* removal needs neither the count nor the filter */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"!stacktrace", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"!enable_event:net:net_close:2", err,
					sizeof(err)), 0);
	/* removing what is not there is not an error */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "!snapshot",
					err, sizeof(err)), 0);
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "traceoff:unlimited\n"
			      "disable_event:net:net_send:unlimited\n"),
		  0);
	/* "!traceon" removes the traceoff, as in the kernel */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "!traceon",
					err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"!disable_event:net:net_send", err,
					sizeof(err)), 0);
	ringtrace_show_soft_events(tr, buf, sizeof(buf));
	ASSERT_EQ(buf[0], '\0');
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available", 11), 0);
}

/* traceoff and traceon with counts and a filter; the event with the
 * trigger need not be enabled, and records only if it is */
static void trigger_counts(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[256], *p;

	ASSERT_EQ(ringtrace_set_event(tr, "net_close", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"traceoff:1 if id > 3", err,
					sizeof(err)), 0);
	/* armed, not enabled: set_event does not list it */
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "net:net_close\n"), 0);
	trace_request(1, "/a");
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	trace_request(4, "/b");
	ASSERT_TRUE(!ringtrace_tracing_is_on(tr));
	trace_net_close(1); /* not recorded: tracing is off */
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "traceoff:count=0 if id > 3\n"), 0);
	ringtrace_tracing_on(tr, true);
	trace_request(5, "/c"); /* the count is spent */
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	trace_net_close(2);
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 0);
	ASSERT_EQ(count_lines(p, "net_close: "), 1);
	ASSERT_NOT_NULL(strstr(p, "fd=2"));
	free(p);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "!traceoff",
					err, sizeof(err)), 0);

	/* traceon:2 counts only the firings that turn tracing on */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "traceon:2",
					err, sizeof(err)), 0);
	trace_request(1, "/a"); /* already on: not counted */
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "traceon:count=2\n"), 0);
	ringtrace_tracing_on(tr, false);
	trace_request(1, "/a");
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	ringtrace_tracing_on(tr, false);
	trace_request(1, "/a");
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	ringtrace_tracing_on(tr, false);
	trace_request(1, "/a");
	ASSERT_TRUE(!ringtrace_tracing_is_on(tr));
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "traceon:count=0\n"), 0);
	ringtrace_tracing_on(tr, true);

	/* an enabled event with a trigger records as before, its own
	 * filter included */
	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "id != 7",
				       err, sizeof(err)), 0);
	trace_request(7, "/no");
	trace_request(8, "/yes");
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	ASSERT_NOT_NULL(strstr(p, "id=8 path=/yes"));
	free(p);
	/* the last trigger gone, the event stays enabled */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "!traceon",
					err, sizeof(err)), 0);
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_NOT_NULL(strstr(buf, "sample:request\n"));
	trace_request(9, "/yes");
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	free(p);
}

/* enable_event and disable_event switch another event; a disabled event
 * with triggers is armed but records nothing */
static void trigger_enable_event(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[256], *p;

	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"enable_event:net:net_close:1 if id == 2",
					err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "net", "net_send",
					"disable_event:net:net_close", err,
					sizeof(err)), 0);
	trace_net_close(1); /* armed, still off */
	trace_request(1, "/a");
	trace_net_close(2); /* still off: the filter did not pass */
	trace_request(2, "/b");
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "net:net_close\n"), 0);
	trace_net_close(3);
	trace_net_send(1, 10); /* turns it off; not recorded itself */
	trace_net_close(4);
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_EQ(buf[0], '\0');
	trace_request(2, "/b"); /* count spent */
	trace_net_close(5);
	show_trigger(tr, "request", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "enable_event:net:net_close:count=0 if id == 2\n"),
		  0);
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "net_close: "), 1);
	ASSERT_NOT_NULL(strstr(p, "net_close: fd=3"));
	ASSERT_EQ(count_lines(p, "request: "), 0);
	ASSERT_EQ(count_lines(p, "net_send: "), 0);
	free(p);
	/* set_event still works on an armed event */
	ASSERT_EQ(ringtrace_set_event(tr, "net_close", err, sizeof(err)), 0);
	trace_net_close(6);
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "net_close: "), 1);
	free(p);
	/* removing the triggers leaves it as it was: enabled */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"!enable_event:net:net_close", err,
					sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "net", "net_send",
					"!disable_event:net:net_close", err,
					sizeof(err)), 0);
	ringtrace_show_set_event(tr, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "net:net_close\n"), 0);
	trace_net_close(7);
	trace_net_send(1, 10);
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "net_close: "), 1);
	ASSERT_EQ(count_lines(p, "net_send: "), 0);
	free(p);
}

static void __attribute__((noinline, optimize("no-optimize-sibling-calls")))
trigger_stack_caller(void)
{
	trace_request(3, "/stack");
	__asm__ volatile("" ::: "memory");
}

/* snapshot and stacktrace triggers */
static void trigger_snapshot_stack(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;

	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"snapshot:1 if id == 2", err,
					sizeof(err)), 0);
	/* the trigger allocated the snapshot buffer */
	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_NULL(strstr(t, "SNAPSHOT NOT ALLOCATED"));
	free(t);
	trace_request(1, "/one");
	trace_request(2, "/two"); /* written, then swapped out */
	trace_request(2, "/three"); /* count spent */
	t = golden_capture(print_snapshot_cb, tr);
	ASSERT_EQ(count_lines(t, "request: "), 2);
	ASSERT_NOT_NULL(strstr(t, "path=/two"));
	free(t);
	t = trace_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_NOT_NULL(strstr(t, "path=/three"));
	free(t);

	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
					"stacktrace:1", err, sizeof(err)), 0);
	ringtrace_clear(tr);
	trigger_stack_caller();
	trace_request(4, "/nostack");
	t = trace_text(tr);
	ASSERT_EQ(count_lines(t, "<stack trace>"), 1);
	ASSERT_NOT_NULL(strstr(t, " => trigger_stack_caller"));
	ASSERT_NOT_NULL(strstr(t, " => trigger_snapshot_stack"));
	/* the stack comes after the record that fired it */
	ASSERT_TRUE(strstr(t, "path=/stack") < strstr(t, "<stack trace>"));
	free(t);
}


/* ---- pid lists ---------------------------------------------------------- */

static int other_tid;

static void *pid_thread(void *arg)
{
	(void)arg;
	other_tid = (int)syscall(SYS_gettid);
	trace_request(100, "/other");
	return NULL;
}

static void run_pid_thread(void)
{
	pthread_t th;

	ASSERT_EQ(pthread_create(&th, NULL, pid_thread, NULL), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
}

static void pid_lists(void)
{
	struct ringtrace_instance *tr = setup();
	char buf[256], list[64], *p;
	int me = (int)syscall(SYS_gettid);

	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "12 x", false,
				     err, sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "'x' is not a thread id"));
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "-3", false,
				     err, sizeof(err)), -EINVAL);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "99999999",
				     false, err, sizeof(err)), -EINVAL);
	ASSERT_EQ(ringtrace_show_pids(tr, RINGTRACE_PID_EVENT, buf,
				      sizeof(buf)), 0);
	/* sorted, without repeats; append adds */
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "30 10 30",
				     false, err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "20", true, err,
				     sizeof(err)), 0);
	ringtrace_show_pids(tr, RINGTRACE_PID_EVENT, buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "10\n20\n30\n"), 0);
	/* the file set_event_pid: a write adds, O_TRUNC empties */
	ASSERT_EQ(ringtrace_file_write(tr, "set_event_pid", "5\n", err,
				       sizeof(err)), 0);
	ringtrace_file_read(tr, "set_event_pid", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "5\n10\n20\n30\n"), 0);
	ASSERT_EQ(ringtrace_file_write(tr, "set_event_pid", "7 x", err,
				       sizeof(err)), -EINVAL);
	ASSERT_NOT_NULL(strstr(err, "'x' is not a thread id"));
	ASSERT_EQ(ringtrace_file_trunc(tr, "set_event_pid"), 0);
	ASSERT_EQ(ringtrace_file_read(tr, "set_event_pid", buf, sizeof(buf)),
		  0);
	ASSERT_EQ(ringtrace_file_write(tr, "set_ftrace_notrace_pid", "8", err,
				       sizeof(err)), 0);
	ASSERT_EQ(ringtrace_show_pids(tr, RINGTRACE_PID_FTRACE_NOTRACE, buf,
				      sizeof(buf)), 2);
	ASSERT_EQ(ringtrace_file_trunc(tr, "set_ftrace_notrace_pid"), 0);
	ASSERT_EQ(ringtrace_show_pids(tr, RINGTRACE_PID_FTRACE_NOTRACE, buf,
				      sizeof(buf)), 0);
	/* O_TRUNC leaves a value alone; a read-only file takes none */
	ASSERT_EQ(ringtrace_file_trunc(tr, "tracing_on"), 0);
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	ASSERT_EQ(ringtrace_file_trunc(tr, "available_tracers"), -EACCES);
	ASSERT_EQ(ringtrace_file_trunc(tr, "no_such_file"), -ENOENT);
	ringtrace_file_read(tr, "available_tracers", buf, sizeof(buf));
	ASSERT_EQ(strcmp(buf, "usersoff function_graph function nop\n"), 0);
	ASSERT_EQ(ringtrace_file_read(tr, "free_buffer", buf, sizeof(buf)),
		  -EACCES);

	/* only the listed thread's events are recorded */
	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	snprintf(list, sizeof(list), "%d", me);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, list, false,
				     err, sizeof(err)), 0);
	trace_request(1, "/mine");
	run_pid_thread();
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	ASSERT_NOT_NULL(strstr(p, "path=/mine"));
	free(p);
	/* the notrace list leaves a thread out */
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT, "", false, err,
				     sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT_NOTRACE, list,
				     false, err, sizeof(err)), 0);
	trace_request(2, "/mine");
	run_pid_thread();
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 1);
	ASSERT_NOT_NULL(strstr(p, "path=/other"));
	free(p);
	/* a thread left out fires no trigger */
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "traceoff",
					err, sizeof(err)), 0);
	trace_request(3, "/mine");
	ASSERT_TRUE(ringtrace_tracing_is_on(tr));
	run_pid_thread();
	ASSERT_TRUE(!ringtrace_tracing_is_on(tr));
	ringtrace_tracing_on(tr, true);
	ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", "!traceoff",
					err, sizeof(err)), 0);
	/* the lists off: every thread again */
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT_NOTRACE, "",
				     false, err, sizeof(err)), 0);
	ringtrace_clear(tr);
	trace_request(4, "/mine");
	run_pid_thread();
	p = pipe_text(tr);
	ASSERT_EQ(count_lines(p, "request: "), 2);
	free(p);
	/* other instances are not affected */
	{
		struct ringtrace_instance *in =
			ringtrace_instance_create("pids");

		ASSERT_NOT_NULL(in);
		ASSERT_EQ(ringtrace_set_event(in, "request", err,
					      sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_pids(in, RINGTRACE_PID_EVENT, "1",
					     false, err, sizeof(err)), 0);
		trace_request(5, "/mine");
		p = pipe_text(in);
		ASSERT_EQ(count_lines(p, "request: "), 0);
		free(p);
		p = pipe_text(tr);
		ASSERT_EQ(count_lines(p, "request: "), 1);
		free(p);
		ASSERT_EQ(ringtrace_instance_destroy(in), 0);
	}
}


/* The stacktrace option: a stack after every record kept, none after a
 * filtered one */
static void option_stacktrace(void)
{
	struct ringtrace_instance *tr = setup();
	char *t;

	ASSERT_EQ(ringtrace_option(tr, "stacktrace"), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "id != 9",
				       err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_option(tr, "stacktrace"), 0);
	ASSERT_EQ(ringtrace_option(tr, "stacktrace"), 1);
	trigger_stack_caller();
	trace_request(9, "/filtered");
	t = trace_text(tr);
	ASSERT_EQ(count_lines(t, "<stack trace>"), 1);
	ASSERT_NOT_NULL(strstr(t, " => trigger_stack_caller"));
	ASSERT_NULL(strstr(t, "/filtered"));
	free(t);
	ASSERT_EQ(ringtrace_set_option(tr, "nostacktrace"), 0);
	ringtrace_clear(tr);
	trace_request(3, "/plain");
	t = trace_text(tr);
	ASSERT_EQ(count_lines(t, "request: "), 1);
	ASSERT_EQ(count_lines(t, "<stack trace>"), 0);
	free(t);
}


/* Triggers, pid lists and the stacktrace option set and removed while
 * threads trace (and a signal handler writes): nothing is torn, freed
 * under a writer or left behind (ASan and TSan watch the rest). */
static void trigger_concurrent(void)
{
	struct ringtrace_instance *tr = ringtrace_top(), *inst;
	pthread_t th[3];
	int i, rounds = 200 / (int)rbt_timeout_mult();
	char buf[256], tid[32];

	ASSERT_NOT_NULL(tr);
	ASSERT_EQ(ringtrace_set_buffer_size_kb(tr, 64), 0);
	atomic_store(&stop_flag, 0);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, tracer_thread, NULL), 0);
	snprintf(tid, sizeof(tid), "%d", (int)syscall(SYS_gettid));
	for (i = 0; i < rounds; i++) {
		static const char *const trig[][2] = {
			{ "traceon", "!traceon" },
			{ "traceoff:3 if id > 100", "!traceoff" },
			{ "stacktrace:2", "!stacktrace" },
			{ "enable_event:net:net_close if path == \"a\"",
			  "!enable_event:net:net_close" },
			{ "snapshot:1", "!snapshot" },
		};
		const char *t = trig[i % 5][0];

		ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request", t,
						err, sizeof(err)), 0);
		if (i % 3 == 0)
			ASSERT_EQ(ringtrace_set_trigger(
					  tr, "net", "net_send",
					  "disable_event:net:net_close", err,
					  sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_event(tr, (i & 1) ? "request" :
							  "!request",
					      err, sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT_NOTRACE,
					     (i & 2) ? tid : "", false, err,
					     sizeof(err)), 0);
		ASSERT_EQ(ringtrace_set_option(tr, (i & 4) ? "stacktrace" :
							   "nostacktrace"), 0);
		if (i % 40 == 0) {
			inst = ringtrace_instance_create("churn");
			ASSERT_NOT_NULL(inst);
			ASSERT_EQ(ringtrace_set_trigger(inst, "sample",
							"request", "traceoff",
							err, sizeof(err)), 0);
			ASSERT_EQ(ringtrace_set_pids(inst, RINGTRACE_PID_EVENT,
						     tid, false, err,
						     sizeof(err)), 0);
			rbt_msleep(1);
			ASSERT_EQ(ringtrace_instance_destroy(inst), 0);
		}
		ringtrace_tracing_on(tr, true);
		ASSERT_EQ(ringtrace_set_trigger(tr, "sample", "request",
						trig[i % 5][1], err,
						sizeof(err)), 0);
		if (i % 3 == 0)
			ASSERT_EQ(ringtrace_set_trigger(
					  tr, "net", "net_send",
					  "!disable_event:net:net_close", err,
					  sizeof(err)), 0);
	}
	atomic_store(&stop_flag, 1);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(pthread_join(th[i], NULL), 0);
	ringtrace_show_trigger(tr, "sample", "request", buf, sizeof(buf));
	ASSERT_EQ(strncmp(buf, "# Available", 11), 0);
	ringtrace_show_soft_events(tr, buf, sizeof(buf));
	ASSERT_EQ(buf[0], '\0');
	ASSERT_EQ(ringtrace_set_option(tr, "nostacktrace"), 0);
	ASSERT_EQ(ringtrace_set_pids(tr, RINGTRACE_PID_EVENT_NOTRACE, "",
				     false, err, sizeof(err)), 0);
	/* a plain event records again, without a stack */
	ringtrace_clear(tr);
	ASSERT_EQ(ringtrace_set_event(tr, "!*:*", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_event(tr, "request", err, sizeof(err)), 0);
	ASSERT_EQ(ringtrace_set_filter(tr, "sample", "request", "0", err,
				       sizeof(err)), 0);
	trace_request(7, "/last");
	{
		char *t = trace_text(tr);

		ASSERT_EQ(count_lines(t, "request: "), 1);
		ASSERT_EQ(count_lines(t, "<stack trace>"), 0);
		free(t);
	}
}

static const struct rbt_case cases[] = {
	RBT_CASE(format_files),	    RBT_CASE(output_all_kinds),
	RBT_CASE(options_golden),   RBT_CASE(option_bin),
	RBT_CASE(option_markers_off), RBT_CASE(option_overwrite),
	RBT_CASE(trace_vs_pipe),    RBT_CASE(pipe_lost_events),
	RBT_CASE(trace_lost_events), RBT_CASE(trace_lost_events_line),
	RBT_CASE(set_event_syntax), RBT_CASE(boot_events),
	RBT_CASE(filter_event),	    RBT_CASE(filter_subsystem),
	RBT_CASE(markers),	    RBT_CASE(instances),
	RBT_CASE(snapshot),	    RBT_CASE(switches),
	RBT_CASE(irq_flags),	    RBT_CASE(usersoff), RBT_CASE(usersoff_counts),
	RBT_CASE(concurrent_control), RBT_CASE(kernel_marker_line),
	RBT_CASE(kernel_ftrace_ids), RBT_CASE(boot_size_too_large),
	RBT_CASE(boot_subbuf_bad),
	RBT_CASE(null_buffers),	    RBT_CASE(boot_graph_settings),
	RBT_CASE(trigger_parse),    RBT_CASE(trigger_counts),
	RBT_CASE(trigger_enable_event), RBT_CASE(trigger_snapshot_stack),
	RBT_CASE(pid_lists),	    RBT_CASE(option_stacktrace),
	RBT_CASE(trigger_concurrent), RBT_CASE(cpu_controls),
	RBT_CASE(write_paths),
};
RBT_MAIN(cases)
