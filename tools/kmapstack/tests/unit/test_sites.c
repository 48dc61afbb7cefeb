// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the call-site table */
#include <stdio.h>
#include <string.h>

#include "kms.h"
#include "sites.h"
#include "unit.h"

void test_sites(void)
{
	char buf[32];
	int a, b, ok = 1;

	sites_reset();
	a = sites_intern("foo+0x10", 8);
	b = sites_intern("foo+0x10/0x40", 8);
	CHECK(a == b);
	CHECK(!strcmp(sites_name(a), "foo+0x10"));
	CHECK(sites_intern("bar", 3) != a);
	CHECK(!strcmp(sites_name(KMS_NO_SITE), "[unknown]"));
	/* survives growth */
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "f%d+0x%x", i, i);
		if (sites_intern(buf, strlen(buf)) != i + 2)
			ok = 0;
	}
	CHECK(ok);
	CHECK(sites_intern("foo+0x10", 8) == a);
	CHECK(!strcmp(sites_name(4001), "f3999+0xf9f"));
	CHECK(sites_count() == 5002);
	/* a NUL inside the span ends the name (found by fuzz_text) */
	CHECK(sites_intern("foo+0x10\0zz", 11) == a);
	CHECK(sites_intern("ba\0r", 4) == sites_intern("ba", 2));
	CHECK(sites_count() == 5003);
	CHECK(!strcmp(kms_kind_name(KMS_CROSS_CONTEXT), "cross_context"));
	CHECK(kms_kind_from_name("leak_exit") == KMS_LEAK_EXIT);
	CHECK(kms_leak_kind_ctx(KMS_LEAK_SOFTIRQ) == KMS_CTX_SOFTIRQ);
	/* the second series: contiguous kinds, tasklet and timer gone */
	CHECK(kms_kind_from_name("leak_module") == 13);
	CHECK(kms_kind_from_name("flavour") == 7);
	CHECK(kms_kind_from_name("depth") == 8);
	CHECK(kms_kind_from_name("leak_tasklet") == KMS_LEAK_SOFTIRQ);
	CHECK(kms_kind_is_report_only(KMS_LEAK_MODULE));
	CHECK(!kms_kind_is_leak(KMS_LEAK_MODULE));
	sites_reset();
}
