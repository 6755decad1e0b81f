// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample_text.c - markers and trace_printk() text for the report tests:
 * UTF-8, bytes that are not UTF-8, control characters and quotes.
 */
#include <string.h>

#include <ringtrace/tracer.h>

int main(void)
{
	static const char marker[] = "marker caf\xc3\xa9 \xe2\x82\xac";
	static const char bad[] = "bad \xff\xfe \xc3 cut \"q\" \\ \x01 end";

	ringtrace_printf("printf caf\xc3\xa9\n");
	ringtrace_marker_write(ringtrace_top(), marker, strlen(marker));
	ringtrace_marker_write(ringtrace_top(), bad, strlen(bad));
	return 0;
}
