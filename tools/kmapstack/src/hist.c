// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the log-linear histogram of hold times */
#include <math.h>
#include <stdlib.h>

#include "xalloc.h"
#include "hist.h"

int hist_index(uint64_t v)
{
	int msb, shift;

	if (v < 2 * HIST_SUB)
		return (int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	if (shift > HIST_MAX_SHIFT - 1)
		return HIST_BUCKETS - 1;
	return 2 * HIST_SUB + (shift - 1) * HIST_SUB +
	       (int)((v >> shift) - HIST_SUB);
}

uint64_t hist_bucket_lo(int i)
{
	int shift;

	if (i < 2 * HIST_SUB)
		return (uint64_t)i;
	shift = (i - 2 * HIST_SUB) / HIST_SUB + 1;
	return (uint64_t)(HIST_SUB + (i - 2 * HIST_SUB) % HIST_SUB) << shift;
}

uint64_t hist_bucket_hi(int i)
{
	return i >= HIST_BUCKETS - 1 ? UINT64_MAX : hist_bucket_lo(i + 1) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	if (!h->b)
		h->b = xcalloc(HIST_BUCKETS, sizeof(*h->b));
	h->min = !h->count || v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	h->count++;
	h->sum += v;
	h->b[hist_index(v)]++;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	int i;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* the smallest value with at least q * count values at or below */
	rank = (uint64_t)ceil(q * (double)h->count);
	rank = rank ? rank : 1;
	for (i = 0; i < HIST_BUCKETS && seen + h->b[i] < rank; i++)
		seen += h->b[i];
	if (i >= HIST_BUCKETS)
		return h->max;
	v = hist_bucket_lo(i) + (hist_bucket_hi(i) - hist_bucket_lo(i)) / 2;
	if (i == HIST_BUCKETS - 1 || v > h->max)
		return h->max;
	return v < h->min ? h->min : v;
}

void hist_free(struct hist *h)
{
	free(h->b);
	h->b = NULL;
	h->count = 0;
}
