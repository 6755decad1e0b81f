// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * filter.c - event filter expressions: parser, compiler and evaluator.
 *
 * Parsing is a single left-to-right pass with an explicit operator stack
 * (the shunting-yard method), so neither a long chain of predicates nor
 * deeply nested parentheses consume C stack: every stack is an array
 * sized from the expression's length, which RT_FILTER_MAX_LEN bounds.
 * The pass builds a small expression tree whose nodes are created
 * children first; the compiler then walks the node array backwards
 * (parents before children) and turns the tree into a flat program.
 *
 * The program is an array with one entry per predicate, in the order
 * they appear in the expression. Each entry names the entry to go to
 * when its predicate is true and the one to go to when it is false; two
 * pseudo entries just past the end stand for "accept" (index nr_preds)
 * and "reject" (nr_preds + 1). Short-circuit evaluation falls out of the
 * targets: in "a && b", a false a jumps straight to wherever the whole
 * conjunction's false result goes. A jump always goes forward, so
 * evaluation is one loop that runs at most nr_preds times, with no stack
 * and nothing written.
 *
 * How the targets are found: the whole expression goes to (accept,
 * reject). A node that must go to (T, F) hands its children:
 *
 *	left && right:	left -> (first predicate of right, F),
 *			right -> (T, F)
 *	left || right:	left -> (T, first predicate of right),
 *			right -> (T, F)
 *	!x:		x -> (F, T)
 *
 * and a predicate that must go to (T, F) becomes an entry with exactly
 * those targets. The kernel's program keeps one target and a "branch
 * when" bit per entry and falls through otherwise; storing both targets
 * costs a word and keeps the evaluator to one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* Messages, in the kernel's wording where it has one. */
/* The kernel's messages (trace_events_filter.c's err_text), for the same
 * errors at the same places (see rtf_parse_expr()) */
#define MSG_INVALID_OP	"Invalid operator"
#define MSG_TOO_MANY_OPEN	"Too many '('"
#define MSG_TOO_MANY_CLOSE	"Too few '('"
#define MSG_QUOTE	"Missing matching quote"
#define MSG_TOO_LONG_OPERAND	"Operand too long"
#define MSG_EXPECT_DIGIT	"Expecting numeric field"
#define MSG_FIELD_OP	"Illegal operation for field type"
#define MSG_NOFIELD	"Field not found"
#define MSG_BADINT	"Illegal integer value"
#define MSG_TOO_MANY_PREDS	"Too many terms in predicate expression"
#define MSG_MEANINGLESS	"Meaningless filter expression"
#define MSG_BADSTR	"Invalid value (did you forget quotes)?"
#define MSG_ERRNO	"Error"
#define MSG_NO_FILTER	"No filter found"
/* ours: what the kernel takes and we refuse, or has no word for */
#define MSG_RANGE	"Integer value out of range for the field"
#define MSG_ARRAY	"Array fields cannot be filtered"
#define MSG_EMPTY	"Empty filter expression"
#define MSG_TOOLONG	"Expression too long"
#define MSG_NOMEM	"Out of memory"
#define MSG_FTYPE	"Unsupported field type"
#define MSG_FSIZE	"Unsupported field size"
#define MSG_INTERNAL	"Internal error"
#define MSG_INVAL	"Invalid argument"

/* What a predicate compares. */
enum rtf_cmp {
	RTF_EQ,
	RTF_NE,
	RTF_LT,
	RTF_LE,
	RTF_GT,
	RTF_GE,
	RTF_BAND,	/* (field & value) != 0 */
	RTF_GLOB,	/* strings: glob match */
};

/* Where a predicate's operand comes from. */
enum rtf_src {
	RTF_SRC_NUM,	/* an integer of 1, 2, 4 or 8 bytes */
	RTF_SRC_STR,	/* a fixed char array, NUL-terminated or full */
	RTF_SRC_DYN,	/* a __data_loc string */
};

/**
 * struct rtf_pred - one entry of a compiled program
 * @src: enum rtf_src
 * @cmp: enum rtf_cmp
 * @size: bytes of a numeric field
 * @is_signed: the numeric field is signed (compare as int64_t)
 * @offset: the field's offset in the record
 * @fsize: the field's size in the record
 * @on_true: entry to run next when the predicate is true
 * @on_false: entry to run next when it is false
 * @val: the constant of a numeric predicate (@val.s for signed fields,
 *	@val.u otherwise and for the & mask)
 * @str: the constant of a string predicate (not NUL-terminated)
 * @str_len: bytes at @str
 */
struct rtf_pred {
	uint8_t src;
	uint8_t cmp;
	uint8_t size;
	uint8_t is_signed;
	uint16_t offset;
	uint16_t fsize;
	uint32_t on_true;
	uint32_t on_false;
	union {
		uint64_t u;
		int64_t s;
	} val;
	const char *str;
	size_t str_len;
};

/**
 * struct rt_filter - a compiled filter
 * @nr_preds: entries in @prog; nr_preds means accept, nr_preds + 1 reject
 * @prog: the program
 * @expr: the expression as given
 * @strings: storage of the string constants
 */
struct rt_filter {
	uint32_t nr_preds;
	struct rtf_pred *prog;
	char *expr;
	char *strings;
};

/* Node types of the expression tree built while parsing. */
enum rtf_node_type {
	RTF_NODE_PRED,
	RTF_NODE_AND,
	RTF_NODE_OR,
};

/**
 * struct rtf_node - a node of the expression tree
 * @type: enum rtf_node_type
 * @invert: an odd number of '!' applies to the node
 * @left: left operand (node index), or the predicate's index for a leaf
 * @right: right operand (node index)
 * @first: index of the first predicate in the node's subtree
 * @on_true: where the node's result goes when true (set by the compiler)
 * @on_false: same, when false
 */
struct rtf_node {
	uint8_t type;
	bool invert;
	uint32_t left;
	uint32_t right;
	uint32_t first;
	uint32_t on_true;
	uint32_t on_false;
};

/* Entries of the operator stack. */
enum rtf_op {
	RTF_OP_LPAREN,
	RTF_OP_NOT,
	RTF_OP_AND,
	RTF_OP_OR,
};

/**
 * struct rtf_opent - an operator waiting on the stack
 * @op: enum rtf_op
 * @pos: where it is in the expression (for "Unbalanced parens")
 */
struct rtf_opent {
	uint32_t op;
	uint32_t pos;
};

/**
 * struct rtf_parser - state of one rt_filter_parse() call
 * @s: the expression
 * @len: its length
 * @pos: the current offset in @s
 * @fields: the event's fields
 * @nr_fields: entries in @fields
 * @err: where errors go
 * @cap: capacity of every array below (the expression's length + 1: a
 *	node, an operator or a predicate always takes at least one byte)
 * @nodes: the expression tree, children before parents
 * @nr_nodes: nodes used
 * @preds: the predicates, in expression order
 * @nr_preds: predicates used
 * @vals: operand stack (node indices)
 * @nr_vals: its depth
 * @ops: operator stack
 * @nr_ops: its depth
 * @pool: storage of string constants (escapes only shrink a string, so
 *	the expression's length is enough)
 * @pool_used: bytes used in @pool
 */
struct rtf_parser {
	const char *s;
	size_t len;
	size_t pos;
	const struct rt_field *fields;
	size_t nr_fields;
	struct rt_filter_error *err;
	size_t cap;
	struct rtf_node *nodes;
	uint32_t nr_nodes;
	struct rtf_pred *preds;
	uint32_t nr_preds;
	uint32_t *vals;
	uint32_t nr_vals;
	struct rtf_opent *ops;
	uint32_t nr_ops;
	char *pool;
	size_t pool_used;
};

/* ------------------------------------------------------------ errors */

/**
 * rtf_set_error() - fill an error report
 * @err: the report
 * @code: enum rt_filter_errcode
 * @pos: offset of the error in the expression
 * @msg: the message (truncated to fit)
 *
 * Context: any thread.
 */
static void rtf_set_error(struct rt_filter_error *err, int code, size_t pos,
			  const char *msg)
{
	size_t n = strlen(msg);

	if (n >= sizeof(err->msg))
		n = sizeof(err->msg) - 1;
	err->code = code;
	err->pos = pos > INT32_MAX ? INT32_MAX : (int)pos;
	memcpy(err->msg, msg, n);
	err->msg[n] = '\0';
}

/**
 * rtf_error() - record a parse error
 * @p: the parser
 * @code: enum rt_filter_errcode
 * @pos: offset of the error in the expression
 * @msg: the message
 *
 * Context: parser.
 * Return: -1, for "return rtf_error(...);".
 */
static int rtf_error(struct rtf_parser *p, int code, size_t pos,
		     const char *msg)
{
	rtf_set_error(p->err, code, pos, msg);
	return -1;
}

/* ------------------------------------------------------------ lexing */

/**
 * rtf_is_blank() - whether a character separates tokens
 * @c: the character
 *
 * Context: any.
 * Return: true for space, tab, newline, carriage return, vertical tab and
 * form feed (locale-independent, unlike isspace()).
 */
static bool rtf_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

/**
 * rtf_is_alpha() - whether a character is a letter of a field name
 * @c: the character
 *
 * Context: any.
 * Return: true for an ASCII letter or '_'.
 */
static bool rtf_is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/**
 * rtf_is_alnum() - whether a character may continue a field name
 * @c: the character
 *
 * Context: any.
 * Return: true for an ASCII letter, digit or '_'.
 */
static bool rtf_is_alnum(char c)
{
	return rtf_is_alpha(c) || (c >= '0' && c <= '9');
}

/**
 * rtf_is_word() - whether a character belongs to an unquoted value
 * @c: the character
 *
 * An unquoted value runs up to a blank, a parenthesis, '&', '|', a quote
 * or a character of a comparison operator ('=', '<', '>', '~'). '!' is
 * allowed so that a glob class "[!abc]" needs no quotes.
 *
 * Context: any.
 * Return: true if @c may be part of an unquoted value.
 */
static bool rtf_is_word(char c)
{
	return c != '\0' && !rtf_is_blank(c) && !strchr("()&|\"'=<>~", c);
}

/**
 * rtf_skip_blanks() - move past blanks
 * @p: the parser
 *
 * Context: parser.
 */
static void rtf_skip_blanks(struct rtf_parser *p)
{
	while (rtf_is_blank(p->s[p->pos]))
		p->pos++;
}

/**
 * rtf_at_logical() - whether "&&" or "||" starts at an offset
 * @p: the parser
 * @at: the offset
 *
 * Context: parser.
 * Return: true if a logical operator starts at @at.
 */
static bool rtf_at_logical(const struct rtf_parser *p, size_t at)
{
	char c = p->s[at];

	return (c == '&' || c == '|') && p->s[at + 1] == c;
}

/* ------------------------------------------------------------ values */

/**
 * rtf_digit() - value of a digit character
 * @c: the character
 *
 * Context: any.
 * Return: 0-9 for '0'-'9', 10-15 for 'a'-'f' and 'A'-'F', 99 otherwise.
 */
static unsigned int rtf_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned int)(c - 'a') + 10;
	if (c >= 'A' && c <= 'F')
		return (unsigned int)(c - 'A') + 10;
	return 99;
}

/**
 * rtf_parse_number() - read an integer constant
 * @s: the digits (not NUL-terminated)
 * @n: bytes at @s
 * @neg: set if the constant has a leading '-'
 * @mag: set to its magnitude
 *
 * Accepts an optional '-', then decimal, "0x"/"0X" hexadecimal or
 * "0"-prefixed octal digits, and nothing else.
 *
 * Context: any.
 * Return: 0, or -1 if @s is not a number or its magnitude does not fit
 * 64 bits.
 */
static int rtf_parse_number(const char *s, size_t n, bool *neg,
			    uint64_t *mag)
{
	unsigned int base = 10;
	uint64_t v = 0;
	size_t i = 0;

	*neg = false;
	if (i < n && s[i] == '-') {
		*neg = true;
		i++;
	}
	if (i == n)
		return -1;
	if (s[i] == '0' && i + 1 < n) {
		if (s[i + 1] == 'x' || s[i + 1] == 'X') {
			base = 16;
			i += 2;
			if (i == n)
				return -1;
		} else {
			base = 8;
			i++;
		}
	}
	for (; i < n; i++) {
		unsigned int d = rtf_digit(s[i]);

		if (d >= base)
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*mag = v;
	return 0;
}

/**
 * rtf_set_number() - check a constant against a numeric field and store it
 * @pr: the predicate (size, signedness and cmp already set)
 * @neg: the constant is negative
 * @mag: its magnitude
 *
 * The kernel accepts any constant and truncates it to the field's width;
 * we refuse a constant the field cannot hold, so that "u8field == 256"
 * or "u32field == -1" are reported instead of silently meaning something
 * else. For '&' the constant is a bit mask: any value that fits the width
 * as either a signed or an unsigned number is accepted (so "s32 &
 * 0x80000000" tests the sign bit), and only the low bits are kept.
 *
 * Context: parser.
 * Return: 0, or -1 if the constant is out of range.
 */
static int rtf_set_number(struct rtf_pred *pr, bool neg, uint64_t mag)
{
	unsigned int bits = pr->size * 8u;
	uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	uint64_t smax = umax >> 1;	/* largest positive signed value */
	uint64_t nmax = smax + 1;	/* magnitude of the most negative */
	uint64_t bits_of;

	if (neg && mag == 0)
		neg = false;
	if (pr->cmp == RTF_BAND) {
		if (neg ? mag > nmax : mag > umax)
			return -1;
		/* Two's complement of the value, modulo 2^64. */
		bits_of = neg ? (uint64_t)0 - mag : mag;
		pr->val.u = bits_of & umax;
		return 0;
	}
	if (pr->is_signed) {
		if (neg ? mag > nmax : mag > smax)
			return -1;
		/* -(mag - 1) - 1 stays within int64_t even for 2^63. */
		pr->val.s = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
		return 0;
	}
	if (neg || mag > umax)
		return -1;
	pr->val.u = mag;
	return 0;
}

/**
 * rtf_has_glob() - whether a pattern uses any glob syntax
 * @s: the pattern
 * @n: its length
 *
 * Context: any.
 * Return: true if @s holds '*', '?', '[' or '\\'.
 */
static bool rtf_has_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

/**
 * rtf_parse_string() - read the value of a string predicate
 * @p: the parser, at the first character of the value
 * @pr: the predicate that gets the value
 *
 * A value is either quoted with '"' or '\'' (inside, a backslash before
 * the quote character or before another backslash stands for that
 * character; any other backslash is kept, so "\*" reaches the glob
 * matcher as an escaped star) or an unquoted word (see rtf_is_word()).
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded.
 */
static int rtf_parse_string(struct rtf_parser *p, struct rtf_pred *pr)
{
	size_t at = p->pos;
	char *dst = p->pool + p->pool_used;
	size_t n = 0;
	char q = p->s[at];

	if (q == '"' || q == '\'') {
		size_t i = at + 1;

		for (;;) {
			char c = p->s[i];

			if (c == '\0')
				return rtf_error(p, RT_FILTER_E_VALUE, i + 1,
						 MSG_QUOTE);
			if (c == q) {
				i++;
				break;
			}
			if (c == '\\' && (p->s[i + 1] == q ||
					  p->s[i + 1] == '\\')) {
				c = p->s[i + 1];
				i++;
			}
			dst[n++] = c;
			i++;
		}
		p->pos = i;
	} else {
		while (rtf_is_word(p->s[p->pos]))
			dst[n++] = p->s[p->pos++];
		if (!n)
			return rtf_error(p, RT_FILTER_E_VALUE, at + 1,
					 MSG_BADSTR);
	}
	pr->str = dst;
	pr->str_len = n;
	p->pool_used += n;
	return 0;
}

/* The longest number the kernel reads (its num_buf, 24 bytes) */
#define RTF_NUM_MAX 23

/**
 * rtf_parse_int() - read the value of a numeric predicate
 * @p: the parser, at the first character of the value (a digit or '-')
 * @pr: the predicate that gets the value
 *
 * As the kernel reads it: an optional '-', then letters and digits.
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded (one past the value's start).
 */
static int rtf_parse_int(struct rtf_parser *p, struct rtf_pred *pr)
{
	size_t at = p->pos;
	uint64_t mag;
	bool neg;

	if (p->s[p->pos] == '-')
		p->pos++;
	while (rtf_is_alnum(p->s[p->pos]) && p->s[p->pos] != '_')
		p->pos++;
	if (p->pos - at > RTF_NUM_MAX)
		return rtf_error(p, RT_FILTER_E_VALUE, p->pos + 1,
				 MSG_TOO_LONG_OPERAND);
	if (rtf_parse_number(p->s + at, p->pos - at, &neg, &mag))
		return rtf_error(p, RT_FILTER_E_VALUE, at + 1, MSG_BADINT);
	if (rtf_set_number(pr, neg, mag))
		return rtf_error(p, RT_FILTER_E_VALUE, at + 1, MSG_RANGE);
	return 0;
}

/* ------------------------------------------------------------ parsing */

/**
 * rtf_find_field() - look a field up by name
 * @p: the parser
 * @name: the name (not NUL-terminated)
 * @n: its length
 *
 * Context: parser.
 * Return: the first field called @name, or NULL.
 */
static const struct rt_field *rtf_find_field(const struct rtf_parser *p,
					     const char *name, size_t n)
{
	for (size_t i = 0; i < p->nr_fields; i++) {
		const char *fn = p->fields[i].name;

		if (fn && strlen(fn) == n && !memcmp(fn, name, n))
			return &p->fields[i];
	}
	return NULL;
}

/**
 * rtf_parse_op() - read a comparison operator
 * @p: the parser, at the operator
 * @cmp: set to the enum rtf_cmp
 *
 * The kernel's operators, tried in its order ("&" matches the first
 * character of "&&" too, as there).
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded (one past the operator's
 * place, as the kernel reports it: see rtf_parse_expr()).
 */
static int rtf_parse_op(struct rtf_parser *p, uint8_t *cmp)
{
	static const struct {
		char op[3];
		uint8_t cmp;
	} ops[] = { { "~", RTF_GLOB }, { "!=", RTF_NE }, { "==", RTF_EQ },
		    { "<=", RTF_LE },  { "<", RTF_LT },  { ">=", RTF_GE },
		    { ">", RTF_GT },   { "&", RTF_BAND } };
	size_t at = p->pos, i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].op);

		if (!strncmp(p->s + at, ops[i].op, n)) {
			*cmp = ops[i].cmp;
			p->pos += n;
			return 0;
		}
	}
	return rtf_error(p, RT_FILTER_E_SYNTAX, at + 1, MSG_INVALID_OP);
}

/**
 * rtf_check_field() - check that a field can be filtered on
 * @p: the parser
 * @f: the field
 * @at: where its name is in the expression
 * @pr: the predicate, whose source and size are set from @f
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded (at the field's name).
 */
static int rtf_check_field(struct rtf_parser *p, const struct rt_field *f,
			   size_t at, struct rtf_pred *pr)
{
	pr->offset = f->offset;
	pr->fsize = f->size;
	switch (f->kind) {
	case RT_FIELD_INT:
	case RT_FIELD_PTR:
		if (f->size != 1 && f->size != 2 && f->size != 4 &&
		    f->size != 8)
			return rtf_error(p, RT_FILTER_E_FIELD, at, MSG_FSIZE);
		pr->src = RTF_SRC_NUM;
		pr->size = (uint8_t)f->size;
		/* An address is compared as an unsigned integer. */
		pr->is_signed = f->kind == RT_FIELD_INT && f->is_signed;
		return 0;
	case RT_FIELD_STRING:
		pr->src = RTF_SRC_STR;
		return 0;
	case RT_FIELD_DYNSTR:
		if (f->size != 4)
			return rtf_error(p, RT_FILTER_E_FIELD, at, MSG_FSIZE);
		pr->src = RTF_SRC_DYN;
		return 0;
	case RT_FIELD_ARRAY:
		return rtf_error(p, RT_FILTER_E_OP, at, MSG_ARRAY);
	default:
		return rtf_error(p, RT_FILTER_E_FIELD, at, MSG_FTYPE);
	}
}

/**
 * rtf_new_node() - append a node to the expression tree
 * @p: the parser
 * @type: enum rtf_node_type
 * @left: left child, or the predicate index of a leaf
 * @right: right child (ignored for a leaf)
 *
 * The node is pushed on the operand stack.
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded (cannot happen: the arrays
 * are sized for the worst case, but the check is cheap).
 */
static int rtf_new_node(struct rtf_parser *p, uint8_t type, uint32_t left,
			uint32_t right)
{
	struct rtf_node *nd;

	if (p->nr_nodes >= p->cap || p->nr_vals >= p->cap)
		return rtf_error(p, RT_FILTER_E_NOMEM, p->pos, MSG_INTERNAL);
	nd = &p->nodes[p->nr_nodes];
	nd->type = type;
	nd->invert = false;
	nd->left = left;
	nd->right = right;
	nd->first = type == RTF_NODE_PRED ? left : p->nodes[left].first;
	p->vals[p->nr_vals++] = p->nr_nodes++;
	return 0;
}

/**
 * rtf_parse_pred() - read one predicate "field op value"
 * @p: the parser, at the first character of the predicate
 *
 * The predicate becomes the next program entry and a leaf of the tree.
 * Its errors are the kernel's, at its places (rtf_parse_expr()): a
 * numeric field takes a number (a digit or '-' first) or refuses a
 * quoted string or anything else; a string field takes a quoted string,
 * and (ours: the kernel wants the quotes) an unquoted word.
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded.
 */
static int rtf_parse_pred(struct rtf_parser *p)
{
	size_t name_at = p->pos, name_end, val_at;
	const struct rt_field *f;
	struct rtf_pred *pr;
	bool suffix = false, string_op;
	char c;

	if (p->nr_preds >= p->cap)
		return rtf_error(p, RT_FILTER_E_NOMEM, p->pos, MSG_INTERNAL);
	pr = &p->preds[p->nr_preds];
	memset(pr, 0, sizeof(*pr));

	while (rtf_is_alnum(p->s[p->pos]))
		p->pos++;
	name_end = p->pos;
	if (name_end == name_at)
		return rtf_error(p, RT_FILTER_E_SYNTAX, 0, MSG_ERRNO);
	f = rtf_find_field(p, p->s + name_at, name_end - name_at);
	if (!f)
		return rtf_error(p, RT_FILTER_E_FIELD, name_end + 1,
				 MSG_NOFIELD);
	if (rtf_check_field(p, f, name_end + 1, pr))
		return -1;
	/* The kernel's ".ustring" (read a pointer field's string from
	 * user memory) changes nothing here, where no field is such a
	 * pointer; ".function" (an address named by a function) is not
	 * filtered on: refused at the value, as the kernel refuses it on
	 * a field that cannot hold an address. */
	if (!strncmp(p->s + p->pos, ".ustring", 8)) {
		p->pos += 8;
	} else if (!strncmp(p->s + p->pos, ".function", 9)) {
		p->pos += 9;
		suffix = true;
	}

	rtf_skip_blanks(p);
	if (rtf_parse_op(p, &pr->cmp))
		return -1;
	rtf_skip_blanks(p);
	val_at = p->pos;
	c = p->s[val_at];
	if (suffix)
		return rtf_error(p, RT_FILTER_E_OP, val_at + 1, MSG_FIELD_OP);
	/* the operators a string value takes (quoted, for any field) */
	string_op = pr->cmp == RTF_EQ || pr->cmp == RTF_NE ||
		    pr->cmp == RTF_GLOB;
	if (pr->src != RTF_SRC_NUM &&
	    (c == '"' || c == '\'' || rtf_is_word(c))) {
		/* a string (unquoted: ours, where the kernel wants quotes) */
		if (!string_op)
			return rtf_error(p, RT_FILTER_E_OP, val_at + 1,
					 MSG_FIELD_OP);
		if (rtf_parse_string(p, pr))
			return -1;
		/* A pattern without wildcards is an equality test. */
		if (pr->cmp == RTF_GLOB && !rtf_has_glob(pr->str, pr->str_len))
			pr->cmp = RTF_EQ;
	} else if (pr->src == RTF_SRC_NUM && (c == '"' || c == '\'')) {
		if (!string_op)
			return rtf_error(p, RT_FILTER_E_OP, val_at + 1,
					 MSG_FIELD_OP);
		return rtf_error(p, RT_FILTER_E_VALUE, val_at + 1,
				 MSG_EXPECT_DIGIT);
	} else if (pr->src == RTF_SRC_NUM &&
		   (c == '-' || (c >= '0' && c <= '9'))) {
		if (pr->cmp == RTF_GLOB)
			return rtf_error(p, RT_FILTER_E_OP, val_at + 1,
					 MSG_FIELD_OP);
		if (rtf_parse_int(p, pr))
			return -1;
	} else {
		return rtf_error(p, RT_FILTER_E_VALUE, val_at + 1, MSG_BADSTR);
	}
	return rtf_new_node(p, RTF_NODE_PRED, p->nr_preds++, 0);
}

/**
 * rtf_push_op() - push an operator
 * @p: the parser
 * @op: enum rtf_op
 * @pos: where it is in the expression
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded (cannot happen, see
 * rtf_new_node()).
 */
static int rtf_push_op(struct rtf_parser *p, uint32_t op, size_t pos)
{
	if (p->nr_ops >= p->cap)
		return rtf_error(p, RT_FILTER_E_NOMEM, pos, MSG_INTERNAL);
	p->ops[p->nr_ops].op = op;
	p->ops[p->nr_ops].pos = (uint32_t)pos;
	p->nr_ops++;
	return 0;
}

/**
 * rtf_apply_nots() - apply the '!'s waiting before a complete operand
 * @p: the parser; the operand is on top of the operand stack
 *
 * '!' binds tighter than "&&" and "||" and applies to the predicate or
 * parenthesised group that follows it, so it takes effect as soon as that
 * operand is complete.
 *
 * Context: parser.
 */
static void rtf_apply_nots(struct rtf_parser *p)
{
	while (p->nr_ops && p->ops[p->nr_ops - 1].op == RTF_OP_NOT) {
		p->nr_ops--;
		p->nodes[p->vals[p->nr_vals - 1]].invert ^= true;
	}
}

/**
 * rtf_reduce() - combine operands with the binary operators on the stack
 * @p: the parser
 * @or_too: also pop "||" (false: only "&&", which binds tighter)
 *
 * Pops "&&" (and "||" if @or_too) operators from the top of the operator
 * stack, each making a node of the two operands on top of the operand
 * stack. Stops at '(' or an operator of lower precedence.
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded.
 */
static int rtf_reduce(struct rtf_parser *p, bool or_too)
{
	while (p->nr_ops) {
		uint32_t op = p->ops[p->nr_ops - 1].op;
		uint32_t l, r;

		if (op != RTF_OP_AND && !(or_too && op == RTF_OP_OR))
			break;
		if (p->nr_vals < 2)
			return rtf_error(p, RT_FILTER_E_SYNTAX, p->pos,
					 MSG_INTERNAL);
		p->nr_ops--;
		r = p->vals[--p->nr_vals];
		l = p->vals[--p->nr_vals];
		if (rtf_new_node(p, op == RTF_OP_AND ? RTF_NODE_AND :
				 RTF_NODE_OR, l, r))
			return -1;
	}
	return 0;
}

/**
 * rtf_parse_expr() - parse a whole expression into the tree
 * @p: the parser, at the start
 *
 * The parser alternates between wanting an operand ('!', '(' or a
 * predicate) and wanting what may follow one ("&&", "||", ')' or the
 * end). The errors, their messages and their places are the kernel's
 * (its error_log is the oracle: tests/tracefs/errlog_oracle.sh), which
 * reports an error inside a predicate one character past the place it
 * names (predicate_parse() passes parse_pred() the predicate's offset
 * plus one): past the field's name for an unknown field, past the start
 * of the operator or of the value for theirs. Something that is not a
 * predicate where one is wanted is "Error" at 0 (parse_pred() returns
 * -1 without a report), and a predicate followed by anything but "&&",
 * "||", ')' or the end is "Too many terms" at that place. Parentheses
 * and quotes were checked before (rtf_precheck()).
 *
 * Context: parser.
 * Return: 0 with the tree's root alone on the operand stack, or -1 with
 * the error recorded.
 */
static int rtf_parse_expr(struct rtf_parser *p)
{
	bool want_operand = true;

	for (;;) {
		size_t at;
		char c;

		rtf_skip_blanks(p);
		at = p->pos;
		c = p->s[at];
		if (want_operand) {
			/* '!' before '=' or '~' is no negation (the kernel's
			 * is_not()) */
			if (c == '(' || (c == '!' && p->s[at + 1] != '=' &&
					 p->s[at + 1] != '~')) {
				if (rtf_push_op(p, c == '!' ? RTF_OP_NOT :
						RTF_OP_LPAREN, at))
					return -1;
				p->pos++;
				continue;
			}
			if (rtf_is_alnum(c)) {
				if (rtf_parse_pred(p))
					return -1;
				rtf_apply_nots(p);
				want_operand = false;
				continue;
			}
			if (c == '\0')
				/* the expression ends after "&&", "||", '('
				 * or '!' */
				return rtf_error(p, RT_FILTER_E_SYNTAX, at,
						 p->nr_preds ? MSG_MEANINGLESS :
							       MSG_NO_FILTER);
			return rtf_error(p, RT_FILTER_E_SYNTAX, 0, MSG_ERRNO);
		}

		if (rtf_at_logical(p, at)) {
			bool is_and = c == '&';

			if (rtf_reduce(p, !is_and) ||
			    rtf_push_op(p, is_and ? RTF_OP_AND : RTF_OP_OR,
					at))
				return -1;
			p->pos += 2;
			want_operand = true;
			continue;
		}
		if (c == ')') {
			if (rtf_reduce(p, true))
				return -1;
			if (!p->nr_ops || p->ops[p->nr_ops - 1].op !=
					  RTF_OP_LPAREN)
				return rtf_error(p, RT_FILTER_E_PARENS, at + 1,
						 MSG_TOO_MANY_CLOSE);
			p->nr_ops--;
			p->pos++;
			/* The group is now an operand, as a predicate is. */
			rtf_apply_nots(p);
			continue;
		}
		if (c != '\0')
			return rtf_error(p, RT_FILTER_E_SYNTAX, at,
					 MSG_TOO_MANY_PREDS);
		break;
	}

	if (rtf_reduce(p, true))
		return -1;
	if (p->nr_ops)	/* only '(' can be left */
		return rtf_error(p, RT_FILTER_E_PARENS,
				 p->ops[p->nr_ops - 1].pos, MSG_TOO_MANY_OPEN);
	if (p->nr_vals != 1 || p->vals[0] != p->nr_nodes - 1)
		return rtf_error(p, RT_FILTER_E_SYNTAX, 0, MSG_INTERNAL);
	return 0;
}

/**
 * rtf_precheck() - the kernel's first look at an expression
 * @p: the parser
 *
 * As the kernel's calc_stack(), before any predicate is read: a quote
 * left open (quoted text as rtf_parse_string() reads it) is "Missing
 * matching quote" at that quote; a ')' without its '(' is "Too few '('"
 * there; a '(' left open is "Too many '('" at the innermost one.
 * Blanks and quoted text are passed over; a
 * doubled '&' or '|' separates predicates; other characters are counted
 * as predicates, and an expression with none is "Error" at 0.
 *
 * Context: parser.
 * Return: 0, or -1 with the error recorded.
 */
static int rtf_precheck(struct rtf_parser *p)
{
	const char *s = p->s;
	size_t i, last_quote = 0, open = 0, nr_preds = 0;
	bool is_pred = false;
	char quote = 0;

	/* p->vals (p->len + 1 entries, unused until rtf_parse_expr()):
	 * the places of the '(' still open, innermost last */
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (rtf_is_blank(c))
			continue;
		if (quote) {
			/* (ours: a backslash escapes the quote or itself,
			 * see rtf_parse_string(); the kernel has no escape) */
			if (c == '\\' && (s[i + 1] == quote || s[i + 1] == '\\'))
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			quote = c;
			last_quote = i;
		} else if ((c == '&' || c == '|') && s[i + 1] == c) {
			is_pred = false;
			continue;
		} else if (c == '(') {
			is_pred = false;
			p->vals[open++] = (uint32_t)i;
			continue;
		} else if (c == ')') {
			is_pred = false;
			if (!open)
				return rtf_error(p, RT_FILTER_E_PARENS, i,
						 MSG_TOO_MANY_CLOSE);
			open--;
			continue;
		}
		if (!is_pred) {
			nr_preds++;
			is_pred = true;
		}
	}
	if (quote)
		return rtf_error(p, RT_FILTER_E_VALUE, last_quote, MSG_QUOTE);
	/* (the kernel looks for it backwards and stops short of the first
	 * character: a '(' there is reported at 0 all the same) */
	if (open)
		return rtf_error(p, RT_FILTER_E_PARENS, p->vals[open - 1],
				 MSG_TOO_MANY_OPEN);
	if (!nr_preds)
		return rtf_error(p, RT_FILTER_E_SYNTAX, 0, MSG_ERRNO);
	return 0;
}

/* ---------------------------------------------------------- compiling */

/**
 * rtf_compile() - give every predicate its two jump targets
 * @p: the parser, after a successful rtf_parse_expr()
 *
 * Walks the tree from the root down (a parent always has a higher index
 * than its children, so a backwards sweep of the node array visits
 * parents first) handing each node the targets of its result, as the
 * comment at the top of this file explains.
 *
 * Context: parser.
 * Return: 0, or -1 if a target does not go forward (a bug).
 */
static int rtf_compile(struct rtf_parser *p)
{
	uint32_t accept = p->nr_preds, reject = p->nr_preds + 1;
	uint32_t i = p->nr_nodes;

	p->nodes[i - 1].on_true = accept;
	p->nodes[i - 1].on_false = reject;
	while (i--) {
		struct rtf_node *nd = &p->nodes[i];
		uint32_t t = nd->invert ? nd->on_false : nd->on_true;
		uint32_t f = nd->invert ? nd->on_true : nd->on_false;
		struct rtf_node *l, *r;

		if (nd->type == RTF_NODE_PRED) {
			p->preds[nd->left].on_true = t;
			p->preds[nd->left].on_false = f;
			continue;
		}
		l = &p->nodes[nd->left];
		r = &p->nodes[nd->right];
		if (nd->type == RTF_NODE_AND) {
			l->on_true = r->first;
			l->on_false = f;
		} else {
			l->on_true = t;
			l->on_false = r->first;
		}
		r->on_true = t;
		r->on_false = f;
	}
	/* rt_filter_match() terminates because every jump goes forward. */
	for (i = 0; i < p->nr_preds; i++)
		if (p->preds[i].on_true <= i || p->preds[i].on_false <= i ||
		    p->preds[i].on_true > reject ||
		    p->preds[i].on_false > reject)
			return rtf_error(p, RT_FILTER_E_SYNTAX, 0,
					 MSG_INTERNAL);
	return 0;
}

/**
 * rtf_parser_free() - free a parser's scratch arrays
 * @p: the parser
 *
 * Context: parser.
 */
static void rtf_parser_free(struct rtf_parser *p)
{
	free(p->nodes);
	free(p->preds);
	free(p->vals);
	free(p->ops);
	free(p->pool);
}

/**
 * rtf_expr_len() - length of an expression, bounded
 * @s: the expression
 *
 * Context: any.
 * Return: strlen(@s), or RT_FILTER_MAX_LEN + 1 if it is longer than
 * RT_FILTER_MAX_LEN (without reading further).
 */
static size_t rtf_expr_len(const char *s)
{
	size_t n = 0;

	while (n <= RT_FILTER_MAX_LEN && s[n])
		n++;
	return n;
}

int rt_filter_parse(const char *expr, const struct rt_field *fields,
		    size_t nr_fields, struct rt_filter **out,
		    struct rt_filter_error *err)
{
	struct rt_filter_error dummy;
	struct rtf_parser p;
	struct rt_filter *f = NULL;
	size_t i;

	if (!err)
		err = &dummy;
	if (out)
		*out = NULL;
	if (!expr)
		expr = "";
	memset(&p, 0, sizeof(p));
	p.s = expr;
	p.fields = fields;
	p.nr_fields = fields ? nr_fields : 0;
	p.err = err;
	p.len = rtf_expr_len(expr);
	if (p.len > RT_FILTER_MAX_LEN)
		return rtf_error(&p, RT_FILTER_E_TOO_LONG, RT_FILTER_MAX_LEN,
				 MSG_TOOLONG);
	for (i = 0; i < p.len && rtf_is_blank(expr[i]); i++)
		;
	if (i == p.len)
		return rtf_error(&p, RT_FILTER_E_SYNTAX, 0, MSG_EMPTY);
	if (!out)
		return rtf_error(&p, RT_FILTER_E_SYNTAX, 0, MSG_INVAL);

	p.cap = p.len + 1;
	p.nodes = calloc(p.cap, sizeof(*p.nodes));
	p.preds = calloc(p.cap, sizeof(*p.preds));
	p.vals = calloc(p.cap, sizeof(*p.vals));
	p.ops = calloc(p.cap, sizeof(*p.ops));
	p.pool = malloc(p.cap);
	f = calloc(1, sizeof(*f));
	if (f)
		f->expr = malloc(p.len + 1);
	if (!p.nodes || !p.preds || !p.vals || !p.ops || !p.pool || !f ||
	    !f->expr) {
		rtf_error(&p, RT_FILTER_E_NOMEM, 0, MSG_NOMEM);
		goto fail;
	}

	if (rtf_precheck(&p) || rtf_parse_expr(&p) || rtf_compile(&p))
		goto fail;

	f->prog = malloc(p.nr_preds * sizeof(*f->prog));
	if (!f->prog) {
		rtf_error(&p, RT_FILTER_E_NOMEM, 0, MSG_NOMEM);
		goto fail;
	}
	memcpy(f->prog, p.preds, p.nr_preds * sizeof(*f->prog));
	f->nr_preds = p.nr_preds;
	memcpy(f->expr, expr, p.len + 1);
	/* The string constants point into the pool: hand it over. */
	f->strings = p.pool;
	p.pool = NULL;
	rtf_parser_free(&p);
	rtf_set_error(err, RT_FILTER_OK, 0, "");
	*out = f;
	return 0;

fail:
	rtf_parser_free(&p);
	rt_filter_free(f);
	return -1;
}

/* --------------------------------------------------------- evaluation */

/**
 * rtf_class() - match one character against a bracket expression
 * @pat: the pattern
 * @m: its length
 * @at: offset of the '[' in @pat
 * @c: the character
 * @hit: set to whether @c is in the class
 *
 * Supports "[abc]", ranges "[a-z]", negation "[!...]" or "[^...]", a ']'
 * first in the class standing for itself, and backslash escapes.
 *
 * Context: any, async-signal-safe.
 * Return: the length of the bracket expression, or 0 if it has no closing
 * ']' (the '[' is then an ordinary character).
 */
static size_t rtf_class(const char *pat, size_t m, size_t at,
			unsigned char c, bool *hit)
{
	size_t q = at + 1;
	bool neg = false, found = false, first = true;

	if (q < m && (pat[q] == '!' || pat[q] == '^')) {
		neg = true;
		q++;
	}
	while (q < m && (pat[q] != ']' || first)) {
		unsigned char lo, hi;

		first = false;
		if (pat[q] == '\\' && q + 1 < m)
			q++;
		lo = (unsigned char)pat[q++];
		hi = lo;
		if (q + 1 < m && pat[q] == '-' && pat[q + 1] != ']') {
			q++;
			if (pat[q] == '\\' && q + 1 < m)
				q++;
			hi = (unsigned char)pat[q++];
		}
		if (lo <= c && c <= hi)
			found = true;
	}
	if (q >= m)
		return 0;
	*hit = found != neg;
	return q + 1 - at;
}

/**
 * rtf_glob() - match a string against a glob pattern
 * @pat: the pattern
 * @m: its length
 * @s: the string
 * @n: its length
 *
 * '*' matches any run of characters, '?' any one character, "[...]" one
 * character of a class, and a backslash makes the next character
 * ordinary (a pattern ending in a lone backslash matches nothing); the
 * whole string must match, as fnmatch() with no flags would. Works on
 * counted strings (a fixed char array may have no NUL) and without
 * recursion: every token other than '*' matches exactly one character,
 * so on a mismatch it is enough to go back to the last '*' and let it
 * swallow one more character. Time O(@m * @n), no allocation.
 *
 * Context: any, async-signal-safe.
 * Return: true if @s matches.
 */
static bool rtf_glob(const char *pat, size_t m, const char *s, size_t n)
{
	size_t pi = 0, si = 0, star_pi = SIZE_MAX, star_si = 0;

	while (si < n) {
		unsigned char c = (unsigned char)s[si];
		size_t tok = 1;
		bool hit = false;

		if (pi < m && pat[pi] == '*') {
			star_pi = pi++;
			star_si = si;
			continue;
		}
		if (pi < m) {
			char pc = pat[pi];

			if (pc == '?') {
				hit = true;
			} else if (pc == '[' &&
				   (tok = rtf_class(pat, m, pi, c, &hit))) {
				/* hit set by rtf_class() */
			} else if (pc == '\\') {
				/* A lone backslash at the end matches
				 * nothing, as in fnmatch(). */
				tok = 2;
				hit = pi + 1 < m &&
				      (unsigned char)pat[pi + 1] == c;
			} else {
				tok = 1;
				hit = (unsigned char)pc == c;
			}
			if (hit) {
				pi += tok;
				si++;
				continue;
			}
		}
		if (star_pi == SIZE_MAX)
			return false;
		pi = star_pi + 1;
		si = ++star_si;
	}
	while (pi < m && pat[pi] == '*')
		pi++;
	return pi == m;
}

/**
 * rtf_eval_num() - evaluate a numeric predicate
 * @pr: the predicate
 * @r: the record
 * @len: its length
 *
 * Context: any, async-signal-safe.
 * Return: 1 if true, 0 if false, -1 if the field is not inside the
 * record.
 */
static int rtf_eval_num(const struct rtf_pred *pr, const unsigned char *r,
			size_t len)
{
	const unsigned char *at = r + pr->offset;
	int64_t sv = 0;
	uint64_t uv = 0;

	if ((size_t)pr->offset + pr->size > len)
		return -1;
	/* memcpy: records are only 4-byte aligned. */
	switch (pr->size) {
	case 1:
		if (pr->is_signed) {
			int8_t v;

			memcpy(&v, at, 1);
			sv = v;
		} else {
			uint8_t v;

			memcpy(&v, at, 1);
			uv = v;
		}
		break;
	case 2:
		if (pr->is_signed) {
			int16_t v;

			memcpy(&v, at, 2);
			sv = v;
		} else {
			uint16_t v;

			memcpy(&v, at, 2);
			uv = v;
		}
		break;
	case 4:
		if (pr->is_signed) {
			int32_t v;

			memcpy(&v, at, 4);
			sv = v;
		} else {
			uint32_t v;

			memcpy(&v, at, 4);
			uv = v;
		}
		break;
	default:
		if (pr->is_signed)
			memcpy(&sv, at, 8);
		else
			memcpy(&uv, at, 8);
		break;
	}

	if (pr->cmp == RTF_BAND) {
		/* The mask holds only the field's width of bits. */
		if (pr->is_signed)
			uv = (uint64_t)sv;
		return (uv & pr->val.u) != 0;
	}
	if (pr->is_signed) {
		int64_t k = pr->val.s;

		switch (pr->cmp) {
		case RTF_EQ:
			return sv == k;
		case RTF_NE:
			return sv != k;
		case RTF_LT:
			return sv < k;
		case RTF_LE:
			return sv <= k;
		case RTF_GT:
			return sv > k;
		default:
			return sv >= k;
		}
	}
	switch (pr->cmp) {
	case RTF_EQ:
		return uv == pr->val.u;
	case RTF_NE:
		return uv != pr->val.u;
	case RTF_LT:
		return uv < pr->val.u;
	case RTF_LE:
		return uv <= pr->val.u;
	case RTF_GT:
		return uv > pr->val.u;
	default:
		return uv >= pr->val.u;
	}
}

/**
 * rtf_eval_str() - evaluate a string predicate
 * @pr: the predicate
 * @r: the record
 * @len: its length
 *
 * The string is the bytes of the fixed array, or of the __data_loc area,
 * up to the first NUL or the end of that area.
 *
 * Context: any, async-signal-safe.
 * Return: 1 if true, 0 if false, -1 if the field or the string it points
 * to is not inside the record.
 */
static int rtf_eval_str(const struct rtf_pred *pr, const unsigned char *r,
			size_t len)
{
	const char *s;
	const char *nul;
	size_t area, n;
	bool eq;

	if (pr->src == RTF_SRC_STR) {
		if ((size_t)pr->offset + pr->fsize > len)
			return -1;
		s = (const char *)r + pr->offset;
		area = pr->fsize;
	} else {
		uint32_t loc;
		size_t off;

		if ((size_t)pr->offset + 4 > len)
			return -1;
		memcpy(&loc, r + pr->offset, 4);
		off = loc & 0xffff;
		area = loc >> 16;
		if (off + area > len)
			return -1;
		s = (const char *)r + off;
	}
	nul = area ? memchr(s, '\0', area) : NULL;
	n = nul ? (size_t)(nul - s) : area;

	if (pr->cmp == RTF_GLOB)
		return rtf_glob(pr->str, pr->str_len, s, n);
	eq = n == pr->str_len && (n == 0 || !memcmp(s, pr->str, n));
	return pr->cmp == RTF_EQ ? eq : !eq;
}

bool rt_filter_match(const struct rt_filter *f, const void *rec, size_t len)
{
	const unsigned char *r = rec;
	uint32_t i = 0, n;

	if (!f)
		return true;
	if (!r)
		len = 0;
	n = f->nr_preds;
	while (i < n) {
		const struct rtf_pred *pr = &f->prog[i];
		int ret = pr->src == RTF_SRC_NUM ? rtf_eval_num(pr, r, len) :
						   rtf_eval_str(pr, r, len);

		if (ret < 0)
			return false;
		i = ret ? pr->on_true : pr->on_false;
	}
	return i == n;
}

void rt_filter_free(struct rt_filter *f)
{
	if (!f)
		return;
	free(f->prog);
	free(f->expr);
	free(f->strings);
	free(f);
}

const char *rt_filter_string(const struct rt_filter *f)
{
	return f ? f->expr : NULL;
}

/* --------------------------------------------------------- error text */

/**
 * struct rtf_out - a bounded output buffer that counts what it drops
 * @buf: the buffer
 * @len: its size
 * @n: bytes the output would take, NUL excluded
 */
struct rtf_out {
	char *buf;
	size_t len;
	size_t n;
};

/**
 * rtf_put() - append bytes, or one byte repeated
 * @o: the output
 * @s: the bytes, or NULL to repeat @fill
 * @n: how many
 * @fill: the byte to repeat when @s is NULL
 *
 * Context: any.
 */
static void rtf_put(struct rtf_out *o, const char *s, size_t n, char fill)
{
	if (o->len && o->n < o->len - 1) {
		size_t room = o->len - 1 - o->n;
		size_t k = n < room ? n : room;

		if (s)
			memcpy(o->buf + o->n, s, k);
		else
			memset(o->buf + o->n, fill, k);
	}
	o->n += n;
}

size_t rt_filter_error_print(char *buf, size_t len, const char *expr,
			     const struct rt_filter_error *err)
{
	struct rtf_out o = { .buf = buf, .len = buf ? len : 0, .n = 0 };
	static const char tag[] = "parse_error: ";
	size_t elen = expr ? strlen(expr) : 0;
	size_t pos = 0, mlen = 0;

	while (elen && expr[elen - 1] == '\n')
		elen--;
	if (err) {
		pos = err->pos > 0 ? (size_t)err->pos : 0;
		while (mlen < sizeof(err->msg) && err->msg[mlen])
			mlen++;
	}
	rtf_put(&o, expr, elen, 0);
	rtf_put(&o, "\n", 1, 0);
	rtf_put(&o, NULL, pos, ' ');
	rtf_put(&o, "^\n", 2, 0);
	rtf_put(&o, tag, sizeof(tag) - 1, 0);
	if (err)
		rtf_put(&o, err->msg, mlen, 0);
	rtf_put(&o, "\n", 1, 0);
	if (o.len)
		o.buf[o.n < o.len ? o.n : o.len - 1] = '\0';
	return o.n;
}
