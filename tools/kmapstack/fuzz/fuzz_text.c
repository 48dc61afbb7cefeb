// SPDX-License-Identifier: GPL-2.0
/* kmapstack: libFuzzer target over the text parser and the replay */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_replay fr;

	fuzz_replay_begin(&fr);
	input_text_buffer((const char *)data, size, fr.r, &fr.info, fr.err,
			  sizeof(fr.err));
	replay_finish(fr.r);
	fuzz_replay_end(&fr);
	return 0;
}
