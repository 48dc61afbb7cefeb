/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a trace.dat is read by libtracecmd and libtraceevent in one
 * pass (tracedat_pass.c) that writes its records as messages (below).
 * kmapstack runs that pass in a child process (tracedat_child.c), and this
 * one replays the messages as they come (tracedat_stream.c): a crash or an
 * endless loop of the libraries on a corrupt file ends the child, and the
 * error says how.
 */
#ifndef KMS_TRACEDAT_H
#define KMS_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"

/*
 * The child's messages: it fills two buffers shared with this process in
 * turn, says on one pipe that a buffer is full (struct wire_full) and fills
 * it again once given back, a byte on the other pipe. A buffer holds whole
 * messages, each a head and len bytes, then up to 7 bytes of padding to the
 * next multiple of 8 (messages are filled in place). The reader checks
 * every length, index and field before use.
 */
#define WIRE_ALIGN(n) (((n) + 7) & ~(size_t)7)
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
	uint32_t len; /* of what follows, without the padding */
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

/* a message at most: a record (struct wire_rec, DEC_MAX_RECORD), a name */
#define WIRE_MAX_LEN 8192

#define WIRE_BUF_SIZE (1 << 20)

struct wire_bufs {
	_Alignas(8) unsigned char buf[2][WIRE_BUF_SIZE];
};

/* buffer i holds len bytes of messages */
struct wire_full {
	uint32_t i, len;
};

/* where the pass writes: the buffers of memory shared with this process */
struct dat_writer {
	struct wire_bufs *b;
	int cur; /* the buffer being filled, with n bytes */
	size_t n;
	/* a full buffer: hand it over (the child) or read it (in process) */
	void (*flush)(struct dat_writer *w);
	void *priv;
	int sites_sent;
	unsigned char *pid_sent; /* a bit per pid below DAT_PID_BITS */
};

#define DAT_PID_BITS (1 << 22)

/*
 * tracedat_pass() - every record of the trace.dat at path, as messages
 * @name: the input's name for messages
 * @last: the process ends after it: close nothing
 *
 * Ends with W_END: the counts of records, and the error if there is one.
 */
void tracedat_pass(const char *path, const char *name, struct dat_writer *w,
		   int last);

/* this process's side of the child's messages: replays what it reads */
struct dat_stream;

/* size: of the file, for the progress line */
struct dat_stream *dat_stream_new(struct replay *r, struct input_info *info,
				  unsigned long long size);
/*
 * The messages of one buffer, len bytes: 1 at W_END (err set if the pass
 * failed), 0 when more are to come, -1 on a malformed message.
 */
int dat_stream_buffer(struct dat_stream *s, const unsigned char *buf,
		      size_t len, char *err, size_t errlen);
/*
 * The buffers of b as the child says on full_fd that they are full, each
 * given back on free_fd, until the child's end. Returns as
 * dat_stream_buffer(), or 0 when the child went away before W_END.
 */
int dat_stream_run(struct dat_stream *s, const struct wire_bufs *b, int full_fd,
		   int free_fd, char *err, size_t errlen);
void dat_stream_free(struct dat_stream *s);

#endif
