// SPDX-License-Identifier: GPL-2.0
/* kmapstack: the replay of the shadow stacks and the cross-check */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "htab.h"
#include "replay.h"
#include "xalloc.h"

#define KMS_STACK_SLOTS 16 /* the kernel's entries (ABI), then overflow */
#define OVF_NOTE \
	"explained by the kernel's overflow: while its stack is full (16 entries) it records no mapping and checks no unmap"

struct kstack {
	struct frame *e;
	int n, cap;
	int unsynced;
	int kdepth; /* the kernel's: past KMS_STACK_SLOTS, not recorded */
};

struct task {
	int key;
	int pid;
	struct kstack st;
	int last_cpu;
	unsigned int gap_gen;
	unsigned long long last_ts;
	char comm[17];
};

/*
 * A kmap_violation event waiting for the kmap_pop it reports, on the CPU
 * where its context runs: an interrupt's stays on its CPU; a task's moves
 * with it (kmap_local leaves a task preemptible while it reports on 64-bit)
 */
struct pending {
	struct kms_event ev; /* its comm is not kept: see comm */
	struct task *owner; /* ctx task: its task, else NULL */
	char comm[17];
};

#define MAX_PENDING 8

struct cpu {
	unsigned int gap_gen;
	unsigned long long gap_ts;
	int gap; /* its last gap, index in findings, -1 none */
	int npend;
	struct task *last_task;
	/* the leak being reported by consecutive forced pops */
	int leak_active, leak_idx, leak_ctx, leak_key;
	struct kstack irq[KMS_CTX_NR]; /* [0] unused */
	/* rarely used: after what each event looks at */
	struct pending pend[MAX_PENDING];
};

struct replay {
	struct stats *st;
	struct findings *f;
	int file;
	struct cpu *cpus;
	int ncpus;
	struct task **tasks;
	int ntasks, cap_tasks;
	struct htab task_of; /* task key -> index in tasks */
	struct task *recent[256]; /* in front of it: by the key's low bits */
	int any_gap;
	/* the record flags disagreed with a push's ctx: do not use them */
	int flags_unreliable;
	const struct kms_filter *filt; /* NULL: every event */
	/* the event being replayed: its task and the context it runs in */
	struct task *ev_task;
	int ev_ctx;
	int explains; /* the pop not checked, or its entry not recorded */
};

static struct cpu *grow_cpus(struct replay *r, int cpu)
{
	int old = r->ncpus;

	r->cpus = xgrow_zero(r->cpus, &r->ncpus, cpu + 1, sizeof(*r->cpus));
	for (int i = old; i < r->ncpus; i++) {
		/* nothing is known of what happened before the trace */
		for (int x = 0; x < KMS_CTX_NR; x++)
			r->cpus[i].irq[x].unsynced = 1;
		r->cpus[i].gap = -1;
	}
	return &r->cpus[cpu];
}

static inline struct cpu *get_cpu(struct replay *r, int cpu)
{
	return cpu < r->ncpus ? &r->cpus[cpu] : grow_cpus(r, cpu);
}

/* idle tasks all have pid 0: one per CPU */
static int task_key(int pid, int cpu)
{
	return pid > 0 ? pid : -(cpu + 1);
}

/* the task of ev, *created if it is new */
static struct task *get_task(struct replay *r, struct cpu *c,
			     const struct kms_event *ev, int *created)
{
	const char *comm = ev->comm;
	int key = task_key(ev->pid, ev->cpu), i;
	struct task *t = c->last_task;

	*created = 0;
	/* most events are of the task that ran the CPU's last one */
	if (!t || t->key != key)
		t = r->recent[(unsigned int)key & 255];
	if (!t || t->key != key) {
		i = htab_get(&r->task_of, (uint64_t)(int64_t)key);
		t = i >= 0 ? r->tasks[i] : NULL;
		if (t)
			r->recent[(unsigned int)key & 255] = t;
	}
	if (t) {
		if (comm && comm[0] && strcmp(t->comm, comm))
			strncpy(t->comm, comm, sizeof(t->comm) - 1);
		return t;
	}
	t = xcalloc(1, sizeof(*t));
	t->key = key;
	t->pid = ev->pid;
	t->last_cpu = -1;
	t->st.unsynced = 1;
	if (!comm && ev->comm_of)
		comm = ev->comm_of(ev->comm_priv, ev->pid);
	if (comm)
		strncpy(t->comm, comm, sizeof(t->comm) - 1);
	r->tasks = xgrow(r->tasks, &r->cap_tasks, r->ntasks + 1,
			 sizeof(*r->tasks));
	htab_add(&r->task_of, (uint64_t)(int64_t)key, r->ntasks);
	r->tasks[r->ntasks++] = t;
	*created = 1;
	return t;
}

struct replay *replay_new(struct stats *st, struct findings *f, int file,
			  const struct kms_filter *filt)
{
	struct replay *r = xcalloc(1, sizeof(*r));

	r->st = st;
	r->f = f;
	r->file = file;
	r->filt = filt && filt->active ? filt : NULL;
	return r;
}

static void stack_push(struct kstack *s, const struct frame *e)
{
	if (s->n == s->cap) /* the common path makes no call */
		s->e = xgrow(s->e, &s->cap, s->n + 1, sizeof(*s->e));
	s->e[s->n++] = *e;
}

static void stack_remove(struct kstack *s, int i)
{
	if (i < s->n - 1)
		memmove(&s->e[i], &s->e[i + 1], sizeof(*s->e) * (s->n - i - 1));
	s->n--;
}

/* the index of addr in s, searching from the top; -1 if absent */
static int stack_find(const struct kstack *s, unsigned long long addr)
{
	for (int i = s->n - 1; i >= 0; i--)
		if (s->e[i].addr == addr && !s->e[i].placeholder)
			return i;
	return -1;
}

static int stack_real_entries(const struct kstack *s)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		n += !s->e[i].placeholder;
	return n;
}

#define MAX_RESYNC_DEPTH 4096

/*
 * Make an unsynchronised stack as deep as the kernel says: entries popped
 * while events were lost go from the top, entries pushed while events were
 * lost become placeholders at the bottom. Empty, it is synchronised again.
 */
static void stack_resync(struct kstack *s, int want)
{
	want = want < 0 ? 0 : want > MAX_RESYNC_DEPTH ? MAX_RESYNC_DEPTH : want;
	s->n = s->n > want ? want : s->n;
	if (s->n < want) {
		int add = want - s->n;

		s->e = xgrow(s->e, &s->cap, want, sizeof(*s->e));
		memmove(&s->e[add], &s->e[0], sizeof(*s->e) * s->n);
		for (int i = 0; i < add; i++)
			s->e[i] = (struct frame){ .site = KMS_NO_SITE,
						  .placeholder = 1 };
		s->n = want;
	}
	if (!s->n)
		s->unsynced = 0;
	s->kdepth = s->n;
}

static void stack_unsync(struct replay *r, struct kstack *s, int gap)
{
	if (s->unsynced)
		return;
	s->unsynced = 1;
	if (gap >= 0 && gap < r->f->ngaps)
		r->f->gaps[gap].resynced_tasks++;
}

/* the stack of context ctx as seen from an event of task t on CPU c */
static struct kstack *stack_of(struct task *t, struct cpu *c, int ctx)
{
	return ctx <= KMS_CTX_TASK ? &t->st : &c->irq[ctx];
}

/* the stacks of ctx and below, innermost first, marking one entry */
static void snapshot(struct replay *r, int idx, struct task *t, struct cpu *c,
		     int ctx, const struct kstack *mark_st, int mark)
{
	struct finding *x = findings_get(r->f, idx);

	if (idx < 0)
		return;
	for (int k = ctx; k >= 0; k--) {
		struct kstack *s = stack_of(t, c, k);

		for (int i = s->n - 1; i >= 0; i--) {
			struct frame fr = s->e[i];

			fr.ctx = (unsigned char)k;
			fr.marked = (s == mark_st && i == mark);
			/* the top of the stacks, unless lost */
			if (!x->nframes && !fr.placeholder)
				x->top_caller = fr.site;
			findings_add_frame(r->f, idx, &fr);
		}
	}
}

/* a finding at ev, of ctx, about the stack of stack_ctx */
static int new_finding(struct replay *r, int kind, int source,
		       const struct kms_event *ev, struct task *t, int ctx,
		       int stack_ctx, int map_caller, int depth)
{
	int idx = findings_add(r->f, kind);
	struct finding *x = findings_get(r->f, idx);

	x->source = source;
	x->file = r->file;
	x->ts = ev->ts;
	x->cpu = ev->cpu;
	x->pid = t ? t->pid : ev->pid;
	if (t)
		memcpy(x->comm, t->comm, sizeof(x->comm));
	x->ctx = ctx;
	x->stack_ctx = stack_ctx;
	x->addr = ev->addr;
	x->caller = ev->caller;
	x->map_caller = map_caller;
	x->top_caller = KMS_NO_SITE;
	x->depth = depth;
	return idx;
}

static void record_hold(struct replay *r, const struct frame *e,
			const struct kms_event *ev, struct task *t)
{
	struct hold_rec h;

	if (e->placeholder || ev->ts < e->ts ||
	    !stats_hold_time(r->st, ev->ts - e->ts, e->site))
		return;
	memset(&h, 0, sizeof(h));
	h.ns = ev->ts - e->ts;
	h.map_site = e->site;
	h.unmap_site = ev->caller;
	h.ts = e->ts;
	h.cpu = ev->cpu;
	h.pid = t->pid;
	memcpy(h.comm, t->comm, sizeof(h.comm));
	h.ctx = e->ctx;
	h.file = r->file;
	stats_hold_keep(r->st, &h);
}

static int nesting(struct task *t, struct cpu *c)
{
	int n = t->st.n;

	for (int k = 1; k < KMS_CTX_NR; k++)
		n += c->irq[k].n;
	return n;
}

/* the kind of a leak out of each context, as the replay finds it */
static const int leak_kind[KMS_CTX_NR] = {
	[KMS_CTX_TASK] = KMS_LEAK_TASK,
	[KMS_CTX_SOFTIRQ] = KMS_LEAK_SOFTIRQ,
	[KMS_CTX_HARDIRQ] = KMS_LEAK_HARDIRQ,
	[KMS_CTX_NMI] = KMS_LEAK_NMI,
};

/* the event being replayed may end or resolve this report: its context's */
static int pending_ours(const struct replay *r, const struct pending *p)
{
	return !p->owner ||
	       (p->owner == r->ev_task && r->ev_ctx == KMS_CTX_TASK);
}

static int pending_take(struct replay *r, struct cpu *c, int leak)
{
	for (int i = 0; i < c->npend; i++)
		if (kms_kind_is_leak(c->pend[i].ev.kind) == leak &&
		    pending_ours(r, &c->pend[i]))
			return i;
	return -1;
}

static void pending_remove(struct cpu *c, int i)
{
	memmove(&c->pend[i], &c->pend[i + 1],
		sizeof(c->pend[0]) * (c->npend - i - 1));
	c->npend--;
}

/* the stack a kernel report is about: a leak's context's, else its own */
static int report_stack(const struct kms_event *ev)
{
	int ctx = kms_leak_kind_ctx(ev->kind);

	return ctx >= 0 ? ctx : ev->ctx;
}

/* a finding of the kernel's report ev alone; the stacks of t (if any), c */
static struct finding *kernel_finding(struct replay *r, struct cpu *c,
				      const struct kms_event *ev,
				      const char *comm, struct task *t)
{
	int idx = new_finding(r, ev->kind, FS_KERNEL, ev, NULL, ev->ctx,
			      report_stack(ev), ev->map_caller, ev->depth);
	struct finding *x = findings_get(r->f, idx);

	memcpy(x->comm, comm, sizeof(x->comm));
	x->kernel_kind = ev->kind;
	if (t)
		snapshot(r, idx, t, c, ev->ctx, NULL, -1);
	x->top_caller = ev->top_caller;
	return x;
}

/* a kernel report that the replay has no finding for */
static void kernel_only(struct replay *r, struct cpu *c,
			const struct pending *p, struct task *t, int unsynced)
{
	struct finding *x = kernel_finding(r, c, &p->ev, p->comm, t);

	if (unsynced) {
		x->uncertain = 1;
		x->note =
			"the replay had not synchronised this stack (start of trace or lost events)";
	} else if (r->explains) {
		r->f->overflow_explained++;
		x->note = OVF_NOTE;
	} else {
		r->f->kernel_only++;
		x->note = "kernel only: the replay found no violation here";
	}
}

/* the reports of the event's context (t NULL: all) its pop did not follow */
static void flush_pending(struct replay *r, struct cpu *c, int only_leaks,
			  struct task *t)
{
	for (int i = 0; i < c->npend;) {
		if ((only_leaks && !kms_kind_is_leak(c->pend[i].ev.kind)) ||
		    (t && !pending_ours(r, &c->pend[i]))) {
			i++;
			continue;
		}
		struct pending p = c->pend[i];
		int uns = c->gap >= 0 && c->gap_ts >= p.ev.ts;

		if (t)
			uns |= stack_of(t, c, report_stack(&p.ev))->unsynced;
		pending_remove(c, i);
		kernel_only(r, c, &p, t, uns);
	}
}

/* match the replay's finding (or none) with the kernel's report (or none) */
static void cross_check(struct replay *r, struct cpu *c, int idx,
			int have_finding, struct task *t, int unsynced)
{
	int k;
	struct finding *x;
	struct pending p;

	if (!have_finding && !c->npend)
		return; /* the normal case: nothing to match */
	k = pending_take(r, c, 0);
	x = findings_get(r->f, idx);
	if (k < 0) {
		if (have_finding && r->explains) {
			r->f->overflow_explained++;
			x->note = OVF_NOTE;
		} else if (have_finding) {
			r->f->replay_only++;
			x->note = "replay only: no kmap_violation event";
		}
		return;
	}
	p = c->pend[k];
	pending_remove(c, k);
	if (!have_finding) {
		kernel_only(r, c, &p, t, unsynced);
		return;
	}
	x->source |= FS_KERNEL;
	x->kernel_kind = p.ev.kind;
	if (p.ev.kind == x->kind) {
		r->f->agreed++;
	} else if (r->explains) {
		r->f->overflow_explained++;
		x->note = OVF_NOTE;
	} else {
		r->f->kind_differs++;
		x->note = "the kernel reported another kind";
	}
}

/* interrupt stacks still full when the CPU runs a lower context again */
static void check_lower(struct replay *r, const struct kms_event *ev,
			struct task *t, struct cpu *c, int cur)
{
	for (int k = KMS_CTX_NR - 1; k > cur; k--) {
		struct kstack *s = &c->irq[k];
		struct finding *x;
		int idx;

		if (!s->n)
			continue;
		if (s->unsynced) {
			if (stack_real_entries(s))
				r->f->suppressed++;
			stack_resync(s, 0);
			continue;
		}
		idx = new_finding(r, leak_kind[k], FS_REPLAY, ev, t, k, k,
				  s->e[0].site, s->n);
		x = findings_get(r->f, idx);
		x->addr = s->e[0].addr;
		x->caller = KMS_NO_SITE;
		x->nleaked = s->n;
		snapshot(r, idx, t, c, k, s, 0);
		r->f->replay_only++;
		x->note =
			"replay only: the interrupt context ended holding mappings, without kmap_violation event or forced pop";
		stack_resync(s, 0);
	}
}

/* the stack as deep as the event says: else it is unsynchronised */
static void check_depth(struct replay *r, struct kstack *s, int depth)
{
	if (!s->unsynced && s->kdepth != depth) {
		r->f->depth_mismatches++;
		s->unsynced = 1;
	}
	if (s->unsynced)
		stack_resync(s, depth);
}

static void do_push(struct replay *r, const struct kms_event *ev,
		    struct task *t, struct cpu *c)
{
	struct kstack *s = stack_of(t, c, ev->ctx);
	struct frame e = { .site = ev->caller,
			   .addr = ev->addr,
			   .ts = ev->ts,
			   .ctx = (unsigned char)ev->ctx,
			   .flags = (unsigned char)ev->flags };
	int parent;

	if (s->unsynced)
		stack_resync(s, ev->depth - 1);
	e.unrec = s->kdepth++ >= KMS_STACK_SLOTS;
	parent = s->n ? s->e[s->n - 1].node : 0;
	e.node = stats_push(r->st, ev->cpu, ev->caller,
			    ev->flags & KMS_F_ATOMIC, s->n + 1, parent);
	stack_push(s, &e);
	check_depth(r, s, ev->depth);
}

static void do_forced_pop(struct replay *r, const struct kms_event *ev,
			  struct task *t, struct cpu *c)
{
	struct kstack *s = stack_of(t, c, ev->ctx);
	int i = stack_find(s, ev->addr), keep;
	int k = pending_take(r, c, 1);
	int key = ev->ctx ? -1000000 - ev->cpu : t->key;
	/* a mapping the replay did not see: a placeholder */
	struct frame e = { .site = KMS_NO_SITE,
			   .addr = ev->addr,
			   .ctx = (unsigned char)ev->ctx,
			   .placeholder = 1 };
	struct finding *x;

	if (i >= 0) {
		e = s->e[i];
		record_hold(r, &e, ev, t);
	}
	/* a forced pop that does not go on with the leak reported last */
	if (k >= 0 || !c->leak_active || c->leak_ctx != ev->ctx ||
	    c->leak_key != key) {
		int kind = leak_kind[ev->ctx];
		struct pending p = { 0 };

		if (k >= 0) {
			p = c->pend[k];
			pending_remove(c, k);
			if (kms_leak_kind_ctx(p.ev.kind) == ev->ctx)
				kind = p.ev.kind;
		}
		c->leak_idx = new_finding(r, kind, FS_REPLAY, ev, t, ev->ctx,
					  ev->ctx, e.site, s->n + (i < 0));
		x = findings_get(r->f, c->leak_idx);
		if (k >= 0) {
			x->source |= FS_KERNEL;
			x->kernel_kind = p.ev.kind;
			x->caller = p.ev.caller;
			x->depth = p.ev.depth;
			if (kms_leak_kind_ctx(p.ev.kind) == ev->ctx) {
				r->f->agreed++;
			} else {
				r->f->kind_differs++;
				x->note =
					"the kernel reported a leak of another context";
			}
		} else if (!s->unsynced) {
			r->f->replay_only++;
			x->note = "forced pop without kmap_violation event";
		}
		if (i < 0 && !s->unsynced && !x->note)
			x->note =
				"the kernel also forgot a mapping that the replay saw unmapped";
		if (s->unsynced)
			x->uncertain = 1;
		c->leak_active = 1;
		c->leak_ctx = ev->ctx;
		c->leak_key = key;
	}
	/*
	 * The kernel forgets its unrecorded mappings without an event; the
	 * replay what is above the entry, and all when the kernel's is empty
	 */
	s->kdepth =
		(s->kdepth < KMS_STACK_SLOTS ? s->kdepth : KMS_STACK_SLOTS) - 1;
	x = findings_get(r->f, c->leak_idx);
	if (i < 0 && s->unsynced)
		stack_push(s, &e);
	keep = !ev->depth && !s->unsynced ? 0 : i >= 0 ? i : s->n - s->unsynced;
	while (s->n > keep) {
		e = s->e[--s->n];
		e.marked = 1;
		x->nleaked++;
		findings_add_frame(r->f, c->leak_idx, &e);
	}
	check_depth(r, s, ev->depth);
}

static void do_pop(struct replay *r, const struct kms_event *ev, struct task *t,
		   struct cpu *c, int cur)
{
	struct kstack *s = stack_of(t, c, cur), *low = s;
	int i = stack_find(s, ev->addr), k = cur, idx = -1, have = 0;
	int unsynced = s->unsynced;

	/* on a full stack the kernel checks nothing, it counts one less */
	r->explains = s->kdepth > KMS_STACK_SLOTS || (i >= 0 && s->e[i].unrec);
	if (s->kdepth > KMS_STACK_SLOTS ||
	    (i >= 0 ? !s->e[i].unrec : !!ev->pfn))
		s->kdepth--;
	if (i >= 0 && i == s->n - 1) {
		/* the normal case */
		record_hold(r, &s->e[i], ev, t);
		stack_remove(s, i);
		cross_check(r, c, -1, 0, t, unsynced);
		check_depth(r, s, ev->depth);
		return;
	}
	/* on the stack of a context that this one interrupted? */
	while (i < 0 && k > 0) {
		low = stack_of(t, c, --k);
		i = stack_find(low, ev->addr);
		unsynced |= low->unsynced;
	}
	if (i >= 0) {
		if (s->unsynced || low->unsynced) {
			r->f->suppressed++;
		} else {
			idx = new_finding(
				r, low == s ? KMS_MISMATCH : KMS_CROSS_CONTEXT,
				FS_REPLAY, ev, t, cur, k, low->e[i].site,
				low->n);
			snapshot(r, idx, t, c, cur, low, i);
			have = 1;
		}
		/*
		 * The kernel leaves the entry of an interrupted context to
		 * its owner and says so with pfn 0
		 */
		if (low != s) {
			cross_check(r, c, idx, have, t, unsynced);
			if (!ev->pfn)
				return;
		}
		record_hold(r, &low->e[i], ev, t);
		stack_remove(low, i);
		if (low == s)
			cross_check(r, c, idx, have, t, unsynced);
		check_depth(r, low, ev->depth);
		return;
	}
	/*
	 * On no stack. The kernel gives the pfn of a mapping it found, 0 for
	 * one it did not: one made before the trace started, or while events
	 * were lost, is no violation.
	 */
	if (ev->pfn || unsynced) {
		for (int j = s->n - 1; unsynced && j >= 0; j--)
			if (s->e[j].placeholder) {
				stack_remove(s, j);
				break;
			}
		r->f->suppressed++;
		cross_check(r, c, -1, 0, t, 1);
	} else {
		idx = new_finding(r, KMS_UNKNOWN, FS_REPLAY, ev, t, cur, cur,
				  KMS_NO_SITE, s->n);
		snapshot(r, idx, t, c, cur, NULL, -1);
		cross_check(r, c, idx, 1, t, 0);
	}
	check_depth(r, s, ev->depth);
}

/* a slot for a report to wait in; on a full CPU, those waiting end unmatched */
static struct pending *pending_slot(struct replay *r, struct cpu *c)
{
	if (c->npend == MAX_PENDING)
		flush_pending(r, c, 0, NULL);
	return &c->pend[c->npend++];
}

static void do_violation(struct replay *r, const struct kms_event *ev,
			 struct task *t, struct cpu *c)
{
	struct pending *p;

	r->f->kernel_events++;
	if (ev->kind < 1 || ev->kind > KMS_ABI_KIND_MAX)
		return;
	/*
	 * The kernel still traces the push and the pop; a cross-context
	 * report without an address is of a handler that returned having
	 * unmapped what the context it interrupted mapped, pops traced already
	 */
	if (kms_kind_is_report_only(ev->kind) ||
	    (ev->kind == KMS_CROSS_CONTEXT && !ev->addr)) {
		kernel_finding(r, c, ev, t->comm, t)->note =
			ev->kind == KMS_OVERFLOW ?
				"reported by the kernel only: it does not record the mapping, the replay does" :
				"reported by the kernel only: a report, the stacks are unchanged";
		return;
	}
	p = pending_slot(r, c);
	p->ev = *ev;
	p->ev.comm = NULL;
	p->owner = ev->ctx == KMS_CTX_TASK ? t : NULL;
	memcpy(p->comm, t->comm, sizeof(p->comm));
}

/* a task's reports waiting for their pops go where it runs now */
static void pending_follow(struct replay *r, struct task *t, struct cpu *c)
{
	struct cpu *last;

	if (t->last_cpu < 0 || t->last_cpu >= r->ncpus)
		return;
	last = &r->cpus[t->last_cpu];
	for (int i = 0; last != c && i < last->npend;) {
		if (last->pend[i].owner != t) {
			i++;
			continue;
		}
		*pending_slot(r, c) = last->pend[i];
		pending_remove(last, i);
	}
}

/* has the task run where events were lost since we last saw it? */
static void task_touch(struct replay *r, struct task *t, struct cpu *c,
		       int created)
{
	if (created) {
		if (r->any_gap)
			stack_unsync(r, &t->st, c->gap);
		return;
	}
	if (t->last_cpu >= 0 && t->last_cpu < r->ncpus) {
		struct cpu *last = &r->cpus[t->last_cpu];

		if (last->gap_gen != t->gap_gen)
			stack_unsync(r, &t->st, last->gap);
		else if (last != c && c->gap >= 0 && c->gap_ts > t->last_ts)
			stack_unsync(r, &t->st, c->gap);
	}
}

/*
 * An event that --pid, --comm or --cpu leaves out: the stack it would have
 * changed no longer follows the kernel's, as after lost events.
 */
static void filtered_out(struct replay *r, const struct kms_event *ev)
{
	struct kstack *s = NULL;

	if (ev->type == KMS_EV_VIOLATION)
		return;
	if (ev->ctx != KMS_CTX_TASK) {
		s = &get_cpu(r, ev->cpu)->irq[ev->ctx];
	} else {
		int i = htab_get(&r->task_of,
				 (uint64_t)(int64_t)task_key(ev->pid, ev->cpu));

		if (i >= 0)
			s = &r->tasks[i]->st;
	}
	if (s && !s->unsynced)
		stack_unsync(r, s, -1);
}

void replay_event(struct replay *r, const struct kms_event *ev)
{
	struct cpu *c;
	struct task *t;
	int created, cur, forced;

	if (ev->cpu < 0 || ev->cpu >= REPLAY_MAX_CPUS || ev->ctx < 0 ||
	    ev->ctx >= KMS_CTX_NR)
		return;
	if (r->filt) {
		if (!filter_time_match(r->filt, ev->ts))
			return;
		if (r->filt->by_task && !filter_task_match(r->filt, ev)) {
			filtered_out(r, ev);
			return;
		}
	}
	c = get_cpu(r, ev->cpu);
	t = get_task(r, c, ev, &created);
	task_touch(r, t, c, created);
	pending_follow(r, t, c);
	r->st->events++;

	if (ev->type == KMS_EV_VIOLATION) {
		do_violation(r, ev, t, c);
		goto out;
	}
	forced = ev->type == KMS_EV_POP && (ev->flags & KMS_F_FORCED);
	/*
	 * A push is made on the stack of the context it runs in; a pop says
	 * which stack it removed from, which is the context it runs in or
	 * one that it interrupted. The record flags tell the context, but
	 * text may lack them or lack the NMI bit (trace-cmd report -l).
	 */
	if (ev->type == KMS_EV_PUSH && ev->in_ctx >= 0 && ev->in_ctx != ev->ctx)
		r->flags_unreliable = 1; /* PREEMPT_RT, or text without NMI */
	if (ev->type == KMS_EV_PUSH || forced || ev->in_ctx < 0 ||
	    ev->in_ctx >= KMS_CTX_NR || ev->in_ctx < ev->ctx ||
	    r->flags_unreliable)
		cur = ev->ctx;
	else
		cur = ev->in_ctx;
	r->ev_task = t;
	r->ev_ctx = cur;
	if (!forced) {
		c->leak_active = 0;
		if (c->npend) /* most events find no report waiting */
			flush_pending(r, c, 1, t);
		/* a pop's ctx is the stack, not the context, without flags */
		if (ev->type == KMS_EV_PUSH ||
		    (ev->in_ctx >= 0 && !r->flags_unreliable))
			check_lower(r, ev, t, c, cur);
	}
	if (ev->type == KMS_EV_PUSH) {
		if (c->npend)
			flush_pending(r, c, 0, t);
		do_push(r, ev, t, c);
	} else {
		r->st->pops++;
		if (forced)
			do_forced_pop(r, ev, t, c);
		else
			do_pop(r, ev, t, c, cur);
	}
	stats_nesting(r->st, ev->cpu, ev->ts, nesting(t, c));
out:
	r->explains = 0; /* for the next event's reports, and lost events' */
	c->last_task = t;
	t->last_cpu = ev->cpu;
	t->gap_gen = c->gap_gen;
	t->last_ts = ev->ts;
}

void replay_lost(struct replay *r, int cpu, unsigned long long ts,
		 long long missed)
{
	struct cpu *c;
	struct gap *g;

	if (cpu < 0 || cpu >= REPLAY_MAX_CPUS)
		return;
	if (r->filt && (!filter_cpu_match(r->filt, cpu) ||
			!filter_time_match(r->filt, ts)))
		return;
	c = get_cpu(r, cpu);
	g = findings_add_gap(r->f);
	if (g)
		*g = (struct gap){
			.file = r->file, .cpu = cpu, .ts = ts, .missed = missed
		};
	/* a count from text may be anything: the sum saturates */
	if (missed >= 0)
		r->f->lost_events = missed > LLONG_MAX - r->f->lost_events ?
					    LLONG_MAX :
					    r->f->lost_events + missed;
	else
		r->f->lost_unknown++;
	c->gap_gen++;
	c->gap_ts = ts;
	c->gap = g ? (int)(g - r->f->gaps) : -1;
	r->any_gap = 1;
	c->leak_active = 0;
	/* what was waiting for its pop may have lost it */
	for (int i = 0; i < c->npend; i++)
		kernel_only(r, c, &c->pend[i], NULL, 1);
	c->npend = 0;
	for (int k = 1; k < KMS_CTX_NR; k++)
		stack_unsync(r, &c->irq[k], c->gap);
}

static void held_at_end(struct replay *r, struct task *t, struct kstack *s,
			int ctx, int cpu)
{
	struct kms_event ev = { .cpu = cpu, .caller = KMS_NO_SITE };
	struct finding *x;
	int idx, top = s->n - 1;

	while (top >= 0 && s->e[top].placeholder)
		top--;
	if (top < 0)
		return;
	ev.ts = t ? t->last_ts : 0;
	ev.pid = t ? t->pid : -1;
	ev.addr = s->e[top].addr;
	idx = new_finding(r, KMS_HELD_AT_END, FS_REPLAY, &ev, t, ctx, ctx,
			  s->e[top].site, s->n);
	x = findings_get(r->f, idx);
	x->nleaked = stack_real_entries(s);
	r->f->held_mappings += x->nleaked;
	for (int i = s->n - 1; i >= 0; i--)
		findings_add_frame(r->f, idx, &s->e[i]);
	x->top_caller = s->e[top].site;
	if (s->unsynced) {
		x->uncertain = 1;
		x->note = "the replay lost events of this stack";
	}
}

void replay_finish(struct replay *r)
{
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		flush_pending(r, &r->cpus[cpu], 0, NULL);
	for (int i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];

		if (!t->st.n)
			continue;
		if (t->last_cpu >= 0 && t->last_cpu < r->ncpus &&
		    r->cpus[t->last_cpu].gap_gen != t->gap_gen)
			t->st.unsynced = 1;
		held_at_end(r, t, &t->st, KMS_CTX_TASK,
			    t->last_cpu < 0 ? 0 : t->last_cpu);
	}
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		for (int k = 1; k < KMS_CTX_NR; k++)
			if (r->cpus[cpu].irq[k].n)
				held_at_end(r, r->cpus[cpu].last_task,
					    &r->cpus[cpu].irq[k], k, cpu);
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ntasks; i++) {
		free(r->tasks[i]->st.e);
		free(r->tasks[i]);
	}
	free(r->tasks);
	htab_free(&r->task_of);
	for (int i = 0; i < r->ncpus; i++)
		for (int k = 0; k < KMS_CTX_NR; k++)
			free(r->cpus[i].irq[k].e);
	free(r->cpus);
	free(r);
}
