// SPDX-License-Identifier: GPL-2.0
/* kmapstack: a trace.dat pass that returns one record for ever */
#include "tracedat_stall.h"

int tracedat_stalled(struct dat_stall *s, int cpu, unsigned long long offset)
{
	int again = s->seen && s->cpu == cpu && s->offset == offset;

	s->seen = 1;
	s->cpu = cpu;
	s->offset = offset;
	return again;
}
