/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a trace.dat is read by libtracecmd and libtraceevent in one
 * pass (tracedat_pass.c) that writes its records as messages
 * (tracedat_wire.h). kmapstack runs that pass in a child process
 * (tracedat_child.c), and this one replays the messages as they come
 * (tracedat_stream.c): a crash or an endless loop of the libraries on a
 * corrupt file ends the child, and the error says how.
 */
#ifndef KMS_TRACEDAT_H
#define KMS_TRACEDAT_H

#include <stddef.h>

#include "input.h"

struct wire_bufs;

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
 * given back on free_fd (tracedat_wire.h), until the child's end. Returns
 * as dat_stream_buffer(), or 0 when the child went away before W_END.
 */
int dat_stream_run(struct dat_stream *s, const struct wire_bufs *b, int full_fd,
		   int free_fd, char *err, size_t errlen);
void dat_stream_free(struct dat_stream *s);

#endif
