// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * golden.c - normalising and comparing tracer output (see golden.h)
 */
#include <ctype.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "golden.h"
#include "test.h"

#ifndef RT_GOLDEN_DIR
#error "RT_GOLDEN_DIR must name the golden directory"
#endif

void golden_setup_thread(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	prctl(PR_SET_NAME, "rt-test", 0, 0, 0);
}

char *golden_capture(int (*fn)(FILE *out, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fn(f, arg) < 0, 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

/* The end of a rebuilt text: @out (@out_len of @cap bytes used) gets
 * the rest of the source from @p; the source @text is freed. */
static char *finish_rebuild(char *out, size_t out_len, size_t cap,
			    const char *p, char *text)
{
	size_t rest = strlen(p);

	if (out_len + rest + 1 > cap) {
		out = realloc(out, out_len + rest + 1);
		ASSERT_NOT_NULL(out);
	}
	memcpy(out + out_len, p, rest + 1);
	free(text);
	return out;
}

/* Replace match group @g of every match of @re by @repl; @keep pads the
 * placeholder with spaces to the matched width when that is wider. The
 * text is rebuilt, so a placeholder may be longer than what it replaces. */
static char *sub_all(char *text, const char *re, int g, const char *repl,
		     int keep)
{
	regex_t r;
	regmatch_t m[4];
	size_t cap = strlen(text) * 2 + 64, out_len = 0, rl = strlen(repl);
	char *out = malloc(cap), *p = text;

	ASSERT_NOT_NULL(out);
	ASSERT_EQ(regcomp(&r, re, REG_EXTENDED | REG_NEWLINE), 0);
	while (*p && regexec(&r, p, 4, m, p == text ? 0 : REG_NOTBOL) == 0) {
		size_t pre = (size_t)m[g].rm_so, w = (size_t)(m[g].rm_eo -
							      m[g].rm_so);
		size_t nw = keep && w > rl ? w : rl;

		if (out_len + pre + nw + 1 > cap) {
			cap = (out_len + pre + nw + 1) * 2;
			out = realloc(out, cap);
			ASSERT_NOT_NULL(out);
		}
		memcpy(out + out_len, p, pre);
		out_len += pre;
		memcpy(out + out_len, repl, rl);
		if (nw > rl)
			memset(out + out_len + rl, ' ', nw - rl);
		out_len += nw;
		p += m[g].rm_eo;
		if (m[0].rm_eo == m[0].rm_so) {
			if (!*p)
				break;
			out[out_len++] = *p++;
		}
	}
	regfree(&r);
	return finish_rebuild(out, out_len, cap, p, text);
}

/*
 * The kernel prints a time stamp as "%5lu.%06lu": the seconds right
 * aligned in five columns, wider when they need it. In the context
 * columns it follows one separating space ("..... %5lu.%06lu: "), two
 * after the cpu when the irq-info columns are off ("[000]  %5lu"); with
 * funcgraph-abstime it starts the line ("%5lu.%06lu |  "). A stamp
 * whose padding keeps that rule becomes "SSSSS.UUUUUU" (with the
 * separators before it, if any); one that breaks it is marked
 * "BADWIDTH" and left as it is, so the comparison fails on it. Both
 * widths are exercised: the clock namespace tests run this with a
 * clock below 10 000 s and one above 100 000 s.
 */
char *golden_normalise_stamps(char *text)
{
	regex_t r;
	regmatch_t m[5];
	size_t cap = strlen(text) * 2 + 64, out_len = 0;
	char *out = malloc(cap), *p = text;

	ASSERT_NOT_NULL(out);
	ASSERT_EQ(regcomp(&r, "(^|[^ 0-9])( *)([0-9]+)\\.[0-9]{6}(:| \\|)",
			  REG_EXTENDED | REG_NEWLINE), 0);
	while (*p && regexec(&r, p, 5, m, p == text ? 0 : REG_NOTBOL) == 0) {
		size_t lead = (size_t)(m[1].rm_eo - m[1].rm_so);
		size_t pad = (size_t)(m[2].rm_eo - m[2].rm_so);
		size_t digits = (size_t)(m[3].rm_eo - m[3].rm_so);
		char before = lead ? p[m[1].rm_so] : 0;
		size_t sep = !lead ? 0 : before == ']' ? 2 : 1;
		size_t want = digits < 5 ? 5 : digits;
		const char *at = p + m[2].rm_so;
		size_t span = (size_t)(m[4].rm_so - m[2].rm_so);
		int ok = pad >= sep && pad - sep + digits == want;
		size_t need = out_len + (size_t)m[2].rm_so + span + 32;

		if (need > cap) {
			cap = need * 2;
			out = realloc(out, cap);
			ASSERT_NOT_NULL(out);
		}
		memcpy(out + out_len, p, (size_t)m[2].rm_so);
		out_len += (size_t)m[2].rm_so;
		if (ok) {
			out_len += (size_t)sprintf(out + out_len, "%.*sSSSSS.UUUUUU",
						   (int)sep, "  ");
		} else {
			out_len += (size_t)sprintf(out + out_len, "BADWIDTH");
			memcpy(out + out_len, at, span);
			out_len += span;
		}
		p += m[4].rm_so;
	}
	regfree(&r);
	return finish_rebuild(out, out_len, cap, p, text);
}

char *golden_normalise(char *text)
{
	/* comm-pid columns: the pid and its padding */
	text = sub_all(text, "task: [^ ]*-([0-9]+)", 1, "PID", 0);
	text = sub_all(text, "-([0-9]+ *)[[(]", 1, "PID", 1);
	text = sub_all(text, "^ *[^ ]+-([0-9]+ +)[0-9]", 1, "PID", 1);
	text = sub_all(text, "-([0-9]+) => ", 1, "PID", 0);
	text = sub_all(text, "=> [^ ]+-([0-9]+)", 1, "PID", 0);
	text = sub_all(text, "\\(( *[0-9]+)\\) \\[", 1, "TGID", 1);
	/* the raw and hex context columns: pid, cpu, time stamp */
	text = sub_all(text, "^([0-9]+ [0-9]+ [0-9]+) ", 1, "PID CPU TS", 0);
	text = sub_all(text, "^([0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{16}) ", 1,
		"PID CPU TS", 0);
	text = sub_all(text, "^PID CPU TS # ([0-9a-f]+) ", 1, "ADDR", 0);
	/* time stamps, after their width rule is checked */
	text = golden_normalise_stamps(text);
	/* durations and latency columns */
	text = sub_all(text, "(\\) |^| \\| )([ +!#*@$] +[0-9]+(\\.[0-9]+)? us +)\\|",
		2, "  D.DDD us", 1);
	text = sub_all(text, "( +[0-9]+us[ +!#*@$]): ", 1, "    Nus ", 0);
	text = sub_all(text, "latency: ([0-9]+) us", 1, "N", 0);
	/* symbols and addresses */
	text = sub_all(text, "\\+(0x[0-9a-f]+/0x[0-9a-f]+)", 1, "OFF/SIZE", 0);
	text = sub_all(text, " <([0-9a-f]{16})>", 1, "ADDR", 0);
	text = sub_all(text, "=(0x[0-9a-f]+)", 1, "0xADDR", 0);
	/* machine facts */
	text = sub_all(text, "#P:([0-9]+)", 1, "N", 0);
	text = sub_all(text, "latency trace v1\\.1\\.5 on (.*)$", 1, "RELEASE", 0);
	text = sub_all(text, "uid:([0-9]+)", 1, "U", 0);
	return text;
}

void golden_check(const char *name, const char *text)
{
	char *norm = strdup(text);

	ASSERT_NOT_NULL(norm);
	norm = golden_normalise(norm);
	golden_check_raw(name, norm);
	free(norm);
}

void golden_check_raw(const char *name, const char *norm)
{
	char path[512];
	char *want = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", RT_GOLDEN_DIR, name);
	if (getenv("RT_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		ASSERT_NOT_NULL(f);
		fputs(norm, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		RBT_FAIL("golden file %s is missing (RT_GOLDEN_UPDATE=1 makes it)",
			 path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	want = calloc(1, (size_t)n + 1);
	ASSERT_NOT_NULL(want);
	ASSERT_EQ(fread(want, 1, (size_t)n, f), n);
	fclose(f);
	if (strcmp(want, norm) != 0) {
		size_t i = 0, line = 1;

		while (want[i] && want[i] == norm[i]) {
			if (want[i] == '\n')
				line++;
			i++;
		}
		fprintf(stderr, "---- %s: got ----\n%s---- want ----\n%s----\n",
			name, norm, want);
		RBT_FAIL("%s differs from the golden file at line %zu", name,
			 line);
	}
	free(want);
}
