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
