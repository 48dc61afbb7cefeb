// SPDX-License-Identifier: GPL-2.0
/* kmapstack: names of contexts and kinds, as the trace events print them */
#include <string.h>

#include "kms.h"

static const char *const ctx_names[KMS_CTX_NR] = { "task", "softirq", "hardirq",
						   "nmi" };

#define NO_LEAK (-1)

/* each kind: its name, the context whose leaks it reports, a report only */
static const struct {
	const char *name;
	int leak_ctx;
	int report_only; /* the kernel reports it without touching the stacks */
} kinds[KMS_KIND_NR] = {
	[KMS_MISMATCH] = { "mismatch", NO_LEAK, 0 },
	[KMS_UNKNOWN] = { "unknown", NO_LEAK, 0 },
	[KMS_CROSS_CONTEXT] = { "cross_context", NO_LEAK, 0 },
	[KMS_OVERFLOW] = { "overflow", NO_LEAK, 1 },
	[KMS_LEAK_HARDIRQ] = { "leak_hardirq", KMS_CTX_HARDIRQ, 0 },
	[KMS_LEAK_SOFTIRQ] = { "leak_softirq", KMS_CTX_SOFTIRQ, 0 },
	[KMS_FLAVOUR] = { "flavour", NO_LEAK, 1 },
	[KMS_DEPTH] = { "depth", NO_LEAK, 1 },
	[KMS_LEAK_NMI] = { "leak_nmi", KMS_CTX_NMI, 0 },
	[KMS_LEAK_WORK] = { "leak_work", KMS_CTX_TASK, 0 },
	[KMS_LEAK_USER] = { "leak_user", KMS_CTX_TASK, 0 },
	[KMS_LEAK_EXIT] = { "leak_exit", KMS_CTX_TASK, 0 },
	[KMS_LEAK_MODULE] = { "leak_module", NO_LEAK, 1 },
	[KMS_LEAK_TASK] = { "leak_task", KMS_CTX_TASK, 0 },
	[KMS_HELD_AT_END] = { "held_at_end", NO_LEAK, 0 },
};

static int valid(int kind)
{
	return kind > 0 && kind < KMS_KIND_NR;
}

const char *kms_ctx_name(int ctx)
{
	return ctx < 0 || ctx >= KMS_CTX_NR ? "?" : ctx_names[ctx];
}

const char *kms_kind_name(int kind)
{
	return valid(kind) ? kinds[kind].name : "invalid";
}

int kms_kind_from_name(const char *name)
{
	for (int k = 1; k < KMS_KIND_NR; k++)
		if (!strcmp(name, kinds[k].name))
			return k;
	/* the first series' kinds, in old trace text: softirq leaks */
	if (!strcmp(name, "leak_tasklet") || !strcmp(name, "leak_timer"))
		return KMS_LEAK_SOFTIRQ;
	return 0;
}

int kms_kind_is_report_only(int kind)
{
	return valid(kind) && kinds[kind].report_only;
}

int kms_leak_kind_ctx(int kind)
{
	return valid(kind) ? kinds[kind].leak_ctx : NO_LEAK;
}

int kms_kind_is_leak(int kind)
{
	return kms_leak_kind_ctx(kind) != NO_LEAK;
}
