// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The format files read by libtraceevent, the decoder of trace-cmd and
 * of the ringtrace tool: for events with every integer width (negative
 * values included), arrays, strings and dynamic arrays, each record as
 * libtraceevent prints it from our format text must equal the line the
 * program's own printer (TP_printk compiled in) gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define CREATE_TRACE_POINTS
#include "sample_events.h"

#include <ringbuf/ringbuf.h>
#include <ringtrace/tracer.h>

#include "golden.h"
#include "test.h"

static int print_trace_cb(FILE *out, void *arg)
{
	return ringtrace_print_trace(arg, out);
}

/* the text after "name: " of each line of @t that has one, in order */
static char **info_lines(char *t, const char *name, int *n)
{
	char **v = calloc(64, sizeof(*v)), key[64], *line = t;

	ASSERT_NOT_NULL(v);
	snprintf(key, sizeof(key), " %s: ", name);
	*n = 0;
	while (line && *line && *n < 64) {
		char *nl = strchr(line, '\n'), *p;

		if (nl)
			*nl = '\0';
		p = strstr(line, key);
		if (p && line[0] != '#')
			v[(*n)++] = p + strlen(key);
		line = nl ? nl + 1 : NULL;
	}
	return v;
}

static void check_event(const char *name, void (*emit)(void))
{
	struct ringtrace_instance *tr;
	struct tep_handle *tep = tep_alloc();
	struct ringbuf_event *ev;
	char fmt[8192], err[256], spec[64], *text, **want;
	unsigned long lost;
	uint64_t ts;
	ssize_t len;
	int cpu, n, i = 0;

	golden_setup_thread();
	tr = ringtrace_top();
	ASSERT_NOT_NULL(tr);
	ASSERT_NOT_NULL(tep);
	ringtrace_clear(tr);
	snprintf(spec, sizeof(spec), "sample:%s", name);
	ASSERT_EQ(ringtrace_set_event(tr, spec, err, sizeof(err)), 0);
	emit();
	ringtrace_tracing_on(tr, false);
	text = golden_capture(print_trace_cb, tr);
	want = info_lines(text, name, &n);
	ASSERT_GT(n, 0);

	len = ringtrace_event_format("sample", name, fmt, sizeof(fmt));
	ASSERT_GT(len, 0);
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_page_size(tep, 4096);
	if (tep_parse_event(tep, fmt, (unsigned long)len, "sample") != 0)
		RBT_FAIL("libtraceevent refuses the format of %s:\n%s", name,
			 fmt);
	while ((ev = ringbuf_consume_next(ringtrace_buffer(tr), &cpu, &ts,
					  &lost))) {
		struct tep_record rec = { 0 };
		struct trace_seq s;

		rec.data = ringbuf_event_data(ev);
		rec.size = (int)ringbuf_event_length(ev);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		ASSERT_LT(i, n);
		if (strcmp(s.buffer, want[i]) != 0)
			RBT_FAIL("%s record %d: libtraceevent prints\n  %s\nthe program prints\n  %s\nformat:\n%s",
				 name, i, s.buffer, want[i], fmt);
		trace_seq_destroy(&s);
		i++;
	}
	ASSERT_EQ(i, n);
	free(want);
	free(text);
	tep_free(tep);
}

static void emit_ints(void)
{
	trace_ints(-699);
	trace_ints(-1);
	trace_ints(-128);
	trace_ints(0x7fffffffffffffffLL);
	trace_ints(-32768);
	trace_ints(12345);
}

/* every integer width, negative values too */
static void ints(void)
{
	check_event("ints", emit_ints);
}

static const struct rbt_case cases[] = {
	RBT_CASE(ints),
};
RBT_MAIN(cases)
