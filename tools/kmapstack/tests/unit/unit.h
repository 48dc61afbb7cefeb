/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack unit tests: a minimal harness */
#ifndef KMS_UNIT_H
#define KMS_UNIT_H

#include <stdio.h>

extern int unit_passed, unit_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			unit_passed++;                                         \
		} else {                                                       \
			unit_failed++;                                         \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                              \
	} while (0)

void test_hist(void);
void test_text_parse(void);
void test_replay(void);
void test_sites(void);
void test_options(void);

#endif
