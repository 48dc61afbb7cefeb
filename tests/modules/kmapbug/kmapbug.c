// SPDX-License-Identifier: GPL-2.0
/*
 * kmapbug: kmap_local misuse on demand, to test CONFIG_DEBUG_KMAP_STACK
 * and its tools from the outside, as a buggy driver would.
 *
 *   insmod kmapbug.ko bug=wrong_order  unmap the outer of two mappings first
 *   insmod kmapbug.ko bug=leak_user    return from init_module() holding one
 *   insmod kmapbug.ko bug=double_unmap unmap the inner of two mappings twice
 *   insmod kmapbug.ko bug=leak_init_fail  fail init_module() holding one: the
 *                                      module's code is gone before the task
 *                                      returns to user space
 *   insmod kmapbug.ko bug=hold         a kthread holds three mappings, nested,
 *                                      until the module is removed (post-mortem)
 *   insmod kmapbug.ko bug=balanced     correct use only: must stay silent
 *
 * and the same at any time while it is loaded, by writing the name to the
 * write-only parameter "run", plus "release" to end a hold:
 *
 *   echo hold > /sys/module/kmapbug/parameters/run
 *   echo release > /sys/module/kmapbug/parameters/run
 *
 * so that tools which read the module's symbols once (bpftrace) can start
 * after the module is loaded and still see every bug happen.
 *
 * The module is never loaded by a kernel without the bugs being wanted.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *bug = "balanced";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "wrong_order, leak_user, double_unmap, leak_init_fail, hold or balanced");

static struct page *pages[3];
static struct task_struct *holder;
static DECLARE_COMPLETION(held);
/* Serialises the bugs run through the "run" parameter */
static DEFINE_MUTEX(run_lock);

static noinline void *kmapbug_map_first(struct page *page)
{
	u32 *p = kmap_local_page(page);

	WRITE_ONCE(*p, 1);
	return p;
}

static noinline void *kmapbug_map_second(struct page *page)
{
	u32 *p = kmap_local_page(page);

	WRITE_ONCE(*p, 2);
	return p;
}

static noinline void *kmapbug_map_third(struct page *page)
{
	u32 *p = kmap_local_page(page);

	WRITE_ONCE(*p, 3);
	return p;
}

/*
 * The unmap helpers do not touch the page: after a wrong-order unmap,
 * mm/highmem.c has torn down the top mapping, whichever was asked for.
 * Each counts its calls in a counter of its own, so that the compiler
 * cannot fold the two identical bodies into one function (-fipa-icf),
 * which the reports would then name for both.
 */
static unsigned long kmapbug_unmaps[2];

static noinline void kmapbug_unmap_first(void *addr)
{
	kunmap_local(addr);
	WRITE_ONCE(kmapbug_unmaps[0], kmapbug_unmaps[0] + 1);
}

static noinline void kmapbug_unmap_second(void *addr)
{
	kunmap_local(addr);
	WRITE_ONCE(kmapbug_unmaps[1], kmapbug_unmaps[1] + 1);
}

static noinline void kmapbug_wrong_order(void)
{
	void *a = kmapbug_map_first(pages[0]);
	void *b = kmapbug_map_second(pages[1]);

	kmapbug_unmap_first(a);
	kmapbug_unmap_second(b);
}

static noinline void kmapbug_balanced(void)
{
	void *a = kmapbug_map_first(pages[0]);
	void *b = kmapbug_map_second(pages[1]);

	kmapbug_unmap_second(b);
	kmapbug_unmap_first(a);
}

static noinline void kmapbug_leak_user(void)
{
	kmapbug_map_third(pages[2]);
}

/*
 * Unmap the inner mapping twice: the second unmap names an address that is
 * on no slot. The real kmap state must stay consistent: a task that still
 * has a slot in use is still pinned to its CPU.
 */
static noinline void kmapbug_double_unmap(void)
{
	int idx = -1, pinned = -1;
	void *b;

	kmapbug_map_first(pages[0]);
	b = kmapbug_map_second(pages[1]);
	kmapbug_unmap_second(b);
	kmapbug_unmap_second(b);
#ifdef CONFIG_KMAP_LOCAL
	idx = current->kmap_ctrl.idx;
#endif
#ifdef CONFIG_SMP
	pinned = current->migration_disabled;
#endif
	pr_info("kmapbug: double_unmap: kmap_ctrl.idx=%d migration_disabled=%d\n",
		idx, pinned);
}

static int kmapbug_holder(void *data)
{
	void *a = kmapbug_map_first(pages[0]);
	void *b = kmapbug_map_second(pages[1]);
	void *c = kmapbug_map_third(pages[2]);

	complete(&held);
	while (!kthread_should_stop())
		msleep(20);
	kunmap_local(c);
	kmapbug_unmap_second(b);
	kmapbug_unmap_first(a);
	return 0;
}

static int kmapbug_hold(void)
{
	if (holder)
		return -EBUSY;
	reinit_completion(&held);
	holder = kthread_run(kmapbug_holder, NULL, "kmapbug_holder");
	if (IS_ERR(holder)) {
		int err = PTR_ERR(holder);

		holder = NULL;
		return err;
	}
	wait_for_completion(&held);
	return 0;
}

static void kmapbug_release(void)
{
	if (holder)
		kthread_stop(holder);
	holder = NULL;
}

/* Do the bug @name (sysfs_streq: a trailing newline is fine) */
static int kmapbug_do(const char *name)
{
	if (sysfs_streq(name, "wrong_order"))
		kmapbug_wrong_order();
	else if (sysfs_streq(name, "leak_user"))
		kmapbug_leak_user();
	else if (sysfs_streq(name, "double_unmap"))
		kmapbug_double_unmap();
	else if (sysfs_streq(name, "hold"))
		return kmapbug_hold();
	else if (sysfs_streq(name, "release"))
		kmapbug_release();
	else if (sysfs_streq(name, "balanced"))
		kmapbug_balanced();
	else
		return -EINVAL;
	return 0;
}

static int kmapbug_run_set(const char *val, const struct kernel_param *kp)
{
	int err;

	/* Only once init is done: pages[] are allocated by then */
	if (!pages[ARRAY_SIZE(pages) - 1])
		return -EAGAIN;
	mutex_lock(&run_lock);
	err = kmapbug_do(val);
	mutex_unlock(&run_lock);
	if (!err)
		pr_info("kmapbug: run=%s", val);
	return err;
}

static const struct kernel_param_ops kmapbug_run_ops = {
	.set = kmapbug_run_set,
};
module_param_cb(run, &kmapbug_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "wrong_order, leak_user, double_unmap, hold, release or balanced, now");

static int __init kmapbug_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_page(GFP_HIGHUSER);
		if (!pages[i]) {
			err = -ENOMEM;
			goto free;
		}
	}
	pr_info("kmapbug: bug=%s\n", bug);
	if (sysfs_streq(bug, "release")) {
		err = -EINVAL;
		goto free;
	}
	/* Fail the init holding a mapping, as a buggy driver would */
	if (sysfs_streq(bug, "leak_init_fail")) {
		kmapbug_leak_user();
		err = -EIO;
		goto free;
	}
	err = kmapbug_do(bug);
	if (err) {
		if (err == -EINVAL)
			pr_err("kmapbug: unknown bug '%s'\n", bug);
		goto free;
	}
	return 0;

free:
	while (i--) {
		__free_page(pages[i]);
		pages[i] = NULL;
	}
	return err;
}

static void __exit kmapbug_exit(void)
{
	int i;

	kmapbug_release();
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		__free_page(pages[i]);
}

module_init(kmapbug_init);
module_exit(kmapbug_exit);
MODULE_DESCRIPTION("kmap_local misuse on demand, for CONFIG_DEBUG_KMAP_STACK");
MODULE_LICENSE("GPL");
