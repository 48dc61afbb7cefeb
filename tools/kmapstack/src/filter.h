/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the event filters of every command (--pid, --comm, --cpu,
 * --since, --until), checked once at the top of the replay. An event left
 * out by --pid, --comm or --cpu makes the stack that it would have changed
 * unsynchronised (as after lost events), so the events kept are never
 * misjudged for want of the others; --since and --until cut the trace.
 */
#ifndef KMS_FILTER_H
#define KMS_FILTER_H

#include "kms.h"

struct kms_filter {
	int active; /* any filter set */
	int by_task; /* --pid, --comm or --cpu */
	int *pids;
	int npids;
	char **comms;
	int ncomms;
	unsigned char *cpus; /* bitmap of FILTER_MAX_CPUS, NULL: all */
	int have_since, have_until;
	unsigned long long since, until; /* trace time */
};

#define FILTER_MAX_CPUS 8192

/* "1,2,3"; 0, or -1 for a bad list */
int filter_add_pids(struct kms_filter *f, const char *list);
/* "bash,kworker/0:1" */
int filter_add_comms(struct kms_filter *f, const char *list);
/* "0,2-3" */
int filter_add_cpus(struct kms_filter *f, const char *list);
void filter_free(struct kms_filter *f);

/* the event's comm, asked only when --comm is set */
int filter_time_match(const struct kms_filter *f, unsigned long long ts);
int filter_task_match(const struct kms_filter *f, const struct kms_event *ev);

static inline int filter_cpu_match(const struct kms_filter *f, int cpu)
{
	return !f->cpus || (cpu >= 0 && cpu < FILTER_MAX_CPUS &&
			    (f->cpus[cpu >> 3] & (1u << (cpu & 7))));
}

#endif
