/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * net.h - recording over the network with trace-cmd's protocol (version
 *	3): the framed messages (net_msg.c), record -N's connection to a
 *	trace-cmd listen (net.c) and the agent that trace-cmd record -A
 *	drives (agent.c)
 *
 * The protocol as trace-cmd 3.1.6 speaks it. A connection starts with a
 * handshake of plain bytes: the listener says "tracecmd", the client
 * answers "-1V3\0" (a cpu count of -1: not the first protocol), the
 * listener "V3\0", the client the magic "766679\0\0", the listener "OK".
 * Then every exchange is a message: a header of three big-endian u32
 * (the whole message's size, at most RTT_MSG_MAX; the command; the size
 * of the command's fixed part), the fixed part, then the payload.
 *
 *	TINIT	 client: cpus, page size, options ("tcp": the data streams
 *		 are TCP connections, not UDP datagrams)
 *	RINIT	 listener: cpus, then a port per cpu ("1500\0 1501\0...")
 *	SEND_DATA the trace.dat's metadata, in pieces
 *	FIN_DATA  the end of the metadata
 *	CLOSE	 the end of the recording
 *	TRACE_REQ host to agent: flags, argc, the session id; parameters
 *		 (id, length, value): the record arguments, the time sync
 *		 protocols the host knows
 *	TRACE_RESP agent: flags, cpus, page size, its session id, the time
 *		 sync protocol chosen (16 bytes), its port; a port per cpu
 *	CLOSE_RESP agent: the answer to CLOSE, once every page is sent
 *	TIME_SYNC protocol name (16 bytes), message id; a payload
 *	NOT_SUPP  the answer to a message one side does not know
 *
 * The pages of each cpu go to their own port: a TCP stream of whole
 * pages, or one UDP datagram per page.
 */
#ifndef RTT_NET_H
#define RTT_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"

/* The largest message, header included. */
#define RTT_MSG_MAX 8192u
#define RTT_MSG_HDR 12u
/* The largest fixed part a message may have (TRACE_RESP's is 40). */
#define RTT_MSG_FIXED_MAX 64u

enum rtt_msg_cmd {
	RTT_MSG_CLOSE = 0,
	RTT_MSG_TINIT = 1,
	RTT_MSG_RINIT = 2,
	RTT_MSG_SEND_DATA = 3,
	RTT_MSG_FIN_DATA = 4,
	RTT_MSG_NOT_SUPP = 5,
	RTT_MSG_TRACE_REQ = 6,
	RTT_MSG_TRACE_RESP = 7,
	RTT_MSG_CLOSE_RESP = 8,
	RTT_MSG_TIME_SYNC = 9,
	RTT_MSG_TRACE_PROXY = 10,
	RTT_MSG_CONT = 11,
	RTT_MSG_NR
};

/* The length of a time sync protocol's name in TRACE_RESP and TIME_SYNC. */
#define RTT_TSYNC_NAME 16u

/* How long one step of a conversation may take before the peer is
 * taken for gone (ms): RINGTRACE_NET_TIMEOUT_MS, or 10000. */
extern struct rtt_timeout rtt_net_timeout;
#define RTT_NET_TIMEOUT_MS rtt_timeout_ms(&rtt_net_timeout)

/**
 * struct rtt_msg - one message received
 * @cmd: its command
 * @fixed: its fixed part (@nfixed bytes, the rest zero)
 * @data: its payload (@len bytes, in @buf)
 */
struct rtt_msg {
	uint32_t cmd;
	uint32_t nfixed;
	unsigned char fixed[RTT_MSG_FIXED_MAX];
	unsigned char *data;
	size_t len;
	unsigned char buf[RTT_MSG_MAX];
};

/* net_msg.c */
void rtt_put_be32(unsigned char *p, uint32_t v);
void rtt_put_be64(unsigned char *p, uint64_t v);
uint32_t rtt_get_be32(const unsigned char *p);
uint64_t rtt_get_be64(const unsigned char *p);
int rtt_net_write(int fd, const void *buf, size_t len, int timeout_ms);
int rtt_net_read(int fd, void *buf, size_t len, int timeout_ms);
int rtt_msg_send(int fd, uint32_t cmd, const void *fixed, size_t nfixed,
		 const void *data, size_t len);
int rtt_msg_recv(int fd, struct rtt_msg *m, int timeout_ms);
int rtt_msg_send_data(int fd, const void *buf, size_t len);
const char *rtt_msg_name(uint32_t cmd);
int rtt_net_split(const char *arg, char *host, size_t hlen, char *port,
		  size_t plen);
int rtt_net_connect(const char *host, const char *port, int socktype,
		    char *err, size_t errlen);
void rtt_net_nonblock(int fd);

/* net.c: record -N */
struct rtt_net;
struct td_writer;
int rtt_net_open(const char *where, bool tcp, struct rtt_net **out);
int rtt_net_start(struct rtt_net *n, struct td_writer *w,
		  unsigned int page_size, int nr_cpus);
int rtt_net_meta(struct rtt_net *n, struct td_writer *w, bool all);
void *rtt_net_slot(struct rtt_net *n, int cpu);
int rtt_net_commit(struct rtt_net *n, int cpu);
int rtt_net_push(struct rtt_net *n, int timeout_ms);
bool rtt_net_full(const struct rtt_net *n);
int rtt_net_finish(struct rtt_net *n);
void rtt_net_free(struct rtt_net *n);
const char *rtt_net_where(const struct rtt_net *n);
uint64_t rtt_net_sent(const struct rtt_net *n);
bool rtt_net_tcp(const struct rtt_net *n);
int rtt_net_stream_fds(struct rtt_net *n, const int *fds, bool tcp,
		       unsigned int page_size, int nr_cpus);
struct rtt_net *rtt_net_alloc(const char *where);

#endif
