// SPDX-License-Identifier: GPL-2.0
/*
 * Paths a match that does not follow conditions finds, and that no run
 * takes: near misses, none is a finding.
 */
struct mbuf {
	struct address_space *mapping;
	struct page *page;
	void *base;
};

void pb_put(struct mbuf *buf)
{
	if (!buf->base)
		return;
	kunmap_local(buf->base);
	buf->base = NULL;
}

void *pb_read(struct mbuf *buf, struct page *page)
{
	struct folio *folio = read_cache_folio(buf->mapping, 0, NULL, NULL);

	if (IS_ERR(folio))
		return folio;
	buf->page = page;
	buf->base = kmap_local_page(buf->page);
	return buf->base;
}

/* the second mapping is made on one branch and released under if (d) */
int guarded_release(struct page *a, struct page *b, bool both)
{
	void *old = kmap_local_page(a);
	void *d = NULL;

	if (both)
		d = kmap_local_page(b);
	use(old, d);
	if (d)
		kunmap_local(d);
	kunmap_local(old);
	return 0;
}

/* released under the flag that says it was mapped */
int correlated(struct page *page, void *vmapped)
{
	void *p;
	int kmapped = 0;

	if (!vmapped) {
		p = kmap_local_page(page);
		kmapped = 1;
	} else {
		p = vmapped;
	}
	use(p);
	if (kmapped)
		kunmap_local(p);
	return 0;
}

/* the caller's buffer released on the path where the mapping failed */
int success_tested(struct mbuf *target, struct page *page)
{
	struct mbuf buf = { };
	void *de;

	de = pb_read(&buf, page);
	if (!IS_ERR(de)) {
		use(de);
		pb_put(&buf);
		return 0;
	}
	pb_put(target);
	return PTR_ERR(de);
}

/* a buffer never mapped here: its helper's release does nothing */
int unmapped_local(struct page *page)
{
	struct mbuf spare = { };
	void *p = kmap_local_page(page);

	use(p);
	pb_put(&spare);
	kunmap_local(p);
	return 0;
}

/* released through a cast of the same address */
void release_cast(struct page *a, struct page *b)
{
	unsigned long outer = (unsigned long)kmap_local_page(a);
	void *addr = kmap_local_page(b);

	use(addr);
	kunmap_local((void *)addr);
	kunmap_local((void *)outer);
}

/* two names of one mapping, given in one statement */
void chained(struct page *a, struct page *b)
{
	void *outer = kmap_local_page(a);
	u32 *save, *p;

	save = p = kmap_local_page(b);
	fill(&p);
	kunmap_local(save);
	kunmap_local(outer);
}

struct host {
	struct sg_mapping_iter miter;
};

/* an iterator known by two names */
void two_names(struct host *host, struct page *page)
{
	struct sg_mapping_iter *sgm = &host->miter;
	void *d;

	if (!sg_miter_next(sgm))
		return;
	d = kmap_local_page(page);
	memcpy(d, sgm->addr, 8);
	kunmap_local(d);
	sg_miter_stop(&host->miter);
}

/* the iterator is stopped at the end of each round: the next round's
 * stop, when the inner loop does not run, releases nothing */
void stopped_each_round(struct scatterlist *sg, struct page **pages, int n,
			size_t len)
{
	struct sg_mapping_iter it;
	int i;

	sg_miter_start(&it, sg, n, SG_MITER_FROM_SG);
	for (i = 0; i < n; i++) {
		void *d = kmap_local_page(pages[i]);
		size_t left = len;

		while (left) {
			if (!sg_miter_next(&it))
				break;
			memcpy(d, it.addr, it.length);
			left -= it.length;
		}
		sg_miter_stop(&it);
		kunmap_local(d);
	}
}

/* one more element after a loop, all released in reverse */
void parity(struct page **pg, void **ptrs, int n)
{
	int s;

	for (s = 0; s < n; s++)
		ptrs[s] = kmap_local_page(pg[s]);
	ptrs[s++] = kmap_local_page(pg[n]);
	do_xor(ptrs, s);
	for (s = s - 1; s >= 0; s--)
		kunmap_local(ptrs[s]);
}

/* released through the address of a field inside the mapping */
int header_list(struct page *a)
{
	struct hdr *header = kmap_local_page(a);
	struct lst *list = &header->list;
	int v = list->x;

	kunmap_local(list);
	return v;
}

/* a helper returning a mapped entry, released with folio_release_kmap() */
static void *entry_get(struct inode *dir, struct folio **foliop)
{
	struct folio *folio = read_mapping_folio(dir->i_mapping, 0, NULL);

	if (IS_ERR(folio))
		return ERR_CAST(folio);
	*foliop = folio;
	return kmap_local_folio(folio, 0);
}

/* the failure of a declared mapping tested: nothing held there */
int declared_then_tested(struct inode *dir)
{
	struct folio *folio;
	struct entry *e = entry_get(dir, &folio);

	if (IS_ERR(e))
		return 0;
	use(e);
	folio_release_kmap(folio, e);
	return 1;
}

/* handed to the caller through a function of the mapping */
struct entry *next_of_first(struct inode *dir, struct folio **foliop)
{
	struct entry *e, *next;

	e = entry_get(dir, foliop);
	if (IS_ERR(e))
		return e;
	next = entry_next(e);
	return next;
}

/* released by a helper that takes the address fourth */
void obj_read_end(struct pool *pool, unsigned long handle, size_t len,
		  void *addr)
{
	kunmap_local(addr);
}

int read_obj(struct pool *pool, unsigned long handle, struct page *page)
{
	void *src = kmap_local_page(pool_page(pool, handle));
	void *dst = kmap_local_page(page);

	copy_page(dst, src);
	kunmap_local(dst);
	obj_read_end(pool, handle, PAGE_SIZE, src);
	return 0;
}
