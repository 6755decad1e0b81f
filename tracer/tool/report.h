/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.h - ringtrace report's state, shared by report.c (arguments,
 *	output) and report_read.c (the file's records in time order)
 */
#ifndef RTT_REPORT_H
#define RTT_REPORT_H

#include "rtt.h"

/* The records of the current page of one cpu buffer. */
struct rtt_rcpu {
	uint64_t page;
	uint64_t released;
	uint64_t nr_pages;
	struct td_record *v;
	size_t nr;
	size_t cap;
	size_t pos;
	unsigned long missed;
	bool missed_unknown;
	bool oom;
};

/* A -f filter or an -e event: the event and its compiled expression
 * (NULL for -e: all its records). */
struct rtt_rfilter {
	struct rtt_event *e;
	struct rt_filter *f;
};

/* A report in progress: the file, its cpu buffers, formats and selection. */
struct rtt_report {
	struct td_reader *r;
	const char *path;
	unsigned int page_size;
	int nr_cpus;
	int only_cpu;
	struct rtt_rcpu *cpus;
	struct rtt_events *ev;
	struct rtt_syms *syms;
	struct rtt_comms *comms;
	struct rtt_protos *protos;
	struct rtt_print_ctx ctx;
	struct rtt_rfilter *filters;
	size_t nr_filters;
	bool ns_clock;
	bool graph;
	bool function;
	unsigned long bad_pages;
	struct rtt_sel *sel;
	int cur;
};


/* report_read.c */
bool rtt_src_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
		  unsigned int *len, long *lost);
void rtt_src_advance(void *ctx, int cpu);
/* rt_record_source.on_cpu: the CPU the record rtt_src_peek() showed was
 * written on (a spare's CPU note), or -1 */
int rtt_src_on_cpu(void *ctx, int cpu);
void rtt_report_json(struct rtt_report *rp, struct rtt_json *json);
int rtt_report_prof(struct rtt_report *rp, struct rtt_prof *prof);
int rtt_report_filters(struct rtt_report *rp, const struct rtt_strv *args,
		       const struct rtt_strv *events);
void rtt_report_scan(struct rtt_report *rp, int *pid);

#endif
