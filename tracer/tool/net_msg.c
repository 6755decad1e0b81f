// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_msg.c - trace-cmd's network protocol, version 3: whole reads and
 *	writes with a deadline, the framed messages, host:port and
 *	connecting (see net.h for the protocol)
 */
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "rtt.h"
#include "net.h"

/* The size of each command's fixed part, as trace-cmd sends them. */
static const uint32_t rtt_msg_fixed[RTT_MSG_NR] = {
	[RTT_MSG_TINIT] = 12,
	[RTT_MSG_RINIT] = 4,
	[RTT_MSG_TRACE_REQ] = 16,
	[RTT_MSG_TRACE_RESP] = 40,
	[RTT_MSG_TIME_SYNC] = 20,
	[RTT_MSG_TRACE_PROXY] = 24,
};

static const char *const rtt_msg_names[RTT_MSG_NR] = {
	"CLOSE", "TINIT", "RINIT", "SEND_DATA", "FIN_DATA", "NOT_SUPP",
	"TRACE_REQ", "TRACE_RESP", "CLOSE_RESP", "TIME_SYNC", "TRACE_PROXY",
	"CONT",
};

const char *rtt_msg_name(uint32_t cmd)
{
	return cmd < RTT_MSG_NR ? rtt_msg_names[cmd] : "an unknown message";
}

void rtt_put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

void rtt_put_be64(unsigned char *p, uint64_t v)
{
	rtt_put_be32(p, (uint32_t)(v >> 32));
	rtt_put_be32(p + 4, (uint32_t)v);
}

uint32_t rtt_get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

uint64_t rtt_get_be64(const unsigned char *p)
{
	return (uint64_t)rtt_get_be32(p) << 32 | rtt_get_be32(p + 4);
}

void rtt_net_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Wait until @fd is ready for @ev or the deadline passes (a Ctrl-C does
 * not end it: the deadline bounds every wait). Return: 0, -ETIMEDOUT or
 * the poll error. */
static int rtt_net_wait(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = ev };
		uint64_t now = rtt_now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now > 1000 ? 1000 :
						       deadline - now));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/**
 * rtt_net_write - write all of a buffer to a socket
 * @fd: the socket (blocking or not)
 * @buf: the bytes
 * @len: how many
 * @timeout_ms: the most the whole write may take
 *
 * Context: blocks up to @timeout_ms; SIGPIPE is never raised.
 * Return: 0, -ETIMEDOUT (the peer does not read), -EPIPE or -ECONNRESET
 * (the peer is gone), -EINTR (Ctrl-C).
 */
int rtt_net_write(int fd, const void *buf, size_t len, int timeout_ms)
{
	const unsigned char *p = buf;
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;

	while (len) {
		ssize_t w = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		w = rtt_net_wait(fd, POLLOUT, deadline);
		if (w)
			return (int)w;
	}
	return 0;
}

/**
 * rtt_net_read - read exactly @len bytes from a socket
 * @fd: the socket
 * @buf: where
 * @len: how many
 * @timeout_ms: the most the whole read may take
 *
 * Context: blocks up to @timeout_ms.
 * Return: 0, -ECONNRESET (the peer closed first), -ETIMEDOUT, -EINTR.
 */
int rtt_net_read(int fd, void *buf, size_t len, int timeout_ms)
{
	unsigned char *p = buf;
	uint64_t deadline = rtt_now_ms() + (uint64_t)timeout_ms;

	while (len) {
		ssize_t r = recv(fd, p, len, MSG_DONTWAIT);

		if (r > 0) {
			p += r;
			len -= (size_t)r;
			continue;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		r = rtt_net_wait(fd, POLLIN, deadline);
		if (r)
			return (int)r;
	}
	return 0;
}

/**
 * rtt_msg_send - send one message
 * @fd: the socket
 * @cmd: the command
 * @fixed: its fixed part (NULL: zeroes)
 * @nfixed: its size (the command's, rtt_msg_fixed[])
 * @data: the payload
 * @len: its size: the whole message is at most RTT_MSG_MAX
 *
 * Context: blocks up to RTT_NET_TIMEOUT_MS.
 * Return: 0, -EINVAL (@nfixed is not the command's), -EMSGSIZE, or
 * rtt_net_write()'s error.
 */
int rtt_msg_send(int fd, uint32_t cmd, const void *fixed, size_t nfixed,
		 const void *data, size_t len)
{
	unsigned char m[RTT_MSG_MAX];
	size_t total = RTT_MSG_HDR + nfixed + len;

	if (cmd >= RTT_MSG_NR || nfixed != rtt_msg_fixed[cmd])
		return -EINVAL;
	if (total > RTT_MSG_MAX)
		return -EMSGSIZE;
	rtt_put_be32(m, (uint32_t)total);
	rtt_put_be32(m + 4, cmd);
	rtt_put_be32(m + 8, (uint32_t)nfixed);
	if (fixed)
		memcpy(m + RTT_MSG_HDR, fixed, nfixed);
	else
		memset(m + RTT_MSG_HDR, 0, nfixed);
	if (len)
		memcpy(m + RTT_MSG_HDR + nfixed, data, len);
	return rtt_net_write(fd, m, total, RTT_NET_TIMEOUT_MS);
}

/**
 * rtt_msg_recv - receive one message
 * @fd: the socket
 * @m: receives it
 * @timeout_ms: how long to wait for it
 *
 * The sizes are checked before anything is read past the header: a
 * message over RTT_MSG_MAX, or whose fixed part is larger than the
 * message or than RTT_MSG_FIXED_MAX, is refused.
 *
 * Context: blocks up to @timeout_ms (then RTT_NET_TIMEOUT_MS for the
 * rest of the message).
 * Return: 0, -EBADMSG (a malformed message), or rtt_net_read()'s error.
 */
int rtt_msg_recv(int fd, struct rtt_msg *m, int timeout_ms)
{
	unsigned char h[RTT_MSG_HDR];
	uint32_t size;
	int ret;

	ret = rtt_net_read(fd, h, sizeof(h), timeout_ms);
	if (ret)
		return ret;
	size = rtt_get_be32(h);
	m->cmd = rtt_get_be32(h + 4);
	m->nfixed = rtt_get_be32(h + 8);
	if (size < RTT_MSG_HDR || size > RTT_MSG_MAX ||
	    m->nfixed > size - RTT_MSG_HDR || m->nfixed > RTT_MSG_FIXED_MAX)
		return -EBADMSG;
	ret = rtt_net_read(fd, m->buf, size - RTT_MSG_HDR, RTT_NET_TIMEOUT_MS);
	if (ret)
		return ret;
	memset(m->fixed, 0, sizeof(m->fixed));
	memcpy(m->fixed, m->buf, m->nfixed);
	m->data = m->buf + m->nfixed;
	m->len = size - RTT_MSG_HDR - m->nfixed;
	return 0;
}

/**
 * rtt_msg_send_data - send bytes of the metadata as SEND_DATA messages
 * @fd: the socket
 * @buf: the bytes
 * @len: how many
 *
 * Context: blocks.
 * Return: 0 or rtt_msg_send()'s error.
 */
int rtt_msg_send_data(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		size_t n = len < RTT_MSG_MAX - RTT_MSG_HDR ?
				   len : RTT_MSG_MAX - RTT_MSG_HDR;
		int ret = rtt_msg_send(fd, RTT_MSG_SEND_DATA, NULL, 0, p, n);

		if (ret)
			return ret;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * rtt_net_split - split HOST:PORT
 * @arg: "host:port", "[v6 address]:port", or "port" (the local host, as
 *	trace-cmd takes it)
 * @host: receives the host
 * @hlen: its size
 * @port: receives the port (digits, 1 to 65535)
 * @plen: its size
 *
 * Return: 0 or -EINVAL.
 */
int rtt_net_split(const char *arg, char *host, size_t hlen, char *port,
		  size_t plen)
{
	const char *colon, *h = arg;
	size_t n;
	unsigned long v;

	if (!arg || !*arg)
		return -EINVAL;
	if (*arg == '[') {
		const char *end = strchr(arg, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		h = arg + 1;
		n = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(arg, ':');
		if (!colon) {
			h = "localhost";
			n = strlen(h);
			colon = arg - 1;
		} else {
			n = (size_t)(colon - arg);
		}
	}
	if (!n || n >= hlen || strlen(colon + 1) >= plen ||
	    rtt_parse_uint(colon + 1, 65535, &v) || !v)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, plen, "%lu", v);
	return 0;
}

/**
 * rtt_net_connect - connect to host:port
 * @host: the host (a name or an address)
 * @port: the port
 * @socktype: SOCK_STREAM or SOCK_DGRAM
 * @err: receives the reason of a failure
 * @errlen: its size
 *
 * Each address of the host is tried, each for at most
 * RTT_NET_TIMEOUT_MS. The socket is returned blocking, close-on-exec,
 * TCP_NODELAY for a stream (the messages are small).
 *
 * Context: blocks.
 * Return: the socket, or a negative errno after @err was filled:
 * -ENOENT (no such host), -ECONNREFUSED, -ETIMEDOUT, ...
 */
int rtt_net_connect(const char *host, const char *port, int socktype,
		    char *err, size_t errlen)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, ret = -EHOSTUNREACH, r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = socktype;
	r = getaddrinfo(host, port, &hints, &res);
	if (r) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host,
			 gai_strerror(r));
		return -ENOENT;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1, soerr = 0;
		socklen_t sl = sizeof(soerr);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
						   SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) &&
		    errno != EINPROGRESS) {
			ret = -errno;
			close(fd);
			fd = -1;
			continue;
		}
		r = rtt_net_wait(fd, POLLOUT, rtt_now_ms() + RTT_NET_TIMEOUT_MS);
		if (!r && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl))
			soerr = errno;
		if (r || soerr) {
			ret = r ? r : -soerr;
			close(fd);
			fd = -1;
			if (ret == -EINTR)
				break;
			continue;
		}
		if (socktype == SOCK_STREAM)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot connect to %s:%s: %s", host, port,
			 ret == -ECONNREFUSED ? "connection refused" :
						strerror(-ret));
		return ret;
	}
	return fd;
}
