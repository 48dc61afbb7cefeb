// SPDX-License-Identifier: GPL-2.0
/*
 * The shapes of the bugs the check found in Linux 6.12 (the erofs one
 * is metabuf.c's find_block()).
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

/*
 * fs/ufs: the delete helper releases the old entry through an address it
 * computes, which the derivation does not follow: the entry is seen held
 * at the return, while the ".." entry mapped after it is released later
 * (the bug is an order one).
 */
static void *u_get_folio(struct inode *dir, unsigned long n,
			 struct folio **foliop)
{
	struct folio *folio = read_mapping_folio(dir->i_mapping, n, NULL);

	if (IS_ERR(folio))
		return NULL;
	*foliop = folio;
	return kmap_local_folio(folio, 0);
}

struct u_dirent *u_find_entry(struct inode *dir, const char *name,
			      struct folio **foliop)
{
	struct u_dirent *de = u_get_folio(dir, 0, foliop);

	if (!de)
		return NULL;
	return de + match(de, name);
}

int u_rename(struct inode *old_dir, struct inode *new_dir, const char *name)
{
	struct folio *old_folio, *dir_folio;
	struct u_dirent *old_de, *dir_de;
	int err = -ENOENT;

	old_de = u_find_entry(old_dir, name, &old_folio);
	if (!old_de)
		goto out;
	err = -EIO;
	dir_de = u_dotdot(new_dir, &dir_folio);
	if (!dir_de)
		goto out_old;
	u_delete_entry(old_dir, old_de, old_folio);
	set_link(dir_de, dir_folio);
	return 0; /* EXPECT: held */

out_old:
	folio_release_kmap(old_folio, old_de);
out:
	return err;
}
