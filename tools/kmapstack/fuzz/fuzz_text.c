// SPDX-License-Identifier: GPL-2.0
/* kmapstack: libFuzzer target over the text parser and the replay */
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "input.h"
#include "replay.h"
#include "sites.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_info info = { 0 };
	struct findings f;
	struct stats st;
	struct replay *r;
	char err[256];

	stats_init(&st, 10, 0);
	findings_init(&f, 100);
	r = replay_new(&st, &f, 0);
	input_text_buffer((const char *)data, size, r, &info, err, sizeof(err));
	replay_finish(r);
	replay_free(r);
	findings_free(&f);
	stats_free(&st);
	sites_reset();
	return 0;
}
