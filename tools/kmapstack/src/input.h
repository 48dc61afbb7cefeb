/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the inputs. Each feeds one replay with events in timestamp
 * order and reports lost events; they return 0, or -1 with one line in
 * err for an input that cannot be read.
 */
#ifndef KMS_INPUT_H
#define KMS_INPUT_H

#include <stddef.h>

#include "replay.h"

enum input_kind {
	INPUT_TRACEDAT,
	INPUT_TEXT,
	INPUT_LIVE,
};

struct input_info {
	const char *path;
	int kind; /* enum input_kind */
	long long records; /* kmap_stack records */
	long long bad_records; /* malformed, skipped */
	long long lines; /* text: lines read */
	int progress; /* show progress on stderr */
	unsigned long long last_ts; /* of the last event */
};

/* what a file is, by its first bytes: INPUT_TRACEDAT, INPUT_TEXT or -1 */
int input_detect(const char *path, char *err, size_t errlen);
int input_tracedat(const char *path, struct replay *r, struct input_info *info,
		   char *err, size_t errlen);
int input_text(const char *path, struct replay *r, struct input_info *info,
	       char *err, size_t errlen);
/* text from a buffer, for the fuzzer and the unit tests */
int input_text_buffer(const char *buf, size_t len, struct replay *r,
		      struct input_info *info, char *err, size_t errlen);

struct live_opts {
	const char *tracefs; /* NULL: where tracefs is mounted */
	double duration; /* seconds, 0: until SIGINT */
};

int input_live(const struct live_opts *lo, struct replay *r,
	       struct input_info *info, char *err, size_t errlen);

#endif
