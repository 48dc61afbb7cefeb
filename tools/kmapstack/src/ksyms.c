// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the symbols of a saved kallsyms */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kms.h"
#include "ksyms.h"
#include "xalloc.h"

struct ksym {
	unsigned long long addr;
	char *name;
	char *mod; /* NULL for the kernel's own */
};

static struct ksym *syms;
static int nsyms;

/* kallsyms has no sizes: a function is taken to end 64 KiB on at most */
#define MAX_FUNC_SIZE 0x10000

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_load(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char line[1024];
	int cap = 0, lines = 0;

	if (!fp)
		return kms_fail(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		char type, name[512], mod[256] = "";
		unsigned long long addr;
		int n = sscanf(line, "%llx %c %511s %255s", &addr, &type, name,
			       mod);

		lines++;
		if (n < 3)
			continue;
		/* functions only: text (t T) and weak (w W) symbols */
		if (!strchr("tTwW", type) || !addr)
			continue;
		syms = xgrow(syms, &cap, nsyms + 1, sizeof(*syms));
		syms[nsyms].addr = addr;
		syms[nsyms].name = xstrndup(name, strlen(name));
		syms[nsyms].mod = NULL;
		if (n == 4 && mod[0] == '[')
			syms[nsyms].mod =
				xstrndup(mod + 1, strcspn(mod + 1, "]"));
		nsyms++;
	}
	fclose(fp);
	if (!nsyms)
		return kms_fail(
			err, errlen,
			"%s: not a kallsyms (no function symbols in %d lines)",
			path, lines);
	qsort(syms, (size_t)nsyms, sizeof(*syms), by_addr);
	return 0;
}

int ksyms_name(unsigned long long addr, char *buf, size_t len)
{
	int lo = 0, hi = nsyms - 1, i = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr) {
			i = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (i < 0 || addr - syms[i].addr >= MAX_FUNC_SIZE)
		return 0;
	if (syms[i].mod)
		snprintf(buf, len, "%s+0x%llx [%s]", syms[i].name,
			 addr - syms[i].addr, syms[i].mod);
	else
		snprintf(buf, len, "%s+0x%llx", syms[i].name,
			 addr - syms[i].addr);
	return 1;
}

void ksyms_free(void)
{
	for (int i = 0; i < nsyms; i++) {
		free(syms[i].name);
		free(syms[i].mod);
	}
	free(syms);
	syms = NULL;
	nsyms = 0;
}
