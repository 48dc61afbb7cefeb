/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the parser of one line of trace text, as printed by
 * `trace-cmd report` (with or without -l) and by /sys/kernel/tracing/trace:
 *
 *   bash-1234  [001] d.h1.  1234.567890: kmap_push: caller=f+0x1a/0x80 ...
 *   CPU:1 [LOST 42 EVENTS]        CPU:1 [42 EVENTS DROPPED]
 */
#ifndef KMS_TEXT_PARSE_H
#define KMS_TEXT_PARSE_H

#include "kms.h"

enum text_line_kind {
	TL_OTHER, /* a line of something else: ignored */
	TL_EVENT,
	TL_LOST,
	TL_BAD, /* a kmap_stack line that cannot be parsed */
};

struct text_line {
	struct kms_event ev; /* TL_EVENT; call sites interned */
	char comm[17];
	int lost_cpu; /* TL_LOST */
	long long lost; /* TL_LOST, -1 unknown */
	int ts_digits; /* TL_EVENT: the digits of the second's fraction */
};

/* line: NUL-terminated, without its newline; cut up in place */
int text_parse_line(char *line, struct text_line *out);

#endif
