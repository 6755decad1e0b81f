// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent.c - ringtrace agent: a process's trace for a host's
 *	'trace-cmd record -A HOST:PORT --name NAME', beside the host's own
 *	kernel trace (trace-cmd's protocol, version 3; net.h)
 *
 * One request at a time. The host sends TRACE_REQ with the record
 * options that follow -A; the agent sets the process up (the command it
 * was started with, held until it is recorded, or the process a -P
 * names), answers TRACE_RESP (its cpu buffers, the page size, a port for
 * each, the time sync protocol), sends the metadata, streams each cpu
 * buffer's pages to the host's connection on its port, and on CLOSE
 * sends what is left and CLOSE_RESP. Time sync: trace-cmd's "ptp"
 * exchange, answered from a thread with readings of the process's trace
 * clock, so that the host stores the offset of each probe and its
 * report moves the process's records onto the host's clock.
 */
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <linux/vm_sockets.h>

#include "record.h"

/* trace-cmd's agent port: what -A uses when HOST:PORT names none. */
#define RTT_AGENT_PORT 823
/* TRACE_REQ's parameters */
#define RTT_REQ_ARGS 0
#define RTT_REQ_TSYNC 1
/* time sync, outer exchange: protocol "none" */
#define RTT_TSYNC_PROBE 1
#define RTT_TSYNC_STOP 2
/* the ptp exchange */
#define RTT_PTP_START 1
#define RTT_PTP_PROBE 2
#define RTT_PTP_PROBES 3
#define RTT_PTP_OFFSET 4
#define RTT_PTP_END 5
#define RTT_PTP_LOOP 339
/* the host takes the fastest probe and reads its clock from trace
 * markers */
#define RTT_PTP_FLAGS 3u

const char rtt_agent_help[] =
	"Answer 'trace-cmd record -A HOST:PORT --name NAME [OPTIONS]' run on\n"
	"a host: record a process here and stream its pages to the host with\n"
	"trace-cmd's protocol (version 3), so that the host's trace.dat and\n"
	"trace-NAME.dat merge in 'trace-cmd report -i trace.dat -i\n"
	"trace-NAME.dat' on one time line. The process is COMMAND, started\n"
	"for each request and held until it is recorded, or the running\n"
	"process -P names (here or in the request). Of the options after -A\n"
	"the host sends, these are honoured: -e EVENT, -f FILTER (of the -e\n"
	"before it), -p TRACER, -b KB, -C CLOCK, -O OPT, -l/-n/-g FUNC, -P PID;\n"
	"any other is refused. The clocks are related by trace-cmd's \"ptp\"\n"
	"time sync when the host offers it. Only HOST may connect (TCP);\n"
	"without -N the agent listens on vsock and takes the hypervisor's\n"
	"host (CID 2) and this machine (CID 1). The agent writes no file.\n"
	"\n"
	"  -p, --port PORT      listen on PORT (default 823, trace-cmd's)\n"
	"  -N, --net HOST       TCP, from HOST alone\n"
	"  -P, --pid PID        record the running process PID\n"
	"      --once           answer one request, then exit\n"
	"  -q, --quiet          no summary line\n"
	"  -h, --help           this text\n";

/**
 * struct rtt_agent - the agent's settings
 * @allow: the addresses HOST resolves to (TCP), NULL for vsock
 * @cmd: the command to record (NULL: -P)
 * @pid: -P as given, or NULL
 * @env_clock: RINGTRACE_CLOCK as the agent found it, or NULL
 * @quiet: -q
 */
struct rtt_agent {
	struct addrinfo *allow;
	char **cmd;
	const char *pid;
	const char *env_clock;
	bool quiet;
};

/**
 * struct rtt_req - what a TRACE_REQ asks
 * @argv: the record options (argv[0] a name for getopt; @buf holds them)
 * @argc: their count, that name included
 * @ptp: the host offers the "ptp" time sync
 * @trace_id: the host's session id
 */
struct rtt_req {
	char **argv;
	int argc;
	char *buf;
	bool ptp;
	uint64_t trace_id;
};

/**
 * struct rtt_tsync - the time sync thread
 * @lfd: the listening socket
 * @clock: the POSIX clock the process's trace clock reads, or -1 for
 *	the TSC
 * @stop: set by the agent: end at the next look
 * @done: set by the thread at its end
 * @thread: the thread
 * @running: it was started
 */
struct rtt_tsync {
	int lfd;
	clockid_t clock;
	int stop;
	int done;
	pthread_t thread;
	bool running;
};

/* ---- addresses ----------------------------------------------------- */

/* The IPv4 address of an IPv4-mapped IPv6 address, else @sa. */
static const void *rtt_addr_bytes(const struct sockaddr *sa, size_t *len,
				  int *family)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0,
						  0, 0, 0xff, 0xff };

	if (sa->sa_family == AF_INET) {
		*family = AF_INET;
		*len = 4;
		return &((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		const unsigned char *a =
			((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		if (!memcmp(a, mapped, sizeof(mapped))) {
			*family = AF_INET;
			*len = 4;
			return a + 12;
		}
		*family = AF_INET6;
		*len = 16;
		return a;
	}
	*len = 0;
	*family = sa->sa_family;
	return NULL;
}

/* The peer's address as text (an IPv4-mapped one as IPv4). */
static void rtt_agent_peer_name(const struct sockaddr *sa, char *buf,
				size_t len)
{
	const void *p;
	size_t n;
	int fam;

	p = rtt_addr_bytes(sa, &n, &fam);
	if (!p || !inet_ntop(fam, p, buf, (socklen_t)len))
		snprintf(buf, len, "an unknown peer");
}

/* Whether the peer @sa is the allowed host. */
static bool rtt_agent_allowed(const struct rtt_agent *a,
			      const struct sockaddr *sa)
{
	const struct addrinfo *ai;
	const void *p;
	size_t len;
	int fam;

	if (!a->allow) {
		const struct sockaddr_vm *vm = (const struct sockaddr_vm *)sa;

		return sa->sa_family == AF_VSOCK &&
		       (vm->svm_cid == VMADDR_CID_HOST || vm->svm_cid == 1);
	}
	p = rtt_addr_bytes(sa, &len, &fam);
	if (!p)
		return false;
	for (ai = a->allow; ai; ai = ai->ai_next) {
		const void *q;
		size_t l2;
		int f2;

		q = rtt_addr_bytes(ai->ai_addr, &l2, &f2);
		if (q && f2 == fam && l2 == len && !memcmp(p, q, len))
			return true;
	}
	return false;
}

/* A listening socket on @port of the family and address of @like (a
 * connected socket; NULL: any address of TCP, or vsock without
 * @tcp). Return: the socket or a negative errno. */
static int rtt_agent_listen(bool tcp, int like, unsigned int port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (like >= 0) {
		if (getsockname(like, (struct sockaddr *)&ss, &sl))
			return -errno;
	} else if (tcp) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		sl = sizeof(*s6);
	} else {
		struct sockaddr_vm *vm = (struct sockaddr_vm *)&ss;

		vm->svm_family = AF_VSOCK;
		vm->svm_cid = VMADDR_CID_ANY;
		sl = sizeof(*vm);
	}
	switch (ss.ss_family) {
	case AF_INET:
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
		break;
	case AF_INET6:
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
		break;
	default:
		((struct sockaddr_vm *)&ss)->svm_port =
			port ? port : VMADDR_PORT_ANY;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 && ss.ss_family == AF_INET6 && like < 0) {
		/* no IPv6 here */
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		memset(&ss, 0, sizeof(ss));
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		sl = sizeof(*s4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	if (fd < 0)
		return -errno;
	if (ss.ss_family != AF_VSOCK)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 8)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* The port a listening socket got. */
static unsigned int rtt_agent_port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ((struct sockaddr_vm *)&ss)->svm_port;
}

/* Accept one connection on @lfd within @timeout_ms (@stoppable: or
 * until Ctrl-C; the main thread's). Return: the socket or a negative
 * errno (-ETIMEDOUT, -EINTR). */
static int rtt_agent_accept(int lfd, int timeout_ms, bool stoppable)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		uint64_t now = rtt_now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r > 0) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			return fd >= 0 ? fd : -errno;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		if (stoppable && rtt_stop)
			return -EINTR;
	}
}

/* ---- the request --------------------------------------------------- */

/* Read TRACE_REQ's parameters. Return: 0 or -EBADMSG. */
static int rtt_req_parse(const struct rtt_msg *m, struct rtt_req *q)
{
	const unsigned char *p = m->data, *end = m->data + m->len;

	memset(q, 0, sizeof(*q));
	q->trace_id = rtt_get_be64(m->fixed + 8);
	while (end - p >= 8) {
		uint32_t id = rtt_get_be32(p), len = rtt_get_be32(p + 4);

		p += 8;
		if (len > (size_t)(end - p))
			return -EBADMSG;
		if (id == RTT_REQ_ARGS && len > 4) {
			uint32_t n;
			const char *s;

			if (q->argv || p[len - 1] != '\0')
				return -EBADMSG;
			n = rtt_get_be32(p);
			if (n > len)
				return -EBADMSG;
			q->buf = malloc(len - 4);
			q->argv = calloc(n + 2, sizeof(*q->argv));
			if (!q->buf || !q->argv)
				return -ENOMEM;
			memcpy(q->buf, p + 4, len - 4);
			q->argv[0] = (char *)"agent";
			s = q->buf;
			for (uint32_t i = 0; i < n; i++) {
				if (s >= q->buf + (len - 4))
					return -EBADMSG;
				q->argv[i + 1] = (char *)s;
				s += strlen(s) + 1;
			}
			q->argc = (int)n + 1;
		} else if (id == RTT_REQ_TSYNC) {
			const char *s = (const char *)p;

			/* names, each with its NUL */
			while (s < (const char *)p + len && *s) {
				size_t l = strnlen(s, (size_t)((const char *)p +
							       len - s));

				if (l == 3 && !memcmp(s, "ptp", 3))
					q->ptp = true;
				s += l + 1;
			}
		}
		p += len;
	}
	if (!q->argv) {
		q->argv = calloc(2, sizeof(*q->argv));
		if (!q->argv)
			return -ENOMEM;
		q->argv[0] = (char *)"agent";
		q->argc = 1;
	}
	return 0;
}

static void rtt_req_free(struct rtt_req *q)
{
	free(q->argv);
	free(q->buf);
}

/**
 * struct rtt_req_opts - the record options of a request
 * @events: every -e
 * @fevents: the -e a -f follows
 * @plain: the others (a command has them from its start)
 * @filters: "EVENT EXPR", one for each of @fevents
 */
struct rtt_req_opts {
	struct rtt_strv events;
	struct rtt_strv fevents;
	struct rtt_strv plain;
	struct rtt_strv filters;
	struct rtt_strv topts;
	struct rtt_strv lists[3];
	const char *tracer;
	const char *clock;
	const char *pid;
	unsigned long size_kb;
	char **keep;
	int nr_keep;
};

static void rtt_req_opts_free(struct rtt_req_opts *o)
{
	free(o->events.v);
	free(o->fevents.v);
	free(o->plain.v);
	for (int i = 0; i < o->nr_keep; i++)
		free(o->keep[i]);
	free(o->keep);
	free(o->filters.v);
	free(o->topts.v);
	for (int i = 0; i < 3; i++)
		free(o->lists[i].v);
}

/* A clock of the host that is not one of ours: ours instead (the time
 * sync relates the two). */
static const char *rtt_req_clock(const char *c)
{
	for (int i = 0; i < RT_NR_CLOCK_NAMES; i++)
		if (!strcmp(rt_clocks[i].name, c))
			return c;
	rtt_msg("agent: the host's clock '%s' is not one a process has: mono instead",
		c);
	return "mono";
}

/* The record options of @q. Return: 0, or -EINVAL after a message. */
static int rtt_req_options(const struct rtt_req *q, struct rtt_req_opts *o)
{
	static const struct option lo[] = {
		{ "event", required_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(q->argc, q->argv, "+e:f:p:b:C:O:l:n:g:P:", lo,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			if (rtt_strv_add(&o->events, optarg))
				return -ENOMEM;
			break;
		case 'f': {
			char *f;

			if (!o->events.nr) {
				rtt_msg("agent: the request's -f '%s' follows no -e",
					optarg);
				return -EINVAL;
			}
			if (asprintf(&f, "%s %s", o->events.v[o->events.nr - 1],
				     optarg) < 0)
				return -ENOMEM;
			if (rtt_strv_add(&o->filters, f) ||
			    rtt_strv_add(&o->fevents,
					 o->events.v[o->events.nr - 1])) {
				free(f);
				return -ENOMEM;
			}
			{
				char **k = realloc(o->keep, (size_t)(o->nr_keep + 1) *
								    sizeof(*k));

				if (!k) {
					free(f);
					return -ENOMEM;
				}
				o->keep = k;
				o->keep[o->nr_keep++] = f;
			}
			break;
		}
		case 'p':
			o->tracer = optarg;
			break;
		case 'b':
			if (rtt_parse_uint(optarg, 4ul << 20, &o->size_kb) ||
			    !o->size_kb) {
				rtt_msg("agent: the request's -b '%s' is not a size in KiB",
					optarg);
				return -EINVAL;
			}
			break;
		case 'C':
			o->clock = rtt_req_clock(optarg);
			break;
		case 'O':
			if (rtt_strv_add(&o->topts, optarg))
				return -ENOMEM;
			break;
		case 'l':
		case 'n':
		case 'g':
			if (rtt_strv_add(&o->lists[c == 'l' ? 0 : c == 'n' ? 1 : 2],
					 optarg))
				return -ENOMEM;
			break;
		case 'P':
			o->pid = optarg;
			break;
		default:
			rtt_msg("agent: the request's option '%s' is not one a process recording takes",
				q->argv[optind - 1 > 0 ? optind - 1 : 1]);
			return -EINVAL;
		}
	}
	if (optind < q->argc) {
		rtt_msg("agent: the request names a command ('%s'): the agent records its own",
			q->argv[optind]);
		return -EINVAL;
	}
	for (int i = 0; i < o->events.nr; i++) {
		int j;

		for (j = 0; j < o->fevents.nr; j++)
			if (!strcmp(o->events.v[i], o->fevents.v[j]))
				break;
		if (j == o->fevents.nr && rtt_strv_add(&o->plain, o->events.v[i]))
			return -ENOMEM;
	}
	if (o->tracer && rt_tracer_lookup(o->tracer) < 0) {
		rtt_msg("agent: unknown tracer '%s'", o->tracer);
		return -EINVAL;
	}
	for (int i = 0; i < o->topts.nr; i++)
		if (!rtt_opt_ok(o->topts.v[i])) {
			rtt_msg("agent: unknown option '%s'", o->topts.v[i]);
			return -EINVAL;
		}
	return 0;
}

/* ---- time sync ----------------------------------------------------- */

static uint64_t rtt_tsync_now(const struct rtt_tsync *t)
{
	struct timespec ts;

#if defined(__x86_64__) || defined(__i386__)
	if (t->clock == (clockid_t)-1)
		return __builtin_ia32_rdtsc();
#endif
	clock_gettime(t->clock == (clockid_t)-1 ? CLOCK_MONOTONIC : t->clock,
		      &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether @fd is a TCP socket (not vsock). */
static bool t_is_tcp(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	return !getsockname(fd, (struct sockaddr *)&ss, &sl) &&
	       (ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
}

static int rtt_tsync_send(int fd, const char *proto, uint32_t id,
			  const void *data, size_t len)
{
	unsigned char fx[RTT_TSYNC_NAME + 4];

	memset(fx, 0, sizeof(fx));
	memcpy(fx, proto, strlen(proto));
	rtt_put_be32(fx + RTT_TSYNC_NAME, id);
	return rtt_msg_send(fd, RTT_MSG_TIME_SYNC, fx, sizeof(fx), data, len);
}

/*
 * Receive a TIME_SYNC of @proto; its id in *id. The host writes a
 * message's header and its payload in two writes: the second waits for
 * the ack of the first (Nagle), which an ack delayed here would hold for
 * tens of milliseconds a probe; every segment is acked at once.
 * Return: 0, -EBADMSG.
 */
static int rtt_tsync_recv(int fd, struct rtt_msg *m, const char *proto,
			  uint32_t *id, int timeout_ms)
{
	int one = 1, ret;

	if (t_is_tcp(fd))
		setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
	ret = rtt_msg_recv(fd, m, timeout_ms);

	if (ret)
		return ret;
	if (m->cmd != RTT_MSG_TIME_SYNC ||
	    strncmp((const char *)m->fixed, proto, RTT_TSYNC_NAME))
		return -EBADMSG;
	*id = rtt_get_be32(m->fixed + RTT_TSYNC_NAME);
	return 0;
}

/*
 * One round of the ptp exchange, the agent the side that sends the
 * probes: the time of each probe sent and of its answer, read on the
 * process's clock; the host's readings of its own clock when each probe
 * arrived; the offset of the fastest round trip (the host's reading less
 * the middle of ours) sent back, at the middle's time.
 */
static int rtt_ptp_round(struct rtt_tsync *t, int fd, struct rtt_msg *m,
			 uint32_t series)
{
	uint64_t sent[RTT_PTP_LOOP], back[RTT_PTP_LOOP];
	unsigned char buf[16];
	uint64_t best = UINT64_MAX, off = 0, at = 0;
	uint32_t id, count;
	int ret, i;

	rtt_put_be32(buf, series);
	rtt_put_be32(buf + 4, RTT_PTP_FLAGS);
	ret = rtt_tsync_send(fd, "ptp", RTT_PTP_START, buf, 8);
	if (!ret)
		ret = rtt_tsync_recv(fd, m, "ptp", &id, RTT_NET_TIMEOUT_MS);
	if (ret || id != RTT_PTP_START)
		return ret ? ret : -EBADMSG;
	for (i = 0; i < RTT_PTP_LOOP; i++) {
		rtt_put_be32(buf, (uint32_t)i + 1);
		sent[i] = rtt_tsync_now(t);
		ret = rtt_tsync_send(fd, "ptp", RTT_PTP_PROBE, buf, 4);
		if (!ret)
			ret = rtt_tsync_recv(fd, m, "ptp", &id,
					     RTT_NET_TIMEOUT_MS);
		back[i] = rtt_tsync_now(t);
		if (ret)
			return ret;
		if (id != RTT_PTP_PROBE || m->len < 4 ||
		    rtt_get_be32(m->data) != (uint32_t)i + 1)
			return -EBADMSG;
	}
	ret = rtt_tsync_send(fd, "ptp", RTT_PTP_END, NULL, 0);
	if (!ret)
		ret = rtt_tsync_recv(fd, m, "ptp", &id, RTT_NET_TIMEOUT_MS);
	if (ret || id != RTT_PTP_PROBES || m->len < 8)
		return ret ? ret : -EBADMSG;
	/* series, count, then the host's samples: (be64 ts, be32 id) */
	count = rtt_get_be32(m->data + 4);
	for (i = 0; i < RTT_PTP_LOOP && (uint32_t)i < count &&
		    8 + (size_t)(i + 1) * 12 <= m->len;
	     i++) {
		const unsigned char *s = m->data + 8 + (size_t)i * 12;
		uint64_t ts = rtt_get_be64(s), mid;

		if (!ts || rtt_get_be32(s + 8) != (uint32_t)i + 1)
			continue;
		mid = sent[i] + (back[i] - sent[i]) / 2;
		if (back[i] - sent[i] < best) {
			best = back[i] - sent[i];
			off = ts - mid;
			at = mid;
		}
	}
	rtt_put_be64(buf, at);
	rtt_put_be64(buf + 8, off);
	return rtt_tsync_send(fd, "ptp", RTT_PTP_OFFSET, buf, 16);
}

/* The thread: probe requests from the host until it says stop. */
static void *rtt_tsync_main(void *arg)
{
	struct rtt_tsync *t = arg;
	struct rtt_msg *m = malloc(sizeof(*m));
	uint32_t series = 0, id;
	int fd, ret;

	if (!m)
		return NULL;
	fd = rtt_agent_accept(t->lfd, RTT_NET_TIMEOUT_MS, false);
	/* Relaxed: a request to end, seen at the next look (a second at
	 * most); pthread_join() orders the rest. */
	while (fd >= 0 && !__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		ret = rtt_tsync_recv(fd, m, "none", &id, 1000);
		if (ret == -ETIMEDOUT)
			continue;
		if (ret || id != RTT_TSYNC_PROBE)
			break;
		if (rtt_ptp_round(t, fd, m, ++series))
			break;
	}
	if (fd >= 0)
		close(fd);
	free(m);
	/* Release: pairs with the agent's reading of @done, which then
	 * joins; nothing else is published. */
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The POSIX clock of a trace clock name (-1: the TSC). */
static clockid_t rtt_tsync_clock(const char *name)
{
	if (!strcmp(name, "mono_raw"))
		return CLOCK_MONOTONIC_RAW;
	if (!strcmp(name, "boot"))
		return CLOCK_BOOTTIME;
	if (!strcmp(name, "x86-tsc") || !strcmp(name, "counter"))
		return (clockid_t)-1;
	return CLOCK_MONOTONIC;
}

/* ---- a session ----------------------------------------------------- */

/* Wait for CLOSE on @ctl, answering other messages with NOT_SUPP.
 * Return: 1 on CLOSE, 0 not yet (@timeout_ms passed), or a negative
 * errno (the host went away). */
static int rtt_agent_poll_close(int ctl, struct rtt_msg *m, int timeout_ms)
{
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	int ret;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	ret = rtt_msg_recv(ctl, m, RTT_NET_TIMEOUT_MS);
	if (ret)
		return ret;
	if (m->cmd == RTT_MSG_CLOSE)
		return 1;
	if (m->cmd != RTT_MSG_NOT_SUPP)
		rtt_msg_send(ctl, RTT_MSG_NOT_SUPP, NULL, 0, NULL, 0);
	return 0;
}

/*
 * The process set up for the request: the agent's -P (or the request's),
 * or its command spawned and held (*hold, *child). The clock of -C goes
 * to a command through its environment. Return: 0 or a negative errno
 * after a message.
 */
static int rtt_agent_process(const struct rtt_agent *a,
			     const struct rtt_req_opts *o, struct rtt_record *r,
			     char **before, int *hold, pid_t *child)
{
	const struct rtt_rec_set set = {
		.events = &o->events, .topts = &o->topts,
		.filters = &o->filters, .lists = o->lists,
		.size_kb = o->size_kb, .tracer = o->tracer, .clock = o->clock,
	};
	const char *pid = o->pid ? o->pid : a->pid;
	struct rtt_events *ev = NULL;
	int ret;

	if (o->pid && a->cmd) {
		rtt_msg("agent: the request names a process (-P %s): this agent records its command",
			o->pid);
		return -EINVAL;
	}
	if (o->pid && a->pid && strcmp(o->pid, a->pid)) {
		rtt_msg("agent: the request names process %s: this agent records process %s",
			o->pid, a->pid);
		return -EINVAL;
	}
	if (pid) {
		ret = rtt_rec_attach(r, pid, &set, before, &ev);
		r->ev = ev;
		return ret;
	}
	if (!a->cmd) {
		rtt_msg("agent: the request names no process (-P) and the agent has no command");
		return -EINVAL;
	}
	/* the clock of the host's -C, else the command's own */
	if (o->clock)
		setenv("RINGTRACE_CLOCK", o->clock, 1);
	else if (a->env_clock)
		setenv("RINGTRACE_CLOCK", a->env_clock, 1);
	else
		unsetenv("RINGTRACE_CLOCK");
	/* the events a filter goes with are enabled once it is set */
	ret = rtt_record_spawn(a->cmd, &o->plain, o->tracer, &o->topts,
			       o->size_kb, NULL, false, false, hold, &r->p,
			       child);
	if (ret)
		return ret;
	r->ctl_gen = rtt_ctl_gen(&r->p);
	ret = rtt_record_lists(&r->p, o->lists, false, 0);
	if (!ret)
		ret = rtt_load_events(&r->p, &ev, false);
	r->ev = ev;
	return ret;
}

/*
 * A command just let go registers its events (its constructors run after
 * the library's hold): wait until it has (its events file changed since
 * it was let go, then not for RTT_AGENT_SETTLE_MS), or until nothing
 * changed for RTT_AGENT_QUIET_MS (a program with no events of its own),
 * 3 s at most, so that the metadata, which goes once, has their formats.
 */
#define RTT_AGENT_SETTLE_MS 250u
#define RTT_AGENT_QUIET_MS 1000u

static void rtt_agent_settle(struct rtt_proc *p, uint32_t gen)
{
	uint64_t start = rtt_now_ms(), since = start;
	uint32_t g = gen;

	while (rtt_now_ms() - start < 3000 && rtt_proc_state(p) == RTT_ALIVE) {
		uint32_t n;

		usleep(2000);
		n = rtt_ctl_gen(p);
		/* Acquire: pairs with the library's release store of its
		 * state: past the hold, its set-up is published. */
		if (n != g ||
		    atomic_load_explicit(&p->ctl->state,
					 memory_order_acquire) == RT_CTL_HELD) {
			g = n;
			since = rtt_now_ms();
		} else if (rtt_now_ms() - since >=
			   (g != gen ? RTT_AGENT_SETTLE_MS : RTT_AGENT_QUIET_MS)) {
			return;
		}
	}
}

/* TRACE_RESP: the cpu buffers, the page size, the ports, the time sync. */
static int rtt_agent_resp(int ctl, const struct rtt_record *r,
			  const int *lfd, int tsync_fd, uint64_t *trace_id)
{
	unsigned char fx[40], *ports;
	size_t len = 0;
	int ret;

	ports = malloc((size_t)r->nr_cpus * 12 + 1);
	if (!ports)
		return -ENOMEM;
	for (int c = 0; c < r->nr_cpus; c++)
		len += (size_t)sprintf((char *)ports + len, "%u",
				       rtt_agent_port_of(lfd[c])) + 1;
	if (getrandom(trace_id, sizeof(*trace_id), 0) != sizeof(*trace_id))
		*trace_id = rtt_now_ms() ^ (uint64_t)getpid() << 32;
	memset(fx, 0, sizeof(fx));
	rtt_put_be32(fx + 4, (uint32_t)r->nr_cpus);
	rtt_put_be32(fx + 8, (uint32_t)ringbuf_subbuf_size(r->rb));
	rtt_put_be64(fx + 12, *trace_id);
	if (tsync_fd >= 0) {
		memcpy(fx + 20, "ptp", 3);
		rtt_put_be32(fx + 36, rtt_agent_port_of(tsync_fd));
	}
	ret = rtt_msg_send(ctl, RTT_MSG_TRACE_RESP, fx, sizeof(fx), ports, len);
	free(ports);
	return ret;
}

/* One request, from TRACE_REQ to CLOSE_RESP. */
static int rtt_agent_session(const struct rtt_agent *a, int ctl,
			     const char *peer)
{
	struct rtt_msg *m = malloc(sizeof(*m));
	struct rtt_req q = { 0 };
	struct rtt_req_opts o;
	struct rtt_record r;
	struct rtt_tsync t = { .lfd = -1 };
	char *before = NULL, err[RTT_ERR_MAX];
	int *lfd = NULL, *dfd = NULL, hold = -1, ret, closed = 0, c;
	bool tcp = a->allow != NULL;
	uint64_t trace_id;
	pid_t child = 0;
	void *meta = NULL;
	size_t len;

	memset(&r, 0, sizeof(r));
	memset(&o, 0, sizeof(o));
	if (!m)
		return -ENOMEM;
	ret = rtt_msg_recv(ctl, m, RTT_NET_TIMEOUT_MS);
	if (!ret && m->cmd != RTT_MSG_TRACE_REQ) {
		rtt_msg("agent: %s sent %s, not a trace request", peer,
			rtt_msg_name(m->cmd));
		rtt_msg_send(ctl, RTT_MSG_NOT_SUPP, NULL, 0, NULL, 0);
		ret = -EINVAL;
		goto out;
	}
	if (!ret)
		ret = rtt_req_parse(m, &q);
	if (ret) {
		rtt_msg("agent: %s: no trace request: %s", peer,
			ret == -EBADMSG ? "a malformed message" : strerror(-ret));
		goto out;
	}
	ret = rtt_req_options(&q, &o);
	if (ret)
		goto out;
	r.quiet = a->quiet;
	r.out_name = peer;
	ret = rtt_agent_process(a, &o, &r, &before, &hold, &child);
	if (ret)
		goto out;
	ret = rtt_rec_open(&r, NULL);
	if (ret)
		goto out;
	/* a port per cpu buffer, and one for the time sync */
	lfd = malloc((size_t)r.nr_cpus * sizeof(*lfd));
	dfd = malloc((size_t)r.nr_cpus * sizeof(*dfd));
	if (!lfd || !dfd) {
		ret = -ENOMEM;
		goto out;
	}
	for (c = 0; c < r.nr_cpus; c++)
		lfd[c] = dfd[c] = -1;
	for (c = 0; c < r.nr_cpus; c++) {
		lfd[c] = rtt_agent_listen(tcp, ctl, 0);
		if (lfd[c] < 0) {
			rtt_msg("agent: a port for cpu buffer %d: %s", c,
				strerror(-lfd[c]));
			ret = -EIO;
			goto out;
		}
	}
	if (q.ptp) {
		char clock[32];

		/* the process writes its control file: a copy, ended */
		snprintf(clock, sizeof(clock), "%.*s",
			 (int)sizeof(r.p.ctl->clock) - 1, r.p.ctl->clock);
		t.lfd = rtt_agent_listen(tcp, ctl, 0);
		t.clock = rtt_tsync_clock(clock);
	}
	ret = rtt_agent_resp(ctl, &r, lfd, t.lfd, &trace_id);
	if (ret)
		goto net_fail;
	if (t.lfd >= 0 && !pthread_create(&t.thread, NULL, rtt_tsync_main, &t))
		t.running = true;
	/* the command runs, registers its events, then the metadata goes
	 * (the host connects to the ports once it has it) */
	if (hold >= 0) {
		if (write(hold, "g", 1) < 0)
			rtt_msg("warning: could not release the command; it goes on after 30 s");
		close(hold);
		hold = -1;
		rtt_agent_settle(&r.p, r.ctl_gen);
		if (rtt_ctl_gen(&r.p) != r.ctl_gen) {
			r.ctl_gen = rtt_ctl_gen(&r.p);
			rtt_record_formats(&r, &r.ev);
		}
		/* a command registers its events as it starts: the
		 * filters, then their events, once it has (the filtered
		 * events' first records, before that, are not recorded) */
		if (o.filters.nr) {
			const struct rtt_strv none = { 0 };

			ret = rtt_apply_settings(&r.p, r.ev, NULL, &none,
						 &o.fevents, &o.filters);
			/* a command that ended first wrote none of them */
			if (ret == -ESRCH && rtt_proc_state(&r.p) != RTT_ALIVE) {
				rtt_msg("warning: agent: the command ended before the filters were set: their events are not recorded");
				ret = 0;
			}
			if (ret)
				goto out;
		}
	}
	ret = td_writer_stream_header(r.w, &meta, &len, NULL);
	if (!ret)
		ret = rtt_msg_send_data(ctl, meta, len);
	if (!ret)
		ret = rtt_msg_send(ctl, RTT_MSG_FIN_DATA, NULL, 0, NULL, 0);
	if (ret)
		goto net_fail;
	for (c = 0; c < r.nr_cpus; c++) {
		dfd[c] = rtt_agent_accept(lfd[c], RTT_NET_TIMEOUT_MS, true);
		if (dfd[c] < 0) {
			ret = dfd[c];
			dfd[c] = -1;
			goto net_fail;
		}
	}
	r.net = rtt_net_alloc(peer);
	if (!r.net || rtt_net_stream_fds(r.net, dfd, true,
					 (unsigned int)ringbuf_subbuf_size(r.rb),
					 r.nr_cpus)) {
		ret = -ENOMEM;
		goto out;
	}
	for (c = 0; c < r.nr_cpus; c++)
		dfd[c] = -1;
	/* the pages until CLOSE, or until the process is gone */
	while (!ret) {
		int moved = rtt_rec_turn(&r), w;

		if (moved < 0) {
			ret = moved;
			break;
		}
		closed = rtt_agent_poll_close(ctl, m, 0);
		if (closed) {
			if (closed < 0) {
				rtt_msg("agent: %s went away", peer);
				ret = -EIO;
			}
			break;
		}
		if (rtt_stop)
			break;
		if (moved == RTT_RECORD_BATCH)
			continue;
		w = ringbuf_wait(r.rb, RINGBUF_ALL_CPUS, 10, 100);
		if (w == -ESRCH || rtt_proc_state(&r.p) == RTT_DEAD) {
			r.exited = true;
			break;
		}
		if (!moved && w <= 0)
			usleep(2000);
	}
	ret = rtt_rec_finish(&r, ret);
	/* the process ended first: CLOSE still comes */
	while (!closed && ret != -EIO && !rtt_stop)
		closed = rtt_agent_poll_close(ctl, m, 200);
	if (closed > 0 &&
	    rtt_msg_send(ctl, RTT_MSG_CLOSE_RESP, NULL, 0, NULL, 0) && !ret)
		ret = -EIO;
	goto out;
net_fail:
	if (ret != -EINTR)
		rtt_msg("agent: %s: %s", peer,
			ret == -ETIMEDOUT ? "the host did not connect in time" :
					    strerror(-ret));
	ret = -EIO;
out:
	/* after CLOSE the host syncs the clocks once more, then says stop:
	 * the thread ends then (or when the host goes), bounded here */
	if (t.running && !ret) {
		uint64_t end = rtt_now_ms() + RTT_NET_TIMEOUT_MS;

		/* Acquire: pairs with the thread's release store */
		while (!__atomic_load_n(&t.done, __ATOMIC_ACQUIRE) &&
		       rtt_now_ms() < end && !rtt_stop)
			usleep(5000);
	}
	/* Relaxed: pairs with nothing; the thread reads it at its next
	 * look, and the join waits for it */
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELAXED);
	if (t.running)
		pthread_join(t.thread, NULL);
	if (t.lfd >= 0)
		close(t.lfd);
	for (c = 0; lfd && c < r.nr_cpus; c++) {
		if (lfd[c] >= 0)
			close(lfd[c]);
		if (dfd[c] >= 0)
			close(dfd[c]);
	}
	free(lfd);
	free(dfd);
	free(meta);
	if (r.p.ctl && !child && !r.exited) {
		/* after a Ctrl-C too (a second one ends it) */
		rtt_interrupt_handled();
		rtt_rec_restore(&r, NULL, before, o.tracer);
	}
	if (child && hold >= 0) {
		/* never ran: it ends here, with its files */
		int status;

		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		child = 0;
		close(hold);
	}
	if (child && rtt_proc_state(&r.p) == RTT_DEAD &&
	    rtt_remove_files(&r.p, err))
		rtt_msg("%s", err);
	rtt_rec_free(&r);
	free(before);
	rtt_req_opts_free(&o);
	rtt_req_free(&q);
	free(m);
	/* a command still running is reaped when it ends */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	return ret;
}

int rtt_do_agent(const struct rtt_verb *v, int argc, char **argv)
{
	const char *host = NULL, *pid = NULL;
	unsigned long port = RTT_AGENT_PORT;
	bool once = false;
	struct rtt_agent a = { 0 };
	int code, lfd;
	const struct rtt_opt opts[] = {
		RTT_O_UINT("port", 'p', &port, 1, 65535, "bad port",
			   "1 to 65535"),
		RTT_O_STR("net", 'N', &host),
		RTT_O_STR("pid", 'P', &pid),
		RTT_O_FLAG("once", 256 + 'o', &once),
		RTT_O_FLAG("quiet", 'q', &a.quiet),
		RTT_O_END(RTT_OPTS_IN_ORDER),
	};

	code = rtt_options(v, argc, argv, opts);
	if (code != RTT_OPTIONS_GO)
		return code;
	if (pid && optind < argc)
		return rtt_usage(v, "give -P PID or a COMMAND, not both");
	if (optind < argc)
		a.cmd = argv + optind;
	a.pid = pid;
	a.env_clock = getenv("RINGTRACE_CLOCK");
	if (host) {
		struct addrinfo hints = { .ai_family = AF_UNSPEC,
					  .ai_socktype = SOCK_STREAM };
		int r = getaddrinfo(host, NULL, &hints, &a.allow);

		if (r) {
			rtt_msg("-N: cannot resolve '%s': %s", host,
				gai_strerror(r));
			return RTT_EXIT_USAGE;
		}
	}
	lfd = rtt_agent_listen(host != NULL, -1, (unsigned int)port);
	if (lfd < 0) {
		if (!host && (lfd == -EAFNOSUPPORT || lfd == -ENODEV))
			rtt_msg("no vsock on this machine: give -N HOST for TCP");
		else
			rtt_msg("cannot listen on %s port %lu: %s",
				host ? "TCP" : "vsock", port, strerror(-lfd));
		if (a.allow)
			freeaddrinfo(a.allow);
		return RTT_EXIT_FAIL;
	}
	rtt_catch_signals();
	code = RTT_EXIT_OK;
	while (!rtt_stop) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		char peer[NI_MAXHOST + 8];
		int cfd, ret;

		if (poll(&pfd, 1, 500) <= 0)
			continue;
		cfd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		if (ss.ss_family == AF_VSOCK)
			snprintf(peer, sizeof(peer), "vsock CID %u",
				 ((struct sockaddr_vm *)&ss)->svm_cid);
		else
			rtt_agent_peer_name((struct sockaddr *)&ss, peer,
					    sizeof(peer));
		if (!rtt_agent_allowed(&a, (struct sockaddr *)&ss)) {
			rtt_msg("agent: refused %s: not %s", peer,
				host ? host : "the host (vsock CID 2) or this machine (CID 1)");
			close(cfd);
			continue;
		}
		ret = rtt_agent_session(&a, cfd, peer);
		close(cfd);
		if (ret)
			code = rtt_exit_code(ret);
		if (once)
			break;
	}
	close(lfd);
	if (a.allow)
		freeaddrinfo(a.allow);
	return code;
}
