// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: the share of a trace's CPUs that one of several children
 * reads (tracedat_msg.h). Each child makes it from the file alone, so that
 * all agree: the CPUs by the size of their data in the file, largest
 * first, each to the child with the least data so far (the lowest first
 * among equals); a CPU the file gives no size for, by its number.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>

#include <trace-cmd.h>

#include "tracedat.h"
#include "xalloc.h"

/* exported by libtracecmd, not declared in its header */
int tracecmd_cpus(struct tracecmd_input *handle);
off64_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);

struct cpu_data_size {
	unsigned long long size;
	int cpu;
};

static int larger_first(const void *a, const void *b)
{
	const struct cpu_data_size *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return x->cpu - y->cpu;
}

cpu_set_t *tracedat_part(struct tracecmd_input *handle, int part, int parts,
			 size_t *setsize)
{
	size_t size = CPU_ALLOC_SIZE(DAT_PART_CPUS);
	cpu_set_t *set = xmalloc(size);
	int n = tracecmd_cpus(handle);
	unsigned long long *load = xcalloc((size_t)parts, sizeof(*load));
	struct cpu_data_size *v;

	CPU_ZERO_S(size, set);
	if (n < 0)
		n = 0;
	if (n > DAT_PART_CPUS)
		n = DAT_PART_CPUS;
	v = xcalloc(n ? (size_t)n : 1, sizeof(*v));
	for (int cpu = 0; cpu < n; cpu++) {
		off64_t s = tracecmd_get_cpu_file_size(handle, cpu);

		v[cpu].size = s > 0 ? (unsigned long long)s : 0;
		v[cpu].cpu = cpu;
	}
	qsort(v, (size_t)n, sizeof(*v), larger_first);
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 1; j < parts; j++)
			if (load[j] < load[k])
				k = j;
		load[k] += v[i].size;
		if (k == part)
			CPU_SET_S(v[i].cpu, size, set);
	}
	for (int cpu = n; cpu < DAT_PART_CPUS; cpu++)
		if (cpu % parts == part)
			CPU_SET_S(cpu, size, set);
	free(v);
	free(load);
	*setsize = size;
	return set;
}
