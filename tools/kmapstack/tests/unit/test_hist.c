// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the log-linear histogram */
#include <stdint.h>

#include "hist.h"
#include "unit.h"

void test_hist(void)
{
	struct hist h = { 0 };
	int ok = 1;

	/* every value lands in a bucket that contains it */
	for (uint64_t v = 0; v < 200000; v += 7) {
		int i = hist_index(v);

		if (i < 0 || i >= HIST_BUCKETS || hist_bucket_lo(i) > v ||
		    hist_bucket_hi(i) < v)
			ok = 0;
	}
	CHECK(ok);
	CHECK(hist_index(63) == 63);
	CHECK(hist_index(64) == 64);
	CHECK(hist_bucket_lo(hist_index(1000000)) <= 1000000);
	CHECK(hist_index(UINT64_MAX) == HIST_BUCKETS - 1);
	/* buckets are within 1/32 of their value */
	CHECK(hist_bucket_hi(hist_index(1000000)) -
		      hist_bucket_lo(hist_index(1000000)) <
	      1000000 / 32);

	CHECK(hist_quantile(&h, 0.5) == 0);
	for (uint64_t v = 1; v <= 10000; v++)
		hist_add(&h, v * 100);
	CHECK(h.count == 10000);
	CHECK(h.min == 100 && h.max == 1000000);
	CHECK(hist_quantile(&h, 0) == 100);
	CHECK(hist_quantile(&h, 1) == 1000000);
	{
		uint64_t m = hist_quantile(&h, 0.5);
		uint64_t p = hist_quantile(&h, 0.99);

		CHECK(m >= 500000 * 0.97 && m <= 500000 * 1.03);
		CHECK(p >= 990000 * 0.97 && p <= 990000 * 1.03);
	}
	/* a single value is exact */
	{
		struct hist one = { 0 };

		hist_add(&one, 123456789);
		CHECK(hist_quantile(&one, 0.5) == 123456789);
		CHECK(hist_quantile(&one, 0.99) == 123456789);
		hist_free(&one);
	}
	hist_free(&h);
}
