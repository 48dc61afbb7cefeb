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

#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void cleanup(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_replay fr;
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
	fuzz_replay_begin(&fr);
	if (input_detect(path, fr.err, sizeof(fr.err)) == INPUT_TRACEDAT &&
	    input_tracedat(path, fr.r, &fr.info, fr.err, sizeof(fr.err)) == 0)
		replay_finish(fr.r);
	fuzz_replay_end(&fr);
	return 0;
}
