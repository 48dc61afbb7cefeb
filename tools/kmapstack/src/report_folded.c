// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack: folded stacks for flame graph tools: one line per nesting
 * path, outermost call site first, and the number of maps made with
 * exactly that path:  "outer_fn+0x10;inner_fn+0x24 42"
 */
#include <stdlib.h>

#include "xalloc.h"
#include "report.h"
#include "sites.h"

/* ';' separates frames and ' ' ends them: neither may be in a name */
static void name(FILE *out, int site)
{
	for (const char *s = sites_name(site); *s; s++)
		fputc(*s == ';' || *s == ' ' ? '_' : *s, out);
}

void report_folded(FILE *out, struct report_ctx *rc)
{
	struct stats *st = rc->st;
	int *path = NULL, cap = 0;

	for (int i = 1; i < st->nnodes; i++) {
		int n = 0;

		if (!st->nodes[i].count)
			continue;
		for (int j = i; j > 0; j = st->nodes[j].parent) {
			path = xgrow(path, &cap, n + 1, sizeof(int));
			path[n++] = st->nodes[j].site;
		}
		for (int k = n - 1; k >= 0; k--) {
			name(out, path[k]);
			if (k)
				fputc(';', out);
		}
		fprintf(out, " %lld\n", st->nodes[i].count);
	}
	free(path);
}
