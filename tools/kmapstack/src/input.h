/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the inputs. Each feeds one replay with events in timestamp
 * order and reports lost events; they return 0, or -1 with one line in
 * err for an input that cannot be read.
 */
#ifndef KMS_INPUT_H
#define KMS_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "replay.h"

enum input_kind {
	INPUT_TRACEDAT,
	INPUT_TEXT,
	INPUT_LIVE,
	INPUT_PERF, /* perf.data: read through perf script */
};

/* an opened input: its kind and the first bytes already read */
struct input_src {
	int fd;
	int kind;
	int regular;
	unsigned long long size; /* bytes, as far as known */
	char path[4096]; /* for the trace libraries: may be /proc/self/fd/N */
	unsigned char head[4096];
	size_t nhead;
};

struct input_info {
	const char *path;
	int kind; /* enum input_kind */
	long long records; /* kmap_stack records */
	long long bad_records; /* malformed, skipped */
	int ts_digits; /* text: the fewest digits of a second's fraction */
	int progress; /* show progress on stderr */
	unsigned long long last_ts; /* of the last event */
	char clock[32]; /* the trace clock, "" if not known (then ns) */
	char error[1024]; /* why it could not be read to its end, or "" */
};

/* the unit of the input's timestamps, by its trace clock */
const char *input_time_unit(const struct input_info *info);

/*
 * open path ('-': stdin) and tell its kind; input_close() after, also when
 * it fails. info gives the name and whether to show progress.
 */
int input_open(const char *path, const struct input_info *info,
	       struct input_src *src, char *err, size_t errlen);
void input_close(struct input_src *src);
/*
 * tracedat_check() - do the sections of the file at fd fit in its size?
 * @why: the reason of a refusal, one line without the file's name
 *
 * Asked before the trace libraries read the file. In a version 7 file
 * (trace-cmd.dat(5)) the sections follow the file header one after the
 * other up to the end of the file; a file cut short has a section that ends
 * past its end, and a file whose tail was never written (zeros) has a
 * section header of zeros, which libtracecmd would read 16 bytes at a time
 * to the end. A file of another version passes. Returns 0, or -1 when it
 * is refused.
 */
int tracedat_check(int fd, unsigned long long size, char *why, size_t whylen);
/*
 * A trace.dat, read in a child process that streams the decoded events
 * (tracedat.h): a crash or an endless loop of the trace libraries on a
 * corrupt file is a clear error here.
 */
int input_tracedat(struct input_src *src, struct replay *r,
		   struct input_info *info, char *err, size_t errlen);
/* text from src->fd, after its head */
int input_text(struct input_src *src, struct replay *r, struct input_info *info,
	       char *err, size_t errlen);
/* a perf.data, through the text of perf script */
int input_perf(struct input_src *src, struct replay *r, struct input_info *info,
	       char *err, size_t errlen);
/* one line of text, NUL-terminated where its newline was, len bytes */
void input_text_line(char *line, size_t len, struct replay *r,
		     struct input_info *info);

struct findings;

struct live_opts {
	const char *tracefs; /* NULL: where tracefs is mounted */
	unsigned long long duration; /* ns, 0: until SIGINT or SIGTERM */
	int buffer_kb; /* the ring buffer of each CPU, 0: as it is */
	/* each new finding is printed on stream as it is found, if set */
	const struct findings *findings;
	FILE *stream;
};

/* the tracefs instance of a live run: kmapstack-PID, one per process */
void input_live_instance_name(char *buf, size_t len, int pid);

int input_live(const struct live_opts *lo, struct replay *r,
	       struct input_info *info, char *err, size_t errlen);

#endif
