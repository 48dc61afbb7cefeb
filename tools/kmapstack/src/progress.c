// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the progress line */
#include <stdio.h>
#include <time.h>

#include "progress.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(struct progress *p, int enabled, const char *label,
		    unsigned long long total)
{
	p->on = enabled && (!total || total >= PROGRESS_MIN_BYTES);
	p->label = label;
	p->total = total;
	p->last = now();
}

void progress_update(struct progress *p, unsigned long long done)
{
	double t;

	if (!p->on || (t = now()) - p->last < 0.25)
		return;
	p->last = t;
	if (!p->total) /* a pipe: its size is not known */
		fprintf(stderr, "\rkmapstack: %s: %llu MB", p->label,
			done >> 20);
	else
		fprintf(stderr, "\rkmapstack: %s: %3d%%", p->label,
			(int)(100.0 *
			      (double)(done < p->total ? done : p->total) /
			      (double)p->total));
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (!p->on)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	p->on = 0;
}
