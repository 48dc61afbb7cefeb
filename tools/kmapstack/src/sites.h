/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the call-site table. A call site is named the way %pS prints
 * it ("func+0x1a/0x80", or "0xffff..." when it cannot be resolved) and
 * interned once; events carry the index.
 */
#ifndef KMS_SITES_H
#define KMS_SITES_H

#include <stddef.h>

int sites_intern(const char *name, size_t len);
const char *sites_name(int site);
int sites_count(void);
void sites_reset(void);

#endif
