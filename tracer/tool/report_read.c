// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * report_read.c - ringtrace report: reading a trace.dat's records in time
 *	order
 */
#include "report.h"

/*
 * The bytes of the file the read-in-place pages may hold in memory at
 * once, all cpu buffers together: each buffer's cursor gives its pages
 * back every RTT_RELEASE_BYTES / nr_cpus bytes (at least every page),
 * so that the peak does not grow with the cpus that hold data nor with
 * the file's page size.
 */
#define RTT_RELEASE_BYTES (2u << 20)

/* Pages of a cpu buffer read before their memory is given back. */
static uint64_t rtt_release_pages(const struct rtt_report *rp)
{
	uint64_t per_cpu = RTT_RELEASE_BYTES / (rp->nr_cpus > 0 ?
		(unsigned)rp->nr_cpus : 1u);
	uint64_t n = rp->page_size ? per_cpu / rp->page_size : 1;

	return n ? n : 1;
}

static void rtt_collect_cb(const struct td_record *rec, void *arg)
{
	struct rtt_rcpu *c = arg;

	if (c->nr == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct td_record *nv = realloc(c->v, nc * sizeof(*nv));

		if (!nv) {
			c->oom = true;
			return;
		}
		c->v = nv;
		c->cap = nc;
	}
	c->v[c->nr++] = *rec;
}

/*
 * Whether the page of @cpu that td_reader_page() did not give is in a
 * compressed chunk that does not decompress (or there was no memory for
 * it): then said once, and the chunk's pages skipped.
 */
static bool rtt_rcpu_unread(struct rtt_report *rp, int cpu)
{
	struct rtt_rcpu *c = &rp->cpus[cpu];
	const char *msg;
	uint64_t n;
	int ret = td_reader_page_error(rp->r, cpu, c->page, &n, &msg);

	if (!ret)
		return false;
	/* (as the records of a page without memory for them: counted with
	 * the malformed pages) */
	if (ret == -ENOMEM)
		rtt_msg("%s: %s; its records are skipped", rp->path, msg);
	else if (n == 1)
		rtt_msg("%s: corrupt trace.dat: %s; the records of its page "
			"%" PRIu64 " are skipped", rp->path, msg, c->page);
	else
		rtt_msg("%s: corrupt trace.dat: %s; the records of its "
			"pages %" PRIu64 " to %" PRIu64 " are skipped",
			rp->path, msg, c->page, c->page + n - 1);
	rp->bad_pages++;
	c->page += n;
	return true;
}

/* Make v[pos] the next record of the cpu buffer; false at its end. */
static bool rtt_rcpu_next(struct rtt_report *rp, int cpu)
{
	struct rtt_rcpu *c = &rp->cpus[cpu];

	while (c->pos >= c->nr) {
		const void *page;
		unsigned long missed = 0;
		int ret;

		if (c->page >= c->nr_pages)
			return false;
		/* the pages before this one are done with */
		if (c->page - c->released >= rtt_release_pages(rp)) {
			td_reader_release(rp->r, cpu, c->released,
					  c->page - c->released);
			c->released = c->page;
		}
		page = td_reader_page(rp->r, cpu, c->page);
		c->nr = c->pos = 0;
		if (!page && rtt_rcpu_unread(rp, cpu))
			continue;
		ret = page ? td_page_for_each(page, rp->page_size,
					      rtt_collect_cb, &missed, c) :
			     -EPROTO;
		if (ret) {
			rtt_msg("%s: cpu %d, page %" PRIu64
				": malformed records; the rest of the page is skipped",
				rp->path, cpu, c->page);
			rp->bad_pages++;
		}
		if (c->oom) {
			rtt_msg("out of memory: records of cpu %d skipped", cpu);
			c->oom = false;
			rp->bad_pages++;
		}
		if (missed == TD_MISSED_UNKNOWN)
			c->missed_unknown = true;
		else
			c->missed += missed;
		c->page++;
	}
	return true;
}

static bool rtt_report_match(struct rtt_report *rp,
			     const struct td_record *rec)
{
	uint16_t id;
	size_t i;

	if (!rp->nr_filters)
		return true;
	memcpy(&id, rec->data, sizeof(id));
	for (i = 0; i < rp->nr_filters; i++)
		if (rp->filters[i].e->id == id &&
		    (!rp->filters[i].f ||
		     rt_filter_match(rp->filters[i].f, rec->data, rec->len)))
			return true;
	return false;
}

/* ---- the file's records as the printer's record source ---------------- */

/* The next record of @cpu that the filters let through. */
static const struct td_record *rtt_report_peek_rec(struct rtt_report *rp,
						   int cpu)
{
	struct rtt_rcpu *c = &rp->cpus[cpu];

	while (rtt_rcpu_next(rp, cpu)) {
		const struct td_record *rec = &c->v[c->pos];

		if (rec->len >= sizeof(struct ringtrace_entry) &&
		    !rtt_report_match(rp, rec)) {
			/* a lost-event mark moves on to the next shown */
			c->pos++;
			continue;
		}
		return rec;
	}
	return NULL;
}

/*
 * The cpu buffer of the next record in time order, or -1 at the end.
 * With a selection (-F, -D, --tid, --time-range), which needs the
 * records in time order, the records it leaves out are skipped here (a
 * lost-event mark moves on to the next record shown) and the record
 * found is kept as the current one until it is taken.
 */
static int rtt_report_next(struct rtt_report *rp)
{
	if (rp->sel && rp->cur >= 0)
		return rp->cur;
	for (;;) {
		const struct td_record *rec;
		int best = -1, i;
		uint64_t best_ts = 0;

		for (i = 0; i < rp->nr_cpus; i++) {
			if (rp->only_cpu >= 0 && i != rp->only_cpu)
				continue;
			rec = rtt_report_peek_rec(rp, i);
			if (rec && (best < 0 || rec->ts < best_ts)) {
				best = i;
				best_ts = rec->ts;
			}
		}
		if (best < 0 || !rp->sel)
			return best;
		rec = &rp->cpus[best].v[rp->cpus[best].pos];
		if (rec->len < sizeof(struct ringtrace_entry) ||
		    rtt_sel_keep(rp->sel, rec->ts, rec->data, rec->len)) {
			rp->cur = best;
			return best;
		}
		rp->cpus[best].pos++;
	}
}

bool rtt_src_peek(void *ctx, int cpu, uint64_t *ts, const void **data,
		  unsigned int *len, long *lost)
{
	struct rtt_report *rp = ctx;
	struct rtt_rcpu *c = &rp->cpus[cpu];
	const struct td_record *rec;

	/* with a selection, only the buffer of the next record shown */
	if (rp->sel && rtt_report_next(rp) != cpu)
		return false;
	rec = rtt_report_peek_rec(rp, cpu);
	if (!rec)
		return false;
	*ts = rec->ts;
	*data = rec->data;
	*len = rec->len;
	if (lost)
		*lost = c->missed_unknown ? -1 : (long)c->missed;
	return true;
}

int rtt_src_on_cpu(void *ctx, int cpu)
{
	struct rtt_report *rp = ctx;
	const struct td_record *rec = rtt_report_peek_rec(rp, cpu);

	if (rec && rec->cpu >= 0)
		return rec->cpu;
	/* a cpu of an instance trace-cmd recorded: shown as that CPU */
	return td_reader_instance_cpu(rp->r, cpu);
}

void rtt_src_advance(void *ctx, int cpu)
{
	struct rtt_report *rp = ctx;
	struct rtt_rcpu *c = &rp->cpus[cpu];

	if (rp->sel && rp->cur != cpu)
		return;
	if (rtt_report_peek_rec(rp, cpu)) {
		c->pos++;
		c->missed = 0;
		c->missed_unknown = false;
	}
	rp->cur = -1;
}

/* The records in time order into a JSON document. */
void rtt_report_json(struct rtt_report *rp, struct rtt_json *json)
{
	for (;;) {
		const struct td_record *rec;
		struct rtt_rcpu *cc;
		int best = rtt_report_next(rp);

		if (best < 0 || ferror(stdout))
			break;
		cc = &rp->cpus[best];
		rec = &cc->v[cc->pos];
		if (cc->missed || cc->missed_unknown)
			rtt_json_lost(json, best, rec->ts,
				      cc->missed_unknown ? TD_MISSED_UNKNOWN :
							   cc->missed);
		if (rec->len >= sizeof(struct ringtrace_entry))
			rtt_json_record(json, best, rec->cpu, rec->ts,
					rec->data, rec->len);
		rtt_src_advance(rp, best);
	}
}

/* Every record (selected) into the function summaries. */
int rtt_report_prof(struct rtt_report *rp, struct rtt_prof *prof)
{
	int best, ret = 0;

	while (!ret && (best = rtt_report_next(rp)) >= 0) {
		struct rtt_rcpu *cc = &rp->cpus[best];
		const struct td_record *rec = &cc->v[cc->pos];

		ret = rtt_prof_add(prof, rec->ts, rec->data, rec->len);
		rtt_src_advance(rp, best);
	}
	return ret;
}

/* Compile the --filter arguments against the file's events. */
/*
 * Select the records of the events @spec names (sys:event, event, sys,
 * sys:*) that match @expr (NULL: all of them).
 */
static int rtt_report_select(struct rtt_report *rp, const char *spec,
			     const char *expr)
{
	char sys[256], name[256], report[4096];
	struct rt_filter_error ferr, first;
	const char *colon = strchr(spec, ':');
	int added = 0, failed = 0;
	size_t j;

	if (expr && rtt_filter_too_long(spec, expr))
		return -E2BIG;

	if (colon) {
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
		snprintf(name, sizeof(name), "%s", colon[1] ? colon + 1 : "*");
	} else {
		snprintf(sys, sizeof(sys), "%s", spec);
		snprintf(name, sizeof(name), "*");
		for (j = 0; j < rp->ev->nr; j++)
			if (!strcmp(rp->ev->v[j].system, spec))
				break;
		if (j == rp->ev->nr) {
			snprintf(sys, sizeof(sys), "*");
			snprintf(name, sizeof(name), "%s", spec);
		}
	}
	memset(&first, 0, sizeof(first));
	for (j = 0; j < rp->ev->nr; j++) {
		struct rtt_event *e = &rp->ev->v[j];
		struct rtt_rfilter *nv;
		struct rt_filter *f = NULL;

		if ((strcmp(sys, "*") && strcmp(e->system, sys)) ||
		    (strcmp(name, "*") && strcmp(e->name, name)))
			continue;
		if (rtt_event_fields(e))
			return -ENOMEM;
		if (expr && rt_filter_parse(expr, e->fields, e->nr_fields, &f,
					    &ferr)) {
			if (!failed++)
				first = ferr;
			continue;
		}
		nv = realloc(rp->filters, (rp->nr_filters + 1) * sizeof(*nv));
		if (!nv) {
			rt_filter_free(f);
			return -ENOMEM;
		}
		rp->filters = nv;
		rp->filters[rp->nr_filters].e = e;
		rp->filters[rp->nr_filters].f = f;
		rp->nr_filters++;
		added++;
	}
	if (!added && !failed) {
		rtt_msg("unknown event '%s' in %s", spec, rp->path);
		return -ENOENT;
	}
	if (!added) {
		rt_filter_error_print(report, sizeof(report), expr, &first);
		rtt_msg("bad filter for %s:", spec);
		fprintf(stderr, "%s\n", report);
		return -EINVAL;
	}
	return 0;
}

int rtt_report_filters(struct rtt_report *rp, const struct rtt_strv *args,
		       const struct rtt_strv *events)
{
	char spec[256];
	const char *expr;
	int i, ret;

	for (i = 0; i < args->nr; i++) {
		if (rtt_split_filter(args->v[i], spec, sizeof(spec), &expr)) {
			rtt_msg("bad filter argument '%s': expected 'SYS:EVENT EXPR'",
				args->v[i]);
			return -EINVAL;
		}
		ret = rtt_report_select(rp, spec, expr);
		if (ret)
			return ret;
	}
	/* -e: lists of events, whole */
	for (i = 0; i < events->nr; i++) {
		const char *p = events->v[i];

		do {
			size_t n = strcspn(p, ",");

			if (n == 0 || n >= sizeof(spec) ||
			    p[strcspn(p, " \t")] != '\0') {
				rtt_msg("bad event list '%s': expected 'SYS:EVENT,...'",
					events->v[i]);
				return -EINVAL;
			}
			snprintf(spec, sizeof(spec), "%.*s", (int)n, p);
			ret = rtt_report_select(rp, spec, NULL);
			if (ret)
				return ret;
			p += n;
		} while (*p++ == ',');
	}
	return 0;
}

/* The smallest thread id of the file and whether it holds graph records
 * (or function records): one pass over the records. */
void rtt_report_scan(struct rtt_report *rp, int *pid)
{
	int cpu;

	if (pid)
		*pid = 0;
	for (cpu = 0; cpu < rp->nr_cpus; cpu++) {
		struct rtt_rcpu c;
		uint64_t i;

		uint64_t step = rtt_release_pages(rp);

		memset(&c, 0, sizeof(c));
		for (i = 0; i < rp->cpus[cpu].nr_pages; i++) {
			const void *page = td_reader_page(rp->r, cpu, i);
			size_t k;

			/* without JSON, the first graph record is enough */
			if (!pid && rp->graph)
				break;
			if (i && i % step == 0)
				td_reader_release(rp->r, cpu, i - step, step);
			c.nr = 0;
			if (!page)
				continue;
			td_page_for_each(page, rp->page_size, rtt_collect_cb,
					 NULL, &c);
			for (k = 0; k < c.nr; k++) {
				struct ringtrace_entry ent;

				if (c.v[k].len < sizeof(ent))
					continue;
				memcpy(&ent, c.v[k].data, sizeof(ent));
				if (pid && ent.pid > 0 &&
				    (!*pid || ent.pid < *pid))
					*pid = ent.pid;
				if (ent.type == RT_TYPE_GRAPH_ENT ||
				    rt_type_graph_exit(ent.type))
					rp->graph = true;
				else if (ent.type == RT_TYPE_FN)
					rp->function = true;
			}
		}
		td_reader_release(rp->r, cpu, 0, rp->cpus[cpu].nr_pages);
		free(c.v);
	}
}
