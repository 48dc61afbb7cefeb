// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: how many other tasks want this machine's CPUs right now, from
 * the running count of /proc/loadavg, read a few times.
 */
#include <stdio.h>
#include <time.h>

#include "cpu_load.h"

#define SAMPLES 5
#define SAMPLE_GAP_NS 1000000L

int loadavg_running(const char *line, long *running)
{
	double a1, a5, a15;
	long r, t;

	if (sscanf(line, "%lf %lf %lf %ld/%ld", &a1, &a5, &a15, &r, &t) != 5 ||
	    r < 0 || t < r)
		return -1;
	*running = r;
	return 0;
}

static int read_running(long *running)
{
	char line[256];
	FILE *f = fopen("/proc/loadavg", "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		ret = loadavg_running(line, running);
	fclose(f);
	return ret;
}

double cpu_load_others(void)
{
	struct timespec gap = { 0, SAMPLE_GAP_NS };
	long sum = 0;

	for (int i = 0; i < SAMPLES; i++) {
		long r;

		if (i)
			nanosleep(&gap, NULL);
		if (read_running(&r))
			return -1;
		/* this task, which reads it, is running */
		sum += r > 0 ? r - 1 : 0;
	}
	return (double)sum / SAMPLES;
}
