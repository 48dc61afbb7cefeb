/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: the decoded kmap_stack event, shared by the inputs and the
 * replay. See tracepoints/README.md for the ABI.
 */
#ifndef KMS_H
#define KMS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define KMS_VERSION "1.0"

/* Contexts (ABI) */
#define KMS_CTX_TASK 0
#define KMS_CTX_SOFTIRQ 1
#define KMS_CTX_HARDIRQ 2
#define KMS_CTX_NMI 3
#define KMS_CTX_NR 4

/* Entry and event flags (ABI) */
#define KMS_F_ATOMIC 0x01
#define KMS_F_FORCED 0x02

/* Kinds of kmap_violation (ABI), then the analyzer's own findings */
enum kms_kind {
	KMS_MISMATCH = 1,
	KMS_UNKNOWN = 2,
	KMS_CROSS_CONTEXT = 3,
	KMS_OVERFLOW = 4,
	KMS_LEAK_HARDIRQ = 5,
	KMS_LEAK_SOFTIRQ = 6, /* softirq, tasklet and timer callbacks */
	/* kunmap_local() of a kmap_atomic() mapping or the reverse: a report */
	KMS_FLAVOUR = 7,
	/* a task's and its interrupts' nesting exceeds the 32-bit kmap stack */
	KMS_DEPTH = 8,
	KMS_LEAK_NMI = 9,
	KMS_LEAK_WORK = 10,
	KMS_LEAK_USER = 11,
	KMS_LEAK_EXIT = 12,
	/* a module unloaded while a mapping of its code is held: a report */
	KMS_LEAK_MODULE = 13,
	KMS_ABI_KIND_MAX = 13,
	/* the replay's own: a task's mappings removed by the kernel */
	KMS_LEAK_TASK = 14,
	/* mappings still held when the trace ends (a warning) */
	KMS_HELD_AT_END = 15,
	KMS_KIND_NR = 16,
};

enum kms_ev_type {
	KMS_EV_PUSH,
	KMS_EV_POP,
	KMS_EV_VIOLATION,
};

/* Call sites are interned: an index into the site table, or KMS_NO_SITE */
#define KMS_NO_SITE (-1)

struct kms_event {
	int type; /* enum kms_ev_type */
	unsigned long long ts; /* ns */
	int cpu;
	int pid;
	const char *comm; /* may be NULL, then see comm_of */
	/* the command of a pid, asked only when a task is first seen */
	const char *(*comm_of)(void *priv, int pid);
	void *comm_priv;
	int in_ctx; /* context from the record header flags, -1 unknown */
	int caller; /* site */
	int map_caller; /* site (violation) */
	int top_caller; /* site (violation) */
	unsigned long long addr;
	unsigned long long pfn;
	int depth;
	int ctx;
	int flags;
	int kind; /* violation */
};

const char *kms_ctx_name(int ctx);
const char *kms_kind_name(int kind);
/* the kind number of a name, 0 if none */
int kms_kind_from_name(const char *name);
/* the stack context whose leaks a leak kind reports, -1: no leak kind */
int kms_leak_kind_ctx(int kind);
int kms_kind_is_leak(int kind);
/* kinds that the kernel reports without touching the stacks */
int kms_kind_is_report_only(int kind);

/* why something failed, one line into err; returns -1 */
__attribute__((format(printf, 3, 4))) static inline int
kms_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#endif
