// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net.c - record -N: the pages of a recording streamed to a trace-cmd
 *	listen (trace-cmd's protocol, version 3; net.h), and the page
 *	queues the agent streams with too
 *
 * The recorder never waits for the network: each cpu buffer has a queue
 * of RTT_NET_QUEUE pages sent without blocking; while a cpu's queue is
 * full its buffer is not read, so a slow or dead receiver makes the
 * buffer overwrite or drop as it is set to (counted and marked as in a
 * local recording), never the traced program wait. Only the end of the
 * recording waits for the receiver, RTT_NET_TIMEOUT_MS at most.
 */
#include <poll.h>
#include <sys/socket.h>

#include "rtt.h"
#include "net.h"

/* Pages queued per cpu buffer before its buffer is left to fill. */
#define RTT_NET_QUEUE 64u

/*
 * The metadata goes at the end of the recording, when the formats of
 * every event the program registered as it ran, and its threads' names,
 * are known. trace-cmd listen waits 5 s at most for each message of the
 * metadata: until then, the bytes of it that are known from the start
 * (rtt_writer_stream_header()'s @fixed: the magic, header_page,
 * header_event) go one at a time, one every RTT_NET_KEEP_MS. A recording
 * that outlasts them (about 20 minutes) sends the metadata as it is
 * then.
 */
#define RTT_NET_KEEP_MS 2500u

/*
 * The largest page one UDP datagram carries (IPv4's limit, less its
 * headers): larger sub-buffers need -t.
 */
#define RTT_NET_UDP_MAX 65507u

/**
 * struct rtt_net_cpu - the stream of one cpu buffer
 * @fd: its socket, -1 once closed
 * @q: RTT_NET_QUEUE pages
 * @head: the first page queued (an index that only grows)
 * @tail: one past the last
 * @off: bytes of the first page already sent
 */
struct rtt_net_cpu {
	int fd;
	unsigned char *q;
	uint64_t head;
	uint64_t tail;
	size_t off;
};

/**
 * struct rtt_net - a recording streamed to a receiver
 * @where: "host:port", for the messages
 * @host, @port: the receiver
 * @ctl: the message connection (-1: none, the agent owns its own)
 * @tcp: the pages go over TCP (else UDP datagrams)
 * @page_size: the size of a page
 * @nr_cpus: the streams
 * @cpu: each stream
 * @sent: bytes of pages sent
 * @err: the first error of a stream (the recording stops with it)
 * @meta: the first bytes of the metadata, the same to the end
 * @meta_fixed: how many
 * @meta_sent: bytes of the metadata sent
 * @meta_done: all of it and FIN_DATA sent
 * @meta_last: when a byte was last sent (ms)
 */
struct rtt_net {
	char where[300];
	char host[256];
	char port[16];
	int ctl;
	bool tcp;
	unsigned int page_size;
	int nr_cpus;
	struct rtt_net_cpu *cpu;
	uint64_t sent;
	int err;
	unsigned char *meta;
	size_t meta_fixed;
	size_t meta_sent;
	bool meta_done;
	uint64_t meta_last;
};

struct rtt_net *rtt_net_alloc(const char *where)
{
	struct rtt_net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->ctl = -1;
	snprintf(n->where, sizeof(n->where), "%s", where);
	return n;
}

const char *rtt_net_where(const struct rtt_net *n)
{
	return n->where;
}

bool rtt_net_tcp(const struct rtt_net *n)
{
	return n->tcp;
}

uint64_t rtt_net_sent(const struct rtt_net *n)
{
	return n ? n->sent : 0;
}

struct rtt_timeout rtt_net_timeout = { "RINGTRACE_NET_TIMEOUT_MS", 10000, 0 };

/* @ms as a message says it: "10 s", or "250 ms" when not whole seconds */
static const char *rtt_net_span(int ms, char *buf, size_t len)
{
	if (ms % 1000)
		snprintf(buf, len, "%d ms", ms);
	else
		snprintf(buf, len, "%d s", ms / 1000);
	return buf;
}

/* One message for a failed exchange with the listener; the streams are
 * failed from then on (n->err: the later steps, the metadata and the
 * close at the end included, say nothing more). */
static int rtt_net_fail(struct rtt_net *n, const char *what, int err)
{
	char span[32];

	if (err == -ECONNRESET || err == -EPIPE)
		rtt_msg("%s: the listener closed the connection (%s)", n->where,
			what);
	else if (err == -ETIMEDOUT)
		rtt_msg("%s: no answer from the listener in %s (%s)", n->where,
			rtt_net_span(RTT_NET_TIMEOUT_MS, span, sizeof(span)),
			what);
	else if (err == -EBADMSG)
		rtt_msg("%s: a malformed message from the listener (%s)",
			n->where, what);
	else if (err != -EINTR)
		rtt_msg("%s: %s: %s", n->where, what, strerror(-err));
	if (err == -EINTR)
		return err;
	n->err = -EIO;
	return -EIO;
}

/**
 * rtt_net_open - connect to a trace-cmd listen and agree on the protocol
 * @where: HOST:PORT as given to -N
 * @tcp: the pages will go over TCP (-t)
 * @out: receives the connection
 *
 * Before anything else of the recording, so that a listener that is not
 * there stops it before the traced program is touched: the connection
 * and the handshake (net.h). The cpu count and page size follow in
 * rtt_net_start(), within the listener's 5 s.
 *
 * Context: blocks (RTT_NET_TIMEOUT_MS a step at most).
 * Return: 0, -EINVAL (a bad HOST:PORT, said), or -EIO / -EINTR after
 * a message.
 */
int rtt_net_open(const char *where, bool tcp, struct rtt_net **out)
{
	static const char v3[] = "-1V3";
	static const char magic[8] = "766679";
	char err[RTT_ERR_MAX], buf[8];
	struct rtt_net *n;
	int ret;

	*out = NULL;
	n = rtt_net_alloc(where);
	if (!n)
		return -ENOMEM;
	n->tcp = tcp;
	if (rtt_net_split(where, n->host, sizeof(n->host), n->port,
			  sizeof(n->port))) {
		rtt_msg("-N: '%s' is not HOST:PORT (a port from 1 to 65535)",
			where);
		free(n);
		return -EINVAL;
	}
	n->ctl = rtt_net_connect(n->host, n->port, SOCK_STREAM, err,
				 sizeof(err));
	if (n->ctl < 0) {
		ret = n->ctl;
		n->ctl = -1;
		if (ret != -EINTR)
			rtt_msg("-N: %s", err);
		free(n);
		return ret == -EINTR ? ret : -EIO;
	}
	/* "tracecmd", our version, "V3\0", the magic, "OK" */
	ret = rtt_net_read(n->ctl, buf, 8, RTT_NET_TIMEOUT_MS);
	if (!ret && memcmp(buf, "tracecmd", 8))
		ret = -EPROTO;
	if (!ret)
		ret = rtt_net_write(n->ctl, v3, sizeof(v3), RTT_NET_TIMEOUT_MS);
	if (!ret)
		ret = rtt_net_read(n->ctl, buf, 3, RTT_NET_TIMEOUT_MS);
	if (!ret && memcmp(buf, "V3", 3))
		ret = -EPROTONOSUPPORT;
	if (!ret)
		ret = rtt_net_write(n->ctl, magic, sizeof(magic),
				    RTT_NET_TIMEOUT_MS);
	if (!ret)
		ret = rtt_net_read(n->ctl, buf, 2, RTT_NET_TIMEOUT_MS);
	if (!ret && memcmp(buf, "OK", 2))
		ret = -EPROTONOSUPPORT;
	if (ret == -EPROTO || ret == -EPROTONOSUPPORT) {
		rtt_msg("%s: not a trace-cmd listen of protocol version 3",
			where);
		ret = -EIO;
	} else if (ret) {
		ret = rtt_net_fail(n, "the handshake", ret);
	}
	if (ret) {
		rtt_net_free(n);
		return ret;
	}
	*out = n;
	return 0;
}

/* The queues of @nr_cpus streams of pages of @page_size. */
static int rtt_net_queues(struct rtt_net *n, unsigned int page_size,
			  int nr_cpus)
{
	n->page_size = page_size;
	n->nr_cpus = nr_cpus;
	n->cpu = calloc((size_t)nr_cpus, sizeof(*n->cpu));
	if (!n->cpu)
		return -ENOMEM;
	for (int c = 0; c < nr_cpus; c++)
		n->cpu[c].fd = -1;
	for (int c = 0; c < nr_cpus; c++) {
		n->cpu[c].q = malloc((size_t)RTT_NET_QUEUE * page_size);
		if (!n->cpu[c].q)
			return -ENOMEM;
	}
	return 0;
}

/**
 * rtt_net_stream_fds - stream pages to sockets made elsewhere (the agent)
 * @n: from rtt_net_alloc()
 * @fds: a connected socket per cpu buffer (taken over)
 * @tcp: stream sockets
 * @page_size: the page size
 * @nr_cpus: the cpu buffers
 *
 * Return: 0 or -ENOMEM.
 */
int rtt_net_stream_fds(struct rtt_net *n, const int *fds, bool tcp,
		       unsigned int page_size, int nr_cpus)
{
	int ret;

	n->tcp = tcp;
	ret = rtt_net_queues(n, page_size, nr_cpus);
	for (int c = 0; !ret && c < nr_cpus; c++) {
		n->cpu[c].fd = fds[c];
		rtt_net_nonblock(fds[c]);
	}
	return ret;
}

/**
 * rtt_net_meta - send the metadata to the listener, or keep it waiting
 * @n: the streams
 * @w: the trace.dat's sections
 * @all: the recording ends: all of it now
 *
 * Without @all, a byte of the fixed part each RTT_NET_KEEP_MS, and the
 * whole metadata as @w has it once those run out.
 *
 * Context: the recorder.
 * Return: 0, or -EIO after a message.
 */
int rtt_net_meta(struct rtt_net *n, struct td_writer *w, bool all)
{
	uint64_t now = rtt_now_ms();
	void *meta;
	size_t len;
	int ret;

	if (n->err)
		return n->err;
	if (n->meta_done || n->ctl < 0)
		return 0;
	if (!all && n->meta_sent && now - n->meta_last < RTT_NET_KEEP_MS)
		return 0;
	if (!all && n->meta_sent + 1 < n->meta_fixed) {
		ret = rtt_msg_send_data(n->ctl, n->meta + n->meta_sent, 1);
		if (ret)
			return rtt_net_fail(n, "the metadata", ret);
		n->meta_sent++;
		n->meta_last = now;
		return 0;
	}
	ret = td_writer_stream_header(w, &meta, &len, NULL);
	if (ret)
		return rtt_net_fail(n, "the metadata", ret);
	/* the fixed bytes sent are the first of these */
	if (len < n->meta_sent || memcmp(meta, n->meta, n->meta_sent)) {
		free(meta);
		rtt_msg("%s: the metadata changed under its first bytes", n->where);
		return -EIO;
	}
	ret = rtt_msg_send_data(n->ctl, (unsigned char *)meta + n->meta_sent,
				len - n->meta_sent);
	free(meta);
	if (!ret)
		ret = rtt_msg_send(n->ctl, RTT_MSG_FIN_DATA, NULL, 0, NULL, 0);
	if (ret)
		return rtt_net_fail(n, "the metadata", ret);
	n->meta_sent = len;
	n->meta_done = true;
	return 0;
}

/**
 * rtt_net_start - TINIT, the listener's ports, the data connections and
 *	the metadata
 * @n: from rtt_net_open()
 * @w: the trace.dat's sections (formats, symbols, names, clock, options)
 * @page_size: the sub-buffer size: the size of every page sent
 * @nr_cpus: the cpu buffers, spares included (each one stream)
 *
 * The metadata's first byte goes at once: the listener's wait for it
 * ends (rtt_net_meta() sends the rest).
 *
 * Context: blocks (RTT_NET_TIMEOUT_MS a step at most).
 * Return: 0, or -EIO / -EINVAL / -EINTR after a message.
 */
int rtt_net_start(struct rtt_net *n, struct td_writer *w,
		  unsigned int page_size, int nr_cpus)
{
	static const char opt_tcp[] = "tcp";
	unsigned char tinit[12];
	struct rtt_msg *m;
	const char *p, *end;
	void *meta = NULL;
	size_t len;
	int ret, c;

	if (!n->tcp && page_size > RTT_NET_UDP_MAX) {
		rtt_msg("-N: pages of %u KiB do not fit in a UDP datagram: add -t",
			page_size >> 10);
		return -EINVAL;
	}
	ret = rtt_net_queues(n, page_size, nr_cpus);
	if (ret)
		return ret;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	rtt_put_be32(tinit, (uint32_t)nr_cpus);
	rtt_put_be32(tinit + 4, page_size);
	rtt_put_be32(tinit + 8, n->tcp ? 1 : 0);
	ret = rtt_msg_send(n->ctl, RTT_MSG_TINIT, tinit, sizeof(tinit),
			   n->tcp ? opt_tcp : NULL, n->tcp ? sizeof(opt_tcp) : 0);
	if (!ret)
		ret = rtt_msg_recv(n->ctl, m, RTT_NET_TIMEOUT_MS);
	if (ret) {
		ret = rtt_net_fail(n, "the cpu count", ret);
		goto out;
	}
	if (m->cmd != RTT_MSG_RINIT ||
	    rtt_get_be32(m->fixed) != (uint32_t)nr_cpus || !m->len ||
	    m->data[m->len - 1]) {
		rtt_msg("%s: the listener answered the cpu count with %s",
			n->where, m->cmd == RTT_MSG_RINIT ? "a malformed RINIT" :
							   rtt_msg_name(m->cmd));
		ret = -EIO;
		goto out;
	}
	/* the metadata's first bytes, the same at the end (RTT_NET_KEEP_MS):
	 * the first now, which restarts the listener's 5 s */
	ret = td_writer_stream_header(w, &meta, &len, &n->meta_fixed);
	if (ret)
		goto out;
	n->meta = meta;
	meta = NULL;
	ret = rtt_net_meta(n, w, false);
	if (ret)
		goto out;
	/* a port per cpu buffer, each "digits\0" */
	p = (const char *)m->data;
	end = p + m->len;
	for (c = 0; c < nr_cpus; c++) {
		char err[RTT_ERR_MAX], pstr[24];
		uint64_t deadline = rtt_now_ms() + RTT_NET_TIMEOUT_MS;
		unsigned long port;
		int fd;

		if (p >= end || rtt_parse_uint(p, 65535, &port) || !port) {
			rtt_msg("%s: the listener's port %d is malformed",
				n->where, c);
			ret = -EIO;
			goto out;
		}
		p += strlen(p) + 1;
		snprintf(pstr, sizeof(pstr), "%lu", port);
		/*
		 * trace-cmd listen binds each port, then its reader process
		 * for it calls listen(): a port it named may refuse for a
		 * moment. Tried again meanwhile, the listener kept waiting.
		 */
		for (;;) {
			fd = rtt_net_connect(n->host, pstr,
					     n->tcp ? SOCK_STREAM : SOCK_DGRAM,
					     err, sizeof(err));
			if (fd != -ECONNREFUSED || rtt_now_ms() >= deadline)
				break;
			ret = rtt_net_meta(n, w, false);
			if (ret)
				goto out;
			usleep(10000);
		}
		if (fd < 0) {
			if (fd != -EINTR)
				rtt_msg("-N: cpu buffer %d: %s", c, err);
			ret = fd == -EINTR ? fd : -EIO;
			goto out;
		}
		n->cpu[c].fd = fd;
		rtt_net_nonblock(fd);
	}
out:
	free(meta);
	free(m);
	return ret;
}

/**
 * rtt_net_slot - where the next page of a cpu buffer is to be read
 * @n: the streams
 * @cpu: the cpu buffer
 *
 * Context: the recorder.
 * Return: a page of the cpu's queue, or NULL while the queue is full
 * (the buffer is left to fill) or after an error.
 */
void *rtt_net_slot(struct rtt_net *n, int cpu)
{
	struct rtt_net_cpu *s = &n->cpu[cpu];

	if (n->err || s->tail - s->head == RTT_NET_QUEUE) {
		errno = 0;
		return NULL;
	}
	return s->q + (size_t)(s->tail % RTT_NET_QUEUE) * n->page_size;
}

/* Send what the queue of @cpu holds, without blocking. Return: 0 or the
 * error of the stream. */
static int rtt_net_push_cpu(struct rtt_net *n, int cpu)
{
	struct rtt_net_cpu *s = &n->cpu[cpu];

	while (s->head != s->tail) {
		unsigned char *pg = s->q + (size_t)(s->head % RTT_NET_QUEUE) *
						   n->page_size;
		ssize_t w = send(s->fd, pg + s->off, n->page_size - s->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			/* a datagram refused by the receiving port (nothing
			 * listens there any more) */
			return -errno;
		}
		/* a datagram is sent whole or not at all */
		s->off += (size_t)w;
		n->sent += (uint64_t)w;
		if (s->off == n->page_size) {
			s->off = 0;
			s->head++;
		}
	}
	return 0;
}

/**
 * rtt_net_commit - queue the page read into a cpu's slot
 * @n: the streams
 * @cpu: the cpu buffer
 *
 * Context: the recorder.
 * Return: 0, or -EIO after a message when the stream broke.
 */
int rtt_net_commit(struct rtt_net *n, int cpu)
{
	n->cpu[cpu].tail++;
	return rtt_net_push(n, 0);
}

/**
 * rtt_net_full - whether a queue is full (the recorder may wait on it)
 * @n: the streams
 *
 * Return: true when a cpu's queue is full.
 */
bool rtt_net_full(const struct rtt_net *n)
{
	for (int c = 0; c < n->nr_cpus; c++)
		if (n->cpu[c].tail - n->cpu[c].head == RTT_NET_QUEUE)
			return true;
	return false;
}

/**
 * rtt_net_push - send what the queues hold
 * @n: the streams
 * @timeout_ms: 0: only what goes without waiting; else wait until every
 *	queue is empty, at most this long
 *
 * Context: the recorder.
 * Return: 0, -ETIMEDOUT (said: the receiver does not read), -EINTR, or
 * -EIO after a message (a stream broke).
 */
int rtt_net_push(struct rtt_net *n, int timeout_ms)
{
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;
	int c, ret;

	if (n->err)
		return n->err;
	for (;;) {
		struct pollfd pfd[64];
		int np = 0;
		uint64_t now;

		for (c = 0; c < n->nr_cpus; c++) {
			ret = rtt_net_push_cpu(n, c);
			if (ret) {
				n->err = rtt_net_fail(n, "sending pages", ret);
				return n->err;
			}
			if (n->cpu[c].head != n->cpu[c].tail && np < 64)
				pfd[np++] = (struct pollfd){ .fd = n->cpu[c].fd,
							     .events = POLLOUT };
		}
		if (!np || !timeout_ms)
			return 0;
		now = rtt_now_ms();
		if (now >= deadline) {
			char span[32];

			rtt_msg("%s: the receiver stopped reading: pages not sent after %s",
				n->where,
				rtt_net_span(timeout_ms, span, sizeof(span)));
			n->err = -ETIMEDOUT;
			return n->err;
		}
		if (poll(pfd, (nfds_t)np, (int)(deadline - now > 200 ?
							200 : deadline - now)) < 0 &&
		    errno != EINTR)
			return -errno;
	}
}

/**
 * rtt_net_finish - the end of a recording: the queues emptied, the
 *	streams closed, CLOSE sent
 * @n: the streams (rtt_net_open()'s: the message connection is closed
 *	too)
 *
 * Context: blocks RTT_NET_TIMEOUT_MS at most.
 * Return: 0, or a negative errno after a message.
 */
int rtt_net_finish(struct rtt_net *n)
{
	int ret = rtt_net_push(n, RTT_NET_TIMEOUT_MS);

	for (int c = 0; c < n->nr_cpus; c++) {
		if (n->cpu[c].fd < 0)
			continue;
		/* the receiver's reader ends at the end of the stream */
		if (n->tcp)
			shutdown(n->cpu[c].fd, SHUT_WR);
		close(n->cpu[c].fd);
		n->cpu[c].fd = -1;
	}
	if (n->ctl >= 0) {
		int r = rtt_msg_send(n->ctl, RTT_MSG_CLOSE, NULL, 0, NULL, 0);

		if (r && !ret)
			ret = rtt_net_fail(n, "the close", r);
	}
	return ret;
}

void rtt_net_free(struct rtt_net *n)
{
	if (!n)
		return;
	for (int c = 0; n->cpu && c < n->nr_cpus; c++) {
		if (n->cpu[c].fd >= 0)
			close(n->cpu[c].fd);
		free(n->cpu[c].q);
	}
	free(n->cpu);
	if (n->ctl >= 0)
		close(n->ctl);
	free(n->meta);
	free(n);
}
