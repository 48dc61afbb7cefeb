// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the call-site table (interned names) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kms.h"
#include "sites.h"

static char **names;
static int nr_names, cap_names;
static int *slots; /* open addressing: site index + 1, 0 empty */
static size_t nr_slots;

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		abort();
	return p;
}

static void rehash(void)
{
	size_t n = nr_slots ? nr_slots * 2 : 256;

	free(slots);
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		abort();
	nr_slots = n;
	for (int i = 0; i < nr_names; i++) {
		size_t j = hash_str(names[i], strlen(names[i])) & (n - 1);

		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = i + 1;
	}
}

int sites_intern(const char *name, size_t len)
{
	size_t j;

	/* a name ends at a NUL byte (text input may carry one) */
	len = strnlen(name, len);
	if (!nr_slots || (size_t)(nr_names + 1) * 2 > nr_slots)
		rehash();
	j = hash_str(name, len) & (nr_slots - 1);
	while (slots[j]) {
		const char *s = names[slots[j] - 1];

		if (!strncmp(s, name, len) && s[len] == '\0')
			return slots[j] - 1;
		j = (j + 1) & (nr_slots - 1);
	}
	if (nr_names == cap_names) {
		cap_names = cap_names ? cap_names * 2 : 256;
		names = xrealloc(names, sizeof(*names) * cap_names);
	}
	names[nr_names] = xrealloc(NULL, len + 1);
	memcpy(names[nr_names], name, len);
	names[nr_names][len] = '\0';
	slots[j] = nr_names + 1;
	return nr_names++;
}

const char *sites_name(int site)
{
	if (site < 0 || site >= nr_names)
		return "[unknown]";
	return names[site];
}

int sites_count(void)
{
	return nr_names;
}

void sites_reset(void)
{
	for (int i = 0; i < nr_names; i++)
		free(names[i]);
	free(names);
	free(slots);
	names = NULL;
	slots = NULL;
	nr_names = cap_names = 0;
	nr_slots = 0;
}
