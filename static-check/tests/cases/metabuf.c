// SPDX-License-Identifier: GPL-2.0
/*
 * A buffer helper that maps into a structure the caller passes, as
 * fs/erofs/data.c does, and a binary search that keeps the candidate
 * block mapped while it probes the next one (fs/erofs/namei.c).
 */
struct mbuf {
	struct address_space *mapping;
	struct page *page;
	void *base;
};

void mb_unmap(struct mbuf *buf)
{
	if (!buf->base)
		return;
	kunmap_local(buf->base);
	buf->base = NULL;
}

void mb_put(struct mbuf *buf)
{
	if (!buf->page)
		return;
	mb_unmap(buf);
	folio_put(page_folio(buf->page));
	buf->page = NULL;
}

void *mb_read(struct mbuf *buf, unsigned long offset, bool need_kmap)
{
	pgoff_t index = offset >> PAGE_SHIFT;
	struct folio *folio = NULL;

	if (buf->page) {
		folio = page_folio(buf->page);
		if (folio_file_page(folio, index) != buf->page)
			mb_unmap(buf);
	}
	if (!folio || !folio_contains(folio, index)) {
		mb_put(buf);
		folio = read_cache_folio(buf->mapping, index, NULL, NULL);
		if (IS_ERR(folio))
			return folio;
	}
	buf->page = folio_file_page(folio, index);
	if (!need_kmap)
		return NULL;
	if (!buf->base)
		buf->base = kmap_local_page(buf->page);
	return buf->base + (offset & ~PAGE_MASK);
}

/* a helper of the helper: found in a second round */
void *mb_read_meta(struct mbuf *buf, struct super_block *sb, unsigned long pos)
{
	buf->mapping = sb->s_bdev->bd_mapping;
	return mb_read(buf, pos, true);
}

void *find_block(struct mbuf *target, struct inode *dir, int n)
{
	int head = 0, back = n - 1;
	void *candidate = ERR_PTR(-ENOENT);

	while (head <= back) {
		const int mid = head + (back - head) / 2;
		struct mbuf buf = { };
		struct dirent *de;
		int diff;

		buf.mapping = dir->i_mapping;
		de = mb_read(&buf, mid * PAGE_SIZE, true);
		if (!IS_ERR(de)) {
			diff = compare(de);
			if (diff < 0) {
				mb_put(&buf);
				back = mid - 1;
				continue;
			}
			if (!IS_ERR(candidate))
				mb_put(target); /* EXPECT: order */
			*target = buf;
			if (!diff)
				return de;
			head = mid + 1;
			candidate = de;
			continue;
		}
		return de;
	}
	return candidate;
}

/* near miss: the fixed order, the probed block unmapped and mapped again */
void *find_block_fixed(struct mbuf *target, struct inode *dir, int n)
{
	int head = 0, back = n - 1;
	void *candidate = ERR_PTR(-ENOENT);

	while (head <= back) {
		const int mid = head + (back - head) / 2;
		struct mbuf buf = { };
		struct dirent *de;
		int diff;

		buf.mapping = dir->i_mapping;
		de = mb_read(&buf, mid * PAGE_SIZE, true);
		if (!IS_ERR(de)) {
			diff = compare(de);
			if (diff < 0) {
				mb_put(&buf);
				back = mid - 1;
				continue;
			}
			if (!IS_ERR(candidate)) {
				mb_unmap(&buf);
				mb_put(target);
				de = mb_read(&buf, mid * PAGE_SIZE, true);
			}
			*target = buf;
			if (!diff)
				return de;
			head = mid + 1;
			candidate = de;
			continue;
		}
		return de;
	}
	return candidate;
}

/* two buffers of the second-round helper, the older released first */
int two_buffers(struct super_block *sb)
{
	struct mbuf a = { }, b = { };
	void *pa, *pb;

	pa = mb_read_meta(&a, sb, 0);
	if (IS_ERR(pa))
		return PTR_ERR(pa);
	pb = mb_read_meta(&b, sb, 4096);
	if (IS_ERR(pb)) {
		mb_put(&a);
		return PTR_ERR(pb);
	}
	mb_put(&a); /* EXPECT: order */
	mb_put(&b);
	return 0;
}

/* a local buffer still mapped when the function returns */
int buffer_leak(struct super_block *sb, int bad)
{
	struct mbuf a = { };
	void *pa;

	pa = mb_read_meta(&a, sb, 0);
	if (IS_ERR(pa))
		return PTR_ERR(pa);
	if (bad)
		return -EIO; /* EXPECT: held */
	mb_put(&a);
	return 0;
}
