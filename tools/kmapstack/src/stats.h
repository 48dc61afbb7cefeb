/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: statistics per call site and per CPU, the longest holds, the
 * nesting paths for the folded output and the depth timeline for the SVG.
 * Bounded by call sites, CPUs and distinct nesting paths, never by events.
 */
#ifndef KMS_STATS_H
#define KMS_STATS_H

#include <stdint.h>

#include "hist.h"
#include "htab.h"

struct site_stats {
	long long maps;
	long long atomic;
	int max_depth;
	struct hist hold;
};

struct hold_rec {
	uint64_t ns;
	int map_site;
	int unmap_site;
	unsigned long long ts; /* of the push */
	int cpu;
	int pid;
	char comm[17];
	int ctx;
	int file;
};

/* the maps made with the path from the root to a node */
struct path_node {
	int parent, site;
	long long count;
};

#define TL_BUCKETS 1000
#define STATS_MAX_PATHS (1 << 20)

/* a slice of the timeline: the nesting after each event, max and mean */
struct tl_bucket {
	unsigned short max;
	unsigned long long sum, n;
};

struct cpu_stats {
	long long pushes;
	long long *depth; /* pushes by depth after the push, [0..ndepth) */
	int ndepth;
	int max_total; /* deepest nesting of all its stacks together */
	struct tl_bucket *tl; /* TL_BUCKETS */
};

struct stats {
	long long events, pushes, pops;
	struct site_stats *sites;
	int nsites;
	struct hist holds;
	/* longest holds: a min-heap of at most top entries */
	struct hold_rec *heap;
	int nheap, top;
	uint64_t threshold;
	long long over_threshold;
	struct cpu_stats *cpus;
	int ncpus;
	/* nesting paths: a trie of call sites, node 0 is the root */
	struct path_node *nodes;
	int nnodes, cap_nodes;
	struct htab child_of; /* parent << 32 | site -> node */
	int paths; /* keep the paths: only --folded shows them */
	/* timeline: from tl_t0 in tl_used buckets of tl_width (0: no event) */
	unsigned long long tl_t0, tl_width;
	int tl_used;
	/* the bucket of the last event and its times [tl_lo, tl_hi) */
	unsigned long long tl_lo, tl_hi;
	int tl_b;
};

void stats_init(struct stats *s, int top, uint64_t threshold);
/* a mapping was pushed at that depth; returns its nesting path node */
int stats_push(struct stats *s, int cpu, int site, int atomic, int depth,
	       int parent_node);
/*
 * A hold, in two steps, the record made only when it is kept: the
 * histograms and the count over the threshold; and, when that returned 1
 * (the hold is one of the longest so far), the longest holds.
 */
int stats_hold_time(struct stats *s, uint64_t ns, int map_site);
void stats_hold_keep(struct stats *s, const struct hold_rec *h);
/* the nesting of all stacks of a CPU after an event */
void stats_nesting(struct stats *s, int cpu, unsigned long long ts, int total);
struct site_stats *stats_site(struct stats *s, int site);
/* the sites with maps or holds, by maps (descending), then name; free() it */
int *stats_sorted_sites(struct stats *s, int *n);
/* the longest holds, longest first (sorts the heap in place) */
const struct hold_rec *stats_longest(struct stats *s, int *n);
void stats_free(struct stats *s);

#endif
