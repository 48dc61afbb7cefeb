/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the one hash table: 64-bit keys to int values (>= 0), open
 * addressing with linear probing, grown at half full. A key may be a hash
 * of something longer (a name): then several entries can share a key, and
 * htab_next() walks them all for the caller to compare.
 */
#ifndef KMS_HTAB_H
#define KMS_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	uint64_t key;
	int64_t val; /* -1: empty */
};

/* all zeros is an empty table */
struct htab {
	struct htab_slot *s;
	size_t nslots, used;
};

void htab_free(struct htab *h);
/* the value of key, or -1 */
int htab_get(const struct htab *h, uint64_t key);
/* add key -> val (val >= 0); the key may already be there */
void htab_add(struct htab *h, uint64_t key, int val);
/*
 * Walk the values of key: pos starts at 0; returns the next value and
 * moves pos on, or -1 at the end.
 */
int htab_next(const struct htab *h, uint64_t key, size_t *pos);
uint64_t htab_hash_bytes(const void *p, size_t len);

#endif
