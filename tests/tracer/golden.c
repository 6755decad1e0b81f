// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * golden.c - normalising and comparing tracer output (see golden.h)
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golden.h"
#include "test.h"

#ifndef RT_GOLDEN_DIR
#error "RT_GOLDEN_DIR must name the golden directory"
#endif

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

/* Replace match group @g of every match of @re by @repl padded with
 * spaces (or cut) to the matched width; @keep: keep the width. */
static void sub_all(char *text, const char *re, int g, const char *repl,
		    int keep)
{
	regex_t r;
	regmatch_t m[4];
	char *p = text;

	ASSERT_EQ(regcomp(&r, re, REG_EXTENDED | REG_NEWLINE), 0);
	while (*p && regexec(&r, p, 4, m, p == text ? 0 : REG_NOTBOL) == 0) {
		char *s = p + m[g].rm_so, *e = p + m[g].rm_eo;
		size_t w = (size_t)(e - s), rl = strlen(repl), nw;

		nw = keep && w > rl ? w : rl;
		if (nw > w) {
			/* only when keep is 0 or the text is shorter: grow in
			 * place is not allowed, so cut the placeholder */
			nw = w;
		}
		memcpy(s, repl, nw < rl ? nw : rl);
		if (nw > rl)
			memset(s + rl, ' ', nw - rl);
		memmove(s + nw, e, strlen(e) + 1);
		p = s + nw;
		if (m[0].rm_eo == m[0].rm_so)
			p++;
	}
	regfree(&r);
}

void golden_normalise(char *text)
{
	/* comm-pid columns: the pid and its padding */
	sub_all(text, "task: [^ ]*-([0-9]+)", 1, "PID", 0);
	sub_all(text, "-([0-9]+ *)[[(]", 1, "PID", 1);
	sub_all(text, "^ *[^ ]+-([0-9]+ +)[0-9]", 1, "PID", 1);
	sub_all(text, "-([0-9]+) => ", 1, "PID", 0);
	sub_all(text, "=> [^ ]+-([0-9]+)", 1, "PID", 0);
	sub_all(text, "\\(( *[0-9]+)\\) \\[", 1, "TGID", 1);
	/* the raw and hex context columns: pid, cpu, time stamp */
	sub_all(text, "^([0-9]+ [0-9]+ [0-9]+) ", 1, "PID CPU TS", 0);
	sub_all(text, "^([0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{16}) ", 1,
		"PID CPU TS", 0);
	sub_all(text, "^PID CPU TS # ([0-9a-f]+) ", 1, "ADDR", 0);
	/* time stamps */
	sub_all(text, "( +[0-9]+\\.[0-9]{6})(:| \\|)", 1, " SSSSS.UUUUUU", 0);
	sub_all(text, "^( *[0-9]+\\.[0-9]{6}) \\|", 1, "SSSSS.UUUUUU", 0);
	/* durations and latency columns */
	sub_all(text, "(\\) |^| \\| )([ +!#*@$] +[0-9]+(\\.[0-9]+)? us +)\\|",
		2, "  D.DDD us", 1);
	sub_all(text, "( +[0-9]+us[ +!#*@$]): ", 1, "    Nus ", 0);
	sub_all(text, "latency: ([0-9]+) us", 1, "N", 0);
	/* symbols and addresses */
	sub_all(text, "\\+(0x[0-9a-f]+/0x[0-9a-f]+)", 1, "OFF/SIZE", 0);
	sub_all(text, " <([0-9a-f]{16})>", 1, "ADDR", 0);
	sub_all(text, "=(0x[0-9a-f]+)", 1, "0xADDR", 0);
	/* machine facts */
	sub_all(text, "#P:([0-9]+)", 1, "N", 0);
	sub_all(text, "latency trace v1\\.1\\.5 on (.*)$", 1, "RELEASE", 0);
	sub_all(text, "uid:([0-9]+)", 1, "U", 0);
}

void golden_check(const char *name, const char *text)
{
	char path[512];
	char *norm = strdup(text), *want = NULL;
	FILE *f;
	long n;

	ASSERT_NOT_NULL(norm);
	golden_normalise(norm);
	snprintf(path, sizeof(path), "%s/%s", RT_GOLDEN_DIR, name);
	if (getenv("RT_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		ASSERT_NOT_NULL(f);
		fputs(norm, f);
		fclose(f);
		free(norm);
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
	free(norm);
}
