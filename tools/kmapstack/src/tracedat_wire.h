/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: how the child that reads a trace.dat (tracedat_child.c) hands
 * its messages to this process (tracedat_stream.c). It fills two buffers of
 * memory shared with this process in turn; on one pipe it says that a
 * buffer is full (struct wire_full), and it fills a buffer again only when
 * this process has given it back, a byte on the other pipe. A buffer holds
 * whole messages, each a head and len bytes. The reader checks every
 * length, index and field before use.
 */
#ifndef KMS_TRACEDAT_WIRE_H
#define KMS_TRACEDAT_WIRE_H

#include <stdint.h>

enum wire_type {
	W_REC = 1, /* struct wire_rec, then the record's first size bytes */
	W_LAYOUT, /* struct dec_layout */
	W_SITE, /* int32 the child's site index, then its name */
	W_COMM, /* int32 pid, then its command */
	W_LOST, /* struct wire_lost */
	W_CLOCK, /* the trace clock's name */
	W_PROGRESS, /* uint64 bytes done */
	W_END, /* int64 records, int64 malformed records, then an error */
};

struct wire_head {
	uint32_t type;
	uint32_t len; /* of what follows */
};

/* a kmap_stack record, decoded as far as the trace libraries are needed */
struct wire_rec {
	uint64_t ts;
	int32_t cpu, pid, caller, map_caller, top_caller;
	uint16_t e; /* 0 push, 1 pop, 2 violation */
	uint16_t size; /* of the record's bytes that follow: min_size */
};

struct wire_lost {
	uint64_t ts;
	int64_t missed;
	int32_t cpu, spare;
};

/* a message at most: a record (DEC_MAX_RECORD) and its head, a name */
#define WIRE_MAX_LEN 8192

#define WIRE_BUF_SIZE (1 << 20)

struct wire_bufs {
	unsigned char buf[2][WIRE_BUF_SIZE];
};

/* buffer i holds len bytes of messages */
struct wire_full {
	uint32_t i, len;
};

#endif
