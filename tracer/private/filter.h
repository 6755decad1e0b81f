/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * filter.h - event filters: the expressions written to an event's
 * "filter" file, compiled against the event's fields and evaluated on
 * every record of that event.
 *
 * An expression is a set of predicates "field op value" combined with
 * "&&", "||", "!" and parentheses:
 *
 *	((sig >= 10 && sig < 15) || sig == 17) && comm != bash
 *
 * Numeric fields (RT_FIELD_INT, RT_FIELD_PTR) take ==, !=, <, <=, >, >=
 * and & ("field & value" is true when a bit of value is set in the
 * field); string fields (RT_FIELD_STRING, RT_FIELD_DYNSTR) take ==, !=
 * and ~ (a glob with *, ? and [...] classes). rt_filter_parse() compiles
 * the expression into a flat program that rt_filter_match() runs in one
 * loop, without recursion, allocation or locks, so that it can run in
 * the writer's context (a signal handler included).
 *
 * "&&" binds tighter than "||"; '!' applies to the predicate or the
 * parenthesised group after it ("!a == 1" is "!(a == 1)"). Numbers are
 * decimal, 0x hexadecimal or 0 octal, with a '-' for negative values; a
 * number the field cannot hold is refused (the kernel truncates it).
 * Strings are quoted with '"' or '\'' (a backslash before the quote or
 * before a backslash stands for that character) or are a bare word up to
 * a blank, a parenthesis, '&', '|', a quote or one of "=<>~".
 *
 * Errors carry the offset of the offending token: the start of an unknown
 * field, of an operator that does not suit the field, of a bad value, of
 * an unexpected token, an unmatched ')', the innermost unclosed '(', the
 * opening quote of an unterminated string, and the end of the expression
 * when it stops where an operand or operator is due.
 */
#ifndef RINGTRACE_FILTER_H
#define RINGTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "field.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A compiled filter. Opaque: use the functions below. */
struct rt_filter;

/**
 * enum rt_filter_errcode - why an expression was refused
 * @RT_FILTER_OK: no error
 * @RT_FILTER_E_SYNTAX: unexpected token, missing operand, missing
 *	operator, empty expression
 * @RT_FILTER_E_FIELD: the field is not one of the event's
 * @RT_FILTER_E_OP: the operator is not valid for the field's type (< on a
 *	string, ~ on a number), or the field cannot be filtered (an array)
 * @RT_FILTER_E_VALUE: a malformed number, a number out of range for the
 *	field, an unterminated string
 * @RT_FILTER_E_PARENS: unbalanced parentheses
 * @RT_FILTER_E_NOMEM: out of memory
 * @RT_FILTER_E_TOO_LONG: the expression is longer than RT_FILTER_MAX_LEN
 */
enum rt_filter_errcode {
	RT_FILTER_OK = 0,
	RT_FILTER_E_SYNTAX,
	RT_FILTER_E_FIELD,
	RT_FILTER_E_OP,
	RT_FILTER_E_VALUE,
	RT_FILTER_E_PARENS,
	RT_FILTER_E_NOMEM,
	RT_FILTER_E_TOO_LONG,
};

/** The longest expression rt_filter_parse() accepts, in bytes. */
#define RT_FILTER_MAX_LEN 65536

/**
 * struct rt_filter_error - where and why rt_filter_parse() failed
 * @code: enum rt_filter_errcode
 * @pos: the place of the error, a 0-based byte offset in the expression,
 *	as the kernel gives it (one past the offending token inside a
 *	predicate: rt_filter_parse()), at most one past the end
 * @msg: a short description, e.g. "Field not found"
 */
struct rt_filter_error {
	int code;
	int pos;
	char msg[128];
};

/**
 * rt_filter_parse() - compile a filter expression
 * @expr: the expression, NUL-terminated
 * @fields: the event's fields, common fields included
 * @nr_fields: number of entries in @fields
 * @out: where to store the compiled filter
 * @err: filled with the reason of a failure (may be NULL); on success its
 *	code is RT_FILTER_OK
 *
 * An empty or all-blank expression is an error; "0" gets no special
 * treatment (clearing a filter is the caller's business). @expr is copied;
 * @fields only has to live for the duration of the call.
 *
 * Context: any thread; allocates memory.
 * Return: 0 and *@out set to the filter, or -1 with *@out NULL and @err
 * filled.
 */
int rt_filter_parse(const char *expr, const struct rt_field *fields,
		    size_t nr_fields, struct rt_filter **out,
		    struct rt_filter_error *err);

/**
 * rt_filter_match() - evaluate a filter on one record
 * @f: the filter
 * @rec: the record, struct rt_entry included (field offsets are relative
 *	to it); it only needs 4-byte alignment
 * @len: bytes readable at @rec
 *
 * A predicate whose field lies (partly) beyond @len, or whose __data_loc
 * string lies outside the record, is never read: the record is rejected
 * as soon as such a predicate is reached, whatever "!" surrounds it.
 *
 * Context: any context, a signal handler included: async-signal-safe and
 * thread-safe (no allocation, no lock, @f is only read); runs in time
 * linear in the number of predicates (times the string lengths for ~).
 * Return: true if the record matches.
 */
bool rt_filter_match(const struct rt_filter *f, const void *rec, size_t len);

/**
 * rt_filter_free() - free a filter
 * @f: the filter, or NULL
 *
 * Context: any thread, once no rt_filter_match() on @f can be running.
 */
void rt_filter_free(struct rt_filter *f);

/**
 * rt_filter_string() - the expression a filter was compiled from
 * @f: the filter
 *
 * Context: any thread.
 * Return: the expression exactly as given to rt_filter_parse(), valid
 * until rt_filter_free().
 */
const char *rt_filter_string(const struct rt_filter *f);

/**
 * rt_filter_error_print() - format a parse error as the "filter" file
 *	shows it
 * @buf: output buffer (may be NULL if @len is 0)
 * @len: size of @buf
 * @expr: the expression that failed (trailing newlines are not printed)
 * @err: the error rt_filter_parse() returned
 *
 * Writes three lines: the expression, a caret under the error position
 * (@err->pos spaces then '^'), and "parse_error: <message>". The output
 * is truncated to fit and always NUL-terminated when @len > 0.
 *
 * Context: any thread.
 * Return: the length of the whole report (without the NUL), as
 * snprintf() counts it.
 */
size_t rt_filter_error_print(char *buf, size_t len, const char *expr,
			     const struct rt_filter_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RINGTRACE_FILTER_H */
