// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * options.c - a verb's options from its table (struct rtt_opt, rtt.h):
 *	getopt_long() driven by the table, the values checked and stored,
 *	the options that do not go together refused
 */
#include "rtt.h"

/* After the options: exactly one argument, the process id, is left. */
int rtt_pid_arg(const struct rtt_verb *v, int argc)
{
	if (optind == argc - 1)
		return 0;
	return rtt_usage(v, optind < argc ? "too many arguments" :
					    "missing the process id");
}

/* Option @o's names: "-c/--cpu", "--stat", "-O". */
static const char *rtt_opt_label(const struct rtt_opt *o, char *buf,
				 size_t len)
{
	if (!o->name[0])
		snprintf(buf, len, "-%c", o->val);
	else if (o->val > 255)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c/--%s", o->val, o->name);
	return buf;
}

/* @word is one of the blank-separated words of @words. */
static bool rtt_word_in(const char *word, const char *words)
{
	size_t n = strlen(word);
	const char *s;

	/* an option without a long name (-O) conflicts with nothing (and
	 * strstr() finds "" everywhere, without moving on) */
	if (!n)
		return false;
	for (s = words; s && (s = strstr(s, word)); s += n)
		if ((s == words || s[-1] == ' ') && (!s[n] || s[n] == ' '))
			return true;
	return false;
}

/* The argument of option @o into its place. Return: 0 given, 1 given
 * with the default value, or the exit code after a message. */
static int rtt_opt_take(const struct rtt_verb *v, const struct rtt_opt *o,
			const char *arg)
{
	unsigned long num = 0;
	char label[64];
	int ret = 0;

	switch (o->kind) {
	case RTT_OPT_FLAG:
		*(bool *)o->out = true;
		return 0;
	case RTT_OPT_STR:
		*(const char **)o->out = arg;
		return 0;
	case RTT_OPT_OPTIONAL:
		*(const char **)o->out = arg ? arg : "";
		return 0;
	case RTT_OPT_PARSE:
		ret = o->parse(arg, o->out);
		break;
	case RTT_OPT_UINT:
	case RTT_OPT_LIST:
		if (o->max && (rtt_parse_uint(arg, o->max, &num) ||
			       num < o->min))
			ret = -EINVAL;
		else if (o->kind == RTT_OPT_UINT)
			*(unsigned long *)o->out = num;
		else if (rtt_strv_add(o->out, arg))
			return rtt_usage(v, "out of memory");
		break;
	}
	if (ret >= 0)
		return ret;
	return rtt_usage(v, "%s '%s' for %s (%s)", o->what, arg,
			 rtt_opt_label(o, label, sizeof(label)), o->hint);
}

/*
 * rtt_options - parse the options of a verb from its table @o (ended by
 * RTT_O_END; "help"/-h is added): flags, strings, numbers in a range,
 * repeated options collected into a list, values read by a function, and
 * options that do not go together. Returns RTT_OPTIONS_GO to go on with
 * argv[optind], or the exit code to return (after --help, or a message
 * naming the option and the bad value).
 */
int rtt_options(const struct rtt_verb *v, int argc, char **argv,
		const struct rtt_opt *o)
{
	struct option lo[RTT_MAX_OPTS + 2];
	bool given[RTT_MAX_OPTS] = { false };
	char so[3 * RTT_MAX_OPTS + 5] = "+:";
	size_t n = 0, nl = 0, k = 2, i, j;
	int c;

	for (; o[n].name && n < RTT_MAX_OPTS; n++) {
		int has = o[n].kind == RTT_OPT_FLAG ? no_argument :
			  o[n].kind == RTT_OPT_OPTIONAL ? optional_argument :
							  required_argument;

		if (o[n].name[0])
			lo[nl++] = (struct option){ o[n].name, has, NULL,
						    o[n].val };
		if (o[n].val > 255)
			continue; /* a long option only */
		so[k++] = (char)o[n].val;
		if (has != no_argument)
			so[k++] = ':';
		if (has == optional_argument)
			so[k++] = ':';
	}
	lo[nl] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[nl + 1] = (struct option){ NULL, 0, NULL, 0 };
	so[k++] = 'h';
	so[k] = '\0';
	/* '+' first: stop at the first argument that is not an option */
	while ((c = getopt_long(argc, argv,
				o[n].val & RTT_OPTS_IN_ORDER ? so : so + 1, lo,
				NULL)) != -1) {
		int ret;

		if (c == 'h')
			return rtt_help(v);
		for (i = 0; i < n && o[i].val != c; i++)
			;
		if (i == n)
			return rtt_bad_option(v, argv, c);
		ret = rtt_opt_take(v, &o[i], optarg);
		if (ret > 1)
			return ret;
		if (ret == 0)
			given[i] = true;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n && given[i]; j++) {
			char a[64], b[64];

			if (!given[j] || !rtt_word_in(o[j].name, o[i].conflicts))
				continue;
			return rtt_usage(v, "%s: not with %s (give one of them, not both)",
					 rtt_opt_label(&o[i], a, sizeof(a)),
					 rtt_opt_label(&o[j], b, sizeof(b)));
		}
	return RTT_OPTIONS_GO;
}

/*
 * rtt_options_pid - rtt_options(), then exactly one argument left, the
 * process id, opened into @p with rtt_open_pid()'s @flags. Returns
 * RTT_OPTIONS_GO with @p open, or the exit code to return.
 */
int rtt_options_pid(const struct rtt_verb *v, int argc, char **argv,
		    const struct rtt_opt *o, unsigned int flags,
		    struct rtt_proc *p)
{
	int ret = rtt_options(v, argc, argv, o);

	if (ret != RTT_OPTIONS_GO)
		return ret;
	ret = rtt_pid_arg(v, argc);
	if (ret)
		return ret;
	ret = rtt_open_pid(argv[optind], flags, p);
	return ret ? rtt_exit_code(ret) : RTT_OPTIONS_GO;
}

/* getopt_long()'s '?' and ':' as a message naming the option. */
int rtt_bad_option(const struct rtt_verb *v, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	/* argv[optind - 1] is the option as written ("--cpu" or "-c") */
	if (c == ':')
		return rtt_usage(v, "option '%s' needs an argument", arg);
	/* "-1" where a value goes: not an option, a negative number */
	if (arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9')
		return rtt_usage(v, "'%s': a negative number, where only 0 or more is valid",
				 arg);
	if (optopt)
		return rtt_usage(v, "unknown option '-%c'", optopt);
	return rtt_usage(v, "unknown option '%s'", arg);
}

int rtt_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
