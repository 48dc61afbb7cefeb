/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the replay of kmap_push/kmap_pop that rebuilds the kernel's
 * shadow stacks (one per task for task context, one per CPU for each
 * interrupt context), finds the violations on its own and cross-checks
 * them against the kernel's kmap_violation events, knowing what the
 * kernel does not check when its stack is full (16 entries, overflow).
 *
 * Events must come in timestamp order. A stack whose history is not fully
 * known (at the start of the trace, or after the ring buffer lost events on
 * its CPU) is "unsynchronised": it follows the depth field of the events
 * and reports nothing until it has been empty once.
 */
#ifndef KMS_REPLAY_H
#define KMS_REPLAY_H

#include "findings.h"
#include "kms.h"
#include "stats.h"

#define REPLAY_MAX_CPUS 8192 /* NR_CPUS at most */

struct replay;

struct kms_filter;

/* of input file; filt (filter.h, NULL: every event) outlives the replay */
struct replay *replay_new(struct stats *st, struct findings *f, int file,
			  const struct kms_filter *filt);
void replay_event(struct replay *r, const struct kms_event *ev);
/* the ring buffer of a CPU lost events before ts; missed -1: unknown */
void replay_lost(struct replay *r, int cpu, unsigned long long ts,
		 long long missed);
/* end of the trace: mappings still held, kernel reports left over */
void replay_finish(struct replay *r);
void replay_free(struct replay *r);

#endif
