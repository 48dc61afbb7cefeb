/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: the command line options that the analysis depends on */
#ifndef KMS_OPTIONS_H
#define KMS_OPTIONS_H

struct kms_opts {
	int max_findings; /* findings kept in detail; the rest are counted */
	int have_threshold;
	unsigned long long hold_threshold; /* ns */
	int top; /* longest holds kept */
	int strict; /* mappings held at the end of the trace are violations */
	int progress; /* progress indicator on stderr */
	int paths; /* keep the nesting paths (--folded) */
};

void kms_opts_default(struct kms_opts *o);
/*
 * A time: digits with one point at most, then ns, us, ms or s; a bare
 * number is seconds. 0, or -1 if s is not one.
 */
int kms_parse_time(const char *s, unsigned long long *ns);

#endif
