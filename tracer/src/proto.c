// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proto.c - the control protocol's table and its parser (proto.h), the
 *	same code in the tool, tracefs and the traced process
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define RT_CMD_DESC(id, verb, fl, rep, handler, argv) \
	[RT_CMD_##id] = { .name = (verb), .flags = (fl), .reply = (rep), \
			  .args = argv },
const struct rt_cmd_desc rt_cmd_table[RT_CMD_NR] = {
	RT_CTL_COMMANDS(RT_CMD_DESC)
};
#undef RT_CMD_DESC

int rt_cmd_lookup(const char *verb)
{
	int i;

	for (i = 0; i < RT_CMD_NR; i++)
		if (!strcmp(rt_cmd_table[i].name, verb))
			return i;
	return -1;
}

static bool rt_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut the next blank-separated word out of *@p. */
static char *rt_cmd_word(char **p)
{
	char *s = *p, *e;

	while (rt_blank(*s))
		s++;
	if (!*s)
		return NULL;
	e = s;
	while (*e && !rt_blank(*e))
		e++;
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

static bool rt_cmd_hex(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n % 2 == 0;
}

/* One word @w as argument @a of @verb; false (and a message) if it is
 * not of the argument's type. */
static bool rt_cmd_value(const char *verb, const struct rt_arg_desc *a,
			 char *w, union rt_arg *v, char *err, size_t errlen)
{
	char *end = NULL;

	errno = 0;
	switch (a->type & ~RT_ARG_OPT) {
	case RT_ARG_MATCH:
		v->s = strcmp(w, "*") ? w : NULL;
		return true;
	case RT_ARG_INT:
		v->i = strtoll(w, &end, 10);
		break;
	case RT_ARG_UINT:
		v->u = strtoull(w, &end, 10);
		if (*w == '-')
			end = NULL;
		break;
	case RT_ARG_HEX:
		if (!rt_cmd_hex(w))
			end = NULL;
		else
			end = w + strlen(w);
		v->s = w;
		break;
	default:
		v->s = w;
		return true;
	}
	if (end && !*end && end != w && !errno)
		return true;
	snprintf(err, errlen, "%s: bad %s '%s'", verb, a->name, w);
	return false;
}

int rt_cmd_parse(char *line, struct rt_cmd_args *out, char *err,
		 size_t errlen)
{
	const struct rt_cmd_desc *d;
	char *p = line, *w, *verb, *end = NULL;
	unsigned long ver = 0;
	int i, id;

	memset(out, 0, sizeof(*out));
	line[strcspn(line, "\n")] = '\0';
	w = rt_cmd_word(&p);
	if (w && w[0] == '@')
		ver = strtoul(w + 1, &end, 10);
	if (!w || w[0] != '@' || !end || *end || end == w + 1)
		ver = 0;
	out->version = (unsigned int)ver;
	if (ver != RT_CTL_PROTO_VERSION) {
		if (ver)
			snprintf(err, errlen,
				 "control protocol version %lu; this side speaks version %d",
				 ver, RT_CTL_PROTO_VERSION);
		else
			snprintf(err, errlen,
				 "a command without a control protocol version (an older tool?); this side speaks version %d",
				 RT_CTL_PROTO_VERSION);
		return -EPROTONOSUPPORT;
	}
	verb = rt_cmd_word(&p);
	out->inst = rt_cmd_word(&p);
	if (!verb || !out->inst) {
		snprintf(err, errlen, "expected: <verb> <instance> <arguments>");
		return -EINVAL;
	}
	id = rt_cmd_lookup(verb);
	if (id < 0) {
		snprintf(err, errlen, "unknown command '%s'", verb);
		return -EINVAL;
	}
	out->id = (enum rt_cmd_id)id;
	d = &rt_cmd_table[id];
	for (i = 0; i < RT_CMD_MAX_ARGS && d->args[i].type; i++) {
		const struct rt_arg_desc *a = &d->args[i];

		if ((a->type & ~RT_ARG_OPT) == RT_ARG_REST) {
			/* the rest of the line, blanks and all: the one
			 * blank before it went with the word before (an
			 * expression's own leading blanks are its own: the
			 * places its errors name count them) */
			out->v[i].s = p;
			out->set[i] = true;
			p += strlen(p);
			break;
		}
		w = rt_cmd_word(&p);
		if (!w && (a->type & RT_ARG_OPT))
			break;
		if (!w) {
			snprintf(err, errlen, "%s: missing the %s", verb,
				 a->name);
			return -EINVAL;
		}
		if (!rt_cmd_value(verb, a, w, &out->v[i], err, errlen))
			return -EINVAL;
		out->set[i] = true;
	}
	if (rt_cmd_word(&p)) {
		snprintf(err, errlen, "%s: too many arguments", verb);
		return -EINVAL;
	}
	return 0;
}

/* Argument @a of a call, as it goes on the line, or NULL when it cannot
 * (a word with blanks, text with a newline, bad hexadecimal). */
static const char *rt_cmd_text(const struct rt_arg_desc *a,
			       const union rt_arg *v, char *num, size_t len)
{
	switch (a->type & ~RT_ARG_OPT) {
	case RT_ARG_INT:
		snprintf(num, len, "%lld", v->i);
		return num;
	case RT_ARG_UINT:
		snprintf(num, len, "%llu", v->u);
		return num;
	case RT_ARG_MATCH:
		if (!v->s)
			return "*";
		return *v->s && !strpbrk(v->s, " \t\n") ? v->s : NULL;
	case RT_ARG_WORD:
		return v->s && *v->s && !strpbrk(v->s, " \t\n") ? v->s : NULL;
	case RT_ARG_HEX:
		return v->s && rt_cmd_hex(v->s) ? v->s : NULL;
	default: /* RT_ARG_REST */
		return v->s && !strchr(v->s, '\n') ? v->s : NULL;
	}
}

int rt_cmd_format(const struct rt_cmd_args *c, char *line, size_t len,
		  char *err, size_t errlen)
{
	const struct rt_cmd_desc *d;
	const char *inst = c->inst && *c->inst ? c->inst : "-";
	size_t n;
	int i, k;

	if ((unsigned int)c->id >= RT_CMD_NR) {
		snprintf(err, errlen, "unknown command %d", (int)c->id);
		return -EINVAL;
	}
	d = &rt_cmd_table[c->id];
	if (strpbrk(inst, " \t\n")) {
		snprintf(err, errlen, "%s: bad instance name '%s'", d->name,
			 inst);
		return -EINVAL;
	}
	k = snprintf(line, len, "@%d %s %s", RT_CTL_PROTO_VERSION, d->name,
		     inst);
	n = k < 0 ? len : (size_t)k;
	for (i = 0; i < RT_CMD_MAX_ARGS; i++) {
		const struct rt_arg_desc *a = &d->args[i];
		const char *t;
		char num[32];

		if (!c->set[i]) {
			if (a->type && !(a->type & RT_ARG_OPT)) {
				snprintf(err, errlen, "%s: missing the %s",
					 d->name, a->name);
				return -EINVAL;
			}
			continue;
		}
		if (!a->type || (i && !c->set[i - 1])) {
			snprintf(err, errlen, "%s: too many arguments",
				 d->name);
			return -EINVAL;
		}
		t = rt_cmd_text(a, &c->v[i], num, sizeof(num));
		if (!t) {
			snprintf(err, errlen, "%s: bad %s '%s'", d->name,
				 a->name, c->v[i].s ? c->v[i].s : "");
			return -EINVAL;
		}
		if (n < len) {
			k = snprintf(line + n, len - n, " %s", t);
			n = k < 0 ? len : n + (size_t)k;
		}
	}
	if (n >= len) {
		snprintf(err, errlen, "command too long (more than %zu bytes)",
			 len - 1);
		return -E2BIG;
	}
	return 0;
}
