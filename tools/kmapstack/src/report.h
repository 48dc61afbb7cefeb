/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: the outputs: text, JSON, folded stacks, SVG */
#ifndef KMS_REPORT_H
#define KMS_REPORT_H

#include <stdio.h>

#include "findings.h"
#include "input.h"
#include "options.h"
#include "stats.h"

enum report_mode {
	MODE_REPORT, /* violations, cross-check, gaps, statistics */
	MODE_CHECK, /* violations only, nothing when clean */
	MODE_STATS, /* statistics */
};

struct report_ctx {
	const struct kms_opts *o;
	struct stats *st;
	struct findings *f;
	struct input_info *inputs;
	int ninputs;
	int mode;
	int filtered; /* --pid, --comm, --cpu, --since or --until given */
};

void report_text(FILE *out, struct report_ctx *rc);
void report_json(FILE *out, struct report_ctx *rc);
void report_folded(FILE *out, struct report_ctx *rc);
void report_svg(FILE *out, struct report_ctx *rc);
/* the unit of the inputs' timestamps: ns unless the trace clock counts */
const char *report_time_unit(const struct report_ctx *rc);

#endif
