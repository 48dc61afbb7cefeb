/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: what the analysis found: violations (from the replay, from the
 * kernel's kmap_violation events, or both), mappings held at the end, the
 * gaps left by lost events and the cross-check counters.
 */
#ifndef KMS_FINDINGS_H
#define KMS_FINDINGS_H

#include "htab.h"
#include "kms.h"

#define FS_REPLAY 1
#define FS_KERNEL 2

/* an entry of a shadow stack */
struct frame {
	int site;
	int node; /* its nesting path (stats.h) */
	unsigned long long addr;
	unsigned long long ts; /* when it was mapped */
	unsigned char ctx;
	unsigned char flags;
	unsigned char placeholder; /* mapped during lost events: unknown */
	unsigned char unrec; /* made on the kernel's full stack: not recorded */
	unsigned char marked; /* the entry the finding is about */
};

struct finding {
	int kind;
	int kernel_kind; /* the kernel's kind, 0 if it reported nothing */
	int source; /* FS_* */
	int uncertain; /* the replay had lost events on that stack */
	int file;
	unsigned long long ts;
	int cpu;
	int pid;
	char comm[17];
	int ctx; /* the context it was detected in */
	int stack_ctx; /* the stack concerned */
	unsigned long long addr;
	int caller; /* unmapping site (or the leaking handler) */
	int map_caller;
	int top_caller;
	int depth;
	int nframes, cap_frames;
	struct frame *frames; /* the stack at that moment, innermost first */
	int nleaked;
	const char *note; /* cross-check remark, static, may be NULL */
};

struct gap {
	int file;
	int cpu;
	unsigned long long ts;
	long long missed; /* -1: unknown */
	int resynced_tasks;
};

struct dropped_group {
	uint64_t key;
	long long n;
};

struct findings {
	int max;
	struct finding *v;
	int n, cap;
	long long total[KMS_KIND_NR]; /* all, including the ones not kept */
	long long dropped;
	struct gap *gaps;
	int ngaps, cap_gaps;
	long long total_gaps;
	long long lost_events; /* known counts */
	long long lost_unknown; /* gaps of unknown size */
	/* cross-check */
	long long kernel_events;
	long long agreed;
	long long kernel_only;
	long long replay_only;
	long long kind_differs;
	long long depth_mismatches;
	long long overflow_explained; /* differences its overflow explains */
	long long suppressed; /* would-be findings on unsynchronised stacks */
	long long held_mappings; /* in the held_at_end findings, all of them */
	unsigned int kinds; /* --kind: a bit per kind shown, 0: all */
	struct finding scratch;
	int scratch_live; /* the scratch holds a finding not kept */
	/* the findings not kept by their group (findings_group_of()) */
	struct htab dropped_of; /* key -> index in groups */
	struct dropped_group *groups;
	int ngroups, cap_groups;
};

void findings_init(struct findings *f, int max);
/* a new finding to fill in: an index, or -1 when past the limit */
int findings_add(struct findings *f, int kind);
struct finding *findings_get(struct findings *f, int idx);
void findings_add_frame(struct findings *f, int idx, const struct frame *fr);
struct gap *findings_add_gap(struct findings *f);
/* violations that make the exit status 1 */
long long findings_violations(const struct findings *f, int strict);
long long findings_held(const struct findings *f);
/* a kind the report shows (--kind) */
int findings_shown(const struct findings *f, int kind);
/*
 * The group of a finding: its kind, map site and unmap site in one input,
 * as the kernel reports each pair once. findings_end() before
 * findings_dropped_like().
 */
uint64_t findings_group_of(const struct finding *x);
void findings_end(struct findings *f);
/* the findings not kept of the group key */
long long findings_dropped_like(const struct findings *f, uint64_t key);
void findings_free(struct findings *f);

#endif
