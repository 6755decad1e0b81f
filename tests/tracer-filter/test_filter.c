/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters (tracer/filter): every operator on every field type,
 * precedence, '!', parentheses, long chains and deep nesting, the exact
 * position and wording of parse errors, the "filter" file's error report,
 * and records that are short or whose __data_loc points outside them.
 *
 * The test record has the common header followed by a field of every
 * kind; it is evaluated at an address that is 4- but not 8-byte aligned,
 * as records in a ring buffer are, and for the bounds tests it is copied
 * into a heap block of exactly the length given, so that a sanitizer
 * build catches any read past it.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "test.h"

struct test_rec {
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
	uint32_t name;		/* __data_loc char[] */
	unsigned long ip;
	int32_t arr[4];
};

#define FSIZE(m) sizeof(((struct test_rec *)0)->m)
#define FLD(type, m, kind, sgn, elem)                                       \
	{ type, #m, offsetof(struct test_rec, m), FSIZE(m), sgn, kind, elem }

static const struct rt_field g_fields[] = {
	FLD("unsigned short", common_type, RT_FIELD_INT, 0, 0),
	FLD("unsigned char", common_flags, RT_FIELD_INT, 0, 0),
	FLD("unsigned char", common_preempt_count, RT_FIELD_INT, 0, 0),
	FLD("int", common_pid, RT_FIELD_INT, 1, 0),
	FLD("s8", s8, RT_FIELD_INT, 1, 0),
	FLD("u8", u8, RT_FIELD_INT, 0, 0),
	FLD("s16", s16, RT_FIELD_INT, 1, 0),
	FLD("u16", u16, RT_FIELD_INT, 0, 0),
	FLD("s32", s32, RT_FIELD_INT, 1, 0),
	FLD("u32", u32, RT_FIELD_INT, 0, 0),
	FLD("s64", s64, RT_FIELD_INT, 1, 0),
	FLD("u64", u64, RT_FIELD_INT, 0, 0),
	FLD("char[16]", comm, RT_FIELD_STRING, 1, 1),
	FLD("__data_loc char[]", name, RT_FIELD_DYNSTR, 1, 1),
	FLD("unsigned long", ip, RT_FIELD_PTR, 0, 0),
	FLD("int[4]", arr, RT_FIELD_ARRAY, 1, 4),
	/* A one-letter alias of u8, so that long chains fit the limit. */
	{ "unsigned char", "x", offsetof(struct test_rec, u8), 1, 0,
	  RT_FIELD_INT, 0 },
};
#define NR_FIELDS (sizeof(g_fields) / sizeof(g_fields[0]))

/* ------------------------------------------------------------ records */

/**
 * struct rec_spec - one of the test records
 * @r: the fixed part (comm and name are filled from the fields below)
 * @comm: bytes of the char[16] (up to 16, without NUL if 16)
 * @name: the __data_loc string
 * @name_len: its length in the loc word; -1 for strlen(name) + 1
 */
struct rec_spec {
	struct test_rec r;
	const char *comm;
	const char *name;
	int name_len;
};

#define NR_RECS 5
static const struct rec_spec g_recs[NR_RECS] = {
	/* 0: all zero, empty strings */
	{ .r = { 0 }, .comm = "", .name = "", .name_len = -1 },
	/* 1: the signed minimums */
	{ .r = { .common_type = 1, .common_flags = 1, .common_pid = 1,
		 .s8 = INT8_MIN, .s16 = INT16_MIN, .s32 = INT32_MIN,
		 .s64 = INT64_MIN },
	  .comm = "bash", .name = "kworker/0:1", .name_len = -1 },
	/* 2: the maximums; comm fills its array (no NUL); name has
	 * length 0 */
	{ .r = { .common_type = UINT16_MAX, .common_flags = UINT8_MAX,
		 .common_preempt_count = UINT8_MAX, .common_pid = -1,
		 .s8 = INT8_MAX, .u8 = UINT8_MAX, .s16 = INT16_MAX,
		 .u16 = UINT16_MAX, .s32 = INT32_MAX, .u32 = UINT32_MAX,
		 .s64 = INT64_MAX, .u64 = UINT64_MAX, .ip = ULONG_MAX },
	  .comm = "0123456789abcdef", .name = "", .name_len = 0 },
	/* 3: -1 and the top bits */
	{ .r = { .common_type = 3, .common_flags = 0x80,
		 .common_preempt_count = 1, .common_pid = 4242, .s8 = -1,
		 .u8 = 0x80, .s16 = -1, .u16 = 0x8000, .s32 = -1,
		 .u32 = 0x80000000u, .s64 = -1, .u64 = UINT64_C(1) << 63,
		 .ip = 0x81000000ul },
	  .comm = "sshd", .name = "systemd-journal", .name_len = -1 },
	/* 4: small positive values */
	{ .r = { .common_type = 7, .common_flags = 3,
		 .common_preempt_count = 2, .common_pid = 100, .s8 = 5,
		 .u8 = 5, .s16 = 300, .u16 = 300, .s32 = 100000,
		 .u32 = 100000, .s64 = 5000000000, .u64 = 5000000000u,
		 .ip = 0x1000 },
	  .comm = "bash-5.1", .name = "bash", .name_len = -1 },
};

/* Records are only 4-byte aligned in a ring buffer: so are ours. */
static _Alignas(8) unsigned char g_store[8 + 1024];
#define REC_BUF (g_store + 4)

/**
 * build_rec() - lay out a record: the fixed part, then the name string
 * @spec: what to put in it
 * @buf: where (at least sizeof(struct test_rec) + 64 bytes)
 *
 * Return: the record's length.
 */
static size_t build_rec(const struct rec_spec *spec, unsigned char *buf)
{
	struct test_rec r = spec->r;
	size_t clen = strlen(spec->comm);
	size_t off = sizeof(r);
	size_t nlen = spec->name_len < 0 ? strlen(spec->name) + 1 :
					   (size_t)spec->name_len;

	memset(r.comm, 0, sizeof(r.comm));
	memcpy(r.comm, spec->comm, clen < 16 ? clen : 16);
	r.name = (uint32_t)(off | nlen << 16);
	memcpy(buf, &r, sizeof(r));
	memcpy(buf + off, spec->name, nlen);
	return off + nlen;
}

/**
 * match_exact() - evaluate on a heap copy of exactly @len bytes
 * @f: the filter
 * @rec: the record
 * @len: bytes to copy and pass
 *
 * Return: rt_filter_match()'s result.
 */
static bool match_exact(const struct rt_filter *f, const unsigned char *rec,
			size_t len)
{
	unsigned char *copy = malloc(len ? len : 1);
	bool ret;

	ASSERT_NOT_NULL(copy);
	memcpy(copy, rec, len);
	ret = rt_filter_match(f, copy, len);
	free(copy);
	return ret;
}

/**
 * parse_ok() - compile an expression that must be valid
 * @expr: the expression
 *
 * Return: the filter.
 */
static struct rt_filter *parse_ok(const char *expr)
{
	struct rt_filter_error err;
	struct rt_filter *f = (struct rt_filter *)&err; /* not NULL */

	if (rt_filter_parse(expr, g_fields, NR_FIELDS, &f, &err))
		RBT_FAIL("'%.200s': error %d at %d: %s", expr, err.code,
			 err.pos, err.msg);
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(err.code, RT_FILTER_OK);
	ASSERT_TRUE(strcmp(rt_filter_string(f), expr) == 0);
	return f;
}

/* ------------------------------------------------------- valid table */

/* expected: one '0' or '1' per record of g_recs */
struct valid_case {
	const char *expr;
	const char *expected;
};

static const struct valid_case g_valid[] = {
	/* s8 */
	{ "s8 == 0", "10000" },
	{ "s8 == -128", "01000" },
	{ "s8 == 127", "00100" },
	{ "s8 == -0", "10000" },
	{ "s8 != 0", "01111" },
	{ "s8 < 0", "01010" },
	{ "s8 <= -1", "01010" },
	{ "s8 > 0", "00101" },
	{ "s8 >= -1", "10111" },
	{ "s8 & 0x80", "01010" },
	{ "s8 & 1", "00111" },
	{ "s8 & -1", "01111" },
	{ "s8 & 0xff", "01111" },
	/* u8 */
	{ "u8 == 255", "00100" },
	{ "u8 == 0xff", "00100" },
	{ "u8 == 0XFF", "00100" },
	{ "u8 > 127", "00110" },
	{ "u8 < 0x80", "11001" },
	{ "u8 >= 0200", "00110" },
	{ "u8 <= 5", "11001" },
	{ "u8 & 0x80", "00110" },
	{ "u8 != 5", "11110" },
	{ "u8 & -128", "00110" },
	/* s16, u16 */
	{ "s16 == -32768", "01000" },
	{ "s16 < -1", "01000" },
	{ "s16 >= 300", "00101" },
	{ "s16 & 0x8000", "01010" },
	{ "s16 != 32767", "11011" },
	{ "u16 == 65535", "00100" },
	{ "u16 > 32767", "00110" },
	{ "u16 == 0x8000", "00010" },
	{ "u16 <= 300", "11001" },
	{ "u16 & 0x100", "00101" },
	/* s32, u32 */
	{ "s32 == -2147483648", "01000" },
	{ "s32 == 2147483647", "00100" },
	{ "s32 < 0", "01010" },
	{ "s32 > 99999", "00101" },
	{ "s32 <= 100000", "11011" },
	{ "s32 >= -2147483647", "10111" },
	{ "s32 & 0x80000000", "01010" },
	{ "u32 == 4294967295", "00100" },
	{ "u32 == 0xffffffff", "00100" },
	{ "u32 >= 0x80000000", "00110" },
	{ "u32 < 100000", "11000" },
	{ "u32 & 0x10", "00100" },
	{ "u32 & 0x20", "00101" },
	{ "u32 != 0", "00111" },
	/* s64, u64 */
	{ "s64 == -9223372036854775808", "01000" },
	{ "s64 == -0x8000000000000000", "01000" },
	{ "s64 == 9223372036854775807", "00100" },
	{ "s64 > 4294967296", "00101" },
	{ "s64 < -1", "01000" },
	{ "s64 <= -1", "01010" },
	{ "s64 >= 0", "10101" },
	{ "s64 & 0x8000000000000000", "01010" },
	{ "s64 != 5000000000", "11110" },
	{ "u64 == 18446744073709551615", "00100" },
	{ "u64 == 0xffffffffffffffff", "00100" },
	{ "u64 == 01777777777777777777777", "00100" },
	{ "u64 >= 0x8000000000000000", "00110" },
	{ "u64 < 5000000000", "11000" },
	{ "u64 <= 5000000000", "11001" },
	{ "u64 > 5000000000", "00110" },
	{ "u64 & 1", "00100" },
	{ "u64 != 0", "00111" },
	/* the address field: unsigned */
	{ "ip == 0", "11000" },
	{ "ip >= 0x81000000", "00110" },
	{ "ip & 0x1000", "00101" },
	{ "ip == 4096", "00001" },
	{ "ip < 0x1001", "11001" },
	/* common fields */
	{ "common_pid == -1", "00100" },
	{ "common_pid > 1", "00011" },
	{ "common_type == 7", "00001" },
	{ "common_type >= 65535", "00100" },
	{ "common_flags & 0x80", "00110" },
	{ "common_preempt_count >= 1", "00111" },
	/* fixed string */
	{ "comm == bash", "01000" },
	{ "comm == \"bash\"", "01000" },
	{ "comm == 'bash'", "01000" },
	{ "comm != bash", "10111" },
	{ "comm == \"\"", "10000" },
	{ "comm != ''", "01111" },
	{ "comm == 0123456789abcdef", "00100" },
	{ "comm == 0123456789abcde", "00000" },
	{ "comm == 0123456789abcdefg", "00000" },
	{ "comm == bash-5.1", "00001" },
	{ "comm == \"bash-5.1\"", "00001" },
	{ "comm == \"b\\ash\"", "00000" },
	{ "comm == \"ba\\\\sh\"", "00000" },
	{ "comm ~ bash", "01000" },
	{ "comm ~ \"bash*\"", "01001" },
	{ "comm ~ \"*sh*\"", "01011" },
	{ "comm ~ *d", "00010" },
	{ "comm ~ \"b?sh\"", "01000" },
	{ "comm ~ \"????\"", "01010" },
	{ "comm ~ \"?\"", "00000" },
	{ "comm ~ \"[bs]*\"", "01011" },
	{ "comm ~ \"[!b]*\"", "00110" },
	{ "comm ~ [!b]*", "00110" },
	{ "comm ~ \"[^b]*\"", "00110" },
	{ "comm ~ \"*[0-9]\"", "00001" },
	{ "comm ~ \"*[a-f]\"", "00110" },
	{ "comm ~ \"*[a-ce-f]\"", "00100" },
	{ "comm ~ \"ba?h-[0-9].*\"", "00001" },
	{ "comm ~ \"*\"", "11111" },
	{ "comm ~ \"**\"", "11111" },
	{ "comm ~ \"?*\"", "01111" },
	{ "comm ~ \"\"", "10000" },
	{ "comm ~ \"0123*cdef\"", "00100" },
	{ "comm ~ \"0123456789abcdef*\"", "00100" },
	{ "comm ~ \"0123456789abcdef?\"", "00000" },
	{ "comm ~ \"*\\*\"", "00000" },
	{ "comm ~ \"\\b*\"", "01001" },
	{ "comm ~ \"bash[\"", "00000" },
	{ "comm ~ \"[]s]*\"", "00010" },
	{ "comm ~ \"*s*s*\"", "00010" },
	{ "comm !=bash", "10111" },
	/* __data_loc string */
	{ "name == \"kworker/0:1\"", "01000" },
	{ "name == kworker/0:1", "01000" },
	{ "name ~ \"kworker/*\"", "01000" },
	{ "name ~ \"*journal\"", "00010" },
	{ "name ~ s?stemd-*", "00010" },
	{ "name == \"\"", "10100" },
	{ "name != bash", "11110" },
	{ "name ~ *", "11111" },
	{ "name ~ \"*[0-9]:[0-9]\"", "01000" },
	/* precedence, '!', parentheses */
	{ "s8 < 0 || u8 == 5", "01011" },
	{ "s8 < 0 && u8 == 5", "00000" },
	{ "s8 < 0 && comm == bash", "01000" },
	{ "u8 == 0 || s8 > 100 && u16 == 65535", "11100" },
	{ "(u8 == 0 || s8 > 100) && u16 == 65535", "00100" },
	{ "u8 == 0 && s8 < 0 || comm == sshd", "01010" },
	{ "u8 == 0 && (s8 < 0 || comm == sshd)", "01000" },
	{ "comm == sshd || u8 == 0 && s8 < 0", "01010" },
	{ "!s8 == 0", "01111" },
	{ "!(s8 == 0)", "01111" },
	{ "!!s8 == 0", "10000" },
	{ "! ! ! s8 == 0", "01111" },
	{ "!(u8 == 0 || comm == sshd)", "00101" },
	{ "!(u8 == 0) && !(comm == sshd)", "00101" },
	{ "!(s8 < 0 && comm == bash) && s32 != 0", "00111" },
	{ "!s8 < 0 && !comm == bash", "10101" },
	{ "((((s8 == 5))))", "00001" },
	{ "(s8 == 5 || (u8 == 128 && (s16 == -1 || s16 == 0)))", "00011" },
	{ "!((s8 == 5) || !(u8 == 0))", "11000" },
	{ "!(!(s8 == 5))", "00001" },
	{ "s8==5&&u8==5", "00001" },
	{ "s8<0||u8>200", "01110" },
	{ "(s8==5)||(comm==sshd)", "00011" },
	{ " \t s8\t==\t5 \n", "00001" },
	{ "s8 == 5\n", "00001" },
	{ "s8 == 5 || s8 == 5 || s8 == 127", "00101" },
	{ "u64 == 0 && u64 == 0 && s8 != 0", "01000" },
	{ "comm==bash||common_pid==4242", "01010" },
	{ "comm == bash||name == bash", "01001" },
	{ "comm ~ b*&&name ~ *sh", "00001" },
};

/**
 * valid_table() - every valid expression on every record, and its
 * negation "!(expr)" giving the opposite result
 */
static void valid_table(void)
{
	unsigned char recs[NR_RECS][256];
	size_t lens[NR_RECS];

	for (int r = 0; r < NR_RECS; r++)
		lens[r] = build_rec(&g_recs[r], recs[r]);

	for (size_t i = 0; i < sizeof(g_valid) / sizeof(g_valid[0]); i++) {
		const struct valid_case *c = &g_valid[i];
		char neg[512];
		struct rt_filter *f, *nf;

		ASSERT_EQ(strlen(c->expected), NR_RECS);
		f = parse_ok(c->expr);
		snprintf(neg, sizeof(neg), "!(%s)", c->expr);
		nf = parse_ok(neg);
		for (int r = 0; r < NR_RECS; r++) {
			bool want = c->expected[r] == '1';
			bool got, ngot;

			/* at a 4-aligned, not 8-aligned address */
			memcpy(REC_BUF, recs[r], lens[r]);
			got = rt_filter_match(f, REC_BUF, lens[r]);
			ngot = rt_filter_match(nf, REC_BUF, lens[r]);
			if (got != want)
				RBT_FAIL("'%s' on record %d: got %d, want %d",
					 c->expr, r, got, want);
			if (ngot == want)
				RBT_FAIL("'%s' on record %d: got %d, want %d",
					 neg, r, ngot, !want);
			/* a longer buffer changes nothing */
			ASSERT_EQ(rt_filter_match(f, REC_BUF, lens[r] + 100),
				  want);
		}
		rt_filter_free(nf);
		rt_filter_free(f);
	}
}

/* ----------------------------------------------------- invalid table */

/* short names for the table */
#define E_SYNTAX RT_FILTER_E_SYNTAX
#define E_FIELD RT_FILTER_E_FIELD
#define E_OP RT_FILTER_E_OP
#define E_VALUE RT_FILTER_E_VALUE
#define E_PARENS RT_FILTER_E_PARENS

struct invalid_case {
	const char *expr;
	int code;
	int pos;
	const char *msg;	/* a substring of the message */
};

/* The messages and places are the kernel's (tests/tracefs/errlog_oracle.sh
 * checks them against its error_log): an error inside a predicate is
 * placed one past where it is (past the name of an unknown field). */
static const struct invalid_case g_invalid[] = {
	{ "", E_SYNTAX, 0, "Empty" },
	{ "   ", E_SYNTAX, 0, "Empty" },
	{ "\n", E_SYNTAX, 0, "Empty" },
	{ "nosuch == 1", E_FIELD, 7, "Field not found" },
	{ "s8 == 1 && nosuch == 1", E_FIELD, 18, "Field not found" },
	{ "  S8 == 1", E_FIELD, 5, "Field not found" },
	{ "s == 1", E_FIELD, 2, "Field not found" },
	{ "s8x == 1", E_FIELD, 4, "Field not found" },
	{ "comm < 1", E_OP, 8, "Illegal operation" },
	{ "comm >= x", E_OP, 9, "Illegal operation" },
	{ "comm & 1", E_OP, 8, "Illegal operation" },
	{ "name > a", E_OP, 8, "Illegal operation" },
	{ "s8 ~ 1", E_OP, 6, "Illegal operation" },
	{ "ip ~ 1", E_OP, 6, "Illegal operation" },
	{ "u8 == 1 || common_pid ~ 1", E_OP, 25, "Illegal operation" },
	{ "arr == 1", E_OP, 4, "Array" },
	{ "s8 == 1 && arr & 1", E_OP, 15, "Array" },
	{ "s8 == 128", E_VALUE, 7, "out of range" },
	{ "s8 == -129", E_VALUE, 7, "out of range" },
	{ "s8 == 0x80", E_VALUE, 7, "out of range" },
	{ "u8 == 256", E_VALUE, 7, "out of range" },
	{ "u8 == -1", E_VALUE, 7, "out of range" },
	{ "u8 & 256", E_VALUE, 6, "out of range" },
	{ "s8 & -129", E_VALUE, 6, "out of range" },
	{ "s16 == 32768", E_VALUE, 8, "out of range" },
	{ "u16 == 65536", E_VALUE, 8, "out of range" },
	{ "s32 == -2147483649", E_VALUE, 8, "out of range" },
	{ "u32 == 4294967296", E_VALUE, 8, "out of range" },
	{ "s64 == 9223372036854775808", E_VALUE, 8, "out of range" },
	{ "s64 == -9223372036854775809", E_VALUE, 8, "out of range" },
	{ "u64 == -1", E_VALUE, 8, "out of range" },
	{ "ip == -1", E_VALUE, 7, "out of range" },
	{ "u64 == 18446744073709551616", E_VALUE, 8, "Illegal integer" },
	{ "u64 == 0x10000000000000000", E_VALUE, 8, "Illegal integer" },
	{ "s8 == 12abc", E_VALUE, 7, "Illegal integer" },
	{ "s8 == 0x", E_VALUE, 7, "Illegal integer" },
	{ "s8 == 09", E_VALUE, 7, "Illegal integer" },
	{ "s8 == --1", E_VALUE, 7, "Illegal integer" },
	{ "s8 == -", E_VALUE, 7, "Illegal integer" },
	{ "s8 == +1", E_VALUE, 7, "did you forget quotes" },
	{ "s8 == 1.0", E_SYNTAX, 7, "Too many terms" },
	{ "s8 == \"1\"", E_VALUE, 7, "Expecting numeric" },
	{ "s8 == (1)", E_VALUE, 7, "did you forget quotes" },
	{ "s8 == bash", E_VALUE, 7, "did you forget quotes" },
	{ "s8 == 1!", E_SYNTAX, 7, "Too many terms" },
	{ "s8 == ", E_VALUE, 7, "did you forget quotes" },
	{ "s8 ==", E_VALUE, 6, "did you forget quotes" },
	{ "s8 == 1 &&", E_SYNTAX, 10, "Meaningless" },
	{ "s8 == 1 || ", E_SYNTAX, 11, "Meaningless" },
	{ "s8 == 1 && || u8 == 1", E_SYNTAX, 0, "Error" },
	{ "s8 == && u8 == 1", E_VALUE, 7, "did you forget quotes" },
	{ "(s8 == )", E_VALUE, 8, "did you forget quotes" },
	{ "&& s8 == 1", E_SYNTAX, 0, "Error" },
	{ "== 1", E_SYNTAX, 0, "Error" },
	{ "()", E_SYNTAX, 0, "Error" },
	{ "(", E_PARENS, 0, "Too many '('" },
	{ "!", E_SYNTAX, 1, "No filter found" },
	{ "s8 == 1 && !", E_SYNTAX, 12, "Meaningless" },
	{ "s8 == 1 && )", E_PARENS, 11, "Too few '('" },
	{ "s8", E_SYNTAX, 3, "Invalid operator" },
	{ "s8  ", E_SYNTAX, 5, "Invalid operator" },
	{ "s8 && u8 == 1", E_VALUE, 5, "did you forget quotes" },
	{ "(s8) == 1", E_SYNTAX, 4, "Invalid operator" },
	{ "s8 = 1", E_SYNTAX, 4, "Invalid operator" },
	{ "s8 =< 1", E_SYNTAX, 4, "Invalid operator" },
	{ "s8 ! = 1", E_SYNTAX, 4, "Invalid operator" },
	{ "s8 1", E_SYNTAX, 4, "Invalid operator" },
	{ "s8 == 1)", E_PARENS, 7, "Too few '('" },
	{ "(s8 == 1))", E_PARENS, 9, "Too few '('" },
	{ "(s8 == 1) || u8 == 1) && (", E_PARENS, 20, "Too few '('" },
	{ "(s8 == 1", E_PARENS, 0, "Too many '('" },
	{ "((s8 == 1)", E_PARENS, 0, "Too many '('" },
	{ "(s8 == 1 || (u8 == 2", E_PARENS, 12, "Too many '('" },
	{ "!(s8 == 1 || !(u8 == 2)", E_PARENS, 1, "Too many '('" },
	{ "s8 == 1 u8 == 2", E_SYNTAX, 8, "Too many terms" },
	{ "s8 == 1 (u8 == 2)", E_SYNTAX, 8, "Too many terms" },
	{ "(s8 == 1) (u8 == 2)", E_SYNTAX, 10, "Too many terms" },
	{ "s8 == 1 & u8 == 1", E_SYNTAX, 8, "Too many terms" },
	{ "comm == bash | u8 == 1", E_SYNTAX, 13, "Too many terms" },
	{ "s8 == 1 !", E_SYNTAX, 8, "Too many terms" },
	{ "comm == \"a\"b", E_SYNTAX, 11, "Too many terms" },
	{ "1 == s8", E_FIELD, 2, "Field not found" },
	{ "0", E_FIELD, 2, "Field not found" },
	{ "$x == 1", E_SYNTAX, 0, "Error" },
	{ "s8 == 1 && $", E_SYNTAX, 0, "Error" },
	{ "comm == \"bash", E_VALUE, 8, "Missing matching quote" },
	{ "comm == 'bash", E_VALUE, 8, "Missing matching quote" },
	{ "comm == \"ba\\\"sh", E_VALUE, 8, "Missing matching quote" },
	{ "comm == \"bash\\\"", E_VALUE, 8, "Missing matching quote" },
	{ "s8 == 1 || comm ~ \"*", E_VALUE, 18, "Missing matching quote" },
	{ "comm == (bash)", E_VALUE, 9, "did you forget quotes" },
	{ "comm == =bash", E_VALUE, 9, "did you forget quotes" },
	{ "comm == ", E_VALUE, 9, "did you forget quotes" },
	{ "comm ~", E_VALUE, 7, "did you forget quotes" },
};

/**
 * check_invalid() - an expression must fail with this error
 * @expr: the expression
 * @code: the error code
 * @pos: the caret position
 * @msg: a substring of the message
 */
static void check_invalid(const char *expr, int code, int pos, const char *msg)
{
	struct rt_filter_error err;
	struct rt_filter *f = (struct rt_filter *)&err; /* not NULL */

	memset(&err, 0x55, sizeof(err));
	if (rt_filter_parse(expr, g_fields, NR_FIELDS, &f, &err) != -1)
		RBT_FAIL("'%.200s' parsed", expr);
	ASSERT_NULL(f);
	if (err.code != code || err.pos != pos || !strstr(err.msg, msg))
		RBT_FAIL("'%.200s': error %d at %d (%s), want %d at %d (%s)",
			 expr, err.code, err.pos, err.msg, code, pos, msg);
	ASSERT_TRUE(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
}

/**
 * invalid_table() - every invalid expression fails with the right code,
 * caret position and message
 */
static void invalid_table(void)
{
	for (size_t i = 0; i < sizeof(g_invalid) / sizeof(g_invalid[0]); i++)
		check_invalid(g_invalid[i].expr, g_invalid[i].code,
			      g_invalid[i].pos, g_invalid[i].msg);
}

/* --------------------------------------------------- error reporting */

/**
 * print_of() - the error report of an expression that must fail
 * @expr: the expression
 * @buf: output
 * @len: its size
 *
 * Return: rt_filter_error_print()'s return.
 */
static size_t print_of(const char *expr, char *buf, size_t len)
{
	struct rt_filter_error err;
	struct rt_filter *f;

	ASSERT_EQ(rt_filter_parse(expr, g_fields, NR_FIELDS, &f, &err), -1);
	return rt_filter_error_print(buf, len, expr, &err);
}

/**
 * error_print() - the "filter" file's report, exactly, and its
 * truncation
 */
static void error_print(void)
{
	static const struct {
		const char *expr;
		const char *report;
	} cases[] = {
		{ "s8 == 1 && nosuch == 1",
		  "s8 == 1 && nosuch == 1\n"
		  "                  ^\n"
		  "parse_error: Field not found\n" },
		{ "s8 == 1 &&",
		  "s8 == 1 &&\n"
		  "          ^\n"
		  "parse_error: Meaningless filter expression\n" },
		{ "(s8 == 1",
		  "(s8 == 1\n"
		  "^\n"
		  "parse_error: Too many '('\n" },
		{ "comm < 1\n",
		  "comm < 1\n"
		  "        ^\n"
		  "parse_error: Illegal operation for field type\n" },
		{ "u8 == 256",
		  "u8 == 256\n"
		  "       ^\n"
		  "parse_error: Integer value out of range for the field\n" },
	};
	char buf[512], small[10];
	struct rt_filter_error err;
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = print_of(cases[i].expr, buf, sizeof(buf));
		if (strcmp(buf, cases[i].report))
			RBT_FAIL("report of '%s':\n%s\nwant:\n%s",
				 cases[i].expr, buf, cases[i].report);
		ASSERT_EQ(n, strlen(cases[i].report));
		/* truncated: what fits, NUL-terminated, same return */
		memset(small, 'X', sizeof(small));
		ASSERT_EQ(print_of(cases[i].expr, small, sizeof(small)), n);
		ASSERT_EQ(small[sizeof(small) - 1], '\0');
		ASSERT_MEM_EQ(small, cases[i].report, sizeof(small) - 1);
		/* nothing written with a size of 0 */
		small[0] = 'X';
		ASSERT_EQ(print_of(cases[i].expr, small, 0), n);
		ASSERT_EQ(small[0], 'X');
		ASSERT_EQ(print_of(cases[i].expr, NULL, 0), n);
		ASSERT_EQ(print_of(cases[i].expr, small, 1), n);
		ASSERT_EQ(small[0], '\0');
	}

	/* the caret past a 4096-byte expression (too long) */
	{
		char *e = malloc(RT_FILTER_MAX_LEN + 2);
		char *out;
		size_t want;

		ASSERT_NOT_NULL(e);
		memset(e, 'a', RT_FILTER_MAX_LEN + 1);
		e[RT_FILTER_MAX_LEN + 1] = '\0';
		want = (RT_FILTER_MAX_LEN + 1) + 1 + RT_FILTER_MAX_LEN + 2 +
		       strlen("parse_error: Expression too long\n");
		out = malloc(want + 1);
		ASSERT_NOT_NULL(out);
		ASSERT_EQ(print_of(e, out, want + 1), want);
		ASSERT_EQ(out[RT_FILTER_MAX_LEN + 2 + RT_FILTER_MAX_LEN], '^');
		ASSERT_TRUE(strcmp(out + want - 33,
				   "parse_error: Expression too long\n") == 0);
		free(out);
		free(e);
	}

	/* a hand-made error: negative position, no NUL in msg */
	memset(&err, 0, sizeof(err));
	err.pos = -5;
	memset(err.msg, 'm', sizeof(err.msg));
	n = rt_filter_error_print(buf, sizeof(buf), "x", &err);
	ASSERT_EQ(n, strlen("x\n^\nparse_error: \n") + sizeof(err.msg));
	ASSERT_EQ(strlen(buf), n);
	ASSERT_TRUE(strncmp(buf, "x\n^\nparse_error: mmm", 20) == 0);
}

/* ------------------------------------------------------------- bounds */

/**
 * end_of() - offset just past a field
 * @name: the field
 *
 * Return: offset + size.
 */
static size_t end_of(const char *name)
{
	for (size_t i = 0; i < NR_FIELDS; i++)
		if (!strcmp(g_fields[i].name, name))
			return (size_t)g_fields[i].offset + g_fields[i].size;
	RBT_FAIL("no field %s", name);
}

/**
 * truncated_records() - a predicate on a field that is not (wholly) in
 * the record rejects the record, and nothing past len is read
 */
static void truncated_records(void)
{
	static const struct {
		const char *expr;
		const char *field;
		int rec;	/* a record on which expr is true */
	} cases[] = {
		{ "s8 == 5", "s8", 4 },
		{ "u8 == 5", "u8", 4 },
		{ "s16 == 300", "s16", 4 },
		{ "u16 == 300", "u16", 4 },
		{ "s32 == 100000", "s32", 4 },
		{ "u32 == 100000", "u32", 4 },
		{ "s64 == 5000000000", "s64", 4 },
		{ "u64 == 5000000000", "u64", 4 },
		{ "ip == 0x1000", "ip", 4 },
		{ "common_pid == 100", "common_pid", 4 },
		{ "comm == \"bash-5.1\"", "comm", 4 },
		{ "comm ~ \"0123*\"", "comm", 2 },
		{ "comm == 0123456789abcdef", "comm", 2 },
		/* true on the short record too, if it were read */
		{ "s8 != 1", "s8", 4 },
		{ "!(s32 == 1)", "s32", 4 },
		{ "!(comm == x)", "comm", 4 },
		{ "comm != x", "comm", 4 },
		{ "comm ~ *", "comm", 4 },
	};
	unsigned char rec[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_filter *f = parse_ok(cases[i].expr);
		size_t full = build_rec(&g_recs[cases[i].rec], rec);
		size_t end = end_of(cases[i].field);

		for (size_t len = 0; len <= full; len++) {
			bool got = match_exact(f, rec, len);

			if (got != (len >= end))
				RBT_FAIL("'%s' with len %zu (field ends at "
					 "%zu): got %d", cases[i].expr, len,
					 end, got);
		}
		ASSERT_FALSE(rt_filter_match(f, NULL, 0));
		ASSERT_FALSE(rt_filter_match(f, NULL, 100));
		rt_filter_free(f);
	}

	/* An unreadable field rejects the record when it is reached, even
	 * under '!'; one that short-circuiting skips does not matter. */
	{
		struct rt_filter *f1 = parse_ok("u8 == 0 || u64 == 7");
		struct rt_filter *f2 = parse_ok("u8 == 1 || u64 == 0");
		struct rt_filter *f3 = parse_ok("!(u8 == 1 && u64 == 0)");
		struct rt_filter *f4 = parse_ok("!(u8 == 0 && u64 == 7)");
		size_t cut = end_of("u64") - 1;

		build_rec(&g_recs[0], rec);
		ASSERT_TRUE(match_exact(f1, rec, cut));
		ASSERT_FALSE(match_exact(f2, rec, cut));
		ASSERT_TRUE(match_exact(f3, rec, cut));
		ASSERT_FALSE(match_exact(f4, rec, cut));
		ASSERT_TRUE(match_exact(f2, rec, cut + 1));
		ASSERT_TRUE(match_exact(f4, rec, cut + 1));
		rt_filter_free(f1);
		rt_filter_free(f2);
		rt_filter_free(f3);
		rt_filter_free(f4);
	}
}

/**
 * set_loc() - overwrite the __data_loc word of a record
 * @rec: the record
 * @off: string offset
 * @len: string length
 */
static void set_loc(unsigned char *rec, uint32_t off, uint32_t len)
{
	uint32_t loc = off | len << 16;

	memcpy(rec + offsetof(struct test_rec, name), &loc, 4);
}

/**
 * data_loc_bounds() - a __data_loc string outside the record is never
 * read and never matches; one that ends exactly at the record's end is
 * read
 */
static void data_loc_bounds(void)
{
	static const char *const exprs[] = {
		"name == bash", "name != bash", "!(name == bash)",
		"name ~ *", "name ~ \"b*\"", "!(name ~ zzz)", "name == \"\"",
	};
	struct rt_filter *f[sizeof(exprs) / sizeof(exprs[0])];
	size_t nf = sizeof(exprs) / sizeof(exprs[0]);
	/* results when the string is readable and holds "bash" */
	static const bool bash_res[] = { 1, 0, 0, 1, 1, 1, 0 };
	unsigned char rec[256];
	size_t fixed = sizeof(struct test_rec), len;

	for (size_t i = 0; i < nf; i++)
		f[i] = parse_ok(exprs[i]);
	len = build_rec(&g_recs[4], rec);	/* name "bash" */
	ASSERT_EQ(len, fixed + 5);

	for (size_t i = 0; i < nf; i++) {
		/* as built */
		ASSERT_EQ(match_exact(f[i], rec, len), bash_res[i]);
		/* string wholly past the end */
		set_loc(rec, 0xfff0, 5);
		ASSERT_FALSE(match_exact(f[i], rec, len));
		set_loc(rec, (uint32_t)len, 1);
		ASSERT_FALSE(match_exact(f[i], rec, len));
		/* one byte past the end */
		set_loc(rec, (uint32_t)fixed, 6);
		ASSERT_FALSE(match_exact(f[i], rec, len));
		set_loc(rec, (uint32_t)fixed + 1, 5);
		ASSERT_FALSE(match_exact(f[i], rec, len));
		/* huge length */
		set_loc(rec, (uint32_t)fixed, 0xffff);
		ASSERT_FALSE(match_exact(f[i], rec, len));
		/* exactly at the end, without the NUL: still "bash" */
		set_loc(rec, (uint32_t)fixed, 4);
		ASSERT_EQ(match_exact(f[i], rec, fixed + 4), bash_res[i]);
		/* empty string at the very end */
		set_loc(rec, (uint32_t)len, 0);
		ASSERT_EQ(match_exact(f[i], rec, len),
			  i == 1 || i == 2 || i == 3 || i == 5 || i == 6);
		/* the loc word itself cut */
		set_loc(rec, (uint32_t)fixed, 5);
		ASSERT_FALSE(match_exact(f[i], rec, end_of("name") - 1));
		/* pointing back into the fixed part: "bash-5.1" of comm */
		set_loc(rec, offsetof(struct test_rec, comm), 4);
		ASSERT_EQ(match_exact(f[i], rec, len), bash_res[i]);
		set_loc(rec, (uint32_t)fixed, 5);
	}
	for (size_t i = 0; i < nf; i++)
		rt_filter_free(f[i]);
}

/* -------------------------------------------------------- big inputs */

/**
 * x_rec() - a record whose u8 (and its alias x) is @x, s8 is (int8)@x
 * @x: the value
 *
 * Return: the record's length; the record is at REC_BUF.
 */
static size_t x_rec(unsigned int x)
{
	struct rec_spec spec = g_recs[0];

	spec.r.u8 = (uint8_t)x;
	spec.r.s8 = (int8_t)(x - (x > 127 ? 256 : 0));
	return build_rec(&spec, REC_BUF);
}

/**
 * chain() - build "p0 SEP p1 SEP ... p(n-1)" with @odd at position @k
 * @buf: output
 * @n: number of predicates
 * @sep: "&&" or "||"
 * @pred: the usual predicate
 * @odd: the predicate at position @k
 * @k: where
 */
static void chain(char *buf, unsigned int n, const char *sep,
		  const char *pred, const char *odd, unsigned int k)
{
	char *p = buf;

	for (unsigned int i = 0; i < n; i++) {
		if (i)
			p += sprintf(p, "%s", sep);
		p += sprintf(p, "%s", i == k ? odd : pred);
	}
}

/**
 * long_chains() - hundreds of predicates joined by || and by && (as many
 * as RT_FILTER_MAX_LEN holds), with the one different predicate at
 * every kind of position
 */
static void long_chains(void)
{
	/* "x>9" joined by "||": 5 bytes per predicate */
	const unsigned int n = (RT_FILTER_MAX_LEN + 2) / 5;
	const unsigned int where[] = { 0, 1, 2, n / 2, n - 2, n - 1 };
	char *buf = malloc(RT_FILTER_MAX_LEN + 64);

	ASSERT_NOT_NULL(buf);
	ASSERT_GE(n, 10000); /* far more than the kernel's old limit of 16 */
	for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		struct rt_filter *f;

		/* OR: true iff x > 9 or x has bit 2 */
		chain(buf, n, "||", "x>9", "x&4", where[w]);
		ASSERT_LE(strlen(buf), RT_FILTER_MAX_LEN);
		f = parse_ok(buf);
		for (unsigned int x = 0; x < 256; x++) {
			size_t len = x_rec(x);

			ASSERT_EQ(rt_filter_match(f, REC_BUF, len),
				  x > 9 || (x & 4));
		}
		rt_filter_free(f);

		/* AND: true iff x < 9 and x has bit 2 */
		chain(buf, n, "&&", "x<9", "x&4", where[w]);
		f = parse_ok(buf);
		for (unsigned int x = 0; x < 256; x++) {
			size_t len = x_rec(x);

			ASSERT_EQ(rt_filter_match(f, REC_BUF, len),
				  x < 9 && (x & 4));
		}
		rt_filter_free(f);
	}

	/* Every predicate different: s32 != 0 && s32 != 1 && ... */
	{
		struct rt_filter *f;
		char *p = buf;
		int k = 0;

		while (p - buf < RT_FILTER_MAX_LEN - 24) {
			p += sprintf(p, "%ss32 != %d", k ? " && " : "", k);
			k++;
		}
		ASSERT_GT(k, 250);
		f = parse_ok(buf);
		for (int v = -3; v < k + 3; v++) {
			struct rec_spec spec = g_recs[0];
			size_t len;

			spec.r.s32 = v;
			len = build_rec(&spec, REC_BUF);
			ASSERT_EQ(rt_filter_match(f, REC_BUF, len),
				  v < 0 || v >= k);
		}
		rt_filter_free(f);
		/* and as a disjunction: s32 == 0 || s32 == 1 || ... */
		p = buf;
		for (int i = 0; i < k; i++)
			p += sprintf(p, "%ss32 == %d", i ? " || " : "", i);
		f = parse_ok(buf);
		for (int v = -3; v < k + 3; v++) {
			struct rec_spec spec = g_recs[0];
			size_t len;

			spec.r.s32 = v;
			len = build_rec(&spec, REC_BUF);
			ASSERT_EQ(rt_filter_match(f, REC_BUF, len),
				  v >= 0 && v < k);
		}
		rt_filter_free(f);
	}
	free(buf);
}

/**
 * deep_nesting() - 4096-byte expressions of nested parentheses and '!',
 * parsed without recursion
 */
static void deep_nesting(void)
{
	char *buf = malloc(RT_FILTER_MAX_LEN + 64);
	const size_t depth = (RT_FILTER_MAX_LEN - 4) / 2;
	struct rt_filter *f;
	size_t len, i;
	bool ref[256];
	unsigned int levels;
	char *p;

	ASSERT_NOT_NULL(buf);

	/* ((((...x==1...)))) of exactly RT_FILTER_MAX_LEN bytes */
	memset(buf, '(', depth);
	memcpy(buf + depth, "x==1", 4);
	memset(buf + depth + 4, ')', depth);
	buf[2 * depth + 4] = '\0';
	ASSERT_EQ(strlen(buf), RT_FILTER_MAX_LEN);
	f = parse_ok(buf);
	ASSERT_TRUE(rt_filter_match(f, REC_BUF, x_rec(1)));
	ASSERT_FALSE(rt_filter_match(f, REC_BUF, x_rec(2)));
	rt_filter_free(f);

	/* one ')' missing: the outermost '(' stays unclosed */
	buf[2 * depth + 3] = '\0';
	check_invalid(buf, RT_FILTER_E_PARENS, 0, "Too many '('");
	/* one ')' too many: reported at that ')' (the last one) */
	memmove(buf, buf + 1, 2 * depth + 3);
	buf[2 * depth + 2] = ')';
	buf[2 * depth + 3] = '\0';
	check_invalid(buf, RT_FILTER_E_PARENS, (int)(2 * depth + 2),
		      "Too few '('");
	/* an operand, then a group: one term too many */
	memcpy(buf, "x==1", 4);
	memset(buf + 4, '(', depth - 2);
	memcpy(buf + 2 + depth, "x==1", 4);
	memset(buf + 6 + depth, ')', depth - 2);
	buf[2 * depth + 4] = '\0';
	check_invalid(buf, RT_FILTER_E_SYNTAX, 4, "Too many terms");

	/* only '(': the innermost is unclosed */
	memset(buf, '(', RT_FILTER_MAX_LEN);
	buf[RT_FILTER_MAX_LEN] = '\0';
	check_invalid(buf, RT_FILTER_E_PARENS, RT_FILTER_MAX_LEN - 1,
		      "Too many '('");

	/* !!!!...!x==1 */
	memset(buf, '!', RT_FILTER_MAX_LEN - 4);
	memcpy(buf + RT_FILTER_MAX_LEN - 4, "x==1", 5);
	f = parse_ok(buf);	/* an even number of '!' */
	ASSERT_TRUE(rt_filter_match(f, REC_BUF, x_rec(1)));
	ASSERT_FALSE(rt_filter_match(f, REC_BUF, x_rec(0)));
	rt_filter_free(f);
	f = parse_ok(buf + 1);	/* odd */
	ASSERT_FALSE(rt_filter_match(f, REC_BUF, x_rec(1)));
	ASSERT_TRUE(rt_filter_match(f, REC_BUF, x_rec(0)));
	rt_filter_free(f);

	/* E(0) = x==0, E(k) = !(E(k-1)||x==d) or (E(k-1)&&x!=d):
	 * deep, every level a different operator, checked against the
	 * same recurrence computed here */
	for (unsigned int x = 0; x < 256; x++)
		ref[x] = x == 0;
	strcpy(buf, "x==0");
	len = 4;
	levels = 0;
	while (len + 9 <= RT_FILTER_MAX_LEN) {
		unsigned int d = levels % 10;
		char tail[16];

		if (levels % 3 == 2) {
			snprintf(tail, sizeof(tail), "&&x!=%u)", d);
			memmove(buf + 1, buf, len + 1);
			buf[0] = '(';
			for (unsigned int x = 0; x < 256; x++)
				ref[x] = ref[x] && x != d;
		} else {
			snprintf(tail, sizeof(tail), "||x==%u)", d);
			memmove(buf + 2, buf, len + 1);
			buf[0] = '!';
			buf[1] = '(';
			for (unsigned int x = 0; x < 256; x++)
				ref[x] = !(ref[x] || x == d);
		}
		strcat(buf, tail);
		len = strlen(buf);
		levels++;
	}
	ASSERT_GT(levels, 400);
	f = parse_ok(buf);
	for (unsigned int x = 0; x < 256; x++)
		ASSERT_EQ(rt_filter_match(f, REC_BUF, x_rec(x)), ref[x]);
	rt_filter_free(f);

	/* the same, but the nesting to the right: d || (d || (...)) */
	p = buf;
	for (i = 0; p - buf + 16 + (ptrdiff_t)i <= RT_FILTER_MAX_LEN; i++)
		p += sprintf(p, "x==%zu||(", i % 200);
	p += sprintf(p, "x==255");
	memset(p, ')', i);
	p[i] = '\0';
	ASSERT_LE(strlen(buf), RT_FILTER_MAX_LEN);
	f = parse_ok(buf);
	for (unsigned int x = 0; x < 256; x++)
		ASSERT_EQ(rt_filter_match(f, REC_BUF, x_rec(x)),
			  x == 255 || x < (i < 200 ? i : 200));
	rt_filter_free(f);
	free(buf);
}

/**
 * too_long() - RT_FILTER_MAX_LEN bytes are accepted, one more is not
 */
static void too_long(void)
{
	char *buf = malloc(RT_FILTER_MAX_LEN + 2);
	struct rt_filter *f;

	ASSERT_NOT_NULL(buf);
	/* "x==1" padded with blanks to exactly the limit */
	memset(buf, ' ', RT_FILTER_MAX_LEN + 1);
	memcpy(buf, "x==1", 4);
	buf[RT_FILTER_MAX_LEN] = '\0';
	f = parse_ok(buf);
	ASSERT_TRUE(rt_filter_match(f, REC_BUF, x_rec(1)));
	rt_filter_free(f);

	buf[RT_FILTER_MAX_LEN] = ' ';
	buf[RT_FILTER_MAX_LEN + 1] = '\0';
	ASSERT_EQ(strlen(buf), RT_FILTER_MAX_LEN + 1);
	check_invalid(buf, RT_FILTER_E_TOO_LONG, RT_FILTER_MAX_LEN, "too long");

	/* the limit is checked before anything else */
	memset(buf, '(', RT_FILTER_MAX_LEN + 1);
	check_invalid(buf, RT_FILTER_E_TOO_LONG, RT_FILTER_MAX_LEN, "too long");
	free(buf);
}

/* ----------------------------------------------------- short strings */

/**
 * try_any() - parse anything; check the error's consistency or run the
 * filter on every record
 * @expr: the expression
 *
 * Return: true if it parsed.
 */
static bool try_any(const char *expr)
{
	static unsigned char recs[NR_RECS][256];
	static size_t lens[NR_RECS];
	struct rt_filter_error err;
	struct rt_filter *f = (struct rt_filter *)&err;
	size_t elen = strlen(expr);
	char out[64];
	int ret;

	if (!lens[0])
		for (int r = 0; r < NR_RECS; r++)
			lens[r] = build_rec(&g_recs[r], recs[r]);

	ret = rt_filter_parse(expr, g_fields, NR_FIELDS, &f, &err);
	if (ret) {
		ASSERT_EQ(ret, -1);
		ASSERT_NULL(f);
		ASSERT_GT(err.code, RT_FILTER_OK);
		ASSERT_LE(err.code, RT_FILTER_E_TOO_LONG);
		ASSERT_GE(err.pos, 0);
		/* (the kernel's places: one past the end at most) */
		ASSERT_LE(err.pos, (long long)elen + 1);
		ASSERT_GT(strlen(err.msg), 0);
		while (elen && expr[elen - 1] == '\n')
			elen--;
		/* expr \n, pos blanks ^ \n, "parse_error: " msg \n */
		ASSERT_EQ(rt_filter_error_print(out, sizeof(out), expr, &err),
			  elen + 1 + (size_t)err.pos + 2 + 13 +
			  strlen(err.msg) + 1);
		return false;
	}
	ASSERT_EQ(ret, 0);
	ASSERT_TRUE(strcmp(rt_filter_string(f), expr) == 0);
	for (int r = 0; r < NR_RECS; r++) {
		bool full = match_exact(f, recs[r], lens[r]);
		const size_t cut[] = { 0, 1, 8, 9, 40, 56, 60, lens[r] - 1 };

		/* A short record evaluates as the whole one up to the first
		 * unreadable field, and is rejected there: it never matches
		 * when the whole record does not. */
		for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
			if (match_exact(f, recs[r], cut[i]))
				ASSERT_TRUE(full);
	}
	rt_filter_free(f);
	return true;
}

/**
 * short_strings() - every 1- and 2-byte printable string, and every
 * 3-byte string over an alphabet of the grammar's characters, parse or
 * fail cleanly
 */
static void short_strings(void)
{
	static const char alpha[] = "x s8=<>!&|()~\"'\\0-1*[]";
	const size_t na = sizeof(alpha) - 1;
	unsigned int parsed = 0;
	char s[4];

	for (int a = 32; a < 127; a++) {
		s[0] = (char)a;
		s[1] = '\0';
		parsed += try_any(s);
		for (int b = 32; b < 127; b++) {
			s[1] = (char)b;
			s[2] = '\0';
			parsed += try_any(s);
		}
	}
	ASSERT_EQ(parsed, 0);	/* nothing shorter than "x<1" is valid */
	for (size_t a = 0; a < na; a++)
		for (size_t b = 0; b < na; b++)
			for (size_t c = 0; c < na; c++) {
				s[0] = alpha[a];
				s[1] = alpha[b];
				s[2] = alpha[c];
				s[3] = '\0';
				parsed += try_any(s);
			}
	/* x<0 x<1 x<8, the same with > and &; x~... is an error */
	ASSERT_EQ(parsed, 9);
}

/* ------------------------------------------------ random expressions */

enum { G_PRED, G_AND, G_OR };

/**
 * struct gnode - a node of a random expression
 * @type: G_PRED, G_AND or G_OR
 * @nots: number of '!' in front of it
 * @l: left child
 * @r: right child
 * @op: comparison (index into g_ops) for a predicate
 * @val: constant for a predicate
 * @sfield: the predicate is on s8 (else on x)
 */
struct gnode {
	int type;
	int nots;
	int l, r;
	int op;
	int val;
	bool sfield;
};

static const char *const g_ops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };

/**
 * gen() - a random tree of at most @depth levels
 * @t: node storage
 * @n: nodes used
 * @depth: levels left
 *
 * Return: the root's index.
 */
static int gen(struct gnode *t, int *n, int depth)
{
	int i = (*n)++;
	struct gnode *g = &t[i];

	memset(g, 0, sizeof(*g));
	g->nots = rbt_rand_range(0, 3) == 0 ? (int)rbt_rand_range(1, 2) : 0;
	if (depth == 0 || rbt_rand_range(0, 2) == 0) {
		g->type = G_PRED;
		g->op = (int)rbt_rand_range(0, 6);
		g->sfield = rbt_rand_range(0, 3) == 0;
		if (g->sfield)
			g->val = (int)rbt_rand_range(0, 255) - 128;
		else
			g->val = (int)rbt_rand_range(0, 255);
		return i;
	}
	g->type = rbt_rand_range(0, 1) ? G_AND : G_OR;
	g->l = gen(t, n, depth - 1);
	g->r = gen(t, n, depth - 1);
	return i;
}

/**
 * geval() - the reference value of a random tree for one x
 * @t: nodes
 * @i: root
 * @x: the u8 value (s8 is its signed reading)
 *
 * Return: the expression's value.
 */
static bool geval(const struct gnode *t, int i, unsigned int x)
{
	const struct gnode *g = &t[i];
	bool v;

	if (g->type == G_PRED) {
		long long a = g->sfield ? (long long)x - (x > 127 ? 256 : 0) :
					  (long long)x;
		long long k = g->val;

		switch (g->op) {
		case 0:
			v = a == k;
			break;
		case 1:
			v = a != k;
			break;
		case 2:
			v = a < k;
			break;
		case 3:
			v = a <= k;
			break;
		case 4:
			v = a > k;
			break;
		case 5:
			v = a >= k;
			break;
		default:
			v = ((unsigned long long)a & (unsigned long long)k &
			     0xff) != 0;
			break;
		}
	} else if (g->type == G_AND) {
		v = geval(t, g->l, x) && geval(t, g->r, x);
	} else {
		v = geval(t, g->l, x) || geval(t, g->r, x);
	}
	return g->nots & 1 ? !v : v;
}

/**
 * gprint() - write a random tree as an expression, with parentheses only
 * where needed (and sometimes where not) and random blanks
 * @t: nodes
 * @i: root
 * @parent: type of the parent (G_PRED for none)
 * @p: where to write
 *
 * Return: the end of what was written.
 */
static char *gprint(const struct gnode *t, int i, int parent, char *p)
{
	const struct gnode *g = &t[i];
	static const char *const sp[] = { "", " ", "  ", "\t" };
	bool paren;

	for (int k = 0; k < g->nots; k++)
		p += sprintf(p, "!%s", sp[rbt_rand_range(0, 3)]);
	if (g->type == G_PRED) {
		paren = rbt_rand_range(0, 5) == 0;
		p += sprintf(p, "%s%s%s%s%s%d%s", paren ? "(" : "",
			     g->sfield ? "s8" : "x", sp[rbt_rand_range(0, 3)],
			     g_ops[g->op], sp[rbt_rand_range(0, 3)], g->val,
			     paren ? ")" : "");
		return p;
	}
	/* '!' applies to a group; an OR under an AND needs one */
	paren = g->nots || (g->type == G_OR && parent == G_AND) ||
		rbt_rand_range(0, 4) == 0;
	if (paren)
		*p++ = '(';
	p = gprint(t, g->l, g->type, p);
	p += sprintf(p, "%s%s%s", sp[rbt_rand_range(0, 3)],
		     g->type == G_AND ? "&&" : "||", sp[rbt_rand_range(0, 3)]);
	p = gprint(t, g->r, g->type, p);
	if (paren)
		*p++ = ')';
	*p = '\0';
	return p;
}

/**
 * random_vs_reference() - random expressions agree with a direct
 * evaluation of their tree for every value of the field
 */
static void random_vs_reference(void)
{
	static struct gnode t[512];
	static char buf[RT_FILTER_MAX_LEN * 2];
	size_t lens[256];
	static unsigned char recs[256][256];

	for (unsigned int x = 0; x < 256; x++) {
		lens[x] = x_rec(x);
		memcpy(recs[x], REC_BUF, lens[x]);
	}
	for (int round = 0; round < 3000; round++) {
		struct rt_filter *f;
		int n = 0, root;

		root = gen(t, &n, (int)rbt_rand_range(0, 7));
		gprint(t, root, G_PRED, buf);
		if (strlen(buf) > RT_FILTER_MAX_LEN)
			continue;
		f = parse_ok(buf);
		for (unsigned int x = 0; x < 256; x++) {
			memcpy(REC_BUF, recs[x], lens[x]);
			if (rt_filter_match(f, REC_BUF, lens[x]) !=
			    geval(t, root, x))
				RBT_FAIL("'%s' with x=%u: got %d", buf, x,
					 !geval(t, root, x));
		}
		rt_filter_free(f);
	}
}

/* -------------------------------------------------------------- globs */

/**
 * glob_vs_fnmatch() - '~' agrees with fnmatch(3) without flags on random
 * patterns and strings made of the glob's special characters
 *
 * One known difference is left out: glibc's fnmatch() never matches when
 * an unterminated '[' ends in a range ("x[a-"), where the filter takes
 * the '[' literally, as it does for every other unterminated '['.
 */
static void glob_vs_fnmatch(void)
{
	static const char pchars[] = "ab*?[]!^-\\";
	static const char schars[] = "ab-]![^\\*";
	char pat[16], str[17], expr[64];
	unsigned int matched = 0;

	for (int round = 0; round < 20000; round++) {
		struct rec_spec spec = g_recs[0];
		size_t pn = rbt_rand_range(0, 8), sn = rbt_rand_range(0, 16);
		struct rt_filter *f;
		char *e;
		bool want;

		for (size_t i = 0; i < pn; i++)
			pat[i] = pchars[rbt_rand_range(0, sizeof(pchars) - 2)];
		pat[pn] = '\0';
		if (pn && pat[pn - 1] == '-')
			continue;
		for (size_t i = 0; i < sn; i++)
			str[i] = schars[rbt_rand_range(0, sizeof(schars) - 2)];
		str[sn] = '\0';
		/* the pattern quoted: every backslash doubled */
		e = expr + sprintf(expr, "comm ~ \"");
		for (size_t i = 0; i < pn; i++) {
			if (pat[i] == '\\')
				*e++ = '\\';
			*e++ = pat[i];
		}
		strcpy(e, "\"");
		f = parse_ok(expr);
		spec.comm = str;	/* 16 bytes fill the array: no NUL */
		want = fnmatch(pat, str, 0) == 0;
		if (rt_filter_match(f, REC_BUF, build_rec(&spec, REC_BUF)) !=
		    want)
			RBT_FAIL("pattern '%s' on '%s': got %d, fnmatch %d",
				 pat, str, !want, want);
		matched += want;
		rt_filter_free(f);
	}
	ASSERT_GT(matched, 200);
}

/* ---------------------------------------------------------- API edges */

/**
 * field_checks() - field descriptions the filter cannot use
 */
static void field_checks(void)
{
	static const struct rt_field bad[] = {
		{ "int3", "odd", 8, 3, 1, RT_FIELD_INT, 0 },
		{ "loc", "loc2", 8, 2, 0, RT_FIELD_DYNSTR, 0 },
		{ "?", "weird", 8, 4, 0, 99, 0 },
		{ "ptr", "p4", 8, 4, 1, RT_FIELD_PTR, 0 },
		{ "char[0]", "empty", 8, 0, 0, RT_FIELD_STRING, 1 },
		{ "int", NULL, 8, 4, 1, RT_FIELD_INT, 0 },
	};
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);
	struct rt_filter_error err;
	struct rt_filter *f;
	unsigned char rec[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0xff, 0xff, 0xff };

	ASSERT_EQ(rt_filter_parse("odd == 1", bad, nbad, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);
	/* one past the name, as the kernel places a field's errors */
	ASSERT_EQ(err.pos, 4);
	ASSERT_EQ(rt_filter_parse("x == 1 || loc2 == a", bad, nbad, &f, &err),
		  -1);
	/* x is not in this table */
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);
	ASSERT_EQ(err.pos, 2);
	ASSERT_EQ(rt_filter_parse("loc2 == a", bad, nbad, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);
	ASSERT_EQ(rt_filter_parse("weird == 1", bad, nbad, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);

	/* an address is unsigned even if marked signed; size 4 works */
	ASSERT_EQ(rt_filter_parse("p4 == 0xffffffff", bad, nbad, &f, &err), 0);
	ASSERT_TRUE(rt_filter_match(f, rec, sizeof(rec)));
	rt_filter_free(f);
	ASSERT_EQ(rt_filter_parse("p4 == -1", bad, nbad, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_VALUE);

	/* a zero-sized string field holds "" */
	ASSERT_EQ(rt_filter_parse("empty == \"\"", bad, nbad, &f, &err), 0);
	ASSERT_TRUE(rt_filter_match(f, rec, 8));
	rt_filter_free(f);
	ASSERT_EQ(rt_filter_parse("empty ~ \"?*\"", bad, nbad, &f, &err), 0);
	ASSERT_FALSE(rt_filter_match(f, rec, sizeof(rec)));
	rt_filter_free(f);

	/* no fields at all */
	ASSERT_EQ(rt_filter_parse("a == 1", NULL, 0, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);
	ASSERT_EQ(rt_filter_parse("a == 1", NULL, 5, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_FIELD);
}

/**
 * api_edges() - NULL arguments, a NULL error pointer, the stored string
 */
static void api_edges(void)
{
	struct rt_filter_error err;
	struct rt_filter *f = (struct rt_filter *)&err;
	char expr[] = "s8 == 5 \n";

	/* err may be NULL */
	ASSERT_EQ(rt_filter_parse("nosuch == 1", g_fields, NR_FIELDS, &f,
				  NULL), -1);
	ASSERT_NULL(f);
	ASSERT_EQ(rt_filter_parse("s8 == 5", g_fields, NR_FIELDS, &f, NULL),
		  0);
	rt_filter_free(f);
	/* a NULL expression is an empty one */
	ASSERT_EQ(rt_filter_parse(NULL, g_fields, NR_FIELDS, &f, &err), -1);
	ASSERT_EQ(err.code, RT_FILTER_E_SYNTAX);
	/* no output pointer */
	ASSERT_EQ(rt_filter_parse("s8 == 5", g_fields, NR_FIELDS, NULL, &err),
		  -1);
	/* NULL filter: matches everything, frees nothing */
	ASSERT_TRUE(rt_filter_match(NULL, NULL, 0));
	rt_filter_free(NULL);
	ASSERT_NULL(rt_filter_string(NULL));
	/* the expression is copied, as given */
	ASSERT_EQ(rt_filter_parse(expr, g_fields, NR_FIELDS, &f, &err), 0);
	ASSERT_EQ(err.code, RT_FILTER_OK);
	ASSERT_EQ(err.pos, 0);
	ASSERT_EQ(err.msg[0], '\0');
	expr[0] = 'u';
	ASSERT_TRUE(strcmp(rt_filter_string(f), "s8 == 5 \n") == 0);
	ASSERT_TRUE(rt_filter_match(f, REC_BUF, build_rec(&g_recs[4],
							   REC_BUF)));
	rt_filter_free(f);
}

static const struct rbt_case cases[] = {
	RBT_CASE(valid_table),
	RBT_CASE(invalid_table),
	RBT_CASE(error_print),
	RBT_CASE(truncated_records),
	RBT_CASE(data_loc_bounds),
	RBT_CASE(long_chains),
	RBT_CASE(deep_nesting),
	RBT_CASE(too_long),
	RBT_CASE(short_strings),
	RBT_CASE(random_vs_reference),
	RBT_CASE(glob_vs_fnmatch),
	RBT_CASE(field_checks),
	RBT_CASE(api_edges),
};

RBT_MAIN(cases)
