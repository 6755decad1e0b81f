// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_filter.c - fuzz target for the event filter compiler and evaluator
 * (tracer/filter).
 *
 * The input is an expression (it ends at the first NUL byte, as a string
 * written to a "filter" file would). It is compiled against a fixed
 * field table holding every kind of field; a refused expression must
 * come back with a consistent error (a known code, a position inside the
 * expression, a message, and a report of the length it claims), an
 * accepted one is evaluated on a few records, whole and cut short, and
 * must agree with its own negation "!(expr)" and with "(expr)||(expr)".
 * A short record must never match when the whole one does not: it is
 * evaluated like the whole record up to the first field it lacks, and
 * rejected there.
 *
 * Built with tests/fuzz/replay_main.c as fuzz_filter_replay (the seeds of
 * corpus/ plus seeded mutations, in ctest as fuzz.replay.filter) and, with
 * clang, as the libFuzzer binary fuzz_filter:
 *
 *	build/tests/fuzz_filter_replay -n 10000 -s 7 \
 *		tests/tracer-filter/corpus
 *	build/tests/fuzz_filter -max_total_time=60 /tmp/new \
 *		tests/tracer-filter/corpus
 *
 * In the replay's summary line, "attached" counts the expressions that
 * compiled and "events read" the records evaluated.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "fuzz.h"

struct rbfz_stats rbfz_stats;
int rbfz_report_fd = 2;

struct fz_rec {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	uint64_t u64;
	char comm[16];
	uint32_t name;
	unsigned long ip;
	int32_t arr[4];
};

#define FZ_SIZE(m) sizeof(((struct fz_rec *)0)->m)
#define FZ_FLD(type, m, kind, sgn, elem)                                    \
	{ type, #m, offsetof(struct fz_rec, m), FZ_SIZE(m), sgn, kind, elem }

static const struct rt_field fz_fields[] = {
	FZ_FLD("unsigned short", common_type, RT_FIELD_INT, 0, 0),
	FZ_FLD("unsigned char", common_flags, RT_FIELD_INT, 0, 0),
	FZ_FLD("unsigned char", common_preempt_count, RT_FIELD_INT, 0, 0),
	FZ_FLD("int", common_pid, RT_FIELD_INT, 1, 0),
	FZ_FLD("s8", s8, RT_FIELD_INT, 1, 0),
	FZ_FLD("u8", u8, RT_FIELD_INT, 0, 0),
	FZ_FLD("s16", s16, RT_FIELD_INT, 1, 0),
	FZ_FLD("u16", u16, RT_FIELD_INT, 0, 0),
	FZ_FLD("s32", s32, RT_FIELD_INT, 1, 0),
	FZ_FLD("u32", u32, RT_FIELD_INT, 0, 0),
	FZ_FLD("s64", s64, RT_FIELD_INT, 1, 0),
	FZ_FLD("u64", u64, RT_FIELD_INT, 0, 0),
	FZ_FLD("char[16]", comm, RT_FIELD_STRING, 1, 1),
	FZ_FLD("__data_loc char[]", name, RT_FIELD_DYNSTR, 1, 1),
	FZ_FLD("unsigned long", ip, RT_FIELD_PTR, 0, 0),
	FZ_FLD("int[4]", arr, RT_FIELD_ARRAY, 1, 4),
	{ "unsigned char", "x", offsetof(struct fz_rec, u8), 1, 0,
	  RT_FIELD_INT, 0 },
};
#define FZ_NR_FIELDS (sizeof(fz_fields) / sizeof(fz_fields[0]))

#define FZ_NR_RECS 4
#define FZ_REC_MAX 160

/* The records, built once; the last one's __data_loc points outside. */
static unsigned char fz_recs[FZ_NR_RECS][FZ_REC_MAX];
static size_t fz_lens[FZ_NR_RECS];

/**
 * problem() - report a broken invariant and abort
 * @fmt: printf format
 *
 * Context: fuzz target.
 */
static void problem(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprintf(rbfz_report_fd, "fuzz_filter: PROBLEM: %s\n", msg);
	abort();
}

/**
 * fz_build() - lay out one record
 * @i: which
 * @r: its fixed part (comm and name are set here)
 * @comm: up to 16 bytes of comm
 * @name: the __data_loc string, placed after the fixed part
 * @loc: the loc word to store instead, or 0 for the real one
 *
 * Context: fuzz target, first input.
 */
static void fz_build(int i, struct fz_rec r, const char *comm,
		     const char *name, uint32_t loc)
{
	size_t clen = strlen(comm), nlen = strlen(name) + 1;
	size_t off = sizeof(r);

	memset(r.comm, 0, sizeof(r.comm));
	memcpy(r.comm, comm, clen < 16 ? clen : 16);
	r.name = loc ? loc : (uint32_t)(off | nlen << 16);
	memcpy(fz_recs[i], &r, sizeof(r));
	memcpy(fz_recs[i] + off, name, nlen);
	fz_lens[i] = off + nlen;
}

/**
 * fz_init() - build the records
 *
 * Context: fuzz target, first input.
 */
static void fz_init(void)
{
	struct fz_rec r;

	memset(&r, 0, sizeof(r));
	fz_build(0, r, "", "", 0);

	r.common_type = 7;
	r.common_pid = 100;
	r.s8 = 5;
	r.u8 = 5;
	r.s16 = 300;
	r.u16 = 300;
	r.s32 = 100000;
	r.u32 = 100000;
	r.s64 = 5000000000;
	r.u64 = 5000000000u;
	r.ip = 0x1000;
	fz_build(1, r, "bash", "kworker/0:1", 0);

	r.common_type = UINT16_MAX;
	r.common_flags = UINT8_MAX;
	r.common_pid = -1;
	r.s8 = INT8_MIN;
	r.u8 = UINT8_MAX;
	r.s16 = INT16_MIN;
	r.u16 = UINT16_MAX;
	r.s32 = INT32_MIN;
	r.u32 = UINT32_MAX;
	r.s64 = INT64_MIN;
	r.u64 = UINT64_MAX;
	r.ip = (unsigned long)-1;
	fz_build(2, r, "0123456789abcdef", "systemd-journal", 0);

	/* __data_loc past the end of the record */
	fz_build(3, r, "sshd", "x", 0xfff0u | 8u << 16);
}

/**
 * fz_match() - evaluate on a heap copy of exactly @len bytes, so that a
 * sanitizer sees any read past the record
 * @f: the filter
 * @rec: the record
 * @len: its length
 *
 * Context: fuzz target.
 * Return: rt_filter_match()'s result.
 */
static bool fz_match(const struct rt_filter *f, const unsigned char *rec,
		     size_t len)
{
	unsigned char *copy = malloc(len ? len : 1);
	bool ret;

	if (!copy)
		abort();
	memcpy(copy, rec, len);
	ret = rt_filter_match(f, copy, len);
	free(copy);
	rbfz_stats.events++;
	return ret;
}

/**
 * fz_check_error() - a refused expression's error must be consistent
 * @expr: the expression
 * @len: its length
 * @err: the error
 *
 * Context: fuzz target.
 */
static void fz_check_error(const char *expr, size_t len,
			   const struct rt_filter_error *err)
{
	char small[24], *full;
	size_t n, elen = len;

	if (err->code <= RT_FILTER_OK || err->code > RT_FILTER_E_TOO_LONG)
		problem("error code %d", err->code);
	if (!memchr(err->msg, '\0', sizeof(err->msg)) || !err->msg[0])
		problem("empty or unterminated message");
	if (err->code == RT_FILTER_E_TOO_LONG) {
		if (len <= RT_FILTER_MAX_LEN || err->pos != RT_FILTER_MAX_LEN)
			problem("too long: len %zu pos %d", len, err->pos);
	} else if (len > RT_FILTER_MAX_LEN) {
		problem("%zu bytes refused with code %d", len, err->code);
	} else if (err->pos < 0 || (size_t)err->pos > len + 1) {
		/* (the kernel's places: one past the end at most) */
		problem("position %d outside 0..%zu", err->pos, len + 1);
	}

	n = rt_filter_error_print(NULL, 0, expr, err);
	while (elen && expr[elen - 1] == '\n')
		elen--;
	if (n != elen + 1 + (size_t)err->pos + 2 + 13 + strlen(err->msg) + 1)
		problem("report length %zu", n);
	full = malloc(n + 1);
	if (!full)
		abort();
	if (rt_filter_error_print(full, n + 1, expr, err) != n ||
	    strlen(full) != n || full[elen + 1 + err->pos] != '^')
		problem("report differs from its length");
	if (rt_filter_error_print(small, sizeof(small), expr, err) != n ||
	    strncmp(small, full, sizeof(small) - 1) ||
	    strlen(small) != (n < sizeof(small) ? n : sizeof(small) - 1))
		problem("truncated report");
	free(full);
}

/**
 * fz_compile() - compile @expr, which must succeed
 * @expr: the expression
 *
 * Context: fuzz target.
 * Return: the filter.
 */
static struct rt_filter *fz_compile(const char *expr)
{
	struct rt_filter_error err;
	struct rt_filter *f;

	if (rt_filter_parse(expr, fz_fields, FZ_NR_FIELDS, &f, &err))
		problem("'%.200s' refused (%s at %d) but its parts compile",
			expr, err.msg, err.pos);
	return f;
}

/**
 * LLVMFuzzerTestOneInput() - run one input (see the top of the file)
 * @data: the input
 * @size: its length
 *
 * Context: libFuzzer or the replay driver, one thread.
 * Return: 0 (a broken invariant aborts).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct rt_filter_error err;
	struct rt_filter *f = NULL, *neg = NULL, *twice = NULL;
	char *expr, *tmp = NULL;
	size_t len;
	int ret;

	if (!ready) {
		fz_init();
		ready = true;
	}
	rbfz_stats.inputs++;
	expr = malloc(size + 1);
	if (!expr)
		abort();
	memcpy(expr, data, size);
	expr[size] = '\0';
	len = strlen(expr);

	memset(&err, 0x5a, sizeof(err));
	ret = rt_filter_parse(expr, fz_fields, FZ_NR_FIELDS, &f, &err);
	if (ret) {
		if (ret != -1 || f)
			problem("failed parse returned %d, filter %p", ret,
				(void *)f);
		fz_check_error(expr, len, &err);
		goto out;
	}
	rbfz_stats.attached++;
	if (!f || err.code != RT_FILTER_OK || len > RT_FILTER_MAX_LEN ||
	    strcmp(rt_filter_string(f), expr))
		problem("bad success");

	/* The negation and the doubled expression, when they fit. */
	tmp = malloc(2 * len + 16);
	if (!tmp)
		abort();
	if (len + 3 <= RT_FILTER_MAX_LEN) {
		snprintf(tmp, 2 * len + 16, "!(%s)", expr);
		neg = fz_compile(tmp);
	}
	if (2 * len + 6 <= RT_FILTER_MAX_LEN) {
		snprintf(tmp, 2 * len + 16, "(%s)||(%s)", expr, expr);
		twice = fz_compile(tmp);
	}

	for (int r = 0; r < FZ_NR_RECS; r++) {
		bool whole = fz_match(f, fz_recs[r], fz_lens[r]);
		bool unreadable = r == FZ_NR_RECS - 1;

		if (neg && !unreadable &&
		    fz_match(neg, fz_recs[r], fz_lens[r]) == whole)
			problem("'%.200s' and its negation agree on record %d",
				expr, r);
		if (twice && fz_match(twice, fz_recs[r], fz_lens[r]) != whole)
			problem("'%.200s' doubled differs on record %d", expr,
				r);
		for (size_t cut = 0; cut < fz_lens[r]; cut += 1 + cut / 8)
			if (fz_match(f, fz_recs[r], cut) && !whole)
				problem("'%.200s' matches record %d cut to "
					"%zu, not the whole one", expr, r, cut);
	}

out:
	rt_filter_free(twice);
	rt_filter_free(neg);
	rt_filter_free(f);
	free(tmp);
	free(expr);
	return 0;
}
