// SPDX-License-Identifier: GPL-2.0
/* kmapstack: what the outputs share */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "report.h"
#include "sites.h"

static struct stats *sort_st;

static int cmp_site(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	long long mx = sort_st->sites[x].maps, my = sort_st->sites[y].maps;

	if (mx != my)
		return mx < my ? 1 : -1;
	return strcmp(sites_name(x), sites_name(y));
}

int *report_sorted_sites(struct stats *st, int *n)
{
	int *v = xmalloc(sizeof(int) * (st->nsites ? st->nsites : 1));
	int k = 0;

	for (int i = 0; i < st->nsites; i++)
		if (st->sites[i].maps || st->sites[i].hold.count)
			v[k++] = i;
	sort_st = st;
	qsort(v, k, sizeof(int), cmp_site);
	*n = k;
	return v;
}

const char *report_time_unit(const struct report_ctx *rc)
{
	const char *u = rc->ninputs ? input_time_unit(&rc->inputs[0]) : "ns";

	/* inputs of different clocks: their times are not comparable */
	for (int i = 1; i < rc->ninputs; i++)
		if (strcmp(u, input_time_unit(&rc->inputs[i])))
			return "ticks";
	return u;
}
