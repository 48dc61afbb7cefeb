// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: libFuzzer target over the trace.dat path: the input is
 * written to a file and read through libtracecmd/libtraceevent, then
 * decoded and replayed like a real trace.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "findings.h"
#include "input.h"
#include "replay.h"
#include "sites.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_info info = { 0 };
	struct findings f;
	struct stats st;
	struct replay *r;
	char err[256];
	FILE *fp;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/kmapstack-fuzz-%d.dat",
			 (int)getpid());
		atexit(cleanup);
	}
	fp = fopen(path, "wb");
	if (!fp)
		return 0;
	fwrite(data, 1, size, fp);
	fclose(fp);
	stats_init(&st, 10, 0);
	findings_init(&f, 100);
	r = replay_new(&st, &f, 0);
	if (input_detect(path, err, sizeof(err)) == INPUT_TRACEDAT &&
	    input_tracedat(path, r, &info, err, sizeof(err)) == 0)
		replay_finish(r);
	replay_free(r);
	findings_free(&f);
	stats_free(&st);
	sites_reset();
	return 0;
}
