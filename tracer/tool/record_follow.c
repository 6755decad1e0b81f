// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record_follow.c - ringtrace record -c: the processes the command starts
 */
#include "record.h"

/* ---- record -c: the processes the command starts ------------------------ */

/* Room for index @i in an int array; false: out of memory. */
static bool rtt_grow_ints(int **v, size_t *cap, size_t i)
{
	size_t n = *cap ? 2 * *cap : 16;
	int *nv;

	if (i < *cap)
		return true;
	nv = realloc(*v, n * sizeof(*nv));
	if (!nv)
		return false;
	*v = nv;
	*cap = n;
	return true;
}


/* Whether process @pid was started under this recorder (it inherited
 * RINGTRACE_FOLLOW with our pid). */
static bool rtt_follow_ours(int pid)
{
	char want[64];

	snprintf(want, sizeof(want), "RINGTRACE_FOLLOW=%d", (int)getpid());
	return rtt_environ_has(pid, want);
}

/* Start recording process @pid into OUT.PID; false to try again later
 * (not ready yet). */
static bool rtt_follow_start(struct rtt_follow *fl, int pid, const char *out)
{
	struct rtt_record *f;
	char err[RTT_ERR_MAX];
	int ret;

	if (fl->nr == fl->cap) {
		size_t n = fl->cap ? 2 * fl->cap : 8;
		struct rtt_record *nv = realloc(fl->v, n * sizeof(*nv));

		if (!nv)
			return true;
		fl->v = nv;
		fl->cap = n;
	}
	f = &fl->v[fl->nr];
	memset(f, 0, sizeof(*f));
	if (rtt_proc_open(pid, 0, &f->p, err))
		return false;
	if (rtt_inst_find(&f->p, NULL) < 0) {
		rtt_proc_close(&f->p);
		return false;
	}
	f->quiet = f->quiet_written = true;
	f->ctl_gen = rtt_ctl_gen(&f->p);
	if (asprintf(&f->out_path, "%s.%d", out, pid) < 0) {
		f->out_path = NULL;
		ret = -ENOMEM;
	} else {
		f->out = f->out_path;
		f->compression = fl->compression;
		f->compression_auto = fl->compression_auto;
		ret = rtt_load_events(&f->p, &f->ev, true);
	}
	if (!ret)
		ret = rtt_rec_open(f, NULL);
	/* it waits for this before its main() */
	rtt_call(&f->p, RTT_CMD_TIMEOUT_MS, &RT_CALL(GO, NULL), NULL, err);
	if (ret) {
		char comm[17];

		rtt_safe_copy(comm, sizeof(comm), f->p.ctl->comm,
			      sizeof(f->p.ctl->comm));
		rtt_msg("process %d (%s) is not recorded", pid, comm);
		rtt_rec_free(f);
		return true;
	}
	fl->nr++;
	return true;
}

/* The end of the recording of follower @i: complete its file, remove the
 * files its process kept. */
static void rtt_follow_stop(struct rtt_follow *fl, size_t i, int ret)
{
	struct rtt_record *f = &fl->v[i];
	char err[RTT_ERR_MAX];

	rtt_rec_finish(f, ret);
	fl->calls += f->tally.matched;
	if (rtt_proc_state(&f->p) == RTT_DEAD && rtt_remove_files(&f->p, err))
		rtt_msg("%s", err);
	rtt_rec_free(f);
	fl->v[i] = fl->v[--fl->nr];
}

/*
 * One turn over the followed processes, and a look at the publish
 * directory every 10 ms for new ones.
 */
void rtt_follow_turn(struct rtt_follow *fl, int root, const char *out)
{
	struct rtt_entry *e = NULL;
	char err[RTT_ERR_MAX];
	size_t nr = 0, i, j;

	for (i = fl->nr; i-- > 0;) {
		struct rtt_record *f = &fl->v[i];
		int moved = rtt_rec_turn(f);

		if (moved < 0 || rtt_proc_state(&f->p) == RTT_DEAD) {
			f->exited = moved >= 0;
			rtt_follow_stop(fl, i, moved < 0 ? moved : 0);
		}
	}
	if (rtt_now_ms() - fl->last_scan < 10 || rtt_list(&e, &nr, err))
		return;
	fl->last_scan = rtt_now_ms();
	for (i = 0; i < nr; i++) {
		if (e[i].pid == root)
			continue;
		for (j = 0; j < fl->nr_seen && fl->seen[j] != e[i].pid; j++)
			;
		if (j < fl->nr_seen)
			continue;
		if (rtt_follow_ours(e[i].pid) &&
		    !rtt_follow_start(fl, e[i].pid, out))
			continue; /* not ready: next time */
		if (rtt_grow_ints(&fl->seen, &fl->seen_cap, fl->nr_seen))
			fl->seen[fl->nr_seen++] = e[i].pid;
	}
	free(e);
}

/* The end: every followed process's file completed. */
void rtt_follow_end(struct rtt_follow *fl)
{
	while (fl->nr) {
		struct rtt_record *f = &fl->v[fl->nr - 1];

		f->exited = rtt_proc_state(&f->p) == RTT_DEAD;
		rtt_follow_stop(fl, fl->nr - 1, 0);
	}
	free(fl->v);
	free(fl->seen);
}

/* Largest -b: 4 GiB per cpu buffer. */
