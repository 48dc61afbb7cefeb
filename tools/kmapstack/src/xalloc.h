/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: allocation that cannot fail: out of memory aborts (the
 * analysis is bounded by call sites, tasks and CPUs, never by events).
 */
#ifndef KMS_XALLOC_H
#define KMS_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* grow an array of elements of size to hold at least want, doubling */
void *xgrow(void *p, int *cap, int want, size_t size);
/* the same, the new elements zeroed */
void *xgrow_zero(void *p, int *cap, int want, size_t size);
char *xstrndup(const char *s, size_t n);

#endif
