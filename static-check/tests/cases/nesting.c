// SPDX-License-Identifier: GPL-2.0
/* Two direct mappings: released oldest first, and the near miss. */

int copy_wrong_order(struct page *a, struct page *b)
{
	void *src, *dst;

	src = kmap_local_page(a);
	dst = kmap_local_page(b);
	memcpy(dst, src, PAGE_SIZE);
	kunmap_local(src); /* EXPECT: order */
	kunmap_local(dst);
	return 0;
}

int copy_wrong_order_decl(struct page *a, struct page *b)
{
	char *src = kmap_local_page(a);
	char *dst = kmap_local_page(b);

	memcpy(dst, src, PAGE_SIZE);
	kunmap_local(src); /* EXPECT: order */
	kunmap_local(dst);
	return 0;
}

/* near miss: strict nesting */
int copy_nested(struct page *a, struct page *b)
{
	char *src = kmap_local_page(a);
	char *dst = kmap_local_page(b);

	memcpy(dst, src, PAGE_SIZE);
	kunmap_local(dst);
	kunmap_local(src);
	return 0;
}

/* only on one path: the error path releases the older one first */
int copy_error_path(struct page *a, struct page *b, int bad)
{
	void *src, *dst;

	src = kmap_local_page(a);
	dst = kmap_local_folio(page_folio(b), 0);
	if (bad) {
		kunmap_local(src); /* EXPECT: order */
		kunmap_local(dst);
		return -EIO;
	}
	kunmap_local(dst);
	kunmap_local(src);
	return 0;
}

/* near miss: the same variable mapped again after its release */
int remap_same_variable(struct page *a, struct page *b)
{
	void *outer, *p;

	outer = kmap_local_page(a);
	p = kmap_local_page(a);
	kunmap_local(p);
	p = kmap_local_page(b);
	kunmap_local(p);
	kunmap_local(outer);
	return 0;
}

/* near miss: released through an offset into the mapping */
int release_by_offset(struct page *a, struct page *b, unsigned int off)
{
	char *outer = kmap_local_page(a);
	char *p = kmap_local_page(b) + off;

	kunmap_local(p);
	kunmap_local(outer);
	return 0;
}
