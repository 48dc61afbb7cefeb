// SPDX-License-Identifier: GPL-2.0
/* Mappings made in a loop. */

void xor_forward(struct page **pages, void **addr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		addr[i] = kmap_local_page(pages[i]);
	do_xor(addr, n);
	for (i = 0; i < n; i++)
		kunmap_local(addr[i]); /* EXPECT: loop */
}

void xor_forward_braces(struct page **pages, void **addr, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		addr[i] = kmap_local_page(pages[i]);
		prefetch(addr[i]);
	}
	do_xor(addr, n);
	for (j = 0; j < n; j++) {
		flush(addr[j]);
		kunmap_local(addr[j]); /* EXPECT: loop */
	}
}

/* near miss: released in reverse */
void xor_reverse(struct page **pages, void **addr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		addr[i] = kmap_local_page(pages[i]);
	do_xor(addr, n);
	for (i = n - 1; i >= 0; i--)
		kunmap_local(addr[i]);
}

/* near miss: released in reverse by a while loop */
void xor_reverse_while(struct page **pages, void **addr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		addr[i] = kmap_local_page(pages[i]);
	do_xor(addr, n);
	while (i--)
		kunmap_local(addr[i]);
}

/* near miss: one at a time */
void each_page(struct page **pages, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		void *p = kmap_local_page(pages[i]);

		clear(p);
		kunmap_local(p);
	}
}
