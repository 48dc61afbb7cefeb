// SPDX-License-Identifier: GPL-2.0
/*
 * The shapes of the bugs the check found in Linux 6.12 (the erofs one
 * is metabuf.c's find_block()).  fs/ufs's ufs_rename() is found as a
 * mapping held at the return (its delete helper releases through an
 * address it computes, which is not derived as a release); a small copy
 * of it is not found yet, see docs/static-check.md.
 */

/* drivers/crypto/intel/iaa: two mappings at an offset, the older released first */
int decompress_fallback(struct acomp_req *req)
{
	void *src, *dst;
	int ret;

	src = kmap_local_page(sg_page(req->src)) + req->src->offset;
	dst = kmap_local_page(sg_page(req->dst)) + req->dst->offset;
	ret = decompress(src, req->slen, dst, &req->dlen);
	kunmap_local(src); /* EXPECT: order */
	kunmap_local(dst);
	return ret;
}

/* arch/x86/kvm/svm/sev.c: the error path leaves the mapping held */
int populate(struct page **pages, const char __user *src, int n)
{
	int ret = 0, i;

	for (i = 0; i < n; i++) {
		if (src) {
			void *vaddr = kmap_local_page(pages[i]);

			if (copy_from_user(vaddr, src + i * PAGE_SIZE, PAGE_SIZE)) {
				ret = -EFAULT;
				goto err;
			}
			kunmap_local(vaddr);
		}
	}
	return 0;
err:
	cleanup(pages, i);
	return ret; /* EXPECT: held */
}
