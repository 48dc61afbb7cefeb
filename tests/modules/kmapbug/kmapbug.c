// SPDX-License-Identifier: GPL-2.0
/*
 * kmapbug: kmap_local misuse on demand, to test CONFIG_DEBUG_KMAP_STACK
 * and its tools from the outside, as a buggy driver would.
 *
 *   insmod kmapbug.ko bug=wrong_order  unmap the outer of two mappings first
 *   insmod kmapbug.ko bug=leak_user    return from init_module() holding one
 *   insmod kmapbug.ko bug=hold         a kthread holds three mappings, nested,
 *                                      until the module is removed (post-mortem)
 *   insmod kmapbug.ko bug=balanced     correct use only: must stay silent
 *
 * The module is never loaded by a kernel without the bugs being wanted.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

static char *bug = "balanced";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "wrong_order, leak_user, hold or balanced");

static struct page *pages[3];
static struct task_struct *holder;
static DECLARE_COMPLETION(held);

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

static noinline void kmapbug_unmap_first(void *addr)
{
	WRITE_ONCE(*(u32 *)addr, 4);
	kunmap_local(addr);
}

static noinline void kmapbug_unmap_second(void *addr)
{
	WRITE_ONCE(*(u32 *)addr, 5);
	kunmap_local(addr);
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

static int __init kmapbug_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_page(GFP_HIGHUSER);
		if (!pages[i])
			goto nomem;
	}
	pr_info("kmapbug: bug=%s\n", bug);
	if (!strcmp(bug, "wrong_order")) {
		kmapbug_wrong_order();
	} else if (!strcmp(bug, "leak_user")) {
		kmapbug_leak_user();
	} else if (!strcmp(bug, "hold")) {
		holder = kthread_run(kmapbug_holder, NULL, "kmapbug_holder");
		if (IS_ERR(holder)) {
			i = ARRAY_SIZE(pages);
			goto nomem;
		}
		wait_for_completion(&held);
	} else if (!strcmp(bug, "balanced")) {
		kmapbug_balanced();
	} else {
		pr_err("kmapbug: unknown bug '%s'\n", bug);
		i = ARRAY_SIZE(pages);
		goto inval;
	}
	return 0;

inval:
	while (i--)
		__free_page(pages[i]);
	return -EINVAL;
nomem:
	while (i--)
		__free_page(pages[i]);
	return -ENOMEM;
}

static void __exit kmapbug_exit(void)
{
	int i;

	if (holder)
		kthread_stop(holder);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		__free_page(pages[i]);
}

module_init(kmapbug_init);
module_exit(kmapbug_exit);
MODULE_DESCRIPTION("kmap_local misuse on demand, for CONFIG_DEBUG_KMAP_STACK");
MODULE_LICENSE("GPL");
