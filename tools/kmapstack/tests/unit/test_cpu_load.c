// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the tasks that want the CPUs now */
#include "cpu_load.h"
#include "unit.h"

void test_cpu_load(void)
{
	long r = -1;
	double others;

	CHECK(!loadavg_running("1.59 3.38 6.51 2/133 18528\n", &r) && r == 2);
	CHECK(!loadavg_running("0.00 0.00 0.00 1/90 1", &r) && r == 1);
	CHECK(loadavg_running("0.00 0.00 0.00\n", &r));
	CHECK(loadavg_running("0.00 0.00 0.00 5/3 1\n", &r));
	CHECK(loadavg_running("", &r));
	/* this machine: a count, not an error */
	others = cpu_load_others();
	CHECK(others >= 0);
}
