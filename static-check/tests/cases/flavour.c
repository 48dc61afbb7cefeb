// SPDX-License-Identifier: GPL-2.0
/* The flavour of the unmap must be the flavour of the map. */

void atomic_then_local(struct page *page)
{
	void *p = kmap_atomic(page);

	clear(p);
	kunmap_local(p); /* EXPECT: flavour */
}

void local_then_atomic(struct page *page)
{
	void *p;

	p = kmap_local_page(page);
	clear(p);
	kunmap_atomic(p); /* EXPECT: flavour */
}

void atomic_then_folio_release(struct folio *folio)
{
	void *p;

	p = kmap_atomic(folio_page(folio, 0));
	clear(p);
	folio_release_kmap(folio, p); /* EXPECT: flavour */
}

/* near misses */
void atomic_ok(struct page *page)
{
	void *p = kmap_atomic(page);

	clear(p);
	kunmap_atomic(p);
}

void local_ok(struct folio *folio)
{
	void *p = kmap_local_folio(folio, 0);

	clear(p);
	folio_release_kmap(folio, p);
}
