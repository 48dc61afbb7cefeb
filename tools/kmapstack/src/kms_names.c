// SPDX-License-Identifier: GPL-2.0
/* kmapstack: names of contexts and kinds, as the trace events print them */
#include <string.h>

#include "kms.h"

static const char *const ctx_names[KMS_CTX_NR] = { "task", "softirq", "hardirq",
						   "nmi" };

static const char *const kind_names[KMS_KIND_NR] = {
	[KMS_MISMATCH] = "mismatch",
	[KMS_UNKNOWN] = "unknown",
	[KMS_CROSS_CONTEXT] = "cross_context",
	[KMS_OVERFLOW] = "overflow",
	[KMS_LEAK_HARDIRQ] = "leak_hardirq",
	[KMS_LEAK_SOFTIRQ] = "leak_softirq",
	[KMS_FLAVOUR] = "flavour",
	[KMS_DEPTH] = "depth",
	[KMS_LEAK_NMI] = "leak_nmi",
	[KMS_LEAK_WORK] = "leak_work",
	[KMS_LEAK_USER] = "leak_user",
	[KMS_LEAK_EXIT] = "leak_exit",
	[KMS_LEAK_MODULE] = "leak_module",
	[KMS_LEAK_TASK] = "leak_task",
	[KMS_HELD_AT_END] = "held_at_end",
};

const char *kms_ctx_name(int ctx)
{
	if (ctx < 0 || ctx >= KMS_CTX_NR)
		return "?";
	return ctx_names[ctx];
}

const char *kms_kind_name(int kind)
{
	if (kind <= 0 || kind >= KMS_KIND_NR)
		return "invalid";
	return kind_names[kind];
}

int kms_kind_from_name(const char *name)
{
	for (int k = 1; k < KMS_KIND_NR; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	/* the first series' kinds, in old trace text: softirq leaks */
	if (!strcmp(name, "leak_tasklet") || !strcmp(name, "leak_timer"))
		return KMS_LEAK_SOFTIRQ;
	return 0;
}

int kms_kind_is_report_only(int kind)
{
	return kind == KMS_OVERFLOW || kind == KMS_FLAVOUR ||
	       kind == KMS_DEPTH || kind == KMS_LEAK_MODULE;
}

int kms_leak_kind_ctx(int kind)
{
	switch (kind) {
	case KMS_LEAK_HARDIRQ:
		return KMS_CTX_HARDIRQ;
	case KMS_LEAK_SOFTIRQ:
		return KMS_CTX_SOFTIRQ;
	case KMS_LEAK_NMI:
		return KMS_CTX_NMI;
	case KMS_LEAK_WORK:
	case KMS_LEAK_USER:
	case KMS_LEAK_EXIT:
	case KMS_LEAK_TASK:
		return KMS_CTX_TASK;
	default:
		return -1;
	}
}

int kms_kind_is_leak(int kind)
{
	return kms_leak_kind_ctx(kind) >= 0;
}
