// SPDX-License-Identifier: GPL-2.0
/* kmapstack: allocation that cannot fail */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xgrow(void *p, int *cap, int want, size_t size)
{
	int n = *cap ? *cap : 8;

	if (want <= *cap)
		return p;
	while (n < want)
		n *= 2;
	*cap = n;
	return xrealloc(p, (size_t)n * size);
}

void *xgrow_zero(void *p, int *cap, int want, size_t size)
{
	int old = *cap;

	p = xgrow(p, cap, want, size);
	memset((char *)p + size * (size_t)old, 0, size * (size_t)(*cap - old));
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}
