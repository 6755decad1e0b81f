// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hist.c - hist triggers: "hist:keys=...[:vals=...][:sort=...][:size=N]
 *	[:name=...][:pause][:cont][:clear][:nohitcount] [if FILTER]" on an
 *	event's trigger file, and the event's hist file
 *
 * The kernel's Documentation/trace/histogram.rst for the events of a
 * process. A hist trigger is a trigger of trigger.c (RT_TRIG_HIST) whose
 * hist part is a struct rt_hist_trig: its table (struct rt_hist_data,
 * shared by the triggers of one name=) and its paused state. The write
 * path (rt_hist_event(), called from trace.c with the record before it
 * is committed) builds the key from the record, finds or inserts it in
 * the table (tracing_map.c: lock-free, no allocation) and adds the
 * values to its sums. Variables (NAME=EXPR) are kept per entry in the
 * map's sums after the values; a $reference to another table's variable
 * is looked up there by this record's key and read once. Actions:
 * onmatch() writes a synthetic event (synth.c), onmax() and onchange()
 * keep a value and fields per entry, or take a snapshot.
 *
 * A field variable (an onmatch() parameter naming a field of the
 * matching event) is never added to a live table: as the kernel's
 * create_field_var_hist(), a new hist trigger with the variable is set on
 * that event (published as any trigger, trigger.c), and removed with the
 * table that made it. A stack variable (NAME=common_stacktrace) is kept
 * as a string variable is, its count then its frames.
 *
 * Userspace: common_timestamp is the record's stamp (trace.c
 * stamps the record with the time its triggers read, see
 * rt_trigger_commit()), but the clock when the trigger runs for a record
 * assigned in the ring buffer itself; .execname shows the thread's name from the saved cmdlines when the
 * file is read (the kernel saves it when the entry is made); .syscall
 * shows every number as "unknown_syscall" (no table of names).
 */
#include <ctype.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "hist.h"
#include "rcu.h"
#include "symbols.h"
#include "synth.h"
#include "tracing_map.h"

#define HIST_SORT_KEYS_MAX 2
#define HIST_STR_MAX 256 /* the kernel's MAX_FILTER_STR_VAL */
#define HIST_STACKTRACE_DEPTH 16
#define HIST_KEY_SIZE_MAX (HIST_KEYS_MAX * HIST_STR_MAX)
#define HIST_VARS_MAX 16 /* the kernel's TRACING_MAP_VARS_MAX */
#define HIST_REFS_MAX 16
#define HIST_ACTIONS_MAX 4
/* string variables of a table, and references to string variables: the
 * write path holds their text on its stack */
#define HIST_STR_VARS_MAX 2
#define HIST_STR_REFS_MAX 2
/* a stack variable is kept as a string variable is: its count and frames
 * fit the text's sums */
_Static_assert((HIST_STACKTRACE_DEPTH + 1) * 8 <= HIST_STR_MAX,
	       "a stack fits a string variable's sums");

enum {
	HF_HEX = 1u << 0,
	HF_SYM = 1u << 1,
	HF_SYM_OFFSET = 1u << 2,
	HF_EXECNAME = 1u << 3,
	HF_LOG2 = 1u << 4,
	HF_BUCKET = 1u << 5,
	HF_USECS = 1u << 6,
	HF_PERCENT = 1u << 7,
	HF_GRAPH = 1u << 8,
	HF_STACKTRACE = 1u << 9,
	HF_TIMESTAMP = 1u << 10,
	HF_CPU = 1u << 11,
	HF_STRING = 1u << 12,
	HF_HITCOUNT = 1u << 13,
	HF_SYSCALL = 1u << 14,
	HF_EXPR = 1u << 15, /* a value computed by @expr */
};

struct hist_expr;

/**
 * struct hist_field - a key or a value
 * @name: the field's name ("common_timestamp", "hitcount" included)
 * @field: the event's field, when it is one (copied)
 * @flags: HF_*
 * @buckets: .buckets=N
 * @offset: where a key lies in the table's key
 * @size: its bytes there
 */
struct hist_field {
	/* first: what the write path reads */
	unsigned int flags;
	unsigned int offset, size;
	bool has_field;
	struct rt_field field;
	unsigned long buckets;
	struct hist_expr *expr;
	char name[64];
};

/*
 * An expression of a variable or a value: the kernel's operators
 * (+ - * / and -(...)), constants, fields and $variable references, its
 * constant parts folded when parsed. Evaluated in the write path by
 * recursion of at most the kernel's three subexpressions.
 */
enum { HE_FIELD, HE_CONST, HE_REF, HE_ADD, HE_SUB, HE_MUL, HE_DIV, HE_NEG };

struct hist_expr {
	int op;
	unsigned int flags; /* HF_TIMESTAMP and HF_USECS of its result */
	uint64_t constant;
	unsigned int ref; /* HE_REF: its index in rt_hist_data.refs */
	struct hist_field field;
	struct hist_expr *a, *b;
	char text[HIST_STR_MAX];
};

/* A variable: its value and whether it is set, sums of the map after
 * the values (@slot and @flag, counted from rt_hist_data.n_vals); a
 * string variable (@str: NAME=STRING_FIELD) holds the field's text in
 * HIST_STR_MAX / 8 sums from @slot */
struct hist_var {
	char name[64];
	struct hist_expr *e;
	unsigned int slot, flag;
	bool str;
};

/* onmatch(SYS.EVENT).trace(SYNTH,PARAMS) or .SYNTH(PARAMS): write the
 * synthetic event with these values when a record counts */
enum { HA_ONMATCH, HA_ONMAX, HA_ONCHANGE };

/*
 * onmax($VAR).save(FIELDS) and onchange($VAR).save(FIELDS) keep, per
 * entry, the variable's greatest (last changed) value at @slot of the
 * map's sums, its set flag at @slot + 1, and the fields of the record
 * that set it from @slot + 2 on (@params: the fields)
 */
struct hist_action {
	int handler;
	struct rt_event_priv *match; /* onmatch(): its event */
	struct rt_synth *synth;
	unsigned int n_params;
	struct hist_expr *params[RT_SYNTH_FIELDS_MAX];
	unsigned int track_var, slot;
	/* save(): where each field lies after slot + 2 (a string takes
	 * HIST_STR_MAX / 8 sums, its bytes in order) */
	unsigned int poff[RT_SYNTH_FIELDS_MAX];
	/* snapshot(): the value and key that took the last one */
	bool snapshot;
	_Atomic bool snap_set;
	_Atomic uint64_t snap_val;
	_Atomic uint64_t *snap_key;
	char var_text[64];
	char text[HIST_STR_MAX];
};

/* A reference to a variable of this table or of another event's hist
 * trigger (which it holds a reference on) */
struct hist_ref {
	struct rt_hist_data *d;
	unsigned int var;
	char name[64];
};

struct hist_sort_key {
	bool is_key;
	unsigned int idx;
	bool descending;
};

/* A hist trigger a field variable made: its line on event @sys:@ev
 * (named: the event may be gone before the table) */
struct hist_fv_hist {
	char *cmd;
	char sys[128], ev[128];
};

/**
 * struct rt_hist_data - a table and how it is filled (shared by name=)
 * @plain: keys and values are numeric fields as they are, nothing else
 *	(no variable, reference or action): rt_hist_event()'s short path
 * @refs: triggers using it (registry lock)
 * @clearing: the table is being cleared: writers keep out
 */
struct rt_hist_data {
	/* first: what the write path reads */
	unsigned int n_keys, n_vals, key_size;
	_Atomic bool clearing;
	bool plain;
	struct tracing_map *map;
	struct hist_field keys[HIST_KEYS_MAX], vals[HIST_VALS_MAX];
	unsigned int n_vars, n_refs;
	unsigned int n_var_slots, n_str_vars, n_str_refs;
	int ext_refs; /* references from other tables (registry lock) */
	struct hist_var vars[HIST_VARS_MAX];
	struct hist_ref hrefs[HIST_REFS_MAX];
	unsigned int n_actions, n_track_slots;
	struct hist_action actions[HIST_ACTIONS_MAX];
	int refs;
	char *name;
	unsigned int map_bits, n_sort;
	struct hist_sort_key sort[HIST_SORT_KEYS_MAX];
	bool nohitcount, timestamps;
	char clock[32];
	struct rt_hist_data *next_named;
	/* the hist triggers made on other events for field variables
	 * (hist_field_var()), in instance @inst: removed with the table */
	int inst;
	unsigned int n_fv;
	struct hist_fv_hist fv[RT_SYNTH_FIELDS_MAX];
};

/* The named tables (registry lock) */
static struct rt_hist_data *rt_hist_named;

/* ---- errors -------------------------------------------------------------- */

struct hist_err_ctx {
	const char *cmd; /* the command as written, without '!' */
	char loc[300];
	char *err;
	size_t errlen;
};

/* Where @s first occurs in the command, as the kernel's err_pos() */
static int hist_errpos(const struct hist_err_ctx *c, const char *s)
{
	const char *at = s ? strstr(c->cmd, s) : NULL;

	return at ? (int)(at - c->cmd) : 0;
}

static int hist_err(struct hist_err_ctx *c, const char *msg, int pos)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s: error: %s\n  Command: %s\n%*s^\n",
			 c->loc, msg, c->cmd, pos + 11, "");
	return -EINVAL;
}

static int hist_msg(struct hist_err_ctx *c, const char *msg)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s", msg);
	return -EINVAL;
}

/* ---- parsing ------------------------------------------------------------- */

static const struct rt_field *hist_find_field(struct rt_event_priv *p,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < p->nr_fields; i++)
		if (!strcmp(p->fields[i].name, name))
			return &p->fields[i];
	return NULL;
}

/*
 * One "field[.modifier]" of keys= or vals= (@s, a copy) into @f; @key
 * says which. As the kernel's parse_field().
 */
static int hist_parse_field(struct hist_err_ctx *c, struct rt_event_priv *p,
			    char *s, struct hist_field *f, bool key)
{
	char *mod = strchr(s, '.');
	const struct rt_field *ef;

	memset(f, 0, sizeof(*f));
	if (mod)
		*mod++ = '\0';
	if (mod) {
		if (!strcmp(mod, "hex"))
			f->flags |= HF_HEX;
		else if (!strcmp(mod, "sym"))
			f->flags |= HF_SYM;
		else if (!strcmp(mod, "sym-offset") || !strcmp(mod, "symXoffset"))
			f->flags |= HF_SYM_OFFSET;
		else if (!strcmp(mod, "execname") && !strcmp(s, "common_pid"))
			f->flags |= HF_EXECNAME;
		else if (!strcmp(mod, "log2"))
			f->flags |= HF_LOG2;
		else if (!strcmp(mod, "syscall"))
			f->flags |= HF_SYSCALL;
		else if (!strcmp(mod, "usecs"))
			f->flags |= HF_USECS;
		else if (!strcmp(mod, "stacktrace"))
			f->flags |= HF_STACKTRACE;
		else if (!strncmp(mod, "bucket", 6)) {
			char *v = mod + 6, *e;

			if (*v == 's')
				v++;
			if (*v != '=')
				goto bad_mod;
			errno = 0;
			f->buckets = strtoul(v + 1, &e, 0);
			if (errno || *e || !v[1] || !f->buckets)
				goto bad_mod;
			f->flags |= HF_BUCKET;
		} else if (!strncmp(mod, "percent", 7) && !key) {
			f->flags |= HF_PERCENT;
		} else if (!strncmp(mod, "graph", 5) && !key) {
			f->flags |= HF_GRAPH;
		} else {
			goto bad_mod;
		}
	}
	snprintf(f->name, sizeof(f->name), "%s", s);
	if (!strcmp(s, "common_timestamp")) {
		f->flags |= HF_TIMESTAMP;
	} else if (!strcmp(s, "common_stacktrace") || !strcmp(s, "stacktrace") ||
		   !strcmp(s, "STACKTRACE")) {
		f->flags |= HF_STACKTRACE;
		snprintf(f->name, sizeof(f->name), "common_stacktrace");
	} else if (!strcmp(s, "common_cpu") || !strcmp(s, "cpu") ||
		   !strcmp(s, "CPU")) {
		f->flags |= HF_CPU;
		snprintf(f->name, sizeof(f->name), "common_cpu");
	} else if (!strcmp(s, "hitcount")) {
		f->flags |= HF_HITCOUNT;
	} else {
		ef = hist_find_field(p, s);
		if (!ef || !ef->size || ef->kind == RT_FIELD_ARRAY)
			return hist_err(c, "Couldn't find field",
					hist_errpos(c, s));
		f->field = *ef;
		f->has_field = true;
		if (ef->kind == RT_FIELD_STRING || ef->kind == RT_FIELD_DYNSTR)
			f->flags |= HF_STRING;
	}
	/* a stack key is common_stacktrace: no field of ours holds one */
	if ((f->flags & HF_STACKTRACE) && f->has_field)
		return hist_err(c, "Invalid field modifier", hist_errpos(c, s));
	if ((f->flags & HF_USECS) && !(f->flags & HF_TIMESTAMP))
		return hist_err(c, "Invalid field modifier", hist_errpos(c, mod));
	if ((f->flags & HF_STRING) &&
	    (f->flags & (HF_HEX | HF_SYM | HF_SYM_OFFSET | HF_LOG2 | HF_BUCKET)))
		return hist_err(c, "Invalid field modifier", hist_errpos(c, mod));
	if (!key && (f->flags & (HF_STRING | HF_STACKTRACE)))
		return hist_err(c, "Invalid field modifier", hist_errpos(c, s));
	return 0;
bad_mod:
	return hist_err(c, "Invalid field modifier", hist_errpos(c, mod));
}

/* The first flag the kernel's get_hist_field_flags() names */
static const char *hist_flag_name(unsigned int fl)
{
	static const struct {
		unsigned int fl;
		const char *name;
	} names[] = {
		{ HF_HEX, "hex" },
		{ HF_SYM, "sym" },
		{ HF_SYM_OFFSET, "sym-offset" },
		{ HF_EXECNAME, "execname" },
		{ HF_SYSCALL, "syscall" },
		{ HF_LOG2, "log2" },
		{ HF_BUCKET, "buckets" },
		{ HF_USECS, "usecs" },
		{ HF_PERCENT, "percent" },
		{ HF_GRAPH, "graph" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (fl & names[i].fl)
			return names[i].name;
	return NULL;
}

static void hist_field_print(FILE *f, const struct hist_field *hf)
{
	const char *fl = hist_flag_name(hf->flags);

	if (hf->flags & HF_EXPR) {
		fputs(hf->expr->text, f);
		return;
	}

	fputs(hf->name, f);
	if (fl)
		fprintf(f, ".%s", fl);
	if (hf->flags & HF_BUCKET)
		fprintf(f, "=%lu", hf->buckets);
}

/* ---- expressions and variables ------------------------------------------ */

static void hist_expr_free(struct hist_expr *e)
{
	if (!e)
		return;
	hist_expr_free(e->a);
	hist_expr_free(e->b);
	free(e);
}

/* The root operator of @str and where it is (*@sep), as the kernel's
 * contains_operator(): the rightmost of the lowest precedence, so that
 * operators of one precedence apply left to right; a '-' that is the
 * rightmost minus and starts @str is the unary minus. */
static int hist_root_op(char *str, char **sep)
{
	char *minus = strrchr(str, '-'), *plus = strrchr(str, '+');
	char *div = strrchr(str, '/'), *mul = strrchr(str, '*');

	*sep = NULL;
	if (minus && minus == str) {
		*sep = minus;
		return HE_NEG;
	}
	if (plus || minus) {
		if (plus && (!minus || plus > minus)) {
			*sep = plus;
			return HE_ADD;
		}
		*sep = minus;
		return HE_SUB;
	}
	if (mul && (!div || mul > div)) {
		*sep = mul;
		return HE_MUL;
	}
	if (div) {
		*sep = div;
		return HE_DIV;
	}
	return HE_FIELD;
}

static __attribute__((no_instrument_function)) uint64_t
hist_field_value(const struct hist_field *hf, const unsigned char *rec,
		 int inst);

/* The value of @e on @rec, the resolved references in @refv */
static __attribute__((no_instrument_function)) uint64_t
hist_expr_eval(const struct hist_expr *e, const unsigned char *rec, int inst,
	       const uint64_t *refv)
{
	uint64_t a, b;

	switch (e->op) {
	case HE_CONST:
		return e->constant;
	case HE_REF:
		return refv[e->ref];
	case HE_FIELD:
		return hist_field_value(&e->field, rec, inst);
	case HE_NEG:
		return -hist_expr_eval(e->a, rec, inst, refv);
	default:
		break;
	}
	a = hist_expr_eval(e->a, rec, inst, refv);
	b = hist_expr_eval(e->b, rec, inst, refv);
	switch (e->op) {
	case HE_ADD:
		return a + b;
	case HE_SUB:
		return a - b;
	case HE_MUL:
		return a * b;
	default:
		/* as the kernel's hist_field_div(): -1 for a zero divisor */
		return b ? a / b : (uint64_t)-1;
	}
}

static int hist_find_var(const struct rt_hist_data *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->n_vars; i++)
		if (!strcmp(d->vars[i].name, name))
			return (int)i;
	return -1;
}

struct hist_var_find {
	const char *name;
	int inst;
	const struct rt_hist_data *self;
	struct rt_hist_data *found;
	int var;
};

static void hist_var_find_one(struct rt_event_priv *p, void *arg)
{
	struct hist_var_find *f = arg;
	const struct rt_trigger_list *l = atomic_load_explicit(
		&p->triggers[f->inst], memory_order_relaxed);
	unsigned int i;

	for (i = 0; l && !f->found && i < l->nr; i++) {
		struct rt_hist_data *d;
		int v;

		if (l->t[i]->type != RT_TRIG_HIST)
			continue;
		d = ((struct rt_hist_trig *)l->t[i]->hist)->d;
		v = d == f->self ? -1 : hist_find_var(d, f->name);
		if (v >= 0) {
			f->found = d;
			f->var = v;
		}
	}
}

/*
 * A reference to variable @name (after its '$': this table's, else
 * another hist trigger's in instance @inst), or to "SYS.EVENT.$VAR", the
 * variable of event SYS:EVENT's hist triggers (@self_ev's own table
 * first when it is that event): its index in d->hrefs, or -1
 */
static int hist_add_ref(struct rt_hist_data *d, const char *name, int inst,
			struct rt_event_priv *self_ev)
{
	struct hist_var_find f = { name, inst, d, NULL, -1 };
	struct rt_event_priv *only = NULL;
	char sys[128], ev[128];
	const char *dollar = strstr(name, ".$");
	struct hist_ref *r;
	unsigned int i;

	for (i = 0; i < d->n_refs; i++)
		if (!strcmp(d->hrefs[i].name, name))
			return (int)i;
	if (d->n_refs == HIST_REFS_MAX)
		return -1;
	if (dollar) {
		const char *dot = memchr(name, '.', (size_t)(dollar - name));
		size_t sl = dot ? (size_t)(dot - name) : 0,
		       el = dot ? (size_t)(dollar - dot - 1) : 0;

		if (!dot || !sl || !el || sl >= sizeof(sys) || el >= sizeof(ev))
			return -1;
		memcpy(sys, name, sl);
		sys[sl] = '\0';
		memcpy(ev, dot + 1, el);
		ev[el] = '\0';
		only = rt_event_find(sys, ev);
		if (!only)
			return -1;
		f.name = dollar + 2;
	}
	f.var = !only || only == self_ev ? hist_find_var(d, f.name) : -1;
	if (f.var >= 0) {
		f.found = d;
	} else {
		if (only)
			hist_var_find_one(only, &f);
		else
			rt_events_foreach(hist_var_find_one, &f);
		/* the other table is looked up with this one's key */
		if (!f.found || f.found->key_size != d->key_size)
			return -1;
	}
	if (f.found->vars[f.var].str) {
		if (d->n_str_refs == HIST_STR_REFS_MAX)
			return -1;
		d->n_str_refs++;
	}
	if (f.found != d) {
		f.found->refs++;
		f.found->ext_refs++;
	}
	r = &d->hrefs[d->n_refs];
	r->d = f.found;
	r->var = (unsigned int)f.var;
	snprintf(r->name, sizeof(r->name), "%s", name);
	return (int)d->n_refs++;
}

struct hist_expr_ctx {
	struct hist_err_ctx *c;
	struct rt_event_priv *p;
	struct rt_hist_data *d;
	int inst;
	unsigned int n_sub;
};

static int hist_parse_expr(struct hist_expr_ctx *x, char *str,
			   struct hist_expr **out);

static int hist_parse_atom(struct hist_expr_ctx *x, char *str,
			   struct hist_expr *e)
{
	if (isdigit((unsigned char)str[0])) {
		char *end;

		errno = 0;
		e->op = HE_CONST;
		e->constant = strtoull(str, &end, 0);
		if (errno || *end)
			return hist_err(x->c, "Expecting numeric literal",
					hist_errpos(x->c, str));
		snprintf(e->text, sizeof(e->text), "%llu",
			 (unsigned long long)e->constant);
		return 0;
	}
	/* $VAR, or SYS.EVENT.$VAR */
	if (str[0] == '$' || (isalpha((unsigned char)str[0]) &&
			      strstr(str, ".$"))) {
		int r = hist_add_ref(x->d, str + (str[0] == '$'), x->inst,
				     x->p);
		const struct hist_ref *ref;

		if (r < 0)
			return hist_err(x->c, "Couldn't find variable",
					hist_errpos(x->c, str));
		ref = &x->d->hrefs[r];
		e->op = HE_REF;
		e->ref = (unsigned int)r;
		e->flags = ref->d->vars[ref->var].e->flags;
		/* a string (stack) variable's text: an action's string
		 * (stack) parameter */
		e->field.flags = e->flags & (HF_STRING | HF_STACKTRACE);
		snprintf(e->text, sizeof(e->text), "%s", str);
		return 0;
	}
	{
		int ret = hist_parse_field(x->c, x->p, str, &e->field, true);
		const char *fl;

		if (ret)
			return ret;
		if (e->field.flags &
		    (HF_STACKTRACE | HF_HITCOUNT | HF_STRING | HF_EXECNAME))
			return hist_err(x->c,
					"String type can not be an operand in expression",
					hist_errpos(x->c, str));
		e->op = HE_FIELD;
		e->flags = e->field.flags & (HF_TIMESTAMP | HF_USECS);
		if (e->field.flags & HF_TIMESTAMP)
			x->d->timestamps = true;
		fl = hist_flag_name(e->field.flags);
		snprintf(e->text, sizeof(e->text), "%s%s%s", e->field.name,
			 fl ? "." : "", fl ? fl : "");
		return 0;
	}
}

/* The kernel's parse_expr() and parse_unary(): errors and their
 * positions are its */
static int hist_parse_expr(struct hist_expr_ctx *x, char *str,
			   struct hist_expr **out)
{
	struct hist_expr *e;
	char *sep, *s1;
	int op, ret;

	*out = NULL;
	if (x->n_sub > 3)
		return hist_err(x->c, "Too many subexpressions (3 max)",
				hist_errpos(x->c, str));
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	op = hist_root_op(str, &sep);
	if (op == HE_FIELD) {
		ret = hist_parse_atom(x, str, e);
		goto done;
	}
	e->op = op;
	if (op == HE_NEG) {
		char *close;

		if (++x->n_sub > 3) {
			ret = hist_err(x->c, "Too many subexpressions (3 max)",
				       hist_errpos(x->c, str));
			goto done;
		}
		str++;
		ret = -EINVAL;
		if (*str != '(')
			goto done;
		str++;
		close = strrchr(str, ')');
		if (!close)
			goto done;
		if (close[1]) {
			ret = hist_err(x->c,
				       "Unary minus not supported in sub-expressions",
				       hist_errpos(x->c, str));
			goto done;
		}
		*close = '\0';
		ret = hist_parse_expr(x, str, &e->a);
		if (ret)
			goto done;
		if (e->a->flags & HF_STRING) {
			ret = hist_err(x->c,
				       "String type can not be an operand in expression",
				       hist_errpos(x->c, str));
			goto done;
		}
		e->flags = e->a->flags;
		if (e->a->op == HE_CONST) {
			e->op = HE_CONST;
			e->constant = -e->a->constant;
			snprintf(e->text, sizeof(e->text), "%llu",
				 (unsigned long long)e->constant);
		} else {
			if (strlen(e->a->text) + 3 >= sizeof(e->text)) {
				ret = hist_msg(x->c, "hist: expression too long");
				goto done;
			}
			snprintf(e->text, sizeof(e->text), "-(%.*s)",
				 (int)sizeof(e->text) - 4, e->a->text);
		}
		goto done;
	}
	x->n_sub++;
	*sep = '\0';
	s1 = str;
	str = sep + 1;
	ret = -EINVAL;
	if (!*s1 || !*str)
		goto done;
	ret = hist_parse_expr(x, s1, &e->a);
	if (!ret)
		ret = hist_parse_expr(x, str, &e->b);
	if (ret)
		goto done;
	if ((e->a->flags | e->b->flags) & HF_STRING) {
		ret = hist_err(x->c,
			       "String type can not be an operand in expression",
			       hist_errpos(x->c, e->a->flags & HF_STRING ? s1 : str));
		goto done;
	}
	if ((e->a->flags & HF_USECS) != (e->b->flags & HF_USECS)) {
		ret = hist_err(x->c, "Timestamp units in expression don't match",
			       0);
		goto done;
	}
	if (op == HE_DIV && e->b->op == HE_CONST && !e->b->constant) {
		ret = hist_err(x->c, "Division by zero", hist_errpos(x->c, str));
		goto done;
	}
	e->flags = e->a->flags;
	if (e->a->op == HE_CONST && e->b->op == HE_CONST) {
		e->constant = hist_expr_eval(e, NULL, 0, NULL);
		e->op = HE_CONST;
		hist_expr_free(e->a);
		hist_expr_free(e->b);
		e->a = e->b = NULL;
		snprintf(e->text, sizeof(e->text), "%llu",
			 (unsigned long long)e->constant);
	} else {
		size_t la = strlen(e->a->text), lb = strlen(e->b->text);

		if (la + lb + 1 >= sizeof(e->text)) {
			ret = hist_msg(x->c, "hist: expression too long");
			goto done;
		}
		memcpy(e->text, e->a->text, la);
		e->text[la] = "+-*/"[op - HE_ADD];
		memcpy(e->text + la + 1, e->b->text, lb + 1);
	}
done:
	if (ret) {
		hist_expr_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

/* Whether @s names the writer's stack, as a variable or a parameter */
static bool hist_stack_name(const char *s)
{
	return !strcmp(s, "common_stacktrace") || !strcmp(s, "stacktrace") ||
	       !strcmp(s, "STACKTRACE");
}

/* An expression of a text, not a number: string field @f of the record
 * (written @text), or without @f the stack of the record's writer (its
 * count, then its frames); NULL when out of memory */
static struct hist_expr *hist_text_expr(const struct rt_field *f,
					const char *text)
{
	struct hist_expr *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->op = HE_FIELD;
	if (f) {
		e->field.field = *f;
		e->field.has_field = true;
		e->field.flags = HF_STRING;
		snprintf(e->field.name, sizeof(e->field.name), "%s", text);
	} else {
		e->field.flags = HF_STRING | HF_STACKTRACE;
		snprintf(e->field.name, sizeof(e->field.name),
			 "common_stacktrace");
		rt_stack_prime();
	}
	e->flags = e->field.flags;
	snprintf(e->text, sizeof(e->text), "%s", text);
	return e;
}

/* "NAME=EXPR", a variable (@tok, modified) */
static int hist_parse_var(struct hist_expr_ctx *x, char *tok)
{
	char *eq = strchr(tok, '='), *at;
	const struct rt_field *sf;
	struct hist_var *v;
	int ret;

	*eq = '\0';
	if (hist_find_var(x->d, tok) >= 0)
		return hist_err(x->c, "Variable already defined",
				hist_errpos(x->c, tok));
	if (x->d->n_vars == HIST_VARS_MAX)
		return hist_err(x->c, "Too many variables defined",
				hist_errpos(x->c, tok));
	v = &x->d->vars[x->d->n_vars];
	snprintf(v->name, sizeof(v->name), "%s", tok);
	/* as the kernel: '-' in ".sym-offset" is no operator */
	for (at = strstr(eq + 1, ".sym-offset"); at; at = strstr(at, ".sym-offset"))
		at[4] = 'X';
	x->n_sub = 0;
	sf = hist_find_field(x->p, eq + 1);
	if (hist_stack_name(eq + 1) || (sf && (sf->kind == RT_FIELD_STRING ||
					       sf->kind == RT_FIELD_DYNSTR))) {
		/* a string variable: the field's text; a stack variable:
		 * the writer's stack, kept as a text (its count, then its
		 * frames) */
		if (x->d->n_str_vars == HIST_STR_VARS_MAX)
			return hist_msg(x->c, "hist: 2 string or stack variables at most");
		v->e = hist_text_expr(hist_stack_name(eq + 1) ? NULL : sf,
				      eq + 1);
		if (!v->e)
			return -ENOMEM;
		v->str = true;
		x->d->n_str_vars++;
	} else {
		ret = hist_parse_expr(x, eq + 1, &v->e);
		if (ret)
			return ret;
		/* NAME=$VAR of a string or a stack: a copy of its text */
		if (v->e->op == HE_REF && (v->e->flags & HF_STRING)) {
			if (x->d->n_str_vars == HIST_STR_VARS_MAX)
				return hist_msg(x->c, "hist: 2 string or stack variables at most");
			v->str = true;
			x->d->n_str_vars++;
		}
	}
	v->slot = x->d->n_var_slots;
	v->flag = v->slot + (v->str ? HIST_STR_MAX / 8 : 1);
	x->d->n_var_slots = v->flag + 1;
	x->d->n_vars++;
	return 0;
}

/* After the handler's ')' at @close: ".ACTION(PARAMS)", cut into
 * *@act and *@params (modified in place) */
static int hist_split_action(struct hist_err_ctx *c, char *close, char **act,
			     char **params)
{
	char *p;

	if (close[1] != '.')
		return hist_err(c, "No action found", hist_errpos(c, close + 1));
	*act = close + 2;
	p = strchr(*act, '(');
	if (!p || p[strlen(p) - 1] != ')')
		return hist_err(c, "No closing paren found",
				hist_errpos(c, *act));
	*p++ = '\0';
	p[strlen(p) - 1] = '\0';
	*params = p;
	return 0;
}

/* Whether @o's keys are those of @d in number, size and kind, as the
 * kernel's compatible_keys() */
static bool hist_keys_compatible(const struct rt_hist_data *d,
				 const struct rt_hist_data *o)
{
	unsigned int i;

	if (d->n_keys != o->n_keys || d->key_size != o->key_size)
		return false;
	for (i = 0; i < d->n_keys; i++)
		if (d->keys[i].size != o->keys[i].size ||
		    (d->keys[i].flags & (HF_STRING | HF_STACKTRACE)) !=
			    (o->keys[i].flags & (HF_STRING | HF_STACKTRACE)) ||
		    d->keys[i].field.is_signed != o->keys[i].field.is_signed)
			return false;
	return true;
}

/*
 * A field variable: field @field (at @at in the command) of event @ev,
 * another than the trigger's, as an action's parameter. As the kernel's
 * create_field_var_hist(), the value is kept by a variable
 * "synthetic_FIELD" of a hist trigger on @ev with the keys (and filter)
 * of one there that is compatible with this table: made unless it is
 * there, and removed with this table (hist_data_free()). The reference
 * to it into *@out.
 */
static int hist_field_var(struct hist_expr_ctx *x, struct rt_event_priv *ev,
			  const char *field, const char *at,
			  struct hist_expr **out)
{
	struct hist_err_ctx *c = x->c;
	struct rt_hist_data *d = x->d;
	const struct rt_trigger_list *l = atomic_load_explicit(
		&ev->triggers[x->inst], memory_order_relaxed);
	const struct rt_trigger *ct = NULL;
	const struct rt_hist_data *cd = NULL;
	char var[80], ref[HIST_STR_MAX];
	struct hist_var_find f = { var, x->inst, d, NULL, -1 };
	struct hist_expr *e;
	const struct hist_ref *r;
	unsigned int i;
	int ri, pos = hist_errpos(c, at);

	for (i = 0; l && !cd && i < l->nr; i++) {
		const struct rt_hist_data *o;

		if (l->t[i]->type != RT_TRIG_HIST)
			continue;
		o = ((const struct rt_hist_trig *)l->t[i]->hist)->d;
		if (hist_keys_compatible(d, o)) {
			cd = o;
			ct = l->t[i];
		}
	}
	if (!cd)
		return hist_err(c, "Matching event histogram not found", pos);
	if ((size_t)snprintf(var, sizeof(var), "synthetic_%s", field) >=
	    sizeof(var))
		return hist_err(c, "Couldn't create field variable", pos);
	hist_var_find_one(ev, &f);
	if (!f.found) {
		char *cmd = NULL;
		size_t len = 0;
		FILE *fp;
		int ret;

		if (d->n_fv == RT_SYNTH_FIELDS_MAX)
			return hist_err(c, "Too many field variables defined",
					pos);
		fp = open_memstream(&cmd, &len);
		if (!fp)
			return -ENOMEM;
		fputs("hist:keys=", fp);
		for (i = 0; i < cd->n_keys; i++) {
			if (i)
				fputc(',', fp);
			hist_field_print(fp, &cd->keys[i]);
		}
		fprintf(fp, ":%s=%s", var, field);
		if (ct->filter_text)
			fprintf(fp, " if %s", ct->filter_text);
		if (fclose(fp) || !cmd) {
			free(cmd);
			return -ENOMEM;
		}
		ret = rt_trigger_hist_line(ev, x->inst, cmd, false, NULL, 0);
		if (ret) {
			free(cmd);
			return ret == -ENOMEM ?
				       ret :
				       hist_err(c, "Couldn't create histogram for field",
						pos);
		}
		snprintf(d->fv[d->n_fv].sys, sizeof(d->fv[0].sys), "%s",
			 ev->ev->system);
		snprintf(d->fv[d->n_fv].ev, sizeof(d->fv[0].ev), "%s",
			 ev->ev->name);
		d->fv[d->n_fv++].cmd = cmd;
	}
	snprintf(ref, sizeof(ref), "%s.%s.$%s", ev->ev->system, ev->ev->name,
		 var);
	ri = hist_add_ref(d, ref, x->inst, x->p);
	if (ri < 0)
		return hist_err(c, "Couldn't find synthetic variable", pos);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	r = &d->hrefs[ri];
	e->op = HE_REF;
	e->ref = (unsigned int)ri;
	e->flags = r->d->vars[r->var].e->flags;
	e->field.flags = e->flags & HF_STRING;
	snprintf(e->text, sizeof(e->text), "%s", ref);
	*out = e;
	return 0;
}

/*
 * The event a parameter @*p of action @a names a field of, when it is
 * another than the trigger's: "SYS.EVENT.FIELD" of another event, or
 * a plain name that is no field of the trigger's event but one of
 * onmatch()'s (as the kernel's trace_action_create_field_var()). The
 * field into *@field. "SYS.EVENT.FIELD" of the trigger's own event is
 * made FIELD (*@p moved).
 */
static struct rt_event_priv *hist_param_event(struct hist_expr_ctx *x,
					      const struct hist_action *a,
					      char **p, const char **field)
{
	char *s = *p, *d1, *d2, sys[128];
	struct rt_event_priv *ev;
	size_t i;

	if (strchr(s, '$'))
		return NULL;
	d1 = strchr(s, '.');
	d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (d2 && (size_t)(d1 - s) < sizeof(sys) &&
	    (size_t)(d2 - d1 - 1) < sizeof(sys)) {
		char name[128];

		memcpy(sys, s, (size_t)(d1 - s));
		sys[d1 - s] = '\0';
		memcpy(name, d1 + 1, (size_t)(d2 - d1 - 1));
		name[d2 - d1 - 1] = '\0';
		ev = rt_event_find(sys, name);
		if (!ev)
			return NULL;
		if (ev == x->p) {
			*p = d2 + 1;
			return NULL;
		}
		*field = d2 + 1;
		return ev;
	}
	if (!a->match || !(isalpha((unsigned char)*s) || *s == '_'))
		return NULL;
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return NULL;
	if (hist_find_field(x->p, s) || !hist_find_field(a->match, s))
		return NULL;
	*field = s;
	return a->match;
}

/*
 * The synthetic event an action writes: "trace(SYNTH,P,...)" or
 * "SYNTH(P,...)" (@act, @params, modified), each parameter a $variable,
 * an expression or a field of the event (a string field for a string
 * parameter). Counts the action in the table from its synthetic event
 * on (freed with it).
 */
static int hist_parse_synth_call(struct hist_expr_ctx *x, struct hist_action *a,
				 char *act, char *params)
{
	struct hist_err_ctx *c = x->c;
	const char *synth_name;
	unsigned int i;
	char *p;
	int ret;

	if (!strcmp(act, "trace")) {
		synth_name = strsep(&params, ",");
		if (!synth_name || !*synth_name)
			return hist_err(c, "Couldn't find synthetic event",
					hist_errpos(c, act));
	} else {
		synth_name = act;
	}
	a->synth = rt_synth_find(synth_name);
	if (!a->synth)
		return hist_err(c, "Couldn't find synthetic event",
				hist_errpos(c, synth_name));
	rt_synth_get(a->synth);
	x->d->n_actions++; /* from here on, freed with the table */
	while (params && (p = strsep(&params, ","))) {
		const struct rt_field *f;
		struct rt_event_priv *other;
		const char *field = NULL;
		struct hist_expr *e;

		if (a->n_params == RT_SYNTH_FIELDS_MAX)
			return hist_err(c, "Too many action params",
					hist_errpos(c, p));
		other = hist_param_event(x, a, &p, &field);
		f = !other && (isalpha((unsigned char)*p) || *p == '_') ?
			    hist_find_field(x->p, p) : NULL;
		if (hist_stack_name(p) ||
		    (!other && f && (f->kind == RT_FIELD_STRING ||
				     f->kind == RT_FIELD_DYNSTR))) {
			/* the stack of this record's writer, or its string
			 * field */
			e = hist_text_expr(hist_stack_name(p) ? NULL : f, p);
			if (!e)
				return -ENOMEM;
		} else if (other) {
			ret = hist_field_var(x, other, field, p, &e);
			if (ret)
				return ret;
		} else {
			x->n_sub = 0;
			ret = hist_parse_expr(x, p, &e);
			if (ret)
				return ret;
		}
		/* kept first: freed with the table whatever comes */
		a->params[a->n_params++] = e;
		if (a->n_params <= rt_synth_nr_fields(a->synth) &&
		    (!!(e->field.flags & HF_STACKTRACE) !=
			     rt_synth_field_is_stack(a->synth,
						     a->n_params - 1) ||
		     !!(e->field.flags & HF_STRING) !=
			     (rt_synth_field_is_string(a->synth,
						       a->n_params - 1) ||
			      rt_synth_field_is_stack(a->synth,
						      a->n_params - 1))))
			return hist_err(c,
					"Param type doesn't match synthetic event field type",
					hist_errpos(c, p));
	}
	if (a->n_params != rt_synth_nr_fields(a->synth))
		return hist_err(c,
				"Param count doesn't match synthetic event field count",
				hist_errpos(c, synth_name));
	for (i = 0; i < a->n_params; i++)
		if (a->params[i]->op == HE_FIELD &&
		    (a->params[i]->field.flags & HF_TIMESTAMP))
			x->d->timestamps = true;
	return 0;
}

/* "onmax($VAR).save(FIELD,...)", ".snapshot()", ".trace(SYNTH,P,...)" or
 * ".SYNTH(P,...)", and the same for onchange($VAR) */
static int hist_parse_track(struct hist_expr_ctx *x, struct hist_action *a,
			    char *tok)
{
	struct hist_err_ctx *c = x->c;
	char *var, *close, *act, *params, *p;
	unsigned int n;
	int v, ret;

	a->handler = !strncmp(tok, "onmax(", 6) ? HA_ONMAX : HA_ONCHANGE;
	var = strchr(tok, '(') + 1;
	close = strchr(var, ')');
	if (!close)
		return hist_err(c, "No closing paren found", hist_errpos(c, var));
	*close = '\0';
	if (var[0] != '$')
		return hist_err(c,
				"For onmax(x) or onchange(x), x must be a variable",
				hist_errpos(c, var));
	v = hist_find_var(x->d, var + 1);
	if (v < 0)
		return hist_err(c, "Couldn't find onmax or onchange variable",
				hist_errpos(c, var));
	if (x->d->vars[v].str)
		return hist_msg(c, "hist: onmax() and onchange() take a numeric variable");
	a->track_var = (unsigned int)v;
	ret = hist_split_action(c, close, &act, &params);
	if (ret)
		return ret;
	snprintf(a->var_text, sizeof(a->var_text), "%s", var);
	if (!strcmp(act, "snapshot") && !*params) {
		a->snapshot = true;
		a->snap_key = calloc(x->d->key_size / 8, sizeof(*a->snap_key));
		if (!a->snap_key)
			return -ENOMEM;
		a->slot = x->d->n_vals + x->d->n_var_slots + x->d->n_track_slots;
		x->d->n_actions++;
		x->d->n_track_slots += 2;
		return 0;
	}
	if (strcmp(act, "save")) {
		/* the synthetic event, at each new greatest (changed) value:
		 * the value and its set flag kept, no fields */
		a->slot = x->d->n_vals + x->d->n_var_slots +
			  x->d->n_track_slots;
		ret = hist_parse_synth_call(x, a, act, params);
		if (!ret)
			x->d->n_track_slots += 2;
		return ret;
	}
	if (!*params)
		return hist_err(c, "No params found for save()",
				hist_errpos(c, act));
	a->slot = x->d->n_vals + x->d->n_var_slots + x->d->n_track_slots;
	x->d->n_actions++; /* from here on, freed with the table */
	n = 0;
	while (params && (p = strsep(&params, ","))) {
		struct hist_expr *e = calloc(1, sizeof(*e));

		if (!e)
			return -ENOMEM;
		a->params[a->n_params++] = e;
		/* (as a key: a string field is taken, a stack is not) */
		ret = hist_parse_field(c, x->p, p, &e->field, true);
		if (ret)
			return ret;
		if (!e->field.has_field)
			return hist_err(c, "Couldn't find param",
					hist_errpos(c, p));
		if (e->field.flags & HF_STACKTRACE)
			return hist_err(c, "Invalid field modifier",
					hist_errpos(c, p));
		e->op = HE_FIELD;
		snprintf(e->text, sizeof(e->text), "%s", p);
		a->poff[a->n_params - 1] = n;
		n += e->field.flags & HF_STRING ? HIST_STR_MAX / 8 : 1;
		if (a->n_params == RT_SYNTH_FIELDS_MAX && params)
			return hist_err(c, "Too many action params",
					hist_errpos(c, params));
	}
	x->d->n_track_slots += 2 + n;
	if (x->d->n_vals + x->d->n_var_slots + x->d->n_track_slots >
	    TRACING_MAP_VALS_MAX)
		return hist_msg(c, "hist: too many values, variables and saved fields");
	return 0;
}

/* "onmatch(SYS.EVENT).trace(SYNTH,P,...)" or "onmatch(SYS.EVENT).SYNTH(P,...)"
 * (@tok, modified), an action of onmax() or onchange() otherwise */
static int hist_parse_action(struct hist_expr_ctx *x, char *tok)
{
	struct hist_err_ctx *c = x->c;
	struct hist_action *a = &x->d->actions[x->d->n_actions];
	char *ev, *close, *act, *params, *sys, *dot;
	int ret;

	if (x->d->n_actions == HIST_ACTIONS_MAX)
		return hist_msg(c, "hist: 4 actions at most");
	snprintf(a->text, sizeof(a->text), "%s", tok);
	if (strncmp(tok, "onmatch(", 8))
		return hist_parse_track(x, a, tok);
	ev = tok + 8;
	close = strchr(ev, ')');
	if (!close)
		return hist_err(c, "No closing paren found", hist_errpos(c, ev));
	*close = '\0';
	sys = ev;
	dot = strchr(ev, '.');
	if (!dot)
		return hist_err(c, "Missing subsystem", hist_errpos(c, ev));
	*dot = '\0';
	a->match = rt_event_find(sys, dot + 1);
	if (!a->match)
		return hist_err(c, "Invalid subsystem or event name",
				hist_errpos(c, sys));
	ret = hist_split_action(c, close, &act, &params);
	if (ret)
		return ret;
	return hist_parse_synth_call(x, a, act, params);
}

static int hist_parse_keys(struct hist_err_ctx *c, struct rt_event_priv *p,
			   struct rt_hist_data *d, char *s)
{
	char *tok;

	while ((tok = strsep(&s, ","))) {
		struct hist_field *f = &d->keys[d->n_keys];
		int ret;

		if (d->n_keys == HIST_KEYS_MAX)
			return hist_msg(c, "hist: 3 keys at most");
		ret = hist_parse_field(c, p, tok, f, true);
		if (ret)
			return ret;
		if (f->flags & HF_HITCOUNT)
			return hist_err(c, "Couldn't find field",
					hist_errpos(c, "hitcount"));
		if (f->flags & HF_STACKTRACE)
			f->size = HIST_STACKTRACE_DEPTH * sizeof(uint64_t);
		else if (f->flags & HF_STRING)
			f->size = f->field.kind == RT_FIELD_STRING &&
						  f->field.size < HIST_STR_MAX ?
					  (f->field.size + 8u) & ~7u :
					  HIST_STR_MAX;
		else
			f->size = sizeof(uint64_t);
		f->offset = d->key_size;
		d->key_size += f->size;
		if (f->flags & HF_TIMESTAMP)
			d->timestamps = true;
		d->n_keys++;
	}
	return 0;
}

static int hist_parse_vals(struct hist_expr_ctx *x, char *s)
{
	struct hist_err_ctx *c = x->c;
	struct rt_event_priv *p = x->p;
	struct rt_hist_data *d = x->d;
	char *tok;
	bool hitcount = false;

	while (s && (tok = strsep(&s, ","))) {
		struct hist_field *f = &d->vals[d->n_vals];
		int ret;

		if (!strcmp(tok, "hitcount") && !hitcount) {
			hitcount = true;
			continue;
		}
		if (d->n_vals == HIST_VALS_MAX)
			return hist_msg(c, "hist: 2 values at most besides hitcount");
		if (strpbrk(tok, "$+*/") ||
		    (strchr(tok, '-') && !strstr(tok, ".sym-offset"))) {
			/* an expression or a variable's value */
			memset(f, 0, sizeof(*f));
			x->n_sub = 0;
			ret = hist_parse_expr(x, tok, &f->expr);
			if (ret)
				return ret;
			if (f->expr->flags & HF_STRING) {
				hist_expr_free(f->expr);
				f->expr = NULL;
				return hist_msg(c, "hist: a string variable can not be a value");
			}
			f->flags = HF_EXPR | f->expr->flags;
			snprintf(f->name, sizeof(f->name), "%s",
				 f->expr->text + (f->expr->op == HE_REF));
			d->n_vals++;
			continue;
		}
		ret = hist_parse_field(c, p, tok, f, false);
		if (ret)
			return ret;
		if (f->flags & HF_TIMESTAMP)
			d->timestamps = true;
		d->n_vals++;
	}
	return 0;
}

static int hist_parse_sort(struct hist_err_ctx *c, struct rt_hist_data *d,
			   char *s)
{
	unsigned int i;

	d->n_sort = 1;
	if (!s)
		return 0;
	for (i = 0; i < HIST_SORT_KEYS_MAX; i++) {
		struct hist_sort_key *k = &d->sort[i];
		char *tok = strsep(&s, ","), *name, *mod;
		unsigned int j;

		if (!tok)
			break;
		if (!*tok)
			return hist_err(c, "Empty sort field",
					hist_errpos(c, "sort="));
		if (i == HIST_SORT_KEYS_MAX - 1 && s)
			return hist_err(c, "Too many sort fields (Max = 2)",
					hist_errpos(c, "sort="));
		mod = tok;
		name = strsep(&mod, ".");
		if (!name || !*name)
			return hist_err(c, "Empty sort field",
					hist_errpos(c, "sort="));
		if (mod && strcmp(mod, "descending") && strcmp(mod, "ascending"))
			return hist_err(c, "Invalid sort modifier",
					hist_errpos(c, mod));
		k->descending = mod && !strcmp(mod, "descending");
		if (!strcmp(name, "hitcount")) {
			k->is_key = false;
			k->idx = 0;
			continue;
		}
		for (j = 1; j < d->n_vals; j++)
			if (!strcmp(d->vals[j].name, name))
				break;
		if (j < d->n_vals) {
			k->is_key = false;
			k->idx = j;
			continue;
		}
		for (j = 0; j < d->n_keys; j++)
			if (!strcmp(d->keys[j].name, name))
				break;
		if (j == d->n_keys)
			return hist_err(c, "Sort field must be a key or a val",
					hist_errpos(c, name));
		k->is_key = true;
		k->idx = j;
	}
	d->n_sort = i;
	return 0;
}

static void hist_data_put(struct rt_hist_data *d);

/* The parts of @d, which is no table's any more, and the hist triggers
 * its field variables made (registry lock) */
static void hist_data_free(struct rt_hist_data *d)
{
	struct hist_fv_hist *fv = d->n_fv ? malloc(sizeof(d->fv)) : NULL;
	unsigned int i, n_fv = fv ? d->n_fv : 0;
	int inst = d->inst;

	for (i = 0; i < d->n_vals; i++)
		hist_expr_free(d->vals[i].expr);
	for (i = 0; i < d->n_vars; i++)
		hist_expr_free(d->vars[i].e);
	for (i = 0; i < d->n_actions; i++) {
		unsigned int k;

		for (k = 0; k < d->actions[i].n_params; k++)
			hist_expr_free(d->actions[i].params[k]);
		rt_synth_put(d->actions[i].synth);
		free(d->actions[i].snap_key);
	}
	for (i = 0; i < d->n_refs; i++)
		if (d->hrefs[i].d != d) {
			d->hrefs[i].d->ext_refs--;
			hist_data_put(d->hrefs[i].d);
		}
	tracing_map_destroy(d->map);
	free(d->name);
	if (fv)
		memcpy(fv, d->fv, sizeof(d->fv));
	else
		for (i = 0; i < d->n_fv; i++)
			free(d->fv[i].cmd); /* (out of memory: left there) */
	free(d);
	/* after the references above are dropped: no longer busy */
	for (i = 0; i < n_fv; i++) {
		struct rt_event_priv *ev = rt_event_find(fv[i].sys, fv[i].ev);

		if (ev)
			rt_trigger_hist_line(ev, inst, fv[i].cmd, true, NULL, 0);
		free(fv[i].cmd);
	}
	free(fv);
}

static void hist_data_put(struct rt_hist_data *d)
{
	struct rt_hist_data **pp;

	if (!d || --d->refs > 0)
		return;
	for (pp = &rt_hist_named; *pp; pp = &(*pp)->next_named)
		if (*pp == d) {
			*pp = d->next_named;
			break;
		}
	hist_data_free(d);
}

/* The table's part of the trigger line: "keys=...:vals=...:sort=...:size=N" */
static void hist_spec_print(FILE *f, const struct rt_hist_data *d)
{
	unsigned int i;

	fputs("keys=", f);
	for (i = 0; i < d->n_keys; i++) {
		if (i)
			fputc(',', f);
		hist_field_print(f, &d->keys[i]);
	}
	fputs(":vals=hitcount", f);
	for (i = 1; i < d->n_vals; i++) {
		fputc(',', f);
		hist_field_print(f, &d->vals[i]);
	}
	for (i = 0; i < d->n_vars; i++)
		fprintf(f, "%c%s=%s", i ? ',' : ':', d->vars[i].name,
			d->vars[i].e->text);
	fputs(":sort=", f);
	for (i = 0; i < d->n_sort; i++) {
		const struct hist_sort_key *k = &d->sort[i];

		if (i)
			fputc(',', f);
		if (!k->is_key && k->idx == 0)
			fputs("hitcount", f);
		else
			hist_field_print(f, k->is_key ? &d->keys[k->idx] :
							 &d->vals[k->idx]);
		if (k->descending)
			fputs(".descending", f);
	}
	fprintf(f, ":size=%u", 1u << d->map_bits);
	if (d->timestamps)
		fprintf(f, ":clock=%s", d->clock);
	if (d->nohitcount)
		fputs(":nohitcount", f);
	for (i = 0; i < d->n_actions; i++)
		fprintf(f, ":%s", d->actions[i].text);
}

static bool hist_data_same(const struct rt_hist_data *a,
			   const struct rt_hist_data *b)
{
	char *sa = NULL, *sb = NULL;
	size_t la, lb;
	FILE *fa = open_memstream(&sa, &la), *fb = open_memstream(&sb, &lb);
	bool same = false;

	if (fa && fb) {
		hist_spec_print(fa, a);
		hist_spec_print(fb, b);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	if (sa && sb)
		same = !strcmp(sa, sb);
	free(sa);
	free(sb);
	return same;
}

bool rt_hist_timestamps(const struct rt_trigger *t)
{
	const struct rt_hist_trig *ht = t->hist;

	return t->type == RT_TRIG_HIST && ht && ht->d->timestamps;
}

/* Whether @d takes rt_hist_event()'s short path (see rt_hist_data) */
static bool hist_data_plain(const struct rt_hist_data *d)
{
	unsigned int i;

	if (d->n_vars || d->n_refs || d->n_actions ||
	    d->key_size != d->n_keys * sizeof(uint64_t))
		return false;
	for (i = 0; i < d->n_keys; i++)
		if (d->keys[i].flags || !d->keys[i].has_field)
			return false;
	for (i = 1; i < d->n_vals; i++)
		if (d->vals[i].flags || !d->vals[i].has_field)
			return false;
	return true;
}

static void hist_num_of(struct hist_num *n, const struct rt_field *f)
{
	n->offset = (uint16_t)f->offset;
	/* hist_read_num_at()'s sizes: anything else reads 8 bytes */
	n->size = f->size == 1 || f->size == 2 || f->size == 4 ?
			  (uint8_t)f->size : 8;
	n->is_signed = f->is_signed;
}

/* @ht's copy of what rt_hist_event() reads of a plain table */
static void hist_trig_compile(struct rt_hist_trig *ht)
{
	const struct rt_hist_data *d = ht->d;
	unsigned int i;

	ht->plain = d->plain;
	ht->clearing = &ht->d->clearing;
	if (!d->plain)
		return;
	ht->n_keys = (uint8_t)d->n_keys;
	ht->n_vals = (uint8_t)d->n_vals;
	for (i = 0; i < d->n_keys; i++)
		hist_num_of(&ht->keys[i], &d->keys[i].field);
	for (i = 1; i < d->n_vals; i++)
		hist_num_of(&ht->vals[i], &d->vals[i].field);
	tracing_map_probe_init(&ht->probe, d->map);
}

int rt_hist_parse(struct rt_event_priv *p, int inst, const char *line,
		  struct rt_trigger *t, char *err, size_t errlen)
{
	struct hist_err_ctx c = { .cmd = line, .err = err, .errlen = errlen };
	struct hist_expr_ctx x = { .c = &c, .p = p, .inst = inst };
	char *assign[HIST_VARS_MAX], *act[HIST_ACTIONS_MAX];
	unsigned int n_assign = 0, n_act = 0, i;
	char *copy, *s, *tok, *keys = NULL, *vals = NULL, *sort = NULL;
	struct rt_hist_data *d;
	struct rt_hist_trig *ht;
	size_t cmdlen;
	int ret = -EINVAL;

	snprintf(c.loc, sizeof(c.loc), "hist:%s:%s", p->ev->system,
		 p->ev->name);
	cmdlen = strcspn(line, " \t");
	copy = strndup(line, cmdlen);
	d = calloc(1, sizeof(*d));
	ht = calloc(1, sizeof(*ht));
	if (!copy || !d || !ht) {
		ret = -ENOMEM;
		goto fail;
	}
	x.d = d;
	d->inst = inst;
	d->refs = 1;
	d->map_bits = TRACING_MAP_BITS_DEFAULT;
	snprintf(d->clock, sizeof(d->clock), "global");
	s = copy + 4; /* "hist" */
	if (*s == ':')
		s++;
	else if (*s) {
		ret = hist_msg(&c, "hist: ':' expected after 'hist'");
		goto fail;
	}
	while (s && *s && (tok = strsep(&s, ":"))) {
		char *rhs = strchr(tok, '=');

		if (rhs) {
			if (!rhs[1]) {
				ret = hist_err(&c, "Empty assignment",
					       hist_errpos(&c, tok));
				goto fail;
			}
			if (!strncmp(tok, "keys=", 5) || !strncmp(tok, "key=", 4))
				keys = rhs + 1;
			else if (!strncmp(tok, "vals=", 5) ||
				 !strncmp(tok, "val=", 4) ||
				 !strncmp(tok, "values=", 7))
				vals = rhs + 1;
			else if (!strncmp(tok, "sort=", 5))
				sort = rhs + 1;
			else if (!strncmp(tok, "name=", 5)) {
				free(d->name);
				d->name = strdup(rhs + 1);
				if (!d->name) {
					ret = -ENOMEM;
					goto fail;
				}
			} else if (!strncmp(tok, "clock=", 6)) {
				snprintf(d->clock, sizeof(d->clock), "%s",
					 rhs + 1);
			} else if (!strncmp(tok, "size=", 5)) {
				char *e;
				unsigned long n, bits = 0;

				errno = 0;
				n = strtoul(rhs + 1, &e, 0);
				while (bits < 63 && (1ul << bits) < n)
					bits++;
				if (errno || *e || bits < TRACING_MAP_BITS_MIN ||
				    bits > TRACING_MAP_BITS_MAX) {
					ret = hist_msg(&c, "hist: size= must be 128 to 131072");
					goto fail;
				}
				d->map_bits = (unsigned int)bits;
			} else {
				if (n_assign == HIST_VARS_MAX) {
					ret = hist_err(&c, "Too many variables defined",
						       hist_errpos(&c, tok));
					goto fail;
				}
				assign[n_assign++] = tok;
			}
		} else if (!strcmp(tok, "nohitcount") || !strcmp(tok, "NOHC")) {
			d->nohitcount = true;
		} else if (!strcmp(tok, "pause")) {
			ht->pause = true;
		} else if (!strcmp(tok, "cont") || !strcmp(tok, "continue")) {
			ht->cont = true;
		} else if (!strcmp(tok, "clear")) {
			ht->clear = true;
		} else {
			/* an action; an unknown word is refused, as the
			 * kernel's parse_action() refuses it */
			if (strncmp(tok, "onmatch(", 8) &&
			    strncmp(tok, "onmax(", 6) &&
			    strncmp(tok, "onchange(", 9)) {
				ret = hist_msg(&c, "hist: unknown attribute");
				goto fail;
			}
			if (n_act == HIST_ACTIONS_MAX) {
				ret = hist_msg(&c, "hist: 4 actions at most");
				goto fail;
			}
			act[n_act++] = tok;
		}
	}
	if (!keys) {
		ret = hist_msg(&c, "hist: keys= is required");
		goto fail;
	}
	/* keys, then the variables (which may look another table up by
	 * the key), then the values (which may be variables); hitcount is
	 * value 0 */
	snprintf(d->vals[0].name, sizeof(d->vals[0].name), "hitcount");
	d->vals[0].flags = HF_HITCOUNT;
	d->n_vals = 1;
	ret = hist_parse_keys(&c, p, d, keys);
	/* "a=...,b=...": several variables in one assignment */
	for (i = 0; !ret && i < n_assign; i++) {
		char *v, *rest = assign[i];

		while (!ret && (v = strsep(&rest, ","))) {
			if (!strchr(v, '=') || v[0] == '=') {
				ret = hist_err(&c, "Malformed assignment",
					       hist_errpos(&c, v));
				break;
			}
			ret = hist_parse_var(&x, v);
		}
	}
	if (!ret)
		ret = hist_parse_vals(&x, vals);
	for (i = 0; !ret && i < n_act; i++)
		ret = hist_parse_action(&x, act[i]);
	if (!ret && d->nohitcount && d->n_vals == 1)
		ret = hist_err(&c, "Non-hitcount value is required for 'nohitcount'",
			       0);
	if (!ret)
		ret = hist_parse_sort(&c, d, sort);
	if (ret)
		goto fail;
	if (d->name) {
		struct rt_hist_data *n;

		for (n = rt_hist_named; n; n = n->next_named)
			if (!strcmp(n->name, d->name))
				break;
		if (n) {
			if (!hist_data_same(n, d)) {
				ret = hist_err(&c, "Named hist trigger doesn't match existing named trigger (includes variables)",
					       hist_errpos(&c, "name="));
				goto fail;
			}
			hist_data_free(d);
			d = n;
			d->refs++;
			goto done;
		}
	}
	/* the values, then each variable's value and its set flag */
	d->map = tracing_map_create(d->map_bits, d->key_size,
				    d->n_vals + d->n_var_slots +
					    d->n_track_slots,
				    d->n_vals);
	if (!d->map) {
		ret = -ENOMEM;
		goto fail;
	}
	if (d->name) {
		d->next_named = rt_hist_named;
		rt_hist_named = d;
	}
	d->plain = hist_data_plain(d);
done:
	atomic_init(&ht->paused, ht->pause);
	ht->d = d;
	hist_trig_compile(ht);
	t->hist = ht;
	free(copy);
	for (i = 0; i < d->n_keys; i++)
		if (d->keys[i].flags & HF_STACKTRACE)
			rt_stack_prime();
	return 0;
fail:
	if (d)
		hist_data_free(d);
	free(ht);
	free(copy);
	return ret;
}

bool rt_hist_match(const struct rt_trigger *a, const struct rt_trigger *b)
{
	const struct rt_hist_trig *ha = a->hist, *hb = b->hist;

	if (!ha || !hb)
		return false;
	if (!!ha->d->name != !!hb->d->name ||
	    (ha->d->name && strcmp(ha->d->name, hb->d->name)))
		return false;
	if (!!a->filter_text != !!b->filter_text ||
	    (a->filter_text && strcmp(a->filter_text, b->filter_text)))
		return false;
	return ha->d == hb->d || hist_data_same(ha->d, hb->d);
}

bool rt_hist_modify(struct rt_trigger *old, const struct rt_trigger *t)
{
	struct rt_hist_trig *ho = old->hist;
	const struct rt_hist_trig *ht = t->hist;

	if (!ht->pause && !ht->cont && !ht->clear)
		return false;
	/* Relaxed: the flag is the whole state; writers read it relaxed. */
	if (ht->pause)
		atomic_store_explicit(&ho->paused, true, memory_order_relaxed);
	else if (ht->cont)
		atomic_store_explicit(&ho->paused, false, memory_order_relaxed);
	if (ht->clear) {
		/* Writers keep out of the table while it is cleared: a
		 * write section that began before the store has ended
		 * after the grace period, and one that begins after it
		 * sees the flag. Seq_cst store: before the grace period's
		 * own ordering. */
		atomic_store(&ho->d->clearing, true);
		rt_synchronize_rcu();
		tracing_map_clear(ho->d->map);
		atomic_store(&ho->d->clearing, false);
	}
	return true;
}

bool rt_hist_modifier_only(const struct rt_trigger *t, struct rt_event_priv *p,
			   const char *line, char *err, size_t errlen)
{
	const struct rt_hist_trig *ht = t->hist;
	struct hist_err_ctx c = { .cmd = line, .err = err, .errlen = errlen };

	if (!ht->cont && !ht->clear)
		return false;
	snprintf(c.loc, sizeof(c.loc), "hist:%s:%s", p->ev->system,
		 p->ev->name);
	hist_err(&c, "Can't clear or continue a nonexistent hist trigger", 0);
	return true;
}

size_t rt_hist_print_trigger(const struct rt_trigger *t, char *buf,
			     size_t len)
{
	const struct rt_hist_trig *ht = t->hist;
	char *s = NULL;
	size_t n = 0, ret;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return 0;
	fputs("hist:", f);
	if (ht->d->name)
		fprintf(f, "name=%s:", ht->d->name);
	hist_spec_print(f, ht->d);
	if (t->filter_text)
		fprintf(f, " if %s", t->filter_text);
	fprintf(f, atomic_load_explicit(&ht->paused, memory_order_relaxed) ?
			   " [paused]\n" :
			   " [active]\n");
	fclose(f);
	ret = (size_t)snprintf(buf, len, "%s", s ? s : "");
	free(s);
	return ret;
}

bool rt_hist_busy(const struct rt_trigger *t)
{
	const struct rt_hist_trig *ht = t->hist;

	return ht && ht->d->ext_refs > 0;
}

void rt_hist_free(struct rt_trigger *t)
{
	struct rt_hist_trig *ht = t ? t->hist : NULL;

	if (!ht)
		return;
	hist_data_put(ht->d);
	free(ht);
	t->hist = NULL;
}

/* ---- the write path ------------------------------------------------------ */

/* A numeric field of @rec */
static inline __attribute__((no_instrument_function)) uint64_t
hist_read_num(const struct rt_field *f, const unsigned char *rec)
{
	return hist_read_num_at(rec + f->offset, f->size, f->is_signed);
}

static __attribute__((no_instrument_function)) unsigned int
hist_ilog2_roundup(uint64_t v)
{
	unsigned int l;

	if (v <= 1)
		return 0;
	l = 63u - (unsigned int)__builtin_clzll(v - 1);
	return l + 1;
}

/*
 * The stamp of the record rt_hist_event() counts in this thread: what
 * common_timestamp reads (the record's own stamp in the buffer, or the
 * clock read once for the record when it has none yet). Each
 * rt_hist_event() sets it and puts back the value it found, so that a
 * write nested in a signal handler leaves the outer one its own.
 */
static __thread uint64_t rt_hist_rec_ts
	__attribute__((tls_model("initial-exec")));

/* The value of @hf on @rec (not a string or a stack) */
static __attribute__((no_instrument_function)) uint64_t
hist_field_value(const struct hist_field *hf, const unsigned char *rec,
		 int inst)
{
	uint64_t v;

	(void)inst; /* (common_timestamp: the record's, rt_hist_rec_ts) */
	if (__builtin_expect(hf->flags == 0, 1))
		return hist_read_num(&hf->field, rec);
	if (hf->flags & HF_TIMESTAMP) {
		v = rt_hist_rec_ts;
		if (hf->flags & HF_USECS)
			v /= 1000;
	} else if (hf->flags & HF_CPU) {
		int cpu = sched_getcpu();

		v = cpu < 0 ? 0 : (uint64_t)cpu;
	} else if (hf->has_field) {
		v = hist_read_num(&hf->field, rec);
	} else {
		v = 1;
	}
	if (hf->flags & HF_LOG2)
		v = hist_ilog2_roundup(v);
	else if (hf->flags & HF_BUCKET)
		v = v / hf->buckets * hf->buckets;
	return v;
}

/* A string field into @dst (@size bytes, zeroed) */
static __attribute__((no_instrument_function)) void
hist_read_str(const struct rt_field *f, const unsigned char *rec, size_t len,
	      char *dst, unsigned int size)
{
	const unsigned char *s = rec + f->offset;
	size_t n = f->size;

	if (f->kind == RT_FIELD_DYNSTR) {
		uint32_t loc;

		memcpy(&loc, rec + f->offset, 4);
		if ((loc & 0xffff) + (loc >> 16) > len)
			return;
		s = rec + (loc & 0xffff);
		n = loc >> 16;
	}
	if (f->offset + (size_t)f->size > len && f->kind != RT_FIELD_DYNSTR)
		n = f->offset < len ? len - f->offset : 0;
	if (n > size - 1)
		n = size - 1;
	memcpy(dst, s, strnlen((const char *)s, n));
}

/* The stack of the record's writer from @from on, into @st: its count of
 * frames (HIST_STACKTRACE_DEPTH at most), then the frames, as the
 * kernel's stack of a stacktrace variable */
static __attribute__((no_instrument_function)) void
hist_stack(uint64_t *st, const void *from)
{
	void *pc[HIST_STACKTRACE_DEPTH + 8];
	int n = backtrace(pc, HIST_STACKTRACE_DEPTH + 8), k, first = 0;

	for (k = 0; k < n; k++)
		if (pc[k] == from) {
			first = k;
			break;
		}
	for (k = 0; k + first < n && k < HIST_STACKTRACE_DEPTH; k++)
		st[1 + k] = (uint64_t)(uintptr_t)pc[first + k];
	st[0] = (uint64_t)k;
}

/*
 * The values of the variables @d refers to, for @key, into @refv: a
 * variable of another table is read once (its entry's flag taken back,
 * as the kernel's tracing_map_read_var_once()), one of this table is
 * read as it is. Return: false when one is not set.
 */
static __attribute__((no_instrument_function)) bool
hist_resolve_refs(const struct rt_hist_data *d, const void *key,
		  uint64_t *refv, uint64_t (*strs)[HIST_STR_MAX / 8])
{
	unsigned int i, ns = 0;

	for (i = 0; i < d->n_refs; i++) {
		const struct hist_ref *r = &d->hrefs[i];
		const struct hist_var *var = &r->d->vars[r->var];
		unsigned int slot = r->d->n_vals + var->slot,
			     flag = r->d->n_vals + var->flag, k;
		struct tracing_map_elt *e =
			r->d == d ? NULL : tracing_map_lookup(r->d->map, key);
		uint64_t set;

		if (r->d == d)
			continue; /* this record's own value (rt_hist_event()) */
		if (!e)
			return false;
		/* Acquire: pairs with the release store of the flag in
		 * rt_hist_event(): the value is the one it published. */
		set = atomic_exchange_explicit(&e->sums[flag], 0,
					       memory_order_acquire);
		if (!set)
			return false;
		if (!var->str) {
			refv[i] = atomic_load_explicit(&e->sums[slot],
						       memory_order_relaxed);
			continue;
		}
		/* a string: its text copied out (hist_add_ref() keeps the
		 * string references within @strs) */
		for (k = 0; k < HIST_STR_MAX / 8; k++)
			strs[ns][k] = atomic_load_explicit(
				&e->sums[slot + k], memory_order_relaxed);
		((char *)strs[ns])[HIST_STR_MAX - 1] = '\0';
		refv[i] = (uint64_t)(uintptr_t)strs[ns++];
	}
	return true;
}

/* onmax() and onchange(): a new greatest (changed) value of the variable
 * in entry @elt saves the fields of @rec with it. Bounded: a value fought
 * over that long is not kept. */
static __attribute__((no_instrument_function)) void
hist_snapshot_run(struct hist_action *a, const uint64_t *key,
		  unsigned int key_size, int inst, uint64_t v);

/* The instance whose snapshot a hist action asked for while this
 * thread's record was being written, or -1 (hist.h) */
__thread int rt_hist_snap_inst __attribute__((tls_model("initial-exec"))) = -1;

static __attribute__((no_instrument_function)) void
hist_action_run(const struct hist_action *a, const unsigned char *rec,
		size_t len, int inst, const uint64_t *refv, const void *from);

static __attribute__((no_instrument_function)) void
hist_track_run(struct hist_action *a, struct tracing_map_elt *elt,
	       const unsigned char *rec, size_t len, int inst, uint64_t v,
	       const uint64_t *key, unsigned int key_size,
	       const uint64_t *refv, const void *from)
{
	_Atomic uint64_t *tv = &elt->sums[a->slot];
	uint64_t old = atomic_load_explicit(tv, memory_order_relaxed);
	bool set = atomic_load_explicit(&elt->sums[a->slot + 1],
					memory_order_relaxed);
	unsigned int i, tries;

	for (tries = 0; tries < 100; tries++) {
		if (set && (a->handler == HA_ONMAX ? v <= old : v == old))
			return;
		/* Relaxed: the value and the saved fields are read by the
		 * hist file, which takes them as they are, like sums. A
		 * failure reloads @old: look again. */
		if (atomic_compare_exchange_weak_explicit(
			    tv, &old, v, memory_order_relaxed,
			    memory_order_relaxed))
			break;
		set = true;
	}
	if (tries == 100)
		return;
	atomic_store_explicit(&elt->sums[a->slot + 1], 1, memory_order_relaxed);
	if (a->snapshot)
		hist_snapshot_run(a, key, key_size, inst, v);
	if (a->synth) {
		hist_action_run(a, rec, len, inst, refv, from);
		return;
	}
	/* Relaxed: the hist file reads the saved fields as it finds them
	 * (a string saved by two writers at once may mix, as the kernel's
	 * unsynchronized copy may) */
	for (i = 0; i < a->n_params; i++) {
		_Atomic uint64_t *at = &elt->sums[a->slot + 2 + a->poff[i]];
		const struct hist_field *hf = &a->params[i]->field;

		if (hf->flags & HF_STRING) {
			uint64_t str[HIST_STR_MAX / 8] = { 0 };
			unsigned int k;

			hist_read_str(&hf->field, rec, len, (char *)str,
				      HIST_STR_MAX);
			for (k = 0; k < HIST_STR_MAX / 8; k++)
				atomic_store_explicit(&at[k], str[k],
						      memory_order_relaxed);
		} else {
			atomic_store_explicit(at, hist_field_value(hf, rec, inst),
					      memory_order_relaxed);
		}
	}
}

/*
 * snapshot(): onchange() takes one at each change, onmax() at each new
 * greatest value of all entries, as the kernel's cond_snapshot_update();
 * the swap as the snapshot trigger's (rt_trigger_fire()): in a thread's
 * own write only, and when the instance's lock is free.
 */
static __attribute__((no_instrument_function)) void
hist_snapshot_run(struct hist_action *a, const uint64_t *key,
		  unsigned int key_size, int inst, uint64_t v)
{
	unsigned int i;

	if (a->handler == HA_ONMAX) {
		/* Relaxed: the greatest value orders nothing; a failed
		 * exchange reloads it. Bounded: a value fought over that
		 * long takes no snapshot. */
		uint64_t old = atomic_load_explicit(&a->snap_val,
						    memory_order_relaxed);
		int tries;

		for (tries = 0; tries < 100; tries++) {
			if (atomic_load_explicit(&a->snap_set,
						 memory_order_relaxed) &&
			    v <= old)
				return;
			if (atomic_compare_exchange_weak_explicit(
				    &a->snap_val, &old, v,
				    memory_order_relaxed, memory_order_relaxed))
				break;
		}
		if (tries == 100)
			return;
	} else {
		atomic_store_explicit(&a->snap_val, v, memory_order_relaxed);
	}
	/* Relaxed: the hist file shows the key as it finds it */
	for (i = 0; i < key_size / 8; i++)
		atomic_store_explicit(&a->snap_key[i], key[i],
				      memory_order_relaxed);
	atomic_store_explicit(&a->snap_set, true, memory_order_relaxed);
	/* the swap waits for the buffer's writers, this record's among
	 * them: after its commit (rt_hist_commit_done()) */
	rt_hist_snap_inst = inst;
}

__attribute__((no_instrument_function)) void rt_hist_commit_done_slow(void)
{
	struct ringtrace_instance *tr;
	int inst = rt_hist_snap_inst;

	rt_hist_snap_inst = -1;
	/* Pairs with the release stores that publish instances; the
	 * caller is inside its write's read-side section. */
	tr = atomic_load_explicit(&rt_instances[inst], memory_order_acquire);
	if (tr && rt_cur.depth <= 1 && rt_cur.irq == 0 &&
	    pthread_mutex_trylock(&tr->lock) == 0) {
		rt_snapshot_swap_locked(tr);
		pthread_mutex_unlock(&tr->lock);
	}
}

/* Write the synthetic event of @a for record @rec (@len bytes), whose
 * writer's stack starts at @from */
static __attribute__((no_instrument_function)) void
hist_action_run(const struct hist_action *a, const unsigned char *rec,
		size_t len, int inst, const uint64_t *refv, const void *from)
{
	uint64_t vals[RT_SYNTH_FIELDS_MAX];
	uint64_t stack[HIST_STACKTRACE_DEPTH + 1];
	char strs[4][HIST_STR_MAX];
	unsigned int i, ns = 0;
	bool stacked = false;

	for (i = 0; i < a->n_params; i++) {
		const struct hist_expr *e = a->params[i];

		if (e->op == HE_FIELD && (e->field.flags & HF_STACKTRACE)) {
			/* this record's stack, taken once */
			if (!stacked)
				hist_stack(stack, from);
			stacked = true;
			vals[i] = (uint64_t)(uintptr_t)stack;
		} else if (e->op == HE_REF && (e->field.flags & HF_STRING)) {
			/* a string variable's text (hist_resolve_refs() or
			 * this record's, in rt_hist_event()'s frame) */
			vals[i] = refv[e->ref];
		} else if (e->op == HE_FIELD && (e->field.flags & HF_STRING)) {
			char *dst = ns < 4 ? strs[ns++] : NULL;

			if (dst) {
				memset(dst, 0, HIST_STR_MAX);
				hist_read_str(&e->field.field, rec, len, dst,
					      HIST_STR_MAX);
			}
			vals[i] = (uint64_t)(uintptr_t)(dst ? dst : "");
		} else {
			vals[i] = hist_expr_eval(e, rec, inst, refv);
		}
	}
	rt_synth_trace(a->synth, vals);
}

/* rt_hist_event() for a table that is not plain: keys of any kind,
 * variables, references and actions (a frame of the largest key) */
static __attribute__((noinline, no_instrument_function)) void
hist_event_full(struct rt_hist_data *d, const void *rec, size_t len,
		int inst, const void *from)
{
	uint64_t key[HIST_KEY_SIZE_MAX / 8], refv[HIST_REFS_MAX];
	uint64_t varv[HIST_VARS_MAX];
	/* the text of referenced string variables, and of this table's */
	uint64_t rstr[HIST_STR_REFS_MAX][HIST_STR_MAX / 8];
	uint64_t vstr[HIST_STR_VARS_MAX][HIST_STR_MAX / 8];
	unsigned int nvs = 0;
	unsigned char *kb = (unsigned char *)key;
	struct tracing_map_probe probe;
	struct tracing_map_elt *elt;
	struct tracing_map_sums sums;
	unsigned int i, idx;

	for (i = 0; i < d->key_size / 8; i++)
		key[i] = 0;
	for (i = 0; i < d->n_keys; i++) {
		const struct hist_field *hf = &d->keys[i];

		if (hf->flags & HF_STRING) {
			hist_read_str(&hf->field, rec, len,
				      (char *)kb + hf->offset, hf->size);
		} else if (hf->flags & HF_STACKTRACE) {
			uint64_t st[HIST_STACKTRACE_DEPTH + 1];

			hist_stack(st, from);
			memcpy(kb + hf->offset, st + 1, st[0] * 8);
		} else {
			uint64_t v = hist_field_value(hf, rec, inst);

			memcpy(kb + hf->offset, &v, 8);
		}
	}
	/* the variables this one reads, each once: without them the
	 * record does not count, as in the kernel */
	if (d->n_refs && !hist_resolve_refs(d, key, refv, rstr))
		return;
	tracing_map_probe_init(&probe, d->map);
	elt = tracing_map_probe_insert(&probe, key, &idx);
	if (!elt)
		return;
	sums = tracing_map_sums_of(&probe, elt, idx);
	tracing_map_update_sum(sums, 0, 1);
	/* the variables first: a value may be one of them */
	for (i = 0; i < d->n_vars; i++) {
		const struct hist_var *var = &d->vars[i];
		unsigned int slot = d->n_vals + var->slot, k;
		uint64_t v;

		if (var->str) {
			/* the text, in its sums (relaxed: published by the
			 * flag's store), and for this record's references */
			uint64_t *txt = vstr[nvs++];

			memset(txt, 0, HIST_STR_MAX);
			if (var->e->op == HE_REF)
				memcpy(txt,
				       (const void *)(uintptr_t)refv[var->e->ref],
				       HIST_STR_MAX);
			else if (var->e->flags & HF_STACKTRACE)
				hist_stack(txt, from);
			else
				hist_read_str(&var->e->field.field, rec, len,
					      (char *)txt, HIST_STR_MAX);
			for (k = 0; k < HIST_STR_MAX / 8; k++)
				atomic_store_explicit(&elt->sums[slot + k],
						      txt[k],
						      memory_order_relaxed);
			v = (uint64_t)(uintptr_t)txt;
		} else {
			v = hist_expr_eval(var->e, rec, inst, refv);
			/* Relaxed: the value is published by the flag's
			 * store. */
			atomic_store_explicit(&elt->sums[slot], v,
					      memory_order_relaxed);
		}
		varv[i] = v;
		for (k = 0; k < d->n_refs; k++)
			if (d->hrefs[k].d == d && d->hrefs[k].var == i)
				refv[k] = v;
		/* Release: the value before the flag; pairs with the
		 * acquire exchange in hist_resolve_refs(). */
		atomic_store_explicit(&elt->sums[d->n_vals + var->flag], 1,
				      memory_order_release);
	}
	for (i = 1; i < d->n_vals; i++) {
		const struct hist_field *hf = &d->vals[i];

		tracing_map_update_sum(
			sums, i,
			hf->flags & HF_EXPR ?
				hist_expr_eval(hf->expr, rec, inst, refv) :
				hist_field_value(hf, rec, inst));
	}
	for (i = 0; i < d->n_actions; i++) {
		struct hist_action *a = &d->actions[i];

		if (a->handler == HA_ONMATCH)
			hist_action_run(a, rec, len, inst, refv, from);
		else
			hist_track_run(a, elt, rec, len, inst,
				       varv[a->track_var], key, d->key_size,
				       refv, from);
	}
}

/* hist_event_full() with the record's common_timestamp at hand */
static __attribute__((noinline, no_instrument_function)) void
hist_event_slow(struct rt_hist_data *d, const void *rec, size_t len, int inst,
		const void *from, uint64_t ts)
{
	uint64_t outer = rt_hist_rec_ts;

	/* Userspace: a record already in the buffer (too big for the
	 * per-thread one, or nested deeper) has its stamp in the ring
	 * buffer's page, which the library does not hand out: the clock
	 * read now stands for it. */
	rt_hist_rec_ts = !d->timestamps ? 0 :
			 ts ? ts : rt_buffer_clock(1ull << inst);
	hist_event_full(d, rec, len, inst, from);
	rt_hist_rec_ts = outer;
}

__attribute__((no_instrument_function)) void
rt_hist_event_slow(struct rt_trigger *t, const void *rec, size_t len, int inst,
		   const void *from, uint64_t ts)
{
	const struct rt_hist_trig *ht = t->hist;
	struct rt_hist_data *d = ht->d;

	/* As rt_hist_event(): the pause relaxed; acquire for the clearing
	 * flag, which pairs with the seq_cst store that lowers it in
	 * rt_hist_modify() (the cleared table seen after it). */
	if (atomic_load_explicit(&ht->paused, memory_order_relaxed) ||
	    atomic_load_explicit(&d->clearing, memory_order_acquire))
		return;
	if (ht->plain)
		rt_hist_event_plain(ht, rec);
	else
		hist_event_slow(d, rec, len, inst, from, ts);
}

__attribute__((no_instrument_function)) void
rt_hist_enable(struct rt_event_priv *target, int inst, bool on)
{
	/* Pairs with the release side of the exchange that publishes a
	 * list in trigger.c; the caller is inside a read-side section. */
	const struct rt_trigger_list *l =
		atomic_load_explicit(&target->triggers[inst],
				     memory_order_acquire);
	unsigned int i;

	for (i = 0; l && i < l->nr; i++)
		if (l->t[i]->type == RT_TRIG_HIST)
			/* Relaxed: as rt_hist_modify() */
			atomic_store_explicit(
				&((struct rt_hist_trig *)l->t[i]->hist)->paused,
				!on, memory_order_relaxed);
}

/* ---- the hist file -------------------------------------------------------- */

static __thread const struct rt_hist_data *hist_sort_d;

static int hist_cmp_key(const struct hist_field *hf, const void *a,
			const void *b)
{
	if (hf->flags & HF_STRING)
		return strcmp(a, b);
	if (hf->flags & HF_STACKTRACE)
		return memcmp(a, b, hf->size);
	{
		uint64_t x, y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (hf->has_field && hf->field.is_signed &&
		    !(hf->flags & (HF_LOG2 | HF_HEX)))
			return (int64_t)x < (int64_t)y ? -1 :
			       (int64_t)x > (int64_t)y ? 1 : 0;
		return x < y ? -1 : x > y ? 1 : 0;
	}
}

static int hist_cmp(const void *pa, const void *pb)
{
	const struct tracing_map_elt *a = *(struct tracing_map_elt *const *)pa;
	const struct tracing_map_elt *b = *(struct tracing_map_elt *const *)pb;
	const struct rt_hist_data *d = hist_sort_d;
	unsigned int i;
	int r;

	for (i = 0; i < d->n_sort; i++) {
		const struct hist_sort_key *k = &d->sort[i];

		if (k->is_key) {
			const struct hist_field *hf = &d->keys[k->idx];

			r = hist_cmp_key(hf, (const char *)a->key + hf->offset,
					 (const char *)b->key + hf->offset);
		} else {
			uint64_t x = tracing_map_read_sum(d->map, a, k->idx),
				 y = tracing_map_read_sum(d->map, b, k->idx);

			r = x < y ? -1 : x > y ? 1 : 0;
		}
		if (r)
			return k->descending ? -r : r;
	}
	/* the same place in every reading: by the keys */
	for (i = 0; i < d->n_keys; i++) {
		const struct hist_field *hf = &d->keys[i];

		r = hist_cmp_key(hf, (const char *)a->key + hf->offset,
				 (const char *)b->key + hf->offset);
		if (r)
			return r;
	}
	return 0;
}

static void hist_print_key(FILE *f, const struct rt_hist_data *d,
			   const struct tracing_map_elt *elt)
{
	const unsigned char *key = elt->key;
	bool multiline = false;
	unsigned int i;

	fputs("{ ", f);
	for (i = 0; i < d->n_keys; i++) {
		const struct hist_field *hf = &d->keys[i];
		uint64_t v;
		char sym[512];

		if (i)
			fputs(", ", f);
		memcpy(&v, key + hf->offset, 8);
		if (hf->flags & HF_HEX) {
			fprintf(f, "%s: %llx", hf->name, (unsigned long long)v);
		} else if (hf->flags & (HF_SYM | HF_SYM_OFFSET)) {
			bool off = hf->flags & HF_SYM_OFFSET;

			rt_sym_format(sym, sizeof(sym), (unsigned long)v, off);
			fprintf(f, "%s: [%llx] %-*s", hf->name,
				(unsigned long long)v, off ? 55 : 45, sym);
		} else if (hf->flags & HF_EXECNAME) {
			char comm[RT_COMM_LEN + 1] = "<...>";
			int tgid;

			if (!rt_cmdline_find((int)v, comm, &tgid))
				snprintf(comm, sizeof(comm), "<...>");
			fprintf(f, "%s: %-16s[%10llu]", hf->name, comm,
				(unsigned long long)v);
		} else if (hf->flags & HF_SYSCALL) {
			/* Userspace: no table of system call names; the
			 * kernel's name for a number it does not know */
			fprintf(f, "%s: %-30s[%3llu]", hf->name,
				"unknown_syscall", (unsigned long long)v);
		} else if (hf->flags & HF_STACKTRACE) {
			unsigned int k;

			fputs("common_stacktrace:\n", f);
			for (k = 0; k < HIST_STACKTRACE_DEPTH; k++) {
				uint64_t a;

				memcpy(&a, key + hf->offset + k * 8u, 8);
				if (!a)
					break;
				rt_sym_format(sym, sizeof(sym),
					      (unsigned long)a, true);
				fprintf(f, "%9c%s\n", ' ', sym);
			}
			multiline = true;
		} else if (hf->flags & HF_LOG2) {
			fprintf(f, "%s: ~ 2^%-2llu", hf->name,
				(unsigned long long)v);
		} else if (hf->flags & HF_BUCKET) {
			fprintf(f, "%s: ~ %llu-%llu", hf->name,
				(unsigned long long)v,
				(unsigned long long)(v + hf->buckets - 1));
		} else if (hf->flags & HF_STRING) {
			fprintf(f, "%s: %-50s", hf->name,
				(const char *)key + hf->offset);
		} else {
			fprintf(f, "%s: %10llu", hf->name,
				(unsigned long long)v);
		}
	}
	if (!multiline)
		fputc(' ', f);
	fputc('}', f);
}

/* 100 times the percentage of @val in @total, as the kernel's */
static unsigned int hist_percentage(uint64_t val, uint64_t total)
{
	if (!total)
		return val ? UINT_MAX : 0;
	if (val < UINT64_MAX / 10000)
		return (unsigned int)(val * 10000 / total);
	total /= 10000;
	if (!total)
		return val ? UINT_MAX : 0;
	return (unsigned int)(val / total);
}

static void hist_print_val(FILE *f, const struct hist_field *hf, uint64_t v,
			   uint64_t total, uint64_t max)
{
	if (hf->flags & HF_PERCENT) {
		unsigned int pc = hist_percentage(v, total);

		if (pc == UINT_MAX)
			fprintf(f, " %s (%%):[ERROR]", hf->name);
		else
			fprintf(f, " %s (%%): %3u.%02u", hf->name, pc / 100,
				pc % 100);
	} else if (hf->flags & HF_GRAPH) {
		char bar[21];
		unsigned int len = hist_percentage(v, max), i;

		if (len == UINT_MAX) {
			snprintf(bar, sizeof(bar), "[ERROR]");
		} else {
			len = len * 20 / 10000;
			for (i = 0; i < 20; i++)
				bar[i] = i < len ? '#' : ' ';
			bar[20] = '\0';
		}
		fprintf(f, " %s: %20s", hf->name, bar);
	} else if (hf->flags & HF_HEX) {
		fprintf(f, " %s: %10llx", hf->name, (unsigned long long)v);
	} else {
		fprintf(f, " %s: %10llu", hf->name, (unsigned long long)v);
	}
}

static void hist_show_one(FILE *f, const struct rt_trigger *t, int n)
{
	const struct rt_hist_data *d = ((struct rt_hist_trig *)t->hist)->d;
	struct tracing_map_elt **v;
	uint64_t total[HIST_VALS_MAX] = { 0 }, max[HIST_VALS_MAX] = { 0 };
	char line[4096];
	uint64_t hits = 0;
	int nr, i;
	unsigned int j;

	if (n > 0)
		fputs("\n\n", f);
	rt_hist_print_trigger(t, line, sizeof(line));
	fprintf(f, "# event histogram\n#\n# trigger info: %s#\n\n", line);
	nr = tracing_map_entries(d->map, &v);
	if (nr < 0)
		nr = 0;
	hist_sort_d = d;
	if (nr > 1)
		qsort(v, (size_t)nr, sizeof(*v), hist_cmp);
	for (j = 0; j < d->n_vals; j++)
		for (i = 0; i < nr; i++) {
			uint64_t x = tracing_map_read_sum(d->map, v[i], j);

			total[j] += x;
			if (x > max[j])
				max[j] = x;
		}
	for (i = 0; i < nr; i++) {
		hist_print_key(f, d, v[i]);
		if (!d->nohitcount)
			hist_print_val(f, &d->vals[0],
				       tracing_map_read_sum(d->map, v[i], 0),
				       total[0], max[0]);
		for (j = 1; j < d->n_vals; j++) {
			/* an expression is no column, a variable's value is,
			 * as in the kernel */
			if ((d->vals[j].flags & HF_EXPR) &&
			    d->vals[j].expr->op != HE_REF)
				continue;
			fputc(' ', f);
			hist_print_val(f, &d->vals[j],
				       tracing_map_read_sum(d->map, v[i], j),
				       total[j], max[j]);
		}
		for (j = 0; j < d->n_actions; j++) {
			const struct hist_action *a = &d->actions[j];
			unsigned int k;

			if (a->handler == HA_ONMATCH || a->snapshot)
				continue;
			fprintf(f, "\n\t%s: %10llu",
				a->handler == HA_ONMAX ? "max" : "changed",
				(unsigned long long)tracing_map_read_sum(
					d->map, v[i], a->slot));
			/* (the parameters of a synthetic event: written) */
			for (k = 0; !a->synth && k < a->n_params; k++) {
				unsigned int at = a->slot + 2 + a->poff[k], w;
				uint64_t str[HIST_STR_MAX / 8 + 1] = { 0 };

				if (!(a->params[k]->field.flags & HF_STRING)) {
					fprintf(f, "  %s: %10llu",
						a->params[k]->text,
						(unsigned long long)
							tracing_map_read_sum(
								d->map, v[i],
								at));
					continue;
				}
				for (w = 0; w < HIST_STR_MAX / 8; w++)
					str[w] = tracing_map_read_sum(
						d->map, v[i], at + w);
				((char *)str)[HIST_STR_MAX - 1] = '\0';
				fprintf(f, "  %s: %-32s", a->params[k]->text,
					(const char *)str);
			}
		}
		fputc('\n', f);
	}
	for (j = 0; j < d->n_actions; j++) {
		const struct hist_action *a = &d->actions[j];
		struct tracing_map_elt snap;
		uint64_t key[HIST_KEY_SIZE_MAX / 8];
		unsigned int k;

		if (!a->snapshot ||
		    !atomic_load_explicit(&a->snap_set, memory_order_relaxed))
			continue;
		for (k = 0; k < d->key_size / 8; k++)
			key[k] = atomic_load_explicit(&a->snap_key[k],
						      memory_order_relaxed);
		snap.key = key; /* (hist_print_key() reads the key only) */
		fputs("\nSnapshot taken (see tracing/snapshot).  Details:\n", f);
		fprintf(f, "\ttriggering value { %s(%s) }: %10llu",
			a->handler == HA_ONMAX ? "onmax" : "onchange",
			a->var_text,
			(unsigned long long)atomic_load_explicit(
				&a->snap_val, memory_order_relaxed));
		fputs("\ttriggered by event with key: ", f);
		hist_print_key(f, d, &snap);
		fputc('\n', f);
	}
	/* Hits: the hitcounts' sum (every hit counts in one) */
	for (i = 0; i < nr; i++)
		hits += tracing_map_read_sum(d->map, v[i], 0);
	fprintf(f, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n",
		(unsigned long long)hits,
		(unsigned int)nr,
		(unsigned long long)atomic_load_explicit(&d->map->drops,
							 memory_order_relaxed));
	free(v);
}

size_t ringtrace_show_hist(struct ringtrace_instance *tr, const char *system,
			   const char *event, char *buf, size_t len)
{
	const struct rt_trigger_list *l;
	struct rt_event_priv *p;
	char *s = NULL;
	size_t n = 0, ret;
	FILE *f;
	unsigned int i;
	int k = 0;

	tr = rt_show_begin(tr, buf, &len);
	if (!tr || !event)
		return 0;
	f = open_memstream(&s, &n);
	if (!f)
		return 0;
	rt_events_init();
	rt_registry_lock();
	p = rt_event_find(system, event);
	l = p ? atomic_load_explicit(&p->triggers[tr->id],
				     memory_order_relaxed) :
		NULL;
	for (i = 0; l && i < l->nr; i++)
		if (l->t[i]->type == RT_TRIG_HIST)
			hist_show_one(f, l->t[i], k++);
	rt_registry_unlock();
	fclose(f);
	ret = n;
	if (len)
		snprintf(buf, len, "%s", s ? s : "");
	free(s);
	return ret;
}
