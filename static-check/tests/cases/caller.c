// SPDX-License-Identifier: GPL-2.0
/* A mapping the caller made is older than any made here. */

/* releasing the caller's mapping while ours is held */
void swap_caller_mapping(void *callers, struct page *page)
{
	void *mine = kmap_local_page(page);

	kunmap_local(callers); /* EXPECT: order */
	kunmap_local(mine);
}

/* near miss: ours first */
void release_callers_after(void *callers, struct page *page)
{
	void *mine = kmap_local_page(page);

	kunmap_local(mine);
	kunmap_local(callers);
}
