// SPDX-License-Identifier: GPL-2.0
/* kmapstack: what the outputs share */
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"
#include "report.h"
#include "sites.h"

const char *report_kind_text(int kind)
{
	switch (kind) {
	case KMS_MISMATCH:
		return "unmap of a mapping that is not on top of its stack";
	case KMS_UNKNOWN:
		return "unmap of an address that is on no stack";
	case KMS_CROSS_CONTEXT:
		return "an interrupt unmapped a mapping of the context it "
		       "interrupted";
	case KMS_OVERFLOW:
		return "shadow stack full: mapping not recorded";
	case KMS_LEAK_HARDIRQ:
		return "mappings leaked out of a hardirq handler";
	case KMS_LEAK_SOFTIRQ:
		return "mappings leaked out of a softirq handler (tasklet, "
		       "timer)";
	case KMS_FLAVOUR:
		return "kunmap_local() of a kmap_atomic() mapping, or the "
		       "reverse";
	case KMS_DEPTH:
		return "the nesting of a task and its interrupts exceeds the "
		       "16 slots of the 32-bit kmap stack";
	case KMS_LEAK_NMI:
		return "mappings leaked out of an NMI handler";
	case KMS_LEAK_WORK:
		return "mappings leaked out of a work item";
	case KMS_LEAK_USER:
		return "return to user space holding mappings";
	case KMS_LEAK_EXIT:
		return "task exit holding mappings";
	case KMS_LEAK_MODULE:
		return "a module was unloaded while a mapping made by its "
		       "code was held";
	case KMS_LEAK_TASK:
		return "mappings of a task removed by the kernel (leak)";
	case KMS_HELD_AT_END:
		return "mappings still held at the end of the trace";
	default:
		return "?";
	}
}

const char *report_source(int source)
{
	switch (source & (FS_REPLAY | FS_KERNEL)) {
	case FS_REPLAY | FS_KERNEL:
		return "both";
	case FS_KERNEL:
		return "kernel";
	default:
		return "replay";
	}
}

int report_is_violation(const struct finding *x, int strict)
{
	return x->kind != KMS_HELD_AT_END || strict;
}

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
