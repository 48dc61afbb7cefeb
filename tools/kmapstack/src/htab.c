// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the hash table of 64-bit keys */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "xalloc.h"

static size_t slot_of(uint64_t key, size_t nslots)
{
	/* the finaliser of splitmix64: every key bit moves every slot bit */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & (nslots - 1);
}

void htab_free(struct htab *h)
{
	free(h->s);
	memset(h, 0, sizeof(*h));
}

static void put(struct htab *h, uint64_t key, int val)
{
	size_t j = slot_of(key, h->nslots);

	while (h->s[j].val >= 0)
		j = (j + 1) & (h->nslots - 1);
	h->s[j].key = key;
	h->s[j].val = val;
}

static void grow(struct htab *h)
{
	struct htab old = *h;

	h->nslots = old.nslots ? old.nslots * 2 : 256;
	h->s = xmalloc(h->nslots * sizeof(*h->s));
	memset(h->s, 0xff, h->nslots * sizeof(*h->s));
	for (size_t i = 0; i < old.nslots; i++)
		if (old.s[i].val >= 0)
			put(h, old.s[i].key, (int)old.s[i].val);
	free(old.s);
}

int htab_next(const struct htab *h, uint64_t key, size_t *pos)
{
	size_t j;

	if (!h->nslots)
		return -1;
	/* pos: 0 at the start, else the slot after the last one returned */
	j = *pos ? *pos - 1 : slot_of(key, h->nslots);
	while (h->s[j].val >= 0) {
		size_t at = j;

		j = (j + 1) & (h->nslots - 1);
		if (h->s[at].key == key) {
			*pos = j + 1;
			return (int)h->s[at].val;
		}
	}
	return -1;
}

int htab_get(const struct htab *h, uint64_t key)
{
	size_t pos = 0;

	return htab_next(h, key, &pos);
}

void htab_add(struct htab *h, uint64_t key, int val)
{
	if ((h->used + 1) * 2 > h->nslots)
		grow(h);
	put(h, key, val);
	h->used++;
}

uint64_t htab_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t x = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		x = (x ^ s[i]) * 1099511628211ULL;
	return x;
}
