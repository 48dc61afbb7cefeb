/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: the command line: its options, their help, their values */
#ifndef KMS_OPTIONS_H
#define KMS_OPTIONS_H

#include "filter.h"
#include "input.h"

#define EXIT_VIOLATIONS 1
#define EXIT_USAGE 2

/* the options that the analysis depends on */
struct kms_opts {
	int max_findings; /* findings kept in detail; the rest are counted */
	int have_threshold;
	unsigned long long hold_threshold; /* ns */
	int top; /* longest holds kept */
	int strict; /* mappings held at the end of the trace are violations */
	int progress; /* progress indicator on stderr */
};

struct cmdline {
	unsigned int kinds; /* --kind: a bit per kind */
	int mode; /* enum report_mode */
	int fail_on_gaps;
	int live;
	int json, folded, svg;
	const char *output, *kallsyms;
	char **files;
	int nfiles;
	struct live_opts lo;
	struct kms_opts o;
	struct kms_filter filter;
};

/*
 * The command line of kmapstack report, check, stats or live into *cmd,
 * which cmdline_free() frees. Returns 0, or the exit status to end with
 * at once: -1 for 0 (the help was printed), else EXIT_USAGE (with a
 * message).
 */
int cmdline_parse(int argc, char **argv, struct cmdline **cmd);
void cmdline_free(void);

void kms_opts_default(struct kms_opts *o);
/*
 * A time: digits with one point at most, then ns, us, ms or s; a bare
 * number is seconds. 0, or -1 if s is not one.
 */
int kms_parse_time(const char *s, unsigned long long *ns);

#endif
