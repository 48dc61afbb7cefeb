// SPDX-License-Identifier: GPL-2.0
/* A mapping still held at a return, not handed to the caller. */

int leak_on_error(struct page *page, int bad)
{
	char *p = kmap_local_page(page);

	if (bad)
		return -EIO; /* EXPECT: held */
	clear(p);
	kunmap_local(p);
	return 0;
}

int leak_assigned(struct page *page, int bad)
{
	char *p;
	int x;

	p = kmap_local_page(page);
	x = p[0];
	if (x)
		return x; /* EXPECT: held */
	kunmap_local(p);
	return 0;
}

/* near miss: handed to the caller */
void *map_for_caller(struct page *page, int off)
{
	char *p = kmap_local_page(page);

	return p + off;
}

/* near miss: handed to the caller through a pointer */
int map_out(struct page *page, void **out)
{
	void *p = kmap_local_page(page);

	*out = p;
	return 0;
}

/* near miss: released on every path */
int released(struct page *page, int bad)
{
	char *p = kmap_local_page(page);

	if (bad) {
		kunmap_local(p);
		return -EIO;
	}
	kunmap_local(p);
	return 0;
}
