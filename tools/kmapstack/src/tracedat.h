/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: a trace.dat is read by libtracecmd and libtraceevent in one
 * pass (tracedat_pass.c) that hands its events to a sink. kmapstack runs
 * that pass in a child process (tracedat_child.c), which streams the
 * events to this one through a pipe (tracedat_wire.h, tracedat_stream.c):
 * a crash or an endless loop of the libraries on a corrupt file ends the
 * child, and the error says how it ended.
 */
#ifndef KMS_TRACEDAT_H
#define KMS_TRACEDAT_H

#include <stddef.h>

#include "decode.h"
#include "input.h"
#include "kms.h"

/*
 * A kmap_stack record, decoded as far as the trace libraries are needed:
 * the event, the task and the call sites' names. The rest is decoded from
 * data with the layout of the formats (dec_fields()), in another process.
 */
struct dat_rec {
	int e; /* 0 push, 1 pop, 2 violation */
	int cpu, pid;
	unsigned long long ts;
	int caller, map_caller, top_caller; /* sites; the last two: violation */
	const void *data; /* the record, its first size bytes */
	int size; /* the event's min_size in the layout */
};

struct dat_sink {
	/* before the first record: where the fields are */
	void (*layout)(void *priv, const struct dec_layout *l);
	/* each record; comm: the pid's command (from the trace) */
	void (*record)(void *priv, const struct dat_rec *rec,
		       const char *(*comm)(void *tep, int pid), void *tep);
	void (*lost)(void *priv, int cpu, unsigned long long ts,
		     long long missed);
	/* bytes of the file's event data read so far */
	void (*progress)(void *priv, unsigned long long done);
	/* the trace clock of the file (trace-cmd record -C), may be NULL */
	void (*clock)(void *priv, const char *clock);
	void *priv;
	/* the process ends after the pass: close nothing */
	int last_pass;
};

/*
 * tracedat_pass() - every record of the trace.dat at path into the sink
 * @name: the input's name for messages
 *
 * Counts the kmap_stack records in info. Returns 0, or -1 with one line in
 * err.
 */
int tracedat_pass(const char *path, const char *name,
		  const struct dat_sink *sink, struct input_info *info,
		  char *err, size_t errlen);

/* rec as an event: 0, or -1 for a malformed record */
int dat_rec_event(const struct dec_layout *l, const struct dat_rec *rec,
		  struct kms_event *ev);

/* the parent's side of the child's messages: replays what it reads */
struct dat_stream;
struct wire_bufs;

/* size: of the file, for the progress line */
struct dat_stream *dat_stream_new(struct replay *r, struct input_info *info,
				  unsigned long long size);
/*
 * The buffers of b as the child says on full_fd that they are full, each
 * given back on free_fd (tracedat_wire.h), until the child's end: the
 * events are replayed, the rest goes to info. Returns 1 when the child
 * said its pass ended (err set if it failed), 0 when it went away before
 * that, -1 on a malformed message.
 */
int dat_stream_run(struct dat_stream *s, const struct wire_bufs *b, int full_fd,
		   int free_fd, char *err, size_t errlen);
void dat_stream_free(struct dat_stream *s);

#endif
