// SPDX-License-Identifier: GPL-2.0
/* kmapstack: libFuzzer target over the text parser and the replay */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_replay fr;
	/* the lines of the input, as input_text() cuts them */
	char *copy = xstrndup((const char *)data, size), *p = copy;

	fuzz_replay_begin(&fr);
	while (p < copy + size) {
		char *nl = memchr(p, '\n', (size_t)(copy + size - p));
		char *e = nl ? nl : copy + size;

		*e = '\0';
		input_text_line(p, (size_t)(e - p), fr.r, &fr.info);
		p = e + 1;
	}
	replay_finish(fr.r);
	free(copy);
	fuzz_replay_end(&fr);
	return 0;
}
