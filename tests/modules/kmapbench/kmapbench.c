// SPDX-License-Identifier: GPL-2.0
/*
 * kmapbench: the cost of a kmap map+unmap pair, for scripts/bench.sh.
 *
 * For kmap_local_page() and kmap_atomic(), lowmem and highmem pages, nesting
 * depths 1, 4 and the most the real stack holds (15; 16 with
 * DEBUG_KMAP_LOCAL), in task context and in a hard interrupt (irq_work), time
 * @iters rounds of "map @depth pages, unmap them in reverse" @runs times and
 * print the median in ns per pair; and, as the reference point of a debug
 * facility people accept, the same for a spin_lock()/spin_unlock() pair.
 *
 *   kmapbench: api=local page=high depth=4 ctx=task ns=12.34 runs=5 iters=20000
 *
 * With DEBUG_KMAP_STACK_TRACES it also times the parts of saving a stack
 * trace, in task context: stack_trace_save() of 4 to 16 frames, and
 * stack_depot_save() of a trace the depot holds already:
 *
 *   kmapbench: part=unwind frames=12 ns=3456.00 iters=2000
 *
 * The module does its work in init and stays loaded (nothing to do then):
 * rmmod it to run it again.  It does not fail its init on purpose to avoid
 * the rmmod, because busybox's insmod answers any finit_module() error by
 * trying init_module() with the same file, which would run it twice.
 */
#include <linux/highmem.h>
#include <asm/kmap_size.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>

static unsigned int runs = 5;
module_param(runs, uint, 0444);
static unsigned int iters = 20000;
module_param(iters, uint, 0444);

#define MAX_DEPTH	16
#define MAX_RUNS	15

/*
 * Mappings the real kmap stack holds, interrupts included (KM_MAX_IDX slots,
 * two per mapping with DEBUG_KMAP_LOCAL's guard slots, and the push that
 * fills the last one is a BUG): a deeper nesting is a bug that
 * DEBUG_KMAP_STACK reports, also where lowmem pages take no slot, so the
 * deepest case stops there
 */
#define REAL_SLOTS \
	((KM_MAX_IDX - 1) / (IS_ENABLED(CONFIG_DEBUG_KMAP_LOCAL) ? 2 : 1))

static struct page *pages[2][MAX_DEPTH];	/* [lowmem, highmem] */
/*
 * One lock for task context, one for the hard interrupt: a lock taken with
 * interrupts on and in a hard interrupt is a lockdep splat ("inconsistent
 * lock state"), after which lockdep turns itself off and the reference
 * figure would be the cost of a disabled lockdep
 */
static DEFINE_SPINLOCK(bench_lock_task);
static DEFINE_SPINLOCK(bench_lock_irq);

struct bench {
	bool atomic, spin;
	spinlock_t *lock;	/* the spin_lock() case: this context's lock */
	int page, depth;
	u64 ns;
	struct irq_work work;
};

static noinline void bench_round(struct bench *b)
{
	void *addr[MAX_DEPTH];
	unsigned int i;
	int d;

	for (i = 0; i < iters; i++) {
		if (b->spin) {
			spin_lock(b->lock);
			spin_unlock(b->lock);
			continue;
		}
		for (d = 0; d < b->depth; d++)
			addr[d] = b->atomic ? kmap_atomic(pages[b->page][d]) :
					      kmap_local_page(pages[b->page][d]);
		for (d = b->depth; d-- > 0;) {
			if (b->atomic)
				kunmap_atomic(addr[d]);
			else
				kunmap_local(addr[d]);
		}
	}
}

static void bench_timed(struct bench *b)
{
	u64 t0 = local_clock();

	bench_round(b);
	b->ns = local_clock() - t0;
}

static void bench_irq_work(struct irq_work *w)
{
	bench_timed(container_of(w, struct bench, work));
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void bench_case(bool spin, bool atomic, int page, int depth, bool irq)
{
	struct bench b = {
		.atomic	= atomic,
		.spin	= spin,
		.lock	= irq ? &bench_lock_irq : &bench_lock_task,
		.page	= page,
	};
	u64 t[MAX_RUNS], med;
	unsigned int r, n = min_t(unsigned int, runs, MAX_RUNS);

	if (depth > REAL_SLOTS)
		depth = REAL_SLOTS;
	b.depth = spin ? 1 : depth;
	init_irq_work(&b.work, bench_irq_work);
	for (r = 0; r < n; r++) {
		if (irq) {
			preempt_disable();
			irq_work_queue(&b.work);
			preempt_enable();
			irq_work_sync(&b.work);
		} else {
			bench_timed(&b);
		}
		t[r] = b.ns;
	}
	sort(t, n, sizeof(t[0]), cmp_u64, NULL);
	/* ns per pair, with two decimals */
	med = div_u64(t[n / 2] * 100, (u64)iters * b.depth);
	if (spin)
		pr_info("kmapbench: api=spin_lock page=- depth=1 ctx=%s ns=%llu.%02llu runs=%u iters=%u\n",
			irq ? "hardirq" : "task", med / 100, med % 100, n, iters);
	else
		pr_info("kmapbench: api=%s page=%s depth=%d ctx=%s ns=%llu.%02llu runs=%u iters=%u\n",
			atomic ? "atomic" : "local", page ? "high" : "low", depth,
			irq ? "hardirq" : "task", med / 100, med % 100, n, iters);
}

#ifdef CONFIG_DEBUG_KMAP_STACK_TRACES
/* Called as kmap_stack_save_trace() is, a few frames below a bench loop */
static noinline unsigned int bench_unwind(unsigned long *e, unsigned int n)
{
	return stack_trace_save(e, n, 0);
}

static void bench_part(const char *part, unsigned int frames, u64 t0)
{
	u64 ns = div_u64((local_clock() - t0) * 100, iters);

	pr_info("kmapbench: part=%s frames=%u ns=%llu.%02llu iters=%u\n",
		part, frames, ns / 100, ns % 100, iters);
}

static void bench_trace_parts(void)
{
	static const unsigned int frames[] = { 4, 8, 12, 16 };
	unsigned long e[16];
	unsigned int i, j, n;
	u64 t0;

	for (j = 0; j < ARRAY_SIZE(frames); j++) {
		t0 = local_clock();
		for (i = 0; i < iters; i++)
			bench_unwind(e, frames[j]);
		bench_part("unwind", frames[j], t0);
	}
	n = bench_unwind(e, 8);
	stack_depot_save(e, n, GFP_KERNEL);
	t0 = local_clock();
	for (i = 0; i < iters; i++)
		stack_depot_save(e, n, GFP_NOWAIT);
	bench_part("depot", n, t0);
}
#else
static void bench_trace_parts(void)
{
}
#endif

static int __init kmapbench_init(void)
{
	static const int depths[] = { 1, 4, 16 };
	int p, d, a, irq, i;
	int ret = -ENOMEM;

	for (p = 0; p < 2; p++)
		for (d = 0; d < MAX_DEPTH; d++) {
			pages[p][d] = alloc_page(p ? GFP_HIGHUSER : GFP_KERNEL);
			if (!pages[p][d])
				goto out;
		}
	for (irq = 0; irq < 2; irq++) {
		for (a = 0; a < 2; a++)
			for (p = 0; p < 2; p++)
				for (i = 0; i < ARRAY_SIZE(depths); i++)
					bench_case(false, a, p, depths[i], irq);
		bench_case(true, false, 0, 1, irq);
	}
	bench_trace_parts();
	pr_info("kmapbench: done\n");
	ret = 0;
out:
	for (p = 0; p < 2; p++)
		for (d = 0; d < MAX_DEPTH; d++)
			if (pages[p][d])
				__free_page(pages[p][d]);
	return ret;
}

static void __exit kmapbench_exit(void)
{
}

module_init(kmapbench_init);
module_exit(kmapbench_exit);
MODULE_DESCRIPTION("Cost of kmap_local/kmap_atomic map+unmap pairs");
MODULE_LICENSE("GPL");
