// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the call-site table (interned names) */
#include <stdlib.h>
#include <string.h>

#include "htab.h"
#include "sites.h"
#include "xalloc.h"

static char **names;
static int nr_names, cap_names;
static struct htab by_name; /* hash of the name -> site */

int sites_intern(const char *name, size_t len)
{
	uint64_t key;
	size_t pos = 0;
	int site;

	/* a name ends at a NUL byte (text input may carry one) */
	len = strnlen(name, len);
	key = htab_hash_bytes(name, len);
	while ((site = htab_next(&by_name, key, &pos)) >= 0) {
		const char *s = names[site];

		if (!strncmp(s, name, len) && s[len] == '\0')
			return site;
	}
	names = xgrow(names, &cap_names, nr_names + 1, sizeof(*names));
	names[nr_names] = xstrndup(name, len);
	htab_add(&by_name, key, nr_names);
	return nr_names++;
}

const char *sites_name(int site)
{
	return site < 0 || site >= nr_names ? "[unknown]" : names[site];
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
	htab_free(&by_name);
	names = NULL;
	nr_names = cap_names = 0;
}
