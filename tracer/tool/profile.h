/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile.h - what report does with a function_graph recording besides
 * printing it: the selection of records (a function's subtree, a depth, a
 * thread, a time range) and the per-function summaries (calls, total,
 * self, average, shortest and longest time; the callers and callees of
 * one function).
 *
 * Both take the records one at a time in time order and keep no record:
 * their memory grows with the number of functions, threads and the call
 * depth, never with the size of the file.
 *
 * Conventions: functions returning int return 0 or a negative errno. None
 * of the objects is thread-safe.
 */
#ifndef RINGTRACE_PROFILE_H
#define RINGTRACE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tep.h"

/**
 * struct rtt_sel_opts - which records to keep
 * @funcs: fnmatch() globs: keep the calls of the functions they name and
 *	everything under them (with the other records of the thread in
 *	between); none: every function
 * @nr_funcs: how many
 * @max_depth: keep the function records of depth below it (0: all)
 * @tids: keep the records of these threads only (none: all)
 * @nr_tids: how many
 * @from: keep the records at or after this time stamp
 * @to: and at or before this one (UINT64_MAX: no end)
 */
struct rtt_sel_opts {
	const char *const *funcs;
	int nr_funcs;
	int max_depth;
	const int *tids;
	int nr_tids;
	uint64_t from;
	uint64_t to;
};

struct rtt_sel;

/**
 * rtt_sel_new - a record selection
 * @o: what to keep (the strings are not copied: keep them)
 * @syms: the symbols the globs are matched against
 *
 * Context: any thread.
 * Return: the selection, or NULL (out of memory).
 */
struct rtt_sel *rtt_sel_new(const struct rtt_sel_opts *o,
			    const struct rtt_syms *syms);

/**
 * rtt_sel_keep - whether to keep the next record
 * @s: the selection
 * @ts: its time stamp
 * @data: its payload (the common header first)
 * @len: its length
 *
 * The records must come in time order, all of them (a call's entry
 * decides about its subtree).
 *
 * Context: the selection's thread.
 * Return: true to keep it.
 */
bool rtt_sel_keep(struct rtt_sel *s, uint64_t ts, const void *data,
		  unsigned int len);

void rtt_sel_free(struct rtt_sel *s);

/** Sort orders of the per-function summary. */
enum rtt_prof_sort {
	RTT_SORT_TOTAL,
	RTT_SORT_SELF,
	RTT_SORT_CALLS,
	RTT_SORT_AVG,
	RTT_SORT_MIN,
	RTT_SORT_MAX,
	RTT_SORT_NAME,
};

/**
 * rtt_prof_sort_by_name - a sort order by its name
 * @name: "total", "self", "calls", "avg", "min", "max" or "func"
 *
 * Return: the order, or -1.
 */
int rtt_prof_sort_by_name(const char *name);

struct rtt_prof;

/**
 * rtt_prof_new - per-function summaries of function_graph records
 * @syms: the symbols the functions are named with
 * @threshold_ns: count only the calls that took at least this long
 * @graph: a glob: also sum up the callers and callees of the functions
 *	it names (NULL: not)
 *
 * Context: any thread.
 * Return: the summaries, or NULL (out of memory).
 */
struct rtt_prof *rtt_prof_new(const struct rtt_syms *syms,
			      uint64_t threshold_ns, const char *graph);

/**
 * rtt_prof_add - take one record into account
 * @p: the summaries
 * @ts: its time stamp (nanoseconds)
 * @data: its payload
 * @len: its length
 *
 * Only function_graph records count: an entry notes the function at its
 * depth, a return gives the call's time (from its call and return
 * times) and its own time (without that of the calls it made). A call
 * that never returns (left by a longjmp, or by an exception whose unwind
 * skipped its exit hook) counts when a record of its thread at its
 * depth or above shows it ended: its time runs from its entry to that
 * record, as the text report closes it there. One still open after the
 * last record (its thread ended inside it: exit(), pthread_exit(), a
 * cancellation; or the recording ended) counts when the table is printed,
 * its time running to its thread's last record, as uftrace's report
 * counts a task's remaining functions.
 *
 * Context: the summaries' thread.
 * Return: 0 or -ENOMEM.
 */
int rtt_prof_add(struct rtt_prof *p, uint64_t ts, const void *data,
		 unsigned int len);

/**
 * rtt_prof_print - the per-function table, as uftrace report prints it
 * @p: the summaries
 * @out: where it goes
 * @sort: the order (descending, by name ascending)
 *
 * Context: the summaries' thread.
 * Return: 0 or -ENOMEM.
 */
int rtt_prof_print(struct rtt_prof *p, FILE *out, enum rtt_prof_sort sort);

/**
 * rtt_prof_print_graph - the callers and callees of the graph functions
 * @p: the summaries (made with a @graph glob)
 * @out: where it goes
 * @sort: the order of the lines
 *
 * Context: the summaries' thread.
 * Return: 0, -ENOENT when no call of such a function was seen, -ENOMEM.
 */
int rtt_prof_print_graph(struct rtt_prof *p, FILE *out,
			 enum rtt_prof_sort sort);

void rtt_prof_free(struct rtt_prof *p);

/**
 * rtt_parse_duration - a duration with a unit: "10", "10ns", "1.5us",
 *	"2ms", "1s"
 * @s: the text (no unit: nanoseconds)
 * @ns: receives it
 *
 * Return: 0 or -EINVAL.
 */
int rtt_parse_duration(const char *s, uint64_t *ns);

/**
 * rtt_decimal_len - the length of the plain decimal number @s starts with
 *	("12", "1.5", "0.000002": digits, then a '.' and digits), or 0
 *
 * Times are strict decimal like every other number of the tool: no sign,
 * no "0x", no exponent, no "inf" (which strtod() would take).
 */
size_t rtt_decimal_len(const char *s);

#endif /* RINGTRACE_PROFILE_H */
