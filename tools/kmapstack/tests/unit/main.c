// SPDX-License-Identifier: GPL-2.0
/* kmapstack unit tests: the runner */
#include "unit.h"

int unit_passed, unit_failed;

int main(void)
{
	test_hist();
	test_sites();
	test_text_parse();
	test_replay();
	test_options();
	printf("unit: %d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}
