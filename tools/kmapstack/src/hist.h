/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded log-linear histogram of durations (ns): values below 64 are
 * exact, above that each power of two is cut into 32 buckets, so a
 * quantile is within 1/32 (3%) of the truth. Values beyond 2^40 ns (18
 * minutes) land in the last bucket. Fixed size, whatever the count.
 */
#ifndef KMS_HIST_H
#define KMS_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_SUB (1 << HIST_SUB_BITS)
#define HIST_MAX_SHIFT 35
#define HIST_BUCKETS (2 * HIST_SUB + (HIST_MAX_SHIFT - 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t *b; /* HIST_BUCKETS counters, allocated on first add */
};

void hist_add(struct hist *h, uint64_t v);
/* the value at quantile q (0..1), clamped to [min, max]; 0 if empty */
uint64_t hist_quantile(const struct hist *h, double q);
void hist_free(struct hist *h);
int hist_index(uint64_t v);
/* the lowest and highest value that fall in bucket i */
uint64_t hist_bucket_lo(int i);
uint64_t hist_bucket_hi(int i);

#endif
