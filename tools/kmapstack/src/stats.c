// SPDX-License-Identifier: GPL-2.0
/* kmapstack: statistics per call site, per CPU, holds and nesting paths */
#include <stdlib.h>
#include <string.h>

#include "sites.h"
#include "stats.h"
#include "xalloc.h"

void stats_init(struct stats *s, int top, uint64_t threshold)
{
	memset(s, 0, sizeof(*s));
	s->top = top;
	s->threshold = threshold;
	s->nodes = xgrow(NULL, &s->cap_nodes, 1, sizeof(*s->nodes));
	s->nodes[0] = (struct path_node){ -1, -1, 0 };
	s->nnodes = 1;
}

struct site_stats *stats_site(struct stats *s, int site)
{
	if (site < 0)
		return NULL;
	if (site >= s->nsites)
		s->sites = xgrow_zero(s->sites, &s->nsites, site + 1,
				      sizeof(*s->sites));
	return &s->sites[site];
}

static struct cpu_stats *grow_cpus(struct stats *s, int cpu)
{
	s->cpus = xgrow_zero(s->cpus, &s->ncpus, cpu + 1, sizeof(*s->cpus));
	return &s->cpus[cpu];
}

static inline struct cpu_stats *cpu_stats(struct stats *s, int cpu)
{
	return cpu < s->ncpus ? &s->cpus[cpu] : grow_cpus(s, cpu);
}

static int trie_child(struct stats *s, int parent, int site)
{
	uint64_t key;
	int i;

	parent = parent < 0 || parent >= s->nnodes ? 0 : parent;
	key = (uint64_t)(unsigned int)parent << 32 | (unsigned int)site;
	i = htab_get(&s->child_of, key);
	if (i >= 0)
		return i;
	if (s->nnodes >= STATS_MAX_PATHS)
		return parent;
	s->nodes = xgrow(s->nodes, &s->cap_nodes, s->nnodes + 1,
			 sizeof(*s->nodes));
	s->nodes[s->nnodes] = (struct path_node){ parent, site, 0 };
	htab_add(&s->child_of, key, s->nnodes);
	return s->nnodes++;
}

int stats_push(struct stats *s, int cpu, int site, int atomic, int depth,
	       int parent_node)
{
	struct cpu_stats *c = cpu_stats(s, cpu);
	struct site_stats *ss = stats_site(s, site);
	int node;

	s->pushes++;
	if (ss) {
		ss->maps++;
		ss->atomic += !!atomic;
		ss->max_depth = depth > ss->max_depth ? depth : ss->max_depth;
	}
	c->pushes++;
	if (depth >= 0) {
		if (depth >= c->ndepth)
			c->depth = xgrow_zero(c->depth, &c->ndepth, depth + 1,
					      sizeof(*c->depth));
		c->depth[depth]++;
	}
	if (!s->paths)
		return 0;
	node = trie_child(s, parent_node, site);
	s->nodes[node].count++;
	return node;
}

static void heap_down(struct hold_rec *h, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct hold_rec t;

		m = l < n && h[l].ns < h[m].ns ? l : m;
		m = r < n && h[r].ns < h[m].ns ? r : m;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void heap_up(struct hold_rec *h, int i)
{
	while (i > 0) {
		int p = (i - 1) / 2;
		struct hold_rec t;

		if (h[p].ns <= h[i].ns)
			return;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

int stats_hold_time(struct stats *s, uint64_t ns, int map_site)
{
	struct site_stats *ss = stats_site(s, map_site);

	if (ss)
		hist_add(&ss->hold, ns);
	hist_add(&s->holds, ns);
	if (ns < s->threshold || s->top <= 0)
		return 0;
	s->over_threshold++;
	/* one of the longest so far? */
	return s->nheap < s->top || ns > s->heap[0].ns;
}

void stats_hold_keep(struct stats *s, const struct hold_rec *h)
{
	if (!s->heap)
		s->heap = xcalloc(s->top, sizeof(*s->heap));
	if (s->nheap < s->top) {
		s->heap[s->nheap] = *h;
		heap_up(s->heap, s->nheap++);
	} else if (h->ns > s->heap[0].ns) {
		s->heap[0] = *h;
		heap_down(s->heap, s->nheap, 0);
	}
}

static int cmp_hold_desc(const void *a, const void *b)
{
	const struct hold_rec *x = a, *y = b;

	return x->ns != y->ns ? (x->ns < y->ns ? 1 : -1) :
				(x->ts > y->ts) - (x->ts < y->ts);
}

const struct hold_rec *stats_longest(struct stats *s, int *n)
{
	if (s->nheap)
		qsort(s->heap, s->nheap, sizeof(*s->heap), cmp_hold_desc);
	/* sorted descending is no longer a min-heap: rebuild if added to */
	*n = s->nheap;
	return s->heap;
}

static struct stats *sort_st;

static int by_maps(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	long long mx = sort_st->sites[x].maps, my = sort_st->sites[y].maps;

	return mx != my ? (mx < my ? 1 : -1) :
			  strcmp(sites_name(x), sites_name(y));
}

int *stats_sorted_sites(struct stats *s, int *n)
{
	int *v = xmalloc(sizeof(int) * (s->nsites ? s->nsites : 1));
	int k = 0;

	for (int i = 0; i < s->nsites; i++)
		if (s->sites[i].maps || s->sites[i].hold.count)
			v[k++] = i;
	sort_st = s;
	qsort(v, k, sizeof(int), by_maps);
	*n = k;
	return v;
}

/* half as many buckets, twice as wide */
static void tl_fold(struct stats *s)
{
	int half = TL_BUCKETS / 2;

	for (int c = 0; c < s->ncpus; c++) {
		struct cpu_stats *cs = &s->cpus[c];

		if (!cs->tl)
			continue;
		for (int i = 0; i < half; i++) {
			struct tl_bucket *a = &cs->tl[2 * i], *b = a + 1;

			cs->tl[i].max = a->max > b->max ? a->max : b->max;
			cs->tl[i].sum = a->sum + b->sum;
			cs->tl[i].n = a->n + b->n;
		}
		memset(cs->tl + half, 0, sizeof(*cs->tl) * (TL_BUCKETS - half));
	}
	s->tl_width *= 2;
	s->tl_used = (s->tl_used + 1) / 2;
	s->tl_hi = 0; /* the buckets moved */
}

void stats_nesting(struct stats *s, int cpu, unsigned long long ts, int total)
{
	struct cpu_stats *c = cpu_stats(s, cpu);
	struct tl_bucket *tb;
	unsigned long long b;

	c->max_total = total > c->max_total ? total : c->max_total;
	if (!s->tl_width) { /* the first event */
		s->tl_t0 = ts;
		s->tl_width = 1000;
	}
	if (!c->tl)
		c->tl = xcalloc(TL_BUCKETS, sizeof(*c->tl));
	/* the bucket of the last event is kept: no division per event */
	if (ts < s->tl_lo || ts >= s->tl_hi) {
		b = ts < s->tl_t0 ? 0 : (ts - s->tl_t0) / s->tl_width;
		/* the timeline folds until the time is in it */
		for (; b >= TL_BUCKETS; b /= 2)
			tl_fold(s);
		s->tl_b = (int)b;
		s->tl_lo = s->tl_t0 + b * s->tl_width;
		s->tl_hi = s->tl_lo + s->tl_width;
	}
	s->tl_used = s->tl_b + 1 > s->tl_used ? s->tl_b + 1 : s->tl_used;
	total = total > 65535 ? 65535 : total;
	tb = &c->tl[s->tl_b];
	tb->max = total > tb->max ? (unsigned short)total : tb->max;
	tb->sum += (unsigned long long)total;
	tb->n++;
}

void stats_free(struct stats *s)
{
	for (int i = 0; i < s->nsites; i++)
		hist_free(&s->sites[i].hold);
	free(s->sites);
	hist_free(&s->holds);
	free(s->heap);
	for (int c = 0; c < s->ncpus; c++) {
		free(s->cpus[c].depth);
		free(s->cpus[c].tl);
	}
	free(s->cpus);
	free(s->nodes);
	htab_free(&s->child_of);
	memset(s, 0, sizeof(*s));
}
