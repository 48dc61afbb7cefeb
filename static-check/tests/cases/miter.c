// SPDX-License-Identifier: GPL-2.0
/* sg_miter_next() maps into the iterator, sg_miter_stop() releases it. */

/* near miss: the iterator's mappings are all newer than dst */
void copy_across(struct scatterlist *sg, unsigned int nents, struct page *page)
{
	struct sg_mapping_iter miter;
	void *dst;

	sg_miter_start(&miter, sg, nents, SG_MITER_FROM_SG);
	dst = kmap_local_page(page);
	while (sg_miter_next(&miter))
		memcpy(dst, miter.addr, miter.length);
	sg_miter_stop(&miter);
	kunmap_local(dst);
}

void copy_wrong2(struct scatterlist *sg, unsigned int nents, struct page *page)
{
	struct sg_mapping_iter miter;
	void *dst;

	sg_miter_start(&miter, sg, nents, SG_MITER_FROM_SG);
	if (sg_miter_next(&miter)) {
		dst = kmap_local_page(page);
		memcpy(dst, miter.addr, miter.length);
		sg_miter_stop(&miter); /* EXPECT: order */
		kunmap_local(dst);
	}
}

/* near miss */
void copy_right(struct scatterlist *sg, unsigned int nents, struct page *page)
{
	struct sg_mapping_iter miter;
	void *dst;

	sg_miter_start(&miter, sg, nents, SG_MITER_FROM_SG);
	if (sg_miter_next(&miter)) {
		dst = kmap_local_page(page);
		memcpy(dst, miter.addr, miter.length);
		kunmap_local(dst);
		sg_miter_stop(&miter);
	}
}
