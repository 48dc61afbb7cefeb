// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: times with units, the filters, the clock's unit */
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "input.h"
#include "options.h"
#include "report.h"
#include "unit.h"

static void times(void)
{
	unsigned long long ns = 0;

	CHECK(!kms_parse_time("250us", &ns) && ns == 250000);
	CHECK(!kms_parse_time("1ms", &ns) && ns == 1000000);
	CHECK(!kms_parse_time("1.5s", &ns) && ns == 1500000000ULL);
	CHECK(!kms_parse_time("42", &ns) && ns == 42000000000ULL);
	CHECK(!kms_parse_time("42ns", &ns) && ns == 42);
	/* a bare number in seconds: a timestamp as trace-cmd prints it */
	CHECK(!kms_parse_time("12.000003", &ns) && ns == 12000003000ULL);
	CHECK(kms_parse_time("", &ns));
	CHECK(kms_parse_time("ms", &ns));
	CHECK(kms_parse_time("-1s", &ns));
	CHECK(kms_parse_time(" 1s", &ns));
	CHECK(kms_parse_time("1min", &ns));
	CHECK(kms_parse_time("1 s", &ns));
	CHECK(kms_parse_time("nan", &ns));
	CHECK(kms_parse_time("1e30s", &ns));
	/* a number is digits and one point: no hex, no exponent */
	CHECK(kms_parse_time("0x10", &ns));
	CHECK(kms_parse_time("1e3", &ns));
	CHECK(kms_parse_time("1.2.3", &ns));
	CHECK(kms_parse_time("inf", &ns));
}

static void filters(void)
{
	struct kms_filter f;
	struct kms_event ev;

	memset(&f, 0, sizeof(f));
	CHECK(!filter_add_cpus(&f, "0,2-3"));
	CHECK(filter_cpu_match(&f, 0) && !filter_cpu_match(&f, 1) &&
	      filter_cpu_match(&f, 2) && filter_cpu_match(&f, 3) &&
	      !filter_cpu_match(&f, 4) && !filter_cpu_match(&f, -1) &&
	      !filter_cpu_match(&f, 100000));
	CHECK(filter_add_cpus(&f, "3-1"));
	CHECK(filter_add_cpus(&f, "1,"));
	CHECK(filter_add_cpus(&f, "8192"));
	filter_free(&f);

	CHECK(!filter_add_pids(&f, "12,34"));
	CHECK(filter_add_pids(&f, "x"));
	CHECK(filter_add_pids(&f, "99999999999"));
	CHECK(!filter_add_comms(&f, "bash,a_very_long_task_name"));
	memset(&ev, 0, sizeof(ev));
	ev.pid = 12;
	ev.comm = "bash";
	CHECK(filter_task_match(&f, &ev));
	ev.comm = "dd";
	CHECK(!filter_task_match(&f, &ev));
	/* the kernel keeps 15 bytes of a name */
	ev.pid = 34;
	ev.comm = "a_very_long_tas";
	CHECK(filter_task_match(&f, &ev));
	ev.pid = 35;
	CHECK(!filter_task_match(&f, &ev));
	filter_free(&f);

	f.have_since = f.have_until = 1;
	f.since = 100;
	f.until = 200;
	CHECK(!filter_time_match(&f, 99) && filter_time_match(&f, 100) &&
	      filter_time_match(&f, 200) && !filter_time_match(&f, 201));
	filter_free(&f);
}

static void clock_unit(void)
{
	struct input_info in[2];
	struct report_ctx rc;

	memset(in, 0, sizeof(in));
	memset(&rc, 0, sizeof(rc));
	rc.inputs = in;
	rc.ninputs = 1;
	CHECK(!strcmp(report_time_unit(&rc), "ns"));
	strcpy(in[0].clock, "mono");
	CHECK(!strcmp(report_time_unit(&rc), "ns"));
	strcpy(in[0].clock, "x86-tsc");
	CHECK(!strcmp(report_time_unit(&rc), "cycles"));
	strcpy(in[0].clock, "counter");
	CHECK(!strcmp(report_time_unit(&rc), "counts"));
	rc.ninputs = 2;
	CHECK(!strcmp(report_time_unit(&rc), "ticks"));
}

static void clock_report(void)
{
	struct kms_opts o;
	struct stats st;
	struct findings f;
	struct input_info in;
	struct report_ctx rc;
	struct hold_rec h;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	kms_opts_default(&o);
	o.have_threshold = 1;
	o.hold_threshold = 10;
	stats_init(&st, 10, 10);
	findings_init(&f, 10);
	memset(&in, 0, sizeof(in));
	strcpy(in.clock, "x86-tsc");
	memset(&h, 0, sizeof(h));
	h.ns = 1234;
	h.ts = 5000000123ULL;
	h.map_site = h.unmap_site = -1;
	if (stats_hold_time(&st, h.ns, h.map_site))
		stats_hold_keep(&st, &h);
	memset(&rc, 0, sizeof(rc));
	rc.o = &o;
	rc.st = &st;
	rc.f = &f;
	rc.inputs = &in;
	rc.ninputs = 1;
	rc.mode = MODE_STATS;
	report_text(out, &rc);
	fclose(out);
	CHECK(strstr(buf, "hold times in cycles:") != NULL);
	CHECK(strstr(buf, "Holds of 10 cycles or more: 1") != NULL);
	CHECK(strstr(buf, "1234 cycles  ") != NULL);
	/* a count, not seconds */
	CHECK(strstr(buf, " at 5000000123") != NULL);
	CHECK(strstr(buf, " ns") == NULL);
	free(buf);
	findings_free(&f);
	stats_free(&st);
}

static void live_instance(void)
{
	char a[64], b[64];

	input_live_instance_name(a, sizeof(a), 1234);
	input_live_instance_name(b, sizeof(b), 1235);
	CHECK(!strcmp(a, "kmapstack-1234"));
	CHECK(strcmp(a, b));
}

void test_options(void)
{
	live_instance();
	times();
	filters();
	clock_unit();
	clock_report();
}
